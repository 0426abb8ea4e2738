//! arbiter as the subreaper of its bots: an orphan among a bot's descendants (a grandchild
//! whose parent exited, a `setsid` double fork) is reparented to arbiter rather than to
//! init, so the cleanup can still find it; and, since arbiter is then its parent, it is
//! reaped here as soon as it exits, so that no zombies pile up over a long league.
//!
//! The bot leaders are arbiter's own children, reaped by their players (which read their
//! exit status): they are registered in [`leaders`] and left alone, as are the children
//! arbiter starts in its own process group (compilers, helpers), which their callers wait
//! for. Every other child is an inherited orphan.

use super::procfs::{self, ProcInfo, processes};
use rustix::process::{Pid, WaitId, WaitIdOptions, WaitOptions};
use std::collections::BTreeSet;
use std::sync::{Mutex, MutexGuard, OnceLock, RwLock, RwLockReadGuard};
use std::time::Duration;

/// The bot leaders started and not yet reaped by their players (each leads its process
/// group, so its pid is also its group's id).
static LEADERS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

/// Held shared by each start of a bot leader until the leader is registered, and
/// exclusively while the reaper or a sweep tells orphans from leaders: a leader that exits
/// at once is never taken for an orphan, and two bots' starts never wait for each other.
static STARTS: RwLock<()> = RwLock::new(());

/// The registry of bot leaders.
pub fn leaders() -> MutexGuard<'static, BTreeSet<i32>> {
    LEADERS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Hold it across starting a bot leader and registering it in [`leaders`].
pub fn starting() -> RwLockReadGuard<'static, ()> {
    STARTS.read().unwrap_or_else(|e| e.into_inner())
}

/// The registry, with no leader's start under way.
fn leaders_settled() -> (
    std::sync::RwLockWriteGuard<'static, ()>,
    MutexGuard<'static, BTreeSet<i32>>,
) {
    let settled = STARTS.write().unwrap_or_else(|e| e.into_inner());
    (settled, leaders())
}

/// While some zombie child is a leader or a helper that its owner will reap, how long the
/// reaper waits before it looks again.
const OWNED_ZOMBIE_PAUSE: Duration = Duration::from_millis(50);
/// Without any child, how long before the reaper looks again.
const NO_CHILD_PAUSE: Duration = Duration::from_millis(200);

static SUBREAPER: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether this process is the subreaper of its descendants: set by [`become_subreaper`]
/// (before any bot starts) when the kernel allowed it.
pub(crate) fn is_subreaper() -> bool {
    SUBREAPER.load(std::sync::atomic::Ordering::SeqCst)
}

/// Makes this process the subreaper of its descendants and starts the thread that reaps
/// the orphans it inherits. Idempotent.
pub fn become_subreaper() {
    static ONCE: OnceLock<()> = OnceLock::new();
    ONCE.get_or_init(|| {
        if rustix::process::set_child_subreaper(Some(rustix::process::getpid())).is_ok() {
            SUBREAPER.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        let started = std::thread::Builder::new()
            .name("orphan-reaper".into())
            .spawn(reap_forever);
        if let Err(e) = started {
            eprintln!("warning: cannot start the orphan reaper ({e}): zombies may pile up");
        }
    });
}

fn reap_forever() {
    loop {
        // Sleeps until some child is a zombie, leaving it unreaped (NOWAIT): it may be
        // a leader or a helper whose owner wants its status.
        let waited =
            rustix::process::waitid(WaitId::All, WaitIdOptions::EXITED | WaitIdOptions::NOWAIT);
        if waited.is_err() {
            std::thread::sleep(NO_CHILD_PAUSE);
            continue;
        }
        if reap_inherited() == 0 {
            std::thread::sleep(OWNED_ZOMBIE_PAUSE);
        }
    }
}

/// Reaps every exited orphan this process inherited; how many.
pub(crate) fn reap_inherited() -> usize {
    let zombies = inherited_candidates(|c| c.state == 'Z');
    if zombies.is_empty() {
        return 0;
    }
    let (_settled, leaders) = leaders_settled();
    let mut reaped = 0;
    for child in confirmed(zombies, &leaders) {
        if child.state == 'Z'
            && let Some(pid) = Pid::from_raw(child.pid)
            && matches!(
                rustix::process::waitpid(Some(pid), WaitOptions::NOHANG),
                Ok(Some(_))
            )
        {
            reaped += 1;
        }
    }
    reaped
}

/// The living orphans this process inherited from bots, for a sweep that can no longer
/// tell them by their parent.
pub fn living_inherited() -> Vec<ProcInfo> {
    let living = inherited_candidates(|c| c.state != 'Z');
    if living.is_empty() {
        return living;
    }
    let (_settled, leaders) = leaders_settled();
    confirmed(living, &leaders)
        .into_iter()
        .filter(|c| c.state != 'Z')
        .collect()
}

/// The children `keep` takes that may be orphans: out of arbiter's own process group.
/// Scanned from /proc before any lock is taken, so that bots starting meanwhile are not
/// kept waiting; [`confirmed`] decides.
fn inherited_candidates(keep: impl Fn(&ProcInfo) -> bool) -> Vec<ProcInfo> {
    let own_group = rustix::process::getpgrp().as_raw_nonzero().get();
    children()
        .into_iter()
        .filter(|c| c.pgrp != own_group && keep(c))
        .collect()
}

/// Of `candidates`, those that are still this process's children out of its process group
/// and are no registered leader, as /proc shows them now. Called with no start under way,
/// so a leader is registered by then; read again, a pid that was reaped and reused since
/// the scan is judged as what it is now.
fn confirmed(candidates: Vec<ProcInfo>, leaders: &BTreeSet<i32>) -> Vec<ProcInfo> {
    let me = std::process::id() as i32;
    let own_group = rustix::process::getpgrp().as_raw_nonzero().get();
    candidates
        .into_iter()
        .filter(|c| !leaders.contains(&c.pid))
        .filter_map(|c| procfs::proc_info(c.pid))
        .filter(|c| c.ppid == me && c.pgrp != own_group)
        .collect()
}

/// This process's children: from each thread's `children` list where the kernel has it,
/// else from a scan of every process.
fn children() -> Vec<ProcInfo> {
    let me = std::process::id() as i32;
    match procfs::children_of(me) {
        Some(pids) => pids
            .into_iter()
            .filter_map(procfs::proc_info)
            .filter(|p| p.ppid == me)
            .collect(),
        None => processes().into_iter().filter(|p| p.ppid == me).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::process::CommandExt;
    use std::time::Instant;

    #[test]
    fn a_leader_that_exits_while_its_start_is_under_way_is_left_to_its_owner() {
        let start = starting();
        let mut child = std::process::Command::new("true")
            .process_group(0)
            .spawn()
            .expect("true starts");
        let pid = child.id() as i32;
        let until = Instant::now() + Duration::from_secs(5);
        while procfs::proc_info(pid).is_none_or(|p| p.state != 'Z') {
            assert!(Instant::now() < until, "`true` did not exit");
            std::thread::sleep(Duration::from_millis(5));
        }
        // A zombie out of arbiter's process group, not registered yet: the reaper must
        // wait for the start to be over before it judges it.
        let reaper = std::thread::spawn(reap_inherited);
        std::thread::sleep(Duration::from_millis(100));
        assert!(!reaper.is_finished(), "the reaper judged during a start");
        leaders().insert(pid);
        drop(start);
        reaper.join().expect("the reaper's pass");
        let status = child.wait().expect("the owner reaps its leader");
        leaders().remove(&pid);
        assert!(status.success());
    }
}
