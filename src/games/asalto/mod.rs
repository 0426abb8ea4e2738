//! Asalto, as the course league plays it (docs/rules/asalto.md): 24 rebels try to fill
//! the fortress, 2 officers try to capture them.
//!
//! - [`board`]: points, bitboards, line tables, the position and its text forms;
//! - `moves`: moves, generation, unchecked play, the end rules, fast perft;
//! - [`parse`]: a bot's JSON reply to a checked move or a typed illegal reason.
//!
//! The [`Game`] implementation glues them together for the referee; searchers use the
//! module functions directly ([`generate`], [`Asalto::play_unchecked`]) and skip the JSON.

pub mod board;
pub(crate) mod moves;
pub mod parse;
#[cfg(test)]
mod tests;

pub(crate) use board::Piece;
pub use board::{FORTRESS, OFFICERS, Point, REBELS, State};
pub use moves::{Move, generate};
pub(crate) use parse::{Illegal, parse_move};

use super::view::{BoardView, Cell, CellKind};
use super::{BoardError, Game, Outcome, Side};
use serde_json::{Map, Value, json};

/// `n` in decimal, as JSON writes it, appended to `out`.
fn push_decimal(n: u32, out: &mut Vec<u8>) {
    let mut digits = [0u8; 10];
    let mut at = digits.len();
    let mut rest = n;
    loop {
        at -= 1;
        digits[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
        if rest == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// The Asalto rules with a configurable round limit (the course plays 1000).
#[derive(Clone, Debug)]
pub struct Asalto {
    /// Rounds (a rebel turn and an officer turn) before the game is decided on illegal-move
    /// counts: it ends after `2 * round_limit` turns of any kind.
    pub round_limit: u32,
}

impl Default for Asalto {
    fn default() -> Self {
        Asalto { round_limit: 1000 }
    }
}

impl Game for Asalto {
    type State = State;
    type Move = Move;
    type Illegal = Illegal;

    fn name(&self) -> &'static str {
        "asalto"
    }
    fn roles(&self) -> [&'static str; 2] {
        ["rebel", "officer"]
    }
    fn openings(&self) -> crate::games::openings::OpeningKind {
        // Measured: README, "Openings".
        crate::games::openings::OpeningKind::Moves { default_plies: 5 }
    }
    fn initial(&self) -> State {
        State::initial()
    }
    fn parse_board(&self, text: &str, side: Side) -> Result<State, BoardError> {
        board::parse_rows(text, side)
    }
    fn side_to_move(&self, state: &State) -> Side {
        state.to_move()
    }
    fn legal_moves(&self, state: &State, out: &mut Vec<Move>) {
        generate(state, out);
    }
    fn parse_move(&self, state: &State, reply: &Value) -> Result<Move, Illegal> {
        parse_move(state, reply)
    }
    fn move_to_wire(&self, mv: &Move) -> Value {
        Value::Array(
            mv.points()
                .into_iter()
                .map(|p| json!([p.row(), p.col()]))
                .collect(),
        )
    }
    fn play(&self, state: &mut State, mv: &Move) -> Option<Outcome> {
        self.play_unchecked(state, mv)
    }
    fn play_illegal(&self, state: &mut State, _why: &Illegal) -> Option<Outcome> {
        self.play_illegal_turn(state)
    }
    fn encode_board(&self, state: &State) -> Value {
        Value::Array(state.rows().into_iter().map(Value::String).collect())
    }
    fn turn_fields(&self, state: &State) -> Map<String, Value> {
        let mut fields = Map::new();
        fields.insert("ply".into(), json!(state.ply()));
        fields.insert(
            "illegal".into(),
            json!({"rebel": state.illegal(REBELS), "officer": state.illegal(OFFICERS)}),
        );
        fields
    }
    fn write_turn(&self, state: &State, out: &mut Vec<u8>) {
        // The bytes of the default (serde's encoding of `encode_board` and `turn_fields`,
        // keys sorted), written without building seven strings and two maps a ply.
        out.extend_from_slice(b"{\"type\":\"turn\",\"role\":\"");
        out.extend_from_slice(self.role_name(state.to_move()).as_bytes());
        out.extend_from_slice(b"\",\"board\":[");
        for row in 0..board::SIZE {
            if row > 0 {
                out.push(b',');
            }
            out.push(b'"');
            state.write_row(row, out);
            out.push(b'"');
        }
        out.extend_from_slice(b"],\"illegal\":{\"officer\":");
        push_decimal(state.illegal(OFFICERS), out);
        out.extend_from_slice(b",\"rebel\":");
        push_decimal(state.illegal(REBELS), out);
        out.extend_from_slice(b"},\"ply\":");
        push_decimal(state.ply(), out);
        out.extend_from_slice(b"}\n");
    }
    fn move_kind(&self, mv: &Move) -> &'static str {
        match mv {
            Move::Huff { .. } => "huff",
            _ => "move",
        }
    }
    fn render(&self, state: &State) -> String {
        state.render()
    }
    fn view(&self, state: &State) -> BoardView {
        let size = board::SIZE;
        let mut cells = Vec::with_capacity(size * size);
        for row in 0..size {
            for col in 0..size {
                cells.push(match Point::new(row, col) {
                    None => Cell::off(),
                    Some(p) => match state.piece_at(p) {
                        Some(Piece::Rebel) => Cell::new("rebel", "R"),
                        Some(Piece::Officer) => Cell::new("officer", "O"),
                        None if p.bit() & FORTRESS != 0 => Cell::plain("fortress"),
                        None => Cell::plain("empty"),
                    },
                });
            }
        }
        let caption = format!(
            "{} to move; illegal moves: rebel {}, officer {}",
            self.role_name(state.to_move()),
            state.illegal(REBELS),
            state.illegal(OFFICERS)
        );
        BoardView::new(size, cells, caption)
    }
    fn view_kinds(&self) -> &'static [CellKind] {
        &[
            CellKind {
                name: "rebel",
                fill: "#c0392b",
                meaning: "rebel",
            },
            CellKind {
                name: "officer",
                fill: "#1f4e99",
                meaning: "officer",
            },
            CellKind {
                name: "empty",
                fill: "#efe4c8",
                meaning: "empty point",
            },
            CellKind {
                name: "fortress",
                fill: "#d9c48f",
                meaning: "empty fortress point",
            },
        ]
    }
}
