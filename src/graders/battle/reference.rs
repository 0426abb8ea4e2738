//! The reference solver: the exact minimax value of a case and the node counts the rules
//! page expects of a solver, with and without pruning, that answers are checked against.

use crate::engines::battle::Solver;
use crate::games::battle::State;
use std::collections::HashMap;

/// What the exact search says about a start, by the course's convention.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// The minimax value for the starting player.
    pub value: i64,
    /// The principal variation (first best child on ties) in the course's notation.
    pub plan: String,
    /// Non-terminal nodes of the full tree: plain minimax's count (saturating).
    pub full_nodes: u64,
    /// Nodes alpha-beta expands with the convention's move order and cut test.
    pub ab_nodes: u64,
}

impl Reference {
    /// The course's answer string for this reference (`plan;score;nodes;`).
    pub fn answer(&self, ab: bool) -> String {
        let nodes = if ab { self.ab_nodes } else { self.full_nodes };
        format!("{};{};{};", self.plan, self.value, nodes)
    }
}

pub(super) type Healths = Box<[u32]>;

pub(super) fn healths(state: &State) -> Healths {
    [crate::games::Side::First, crate::games::Side::Second]
        .iter()
        .flat_map(|s| state.army(*s).iter().map(|u| u.health))
        .collect()
}

/// The reference of a start position (side [`crate::games::Side::First`] to move).
pub(crate) fn reference(state: &State) -> Reference {
    let mut solver = Solver::new();
    let value = solver.course_value(state).unwrap_or(0);
    let mut plan = Vec::new();
    let mut at = state.clone();
    while at.winner().is_none() {
        let (mv, _) = solver
            .best(&at, None)
            .unwrap_or_else(|| unreachable!("a live position has an attack"));
        plan.push(action(&at, mv.attacker, mv.target));
        at.attack(mv.attacker, mv.target);
    }
    let mut full = HashMap::new();
    let full_nodes = count_full(state, &mut full);
    let mut memo = HashMap::new();
    let (_, ab_nodes) = alphabeta(state, i64::MIN, i64::MAX, &mut memo);
    Reference {
        value,
        plan: plan.join(","),
        full_nodes,
        ab_nodes,
    }
}

/// `P(i,j)` for the side to move of `state`.
pub(super) fn action(state: &State, attacker: usize, target: usize) -> String {
    let p = state.letter(state.to_move()).as_char();
    format!("{p}({attacker},{target})")
}

/// Non-terminal nodes of the tree below `state`, each position counted as often as the
/// tree holds it (memoised by position: a subtree's size depends on its root alone).
pub(super) fn count_full(state: &State, memo: &mut HashMap<(bool, Healths), u64>) -> u64 {
    if state.winner().is_some() {
        return 0;
    }
    let key = (state.to_move() == crate::games::Side::First, healths(state));
    if let Some(&n) = memo.get(&key) {
        return n;
    }
    let mut n: u64 = 1;
    for (i, j) in state.attacks() {
        let mut next = state.clone();
        next.attack(i, j);
        n = n.saturating_add(count_full(&next, memo));
    }
    memo.insert(key, n);
    n
}

pub(super) type AbMemo = HashMap<(bool, Healths, i64, i64), (i64, u64)>;

/// Course alpha-beta from the starting player's view: its value and expanded nodes. A
/// node's count depends on the position and the window alone, so both are memoised.
pub(super) fn alphabeta(
    state: &State,
    mut alpha: i64,
    mut beta: i64,
    memo: &mut AbMemo,
) -> (i64, u64) {
    if state.winner().is_some() {
        return (state.score().unwrap_or(0), 0);
    }
    let max = state.to_move() == crate::games::Side::First;
    let key = (max, healths(state), alpha, beta);
    if let Some(&hit) = memo.get(&key) {
        return hit;
    }
    let mut nodes: u64 = 1;
    let mut best = if max { i64::MIN } else { i64::MAX };
    for (i, j) in state.attacks() {
        let mut next = state.clone();
        next.attack(i, j);
        let (v, n) = alphabeta(&next, alpha, beta, memo);
        nodes = nodes.saturating_add(n);
        if (max && v > best) || (!max && v < best) {
            best = v;
        }
        if max {
            alpha = alpha.max(best);
        } else {
            beta = beta.min(best);
        }
        if alpha >= beta {
            break;
        }
    }
    memo.insert(key, (best, nodes));
    (best, nodes)
}
