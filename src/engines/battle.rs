//! Built-in Battle bots: `random`, `greedy` (one ply) and `minimax`, an exact search.
//!
//! Battle's value is not a win or a loss alone but the margin (docs/rules/battle.md), so
//! the generic engines, which score decided games as plain wins, would not play it
//! exactly: `Minimax` searches to the end of the game with alpha-beta and a
//! transposition table of exact values and bounds. Every attack removes health, so a game
//! lasts at most the armies' total health in plies and the search always ends; positions
//! recur through many move orders, which the table folds together.

use super::{Builtins, Engine, RandomMover};
use crate::games::Side;
use crate::games::battle::{Battle, Move, State};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::HashMap;
use std::time::{Duration, Instant};

impl Builtins for Battle {
    fn builtin_names(&self) -> &'static [&'static str] {
        &["random", "greedy", "minimax"]
    }
    fn builtin(&self, name: &str, seed: u64) -> Option<Box<dyn Engine<Self>>> {
        match name {
            "random" => Some(Box::new(RandomMover::<Battle>::new(seed))),
            "greedy" => Some(Box::new(Greedy::new(seed))),
            "minimax" => Some(Box::new(Minimax::new())),
            _ => None,
        }
    }
}

/// One ply: an attack that wins at once, else the one that removes the most enemy damage
/// (a kill of a strong unit first), then the most health; ties drawn from its seed.
pub struct Greedy {
    rng: ChaCha8Rng,
}

impl Greedy {
    /// A greedy bot whose ties are drawn from `seed`.
    pub fn new(seed: u64) -> Self {
        Greedy {
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }
}

impl Engine<Battle> for Greedy {
    fn choose(&mut self, _game: &Battle, state: &State, _budget: Duration) -> Option<Move> {
        let me = state.to_move();
        let key = |(i, j): (usize, usize)| {
            let hit = state.army(me)[i].damage;
            let target = state.army(me.other())[j];
            let removed = hit.min(target.health);
            let wins = removed == state.total(me.other());
            let kills = removed == target.health;
            (wins, if kills { target.damage } else { 0 }, removed)
        };
        let best = state.attacks().map(key).max()?;
        let ties: Vec<(usize, usize)> = state.attacks().filter(|a| key(*a) == best).collect();
        let (attacker, target) = ties[self.rng.random_range(0..ties.len())];
        Some(Move { attacker, target })
    }
}

/// How a stored value bounds the true one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

/// The table's key: every unit's health, and the side to move (damages never change
/// within one game, so a table is only ever used for one game's positions).
type Key = (Side, Box<[u32]>);

/// The table grows to this many positions at most, then starts afresh.
const TABLE_LIMIT: usize = 8_000_000;
/// Nodes between two looks at the clock.
const CLOCK_EVERY: u64 = 4096;

/// The exact search: the value of a position for the side to move is its remaining health
/// if it wins with best play, minus the winner's remaining health if it loses.
pub struct Solver {
    table: HashMap<Key, (i64, Bound)>,
    /// The damages of the game the table holds, by side (a new game clears the table).
    damages: Option<[Box<[u32]>; 2]>,
    nodes: u64,
    deadline: Option<Instant>,
    aborted: bool,
}

impl Default for Solver {
    fn default() -> Self {
        Solver::new()
    }
}

impl Solver {
    /// A solver with an empty table.
    pub fn new() -> Self {
        Solver {
            table: HashMap::new(),
            damages: None,
            nodes: 0,
            deadline: None,
            aborted: false,
        }
    }

    /// Positions searched so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// The exact value of `state` for the side to move (`None`: the game is over).
    pub fn value(&mut self, state: &State) -> Option<i64> {
        if state.winner().is_some() {
            return None;
        }
        self.deadline = None;
        self.prepare(state);
        Some(self.negamax(state, -i64::MAX, i64::MAX))
    }

    /// The course's value of a start: the value for the starting player (side `First`).
    pub fn course_value(&mut self, state: &State) -> Option<i64> {
        let v = self.value(state)?;
        Some(if state.to_move() == Side::First {
            v
        } else {
            -v
        })
    }

    /// The best attack of the side to move and its value; the first of equal attacks in
    /// generation order. `None` when the game is over or the deadline passed first.
    pub fn best(&mut self, state: &State, deadline: Option<Instant>) -> Option<(Move, i64)> {
        self.deadline = deadline;
        self.aborted = false;
        self.prepare(state);
        let mut best: Option<(Move, i64)> = None;
        let mut alpha = -i64::MAX;
        for (attacker, target) in ordered(state) {
            let mut next = state.clone();
            let v = match next.attack(attacker, target) {
                Some(_) => i64::from(next.total(state.to_move())),
                None => -self.negamax(&next, -i64::MAX, -alpha),
            };
            if self.aborted {
                return None;
            }
            if best.is_none_or(|(_, b)| v > b) {
                best = Some((Move { attacker, target }, v));
                alpha = alpha.max(v);
            }
        }
        best
    }

    fn prepare(&mut self, state: &State) {
        let damages = Side::BOTH.map(|s| state.army(s).iter().map(|u| u.damage).collect());
        if self.damages.as_ref() != Some(&damages) || self.table.len() > TABLE_LIMIT {
            self.table.clear();
            self.damages = Some(damages);
        }
    }

    fn key(state: &State) -> Key {
        let healths = Side::BOTH
            .iter()
            .flat_map(|s| state.army(*s).iter().map(|u| u.health))
            .collect();
        (state.to_move(), healths)
    }

    fn negamax(&mut self, state: &State, mut alpha: i64, mut beta: i64) -> i64 {
        self.nodes += 1;
        if let Some(deadline) = self.deadline
            && self.nodes.is_multiple_of(CLOCK_EVERY)
            && Instant::now() >= deadline
        {
            self.aborted = true;
        }
        if self.aborted {
            return 0;
        }
        let key = Solver::key(state);
        let original_alpha = alpha;
        if let Some(&(v, bound)) = self.table.get(&key) {
            match bound {
                Bound::Exact => return v,
                Bound::Lower => alpha = alpha.max(v),
                Bound::Upper => beta = beta.min(v),
            }
            if alpha >= beta {
                return v;
            }
        }
        let me = state.to_move();
        let mut best = -i64::MAX;
        for (attacker, target) in ordered(state) {
            let mut next = state.clone();
            let v = match next.attack(attacker, target) {
                Some(_) => i64::from(next.total(me)),
                None => -self.negamax(&next, -beta, -alpha),
            };
            if self.aborted {
                return 0;
            }
            best = best.max(v);
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        let bound = if best <= original_alpha {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.table.insert(key, (best, bound));
        best
    }
}

/// Attacks in search order: those that kill first (they shrink the tree and usually win
/// the exchange), then by the attacker's damage.
fn ordered(state: &State) -> Vec<(usize, usize)> {
    let me = state.to_move();
    let mut attacks: Vec<(usize, usize)> = state.attacks().collect();
    attacks.sort_by_key(|&(i, j)| {
        let hit = state.army(me)[i].damage;
        let kills = hit >= state.army(me.other())[j].health;
        (std::cmp::Reverse(kills), std::cmp::Reverse(hit))
    });
    attacks
}

/// The exact player: the best attack by [`Solver`], its table kept from move to move.
/// Should its budget run out first (armies far larger than the course's), it plays the
/// greedy attack rather than lose on time.
pub(crate) struct Minimax {
    solver: Solver,
}

impl Minimax {
    pub(crate) fn new() -> Self {
        Minimax {
            solver: Solver::new(),
        }
    }
}

impl Default for Minimax {
    fn default() -> Self {
        Minimax::new()
    }
}

impl Engine<Battle> for Minimax {
    fn choose(&mut self, game: &Battle, state: &State, budget: Duration) -> Option<Move> {
        let deadline = Instant::now().checked_add(budget.mul_f64(0.8));
        match self.solver.best(state, deadline) {
            Some((mv, _)) => Some(mv),
            None => Greedy::new(0).choose(game, state, budget),
        }
    }
}

#[cfg(test)]
mod tests;
