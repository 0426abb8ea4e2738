//! `arbiter openings`: prints random openings that reach distinct positions, in the format
//! `--openings` reads (how the shipped books were made).

use crate::error::Error;
use crate::games::openings::{self, OpeningKind};
use crate::games::registry::{GameSettings, with_game};
use crate::games::{Game, GameKind};

#[derive(clap::Args, Debug)]
pub(crate) struct OpeningsArgs {
    /// The game (one whose openings are moves: asalto, gomoku).
    #[arg(value_enum)]
    pub game: GameKind,
    /// Plies per opening.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub plies: u32,
    /// How many openings.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
    pub count: u64,
    /// The seed of the draws.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

pub(crate) fn run(args: OpeningsArgs) -> Result<i32, Error> {
    let settings = GameSettings::defaults(args.game);
    with_game!(settings, args.seed, |game| print(&game, &args))
}

fn print<G: Game>(game: &G, args: &OpeningsArgs) -> Result<i32, Error> {
    if game.openings() == OpeningKind::StartBoards {
        return Err(Error::usage(format!(
            "{}'s openings are its start boards (--board, or random starts), not moves",
            game.name()
        )));
    }
    let book = openings::distinct_openings(game, args.plies, args.count as usize, args.seed)
        .map_err(Error::usage)?;
    let mut out = String::new();
    for line in &book {
        out.push_str(&openings::to_line(line));
        out.push('\n');
    }
    super::print(&crate::untrusted::text::terminal(&out));
    Ok(crate::error::exit::DONE)
}
