//! The jail's helper for the rest of the game: it stays beside the bot until the bot ends,
//! and no process the bot started outlives it.
//!
//! - Level 1: the helper waits for the namespace's init; when the bot ends, the init ends,
//!   and the kernel ends every process of the namespace.
//! - Level 2: no pid namespace does that, so the helper forks the bot and stays its parent
//!   as a *child subreaper*: every process the bot starts, however it forks, double-forks
//!   or re-execs, is reparented to the helper when its parent dies, never to arbiter or to
//!   init. When the bot ends, the helper kills every descendant it has left and reaps them.
//!   The bot cannot leave the jail's process group or session (the filter refuses
//!   `setsid` and `setpgid`), cannot signal the helper (Landlock's signal scope: the helper
//!   is outside the bot's domain), and dies with it (`PR_SET_PDEATHSIG`).
//!
//! At both levels the helper is tied to arbiter's life ([`tie_to_arbiter`]): however arbiter
//! ends (SIGKILL, the OOM killer, a crash), the helper sees it end, kills the bot and all it
//! started, and ends too. Nothing a bot starts outlives the run that started it.
//!
//! At both levels the helper watches the bot's private folder against its disk cap
//! ([`super::caps::DiskCap`]): past it, the bot is killed, the helper says why on the bot's
//! stderr and ends by `SIGXFSZ`, which the referee reads as `file_size`. It watches the
//! memory the bot's processes hold between them against its memory cap (each process is
//! also capped by the kernel, `RLIMIT_AS`): past it, the bot is killed and the helper says
//! so (`out of memory`), which the referee reads as `memory`. It measures every 100 ms and
//! at each freeze of the bot, and goes on while the bot is frozen: a bot cannot freeze or
//! starve its own measure.

use super::caps::DiskCap;
use super::plan::{Jail, SETUP_FAILED, StepFailed};
use std::io;
use std::os::fd::{BorrowedFd, FromRawFd, OwnedFd};
use std::path::Path;
use std::time::{Duration, Instant};

/// How often the private folder is measured at least (more often costs the helper time
/// beside the bot; a bot writing 1 GB/s overshoots its cap by this much at most).
const DISK_CHECK: Duration = Duration::from_millis(100);

/// After a freeze of the bot the folder is measured at once, unless it was measured less
/// than this long ago (a game of quick moves is measured no more than this often).
const FREEZE_CHECK_GAP: Duration = Duration::from_millis(20);

/// Level 2: makes this process the subreaper of everything the bot starts, and forks the
/// bot. Returns in the bot's process (which then confines itself and `exec`s); the helper
/// never returns.
pub(crate) fn stay_beside(jail: &Jail) -> Result<(), StepFailed> {
    // SAFETY: plain prctl and signal calls on this single-threaded process.
    let made = unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) };
    if made != 0 {
        return Err(StepFailed(format!(
            "become the subreaper of the bot's processes: {}",
            io::Error::last_os_error()
        )));
    }
    // The group's SIGTERM (the referee's "stop now") is for the bot: the helper must outlive
    // it to end what the bot left.
    unsafe { libc::signal(libc::SIGTERM, libc::SIG_IGN) };
    let cap = cap_of(jail);
    // SAFETY: single-threaded, as above.
    let helper = unsafe { libc::getpid() };
    // The bot is born in its cgroup where it has one: a move into it after the fork would
    // wait for an RCU grace period, 8 to 16 ms a start on a virtual machine.
    let cgroup = jail
        .cgroup
        .as_ref()
        .and_then(|path| super::cgroup::open_folder(path).ok());
    // SAFETY: single-threaded, as above.
    let forked = unsafe { super::cgroup::fork_in(cgroup.as_ref()) }
        .map_err(|e| StepFailed(format!("start the bot beside its helper: {e}")))?;
    match forked {
        None => {
            // SAFETY: back to the default for the bot.
            unsafe { libc::signal(libc::SIGTERM, libc::SIG_DFL) };
            HELPER.store(helper, std::sync::atomic::Ordering::SeqCst);
            Ok(())
        }
        Some(bot) => {
            super::report::let_go();
            release_stdio(true);
            let end = watch(bot, jail, cap);
            end_descendants();
            end_as(end)
        }
    }
}

/// arbiter, the helper's parent, as a pidfd that polls readable once arbiter has ended; -1
/// before [`tie_to_arbiter`], or on a kernel without pidfds (then `ARBITER_PID` is looked
/// at instead).
static ARBITER: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

/// arbiter's pid, as the helper first saw its parent (0 before [`tie_to_arbiter`]).
static ARBITER_PID: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// The helper's first step: ties it to the life of arbiter, its parent. A pidfd of the
/// parent *process* (not `PR_SET_PDEATHSIG`, which fires when the parent's *thread* ends:
/// arbiter starts bots from threads that end before their bots do). Where the kernel has
/// no pidfds (before Linux 5.3), `PR_SET_PDEATHSIG` it is, and the parent's pid is looked
/// at while the helper waits. Fails when arbiter has already ended.
pub(crate) fn tie_to_arbiter() -> Result<(), StepFailed> {
    use std::sync::atomic::Ordering::SeqCst;
    // SAFETY: plain system calls; the descriptor returned is ours (close-on-exec: the
    // kernel sets it on every pidfd).
    let parent = unsafe { libc::getppid() };
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, parent, 0) };
    if pidfd < 0 {
        rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))
            .map_err(|e| StepFailed(format!("die with arbiter: {e}")))?;
    }
    // A parent that ended before the pidfd was opened is no longer the parent (and its pid
    // may be another process's by now): the helper was orphaned, and stops here.
    if unsafe { libc::getppid() } != parent {
        return Err(StepFailed("arbiter ended before the jail was built".into()));
    }
    ARBITER.store(pidfd as i32, SeqCst);
    ARBITER_PID.store(parent, SeqCst);
    Ok(())
}

/// Whether arbiter, the helper's parent, has ended (false before [`tie_to_arbiter`]).
fn arbiter_ended(pidfd: Option<BorrowedFd<'_>>) -> bool {
    use std::sync::atomic::Ordering::SeqCst;
    let parent = ARBITER_PID.load(SeqCst);
    match pidfd {
        Some(fd) => {
            let mut fds = [rustix::event::PollFd::new(
                &fd,
                rustix::event::PollFlags::IN,
            )];
            let zero = rustix::event::Timespec {
                tv_sec: 0,
                tv_nsec: 0,
            };
            rustix::event::poll(&mut fds, Some(&zero)).is_ok_and(|n| n > 0)
        }
        // SAFETY: a plain system call.
        None => parent != 0 && unsafe { libc::getppid() } != parent,
    }
}

/// arbiter's pidfd, once tied.
fn arbiter_pidfd() -> Option<BorrowedFd<'static>> {
    let fd = ARBITER.load(std::sync::atomic::Ordering::SeqCst);
    // SAFETY: the descriptor stays open for the helper's whole life (never closed).
    (fd >= 0).then(|| unsafe { BorrowedFd::borrow_raw(fd) })
}

/// The helper's pid, in the bot's process at level 2 (0 elsewhere).
static HELPER: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(0);

/// In the bot's process at level 2, once its uid is final (a change of credentials clears
/// the setting): the bot is killed when its helper dies, and if the helper is already
/// gone, it does not start.
pub(crate) fn die_with_helper() -> Result<(), StepFailed> {
    let helper = HELPER.load(std::sync::atomic::Ordering::SeqCst);
    if helper == 0 {
        return Ok(());
    }
    rustix::process::set_parent_process_death_signal(Some(rustix::process::Signal::KILL))
        .map_err(|e| StepFailed(format!("die with the jail's helper: {e}")))?;
    // SAFETY: a plain system call.
    if unsafe { libc::getppid() } != helper {
        return Err(StepFailed(
            "the jail's helper ended before the bot started".into(),
        ));
    }
    Ok(())
}

/// Level 1, in the helper outside the namespace: waits for the namespace's init (whose
/// pipe `status` brings the bot's wait status) and ends as the bot did.
pub(crate) fn pass_on_the_end(init: libc::pid_t, status: OwnedFd, jail: &Jail) -> ! {
    super::report::let_go();
    release_stdio(true);
    let end = match watch(init, jail, cap_of(jail)) {
        End::Exited(own) => {
            let mut bytes = [0u8; 4];
            match rustix::io::read(&status, &mut bytes) {
                Ok(4) => End::Exited(i32::from_ne_bytes(bytes)),
                // The init ended before the bot did (a failed step: its own status says).
                _ => End::Exited(own),
            }
        }
        capped => capped,
    };
    end_as(end)
}

fn cap_of(jail: &Jail) -> Option<DiskCap> {
    jail.disk_mb.map(|mb| DiskCap::over(&jail.private, mb))
}

/// How the watched process ended.
enum End {
    /// Its raw wait status.
    Exited(i32),
    /// Killed at its disk cap, for this reason.
    Capped(String),
    /// Killed at its memory cap, for this reason.
    OverMemory(String),
    /// Killed because arbiter ended: nobody waits for its end.
    Orphaned,
}

/// Waits for `child` (the bot, or the namespace's init), reaping every other child that
/// ends meanwhile (orphans the subreaper inherited), measuring the private folder against
/// `cap`, and killing `child` if arbiter ends first.
fn watch(child: libc::pid_t, jail: &Jail, cap: Option<DiskCap>) -> End {
    // SAFETY: pidfd_open takes a pid and flags; the descriptor returned is ours.
    let pidfd = unsafe { libc::syscall(libc::SYS_pidfd_open, child, 0) };
    let pidfd = (pidfd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(pidfd as i32) });
    let arbiter = arbiter_pidfd();
    let mut next_check = Instant::now() + DISK_CHECK;
    let mut last_check = Instant::now();
    // The referee freezes the bot after each of its moves (and continues the helper): the
    // helper's child stops, and a handler of the SIGCHLD that says so ends the helper's
    // wait, so that what the bot wrote in its move is measured while it is frozen, even in
    // a game quicker than a check.
    // Whether the helper measures anything (else it only waits).
    let measures = cap.is_some() || jail.memory_mb.is_some();
    if measures {
        extern "C" fn child_changed(_: libc::c_int) {}
        // SAFETY: a handler that does nothing; no SA_RESTART, so the wait ends.
        unsafe {
            let mut action: libc::sigaction = std::mem::zeroed();
            action.sa_sigaction = child_changed as *const () as usize;
            libc::sigemptyset(&mut action.sa_mask);
            libc::sigaction(libc::SIGCHLD, &action, std::ptr::null_mut());
        }
    }
    let mut child_changed_state = false;
    loop {
        loop {
            let mut status = 0;
            // SAFETY: waits for any child of this process, without blocking.
            let got = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
            if got == child {
                return End::Exited(status);
            }
            if got <= 0 {
                break;
            }
        }
        if arbiter_ended(arbiter) {
            // SAFETY: the child is ours and not reaped: its pid is not reused. (At level 1
            // it is the namespace's init: the kernel kills the whole namespace with it.)
            unsafe { libc::kill(child, libc::SIGKILL) };
            let mut status = 0;
            unsafe { libc::waitpid(child, &mut status, 0) };
            return End::Orphaned;
        }
        if child_changed_state {
            // Measured now, or as soon as the gap since the last measure allows.
            next_check = next_check.min(last_check + FREEZE_CHECK_GAP);
            child_changed_state = false;
        }
        let due = Instant::now() >= next_check;
        if due && measures {
            let started = Instant::now();
            last_check = started;
            // The bot's processes: at level 2 the bot's tree, at level 1 the namespace's.
            // At level 1, once the namespace's init has made its new root, the helper (in
            // the same mount namespace) sees the namespace's /proc, where it is not: the
            // init is pid 1 there.
            let leader = match Path::new("/proc/self").exists() {
                true => child,
                false => 1,
            };
            let tree = super::procfs::tree_of(leader, 4096);
            let held = super::caps::Held::by(&tree, &jail.private);
            let over = jail
                .memory_mb
                .and_then(|mb| super::caps::memory_breached(&tree, held.sockets, mb))
                .map(End::OverMemory)
                .or_else(|| {
                    let cap = cap.as_ref()?;
                    cap.breached(&jail.private, held.unlinked).map(End::Capped)
                });
            if let Some(end) = over {
                // SAFETY: the child is ours and not reaped: its pid is not reused.
                unsafe { libc::kill(child, libc::SIGKILL) };
                let mut status = 0;
                unsafe { libc::waitpid(child, &mut status, 0) };
                return end;
            }
            // A folder that takes long to measure is measured less often.
            next_check = Instant::now() + DISK_CHECK.max(started.elapsed() * 5);
        }
        let wait = match measures {
            true => next_check.saturating_duration_since(Instant::now()),
            false => Duration::from_secs(3600),
        };
        match (&pidfd, arbiter) {
            (Some(fd), Some(arbiter)) => {
                let mut fds = [
                    rustix::event::PollFd::new(fd, rustix::event::PollFlags::IN),
                    rustix::event::PollFd::new(&arbiter, rustix::event::PollFlags::IN),
                ];
                let timeout = rustix::event::Timespec::try_from(wait.max(Duration::from_millis(1)))
                    .unwrap_or(rustix::event::Timespec {
                        tv_sec: 3600,
                        tv_nsec: 0,
                    });
                if rustix::event::poll(&mut fds, Some(&timeout)) == Err(rustix::io::Errno::INTR) {
                    child_changed_state = true;
                }
            }
            // A kernel without pidfds (before Linux 5.3): looked at every few milliseconds.
            _ => std::thread::sleep(wait.min(Duration::from_millis(5))),
        }
    }
}

/// Kills every process left beneath this one and reaps them all (bounded: processes in
/// uninterruptible sleep may take their time).
fn end_descendants() {
    // Most bots leave nothing: no child left, nothing to look for.
    let mut status = 0;
    // SAFETY: reaps any child of ours, without blocking.
    if unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) } == -1 {
        return;
    }
    let me = std::process::id() as i32;
    let until = Instant::now() + Duration::from_secs(2);
    loop {
        // Every descendant, from the kernel's lists of children where it keeps them (a
        // look at a few files), else from the whole process table.
        let tree: std::collections::BTreeSet<i32> = match crate::jail::procfs::my_descendants() {
            Some(found) => found.into_iter().map(|p| p.pid).collect(),
            None => {
                let procs = crate::jail::procfs::processes();
                let mut tree = std::collections::BTreeSet::from([me]);
                loop {
                    let before = tree.len();
                    for p in &procs {
                        if tree.contains(&p.ppid) {
                            tree.insert(p.pid);
                        }
                    }
                    if tree.len() == before {
                        break;
                    }
                }
                tree.remove(&me);
                tree
            }
        };
        for &pid in &tree {
            // SAFETY: a descendant of ours (zombies and all): a kill cannot reach a
            // stranger while we have not reaped it.
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
        loop {
            let mut status = 0;
            // SAFETY: reaps any child of ours.
            let got = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
            if got <= 0 {
                if got == -1 || tree.is_empty() {
                    return;
                }
                break;
            }
        }
        if Instant::now() >= until {
            return;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Lets go of the bot's pipes (the referee sees their end with the bot's): stdin and
/// stdout, and stderr unless `keep_stderr` (for a line that says why the bot was stopped).
pub(super) fn release_stdio(keep_stderr: bool) {
    if let Ok(null) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")
    {
        let _ = rustix::stdio::dup2_stdin(&null);
        let _ = rustix::stdio::dup2_stdout(&null);
        if !keep_stderr {
            let _ = rustix::stdio::dup2_stderr(&null);
        }
    }
}

/// Ends this process as the bot ended: the same exit code, or the same signal; a bot
/// stopped at its disk cap ends it by `SIGXFSZ`, after saying why on stderr.
fn end_as(end: End) -> ! {
    let status = match end {
        End::Exited(status) => status,
        End::Orphaned => std::process::exit(SETUP_FAILED),
        End::OverMemory(why) => {
            // Said last on stderr, which the referee's verdict reads (`out of memory`).
            eprintln!("{why}");
            libc::SIGKILL
        }
        End::Capped(why) => {
            eprintln!("{why}");
            // No core of the helper's own.
            let _ = rustix::process::setrlimit(
                rustix::process::Resource::Core,
                rustix::process::Rlimit {
                    current: Some(0),
                    maximum: Some(0),
                },
            );
            // A raw wait status of death by SIGXFSZ.
            libc::SIGXFSZ
        }
    };
    if libc::WIFEXITED(status) {
        std::process::exit(libc::WEXITSTATUS(status));
    }
    if libc::WIFSIGNALED(status) {
        let signal = libc::WTERMSIG(status);
        // SAFETY: plain system calls to end this process by the same signal.
        unsafe {
            libc::signal(signal, libc::SIG_DFL);
            libc::kill(libc::getpid(), signal);
        }
        std::process::exit(128 + signal);
    }
    std::process::exit(SETUP_FAILED)
}
