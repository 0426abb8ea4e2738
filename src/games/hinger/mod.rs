//! Hinger, as the course coursework plays it (docs/rules/hinger.md): players take one
//! counter at a time from a grid of piles; whoever takes the last counter of a cell that
//! holds a region together (a hinger) wins at once; emptying the board without that is a
//! draw; any illegal reply loses.
//!
//! - [`board`]: the grid, regions, hingers, text forms and random binary boards;
//! - [`parse`]: a bot's JSON reply to a checked move or a typed illegal reason.
//!
//! The game value carries its start positions ([`Starts`]): one fixed grid, a list of
//! boards, or random binary boards, chosen by the start number the referee passes to
//! [`Game::start_position`], so one league can play many boards.

pub mod board;
pub mod parse;
#[cfg(test)]
mod tests;

pub(crate) use board::random_grid;
pub use board::{State, parse_rows};
pub use parse::Move;
pub(crate) use parse::{Illegal, parse_move};

use super::view::{BoardView, Cell, CellKind};
use super::{BoardError, Game, Outcome, Side};
use serde_json::{Map, Value, json};

/// Where a game's first position comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Starts {
    /// Every game starts from this position.
    Fixed(State),
    /// Game number `start` starts from `boards[start % boards.len()]` (never empty).
    Boards(Vec<State>),
    /// Game number `start` starts from a binary board drawn from `(seed, start)` with
    /// `random_grid`: each cell holds a counter with probability `density`.
    Random {
        /// Rows of every board.
        rows: usize,
        /// Columns of every board.
        cols: usize,
        /// The chance that a cell holds a counter, 0 to 1.
        density: f64,
        /// The tournament's seed; a board's own seed mixes it with the start number.
        seed: u64,
    },
}

/// The Hinger rules, with the start positions its games use (first player to move).
#[derive(Clone, Debug, PartialEq)]
pub struct Hinger {
    starts: Starts,
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

/// How many random boards are drawn at most in search of one with a counter on it.
const RANDOM_TRIES: u64 = 64;

impl Hinger {
    /// Every game from `grid` (rows of pile sizes), which must be non-empty and rectangular.
    pub fn new(grid: Vec<Vec<u32>>) -> Result<Hinger, BoardError> {
        Ok(Hinger {
            starts: Starts::Fixed(State::from_grid(&grid, Side::First)?),
        })
    }

    /// Game number `start` from `boards[start % boards.len()]`. Each grid must be non-empty
    /// and rectangular (sizes may differ between boards); an error's `line` is 1-based
    /// within the first bad board, and its message names the board (counted from 0).
    pub fn from_boards(boards: Vec<Vec<Vec<u32>>>) -> Result<Hinger, BoardError> {
        if boards.is_empty() {
            return Err(BoardError {
                line: 0,
                message: "no start boards given".into(),
            });
        }
        let states = boards
            .iter()
            .enumerate()
            .map(|(i, grid)| {
                State::from_grid(grid, Side::First).map_err(|e| BoardError {
                    line: e.line,
                    message: format!("board {i}: {}", e.message),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Hinger {
            starts: Starts::Boards(states),
        })
    }

    /// Game number `start` from a random binary `rows` x `cols` board with cell density
    /// `density` (0..=1), drawn from `seed` and `start` (see `start_seed`): the two games
    /// of a role-swapped pair share a start number and so a board. A board that comes out
    /// empty is redrawn (up to 64 times) unless `density` is 0.
    pub fn random_starts(
        rows: usize,
        cols: usize,
        density: f64,
        seed: u64,
    ) -> Result<Hinger, BoardError> {
        check_random(rows, cols, density)?;
        Ok(Hinger {
            starts: Starts::Random {
                rows,
                cols,
                density,
                seed,
            },
        })
    }

    /// Every game from one random binary grid: see `random_grid`.
    pub fn random(rows: usize, cols: usize, density: f64, seed: u64) -> Result<Hinger, BoardError> {
        Hinger::new(random_grid(rows, cols, density, seed))
    }

    /// Where this game's start positions come from.
    pub fn starts(&self) -> &Starts {
        &self.starts
    }

    /// The grid of start number 0 (the start of every game for a fixed board).
    pub fn grid(&self) -> Vec<Vec<u32>> {
        self.start_position(0).grid()
    }
}

fn check_random(rows: usize, cols: usize, density: f64) -> Result<(), BoardError> {
    let err = |message: String| Err(BoardError { line: 0, message });
    if rows == 0 || cols == 0 {
        return err(format!(
            "a random board needs at least one row and one column, not {rows} x {cols}"
        ));
    }
    if !(0.0..=1.0).contains(&density) {
        return err(format!("a density is between 0 and 1, not {density}"));
    }
    Ok(())
}

/// The seed of the random board for start number `start` of a league seeded `seed`
/// (a splitmix64 mix of both, so that neighbouring seeds and starts give unrelated boards).
pub(crate) fn start_seed(seed: u64, start: u64) -> u64 {
    let mut z = seed ^ start.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The random binary board of start number `start`: redrawn while empty, a few times.
fn random_start(rows: usize, cols: usize, density: f64, seed: u64, start: u64) -> State {
    let base = start_seed(seed, start);
    let mut grid = random_grid(rows, cols, density, base);
    let mut tries = 1;
    while density > 0.0 && tries < RANDOM_TRIES && grid.iter().flatten().all(|&c| c == 0) {
        grid = random_grid(rows, cols, density, start_seed(base, tries));
        tries += 1;
    }
    State::from_grid(&grid, Side::First)
        .unwrap_or_else(|_| unreachable!("checked by random_starts: at least 1 x 1"))
}

/// The number of active regions (8-connected groups of non-empty cells).
#[cfg(test)]
pub(crate) fn regions(state: &State) -> usize {
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
#[cfg(test)]
pub(crate) fn move_cost(state: &State, mv: &Move) -> u32 {
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
    fn openings(&self) -> crate::games::openings::OpeningKind {
        crate::games::openings::OpeningKind::StartBoards
    }
    fn initial(&self) -> State {
        self.start_position(0)
    }
    fn start_position(&self, start: u64) -> State {
        match &self.starts {
            Starts::Fixed(state) => state.clone(),
            Starts::Boards(boards) => {
                // `boards` is never empty (checked by `from_boards`).
                let i = (start % boards.len().max(1) as u64) as usize;
                boards[i].clone()
            }
            Starts::Random {
                rows,
                cols,
                density,
                seed,
            } => random_start(*rows, *cols, *density, *seed, start),
        }
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
    fn start_outcome(&self, state: &State) -> Option<Outcome> {
        // A board without counters (given, or drawn at density 0) is drawn before a move:
        // play ends every other game the moment its last counter goes.
        (state.counters() == 0).then(|| Outcome::tie("all_removed"))
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
    fn view(&self, state: &State) -> BoardView {
        let cells = (0..state.cells().len())
            .map(|i| match state.cells()[i] {
                0 => Cell::plain("empty"),
                n if state.is_hinger(i) => Cell::new("hinger", n.to_string()),
                n => Cell::new("pile", n.to_string()),
            })
            .collect();
        let caption = format!(
            "{} to move; {} counters in {} regions",
            self.role_name(state.to_move()),
            state.counters(),
            state.regions()
        );
        BoardView::new(state.cols(), cells, caption)
    }
    fn view_kinds(&self) -> &'static [CellKind] {
        &[
            CellKind {
                name: "pile",
                fill: "#4f7cac",
                meaning: "counters",
            },
            CellKind {
                name: "hinger",
                fill: "#e08a1e",
                meaning: "hinger: taking it wins",
            },
            CellKind {
                name: "empty",
                fill: "#eeeeee",
                meaning: "empty",
            },
        ]
    }
}
