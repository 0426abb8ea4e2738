//! Tests of the Gomoku rules against docs/rules/gomoku.md: the window tables, the perft
//! table through both paths, wins in every direction, both draws, every illegal reason,
//! the board text, and property tests over random positions and random replies.

use super::board::{self, CELLS, SIZE, WINDOW_COUNT, fast_perft, windows_through};
use super::*;
use crate::games::perft::perft;
use crate::games::{Game, Outcome, ReasonCode, Side};
use proptest::collection::vec;
use proptest::prelude::*;
use serde_json::{Value, json};
use std::path::PathBuf;

fn load(file: &str, side: Side) -> State {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/gomoku")
        .join(file);
    let text = std::fs::read_to_string(path).expect("board file");
    parse_rows(&text, side).unwrap_or_else(|e| panic!("{file}: {e}"))
}

fn board(rows: &[&str], side: Side) -> State {
    parse_rows(&rows.join("\n"), side).unwrap_or_else(|e| panic!("{e}"))
}

fn play_at(state: &mut State, row: usize, col: usize) -> Option<Outcome> {
    let mv = parse_move(state, &json!([row, col])).expect("legal move");
    Gomoku.play(state, &mv)
}

/// A position after the given sequence of cell choices (each picks among the legal moves),
/// stopping before a move that would end the game.
fn random_position(choices: &[u32]) -> State {
    let mut state = State::initial();
    let mut moves = Vec::new();
    for &pick in choices {
        moves.clear();
        Gomoku.legal_moves(&state, &mut moves);
        if moves.is_empty() {
            break;
        }
        let mv = moves[pick as usize % moves.len()];
        let mut next = state;
        if Gomoku.play(&mut next, &mv).is_some() {
            break;
        }
        state = next;
    }
    state
}

#[test]
fn windows_are_96_distinct_lines_of_five() {
    assert_eq!(WINDOWS.len(), WINDOW_COUNT);
    let mut sorted = WINDOWS.to_vec();
    sorted.sort();
    sorted.dedup();
    assert_eq!(sorted.len(), 96);
    assert!(WINDOWS.iter().all(|w| w.count_ones() == 5));
    // A corner lies on one row, one column and one diagonal window; the centre on 4 per
    // direction at most.
    assert_eq!(windows_through(0).len(), 3);
    assert_eq!(windows_through(63).len(), 3);
    assert!((0..CELLS).all(|c| windows_through(c).len() <= 20));
    assert_eq!(windows_through(64).len(), 0);
    let total: usize = (0..CELLS).map(|c| windows_through(c).len()).sum();
    assert_eq!(total, 96 * 5);
}

#[test]
fn perft_table_generic_and_fast() {
    let s = State::initial();
    for (depth, expected) in [(0, 1), (1, 64), (2, 4032), (3, 249_984)] {
        assert_eq!(fast_perft(&s, depth), expected, "fast depth {depth}");
        assert_eq!(perft(&Gomoku, &s, depth), expected, "generic depth {depth}");
    }
}

#[test]
fn perft_from_a_board_file() {
    // White has a diagonal four open at both ends. Counted by an independent script from
    // the rules (wins and the early draw end a line of play).
    for (side, counts) in [(WHITE, [54, 2756, 143_312]), (BLACK, [54, 2862, 143_312])] {
        let s = load("diagonal_four.txt", side);
        for (depth, expected) in (1..).zip(counts) {
            assert_eq!(perft(&Gomoku, &s, depth), expected, "{side} depth {depth}");
            assert_eq!(fast_perft(&s, depth), expected, "{side} fast depth {depth}");
        }
    }
}

#[test]
fn finished_game_has_no_continuations() {
    let s = board(
        &[
            "WWWW....", "BBBB....", "........", "........", "........", "........", "........",
            "........",
        ],
        WHITE,
    );
    assert!(!s.is_over());
    assert_eq!(perft(&Gomoku, &s, 2), 55 + 55 * 54);
    // White's move at [0,4] wins; that move has no continuations.
    assert_eq!(fast_perft(&s, 2), perft(&Gomoku, &s, 2));
    let mut won = s;
    assert_eq!(
        play_at(&mut won, 0, 4),
        Some(Outcome::win(WHITE, "five_in_row"))
    );
    assert!(won.is_over());
    let mut moves = Vec::new();
    Gomoku.legal_moves(&won, &mut moves);
    assert!(moves.is_empty());
    assert_eq!(perft(&Gomoku, &won, 1), 0);
    assert_eq!(fast_perft(&won, 3), 0);
}

#[test]
fn five_wins_in_every_direction() {
    let cases: [(&[&str], (usize, usize)); 4] = [
        (
            &[
                "........", "...WWWW.", "BBBB....", "........", "........", "........", "........",
                "........",
            ],
            (1, 7),
        ),
        (
            &[
                "W.......", "W.......", "W.......", "W.......", "........", "........", "BBBB....",
                "........",
            ],
            (4, 0),
        ),
        (
            &[
                "........", ".W......", "..W.....", "...W....", "....W...", "........", "........",
                "BBBB....",
            ],
            (0, 0),
        ),
        (
            &[
                ".......B", "......B.", ".....B..", "....B...", "........", "........", "WWWW....",
                ".......W",
            ],
            (4, 3),
        ),
    ];
    for (i, (rows, (r, c))) in cases.into_iter().enumerate() {
        let side = if i == 3 { BLACK } else { WHITE };
        let mut s = board(rows, side);
        assert_eq!(
            play_at(&mut s, r, c),
            Some(Outcome::win(side, "five_in_row")),
            "case {i}"
        );
    }
}

#[test]
fn six_in_a_row_wins_too() {
    let mut s = board(
        &[
            "WW.WWW..", "BBB.BB..", "........", "........", "........", "........", "........",
            "........",
        ],
        WHITE,
    );
    assert_eq!(
        play_at(&mut s, 0, 2),
        Some(Outcome::win(WHITE, "five_in_row"))
    );
}

#[test]
fn four_is_not_a_win() {
    let mut s = board(
        &[
            "WWW.....", "BBB.....", "........", "........", "........", "........", "........",
            "........",
        ],
        WHITE,
    );
    assert_eq!(play_at(&mut s, 0, 3), None);
    assert_eq!(s.to_move(), BLACK);
    assert_eq!(s.ply(), 7);
}

#[test]
fn early_draw_when_no_window_is_left() {
    let mut s = load("no_window_left.txt", BLACK);
    assert!(!board::no_window_left(s.white(), s.black()));
    assert_eq!(play_at(&mut s, 6, 7), Some(Outcome::tie("no_window_left")));
    assert!(s.empty() != 0);
    assert!(s.is_over());
}

#[test]
fn full_board_is_a_draw() {
    // The last empty cell still has a window of four white stones, so the game is alive
    // until black fills it.
    let mut s = load("one_empty.txt", BLACK);
    assert!(!s.is_over());
    let mut moves = Vec::new();
    Gomoku.legal_moves(&s, &mut moves);
    assert_eq!(moves.len(), 1);
    assert_eq!(play_at(&mut s, 5, 1), Some(Outcome::tie("board_full")));
    let mut none = Vec::new();
    Gomoku.legal_moves(&s, &mut none);
    assert!(none.is_empty());
}

#[test]
fn every_illegal_reply_loses_with_its_reason() {
    let s = board(
        &[
            "W.......", "........", "........", "........", "........", "........", "........",
            "........",
        ],
        BLACK,
    );
    let cases = [
        (json!("0 1"), "wrong_shape"),
        (json!(null), "wrong_shape"),
        (json!({"row": 1, "col": 1}), "wrong_shape"),
        (json!([1]), "wrong_shape"),
        (json!([1, 2, 3]), "wrong_shape"),
        (json!([[1, 2]]), "wrong_shape"),
        (json!([1.5, 2]), "not_integers"),
        (json!([2.0, 1]), "not_integers"),
        (json!(["1", 2]), "not_integers"),
        (json!([9, 1.5]), "not_integers"),
        (json!([1, true]), "not_integers"),
        (json!([8, 0]), "out_of_range"),
        (json!([0, -1]), "out_of_range"),
        (json!([3, 18446744073709551615u64]), "out_of_range"),
        (json!([0, 0]), "occupied"),
    ];
    for (reply, code) in cases {
        let why = parse_move(&s, &reply).expect_err(&reply.to_string());
        assert_eq!(why.code(), code, "{reply}: {why}");
        let mut after = s;
        assert_eq!(
            Gomoku.play_illegal(&mut after, &why),
            Some(Outcome::win(WHITE, "illegal_move"))
        );
    }
    let huge: Value = serde_json::from_str("[100000000000000000000000, 1]").unwrap();
    assert_eq!(parse_move(&s, &huge).unwrap_err().code(), "out_of_range");
    assert_eq!(parse_move(&s, &json!([7, 7])), Ok(Move::at(7, 7).unwrap()));
}

#[test]
fn game_surface() {
    let g = Gomoku;
    assert_eq!(g.name(), "gomoku");
    assert_eq!(g.roles(), ["white", "black"]);
    assert_eq!(g.side_named("black"), Some(BLACK));
    assert_eq!(g.league_points().win, 2.0);
    assert_eq!(g.league_points().tie, 1.0);
    let mut s = g.initial();
    assert_eq!(g.side_to_move(&s), WHITE);
    play_at(&mut s, 2, 5);
    play_at(&mut s, 7, 0);
    assert_eq!(
        g.encode_board(&s),
        json!([
            "........", "........", ".....W..", "........", "........", "........", "........",
            "B......."
        ])
    );
    assert_eq!(g.turn_fields(&s).get("ply"), Some(&json!(2)));
    assert_eq!(g.move_to_wire(&Move::at(2, 5).unwrap()), json!([2, 5]));
    assert!(g.render(&s).contains("white to move, ply 2"));
    let text: Vec<String> = s.rows();
    let back = g.parse_board(&text.join("\n"), WHITE).unwrap();
    assert_eq!(back, s);
}

#[test]
fn board_file_errors_are_clear() {
    let good = "........\n".repeat(8);
    assert!(parse_rows(&good, WHITE).is_ok());
    assert!(parse_rows(&format!("{good}\n\n"), WHITE).is_ok());
    let few = parse_rows(&"........\n".repeat(7), WHITE).unwrap_err();
    assert_eq!(few.line, 0);
    assert!(few.message.contains("too few lines"), "{few}");
    let many = parse_rows(&"........\n".repeat(9), WHITE).unwrap_err();
    assert_eq!(many.line, 9);
    let short = parse_rows(&good.replacen("........", ".......", 1), WHITE).unwrap_err();
    assert_eq!(short.line, 1);
    assert!(short.message.contains("this one has 7"), "{short}");
    let bad = parse_rows(&good.replacen("........", "...X....", 2), WHITE).unwrap_err();
    // Rows 1 and 2 are both bad; the first is reported.
    assert_eq!(bad.line, 1);
    assert!(bad.message.contains("'X'"), "{bad}");
    let both = [
        "WWWWW...", "BBBBB...", "........", "........", "........", "........", "........",
        "........",
    ];
    let err = parse_rows(&both.join("\n"), WHITE).unwrap_err();
    assert!(err.message.contains("both colours"), "{err}");
    let won = [
        "WWWWW...", "BBBB....", "........", "........", "........", "........", "........",
        "........",
    ];
    let s = parse_rows(&won.join("\n"), BLACK).unwrap();
    assert!(s.is_over());
    assert_eq!(s.decided(), Some(Outcome::win(WHITE, "five_in_row")));
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|i| json!(i)),
        (-2i64..10).prop_map(|i| json!(i)),
        any::<f64>().prop_map(|f| json!(f)),
        ".{0,6}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            vec(inner.clone(), 0..4).prop_map(Value::Array),
            vec((".{0,3}", inner), 0..3).prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn legal_moves_round_trip_through_the_wire(choices in vec(any::<u32>(), 0..60)) {
        let state = random_position(&choices);
        let mut moves = Vec::new();
        Gomoku.legal_moves(&state, &mut moves);
        prop_assert_eq!(moves.len() as u32, state.empty().count_ones());
        for mv in &moves {
            let reply = Gomoku.move_to_wire(mv);
            prop_assert_eq!(Gomoku.parse_move(&state, &reply), Ok(*mv));
        }
        // Every on-board pair the generator left out is an occupied cell.
        for r in 0..SIZE {
            for c in 0..SIZE {
                let parsed = parse_move(&state, &json!([r, c]));
                prop_assert_eq!(parsed.is_ok(), state.at(r, c).is_none());
            }
        }
    }

    #[test]
    fn random_json_never_panics(choices in vec(any::<u32>(), 0..30), reply in json_value()) {
        let state = random_position(&choices);
        if let Ok(mv) = parse_move(&state, &reply) {
            prop_assert_eq!(Gomoku.move_to_wire(&mv), reply);
        }
    }

    #[test]
    fn fast_perft_equals_generic(choices in vec(any::<u32>(), 0..58)) {
        let state = random_position(&choices);
        prop_assert_eq!(fast_perft(&state, 2), perft(&Gomoku, &state, 2));
    }

    #[test]
    fn text_round_trip(choices in vec(any::<u32>(), 0..60)) {
        let state = random_position(&choices);
        let text = state.rows().join("\n");
        let back = parse_rows(&text, state.to_move()).unwrap();
        prop_assert_eq!(back, state);
    }
}
