//! Waiting for a bot's next message against a deadline, watching for its exit, and
//! reading what it sent while it was not its turn.

use super::POLL;
use super::spawn::{Running, lock};
use crate::bots::Failure;
use crate::bots::pipe::{self, Piece};
use crate::bots::protocol::{self, FromBot, Incoming, truncate};
use crate::clocks::deadline::{Late, MoveClock};
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

/// After the bot exited, how long its last lines may take to come through the pipe.
const DRAIN: Duration = Duration::from_millis(150);
/// Before a turn, how long unsolicited output may be read and noted at most (a bot that
/// floods its stdout between turns cannot hold the referee longer).
const DRAIN_BUDGET: Duration = Duration::from_millis(20);

/// What the bot's stdout brought.
pub(super) enum Event {
    Message(FromBot),
    Violation(String),
    Overlong(usize),
    Eof,
}

/// What one wait for the bot brought, with the moment it was seen.
pub(super) enum Got {
    Message(Instant, FromBot),
    Violation(Instant, String),
    Overlong(Instant, usize),
    /// The bot is gone (EOF, exit, broken pipe): when that was seen, and why, as a crash
    /// or a broken limit.
    Gone(Instant, Failure),
    /// The deadline passed without a reply.
    TimedOut(Instant),
    /// The deadline, stretched as far as it goes, passed without a reply while the bot's
    /// own time was still within its limit: the machine kept it from running for the
    /// time given (`clocks::runqueue`).
    MachineLate(Instant, Duration),
}

impl Running {
    /// The next message from the bot's stdout, waiting until `until` at most (`None`: not
    /// at all); chatter is kept in the chatter log and skipped, for as long as
    /// `chatter_until` allows. With `watch_exit`, the wait also ends when the bot exits.
    pub(super) fn read_event(
        &mut self,
        until: Option<Instant>,
        chatter_until: Instant,
        watch_exit: bool,
    ) -> Option<(Instant, Event)> {
        loop {
            let exit = self
                .pidfd
                .as_ref()
                .filter(|_| watch_exit)
                .map(|fd| fd.as_fd());
            let piece = match until {
                Some(until) => self.out.next(until, exit)?,
                None => self.out.try_next()?,
            };
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

    /// Waits for the next message, asked for at `asked`, until `deadline`, watching for the
    /// bot's exit. Each outcome carries the moment it was seen: the line's arrival, the
    /// exit, the end of output, the failed write, the deadline; the diagnosis of a failure
    /// (exit status, stderr) comes after and is not charged to the bot.
    ///
    /// The deadline moves by the time arbiter was stopped (Ctrl-Z: so was the bot) and by
    /// the time the machine kept the bot waiting for a CPU (`clocks::runqueue`), which
    /// [`Running::given`] then holds; past [`crate::clocks::runqueue::MAX_STRETCH`] times
    /// the limit, a bot still kept waiting so is [`Got::MachineLate`].
    ///
    /// `freeze`, the opponent of a turn, is frozen once the turn has lasted
    /// [`crate::clocks::freeze::LAZY`]: a bot that answers sooner keeps its opponent running.
    pub(super) fn next(
        &mut self,
        asked: Instant,
        deadline: Instant,
        freeze: Option<&crate::clocks::freeze::Freezer>,
    ) -> Got {
        let mut exited_at: Option<Instant> = None;
        let mut freeze = freeze.map(|f| (f, asked + crate::clocks::freeze::LAZY));
        let mut clock = MoveClock::new(asked, deadline, self.pgid.as_raw_nonzero().get());
        self.given = Duration::ZERO;
        // The clock is read once a wait came back empty: a reply usually comes at the
        // first look, and reading the clock is a good part of a turn's own work.
        let mut now = asked;
        let spin = self.quick && !self.placed && super::spawn::core_to_spare();
        self.out
            .set_spin(if spin { pipe::SPIN } else { Duration::ZERO });
        // With a pidfd, the wait below sees an exit as it happens: the first look at the
        // exit status can be skipped, and a turn costs one system call less.
        let mut look = self.pidfd.is_none();
        loop {
            if let Ok((at, e)) = self.write_errors.try_recv() {
                let why = format!("cannot write to the bot's stdin: {e}");
                return Got::Gone(at, self.gone(&why));
            }
            if exited_at.is_none() && look && self.exit_status().is_some() {
                exited_at = Some(Instant::now());
            }
            look = true;
            if let Some(at) = exited_at
                && (now.duration_since(at) >= DRAIN || now >= clock.deadline())
            {
                return Got::Gone(at, self.gone("the bot exited"));
            }
            if exited_at.is_none() {
                clock.look(now);
            }
            if now >= clock.deadline() {
                if clock.stretch() {
                    continue;
                }
                self.given = clock.given();
                return match clock.late(now) {
                    Late::Own => Got::TimedOut(now),
                    Late::Machine(waited) => Got::MachineLate(now, waited),
                };
            }
            // Without an exit descriptor to wait on, the exit is looked for every POLL.
            let watch = exited_at.is_none() && self.pidfd.is_some();
            let until = match exited_at {
                Some(at) => clock.deadline().min(at + DRAIN),
                None if watch => clock.wake(),
                None => clock.wake().min(now + POLL),
            };
            let until = match freeze {
                Some((_, at)) => until.min(at),
                None => until,
            };
            if let Some((at, event)) = self.read_event(Some(until), until, watch) {
                self.quick = at.saturating_duration_since(asked) <= pipe::SPIN;
                self.given = clock.settle(at);
                return match event {
                    Event::Message(m) => Got::Message(at, m),
                    Event::Violation(v) => Got::Violation(at, v),
                    Event::Overlong(n) => Got::Overlong(at, n),
                    Event::Eof => Got::Gone(at, self.gone("the bot closed its stdout")),
                };
            }
            now = Instant::now();
            if let Some((opponent, at)) = freeze
                && now >= at
            {
                opponent.freeze();
                freeze = None;
            }
        }
    }

    /// Messages that arrived while it was not the bot's turn, which starts at `since`. An
    /// `error` or the bot's death counts, with the moment it was seen; replies nobody
    /// asked for are noted in the chatter log and dropped.
    pub(super) fn drain_unsolicited(&mut self, since: Instant) -> Result<(), (Instant, Failure)> {
        let budget = since + DRAIN_BUDGET;
        loop {
            if let Ok((at, e)) = self.write_errors.try_recv() {
                let why = format!("cannot write to the bot's stdin: {e}");
                return Err((at, self.gone(&why)));
            }
            match self.read_event(None, budget, false) {
                Some((at, Event::Message(FromBot::Error { message }))) => {
                    return Err((at, self.exception(&message)));
                }
                Some((at, Event::Eof)) => {
                    return Err((at, self.gone("the bot closed its stdout")));
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
}
