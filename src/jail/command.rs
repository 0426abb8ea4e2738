//! A program to start as a bot, and what confines it: its command line, working folder and
//! environment, its caps, and the level of its jail.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A program to start: command line, working directory and environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CommandSpec {
    /// The program: a path, or a bare name looked up in `PATH` ([`find_program`]).
    pub program: String,
    /// Its arguments, each passed as one word (no shell).
    pub args: Vec<String>,
    /// The folder it runs in, of which a jailed bot gets a private copy; `None`: the
    /// harness's current folder, of which a jailed bot gets nothing (an empty folder).
    pub cwd: Option<PathBuf>,
    /// Added to (or overriding) the harness's environment.
    pub env: BTreeMap<String, String>,
    /// Resource limits and isolation, applied before the program starts.
    pub confine: Confinement,
    /// Folders the program reads besides its working folder (a Java bot's compiled
    /// classes): used where they are, or under `--sandbox user` copied into the bot's
    /// private folder, with the arguments that point into them rewritten to the copy.
    pub carried: Vec<PathBuf>,
    /// The entrant's file the command runs when no argument names it (a Java player's
    /// source, run as a class): the jail lets the bot read its own entry.
    pub entry: Option<PathBuf>,
}

/// The executable file `program` names: a path, or a bare name looked up in `PATH`.
pub fn find_program(program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let executable = |p: &Path| {
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        let path = PathBuf::from(program);
        return executable(&path).then_some(path);
    }
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|p| executable(p))
}

/// Whether the file `program` is an installed program rather than a bot's own: it lies in
/// the system's folders (`/usr`, `/bin`, ... as a jail mounts them), or in the `bin` folder
/// of a runtime installed elsewhere (beside its `lib`, or a virtual environment's, beside
/// `pyvenv.cfg`), such as a Python under /opt. `console:/usr/bin/python3 bot.py` is run in
/// the folder of `bot.py`, not in `/usr/bin`.
pub fn installed_program(program: &Path) -> bool {
    let program = std::path::absolute(program).unwrap_or_else(|_| program.to_path_buf());
    if super::inside::SYSTEM.iter().any(|s| program.starts_with(s)) {
        return true;
    }
    let Some(bin) = program
        .parent()
        .filter(|b| b.file_name().is_some_and(|n| n == "bin"))
    else {
        return false;
    };
    bin.parent()
        .is_some_and(|home| home.join("lib").is_dir() || home.join("pyvenv.cfg").is_file())
}

/// Resource limits for one bot process (each process it forks inherits them).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// Address space in MiB (`RLIMIT_AS`): allocations beyond it fail.
    pub memory_mb: Option<u64>,
    /// CPU seconds per process for the whole game (`RLIMIT_CPU`): SIGXCPU, then SIGKILL a
    /// second later.
    pub cpu_s: Option<u64>,
    /// Largest file the bot may write, in MiB (`RLIMIT_FSIZE`): SIGXFSZ beyond it.
    pub file_mb: Option<u64>,
    /// Processes of the bot's uid (`RLIMIT_NPROC`): enforced only under `--sandbox user`,
    /// where the uid is the bot's own.
    pub procs: Option<u64>,
}

/// How a bot is isolated from the harness, the other bot and the machine
/// (docs/SECURITY.md; `arbiter doctor` says what this machine gives).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum SandboxMode {
    /// The strongest confinement this machine gives without root: namespaces where user
    /// namespaces work, else Landlock and seccomp; a bot is refused where neither does.
    #[default]
    Auto,
    /// Namespaces (own root, pid, network): refused where user namespaces are off.
    Namespaces,
    /// Landlock and seccomp only (no pid isolation).
    Landlock,
    /// The bot runs as the harness's user, unconfined, in its own process group.
    None,
    /// The bot runs under its own unprivileged uid, in a private working folder, without
    /// network (needs root).
    User,
}

impl SandboxMode {
    /// The mode a `--sandbox` value or a config's `sandbox` names; `None` for another word.
    pub fn parse(text: &str) -> Option<SandboxMode> {
        match text {
            "auto" => Some(SandboxMode::Auto),
            "namespaces" => Some(SandboxMode::Namespaces),
            "landlock" => Some(SandboxMode::Landlock),
            "none" => Some(SandboxMode::None),
            "user" => Some(SandboxMode::User),
            _ => None,
        }
    }

    /// The mode's name as `--sandbox` takes it (`auto`, `namespaces`, ...).
    pub fn name(self) -> &'static str {
        match self {
            SandboxMode::Auto => "auto",
            SandboxMode::Namespaces => "namespaces",
            SandboxMode::Landlock => "landlock",
            SandboxMode::None => "none",
            SandboxMode::User => "user",
        }
    }
}

/// Limits plus isolation.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Confinement {
    /// The limits given; a jail adds default caps for the rest ([`Confinement::effective_limits`]).
    pub limits: Limits,
    /// How the bot is isolated.
    pub sandbox: SandboxMode,
    /// The deadline of a submission's build (a C# project's `dotnet build`), in seconds;
    /// `None`: [`DEFAULT_BUILD_S`].
    pub build_s: Option<u64>,
    /// The bot's processes run on any CPU the scheduler picks, not on the game's CPU
    /// beside the referee (see [`crate::clocks::placement`]).
    pub spread: bool,
}

// The default caps of a jailed bot (`jail::caps` applies them).

/// A jailed bot's address space unless `--memory-mb` says otherwise, in MiB: a course bot
/// needs tens of MiB, numpy with a few hundred MB of weights well under 1 GiB, and a JVM
/// is sized to the limit (`bots::java`). memfd pages, which no address-space limit counts,
/// are refused by the filter (`jail::filter`).
pub const DEFAULT_MEMORY_MB: u64 = 2048;

/// Processes and threads a jailed bot may have at once unless told otherwise: a JVM has
/// 20 to 60 threads, numpy's BLAS one per core; a fork storm stops here.
pub const DEFAULT_TASKS: u64 = 256;

/// What a jailed bot may write into its private folder (its HOME and /tmp) altogether, in
/// MiB, beyond the copy of its own files it starts with; also its largest file unless
/// `--file-mb` says otherwise.
pub const DEFAULT_DISK_MB: u64 = 1024;

impl Confinement {
    /// Whether bot programs under this confinement start in a jail (`jail`).
    pub fn jailed(&self) -> bool {
        matches!(
            self.sandbox,
            SandboxMode::Auto | SandboxMode::Namespaces | SandboxMode::Landlock
        )
    }

    /// The limits a bot program runs under: those given, and in a jail the default caps
    /// for the rest (`jail::caps`). A run's settings record those given.
    pub fn effective_limits(&self) -> Limits {
        let given = self.limits;
        if !self.jailed() {
            return given;
        }
        Limits {
            memory_mb: given.memory_mb.or(Some(DEFAULT_MEMORY_MB)),
            cpu_s: given.cpu_s,
            file_mb: given.file_mb.or(Some(DEFAULT_DISK_MB)),
            procs: given.procs.or(Some(DEFAULT_TASKS)),
        }
    }
}

/// How long a submission's build may take unless told otherwise: a course project builds
/// in well under a minute.
pub const DEFAULT_BUILD_S: u64 = 300;

impl CommandSpec {
    /// Runs `program` with no arguments, working folder or environment of its own, under the
    /// default [`Confinement`] (sandbox `auto`, no limits given).
    pub fn new(program: impl Into<String>) -> Self {
        CommandSpec {
            program: program.into(),
            args: Vec::new(),
            cwd: None,
            env: BTreeMap::new(),
            confine: Confinement::default(),
            carried: Vec::new(),
            entry: None,
        }
    }
    /// The command with `arg` added after its arguments.
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }
}
