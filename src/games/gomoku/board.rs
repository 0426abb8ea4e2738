//! The Gomoku 8x8 board as two bitboards, the 96 five-cell windows that decide the end of
//! the game, and the board's text forms.
//!
//! Cell `row * 8 + col` is bit `row * 8 + col` of a `u64`. Every way to win passes through
//! a window (six in a row contains five), so wins and the early draw are both questions
//! about windows, answered with one AND per window.

use crate::games::{BoardError, Outcome, Side};

/// Rows and columns per side.
pub(crate) const SIZE: usize = 8;
/// Cells on the board.
pub const CELLS: usize = SIZE * SIZE;
/// Stones in a winning line.
pub(crate) const LINE: usize = 5;
/// Five-cell windows: 8 rows x 4, 8 columns x 4, 16 diagonals and 16 anti-diagonals.
pub(crate) const WINDOW_COUNT: usize = 96;
/// Windows through one cell at most: 5 per direction.
const MAX_PER_CELL: usize = 20;
const FULL: u64 = u64::MAX;

/// The side that plays white (moves first).
pub const WHITE: Side = Side::First;
/// The side that plays black.
pub const BLACK: Side = Side::Second;

const fn build_windows() -> [u64; WINDOW_COUNT] {
    let mut out = [0u64; WINDOW_COUNT];
    let dirs: [(isize, isize); 4] = [(0, 1), (1, 0), (1, 1), (1, -1)];
    let mut n = 0;
    let mut d = 0;
    while d < 4 {
        let (dr, dc) = dirs[d];
        let mut r = 0;
        while r < SIZE as isize {
            let mut c = 0;
            while c < SIZE as isize {
                let (er, ec) = (r + dr * (LINE as isize - 1), c + dc * (LINE as isize - 1));
                if er >= 0 && er < SIZE as isize && ec >= 0 && ec < SIZE as isize {
                    let mut mask = 0u64;
                    let mut k = 0;
                    while k < LINE as isize {
                        mask |= 1u64 << ((r + dr * k) * SIZE as isize + c + dc * k);
                        k += 1;
                    }
                    out[n] = mask;
                    n += 1;
                }
                c += 1;
            }
            r += 1;
        }
        d += 1;
    }
    assert!(n == WINDOW_COUNT);
    out
}

/// Every five-cell window as a mask of cells.
pub const WINDOWS: [u64; WINDOW_COUNT] = build_windows();

const fn build_cell_windows() -> ([[u8; MAX_PER_CELL]; CELLS], [u8; CELLS]) {
    let mut lists = [[0u8; MAX_PER_CELL]; CELLS];
    let mut counts = [0u8; CELLS];
    let mut w = 0;
    while w < WINDOW_COUNT {
        let mut cell = 0;
        while cell < CELLS {
            if WINDOWS[w] & (1u64 << cell) != 0 {
                lists[cell][counts[cell] as usize] = w as u8;
                counts[cell] += 1;
            }
            cell += 1;
        }
        w += 1;
    }
    (lists, counts)
}

const CELL_WINDOW_TABLE: ([[u8; MAX_PER_CELL]; CELLS], [u8; CELLS]) = build_cell_windows();

/// The indices into [`WINDOWS`] of the windows through `cell` (0..64).
pub fn windows_through(cell: usize) -> &'static [u8] {
    let (lists, counts) = &CELL_WINDOW_TABLE;
    match (lists.get(cell), counts.get(cell)) {
        (Some(list), Some(&n)) => &list[..n as usize],
        _ => &[],
    }
}

/// Whether `stones` fill some window through `cell`: the check after a stone lands there.
pub(crate) fn five_through(stones: u64, cell: usize) -> bool {
    windows_through(cell).iter().any(|&w| {
        let mask = WINDOWS[w as usize];
        stones & mask == mask
    })
}

/// Whether `stones` fill any window.
pub(crate) fn has_five(stones: u64) -> bool {
    WINDOWS.iter().any(|&mask| mask & !stones == 0)
}

/// Whether every window holds stones of both colours, so that nobody can ever win.
pub(crate) fn no_window_left(white: u64, black: u64) -> bool {
    WINDOWS
        .iter()
        .all(|&mask| white & mask != 0 && black & mask != 0)
}

/// A Gomoku position: the stones, the side to move, and whether the game is over.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct State {
    white: u64,
    black: u64,
    to_move: Side,
    ply: u32,
    /// A finished position has no legal moves (set by a deciding move or a board file
    /// that already holds a decided game).
    over: bool,
}

impl Default for State {
    fn default() -> Self {
        State::initial()
    }
}

impl State {
    /// The empty board, white to move.
    pub const fn initial() -> Self {
        State {
            white: 0,
            black: 0,
            to_move: WHITE,
            ply: 0,
            over: false,
        }
    }

    /// The bitboard of white stones: bit `row * 8 + col`.
    pub fn white(&self) -> u64 {
        self.white
    }
    /// The bitboard of black stones: bit `row * 8 + col`.
    pub fn black(&self) -> u64 {
        self.black
    }
    /// The stones of `side`.
    pub fn stones(&self, side: Side) -> u64 {
        match side {
            Side::First => self.white,
            Side::Second => self.black,
        }
    }
    /// The bitboard of cells holding a stone of either colour.
    pub fn occupied(&self) -> u64 {
        self.white | self.black
    }
    /// The bitboard of empty cells.
    pub fn empty(&self) -> u64 {
        !self.occupied()
    }
    /// The side whose turn it is.
    pub fn to_move(&self) -> Side {
        self.to_move
    }
    /// Stones on the board (for a position from a board file) plus moves played since.
    pub fn ply(&self) -> u32 {
        self.ply
    }
    /// Whether the game is decided (a win or a draw): then no move is legal.
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// The stone on `(row, col)`, if any.
    pub fn at(&self, row: usize, col: usize) -> Option<Side> {
        if row >= SIZE || col >= SIZE {
            return None;
        }
        let bit = 1u64 << (row * SIZE + col);
        if self.white & bit != 0 {
            Some(WHITE)
        } else if self.black & bit != 0 {
            Some(BLACK)
        } else {
            None
        }
    }

    /// Places a stone of the side to move on `cell` (0..64, assumed empty) and passes the
    /// turn. Returns how the game ended, if it did.
    pub fn place(&mut self, cell: usize) -> Option<Outcome> {
        let bit = 1u64 << (cell % CELLS);
        let mover = self.to_move;
        let mine = match mover {
            Side::First => &mut self.white,
            Side::Second => &mut self.black,
        };
        *mine |= bit;
        let mine = *mine;
        self.to_move = mover.other();
        self.ply = self.ply.saturating_add(1);
        let outcome = if five_through(mine, cell % CELLS) {
            Some(Outcome::win(mover, "five_in_row"))
        } else {
            self.draw()
        };
        self.over = outcome.is_some();
        outcome
    }

    /// The draw that the stones already decide, if any. A full board without a five always
    /// has every window mixed; it is reported as the more telling `board_full`.
    fn draw(&self) -> Option<Outcome> {
        if self.occupied() == FULL {
            Some(Outcome::tie("board_full"))
        } else if no_window_left(self.white, self.black) {
            Some(Outcome::tie("no_window_left"))
        } else {
            None
        }
    }

    /// How the stones on the board decide the game, if they do: a five (the side that did
    /// not move last is checked second, as it cannot have made it), or a draw.
    pub fn decided(&self) -> Option<Outcome> {
        let last = self.to_move.other();
        for side in [last, self.to_move] {
            if has_five(self.stones(side)) {
                return Some(Outcome::win(side, "five_in_row"));
            }
        }
        self.draw()
    }

    /// The board as 8 strings of 8 cells: `.` empty, `W` white, `B` black.
    pub fn rows(&self) -> Vec<String> {
        (0..SIZE)
            .map(|r| {
                (0..SIZE)
                    .map(|c| match self.at(r, c) {
                        Some(Side::First) => 'W',
                        Some(Side::Second) => 'B',
                        None => '.',
                    })
                    .collect()
            })
            .collect()
    }

    /// The board with coordinates, for people.
    pub fn render(&self) -> String {
        let mut out = String::from("  01234567\n");
        for (r, row) in self.rows().iter().enumerate() {
            out.push_str(&format!("{r} {row}\n"));
        }
        let side = match self.to_move {
            Side::First => "white",
            Side::Second => "black",
        };
        out.push_str(&format!("{side} to move, ply {}\n", self.ply));
        out
    }
}

/// A position from 8 lines of 8 cells (`.`, `W`, `B`; trailing spaces and blank lines at
/// the end are ignored) with `to_move` to move. A board whose stones already decide the
/// game is accepted as a finished position without moves; one where both colours have a
/// five is not a position any game reaches and is refused.
pub fn parse_rows(text: &str, to_move: Side) -> Result<State, BoardError> {
    let err = |line: usize, message: String| BoardError { line, message };
    let lines: Vec<&str> = text.lines().map(str::trim_end).collect();
    let used = lines
        .iter()
        .rposition(|l| !l.is_empty())
        .map_or(0, |i| i + 1);
    if used > SIZE {
        return Err(err(
            SIZE + 1,
            format!("too many lines: a board has {SIZE} rows, this file has {used}"),
        ));
    }
    if used < SIZE {
        return Err(err(
            0,
            format!("too few lines: a board has {SIZE} rows, this file has {used}"),
        ));
    }
    let (mut white, mut black) = (0u64, 0u64);
    for (r, line) in lines.iter().take(SIZE).enumerate() {
        let n = r + 1;
        let cells: Vec<char> = line.chars().collect();
        if cells.len() != SIZE {
            return Err(err(
                n,
                format!(
                    "a row has {SIZE} cells ('.', 'W' or 'B'), this one has {}",
                    cells.len()
                ),
            ));
        }
        for (c, ch) in cells.into_iter().enumerate() {
            let bit = 1u64 << (r * SIZE + c);
            match ch {
                '.' => {}
                'W' => white |= bit,
                'B' => black |= bit,
                other => {
                    return Err(err(
                        n,
                        format!(
                            "column {} (cell [{r},{c}]): {other:?} is not a cell \
                             (expected '.', 'W' or 'B')",
                            c + 1
                        ),
                    ));
                }
            }
        }
    }
    if has_five(white) && has_five(black) {
        return Err(err(0, "both colours have five in a row".into()));
    }
    let mut state = State {
        white,
        black,
        to_move,
        ply: (white | black).count_ones(),
        over: false,
    };
    state.over = state.decided().is_some();
    Ok(state)
}

/// Perft straight on the bitboards: the same count as the generic
/// [`crate::games::perft::perft`], without cloning through the trait.
#[cfg(test)]
pub(crate) fn fast_perft(state: &State, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    if state.over {
        return 0;
    }
    let empty = state.empty();
    if depth == 1 {
        return u64::from(empty.count_ones());
    }
    let mut total = 0;
    let mut todo = empty;
    while todo != 0 {
        let cell = todo.trailing_zeros() as usize;
        todo &= todo - 1;
        let mut next = *state;
        if next.place(cell).is_none() {
            total += fast_perft(&next, depth - 1);
        }
    }
    total
}
