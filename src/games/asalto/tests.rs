//! Tests of the Asalto engine against docs/rules/asalto.md: tables, board files, the
//! perft table, the data-driven positions of tests/data/asalto/cases.json, and property
//! tests that hold the generator, the reply parser and both perft paths to each other.
//!
//! The oracle below finds legal moves without the generator: it offers every sequence of
//! points to `parse_move`, so the generator and the parser check each other.

use super::board::{self, parse_rows};
use super::moves::{any_capture, huff_victim, officer_can_capture};
use super::*;
use crate::games::perft::{divide, perft};
use crate::games::{Game, Outcome, ReasonCode, Side};
use proptest::collection::vec;
use proptest::prelude::*;
use serde::Deserialize;
use serde_json::{Value, json};
use std::path::PathBuf;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/asalto")
}

fn load(file: &str, side: Side) -> State {
    let text = std::fs::read_to_string(data_dir().join(file)).expect("board file");
    parse_rows(&text, side).unwrap_or_else(|e| panic!("{file}: {e}"))
}

fn wire(points: &[Point]) -> Value {
    Value::Array(points.iter().map(|p| json!([p.row(), p.col()])).collect())
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// The wire forms of the generated legal moves, sorted.
fn generated(state: &State) -> Vec<String> {
    let game = Asalto::default();
    let mut moves = Vec::new();
    game.legal_moves(state, &mut moves);
    sorted(
        moves
            .iter()
            .map(|m| game.move_to_wire(m).to_string())
            .collect(),
    )
}

/// Every legal move found by offering every point sequence to the parser. Legal moves are
/// closed under prefixes (a chain need not be maximal), so only accepted captures extend.
fn oracle_moves(state: &State) -> Vec<(String, Move)> {
    fn extend(state: &State, path: &mut Vec<Point>, out: &mut Vec<(String, Move)>) {
        for to in Point::all() {
            path.push(to);
            let reply = wire(path);
            match parse_move(state, &reply) {
                Ok(Move::Huff { .. }) | Err(_) => {}
                Ok(mv) => {
                    out.push((reply.to_string(), mv));
                    if matches!(mv, Move::Capture(_)) {
                        extend(state, path, out);
                    }
                }
            }
            path.pop();
        }
    }
    let mine = if state.to_move() == REBELS {
        state.rebels()
    } else {
        state.officers()
    };
    let mut out = Vec::new();
    for from in board::points(mine) {
        extend(state, &mut vec![from], &mut out);
    }
    out
}

fn oracle_perft(game: &Asalto, state: &State, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = oracle_moves(state);
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|(_, mv)| {
            let mut next = *state;
            match game.play(&mut next, mv) {
                Some(_) => 0,
                None => oracle_perft(game, &next, depth - 1),
            }
        })
        .sum()
}

// ---------------------------------------------------------------- tables and points

#[test]
fn points_and_lines() {
    assert_eq!(Point::all().count(), 33);
    for p in Point::all() {
        assert_eq!(Point::new(p.row(), p.col()), Some(p));
        assert_eq!(Point::from_index(p.index()), Some(p));
    }
    assert_eq!(Point::new(0, 0), None);
    assert_eq!(Point::new(7, 3), None);
    assert_eq!(Point::from_index(33), None);
    let diagonal: Vec<(usize, usize)> = Point::all()
        .filter(|p| p.has_diagonals())
        .map(|p| (p.row(), p.col()))
        .collect();
    assert_eq!(
        diagonal,
        [
            (0, 2),
            (0, 4),
            (1, 3),
            (2, 0),
            (2, 2),
            (2, 4),
            (2, 6),
            (3, 1),
            (3, 3),
            (3, 5),
            (4, 0),
            (4, 2),
            (4, 4),
            (4, 6),
            (5, 3),
            (6, 2),
            (6, 4)
        ]
    );
    let fortress: Vec<_> = board::points(FORTRESS)
        .map(|p| (p.row(), p.col()))
        .collect();
    assert_eq!(fortress.len(), 9);
    assert!(
        fortress
            .iter()
            .all(|&(r, c)| r <= 2 && (2..=4).contains(&c))
    );
    // A point without diagonals has only its orthogonal neighbours: (3,2) has four.
    let p = Point::new(3, 2).unwrap();
    assert_eq!(board::officer_steps(p).count_ones(), 4);
    // (3,3) has eight lines; (0,2) has (0,3), (1,2) and the diagonal (1,3).
    assert_eq!(
        board::officer_steps(Point::new(3, 3).unwrap()).count_ones(),
        8
    );
    assert_eq!(
        board::officer_steps(Point::new(0, 2).unwrap()).count_ones(),
        3
    );
    // Rebels: (3,1) may go up, right, up-right; never left, up-left or down.
    let rebel: Vec<_> = board::points(board::rebel_steps(Point::new(3, 1).unwrap()))
        .map(|p| (p.row(), p.col()))
        .collect();
    assert_eq!(rebel, [(2, 1), (2, 2), (3, 2)]);
    // On the middle column a rebel may go both ways.
    let rebel: Vec<_> = board::points(board::rebel_steps(Point::new(3, 3).unwrap()))
        .map(|p| (p.row(), p.col()))
        .collect();
    assert_eq!(rebel, [(2, 2), (2, 3), (2, 4), (3, 2), (3, 4)]);
}

#[test]
fn state_from_bitboards() {
    assert!(State::from_bitboards(1, 1, REBELS).is_none());
    assert!(State::from_bitboards(1 << 33, 0, REBELS).is_none());
    let s = State::from_bitboards(0b11, 0b100, OFFICERS).unwrap();
    assert_eq!(
        (s.rebels(), s.officers(), s.to_move()),
        (0b11, 0b100, OFFICERS)
    );
    assert_eq!(s.empty().count_ones(), 30);
}

// ---------------------------------------------------------------- board files

#[test]
fn board_files_parse_leniently() {
    let game = Asalto::default();
    let rows = board::INITIAL_ROWS.join("\n");
    let initial = game.initial();
    for text in [
        rows.clone(),
        format!("{rows}\n"),
        format!("{rows}\n\n  \n"),
        rows.replace('\n', "\r\n"),
        rows.lines()
            .map(|l| l.trim_end())
            .collect::<Vec<_>>()
            .join("\n"),
        rows.lines()
            .map(|l| format!("{l}   "))
            .collect::<Vec<_>>()
            .join("\n"),
    ] {
        assert_eq!(
            game.parse_board(&text, Side::First),
            Ok(initial),
            "{text:?}"
        );
    }
    let s = game.parse_board(&rows, Side::Second).unwrap();
    assert_eq!(game.side_to_move(&s), Side::Second);
}

#[test]
fn board_file_errors_name_the_line() {
    let game = Asalto::default();
    let rows: Vec<String> = board::INITIAL_ROWS.iter().map(|s| s.to_string()).collect();
    let with = |line: usize, text: &str| {
        let mut r = rows.clone();
        r[line] = text.to_string();
        r.join("\n")
    };
    let cases: Vec<(String, usize, &str)> = vec![
        (with(0, "R ...  "), 1, "off-board cell"),
        (with(6, "  RRR O"), 7, "off-board cell"),
        (with(2, "RR.x.RR"), 3, "'x' is not a cell"),
        (with(3, "RRR\tRRR"), 4, "is not a cell"),
        (with(1, "  O O  "), 2, "playable point must be"),
        (with(1, "  O"), 2, "playable point must be"),
        (with(4, "RRRRRRRR"), 5, "line too long"),
        (format!("{}\n  ...  ", rows.join("\n")), 8, "too many lines"),
        (rows[..6].join("\n"), 0, "too few lines"),
        (String::new(), 0, "too few lines"),
    ];
    for (text, line, message) in cases {
        let err = game.parse_board(&text, Side::First).unwrap_err();
        assert_eq!(err.line, line, "{text:?}: {err}");
        assert!(err.message.contains(message), "{text:?}: {err}");
    }
}

#[test]
fn board_encodings() {
    let game = Asalto::default();
    let s = game.initial();
    assert_eq!(game.encode_board(&s), json!(board::INITIAL_ROWS));
    assert_eq!(
        Value::Object(game.turn_fields(&s)),
        json!({"ply": 0, "illegal": {"rebel": 0, "officer": 0}})
    );
    let text = game.render(&s);
    assert!(text.starts_with("   0 1 2 3 4 5 6\n0      . . .    \n1      O . O"));
    assert!(text.contains("6      R R R"));
    assert!(text.contains("rebel to move, ply 0"));
    let mut s2 = s;
    let wrong = Illegal::WrongShape {
        detail: String::new(),
    };
    for _ in 0..3 {
        game.play_illegal(&mut s2, &wrong);
    }
    assert_eq!(
        Value::Object(game.turn_fields(&s2)),
        json!({"ply": 3, "illegal": {"rebel": 2, "officer": 1}})
    );
}

#[test]
fn decimals_are_written_as_json_writes_them() {
    for n in [0, 7, 10, 99, 1000, 4_294_967_295u32] {
        let mut out = b"x".to_vec();
        push_decimal(n, &mut out);
        assert_eq!(out, format!("x{}", json!(n)).into_bytes());
    }
}

#[test]
fn game_identity() {
    let game = Asalto::default();
    assert_eq!(game.name(), "asalto");
    assert_eq!(game.roles(), ["rebel", "officer"]);
    assert_eq!(game.side_named("officer"), Some(OFFICERS));
    assert_eq!(game.round_limit, 1000);
}

// ---------------------------------------------------------------- perft

#[test]
fn perft_table_both_paths() {
    let game = Asalto::default();
    let start = game.initial();
    for (depth, want) in [(1, 9), (2, 38), (3, 358), (4, 1610), (5, 16148)] {
        assert_eq!(game.perft_fast(&start, depth), want, "fast perft {depth}");
        assert_eq!(perft(&game, &start, depth), want, "checked perft {depth}");
    }
    assert_eq!(game.perft_fast(&start, 0), 1);
    let split = divide(&game, &start, 3);
    assert_eq!(split.len(), 9);
    assert_eq!(split.iter().map(|(_, n)| n).sum::<u64>(), 358);
}

#[test]
fn perft_table_oracle() {
    let game = Asalto::default();
    let start = game.initial();
    for (depth, want) in [(1, 9), (2, 38), (3, 358)] {
        assert_eq!(
            oracle_perft(&game, &start, depth),
            want,
            "oracle perft {depth}"
        );
    }
}

/// Deeper perft, checked against the generic path; time the fast path with
/// `cargo test --release --lib perft_deep -- --ignored --nocapture`.
#[test]
#[ignore]
fn perft_deep() {
    let game = Asalto::default();
    let start = game.initial();
    for (depth, want) in [(6, 68_374), (7, 730_384)] {
        let t = std::time::Instant::now();
        let n = game.perft_fast(&start, depth);
        println!("perft({depth}) = {n} in {:?}", t.elapsed());
        assert_eq!(n, want);
        assert_eq!(perft(&game, &start, depth), want);
    }
}

// ---------------------------------------------------------------- data-driven cases

#[derive(Deserialize)]
struct Case {
    name: String,
    board: String,
    side: String,
    round_limit: Option<u32>,
    #[serde(default)]
    perft: Vec<u64>,
    moves: Option<Vec<Value>>,
    /// Played in order, as a game.
    #[serde(default)]
    turns: Vec<Turn>,
    /// Each offered to the start position on its own.
    #[serde(default)]
    replies: Vec<Turn>,
}

#[derive(Deserialize)]
struct Turn {
    #[serde(default)]
    reply: Value,
    /// The mover has no legal move (it is asked all the same).
    #[serde(default)]
    no_legal_move: bool,
    verdict: Option<String>,
    reason: Option<String>,
    removed: Option<[usize; 2]>,
    outcome: Option<ExpectedOutcome>,
    board: Option<Vec<String>>,
}

#[derive(Deserialize)]
struct ExpectedOutcome {
    winner: Option<String>,
    reason: String,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(data_dir().join("cases.json")).expect("cases.json");
    serde_json::from_str(&text).expect("cases.json parses")
}

#[test]
fn data_driven_cases() {
    let cases = cases();
    assert!(cases.len() >= 20);
    for case in cases {
        let name = &case.name;
        let game = Asalto {
            round_limit: case.round_limit.unwrap_or(1000),
        };
        let side = game
            .side_named(&case.side)
            .expect("side is rebel or officer");
        let start = load(&case.board, side);

        for (i, &want) in case.perft.iter().enumerate() {
            let depth = i as u32 + 1;
            assert_eq!(
                game.perft_fast(&start, depth),
                want,
                "{name}: fast perft {depth}"
            );
            assert_eq!(perft(&game, &start, depth), want, "{name}: perft {depth}");
            if depth <= 2 {
                assert_eq!(
                    oracle_perft(&game, &start, depth),
                    want,
                    "{name}: oracle {depth}"
                );
            }
        }
        if let Some(moves) = &case.moves {
            let want = sorted(moves.iter().map(|m| m.to_string()).collect());
            assert_eq!(generated(&start), want, "{name}: legal moves");
        }

        let mut state = start;
        let n = case.turns.len();
        for (t, turn) in case.turns.iter().enumerate() {
            let at = format!("{name}: turn {}", t + 1);
            if check_turn(&game, &mut state, turn, &at) {
                assert_eq!(t + 1, n, "{at}: the game is over");
            }
        }
        for (t, turn) in case.replies.iter().enumerate() {
            let at = format!("{name}: reply {} {}", t + 1, turn.reply);
            check_turn(&game, &mut start.clone(), turn, &at);
        }
    }
}

/// Plays one expected turn on `state` and checks everything it promises; `true` when the
/// game ended.
fn check_turn(game: &Asalto, state: &mut State, turn: &Turn, at: &str) -> bool {
    let before = *state;
    let mut legal = Vec::new();
    game.legal_moves(state, &mut legal);
    assert_eq!(
        legal.is_empty(),
        turn.no_legal_move,
        "{at}: legal moves {legal:?}"
    );
    let outcome = {
        let verdict = turn.verdict.as_deref().expect("verdict");
        match game.parse_move(state, &turn.reply) {
            Ok(mv) => {
                assert_eq!(game.move_kind(&mv), verdict, "{at}: {mv:?}");
                assert_eq!(game.move_to_wire(&mv), turn.reply, "{at}");
                match mv {
                    Move::Huff { removed, .. } => {
                        assert!(!legal.contains(&mv), "{at}");
                        assert!(any_capture(state), "{at}");
                        let want = turn.removed.expect("removed");
                        assert_eq!([removed.row(), removed.col()], want, "{at}");
                    }
                    _ => assert!(legal.contains(&mv), "{at}: {mv:?} not generated"),
                }
                let out = game.play(state, &mv);
                assert_eq!(state.illegal, before.illegal, "{at}");
                out
            }
            Err(why) => {
                assert_eq!("illegal", verdict, "{at}: {why}");
                assert_eq!(Some(why.code()), turn.reason.as_deref(), "{at}: {why}");
                let out = game.play_illegal(state, &why);
                let i = before.to_move().index();
                assert_eq!(state.illegal[i], before.illegal[i] + 1, "{at}");
                assert_eq!(state.rebels(), before.rebels(), "{at}");
                assert_eq!(state.officers(), before.officers(), "{at}");
                out
            }
        }
    };
    assert_eq!(state.ply(), before.ply() + 1, "{at}");
    assert_eq!(state.to_move(), before.to_move().other(), "{at}");
    let want = turn.outcome.as_ref().map(|o| {
        let winner = o
            .winner
            .as_deref()
            .map(|w| game.side_named(w).expect("winner role"));
        (winner, o.reason.clone())
    });
    let got = outcome.map(|o: Outcome| (o.winner, o.reason.to_string()));
    assert_eq!(got, want, "{at}: outcome");
    if let Some(rows) = &turn.board {
        assert_eq!(game.encode_board(state), json!(rows), "{at}: board");
    }
    got.is_some()
}

// ---------------------------------------------------------------- replies

#[test]
fn illegal_messages_are_precise() {
    let game = Asalto::default();
    let s = game.initial();
    let msg = |v: Value| game.parse_move(&s, &v).unwrap_err().to_string();
    assert_eq!(
        msg(json!(null)),
        "not a move: expected a list of two or more [row, col] points, got null"
    );
    assert_eq!(
        msg(json!([[3, 3], [3]])),
        "not a move: point 2 is not a [row, col] pair: [3]"
    );
    assert_eq!(
        msg(json!([[3, 3], [2.0, 3]])),
        "coordinates must be integers, got 2.0"
    );
    assert_eq!(
        msg(json!([[3, 3], [2, 7]])),
        "coordinate 7 is out of range (rows and columns are 0..6)"
    );
    assert_eq!(msg(json!([[0, 0], [0, 1]])), "point [0,0] is off the board");
    assert_eq!(
        msg(json!([[1, 2], [0, 2]])),
        "point [1,2] holds an officer, not one of your pieces"
    );
    assert_eq!(
        msg(json!([[2, 1], [3, 1]])),
        "a rebel may not move down ([2,1] -> [3,1])"
    );
    assert_eq!(
        msg(json!([[3, 2], [2, 3]])),
        "no diagonal line leaves [3,2] (only points with row % 2 == col % 2 have them)"
    );
    let long = Value::Array(vec![json!("x".repeat(100)); 3]);
    assert!(msg(long).len() < 120);
}

#[test]
fn no_line_through_an_off_board_midpoint() {
    let officer = Point::new(2, 0).unwrap();
    let rebels = board::points(board::ALL)
        .filter(|p| p.row() >= 3)
        .fold(0, |m, p| m | p.bit());
    let s = State::from_bitboards(rebels, officer.bit(), OFFICERS).unwrap();
    let err = parse_move(&s, &json!([[2, 0], [0, 2]])).unwrap_err();
    assert_eq!(err.code(), "not_step_or_jump");
}

#[test]
fn huff_wire_form_is_the_attempted_step() {
    let game = Asalto::default();
    let s = load("huff.txt", OFFICERS);
    let reply = json!([[0, 2], [0, 3]]);
    let mv = game.parse_move(&s, &reply).unwrap();
    assert_eq!(
        mv,
        Move::Huff {
            from: Point::new(0, 2).unwrap(),
            to: Point::new(0, 3).unwrap(),
            removed: Point::new(3, 3).unwrap(),
        }
    );
    assert_eq!(game.move_kind(&mv), "huff");
    assert_eq!(game.move_to_wire(&mv), reply);
    assert_eq!(game.parse_move(&s, &game.move_to_wire(&mv)), Ok(mv));
    assert_eq!(huff_victim(&s, Point::new(0, 2).unwrap()), Point::new(3, 3));
}

#[test]
fn chain_accessors() {
    let s = load("loop_chain.txt", OFFICERS);
    let reply = json!([[2, 2], [4, 2], [4, 4], [2, 4], [2, 2]]);
    let Ok(Move::Capture(chain)) = parse_move(&s, &reply) else {
        panic!("a capture")
    };
    assert_eq!(chain.from(), chain.to());
    assert_eq!(chain.landings().len(), 4);
    assert_eq!(chain.captured().count_ones(), 4);
    assert_eq!(
        format!("{chain:?}"),
        "Chain([2,2]->[4,2]->[4,4]->[2,4]->[2,2])"
    );
}

// ---------------------------------------------------------------- property tests

/// The turn of a side that answers `null`, as a blocked built-in bot does.
fn play_null(game: &Asalto, state: &mut State) -> Option<Outcome> {
    let why = parse_move(state, &Value::Null).expect_err("null is no move");
    game.play_illegal(state, &why)
}

/// A position reached by random play from the start (including huffs), and the game that
/// played it; play stops before a move that would end the game.
fn random_position(choices: &[u32]) -> State {
    let game = Asalto::default();
    let mut state = game.initial();
    let mut moves = Vec::new();
    for &c in choices {
        moves.clear();
        game.legal_moves(&state, &mut moves);
        let mut next = state;
        let outcome = if state.to_move() == OFFICERS && c % 7 == 0 && any_capture(&state) {
            // Try a huff: any officer step onto an empty point.
            let step = board::points(state.officers()).find_map(|from| {
                board::points(board::officer_steps(from) & state.empty())
                    .next()
                    .map(|to| (from, to))
            });
            match step {
                Some((from, to)) => {
                    let mv = parse_move(&state, &wire(&[from, to])).expect("a huff parses");
                    assert!(matches!(mv, Move::Huff { .. }));
                    game.play(&mut next, &mv)
                }
                None => play_null(&game, &mut next),
            }
        } else if moves.is_empty() {
            play_null(&game, &mut next)
        } else {
            let mv = moves[c as usize % moves.len()];
            game.play(&mut next, &mv)
        };
        if outcome.is_some() {
            break;
        }
        state = next;
    }
    state
}

fn arb_json() -> impl Strategy<Value = Value> {
    let huge: Value = serde_json::from_str("123456789012345678901234567890").expect("json");
    let leaf = prop_oneof![
        1 => Just(Value::Null),
        1 => Just(huge),
        1 => any::<bool>().prop_map(Value::Bool),
        4 => (-2i64..9).prop_map(|n| json!(n)),
        1 => any::<i64>().prop_map(|n| json!(n)),
        1 => any::<u64>().prop_map(|n| json!(n)),
        1 => any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        1 => "[a-z0-9 ]{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            4 => vec(inner.clone(), 0..6).prop_map(Value::Array),
            1 => vec(("[a-z]{1,3}", inner), 0..3)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Replies shaped like moves, with coordinates that land on and near the board.
fn arb_movelike() -> impl Strategy<Value = Value> {
    vec((0usize..7, 0usize..7), 1..6)
        .prop_map(|pts| Value::Array(pts.into_iter().map(|(r, c)| json!([r, c])).collect()))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn legal_moves_round_trip_through_the_wire(choices in vec(any::<u32>(), 0..60)) {
        let game = Asalto::default();
        let state = random_position(&choices);
        let mut moves = Vec::new();
        game.legal_moves(&state, &mut moves);
        for mv in &moves {
            let reply = game.move_to_wire(mv);
            let parsed = game.parse_move(&state, &reply);
            prop_assert_eq!(parsed.as_ref(), Ok(mv), "{}", reply);
            let (mut a, mut b) = (state, state);
            prop_assert_eq!(game.play(&mut a, mv), game.play_unchecked(&mut b, &parsed.unwrap()));
            prop_assert_eq!(a, b);
        }
        let oracle = sorted(oracle_moves(&state).into_iter().map(|(w, _)| w).collect());
        prop_assert_eq!(generated(&state), oracle);
    }

    #[test]
    fn parse_move_never_panics(reply in arb_json(), choices in vec(any::<u32>(), 0..30)) {
        let state = random_position(&choices);
        for side in Side::BOTH {
            let mut s = state;
            s.to_move = side;
            let _ = parse_move(&s, &reply);
        }
    }

    #[test]
    fn parse_move_accepts_only_legal_moves_and_huffs(
        reply in arb_movelike(),
        choices in vec(any::<u32>(), 0..40),
    ) {
        let game = Asalto::default();
        let state = random_position(&choices);
        let legal = generated(&state);
        match game.parse_move(&state, &reply) {
            Ok(Move::Huff { from, to, removed }) => {
                prop_assert!(any_capture(&state));
                // A capture of one rebel is two points on the wire, like a step: the moves
                // are asked for their kind, not their length.
                let mut moves = Vec::new();
                game.legal_moves(&state, &mut moves);
                prop_assert!(moves.iter().all(|m| matches!(m, Move::Capture(_))), "only captures");
                prop_assert_eq!(wire(&[from, to]), reply);
                prop_assert!(officer_can_capture(&state, removed));
            }
            Ok(mv) => {
                let text = game.move_to_wire(&mv).to_string();
                prop_assert!(legal.contains(&text));
            }
            Err(why) => {
                prop_assert!(!legal.contains(&reply.to_string()), "{}: {}", reply, why);
            }
        }
    }

    #[test]
    fn fast_perft_matches_checked_perft(choices in vec(any::<u32>(), 0..50), depth in 2u32..=3) {
        let game = Asalto::default();
        let state = random_position(&choices);
        prop_assert_eq!(game.perft_fast(&state, depth), perft(&game, &state, depth));
        prop_assert_eq!(game.perft_fast(&state, 1), oracle_perft(&game, &state, 1));
    }

    #[test]
    fn board_text_never_panics_and_round_trips(text in "[RO. x\t\r\n]{0,80}") {
        let game = Asalto::default();
        if let Ok(state) = game.parse_board(&text, REBELS) {
            let rows = state.rows().join("\n");
            prop_assert_eq!(game.parse_board(&rows, REBELS), Ok(state));
        }
    }

    #[test]
    fn the_turn_line_is_the_protocols_encoding(
        choices in vec(any::<u32>(), 0..60),
        illegal in 0..30u32,
    ) {
        let game = Asalto::default();
        let mut state = random_position(&choices);
        // Illegal replies show in the counters (and pass the turn).
        for _ in 0..illegal {
            if play_null(&game, &mut state).is_some() {
                break;
            }
        }
        let mut written = b"kept ".to_vec();
        game.write_turn(&state, &mut written);
        let want = crate::bots::protocol::encode(&crate::bots::protocol::ToBot::Turn {
            role: game.role_name(state.to_move()).to_string(),
            board: game.encode_board(&state),
            fields: game.turn_fields(&state),
        });
        prop_assert_eq!(String::from_utf8(written).unwrap(), format!("kept {want}"));
    }

    #[test]
    fn encoded_boards_parse_back(choices in vec(any::<u32>(), 0..60)) {
        let game = Asalto::default();
        let state = random_position(&choices);
        let Value::Array(rows) = game.encode_board(&state) else {
            panic!("rows")
        };
        let text: Vec<&str> = rows.iter().filter_map(Value::as_str).collect();
        let back = game.parse_board(&text.join("\n"), state.to_move()).unwrap();
        prop_assert_eq!((back.rebels(), back.officers()), (state.rebels(), state.officers()));
    }

    #[test]
    fn generator_matches_oracle_on_random_boards(
        r in any::<u64>(), o1 in any::<u64>(), o2 in any::<u64>(), o3 in any::<u64>(),
        officers_move in any::<bool>(),
    ) {
        let game = Asalto::default();
        let rebels = r & board::ALL;
        let officers = o1 & o2 & o3 & board::ALL & !rebels;
        let side = if officers_move { OFFICERS } else { REBELS };
        let state = State::from_bitboards(rebels, officers, side).unwrap();
        let oracle = sorted(oracle_moves(&state).into_iter().map(|(w, _)| w).collect());
        prop_assert_eq!(generated(&state), oracle);
        prop_assert_eq!(game.perft_fast(&state, 2), oracle_perft(&game, &state, 2));
        prop_assert_eq!(game.perft_fast(&state, 2), perft(&game, &state, 2));
    }
}
