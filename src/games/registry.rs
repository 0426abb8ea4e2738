//! The registry of games: which [`Game`](super::Game) a name means, the settings that shape
//! its rules and starts, and `with_game!`, which runs generic code with the game value.
//!
//! It lives with the games, below everything that plays: the command line, the config
//! file, the tournament, the report and the graders all choose a game here. A game's
//! built-in engines come with it through the `Builtins` bound of the code `with_game!`
//! runs; nothing here names an engine or a command-line flag.

use super::BoardError;
use super::battle::{Battle, RandomArmies};
use super::hinger::Hinger;
use crate::error::Error;
use serde_json::{Map, Value};
use std::ops::RangeInclusive;

/// The games arbiter knows: Advance 9x9 (white and black), Asalto on the 33-point cross
/// (24 rebels against 2 officers), Gomoku 8x8 (white and black), Hinger (counters taken
/// from a grid of piles) and Minimax Battle (two armies of units).
// clap shows a variant's doc comment as that value's help in `--help`, where the games'
// names say enough: the variants are described above instead.
#[allow(missing_docs)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum GameKind {
    Advance,
    Asalto,
    Gomoku,
    Hinger,
    Battle,
}

impl GameKind {
    /// Every game, in the order the enum declares them.
    pub const ALL: [GameKind; 5] = [
        GameKind::Advance,
        GameKind::Asalto,
        GameKind::Gomoku,
        GameKind::Hinger,
        GameKind::Battle,
    ];

    /// The game's name on the command line, in config files and journals (`asalto`).
    pub fn name(self) -> &'static str {
        match self {
            GameKind::Advance => "advance",
            GameKind::Asalto => "asalto",
            GameKind::Gomoku => "gomoku",
            GameKind::Hinger => "hinger",
            GameKind::Battle => "battle",
        }
    }

    /// The game of a name as [`GameKind::name`] spells it.
    pub fn from_name(name: &str) -> Option<GameKind> {
        GameKind::ALL.into_iter().find(|kind| kind.name() == name)
    }
}

/// Asalto's rounds before a game is adjudicated: the course plays 1000.
pub const DEFAULT_ROUND_LIMIT: u32 = 1000;
/// The longest round limit a run may set: a hundred times the course's.
pub const MAX_ROUND_LIMIT: u32 = 100_000;
/// The most turns a game's record may hold: Asalto's longest game (two turns a round at
/// [`MAX_ROUND_LIMIT`]) with room to spare; the other games end far sooner (Advance after
/// 100 moves a side, Gomoku 8x8 on a full board). A journal line claiming more is refused.
pub const MAX_PLIES: u32 = 250_000;
/// Hinger's random starts: rows, columns and the share of cells holding a counter.
pub const DEFAULT_ROWS: usize = 4;
/// Columns of Hinger's random starts.
pub const DEFAULT_COLS: usize = 5;
/// The chance that a cell of a random Hinger start holds a counter.
pub const DEFAULT_DENSITY: f64 = 0.6;

/// A game and the settings that shape its rules and starts.
#[derive(Clone, Debug)]
pub struct GameSettings {
    /// Which game is played.
    pub kind: GameKind,
    /// Asalto's rounds (a rebel turn and an officer turn) before the game is adjudicated on
    /// illegal-move counts; 1 to [`MAX_ROUND_LIMIT`].
    pub round_limit: u32,
    /// Hinger start boards, read and checked.
    pub boards: Vec<Vec<Vec<u32>>>,
    /// Rows of the random Hinger start boards, used when `boards` is empty.
    pub rows: usize,
    /// Columns of the random Hinger start boards, used when `boards` is empty.
    pub cols: usize,
    /// The chance that a cell of a random Hinger start holds a counter (0 to 1).
    pub density: f64,
    /// Battle start positions (course state strings, checked).
    pub armies: Vec<String>,
    /// Battle random armies, used when `armies` is empty.
    pub battle: RandomArmies,
}

impl GameSettings {
    /// `kind` with every setting at its default.
    pub fn defaults(kind: GameKind) -> GameSettings {
        GameSettings {
            kind,
            round_limit: DEFAULT_ROUND_LIMIT,
            boards: Vec::new(),
            rows: DEFAULT_ROWS,
            cols: DEFAULT_COLS,
            density: DEFAULT_DENSITY,
            armies: Vec::new(),
            battle: RandomArmies::default(),
        }
    }

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
                    let range = |r: &RangeInclusive<u32>| format!("{}..{}", r.start(), r.end());
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

    /// The settings a tournament was played under, from the game's name and the rules its
    /// journal recorded ([`GameSettings::rules`]); a setting not recorded (an older
    /// journal) takes its default.
    pub fn from_rules(game: &str, rules: &Map<String, Value>) -> Result<GameSettings, Error> {
        let kind = GameKind::from_name(game).ok_or_else(|| {
            Error::usage(format!(
                "the journal's plan names the game `{game}`, which this arbiter does not know"
            ))
        })?;
        let mut settings = GameSettings::defaults(kind);
        let bad = |key: &str, expected: &str| {
            Error::usage(format!(
                "the journal's plan has rules.{key} = {}: expected {expected}",
                rules[key]
            ))
        };
        for (key, value) in rules {
            let whole = || value.as_u64().ok_or_else(|| bad(key, "a whole number"));
            match key.as_str() {
                "round_limit" => {
                    let limit = whole()?;
                    if !(1..=u64::from(MAX_ROUND_LIMIT)).contains(&limit) {
                        return Err(bad(key, &format!("1 to {MAX_ROUND_LIMIT}")));
                    }
                    settings.round_limit = limit as u32;
                }
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

/// `LO..HI` (or one number `N`, meaning `N..N`).
pub fn parse_range(text: &str) -> Result<RangeInclusive<u32>, String> {
    let bad = || format!("`{text}`: expected LO..HI, two whole numbers like 1..6");
    let (lo, hi) = text.split_once("..").unwrap_or((text, text));
    let lo = lo.trim().parse().map_err(|_| bad())?;
    let hi = hi.trim().parse().map_err(|_| bad())?;
    Ok(lo..=hi)
}

/// The Hinger game of `settings`: its start boards, or random boards from `seed`.
pub(crate) fn hinger_game(settings: &GameSettings, seed: u64) -> Result<Hinger, Error> {
    let bad = |e: BoardError| Error::usage(format!("hinger start: {}", e.message));
    if settings.boards.is_empty() {
        Hinger::random_starts(settings.rows, settings.cols, settings.density, seed).map_err(bad)
    } else {
        Hinger::from_boards(settings.boards.clone()).map_err(bad)
    }
}

/// The Battle game of `settings`: its given armies, or random armies from `seed`.
pub(crate) fn battle_game(settings: &GameSettings, seed: u64) -> Result<Battle, Error> {
    let bad = |e: BoardError| Error::usage(format!("battle start: {}", e.message));
    if settings.armies.is_empty() {
        Battle::random(settings.battle.clone(), seed).map_err(bad)
    } else {
        let texts: Vec<&str> = settings.armies.iter().map(String::as_str).collect();
        Battle::from_strings(&texts).map_err(bad)
    }
}

/// Runs `$body` with `$game` bound to the game value of `$settings` (a [`GameSettings`])
/// and `$seed` seeding random starts; `?` in it returns an [`Error`]. `$body` is generic
/// code over the game type, which may ask for any trait every game has (`Builtins`).
macro_rules! with_game {
    ($settings:expr, $seed:expr, |$game:ident| $body:expr) => {{
        let settings: &$crate::games::registry::GameSettings = &$settings;
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
                let $game = $crate::games::registry::hinger_game(settings, $seed)?;
                $body
            }
            $crate::games::GameKind::Battle => {
                let $game = $crate::games::registry::battle_game(settings, $seed)?;
                $body
            }
        }
    }};
}
pub(crate) use with_game;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_game_is_found_by_its_name() {
        for kind in GameKind::ALL {
            assert_eq!(GameKind::from_name(kind.name()), Some(kind));
        }
        assert_eq!(GameKind::from_name("chess"), None);
    }

    #[test]
    fn rules_read_back_into_the_settings_they_came_from() {
        let mut battle = GameSettings::defaults(GameKind::Battle);
        battle.battle.units = 5;
        battle.battle.health = 2..=9;
        let back = GameSettings::from_rules("battle", &battle.rules()).unwrap();
        assert_eq!(back.rules(), battle.rules());
        assert_eq!(back.battle.health, 2..=9);

        let mut hinger = GameSettings::defaults(GameKind::Hinger);
        hinger.boards = vec![vec![vec![1, 0], vec![2, 1]]];
        let back = GameSettings::from_rules("hinger", &hinger.rules()).unwrap();
        assert_eq!(back.boards, hinger.boards);

        let mut asalto = GameSettings::defaults(GameKind::Asalto);
        asalto.round_limit = 40;
        let back = GameSettings::from_rules("asalto", &asalto.rules()).unwrap();
        assert_eq!(back.round_limit, 40);
    }

    #[test]
    fn a_bad_recorded_rule_is_named() {
        let rules: Map<String, Value> = serde_json::from_str(r#"{"health": "lots"}"#).unwrap();
        let err = GameSettings::from_rules("battle", &rules)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("rules.health") && err.contains("LO..HI"),
            "{err}"
        );
        let err = GameSettings::from_rules("chess", &Map::new())
            .unwrap_err()
            .to_string();
        assert!(err.contains("`chess`"), "{err}");
    }

    #[test]
    fn ranges_read_as_written() {
        assert_eq!(parse_range("1..6"), Ok(1..=6));
        assert_eq!(parse_range("4"), Ok(4..=4));
        assert!(parse_range("1-6").unwrap_err().contains("LO..HI"));
    }
}
