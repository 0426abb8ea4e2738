//! The harness's own errors (bad input, I/O), as opposed to bot misbehaviour, which is data.

use std::path::PathBuf;

/// Why a command could not do what was asked; each kind has its exit code.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The user asked for something that cannot be: exit code 2.
    #[error("{0}")]
    Usage(String),
    /// Trouble with the harness's own files (writing results): exit code 1.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder the harness was using.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A file the user named that cannot be read (missing, a folder, no permission): bad
    /// input, exit code 2.
    #[error("cannot read {}: {source}{}", path.display(), tilde_hint(path))]
    Unreadable {
        /// The file as the user named it.
        path: PathBuf,
        /// What the system said.
        source: std::io::Error,
    },
    /// A file whose content is wrong: names the file, the line (when one is to blame; 0
    /// for the file as a whole) and what was expected.
    #[error("{}{}: {message}", path.display(), at_line(*line))]
    Input {
        /// The file at fault.
        path: PathBuf,
        /// The 1-based line to blame, or 0 for the file as a whole.
        line: usize,
        /// What is wrong and what was expected.
        message: String,
    },
    /// A plot of the report could not be drawn: exit code 1.
    #[error("cannot draw the report's {plot}: {message}")]
    Plot {
        /// The plot's file in the report (`elo.svg`).
        plot: String,
        /// What went wrong: no fonts, an SVG that does not parse, or no PDF or PNG of it.
        message: String,
    },
    /// The machine's load kept a game from a result however often it was played again
    /// (`clocks::runqueue`): the run stopped, resumable; exit code [`exit::OVERLOADED`].
    #[error("{0}")]
    Overloaded(String),
}

impl Error {
    /// A [`Error::Usage`] saying `message`.
    pub fn usage(message: impl Into<String>) -> Self {
        Error::Usage(message.into())
    }

    /// Bad input of any kind (usage, a file's content, a file that cannot be read) exits
    /// [`exit::BAD_INPUT`], like clap's usage errors; trouble writing results exits
    /// [`exit::FAILED`].
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Usage(_) | Error::Input { .. } | Error::Unreadable { .. } => exit::BAD_INPUT,
            Error::Io { .. } | Error::Plot { .. } => exit::FAILED,
            Error::Overloaded(_) => exit::OVERLOADED,
        }
    }
}

/// A game record that does not replay to what it records: a move the rules refuse, a
/// verdict the rules would not give, or a last position other than its `final_board`.
/// `ply` counts the plies played before the disagreement (0: the start itself).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("ply {ply}: {message}")]
pub struct ReplayError {
    /// Plies played before the disagreement (0: the start itself).
    pub ply: usize,
    /// What disagrees, and how.
    pub message: String,
}

/// What to say about a path the user named that starts with `~` and does not exist:
/// quoted (`"~/subs"`, or in a file), `~` is not expanded by the shell and names a folder
/// called `~`. Empty for any other path.
pub(crate) fn tilde_hint(path: &std::path::Path) -> String {
    let text = path.to_string_lossy();
    if !text.starts_with('~') || path.exists() {
        return String::new();
    }
    let instead = match text.strip_prefix("~/") {
        Some(rest) => format!("write $HOME/{rest} (or leave the ~ unquoted)"),
        None if text == "~" => "write $HOME".to_string(),
        None => "write the full path".to_string(),
    };
    format!(" (`~` is not expanded when quoted: {instead})")
}

fn at_line(line: usize) -> String {
    if line == 0 {
        String::new()
    } else {
        format!(":{line}")
    }
}

/// Every exit status of arbiter, named once: each command returns one of these, and
/// README's table of exit codes is checked against [`exit::CODES`].
pub mod exit {
    /// What was asked was done: a game played (whoever won), a tournament finished, every
    /// bot or case passed, SPRT accepted H1, bots can be confined (`doctor`).
    pub const DONE: i32 = 0;
    /// Results could not be written; `play`: a bot could not be started; `check`, `solve`:
    /// a bot or a case failed; `league --check`: a bot failed its check, no game played;
    /// `doctor`: bots cannot be confined.
    pub const FAILED: i32 = 1;
    /// `sprt`: H0 accepted, the candidate is not stronger.
    pub const H0: i32 = 1;
    /// Bad input of any kind: usage, a config or board file, a missing file, a harness
    /// set-up problem, a refused resume.
    pub const BAD_INPUT: i32 = 2;
    /// `sprt`: inconclusive at `--max-pairs`.
    pub const INCONCLUSIVE: i32 = 3;
    /// A league, gauntlet or SPRT stopped because the machine was too busy for fair clocks
    /// (a game left without a result by the machine's load however often it was played
    /// again): rerun the same command on a quieter machine to resume.
    pub const OVERLOADED: i32 = 4;
    /// Stopped by a signal (Ctrl-C, SIGTERM, SIGHUP): rerun the same command to resume.
    pub const INTERRUPTED: i32 = 130;

    /// Each exit status with its name, in README's order.
    pub const CODES: [(i32, &str); 7] = [
        (DONE, "DONE"),
        (FAILED, "FAILED"),
        (H0, "H0"),
        (BAD_INPUT, "BAD_INPUT"),
        (INCONCLUSIVE, "INCONCLUSIVE"),
        (OVERLOADED, "OVERLOADED"),
        (INTERRUPTED, "INTERRUPTED"),
    ];
}

#[cfg(test)]
mod tilde_tests {
    use super::tilde_hint;
    use std::path::Path;

    #[test]
    fn a_quoted_tilde_path_that_does_not_exist_says_tilde_is_not_expanded() {
        assert_eq!(
            tilde_hint(Path::new("~/no-such-arbiter-folder/subs")),
            " (`~` is not expanded when quoted: write $HOME/no-such-arbiter-folder/subs (or \
             leave the ~ unquoted))"
        );
        assert_eq!(tilde_hint(Path::new("/tmp")), "");
        assert_eq!(tilde_hint(Path::new("subs/~x")), "");
    }
}
