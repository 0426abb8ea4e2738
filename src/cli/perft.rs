//! `arbiter perft`: move-generator counts from the start or from a board file.

use super::read_file;
use crate::error::Error;
use crate::games::{
    Game, GameKind, advance::Advance, asalto::Asalto, gomoku::Gomoku, hinger::Hinger, perft,
};
use std::path::PathBuf;
use std::time::Instant;

#[derive(clap::Args, Debug)]
pub(crate) struct PerftArgs {
    /// The game.
    #[arg(value_enum)]
    pub game: GameKind,
    /// How many plies deep to count.
    pub depth: u32,
    /// A board file. Asalto: 7 lines of 7 characters, `R`, `O`, `.`, space off-board.
    /// Gomoku: 8 lines of `.`, `W`, `B`. Advance: 9 lines of 9 piece letters (white
    /// uppercase), `.` and `#`. Hinger: one line per row of space-separated counts.
    #[arg(long, requires = "side")]
    pub board: Option<PathBuf>,
    /// The side to move in the board file, by role name (rebel or officer, white or black,
    /// first or second).
    #[arg(long)]
    pub side: Option<String>,
    /// Print the count below each first move.
    #[arg(long)]
    pub divide: bool,
}

pub(crate) fn run(args: PerftArgs) -> Result<i32, Error> {
    match args.game {
        GameKind::Advance => run_game(&Advance, &args),
        GameKind::Asalto => run_game(&Asalto::default(), &args),
        GameKind::Gomoku => run_game(&Gomoku, &args),
        // Without a board file: the rules page's worked example (State B).
        GameKind::Hinger => run_game(&Hinger::default(), &args),
        // Without a board file: the rules page's example.
        GameKind::Battle => run_game(&crate::games::battle::Battle::default(), &args),
    }
}

fn run_game<G: Game>(game: &G, args: &PerftArgs) -> Result<i32, Error> {
    let state = match &args.board {
        None => {
            if args.side.is_some() {
                return Err(Error::usage("--side needs --board"));
            }
            game.initial()
        }
        Some(path) => {
            let side_name = args.side.as_deref().unwrap_or_default();
            let side = game.side_named(side_name).ok_or_else(|| {
                Error::usage(format!(
                    "--side `{side_name}` is not a role of {}: expected {} or {}",
                    game.name(),
                    game.roles()[0],
                    game.roles()[1]
                ))
            })?;
            let text = read_file(path)?;
            game.parse_board(&text, side).map_err(|e| Error::Input {
                path: path.clone(),
                line: e.line,
                message: e.message,
            })?
        }
    };
    let started = Instant::now();
    let total = if args.divide && args.depth > 0 {
        let mut total = 0;
        for (mv, count) in perft::divide(game, &state, args.depth) {
            say!("{mv}: {count}");
            total += count;
        }
        total
    } else {
        perft::perft(game, &state, args.depth)
    };
    let secs = started.elapsed().as_secs_f64();
    note!(
        "{:.3} s, {:.0} nodes/s",
        secs,
        total as f64 / secs.max(1e-9)
    );
    say!("{total}");
    Ok(crate::error::exit::DONE)
}
