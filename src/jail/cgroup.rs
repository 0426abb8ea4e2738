//! A cgroup (v2) per bot, where one can be made: the mark of a bot's processes that a bot
//! cannot shed. Every process it starts is born in its cgroup, whatever session, process
//! group or environment it gives itself, and only a process allowed to write the cgroup
//! files (root, or their owner) can move out; `cgroup.kill` then SIGKILLs them all at
//! once, a fork storm included.
//!
//! Made under arbiter's own cgroup, on the cgroup2 hierarchy (`/sys/fs/cgroup`, or the
//! `unified` one of a hybrid setup), where arbiter may create folders and the kernel has
//! `cgroup.kill` (Linux 5.14): checked once by starting a process in a probe cgroup.
//! Elsewhere (no cgroup2, no write access, an older kernel, or `ARBITER_CGROUP=off`)
//! there is none, and the sweep by process group, token and parentage does the work alone.
//!
//! A process is best born in its cgroup (`fork_into`, `clone3` with `CLONE_INTO_CGROUP`,
//! Linux 5.7): moving a living one there (`join`) makes the kernel wait for an RCU grace
//! period, 8 to 16 ms a bot on a virtual machine, while the birth costs nothing extra.
//! A jailed bot is born in its cgroup (its namespace's first process at level 1,
//! `super::inside`; the bot beside its helper at level 2, `super::beside`: a confined
//! 30-round game of course bots went from 1.20x to 1.05x the game with `--sandbox none`);
//! a bot started without a jail joins it between `fork` and `exec`.

use std::collections::BTreeSet;
use std::io;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};

/// Set to `off`, arbiter makes no cgroups (to compare, or where they misbehave).
pub const DISABLE_VAR: &str = "ARBITER_CGROUP";

/// How long a cgroup may take to empty after `cgroup.kill` before arbiter gives up on it.
const EMPTY_LIMIT: Duration = Duration::from_secs(2);

/// The cgroups of the bots alive, for [`kill_all`].
static LIVE: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

fn live() -> MutexGuard<'static, BTreeSet<PathBuf>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// One bot's cgroup; dropping it kills what is left in it and removes it.
pub struct BotCgroup {
    path: PathBuf,
    /// `cgroup.procs`, opened for the bot's child to join before `exec`.
    procs: OwnedFd,
}

impl BotCgroup {
    /// A new, empty cgroup for one bot, or `None` where none can be made.
    pub fn create() -> Option<BotCgroup> {
        let parent = usable_parent()?;
        make(&parent.path).ok()
    }

    /// The descriptor of `cgroup.procs` for `join` in the forked child.
    pub fn procs_fd(&self) -> RawFd {
        self.procs.as_raw_fd()
    }

    /// The cgroup's folder.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Whether any process is in the cgroup now.
    pub fn holds_anyone(&self) -> bool {
        populated(&self.path)
    }

    /// SIGKILLs every process in the cgroup and waits (bounded) until it is empty.
    pub fn kill(&self) {
        kill_path(&self.path);
        let until = Instant::now() + EMPTY_LIMIT;
        while populated(&self.path) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for BotCgroup {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir(&self.path);
        live().remove(&self.path);
    }
}

/// Moves the calling process into the cgroup whose `cgroup.procs` is `procs`: meant for
/// `pre_exec`, after `fork` (one raw `write`). A failure leaves the bot where it was,
/// and the sweep without the cgroup finds it.
pub(crate) fn join(procs: RawFd) {
    // SAFETY: the descriptor is kept open by the BotCgroup until the child has started.
    let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(procs) };
    let _ = rustix::io::write(fd, b"0");
}

/// Whether a process can be born in a bot's cgroup here ([`fork_into`]): false where
/// there are no bot cgroups, or where the kernel has no `CLONE_INTO_CGROUP`.
pub(crate) fn born_into_works() -> bool {
    usable_parent().is_some_and(|parent| parent.born_into)
}

/// `fork`, with the child born in the cgroup whose folder `cgroup` is open (`O_PATH` will
/// do): `None` in the child, the child's pid in the parent.
///
/// # Safety
/// As for `fork`: in a multi-threaded process, the child may only make async-signal-safe
/// calls before it `exec`s or exits. Unlike `fork`, the C library is not told of the new
/// process (no `atfork` handlers run), so the child must not rely on them.
pub(crate) unsafe fn fork_into(cgroup: BorrowedFd<'_>) -> io::Result<Option<libc::pid_t>> {
    let mut args = CloneArgs {
        flags: CLONE_INTO_CGROUP,
        exit_signal: libc::SIGCHLD as u64,
        cgroup: cgroup.as_raw_fd() as u64,
        ..CloneArgs::default()
    };
    // SAFETY: without CLONE_VM the child runs on its own copy of this process's memory,
    // as after fork; the arguments outlive the call.
    let pid = unsafe {
        libc::syscall(
            libc::SYS_clone3,
            &mut args as *mut CloneArgs,
            std::mem::size_of::<CloneArgs>(),
        )
    };
    match pid {
        -1 => Err(io::Error::last_os_error()),
        0 => Ok(None),
        pid => Ok(Some(pid as libc::pid_t)),
    }
}

/// `fork`, the child born in the cgroup whose folder `cgroup` is where there is one and
/// the kernel lets it ([`fork_into`]): else it is born where this process is, outside any
/// bot cgroup, like a bot whose move into its cgroup failed (the referee then finds the
/// cgroup empty and sweeps the bot without it).
///
/// # Safety
/// As for [`fork_into`].
pub(crate) unsafe fn fork_in(cgroup: Option<&OwnedFd>) -> io::Result<Option<libc::pid_t>> {
    if let Some(dir) = cgroup
        && let Ok(child) = unsafe { fork_into(dir.as_fd()) }
    {
        return Ok(child);
    }
    // SAFETY: as the caller promises.
    match unsafe { libc::fork() } {
        -1 => Err(io::Error::last_os_error()),
        0 => Ok(None),
        child => Ok(Some(child)),
    }
}

/// `CLONE_INTO_CGROUP` (linux/sched.h), a flag of clone3's 64-bit flags.
const CLONE_INTO_CGROUP: u64 = 0x2_0000_0000;

/// `struct clone_args` of linux/sched.h up to `cgroup` (its size tells the kernel which
/// fields it has), the same on every architecture.
#[repr(C)]
#[derive(Default)]
struct CloneArgs {
    flags: u64,
    pidfd: u64,
    child_tid: u64,
    parent_tid: u64,
    exit_signal: u64,
    stack: u64,
    stack_size: u64,
    tls: u64,
    set_tid: u64,
    set_tid_size: u64,
    cgroup: u64,
}

/// SIGKILLs every process of every bot cgroup alive and removes the cgroups once empty
/// (within two seconds): the way to end every bot when arbiter is about to exit. Takes a
/// lock, so not for a signal context.
pub fn kill_all() {
    let paths = live();
    for path in paths.iter() {
        kill_path(path);
    }
    let until = Instant::now() + EMPTY_LIMIT;
    for path in paths.iter() {
        while populated(path) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = std::fs::remove_dir(path);
    }
}

fn kill_path(path: &Path) {
    let _ = std::fs::write(path.join("cgroup.kill"), "1");
}

fn populated(path: &Path) -> bool {
    std::fs::read_to_string(path.join("cgroup.events"))
        .map(|events| events.lines().any(|l| l == "populated 1"))
        .unwrap_or(false)
}

/// The number of the next cgroup this process makes.
static NEXT_CGROUP: AtomicU64 = AtomicU64::new(0);

fn make(parent: &Path) -> io::Result<BotCgroup> {
    let name = format!(
        "arbiter-{}-bot-{}",
        std::process::id(),
        NEXT_CGROUP.fetch_add(1, Ordering::Relaxed)
    );
    let path = parent.join(name);
    std::fs::create_dir(&path)?;
    let procs = std::fs::OpenOptions::new()
        .write(true)
        .open(path.join("cgroup.procs"));
    match procs {
        Ok(procs) => {
            live().insert(path.clone());
            Ok(BotCgroup {
                path,
                procs: procs.into(),
            })
        }
        Err(e) => {
            let _ = std::fs::remove_dir(&path);
            Err(e)
        }
    }
}

/// Where bots' cgroups are made, and how their processes get in.
struct Parent {
    path: PathBuf,
    /// Processes can be born in a bot's cgroup ([`fork_into`]); else they [`join`] it.
    born_into: bool,
}

/// arbiter's own cgroup on the cgroup2 hierarchy, if bots' cgroups can be made in it:
/// probed once by starting a process in one, born in it where the kernel can, else
/// `cat /proc/self/cgroup` moved in before its `exec`. That processes can be born there
/// is kept for the runs that follow on this boot ([`super::kept`]), which skip the probe
/// (a fork of the whole referee, half a millisecond of a one-game run's start); each bot
/// is then checked to be in its cgroup as it starts ([`BotCgroup::holds_anyone`]).
fn usable_parent() -> Option<&'static Parent> {
    static PARENT: OnceLock<Option<Parent>> = OnceLock::new();
    PARENT
        .get_or_init(|| {
            if std::env::var_os(DISABLE_VAR).is_some_and(|v| v == "off") {
                return None;
            }
            let path = own_cgroup()?;
            let finding = super::kept::Finding::born_into_cgroups(&path);
            let helper = super::helper_program();
            if helper.as_ref().is_some_and(|h| finding.recall(h)) {
                clear_dead_runs(&path);
                return Some(Parent {
                    path,
                    born_into: true,
                });
            }
            let probe = make(&path).ok()?;
            if !probe.path.join("cgroup.kill").exists() {
                return None;
            }
            let born_into = born_in(&probe);
            let works = born_into || joined(&probe);
            drop(probe);
            if works {
                clear_dead_runs(&path);
            }
            if let (true, Some(helper)) = (born_into, &helper) {
                finding.keep(helper);
            }
            works.then_some(Parent { path, born_into })
        })
        .as_ref()
}

/// After a bot was found outside the cgroup it was to be born in: the kept finding that
/// said it could be is forgotten, and the runs that follow probe again.
pub fn born_into_failed() {
    if let Some(parent) = usable_parent() {
        super::kept::Finding::born_into_cgroups(&parent.path).forget();
    }
}

/// A cgroup's folder, opened as [`fork_into`] takes it.
pub(crate) fn open_folder(path: &Path) -> io::Result<OwnedFd> {
    use rustix::fs::{Mode, OFlags};
    Ok(rustix::fs::open(
        path,
        OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC,
        Mode::empty(),
    )?)
}

/// Whether a process can be born in `probe`: one is, and exits at once.
fn born_in(probe: &BotCgroup) -> bool {
    let Ok(dir) = open_folder(&probe.path) else {
        return false;
    };
    // SAFETY: the child makes one async-signal-safe call, `_exit`.
    match unsafe { fork_into(dir.as_fd()) } {
        Ok(None) => unsafe { libc::_exit(0) },
        Ok(Some(pid)) => {
            let mut status = 0;
            // SAFETY: waits for our own child, in arbiter's process group, which the
            // orphan reaper leaves to us.
            while unsafe { libc::waitpid(pid, &mut status, 0) } == -1
                && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted
            {}
            true
        }
        Err(_) => false,
    }
}

/// Whether a process can move into `probe`: `cat /proc/self/cgroup`, moved in before its
/// `exec`, says where it is.
fn joined(probe: &BotCgroup) -> bool {
    let fd = probe.procs_fd();
    let mut cmd = Command::new("cat");
    cmd.arg("/proc/self/cgroup")
        .stdin(Stdio::null())
        .stderr(Stdio::null());
    // SAFETY: join makes one raw system call.
    unsafe {
        cmd.pre_exec(move || {
            join(fd);
            Ok(())
        })
    };
    let Ok(seen) = cmd.output() else {
        return false;
    };
    let Some(name) = probe.path.file_name() else {
        return false;
    };
    let name = name.to_string_lossy();
    v2_path(&String::from_utf8_lossy(&seen.stdout))
        .is_some_and(|p| p.ends_with(&format!("/{name}")))
}

/// Kills what is left in the bots' cgroups of arbiter processes that are gone (killed by
/// SIGKILL, which leaves no time to clean up) and removes those cgroups.
fn clear_dead_runs(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix("arbiter-")
            .and_then(|rest| rest.split_once("-bot-"))
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if !super::leftovers::run_is_gone(pid) {
            continue;
        }
        let path = entry.path();
        kill_path(&path);
        let until = Instant::now() + EMPTY_LIMIT;
        while populated(&path) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = std::fs::remove_dir(&path);
    }
}

/// The folder of this process's cgroup on the cgroup2 hierarchy.
fn own_cgroup() -> Option<PathBuf> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let own = v2_path(&cgroups)?;
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    mounts.lines().find_map(|line| {
        // id parent dev root mountpoint options [optional...] - fstype source options
        let (left, right) = line.split_once(" - ")?;
        if right.split_whitespace().next()? != "cgroup2" {
            return None;
        }
        let fields: Vec<&str> = left.split_whitespace().collect();
        let (root, mountpoint) = (fields.get(3)?, fields.get(4)?);
        let inside = Path::new(own).strip_prefix(root).ok()?;
        Some(Path::new(mountpoint).join(inside))
    })
}

/// The cgroup (v2) of process `pid` as `/proc` shows it (relative to the hierarchy's
/// root); empty if it shows none.
pub fn cgroup_of(pid: i32) -> String {
    let listing = std::fs::read_to_string(format!("/proc/{pid}/cgroup")).unwrap_or_default();
    v2_path(&listing).unwrap_or_default().to_string()
}

/// The cgroup2 path in a `/proc/PID/cgroup` listing: its `0::` line.
fn v2_path(listing: &str) -> Option<&str> {
    listing.lines().find_map(|l| l.strip_prefix("0::"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_forked_into_a_bot_cgroup_is_born_there_and_killed_with_it() {
        if !born_into_works() {
            eprintln!("no bot cgroups with CLONE_INTO_CGROUP here: skipped");
            return;
        }
        let cgroup = BotCgroup::create().expect("a bot cgroup");
        let dir = std::fs::File::open(cgroup.path()).expect("the cgroup's folder opens");
        // SAFETY: the child makes async-signal-safe calls only (pause, _exit).
        let pid = match unsafe { fork_into(dir.as_fd()) }.expect("clone3 into the cgroup") {
            None => unsafe {
                libc::pause();
                libc::_exit(0)
            },
            Some(pid) => pid,
        };
        let name = cgroup
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(
            cgroup_of(pid).ends_with(&format!("/{name}")),
            "the child is in {:?}, not in {name}",
            cgroup_of(pid)
        );
        assert!(populated(cgroup.path()));
        cgroup.kill();
        let mut status = 0;
        // SAFETY: waits for our own child.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        assert!(libc::WIFSIGNALED(status) && libc::WTERMSIG(status) == libc::SIGKILL);
        assert!(!populated(cgroup.path()));
    }

    /// A run after one that found processes can be born in bots' cgroups takes that from
    /// the kept finding and makes no probe cgroup; a bot then found outside its cgroup
    /// makes the runs after it probe again.
    #[test]
    fn a_kept_finding_spares_the_probe_and_a_bot_born_outside_forgets_it() {
        let tmp = tempfile::tempdir().unwrap();
        // SAFETY: set before the test starts a thread; each test is its own process
        // under nextest.
        unsafe { std::env::set_var("TMPDIR", tmp.path()) };
        let Some(path) = own_cgroup() else {
            eprintln!("no cgroup2 hierarchy here: skipped");
            return;
        };
        let Some(probe) = make(&path).ok() else {
            eprintln!("cannot make cgroups under {}: skipped", path.display());
            return;
        };
        if !born_in(&probe) {
            eprintln!(
                "no CLONE_INTO_CGROUP into {}: skipped",
                probe.path.display()
            );
            return;
        }
        drop(probe);
        let helper = super::super::helper_program().expect("the arbiter program");
        let finding = super::super::kept::Finding::born_into_cgroups(&path);
        finding.keep(&helper);
        let made = NEXT_CGROUP.load(Ordering::Relaxed);
        assert!(born_into_works());
        assert_eq!(
            NEXT_CGROUP.load(Ordering::Relaxed),
            made,
            "a probe cgroup was made"
        );
        let bot = BotCgroup::create().expect("a bot cgroup");
        assert!(!bot.holds_anyone(), "nobody was started in it");
        born_into_failed();
        assert!(!finding.recall(&helper), "the finding is forgotten");
    }
}
