//! Gomoku on an 8x8 board, as the course league plays it (docs/rules/gomoku.md): five or
//! more in a row wins, a board where nobody can make five any more is drawn at once, and
//! any illegal reply loses the game.
//!
//! - [`board`]: bitboards, the 96 five-cell windows, the position and its text forms, fast
//!   perft;
//! - [`parse`]: a bot's JSON reply to a checked move or a typed illegal reason.

pub mod board;
pub mod parse;
#[cfg(test)]
mod tests;

pub use board::{BLACK, State, WHITE, WINDOWS, parse_rows};
pub use parse::Move;
pub(crate) use parse::{Illegal, parse_move};

use super::view::{BoardView, Cell, CellKind};
use super::{BoardError, Game, LeaguePoints, Outcome, Side};
use serde_json::{Map, Value, json};

/// The Gomoku 8x8 rules. White (the first side) moves first.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Gomoku;

impl Game for Gomoku {
    type State = State;
    type Move = Move;
    type Illegal = Illegal;

    fn name(&self) -> &'static str {
        "gomoku"
    }
    fn roles(&self) -> [&'static str; 2] {
        ["white", "black"]
    }
    fn openings(&self) -> crate::games::openings::OpeningKind {
        // Measured: README, "Openings".
        crate::games::openings::OpeningKind::Moves { default_plies: 2 }
    }
    fn initial(&self) -> State {
        State::initial()
    }
    fn parse_board(&self, text: &str, side: Side) -> Result<State, BoardError> {
        parse_rows(text, side)
    }
    fn side_to_move(&self, state: &State) -> Side {
        state.to_move()
    }
    fn legal_moves(&self, state: &State, out: &mut Vec<Move>) {
        if state.is_over() {
            return;
        }
        let mut empty = state.empty();
        while empty != 0 {
            out.push(Move::from_cell(empty.trailing_zeros() as usize));
            empty &= empty - 1;
        }
    }
    fn parse_move(&self, state: &State, reply: &Value) -> Result<Move, Illegal> {
        parse_move(state, reply)
    }
    fn move_to_wire(&self, mv: &Move) -> Value {
        json!([mv.row(), mv.col()])
    }
    fn play(&self, state: &mut State, mv: &Move) -> Option<Outcome> {
        state.place(mv.cell())
    }
    fn play_illegal(&self, state: &mut State, _why: &Illegal) -> Option<Outcome> {
        Some(Outcome::win(state.to_move().other(), "illegal_move"))
    }
    fn encode_board(&self, state: &State) -> Value {
        Value::Array(state.rows().into_iter().map(Value::String).collect())
    }
    fn turn_fields(&self, state: &State) -> Map<String, Value> {
        let mut fields = Map::new();
        fields.insert("ply".into(), json!(state.ply()));
        fields
    }
    fn league_points(&self) -> LeaguePoints {
        LeaguePoints { win: 2.0, tie: 1.0 }
    }
    fn render(&self, state: &State) -> String {
        state.render()
    }
    fn view(&self, state: &State) -> BoardView {
        let size = board::SIZE;
        let cells = (0..size * size)
            .map(|i| match state.at(i / size, i % size) {
                Some(Side::First) => Cell::plain("white"),
                Some(Side::Second) => Cell::plain("black"),
                None => Cell::plain("empty"),
            })
            .collect();
        let caption = format!("{} to move", self.role_name(state.to_move()));
        BoardView::new(size, cells, caption)
    }
    fn view_kinds(&self) -> &'static [CellKind] {
        &[
            CellKind {
                name: "white",
                fill: "#fafafa",
                meaning: "white stone",
            },
            CellKind {
                name: "black",
                fill: "#222222",
                meaning: "black stone",
            },
            CellKind {
                name: "empty",
                fill: "#e3c386",
                meaning: "empty",
            },
        ]
    }
}
