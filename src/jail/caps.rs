//! What a jailed bot may use at most: its address space (`RLIMIT_AS`), the largest file it
//! may write (`RLIMIT_FSIZE`), its processes and threads (`RLIMIT_NPROC`), CPU seconds
//! where asked, and what it writes into its private folder altogether (its disk cap,
//! watched by the jail's helper, `super::beside`). Each has a default, so that a bot
//! with no limit given still cannot take the machine: the defaults fit a course Python bot
//! that loads numpy and a model file of a few hundred MB, and a JVM.

use super::plan::StepFailed;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

pub use super::{DEFAULT_DISK_MB, DEFAULT_MEMORY_MB, DEFAULT_TASKS};

/// The most entries (files and folders) a bot may make in its private folder: each costs
/// the disk an inode, and the helper a look at every check.
pub(crate) const MAX_NEW_ENTRIES: u64 = 100_000;

/// The caps `limits` (a jailed bot's effective limits) give, for a run's summary line and
/// `arbiter doctor`.
pub fn describe(limits: &super::Limits) -> String {
    let mut parts = Vec::new();
    if let Some(mb) = limits.memory_mb {
        parts.push(format!("{mb} MiB of address space"));
    }
    if let Some(tasks) = limits.procs {
        parts.push(format!("{tasks} processes and threads"));
    }
    let disk = limits
        .file_mb
        .map_or(DEFAULT_DISK_MB, |mb| mb.max(DEFAULT_DISK_MB));
    parts.push(format!("{disk} MiB written to disk"));
    if let Some(s) = limits.cpu_s {
        parts.push(format!("{s} CPU seconds"));
    }
    parts.join(", ")
}

/// Sets the resource limits, last before the filter (the helper itself runs without them).
/// `tasks_base`: the tasks of the bot's uid that the kernel counts against its process
/// limit already (the limit is per uid, not per process tree).
pub(crate) fn apply(jail: &super::plan::Jail, tasks_base: u64) -> Result<(), StepFailed> {
    use rustix::process::{Resource, Rlimit};
    let set = |what: &str, resource, soft: u64, hard: u64| {
        rustix::process::setrlimit(
            resource,
            Rlimit {
                current: Some(soft),
                maximum: Some(hard),
            },
        )
        .map_err(|e| StepFailed(format!("{what}: {e}")))
    };
    if let Some(mb) = jail.memory_mb {
        let bytes = mb.saturating_mul(1 << 20);
        set("limit the address space", Resource::As, bytes, bytes)?;
    }
    if let Some(s) = jail.cpu_s {
        set("limit CPU time", Resource::Cpu, s, s.saturating_add(1))?;
    }
    if let Some(mb) = jail.file_mb {
        let bytes = mb.saturating_mul(1 << 20);
        set("limit file size", Resource::Fsize, bytes, bytes)?;
    }
    if let Some(tasks) = jail.tasks {
        let limit = tasks_base.saturating_add(tasks);
        set("limit processes and threads", Resource::Nproc, limit, limit)?;
    }
    set("forbid core dumps", Resource::Core, 0, 0)
}

/// The tasks (threads of every process) that run as `uid` among the processes this
/// process sees: what `RLIMIT_NPROC` counts for that uid.
pub(crate) fn tasks_of(uid: u32) -> u64 {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    let mut tasks = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = name
            .to_str()
            .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        if !entry.metadata().is_ok_and(|m| m.uid() == uid) {
            continue;
        }
        // Field 20 of /proc/PID/stat, counted after the command's closing parenthesis.
        let threads = std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| {
                let after = stat.rsplit_once(')')?.1;
                after.split_whitespace().nth(17)?.parse::<u64>().ok()
            });
        tasks += threads.unwrap_or(1);
    }
    tasks
}

/// What a folder holds: bytes on disk (sparse holes cost nothing) and entries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Usage {
    pub bytes: u64,
    pub entries: u64,
}

/// The [`Usage`] of everything beneath `dir`, links not followed; the walk stops once
/// `stop_at` entries were seen (the folder is over its cap by then anyway). A folder the
/// bot closed to its owner (mode 0300) is opened first: the bot's uid is the walker's own
/// where the walker is not root.
pub(crate) fn usage(dir: &Path, stop_at: u64) -> Usage {
    let mut used = Usage::default();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        let entries = std::fs::read_dir(&folder).or_else(|e| {
            if e.kind() != std::io::ErrorKind::PermissionDenied {
                return Err(e);
            }
            open_to_owner(&folder)?;
            std::fs::read_dir(&folder)
        });
        let Ok(entries) = entries else {
            continue;
        };
        for entry in entries.flatten() {
            used.entries += 1;
            if used.entries > stop_at {
                return used;
            }
            let Ok(meta) = entry.metadata() else { continue };
            used.bytes = used.bytes.saturating_add(meta.blocks().saturating_mul(512));
            if meta.is_dir() {
                folders.push(entry.path());
            }
        }
    }
    used
}

/// Gives a folder's owner its rights on it back (`u+rwx`), for a walk or a removal of a
/// folder a bot closed; a link is left alone.
pub(crate) fn open_to_owner(folder: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let meta = std::fs::symlink_metadata(folder)?;
    if !meta.is_dir() {
        return Err(std::io::Error::from(std::io::ErrorKind::PermissionDenied));
    }
    let mode = meta.permissions().mode() | 0o700;
    std::fs::set_permissions(folder, std::fs::Permissions::from_mode(mode))
}

/// What the processes of a bot hold open that no walk of its folder nor of its address
/// space shows, from one look at their descriptors (`/proc/PID/fd`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Held {
    /// The blocks of files unlinked from the private folder but held open (links that end
    /// in ` (deleted)`): they take the disk as long as they are held. Each file once.
    pub unlinked: u64,
    /// The sockets they hold, each once (kernel memory: their buffers).
    pub sockets: u64,
}

impl Held {
    /// What the processes `tree` hold open; `dir` is the private folder.
    pub(crate) fn by(tree: &[i32], dir: &Path) -> Held {
        let mut held = Held::default();
        let mut files = std::collections::BTreeSet::new();
        let mut sockets = std::collections::BTreeSet::new();
        let descriptors = tree.iter().flat_map(|pid| {
            std::fs::read_dir(format!("/proc/{pid}/fd"))
                .into_iter()
                .flatten()
                .flatten()
                .map(|fd| fd.path())
        });
        for fd in descriptors {
            let Ok(target) = std::fs::read_link(&fd) else {
                continue;
            };
            let text = target.to_string_lossy();
            if let Some(inode) = text.strip_prefix("socket:[") {
                sockets.insert(inode.to_string());
                continue;
            }
            let Some(name) = text.strip_suffix(" (deleted)") else {
                continue;
            };
            // The magic link leads to the file itself.
            if Path::new(name).starts_with(dir)
                && let Ok(meta) = std::fs::metadata(&fd)
                && meta.is_file()
                && files.insert((meta.dev(), meta.ino()))
            {
                held.unlinked = held
                    .unlinked
                    .saturating_add(meta.blocks().saturating_mul(512));
            }
        }
        held.sockets = sockets.len() as u64;
        held
    }
}

/// What a socket is charged against its bot's memory cap: about the most its kernel
/// buffers hold (a Unix socket's queue is bounded by its send buffer, some 200 KiB, and
/// costs more than twice that in the kernel's own accounting), whatever it holds now.
pub const SOCKET_CHARGE: u64 = 512 << 10;

/// The memory the processes `tree` hold between them: each one's proportional share of
/// the pages it maps (`Pss` of `/proc/PID/smaps_rollup`: a page shared by a fork counts
/// once in all), and [`SOCKET_CHARGE`] for each of the `sockets` they hold (kernel memory
/// that no process's address space shows). Read only as far as needed to tell whether it
/// is over `cap` (bytes): the resident sizes first, which are never less.
pub(crate) fn tree_memory(tree: &[i32], sockets: u64, cap: u64) -> u64 {
    let kernel = sockets.saturating_mul(SOCKET_CHARGE);
    // SAFETY: sysconf has no preconditions.
    let page = match unsafe { libc::sysconf(libc::_SC_PAGESIZE) } {
        n if n > 0 => n as u64,
        _ => 4096,
    };
    let resident: u64 = tree
        .iter()
        .filter_map(|pid| {
            let statm = std::fs::read_to_string(format!("/proc/{pid}/statm")).ok()?;
            statm.split_whitespace().nth(1)?.parse::<u64>().ok()
        })
        .map(|pages| pages.saturating_mul(page))
        .sum();
    if resident.saturating_add(kernel) <= cap {
        return resident.saturating_add(kernel);
    }
    let shared: u64 = tree
        .iter()
        .filter_map(|pid| {
            let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
            let kb = rollup
                .lines()
                .find_map(|l| l.strip_prefix("Pss:"))?
                .trim()
                .strip_suffix("kB")?
                .trim()
                .parse::<u64>()
                .ok()?;
            Some(kb << 10)
        })
        .sum();
    shared.saturating_add(kernel)
}

/// Why the processes `tree`, holding `sockets`, are past a memory cap of `mb` MiB
/// together, if they are.
pub(crate) fn memory_breached(tree: &[i32], sockets: u64, mb: u64) -> Option<String> {
    let cap = mb.saturating_mul(1 << 20);
    let held = tree_memory(tree, sockets, cap);
    (held > cap).then(|| {
        format!(
            "{MEMORY_CAP_MARK} of {mb} MiB: the bot's processes held {} MiB between them \
             (out of memory)",
            held >> 20
        )
    })
}

/// How the helper's line on a bot stopped at its memory cap begins.
pub const MEMORY_CAP_MARK: &str = "arbiter jail: memory cap";

/// A private folder's cap: how much more than its start it may hold.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DiskCap {
    pub mb: u64,
    start: Usage,
}

impl DiskCap {
    /// The cap of `mb` MiB over what the folder holds now.
    pub(crate) fn over(dir: &Path, mb: u64) -> DiskCap {
        DiskCap {
            mb,
            start: usage(dir, u64::MAX),
        }
    }

    /// Why the folder is past its cap now, if it is: what it holds, and `held`, the blocks
    /// of files unlinked from it but held open ([`unlinked_but_open`]).
    pub(crate) fn breached(&self, dir: &Path, held: u64) -> Option<String> {
        let now = usage(dir, self.start.entries.saturating_add(MAX_NEW_ENTRIES));
        let written = now
            .bytes
            .saturating_add(held)
            .saturating_sub(self.start.bytes);
        if written > self.mb.saturating_mul(1 << 20) {
            return Some(format!(
                "{DISK_CAP_MARK} of {} MiB: the bot wrote {} MiB into its private folder",
                self.mb,
                written >> 20
            ));
        }
        if now.entries.saturating_sub(self.start.entries) > MAX_NEW_ENTRIES {
            return Some(format!(
                "{DISK_CAP_MARK} of {} MiB: the bot made more than {MAX_NEW_ENTRIES} files \
                 and folders in its private folder",
                self.mb
            ));
        }
        None
    }
}

/// How the helper's line on a bot stopped at its disk cap begins (the referee's verdict
/// reads it in the bot's last stderr lines).
pub const DISK_CAP_MARK: &str = "arbiter jail: disk cap";

/// The words a bot's last stderr lines or error message use when a thread or process
/// could not be made: Python, the C library (`strerror(EAGAIN)`), the JVM.
pub const TASK_MARKERS: &[&str] = &[
    "can't start new thread",
    "Resource temporarily unavailable",
    "unable to create native thread",
    "BlockingIOError: [Errno 11]",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folders_cap_counts_what_was_written_since_its_start_not_its_own_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("weights.bin"), vec![1u8; 3 << 20]).unwrap();
        let cap = DiskCap::over(dir.path(), 1);
        assert_eq!(
            cap.breached(dir.path(), 0),
            None,
            "its own 3 MiB are not written"
        );
        std::fs::create_dir(dir.path().join("out")).unwrap();
        std::fs::write(dir.path().join("out/a"), vec![2u8; 600 << 10]).unwrap();
        assert_eq!(cap.breached(dir.path(), 0), None, "0.6 MiB is within 1 MiB");
        std::fs::write(dir.path().join("out/b"), vec![2u8; 600 << 10]).unwrap();
        let why = cap.breached(dir.path(), 0).expect("1.2 MiB is past 1 MiB");
        assert!(why.starts_with(DISK_CAP_MARK), "{why}");
        // A sparse file costs its blocks, not its length.
        let sparse = tempfile::tempdir().unwrap();
        let cap = DiskCap::over(sparse.path(), 1);
        let f = std::fs::File::create(sparse.path().join("hole")).unwrap();
        f.set_len(1 << 30).unwrap();
        assert_eq!(cap.breached(sparse.path(), 0), None);
    }

    #[test]
    fn the_tasks_of_a_uid_count_every_thread_of_this_process() {
        let me = rustix::process::getuid().as_raw();
        let stop = std::sync::Arc::new(std::sync::Barrier::new(6));
        let threads: Vec<_> = (0..5)
            .map(|_| {
                let stop = stop.clone();
                std::thread::spawn(move || {
                    stop.wait();
                })
            })
            .collect();
        let own = std::fs::read_to_string("/proc/self/status")
            .unwrap()
            .lines()
            .find_map(|l| l.strip_prefix("Threads:"))
            .unwrap()
            .trim()
            .parse::<u64>()
            .unwrap();
        let counted = tasks_of(me);
        stop.wait();
        threads.into_iter().for_each(|t| t.join().unwrap());
        assert!(own >= 6, "{own}");
        assert!(
            counted >= own,
            "{counted} tasks counted, this process alone has {own}"
        );
    }
}
