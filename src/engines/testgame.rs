//! A small m,n,k-game (tic-tac-toe and its bigger cousins) to test the generic engines
//! without any real game: 3x3 is small enough to solve exactly, 7x7 is too big to finish.

use super::{AlphaBeta, Engine, Greedy, Heuristic, Limits, RandomMover, WIN_THRESHOLD};
use crate::games::{BoardError, Game, Outcome, ReasonCode, Side};
use serde_json::{Map, Value};
use std::time::{Duration, Instant};

#[derive(Clone, Debug)]
pub(crate) struct Mnk {
    pub width: usize,
    pub height: usize,
    /// Every straight run of `k` cells, computed once.
    lines: Vec<Vec<usize>>,
}

impl Mnk {
    pub(super) fn new(width: usize, height: usize, k: usize) -> Self {
        Mnk {
            width,
            height,
            lines: Self::runs(width, height, k),
        }
    }

    pub(super) fn tictactoe() -> Self {
        Self::new(3, 3, 3)
    }

    fn lines(&self) -> &[Vec<usize>] {
        &self.lines
    }

    fn runs(width: usize, height: usize, k: usize) -> Vec<Vec<usize>> {
        let mut out = Vec::new();
        let (w, h, k) = (width as i32, height as i32, k as i32);
        for r in 0..h {
            for c in 0..w {
                for (dr, dc) in [(0, 1), (1, 0), (1, 1), (1, -1)] {
                    let (er, ec) = (r + dr * (k - 1), c + dc * (k - 1));
                    if (0..h).contains(&er) && (0..w).contains(&ec) {
                        out.push(
                            (0..k)
                                .map(|i| ((r + dr * i) * w + c + dc * i) as usize)
                                .collect(),
                        );
                    }
                }
            }
        }
        out
    }

    /// A position from rows of `x`, `o` and `.`, with `side` to move.
    pub(super) fn board(&self, rows: &[&str], side: Side) -> MnkState {
        let cells = rows
            .iter()
            .flat_map(|r| r.chars())
            .map(|c| match c {
                'x' => 1,
                'o' => 2,
                _ => 0,
            })
            .collect();
        MnkState {
            cells,
            to_move: side,
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct MnkState {
    /// 0 empty, 1 first player's mark, 2 second's.
    cells: Vec<u8>,
    to_move: Side,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum MnkIllegal {
    #[error("not an empty cell")]
    Bad,
}

impl ReasonCode for MnkIllegal {
    fn code(&self) -> &'static str {
        "bad_cell"
    }
}

fn mark(side: Side) -> u8 {
    side.index() as u8 + 1
}

impl Game for Mnk {
    type State = MnkState;
    type Move = usize;
    type Illegal = MnkIllegal;

    fn name(&self) -> &'static str {
        "mnk"
    }
    fn roles(&self) -> [&'static str; 2] {
        ["x", "o"]
    }
    fn initial(&self) -> MnkState {
        MnkState {
            cells: vec![0; self.width * self.height],
            to_move: Side::First,
        }
    }
    fn parse_board(&self, _text: &str, _side: Side) -> Result<MnkState, BoardError> {
        Err(BoardError {
            line: 0,
            message: "unsupported".into(),
        })
    }
    fn side_to_move(&self, state: &MnkState) -> Side {
        state.to_move
    }
    fn legal_moves(&self, state: &MnkState, out: &mut Vec<usize>) {
        out.extend((0..state.cells.len()).filter(|&i| state.cells[i] == 0));
    }
    fn parse_move(&self, state: &MnkState, reply: &Value) -> Result<usize, MnkIllegal> {
        match reply.as_u64().map(|v| v as usize) {
            Some(i) if state.cells.get(i) == Some(&0) => Ok(i),
            _ => Err(MnkIllegal::Bad),
        }
    }
    fn move_to_wire(&self, mv: &usize) -> Value {
        Value::from(*mv)
    }
    fn play(&self, state: &mut MnkState, mv: &usize) -> Option<Outcome> {
        let me = state.to_move;
        state.cells[*mv] = mark(me);
        state.to_move = me.other();
        if self
            .lines()
            .iter()
            .any(|l| l.contains(mv) && l.iter().all(|&c| state.cells[c] == mark(me)))
        {
            return Some(Outcome::win(me, "line"));
        }
        if state.cells.iter().all(|&c| c != 0) {
            return Some(Outcome::tie("full"));
        }
        None
    }
    fn play_illegal(&self, state: &mut MnkState, _why: &MnkIllegal) -> Option<Outcome> {
        Some(Outcome::win(state.to_move.other(), "illegal"))
    }
    fn encode_board(&self, state: &MnkState) -> Value {
        Value::from(state.cells.clone())
    }
    fn turn_fields(&self, _state: &MnkState) -> Map<String, Value> {
        Map::new()
    }
    fn render(&self, state: &MnkState) -> String {
        format!("{:?}", state.cells)
    }
}

impl Heuristic for Mnk {
    /// Open lines, weighted by how full they are.
    fn evaluate(&self, state: &MnkState, perspective: Side) -> i32 {
        let mut score = 0;
        for line in self.lines() {
            let mine = line
                .iter()
                .filter(|&&c| state.cells[c] == mark(perspective))
                .count() as i32;
            let theirs = line
                .iter()
                .filter(|&&c| state.cells[c] == mark(perspective.other()))
                .count() as i32;
            if theirs == 0 {
                score += mine * mine;
            }
            if mine == 0 {
                score -= theirs * theirs;
            }
        }
        score
    }
    fn hash(&self, state: &MnkState) -> u64 {
        let mut h = 0xcbf2_9ce4_8422_2325u64;
        for &c in state.cells.iter().chain([&(state.to_move.index() as u8)]) {
            h = (h ^ c as u64).wrapping_mul(0x0100_0000_01b3);
        }
        h
    }
    fn order_key(&self, _state: &MnkState, mv: &usize) -> i32 {
        let (r, c) = ((mv / self.width) as i32, (mv % self.width) as i32);
        let (cr, cc) = (self.height as i32 / 2, self.width as i32 / 2);
        -((r - cr).abs() + (c - cc).abs())
    }
}

/// The exact value of a position for the side to move: 1 win, 0 draw, -1 loss.
fn solve(game: &Mnk, state: &MnkState) -> i32 {
    let mut moves = Vec::new();
    game.legal_moves(state, &mut moves);
    let me = state.to_move;
    moves
        .iter()
        .map(|mv| {
            let mut next = state.clone();
            match game.play(&mut next, mv) {
                Some(o) => match o.winner {
                    Some(w) if w == me => 1,
                    Some(_) => -1,
                    None => 0,
                },
                None => -solve(game, &next),
            }
        })
        .max()
        .unwrap_or(0)
}

const LONG: Duration = Duration::from_secs(3600);

#[test]
fn alphabeta_takes_a_win_in_one() {
    let game = Mnk::tictactoe();
    let state = game.board(&["xx.", "oo.", "..."], Side::First);
    let mut ab = AlphaBeta::new(1).with_tt_bits(12);
    let (mv, stats) = ab.search(&game, &state, LONG);
    assert_eq!(mv, Some(2));
    assert!(stats.score >= WIN_THRESHOLD, "{stats:?}");
}

#[test]
fn alphabeta_blocks_a_loss() {
    let game = Mnk::tictactoe();
    let state = game.board(&["oo.", "x..", "..x"], Side::First);
    for seed in 0..5 {
        let mut ab = AlphaBeta::new(seed).with_tt_bits(12);
        assert_eq!(ab.choose(&game, &state, LONG), Some(2));
    }
}

#[test]
fn alphabeta_finds_a_forced_win_by_fork() {
    // x in two corners with o in the middle of an edge: x forks at the opposite corner.
    let game = Mnk::tictactoe();
    let state = game.board(&["x..", ".o.", "..x"], Side::Second);
    // o to move must defend on an edge; after a corner reply x wins by force.
    let after_corner = game.board(&["x.o", ".o.", "..x"], Side::First);
    assert_eq!(solve(&game, &after_corner), 1);
    let mut ab = AlphaBeta::new(3).with_tt_bits(12);
    let (mv, stats) = ab.search(&game, &after_corner, LONG);
    let mv = mv.expect("a move");
    let mut next = after_corner.clone();
    assert!(game.play(&mut next, &mv).is_none());
    assert_eq!(solve(&game, &next), -1, "x must keep its win, played {mv}");
    assert!(stats.score >= WIN_THRESHOLD);
    // And o, to move in the first position, must not lose: only an edge holds.
    let (mv, _) = ab.search(&game, &state, LONG);
    let mut next = state.clone();
    game.play(&mut next, &mv.expect("a move"));
    assert_eq!(solve(&game, &next), 0);
}

#[test]
fn alphabeta_plays_tictactoe_perfectly() {
    // From every position reachable with four marks, the chosen move keeps the value.
    let game = Mnk::tictactoe();
    let mut ab = AlphaBeta::new(7).with_tt_bits(12);
    let mut stack = vec![(game.initial(), 0)];
    let mut checked = 0;
    while let Some((state, marks)) = stack.pop() {
        if marks == 4 {
            let value = solve(&game, &state);
            let mv = ab.choose(&game, &state, LONG).expect("a move");
            let mut next = state.clone();
            let after = match game.play(&mut next, &mv) {
                Some(o) if o.winner.is_some() => 1,
                Some(_) => 0,
                None => -solve(&game, &next),
            };
            assert_eq!(after, value, "{state:?} played {mv}");
            checked += 1;
            continue;
        }
        let mut moves = Vec::new();
        game.legal_moves(&state, &mut moves);
        for mv in moves {
            let mut next = state.clone();
            if game.play(&mut next, &mv).is_none() {
                stack.push((next, marks + 1));
            }
        }
    }
    assert!(checked > 100);
}

#[test]
fn alphabeta_never_loses_to_random_play() {
    let game = Mnk::tictactoe();
    for seed in 0..8 {
        for ab_side in Side::BOTH {
            let mut ab = AlphaBeta::new(seed).with_tt_bits(12);
            let mut rnd = RandomMover::new(seed + 100);
            let mut state = game.initial();
            let outcome = loop {
                let mv = if state.to_move == ab_side {
                    ab.choose(&game, &state, LONG)
                } else {
                    rnd.choose(&game, &state, LONG)
                };
                if let Some(o) = game.play(&mut state, &mv.expect("a move")) {
                    break o;
                }
            };
            assert_ne!(outcome.winner, Some(ab_side.other()), "seed {seed}");
        }
    }
}

#[test]
fn alphabeta_keeps_within_its_time_budget() {
    let game = Mnk::new(7, 7, 4);
    let state = game.initial();
    let mut ab = AlphaBeta::new(0).with_tt_bits(12);
    let started = Instant::now();
    let (mv, stats) = ab.search(&game, &state, Duration::from_millis(50));
    let took = started.elapsed();
    assert!(mv.is_some());
    assert!(took < Duration::from_secs(1), "took {took:?}");
    assert!(stats.depth >= 1, "{stats:?}");
    // Even a zero budget yields a move.
    let (mv, _) = ab.search(&game, &state, Duration::ZERO);
    assert!(mv.is_some());
}

#[test]
fn alphabeta_is_deterministic_for_a_seed_and_node_limit() {
    let game = Mnk::new(5, 5, 4);
    let state = game.board(&[".....", ".x...", "..o..", ".....", "....."], Side::First);
    let run = |seed| {
        let mut ab = AlphaBeta::with_limits(seed, Limits::nodes(20_000)).with_tt_bits(12);
        let (mv, stats) = ab.search(&game, &state, LONG);
        (mv, stats.nodes, stats.depth, stats.score)
    };
    assert_eq!(run(5), run(5));
    let (_, nodes, depth, _) = run(5);
    assert!(nodes <= 20_000 && depth >= 2);
    let by_depth = |seed| {
        let mut ab = AlphaBeta::with_limits(seed, Limits::depth(3)).with_tt_bits(12);
        ab.search(&game, &state, LONG)
    };
    let (a, sa) = by_depth(9);
    let (b, sb) = by_depth(9);
    assert_eq!((a, sa.nodes, sa.depth), (b, sb.nodes, sb.depth));
    assert_eq!(sa.depth, 3);
}

#[test]
fn engines_return_none_without_legal_moves() {
    let game = Mnk::tictactoe();
    let state = game.board(&["xox", "xoo", "oxx"], Side::First);
    let mut ab = AlphaBeta::with_limits(0, Limits::depth(4)).with_tt_bits(12);
    assert_eq!(ab.choose(&game, &state, LONG), None);
    assert_eq!(Greedy::new(0).choose(&game, &state, LONG), None);
    assert_eq!(RandomMover::new(0).choose(&game, &state, LONG), None);
}

fn play_out(game: &Mnk, seed: u64, engine: &mut dyn Engine<Mnk>) -> Vec<usize> {
    let mut state = game.initial();
    let mut other = RandomMover::new(seed);
    let mut moves = Vec::new();
    loop {
        let mv = if state.to_move == Side::First {
            engine.choose(game, &state, LONG)
        } else {
            other.choose(game, &state, LONG)
        };
        let Some(mv) = mv else { return moves };
        moves.push(mv);
        if game.play(&mut state, &mv).is_some() {
            return moves;
        }
    }
}

#[test]
fn random_and_greedy_are_deterministic_per_seed() {
    let game = Mnk::new(5, 5, 4);
    for seed in 0..5 {
        let a = play_out(&game, seed, &mut RandomMover::new(seed));
        let b = play_out(&game, seed, &mut RandomMover::new(seed));
        assert_eq!(a, b);
        let a = play_out(&game, seed, &mut Greedy::new(seed));
        let b = play_out(&game, seed, &mut Greedy::new(seed));
        assert_eq!(a, b);
    }
    // Different seeds give different games (at least once in a few tries).
    let games: Vec<_> = (0..4)
        .map(|s| play_out(&game, 0, &mut Greedy::new(s)))
        .collect();
    assert!(games.windows(2).any(|w| w[0] != w[1]));
    let games: Vec<_> = (0..4)
        .map(|s| play_out(&game, 0, &mut RandomMover::new(s)))
        .collect();
    assert!(games.windows(2).any(|w| w[0] != w[1]));
}

#[test]
fn greedy_takes_a_win_and_random_plays_legal_moves() {
    let game = Mnk::tictactoe();
    let state = game.board(&["xx.", "oo.", "..."], Side::First);
    for seed in 0..10 {
        assert_eq!(Greedy::new(seed).choose(&game, &state, LONG), Some(2));
        let mv = RandomMover::new(seed).choose(&game, &state, LONG);
        assert!(matches!(mv, Some(2 | 5 | 6 | 7 | 8)));
    }
}

/// Two piles, one per side; a move takes one or two counters from the mover's own pile.
/// An illegal reply loses the turn, as in Asalto, so a side whose pile is empty is asked,
/// answers illegally and play goes on. Whoever takes the very last counter loses.
#[derive(Clone, Debug)]
struct Piles;

#[derive(Clone, Debug, PartialEq)]
struct PilesState {
    piles: [u32; 2],
    to_move: Side,
}

impl Game for Piles {
    type State = PilesState;
    type Move = u32;
    type Illegal = MnkIllegal;

    fn name(&self) -> &'static str {
        "piles"
    }
    fn roles(&self) -> [&'static str; 2] {
        ["a", "b"]
    }
    fn initial(&self) -> PilesState {
        PilesState {
            piles: [3, 3],
            to_move: Side::First,
        }
    }
    fn parse_board(&self, _text: &str, _side: Side) -> Result<PilesState, BoardError> {
        Err(BoardError {
            line: 0,
            message: "unsupported".into(),
        })
    }
    fn side_to_move(&self, state: &PilesState) -> Side {
        state.to_move
    }
    fn legal_moves(&self, state: &PilesState, out: &mut Vec<u32>) {
        out.extend((1..=2).filter(|&n| n <= state.piles[state.to_move.index()]));
    }
    fn parse_move(&self, _state: &PilesState, _reply: &Value) -> Result<u32, MnkIllegal> {
        Err(MnkIllegal::Bad)
    }
    fn move_to_wire(&self, mv: &u32) -> Value {
        Value::from(*mv)
    }
    fn play(&self, state: &mut PilesState, mv: &u32) -> Option<Outcome> {
        let me = state.to_move;
        state.piles[me.index()] -= mv;
        state.to_move = me.other();
        (state.piles == [0, 0]).then(|| Outcome::win(me.other(), "took_last"))
    }
    fn play_illegal(&self, state: &mut PilesState, _why: &MnkIllegal) -> Option<Outcome> {
        state.to_move = state.to_move.other();
        None
    }
    fn encode_board(&self, state: &PilesState) -> Value {
        Value::from(state.piles.to_vec())
    }
    fn turn_fields(&self, _state: &PilesState) -> Map<String, Value> {
        Map::new()
    }
    fn render(&self, state: &PilesState) -> String {
        format!("{:?}", state.piles)
    }
}

impl Heuristic for Piles {
    fn evaluate(&self, _state: &PilesState, _perspective: Side) -> i32 {
        0
    }
    fn hash(&self, state: &PilesState) -> u64 {
        (state.piles[0] as u64) << 33 | (state.piles[1] as u64) << 1 | state.to_move.index() as u64
    }
}

#[test]
fn alphabeta_searches_through_turns_without_a_legal_move() {
    // a: 2, b: 1. Taking both leaves b to take the last counter; taking one loses.
    let state = PilesState {
        piles: [2, 1],
        to_move: Side::First,
    };
    let mut ab = AlphaBeta::new(0);
    let (mv, stats) = ab.search(&Piles, &state, LONG);
    assert_eq!(mv, Some(2));
    assert_eq!(stats.score, super::WIN - 2);
    // a: 3, b: 0. b has no move and loses every turn to its illegal reply; a loses
    // whatever it does and should lose as late as possible, one counter at a time (a, b's
    // lost turn, a, b's lost turn, a: the loss comes at ply 5).
    let state = PilesState {
        piles: [3, 0],
        to_move: Side::First,
    };
    let (mv, stats) = ab.search(&Piles, &state, LONG);
    assert_eq!(mv, Some(1));
    assert_eq!(stats.score, -(super::WIN - 5));
}
