//! Running a compiled player: the JVM's flags under a memory limit, the command through
//! the protocol driver, and the [`JavaPlayer`] seat that compiles at its first start and
//! reads the JVM's ways of failing (no room to start, a write past the file size limit).

use super::compile::*;
use super::environment::*;
use crate::bots::process::ProcessPlayer;
use crate::bots::spec::{CommandSpec, Confinement, Limits};
use crate::bots::{BotLog, EndInfo, Failure, FailureKind, Player, Reply, Setup, TurnReply};
use crate::games::Game;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Address space a JVM takes beyond its heap and the player's thread stack: the runtime
/// image mapped whole (about 120 MiB), code cache, class space, metaspace, libraries and
/// the JVM's own threads. Measured at about 320 MiB for OpenJDK 17 with the flags of
/// [`memory_flags`]; the rest is margin.
pub(crate) const JVM_OVERHEAD_MB: u64 = 400;
/// The smallest heap arbiter gives a JVM.
pub(crate) const MIN_HEAP_MB: u64 = 16;
/// The player's thread stack without a memory limit (course players recurse deeply).
pub(crate) const STACK_MB: u64 = 256;

/// The JVM flags that fit a JVM into `memory_mb` MiB of address space (`RLIMIT_AS`), and
/// the player thread's stack in MiB. Without a limit, only the stack (256 MiB).
///
/// The limit is split into the player's thread stack (a sixteenth, 16 to 256 MiB), the
/// JVM's fixed reservations (code cache and class space capped at 32 MiB, metaspace at
/// 96 MiB, [`JVM_OVERHEAD_MB`] in all) and the heap (`-Xmx`, the rest but at most a
/// quarter of the limit, at least [`MIN_HEAP_MB`]). Under [`min_memory_mb`] the JVM cannot start.
pub(crate) fn memory_flags(memory_mb: Option<u64>) -> (Vec<String>, u64) {
    let Some(limit) = memory_mb else {
        return (Vec::new(), STACK_MB);
    };
    let stack = stack_mb(limit);
    // At most a quarter of the limit (as a JVM takes a quarter of the memory by default):
    // what the JVM allocates as it runs needs room beyond its reservations. Its compiler's
    // arenas took 974 MB compiling a deep recursion (OpenJDK 17, NMT), which then ended
    // in a failed malloc, not a StackOverflowError, under 2 GiB with a 1 GiB heap.
    let heap = limit
        .saturating_sub(JVM_OVERHEAD_MB + stack)
        .min(limit / 4)
        .max(MIN_HEAP_MB);
    let flags = [
        format!("-Xmx{heap}m"),
        "-XX:ReservedCodeCacheSize=32m".to_string(),
        "-XX:CompressedClassSpaceSize=32m".to_string(),
        "-XX:MaxMetaspaceSize=96m".to_string(),
    ];
    (flags.to_vec(), stack)
}

/// The command that runs a compiled player under `limits`: `java -Djava.awt.headless=true
/// -XX:+UseSerialGC -XX:-UsePerfData -XX:ErrorFile=/dev/null -XX:ReplayDataFile=/dev/null
/// [memory flags] -Darbiter.stack.mb=N [$ARBITER_JAVA_OPTS] -cp DIR ArbiterDriver CLASS`. The serial collector keeps one JVM from starting a
/// garbage-collector thread per core while many bots share the machine; without perf data
/// the JVM writes nothing to /tmp. `extra` holds more JVM options ([`JAVA_OPTS_VAR`]). The
/// class folder is carried into a sandbox (its copy is private to the bot).
pub(crate) fn run_command(
    compiled: &Compiled,
    java: &str,
    limits: &Limits,
    extra: &str,
) -> CommandSpec {
    jvm_command(&compiled.dir, "ArbiterDriver", java, limits, extra).arg(compiled.class.clone())
}

/// The command that runs the class `main` from the class folder `classes` with the flags
/// of [`run_command`] (arguments to `main` are added by the caller).
pub(crate) fn jvm_command(
    classes: &Path,
    main: &str,
    java: &str,
    limits: &Limits,
    extra: &str,
) -> CommandSpec {
    let (flags, stack) = memory_flags(limits.memory_mb);
    let mut command = CommandSpec::new(java)
        .arg("-Djava.awt.headless=true")
        .arg("-XX:+UseSerialGC")
        .arg("-XX:-UsePerfData")
        // A crashing JVM would leave its report in the bot's folder (the original one,
        // without the sandbox); its summary still reaches the bot's logs.
        .arg("-XX:ErrorFile=/dev/null")
        .arg("-XX:ReplayDataFile=/dev/null");
    command.args.extend(flags);
    command.args.push(format!("-Darbiter.stack.mb={stack}"));
    command
        .args
        .extend(extra.split_whitespace().map(str::to_string));
    let dir = classes.to_string_lossy().into_owned();
    command = command.arg("-cp").arg(dir).arg(main);
    if limits.memory_mb.is_some() {
        // glibc's per-thread malloc arenas reserve 64 MiB of address space each.
        command.env.insert("MALLOC_ARENA_MAX".into(), "1".into());
    }
    command.carried.push(classes.to_path_buf());
    command
}

/// What a JVM prints when it cannot reserve its memory at start.
pub(super) const JVM_START_FAILURES: &[&str] = &[
    "Error occurred during initialization of VM",
    "Could not reserve enough space",
    "Could not allocate compressed class space",
    "There is insufficient memory for the Java Runtime Environment",
    "Could not create the Java Virtual Machine",
    "Failed to start thread",
];

/// The least memory limit under which `memory_flags` leaves the heap its minimum, in
/// MiB: the least a JVM is expected to start under.
pub fn min_memory_mb() -> u64 {
    (JVM_OVERHEAD_MB..)
        .find(|&mb| mb >= JVM_OVERHEAD_MB + stack_mb(mb) + MIN_HEAP_MB)
        .unwrap_or(u64::MAX)
}

/// The player thread's stack under a memory limit: a sixteenth of it, 16 to 256 MiB. A
/// bot recursing without end fills it, and the JIT compiler's arenas grow with its depth:
/// with a 256 MiB stack under 2 GiB they ran out of memory (a failed malloc, not a
/// StackOverflowError); with 128 MiB the error is thrown.
pub(super) fn stack_mb(memory_mb: u64) -> u64 {
    (memory_mb / 16).clamp(16, STACK_MB)
}

/// A failure before `ready` of a JVM under a memory limit becomes a `spawn_failed` that
/// says the JVM did not start under it. The driver answers the handshake with `ready` or
/// an `error` (a player's constructor or static initialiser that fails, even by running
/// out of memory, is an `error`), so a JVM that crashes or exits before either never got
/// to run the player: it could not reserve its memory. Its own words about that (on
/// stderr, or on stdout, which is the bot's chatter log) or a crash without a word (a
/// launcher short of address space dies of SIGSEGV) are all that can be seen.
pub(super) fn jvm_start_failure(failure: Failure, limits: &Limits) -> Failure {
    let Some(mb) = limits.memory_mb else {
        return failure;
    };
    if !matches!(failure.kind, FailureKind::Crash | FailureKind::Memory) {
        return failure;
    }
    let (flags, stack) = memory_flags(Some(mb));
    let said = if JVM_START_FAILURES
        .iter()
        .any(|m| failure.detail.contains(m))
    {
        ""
    } else {
        " (its own message, if any, is in its chatter log)"
    };
    Failure::new(
        FailureKind::Spawn,
        format!(
            "the JVM did not start under the memory limit of {mb} MiB{said}: --memory-mb \
             sets RLIMIT_AS (address space), and a JVM reserves about {} MiB beyond its heap, \
             so give it at least {} MiB (flags used: {} -Darbiter.stack.mb={stack}); {}",
            JVM_OVERHEAD_MB + stack,
            min_memory_mb(),
            flags.join(" "),
            failure.detail
        ),
    )
}

/// The message of a write past `RLIMIT_FSIZE` in the JVM: HotSpot ignores SIGXFSZ, so the
/// write fails with `EFBIG` and the player gets an `IOException` instead of dying.
pub(super) const FILE_TOO_LARGE: &str = "File too large";

/// A player that died of writing past the file size limit (its `IOException` reported as
/// an exception) loses by `file_size`.
pub(super) fn file_size_failure(failure: Failure, limits: &Limits) -> Failure {
    match limits.file_mb {
        Some(mb)
            if matches!(failure.kind, FailureKind::Exception | FailureKind::Crash)
                && failure.detail.contains(FILE_TOO_LARGE) =>
        {
            Failure::new(
                FailureKind::FileSize,
                format!("file size limit of {mb} MiB exceeded: {}", failure.detail),
            )
        }
        _ => failure,
    }
}

/// A course Java player seated as a bot: compiled at its first start, then run as a
/// protocol program in its file's folder (or the folder the seat names), confined like
/// every bot program.
pub struct JavaPlayer {
    file: PathBuf,
    cwd: Option<PathBuf>,
    env: BTreeMap<String, String>,
    confine: Confinement,
    inner: Option<ProcessPlayer>,
}

impl JavaPlayer {
    /// Seats the player in `file`, run in `cwd` (by default the file's folder) with `env`.
    pub fn new(file: &Path, cwd: Option<&Path>, env: &BTreeMap<String, String>) -> Self {
        let file = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
        let cwd = cwd.map(Path::to_path_buf).or_else(|| {
            file.parent()
                .filter(|p| !p.as_os_str().is_empty())
                .map(Path::to_path_buf)
        });
        JavaPlayer {
            file,
            cwd,
            env: env.clone(),
            confine: Confinement::default(),
            inner: None,
        }
    }

    /// The player with resource limits and isolation.
    pub fn confined(mut self, confine: Confinement) -> Self {
        self.confine = confine;
        self
    }

    /// The bot's process group id while it runs: for tests and diagnostics.
    pub fn process_group(&self) -> Option<i32> {
        self.inner.as_ref().and_then(ProcessPlayer::process_group)
    }
}

impl<G: Game> Player<G> for JavaPlayer {
    fn start(&mut self, game: &G, setup: &Setup) -> Result<Option<String>, Failure> {
        self.inner = None;
        let compiled = compile_confined(&self.file, &javac_program(), self.confine)
            .map_err(|e| Failure::new(FailureKind::Spawn, e))?;
        let limits = self.confine.effective_limits();
        let extra = std::env::var(JAVA_OPTS_VAR).unwrap_or_default();
        let mut command = run_command(&compiled, &java_program(), &limits, &extra);
        command.cwd = self.cwd.clone();
        command.entry = Some(self.file.clone());
        command.confine = self.confine;
        command
            .env
            .extend(self.env.iter().map(|(k, v)| (k.clone(), v.clone())));
        let inner = self.inner.insert(ProcessPlayer::new(command));
        Player::<G>::start(inner, game, setup)
            .map_err(|f| file_size_failure(jvm_start_failure(f, &limits), &limits))
    }

    fn freezer(&self) -> Option<crate::clocks::freeze::Freezer> {
        self.inner.as_ref().and_then(Player::<G>::freezer)
    }

    fn freeze_when_slow(&mut self, opponent: crate::clocks::freeze::Freezer) -> bool {
        self.inner
            .as_mut()
            .is_some_and(|inner| Player::<G>::freeze_when_slow(inner, opponent))
    }

    fn turn(&mut self, game: &G, state: &G::State) -> TurnReply<G::Move> {
        match self.inner.as_mut() {
            Some(inner) => {
                let mut reply = Player::<G>::turn(inner, game, state);
                if let Reply::Failed(failure) = reply.reply {
                    reply.reply =
                        Reply::Failed(file_size_failure(failure, &self.confine.effective_limits()));
                }
                reply
            }
            None => TurnReply {
                reply: Reply::Failed(Failure::new(FailureKind::Crash, "the bot is not running")),
                elapsed: std::time::Duration::ZERO,
                waited: std::time::Duration::ZERO,
            },
        }
    }

    fn finish(&mut self, end: &EndInfo) -> BotLog {
        match self.inner.as_mut() {
            Some(inner) => Player::<G>::finish(inner, end),
            None => BotLog::default(),
        }
    }
}
