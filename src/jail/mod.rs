//! Confinement without root: the level this machine gives, chosen once per run, and the
//! jail a bot program starts in.
//!
//! A confined bot is started as `arbiter-jail confine JAIL` ([`helper`]): the build's second
//! program, beside arbiter, builds the jail in a fresh single-threaded process
//! (`inside::enter`) and `exec`s the bot's program in it; where that program is missing or
//! of another build, arbiter itself does, run again as `arbiter confine JAIL`. The referee
//! prepares what the jail holds (`prepare`): the bot's private folder with a copy of its
//! own files (never another entrant's files, nor the run's results: [`entrants`]), the
//! runtime it needs, its environment.
//!
//! - Level 1, [`Level::Namespaces`]: user, mount, pid, network, IPC and UTS namespaces, a new
//!   read-only root with the system and the runtime, a fresh /proc, a minimal /dev; Landlock
//!   and seccomp on top.
//! - Level 2, [`Level::Landlock`]: Landlock and seccomp only, where user namespaces are off:
//!   the files are limited as above, TCP and signals outside the bot's domain are refused,
//!   but the bot sees the machine's processes.
//! - Level 3: neither. An untrusted bot is refused unless `--sandbox none` says to run it as
//!   the user.
//!
//! The level is found by trials, jails of each level starting `true`, once per run; a
//! finding of level 1 is kept for the runs that follow on the same boot (`kept.rs`), and a
//! jail that fails to build says why on its report (`report`), which makes a run
//! whose kept finding no longer holds try again.

mod beside;
pub mod caps;
pub mod cgroup;
mod command;
pub mod cpus;
pub mod entrants;
mod filter;
pub mod helper;
pub(crate) mod inside;
mod kept;
mod launch;
pub mod leftovers;
mod plan;
mod prepare;
pub mod procfs;
mod readable;
pub mod reaper;
pub(crate) mod report;
pub mod sandbox;

pub use command::{
    CommandSpec, Confinement, DEFAULT_BUILD_S, DEFAULT_DISK_MB, DEFAULT_MEMORY_MB, DEFAULT_TASKS,
    Limits, SandboxMode, find_program, installed_program,
};
pub use launch::{Launch, StartError, launch};
pub use prepare::Prepared;
pub(crate) use prepare::prepare;
pub(crate) use report::{JailRefused, JailReport};

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

/// Points the paths in `arg` that lie under `from` at the same place under `to`: `arg` is
/// a path, or a `:`-separated list of them (a source or class path), or an option whose
/// value is one (`KEY=PATH`).
pub(crate) fn repoint(arg: &mut String, from: &std::path::Path, to: &std::path::Path) {
    let moved = |path: &str| {
        std::path::Path::new(path)
            .strip_prefix(from)
            .ok()
            .map(|rest| to.join(rest).to_string_lossy().into_owned())
    };
    let parts: Vec<String> = arg
        .split(':')
        .map(|part| {
            // A path, or an option's value after `=` (`-J-XX:SharedArchiveFile=PATH`).
            moved(part)
                .or_else(|| {
                    let (key, value) = part.split_once('=')?;
                    moved(value).map(|value| format!("{key}={value}"))
                })
                .unwrap_or_else(|| part.to_string())
        })
        .collect();
    *arg = parts.join(":");
}

/// How far a bot is confined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Level 1: user, mount, pid, network, IPC and UTS namespaces, with Landlock and seccomp.
    Namespaces,
    /// Level 2, where user namespaces are off: Landlock and seccomp only.
    Landlock,
}

impl Level {
    /// The level's name in settings and output (`namespaces`, `landlock`).
    pub fn name(self) -> &'static str {
        match self {
            Level::Namespaces => "namespaces",
            Level::Landlock => "landlock",
        }
    }

    /// What the level does not give, for a run's output.
    pub fn caveat(self) -> Option<&'static str> {
        match self {
            Level::Namespaces => None,
            Level::Landlock => Some(
                "no pid isolation: bots can list the machine's processes and read their \
                 command lines (they cannot signal, trace or change them)",
            ),
        }
    }
}

/// What this machine gives, each layer with why not.
#[derive(Clone, Debug)]
pub struct Layers {
    /// The trial of a level-1 jail (user namespaces): `Ok` where it ran, else why not.
    pub user_namespaces: Result<(), String>,
    /// The kernel's Landlock ABI version, or why Landlock is not there.
    pub landlock: Result<u32, String>,
    /// The trial of a level-2 jail (Landlock and the seccomp filter), standing for the filter.
    pub seccomp: Result<(), String>,
}

impl Layers {
    /// The first level the machine allows.
    pub fn level(&self) -> Option<Level> {
        if self.seccomp.is_err() || self.landlock.is_err() {
            return None;
        }
        if self.user_namespaces.is_ok() {
            Some(Level::Namespaces)
        } else {
            Some(Level::Landlock)
        }
    }

    /// Why no level is available.
    pub fn why_none(&self) -> String {
        let mut why = Vec::new();
        if let Err(e) = &self.landlock {
            why.push(format!("Landlock: {e}"));
        }
        if let Err(e) = &self.seccomp {
            why.push(format!("seccomp: {e}"));
        }
        if let Err(e) = &self.user_namespaces {
            why.push(format!("user namespaces: {e}"));
        }
        why.join("; ")
    }
}

/// The layers this machine gives: what the jail trials found earlier on this boot, kept
/// for the runs that follow (`kept.rs`), else the trials' own ([`verify`]).
pub fn layers() -> &'static Layers {
    static RECALLED: OnceLock<Option<Layers>> = OnceLock::new();
    if user_namespaces_turned_off() {
        return verify();
    }
    if let Some(tried) = TRIED.get() {
        return tried;
    }
    match RECALLED.get_or_init(recalled) {
        Some(recalled) => recalled,
        None => verify(),
    }
}

/// After a bot's jail failed to build: whether the level it was started at came from a
/// kept finding, which is then forgotten and replaced by what the trials find now. The
/// bot is then worth starting again (once); else its failure stands.
pub(crate) fn recheck() -> bool {
    if TRIED.get().is_some() {
        return false;
    }
    kept::Finding::namespaces().forget();
    verify();
    true
}

/// The file that keeps this boot's finding for the runs that follow, when one holds now.
pub fn kept_finding() -> Option<PathBuf> {
    kept::Finding::namespaces().kept_at(&helper_program()?)
}

static TRIED: OnceLock<Layers> = OnceLock::new();

/// Level 1, as a finding kept on this boot says (only that finding is kept).
fn recalled() -> Option<Layers> {
    let helper = helper_program()?;
    let landlock = landlock_abi().ok()?;
    kept::Finding::namespaces()
        .recall(&helper)
        .then_some(Layers {
            user_namespaces: Ok(()),
            landlock: Ok(landlock),
            seccomp: Ok(()),
        })
}

/// The trials' own finding, never a kept one: the layers found by starting `true` in a jail
/// of each level, once per run; a finding of level 1 is kept for the runs that follow. For
/// what a run writes down as the level its bots were confined at (a league's plan), and
/// for `arbiter doctor`.
pub fn verify() -> &'static Layers {
    TRIED.get_or_init(|| {
        let layers = trials();
        if layers.level() == Some(Level::Namespaces)
            && let Some(helper) = helper_program()
        {
            kept::Finding::namespaces().keep(&helper);
        }
        layers
    })
}

/// Set to `off`, arbiter makes no user namespaces: its bots are confined at level 2, as on
/// a machine that refuses them (to see what such a machine gives, or where they misbehave).
pub(crate) const USERNS_VAR: &str = "ARBITER_USERNS";

fn user_namespaces_turned_off() -> bool {
    std::env::var_os(USERNS_VAR).is_some_and(|v| v == "off")
}

fn trials() -> Layers {
    let landlock = landlock_abi();
    if user_namespaces_turned_off() {
        return Layers {
            user_namespaces: Err(format!("turned off ({USERNS_VAR}=off)")),
            seccomp: try_level(Level::Landlock),
            landlock,
        };
    }
    let (user_namespaces, seccomp) = match helper_program() {
        None => {
            let why = "the arbiter program that builds jails is not found (set ARBITER_EXE)";
            (Err(why.to_string()), Err(why.to_string()))
        }
        // Both trials at once: each is mostly waiting for a process.
        Some(_) => std::thread::scope(|scope| {
            let landlock = scope.spawn(|| try_level(Level::Landlock));
            let namespaces = try_level(Level::Namespaces);
            let landlock = landlock
                .join()
                .unwrap_or_else(|_| Err("the trial panicked".to_string()));
            (namespaces, landlock)
        }),
    };
    Layers {
        user_namespaces,
        landlock,
        // The level-2 trial applies Landlock and the seccomp filter: what it says
        // stands for the filter (a Landlock failure is named by the version query).
        seccomp,
    }
}

/// The level `mode` asks for on this machine: `None` for a bot that is not jailed
/// (`none`, or `user`, which has its own uid sandbox), else the level, or why it cannot be
/// had (with the flag that accepts the risk).
pub fn level_for(mode: SandboxMode) -> Result<Option<Level>, String> {
    let layers = layers();
    match mode {
        SandboxMode::None | SandboxMode::User => Ok(None),
        SandboxMode::Auto => layers.level().map(Some).ok_or_else(|| {
            format!(
                "bots cannot be confined on this machine ({}); `--sandbox none` (sandbox = \
                 \"none\") runs them unconfined, as you: only for bots you trust",
                layers.why_none()
            )
        }),
        SandboxMode::Namespaces => match (&layers.user_namespaces, layers.level()) {
            (Ok(()), Some(_)) => Ok(Some(Level::Namespaces)),
            (Err(e), _) => Err(format!("--sandbox namespaces: user namespaces: {e}")),
            (Ok(()), None) => Err(format!("--sandbox namespaces: {}", layers.why_none())),
        },
        SandboxMode::Landlock => match layers.level() {
            Some(_) => Ok(Some(Level::Landlock)),
            None => Err(format!("--sandbox landlock: {}", layers.why_none())),
        },
    }
}

/// The Landlock ABI of the running kernel.
fn landlock_abi() -> Result<u32, String> {
    // SAFETY: the documented version query: no pointer is read.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<u8>(),
            0usize,
            1u32,
        )
    };
    if v < 0 {
        let e = std::io::Error::last_os_error();
        return Err(match e.raw_os_error() {
            Some(libc::ENOSYS) => "not built into this kernel".into(),
            Some(libc::EOPNOTSUPP) => "built in but not enabled (the `lsm=` boot list)".into(),
            _ => e.to_string(),
        });
    }
    Ok(v as u32)
}

/// Starts `true` in a jail of `level`: the level works when it exits 0; else what
/// `arbiter confine` said.
fn try_level(level: Level) -> Result<(), String> {
    match try_level_once(level) {
        Err(why) if other_build_beside(&why) => try_level_once(level),
        tried => tried,
    }
    .map_err(|why| why.to_string())
}

fn try_level_once(level: Level) -> Result<(), JailRefused> {
    let failed = |why: String| JailRefused::Failed(why);
    let truth = ["/usr/bin/true", "/bin/true"]
        .into_iter()
        .find(|p| std::path::Path::new(p).exists())
        .ok_or_else(|| failed("no `true` program to try with".to_string()))?;
    let command = CommandSpec::new(truth);
    let prepared = prepare(&command, level).map_err(|e| failed(e.to_string()))?;
    let mut cmd = prepared.command().map_err(|e| failed(e.to_string()))?;
    let out = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .output()
        .map_err(|e| failed(format!("cannot start arbiter confine: {e}")))?;
    if out.status.success() {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&out.stderr);
    Err(JailRefused::said(
        said.lines()
            .last()
            .unwrap_or("it failed without a word")
            .trim_start_matches("arbiter confine: ")
            .to_string(),
    ))
}

/// The arbiter program: `$ARBITER_EXE`, this program when it is arbiter, or the arbiter
/// built beside it (a test binary in `target/*/deps/`).
fn arbiter_program() -> Option<&'static Path> {
    static ARBITER: OnceLock<Option<PathBuf>> = OnceLock::new();
    ARBITER
        .get_or_init(|| {
            if let Some(path) = std::env::var_os("ARBITER_EXE").filter(|p| !p.is_empty()) {
                return Some(PathBuf::from(path));
            }
            let me = std::env::current_exe().ok()?;
            if me.file_name().is_some_and(|n| n == "arbiter") {
                return Some(me);
            }
            let dir = me.parent()?;
            [dir.join("arbiter"), dir.parent()?.join("arbiter")]
                .into_iter()
                .find(|p| p.is_file())
        })
        .as_deref()
}

/// Set once the `arbiter-jail` beside arbiter refused a jail as being of another build.
static OTHER_BUILD_BESIDE: AtomicBool = AtomicBool::new(false);

/// The program that builds jails: the `arbiter-jail` beside the arbiter program (a build
/// makes both; it starts sooner than arbiter, whose other commands it lacks), unless it is
/// missing or this run found it of another build; else the arbiter program itself, as
/// `arbiter confine`.
pub fn helper_program() -> Option<PathBuf> {
    let arbiter = arbiter_program()?;
    match jail_program_beside() {
        Some(beside) if !OTHER_BUILD_BESIDE.load(Ordering::SeqCst) => Some(beside.to_path_buf()),
        _ => Some(arbiter.to_path_buf()),
    }
}

/// The `arbiter-jail` in the arbiter program's folder, when it is a file this user may run
/// (looked for once a run).
fn jail_program_beside() -> Option<&'static Path> {
    static BESIDE: OnceLock<Option<PathBuf>> = OnceLock::new();
    BESIDE
        .get_or_init(|| {
            let beside = arbiter_program()?.with_file_name("arbiter-jail");
            let runnable = rustix::fs::access(&beside, rustix::fs::Access::EXEC_OK).is_ok();
            (runnable && beside.is_file()).then_some(beside)
        })
        .as_deref()
}

/// After a jail failed to build, saying `why`: whether the `arbiter-jail` beside arbiter
/// may have built it and found its description of another build (`cargo run` relinks
/// arbiter alone). From then on this run builds its jails with arbiter itself, and the
/// start is worth trying again. Nothing is said: a stale `arbiter-jail` is what every
/// `cargo run` after a change leaves, the jails arbiter builds are the same, and each bot
/// starts a fraction of a millisecond later; `arbiter doctor` names the program that
/// builds them, and why.
pub(crate) fn other_build_beside(why: &JailRefused) -> bool {
    if jail_program_beside().is_none() || !matches!(why, JailRefused::OtherBuild(_)) {
        return false;
    }
    OTHER_BUILD_BESIDE.store(true, Ordering::SeqCst);
    true
}

/// The `arbiter-jail` beside arbiter when this run found it of another build (and so
/// builds its jails with arbiter itself).
pub fn jail_program_of_another_build() -> Option<&'static Path> {
    jail_program_beside().filter(|_| OTHER_BUILD_BESIDE.load(Ordering::SeqCst))
}

/// `arbiter confine JAIL`, as its command line (`@FILE`: the jail is described in FILE).
pub(crate) fn helper_command(jail: &str) -> Option<Command> {
    let mut cmd = Command::new(helper_program()?);
    cmd.arg("confine").arg(jail);
    Some(cmd)
}

#[cfg(test)]
mod tests {
    use super::repoint;
    use std::path::Path;

    #[test]
    fn repoint_moves_paths_and_the_paths_of_a_source_path_list_only() {
        let (from, to) = (Path::new("/w/job"), Path::new("/jail/.arbiter-job"));
        let mut list = "/w/job/src:/w/job/env:/elsewhere".to_string();
        repoint(&mut list, from, to);
        assert_eq!(
            list,
            "/jail/.arbiter-job/src:/jail/.arbiter-job/env:/elsewhere"
        );
        let mut path = "/w/job/classes".to_string();
        repoint(&mut path, from, to);
        assert_eq!(path, "/jail/.arbiter-job/classes");
        // A neighbour whose name starts alike is not under `from`.
        let mut option = "-J-XX:SharedArchiveFile=/w/job/javac.jsa".to_string();
        repoint(&mut option, from, to);
        assert_eq!(
            option,
            "-J-XX:SharedArchiveFile=/jail/.arbiter-job/javac.jsa"
        );
        for kept in ["/w/jobs/x", "-Dkey=a:b", "-Dkey=/w/jobs/x", "-encoding"] {
            let mut arg = kept.to_string();
            repoint(&mut arg, from, to);
            assert_eq!(arg, kept);
        }
    }
}
