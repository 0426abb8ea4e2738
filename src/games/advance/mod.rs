//! Advance on a 9x9 board, as the course plays it (docs/rules/advance.md): eight kinds of
//! pieces with their own moves, walls, a General that may never be left in danger, loss
//! for the side to move without a legal move, and a material adjudication after 100 moves
//! of each side. Any illegal reply loses the game.
//!
//! - [`board`]: the cells, move generation, danger, the board-file text form;
//! - this module: the [`Game`] implementation and reading a bot's reply, which is either a
//!   move `[[row, col], [row, col]]` (with a third item `"build"` for a Builder's wall) or
//!   the board after the move as 9 strings (what console bots hand in).

pub mod board;
#[cfg(test)]
mod tests;

pub use board::{BLACK, Kind, Move, State, WHITE, parse_board};

use super::view::{BoardView, Cell, CellKind};
use super::wire::{excerpt, kind_of};
use super::{BoardError, Game, Outcome, ReasonCode, Side};
use serde_json::{Map, Value, json};

/// The Advance rules. White moves first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Advance;

/// Why a reply is not an Advance move. Any of them loses the game.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Illegal {
    /// The reply is neither a move `[[row, col], [row, col]]` (with `"build"` for a wall) nor
    /// the board's 9 rows.
    #[error("not a move: {detail}")]
    WrongShape {
        /// What the reply is instead.
        detail: String,
    },
    /// The reply is 9 strings that are not a board: a row of the wrong length, an unknown
    /// letter, a second General.
    #[error("{detail}")]
    BadBoard {
        /// The row at fault (counted from 0) or the board, and what is wrong with it.
        detail: String,
    },
    /// The reply is well formed, but no legal move is that move or leaves that board.
    #[error("no legal move {what}")]
    NoSuchMove {
        /// What follows "no legal move" in the message: `is [[6,4],[5,4]]`, `gives this board`.
        what: String,
    },
}

impl ReasonCode for Illegal {
    fn code(&self) -> &'static str {
        match self {
            Illegal::WrongShape { .. } => "wrong_shape",
            Illegal::BadBoard { .. } => "bad_board",
            Illegal::NoSuchMove { .. } => "illegal",
        }
    }
}

fn cell_of(v: &Value) -> Option<u8> {
    let pair = v.as_array().filter(|p| p.len() == 2)?;
    let r = pair[0].as_u64().filter(|&r| r < board::SIZE as u64)?;
    let c = pair[1].as_u64().filter(|&c| c < board::SIZE as u64)?;
    Some((r * board::SIZE as u64 + c) as u8)
}

/// The legal move of `state` whose board is `target`'s, if any (several moves can give
/// one board, two Catapults shooting one piece say: the first in generation order).
pub fn move_to_board(state: &State, target: &State) -> Option<Move> {
    let mut moves = Vec::new();
    state.legal_moves(&mut moves);
    moves.into_iter().find(|mv| {
        let mut next = state.clone();
        next.apply_board(mv);
        next.rows() == target.rows()
    })
}

fn parse_reply(state: &State, reply: &Value) -> Result<Move, Illegal> {
    let items = reply.as_array().ok_or_else(|| Illegal::WrongShape {
        detail: format!(
            "expected [[row, col], [row, col]] or the board's 9 rows, got {}",
            kind_of(reply)
        ),
    })?;
    if items.len() == board::SIZE && items.iter().all(Value::is_string) {
        let text: String = items
            .iter()
            .filter_map(Value::as_str)
            .map(|r| format!("{r}\n"))
            .collect();
        let target =
            parse_board(&text, state.to_move().other()).map_err(|e| Illegal::BadBoard {
                detail: match e.line {
                    0 => format!("the board: {}", e.message),
                    n => format!("row {}: {}", n - 1, e.message),
                },
            })?;
        return move_to_board(state, &target).ok_or_else(|| Illegal::NoSuchMove {
            what: "gives this board".into(),
        });
    }
    let build = match items.get(2) {
        None if items.len() == 2 => false,
        Some(Value::String(s)) if s == "build" && items.len() == 3 => true,
        _ => {
            return Err(Illegal::WrongShape {
                detail: format!(
                    "expected [[row, col], [row, col]], optionally with \"build\", got {}",
                    excerpt(reply)
                ),
            });
        }
    };
    let (Some(from), Some(to)) = (cell_of(&items[0]), cell_of(&items[1])) else {
        return Err(Illegal::WrongShape {
            detail: format!(
                "cells are [row, col] with integers 0..8, got {}",
                excerpt(reply)
            ),
        });
    };
    let mut moves = Vec::new();
    state.legal_moves(&mut moves);
    moves
        .into_iter()
        .find(|m| m.from == from && m.to == to && (m.kind == Kind::Build) == build)
        .ok_or_else(|| Illegal::NoSuchMove {
            what: format!("is {}", excerpt(reply)),
        })
}

impl Game for Advance {
    type State = State;
    type Move = Move;
    type Illegal = Illegal;

    fn name(&self) -> &'static str {
        "advance"
    }
    fn roles(&self) -> [&'static str; 2] {
        ["white", "black"]
    }
    fn initial(&self) -> State {
        State::initial()
    }
    fn parse_board(&self, text: &str, side: Side) -> Result<State, BoardError> {
        parse_board(text, side)
    }
    fn side_to_move(&self, state: &State) -> Side {
        state.to_move()
    }
    fn legal_moves(&self, state: &State, out: &mut Vec<Move>) {
        state.legal_moves(out)
    }
    fn parse_move(&self, state: &State, reply: &Value) -> Result<Move, Illegal> {
        parse_reply(state, reply)
    }
    fn move_to_wire(&self, mv: &Move) -> Value {
        let (a, b) = (mv.from_rc(), mv.to_rc());
        if mv.kind == Kind::Build {
            json!([[a.0, a.1], [b.0, b.1], "build"])
        } else {
            json!([[a.0, a.1], [b.0, b.1]])
        }
    }
    fn play(&self, state: &mut State, mv: &Move) -> Option<Outcome> {
        state.play(mv)
    }
    fn play_illegal(&self, state: &mut State, _why: &Illegal) -> Option<Outcome> {
        state.set_over();
        Some(Outcome::win(state.to_move().other(), "illegal_move"))
    }
    fn start_outcome(&self, state: &State) -> Option<Outcome> {
        state.outcome_now()
    }
    fn encode_board(&self, state: &State) -> Value {
        Value::Array(state.rows().into_iter().map(Value::String).collect())
    }
    fn turn_fields(&self, state: &State) -> Map<String, Value> {
        let mut fields = Map::new();
        fields.insert("ply".into(), json!(state.ply()));
        fields
    }
    fn board_file(&self, state: &State) -> Option<String> {
        Some(state.text())
    }
    fn move_to_reach(&self, state: &State, target: &State) -> Option<Move> {
        move_to_board(state, target)
    }
    fn render(&self, state: &State) -> String {
        state.render()
    }
    fn view(&self, state: &State) -> BoardView {
        let size = board::SIZE;
        let cells = (0..size * size)
            .map(|i| match state.cell(i) {
                b'.' => Cell::plain("empty"),
                b'#' => Cell::plain("wall"),
                p => match board::colour(p) {
                    Some(Side::First) => Cell::new("white", (p as char).to_string()),
                    Some(Side::Second) => Cell::new("black", (p as char).to_string()),
                    None => Cell::new("unknown", (p as char).to_string()),
                },
            })
            .collect();
        let caption = format!(
            "{} to move; material white {}, black {}",
            self.role_name(state.to_move()),
            state.material(Side::First),
            state.material(Side::Second)
        );
        BoardView::new(size, cells, caption)
    }
    fn view_kinds(&self) -> &'static [CellKind] {
        &[
            CellKind {
                name: "white",
                fill: "#f3ead2",
                meaning: "white piece (Z zombie, B builder, J jester, M miner, S sentinel, \
                          C catapult, D dragon, G general)",
            },
            CellKind {
                name: "black",
                fill: "#3b3b3b",
                meaning: "black piece (lowercase letters)",
            },
            CellKind {
                name: "wall",
                fill: "#8a6d4b",
                meaning: "wall",
            },
            CellKind {
                name: "empty",
                fill: "#d8d8d8",
                meaning: "empty",
            },
        ]
    }
}
