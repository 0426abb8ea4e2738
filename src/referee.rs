//! Plays one game between two seated bots and returns its record.
//!
//! The referee knows no game: rules come through [`Game`], bots through [`Player`]. It
//! plays the game's opening (if any) through the same trait before the bots are asked,
//! enforces the move limit on every reply (a bot that answers late loses even when its
//! answer arrived), adjudicates failures, and reports each turn as an [`Event`].

use crate::bots::{EndInfo, Failure, FailureKind, Player, Reply, Setup, TurnReply};
use crate::clocks::placement::Placement;
use crate::games::openings::{OpeningKind, play_opening};
use crate::games::{Game, Outcome, Side};
use crate::record::{BotLogRecord, GameRecord, MachineLoad, MoveRecord, Waited};
use serde_json::Value;
use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

pub(crate) mod pair;

/// Asks a side's bot for its move in a position.
type TurnOf<'t, G> = dyn FnMut(Side, &<G as Game>::State) -> TurnReply<<G as Game>::Move> + 't;

/// The reason of a game stopped from outside (Ctrl-C): such a game is not a result.
pub const CANCELLED: &str = "cancelled";

/// The limits and seed of one game.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Longest a bot may take over one reply; a later reply is a timeout even when it arrives.
    pub move_limit: Duration,
    /// Longest a bot may take to start and answer the handshake, outside any move clock.
    pub init_limit: Duration,
    /// The game's seed: each seat is told a seed derived from it, distinct per seat.
    pub seed: u64,
    /// The start number handed to [`Game::start_position`].
    pub start: u64,
    /// Moves the referee plays from the start before the bots are asked (a game whose
    /// openings are moves only; see [`Game::openings`]).
    pub opening: Vec<Value>,
    /// When set, the game stops before the next turn with the reason `cancelled`.
    pub cancel: Option<Arc<AtomicBool>>,
    /// Two bot processes may be played on two CPUs, when a second one no other game holds
    /// is free (`pair`): for one game at a time (`arbiter play`); a league keeps to one
    /// CPU a game, its spare CPUs starting the next games' bots.
    pub two_cpus: bool,
}

impl MatchConfig {
    fn cancelled(&self) -> bool {
        self.cancel
            .as_ref()
            .is_some_and(|c| c.load(Ordering::Relaxed))
    }
}

impl Default for MatchConfig {
    fn default() -> Self {
        MatchConfig {
            move_limit: Duration::from_secs(10),
            init_limit: Duration::from_secs(30),
            seed: 0,
            start: 0,
            opening: Vec::new(),
            cancel: None,
            two_cpus: false,
        }
    }
}

/// What happened, as it happens: for live display.
pub enum Event<'a, G: Game> {
    /// Both bots are ready.
    Started {
        /// The position after the opening, before the first turn.
        state: &'a G::State,
    },
    /// One turn was adjudicated; `state` is the position after it.
    Turn {
        /// The turn as it goes into the game's record.
        record: &'a MoveRecord,
        /// The position after the turn.
        state: &'a G::State,
    },
    /// The game is over and its bots are finished.
    Finished {
        /// The game's whole record, as [`play_game`] returns it.
        record: &'a GameRecord,
    },
}

/// A per-game seed for each seat, derived from the game seed so the two differ.
pub(crate) fn seat_seed(game_seed: u64, side: Side) -> u64 {
    // splitmix64 step: cheap, and distinct seeds for distinct inputs.
    let mut z =
        game_seed.wrapping_add(0x9E37_79B9_7F4A_7C15u64.wrapping_mul(side.index() as u64 + 1));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A game's bots after their handshake, before the first turn: [`start_game`] makes it,
/// [`play_started`] plays the game from it. A tournament starts a game's bots ahead of
/// time this way, while another game is still in play.
pub struct Handshake<G: Game> {
    /// The start position in the protocol's encoding (before the opening).
    start_board: Value,
    /// The position after the opening.
    state: G::State,
    /// The names the bots announced, or why the game ended before its first turn.
    started: Result<[Option<String>; 2], StartFailure>,
}

/// Plays a whole game. `names` are the bots' names per side (index 0 moves first).
pub fn play_game<G: Game>(
    game: &G,
    players: [&mut dyn Player<G>; 2],
    names: [&str; 2],
    config: &MatchConfig,
    on_event: &mut dyn FnMut(Event<'_, G>),
) -> GameRecord {
    let [first, second] = players;
    let handshake = start_game(game, [&mut *first, &mut *second], config);
    play_started(game, [first, second], names, config, handshake, on_event)
}

/// The first part of [`play_game`]: plays the opening, then starts both bots (their
/// handshakes under the init limit, outside any move clock). Nothing is started when the
/// opening is bad.
pub fn start_game<G: Game>(
    game: &G,
    players: [&mut dyn Player<G>; 2],
    config: &MatchConfig,
) -> Handshake<G> {
    let [first, second] = players;
    let mut seats: [&mut dyn Player<G>; 2] = [first, second];
    let mut state = game.start_position(config.start);
    let start_board = game.encode_board(&state);
    // Tournaments check openings before any game; one that fails here is no result of the
    // bots, so the game is a tie that says why.
    let started = match play_opening(game, &mut state, &config.opening) {
        Err(e) => Err((
            Outcome::tie("bad_opening"),
            format!("opening {e}"),
            [None, None],
        )),
        Ok(()) => start_both(game, &mut seats, config),
    };
    Handshake {
        start_board,
        state,
        started,
    }
}

/// The rest of [`play_game`] once [`start_game`] started the same `players` under the
/// same `config`: the turns, the `end` to each bot, the record.
pub fn play_started<G: Game>(
    game: &G,
    players: [&mut dyn Player<G>; 2],
    names: [&str; 2],
    config: &MatchConfig,
    handshake: Handshake<G>,
    on_event: &mut dyn FnMut(Event<'_, G>),
) -> GameRecord {
    let [first, second] = players;
    let mut seats: [&mut dyn Player<G>; 2] = [first, second];
    let Handshake {
        start_board,
        mut state,
        started,
    } = handshake;
    let mut moves = Vec::new();
    let mut waited = Vec::new();
    let mut illegal = [0u32; 2];
    // The opening's plies are the game's: they count for a round limit and in `plies`.
    let mut plies = config.opening.len() as u32;
    let opening = match game.openings() {
        OpeningKind::Moves { .. } => Value::Array(config.opening.clone()),
        OpeningKind::StartBoards => start_board.clone(),
    };

    let mut placement = None;
    // The game's wall time, from its first turn to its end: none for a game that ended
    // before it (a failed start, a bad opening).
    let mut duration = Duration::ZERO;
    let (outcome, detail, announced) = match started {
        Err((outcome, detail, announced)) => (outcome, Some(detail), announced),
        Ok(announced) => {
            // The CPU stays claimed until the bots are finished.
            placement = place_seats(&mut seats);
            on_event(Event::Started { state: &state });
            // While one side is to move, the other's bot is stopped (clocks::freeze).
            let freezers = [seats[0].freezer(), seats[1].freezer()];
            // A turn that waits in arbiter's loop freezes the waiting bot only once it has
            // lasted `freeze::LAZY`: a quick reply costs no signal.
            let mut lazy = [false; 2];
            for (side, seat) in seats.iter_mut().enumerate() {
                if let Some(other) = &freezers[1 - side] {
                    lazy[side] = seat.freeze_when_slow(other.clone());
                }
            }
            // How the waiting bot failed during the last turn, if it did.
            let escaped = std::cell::Cell::new(None);
            let mut play = |turn_of: &mut TurnOf<'_, G>| {
                let mut held = |side: Side, position: &G::State| {
                    crate::clocks::freeze::hold(&freezers, lazy, side.index());
                    let turn = turn_of(side, position);
                    // The waiting bot computed on the mover's time: it loses, whatever
                    // the mover did with the time it had left.
                    if let Some(ran) = freezers[1 - side.index()]
                        .as_ref()
                        .and_then(crate::clocks::freeze::Freezer::ran_while_frozen)
                    {
                        escaped.set(Some(crate::bots::ran_while_frozen_failure(ran)));
                    }
                    turn
                };
                play_turns(
                    game,
                    &mut held,
                    &escaped,
                    config,
                    &mut state,
                    &mut moves,
                    &mut waited,
                    &mut illegal,
                    &mut plies,
                    on_event,
                )
            };
            let began = std::time::Instant::now();
            let paired = config.two_cpus
                && placement.is_some()
                && seats.iter().all(|seat| !seat.in_process());
            let played = if paired {
                pair::play(game, &mut seats, &mut play)
            } else {
                None
            };
            let (outcome, detail) = match played {
                Some(played) => played,
                None => play(&mut |side, position| seats[side.index()].turn(game, position)),
            };
            duration = began.elapsed();
            // Both go on, to hear how the game ended and to exit.
            freezers
                .iter()
                .flatten()
                .for_each(crate::clocks::freeze::Freezer::thaw);
            (outcome, detail, announced)
        }
    };

    let end = |side: Side| EndInfo {
        result: match outcome.winner {
            None => "tie",
            Some(w) if w == side => "win",
            Some(_) => "loss",
        },
        reason: outcome.reason.to_string(),
    };
    // The bots are finished side by side on the CPUs of the process; the game's CPU stays
    // claimed until they are.
    if let Some(placement) = &placement {
        placement.unpin();
    }
    let finished = both(&mut seats, |seat, side| seat.finish(&end(side)));
    drop(placement);
    let mut logs = BTreeMap::new();
    for (side, log) in Side::BOTH.into_iter().zip(finished) {
        logs.insert(
            game.role_name(side).to_string(),
            BotLogRecord {
                announced_name: announced[side.index()].clone().or(log.name),
                stderr: log.stderr,
                chatter: log.chatter,
            },
        );
    }

    let per_role = |values: [String; 2]| -> BTreeMap<String, String> {
        Side::BOTH
            .into_iter()
            .map(|s| (game.role_name(s).to_string(), values[s.index()].clone()))
            .collect()
    };
    let record = GameRecord {
        game: game.name().to_string(),
        roles: game.roles().iter().map(|r| r.to_string()).collect(),
        players: per_role([names[0].to_string(), names[1].to_string()]),
        winner: outcome.winner.map(|s| game.role_name(s).to_string()),
        reason: outcome.reason.to_string(),
        detail,
        rounds: plies.div_ceil(2),
        plies,
        illegal: Side::BOTH
            .into_iter()
            .map(|s| (game.role_name(s).to_string(), illegal[s.index()]))
            .collect(),
        seed: config.seed,
        start: config.start,
        start_board,
        opening,
        moves,
        final_board: game.encode_board(&state),
        logs,
        machine: MachineLoad {
            waited,
            replayed: Vec::new(),
        },
        // To the microsecond, as the journal keeps it.
        duration_ms: Some(duration.as_micros() as f64 / 1000.0),
    };
    on_event(Event::Finished { record: &record });
    record
}

type StartFailure = (Outcome, String, [Option<String>; 2]);

/// The reason code a record gives an illegal reply in `state` (before it is played):
/// [`crate::record::NO_LEGAL_MOVE`] when the side to move had no legal move at all (a
/// blocked side, whose every reply is illegal and counted by the course as one), else the
/// reply's own reason.
pub fn illegal_code<G: Game>(game: &G, state: &G::State, why: &G::Illegal) -> &'static str {
    if game.has_legal_move(state) {
        crate::games::ReasonCode::code(why)
    } else {
        crate::record::NO_LEGAL_MOVE
    }
}

/// `f` for both seats: at once, the second seat on a thread of its own, where a seat may
/// wait (a bot program's start-up or exit); in turn when both run in this process.
fn both<G: Game, T: Send>(
    seats: &mut [&mut dyn Player<G>; 2],
    f: impl Fn(&mut dyn Player<G>, Side) -> T + Sync,
) -> [T; 2] {
    let [a, b] = seats;
    if a.in_process() && b.in_process() {
        return [f(&mut **a, Side::First), f(&mut **b, Side::Second)];
    }
    std::thread::scope(|scope| {
        let f = &f;
        let hb = scope.spawn(move || f(&mut **b, Side::Second));
        let ra = f(&mut **a, Side::First);
        let rb = hb
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        [ra, rb]
    })
}

/// Handshakes with both bots at once: course bots may spend most of the init limit in
/// their constructors, and the two waits need not add up.
fn start_both<G: Game>(
    game: &G,
    seats: &mut [&mut dyn Player<G>; 2],
    config: &MatchConfig,
) -> Result<[Option<String>; 2], StartFailure> {
    let setup = |side: Side| Setup {
        side,
        move_limit: config.move_limit,
        init_limit: config.init_limit,
        seed: seat_seed(config.seed, side),
    };
    let [ra, rb] = both(seats, |seat, side| {
        catch_unwind(AssertUnwindSafe(|| seat.start(game, &setup(side))))
            .unwrap_or_else(|_| Err(Failure::new(FailureKind::Crash, "bot start panicked")))
    });
    // A start the machine's load kept from finishing is no one's fault: no result.
    for (side, result) in [(Side::First, &ra), (Side::Second, &rb)] {
        if let Err(f) = result
            && f.kind == FailureKind::MachineLoad
        {
            let detail = format!("{}: {}", game.role_name(side), f.detail);
            return Err((
                Outcome::tie(crate::bots::MACHINE_LOAD),
                detail,
                [None, None],
            ));
        }
    }
    match (ra, rb) {
        (Ok(na), Ok(nb)) => Ok([na, nb]),
        (Err(fa), Err(fb)) => Err((
            Outcome::tie(crate::record::BOTH_FAILED),
            crate::record::both_failed_detail([
                (game.role_name(Side::First), fa.kind.code(), &fa.detail),
                (game.role_name(Side::Second), fb.kind.code(), &fb.detail),
            ]),
            [None, None],
        )),
        (Err(f), Ok(n)) => Err((
            Outcome::win(Side::Second, f.kind.code()),
            f.detail,
            [None, n],
        )),
        (Ok(n), Err(f)) => Err((
            Outcome::win(Side::First, f.kind.code()),
            f.detail,
            [n, None],
        )),
    }
}

/// Puts the bot processes on one CPU with the referee's thread, when a seat is a process
/// that may be placed; the placement lasts as long as it is held.
fn place_seats<G: Game>(seats: &mut [&mut dyn Player<G>; 2]) -> Option<Placement> {
    if seats.iter().all(|seat| seat.in_process()) {
        return None;
    }
    let placement = Placement::take()?;
    let mut placed = false;
    for seat in seats.iter_mut() {
        placed |= seat.place(&placement);
    }
    placed.then_some(placement)
}

/// The turns until the game ends; `turn_of` asks a side's bot.
#[allow(clippy::too_many_arguments)]
fn play_turns<G: Game>(
    game: &G,
    turn_of: &mut TurnOf<'_, G>,
    waiting_failed: &std::cell::Cell<Option<Failure>>,
    config: &MatchConfig,
    state: &mut G::State,
    moves: &mut Vec<MoveRecord>,
    waited: &mut Vec<Waited>,
    illegal: &mut [u32; 2],
    plies: &mut u32,
    on_event: &mut dyn FnMut(Event<'_, G>),
) -> (Outcome, Option<String>) {
    if let Some(outcome) = game.start_outcome(state) {
        return (outcome, None);
    }
    loop {
        if config.cancelled() {
            return (Outcome::tie(CANCELLED), None);
        }
        // The side to move is asked even when it has no legal move (Asalto's course
        // referee does the same): its reply is then illegal, and the game's policy for an
        // illegal reply applies; a failure loses as on any turn.
        let side = game.side_to_move(state);
        let turn = turn_of(side, state);
        if let Some(failure) = waiting_failed.take() {
            let detail = format!("{}: {}", game.role_name(side.other()), failure.detail);
            return (Outcome::win(side, failure.kind.code()), Some(detail));
        }
        let time_ms = turn.elapsed.as_secs_f64() * 1000.0;
        if !turn.waited.is_zero() {
            waited.push(Waited {
                ply: *plies,
                side: game.role_name(side).to_string(),
                waited_ms: turn.waited.as_secs_f64() * 1000.0,
            });
        }
        let reply = match turn.reply {
            // A late answer is no answer: the limit holds for every kind of bot.
            _ if turn.elapsed > config.move_limit => Reply::Failed(Failure::new(
                FailureKind::Timeout,
                format!("no reply within {} ms", config.move_limit.as_millis()),
            )),
            reply => reply,
        };
        let mut record = MoveRecord {
            ply: *plies,
            side: game.role_name(side).to_string(),
            reply: Value::Null,
            verdict: String::new(),
            reason: None,
            time_ms,
        };
        let (outcome, detail) = match reply {
            Reply::Checked(mv) => {
                record.reply = game.move_to_wire(&mv);
                record.verdict = game.move_kind(&mv).to_string();
                (game.play(state, &mv), None)
            }
            Reply::Wire(value) => {
                let parsed = game.parse_move(state, &value);
                record.reply = value;
                match parsed {
                    Ok(mv) => {
                        record.verdict = game.move_kind(&mv).to_string();
                        (game.play(state, &mv), None)
                    }
                    Err(why) => {
                        illegal[side.index()] += 1;
                        record.verdict = "illegal".into();
                        record.reason = Some(illegal_code(game, state, &why).to_string());
                        (game.play_illegal(state, &why), None)
                    }
                }
            }
            Reply::Failed(failure) => {
                record.verdict = "failed".into();
                record.reason = Some(failure.kind.code().to_string());
                let outcome = match failure.kind {
                    // No fault of the bot's: the game has no result (a league plays it
                    // again).
                    FailureKind::MachineLoad => Outcome::tie(crate::bots::MACHINE_LOAD),
                    kind => Outcome::win(side.other(), kind.code()),
                };
                (Some(outcome), Some(failure.detail))
            }
        };
        *plies += 1;
        on_event(Event::Turn {
            record: &record,
            state,
        });
        moves.push(record);
        if let Some(outcome) = outcome {
            return (outcome, detail);
        }
    }
}
