//! The strongest built-in bot: iterative deepening negamax with alpha-beta pruning.
//!
//! - A fixed-size transposition table keyed by [`Heuristic::hash`] keeps bounds and the
//!   best move of positions already searched, across depths and across the moves of a game.
//! - Moves are tried best first: the table's move, then two killer moves per ply, then the
//!   game's [`Heuristic::order_key`]. Later moves get a null window first (PVS).
//! - At the nominal depth a quiescence search follows tactical moves (captures), so the
//!   evaluation is never taken in the middle of an exchange.
//! - Finished games are scored from [`Game::play`]'s outcome, nearer wins higher. A side
//!   without legal moves is still asked by the referee and its reply is illegal: the
//!   search plays the `null` reply the built-in bots send then, through
//!   [`Game::play_illegal`] (Asalto: the turn is lost and counted).
//! - The clock is read every few hundred nodes; a search that runs out of time or nodes
//!   returns the best move of the last completed depth (or a better one that the
//!   unfinished depth already proved), so there is always a move when one exists.
//!
//! With a node or depth limit and no time pressure the engine is deterministic for its
//! seed: the seed only shuffles the root moves before ordering, which breaks ties between
//! equally good moves differently from game to game.

use super::{Engine, Heuristic, WIN, WIN_THRESHOLD, clamped_eval, outcome_score};
use crate::games::{Game, Outcome, Side};
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use std::time::{Duration, Instant};

const INF: i32 = WIN + 1;
/// The clock is read once per this many nodes (a power of two).
const CLOCK_INTERVAL: u64 = 256;
/// Plies of captures the quiescence search may chain beyond the nominal depth.
const QUIESCENCE_PLIES: u32 = 12;
/// Deepest ply the search keeps per-ply buffers for; deeper nodes are evaluated.
pub(crate) const MAX_PLY: u32 = 128;

/// What stops a search besides its time budget.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Deepest iteration (plies at the root, quiescence not counted).
    pub max_depth: u32,
    /// Nodes per move (quiescence nodes included); `u64::MAX` for no limit.
    pub max_nodes: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_depth: 64,
            max_nodes: u64::MAX,
        }
    }
}

impl Limits {
    /// Limits that stop the search at `max_depth` plies, with no node limit.
    pub fn depth(max_depth: u32) -> Self {
        Limits {
            max_depth,
            ..Limits::default()
        }
    }
    /// Limits that stop the search after `max_nodes` nodes per move, at any depth up to 64.
    pub fn nodes(max_nodes: u64) -> Self {
        Limits {
            max_nodes,
            ..Limits::default()
        }
    }
}

/// How the last search went, for benches and logs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SearchStats {
    /// The deepest completed iteration.
    pub depth: u32,
    /// Nodes visited, quiescence included.
    pub nodes: u64,
    /// Score of the chosen move for the side to move at the last completed depth.
    pub score: i32,
    pub elapsed: Duration,
    /// Whether the search stopped on its time or node budget rather than on its own.
    pub interrupted: bool,
}

impl SearchStats {
    pub fn nodes_per_second(&self) -> f64 {
        let secs = self.elapsed.as_secs_f64();
        if secs > 0.0 {
            self.nodes as f64 / secs
        } else {
            0.0
        }
    }
}

#[derive(Clone, Copy, Default)]
struct TtEntry {
    key: u64,
    score: i32,
    /// Index of the best move in generation order (`u16::MAX`: none).
    best: u16,
    depth: i8,
    bound: Bound,
}

#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Bound {
    #[default]
    Empty,
    Exact,
    Lower,
    Upper,
}

/// Per-ply scratch space, reused so the search allocates only while it warms up.
struct PlyBuffers<M> {
    moves: Vec<M>,
    /// (ordering key, index into `moves`), sorted best first.
    order: Vec<(i32, u16)>,
}

impl<M> Default for PlyBuffers<M> {
    fn default() -> Self {
        PlyBuffers {
            moves: Vec::new(),
            order: Vec::new(),
        }
    }
}

/// The alpha-beta searcher for any game with a [`Heuristic`]. Its transposition table lives from
/// one move of a game to the next, so later searches start from what earlier ones learnt.
pub struct AlphaBeta<G: Game> {
    rng: ChaCha8Rng,
    limits: Limits,
    tt_bits: u32,
    tt: Vec<TtEntry>,
    killers: Vec<[Option<G::Move>; 2]>,
    buffers: Vec<PlyBuffers<G::Move>>,
    nodes: u64,
    deadline: Option<Instant>,
    stopped: bool,
    /// Whether the search met its depth horizon (a position it scored without playing the
    /// game out) since this was last cleared: an iteration that never did has searched the
    /// whole game, and deeper ones would find the same.
    horizon: bool,
    stats: SearchStats,
}

/// The depth of a table entry whose subtree was searched to the end of the game: its bound
/// holds at any depth.
const EXHAUSTIVE: i8 = i8::MAX;

/// Default table size: 2^19 entries of 24 bytes, 12 MiB, allocated on the first search.
pub(crate) const DEFAULT_TT_BITS: u32 = 19;

impl<G: Heuristic> AlphaBeta<G> {
    /// A searcher limited only by the time budget it is given.
    pub fn new(seed: u64) -> Self {
        Self::with_limits(seed, Limits::default())
    }

    /// A searcher that also stops at `limits`: with a time budget it cannot reach, the same
    /// seed and limits give the same moves on every machine.
    pub fn with_limits(seed: u64, limits: Limits) -> Self {
        AlphaBeta {
            rng: ChaCha8Rng::seed_from_u64(seed),
            limits,
            tt_bits: DEFAULT_TT_BITS,
            tt: Vec::new(),
            killers: Vec::new(),
            buffers: Vec::new(),
            nodes: 0,
            deadline: None,
            horizon: false,
            stopped: false,
            stats: SearchStats::default(),
        }
    }

    /// Sets the transposition table to 2^bits entries (clamped to 4..=26).
    pub fn with_tt_bits(mut self, bits: u32) -> Self {
        self.tt_bits = bits.clamp(4, 26);
        self.tt = Vec::new();
        self
    }

    /// Statistics of the last search.
    pub fn stats(&self) -> SearchStats {
        self.stats
    }

    /// Forgets every position searched so far.
    pub fn clear(&mut self) {
        self.tt.iter_mut().for_each(|e| *e = TtEntry::default());
    }

    /// Searches `state` for at most `budget` and returns the chosen move with statistics.
    pub fn search(
        &mut self,
        game: &G,
        state: &G::State,
        budget: Duration,
    ) -> (Option<G::Move>, SearchStats) {
        let started = Instant::now();
        // Stop a little early: the clock is read only every few hundred nodes and the
        // caller still has to hand the move over.
        let margin = (budget / 20).min(Duration::from_millis(5));
        self.deadline = started.checked_add(budget.saturating_sub(margin));
        self.nodes = 0;
        self.stopped = false;
        self.stats = SearchStats::default();
        if self.tt.is_empty() {
            self.tt = vec![TtEntry::default(); 1usize << self.tt_bits];
        }
        self.killers.clear();

        let mut root = std::mem::take(&mut self.buffer(0).moves);
        root.clear();
        game.legal_moves(state, &mut root);
        if root.is_empty() {
            self.buffer(0).moves = root;
            self.stats.elapsed = started.elapsed();
            return (None, self.stats);
        }
        if root.len() == 1 {
            let only = root.pop();
            self.buffer(0).moves = root;
            self.stats.elapsed = started.elapsed();
            return (only, self.stats);
        }

        // Shuffle first so that the stable sort leaves equal keys in a seeded order.
        let mut order: Vec<usize> = (0..root.len()).collect();
        order.shuffle(&mut self.rng);
        let tt_move = self.probe(game.hash(state)).map(|e| e.best as usize);
        let mut keys: Vec<i32> = root.iter().map(|mv| game.order_key(state, mv)).collect();
        if let Some(i) = tt_move.filter(|&i| i < keys.len()) {
            keys[i] = i32::MAX;
        }
        order.sort_by_key(|&i| std::cmp::Reverse(keys[i]));

        let side = game.side_to_move(state);
        let mut best = order[0];
        for depth in 1..=self.limits.max_depth.max(1) {
            let mut alpha = -INF;
            let mut iteration_best = None;
            self.horizon = false;
            for (n, &i) in order.iter().enumerate() {
                let mut next = state.clone();
                let value = match game.play(&mut next, &root[i]) {
                    Some(outcome) => outcome_score(&outcome, side, 1),
                    None if n == 0 => {
                        self.child(game, &next, side, depth as i32 - 1, 1, alpha, INF)
                    }
                    None => {
                        let v =
                            self.child(game, &next, side, depth as i32 - 1, 1, alpha, alpha + 1);
                        if v > alpha && !self.stopped {
                            self.child(game, &next, side, depth as i32 - 1, 1, alpha, INF)
                        } else {
                            v
                        }
                    }
                };
                if self.stopped {
                    break;
                }
                if value > alpha {
                    alpha = value;
                    iteration_best = Some(i);
                }
            }
            // A move that beat the previous best's full-depth score at this depth is
            // better even when the iteration did not finish.
            if let Some(i) = iteration_best {
                best = i;
                if let Some(pos) = order.iter().position(|&j| j == i) {
                    order[..=pos].rotate_right(1);
                }
            }
            if self.stopped {
                break;
            }
            self.stats.depth = depth;
            self.stats.score = alpha;
            self.store(game.hash(state), depth as i32, alpha, Bound::Exact, best, 0);
            // A proven result, or every line played out to the game's end (a small
            // endgame): no deeper iteration can change the move.
            if alpha.abs() >= WIN_THRESHOLD || !self.horizon {
                break;
            }
            // The next iteration costs several times this one: do not start what cannot end.
            if started.elapsed() > budget / 2 {
                break;
            }
        }
        self.stats.nodes = self.nodes;
        self.stats.elapsed = started.elapsed();
        self.stats.interrupted = self.stopped;
        let chosen = root.swap_remove(best);
        self.buffer(0).moves = root;
        (Some(chosen), self.stats)
    }

    fn buffer(&mut self, ply: u32) -> &mut PlyBuffers<G::Move> {
        let ply = ply as usize;
        if self.buffers.len() <= ply {
            self.buffers.resize_with(ply + 1, PlyBuffers::default);
        }
        &mut self.buffers[ply]
    }

    /// Counts a node and says whether the search must stop.
    fn tick(&mut self) -> bool {
        self.nodes += 1;
        if self.nodes >= self.limits.max_nodes {
            self.stopped = true;
        } else if self.nodes & (CLOCK_INTERVAL - 1) == 0
            && let Some(deadline) = self.deadline
            && Instant::now() >= deadline
        {
            self.stopped = true;
        }
        self.stopped
    }

    /// The value of `next` for `parent`, whichever side moves in `next`.
    #[allow(clippy::too_many_arguments)]
    fn child(
        &mut self,
        game: &G,
        next: &G::State,
        parent: Side,
        depth: i32,
        ply: u32,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        if game.side_to_move(next) == parent {
            self.negamax(game, next, depth, ply, alpha, beta)
        } else {
            -self.negamax(game, next, depth, ply, -beta, -alpha)
        }
    }

    fn negamax(
        &mut self,
        game: &G,
        state: &G::State,
        depth: i32,
        ply: u32,
        mut alpha: i32,
        beta: i32,
    ) -> i32 {
        if depth <= 0 || ply >= MAX_PLY {
            self.horizon = true;
            return self.quiesce(game, state, ply, alpha, beta, QUIESCENCE_PLIES);
        }
        if self.tick() {
            return 0;
        }
        // No line can do better than winning right here or worse than losing right here.
        let (lo, hi) = (-(WIN - ply as i32), WIN - ply as i32);
        if lo >= beta {
            return lo;
        }
        if hi <= alpha {
            return hi;
        }
        let side = game.side_to_move(state);
        let key = game.hash(state);
        let mut tt_move = None;
        if let Some(entry) = self.probe(key) {
            if entry.best != u16::MAX {
                tt_move = Some(entry.best as usize);
            }
            if entry.depth as i32 >= depth {
                let score = from_tt(entry.score, ply);
                let cut = match entry.bound {
                    Bound::Exact => true,
                    Bound::Lower => score >= beta,
                    Bound::Upper => score <= alpha,
                    Bound::Empty => false,
                };
                if cut {
                    if entry.depth != EXHAUSTIVE {
                        self.horizon = true;
                    }
                    return score;
                }
            }
        }

        let mut buf = std::mem::take(self.buffer(ply));
        buf.moves.clear();
        game.legal_moves(state, &mut buf.moves);
        if buf.moves.is_empty() {
            *self.buffer(ply) = buf;
            let mut next = state.clone();
            return match play_stuck(game, &mut next) {
                Some(outcome) => outcome_score(&outcome, side, ply + 1),
                None => self.child(game, &next, side, depth - 1, ply + 1, alpha, beta),
            };
        }

        let killers = self.killers.get(ply as usize).cloned().unwrap_or_default();
        buf.order.clear();
        for (i, mv) in buf.moves.iter().enumerate() {
            let key = if Some(i) == tt_move {
                i32::MAX
            } else if killers[0].as_ref() == Some(mv) {
                i32::MAX - 1
            } else if killers[1].as_ref() == Some(mv) {
                i32::MAX - 2
            } else {
                game.order_key(state, mv).min(i32::MAX - 3)
            };
            buf.order.push((key, i.min(u16::MAX as usize - 1) as u16));
        }
        buf.order.sort_by_key(|&(k, _)| std::cmp::Reverse(k));

        let original_alpha = alpha;
        let mut best = -INF;
        let mut best_index = buf.order[0].1;
        // Whether this node's own subtree meets the horizon, apart from its siblings'.
        let outer = std::mem::replace(&mut self.horizon, false);
        for n in 0..buf.order.len() {
            let i = buf.order[n].1 as usize;
            let mv = &buf.moves[i];
            let mut next = state.clone();
            let value = match game.play(&mut next, mv) {
                Some(outcome) => outcome_score(&outcome, side, ply + 1),
                None if n == 0 => self.child(game, &next, side, depth - 1, ply + 1, alpha, beta),
                None => {
                    let v = self.child(game, &next, side, depth - 1, ply + 1, alpha, alpha + 1);
                    if v > alpha && v < beta && !self.stopped {
                        self.child(game, &next, side, depth - 1, ply + 1, alpha, beta)
                    } else {
                        v
                    }
                }
            };
            if self.stopped {
                *self.buffer(ply) = buf;
                return 0;
            }
            if value > best {
                best = value;
                best_index = i as u16;
            }
            if value > alpha {
                alpha = value;
            }
            if alpha >= beta {
                if !game.is_tactical(state, &buf.moves[i]) {
                    self.add_killer(ply, buf.moves[i].clone());
                }
                break;
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        let searched = if self.horizon {
            depth
        } else {
            EXHAUSTIVE as i32
        };
        self.horizon |= outer;
        self.store(key, searched, best, bound, best_index as usize, ply);
        *self.buffer(ply) = buf;
        best
    }

    /// Follows tactical moves until the position is quiet. The side to move may stand pat
    /// on the evaluation unless every legal move is tactical (a forced capture).
    fn quiesce(
        &mut self,
        game: &G,
        state: &G::State,
        ply: u32,
        mut alpha: i32,
        beta: i32,
        left: u32,
    ) -> i32 {
        if self.tick() {
            return 0;
        }
        let side = game.side_to_move(state);
        if left == 0 || ply >= MAX_PLY {
            return clamped_eval(game, state, side);
        }
        let mut buf = std::mem::take(self.buffer(ply));
        buf.moves.clear();
        game.legal_moves(state, &mut buf.moves);
        buf.order.clear();
        for (i, mv) in buf.moves.iter().enumerate() {
            if game.is_tactical(state, mv) {
                buf.order.push((
                    game.order_key(state, mv),
                    i.min(u16::MAX as usize - 1) as u16,
                ));
            }
        }
        let forced = !buf.moves.is_empty() && buf.order.len() == buf.moves.len();
        // A forced exchange is never cut short on the evaluation: skip computing it.
        let stand = if forced {
            -INF
        } else {
            clamped_eval(game, state, side)
        };
        let mut best = stand;
        if !forced {
            if stand >= beta || buf.order.is_empty() {
                *self.buffer(ply) = buf;
                return stand;
            }
            alpha = alpha.max(stand);
        }
        buf.order.sort_by_key(|&(k, _)| std::cmp::Reverse(k));
        for n in 0..buf.order.len() {
            let mv = &buf.moves[buf.order[n].1 as usize];
            let mut next = state.clone();
            let value = match game.play(&mut next, mv) {
                Some(outcome) => outcome_score(&outcome, side, ply + 1),
                None if game.side_to_move(&next) == side => {
                    self.quiesce(game, &next, ply + 1, alpha, beta, left - 1)
                }
                None => -self.quiesce(game, &next, ply + 1, -beta, -alpha, left - 1),
            };
            if self.stopped {
                *self.buffer(ply) = buf;
                return 0;
            }
            best = best.max(value);
            alpha = alpha.max(value);
            if alpha >= beta {
                break;
            }
        }
        *self.buffer(ply) = buf;
        best
    }

    fn add_killer(&mut self, ply: u32, mv: G::Move) {
        let ply = ply as usize;
        if self.killers.len() <= ply {
            self.killers.resize_with(ply + 1, Default::default);
        }
        let slot = &mut self.killers[ply];
        if slot[0].as_ref() != Some(&mv) {
            slot[1] = slot[0].take();
            slot[0] = Some(mv);
        }
    }

    fn probe(&self, key: u64) -> Option<TtEntry> {
        if self.tt.is_empty() {
            return None;
        }
        let entry = self.tt[(key as usize) & (self.tt.len() - 1)];
        (entry.bound != Bound::Empty && entry.key == key).then_some(entry)
    }

    fn store(&mut self, key: u64, depth: i32, score: i32, bound: Bound, best: usize, ply: u32) {
        if self.tt.is_empty() {
            return;
        }
        let slot = (key as usize) & (self.tt.len() - 1);
        let old = self.tt[slot];
        // Keep a deeper result for the same position; anything else makes way.
        if old.bound != Bound::Empty && old.key == key && old.depth as i32 > depth {
            return;
        }
        self.tt[slot] = TtEntry {
            key,
            score: to_tt(score, ply),
            best: best.min(u16::MAX as usize - 1) as u16,
            // Only a subtree played to its end is EXHAUSTIVE, never a deep one.
            depth: if depth == EXHAUSTIVE as i32 {
                EXHAUSTIVE
            } else {
                depth.clamp(0, EXHAUSTIVE as i32 - 1) as i8
            },
            bound,
        };
    }
}

/// The turn of a side with no legal move, as the referee plays it: a built-in bot's seat
/// answers `null` then (see [`Engine::choose`]), which the game rejects and judges by its
/// illegal-move policy.
fn play_stuck<G: Game>(game: &G, state: &mut G::State) -> Option<Outcome> {
    match game.parse_move(state, &Value::Null) {
        Err(why) => game.play_illegal(state, &why),
        Ok(mv) => game.play(state, &mv),
    }
}

/// Decided scores count plies from the root; the table keeps them relative to the node,
/// so that they stay right when the position recurs at another ply.
fn to_tt(score: i32, ply: u32) -> i32 {
    if score >= WIN_THRESHOLD {
        score + ply as i32
    } else if score <= -WIN_THRESHOLD {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: u32) -> i32 {
    if score >= WIN_THRESHOLD {
        score - ply as i32
    } else if score <= -WIN_THRESHOLD {
        score + ply as i32
    } else {
        score
    }
}

impl<G: Heuristic> Engine<G> for AlphaBeta<G> {
    fn choose(&mut self, game: &G, state: &G::State, budget: Duration) -> Option<G::Move> {
        self.search(game, state, budget).0
    }
}
