//! The process table as /proc shows it: who is whose child, in which group, owned by whom,
//! and the CPU time a process used. The sweep that leaves no bot process behind and the
//! reaper of inherited orphans both read it.

use std::collections::BTreeSet;
use std::os::unix::fs::MetadataExt;

/// One line of the process table.
#[derive(Clone, Debug)]
pub struct ProcInfo {
    /// The process's id.
    pub pid: i32,
    /// Its parent's id.
    pub ppid: i32,
    /// Its process group's id.
    pub pgrp: i32,
    /// Its state letter from /proc/PID/stat (`R` running, `S` sleeping, `Z` zombie, ...).
    pub state: char,
    /// Its owner's uid; `None` when /proc did not say (the process just went).
    pub uid: Option<u32>,
}

/// The children of process `pid`, from /proc/PID/task/*/children; `None` where the
/// kernel has no such files or `pid` is gone.
pub(crate) fn children_of(pid: i32) -> Option<BTreeSet<i32>> {
    let tasks = std::fs::read_dir(format!("/proc/{pid}/task")).ok()?;
    let mut pids = BTreeSet::new();
    for task in tasks.flatten() {
        let list = std::fs::read_to_string(task.path().join("children")).ok()?;
        pids.extend(
            list.split_whitespace()
                .filter_map(|p| p.parse::<i32>().ok()),
        );
    }
    Some(pids)
}

/// `leader` and every process beneath it, found by walking down the kernel's lists of
/// children (at most `most`: a tree bigger than that is a bot's own doing, counted so
/// far).
pub(crate) fn tree_of(leader: i32, most: usize) -> Vec<i32> {
    let mut tree = Vec::new();
    let mut queue = vec![leader];
    let mut seen = BTreeSet::new();
    while let Some(pid) = queue.pop() {
        if tree.len() >= most {
            break;
        }
        if seen.insert(pid) {
            tree.push(pid);
            queue.extend(children_of(pid).unwrap_or_default());
        }
    }
    tree
}

/// Every descendant of this process, zombies included, found by walking down from it;
/// `None` where the kernel lists no children (then only [`processes`] finds them).
pub(crate) fn my_descendants() -> Option<Vec<ProcInfo>> {
    let mut out = Vec::new();
    let mut queue = children_of(std::process::id() as i32)?
        .into_iter()
        .collect::<Vec<_>>();
    let mut seen = BTreeSet::new();
    while let Some(pid) = queue.pop() {
        if !seen.insert(pid) {
            continue;
        }
        // A process that ended meanwhile has no line and no children left to find.
        if let Some(info) = proc_info(pid) {
            out.push(info);
            queue.extend(children_of(pid).unwrap_or_default());
        }
    }
    Some(out)
}

/// Every process visible in /proc.
pub fn processes() -> Vec<ProcInfo> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return out;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        if let Some(info) = proc_info(pid) {
            out.push(info);
        }
    }
    out
}

pub(crate) fn proc_info(pid: i32) -> Option<ProcInfo> {
    use std::io::Read;
    // Scanned for every process at every bot's end: one open, one read into a buffer
    // that holds the whole line (a `stat` line is a few hundred bytes), and the owner
    // from the open file, rather than the growing reads and the path lookups of
    // `read_to_string` and `metadata`.
    let mut file = std::fs::File::open(format!("/proc/{pid}/stat")).ok()?;
    let mut buf = [0u8; 1024];
    let mut len = 0;
    while len < buf.len() {
        match file.read(&mut buf[len..]) {
            Ok(0) => break,
            Ok(n) => len += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(_) => return None,
        }
    }
    let stat = String::from_utf8_lossy(&buf[..len]);
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace();
    let state = fields.next()?.chars().next()?;
    let ppid = fields.next()?.parse().ok()?;
    let pgrp = fields.next()?.parse().ok()?;
    // /proc/PID and the files in it belong to the process's owner alike.
    let uid = file.metadata().ok().map(|m| m.uid());
    Some(ProcInfo {
        pid,
        ppid,
        pgrp,
        state,
        uid,
    })
}

/// CPU seconds (user + system) process `pid` used, dead or alive but not yet reaped.
pub fn cpu_seconds(pid: i32) -> Option<f64> {
    cpu_ticks(pid, false)
}

/// [`cpu_seconds`] with the CPU of the children `pid` reaped: a jail's helper holds its
/// bot's that way once the bot and the jail's init are gone.
pub fn cpu_seconds_with_children(pid: i32) -> Option<f64> {
    cpu_ticks(pid, true)
}

fn cpu_ticks(pid: i32, children: bool) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14), in
    // clock ticks.
    let count = if children { 4 } else { 2 };
    let mut used = 0.0;
    for field in fields.get(11..11 + count)? {
        used += field.parse::<f64>().ok()?;
    }
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let ticks = if ticks > 0 { ticks as f64 } else { 100.0 };
    Some(used / ticks)
}
