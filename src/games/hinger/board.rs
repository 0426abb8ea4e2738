//! The Hinger board: a grid of counter piles, its active regions (8-connected components
//! of non-empty cells), its hingers, and its text and random forms.
//!
//! Grids are small (the course plays boards of a few rows and columns), so regions are
//! counted by a flood fill each time rather than kept up to date incrementally.

use crate::games::{BoardError, Side};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// A Hinger position: the piles, row by row, and the side to move.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    rows: usize,
    cols: usize,
    cells: Vec<u32>,
    to_move: Side,
    ply: u32,
    /// Counters left on the board.
    total: u64,
}

impl State {
    /// A position from a grid of piles with `to_move` to move. The grid must be non-empty
    /// and rectangular.
    pub fn from_grid(grid: &[Vec<u32>], to_move: Side) -> Result<State, BoardError> {
        let err = |line: usize, message: String| BoardError { line, message };
        let rows = grid.len();
        let cols = grid.first().map_or(0, Vec::len);
        if rows == 0 || cols == 0 {
            return Err(err(
                0,
                "a board needs at least one row and one column".into(),
            ));
        }
        if let Some(r) = grid.iter().position(|row| row.len() != cols) {
            return Err(err(
                r + 1,
                format!(
                    "rows must all be as long as the first ({cols} cells); row {r} has {}",
                    grid[r].len()
                ),
            ));
        }
        let cells: Vec<u32> = grid.iter().flatten().copied().collect();
        let total = cells.iter().map(|&c| u64::from(c)).sum();
        Ok(State {
            rows,
            cols,
            cells,
            to_move,
            ply: 0,
            total,
        })
    }

    /// Rows of the grid.
    pub fn rows(&self) -> usize {
        self.rows
    }
    /// Columns of the grid.
    pub fn cols(&self) -> usize {
        self.cols
    }
    /// The side whose turn it is.
    pub fn to_move(&self) -> Side {
        self.to_move
    }
    /// Moves played since the start position.
    pub fn ply(&self) -> u32 {
        self.ply
    }
    /// Counters left on the board.
    pub fn counters(&self) -> u64 {
        self.total
    }
    /// The pile on `(row, col)`; 0 off the board.
    pub fn at(&self, row: usize, col: usize) -> u32 {
        self.index(row, col).map_or(0, |i| self.cells[i])
    }
    /// The piles, row-major.
    pub fn cells(&self) -> &[u32] {
        &self.cells
    }
    /// The row-major index of `(row, col)` into [`State::cells`]; `None` off the board.
    pub fn index(&self, row: usize, col: usize) -> Option<usize> {
        (row < self.rows && col < self.cols).then(|| row * self.cols + col)
    }
    /// The piles as a grid.
    pub fn grid(&self) -> Vec<Vec<u32>> {
        self.cells.chunks(self.cols).map(<[u32]>::to_vec).collect()
    }

    /// The on-board neighbours of cell `i` (up to 8).
    pub fn neighbours(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        let (r, c) = (i / self.cols, i % self.cols);
        (-1isize..=1)
            .flat_map(|dr| (-1isize..=1).map(move |dc| (dr, dc)))
            .filter(|&d| d != (0, 0))
            .filter_map(move |(dr, dc)| {
                let nr = r.checked_add_signed(dr)?;
                let nc = c.checked_add_signed(dc)?;
                self.index(nr, nc)
            })
    }

    /// Active cells next to cell `i`.
    pub fn active_neighbours(&self, i: usize) -> usize {
        self.neighbours(i).filter(|&j| self.cells[j] > 0).count()
    }

    /// The number of active regions.
    pub fn regions(&self) -> usize {
        let mut seen = vec![false; self.cells.len()];
        let mut stack = Vec::new();
        let mut count = 0;
        for start in 0..self.cells.len() {
            if seen[start] || self.cells[start] == 0 {
                continue;
            }
            count += 1;
            seen[start] = true;
            stack.push(start);
            while let Some(i) = stack.pop() {
                for j in self.neighbours(i) {
                    if !seen[j] && self.cells[j] > 0 {
                        seen[j] = true;
                        stack.push(j);
                    }
                }
            }
        }
        count
    }

    /// Whether cell `i` is a hinger: one counter, and taking it splits a region.
    ///
    /// The cell and its active neighbours lie in one region. Without the cell, that region
    /// falls into as many parts as there are groups of neighbours still connected to each
    /// other, so the count of regions grows exactly when some neighbour can no longer
    /// reach another: one fill from a neighbour, stopped as soon as it has met them all.
    pub fn is_hinger(&self, i: usize) -> bool {
        if self.cells.get(i) != Some(&1) {
            return false;
        }
        let mut around = self.neighbours(i).filter(|&j| self.cells[j] > 0);
        let Some(first) = around.next() else {
            return false;
        };
        let mut unmet = around.count();
        if unmet == 0 {
            return false;
        }
        let (r, c) = (i / self.cols, i % self.cols);
        let touches =
            |j: usize| (j / self.cols).abs_diff(r) <= 1 && (j % self.cols).abs_diff(c) <= 1;
        let mut seen = vec![false; self.cells.len()];
        seen[i] = true;
        seen[first] = true;
        let mut stack = vec![first];
        while let Some(x) = stack.pop() {
            for j in self.neighbours(x) {
                if !seen[j] && self.cells[j] > 0 {
                    seen[j] = true;
                    if touches(j) {
                        unmet -= 1;
                        if unmet == 0 {
                            return false;
                        }
                    }
                    stack.push(j);
                }
            }
        }
        true
    }

    /// Every hinger, row-major, as cell indices.
    pub fn hinger_cells(&self) -> Vec<usize> {
        (0..self.cells.len())
            .filter(|&i| self.is_hinger(i))
            .collect()
    }

    /// Takes one counter from cell `i` (if it holds one) and passes the turn.
    pub(crate) fn remove(&mut self, i: usize) {
        if let Some(c) = self.cells.get_mut(i).filter(|c| **c > 0) {
            *c -= 1;
            self.total -= 1;
        }
        self.pass();
    }

    /// Passes the turn without a move.
    pub(crate) fn pass(&mut self) {
        self.to_move = self.to_move.other();
        self.ply = self.ply.saturating_add(1);
    }

    /// The piles as text: one line per row, counts separated by spaces.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for row in self.cells.chunks(self.cols) {
            let line: Vec<String> = row.iter().map(u32::to_string).collect();
            out.push_str(&line.join(" "));
            out.push('\n');
        }
        out
    }
}

/// A position from text: one line per row of space-separated counts (blank lines at the
/// end are ignored), with `to_move` to move.
pub fn parse_rows(text: &str, to_move: Side) -> Result<State, BoardError> {
    let lines: Vec<&str> = text.lines().collect();
    let used = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .map_or(0, |i| i + 1);
    let mut grid = Vec::with_capacity(used);
    for (r, line) in lines.iter().take(used).enumerate() {
        let mut row = Vec::new();
        for (c, word) in line.split_whitespace().enumerate() {
            let count = word.parse::<u32>().map_err(|_| BoardError {
                line: r + 1,
                message: format!(
                    "column {} (cell [{r},{c}]): {word:?} is not a counter count \
                     (a whole number 0 or more)",
                    c + 1
                ),
            })?;
            row.push(count);
        }
        if row.is_empty() {
            return Err(BoardError {
                line: r + 1,
                message: "empty row (a row lists its counts separated by spaces)".into(),
            });
        }
        grid.push(row);
    }
    State::from_grid(&grid, to_move)
}

/// A binary grid (0 or 1 counter per cell) of `rows` x `cols`, each cell active with
/// probability `density` (clamped to 0..=1; NaN counts as 0), drawn from `seed`.
pub(crate) fn random_grid(rows: usize, cols: usize, density: f64, seed: u64) -> Vec<Vec<u32>> {
    let p = if density.is_nan() {
        0.0
    } else {
        density.clamp(0.0, 1.0)
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    (0..rows)
        .map(|_| (0..cols).map(|_| u32::from(rng.random_bool(p))).collect())
        .collect()
}
