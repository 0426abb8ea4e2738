//! Built-in Asalto bots (random, greedy, alphabeta) and the Asalto knowledge they share:
//! the evaluation, the position hash and move ordering behind [`Heuristic`].
//!
//! The evaluation is computed for the rebels and negated for the officers. With the
//! officers to move and a capture on the board, the capture is forced: the position is
//! judged after the officers' longest one (the greedy bot sees its move's consequence; the
//! searchers play captures out anyway). The terms of a quiet position:
//! - material: every rebel counts, more so below 13 (the officers need only a few more
//!   captures), and less as the game drags on (a deadlock is a tie, and the rebels break
//!   it by giving up pieces they can spare); an officer is worth several rebels (a huff
//!   removes one);
//! - the fortress: rebels on fortress points, with a bonus as it nears full, the rebels'
//!   distance to it (rows to climb, columns to come in) and their rows; an officer on a
//!   fortress point, which must be lured out before the fortress can fill;
//! - safety: rebels an officer could jump next turn; the rebels can cover one with their
//!   move, two or more are a real loss;
//! - officer mobility: officers with few free points (a possible jump counts as several)
//!   are close to being shut in, which wins for the rebels.
//!
//! Engines never play huffs: with a capture on the board a plain officer step is not a
//! legal move, so a capture is forced, which the search sees for both sides (the rebels
//! can offer a rebel to pull an officer where they want it).
//!
//! The weights were tuned by the strength matches of `cargo bench --bench engines`.

use super::{Heuristic, near_the_end};
use crate::games::Side;
use crate::games::asalto::board::{self, FORTRESS, OFFICERS, Point, REBELS};
use crate::games::asalto::{Asalto, Move, State};

const REBEL: i32 = 100;
/// Extra value of each rebel short of [`FEW_REBELS`]: the officers need only a few more
/// captures, and the rebels need spare pieces to cover the ones filling the fortress.
const LAST_REBELS: i32 = 150;
const FEW_REBELS: i32 = 13;
const OFFICER: i32 = 450;
/// Plies per point of value a rebel loses as the game drags on, and the most it loses.
const DRAG_PLIES: u32 = 4;
const REBEL_DECAY_MAX: i32 = 50;
const IN_FORTRESS: i32 = 45;
/// Per fortress point filled beyond six: the last points are the hardest to take.
const FORTRESS_NEAR_FULL: i32 = 80;
const DISTANCE: i32 = 9;
/// Per row climbed, inside the fortress too: the rebels fill it from the top down.
const ROW: i32 = 4;
const THREATENED: i32 = 70;
const OFFICER_IN_FORTRESS: i32 = 40;
/// A game decided by the officers' forced capture: beyond every other evaluation, short
/// of the search's own decided scores.
const DECIDED: i32 = 100_000;
const OFFICER_MOBILITY: i32 = 6;
/// Officers with this many free points or fewer are in danger of being shut in.
const CRAMPED: u32 = 2;
const CRAMPED_PENALTY: i32 = 60;

/// Steps a rebel needs to reach the fortress, ignoring other pieces.
fn distance_to_fortress(p: Point) -> i32 {
    let (row, col) = (p.row() as i32, p.col() as i32);
    let rows = (row - 2).max(0);
    let cols = if col < 2 {
        2 - col
    } else if col > 4 {
        col - 4
    } else {
        0
    };
    // Diagonal points let a rebel climb and come in at once.
    rows.max(cols) + (rows.min(cols) + 1) / 2
}

/// Rebels that some officer could jump right now.
fn threatened_rebels(state: &State) -> u64 {
    let empty = state.empty();
    let mut threatened = 0;
    for officer in board::points(state.officers()) {
        // The officer's own point is free once it jumps; only the first jump matters here.
        for d in 0..8 {
            if let (Some(mid), Some(to)) = (board::step(officer, d), board::jump(officer, d))
                && state.rebels() & mid.bit() != 0
                && empty & to.bit() != 0
            {
                threatened |= mid.bit();
            }
        }
    }
    threatened
}

/// The position after the officers' forced capture that takes the most rebels, or `None`
/// when they have no capture. A score instead when that capture ends the game.
fn after_forced_capture(state: &State) -> Option<Result<State, i32>> {
    if state.to_move() != OFFICERS || threatened_rebels(state) == 0 {
        return None;
    }
    let mut moves = Vec::new();
    crate::games::asalto::generate(state, &mut moves);
    let best = moves.iter().max_by_key(|mv| match mv {
        Move::Capture(chain) => chain.captured().count_ones(),
        _ => 0,
    })?;
    let mut next = *state;
    // The round limit plays no part in an evaluation.
    let rules = Asalto {
        round_limit: u32::MAX,
    };
    Some(match rules.play_unchecked(&mut next, best) {
        Some(outcome) if outcome.winner == Some(OFFICERS) => Err(-DECIDED),
        Some(outcome) if outcome.winner == Some(REBELS) => Err(DECIDED),
        _ => Ok(next),
    })
}

/// The position's value for the rebels.
fn rebel_score(state: &State) -> i32 {
    // With a capture on the board the officers must take: judge the position after it
    // (the searchers play captures out themselves; the greedy bot only sees them here).
    match after_forced_capture(state) {
        Some(Ok(next)) => return quiet_rebel_score(&next),
        Some(Err(score)) => return score,
        None => {}
    }
    quiet_rebel_score(state)
}

/// The value for the rebels of a position without a capture to play out.
fn quiet_rebel_score(state: &State) -> i32 {
    let rebels = state.rebels();
    let threatened = threatened_rebels(state).count_ones() as i32;
    let count = rebels.count_ones() as i32;
    // A rebel is worth less as the game drags on: a deadlock is a tie, and the rebels break
    // it by giving up pieces they can spare.
    let rebel = REBEL - (state.ply() / DRAG_PLIES).min(REBEL_DECAY_MAX as u32) as i32;
    let mut score = rebel * count - LAST_REBELS * (FEW_REBELS - count).max(0);
    score -= OFFICER * state.officers().count_ones() as i32;

    let fortress = (rebels & FORTRESS).count_ones() as i32;
    score += IN_FORTRESS * fortress + FORTRESS_NEAR_FULL * (fortress - 6).max(0);
    score -= DISTANCE
        * board::points(rebels & !FORTRESS)
            .map(distance_to_fortress)
            .sum::<i32>();
    score -= ROW * board::points(rebels).map(|p| p.row() as i32).sum::<i32>();

    // The rebels can cover one threat with their move, rarely more. (With the officers to
    // move there is no threat left here: the capture has been played out.)
    score -= THREATENED * (threatened - 1).max(0) + THREATENED / 3 * threatened.min(1);
    // An officer on a fortress point must be lured out before the fortress can fill.
    score -= OFFICER_IN_FORTRESS * (state.officers() & FORTRESS).count_ones() as i32;

    let empty = state.empty();
    for officer in board::points(state.officers()) {
        // A jump is freedom too, and worth more than a step: an officer that can capture
        // is nowhere near shut in.
        let jumps = (0..8)
            .filter(
                |&d| match (board::step(officer, d), board::jump(officer, d)) {
                    (Some(mid), Some(to)) => rebels & mid.bit() != 0 && empty & to.bit() != 0,
                    _ => false,
                },
            )
            .count() as u32;
        let free = (board::officer_steps(officer) & empty).count_ones() + 3 * jumps;
        score -= OFFICER_MOBILITY * free as i32;
        if free <= CRAMPED {
            score += CRAMPED_PENALTY * (CRAMPED + 1 - free) as i32;
        }
    }
    score
}

/// splitmix64's finaliser: spreads every input bit over the whole word.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Heuristic for Asalto {
    fn evaluate(&self, state: &State, perspective: Side) -> i32 {
        let score = rebel_score(state);
        if perspective == REBELS { score } else { -score }
    }

    /// Pieces and side to move, and near the round limit the ply and both illegal-move
    /// counters, which decide the game there ([`near_the_end`]): the search's table keeps a
    /// result played to the end as good at any depth, which the same pieces with other
    /// counts are not.
    fn hash(&self, state: &State) -> u64 {
        let side = (state.to_move() == OFFICERS) as u64;
        let counts = match near_the_end(state.ply(), 2 * u64::from(self.round_limit)) {
            true => mix(u64::from(state.ply())
                | u64::from(state.illegal(REBELS)) << 32
                | u64::from(state.illegal(OFFICERS)) << 48),
            false => 0,
        };
        mix(state.rebels() ^ mix(state.officers() ^ (side << 40) ^ counts))
    }

    fn order_key(&self, state: &State, mv: &Move) -> i32 {
        match mv {
            Move::Capture(chain) => 1000 * chain.captured().count_ones() as i32,
            Move::RebelStep { from, to } => {
                let mut key = 10 * (distance_to_fortress(*from) - distance_to_fortress(*to));
                if FORTRESS & to.bit() != 0 {
                    key += 30;
                }
                // Stepping next to an officer is often stepping into its jump.
                if board::points(state.officers()).any(|o| board::officer_steps(o) & to.bit() != 0)
                {
                    key -= 5;
                }
                key
            }
            Move::OfficerStep { .. } | Move::Huff { .. } => 0,
        }
    }

    fn is_tactical(&self, _state: &State, mv: &Move) -> bool {
        matches!(mv, Move::Capture(_))
    }
}

#[cfg(test)]
mod tests;
