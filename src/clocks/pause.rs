//! A paused run charges no one: when arbiter is stopped (Ctrl-Z at the terminal, SIGTSTP),
//! its bots are stopped with it, and when it goes on (`fg`), they go on, and the time spent
//! stopped is left out of every move's clock.
//!
//! Bots run in process groups of their own, so the terminal's SIGTSTP and SIGCONT reach
//! arbiter alone: `stop_the_run` stops the bots' groups, then arbiter itself, and
//! `go_on`, once arbiter is continued, lets go on every bot that was running (a bot
//! frozen because the other side is to move, [`super::freeze`], stays frozen), and adds the
//! pause to [`paused`].
//!
//! Both signals are blocked in every thread from the start ([`take_stops`], while arbiter
//! has one thread) and taken by a thread of their own, started with the first bot
//! ([`watch`]): a command that starts no bot has no such thread, nor its allocator arena
//! (64 MiB of address space, which a reader under a memory cap cannot spare). A blocked
//! SIGCONT still continues the process, and waits to be taken.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The time this process has spent stopped by [`stop_the_run`] in all, and since when it is
/// being stopped now: a thread that wakes as the process is continued may read the clock
/// before the pause is added up, and must count it all the same.
static PAUSES: Mutex<(Duration, Option<Instant>)> = Mutex::new((Duration::ZERO, None));

fn pauses() -> std::sync::MutexGuard<'static, (Duration, Option<Instant>)> {
    PAUSES.lock().unwrap_or_else(|e| e.into_inner())
}

/// The process groups frozen by [`super::freeze`], which a pause's end leaves stopped.
static FROZEN: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

fn frozen() -> std::sync::MutexGuard<'static, BTreeSet<i32>> {
    FROZEN.lock().unwrap_or_else(|e| e.into_inner())
}

/// How long this process has been stopped in all: a move's clock leaves out what this
/// grew by while the move was played.
pub fn paused() -> Duration {
    let (total, since) = *pauses();
    total + since.map_or(Duration::ZERO, |at| at.elapsed())
}

pub(super) fn frozen_now(group: i32, is_frozen: bool) {
    if is_frozen {
        frozen().insert(group);
    } else {
        frozen().remove(&group);
    }
}

/// Stops every bot, then this process: the stop takes effect as the calling thread next
/// enters the kernel; [`go_on`] is called once the process was continued (SIGCONT).
pub(crate) fn stop_the_run() {
    use rustix::process::{Pid, Signal, kill_process, kill_process_group};
    for &group in crate::jail::reaper::leaders().iter() {
        if let Some(pid) = Pid::from_raw(group) {
            let _ = kill_process_group(pid, Signal::STOP);
        }
    }
    pauses().1 = Some(Instant::now());
    let _ = kill_process(rustix::process::getpid(), Signal::STOP);
}

/// After a pause: counts it (the time stopped is no bot's) and lets go on every bot that
/// was running. A SIGCONT with no pause does nothing.
pub(crate) fn go_on() {
    use rustix::process::{Pid, Signal, kill_process_group};
    {
        let mut pauses = pauses();
        let Some(at) = pauses.1.take() else {
            return;
        };
        pauses.0 += at.elapsed();
    }
    let frozen = frozen().clone();
    let groups: Vec<i32> = crate::jail::reaper::leaders().iter().copied().collect();
    for group in groups.into_iter().filter(|g| !frozen.contains(g)) {
        if let Some(pid) = Pid::from_raw(group) {
            let _ = kill_process_group(pid, Signal::CONT);
        }
    }
}

/// Set once SIGTSTP and SIGCONT are blocked in every thread ([`take_stops`]).
static TAKEN: AtomicBool = AtomicBool::new(false);

fn stop_signals() -> libc::sigset_t {
    // SAFETY: signal-set calls on a local set.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGTSTP);
        libc::sigaddset(&mut set, libc::SIGCONT);
        set
    }
}

/// Blocks SIGTSTP and SIGCONT in this thread and every thread started from it (a bot
/// starts with an empty mask): for a command that plays bots, while it has one thread.
pub fn take_stops() {
    let set = stop_signals();
    // SAFETY: sets this thread's mask.
    if unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) } == 0 {
        TAKEN.store(true, Ordering::SeqCst);
    }
}

/// Starts, once, the thread that takes SIGTSTP and SIGCONT, where [`take_stops`] blocked
/// them: as the first bot starts.
pub fn watch() {
    static STARTED: Once = Once::new();
    if !TAKEN.load(Ordering::SeqCst) {
        return;
    }
    STARTED.call_once(|| {
        let set = stop_signals();
        let spawned = std::thread::Builder::new()
            .name("sigtstp".into())
            .spawn(move || {
                loop {
                    let mut got = 0;
                    // SAFETY: waits for a signal of the set, blocked in every thread.
                    if unsafe { libc::sigwait(&set, &mut got) } != 0 {
                        continue;
                    }
                    match got {
                        libc::SIGTSTP => stop_the_run(),
                        libc::SIGCONT => go_on(),
                        _ => {}
                    }
                }
            });
        if spawned.is_err() {
            // Without the thread, a Ctrl-Z waits until arbiter ends: said once.
            eprintln!(
                "warning: cannot take Ctrl-Z (no thread for it): it waits until arbiter ends"
            );
        }
    });
}
