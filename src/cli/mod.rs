//! The command line: a thin layer that parses arguments and calls the library.

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
pub enum Command {}

pub fn main() -> i32 {
    let _cli = Cli::parse();
    0
}
