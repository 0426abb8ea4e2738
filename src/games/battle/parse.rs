//! Reading a bot's reply: `{"attacker": i, "target": j}` becomes a checked [`Move`] or a
//! typed [`Illegal`] reason, from the most basic fault (the shape) to the most specific
//! (a dead unit).

use super::state::State;
use crate::games::ReasonCode;
use crate::games::wire::{excerpt, is_integer, kind_of};
use serde_json::Value;

/// A checked attack: the mover's unit `attacker` hits the opponent's unit `target`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// Index of the mover's living unit that attacks, from 0.
    pub attacker: usize,
    /// Index of the opponent's living unit that is hit, from 0.
    pub target: usize,
}

/// Why a reply is not a Battle move. Any of them loses the game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Illegal {
    /// The reply is not an object with both `attacker` and `target`.
    #[error("not a move: {detail}")]
    WrongShape {
        /// What the reply is instead, or which field it lacks.
        detail: String,
    },
    /// A field's value is not a JSON integer (a float such as `2.0`, a string, null).
    #[error("`{field}` must be an integer, got {value}")]
    NotIntegers {
        /// `attacker` or `target`.
        field: &'static str,
        /// The value, shortened.
        value: String,
    },
    /// An integer index that names no unit of its army (negative or too large).
    #[error("`{field}` {index} names no unit: that army has {units}")]
    OutOfRange {
        /// `attacker` or `target`.
        field: &'static str,
        /// The index, shortened.
        index: String,
        /// Units in that army, dead ones included.
        units: usize,
    },
    /// The attacker names a unit of the mover at 0 health.
    #[error("the attacker, unit {index}, is dead")]
    DeadAttacker {
        /// The attacker's index.
        index: usize,
    },
    /// The target names an enemy unit at 0 health.
    #[error("the target, unit {index}, is dead")]
    DeadTarget {
        /// The target's index.
        index: usize,
    },
}

impl ReasonCode for Illegal {
    fn code(&self) -> &'static str {
        match self {
            Illegal::WrongShape { .. } => "wrong_shape",
            Illegal::NotIntegers { .. } => "not_integers",
            Illegal::OutOfRange { .. } => "out_of_range",
            Illegal::DeadAttacker { .. } => "dead_attacker",
            Illegal::DeadTarget { .. } => "dead_target",
        }
    }
}

/// Checks a reply against the position: an object with integer `attacker` and `target`
/// naming a living unit of the mover and a living unit of its opponent.
pub(crate) fn parse_move(state: &State, reply: &Value) -> Result<Move, Illegal> {
    let Value::Object(fields) = reply else {
        return Err(Illegal::WrongShape {
            detail: format!(
                "expected {{\"attacker\": i, \"target\": j}}, got {} {}",
                kind_of(reply),
                excerpt(reply)
            ),
        });
    };
    let mover = state.to_move();
    let index = |field: &'static str, units: usize| -> Result<usize, Illegal> {
        let Some(v) = fields.get(field) else {
            return Err(Illegal::WrongShape {
                detail: format!("no `{field}` in {}", excerpt(reply)),
            });
        };
        if !is_integer(v) {
            return Err(Illegal::NotIntegers {
                field,
                value: excerpt(v),
            });
        }
        v.as_u64()
            .and_then(|i| usize::try_from(i).ok())
            .filter(|&i| i < units)
            .ok_or_else(|| Illegal::OutOfRange {
                field,
                index: excerpt(v),
                units,
            })
    };
    let attacker = index("attacker", state.army(mover).len())?;
    let target = index("target", state.army(mover.other()).len())?;
    if !state.army(mover)[attacker].alive() {
        return Err(Illegal::DeadAttacker { index: attacker });
    }
    if !state.army(mover.other())[target].alive() {
        return Err(Illegal::DeadTarget { index: target });
    }
    Ok(Move { attacker, target })
}
