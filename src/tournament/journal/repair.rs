//! A journal's damaged last line, and its repair before a run appends: a crash while a
//! game line was written leaves at most that one line damaged.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::Path;

/// What was wrong with the journal's last line, and what opening it for a run did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repair {
    /// A whole game record that had lost its newline: the newline was added.
    Completed,
    /// A line cut short by a crash: removed; its game is played again.
    Dropped,
}

impl Repair {
    /// Repairs the journal at `path` whose last line starts at `offset`, durably.
    pub(super) fn apply(self, path: &Path, offset: u64) -> std::io::Result<()> {
        let mut file = OpenOptions::new().append(true).open(path)?;
        match self {
            Repair::Completed => file.write_all(b"\n")?,
            Repair::Dropped => file.set_len(offset)?,
        }
        file.sync_data()
    }
}
