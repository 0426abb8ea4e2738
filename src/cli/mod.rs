//! The command line: a thin layer that parses arguments and calls the library.

mod play;
mod perft;

use crate::error::Error;
use clap::{Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "arbiter",
    version,
    about = "Referee, tournament runner and benchmarking harness for two-player game bots"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Count the legal move sequences of a given length (a move-generator check).
    Perft(perft::PerftArgs),
    /// Play one game between two bots and print the result.
    Play(play::PlayArgs),
    /// Serve a built-in bot over the protocol on stdin/stdout (the reference bot).
    Bot(play::BotArgs),
}

/// Runs the command line and returns the process exit code.
pub fn main() -> i32 {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Perft(args) => perft::run(args),
        Command::Play(args) => play::run(args),
        Command::Bot(args) => play::serve(args),
    };
    match result {
        Ok(code) => code,
        Err(err) => {
            eprintln!("arbiter: {err}");
            err.exit_code()
        }
    }
}

/// Reads a file the user named, with the path in the error.
fn read_file(path: &std::path::Path) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|source| Error::Io { path: path.to_path_buf(), source })
}
