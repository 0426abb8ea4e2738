//! The Advance board: 81 cells of piece letters, move generation, danger to a General,
//! and the board-file text form.
//!
//! A cell holds the letter of the board file (`Z` a white Zombie, `z` a black one, `#` a
//! wall, `.` empty), so a position reads and writes without translation. Legal moves are
//! the pseudo-legal ones after which the mover's General is not in danger; danger asks
//! whether any enemy piece could take the General's square with a capture or a shot,
//! whoever is to move, unless a friendly Sentinel stands next to the General.

use crate::games::{BoardError, Outcome, Side};

/// Rows and columns.
pub(crate) const SIZE: usize = 9;
/// Cells on the board: cell `row * 9 + col`, row 0 at the top.
pub const CELLS: usize = SIZE * SIZE;
/// Moves per side before the material adjudication.
pub(crate) const MOVES_PER_SIDE: u32 = 100;

/// The side that plays white: uppercase letters, starts at the bottom, moves first.
pub const WHITE: Side = Side::First;
/// The side that plays black: lowercase letters, starts at the top.
pub const BLACK: Side = Side::Second;

pub(crate) const START: &str = "mjdsgscjm\nbzzzzzzzb\n.........\n.........\n.........\n\
                         .........\n.........\nBZZZZZZZB\nMJCSGSDJM\n";

/// The letter of an empty cell.
pub const EMPTY: u8 = b'.';
pub(crate) const WALL: u8 = b'#';

const ORTHO: [(i32, i32); 4] = [(-1, 0), (1, 0), (0, -1), (0, 1)];
const KING: [(i32, i32); 8] = [
    (-1, -1),
    (-1, 0),
    (-1, 1),
    (0, -1),
    (0, 1),
    (1, -1),
    (1, 0),
    (1, 1),
];
const KNIGHT: [(i32, i32); 8] = [
    (-2, -1),
    (-2, 1),
    (-1, -2),
    (-1, 2),
    (1, -2),
    (1, 2),
    (2, -1),
    (2, 1),
];
const SHOTS: [(i32, i32); 8] = [
    (-3, 0),
    (3, 0),
    (0, -3),
    (0, 3),
    (-2, -2),
    (-2, 2),
    (2, -2),
    (2, 2),
];

/// What a move does besides moving a piece from `from` to `to`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// The piece moves to `to`, capturing what stands there (a leap, a Miner onto a wall).
    Step,
    /// A Builder puts a wall on the empty `to`.
    Build,
    /// A Jester swaps places with the friendly piece on `to`.
    Swap,
    /// A Jester turns the enemy piece on `to` to its own colour.
    Convert,
    /// A Catapult removes the enemy piece on `to` without moving.
    Shoot,
}

/// A move: the acting piece's cell, the target cell and what happens there.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    /// The acting piece's cell, `row * 9 + col`.
    pub from: u8,
    /// The target cell, `row * 9 + col`: what happens there is the move's [`Kind`].
    pub to: u8,
    /// What the move does on `to`.
    pub kind: Kind,
}

impl Move {
    /// The acting piece's cell as `(row, col)`.
    pub fn from_rc(&self) -> (usize, usize) {
        (self.from as usize / SIZE, self.from as usize % SIZE)
    }
    /// The target cell as `(row, col)`.
    pub fn to_rc(&self) -> (usize, usize) {
        (self.to as usize / SIZE, self.to as usize % SIZE)
    }
}

/// The colour of a piece letter; `None` for empty squares and walls.
// The few helpers below run millions of times a game in the course bots' searches: plain
// matches and comparisons, no calls, so that an unoptimised (test) build stays quick:
// built with iterator adapters and `RangeBounds`, grade7 took 110 ms a move there.
#[inline(always)]
pub fn colour(p: u8) -> Option<Side> {
    match p {
        b'A'..=b'Z' => Some(WHITE),
        b'a'..=b'z' => Some(BLACK),
        _ => None,
    }
}

/// A piece's material value (the General counts 0).
#[inline(always)]
pub fn value(p: u8) -> i32 {
    match p | 0x20 {
        b'z' => 1,
        b'b' => 2,
        b'j' => 3,
        b'm' => 4,
        b's' => 5,
        b'c' => 6,
        b'd' => 7,
        _ => 0,
    }
}

fn is_piece_letter(p: u8) -> bool {
    matches!(
        p.to_ascii_lowercase(),
        b'z' | b'b' | b'j' | b'm' | b's' | b'c' | b'd' | b'g'
    )
}

#[inline(always)]
fn offset(cell: usize, (dr, dc): (i32, i32)) -> Option<usize> {
    let r = (cell / SIZE) as i32 + dr;
    let c = (cell % SIZE) as i32 + dc;
    let size = SIZE as i32;
    if r >= 0 && r < size && c >= 0 && c < size {
        Some(r as usize * SIZE + c as usize)
    } else {
        None
    }
}

fn forward(side: Side) -> i32 {
    if side == WHITE { -1 } else { 1 }
}

/// An Advance position: the cells, the side to move, and the moves played so far.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    cells: [u8; CELLS],
    to_move: Side,
    /// Moves played since the start (both sides): the adjudication comes at 200.
    ply: u32,
    /// Set once a move decided the game: a finished position has no legal moves.
    over: bool,
}

impl State {
    /// The course's start position, white to move.
    pub fn initial() -> State {
        parse_board(START, WHITE).unwrap_or_else(|_| unreachable!("the start board is valid"))
    }

    /// The letter on `(row, col)`, both 0 to 8: a piece, [`EMPTY`] or `#` for a wall.
    pub fn at(&self, row: usize, col: usize) -> u8 {
        self.cells[row * SIZE + col]
    }
    /// The letter on cell `row * 9 + col` (0 to 80).
    pub fn cell(&self, cell: usize) -> u8 {
        self.cells[cell]
    }
    /// The side whose turn it is.
    pub fn to_move(&self) -> Side {
        self.to_move
    }
    /// Moves played by both sides together (from 0 for a board file); adjudication comes at 200.
    pub fn ply(&self) -> u32 {
        self.ply
    }
    /// Whether a move has decided the game: then no move is legal.
    pub fn is_over(&self) -> bool {
        self.over
    }

    /// The material score of `side`: the sum of its pieces' values.
    pub fn material(&self, side: Side) -> i32 {
        let mut sum = 0;
        for &p in &self.cells {
            if colour(p) == Some(side) {
                sum += value(p);
            }
        }
        sum
    }

    /// `side`'s material minus the other side's.
    pub fn material_difference(&self, side: Side) -> i32 {
        // One pass, White's pieces counted up and Black's down: the course bots' searches
        // ask this of every position they reach.
        let mut white = 0;
        for &p in &self.cells {
            match p {
                b'A'..=b'Z' => white += value(p),
                b'a'..=b'z' => white -= value(p),
                _ => {}
            }
        }
        if side == WHITE { white } else { -white }
    }

    /// The board's 9 rows.
    pub fn rows(&self) -> Vec<String> {
        self.cells
            .chunks(SIZE)
            .map(|row| String::from_utf8_lossy(row).into_owned())
            .collect()
    }

    /// The board file: 9 lines of 9 characters, each ended by a newline.
    pub fn text(&self) -> String {
        self.rows().into_iter().map(|r| r + "\n").collect()
    }

    /// The board with row and column numbers, then the side to move, ply and material scores.
    pub fn render(&self) -> String {
        let mut out = String::from("  012345678\n");
        for (r, row) in self.rows().iter().enumerate() {
            out.push_str(&format!("{r} {row}\n"));
        }
        out.push_str(&format!(
            "{} to move, ply {}, material {}-{}\n",
            if self.to_move == WHITE {
                "white"
            } else {
                "black"
            },
            self.ply,
            self.material(WHITE),
            self.material(BLACK)
        ));
        out
    }

    /// Whether the piece on `cell` has a Sentinel of its own colour next to it.
    pub fn protected(&self, cell: usize) -> bool {
        let p = self.cells[cell];
        let Some(side) = colour(p) else {
            return false;
        };
        let sentinel = if side == WHITE { b'S' } else { b's' };
        ORTHO
            .iter()
            .filter_map(|&d| offset(cell, d))
            .any(|n| self.cells[n] == sentinel)
    }

    /// Whether `side` may capture the piece on `cell`: an enemy piece, not protected,
    /// not a General.
    fn capturable(&self, cell: usize, side: Side) -> bool {
        let p = self.cells[cell];
        colour(p) == Some(side.other()) && !p.eq_ignore_ascii_case(&b'g') && !self.protected(cell)
    }

    /// Whether `side`'s General is in danger (a side without a General never is).
    pub fn in_danger(&self, side: Side) -> bool {
        let general = if side == WHITE { b'G' } else { b'g' };
        let Some(cell) = self.cells.iter().position(|&p| p == general) else {
            return false;
        };
        !self.protected(cell) && self.attacked(cell, side.other())
    }

    /// Whether a piece of `by` could take the square `target` by a capture or a shot,
    /// looked for outward from the target: each kind of piece only where it could stand.
    fn attacked(&self, target: usize, by: Side) -> bool {
        let enemy = |cell: usize, kind: u8| {
            let p = self.cells[cell];
            // `kind` is lower case: the piece as `by` writes it.
            p == if by == WHITE { kind - 0x20 } else { kind }
        };
        let f = forward(by);
        for dc in -1..=1 {
            // A Zombie one row behind the target (as it moves), or two with the square
            // between empty.
            if let Some(z) = offset(target, (-f, dc))
                && enemy(z, b'z')
            {
                return true;
            }
            if let Some(z) = offset(target, (-2 * f, 2 * dc))
                && enemy(z, b'z')
                && offset(target, (-f, dc)).is_some_and(|m| self.cells[m] == EMPTY)
            {
                return true;
            }
        }
        let near = |dirs: &[(i32, i32)], kinds: &[u8]| {
            dirs.iter()
                .filter_map(|&d| offset(target, d))
                .any(|c| kinds.iter().any(|&k| enemy(c, k)))
        };
        if near(&KING, b"bg") || near(&KNIGHT, b"s") || near(&SHOTS, b"c") {
            return true;
        }
        KING.iter().any(|&d| {
            let mut cell = offset(target, d);
            let mut distance = 1;
            while let Some(c) = cell {
                if self.cells[c] != EMPTY {
                    let orthogonal = d.0 == 0 || d.1 == 0;
                    return (orthogonal && enemy(c, b'm')) || (distance >= 2 && enemy(c, b'd'));
                }
                cell = offset(c, d);
                distance += 1;
            }
            false
        })
    }

    /// Danger by its definition, for tests: the General replaced by a plain piece of its
    /// side, is there an enemy move (capture or shot) onto its square?
    #[cfg(test)]
    pub(crate) fn in_danger_by_moves(&self, side: Side) -> bool {
        let general = if side == WHITE { b'G' } else { b'g' };
        let Some(cell) = self.cells.iter().position(|&p| p == general) else {
            return false;
        };
        if self.protected(cell) {
            return false;
        }
        let mut probe = self.clone();
        probe.cells[cell] = if side == WHITE { b'Z' } else { b'z' };
        probe.to_move = side.other();
        let mut moves = Vec::new();
        probe.pseudo_moves(&mut moves);
        moves
            .iter()
            .any(|m| m.to as usize == cell && matches!(m.kind, Kind::Step | Kind::Shoot))
    }

    /// Every move of the side to move, legal or not as to its General's danger.
    fn pseudo_moves(&self, out: &mut Vec<Move>) {
        let side = self.to_move;
        for from in 0..CELLS {
            if colour(self.cells[from]) == Some(side) {
                self.piece_moves(from, side, out);
            }
        }
    }

    fn piece_moves(&self, from: usize, side: Side, out: &mut Vec<Move>) {
        let mut push = |to: usize, kind: Kind| {
            out.push(Move {
                from: from as u8,
                to: to as u8,
                kind,
            })
        };
        let empty = |c: usize| self.cells[c] == EMPTY;
        match self.cells[from].to_ascii_lowercase() {
            b'z' => {
                let f = forward(side);
                for dc in -1..=1 {
                    if let Some(to) = offset(from, (f, dc)) {
                        if empty(to) || self.capturable(to, side) {
                            push(to, Kind::Step);
                        }
                        if empty(to)
                            && let Some(leap) = offset(from, (2 * f, 2 * dc))
                            && self.capturable(leap, side)
                        {
                            push(leap, Kind::Step);
                        }
                    }
                }
            }
            b'b' => {
                for d in KING {
                    if let Some(to) = offset(from, d) {
                        if empty(to) {
                            push(to, Kind::Step);
                            push(to, Kind::Build);
                        } else if self.capturable(to, side) {
                            push(to, Kind::Step);
                        }
                    }
                }
            }
            b'g' => {
                for d in KING {
                    if let Some(to) = offset(from, d)
                        && (empty(to) || self.capturable(to, side))
                    {
                        push(to, Kind::Step);
                    }
                }
            }
            b'j' => {
                for d in KING {
                    if let Some(to) = offset(from, d) {
                        let p = self.cells[to];
                        if p == EMPTY {
                            push(to, Kind::Step);
                        } else if colour(p) == Some(side) && !p.eq_ignore_ascii_case(&b'j') {
                            push(to, Kind::Swap);
                        } else if colour(p) == Some(side.other()) && !p.eq_ignore_ascii_case(&b'g')
                        {
                            push(to, Kind::Convert);
                        }
                    }
                }
            }
            b'm' => {
                for d in ORTHO {
                    let mut cell = offset(from, d);
                    while let Some(to) = cell {
                        if empty(to) {
                            push(to, Kind::Step);
                            cell = offset(to, d);
                            continue;
                        }
                        if self.cells[to] == WALL || self.capturable(to, side) {
                            push(to, Kind::Step);
                        }
                        break;
                    }
                }
            }
            b's' => {
                for d in KNIGHT {
                    if let Some(to) = offset(from, d)
                        && (empty(to) || self.capturable(to, side))
                    {
                        push(to, Kind::Step);
                    }
                }
            }
            b'c' => {
                for d in ORTHO {
                    if let Some(to) = offset(from, d)
                        && empty(to)
                    {
                        push(to, Kind::Step);
                    }
                }
                for d in SHOTS {
                    if let Some(to) = offset(from, d)
                        && self.capturable(to, side)
                    {
                        push(to, Kind::Shoot);
                    }
                }
            }
            b'd' => {
                for d in KING {
                    let mut cell = offset(from, d);
                    let mut distance = 1;
                    while let Some(to) = cell {
                        if empty(to) {
                            push(to, Kind::Step);
                            cell = offset(to, d);
                            distance += 1;
                            continue;
                        }
                        if distance >= 2 && self.capturable(to, side) {
                            push(to, Kind::Step);
                        }
                        break;
                    }
                }
            }
            _ => {}
        }
    }

    /// The board after `mv`, the same side still to move (no counters change).
    pub fn apply_board(&mut self, mv: &Move) {
        let (from, to) = (mv.from as usize, mv.to as usize);
        match mv.kind {
            Kind::Step => {
                self.cells[to] = self.cells[from];
                self.cells[from] = EMPTY;
            }
            Kind::Build => self.cells[to] = WALL,
            Kind::Swap => self.cells.swap(from, to),
            Kind::Convert => {
                let p = self.cells[to];
                self.cells[to] = if p.is_ascii_uppercase() {
                    p.to_ascii_lowercase()
                } else {
                    p.to_ascii_uppercase()
                };
            }
            Kind::Shoot => self.cells[to] = EMPTY,
        }
    }

    /// The board after `mv` with the other side to move, counters unchanged: the
    /// position the course's level rules look at.
    pub fn with_move(&self, mv: &Move) -> State {
        let mut next = self.clone();
        next.apply_board(mv);
        next.to_move = self.to_move.other();
        next.over = false;
        next
    }

    /// Every legal move of the side to move.
    pub fn legal_moves(&self, out: &mut Vec<Move>) {
        if self.over {
            return;
        }
        let start = out.len();
        self.pseudo_moves(out);
        let side = self.to_move;
        let mut i = start;
        while i < out.len() {
            let mut next = self.clone();
            next.apply_board(&out[i]);
            if next.in_danger(side) {
                out.swap_remove(i);
            } else {
                i += 1;
            }
        }
        // swap_remove scrambles the order: generation order keeps perft --divide stable.
        out[start..].sort_by_key(|m| (m.from, m.to, m.kind as u8));
    }

    /// Whether the side to move has any legal move.
    pub fn has_legal_move(&self) -> bool {
        if self.over {
            return false;
        }
        // Piece by piece, so that the search usually ends at the first piece looked at.
        let side = self.to_move;
        let mut moves = Vec::with_capacity(32);
        (0..CELLS)
            .filter(|&from| colour(self.cells[from]) == Some(side))
            .any(|from| {
                moves.clear();
                self.piece_moves(from, side, &mut moves);
                moves.iter().any(|mv| {
                    let mut next = self.clone();
                    next.apply_board(mv);
                    !next.in_danger(side)
                })
            })
    }

    /// Plays a legal move; the outcome when it ends the game.
    pub fn play(&mut self, mv: &Move) -> Option<Outcome> {
        self.apply_board(mv);
        self.to_move = self.to_move.other();
        self.ply += 1;
        let outcome = self.outcome_now();
        self.over = outcome.is_some();
        outcome
    }

    /// How the game stands with the side to move about to play: lost when it has no
    /// legal move, adjudicated on material once both sides played their 100 moves.
    pub fn outcome_now(&self) -> Option<Outcome> {
        if self.ply >= 2 * MOVES_PER_SIDE {
            let (w, b) = (self.material(WHITE), self.material(BLACK));
            return Some(match w.cmp(&b) {
                std::cmp::Ordering::Greater => Outcome::win(WHITE, "material"),
                std::cmp::Ordering::Less => Outcome::win(BLACK, "material"),
                std::cmp::Ordering::Equal => Outcome::tie("material_tie"),
            });
        }
        if !self.has_legal_move() {
            return Some(Outcome::win(self.to_move.other(), "no_legal_move"));
        }
        None
    }

    /// Marks the game over (an illegal reply decided it).
    pub fn set_over(&mut self) {
        self.over = true;
    }
}

/// Reads a board file: 9 lines of 9 characters from `ZBJMSCDG`, their lowercase, `.` and
/// `#`; CRLF line ends and a missing last newline are accepted, blank lines after the
/// board too. `side` is to move, with no moves played yet.
pub fn parse_board(text: &str, side: Side) -> Result<State, BoardError> {
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.strip_suffix('\r').unwrap_or(l))
        .collect();
    let used = lines
        .iter()
        .rposition(|l| !l.trim().is_empty())
        .map_or(0, |i| i + 1);
    if used != SIZE {
        return Err(BoardError {
            line: 0,
            message: format!("expected {SIZE} rows of {SIZE} characters, found {used} rows"),
        });
    }
    let mut cells = [EMPTY; CELLS];
    for (r, line) in lines[..SIZE].iter().enumerate() {
        let bytes = line.as_bytes();
        if bytes.len() != SIZE {
            return Err(BoardError {
                line: r + 1,
                message: format!(
                    "expected {SIZE} characters, found {} in `{}`",
                    line.chars().count(),
                    line.chars().take(40).collect::<String>()
                ),
            });
        }
        for (c, &p) in bytes.iter().enumerate() {
            if !(p == EMPTY || p == WALL || is_piece_letter(p)) {
                return Err(BoardError {
                    line: r + 1,
                    message: format!(
                        "column {c}: `{}` is not a piece (expected one of ZBJMSCDG, their \
                         lowercase, `.` or `#`)",
                        line.chars().nth(c).unwrap_or('?')
                    ),
                });
            }
            cells[r * SIZE + c] = p;
        }
    }
    for (general, who) in [(b'G', "white"), (b'g', "black")] {
        if cells.iter().filter(|&&p| p == general).count() > 1 {
            return Err(BoardError {
                line: 0,
                message: format!("{who} has more than one General"),
            });
        }
    }
    Ok(State {
        cells,
        to_move: side,
        ply: 0,
        over: false,
    })
}
