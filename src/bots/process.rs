//! Bots as subprocesses speaking the line protocol (docs/PROTOCOL.md): [`ProcessPlayer`]
//! seats a bot program in a game.
//!
//! Each bot runs in its own process group (and its own cgroup where one can be made: see
//! `crate::jail::cgroup`) so that it and everything it forks can be killed at once. The referee
//! never blocks on a pipe: the bot's stdout and stdin are non-blocking and handled on the
//! referee's own thread (stdout read line by line, bounded in length, with `poll` until
//! the deadline, which the bot's exit also ends through its pidfd; a turn written at once
//! when the pipe takes it, which it does unless the bot stopped reading). A reply or a
//! failure is timed when it is seen, before any cleanup. Two helper threads per bot cover
//! the rest: one drains stderr into a bounded tail, one finishes writes the pipe did not
//! take at once. So a silent bot, a bot whose grandchild holds the pipe open, or a bot
//! that stops reading its stdin can at worst cost the move limit. Helper threads are never
//! joined: each ends when its pipe closes, which killing the bot brings about.
//!
//! The parts, by concern: `spawn` starts and confines a bot and owns its pipes, `read`
//! waits for its lines against a deadline, `verdict` says why a bot that is gone failed,
//! `shutdown` ends it and everything it started. `once` runs a program once to its exit
//! under the same guarantees (console bots, solvers).

pub mod once;
mod read;
mod shutdown;
mod spawn;
mod verdict;

pub use shutdown::kill_all_bots;

use super::protocol::{FromBot, MAX_LINE_BYTES, PROTOCOL_VERSION, ToBot};
use super::spec::CommandSpec;
use super::{BotLog, EndInfo, Failure, FailureKind, Player, Reply, Setup, TurnReply};
use crate::clocks::deadline::deadline_after;
use crate::games::Game;
use read::Got;
use spawn::{Running, lock};
use std::time::{Duration, Instant};

/// How often a wait checks whether the bot has exited while a grandchild holds its stdout
/// (and a blocked write whether its reader is still there).
const POLL: Duration = Duration::from_millis(50);
/// How much of a bot's stderr is kept: the last bytes.
pub const STDERR_BYTES: usize = 64 * 1024;
/// How much skipped stdout chatter is kept: the last bytes.
pub const CHATTER_BYTES: usize = 64 * 1024;
/// How much of an `error` message lands in the record: its end, where a traceback says most.
pub(crate) const ERROR_MESSAGE_BYTES: usize = 4 * 1024;
/// The reply recorded for a line longer than `MAX_LINE_BYTES`: a string, which no game
/// accepts as a move, so the turn is adjudicated as an illegal move.
pub const OVERLONG_REPLY_PREFIX: &str = "<discarded: over-long line of";

/// A bot program seated as a player.
pub struct ProcessPlayer {
    command: CommandSpec,
    run: Option<Running>,
    role: String,
    name: Option<String>,
    limit: Duration,
    /// The turn line being sent, kept to be written into again: no allocation a ply.
    line: Vec<u8>,
    /// The opponent's bot, frozen by this bot's turns once they last
    /// [`crate::clocks::freeze::LAZY`].
    opponent: Option<crate::clocks::freeze::Freezer>,
}

impl ProcessPlayer {
    /// Seats `command`; it is started at each game's handshake.
    pub fn new(command: CommandSpec) -> Self {
        ProcessPlayer {
            command,
            run: None,
            role: String::new(),
            name: None,
            limit: Duration::from_secs(10),
            line: Vec::new(),
            opponent: None,
        }
    }

    /// The bot's process group id (= its pid) while it runs: for tests and diagnostics.
    pub fn process_group(&self) -> Option<i32> {
        self.run.as_ref().map(|r| r.pgid.as_raw_nonzero().get())
    }
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
        let asked = Instant::now();
        let deadline = deadline_after(asked, setup.init_limit);
        self.opponent = None;
        let failure = match run.next(asked, deadline, None) {
            Got::Message(_, FromBot::Ready { name }) => {
                self.name = name.clone();
                // Until its first turn, which may be a game away when it was started
                // ahead, the bot idles, frozen.
                run.set_waiting(true);
                run.freezer.freeze();
                self.run = Some(run);
                return Ok(name);
            }
            Got::Message(_, FromBot::Error { message }) => run.exception(&message),
            Got::Message(_, FromBot::Move { .. }) => Failure::new(
                FailureKind::Protocol,
                "a `move` where `ready` was due (the handshake)",
            ),
            Got::Violation(_, why) => {
                Failure::new(FailureKind::Protocol, format!("handshake: {why}"))
            }
            Got::Overlong(_, n) => Failure::new(
                FailureKind::Protocol,
                format!("handshake: a line of {n} bytes, over the {MAX_LINE_BYTES}-byte limit"),
            ),
            Got::Gone(_, failure) => {
                Failure::new(failure.kind, format!("before `ready`: {}", failure.detail))
            }
            Got::TimedOut(_) => {
                run.kill();
                Failure::new(
                    FailureKind::Timeout,
                    format!(
                        "no `ready` within {} ms (the bot was killed)",
                        setup.init_limit.as_millis()
                    ),
                )
            }
            Got::MachineLate(at, waited) => {
                run.kill();
                machine_late(at.saturating_duration_since(asked), waited)
            }
        };
        // Kept so that `finish` can collect its stderr and reap it.
        self.run = Some(run);
        Err(failure)
    }

    fn turn(&mut self, game: &G, state: &G::State) -> TurnReply<G::Move> {
        let started = Instant::now();
        let Some(run) = self.run.as_mut().filter(|r| !r.killed) else {
            return TurnReply {
                reply: Reply::Failed(Failure::new(FailureKind::Crash, "the bot is not running")),
                elapsed: Duration::ZERO,
                waited: Duration::ZERO,
            };
        };
        run.set_waiting(false);
        if let Err((at, failure)) = run.drain_unsolicited(started) {
            return TurnReply {
                reply: Reply::Failed(failure),
                elapsed: at.saturating_duration_since(started),
                waited: Duration::ZERO,
            };
        }
        // The move limit comes from the hello this bot was given; the referee holds the
        // authoritative value and re-checks `elapsed` against it.
        let limit = self.limit;
        self.line.clear();
        game.write_turn(state, &mut self.line);
        let sent = Instant::now();
        let paused_before = crate::clocks::pause::paused();
        // Frozen while the other side moved (or since its `ready`): a bot that computed
        // meanwhile loses.
        if let Some(ran) = run.freezer.ran_while_frozen_unchecked() {
            run.kill();
            return TurnReply {
                reply: Reply::Failed(crate::bots::ran_while_frozen_failure(ran)),
                elapsed: Duration::ZERO,
                waited: Duration::ZERO,
            };
        }
        run.send_line(&self.line);
        // It goes on with its turn already to read.
        run.freezer.thaw();
        let deadline = deadline_after(sent, limit);
        // Every outcome is timed when it was seen, before any cleanup or diagnosis.
        let (at, reply) = match run.next(sent, deadline, self.opponent.as_ref()) {
            Got::Message(at, FromBot::Move { mv }) => (at, Reply::Wire(mv)),
            Got::Message(at, FromBot::Error { message }) => {
                (at, Reply::Failed(run.exception(&message)))
            }
            Got::Message(at, FromBot::Ready { .. }) => (
                at,
                Reply::Failed(Failure::new(
                    FailureKind::Protocol,
                    "a `ready` where a `move` was due",
                )),
            ),
            Got::Violation(at, why) => {
                (at, Reply::Failed(Failure::new(FailureKind::Protocol, why)))
            }
            Got::Overlong(at, n) => (
                at,
                Reply::Wire(serde_json::Value::String(format!(
                    "{OVERLONG_REPLY_PREFIX} {n} bytes (limit {MAX_LINE_BYTES})>"
                ))),
            ),
            Got::Gone(at, failure) => (at, Reply::Failed(failure)),
            Got::TimedOut(at) => {
                run.kill();
                let why = format!(
                    "no reply within {} ms (the bot was killed)",
                    limit.as_millis()
                );
                (at, Reply::Failed(Failure::new(FailureKind::Timeout, why)))
            }
            Got::MachineLate(at, waited) => {
                run.kill();
                (
                    at,
                    Reply::Failed(machine_late(at.saturating_duration_since(sent), waited)),
                )
            }
        };
        // A pause of the whole run (Ctrl-Z) is no part of the move, nor is the time the
        // machine kept the bot from running.
        let paused = crate::clocks::pause::paused().saturating_sub(paused_before);
        TurnReply {
            reply,
            elapsed: at
                .saturating_duration_since(sent)
                .saturating_sub(paused)
                .saturating_sub(run.given),
            waited: run.given,
        }
    }

    fn place(&mut self, placement: &crate::clocks::placement::Placement) -> bool {
        let Some(run) = self
            .run
            .as_mut()
            .filter(|r| !r.killed && !self.command.confine.spread)
        else {
            return false;
        };
        run.placed = placement.place_tree(run.pgid.as_raw_nonzero().get()) > 0;
        run.placed
    }

    fn freezer(&self) -> Option<crate::clocks::freeze::Freezer> {
        let run = self.run.as_ref().filter(|r| !r.killed && !r.reaped)?;
        Some(run.freezer.thawed_by_turn())
    }

    fn freeze_when_slow(&mut self, opponent: crate::clocks::freeze::Freezer) -> bool {
        self.opponent = Some(opponent);
        true
    }

    fn finish(&mut self, end: &EndInfo) -> BotLog {
        self.opponent = None;
        let Some(mut run) = self.run.take() else {
            return BotLog {
                name: self.name.clone(),
                ..BotLog::default()
            };
        };
        // Told first, so that its exit begins while it is moved off the game's CPU (a walk
        // of its processes in /proc, a few tenths of a millisecond); a bot frozen since
        // its `ready` (a game that ended before its first turn) goes on to hear it.
        run.freezer.thaw();
        run.send_end(end);
        if run.placed {
            // Its exit (an interpreter unmapping its memory) need not wait for the other
            // bot's on the game's CPU.
            crate::clocks::placement::unplace_tree(run.pgid.as_raw_nonzero().get());
        }
        run.shut_down();
        let stderr = run.stderr_text(Duration::from_millis(100));
        let chatter = lock(&run.chatter).text();
        BotLog {
            name: self.name.clone(),
            stderr,
            chatter,
        }
    }
}

/// The failure of a bot that the machine kept from running until its stretched deadline:
/// `wall` since it was asked, `waited` of it for a CPU.
pub(crate) fn machine_late(wall: Duration, waited: Duration) -> Failure {
    Failure::new(
        FailureKind::MachineLoad,
        format!(
            "no reply after {} ms, {} ms of which the machine's other programs kept the bot \
             from running (its own time was within the limit; the bot was killed)",
            wall.as_millis(),
            waited.as_millis()
        ),
    )
}
