//! Waiting for a bot's next message against a deadline, watching for its exit, and
//! reading what it sent while it was not its turn.

use super::POLL;
use super::spawn::{Running, lock};
use crate::bots::Failure;
use crate::bots::pipe::{self, Piece};
use crate::bots::protocol::{self, FromBot, Incoming, truncate};
use crate::bots::runqueue;
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
    /// time given (`bots::runqueue`).
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
    /// the time the machine kept the bot waiting for a CPU (`bots::runqueue`), which
    /// [`Running::given`] then holds; past [`runqueue::MAX_STRETCH`] times the limit, a
    /// bot still kept waiting so is [`Got::MachineLate`].
    pub(super) fn next(&mut self, asked: Instant, deadline: Instant) -> Got {
        let mut exited_at: Option<Instant> = None;
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

/// `from + limit`, for any limit a configuration can hold (no overflow panic).
pub(super) fn deadline_after(from: Instant, limit: Duration) -> Instant {
    const FAR: Duration = Duration::from_secs(365 * 24 * 3600);
    from.checked_add(limit.min(FAR)).unwrap_or(from)
}

/// Whose a deadline passed without a reply was.
pub(super) enum Late {
    /// The bot's: its own time ran out.
    Own,
    /// The machine's: the deadline stretched as far as it goes while the bot's own time
    /// was still within its limit, with this much time it waited for a CPU.
    Machine(Duration),
}

/// A move's deadline, which moves by the time arbiter was stopped (Ctrl-Z: so was the bot)
/// and by the time the machine kept the bot waiting for a CPU (`bots::runqueue`), up to
/// [`runqueue::MAX_STRETCH`] times the limit.
pub(super) struct MoveClock {
    asked: Instant,
    limit: Duration,
    deadline: Instant,
    /// The deadline before any stretch (a pause's aside).
    first_deadline: Instant,
    cap: Instant,
    /// When the bot's counters are first read: only once a move lasts (most replies come
    /// before), at no cost to a quick one.
    look_at: Instant,
    threshold: Duration,
    leader: i32,
    watch: runqueue::Watch,
    paused_at_start: Duration,
    /// How far a pause moved the deadline.
    paused: Duration,
}

impl MoveClock {
    /// The clock of a wait asked for at `asked`, due by `deadline`, of the bot whose
    /// process group `leader` leads.
    pub(super) fn new(asked: Instant, deadline: Instant, leader: i32) -> MoveClock {
        let limit = deadline.saturating_duration_since(asked);
        MoveClock {
            asked,
            limit,
            deadline,
            first_deadline: deadline,
            cap: deadline_after(asked, limit.saturating_mul(runqueue::MAX_STRETCH)),
            look_at: asked + runqueue::first_look(limit),
            threshold: runqueue::threshold(limit),
            leader,
            watch: runqueue::Watch::begin(),
            paused_at_start: crate::bots::pause::paused(),
            paused: Duration::ZERO,
        }
    }

    /// The deadline as it stands.
    pub(super) fn deadline(&self) -> Instant {
        self.deadline
    }

    /// When a wait must end to keep the clock: the deadline, or the first look at the
    /// bot's counters while it is to come.
    pub(super) fn wake(&self) -> Instant {
        if self.watch.looked() {
            self.deadline
        } else {
            self.deadline.min(self.look_at)
        }
    }

    /// Reads the bot's counters for the first time, when that is due at `now`.
    pub(super) fn look(&mut self, now: Instant) {
        if !self.watch.looked() && now >= self.look_at {
            self.watch.look(self.leader);
        }
    }

    /// At the deadline: moves it by a pause of the run or by the machine's wait since it
    /// was last moved, and says whether it moved.
    pub(super) fn stretch(&mut self) -> bool {
        let paused = crate::bots::pause::paused().saturating_sub(self.paused_at_start);
        if paused > self.paused {
            let by = paused - self.paused;
            self.deadline += by;
            self.first_deadline += by;
            self.cap += by;
            self.paused = paused;
            return true;
        }
        if self.deadline >= self.cap {
            return false;
        }
        let before = self.watch.given;
        let given = self.watch.measure(self.leader, self.threshold);
        if given > before {
            self.deadline = (self.deadline + (given - before)).min(self.cap);
            return true;
        }
        false
    }

    /// The time given back so far for the machine's wait.
    pub(super) fn given(&self) -> Duration {
        self.watch.given
    }

    /// The time given back for the machine's wait, once the reply was seen at `at`: a
    /// reply seen past its first deadline (a move the wait stretched, or a reply the
    /// referee itself was kept from seeing in time) is measured once more, so that the wait
    /// since the last look is given back too; a move answered in time costs nothing more.
    pub(super) fn settle(&mut self, at: Instant) -> Duration {
        if at > self.first_deadline {
            self.watch.measure(self.leader, self.threshold);
        }
        self.watch.given
    }

    /// The time a pause of the run moved the deadline by.
    pub(super) fn paused(&self) -> Duration {
        self.paused
    }

    /// Whose the passed deadline is, at `now`.
    pub(super) fn late(&self, now: Instant) -> Late {
        let own = now
            .saturating_duration_since(self.asked)
            .saturating_sub(self.paused)
            .saturating_sub(self.watch.given);
        if now >= self.cap && !self.watch.given.is_zero() && own < self.limit {
            Late::Machine(self.watch.given)
        } else {
            Late::Own
        }
    }
}
