//! Tests of the Hinger rules against docs/rules/hinger.md: the worked values of the
//! assignment's Figure 1, non-binary piles, splits into three regions, the draw, every
//! illegal reason, board text and random boards, and property tests that hold the hinger
//! search to a plain recount of regions and the parser to the generator.

use super::*;
use crate::games::perft::perft;
use crate::games::{Game, Outcome, ReasonCode, Side};
use proptest::collection::vec;
use proptest::prelude::*;
use serde_json::{Value, json};
use std::path::PathBuf;

fn load(file: &str) -> State {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/hinger")
        .join(file);
    let text = std::fs::read_to_string(path).expect("board file");
    parse_rows(&text, Side::First).unwrap_or_else(|e| panic!("{file}: {e}"))
}

fn state(grid: &[&[u32]]) -> State {
    let grid: Vec<Vec<u32>> = grid.iter().map(|r| r.to_vec()).collect();
    State::from_grid(&grid, Side::First).expect("grid")
}

fn cells(moves: &[Move]) -> Vec<(usize, usize)> {
    moves.iter().map(|m| (m.row(), m.col())).collect()
}

fn play_at(game: &Hinger, state: &mut State, row: usize, col: usize) -> Option<Outcome> {
    let mv = parse_move(state, &json!([row, col])).expect("legal move");
    game.play(state, &mv)
}

/// Regions counted the long way: label every active cell by flood fill over all pairs.
fn naive_regions(grid: &[Vec<u32>]) -> usize {
    let active: Vec<(usize, usize)> = grid
        .iter()
        .enumerate()
        .flat_map(|(r, row)| {
            row.iter()
                .enumerate()
                .filter(|(_, n)| **n > 0)
                .map(move |(c, _)| (r, c))
        })
        .collect();
    let mut label: Vec<usize> = (0..active.len()).collect();
    loop {
        let mut changed = false;
        for i in 0..active.len() {
            for j in 0..active.len() {
                let (a, b) = (active[i], active[j]);
                if a.0.abs_diff(b.0) <= 1 && a.1.abs_diff(b.1) <= 1 && label[j] > label[i] {
                    label[j] = label[i];
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    label.sort();
    label.dedup();
    label.len()
}

/// Hingers straight from the definition.
fn naive_hingers(grid: &[Vec<u32>]) -> Vec<(usize, usize)> {
    let before = naive_regions(grid);
    let mut out = Vec::new();
    for r in 0..grid.len() {
        for c in 0..grid[r].len() {
            if grid[r][c] == 1 {
                let mut after = grid.to_vec();
                after[r][c] = 0;
                if naive_regions(&after) > before {
                    out.push((r, c));
                }
            }
        }
    }
    out
}

#[test]
fn figure_1_worked_values() {
    let a = load("state_a.txt");
    assert_eq!(regions(&a), 2);
    assert_eq!(cells(&hingers(&a)), [(1, 1), (2, 2)]);
    let b = load("state_b.txt");
    assert_eq!(regions(&b), 2);
    assert_eq!(cells(&hingers(&b)), [(1, 1), (2, 2)]);
    let c = load("state_c.txt");
    assert_eq!(regions(&c), 3);
    assert!(hingers(&c).is_empty());
    for s in [&a, &b, &c] {
        assert_eq!(naive_regions(&s.grid()), regions(s));
        assert_eq!(naive_hingers(&s.grid()), cells(&hingers(s)));
    }
    // C is B after the move on (2,2), which is a hinger: the first player wins with it.
    let game = Hinger::default();
    let mut after = game.initial();
    assert_eq!(after, b);
    assert_eq!(
        play_at(&game, &mut after, 2, 2),
        Some(Outcome::win(Side::First, "hinger"))
    );
    assert_eq!(after.grid(), c.grid());
}

#[test]
fn perft_from_board_files() {
    // Counted by an independent script from the definitions (a hinger move and the last
    // counter end the game).
    let a = load("state_a.txt");
    let game = Hinger::new(a.grid()).unwrap();
    for (depth, expected) in [(1, 10), (2, 73), (3, 455), (4, 2388), (5, 10428)] {
        assert_eq!(perft(&game, &a, depth), expected, "state A depth {depth}");
    }
    let ring = load("ring_3x4.txt");
    for (depth, expected) in [(1, 9), (2, 72), (3, 406), (4, 1728), (5, 5660), (6, 14224)] {
        assert_eq!(perft(&game, &ring, depth), expected, "ring depth {depth}");
    }
}

#[test]
fn move_costs() {
    let a = load("state_a.txt");
    assert_eq!(move_cost(&a, &Move::new(1, 1)), 5);
    assert_eq!(move_cost(&a, &Move::new(0, 4)), 1);
    assert_eq!(move_cost(&a, &Move::new(3, 4)), 4);
    assert_eq!(move_cost(&a, &Move::new(0, 0)), 4);
}

#[test]
fn a_pile_of_two_is_never_a_hinger() {
    let game = Hinger::new(vec![vec![1, 2, 1]]).unwrap();
    let mut s = game.initial();
    assert_eq!(regions(&s), 1);
    assert!(hingers(&s).is_empty());
    assert_eq!(play_at(&game, &mut s, 0, 1), None);
    // Down to one counter, the middle now holds the row together.
    assert_eq!(cells(&hingers(&s)), [(0, 1)]);
    assert_eq!(
        play_at(&game, &mut s, 0, 1),
        Some(Outcome::win(Side::Second, "hinger"))
    );
}

#[test]
fn isolated_single_is_not_a_hinger() {
    let s = state(&[&[1, 0, 1]]);
    assert_eq!(regions(&s), 2);
    assert!(hingers(&s).is_empty());
    let lone = state(&[&[1]]);
    assert_eq!(regions(&lone), 1);
    assert!(hingers(&lone).is_empty());
}

#[test]
fn splits_into_three_or_four_count() {
    let three = state(&[&[1, 0, 1], &[0, 1, 0], &[0, 1, 0]]);
    assert_eq!(regions(&three), 1);
    assert_eq!(cells(&hingers(&three)), [(1, 1)]);
    let mut after = three.clone();
    let game = Hinger::new(three.grid()).unwrap();
    assert_eq!(
        play_at(&game, &mut after, 1, 1),
        Some(Outcome::win(Side::First, "hinger"))
    );
    assert_eq!(regions(&after), 3);
    let four = state(&[&[1, 0, 1], &[0, 1, 0], &[1, 0, 1]]);
    assert_eq!(cells(&hingers(&four)), [(1, 1)]);
}

#[test]
fn end_of_a_line_is_not_a_hinger() {
    let s = state(&[&[1, 1, 1, 1]]);
    assert_eq!(cells(&hingers(&s)), [(0, 1), (0, 2)]);
    // A ring has no hinger: every cell has a way around.
    let ring = state(&[&[1, 1, 1], &[1, 0, 1], &[1, 1, 1]]);
    assert!(hingers(&ring).is_empty());
}

#[test]
fn emptying_the_board_without_a_hinger_is_a_draw() {
    let game = Hinger::new(vec![vec![2, 0, 1]]).unwrap();
    let mut s = game.initial();
    assert_eq!(play_at(&game, &mut s, 0, 0), None);
    assert_eq!(play_at(&game, &mut s, 0, 2), None);
    assert_eq!(s.to_move(), Side::First);
    assert_eq!(
        play_at(&game, &mut s, 0, 0),
        Some(Outcome::tie("all_removed"))
    );
    assert_eq!(s.counters(), 0);
    let mut moves = Vec::new();
    game.legal_moves(&s, &mut moves);
    assert!(moves.is_empty());
    // Play never reaches a position without moves; only a start can be one.
    assert_eq!(game.start_outcome(&game.initial()), None);
    assert_eq!(game.start_outcome(&s), Some(Outcome::tie("all_removed")));
    // Perft agrees: the last counter ends the game.
    assert_eq!(perft(&game, &game.initial(), 3), 3);
    assert_eq!(perft(&game, &game.initial(), 4), 0);
}

#[test]
fn every_illegal_reply_loses_with_its_reason() {
    let game = Hinger::default();
    let s = game.initial();
    let cases = [
        (json!(null), "wrong_shape"),
        (json!("1,1"), "wrong_shape"),
        (json!({"row": 0, "col": 0}), "wrong_shape"),
        (json!([0]), "wrong_shape"),
        (json!([0, 0, 0]), "wrong_shape"),
        (json!([]), "wrong_shape"),
        (json!([0.0, 0]), "not_integers"),
        (json!([0, "0"]), "not_integers"),
        (json!([null, 0]), "not_integers"),
        (json!([9, 0.5]), "not_integers"),
        (json!([4, 0]), "off_board"),
        (json!([0, 5]), "off_board"),
        (json!([-1, 0]), "off_board"),
        (json!([0, i64::MIN]), "off_board"),
        (json!([0, 2]), "empty_cell"),
        (json!([3, 0]), "empty_cell"),
    ];
    for (reply, code) in cases {
        let why = parse_move(&s, &reply).expect_err(&reply.to_string());
        assert_eq!(why.code(), code, "{reply}: {why}");
        for mover in [Side::First, Side::Second] {
            let mut after = game.parse_board(&s.text(), mover).unwrap();
            assert_eq!(
                game.play_illegal(&mut after, &why),
                Some(Outcome::win(mover.other(), "illegal_move"))
            );
        }
    }
    let huge: Value = serde_json::from_str("[100000000000000000000000, 0]").unwrap();
    assert_eq!(parse_move(&s, &huge).unwrap_err().code(), "off_board");
}

#[test]
fn game_surface() {
    let game = Hinger::default();
    assert_eq!(game.name(), "hinger");
    assert_eq!(game.roles(), ["first", "second"]);
    assert_eq!(game.league_points().win, 1.0);
    assert_eq!(game.league_points().tie, 0.0);
    let mut s = game.initial();
    assert_eq!(game.side_to_move(&s), Side::First);
    assert_eq!(
        game.encode_board(&s),
        json!([
            [1, 1, 0, 0, 1],
            [1, 1, 0, 0, 0],
            [0, 0, 1, 1, 1],
            [0, 0, 0, 1, 1]
        ])
    );
    let mut moves = Vec::new();
    game.legal_moves(&s, &mut moves);
    assert_eq!(moves.len(), 10);
    assert_eq!(play_at(&game, &mut s, 0, 4), None);
    assert_eq!(game.turn_fields(&s).get("ply"), Some(&json!(1)));
    assert_eq!(game.side_to_move(&s), Side::Second);
    assert_eq!(game.move_to_wire(&Move::new(2, 3)), json!([2, 3]));
    assert!(game.render(&s).ends_with("second to move, ply 1\n"));
    let back = game.parse_board(&s.text(), Side::Second).unwrap();
    assert_eq!(back.grid(), s.grid());
    assert_eq!(game.grid(), Hinger::default().grid());
}

#[test]
fn grids_and_board_files_are_checked() {
    assert_eq!(Hinger::new(vec![]).unwrap_err().line, 0);
    assert_eq!(Hinger::new(vec![vec![]]).unwrap_err().line, 0);
    let ragged = Hinger::new(vec![vec![1, 1], vec![1]]).unwrap_err();
    assert_eq!(ragged.line, 2);
    assert!(ragged.message.contains("row 1 has 1"), "{ragged}");
    assert!(parse_rows("1 2\n0 3\n\n", Side::First).is_ok());
    assert_eq!(parse_rows("", Side::First).unwrap_err().line, 0);
    let neg = parse_rows("1 -1\n", Side::First).unwrap_err();
    assert_eq!(neg.line, 1);
    assert!(neg.message.contains("\"-1\""), "{neg}");
    let word = parse_rows("1 1\n1 x\n", Side::First).unwrap_err();
    assert_eq!(word.line, 2);
    assert!(word.message.contains("cell [1,1]"), "{word}");
    assert_eq!(parse_rows("1 1\n\n1 1\n", Side::First).unwrap_err().line, 2);
    assert_eq!(parse_rows("1 1\n1 1 1\n", Side::First).unwrap_err().line, 2);
}

#[test]
fn random_boards_are_binary_and_reproducible() {
    let a = random_grid(6, 7, 0.5, 42);
    assert_eq!(a, random_grid(6, 7, 0.5, 42));
    assert_ne!(a, random_grid(6, 7, 0.5, 43));
    assert_eq!(a.len(), 6);
    assert!(a.iter().all(|r| r.len() == 7 && r.iter().all(|&c| c <= 1)));
    let ones: u32 = a.iter().flatten().sum();
    assert!((5..=37).contains(&ones), "{ones}");
    assert!(random_grid(3, 3, 0.0, 1).iter().flatten().all(|&c| c == 0));
    assert!(random_grid(3, 3, 1.0, 1).iter().flatten().all(|&c| c == 1));
    assert!(random_grid(3, 3, 7.5, 1).iter().flatten().all(|&c| c == 1));
    assert!(
        random_grid(3, 3, f64::NAN, 1)
            .iter()
            .flatten()
            .all(|&c| c == 0)
    );
    let game = Hinger::random(4, 5, 0.6, 9).unwrap();
    assert_eq!(game.grid(), random_grid(4, 5, 0.6, 9));
    assert!(Hinger::random(0, 5, 0.6, 9).is_err());
}

fn grid_strategy() -> impl Strategy<Value = Vec<Vec<u32>>> {
    (1usize..6, 1usize..6).prop_flat_map(|(rows, cols)| {
        vec(
            vec(
                prop_oneof![3 => Just(0u32), 5 => Just(1u32), 1 => 2u32..4],
                cols,
            ),
            rows,
        )
    })
}

fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|i| json!(i)),
        (-2i64..7).prop_map(|i| json!(i)),
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
    fn hingers_match_the_definition(grid in grid_strategy()) {
        let s = State::from_grid(&grid, Side::First).unwrap();
        prop_assert_eq!(regions(&s), naive_regions(&grid));
        prop_assert_eq!(cells(&hingers(&s)), naive_hingers(&grid));
    }

    #[test]
    fn legal_moves_round_trip_through_the_wire(grid in grid_strategy()) {
        let game = Hinger::new(grid.clone()).unwrap();
        let s = game.initial();
        let mut moves = Vec::new();
        game.legal_moves(&s, &mut moves);
        for mv in &moves {
            let reply = game.move_to_wire(mv);
            prop_assert_eq!(game.parse_move(&s, &reply), Ok(*mv));
        }
        let accepted = (0..grid.len() + 1)
            .flat_map(|r| (0..grid[0].len() + 1).map(move |c| (r, c)))
            .filter(|&(r, c)| parse_move(&s, &json!([r, c])).is_ok())
            .count();
        prop_assert_eq!(accepted, moves.len());
    }

    #[test]
    fn random_json_never_panics(grid in grid_strategy(), reply in json_value()) {
        let game = Hinger::new(grid).unwrap();
        let s = game.initial();
        if let Ok(mv) = parse_move(&s, &reply) {
            prop_assert_eq!(game.move_to_wire(&mv), reply);
        }
    }

    #[test]
    fn a_game_ends_within_the_counters(grid in grid_strategy(), picks in vec(any::<u32>(), 40)) {
        let game = Hinger::new(grid).unwrap();
        let mut s = game.initial();
        let start = s.counters();
        let mut moves = Vec::new();
        let mut outcome = game.start_outcome(&s);
        for pick in picks {
            if outcome.is_some() {
                break;
            }
            moves.clear();
            game.legal_moves(&s, &mut moves);
            // A game in play always has a move: the last counter ends it.
            prop_assert!(!moves.is_empty());
            let mv = moves[pick as usize % moves.len()];
            let was_hinger = hingers(&s).contains(&mv);
            outcome = game.play(&mut s, &mv);
            prop_assert_eq!(outcome.as_ref().is_some_and(|o| o.reason == "hinger"), was_hinger);
        }
        prop_assert!(u64::from(s.ply()) <= start);
        if start <= 40 {
            prop_assert!(outcome.is_some());
        }
    }
}

#[test]
fn a_fixed_board_starts_every_game() {
    let game = Hinger::new(vec![vec![1, 2, 1]]).unwrap();
    for start in [0, 1, 7, u64::MAX] {
        assert_eq!(game.start_position(start).grid(), vec![vec![1, 2, 1]]);
    }
    assert_eq!(game.initial(), game.start_position(0));
    assert!(matches!(game.starts(), Starts::Fixed(_)));
}

#[test]
fn given_boards_are_played_in_turn() {
    let boards = vec![
        vec![vec![1, 1], vec![1, 0]],
        vec![vec![1, 0, 1]],
        vec![vec![2], vec![1], vec![1]],
    ];
    let game = Hinger::from_boards(boards.clone()).unwrap();
    for start in 0..7u64 {
        let s = game.start_position(start);
        assert_eq!(s.grid(), boards[(start % 3) as usize], "start {start}");
        assert_eq!(s.to_move(), Side::First);
        assert_eq!(s.ply(), 0);
    }
    assert_eq!(
        game.start_position(u64::MAX).grid(),
        boards[(u64::MAX % 3) as usize]
    );
    assert_eq!(game.initial().grid(), boards[0]);
    assert_eq!(game.grid(), boards[0]);

    assert_eq!(Hinger::from_boards(vec![]).unwrap_err().line, 0);
    let bad = Hinger::from_boards(vec![vec![vec![1]], vec![vec![1, 1], vec![1]]]).unwrap_err();
    assert_eq!(bad.line, 2);
    assert!(bad.message.starts_with("board 1:"), "{bad}");
    assert!(Hinger::from_boards(vec![vec![vec![1]], vec![]]).is_err());
}

#[test]
fn random_starts_depend_on_seed_and_start_only() {
    let game = Hinger::random_starts(4, 5, 0.6, 17).unwrap();
    let again = Hinger::random_starts(4, 5, 0.6, 17).unwrap();
    let other_seed = Hinger::random_starts(4, 5, 0.6, 18).unwrap();
    let boards: Vec<_> = (0..20).map(|i| game.start_position(i).grid()).collect();
    for (i, b) in boards.iter().enumerate() {
        assert_eq!(b, &again.start_position(i as u64).grid());
        assert_eq!(b.len(), 4);
        assert!(b.iter().all(|r| r.len() == 5 && r.iter().all(|&c| c <= 1)));
        assert!(b.iter().flatten().any(|&c| c == 1), "empty board {i}");
    }
    assert_eq!(
        boards[3],
        random_grid(4, 5, 0.6, start_seed(17, 3)),
        "a non-empty first draw is kept as drawn"
    );
    // Twenty boards of 20 cells: distinct draws, and distinct from another seed's.
    let distinct: std::collections::BTreeSet<_> = boards.iter().collect();
    assert!(distinct.len() >= 18, "{}", distinct.len());
    let differ = (0..20)
        .filter(|&i| other_seed.start_position(i).grid() != boards[i as usize])
        .count();
    assert!(differ >= 18, "{differ}");
    assert_eq!(game.initial(), game.start_position(0));
    assert_eq!(game.start_position(5).to_move(), Side::First);
    assert_ne!(start_seed(1, 0), start_seed(0, 1));
}

#[test]
fn sparse_random_starts_are_redrawn_until_a_counter_shows() {
    // At density 0.1 two 2 x 2 draws in three are empty; a start never is.
    let game = Hinger::random_starts(2, 2, 0.1, 5).unwrap();
    for start in 0..50 {
        assert!(game.start_position(start).counters() > 0, "start {start}");
    }
    let empty = Hinger::random_starts(2, 3, 0.0, 5).unwrap();
    assert_eq!(empty.start_position(4).counters(), 0);
    let full = Hinger::random_starts(2, 3, 1.0, 5).unwrap();
    assert_eq!(full.start_position(9).counters(), 6);
}

#[test]
fn bad_random_start_parameters_are_errors() {
    assert!(Hinger::random_starts(0, 3, 0.5, 1).is_err());
    assert!(Hinger::random_starts(3, 0, 0.5, 1).is_err());
    let e = Hinger::random_starts(3, 3, 1.5, 1).unwrap_err();
    assert!(e.message.contains("1.5"), "{e}");
    assert!(Hinger::random_starts(3, 3, f64::NAN, 1).is_err());
    assert!(Hinger::random_starts(3, 3, -0.1, 1).is_err());
}

#[test]
fn the_referee_plays_from_the_start_number() {
    use crate::bots::open_player;
    use crate::bots::spec::BotSpec;
    use crate::referee::{MatchConfig, play_game};
    let boards = vec![vec![vec![1, 1, 1]], vec![vec![1, 0, 1], vec![0, 1, 0]]];
    let game = Hinger::from_boards(boards.clone()).unwrap();
    for start in 0..2u64 {
        let mut a = open_player(&BotSpec::Builtin("random".into()), &game).unwrap();
        let mut b = open_player(&BotSpec::Builtin("random".into()), &game).unwrap();
        let mut first = None;
        let config = MatchConfig {
            start,
            ..MatchConfig::default()
        };
        play_game(
            &game,
            [a.as_mut(), b.as_mut()],
            ["a", "b"],
            &config,
            &mut |event| {
                if let crate::referee::Event::Started { state } = event {
                    first = Some(state.grid());
                }
            },
        );
        assert_eq!(first.as_ref(), Some(&boards[start as usize]));
    }
}

#[test]
fn a_board_without_counters_is_drawn_before_anyone_is_asked() {
    use crate::engines::Scripted;
    use crate::referee::{MatchConfig, play_game};
    for game in [
        Hinger::new(vec![vec![0, 0], vec![0, 0]]).unwrap(),
        Hinger::random_starts(3, 3, 0.0, 5).unwrap(),
    ] {
        // Asked, either bot would send an illegal reply and lose.
        let (mut a, mut b) = (Scripted(json!(null)), Scripted(json!(null)));
        let record = play_game(
            &game,
            [&mut a, &mut b],
            ["a", "b"],
            &MatchConfig::default(),
            &mut |_| {},
        );
        assert_eq!(record.winner, None);
        assert_eq!(record.reason, "all_removed");
        assert_eq!(record.plies, 0);
        assert!(record.moves.is_empty());
    }
}
