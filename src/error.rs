//! The harness's own errors (bad input, I/O), as opposed to bot misbehaviour, which is data.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The user asked for something that cannot be: exit code 2.
    #[error("{0}")]
    Usage(String),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A file whose content is wrong: names the file, the line and what was expected.
    #[error("{}:{line}: {message}", path.display())]
    Input {
        path: PathBuf,
        line: usize,
        message: String,
    },
}

impl Error {
    pub fn usage(message: impl Into<String>) -> Self {
        Error::Usage(message.into())
    }

    /// Usage and input errors exit 2 (like clap); I/O trouble exits 1.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) | Error::Input { .. } => 2,
            Error::Io { .. } => 1,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
