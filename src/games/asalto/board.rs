//! The Asalto board: the 33 playable points as bit indices of `u64` bitboards, the line
//! tables every rule is built from, the position ([`State`]) and its text forms (board files,
//! the protocol's rows, a labelled rendering).
//!
//! Points are numbered 0..33 in row-major order, so iterating a bitboard from its lowest bit
//! visits points in row-major order (the huff rule depends on that order).

use crate::games::{BoardError, Side};
use std::fmt;

/// Board side length: rows and columns are 0..7.
pub(crate) const SIZE: usize = 7;
/// Number of playable points.
pub(crate) const POINTS: usize = 33;
/// The side that plays the rebels (moves first).
pub const REBELS: Side = Side::First;
/// The side that plays the officers.
pub const OFFICERS: Side = Side::Second;

/// Whether `(row, col)` is one of the 33 playable points.
pub(crate) const fn is_playable(row: usize, col: usize) -> bool {
    row < SIZE && col < SIZE && ((row >= 2 && row <= 4) || (col >= 2 && col <= 4))
}

const NONE: u8 = u8::MAX;

/// Point index per grid cell (row-major 7x7), `NONE` off the board.
const INDEX: [u8; SIZE * SIZE] = {
    let mut t = [NONE; SIZE * SIZE];
    let mut next = 0u8;
    let mut cell = 0;
    while cell < SIZE * SIZE {
        if is_playable(cell / SIZE, cell % SIZE) {
            t[cell] = next;
            next += 1;
        }
        cell += 1;
    }
    t
};

/// `(row, col)` per point index.
const COORDS: [(u8, u8); POINTS] = {
    let mut t = [(0u8, 0u8); POINTS];
    let mut cell = 0;
    while cell < SIZE * SIZE {
        if INDEX[cell] != NONE {
            t[INDEX[cell] as usize] = ((cell / SIZE) as u8, (cell % SIZE) as u8);
        }
        cell += 1;
    }
    t
};

/// One of the 33 playable points. Always valid: it can only be made from a playable
/// coordinate or an index below `POINTS`, so bit operations on it never overflow.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Point(u8);

impl Point {
    /// The point at `(row, col)`, if that cell is playable.
    pub const fn new(row: usize, col: usize) -> Option<Point> {
        if row < SIZE && col < SIZE && INDEX[row * SIZE + col] != NONE {
            Some(Point(INDEX[row * SIZE + col]))
        } else {
            None
        }
    }
    /// The point with bit index `index` (0..33, row-major).
    pub const fn from_index(index: usize) -> Option<Point> {
        if index < POINTS {
            Some(Point(index as u8))
        } else {
            None
        }
    }
    /// The bit index, 0 to 32 in row-major order.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
    /// Grid row, 0 to 6 from the top.
    pub const fn row(self) -> usize {
        COORDS[self.0 as usize].0 as usize
    }
    /// Grid column, 0 to 6 from the left.
    pub const fn col(self) -> usize {
        COORDS[self.0 as usize].1 as usize
    }
    /// This point's bit in a bitboard.
    pub const fn bit(self) -> u64 {
        1u64 << self.0
    }
    /// Whether diagonal lines leave this point (`row % 2 == col % 2`).
    pub const fn has_diagonals(self) -> bool {
        self.row() % 2 == self.col() % 2
    }
    /// All points in row-major order.
    pub fn all() -> impl Iterator<Item = Point> {
        (0..POINTS as u8).map(Point)
    }
}

impl fmt::Debug for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{},{}]", self.row(), self.col())
    }
}

impl fmt::Display for Point {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{},{}]", self.row(), self.col())
    }
}

/// The points of a bitboard, lowest bit (row-major first) first.
pub fn points(mut bits: u64) -> impl Iterator<Item = Point> {
    bits &= ALL;
    std::iter::from_fn(move || {
        if bits == 0 {
            None
        } else {
            let i = bits.trailing_zeros() as u8;
            bits &= bits - 1;
            Some(Point(i))
        }
    })
}

/// Every playable point.
pub(crate) const ALL: u64 = (1u64 << POINTS) - 1;

/// The nine fortress points: rows 0-2, columns 2-4.
pub const FORTRESS: u64 = {
    let mut m = 0u64;
    let mut r = 0;
    while r <= 2 {
        let mut c = 2;
        while c <= 4 {
            m |= 1u64 << INDEX[r * SIZE + c];
            c += 1;
        }
        r += 1;
    }
    m
};

/// Line directions as `(row delta, col delta)`: four orthogonal, then four diagonal.
pub(crate) const DIRS: [(i8, i8); 8] = [
    (-1, 0),
    (1, 0),
    (0, -1),
    (0, 1),
    (-1, -1),
    (-1, 1),
    (1, -1),
    (1, 1),
];

const fn offset(p: usize, d: usize, times: i8) -> u8 {
    let (r, c) = COORDS[p];
    let r = r as i8 + DIRS[d].0 * times;
    let c = c as i8 + DIRS[d].1 * times;
    if r < 0 || c < 0 || !is_playable(r as usize, c as usize) {
        NONE
    } else {
        INDEX[r as usize * SIZE + c as usize]
    }
}

const fn line_allowed(p: usize, d: usize) -> bool {
    d < 4 || COORDS[p].0 % 2 == COORDS[p].1 % 2
}

/// Per point and direction: the neighbour one step along a line, `NONE` if there is none
/// (off the board, or a diagonal from a point without diagonals).
const STEP: [[u8; 8]; POINTS] = {
    let mut t = [[NONE; 8]; POINTS];
    let mut p = 0;
    while p < POINTS {
        let mut d = 0;
        while d < 8 {
            if line_allowed(p, d) {
                t[p][d] = offset(p, d, 1);
            }
            d += 1;
        }
        p += 1;
    }
    t
};

/// Per point and direction: the landing point of a jump, `NONE` if there is none.
const JUMP: [[u8; 8]; POINTS] = {
    let mut t = [[NONE; 8]; POINTS];
    let mut p = 0;
    while p < POINTS {
        let mut d = 0;
        while d < 8 {
            if line_allowed(p, d) && STEP[p][d] != NONE {
                t[p][d] = offset(p, d, 2);
            }
            d += 1;
        }
        p += 1;
    }
    t
};

/// Per point: every point one officer step away.
const OFFICER_STEPS: [u64; POINTS] = {
    let mut t = [0u64; POINTS];
    let mut p = 0;
    while p < POINTS {
        let mut d = 0;
        while d < 8 {
            if STEP[p][d] != NONE {
                t[p] |= 1u64 << STEP[p][d];
            }
            d += 1;
        }
        p += 1;
    }
    t
};

/// Per point: every point a rebel may step to (not down, not away from the middle column).
const REBEL_STEPS: [u64; POINTS] = {
    let mut t = [0u64; POINTS];
    let mut p = 0;
    while p < POINTS {
        let mut d = 0;
        while d < 8 {
            let (dr, dc) = DIRS[d];
            let col = COORDS[p].1;
            let outward = (col < 3 && dc < 0) || (col > 3 && dc > 0);
            if STEP[p][d] != NONE && dr <= 0 && !outward {
                t[p] |= 1u64 << STEP[p][d];
            }
            d += 1;
        }
        p += 1;
    }
    t
};

/// The neighbour of `p` along direction `d` (an index into `DIRS`), if a line leads there.
#[inline]
pub fn step(p: Point, d: usize) -> Option<Point> {
    match STEP[p.index()].get(d) {
        Some(&q) if q != NONE => Some(Point(q)),
        _ => None,
    }
}

/// The landing point of a jump from `p` along direction `d`, if the line is long enough.
#[inline]
pub fn jump(p: Point, d: usize) -> Option<Point> {
    match JUMP[p.index()].get(d) {
        Some(&q) if q != NONE => Some(Point(q)),
        _ => None,
    }
}

/// Every point an officer on `p` could step to on an empty board.
#[inline]
pub fn officer_steps(p: Point) -> u64 {
    OFFICER_STEPS[p.index()]
}

/// Every point a rebel on `p` could step to on an empty board.
#[inline]
pub(crate) fn rebel_steps(p: Point) -> u64 {
    REBEL_STEPS[p.index()]
}

/// The point halfway between `a` and `b` when they are two apart along a row, column or
/// diagonal of the grid (whether or not a line joins them).
#[inline]
pub(crate) fn between(a: Point, b: Point) -> Option<Point> {
    let (r1, c1, r2, c2) = (a.row(), a.col(), b.row(), b.col());
    if (r1 + r2) % 2 != 0 || (c1 + c2) % 2 != 0 {
        return None;
    }
    Point::new((r1 + r2) / 2, (c1 + c2) / 2)
}

/// What stands on a point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Piece {
    /// A rebel (`R`): moves first, never down, never away from the middle column.
    Rebel,
    /// An officer (`O`): steps along any line and captures rebels by jumping them.
    Officer,
}

/// An Asalto position: the pieces, the side to move, the turn count and the illegal-move
/// counters (which decide a game that reaches the round limit).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct State {
    pub(super) rebels: u64,
    pub(super) officers: u64,
    pub(super) to_move: Side,
    pub(super) ply: u32,
    pub(super) illegal: [u32; 2],
}

/// The course's start position, top row first.
pub(crate) const INITIAL_ROWS: [&str; SIZE] = [
    "  ...  ", "  O.O  ", "RR...RR", "RRRRRRR", "RRRRRRR", "  RRR  ", "  RRR  ",
];

/// The points of [`INITIAL_ROWS`] holding `piece` (evaluated at compile time, where a
/// piece on an off-board cell would fail the build).
const fn row_bits(piece: u8) -> u64 {
    let mut bits = 0u64;
    let mut r = 0;
    while r < SIZE {
        let row = INITIAL_ROWS[r].as_bytes();
        let mut c = 0;
        while c < SIZE {
            if row[c] == piece {
                bits |= 1u64 << INDEX[r * SIZE + c];
            }
            c += 1;
        }
        r += 1;
    }
    bits
}

impl State {
    /// The start position: 24 rebels, 2 officers, rebels to move.
    pub const fn initial() -> State {
        State {
            rebels: row_bits(b'R'),
            officers: row_bits(b'O'),
            to_move: REBELS,
            ply: 0,
            illegal: [0, 0],
        }
    }

    /// A position from bitboards (bits 33 and up must be clear, and no point may hold both
    /// pieces), with `to_move` to move, no turns played and no illegal moves counted.
    pub fn from_bitboards(rebels: u64, officers: u64, to_move: Side) -> Option<State> {
        if (rebels | officers) & !ALL != 0 || rebels & officers != 0 {
            return None;
        }
        Some(State {
            rebels,
            officers,
            to_move,
            ply: 0,
            illegal: [0, 0],
        })
    }

    /// The same position with `side` to move.
    pub fn with_to_move(mut self, side: Side) -> State {
        self.to_move = side;
        self
    }

    /// The bitboard of the points holding rebels.
    pub fn rebels(&self) -> u64 {
        self.rebels
    }
    /// The bitboard of the points holding officers.
    pub fn officers(&self) -> u64 {
        self.officers
    }
    /// Every playable point holding no piece.
    pub fn empty(&self) -> u64 {
        ALL & !(self.rebels | self.officers)
    }
    /// The side whose turn it is.
    pub fn to_move(&self) -> Side {
        self.to_move
    }
    /// Turns played so far (of any kind: moves, huffs, illegal replies).
    pub fn ply(&self) -> u32 {
        self.ply
    }
    /// Illegal replies counted against `side`.
    pub fn illegal(&self, side: Side) -> u32 {
        self.illegal[side.index()]
    }
    /// What stands on `p`; `None` for an empty point.
    pub fn piece_at(&self, p: Point) -> Option<Piece> {
        if self.rebels & p.bit() != 0 {
            Some(Piece::Rebel)
        } else if self.officers & p.bit() != 0 {
            Some(Piece::Officer)
        } else {
            None
        }
    }

    /// The seven rows as the protocol sends them (`R`, `O`, `.`, space off the board).
    pub fn rows(&self) -> [String; SIZE] {
        std::array::from_fn(|r| {
            let mut row = Vec::with_capacity(SIZE);
            self.write_row(r, &mut row);
            // Only ASCII cells are written.
            String::from_utf8(row).unwrap_or_default()
        })
    }

    /// Row `r` as in [`State::rows`], appended to `out`.
    pub fn write_row(&self, r: usize, out: &mut Vec<u8>) {
        out.extend((0..SIZE).map(|c| match Point::new(r, c) {
            None => b' ',
            Some(p) => match self.piece_at(p) {
                Some(Piece::Rebel) => b'R',
                Some(Piece::Officer) => b'O',
                None => b'.',
            },
        }));
    }

    /// The board with row and column labels, for people.
    pub fn render(&self) -> String {
        let mut out = String::from("   0 1 2 3 4 5 6\n");
        for (r, row) in self.rows().iter().enumerate() {
            out.push_str(&format!("{r} "));
            for ch in row.chars() {
                out.push(' ');
                out.push(ch);
            }
            out.push('\n');
        }
        let role = if self.to_move == REBELS {
            "rebel"
        } else {
            "officer"
        };
        out.push_str(&format!(
            "{role} to move, ply {}, illegal: rebel {} officer {}\n",
            self.ply, self.illegal[0], self.illegal[1]
        ));
        out
    }
}

impl fmt::Debug for State {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("State")
            .field("rows", &self.rows())
            .field("to_move", &self.to_move)
            .field("ply", &self.ply)
            .field("illegal", &self.illegal)
            .finish()
    }
}

/// Parses a board file: 7 lines of 7 cells (`R`, `O`, `.`, space off the board). Short lines
/// are padded with spaces, trailing spaces past column 7 and trailing blank lines are ignored.
pub fn parse_rows(text: &str, to_move: Side) -> Result<State, BoardError> {
    let err = |line: usize, message: String| BoardError { line, message };
    let lines: Vec<&str> = text.lines().collect();
    let used = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
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
    let (mut rebels, mut officers) = (0u64, 0u64);
    for (r, line) in lines.iter().take(SIZE).enumerate() {
        let n = r + 1;
        // A bot rebuilds the position from every turn's rows: no allocation per row.
        let mut chars = line.chars();
        let mut cells = [' '; SIZE];
        for (cell, ch) in cells.iter_mut().zip(&mut chars) {
            *cell = ch;
        }
        if let Some((extra, ch)) = chars.enumerate().find(|&(_, ch)| ch != ' ') {
            return Err(err(
                n,
                format!(
                    "line too long: {ch:?} at column {} (a row has {SIZE} cells)",
                    SIZE + extra + 1
                ),
            ));
        }
        for (c, &ch) in cells.iter().enumerate() {
            // Only an error needs the place spelled out (this runs for every cell).
            let at = || format!("column {} (point [{r},{c}])", c + 1);
            match (Point::new(r, c), ch) {
                (None, ' ') => {}
                (None, 'R' | 'O' | '.') => {
                    return Err(err(
                        n,
                        format!(
                            "{}: {ch:?} on an off-board cell (only a space belongs there)",
                            at()
                        ),
                    ));
                }
                (Some(_), ' ') => {
                    return Err(err(
                        n,
                        format!(
                            "{}: a playable point must be 'R', 'O' or '.', not a space",
                            at()
                        ),
                    ));
                }
                (Some(p), 'R') => rebels |= p.bit(),
                (Some(p), 'O') => officers |= p.bit(),
                (Some(_), '.') => {}
                (_, other) => {
                    return Err(err(
                        n,
                        format!(
                            "{}: {other:?} is not a cell (expected 'R', 'O', '.' or space)",
                            at()
                        ),
                    ));
                }
            }
        }
    }
    State::from_bitboards(rebels, officers, to_move)
        .ok_or_else(|| err(0, "pieces overlap".to_string()))
}
