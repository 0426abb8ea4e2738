//! Starting a bot: its command (confined by `jail::launch`) and pipes, the helper
//! threads that drain its stderr and finish writes to its stdin, and sending it messages.

use super::POLL;
use super::{CHATTER_BYTES, STDERR_BYTES};
use crate::bots::pipe;
use crate::bots::protocol::{self, MAX_LINE_BYTES, ToBot};
use crate::bots::spec::{CommandSpec, Limits};
use crate::bots::{Failure, FailureKind};
use crate::jail::Launch;
use crate::jail::cgroup::BotCgroup;
use crate::jail::reaper::{self, leaders};
use crate::jail::sandbox::Sandbox;
use rustix::process::{Pid, Signal, WaitId, WaitIdOptions, WaitIdStatus};
use std::io::Read;
use std::os::fd::{AsFd, OwnedFd};
use std::process::{Child, ChildStderr, ChildStdin, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Bot processes started and not yet dropped, in this arbiter process, less those waiting
/// for their game's first turn (a bot started ahead of its game idles after `ready`).
pub(super) static LIVE_BOTS: AtomicUsize = AtomicUsize::new(0);

/// Whether a referee thread waiting for a reply may spin instead of sleeping: only while
/// there is a core for each bot alive (one game on two cores: yes; two games on two cores:
/// no), since a spinning referee takes the core another game's bot or referee needs.
pub(super) fn core_to_spare() -> bool {
    LIVE_BOTS.load(Ordering::Relaxed) <= crate::clocks::placement::cores()
}

/// The referee's end of the bot's stdin: written directly while nothing is queued, else
/// through the writer thread's queue (which keeps the order).
pub(super) struct StdinEnd {
    pub(super) pipe: Arc<ChildStdin>,
    pub(super) queue: Sender<Vec<u8>>,
    /// Messages queued and not completely written yet.
    pub(super) pending: Arc<AtomicUsize>,
}

/// A bounded tail of a byte stream.
pub(super) struct Tail {
    pub(super) cap: usize,
    pub(super) buf: Vec<u8>,
    pub(super) dropped: u64,
    pub(super) closed: bool,
}

impl Tail {
    pub(super) fn new(cap: usize) -> Arc<Mutex<Tail>> {
        Arc::new(Mutex::new(Tail::empty(cap)))
    }

    fn empty(cap: usize) -> Tail {
        Tail {
            cap,
            buf: Vec::new(),
            dropped: 0,
            closed: false,
        }
    }

    pub(super) fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
        // Cut only when well over the bound, so the front is not moved on every push.
        if self.buf.len() > 2 * self.cap {
            let cut = self.buf.len() - self.cap;
            self.buf.drain(..cut);
            self.dropped += cut as u64;
        }
    }

    pub(super) fn text(&self) -> String {
        let start = self.buf.len().saturating_sub(self.cap);
        let dropped = self.dropped + start as u64;
        let body = String::from_utf8_lossy(&self.buf[start..]);
        if dropped > 0 {
            format!("[{dropped} earlier bytes dropped]\n{body}")
        } else {
            body.into_owned()
        }
    }
}

pub(super) fn lock(tail: &Mutex<Tail>) -> MutexGuard<'_, Tail> {
    // A helper thread that panicked left plain bytes behind: still usable.
    tail.lock().unwrap_or_else(|e| e.into_inner())
}

/// A bot's stderr as its helper thread drains it: the tail kept, and the stream's end told
/// to whoever waits for it the moment the thread sees it (a bot's end is waited on after
/// every game: looking every 10 ms held about one finish in twenty-five for a whole step).
pub(super) struct Stderr {
    pub(super) tail: Mutex<Tail>,
    ended: Condvar,
}

impl Stderr {
    fn new(cap: usize) -> Arc<Stderr> {
        Arc::new(Stderr {
            tail: Mutex::new(Tail::empty(cap)),
            ended: Condvar::new(),
        })
    }

    fn end(&self) {
        lock(&self.tail).closed = true;
        self.ended.notify_all();
    }

    /// The text kept, once every holder of the pipe let go of it or `limit` passed.
    pub(super) fn text_at_end(&self, limit: Duration) -> String {
        let tail = lock(&self.tail);
        let (tail, _) = self
            .ended
            .wait_timeout_while(tail, limit, |t| !t.closed)
            .unwrap_or_else(|e| e.into_inner());
        tail.text()
    }
}

/// A started bot process and its helper threads' ends.
pub(super) struct Running {
    pub(super) child: Child,
    pub(super) pgid: Pid,
    pub(super) to_stdin: Option<StdinEnd>,
    /// The writer thread's failures.
    pub(super) write_errors: Receiver<(Instant, String)>,
    /// A descriptor that becomes readable when the leader exits (a pidfd), so that a
    /// wait sees the exit at once; `None` where the kernel has none (the exit is then
    /// looked for periodically).
    pub(super) pidfd: Option<OwnedFd>,
    pub(super) out: pipe::Reader,
    pub(super) stderr: Arc<Stderr>,
    pub(super) chatter: Arc<Mutex<Tail>>,
    /// Set once the group got SIGKILL: nothing more is sent.
    pub(super) killed: bool,
    /// Set once the leader is reaped: from then on its pid may belong to a stranger, so
    /// the group is never signalled again.
    pub(super) reaped: bool,
    /// In every process's environment ([`sandbox::TOKEN_VAR`]): finds escaped descendants.
    pub(super) token: String,
    pub(super) limits: Limits,
    /// The uid and folder of a sandboxed bot.
    pub(super) sandbox: Option<Sandbox>,
    /// The jail of a confined bot, and its private folder (removed with it).
    pub(super) jail: Option<crate::jail::Prepared>,
    /// Set once every process of the bot was swept away.
    pub(super) swept: bool,
    /// The bot's cgroup, where one can be made: everything it started is in it.
    pub(super) cgroup: Option<BotCgroup>,
    /// Whether the bot's last reply came within [`pipe::SPIN`]: the next is then likely
    /// to come as quickly, and is worth spinning for.
    pub(super) quick: bool,
    /// Set once the bot shares the game's CPU with the referee: waiting then never spins.
    pub(super) placed: bool,
    /// The time the last wait gave back to the bot because the machine kept it from
    /// running (`clocks::runqueue`).
    pub(super) given: Duration,
    /// Its process group, stopped while the other side moves (`clocks::freeze`).
    pub(super) freezer: crate::clocks::freeze::Freezer,
    /// Between `ready` and its game's first turn: it takes no core, and is left out of
    /// [`LIVE_BOTS`].
    pub(super) waiting: bool,
}

impl Running {
    pub(super) fn spawn(command: &CommandSpec) -> Result<Running, Failure> {
        let mut started = Running::spawn_once(command);
        // The `arbiter-jail` beside arbiter is of another build: arbiter builds the jail.
        if let Err(Started::JailFailed(why)) = &started
            && crate::jail::other_build_beside(why)
        {
            started = Running::spawn_once(command);
        }
        match started {
            // The level came from a finding kept on this boot that no longer holds: the
            // trials ran again, and the bot starts again at the level they found.
            Err(Started::JailFailed(_)) if crate::jail::recheck() => {
                Running::spawn_once(command).map_err(Started::failure)
            }
            started => started.map_err(Started::failure),
        }
    }

    fn spawn_once(command: &CommandSpec) -> Result<Running, Started> {
        reaper::become_subreaper();
        // The confinement (limits, uid, jail, cgroup) is arranged by its own room.
        let Launch {
            mut cmd,
            token,
            sandbox: jail,
            jail: prepared,
            cgroup,
            report,
        } = crate::jail::launch(command)
            .map_err(|e| Started::Failed(Failure::new(FailureKind::Spawn, e.to_string())))?;
        let born_in_jail = prepared.as_ref().is_some_and(|p| p.jail.cgroup.is_some());
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // Registered before its start is over (`starting`): the reaper never sees it
        // unregistered, even if it exits at once. Starts do not wait for each other: a
        // game's second bot was started up to 2 ms late behind the first.
        let starting = reaper::starting();
        let mut child = cmd.spawn().map_err(|e| {
            let place = match &command.cwd {
                Some(dir) => format!(" in `{}`", dir.display()),
                None => String::new(),
            };
            Started::Failed(Failure::new(
                FailureKind::Spawn,
                format!("cannot start `{}`{place}: {e}", command.program),
            ))
        })?;
        let pgid = Pid::from_child(&child);
        leaders().insert(pgid.as_raw_nonzero().get());
        // From the first bot on, a Ctrl-Z stops the bots with arbiter.
        crate::clocks::pause::watch();
        drop(starting);
        // Before the report is read: its wait ends with the helper's exit.
        let pidfd = rustix::process::pidfd_open(pgid, rustix::process::PidfdFlags::empty()).ok();
        if let Some(report) = report
            && let Err(why) = report.word(pidfd.as_ref().map(|fd| fd.as_fd()))
        {
            return Err(abandon(&mut child, pgid, Started::JailFailed(why)));
        }
        // The jail was to be born in the bot's cgroup and has started (its init and the
        // bot's program are up): a cgroup with nobody in it while the helper waits for
        // them means the birth there failed and the bot runs outside, so it is swept as a
        // bot without one.
        let cgroup = match cgroup {
            Some(c) if born_in_jail && !c.holds_anyone() && exited(pgid).is_none() => {
                crate::jail::cgroup::born_into_failed();
                None
            }
            other => other,
        };
        let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let (Some(stdin), Some(stdout), Some(stderr_pipe)) = pipes else {
            let why = Failure::new(FailureKind::Spawn, "the bot's pipes are missing");
            return Err(abandon(&mut child, pgid, Started::Failed(why)));
        };
        let out = pipe::Reader::new(stdout, MAX_LINE_BYTES)
            .and_then(|out| pipe::nonblocking_stdin(&stdin).map(|()| out));
        let stderr = Stderr::new(STDERR_BYTES);
        let chatter = Tail::new(CHATTER_BYTES);
        let (errors_tx, write_errors) = mpsc::channel();
        let (queue, stdin_rx) = mpsc::channel();
        let stdin = Arc::new(stdin);
        let pending = Arc::new(AtomicUsize::new(0));
        let out = match out {
            Ok(out) => out,
            Err(e) => {
                let why = format!("cannot set up the bot's pipes: {e}");
                let why = Started::Failed(Failure::new(FailureKind::Spawn, why));
                return Err(abandon(&mut child, pgid, why));
            }
        };
        LIVE_BOTS.fetch_add(1, Ordering::Relaxed);
        // A jailed bot's group is led by its jail's helper.
        let jailed = prepared.is_some();
        let mut run = Running {
            child,
            pgid,
            to_stdin: Some(StdinEnd {
                pipe: stdin.clone(),
                queue,
                pending: pending.clone(),
            }),
            write_errors,
            pidfd,
            out,
            stderr: stderr.clone(),
            chatter: chatter.clone(),
            killed: false,
            reaped: false,
            token,
            limits: command.confine.effective_limits(),
            sandbox: jail,
            jail: prepared,
            swept: false,
            cgroup,
            quick: true,
            placed: false,
            given: Duration::ZERO,
            freezer: match jailed {
                true => crate::clocks::freeze::Freezer::new(pgid).led_by_helper(),
                false => crate::clocks::freeze::Freezer::new(pgid),
            },
            waiting: false,
        };
        let spawned = std::thread::Builder::new()
            .name("bot-stderr".into())
            .spawn(move || drain_stderr(stderr_pipe, stderr))
            .and_then(|_| {
                std::thread::Builder::new()
                    .name("bot-stdin".into())
                    .spawn(move || write_stdin(stdin, stdin_rx, pending, errors_tx))
            });
        if let Err(e) = spawned {
            run.kill();
            return Err(Started::Failed(Failure::new(
                FailureKind::Spawn,
                format!("cannot start a helper thread: {e}"),
            )));
        }
        Ok(run)
    }

    /// Marks the bot as waiting for its game's first turn, or as playing (see
    /// [`LIVE_BOTS`]).
    pub(super) fn set_waiting(&mut self, waiting: bool) {
        if self.waiting != waiting {
            self.waiting = waiting;
            if waiting {
                LIVE_BOTS.fetch_sub(1, Ordering::Relaxed);
            } else {
                LIVE_BOTS.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    /// Sends one message to the bot: at once when the pipe takes it, else the rest
    /// through the writer thread. A dead pipe shows up as a write error.
    pub(super) fn send(&self, message: &ToBot) {
        self.send_line(protocol::encode(message).as_bytes());
    }

    /// Sends one protocol line (newline included), as [`Running::send`] does.
    pub(super) fn send_line(&self, bytes: &[u8]) {
        let Some(end) = &self.to_stdin else {
            return;
        };
        let rest = if end.pending.load(Ordering::SeqCst) == 0 {
            match pipe::write_now(&end.pipe, bytes) {
                Ok(n) if n == bytes.len() => return,
                Ok(n) => bytes[n..].to_vec(),
                // The writer meets the same error and reports it.
                Err(_) => bytes.to_vec(),
            }
        } else {
            bytes.to_vec()
        };
        end.pending.fetch_add(1, Ordering::SeqCst);
        let _ = end.queue.send(rest);
    }
}

/// The exit of `leader`, a child of this process, if it has exited, without reaping it.
pub(super) fn exited(leader: Pid) -> Option<WaitIdStatus> {
    rustix::process::waitid(
        WaitId::Pid(leader),
        WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT,
    )
    .ok()
    .flatten()
}

/// Why a bot process did not start.
enum Started {
    /// Its jail failed to build (or its program to start in it), as the jail's report
    /// pipe says.
    JailFailed(crate::jail::JailRefused),
    Failed(Failure),
}

impl Started {
    fn failure(self) -> Failure {
        match self {
            Started::JailFailed(why) => Failure::new(
                FailureKind::Spawn,
                format!("cannot start the bot in its jail: {why}"),
            ),
            Started::Failed(failure) => failure,
        }
    }
}

/// Kills and reaps a bot that could not be set up; `why`, passed on.
fn abandon(child: &mut Child, pgid: Pid, why: Started) -> Started {
    let _ = rustix::process::kill_process_group(pgid, Signal::KILL);
    let _ = child.kill();
    let _ = child.wait();
    leaders().remove(&pgid.as_raw_nonzero().get());
    why
}

fn drain_stderr(mut pipe: ChildStderr, stderr: Arc<Stderr>) {
    let mut buf = [0u8; 8192];
    loop {
        match pipe.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => lock(&stderr.tail).push(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
    }
    stderr.end();
}

/// Finishes the writes the pipe did not take at once, in order, waiting for the bot to
/// read (the pipe is non-blocking). Ends when the queue closes or the pipe breaks.
fn write_stdin(
    stdin: Arc<ChildStdin>,
    messages: Receiver<Vec<u8>>,
    pending: Arc<AtomicUsize>,
    errors: Sender<(Instant, String)>,
) {
    for message in messages {
        let mut done = 0;
        while done < message.len() {
            // SIGPIPE is ignored in Rust programs, so a dead reader is an EPIPE error here.
            match pipe::write_now(&stdin, &message[done..]) {
                Ok(0) => {
                    pipe::wait_for(&*stdin, rustix::event::PollFlags::OUT, POLL);
                }
                Ok(n) => done += n,
                Err(e) => {
                    let _ = errors.send((Instant::now(), e.to_string()));
                    return;
                }
            }
        }
        pending.fetch_sub(1, Ordering::SeqCst);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tail_keeps_the_end_and_marks_the_cut() {
        let tail = Tail::new(10);
        let mut t = lock(&tail);
        t.push(b"0123456789");
        assert_eq!(t.text(), "0123456789");
        t.push(b"abcdefghijklmnopqrstuvwxyz");
        assert_eq!(t.text(), "[26 earlier bytes dropped]\nqrstuvwxyz");
    }

    #[test]
    fn a_wait_for_stderr_ends_when_the_stream_does_with_all_it_said() {
        let stderr = Stderr::new(64);
        let writer = {
            let stderr = stderr.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(50));
                lock(&stderr.tail).push(b"Traceback: boom\n");
                stderr.end();
            })
        };
        let started = Instant::now();
        let text = stderr.text_at_end(Duration::from_secs(20));
        // Woken by the end, not by the limit.
        assert!(started.elapsed() < Duration::from_secs(10));
        assert_eq!(text, "Traceback: boom\n");
        writer.join().unwrap();
    }

    #[test]
    fn a_stderr_still_held_open_is_read_as_it_stands_at_the_limit() {
        let stderr = Stderr::new(64);
        lock(&stderr.tail).push(b"partial");
        assert_eq!(stderr.text_at_end(Duration::from_millis(30)), "partial");
        assert!(!lock(&stderr.tail).closed);
    }
}
