//! Reading a bot's reply: any JSON value becomes a checked [`Move`] or a typed [`Illegal`]
//! reason.
//!
//! Checks run from the most basic to the most specific, so a reply gets the reason that
//! names its first real fault: shape, then number types, then ranges (over the whole
//! reply), then the piece on the start point, then segment by segment: the board edge,
//! the geometry (step or jump along a line), the direction rules, and last the occupancy of
//! the target. A rule about the move's kind comes before the board's contents because it
//! would hold on any board.
//!
//! Coordinates must be JSON integers. Numbers written with a fraction or an exponent are
//! floats and count as `not_integers` even when whole (`2.0`): the wire format is integer
//! points and such a bot is worth telling. Integers too large for 64 bits (which the JSON
//! reader can only hold as floats) are `out_of_range`, like any other whole number that is
//! not 0..=6.

use super::board::{self, Piece, Point, REBELS, State};
use super::moves::{Chain, Move, huff_victim};
use crate::games::ReasonCode;
use crate::games::wire::{excerpt, is_integer, kind_of};
use serde_json::Value;

/// Why a reply is not an Asalto move. Points are `[row, col]`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Illegal {
    /// The reply is not a list of two or more `[row, col]` pairs.
    #[error("not a move: {detail}")]
    WrongShape {
        /// What the reply is instead: its kind, its length, or the pair at fault.
        detail: String,
    },
    /// A coordinate is not a JSON integer (a float such as `2.0`, a string, null).
    #[error("coordinates must be integers, got {value}")]
    NotIntegers {
        /// The first such coordinate, shortened.
        value: String,
    },
    /// An integer coordinate outside 0 to 6, the rows and columns of the grid.
    #[error("coordinate {value} is out of range (rows and columns are 0..6)")]
    OutOfRange {
        /// The coordinate, shortened.
        value: String,
    },
    /// A grid cell that is not one of the 33 playable points (a corner of the cross).
    #[error("point {at} is off the board")]
    OffBoard {
        /// The cell, as the reply gave it.
        at: Point0,
    },
    /// The start point does not hold a piece of the side to move.
    #[error("point {at} holds {found}, not one of your pieces")]
    NotYourPiece {
        /// The start point.
        at: Point,
        /// What stands there instead: `nothing`, `a rebel` or `an officer`.
        found: &'static str,
    },
    /// A step or a jump lands on a point that holds a piece.
    #[error("target {at} is occupied")]
    Occupied {
        /// The landing point.
        at: Point,
    },
    /// A rebel step to a lower row (a larger row number), diagonals included.
    #[error("a rebel may not move down ({from} -> {to})")]
    RebelDown {
        /// The rebel's point.
        from: Point,
        /// The point it tried to reach.
        to: Point,
    },
    /// A rebel step away from the middle column: further left from col < 3, or further right
    /// from col > 3.
    #[error("a rebel may not move away from the middle column ({from} -> {to})")]
    RebelOutward {
        /// The rebel's point.
        from: Point,
        /// The point it tried to reach.
        to: Point,
    },
    /// A rebel move of two points along a line: rebels only step.
    #[error("a rebel steps one point; it cannot jump ({from} -> {to})")]
    RebelJump {
        /// The rebel's point.
        from: Point,
        /// The point it tried to reach.
        to: Point,
    },
    /// A rebel move of more than two points: a rebel makes one step a turn.
    #[error("a rebel move is exactly two points, got {points}")]
    RebelMultiStep {
        /// How many points the reply listed.
        points: usize,
    },
    /// A diagonal segment from a point without diagonal lines (`row % 2 != col % 2`).
    #[error("no diagonal line leaves {from} (only points with row % 2 == col % 2 have them)")]
    NoDiagonal {
        /// Where the segment starts.
        from: Point,
        /// Where it ends.
        to: Point,
    },
    /// A segment that is not one or two points along a row, a column or a diagonal.
    #[error("{from} -> {to} is neither a step nor a jump along a line")]
    NotStepOrJump {
        /// Where the segment starts.
        from: Point,
        /// Where it ends.
        to: Point,
    },
    /// A plain step among the segments of a chain of three or more points.
    #[error("every segment of a chain must capture; {from} -> {to} is a plain step")]
    StepInChain {
        /// Where the step starts.
        from: Point,
        /// Where it ends.
        to: Point,
    },
    /// An officer's jump over a point that holds no rebel.
    #[error("the jump {from} -> {to} passes over {over}, which holds {found}, not a rebel")]
    JumpOverNonRebel {
        /// Where the jump starts.
        from: Point,
        /// Where it lands.
        to: Point,
        /// The point jumped over.
        over: Point,
        /// What stands there: `nothing` or `an officer`.
        found: &'static str,
    },
}

/// A coordinate pair that passed the range check but may be off the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Point0 {
    /// Row, 0 to 6 from the top.
    pub row: usize,
    /// Column, 0 to 6 from the left.
    pub col: usize,
}

impl std::fmt::Display for Point0 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{},{}]", self.row, self.col)
    }
}

impl ReasonCode for Illegal {
    fn code(&self) -> &'static str {
        match self {
            Illegal::WrongShape { .. } => "wrong_shape",
            Illegal::NotIntegers { .. } => "not_integers",
            Illegal::OutOfRange { .. } => "out_of_range",
            Illegal::OffBoard { .. } => "off_board",
            Illegal::NotYourPiece { .. } => "not_your_piece",
            Illegal::Occupied { .. } => "occupied",
            Illegal::RebelDown { .. } => "rebel_down",
            Illegal::RebelOutward { .. } => "rebel_outward",
            Illegal::RebelJump { .. } => "rebel_jump",
            Illegal::RebelMultiStep { .. } => "rebel_multi_step",
            Illegal::NoDiagonal { .. } => "no_diagonal",
            Illegal::NotStepOrJump { .. } => "not_step_or_jump",
            Illegal::StepInChain { .. } => "step_in_chain",
            Illegal::JumpOverNonRebel { .. } => "jump_over_non_rebel",
        }
    }
}

fn describe(p: Option<Piece>) -> &'static str {
    match p {
        None => "nothing",
        Some(Piece::Rebel) => "a rebel",
        Some(Piece::Officer) => "an officer",
    }
}

/// One coordinate: an integer in 0..=6.
fn coordinate(v: &Value) -> Result<usize, Illegal> {
    if !is_integer(v) {
        return Err(Illegal::NotIntegers { value: excerpt(v) });
    }
    v.as_u64()
        .and_then(|i| usize::try_from(i).ok())
        .filter(|&i| i < board::SIZE)
        .ok_or_else(|| Illegal::OutOfRange { value: excerpt(v) })
}

/// The reply as grid coordinates, or why it is not a list of `[row, col]` points.
fn coordinates(reply: &Value) -> Result<Vec<Point0>, Illegal> {
    let shape = |detail: String| Illegal::WrongShape { detail };
    let list = match reply {
        Value::Array(list) if list.len() >= 2 => list,
        Value::Array(list) => {
            return Err(shape(format!(
                "expected a list of two or more [row, col] points, got a list of {}",
                list.len()
            )));
        }
        other => {
            return Err(shape(format!(
                "expected a list of two or more [row, col] points, got {}",
                kind_of(other)
            )));
        }
    };
    let mut pairs = Vec::with_capacity(list.len());
    for (i, item) in list.iter().enumerate() {
        match item {
            Value::Array(pair) if pair.len() == 2 => pairs.push((&pair[0], &pair[1])),
            other => {
                return Err(shape(format!(
                    "point {} is not a [row, col] pair: {}",
                    i + 1,
                    excerpt(other)
                )));
            }
        }
    }
    // Types before ranges over the whole reply: a float anywhere is the more basic fault.
    if let Some(v) = pairs
        .iter()
        .flat_map(|&(r, c)| [r, c])
        .find(|v| !is_integer(v))
    {
        return Err(Illegal::NotIntegers { value: excerpt(v) });
    }
    pairs
        .into_iter()
        .map(|(r, c)| {
            Ok(Point0 {
                row: coordinate(r)?,
                col: coordinate(c)?,
            })
        })
        .collect()
}

fn on_board(p: Point0) -> Result<Point, Illegal> {
    Point::new(p.row, p.col).ok_or(Illegal::OffBoard { at: p })
}

/// A segment's geometry: a step or a jump along some direction.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Segment {
    Step,
    Jump,
}

/// Classifies `from -> to` and checks that a diagonal line leaves `from`.
fn segment(from: Point, to: Point) -> Result<Segment, Illegal> {
    let dr = to.row().abs_diff(from.row());
    let dc = to.col().abs_diff(from.col());
    let (kind, diagonal) = match (dr, dc) {
        (0, 1) | (1, 0) => (Segment::Step, false),
        (1, 1) => (Segment::Step, true),
        (0, 2) | (2, 0) => (Segment::Jump, false),
        (2, 2) => (Segment::Jump, true),
        _ => return Err(Illegal::NotStepOrJump { from, to }),
    };
    if diagonal && !from.has_diagonals() {
        return Err(Illegal::NoDiagonal { from, to });
    }
    Ok(kind)
}

/// Parses and checks a reply for the side to move of `state`.
pub(crate) fn parse_move(state: &State, reply: &Value) -> Result<Move, Illegal> {
    let coords = coordinates(reply)?;
    let (&first, rest) = match coords.split_first() {
        Some(split) => split,
        None => {
            return Err(Illegal::WrongShape {
                detail: "expected a list of two or more [row, col] points".into(),
            });
        }
    };
    let from = on_board(first)?;
    let mine = if state.to_move() == REBELS {
        Piece::Rebel
    } else {
        Piece::Officer
    };
    let found = state.piece_at(from);
    if found != Some(mine) {
        return Err(Illegal::NotYourPiece {
            at: from,
            found: describe(found),
        });
    }
    match mine {
        Piece::Rebel => rebel_move(state, from, rest),
        Piece::Officer => officer_move(state, from, rest),
    }
}

fn rebel_move(state: &State, from: Point, rest: &[Point0]) -> Result<Move, Illegal> {
    let Some(&target) = rest.first() else {
        return Err(Illegal::WrongShape {
            detail: "expected a list of two or more [row, col] points".into(),
        });
    };
    let to = on_board(target)?;
    let kind = segment(from, to)?;
    if kind == Segment::Jump {
        return Err(Illegal::RebelJump { from, to });
    }
    if to.row() > from.row() {
        return Err(Illegal::RebelDown { from, to });
    }
    let outward =
        (from.col() < 3 && to.col() < from.col()) || (from.col() > 3 && to.col() > from.col());
    if outward {
        return Err(Illegal::RebelOutward { from, to });
    }
    if state.piece_at(to).is_some() {
        return Err(Illegal::Occupied { at: to });
    }
    if rest.len() > 1 {
        return Err(Illegal::RebelMultiStep {
            points: rest.len() + 1,
        });
    }
    Ok(Move::RebelStep { from, to })
}

fn officer_move(state: &State, from: Point, rest: &[Point0]) -> Result<Move, Illegal> {
    let chained = rest.len() > 1;
    // The board as the chain unfolds: the officer has left its start, and each capture
    // takes its rebel off at once.
    let mut rebels = state.rebels();
    let mut occupied = (state.rebels() | state.officers()) & !from.bit();
    let mut chain = Chain::new(from);
    let mut at = from;
    for &target in rest {
        let to = on_board(target)?;
        let kind = segment(at, to)?;
        match kind {
            Segment::Step => {
                if chained {
                    return Err(Illegal::StepInChain { from: at, to });
                }
                if occupied & to.bit() != 0 {
                    return Err(Illegal::Occupied { at: to });
                }
                return Ok(match huff_victim(state, from) {
                    Some(removed) => Move::Huff { from, to, removed },
                    None => Move::OfficerStep { from, to },
                });
            }
            Segment::Jump => {
                // No line runs through an off-board midpoint ([2,0] -> [0,2] skips [1,1]).
                let Some(over) = board::between(at, to) else {
                    return Err(Illegal::NotStepOrJump { from: at, to });
                };
                if rebels & over.bit() == 0 {
                    let found = if occupied & over.bit() != 0 {
                        "an officer"
                    } else {
                        "nothing"
                    };
                    return Err(Illegal::JumpOverNonRebel {
                        from: at,
                        to,
                        over,
                        found,
                    });
                }
                if occupied & to.bit() != 0 {
                    return Err(Illegal::Occupied { at: to });
                }
                if !chain.push(to) {
                    // Unreachable: each landing removes one of at most 32 rebels.
                    return Err(Illegal::WrongShape {
                        detail: "chain longer than the rebels it could capture".into(),
                    });
                }
                rebels &= !over.bit();
                occupied = (occupied & !over.bit()) | to.bit();
                occupied &= !at.bit();
                at = to;
            }
        }
    }
    Ok(Move::Capture(chain))
}
