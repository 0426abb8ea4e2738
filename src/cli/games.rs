//! Choosing a game and its settings, on the command line or in tournaments.toml, and
//! running generic code with the game value.

use crate::error::Error;
use crate::games::battle::RandomArmies;
use crate::games::{BoardError, GameKind, Side};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// Game options of every command that plays.
#[derive(clap::Args, Debug, Clone)]
pub struct GameOptions {
    /// The game.
    #[arg(long, value_enum, default_value = "asalto")]
    pub game: GameKind,
    /// Asalto: rounds before a game is adjudicated (the course plays 1000).
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub round_limit: u32,
    /// Hinger: a start board file (one line per row of space-separated counts); repeat
    /// for several, which a league deals out to its pairs in turn.
    #[arg(long = "board")]
    pub boards: Vec<PathBuf>,
    /// Hinger random starts: rows.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub rows: u32,
    /// Hinger random starts: columns.
    #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub cols: u32,
    /// Hinger random starts: the share of cells holding a counter.
    #[arg(long, default_value_t = 0.6)]
    pub density: f64,
    /// Battle: a start position as the course's state string (`3,1,4,2;3,5;A;`); repeat
    /// for several, which a league deals out to its pairs in turn. Without it, random
    /// armies.
    #[arg(long = "armies")]
    pub armies: Vec<String>,
    /// Battle random armies: units per side.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub units: u32,
    /// Battle random armies: each unit's health, `LO..HI` (inclusive).
    #[arg(long, default_value = "1..6", value_parser = parse_range)]
    pub health: (u32, u32),
    /// Battle random armies: each unit's damage, `LO..HI` (inclusive).
    #[arg(long, default_value = "1..3", value_parser = parse_range)]
    pub damage: (u32, u32),
}

/// `LO..HI` (or one number `N`, meaning `N..N`).
fn parse_range(text: &str) -> Result<(u32, u32), String> {
    let bad = || format!("`{text}`: expected LO..HI, two whole numbers like 1..6");
    let (lo, hi) = text.split_once("..").unwrap_or((text, text));
    let lo = lo.trim().parse().map_err(|_| bad())?;
    let hi = hi.trim().parse().map_err(|_| bad())?;
    Ok((lo, hi))
}

impl GameOptions {
    pub fn settings(&self) -> Result<GameSettings, Error> {
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
            health: self.health.0..=self.health.1,
            damage: self.damage.0..=self.damage.1,
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

impl GameSettings {
    /// The settings a tournament was played under, from its journal's plan: the game's
    /// name and the rules it recorded ([`GameSettings::rules`]); a setting the plan does
    /// not record (an older journal) takes its command-line default.
    pub fn from_plan(plan: &crate::tournament::journal::Plan) -> Result<GameSettings, Error> {
        #[derive(clap::Parser)]
        struct Defaults {
            #[command(flatten)]
            game: GameOptions,
        }
        use clap::Parser;
        let defaults = Defaults::try_parse_from(["arbiter", "--game", plan.game.as_str()])
            .map_err(|_| {
                Error::usage(format!(
                    "the journal's plan names the game `{}`, which this arbiter does not know",
                    plan.game
                ))
            })?;
        let mut settings = defaults.game.settings()?;
        let bad = |key: &str, expected: &str| {
            Error::usage(format!(
                "the journal's plan has rules.{key} = {}: expected {expected}",
                plan.rules[key]
            ))
        };
        for (key, value) in &plan.rules {
            let whole = || value.as_u64().ok_or_else(|| bad(key, "a whole number"));
            match key.as_str() {
                "round_limit" => settings.round_limit = whole()? as u32,
                "rows" => settings.rows = whole()? as usize,
                "cols" => settings.cols = whole()? as usize,
                "units" => settings.battle.units = whole()? as usize,
                "density" => {
                    settings.density = value.as_f64().ok_or_else(|| bad(key, "a number"))?
                }
                "health" | "damage" => {
                    let range = value
                        .as_str()
                        .and_then(|text| parse_range(text).ok())
                        .ok_or_else(|| bad(key, "a range LO..HI"))?;
                    let range = range.0..=range.1;
                    if key == "health" {
                        settings.battle.health = range;
                    } else {
                        settings.battle.damage = range;
                    }
                }
                "boards" => {
                    settings.boards = serde_json::from_value(value.clone())
                        .map_err(|_| bad(key, "a list of boards of whole numbers"))?
                }
                "armies" => {
                    settings.armies = serde_json::from_value(value.clone())
                        .map_err(|_| bad(key, "a list of state strings"))?
                }
                _ => {}
            }
        }
        Ok(settings)
    }
}

/// A game and the settings that shape its rules and starts.
#[derive(Clone, Debug)]
pub struct GameSettings {
    pub kind: GameKind,
    pub round_limit: u32,
    /// Hinger start boards, read and checked.
    pub boards: Vec<Vec<Vec<u32>>>,
    pub rows: usize,
    pub cols: usize,
    pub density: f64,
    /// Battle start positions (course state strings, checked).
    pub armies: Vec<String>,
    /// Battle random armies, used when `armies` is empty.
    pub battle: RandomArmies,
}

impl GameSettings {
    /// The settings that change the rules, recorded in a tournament's journal so a resume
    /// under other rules is refused.
    pub fn rules(&self) -> Map<String, Value> {
        let mut rules = Map::new();
        match self.kind {
            GameKind::Asalto => {
                rules.insert("round_limit".into(), self.round_limit.into());
            }
            GameKind::Advance | GameKind::Gomoku => {}
            GameKind::Hinger => {
                if self.boards.is_empty() {
                    rules.insert("rows".into(), self.rows.into());
                    rules.insert("cols".into(), self.cols.into());
                    rules.insert("density".into(), self.density.into());
                } else {
                    rules.insert("boards".into(), serde_json::json!(self.boards));
                }
            }
            GameKind::Battle => {
                if self.armies.is_empty() {
                    let range =
                        |r: &std::ops::RangeInclusive<u32>| format!("{}..{}", r.start(), r.end());
                    rules.insert("units".into(), self.battle.units.into());
                    rules.insert("health".into(), range(&self.battle.health).into());
                    rules.insert("damage".into(), range(&self.battle.damage).into());
                } else {
                    rules.insert("armies".into(), serde_json::json!(self.armies));
                }
            }
        }
        rules
    }
}

/// Reads a Hinger board file into a grid, with the file and line in errors.
pub fn read_grid(path: &Path) -> Result<Vec<Vec<u32>>, Error> {
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

/// Runs `$body` with `$game` bound to the game value of `$settings` (a [`GameSettings`])
/// and `$seed` seeding random starts. `$body` is generic code over `G: Builtins`.
macro_rules! with_game {
    ($settings:expr, $seed:expr, |$game:ident| $body:expr) => {{
        let settings: &$crate::cli::games::GameSettings = &$settings;
        match settings.kind {
            $crate::games::GameKind::Advance => {
                let $game = $crate::games::advance::Advance;
                $body
            }
            $crate::games::GameKind::Asalto => {
                let $game = $crate::games::asalto::Asalto {
                    round_limit: settings.round_limit,
                };
                $body
            }
            $crate::games::GameKind::Gomoku => {
                let $game = $crate::games::gomoku::Gomoku;
                $body
            }
            $crate::games::GameKind::Hinger => {
                let $game = $crate::cli::games::hinger_game(settings, $seed)?;
                $body
            }
            $crate::games::GameKind::Battle => {
                let $game = $crate::cli::games::battle_game(settings, $seed)?;
                $body
            }
        }
    }};
}
pub(crate) use with_game;

/// The Hinger game of `settings`: its start boards, or random boards from `seed`.
pub fn hinger_game(
    settings: &GameSettings,
    seed: u64,
) -> Result<crate::games::hinger::Hinger, Error> {
    use crate::games::hinger::Hinger;
    let bad = |e: BoardError| Error::usage(format!("hinger start: {}", e.message));
    if settings.boards.is_empty() {
        Hinger::random_starts(settings.rows, settings.cols, settings.density, seed).map_err(bad)
    } else {
        Hinger::from_boards(settings.boards.clone()).map_err(bad)
    }
}

/// The Battle game of `settings`: its given armies, or random armies from `seed`.
pub fn battle_game(
    settings: &GameSettings,
    seed: u64,
) -> Result<crate::games::battle::Battle, Error> {
    use crate::games::battle::Battle;
    let bad = |e: BoardError| Error::usage(format!("battle start: {}", e.message));
    if settings.armies.is_empty() {
        Battle::random(settings.battle.clone(), seed).map_err(bad)
    } else {
        let texts: Vec<&str> = settings.armies.iter().map(String::as_str).collect();
        Battle::from_strings(&texts).map_err(bad)
    }
}
