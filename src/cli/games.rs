//! Choosing a game and its settings on the command line; the settings themselves, and
//! which game a name means, are the games' registry's.

use crate::error::Error;
use crate::games::battle::RandomArmies;
use crate::games::registry::{self, GameSettings, parse_range};
use crate::games::{BoardError, GameKind, Side};
use std::path::{Path, PathBuf};

// Game options of every command that plays.
#[derive(clap::Args, Debug, Clone)]
pub(crate) struct GameOptions {
    /// The game.
    #[arg(long, value_enum, default_value = "asalto")]
    pub game: GameKind,
    /// Asalto: rounds before a game is adjudicated (the course plays 1000).
    #[arg(help_heading = "Asalto", long, default_value_t = registry::DEFAULT_ROUND_LIMIT, value_parser = clap::value_parser!(u32).range(1..=registry::MAX_ROUND_LIMIT as i64))]
    pub round_limit: u32,
    /// Hinger: a start board file (one line per row of space-separated counts); repeat
    /// for several, which a league deals out to its pairs in turn.
    #[arg(help_heading = "Hinger", long = "board")]
    pub boards: Vec<PathBuf>,
    /// Hinger random starts: rows.
    #[arg(help_heading = "Hinger", long, default_value_t = registry::DEFAULT_ROWS as u32, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub rows: u32,
    /// Hinger random starts: columns.
    #[arg(help_heading = "Hinger", long, default_value_t = registry::DEFAULT_COLS as u32, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub cols: u32,
    /// Hinger random starts: the share of cells holding a counter.
    #[arg(help_heading = "Hinger", long, default_value_t = registry::DEFAULT_DENSITY)]
    pub density: f64,
    /// Battle: a start position as the course's state string (`3,1,4,2;3,5;A;`); repeat
    /// for several, which a league deals out to its pairs in turn. Without it, random
    /// armies.
    #[arg(help_heading = "Battle", long = "armies")]
    pub armies: Vec<String>,
    /// Battle random armies: units per side.
    #[arg(help_heading = "Battle", long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub units: u32,
    /// Battle random armies: each unit's health, `LO..HI` (inclusive).
    #[arg(help_heading = "Battle", long, default_value = "1..6", value_parser = parse_range)]
    pub health: std::ops::RangeInclusive<u32>,
    /// Battle random armies: each unit's damage, `LO..HI` (inclusive).
    #[arg(help_heading = "Battle", long, default_value = "1..3", value_parser = parse_range)]
    pub damage: std::ops::RangeInclusive<u32>,
}

impl GameOptions {
    /// `game` with every other option at its default: for a command that takes only the
    /// game (`check` starts bots from the standard start).
    pub(crate) fn defaults(game: GameKind) -> GameOptions {
        GameOptions {
            game,
            round_limit: registry::DEFAULT_ROUND_LIMIT,
            boards: Vec::new(),
            rows: registry::DEFAULT_ROWS as u32,
            cols: registry::DEFAULT_COLS as u32,
            density: registry::DEFAULT_DENSITY,
            armies: Vec::new(),
            units: 3,
            health: 1..=6,
            damage: 1..=3,
        }
    }

    pub(crate) fn settings(&self) -> Result<GameSettings, Error> {
        if !(0.0..=1.0).contains(&self.density) {
            return Err(Error::usage(format!(
                "--density must be between 0 and 1, not {}",
                self.density
            )));
        }
        if !self.boards.is_empty() && self.game != GameKind::Hinger {
            return Err(Error::usage(format!(
                "--board sets Hinger start boards; {} has none",
                self.game.name()
            )));
        }
        if !self.armies.is_empty() && self.game != GameKind::Battle {
            return Err(Error::usage(format!(
                "--armies sets Battle start positions; {} has none",
                self.game.name()
            )));
        }
        let battle = RandomArmies {
            units: self.units as usize,
            health: self.health.clone(),
            damage: self.damage.clone(),
        };
        battle
            .check()
            .map_err(|e| Error::usage(format!("--units/--health/--damage: {e}")))?;
        for (i, text) in self.armies.iter().enumerate() {
            crate::games::battle::State::parse(text)
                .map_err(|e| Error::usage(format!("--armies (number {}): {e}", i + 1)))?;
        }
        Ok(GameSettings {
            kind: self.game,
            armies: self.armies.clone(),
            battle,
            round_limit: self.round_limit,
            boards: self
                .boards
                .iter()
                .map(|p| read_grid(p))
                .collect::<Result<_, _>>()?,
            rows: self.rows as usize,
            cols: self.cols as usize,
            density: self.density,
        })
    }
}

/// Reads a Hinger board file into a grid, with the file and line in errors.
pub(crate) fn read_grid(path: &Path) -> Result<Vec<Vec<u32>>, Error> {
    let text = super::read_file(path)?;
    let at = |e: BoardError| Error::Input {
        path: path.to_path_buf(),
        line: e.line,
        message: e.message,
    };
    let game = crate::games::hinger::Hinger::default();
    let state = crate::games::Game::parse_board(&game, &text, Side::First).map_err(at)?;
    Ok(state.grid())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(clap::Parser)]
    struct Options {
        #[command(flatten)]
        game: GameOptions,
    }

    #[test]
    fn the_command_line_defaults_are_the_registry_defaults() {
        for kind in GameKind::ALL {
            let options = Options::try_parse_from(["arbiter", "--game", kind.name()]).unwrap();
            let ours = options.game.settings().unwrap();
            let registry = GameSettings::defaults(kind);
            assert_eq!(ours.rules(), registry.rules(), "{}", kind.name());
            assert_eq!(ours.battle.health, registry.battle.health);
            assert_eq!(ours.battle.damage, registry.battle.damage);
        }
    }
}
