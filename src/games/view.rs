//! A game-neutral picture of a position: what a page or a tool draws without knowing the
//! game.
//!
//! Every game describes its position as a grid of cells, each with a kind (a snake_case
//! name the drawing colours by, from the game's own list of [`CellKind`]s) and a short label
//! (a piece letter, a pile's count), plus a one-line caption. Whatever draws a view knows
//! only this shape, so a new game gets a replay by implementing [`super::Game::view`].

use serde::Serialize;

/// The kind of a cell that is not part of the board (Asalto's corners, the gaps of a
/// short Battle army): drawn as nothing.
pub(crate) const OFF: &str = "off";

/// One cell of a drawn position.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Cell {
    /// snake_case, one of the game's [`CellKind`]s, or `OFF`.
    pub kind: &'static str,
    /// Drawn inside the cell; may be empty. Most labels are a game's constants (a piece's
    /// letter), held without a copy: a replay draws every cell of every position.
    pub label: std::borrow::Cow<'static, str>,
}

impl Cell {
    /// A cell of kind `kind` with `label` drawn inside it.
    pub fn new(kind: &'static str, label: impl Into<std::borrow::Cow<'static, str>>) -> Cell {
        Cell {
            kind,
            label: label.into(),
        }
    }
    /// A cell without a label.
    pub fn plain(kind: &'static str) -> Cell {
        Cell::new(kind, "")
    }
    /// A cell that is not on the board.
    pub fn off() -> Cell {
        Cell::plain(OFF)
    }
    /// The cell as one string, `kind` or `kind:label`: what the replay page puts in each
    /// drawn cell's `data-cell`, so a test can read the board back.
    pub fn key(&self) -> String {
        if self.label.is_empty() {
            self.kind.to_string()
        } else {
            format!("{}:{}", self.kind, self.label)
        }
    }
}

/// A cell kind a game draws: its colour and what it means, for the legend.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CellKind {
    /// snake_case: what the [`Cell::kind`] of a cell of this kind holds.
    pub name: &'static str,
    /// A CSS colour (`#rrggbb`).
    pub fill: &'static str,
    /// What the kind is, in a few words (`rebel`, `white sentinel`).
    pub meaning: &'static str,
}

/// A position as a grid of cells with a caption.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BoardView {
    /// Rows of the grid.
    pub rows: usize,
    /// Columns of the grid.
    pub cols: usize,
    /// Row-major: `rows * cols` cells.
    pub cells: Vec<Cell>,
    /// One line about the position (whose turn, counters), shown under the board.
    pub caption: String,
}

impl BoardView {
    /// A view from row-major `cells`; `cols` must divide their number.
    pub fn new(cols: usize, cells: Vec<Cell>, caption: String) -> BoardView {
        let rows = cells.len().checked_div(cols).unwrap_or(0);
        BoardView {
            rows,
            cols,
            cells,
            caption,
        }
    }

    /// The cell at (`row`, `col`), if on the grid.
    pub fn at(&self, row: usize, col: usize) -> Option<&Cell> {
        (row < self.rows && col < self.cols)
            .then(|| self.cells.get(row * self.cols + col))
            .flatten()
    }

    /// A plain-text view of any game's text rendering: each line a row, each character a
    /// cell of kind `text`. The fallback of games that do not draw themselves (test games).
    pub fn from_text(text: &str) -> BoardView {
        let lines: Vec<&str> = text.lines().collect();
        let cols = lines.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        let mut cells = Vec::with_capacity(lines.len() * cols);
        for line in &lines {
            let mut chars: Vec<char> = line.chars().collect();
            chars.resize(cols, ' ');
            cells.extend(chars.into_iter().map(|c| match c {
                ' ' => Cell::off(),
                c => Cell::new("text", c.to_string()),
            }));
        }
        BoardView::new(cols, cells, String::new())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Game;
    use std::collections::BTreeMap;

    /// How many cells of each `data-cell` key a view has.
    fn census(view: &BoardView) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for cell in &view.cells {
            *counts.entry(cell.key()).or_insert(0) += 1;
        }
        counts
    }

    /// Every kind a view uses is in the game's legend, or off the board.
    fn kinds_are_listed<G: Game>(game: &G, view: &BoardView) {
        for cell in &view.cells {
            assert!(
                cell.kind == OFF || game.view_kinds().iter().any(|k| k.name == cell.kind),
                "{}: kind {} is not in the legend",
                game.name(),
                cell.kind
            );
        }
    }

    #[test]
    fn every_game_draws_its_start_position_with_its_own_kinds() {
        let asalto = crate::games::asalto::Asalto::default();
        let view = asalto.view(&asalto.initial());
        kinds_are_listed(&asalto, &view);
        assert_eq!((view.rows, view.cols), (7, 7));
        let counts = census(&view);
        assert_eq!(counts["rebel:R"], 24);
        assert_eq!(counts["officer:O"], 2);
        assert_eq!(counts["off"], 49 - 33, "the corners are off the board");
        assert_eq!(counts["fortress"], 7, "the fortress's empty points");
        assert_eq!(view.at(1, 2).map(Cell::key).as_deref(), Some("officer:O"));
        assert!(
            view.caption.starts_with("rebel to move"),
            "{}",
            view.caption
        );

        let gomoku = crate::games::gomoku::Gomoku;
        let view = gomoku.view(&gomoku.initial());
        kinds_are_listed(&gomoku, &view);
        assert_eq!(census(&view), BTreeMap::from([("empty".to_string(), 64)]));

        let hinger = crate::games::hinger::Hinger::default();
        let view = hinger.view(&hinger.initial());
        kinds_are_listed(&hinger, &view);
        assert_eq!((view.rows, view.cols), (4, 5));
        // The rules page's state B has the hingers (1,1) and (2,2).
        let hingers: Vec<(usize, usize)> = (0..20)
            .filter(|i| view.cells[*i].kind == "hinger")
            .map(|i| (i / 5, i % 5))
            .collect();
        assert_eq!(hingers, vec![(1, 1), (2, 2)]);
        assert_eq!(view.at(0, 0).map(Cell::key).as_deref(), Some("pile:1"));

        let advance = crate::games::advance::Advance;
        let view = advance.view(&advance.initial());
        kinds_are_listed(&advance, &view);
        assert_eq!(view.at(8, 4).map(Cell::key).as_deref(), Some("white:G"));
        assert_eq!(view.at(0, 4).map(Cell::key).as_deref(), Some("black:g"));
        assert_eq!(census(&view)["empty"], 81 - 36);

        let battle = crate::games::battle::Battle::default();
        let view = battle.view(&battle.initial());
        kinds_are_listed(&battle, &view);
        let keys: Vec<String> = view.cells.iter().map(Cell::key).collect();
        // The rules page's example `3,1,4,2;3,5;A;`.
        assert_eq!(keys, ["a_unit:3/1", "a_unit:4/2", "b_unit:3/5", "off"]);
    }

    #[test]
    fn a_key_joins_kind_and_label_and_leaves_out_an_empty_label() {
        assert_eq!(Cell::new("pile", "3").key(), "pile:3");
        assert_eq!(Cell::plain("empty").key(), "empty");
    }

    #[test]
    fn a_text_view_pads_short_lines_with_cells_off_the_board() {
        let view = BoardView::from_text("ab\nc\n");
        assert_eq!((view.rows, view.cols), (2, 2));
        assert_eq!(view.at(1, 0).map(Cell::key).as_deref(), Some("text:c"));
        assert_eq!(view.at(1, 1).map(|c| c.kind), Some(OFF));
        assert_eq!(view.at(2, 0), None);
    }
}
