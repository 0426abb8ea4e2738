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

use std::collections::BTreeSet;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
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
        make(parent).ok()
    }

    /// The descriptor of `cgroup.procs` for [`join`] in the forked child.
    pub fn procs_fd(&self) -> RawFd {
        self.procs.as_raw_fd()
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
pub fn join(procs: RawFd) {
    // SAFETY: the descriptor is kept open by the BotCgroup until the child has started.
    let fd = unsafe { std::os::fd::BorrowedFd::borrow_raw(procs) };
    let _ = rustix::io::write(fd, b"0");
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

fn make(parent: &Path) -> io::Result<BotCgroup> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let name = format!(
        "arbiter-{}-bot-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
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

/// arbiter's own cgroup on the cgroup2 hierarchy, if bots' cgroups can be made in it:
/// probed once by starting `cat /proc/self/cgroup` in one.
fn usable_parent() -> Option<&'static Path> {
    static PARENT: OnceLock<Option<PathBuf>> = OnceLock::new();
    PARENT
        .get_or_init(|| {
            if std::env::var_os(DISABLE_VAR).is_some_and(|v| v == "off") {
                return None;
            }
            let parent = own_cgroup()?;
            let probe = make(&parent).ok()?;
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
            let seen = cmd.output().ok()?;
            let name = probe.path.file_name()?.to_string_lossy().into_owned();
            let joined = String::from_utf8_lossy(&seen.stdout)
                .lines()
                .any(|l| l.starts_with("0::") && l.ends_with(&format!("/{name}")));
            let works = joined && probe.path.join("cgroup.kill").exists();
            drop(probe);
            if works {
                clear_dead_runs(&parent);
            }
            works.then_some(parent)
        })
        .as_deref()
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
        if Path::new(&format!("/proc/{pid}")).exists() {
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
    let own = cgroups.lines().find_map(|l| l.strip_prefix("0::"))?;
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
