//! The Asalto heuristic and built-in bots: sanity, tactics, and strength in short matches.

use super::*;
use crate::bots::inprocess::InProcess;
use crate::bots::{BotLog, EndInfo, Failure, FailureKind, Player, Reply, Setup, TurnReply};
use crate::engines::alphabeta::SearchStats;
use crate::engines::{AlphaBeta, Builtins, Engine, Greedy, RandomMover, Scripted, StartAt};
use crate::engines::{Limits, WIN_THRESHOLD};
use crate::games::Game;
use crate::record::GameRecord;
use crate::referee::{MatchConfig, play_game};
use serde_json::{Value, json};
use std::time::Duration;

const LONG: Duration = Duration::from_secs(3600);

fn board(rows: &[&str], side: Side) -> State {
    Asalto::default()
        .parse_board(&rows.join("\n"), side)
        .expect("a valid board")
}

#[test]
fn evaluation_is_zero_sum_and_hash_sees_the_side_to_move() {
    let game = Asalto::default();
    let start = game.initial();
    assert_eq!(
        game.evaluate(&start, REBELS),
        -game.evaluate(&start, OFFICERS)
    );
    let mut other = start;
    let mut moves = Vec::new();
    game.legal_moves(&start, &mut moves);
    game.play(&mut other, &moves[0]);
    assert_ne!(game.hash(&start), game.hash(&other));
    let same_pieces = State::from_bitboards(start.rebels(), start.officers(), OFFICERS)
        .expect("a valid position");
    assert_ne!(game.hash(&start), game.hash(&same_pieces));
}

#[test]
fn builtins_are_named_and_play_legal_moves() {
    let game = Asalto::default();
    crate::engines::assert_builtins_play_legal_moves(&game, &game.initial());
}

#[test]
fn alphabeta_officer_takes_the_double_capture_that_wins() {
    // Ten rebels: a single capture leaves nine, a double capture wins on the spot.
    let state = board(
        &[
            "  O..  ", "  R..  ", "OR.R...", ".......", "......R", "  RRR  ", "  RRR  ",
        ],
        OFFICERS,
    );
    assert_eq!(state.rebels().count_ones(), 10);
    let game = Asalto::default();
    let mut ab = AlphaBeta::<Asalto>::with_limits(1, Limits::depth(3));
    let (mv, stats) = ab.search(&game, &state, LONG);
    let Some(Move::Capture(chain)) = mv else {
        panic!("not a capture: {mv:?}");
    };
    assert_eq!(chain.captured().count_ones(), 2, "{chain:?}");
    assert!(stats.score >= WIN_THRESHOLD, "{stats:?}");
    let mut next = state;
    let outcome = game.play(&mut next, &Move::Capture(chain));
    assert_eq!(outcome.map(|o| o.winner), Some(Some(OFFICERS)));
}

#[test]
fn alphabeta_rebel_fills_the_fortress() {
    // Eight fortress points held, the ninth one step away: the rebels win now.
    let state = board(
        &[
            "  RRR  ", "  RRR  ", "O.R.R.O", "...R...", "RRR.RRR", "  ...  ", "  ...  ",
        ],
        REBELS,
    );
    let mut ab = AlphaBeta::<Asalto>::with_limits(1, Limits::depth(3));
    let (mv, stats) = ab.search(&Asalto::default(), &state, LONG);
    let mut next = state;
    let outcome = Asalto::default().play(&mut next, &mv.expect("a move"));
    assert_eq!(outcome.map(|o| o.winner), Some(Some(REBELS)), "{stats:?}");
}

#[test]
fn greedy_takes_the_win_in_either_role() {
    let game = Asalto::default();
    let officers_win = board(
        &[
            "  O..  ", "  R..  ", "OR.R...", ".......", "......R", "  RRR  ", "  RRR  ",
        ],
        OFFICERS,
    );
    let rebels_win = board(
        &[
            "  RRR  ", "  RRR  ", "O.R.R.O", "...R...", "RRR.RRR", "  ...  ", "  ...  ",
        ],
        REBELS,
    );
    for (state, winner) in [(officers_win, OFFICERS), (rebels_win, REBELS)] {
        for seed in 0..5 {
            let mv = Greedy::<Asalto>::new(seed)
                .choose(&game, &state, LONG)
                .expect("a move");
            let mut next = state;
            let outcome = game.play(&mut next, &mv);
            assert_eq!(outcome.and_then(|o| o.winner), Some(winner), "{mv:?}");
        }
    }
}

#[test]
fn evaluation_plays_out_the_forced_capture() {
    // The officers to move must capture: the position is worth what it is after the
    // capture, a rebel down.
    let game = Asalto::default();
    let en_prise = board(
        &[
            "  .O.  ", "  .R.  ", "RRR.RRR", "RRRRRRR", "RRRRRRR", "  RRR  ", "  RR.  ",
        ],
        OFFICERS,
    );
    let mut moves = Vec::new();
    game.legal_moves(&en_prise, &mut moves);
    assert!(moves.iter().all(|m| matches!(m, Move::Capture(_))));
    let mut after = en_prise;
    game.play(&mut after, &moves[0]);
    assert_eq!(moves.len(), 1);
    assert_eq!(
        game.evaluate(&en_prise, OFFICERS),
        game.evaluate(&after, OFFICERS)
    );
}

/// Plays `games` games in each role under `round_limit` and returns the wins of `strong`
/// per role (index 0: as the rebels).
fn match_up(
    strong: &dyn Fn(u64) -> Box<dyn Engine<Asalto>>,
    weak: &dyn Fn(u64) -> Box<dyn Engine<Asalto>>,
    games: u64,
    round_limit: u32,
) -> [u64; 2] {
    let game = Asalto { round_limit };
    let mut wins = [0; 2];
    for seed in 0..games {
        for strong_side in Side::BOTH {
            if crate::engines::duel(&game, strong(seed), weak(seed + 1000), strong_side, seed)
                == Some(true)
            {
                wins[strong_side.index()] += 1;
            }
        }
    }
    wins
}

#[test]
fn greedy_beats_random_in_both_roles() {
    let games = 12;
    let wins = match_up(
        &|s| Box::new(Greedy::<Asalto>::new(s)),
        &|s| Box::new(RandomMover::<Asalto>::new(s)),
        games,
        1000,
    );
    assert!(
        wins.iter().all(|&w| w * 3 >= games * 2),
        "greedy wins as rebel, officer: {wins:?} of {games}"
    );
}

#[test]
fn alphabeta_beats_greedy_in_both_roles() {
    // 2000 nodes a move: a few plies, enough to win, and quick in a debug build.
    let games = 8;
    let wins = match_up(
        &|s| Box::new(AlphaBeta::<Asalto>::with_limits(s, Limits::nodes(2000)).with_tt_bits(14)),
        &|s| Box::new(Greedy::<Asalto>::new(s)),
        games,
        150,
    );
    assert!(
        wins.iter().all(|&w| w * 3 >= games * 2),
        "alphabeta wins as rebel, officer: {wins:?} of {games}"
    );
}

#[test]
fn alphabeta_keeps_within_its_budget_from_the_start() {
    let game = Asalto::default();
    let mut ab = AlphaBeta::<Asalto>::new(0);
    let started = std::time::Instant::now();
    let (mv, stats): (_, SearchStats) =
        ab.search(&game, &game.initial(), Duration::from_millis(50));
    assert!(mv.is_some());
    assert!(started.elapsed() < Duration::from_secs(1), "{stats:?}");
    assert!(stats.depth >= 1, "{stats:?}");
}

// ------------------------------------------- a side with no legal move is asked all the same

/// Rebels to move with no legal move: every rebel is hemmed in at the top, the officers
/// sit in the fortress's bottom row.
const REBELS_BLOCKED: [&str; 7] = [
    "  RRR  ", "  RRR  ", "RRO.ORR", ".......", ".......", "  ...  ", "  ...  ",
];
/// Officers to move with no legal move: both boxed in at the top, no jump has a landing.
const OFFICERS_BLOCKED: [&str; 7] = [
    "  ORO  ", "  RRR  ", "..RRR..", "...R...", "...R...", "  ...  ", "  ...  ",
];

/// Both blocked positions, each with its blocked side to move and a game starting there.
fn blocked() -> [(Side, StartAt<Asalto>); 2] {
    [(REBELS, REBELS_BLOCKED), (OFFICERS, OFFICERS_BLOCKED)].map(|(side, rows)| {
        let state = board(&rows, side);
        let mut legal = Vec::new();
        Asalto::default().legal_moves(&state, &mut legal);
        assert!(legal.is_empty(), "{side}: {legal:?}");
        (side, StartAt(Asalto { round_limit: 3 }, state))
    })
}

fn referee(
    game: &StartAt<Asalto>,
    first: &mut dyn Player<StartAt<Asalto>>,
    second: &mut dyn Player<StartAt<Asalto>>,
) -> GameRecord {
    play_game(
        game,
        [first, second],
        ["rebels", "officers"],
        &MatchConfig::default(),
        &mut |_| {},
    )
}

#[test]
fn a_side_with_no_legal_move_is_asked_and_its_reply_counts_as_illegal() {
    for (side, game) in blocked() {
        let role = game.role_name(side);
        let mut stuck = Scripted(json!([[2, 1], [2, 2]]));
        let mut other = InProcess::new("greedy", game.builtin("greedy", 1).unwrap());
        let record = match side {
            REBELS => referee(&game, &mut stuck, &mut other),
            _ => referee(&game, &mut other, &mut stuck),
        };
        let first = &record.moves[0];
        assert_eq!(
            (first.side.as_str(), first.verdict.as_str()),
            (role, "illegal"),
            "{record:?}"
        );
        assert_eq!(first.reply, json!([[2, 1], [2, 2]]));
        assert!(record.illegal[role] >= 1, "{record:?}");
        assert!(record.moves.iter().all(|m| m.verdict != "pass"));
        if side == OFFICERS {
            // No end check ran before the officers' turn; the rebels' next legal move
            // runs one and finds the officers immobile.
            assert_eq!(record.reason, "officers_immobile", "{record:?}");
            assert_eq!(record.winner.as_deref(), Some("rebel"));
            assert_eq!(record.plies, 2);
        } else {
            assert!(record.plies >= 2, "the game goes on: {record:?}");
        }
    }
}

#[test]
fn every_builtin_with_no_legal_move_answers_null_and_loses_the_turn() {
    for (side, game) in blocked() {
        let role = game.role_name(side);
        for name in game.builtin_names() {
            let mut stuck = InProcess::new(*name, game.builtin(name, 2).unwrap());
            let mut other = InProcess::new("random", game.builtin("random", 3).unwrap());
            let record = match side {
                REBELS => referee(&game, &mut stuck, &mut other),
                _ => referee(&game, &mut other, &mut stuck),
            };
            let first = &record.moves[0];
            assert_eq!(first.side, role, "{name}");
            assert_eq!(first.verdict, "illegal", "{name}: {record:?}");
            assert_eq!(first.reply, Value::Null, "{name}");
            // A turn with no legal move is a blocked turn, whatever the reply.
            assert_eq!(
                first.reason.as_deref(),
                Some(crate::record::NO_LEGAL_MOVE),
                "{name}"
            );
            // Built-ins play legal moves whenever they have one: every illegal reply of
            // theirs is a `null` on a turn without a legal move, and none fails.
            let theirs = record.moves.iter().filter(|m| m.side == role);
            let nulls = theirs.clone().filter(|m| m.reply.is_null()).count();
            assert!(theirs.clone().all(|m| m.verdict != "failed"), "{name}");
            assert_eq!(record.illegal[role] as usize, nulls, "{name}: {record:?}");
            // Counted apart in the outputs: blocked turns, not illegal moves.
            let summary = crate::record::GameSummary::of(0, &record);
            let seat = side.index();
            assert_eq!(summary.blocked[seat] as usize, nulls, "{name}");
            let scoring = crate::stats::league::Scoring { win: 1.0, tie: 0.0 };
            let bots: Vec<String> = summary.players.iter().map(|p| p.to_string()).collect();
            let rows =
                crate::stats::league::standings(&bots, std::slice::from_ref(&summary), scoring);
            let row = rows
                .iter()
                .find(|r| r.bot == *summary.players[seat])
                .unwrap();
            assert_eq!(
                (row.illegal_moves, row.blocked_turns as usize),
                (0, nulls),
                "{name}"
            );
        }
    }
}

/// A player whose every turn goes wrong in one way.
struct Fails(Option<FailureKind>);

impl<G: Game> Player<G> for Fails {
    fn start(&mut self, _game: &G, _setup: &Setup) -> Result<Option<String>, Failure> {
        Ok(None)
    }
    fn turn(&mut self, _game: &G, _state: &G::State) -> TurnReply<G::Move> {
        match self.0 {
            Some(kind) => TurnReply {
                reply: Reply::Failed(Failure::new(kind, "it went wrong")),
                elapsed: Duration::ZERO,
                waited: Duration::ZERO,
            },
            // A reply that came after the move limit.
            None => TurnReply {
                reply: Reply::Wire(Value::Null),
                elapsed: MatchConfig::default().move_limit + Duration::from_secs(5),
                waited: Duration::ZERO,
            },
        }
    }
    fn finish(&mut self, _end: &EndInfo) -> BotLog {
        BotLog::default()
    }
}

#[test]
fn a_failure_on_a_turn_without_a_legal_move_loses_as_on_any_turn() {
    for (side, game) in blocked() {
        for (fails, reason) in [
            (Some(FailureKind::Exception), "exception"),
            (Some(FailureKind::Crash), "crash"),
            (Some(FailureKind::Protocol), "protocol_error"),
            (None, "timeout"),
        ] {
            let mut stuck = Fails(fails);
            let mut other = Scripted(Value::Null);
            let record = match side {
                REBELS => referee(&game, &mut stuck, &mut other),
                _ => referee(&game, &mut other, &mut stuck),
            };
            assert_eq!(record.reason, reason, "{side}");
            assert_eq!(record.winner.as_deref(), Some(game.role_name(side.other())));
            assert_eq!(record.plies, 1, "{record:?}");
            assert_eq!(record.moves[0].verdict, "failed");
        }
    }
}

#[test]
fn the_search_table_tells_the_same_pieces_apart_by_their_counts_near_the_round_limit() {
    // Each side loses a turn: the same pieces and side to move, two plies on, one illegal
    // move each.
    let both_lose_a_turn = |game: &Asalto| {
        let start = game.initial();
        let mut after = start;
        game.play_illegal_turn(&mut after);
        game.play_illegal_turn(&mut after);
        assert_eq!(
            (after.rebels(), after.officers(), after.to_move()),
            (start.rebels(), start.officers(), start.to_move())
        );
        (game.hash(&start), game.hash(&after))
    };
    // At the round limit the side with fewer illegal moves wins: within a search's reach
    // of it the counts are part of the position.
    let (start, after) = both_lose_a_turn(&Asalto { round_limit: 60 });
    assert_ne!(start, after);
    // Out of every search's reach they are not, and the table finds the repeated pieces.
    let (start, after) = both_lose_a_turn(&Asalto::default());
    assert_eq!(start, after);
}
