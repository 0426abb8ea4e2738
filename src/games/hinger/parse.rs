//! Reading a bot's reply: any JSON value becomes a checked [`Move`] or a typed [`Illegal`]
//! reason. Checks run from the most basic fault to the most specific: the shape (a list of
//! two items), then the number types, then the board's bounds, then the pile.
//!
//! The course's Python agents return tuples, lists and sometimes extra items; their
//! adapter sends the first two integers, so on the wire a move is exactly `[row, col]` and
//! anything else is reported as the illegal reply it is. Coordinates must be JSON integers
//! (`2.0` is `not_integers`, as in the other games).

use super::board::State;
use crate::games::ReasonCode;
use crate::games::wire::{PairError, excerpt, integer_pair};
use serde_json::Value;

/// A move: take one counter from `(row, col)`. Checked moves come from the generator and
/// `parse_move` only.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    row: usize,
    col: usize,
}

impl Move {
    /// The move on `(row, col)`, unchecked against any board.
    pub fn new(row: usize, col: usize) -> Move {
        Move { row, col }
    }
    /// The cell's row, from 0 at the top.
    pub fn row(self) -> usize {
        self.row
    }
    /// The cell's column, from 0 at the left.
    pub fn col(self) -> usize {
        self.col
    }
}

/// Why a reply is not a Hinger move. Any of them loses the game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Illegal {
    /// The reply is not a list of two items.
    #[error("not a move: {detail}")]
    WrongShape {
        /// What the reply is instead: its kind or its length.
        detail: String,
    },
    /// A coordinate is not a JSON integer (a float such as `2.0`, a string, null).
    #[error("coordinates must be integers, got {value}")]
    NotIntegers {
        /// The first such coordinate, shortened.
        value: String,
    },
    /// A coordinate is negative or past the board's last row or column.
    #[error("{at} is off the board ({rows} rows x {cols} columns, counted from 0)")]
    OffBoard {
        /// The whole reply, shortened.
        at: String,
        /// Rows of the board.
        rows: usize,
        /// Columns of the board.
        cols: usize,
    },
    /// The cell holds no counter: there is nothing to take.
    #[error("cell [{row},{col}] holds no counter")]
    EmptyCell {
        /// The cell's row.
        row: usize,
        /// The cell's column.
        col: usize,
    },
}

impl ReasonCode for Illegal {
    fn code(&self) -> &'static str {
        match self {
            Illegal::WrongShape { .. } => "wrong_shape",
            Illegal::NotIntegers { .. } => "not_integers",
            Illegal::OffBoard { .. } => "off_board",
            Illegal::EmptyCell { .. } => "empty_cell",
        }
    }
}

/// Parses and checks a reply `[row, col]` for the side to move of `state`.
pub(crate) fn parse_move(state: &State, reply: &Value) -> Result<Move, Illegal> {
    let (r, c) = integer_pair(reply).map_err(|e| match e {
        PairError::WrongShape(detail) => Illegal::WrongShape { detail },
        PairError::NotIntegers(value) => Illegal::NotIntegers { value },
    })?;
    let index = |v: &Value| v.as_u64().and_then(|i| usize::try_from(i).ok());
    let (row, col) = match (index(r), index(c)) {
        (Some(row), Some(col)) if row < state.rows() && col < state.cols() => (row, col),
        _ => {
            return Err(Illegal::OffBoard {
                at: excerpt(reply),
                rows: state.rows(),
                cols: state.cols(),
            });
        }
    };
    if state.at(row, col) == 0 {
        return Err(Illegal::EmptyCell { row, col });
    }
    Ok(Move { row, col })
}
