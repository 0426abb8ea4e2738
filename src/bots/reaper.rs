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
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::Duration;

/// The bot leaders started and not yet reaped by their players (each leads its process
/// group, so its pid is also its group's id).
static LEADERS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

/// The registry of bot leaders. Hold it across starting a leader and registering it, so
/// that the reaper never takes a leader that exits at once for an orphan.
pub fn leaders() -> MutexGuard<'static, BTreeSet<i32>> {
    LEADERS.lock().unwrap_or_else(|e| e.into_inner())
}

/// While some zombie child is a leader or a helper that its owner will reap, how long the
/// reaper waits before it looks again.
const OWNED_ZOMBIE_PAUSE: Duration = Duration::from_millis(50);
/// Without any child, how long before the reaper looks again.
const NO_CHILD_PAUSE: Duration = Duration::from_millis(200);

static SUBREAPER: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether this process is the subreaper of its descendants: set by [`become_subreaper`]
/// (before any bot starts) when the kernel allowed it.
pub fn is_subreaper() -> bool {
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
pub fn reap_inherited() -> usize {
    let leaders = leaders();
    let mut reaped = 0;
    for child in children() {
        if child.state == 'Z'
            && is_inherited(&child, &leaders)
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
    let leaders = leaders();
    children()
        .into_iter()
        .filter(|c| c.state != 'Z' && is_inherited(c, &leaders))
        .collect()
}

fn is_inherited(child: &ProcInfo, leaders: &BTreeSet<i32>) -> bool {
    let own_group = rustix::process::getpgrp().as_raw_nonzero().get();
    child.pgrp != own_group && !leaders.contains(&child.pid)
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
