//! Bots as subprocesses speaking the line protocol (docs/PROTOCOL.md).
//!
//! Each bot runs in its own process group so that it and everything it forks can be killed
//! at once. The referee never blocks on a pipe: the bot's stdout and stdin are
//! non-blocking and handled on the referee's own thread (stdout read line by line, bounded
//! in length, with `poll` until the deadline; a turn written at once when the pipe takes
//! it, which it does unless the bot stopped reading). Two helper threads per bot cover
//! the rest: one drains stderr into a bounded tail, one finishes writes the pipe did not
//! take at once. So a silent bot, a bot whose grandchild holds the pipe open, or a bot
//! that stops reading its stdin can at worst cost the move limit. Helper threads are never
//! joined: each ends when its pipe closes, which killing the bot brings about.

use super::pipe::{self, Piece};
use super::protocol::{
    self, FromBot, Incoming, MAX_LINE_BYTES, PROTOCOL_VERSION, ToBot, truncate, truncate_front,
};
use super::sandbox::{self, ChildPlan, Sandbox};
use super::spec::{CommandSpec, Limits, SandboxMode};
use super::{BotLog, EndInfo, Failure, FailureKind, Player, Reply, Setup, TurnReply};
use crate::games::Game;
use rustix::process::{Pid, Signal, WaitId, WaitIdOptions, WaitIdStatus};
use std::collections::BTreeSet;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::process::{Child, ChildStderr, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};
use wait_timeout::ChildExt;

/// How much of a bot's stderr is kept: the last bytes.
pub const STDERR_BYTES: usize = 64 * 1024;
/// How much skipped stdout chatter is kept: the last bytes.
pub const CHATTER_BYTES: usize = 64 * 1024;
/// How much of an `error` message lands in the record: its end, where a traceback says most.
pub const ERROR_MESSAGE_BYTES: usize = 4 * 1024;
/// The reply recorded for a line longer than [`MAX_LINE_BYTES`]: a string, which no game
/// accepts as a move, so the turn is adjudicated as an illegal move.
pub const OVERLONG_REPLY_PREFIX: &str = "<discarded: over-long line of";

/// After `end`, how long a bot may take to exit by itself before SIGTERM.
const EXIT_GRACE: Duration = Duration::from_millis(300);
/// After SIGTERM, how long before SIGKILL.
const TERM_GRACE: Duration = Duration::from_millis(200);
/// The longest wait to reap a SIGKILLed bot (a process in uninterruptible sleep).
const REAP_LIMIT: Duration = Duration::from_secs(2);
/// How often a wait checks whether the bot has exited while a grandchild holds its stdout.
const POLL: Duration = Duration::from_millis(50);
/// After the bot exited, how long its last lines may take to come through the pipe.
const DRAIN: Duration = Duration::from_millis(150);
/// Before a turn, how long unsolicited output may be read and noted at most (a bot that
/// floods its stdout between turns cannot hold the referee longer).
const DRAIN_BUDGET: Duration = Duration::from_millis(20);

/// The `PATH` of a sandboxed bot: system folders only (not /root, not the caller's).
const SANDBOX_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Lines in a bot's stderr or error message that tell of an allocation failure: Python,
/// C++, Rust, C (`strerror(ENOMEM)`), Java, Go.
const MEMORY_MARKERS: &[&str] = &[
    "MemoryError",
    "std::bad_alloc",
    "memory allocation of",
    "Cannot allocate memory",
    "OutOfMemoryError",
    "out of memory",
];

fn absolute(path: &std::path::Path) -> std::path::PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A bot program seated as a player.
pub struct ProcessPlayer {
    command: CommandSpec,
    run: Option<Running>,
    role: String,
    name: Option<String>,
    limit: Duration,
}

impl ProcessPlayer {
    pub fn new(command: CommandSpec) -> Self {
        ProcessPlayer {
            command,
            run: None,
            role: String::new(),
            name: None,
            limit: Duration::from_secs(10),
        }
    }

    /// The bot's process group id (= its pid) while it runs: for tests and diagnostics.
    pub fn process_group(&self) -> Option<i32> {
        self.run.as_ref().map(|r| r.pgid.as_raw_nonzero().get())
    }
}

/// What the bot's stdout brought.
enum Event {
    Message(FromBot),
    Violation(String),
    Overlong(usize),
    Eof,
}

/// The referee's end of the bot's stdin: written directly while nothing is queued, else
/// through the writer thread's queue (which keeps the order).
struct StdinEnd {
    pipe: Arc<ChildStdin>,
    queue: Sender<Vec<u8>>,
    /// Messages queued and not completely written yet.
    pending: Arc<AtomicUsize>,
}

/// What one wait for the bot brought.
enum Got {
    Message(Instant, FromBot),
    Violation(String),
    Overlong(Instant, usize),
    /// The bot is gone (EOF, exit, broken pipe): why, as a crash or a broken limit.
    Gone(Failure),
    TimedOut,
}

/// A bounded tail of a byte stream.
struct Tail {
    cap: usize,
    buf: Vec<u8>,
    dropped: u64,
    closed: bool,
}

impl Tail {
    fn new(cap: usize) -> Arc<Mutex<Tail>> {
        Arc::new(Mutex::new(Tail {
            cap,
            buf: Vec::new(),
            dropped: 0,
            closed: false,
        }))
    }

    fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
        // Cut only when well over the bound, so the front is not moved on every push.
        if self.buf.len() > 2 * self.cap {
            let cut = self.buf.len() - self.cap;
            self.buf.drain(..cut);
            self.dropped += cut as u64;
        }
    }

    fn text(&self) -> String {
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

fn lock(tail: &Mutex<Tail>) -> MutexGuard<'_, Tail> {
    // A helper thread that panicked left plain bytes behind: still usable.
    tail.lock().unwrap_or_else(|e| e.into_inner())
}

/// A started bot process and its helper threads' ends.
struct Running {
    child: Child,
    pgid: Pid,
    to_stdin: Option<StdinEnd>,
    /// The writer thread's failures.
    write_errors: Receiver<String>,
    out: pipe::Reader,
    stderr: Arc<Mutex<Tail>>,
    chatter: Arc<Mutex<Tail>>,
    /// Set once the group got SIGKILL: nothing more is sent.
    killed: bool,
    /// Set once the leader is reaped: from then on its pid may belong to a stranger, so
    /// the group is never signalled again.
    reaped: bool,
    /// In every process's environment ([`sandbox::TOKEN_VAR`]): finds escaped descendants.
    token: String,
    limits: Limits,
    /// The uid and folder of a sandboxed bot.
    sandbox: Option<Sandbox>,
    /// Set once every process of the bot was swept away.
    swept: bool,
}

/// The process groups of every bot started and not yet reaped, for [`kill_all_bots`].
static LIVE_GROUPS: Mutex<BTreeSet<i32>> = Mutex::new(BTreeSet::new());

fn live_groups() -> MutexGuard<'static, BTreeSet<i32>> {
    LIVE_GROUPS.lock().unwrap_or_else(|e| e.into_inner())
}

/// SIGKILLs the process group of every bot this process started and has not reaped yet,
/// and every process of every sandboxed bot's uid.
///
/// Bots run in their own process groups, so a Ctrl-C at the terminal does not reach them:
/// the harness's SIGINT handling calls this (from a normal thread, not from inside a signal
/// handler: it takes a lock) before it exits.
pub fn kill_all_bots() {
    for &pgid in live_groups().iter() {
        if let Some(pid) = Pid::from_raw(pgid) {
            let _ = rustix::process::kill_process_group(pid, Signal::KILL);
        }
    }
    sandbox::kill_all_sandboxed();
}

impl Running {
    fn spawn(command: &CommandSpec) -> Result<Running, Failure> {
        let confine = command.confine;
        if let Some(why) = sandbox::unavailable(confine.sandbox) {
            return Err(Failure::new(FailureKind::Spawn, why));
        }
        sandbox::become_subreaper();
        let token = sandbox::new_token();
        let mut program = command.program.clone();
        let mut args = command.args.clone();
        let mut cwd = command.cwd.clone();
        let mut jail = None;
        if confine.sandbox == SandboxMode::User {
            let source = command.cwd.as_deref().map(absolute);
            let sb = Sandbox::create(source.as_deref()).map_err(|e| {
                Failure::new(
                    FailureKind::Spawn,
                    format!("cannot prepare the bot's sandbox: {e}"),
                )
            })?;
            if let Some(source) = &source {
                // Paths into the bot's folder now point into its copy.
                let moved = |text: &mut String| {
                    if let Ok(rest) = std::path::Path::new(text.as_str()).strip_prefix(source) {
                        *text = sb.workdir.join(rest).to_string_lossy().into_owned();
                    }
                };
                moved(&mut program);
                args.iter_mut().for_each(moved);
            }
            for from in &command.carried {
                let copy = sb.carry_in(from).map_err(|e| {
                    let what = format!(
                        "cannot copy `{}` into the bot's sandbox: {e}",
                        from.display()
                    );
                    Failure::new(FailureKind::Spawn, what)
                })?;
                for arg in args.iter_mut() {
                    if let Ok(rest) = std::path::Path::new(arg.as_str()).strip_prefix(from) {
                        *arg = copy.join(rest).to_string_lossy().into_owned();
                    }
                }
            }
            cwd = Some(sb.workdir.clone());
            jail = Some(sb);
        }
        let mut cmd = Command::new(&program);
        cmd.args(&args);
        if let Some(sb) = &jail {
            cmd.env_clear()
                .env("PATH", SANDBOX_PATH)
                .env("HOME", &sb.workdir)
                .env("TMPDIR", &sb.workdir)
                .env("LANG", "C.UTF-8");
        }
        cmd.envs(&command.env)
            .env(sandbox::TOKEN_VAR, &token)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        if let Some(dir) = &cwd {
            cmd.current_dir(dir);
        }
        let plan = ChildPlan {
            limits: confine.limits,
            uid: jail.as_ref().map(|sb| sb.uid),
            no_network: jail.is_some() && sandbox::network_isolation_works(),
        };
        // SAFETY: confine_child makes raw system calls only (no allocation, no locks).
        unsafe { cmd.pre_exec(move || sandbox::confine_child(&plan)) };
        let mut child = cmd.spawn().map_err(|e| {
            let place = match &command.cwd {
                Some(dir) => format!(" in `{}`", dir.display()),
                None => String::new(),
            };
            Failure::new(
                FailureKind::Spawn,
                format!("cannot start `{}`{place}: {e}", command.program),
            )
        })?;
        let pgid = Pid::from_child(&child);
        live_groups().insert(pgid.as_raw_nonzero().get());
        let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let (Some(stdin), Some(stdout), Some(stderr_pipe)) = pipes else {
            let _ = rustix::process::kill_process_group(pgid, Signal::KILL);
            let _ = child.kill();
            let _ = child.wait();
            live_groups().remove(&pgid.as_raw_nonzero().get());
            return Err(Failure::new(
                FailureKind::Spawn,
                "the bot's pipes are missing",
            ));
        };
        let out = pipe::Reader::new(stdout, MAX_LINE_BYTES)
            .and_then(|out| pipe::nonblocking_stdin(&stdin).map(|()| out));
        let stderr = Tail::new(STDERR_BYTES);
        let chatter = Tail::new(CHATTER_BYTES);
        let (errors_tx, write_errors) = mpsc::channel();
        let (queue, stdin_rx) = mpsc::channel();
        let stdin = Arc::new(stdin);
        let pending = Arc::new(AtomicUsize::new(0));
        let out = match out {
            Ok(out) => out,
            Err(e) => {
                let _ = rustix::process::kill_process_group(pgid, Signal::KILL);
                let _ = child.kill();
                let _ = child.wait();
                live_groups().remove(&pgid.as_raw_nonzero().get());
                return Err(Failure::new(
                    FailureKind::Spawn,
                    format!("cannot set up the bot's pipes: {e}"),
                ));
            }
        };
        let mut run = Running {
            child,
            pgid,
            to_stdin: Some(StdinEnd {
                pipe: stdin.clone(),
                queue,
                pending: pending.clone(),
            }),
            write_errors,
            out,
            stderr: stderr.clone(),
            chatter: chatter.clone(),
            killed: false,
            reaped: false,
            token,
            limits: confine.limits,
            sandbox: jail,
            swept: false,
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
            return Err(Failure::new(
                FailureKind::Spawn,
                format!("cannot start a helper thread: {e}"),
            ));
        }
        Ok(run)
    }

    /// Sends one message to the bot: at once when the pipe takes it, else the rest
    /// through the writer thread. A dead pipe shows up as a write error.
    fn send(&self, message: &ToBot) {
        let Some(end) = &self.to_stdin else {
            return;
        };
        let bytes = protocol::encode(message).into_bytes();
        let rest = if end.pending.load(Ordering::SeqCst) == 0 {
            match pipe::write_now(&end.pipe, &bytes) {
                Ok(n) if n == bytes.len() => return,
                Ok(n) => bytes[n..].to_vec(),
                // The writer meets the same error and reports it.
                Err(_) => bytes,
            }
        } else {
            bytes
        };
        end.pending.fetch_add(1, Ordering::SeqCst);
        let _ = end.queue.send(rest);
    }

    /// The next message from the bot's stdout, waiting until `until` at most; chatter is
    /// kept in the chatter log and skipped, for as long as `chatter_until` allows.
    fn read_event(&mut self, until: Instant, chatter_until: Instant) -> Option<(Instant, Event)> {
        loop {
            let piece = self.out.next(until)?;
            let at = Instant::now();
            let event = match piece {
                Piece::Line(line) => {
                    let text = String::from_utf8_lossy(&line);
                    match protocol::classify::<FromBot>(&text) {
                        Incoming::Message(m) => Event::Message(m),
                        Incoming::Violation(why) => {
                            Event::Violation(format!("{why} in line {}", truncate(&text, 200)))
                        }
                        Incoming::Chatter => {
                            let mut tail = lock(&self.chatter);
                            tail.push(&line);
                            tail.push(b"\n");
                            drop(tail);
                            if at >= chatter_until {
                                return None;
                            }
                            continue;
                        }
                    }
                }
                Piece::Overlong(n) => Event::Overlong(n),
                Piece::Eof => Event::Eof,
            };
            return Some((at, event));
        }
    }

    fn signal_group(&self, signal: Signal) {
        if self.reaped {
            return;
        }
        // ESRCH (nobody left) is the good case; nothing else can be done about other errors.
        let _ = rustix::process::kill_process_group(self.pgid, signal);
    }

    /// SIGKILL to the whole group, and to the leader in case it left the group.
    fn kill(&mut self) {
        self.signal_group(Signal::KILL);
        if !self.reaped {
            let _ = self.child.kill();
        }
        self.killed = true;
    }

    /// Waits (bounded) for the killed leader and collects it.
    fn reap(&mut self) {
        if self.reaped {
            return;
        }
        if let Ok(Some(_)) = self.child.wait_timeout(REAP_LIMIT) {
            self.reaped = true;
            live_groups().remove(&self.pgid.as_raw_nonzero().get());
        }
    }

    /// The leader's exit, if it has exited, without reaping it: while unreaped, its pid
    /// cannot be reused, so signalling the group cannot hit a stranger.
    fn exit_status(&self) -> Option<WaitIdStatus> {
        rustix::process::waitid(
            WaitId::Pid(self.pgid),
            WaitIdOptions::EXITED | WaitIdOptions::NOHANG | WaitIdOptions::NOWAIT,
        )
        .ok()
        .flatten()
    }

    fn wait_exit(&self, limit: Duration) -> Option<WaitIdStatus> {
        let until = Instant::now() + limit;
        // A bot told `end` exits within a millisecond or two: look often at first.
        let mut pause = Duration::from_micros(250);
        loop {
            if let Some(status) = self.exit_status() {
                return Some(status);
            }
            if Instant::now() >= until {
                return None;
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(10));
        }
    }

    fn stderr_text(&self, limit: Duration) -> String {
        let until = Instant::now() + limit;
        while !lock(&self.stderr).closed && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(10));
        }
        lock(&self.stderr).text()
    }

    /// Why the bot is gone: what was seen, its exit status and its last stderr lines, as
    /// a crash, or as the limit it broke when that can be told.
    fn gone(&self, what: &str) -> Failure {
        let status = self.wait_exit(Duration::from_millis(500));
        let described = match &status {
            Some(status) => describe_exit(status),
            None => "still running".to_string(),
        };
        let mut detail = format!("{what} ({described})");
        let stderr = self.stderr_text(Duration::from_millis(200));
        let tail = last_lines(&stderr, 12, 2000);
        if !tail.is_empty() {
            detail.push_str("; stderr tail:\n");
            detail.push_str(&tail);
        }
        let kind = self.limit_broken(status.as_ref(), &tail);
        if let Some(note) = self.limit_note(kind) {
            detail = format!("{note}: {detail}");
        }
        Failure::new(kind, detail)
    }

    /// Which limit killed the bot, if one did: SIGXCPU or a SIGKILL we did not send after
    /// the CPU limit was used up is `cpu`; SIGXFSZ is `file_size`; an allocation failure
    /// in its last stderr lines under a memory limit is `memory`. Anything else: `crash`.
    fn limit_broken(&self, status: Option<&WaitIdStatus>, stderr_tail: &str) -> FailureKind {
        let signal = status.and_then(|s| s.terminating_signal());
        if signal == Some(rustix::process::Signal::XCPU.as_raw()) {
            return FailureKind::Cpu;
        }
        if signal == Some(rustix::process::Signal::XFSZ.as_raw()) {
            return FailureKind::FileSize;
        }
        if signal == Some(9)
            && !self.killed
            && let Some(limit) = self.limits.cpu_s
            && sandbox::cpu_seconds(self.pgid.as_raw_nonzero().get())
                .is_some_and(|used| used + 0.05 >= limit as f64)
        {
            return FailureKind::Cpu;
        }
        if self.limits.memory_mb.is_some() && mentions_memory_exhaustion(stderr_tail) {
            return FailureKind::Memory;
        }
        FailureKind::Crash
    }

    fn limit_note(&self, kind: FailureKind) -> Option<String> {
        let l = self.limits;
        match kind {
            FailureKind::Cpu => Some(format!("CPU limit of {} s used up", l.cpu_s?)),
            FailureKind::Memory => Some(format!("memory limit of {} MiB reached", l.memory_mb?)),
            FailureKind::FileSize => Some(match l.file_mb {
                Some(mb) => format!("file size limit of {mb} MiB exceeded"),
                None => "file size limit exceeded".to_string(),
            }),
            _ => None,
        }
    }

    /// An `error` message, as an exception or, under a memory limit, as running out of it.
    fn exception(&self, message: &serde_json::Value) -> Failure {
        let mut failure = exception(message);
        if self.limits.memory_mb.is_some() && mentions_memory_exhaustion(&failure.detail) {
            failure.kind = FailureKind::Memory;
            if let Some(note) = self.limit_note(FailureKind::Memory) {
                failure.detail = format!("{note}: {}", failure.detail);
            }
        }
        failure
    }

    /// Kills whatever of the bot is still around once its leader was dealt with: every
    /// process of its uid (sandbox), or every descendant that left its process group.
    fn sweep(&mut self) {
        if self.swept {
            return;
        }
        let leader = self.pgid.as_raw_nonzero().get();
        let unreaped = (!self.reaped).then_some(leader);
        match &self.sandbox {
            Some(sb) => sb.sweep_except(unreaped),
            None => sandbox::sweep_descendants(unreaped, leader, &self.token),
        }
        self.swept = true;
    }

    /// Waits for the next message until `deadline`, watching for the bot's exit.
    fn next(&mut self, deadline: Instant) -> Got {
        let mut exited_at: Option<Instant> = None;
        loop {
            if let Ok(e) = self.write_errors.try_recv() {
                return Got::Gone(self.gone(&format!("cannot write to the bot's stdin: {e}")));
            }
            let now = Instant::now();
            if let Some(at) = exited_at
                && now.duration_since(at) >= DRAIN
            {
                return Got::Gone(self.gone("the bot exited"));
            }
            if now >= deadline {
                if exited_at.is_some() || self.exit_status().is_some() {
                    return Got::Gone(self.gone("the bot exited"));
                }
                return Got::TimedOut;
            }
            let until = deadline.min(now + POLL);
            match self.read_event(until, until) {
                Some((at, event)) => match event {
                    Event::Message(m) => return Got::Message(at, m),
                    Event::Violation(v) => return Got::Violation(v),
                    Event::Overlong(n) => return Got::Overlong(at, n),
                    Event::Eof => return Got::Gone(self.gone("the bot closed its stdout")),
                },
                None => {
                    if exited_at.is_none() && self.exit_status().is_some() {
                        exited_at = Some(Instant::now());
                    }
                }
            }
        }
    }

    /// Messages that arrived while it was not the bot's turn. An `error` or the bot's
    /// death counts; replies nobody asked for are noted in the chatter log and dropped.
    fn drain_unsolicited(&mut self) -> Result<(), Failure> {
        let budget = Instant::now() + DRAIN_BUDGET;
        loop {
            if let Ok(e) = self.write_errors.try_recv() {
                return Err(self.gone(&format!("cannot write to the bot's stdin: {e}")));
            }
            match self.read_event(Instant::now(), budget) {
                Some((_, Event::Message(FromBot::Error { message }))) => {
                    return Err(self.exception(&message));
                }
                Some((_, Event::Eof)) => {
                    return Err(self.gone("the bot closed its stdout"));
                }
                Some((_, other)) => {
                    let what = match other {
                        Event::Message(m) => truncate(&protocol::encode(&m), 200),
                        Event::Violation(v) => v,
                        Event::Overlong(n) => format!("an over-long line of {n} bytes"),
                        Event::Eof => String::new(),
                    };
                    let note = format!("[arbiter: ignored unsolicited {}]\n", what.trim_end());
                    lock(&self.chatter).push(note.as_bytes());
                    if Instant::now() >= budget {
                        return Ok(());
                    }
                }
                None => return Ok(()),
            }
        }
    }

    /// `end`, stdin closed, a grace period, SIGTERM, a shorter one, SIGKILL, reap.
    fn shut_down(&mut self, end: Option<&EndInfo>) {
        if !self.killed {
            if let Some(end) = end {
                self.send(&ToBot::End {
                    result: end.result.to_string(),
                    reason: end.reason.clone(),
                });
            }
            // The writer flushes what is queued, then drops the pipe: the bot sees EOF.
            self.to_stdin = None;
            if self.wait_exit(EXIT_GRACE).is_none() {
                self.signal_group(Signal::TERM);
                self.wait_exit(TERM_GRACE);
            }
        }
        // Also for a bot that exited by itself: its children may still hold the pipes.
        self.kill();
        self.to_stdin = None;
        self.reap();
        self.sweep();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // An early return or a panic in the referee must leave no bot behind.
        self.kill();
        self.to_stdin = None;
        self.reap();
        self.sweep();
    }
}

fn drain_stderr(mut stderr: ChildStderr, tail: Arc<Mutex<Tail>>) {
    let mut buf = [0u8; 8192];
    loop {
        match stderr.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => lock(&tail).push(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
    }
    lock(&tail).closed = true;
}

/// Finishes the writes the pipe did not take at once, in order, waiting for the bot to
/// read (the pipe is non-blocking). Ends when the queue closes or the pipe breaks.
fn write_stdin(
    stdin: Arc<ChildStdin>,
    messages: Receiver<Vec<u8>>,
    pending: Arc<AtomicUsize>,
    errors: Sender<String>,
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
                    let _ = errors.send(e.to_string());
                    return;
                }
            }
        }
        pending.fetch_sub(1, Ordering::SeqCst);
    }
}

fn describe_exit(status: &WaitIdStatus) -> String {
    if let Some(code) = status.exit_status() {
        return format!("exit status {code}");
    }
    if let Some(signal) = status.terminating_signal() {
        let name = match signal {
            1 => " (SIGHUP)",
            2 => " (SIGINT)",
            4 => " (SIGILL)",
            6 => " (SIGABRT)",
            7 => " (SIGBUS)",
            8 => " (SIGFPE)",
            9 => " (SIGKILL)",
            11 => " (SIGSEGV)",
            13 => " (SIGPIPE)",
            15 => " (SIGTERM)",
            _ => "",
        };
        return format!("killed by signal {signal}{name}");
    }
    "exited".to_string()
}

/// The last `lines` lines of `text`, at most `max` bytes.
fn last_lines(text: &str, lines: usize, max: usize) -> String {
    let trimmed = text.trim_end();
    let start = trimmed
        .rmatch_indices('\n')
        .nth(lines.saturating_sub(1))
        .map_or(0, |(i, _)| i + 1);
    truncate_front(&trimmed[start..], max)
}

/// `from + limit`, for any limit a configuration can hold (no overflow panic).
fn deadline_after(from: Instant, limit: Duration) -> Instant {
    const FAR: Duration = Duration::from_secs(365 * 24 * 3600);
    from.checked_add(limit.min(FAR)).unwrap_or(from)
}

fn mentions_memory_exhaustion(text: &str) -> bool {
    MEMORY_MARKERS.iter().any(|m| text.contains(m))
}

fn exception(message: &serde_json::Value) -> Failure {
    let text = FromBot::error_text(message);
    let text = if text.trim().is_empty() {
        "the bot reported an error without a message".to_string()
    } else {
        truncate_front(&text, ERROR_MESSAGE_BYTES)
    };
    Failure::new(FailureKind::Exception, text)
}

impl<G: Game> Player<G> for ProcessPlayer {
    fn start(&mut self, game: &G, setup: &Setup) -> Result<Option<String>, Failure> {
        self.run = None;
        self.name = None;
        self.role = game.role_name(setup.side).to_string();
        self.limit = setup.move_limit;
        let mut run = Running::spawn(&self.command)?;
        run.send(&ToBot::Hello {
            protocol: PROTOCOL_VERSION,
            game: game.name().to_string(),
            role: self.role.clone(),
            time_limit_ms: setup.move_limit.as_millis() as u64,
            init_limit_ms: setup.init_limit.as_millis() as u64,
            seed: setup.seed,
        });
        let deadline = deadline_after(Instant::now(), setup.init_limit);
        let failure = match run.next(deadline) {
            Got::Message(_, FromBot::Ready { name }) => {
                self.name = name.clone();
                self.run = Some(run);
                return Ok(name);
            }
            Got::Message(_, FromBot::Error { message }) => run.exception(&message),
            Got::Message(_, FromBot::Move { .. }) => Failure::new(
                FailureKind::Protocol,
                "a `move` where `ready` was due (the handshake)",
            ),
            Got::Violation(why) => Failure::new(FailureKind::Protocol, format!("handshake: {why}")),
            Got::Overlong(_, n) => Failure::new(
                FailureKind::Protocol,
                format!("handshake: a line of {n} bytes, over the {MAX_LINE_BYTES}-byte limit"),
            ),
            Got::Gone(failure) => {
                Failure::new(failure.kind, format!("before `ready`: {}", failure.detail))
            }
            Got::TimedOut => {
                run.kill();
                Failure::new(
                    FailureKind::Timeout,
                    format!(
                        "no `ready` within {} ms (the bot was killed)",
                        setup.init_limit.as_millis()
                    ),
                )
            }
        };
        // Kept so that `finish` can collect its stderr and reap it.
        self.run = Some(run);
        Err(failure)
    }

    fn turn(&mut self, game: &G, state: &G::State) -> TurnReply<G::Move> {
        let started = Instant::now();
        let failed = |failure: Failure| TurnReply {
            reply: Reply::Failed(failure),
            elapsed: started.elapsed(),
        };
        let Some(run) = self.run.as_mut().filter(|r| !r.killed) else {
            return failed(Failure::new(FailureKind::Crash, "the bot is not running"));
        };
        if let Err(failure) = run.drain_unsolicited() {
            return failed(failure);
        }
        let role = game.role_name(game.side_to_move(state)).to_string();
        // The move limit comes from the hello this bot was given; the referee holds the
        // authoritative value and re-checks `elapsed` against it.
        let limit = self.limit;
        let sent = Instant::now();
        run.send(&ToBot::Turn {
            role,
            board: game.encode_board(state),
            fields: game.turn_fields(state),
        });
        let deadline = deadline_after(sent, limit);
        let since = |at: Instant| at.saturating_duration_since(sent);
        match run.next(deadline) {
            Got::Message(at, FromBot::Move { mv }) => TurnReply {
                reply: Reply::Wire(mv),
                elapsed: since(at),
            },
            Got::Message(at, FromBot::Error { message }) => TurnReply {
                reply: Reply::Failed(run.exception(&message)),
                elapsed: since(at),
            },
            Got::Message(at, FromBot::Ready { .. }) => TurnReply {
                reply: Reply::Failed(Failure::new(
                    FailureKind::Protocol,
                    "a `ready` where a `move` was due",
                )),
                elapsed: since(at),
            },
            Got::Violation(why) => failed(Failure::new(FailureKind::Protocol, why)),
            Got::Overlong(at, n) => TurnReply {
                reply: Reply::Wire(serde_json::Value::String(format!(
                    "{OVERLONG_REPLY_PREFIX} {n} bytes (limit {MAX_LINE_BYTES})>"
                ))),
                elapsed: since(at),
            },
            Got::Gone(failure) => failed(failure),
            Got::TimedOut => {
                run.kill();
                TurnReply {
                    reply: Reply::Failed(Failure::new(
                        FailureKind::Timeout,
                        format!(
                            "no reply within {} ms (the bot was killed)",
                            limit.as_millis()
                        ),
                    )),
                    elapsed: started.elapsed(),
                }
            }
        }
    }

    fn finish(&mut self, end: &EndInfo) -> BotLog {
        let Some(mut run) = self.run.take() else {
            return BotLog {
                name: self.name.clone(),
                ..BotLog::default()
            };
        };
        run.shut_down(Some(end));
        let stderr = run.stderr_text(Duration::from_millis(100));
        let chatter = lock(&run.chatter).text();
        BotLog {
            name: self.name.clone(),
            stderr,
            chatter,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kill_all_bots_reaches_every_live_group() {
        // The lib's unit tests start no other bots, so killing every live group is safe here.
        let command = CommandSpec::new("sh").arg("-c").arg("sleep 30 & sleep 30");
        let mut run = Running::spawn(&command).expect("sh starts");
        let pgid = run.pgid.as_raw_nonzero().get();
        assert!(live_groups().contains(&pgid));
        kill_all_bots();
        let status = run.wait_exit(Duration::from_secs(2)).expect("killed");
        assert_eq!(status.terminating_signal(), Some(9));
        run.shut_down(None);
        assert!(run.reaped);
        assert!(!live_groups().contains(&pgid));
    }

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
    fn last_lines_of_stderr() {
        assert_eq!(last_lines("a\nb\nc\nd\n", 2, 100), "c\nd");
        assert_eq!(last_lines("only", 5, 100), "only");
        assert_eq!(last_lines("", 5, 100), "");
    }
}
