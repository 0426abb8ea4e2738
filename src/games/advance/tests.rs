//! The rules of docs/rules/advance.md, one position per rule.

use super::board::{Kind, MOVES_PER_SIDE, START};
use super::*;
use crate::games::ReasonCode;
use crate::games::perft::perft;
use serde_json::json;

/// A position from 9 rows, `side` to move.
fn pos(rows: [&str; 9], side: Side) -> State {
    parse_board(&rows.join("\n"), side).expect("a valid test board")
}

/// The targets of the legal moves of the piece on (r, c), with their kinds, sorted.
fn moves_from(state: &State, r: usize, c: usize) -> Vec<(usize, usize, Kind)> {
    let mut all = Vec::new();
    state.legal_moves(&mut all);
    let mut out: Vec<_> = all
        .into_iter()
        .filter(|m| m.from_rc() == (r, c))
        .map(|m| (m.to_rc().0, m.to_rc().1, m.kind))
        .collect();
    out.sort_by_key(|&(r, c, k)| (r, c, k as u8));
    out
}

fn has(state: &State, from: (usize, usize), to: (usize, usize), kind: Kind) -> bool {
    moves_from(state, from.0, from.1).contains(&(to.0, to.1, kind))
}

const EMPTY_ROW: &str = ".........";

#[test]
fn perft_from_the_start() {
    let s = Advance.initial();
    assert_eq!(perft(&Advance, &s, 1), 43);
    assert_eq!(perft(&Advance, &s, 2), 1849);
}

#[test]
fn zombie_steps_captures_and_leaps_forward_only() {
    // White Zombie on (5,4): ahead are row 4. Enemy on (4,3); enemy two ahead at (3,6)
    // with (4,5) empty: a diagonal leap; (3,4) straight ahead two with (4,4) empty.
    let s = pos(
        [
            "g........",
            EMPTY_ROW,
            EMPTY_ROW,
            "....b.b..",
            "...b.....",
            "....Z....",
            EMPTY_ROW,
            EMPTY_ROW,
            "G........",
        ],
        WHITE,
    );
    let got = moves_from(&s, 5, 4);
    assert_eq!(
        got,
        vec![
            (3, 4, Kind::Step),
            (3, 6, Kind::Step),
            (4, 3, Kind::Step),
            (4, 4, Kind::Step),
            (4, 5, Kind::Step),
        ]
    );
    // The leap needs the square between empty, and only ever captures.
    let blocked = pos(
        [
            "g........",
            EMPTY_ROW,
            EMPTY_ROW,
            "....b....",
            "....#....",
            "....Z....",
            EMPTY_ROW,
            EMPTY_ROW,
            "G........",
        ],
        WHITE,
    );
    assert!(!has(&blocked, (5, 4), (3, 4), Kind::Step));
    assert!(!has(&s, (5, 4), (3, 2), Kind::Step));
    // Black moves down; a Zombie on its far row has no move; no Zombie captures a wall.
    let far = pos(
        [
            "g...Z....",
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            "...#.....",
            "....z....",
            EMPTY_ROW,
            EMPTY_ROW,
            "G.......z",
        ],
        BLACK,
    );
    assert!(moves_from(&far, 8, 8).is_empty());
    assert_eq!(
        moves_from(&far, 5, 4),
        vec![(6, 3, Kind::Step), (6, 4, Kind::Step), (6, 5, Kind::Step)]
    );
    let white_far = pos(
        [
            "g...Z....",
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            "G........",
        ],
        WHITE,
    );
    assert!(moves_from(&white_far, 0, 4).is_empty());
}

#[test]
fn builder_moves_captures_and_builds_walls() {
    let s = pos(
        [
            "g........",
            EMPTY_ROW,
            EMPTY_ROW,
            "...z#....",
            "....B....",
            "...Z.....",
            EMPTY_ROW,
            EMPTY_ROW,
            "G........",
        ],
        WHITE,
    );
    let got = moves_from(&s, 4, 4);
    // 8 neighbours: wall (3,4) and own Zombie (5,3) excluded; enemy (3,3) captured only.
    assert!(got.contains(&(3, 3, Kind::Step)));
    assert!(!got.contains(&(3, 3, Kind::Build)));
    assert!(
        !got.iter()
            .any(|&(r, c, _)| (r, c) == (3, 4) || (r, c) == (5, 3))
    );
    assert_eq!(got.iter().filter(|m| m.2 == Kind::Build).count(), 5);
    let mut after = s.clone();
    let build = Move {
        from: 4 * 9 + 4,
        to: 4 * 9 + 5,
        kind: Kind::Build,
    };
    after.play(&build);
    assert_eq!(after.at(4, 5), b'#');
    assert_eq!(after.at(4, 4), b'B');
}

#[test]
fn jester_moves_swaps_and_converts_but_never_captures() {
    let s = pos(
        [
            "g........",
            EMPTY_ROW,
            EMPTY_ROW,
            "...zJ....",
            "...JGm...",
            "....S....",
            EMPTY_ROW,
            EMPTY_ROW,
            "........#",
        ],
        WHITE,
    );
    // The Jester on (3,4): (3,3) a black Zombie -> convert; (4,3) a Jester -> nothing;
    // (4,4) the General (kept out of danger by its Sentinel) -> swap; (4,5) a black
    // Miner -> convert.
    let got = moves_from(&s, 3, 4);
    assert!(got.contains(&(3, 3, Kind::Convert)));
    assert!(got.contains(&(4, 5, Kind::Convert)));
    assert!(got.contains(&(4, 4, Kind::Swap)));
    assert!(!got.iter().any(|&(r, c, _)| (r, c) == (4, 3)));
    // Conversion ignores protection: (4,5)'s Miner is protected by no black Sentinel, but
    // the Jester on (4,3) converts the protected Sentinel's neighbour (5,4) anyway.
    let protected = pos(
        [
            "g........",
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            "...J.....",
            "....s....",
            "....s....",
            EMPTY_ROW,
            "G........",
        ],
        WHITE,
    );
    assert!(protected.protected(5 * 9 + 4));
    assert!(has(&protected, (4, 3), (5, 4), Kind::Convert));
    let mut converted = protected.clone();
    converted.play(&Move {
        from: 4 * 9 + 3,
        to: 5 * 9 + 4,
        kind: Kind::Convert,
    });
    assert_eq!(converted.at(5, 4), b'S');
    // No General is ever converted.
    let near_general = pos(
        [
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            "...Jg....",
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            "G........",
        ],
        WHITE,
    );
    assert!(
        !moves_from(&near_general, 4, 3)
            .iter()
            .any(|m| (m.0, m.1) == (4, 4))
    );
}

#[test]
fn miner_slides_and_takes_the_first_enemy_or_wall() {
    let s = pos(
        [
            "g...z....",
            EMPTY_ROW,
            "....#....",
            EMPTY_ROW,
            ".Z..M..z.",
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            "G........",
        ],
        WHITE,
    );
    let got = moves_from(&s, 4, 4);
    assert!(got.contains(&(2, 4, Kind::Step)), "the wall is taken");
    assert!(
        !got.iter()
            .any(|m| (m.0, m.1) == (1, 4) || (m.0, m.1) == (0, 4))
    );
    assert!(
        got.contains(&(4, 7, Kind::Step)),
        "the first enemy is taken"
    );
    assert!(!got.iter().any(|m| (m.0, m.1) == (4, 8)));
    assert!(
        !got.iter().any(|m| (m.0, m.1) == (4, 1)),
        "own piece stops it"
    );
    assert!(got.contains(&(4, 2, Kind::Step)));
    assert!(got.contains(&(8, 4, Kind::Step)));
    assert_eq!(got.len(), 2 + 3 + 2 + 4);
}

#[test]
fn sentinel_jumps_over_anything() {
    let s = pos(
        [
            "g........",
            EMPTY_ROW,
            "...z.Z...",
            "...###...",
            "...#S#...",
            "...###...",
            EMPTY_ROW,
            EMPTY_ROW,
            "G........",
        ],
        WHITE,
    );
    let got = moves_from(&s, 4, 4);
    assert_eq!(got.len(), 7, "{got:?}");
    assert!(got.contains(&(2, 3, Kind::Step)));
    assert!(!got.iter().any(|m| (m.0, m.1) == (2, 5)));
}

#[test]
fn catapult_steps_without_capturing_and_shoots_over_pieces() {
    let s = pos(
        [
            "g.......G",
            "....z....",
            "..z.#....",
            "....#....",
            "....C....",
            "...z.....",
            "..z......",
            "....b....",
            "........z",
        ],
        WHITE,
    );
    let got = moves_from(&s, 4, 4);
    assert!(got.contains(&(1, 4, Kind::Shoot)), "over the walls");
    assert!(got.contains(&(2, 2, Kind::Shoot)));
    assert!(got.contains(&(6, 2, Kind::Shoot)));
    assert!(got.contains(&(7, 4, Kind::Shoot)));
    assert!(
        !got.iter().any(|m| (m.0, m.1) == (5, 3)),
        "no capture by moving"
    );
    assert!(got.contains(&(4, 3, Kind::Step)) && got.contains(&(5, 4, Kind::Step)));
    assert!(!got.iter().any(|m| (m.0, m.1) == (3, 4)));
    let mut shot = s.clone();
    shot.play(&Move {
        from: 4 * 9 + 4,
        to: 9 + 4,
        kind: Kind::Shoot,
    });
    assert_eq!((shot.at(1, 4), shot.at(4, 4)), (b'.', b'C'));
}

#[test]
fn dragon_never_captures_an_adjacent_piece() {
    let s = pos(
        [
            "g........",
            EMPTY_ROW,
            "....z....",
            EMPTY_ROW,
            "...zD....",
            "....z....",
            EMPTY_ROW,
            EMPTY_ROW,
            "G.......z",
        ],
        WHITE,
    );
    let got = moves_from(&s, 4, 4);
    assert!(got.contains(&(2, 4, Kind::Step)), "two away: captured");
    assert!(
        !got.iter()
            .any(|m| (m.0, m.1) == (4, 3) || (m.0, m.1) == (5, 4))
    );
    assert!(got.contains(&(8, 8, Kind::Step)), "the long diagonal");
}

#[test]
fn sentinels_protect_neighbours_other_sentinels_but_not_themselves() {
    // (4,4) black Zombie next to black Sentinel (4,5); that Sentinel next to another
    // Sentinel (4,6) is protected too; the lone Sentinel (0,4) is not.
    let s = pos(
        [
            "g...s....",
            EMPTY_ROW,
            "....M....",
            EMPTY_ROW,
            "....zss..",
            EMPTY_ROW,
            EMPTY_ROW,
            "....M.M..",
            "G.....M..",
        ],
        WHITE,
    );
    assert!(s.protected(4 * 9 + 4) && s.protected(4 * 9 + 5) && s.protected(4 * 9 + 6));
    assert!(!s.protected(4));
    assert!(!has(&s, (2, 4), (4, 4), Kind::Step));
    assert!(!has(&s, (7, 6), (4, 6), Kind::Step));
    // The Miner on (2,4) cannot reach (0,4): (1,4) empty, (0,4) the lone Sentinel.
    assert!(has(&s, (2, 4), (0, 4), Kind::Step));
    // Walls are never protected.
    let wall = pos(
        [
            "g........",
            EMPTY_ROW,
            EMPTY_ROW,
            "....s....",
            "....#....",
            EMPTY_ROW,
            "....M....",
            EMPTY_ROW,
            "G........",
        ],
        WHITE,
    );
    assert!(has(&wall, (6, 4), (4, 4), Kind::Step));
}

#[test]
fn a_general_protected_by_a_sentinel_is_not_in_danger() {
    let open = pos(
        [
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            "....g....",
            EMPTY_ROW,
            EMPTY_ROW,
            "....M....",
            EMPTY_ROW,
            "G........",
        ],
        BLACK,
    );
    assert!(open.in_danger(BLACK));
    let guarded = pos(
        [
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            "....gs...",
            EMPTY_ROW,
            EMPTY_ROW,
            "....M....",
            EMPTY_ROW,
            "G........",
        ],
        BLACK,
    );
    assert!(!guarded.in_danger(BLACK));
    // Danger ignores whose turn it is, and a side without a General is never in danger.
    let white_to_move = pos(
        [
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            "....g....",
            EMPTY_ROW,
            EMPTY_ROW,
            "....M....",
            EMPTY_ROW,
            ".........",
        ],
        WHITE,
    );
    assert!(white_to_move.in_danger(BLACK) && !white_to_move.in_danger(WHITE));
}

#[test]
fn no_move_into_danger_and_none_that_stays_in_it() {
    // The black General on (3,4) is attacked by the Miner on (6,4): every legal black
    // move must end the danger; stepping along the Miner's file stays in danger.
    let s = pos(
        [
            "z........",
            EMPTY_ROW,
            EMPTY_ROW,
            "....g....",
            EMPTY_ROW,
            EMPTY_ROW,
            "....M....",
            EMPTY_ROW,
            "G........",
        ],
        BLACK,
    );
    let mut moves = Vec::new();
    s.legal_moves(&mut moves);
    assert!(
        !moves.iter().any(|m| m.from_rc() == (0, 0)),
        "the Zombie cannot help"
    );
    assert!(!has(&s, (3, 4), (2, 4), Kind::Step) && !has(&s, (3, 4), (4, 4), Kind::Step));
    assert!(has(&s, (3, 4), (3, 3), Kind::Step));
    for m in &moves {
        assert!(!s.with_move(m).in_danger(BLACK));
    }
    // Moving into danger: a General may not step next to the enemy Builder.
    let quiet = pos(
        [
            "g........",
            EMPTY_ROW,
            EMPTY_ROW,
            "......B..",
            EMPTY_ROW,
            "....G....",
            EMPTY_ROW,
            EMPTY_ROW,
            "........b",
        ],
        WHITE,
    );
    assert!(has(&quiet, (5, 4), (4, 4), Kind::Step));
    let near = pos(
        [
            "g........",
            EMPTY_ROW,
            EMPTY_ROW,
            "......b..",
            EMPTY_ROW,
            "....G....",
            EMPTY_ROW,
            EMPTY_ROW,
            "........b",
        ],
        WHITE,
    );
    assert!(!has(&near, (5, 4), (4, 5), Kind::Step));
    assert!(has(&near, (5, 4), (4, 3), Kind::Step));
}

#[test]
fn a_jester_swapping_with_its_general_moves_the_general() {
    // The white General on (5,4) is attacked along row 5; the Jester on (4,4) swaps with
    // it, which takes the General off the row and is legal.
    let s = pos(
        [
            "g........",
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            "....J....",
            "m...G....",
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
        ],
        WHITE,
    );
    assert!(s.in_danger(WHITE));
    assert!(has(&s, (4, 4), (5, 4), Kind::Swap));
    let after = s.with_move(&Move {
        from: 4 * 9 + 4,
        to: 5 * 9 + 4,
        kind: Kind::Swap,
    });
    assert_eq!((after.at(4, 4), after.at(5, 4)), (b'G', b'J'));
}

#[test]
fn a_side_without_a_legal_move_loses() {
    // Black: General in the corner, walled, attacked by nothing yet but every square
    // around it covered; its only other piece a Zombie on its far row.
    let s = pos(
        [
            "g#.......",
            "##.......",
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            "G.......z",
        ],
        BLACK,
    );
    assert!(!s.has_legal_move());
    assert_eq!(
        Advance.start_outcome(&s),
        Some(Outcome::win(WHITE, "no_legal_move"))
    );
    // A move that leaves the opponent without one wins at once.
    let mut before = pos(
        [
            "g#.......",
            "#........",
            "..B......",
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            "G.......z",
        ],
        WHITE,
    );
    let wall = Move {
        from: 2 * 9 + 2,
        to: 9 + 1,
        kind: Kind::Build,
    };
    assert_eq!(
        Advance.play(&mut before, &wall),
        Some(Outcome::win(WHITE, "no_legal_move"))
    );
    let mut after = Vec::new();
    Advance.legal_moves(&before, &mut after);
    assert!(after.is_empty());
}

/// Plays Builder steps within each side's two home rows (no material changes) until the
/// game ends.
fn shuffle_to_the_end(mut s: State) -> (u32, Outcome) {
    let back_and_forth = |s: &State| {
        let home = if s.to_move() == WHITE { 7..=8 } else { 0..=1 };
        let mut moves = Vec::new();
        s.legal_moves(&mut moves);
        moves
            .into_iter()
            .find(|m| {
                m.kind == Kind::Step
                    && s.cell(m.from as usize).eq_ignore_ascii_case(&b'b')
                    && home.contains(&m.to_rc().0)
            })
            .expect("a Builder step")
    };
    loop {
        let mv = back_and_forth(&s);
        if let Some(outcome) = s.play(&mv) {
            return (s.ply(), outcome);
        }
    }
}

#[test]
fn after_a_hundred_moves_each_material_decides_or_ties() {
    let even = pos(
        [
            "g.......b",
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            "G.......B",
        ],
        WHITE,
    );
    assert_eq!(
        shuffle_to_the_end(even),
        (2 * MOVES_PER_SIDE, Outcome::tie("material_tie"))
    );
    let black_ahead = pos(
        [
            "g.......b",
            "......z..",
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            EMPTY_ROW,
            "G.......B",
        ],
        WHITE,
    );
    assert_eq!(
        shuffle_to_the_end(black_ahead),
        (2 * MOVES_PER_SIDE, Outcome::win(BLACK, "material"))
    );
}

#[test]
fn replies_are_moves_or_boards() {
    let s = Advance.initial();
    let zombie = json!([[7, 1], [6, 1]]);
    let mv = Advance.parse_move(&s, &zombie).expect("a legal step");
    assert_eq!(Advance.move_to_wire(&mv), zombie);
    let build = json!([[7, 0], [6, 0], "build"]);
    let mv = Advance.parse_move(&s, &build).expect("a legal wall");
    assert_eq!(mv.kind, Kind::Build);
    assert_eq!(Advance.move_to_wire(&mv), build);
    let after = s.with_move(&mv);
    assert_eq!(
        Advance.parse_move(&s, &Advance.encode_board(&after)),
        Ok(mv)
    );
    let same = Advance
        .parse_move(&s, &Advance.encode_board(&s))
        .unwrap_err();
    assert_eq!(same.code(), "illegal");
    assert_eq!(
        Advance
            .parse_move(&s, &json!([[7, 1], [5, 1]]))
            .unwrap_err()
            .code(),
        "illegal"
    );
    assert_eq!(
        Advance.parse_move(&s, &json!(3)).unwrap_err().code(),
        "wrong_shape"
    );
    let many_generals = json!(vec!["mjdsgscjm"; 9]);
    assert_eq!(
        Advance.parse_move(&s, &many_generals).unwrap_err().code(),
        "bad_board"
    );
}

#[test]
fn board_files_tolerate_crlf_and_name_bad_lines() {
    let crlf = START.replace('\n', "\r\n");
    assert_eq!(parse_board(&crlf, WHITE).unwrap(), Advance.initial());
    let unterminated = START.trim_end();
    assert_eq!(parse_board(unterminated, WHITE).unwrap(), Advance.initial());
    let bad = START.replacen("bzzzzzzzb", "bzzzxzzzb", 1);
    let e = parse_board(&bad, WHITE).unwrap_err();
    assert_eq!(e.line, 2);
    assert!(e.message.contains("`x`"), "{}", e.message);
    let short = START.replacen("bzzzzzzzb", "bzzzzzzz", 1);
    assert_eq!(parse_board(&short, WHITE).unwrap_err().line, 2);
    assert_eq!(parse_board("", WHITE).unwrap_err().line, 0);
}

#[test]
fn danger_agrees_with_its_definition_along_random_games() {
    use rand::{RngExt, SeedableRng};
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(11);
    let (mut checked, mut dangers) = (0, 0);
    for _ in 0..30 {
        let mut s = Advance.initial();
        for _ in 0..120 {
            for side in [WHITE, BLACK] {
                assert_eq!(
                    s.in_danger(side),
                    s.in_danger_by_moves(side),
                    "{}",
                    s.render()
                );
                checked += 1;
                dangers += usize::from(s.in_danger(side));
            }
            let mut moves = Vec::new();
            s.legal_moves(&mut moves);
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.random_range(0..moves.len())];
            if s.play(&mv).is_some() {
                break;
            }
        }
    }
    assert!(
        checked > 1000 && dangers > 20,
        "{checked} positions, {dangers} in danger"
    );
}
