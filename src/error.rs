//! The harness's own errors (bad input, I/O), as opposed to bot misbehaviour, which is data.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The user asked for something that cannot be: exit code 2.
    #[error("{0}")]
    Usage(String),
    /// Trouble with the harness's own files (writing results): exit code 1.
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A file the user named that cannot be read (missing, a folder, no permission): bad
    /// input, exit code 2.
    #[error("cannot read {}: {source}", path.display())]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A file whose content is wrong: names the file, the line (when one is to blame; 0
    /// for the file as a whole) and what was expected.
    #[error("{}{}: {message}", path.display(), at_line(*line))]
    Input {
        path: PathBuf,
        line: usize,
        message: String,
    },
    /// A plot of the report could not be drawn: exit code 1.
    #[error("cannot draw the report's {plot}: {message}")]
    Plot { plot: String, message: String },
}

impl Error {
    pub fn usage(message: impl Into<String>) -> Self {
        Error::Usage(message.into())
    }

    /// Bad input of any kind (usage, a file's content, a file that cannot be read) exits
    /// 2, like clap's usage errors; trouble writing results exits 1.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) | Error::Input { .. } | Error::Unreadable { .. } => 2,
            Error::Io { .. } | Error::Plot { .. } => 1,
        }
    }
}

/// A game record that does not replay to what it records: a move the rules refuse, a
/// verdict the rules would not give, or a last position other than its `final_board`.
/// `ply` counts the plies played before the disagreement (0: the start itself).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("ply {ply}: {message}")]
pub struct ReplayError {
    pub ply: usize,
    pub message: String,
}

fn at_line(line: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!(":{line}")
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
