//! Hinger, as the course coursework plays it (shared/rules/hinger.md): players take one
//! counter at a time from a grid of piles; whoever takes the last counter of a cell that
//! holds a region together (a hinger) wins at once; emptying the board without that is a
//! draw; any illegal reply loses.
//!
//! - [`board`]: the grid, regions, hingers, text forms and random binary boards;
//! - [`parse`]: a bot's JSON reply to a checked move or a typed illegal reason.
//!
//! The game value carries its start grid, so one league can play many boards.

pub mod board;
pub mod parse;
#[cfg(test)]
mod tests;

pub use board::{State, parse_rows, random_grid};
pub use parse::{Illegal, Move, parse_move};

use super::{BoardError, Game, Outcome, Side};
use serde_json::{Map, Value, json};

/// The Hinger rules from a given start grid (first player to move).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hinger {
    start: State,
}

impl Default for Hinger {
    /// State B of the assignment's Figure 1 (a binary 4 x 5 board with two hingers).
    fn default() -> Self {
        let grid = vec![
            vec![1, 1, 0, 0, 1],
            vec![1, 1, 0, 0, 0],
            vec![0, 0, 1, 1, 1],
            vec![0, 0, 0, 1, 1],
        ];
        Hinger::new(grid).unwrap_or_else(|_| unreachable!("a fixed rectangular grid"))
    }
}

impl Hinger {
    /// The game from `grid` (rows of pile sizes), which must be non-empty and rectangular.
    pub fn new(grid: Vec<Vec<u32>>) -> Result<Hinger, BoardError> {
        Ok(Hinger {
            start: State::from_grid(&grid, Side::First)?,
        })
    }

    /// The game from a random binary grid: see [`random_grid`].
    pub fn random(rows: usize, cols: usize, density: f64, seed: u64) -> Result<Hinger, BoardError> {
        Hinger::new(random_grid(rows, cols, density, seed))
    }

    /// The start grid.
    pub fn grid(&self) -> Vec<Vec<u32>> {
        self.start.grid()
    }
}

/// The number of active regions (8-connected groups of non-empty cells).
pub fn regions(state: &State) -> usize {
    state.regions()
}

/// Every hinger of `state`, row-major, as the moves that take them.
pub fn hingers(state: &State) -> Vec<Move> {
    state
        .hinger_cells()
        .into_iter()
        .map(|i| Move::new(i / state.cols(), i % state.cols()))
        .collect()
}

/// What a move costs, for reports: 1 plus the active cells next to it before it is made.
pub fn move_cost(state: &State, mv: &Move) -> u32 {
    state
        .index(mv.row(), mv.col())
        .map_or(1, |i| 1 + state.active_neighbours(i) as u32)
}

impl Game for Hinger {
    type State = State;
    type Move = Move;
    type Illegal = Illegal;

    fn name(&self) -> &'static str {
        "hinger"
    }
    fn roles(&self) -> [&'static str; 2] {
        ["first", "second"]
    }
    fn initial(&self) -> State {
        self.start.clone()
    }
    fn parse_board(&self, text: &str, side: Side) -> Result<State, BoardError> {
        parse_rows(text, side)
    }
    fn side_to_move(&self, state: &State) -> Side {
        state.to_move()
    }
    fn legal_moves(&self, state: &State, out: &mut Vec<Move>) {
        let cols = state.cols();
        out.extend(
            state
                .cells()
                .iter()
                .enumerate()
                .filter(|(_, c)| **c > 0)
                .map(|(i, _)| Move::new(i / cols, i % cols)),
        );
    }
    fn parse_move(&self, state: &State, reply: &Value) -> Result<Move, Illegal> {
        parse_move(state, reply)
    }
    fn move_to_wire(&self, mv: &Move) -> Value {
        json!([mv.row(), mv.col()])
    }
    fn play(&self, state: &mut State, mv: &Move) -> Option<Outcome> {
        let mover = state.to_move();
        let cell = state.index(mv.row(), mv.col());
        let hinger = cell.is_some_and(|i| state.is_hinger(i));
        match cell {
            Some(i) => state.remove(i),
            None => state.pass(),
        }
        if hinger {
            Some(Outcome::win(mover, "hinger"))
        } else if state.counters() == 0 {
            Some(Outcome::tie("all_removed"))
        } else {
            None
        }
    }
    fn play_illegal(&self, state: &mut State, _why: &Illegal) -> Option<Outcome> {
        Some(Outcome::win(state.to_move().other(), "illegal_move"))
    }
    fn play_pass(&self, state: &mut State) -> Option<Outcome> {
        // Only an empty board leaves a side without a move.
        if state.counters() == 0 {
            Some(Outcome::tie("all_removed"))
        } else {
            state.pass();
            None
        }
    }
    fn encode_board(&self, state: &State) -> Value {
        json!(state.grid())
    }
    fn turn_fields(&self, state: &State) -> Map<String, Value> {
        let mut fields = Map::new();
        fields.insert("ply".into(), json!(state.ply()));
        fields
    }
    fn render(&self, state: &State) -> String {
        let side = self.role_name(state.to_move());
        format!("{}{side} to move, ply {}\n", state.text(), state.ply())
    }
}
