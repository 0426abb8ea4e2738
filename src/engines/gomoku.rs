//! Built-in Gomoku bots (random, greedy, alphabeta) and the Gomoku knowledge behind
//! [`Heuristic`]: every term is about the 96 five-cell windows, the only places a game
//! can be won.
//!
//! - A window that holds stones of one colour only is still open for that colour, and
//!   worth more the fuller it is; a mixed window is dead for both.
//! - Threats decide before material: a side to move with a four (a window one stone from
//!   five) wins on its move, and a side facing two completion cells at once cannot block
//!   both. The evaluation scores those as nearly decided, so that even the one-ply greedy
//!   bot blocks a four and never leaves one to its opponent.
//! - Move ordering tries the cell that completes a five, then the cell that blocks one,
//!   then cells in many open windows of either colour (attack and defence at once).

use super::Heuristic;
use crate::games::Side;
use crate::games::gomoku::board::{WINDOWS, windows_through};
use crate::games::gomoku::{Gomoku, Move, State};

/// Worth of an open window holding 0..=4 stones of one colour.
const OPEN: [i32; 5] = [0, 1, 8, 60, 400];
/// A threat that the side to move cannot answer, short of the search's decided scores.
const DECIDED: i32 = 100_000;
/// Ordering: a move that adds to an open window holding this many of the mover's stones.
const ATTACK: [i32; 5] = [1, 4, 24, 240, 1_000_000];
/// Ordering: a move into an open window holding this many of the opponent's stones.
const DEFEND: [i32; 5] = [0, 3, 16, 180, 500_000];

/// The empty cells that would complete a five for `mine` against `theirs`.
fn completions(mine: u64, theirs: u64) -> u64 {
    WINDOWS
        .iter()
        .filter(|&&mask| theirs & mask == 0 && (mine & mask).count_ones() == 4)
        .fold(0, |acc, &mask| acc | (mask & !mine))
}

/// Open windows weighted by how full they are: `mine`'s minus `theirs`'.
fn window_balance(mine: u64, theirs: u64) -> i32 {
    WINDOWS
        .iter()
        .map(
            |&mask| match ((mine & mask).count_ones(), (theirs & mask).count_ones()) {
                (m, 0) => OPEN[m.min(4) as usize],
                (0, t) => -OPEN[t.min(4) as usize],
                _ => 0,
            },
        )
        .sum()
}

/// The value of `state` for the side to move.
fn mover_score(state: &State) -> i32 {
    let me = state.to_move();
    let (mine, theirs) = (state.stones(me), state.stones(me.other()));
    if completions(mine, theirs) != 0 {
        return DECIDED;
    }
    let against = completions(theirs, mine);
    if against.count_ones() >= 2 {
        return -DECIDED;
    }
    // Having the move is worth about one more stone in an open window.
    window_balance(mine, theirs) + OPEN[2]
}

/// splitmix64's finaliser: spreads every input bit over the whole word.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Heuristic for Gomoku {
    fn evaluate(&self, state: &State, perspective: Side) -> i32 {
        let score = mover_score(state);
        if perspective == state.to_move() {
            score
        } else {
            -score
        }
    }

    /// The stones and the side to move: the ply count follows from the stones.
    fn hash(&self, state: &State) -> u64 {
        let side = (state.to_move() == Side::Second) as u64;
        mix(state.white() ^ mix(state.black() ^ mix(side)))
    }

    fn order_key(&self, state: &State, mv: &Move) -> i32 {
        let me = state.to_move();
        let (mine, theirs) = (state.stones(me), state.stones(me.other()));
        windows_through(mv.cell())
            .iter()
            .map(|&w| {
                let mask = WINDOWS[w as usize];
                let (m, t) = ((mine & mask).count_ones(), (theirs & mask).count_ones());
                match (m, t) {
                    (m, 0) => ATTACK[m.min(4) as usize],
                    (0, t) => DEFEND[t.min(4) as usize],
                    _ => 0,
                }
            })
            .fold(0i32, i32::saturating_add)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::Limits;
    use crate::engines::{AlphaBeta, Builtins, Engine, Greedy};
    use crate::games::gomoku::{BLACK, WHITE, parse_rows};
    use crate::games::{Game, Outcome};
    use std::time::Duration;

    const LONG: Duration = Duration::from_secs(3600);

    fn board(rows: &[&str], side: Side) -> State {
        parse_rows(&rows.join("\n"), side).expect("a valid board")
    }

    fn wire(game: &Gomoku, mv: Option<Move>) -> serde_json::Value {
        game.move_to_wire(&mv.expect("a move"))
    }

    /// Both sides have a four; white is to move and must win rather than block.
    fn both_fours() -> State {
        board(
            &[
                "WWWW....", "BBBB....", "........", "........", "........", "........", "........",
                "........",
            ],
            WHITE,
        )
    }

    /// White threatens five through the gap of a split four; black must fill it.
    fn split_four() -> State {
        board(
            &[
                "........", "........", "........", ".WW.WW..", "........", ".....B..", "..B.....",
                "......B.",
            ],
            BLACK,
        )
    }

    #[test]
    fn evaluation_is_zero_sum_and_hash_sees_the_side_to_move() {
        let game = Gomoku;
        let s = split_four();
        assert_eq!(game.evaluate(&s, WHITE), -game.evaluate(&s, BLACK));
        // Black to move faces one completion cell: not decided yet.
        assert!(game.evaluate(&s, BLACK).abs() < DECIDED);
        let flipped = parse_rows(&s.rows().join("\n"), WHITE).unwrap();
        assert_ne!(game.hash(&s), game.hash(&flipped));
        assert_eq!(game.evaluate(&flipped, WHITE), DECIDED);
    }

    #[test]
    fn builtins_are_named_and_play_legal_moves() {
        crate::engines::assert_builtins_play_legal_moves(&Gomoku, &Gomoku.initial());
    }

    #[test]
    fn alphabeta_completes_its_own_five() {
        let game = Gomoku;
        for seed in 0..4 {
            let mut ab = AlphaBeta::<Gomoku>::with_limits(seed, Limits::depth(4));
            let mv = ab.choose(&game, &both_fours(), LONG);
            assert_eq!(wire(&game, mv), serde_json::json!([0, 4]), "seed {seed}");
        }
        let mut s = both_fours();
        let mv =
            game.builtin("alphabeta", 1)
                .unwrap()
                .choose(&game, &s, Duration::from_millis(200));
        assert_eq!(
            game.play(&mut s, &mv.unwrap()),
            Some(Outcome::win(WHITE, "five_in_row"))
        );
    }

    #[test]
    fn alphabeta_blocks_a_four() {
        let game = Gomoku;
        for seed in 0..4 {
            let mut ab = AlphaBeta::<Gomoku>::with_limits(seed, Limits::depth(4));
            let mv = ab.choose(&game, &split_four(), LONG);
            assert_eq!(wire(&game, mv), serde_json::json!([3, 3]), "seed {seed}");
        }
        let edge = board(
            &[
                "........", "........", "........", "........", "........", "WWWW....", "BB......",
                ".B......",
            ],
            BLACK,
        );
        let mv =
            game.builtin("alphabeta", 2)
                .unwrap()
                .choose(&game, &edge, Duration::from_millis(200));
        assert_eq!(wire(&game, mv), serde_json::json!([5, 4]));
    }

    #[test]
    fn alphabeta_meets_an_open_three_before_it_becomes_an_open_four() {
        // White's open three on row 3 (columns 2..4) becomes an open four, which no single
        // stone stops, unless black takes a cell next to it now (a stone one further off
        // still leaves room for an open four on the other side).
        let s = board(
            &[
                "........", "........", "........", "..WWW...", "........", "......B.", ".B......",
                "........",
            ],
            BLACK,
        );
        let game = Gomoku;
        let mut ab = AlphaBeta::<Gomoku>::with_limits(3, Limits::depth(5));
        let mv = ab.choose(&game, &s, LONG).expect("a move");
        let reply = game.move_to_wire(&mv);
        assert!(
            [[3, 1], [3, 5]]
                .iter()
                .any(|c| serde_json::json!(c) == reply),
            "black played {reply}"
        );
    }

    #[test]
    fn greedy_wins_and_blocks_too() {
        let game = Gomoku;
        let mut g = Greedy::<Gomoku>::new(7);
        assert_eq!(
            wire(&game, g.choose(&game, &both_fours(), LONG)),
            serde_json::json!([0, 4])
        );
        assert_eq!(
            wire(&game, g.choose(&game, &split_four(), LONG)),
            serde_json::json!([3, 3])
        );
    }

    #[test]
    fn whole_games_through_the_referee() {
        use crate::bots::inprocess::InProcess;
        use crate::referee::{MatchConfig, play_game};
        for seed in 0..6 {
            let game = Gomoku;
            let mut a = InProcess::new("random", game.builtin("random", seed).unwrap());
            let mut b = InProcess::new("greedy", game.builtin("greedy", seed + 1).unwrap());
            let config = MatchConfig {
                seed,
                ..MatchConfig::default()
            };
            let record = play_game(&game, [&mut a, &mut b], ["a", "b"], &config, &mut |_| {});
            assert_eq!(record.game, game.name());
            assert!(
                ["five_in_row", "no_window_left", "board_full"].contains(&record.reason.as_str()),
                "seed {seed}: {}",
                record.reason
            );
            assert_eq!(
                record.reason == "five_in_row" || record.reason == "hinger",
                record.winner.is_some()
            );
            assert!(record.moves.iter().all(|m| m.verdict == "move"));
            assert!(record.final_board.is_array());
        }
    }

    #[test]
    fn an_illegal_reply_loses_through_the_referee() {
        crate::engines::assert_illegal_reply_loses(
            &Gomoku,
            serde_json::json!([8, 0]),
            "out_of_range",
        );
    }
}

#[cfg(test)]
mod strength {
    use super::*;
    use crate::engines::{AlphaBeta, Engine, Greedy, RandomMover};

    use crate::engines::Limits;

    /// Wins of `strong` over `weak` in games with both colours, by seed.
    fn wins(
        strong: impl Fn(u64) -> Box<dyn Engine<Gomoku>>,
        weak: impl Fn(u64) -> Box<dyn Engine<Gomoku>>,
        games: u64,
    ) -> (u32, u32) {
        let (mut won, mut lost) = (0, 0);
        for seed in 0..games {
            for strong_side in Side::BOTH {
                match crate::engines::duel(
                    &Gomoku,
                    strong(seed),
                    weak(seed + 100),
                    strong_side,
                    seed,
                ) {
                    Some(true) => won += 1,
                    Some(false) => lost += 1,
                    None => {}
                }
            }
        }
        (won, lost)
    }

    #[test]
    fn greedy_beats_random_and_alphabeta_holds_greedy() {
        let (won, lost) = wins(
            |s| Box::new(Greedy::<Gomoku>::new(s)),
            |s| Box::new(RandomMover::<Gomoku>::new(s)),
            3,
        );
        assert!(
            won >= 5 && lost == 0,
            "greedy vs random: {won} won, {lost} lost"
        );
        let (won, lost) = wins(
            |s| Box::new(AlphaBeta::<Gomoku>::with_limits(s, Limits::nodes(3_000))),
            |s| Box::new(Greedy::<Gomoku>::new(s)),
            2,
        );
        assert!(won > lost, "alphabeta vs greedy: {won} won, {lost} lost");
    }
}
