//! Waiting for a bot's next message against a deadline, watching for its exit, and
//! reading what it sent while it was not its turn.

use super::spawn::{Running, lock};
use crate::bots::Failure;
use crate::bots::pipe::Piece;
use crate::bots::protocol::{self, FromBot, Incoming, truncate};
use std::time::{Duration, Instant};

/// How often a wait checks whether the bot has exited while a grandchild holds its stdout.
pub(super) const POLL: Duration = Duration::from_millis(50);
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

/// What one wait for the bot brought.
pub(super) enum Got {
    Message(Instant, FromBot),
    Violation(String),
    Overlong(Instant, usize),
    /// The bot is gone (EOF, exit, broken pipe): why, as a crash or a broken limit.
    Gone(Failure),
    TimedOut,
}

impl Running {
    /// The next message from the bot's stdout, waiting until `until` at most; chatter is
    /// kept in the chatter log and skipped, for as long as `chatter_until` allows.
    pub(super) fn read_event(
        &mut self,
        until: Instant,
        chatter_until: Instant,
    ) -> Option<(Instant, Event)> {
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

    /// Waits for the next message until `deadline`, watching for the bot's exit.
    pub(super) fn next(&mut self, deadline: Instant) -> Got {
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
    pub(super) fn drain_unsolicited(&mut self) -> Result<(), Failure> {
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
}

/// `from + limit`, for any limit a configuration can hold (no overflow panic).
pub(super) fn deadline_after(from: Instant, limit: Duration) -> Instant {
    const FAR: Duration = Duration::from_secs(365 * 24 * 3600);
    from.checked_add(limit.min(FAR)).unwrap_or(from)
}
