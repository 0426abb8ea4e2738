//! The shape of the report's content: sections of plain tables and sentences, in no
//! markup yet, which report.md, report.tex and index.html each render.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Align {
    Left,
    Right,
}

/// A table: a header row and body rows of plain text (Unicode, no markup).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Table {
    /// Short, unique within the report: a LaTeX label, an HTML id (letters, digits, `-`).
    pub id: String,
    pub caption: String,
    pub columns: Vec<(String, Align)>,
    pub rows: Vec<Vec<String>>,
}

/// A part of the report: a heading, sentences, tables and the plot that goes with them.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Section {
    /// Letters, digits and `-` only: an HTML id.
    pub id: String,
    pub title: String,
    /// Sentences before the tables.
    pub text: Vec<String>,
    pub tables: Vec<Table>,
    /// Sentences after the tables.
    pub notes: Vec<String>,
    /// The plot's file name in `plots/`.
    pub plot: Option<&'static str>,
}

/// Column names, left-aligned up to `right_from` and right-aligned from there.
pub(super) fn columns(names: &[&str], right_from: usize) -> Vec<(String, Align)> {
    names
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let align = if i >= right_from {
                Align::Right
            } else {
                Align::Left
            };
            (n.to_string(), align)
        })
        .collect()
}

/// How an SPRT counts pairs, said wherever its pair count is.
pub(crate) const PAIR_COUNT_RULE: &str = "Pairs count in pair order; the verdict, the standings and \
     the distinct-pairs line count the same pairs. Games that finished after the deciding \
     pair (while the run was stopping) stay in the journal but are in no table.";
