//! Built-in Advance bots: the course's graded bots `grade4` to `grade7`, exactly the
//! choice rules of the course's levels (docs/rules/advance.md), and the generic engines
//! with an Advance heuristic (material, then the Zombies' progress).
//!
//! The level rules are public functions because the grader judges a bot's answer with the
//! same rules: `winning_moves` (level 5), [`level6_moves`] and `level7_best`.

use super::{Engine, Heuristic, near_the_end};
use crate::games::Side;
use crate::games::advance::board::{CELLS, EMPTY, MOVES_PER_SIDE, colour, value};
use crate::games::advance::{Advance, Kind, Move, State};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Duration;

/// Level 7's score of a move after which the opponent can win at once (negated: after
/// which the bot can win at once on its answer). Far beyond any material difference.
pub(crate) const DECISIVE: i32 = 1_000;

/// The board after `mv`, the opponent to move (no counters: the level rules look at
/// boards only).
fn after(state: &State, mv: &Move) -> State {
    state.with_move(mv)
}

fn legal(state: &State) -> Vec<Move> {
    let mut moves = Vec::new();
    state.legal_moves(&mut moves);
    moves
}

/// Whether `mv` wins at once: the opponent is left without a legal move.
pub fn wins_at_once(state: &State, mv: &Move) -> bool {
    !state.with_move(mv).has_legal_move()
}

/// Level 5: the moves that win at once.
pub(crate) fn winning_moves(state: &State) -> Vec<Move> {
    legal(state)
        .into_iter()
        .filter(|mv| wins_at_once(state, mv))
        .collect()
}

/// The mover's material minus the opponent's after `mv`.
pub(crate) fn material_after(state: &State, mv: &Move) -> i32 {
    let mut next = state.clone();
    next.apply_board(mv);
    next.material_difference(state.to_move())
}

/// Level 6: the moves of maximal material difference for the mover after the move (the
/// course applies it where no move wins at once), and that difference.
pub fn level6_moves(state: &State) -> (Vec<Move>, i32) {
    best_by(legal(state), |mv| material_after(state, mv))
}

fn best_by(moves: Vec<Move>, mut score: impl FnMut(&Move) -> i32) -> (Vec<Move>, i32) {
    let mut best = Vec::new();
    let mut top = i32::MIN;
    for mv in moves {
        let s = score(&mv);
        if s > top {
            top = s;
            best.clear();
        }
        if s == top {
            best.push(mv);
        }
    }
    (best, top)
}

/// Level 7's score of the level-6 move `mv`: the opponent answers by the level-6 rule
/// (the worst of its tied replies for us), we answer that by the level-6 rule, and the
/// material difference after both counts; a reply that wins at once scores
/// `-DECISIVE`, an answer that wins at once `DECISIVE`.
pub(crate) fn level7_score(state: &State, mv: &Move) -> i32 {
    let me = state.to_move();
    let s1 = after(state, mv);
    let replies = legal(&s1);
    if replies.is_empty() {
        return DECISIVE;
    }
    if replies.iter().any(|r| wins_at_once(&s1, r)) {
        return -DECISIVE;
    }
    let (tied, _) = best_by(replies, |r| material_after(&s1, r));
    tied.iter()
        .map(|r| {
            let s2 = after(&s1, r);
            let answers = legal(&s2);
            if answers.iter().any(|a| wins_at_once(&s2, a)) {
                return DECISIVE;
            }
            answers
                .iter()
                .map(|a| {
                    let mut s3 = s2.clone();
                    s3.apply_board(a);
                    s3.material_difference(me)
                })
                .max()
                .unwrap_or(-DECISIVE)
        })
        .min()
        .unwrap_or(DECISIVE)
}

/// Level 7: among the level-6 moves, those of the best level-7 score, and that score.
pub(crate) fn level7_best(state: &State) -> (Vec<Move>, i32) {
    let (six, _) = level6_moves(state);
    best_by(six, |mv| level7_score(state, mv))
}

/// The moves a course bot of `grade` (4 to 7) chooses among: every legal move (4); a
/// winning move when there is one, else every move (5), else the level-6 moves (6) or
/// the best level-7 moves (7).
pub(crate) fn grade_choices(state: &State, grade: u8) -> Vec<Move> {
    if grade <= 4 {
        return legal(state);
    }
    let wins = winning_moves(state);
    if !wins.is_empty() {
        return wins;
    }
    match grade {
        5 => legal(state),
        6 => level6_moves(state).0,
        _ => level7_best(state).0,
    }
}

/// A course bot of one grade: the grade's rule, ties broken by its seeded generator.
pub(crate) struct GradeBot {
    grade: u8,
    rng: ChaCha8Rng,
}

impl GradeBot {
    pub(crate) fn new(grade: u8, seed: u64) -> GradeBot {
        GradeBot {
            grade,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Engine<Advance> for GradeBot {
    fn choose(&mut self, _game: &Advance, state: &State, _budget: Duration) -> Option<Move> {
        let mut choices = grade_choices(state, self.grade);
        if choices.is_empty() {
            return None;
        }
        let pick = self.rng.random_range(0..choices.len());
        Some(choices.swap_remove(pick))
    }
}

/// splitmix64's finaliser: spreads every input bit over the whole word.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What a move takes from the opponent: the captured, shot or converted piece's value.
fn gain(state: &State, mv: &Move) -> i32 {
    let target = state.cell(mv.to as usize);
    match mv.kind {
        Kind::Step | Kind::Shoot if colour(target).is_some() => value(target),
        Kind::Convert => 2 * value(target),
        _ => 0,
    }
}

impl Heuristic for Advance {
    fn evaluate(&self, state: &State, perspective: Side) -> i32 {
        let mut progress = 0;
        for cell in 0..CELLS {
            let p = state.cell(cell);
            let row = (cell / 9) as i32;
            match p {
                b'Z' => progress += 8 - row,
                b'z' => progress -= row,
                _ => {}
            }
        }
        let white = 100 * state.material_difference(crate::games::advance::WHITE) + progress;
        if perspective == crate::games::advance::WHITE {
            white
        } else {
            -white
        }
    }

    /// The cells and the side to move, and near ply 200, where the game is adjudicated,
    /// the ply ([`near_the_end`]): the search's table keeps a result played to the end as
    /// good at any depth, which the same cells nearer the end are not.
    fn hash(&self, state: &State) -> u64 {
        let side = (state.to_move() == Side::Second) as u64;
        let ply = match near_the_end(state.ply(), u64::from(2 * MOVES_PER_SIDE)) {
            true => u64::from(state.ply()) << 8,
            false => 0,
        };
        (0..CELLS)
            .filter(|&c| state.cell(c) != EMPTY)
            .fold(mix(side << 63 | ply | 0xAD), |h, c| {
                h ^ mix((c as u64) << 8 | u64::from(state.cell(c)))
            })
    }

    fn order_key(&self, state: &State, mv: &Move) -> i32 {
        gain(state, mv)
    }

    fn is_tactical(&self, state: &State, mv: &Move) -> bool {
        gain(state, mv) > 0
    }

    fn builtin_roster(&self) -> &'static [&'static str] {
        &[
            "random",
            "grade4",
            "grade5",
            "greedy",
            "grade6",
            "grade7",
            "alphabeta",
        ]
    }

    fn own_builtin(&self, name: &str, seed: u64) -> Option<Box<dyn Engine<Self>>> {
        let grade = match name {
            "grade4" => 4,
            "grade5" => 5,
            "grade6" => 6,
            "grade7" => 7,
            _ => return None,
        };
        Some(Box::new(GradeBot::new(grade, seed)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engines::Builtins;
    use crate::games::Game;
    use crate::games::advance::{WHITE, parse_board};

    fn white(rows: &str) -> State {
        parse_board(rows, WHITE).expect("a worked example")
    }

    fn rc(mv: &Move) -> ((usize, usize), (usize, usize)) {
        (mv.from_rc(), mv.to_rc())
    }

    #[test]
    fn worked_example_level4_the_only_move_takes_the_dragon() {
        let s = white(
            "........g\n.........\n.........\n.........\n.........\n.....d...\n.....Z...\n\
             ........#\n.......#G\n",
        );
        let all = grade_choices(&s, 4);
        assert_eq!(all.len(), 1);
        assert_eq!(rc(&all[0]), ((6, 5), (5, 5)));
    }

    #[test]
    fn worked_example_level5_the_builder_steps_up_left_and_wins() {
        let s = white(
            "b#g.S.cmb\nM......sj\n..m.B..##\n.........\n........z\n.Jz.#....\n..Z#.z..#\n\
             C..#z.JZB\n.G......s\n",
        );
        let wins = winning_moves(&s);
        assert!(
            wins.iter()
                .any(|m| rc(m) == ((2, 4), (1, 3)) && m.kind == Kind::Step),
            "{wins:?}"
        );
        for m in &wins {
            assert!(wins_at_once(&s, m));
        }
        assert_eq!(grade_choices(&s, 5), wins);
    }

    #[test]
    fn worked_example_level6_the_miner_takes_the_miner() {
        let s = white(
            "d.bz..cmj\nDj.#...b#\nm.z.g.zs.\n......#z#\n.....Z#.Z\n.#..S...#\n..Z.zZ...\n\
             ...BZ..Z.\nM.CSMG.J.\n",
        );
        assert!(winning_moves(&s).is_empty());
        let (best, gain) = level6_moves(&s);
        assert_eq!(gain, s.material_difference(WHITE) + 4);
        assert_eq!(best.len(), 1);
        assert_eq!(rc(&best[0]), ((8, 0), (2, 0)));
    }

    #[test]
    fn worked_example_level7_the_miner_climbs_to_the_top_row() {
        let s = white(
            "..j....c.\n.........\n##b.g....\n.........\n.#.......\n#.#...#..\n.G#......\n\
             #......##\n.....M...\n",
        );
        let mut all = Vec::new();
        s.legal_moves(&mut all);
        assert_eq!(all.len(), 20);
        let (six, _) = level6_moves(&s);
        assert_eq!(six.len(), 20, "all materially neutral");
        let (best, score) = level7_best(&s);
        assert_eq!(best.len(), 1, "{best:?}");
        assert_eq!(rc(&best[0]), ((8, 5), (0, 5)));
        assert!(score > s.material_difference(WHITE));
    }

    #[test]
    fn grade_bots_are_named_and_follow_their_level() {
        let game = Advance;
        crate::engines::assert_builtins_play_legal_moves(&game, &game.initial());
        let s = white(
            "d.bz..cmj\nDj.#...b#\nm.z.g.zs.\n......#z#\n.....Z#.Z\n.#..S...#\n..Z.zZ...\n\
             ...BZ..Z.\nM.CSMG.J.\n",
        );
        for (name, seed) in [("grade6", 1), ("grade7", 2), ("grade6", 3)] {
            let mut bot = game.builtin(name, seed).expect("a grade bot");
            let mv = bot
                .choose(&game, &s, Duration::from_secs(1))
                .expect("a move");
            assert_eq!(rc(&mv), ((8, 0), (2, 0)), "{name}");
        }
    }

    #[test]
    fn alphabeta_beats_grade4_from_the_start() {
        let game = Advance;
        for (side, seed) in [(Side::First, 1), (Side::Second, 2)] {
            let strong = Box::new(crate::engines::AlphaBeta::<Advance>::with_limits(
                seed,
                crate::engines::Limits::depth(2),
            ));
            let weak = game.builtin("grade4", seed).expect("grade4");
            assert_eq!(
                crate::engines::duel(&game, strong, weak, side, seed),
                Some(true)
            );
        }
    }

    #[test]
    fn the_search_table_tells_the_same_cells_apart_by_ply_near_the_end() {
        let game = Advance;
        let start = State::initial();
        let mut state = start.clone();
        // Each side's left builder steps out and back: the start's cells every four plies.
        let mut hashes = Vec::new();
        while state.ply() <= 80 {
            hashes.push((state.ply(), game.hash(&state)));
            for (from, to) in [
                ((7, 0), (6, 0)),
                ((1, 0), (2, 0)),
                ((6, 0), (7, 0)),
                ((2, 0), (1, 0)),
            ] {
                let mut moves = Vec::new();
                game.legal_moves(&state, &mut moves);
                let mv = moves
                    .into_iter()
                    .find(|m| rc(m) == (from, to))
                    .expect("the builder's step is legal");
                assert_eq!(game.play(&mut state, &mv), None);
            }
            assert_eq!(
                (state.rows(), state.to_move()),
                (start.rows(), start.to_move())
            );
        }
        let hash_at = |ply| hashes.iter().find(|(p, _)| *p == ply).map(|(_, h)| *h);
        // The game is adjudicated at ply 200: from ply 72 on a search reaches it, and the
        // same cells nearer it are another position.
        assert_ne!(hash_at(76), hash_at(80));
        assert_ne!(hash_at(72), hash_at(76));
        // Before, no search reaches it, and the table finds the repeated cells.
        assert_eq!(hash_at(0), hash_at(4));
        assert_eq!(hash_at(0), hash_at(64));
    }
}
