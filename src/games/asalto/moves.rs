//! Asalto moves: their representation, legal-move generation into a reusable buffer,
//! applying a move without checks, the end-of-game rules, and a JSON-free perft.

use super::Asalto;
use super::board::{self, OFFICERS, POINTS, Point, REBELS, State};
use crate::games::Outcome;
use std::fmt;

/// The longest capture chain a position can hold: every capture removes a rebel, and at
/// most 32 rebels fit beside the officer.
pub(crate) const MAX_LANDINGS: usize = POINTS - 1;

/// An officer's capture chain: the start and each landing point (one capture per landing).
#[derive(Clone, Copy)]
pub struct Chain {
    from: Point,
    len: u8,
    landings: [Point; MAX_LANDINGS],
}

impl Chain {
    /// A chain that has not jumped yet.
    pub fn new(from: Point) -> Chain {
        Chain {
            from,
            len: 0,
            landings: [Point::default(); MAX_LANDINGS],
        }
    }
    pub fn from(&self) -> Point {
        self.from
    }
    /// The landing points, in order; one per captured rebel.
    pub fn landings(&self) -> &[Point] {
        &self.landings[..self.len as usize]
    }
    /// Where the officer ends up.
    pub fn to(&self) -> Point {
        self.landings().last().copied().unwrap_or(self.from)
    }
    /// Appends a landing; `false` (and no change) when the chain is already at its bound.
    pub fn push(&mut self, p: Point) -> bool {
        match self.landings.get_mut(self.len as usize) {
            Some(slot) => {
                *slot = p;
                self.len += 1;
                true
            }
            None => false,
        }
    }
    fn pop(&mut self) {
        self.len = self.len.saturating_sub(1);
    }
    /// The bitboard of the rebels this chain jumps over.
    pub fn captured(&self) -> u64 {
        let mut at = self.from;
        let mut bits = 0;
        for &p in self.landings() {
            if let Some(mid) = board::between(at, p) {
                bits |= mid.bit();
            }
            at = p;
        }
        bits
    }
}

impl PartialEq for Chain {
    fn eq(&self, other: &Chain) -> bool {
        self.from == other.from && self.landings() == other.landings()
    }
}
impl Eq for Chain {}

impl std::hash::Hash for Chain {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.from.hash(state);
        self.landings().hash(state);
    }
}

impl fmt::Debug for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Chain({:?}", self.from)?;
        for p in self.landings() {
            write!(f, "->{p:?}")?;
        }
        f.write_str(")")
    }
}

/// A checked Asalto move (made by [`generate`] or by parsing a reply).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    /// A rebel steps one point.
    RebelStep {
        /// The rebel's point.
        from: Point,
        /// The empty point it steps to: never lower, never further from the middle column.
        to: Point,
    },
    /// An officer steps one point (only legal when no officer can capture).
    OfficerStep {
        /// The officer's point.
        from: Point,
        /// The empty point it steps to, along a line.
        to: Point,
    },
    /// An officer captures one or more rebels.
    Capture(Chain),
    /// An officer tried to step `from -> to` while an officer could capture: the step is not
    /// played and the officer on `removed` leaves the board. Not a legal move (never
    /// generated), but a valid reply.
    Huff {
        /// The officer's point.
        from: Point,
        /// Where it tried to step.
        to: Point,
        /// The removed officer's point: the first that could capture (the mover, then row-major).
        removed: Point,
    },
}

impl Move {
    /// The move's points as sent on the wire (a huff: the attempted step).
    pub fn points(&self) -> Vec<Point> {
        match self {
            Move::RebelStep { from, to }
            | Move::OfficerStep { from, to }
            | Move::Huff { from, to, .. } => vec![*from, *to],
            Move::Capture(chain) => {
                let mut v = Vec::with_capacity(chain.landings().len() + 1);
                v.push(chain.from());
                v.extend_from_slice(chain.landings());
                v
            }
        }
    }
}

/// Whether the officer on `p` can jump a rebel in `state`.
#[inline]
pub(crate) fn officer_can_capture(state: &State, p: Point) -> bool {
    let empty = state.empty();
    (0..8).any(|d| match (board::step(p, d), board::jump(p, d)) {
        (Some(mid), Some(to)) => state.rebels & mid.bit() != 0 && empty & to.bit() != 0,
        _ => false,
    })
}

/// Whether any officer can capture (then a plain officer step is a huff).
#[inline]
#[cfg(test)]
pub(crate) fn any_capture(state: &State) -> bool {
    board::points(state.officers).any(|p| officer_can_capture(state, p))
}

/// The officer a huff removes when the officer on `mover` steps: the mover if it could
/// capture, else the first capturing officer in row-major order. `None`: no officer could
/// capture, so the step is an ordinary move.
pub(crate) fn huff_victim(state: &State, mover: Point) -> Option<Point> {
    if state.officers & mover.bit() != 0 && officer_can_capture(state, mover) {
        return Some(mover);
    }
    board::points(state.officers & !mover.bit()).find(|&p| officer_can_capture(state, p))
}

/// Whether the officers can step or capture at all (no officers: they cannot).
pub(crate) fn officers_can_move(state: &State) -> bool {
    let empty = state.empty();
    board::points(state.officers)
        .any(|p| board::officer_steps(p) & empty != 0 || officer_can_capture(state, p))
}

/// Appends every legal move of the side to move to `out` (huffs are not legal moves).
pub fn generate(state: &State, out: &mut Vec<Move>) {
    let empty = state.empty();
    if state.to_move == REBELS {
        for from in board::points(state.rebels) {
            for to in board::points(board::rebel_steps(from) & empty) {
                out.push(Move::RebelStep { from, to });
            }
        }
        return;
    }
    let before = out.len();
    for from in board::points(state.officers) {
        let mut chain = Chain::new(from);
        // The officer has left its start, which chains may cross or end on.
        extend_chains(&mut chain, from, state.rebels, empty | from.bit(), out);
    }
    if out.len() == before {
        for from in board::points(state.officers) {
            for to in board::points(board::officer_steps(from) & empty) {
                out.push(Move::OfficerStep { from, to });
            }
        }
    }
}

/// Depth-first search over capture chains; every prefix is a move of its own. Each jump
/// removes its rebel, so no rebel is taken twice and the search ends.
fn extend_chains(chain: &mut Chain, at: Point, rebels: u64, empty: u64, out: &mut Vec<Move>) {
    for d in 0..8 {
        let (Some(mid), Some(to)) = (board::step(at, d), board::jump(at, d)) else {
            continue;
        };
        if rebels & mid.bit() == 0 || empty & to.bit() == 0 {
            continue;
        }
        if !chain.push(to) {
            continue;
        }
        out.push(Move::Capture(*chain));
        // `empty` counts the officer's own point as empty (no jump lands where it starts,
        // and later jumps may land where it was), so only the captured point changes.
        extend_chains(chain, to, rebels & !mid.bit(), empty | mid.bit(), out);
        chain.pop();
    }
}

impl Asalto {
    /// Plays `mv` for the side to move without checking it, then applies the end rules.
    /// For moves from [`generate`] or `parse_move`; any other move leaves a position the
    /// rules do not describe (but never panics).
    pub fn play_unchecked(&self, state: &mut State, mv: &Move) -> Option<Outcome> {
        match mv {
            Move::RebelStep { from, to } => {
                state.rebels = (state.rebels & !from.bit()) | to.bit();
            }
            Move::OfficerStep { from, to } => {
                state.officers = (state.officers & !from.bit()) | to.bit();
            }
            Move::Capture(chain) => {
                state.officers = (state.officers & !chain.from().bit()) | chain.to().bit();
                state.rebels &= !chain.captured();
            }
            Move::Huff { removed, .. } => {
                state.officers &= !removed.bit();
                // A huff is the turn's whole effect: no end rules but the round limit.
                return self.end_turn(state);
            }
        }
        if let Some(outcome) = self.end_turn(state) {
            // The end rules take precedence when both apply on the last turn.
            return Some(self.rule_outcome(state).unwrap_or(outcome));
        }
        self.rule_outcome(state)
    }

    /// The end rules checked after a legal move, in the rule page's order.
    pub fn rule_outcome(&self, state: &State) -> Option<Outcome> {
        if state.rebels.count_ones() < 9 {
            Some(Outcome::win(OFFICERS, "rebels_captured"))
        } else if state.rebels & board::FORTRESS == board::FORTRESS {
            Some(Outcome::win(REBELS, "fortress_full"))
        } else if !officers_can_move(state) {
            Some(Outcome::win(REBELS, "officers_immobile"))
        } else {
            None
        }
    }

    /// Counts the turn, passes it to the other side and applies the round limit.
    pub(super) fn end_turn(&self, state: &mut State) -> Option<Outcome> {
        state.ply = state.ply.saturating_add(1);
        state.to_move = state.to_move.other();
        if u64::from(state.ply) < 2 * u64::from(self.round_limit) {
            return None;
        }
        let [rebel, officer] = state.illegal;
        Some(match rebel.cmp(&officer) {
            std::cmp::Ordering::Less => Outcome::win(REBELS, "round_limit"),
            std::cmp::Ordering::Greater => Outcome::win(OFFICERS, "round_limit"),
            std::cmp::Ordering::Equal => Outcome::tie("round_limit"),
        })
    }

    /// The side to move sent an illegal reply: it loses the turn and the reply is counted.
    pub fn play_illegal_turn(&self, state: &mut State) -> Option<Outcome> {
        let i = state.to_move.index();
        state.illegal[i] = state.illegal[i].saturating_add(1);
        self.end_turn(state)
    }

    /// Perft through [`generate`] and [`Asalto::play_unchecked`], with one reusable move
    /// buffer per depth.
    pub fn perft_fast(&self, state: &State, depth: u32) -> u64 {
        let mut buffers: Vec<Vec<Move>> = (0..depth).map(|_| Vec::with_capacity(64)).collect();
        self.perft_rec(state, &mut buffers)
    }

    fn perft_rec(&self, state: &State, buffers: &mut [Vec<Move>]) -> u64 {
        let Some((moves, deeper)) = buffers.split_first_mut() else {
            return 1;
        };
        moves.clear();
        generate(state, moves);
        if deeper.is_empty() {
            return moves.len() as u64;
        }
        let mut total = 0;
        for mv in moves.iter() {
            let mut next = *state;
            if self.play_unchecked(&mut next, mv).is_none() {
                total += self.perft_rec(&next, deeper);
            }
        }
        total
    }
}
