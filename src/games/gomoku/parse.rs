//! Reading a bot's reply: any JSON value becomes a checked [`Move`] or a typed [`Illegal`]
//! reason. Checks run from the most basic fault to the most specific: the shape (a list of
//! two items), then the number types, then the range, then the cell's occupancy.
//!
//! Coordinates must be JSON integers: `2.0` is `not_integers`, as in Asalto. Integers too
//! large for 64 bits (which the JSON reader can only hold as floats) are `out_of_range`.

use super::board::{SIZE, State};
use crate::games::ReasonCode;
use crate::games::wire::{PairError, excerpt, integer_pair};
use serde_json::Value;

/// A checked move: an empty cell of the board, `row * 8 + col`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move(u8);

impl Move {
    /// The move on `(row, col)`, if the cell is on the board (it may be occupied: only
    /// `parse_move` and the generator check that).
    pub fn at(row: usize, col: usize) -> Option<Move> {
        (row < SIZE && col < SIZE).then(|| Move((row * SIZE + col) as u8))
    }
    pub(crate) fn from_cell(cell: usize) -> Move {
        Move((cell % (SIZE * SIZE)) as u8)
    }
    /// The cell index, `row * 8 + col` (0 to 63).
    pub fn cell(self) -> usize {
        usize::from(self.0)
    }
    /// Row, 0 to 7 from the top.
    pub fn row(self) -> usize {
        self.cell() / SIZE
    }
    /// Column, 0 to 7 from the left.
    pub fn col(self) -> usize {
        self.cell() % SIZE
    }
}

/// Why a reply is not a Gomoku move. Any of them loses the game.
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
    /// An integer coordinate outside 0 to 7.
    #[error("coordinate {value} is out of range (rows and columns are 0..7)")]
    OutOfRange {
        /// The coordinate, shortened.
        value: String,
    },
    /// The cell already holds a stone.
    #[error("cell [{row},{col}] is occupied")]
    Occupied {
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
            Illegal::OutOfRange { .. } => "out_of_range",
            Illegal::Occupied { .. } => "occupied",
        }
    }
}

fn coordinate(v: &Value) -> Result<usize, Illegal> {
    v.as_u64()
        .and_then(|i| usize::try_from(i).ok())
        .filter(|&i| i < SIZE)
        .ok_or_else(|| Illegal::OutOfRange { value: excerpt(v) })
}

/// Parses and checks a reply `[row, col]` for the side to move of `state`.
pub(crate) fn parse_move(state: &State, reply: &Value) -> Result<Move, Illegal> {
    let (r, c) = integer_pair(reply).map_err(|e| match e {
        PairError::WrongShape(detail) => Illegal::WrongShape { detail },
        PairError::NotIntegers(value) => Illegal::NotIntegers { value },
    })?;
    let (row, col) = (coordinate(r)?, coordinate(c)?);
    if state.at(row, col).is_some() {
        return Err(Illegal::Occupied { row, col });
    }
    Ok(Move::from_cell(row * SIZE + col))
}
