//! `arbiter console-bot`: a built-in bot as a course console program, run once per move
//! (`NAME white|black IN OUT`, `NAME name`), so that a bot made for the course's own
//! tooling can be tried against ours.

use super::read_file;
use crate::engines::Builtins;
use crate::error::Error;
use crate::games::{GameKind, advance::Advance};
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub(crate) struct ConsoleBotArgs {
    /// The built-in bot (Advance: random, grade4, grade5, greedy, grade6, grade7, alphabeta).
    pub name: String,
    /// `name`, or the colour to play, the board file to read and the file to write.
    #[arg(num_args = 1..=3, value_names = ["white|black|name", "IN", "OUT"])]
    pub words: Vec<String>,
    /// The game (one with board files).
    #[arg(long, value_enum, default_value = "advance")]
    pub game: GameKind,
    /// Seeds the bot's choice among equally good moves (default: a fresh seed each run).
    #[arg(long)]
    pub seed: Option<u64>,
    /// The bot's thinking time per move, for the searching bots.
    #[arg(long, default_value_t = 1000)]
    pub think_ms: u64,
}

pub(crate) fn run(args: ConsoleBotArgs) -> Result<i32, Error> {
    match args.game {
        GameKind::Advance => run_game(&Advance, &args),
        other => Err(Error::usage(format!(
            "{} has no board files for console bots (advance has)",
            other.name()
        ))),
    }
}

fn run_game<G: Builtins>(game: &G, args: &ConsoleBotArgs) -> Result<i32, Error> {
    if game.builtin(&args.name, 0).is_none() {
        return Err(Error::usage(format!(
            "no built-in {} bot named `{}`: expected one of {}",
            game.name(),
            args.name,
            game.builtin_names().join(", ")
        )));
    }
    let words: Vec<&str> = args.words.iter().map(String::as_str).collect();
    let (colour, input, output) = match words.as_slice() {
        ["name"] => {
            say!("arbiter-{}", args.name);
            return Ok(crate::error::exit::DONE);
        }
        [colour, input, output] => (*colour, PathBuf::from(input), PathBuf::from(output)),
        _ => {
            return Err(Error::usage(
                "expected `name` or `white|black IN OUT` after the bot's name",
            ));
        }
    };
    let side = game.side_named(colour).ok_or_else(|| {
        Error::usage(format!(
            "`{colour}` is not a colour of {}: expected {} or {}",
            game.name(),
            game.roles()[0],
            game.roles()[1]
        ))
    })?;
    let text = read_file(&input)?;
    let state = game.parse_board(&text, side).map_err(|e| Error::Input {
        path: input.clone(),
        line: e.line,
        message: e.message,
    })?;
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64)
    });
    let mut engine = game
        .builtin(&args.name, seed)
        .ok_or_else(|| Error::usage(format!("no built-in bot `{}`", args.name)))?;
    let Some(mv) = engine.choose(game, &state, Duration::from_millis(args.think_ms)) else {
        return Err(Error::usage(format!(
            "{}: {colour} has no legal move",
            input.display()
        )));
    };
    let mut next = state.clone();
    game.play(&mut next, &mv);
    let board = game
        .board_file(&next)
        .ok_or_else(|| Error::usage(format!("{} has no board files", game.name())))?;
    std::fs::write(&output, board).map_err(|source| Error::Io {
        path: output.clone(),
        source,
    })?;
    Ok(crate::error::exit::DONE)
}
