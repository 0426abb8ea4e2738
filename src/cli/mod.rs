//! The command line: a thin layer that parses arguments and calls the library.

mod confine;
pub mod games;
mod league;
mod options;
mod perft;
mod play;
mod signals;
mod solve;
mod sprt;

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
    /// Play one game between two bots and print the result. Exit 0 when the game was
    /// played (whoever won), 1 when a bot could not be started (`spawn_failed`), 2 usage
    /// error.
    Play(play::PlayArgs),
    /// Round-robin league: every pair of bots plays role-swapped pairs of games.
    League(league::LeagueArgs),
    /// A candidate against each baseline only.
    Gauntlet(league::GauntletArgs),
    /// Run a tournament defined in tournaments.toml (default: the file's default).
    Run(league::RunArgs),
    /// Sequential test: is the candidate stronger than the baseline? Exit 0 yes (H1),
    /// 1 no (H0), 3 inconclusive, 2 usage error.
    Sprt(sprt::SprtArgs),
    /// Rebuild every table of a tournament folder from its journal.
    Table(league::TableArgs),
    /// Grade course solvers on a file of cases (Battle: plan, score, node counts). Exit 0
    /// when every case passed, 1 when one failed, 2 usage error.
    Solve(solve::SolveArgs),
    /// Serve a built-in bot over the protocol on stdin/stdout (the reference bot).
    Bot(play::BotArgs),
}

/// Runs the command line and returns the process exit code.
pub fn main() -> i32 {
    let cli = Cli::parse();
    signals::install();
    let result = match cli.command {
        Command::Perft(args) => perft::run(args),
        Command::Play(args) => play::run(args),
        Command::Bot(args) => play::serve(args),
        Command::League(args) => league::league(args),
        Command::Gauntlet(args) => league::gauntlet(args),
        Command::Run(args) => league::run(args),
        Command::Table(args) => league::table(args),
        Command::Sprt(args) => sprt::run(args),
        Command::Solve(args) => solve::run(args),
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
    std::fs::read_to_string(path).map_err(|source| Error::Unreadable {
        path: path.to_path_buf(),
        source,
    })
}
