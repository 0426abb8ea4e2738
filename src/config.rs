//! tournaments.toml: named tournaments, with errors that name the file, line and key.

use crate::error::Error;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::Spanned;

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    /// The tournament `arbiter run` plays when no name is given.
    pub default: Option<Spanned<String>>,
    /// The `[tournaments.NAME]` tables, by name.
    #[serde(default)]
    pub tournaments: BTreeMap<String, TournamentConfig>,
}

/// One `[tournaments.NAME]` table.
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a tournament as a table, [tournaments.NAME]"
)]
pub struct TournamentConfig {
    /// The game's name (`asalto`, `gomoku`, `hinger`, `battle`, `advance`).
    pub game: Spanned<String>,
    /// `round_robin` (default) or `gauntlet` (the first bot against each other bot).
    pub format: Option<Spanned<String>>,
    /// The entrants, each a table with a `spec` (one bot) or a `folder` (a team per entry).
    pub bots: Spanned<Vec<BotConfig>>,
    /// Role-swapped pairs of games per pairing, at least 1 (default 1).
    pub pairs: Option<Spanned<u32>>,
    /// The move limit in milliseconds, at least 1 (default 10000).
    pub limit_ms: Option<Spanned<u64>>,
    /// The limit for a bot's start-up (`hello` to `ready`) in milliseconds (default 30000).
    pub init_limit_ms: Option<Spanned<u64>>,
    /// Games played at once (default: the cores); `-j` overrides it.
    pub jobs: Option<Spanned<u32>>,
    /// The seed openings, starts and bots' seeds are drawn from (default 1).
    pub seed: Option<u64>,
    /// Output folder, relative to the config file's folder.
    pub out: Option<String>,
    /// Asalto's round limit.
    pub round_limit: Option<Spanned<u32>>,
    /// Hinger start boards (files relative to the config file's folder).
    pub boards: Option<Vec<Spanned<String>>>,
    /// Hinger random starts: rows, columns, density.
    pub rows: Option<Spanned<u32>>,
    /// Columns of Hinger's random starts, 1 to 64 (default 5).
    pub cols: Option<Spanned<u32>>,
    /// The chance, 0 to 1, that a cell of a random Hinger start holds a counter (default 0.6).
    pub density: Option<Spanned<f64>>,
    /// Each pair starts with this many random plies (0: the standard start).
    pub random_plies: Option<Spanned<u32>>,
    /// An opening book, relative to the config file's folder.
    pub openings: Option<Spanned<String>>,
    /// `sequential` (default) or `random`.
    pub openings_order: Option<Spanned<String>>,
    /// The interpreter for course-style `.py` bots that name none.
    pub python: Option<String>,
    /// Limits and isolation of every bot program (docs/SECURITY.md); a bot may override.
    pub memory_mb: Option<Spanned<u64>>,
    /// CPU seconds per process for a whole game (`RLIMIT_CPU`).
    pub cpu_s: Option<Spanned<u64>>,
    /// Largest file a bot may write, in MiB (`RLIMIT_FSIZE`).
    pub file_mb: Option<Spanned<u64>>,
    /// Seconds a submission's build may take (default 300).
    pub build_limit_s: Option<Spanned<u64>>,
    /// `auto` (default), `namespaces`, `landlock`, `none` or `user`.
    pub sandbox: Option<Spanned<String>>,
    /// `true`: bots run on any CPU, not on their game's CPU beside the referee.
    pub spread_bots: Option<Spanned<bool>>,
    /// A class list (CSV with a `team` or `group` column) for marks.csv, relative to this file.
    pub roster: Option<Spanned<String>>,
    /// `true`: the roster lists a part of the class; teams with no student of it are
    /// marked per team.
    pub partial_roster: Option<Spanned<bool>>,
}

/// One entry of a tournament's `bots`: one bot (`spec`) or a folder of submissions.
#[derive(Debug, Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a bot as a table: { spec = \"builtin:random\" }, { spec = \"Team01.py\" } \
                 or { folder = \"submissions\" }"
)]
pub struct BotConfig {
    /// Defaults to the name derived from the spec (file stem, builtin name).
    pub name: Option<Spanned<String>>,
    /// `builtin:NAME`, a `.py` course bot, or a command line; paths relative to the
    /// config file's folder. A bot has this or `folder`.
    pub spec: Option<Spanned<String>>,
    /// A folder of submissions, relative to the config file's folder: every entry of it
    /// is a bot (see `class`).
    pub folder: Option<Spanned<String>>,
    /// With `folder`: only the entries whose names match (`*` and `?` wildcards).
    pub pattern: Option<Spanned<String>>,
    /// The interpreter for this bot's `.py` files, over the tournament's `python`.
    pub python: Option<Spanned<String>>,
    /// Working directory, relative to the config file's folder (default for a command:
    /// that folder).
    pub dir: Option<Spanned<String>>,
    /// Environment variables set for the bot's program.
    pub env: Option<Spanned<BTreeMap<String, String>>>,
    /// This bot's `memory_mb`, over the tournament's.
    pub memory_mb: Option<Spanned<u64>>,
    /// This bot's `cpu_s`, over the tournament's.
    pub cpu_s: Option<Spanned<u64>>,
    /// This bot's `file_mb`, over the tournament's.
    pub file_mb: Option<Spanned<u64>>,
    /// This bot's `build_limit_s`, over the tournament's.
    pub build_limit_s: Option<Spanned<u64>>,
    /// This bot's `sandbox`, over the tournament's.
    pub sandbox: Option<Spanned<String>>,
    /// This bot's `spread_bots`, over the tournament's.
    pub spread_bots: Option<Spanned<bool>>,
    /// `false`: kept out of the course marks (a reference bot); default true.
    pub scoring: Option<Spanned<bool>>,
}

/// A parsed config with what is needed to point at its lines.
pub struct Config {
    /// The file as named, for errors.
    pub path: PathBuf,
    /// Its text, for the line numbers of errors.
    pub text: String,
    /// What it holds.
    pub file: ConfigFile,
}

impl Config {
    /// Reads and parses the file at `path`.
    pub fn load(path: &Path) -> Result<Config, Error> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Unreadable {
            path: path.to_path_buf(),
            source,
        })?;
        Config::parse(path, text)
    }

    /// Reads the text of a config file; `path` names it in errors.
    pub fn parse(path: &Path, text: String) -> Result<Config, Error> {
        let file: ConfigFile = toml::from_str(&text).map_err(|e| {
            let line = e.span().map(|s| line_of(&text, s.start)).unwrap_or(0);
            // A type error points at the value: name the key it belongs to.
            let key = e.span().and_then(|s| key_before(&text, s.start));
            let message = match key {
                Some(key) => format!("`{key}`: {}", e.message()),
                None => e.message().to_string(),
            };
            Error::Input {
                path: path.to_path_buf(),
                line,
                message,
            }
        })?;
        Ok(Config {
            path: path.to_path_buf(),
            text,
            file,
        })
    }

    /// An error at the place `span` points to.
    pub fn error_at(&self, span: std::ops::Range<usize>, message: impl Into<String>) -> Error {
        Error::Input {
            path: self.path.clone(),
            line: line_of(&self.text, span.start),
            message: message.into(),
        }
    }

    /// The folder relative paths in the file are resolved against.
    pub fn base_dir(&self) -> PathBuf {
        match self.path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        }
    }

    /// The tournament called `name`, or the file's default.
    pub fn tournament(&self, name: Option<&str>) -> Result<(String, &TournamentConfig), Error> {
        let name = match name {
            Some(n) => n.to_string(),
            None => match &self.file.default {
                Some(d) => {
                    let n = d.get_ref().clone();
                    if !self.file.tournaments.contains_key(&n) {
                        return Err(self.error_at(
                            d.span(),
                            format!("default tournament `{n}` is not defined"),
                        ));
                    }
                    n
                }
                None if self.file.tournaments.len() == 1 => self
                    .file
                    .tournaments
                    .keys()
                    .next()
                    .cloned()
                    .unwrap_or_default(),
                None => {
                    return Err(Error::Input {
                        path: self.path.clone(),
                        line: 0,
                        message: "no `default = \"NAME\"` and more than one tournament: name one"
                            .into(),
                    });
                }
            },
        };
        match self.file.tournaments.get(&name) {
            Some(t) => Ok((name, t)),
            None => Err(Error::Input {
                path: self.path.clone(),
                line: 0,
                message: format!(
                    "no tournament `{name}`; defined: {}",
                    self.file
                        .tournaments
                        .keys()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }),
        }
    }
}

/// A bot's limits and isolation: its own keys, else the tournament's.
pub fn confinement(
    config: &Config,
    t: &TournamentConfig,
    bot: &BotConfig,
) -> Result<crate::bots::spec::Confinement, Error> {
    use crate::bots::spec::{Confinement, Limits, SandboxMode};
    let positive = |v: Option<&Spanned<u64>>, key: &str| -> Result<Option<u64>, Error> {
        match v {
            Some(s) if *s.get_ref() == 0 => {
                Err(config.error_at(s.span(), format!("`{key}` must be at least 1")))
            }
            Some(s) => Ok(Some(*s.get_ref())),
            None => Ok(None),
        }
    };
    let sandbox = match bot.sandbox.as_ref().or(t.sandbox.as_ref()) {
        None => SandboxMode::Auto,
        Some(s) => SandboxMode::parse(s.get_ref()).ok_or_else(|| {
            config.error_at(
                s.span(),
                format!(
                    "sandbox `{}`: expected auto, namespaces, landlock, none or user",
                    s.get_ref()
                ),
            )
        })?,
    };
    Ok(Confinement {
        limits: Limits {
            memory_mb: positive(bot.memory_mb.as_ref().or(t.memory_mb.as_ref()), "memory_mb")?,
            cpu_s: positive(bot.cpu_s.as_ref().or(t.cpu_s.as_ref()), "cpu_s")?,
            file_mb: positive(bot.file_mb.as_ref().or(t.file_mb.as_ref()), "file_mb")?,
            procs: None,
        },
        sandbox,
        build_s: positive(
            bot.build_limit_s.as_ref().or(t.build_limit_s.as_ref()),
            "build_limit_s",
        )?,
        spread: bot
            .spread_bots
            .as_ref()
            .or(t.spread_bots.as_ref())
            .is_some_and(|s| *s.get_ref()),
    })
}

/// `spec` with its paths made relative to `base` (the config file's folder): a course
/// bot's file, or a command's program when it is a path. A command's other words are read
/// in its working folder, which is `base` unless `dir` says otherwise.
pub fn resolve_spec(spec: &str, base: &Path) -> String {
    let text = spec.trim();
    if text.starts_with("builtin:") {
        return spec.to_string();
    }
    let Some(mut words) = shlex::split(text) else {
        // Unbalanced quotes: the spec's parser says so.
        return spec.to_string();
    };
    let single = words.len() == 1;
    let Some(first) = words.first_mut() else {
        return spec.to_string();
    };
    if single && (first.ends_with(".py") || first.ends_with(".java")) {
        if Path::new(first.as_str()).is_relative() {
            *first = base.join(&*first).to_string_lossy().into_owned();
        }
    } else {
        *first = resolve_program(first, base);
    }
    shlex::try_join(words.iter().map(String::as_str)).unwrap_or_else(|_| spec.to_string())
}

/// An interpreter or program named in the file: a relative path (`venv/bin/python`) is
/// relative to `base`; a bare name (`python3`) is looked up in `PATH` as written.
pub fn resolve_program(program: &str, base: &Path) -> String {
    if program.contains('/') && Path::new(program).is_relative() {
        base.join(program).to_string_lossy().into_owned()
    } else {
        program.to_string()
    }
}

/// Refuses the game settings that do not apply to `game`, naming the key, its line and why.
pub fn check_game_keys(
    config: &Config,
    t: &TournamentConfig,
    game: crate::games::GameKind,
) -> Result<(), Error> {
    use crate::games::GameKind;
    let name = game.name();
    if game != GameKind::Asalto
        && let Some(v) = &t.round_limit
    {
        return Err(config.error_at(
            v.span(),
            format!("`round_limit` is Asalto's round limit; {name} has none"),
        ));
    }
    if let Some(board) = t.boards.as_ref().and_then(|b| b.first())
        && game != GameKind::Hinger
    {
        return Err(config.error_at(
            board.span(),
            format!("`boards` are Hinger start boards; {name} has none"),
        ));
    }
    let move_openings = [
        ("random_plies", t.random_plies.as_ref().map(|v| v.span())),
        ("openings", t.openings.as_ref().map(|v| v.span())),
        (
            "openings_order",
            t.openings_order.as_ref().map(|v| v.span()),
        ),
    ];
    for (key, span) in move_openings {
        if let Some(span) = span
            && game == GameKind::Hinger
        {
            return Err(config.error_at(
                span,
                format!(
                    "`{key}` chooses move openings; {name}'s openings are its start boards \
                     (`boards`, or random starts)"
                ),
            ));
        }
    }
    let random_starts = [
        ("rows", t.rows.as_ref().map(|v| v.span())),
        ("cols", t.cols.as_ref().map(|v| v.span())),
        ("density", t.density.as_ref().map(|v| v.span())),
    ];
    for (key, span) in random_starts {
        let Some(span) = span else { continue };
        if game != GameKind::Hinger {
            return Err(config.error_at(
                span,
                format!("`{key}` shapes Hinger's random starts; {name} has none"),
            ));
        }
        if t.boards.as_ref().is_some_and(|b| !b.is_empty()) {
            return Err(config.error_at(
                span,
                format!("`{key}` shapes Hinger's random starts, which `boards` replace"),
            ));
        }
    }
    Ok(())
}

/// Where a bot of the file comes from.
pub enum BotSource<'a> {
    /// One bot, as `spec` names it.
    Spec(&'a Spanned<String>),
    /// Every bot of a folder of submissions, the entries matching `pattern`.
    Folder {
        /// The `folder` key, relative to the config file's folder.
        folder: &'a Spanned<String>,
        /// The `pattern` key (`*` and `?` wildcards); `None` takes every entry.
        pattern: Option<&'a str>,
    },
}

/// Whether `bot` is one bot (`spec`) or a folder of submissions (`folder`), refusing the
/// keys that do not go with it, naming the key, its line and why. `bots` is the span of
/// the tournament's bot list, for a bot that has neither.
pub fn bot_source<'a>(
    config: &Config,
    bot: &'a BotConfig,
    bots: std::ops::Range<usize>,
) -> Result<BotSource<'a>, Error> {
    match (&bot.spec, &bot.folder) {
        (Some(_), Some(folder)) => Err(config.error_at(
            folder.span(),
            "a bot has `spec` (one bot) or `folder` (a folder of submissions, one bot per \
             entry), not both",
        )),
        (Some(spec), None) => match &bot.pattern {
            Some(p) => Err(config.error_at(
                p.span(),
                "`pattern` chooses entries of a `folder` of submissions; this bot is a `spec`",
            )),
            None => Ok(BotSource::Spec(spec)),
        },
        (None, Some(folder)) => {
            let misplaced = [
                (
                    bot.name.as_ref().map(|v| v.span()),
                    "`name`: the bots of a `folder` are named after their entries (file stem \
                     or folder name)",
                ),
                (
                    bot.dir.as_ref().map(|v| v.span()),
                    "`dir` is the working folder of a bot named by `spec`; each bot of a \
                     `folder` runs in its own folder",
                ),
            ];
            if let Some((Some(span), why)) = misplaced.into_iter().find(|(s, _)| s.is_some()) {
                return Err(config.error_at(span, why));
            }
            Ok(BotSource::Folder {
                folder,
                pattern: bot.pattern.as_ref().map(|p| p.get_ref().as_str()),
            })
        }
        (None, None) => Err(match &bot.dir {
            Some(dir) => config.error_at(
                dir.span(),
                "this bot has no `spec`: `dir` is the working folder of the bot `spec` names; for a folder of submissions (one bot per entry) write `folder = \"...\"`",
            ),
            None => config.error_at(
                bots,
                "a bot needs `spec` (one bot) or `folder` (a folder of submissions)",
            ),
        }),
    }
}

/// The openings the tournament asks for (`random_plies`, `openings`, `openings_order`),
/// refusing keys that do not go together, with their line. A run without them plays
/// from the standard start.
pub fn opening_choice(
    config: &Config,
    t: &TournamentConfig,
    base: &Path,
) -> Result<crate::tournament::openings::OpeningChoice, Error> {
    use crate::tournament::openings::OpeningChoice;
    if let (Some(plies), Some(_)) = (&t.random_plies, &t.openings) {
        return Err(config.error_at(
            plies.span(),
            "`random_plies` and `openings` are two ways to choose the openings: give one",
        ));
    }
    let shuffled = match &t.openings_order {
        None => false,
        Some(o) if t.openings.is_none() => {
            return Err(config.error_at(
                o.span(),
                "`openings_order` orders the lines of an `openings` book; there is none",
            ));
        }
        Some(o) => match o.get_ref().as_str() {
            "sequential" => false,
            "random" => true,
            other => {
                return Err(config.error_at(
                    o.span(),
                    format!("openings_order `{other}`: expected sequential or random"),
                ));
            }
        },
    };
    Ok(match (&t.random_plies, &t.openings) {
        (_, Some(book)) => OpeningChoice::Book {
            file: base.join(book.get_ref()),
            shuffled,
        },
        (Some(plies), None) => OpeningChoice::RandomPlies(*plies.get_ref()),
        (None, None) => OpeningChoice::Default,
    })
}

/// Refuses the keys of `bot` that do not apply to its kind (`spec` is its parsed spec,
/// `text` as written), naming the key, its line and why.
pub fn check_bot_keys(
    config: &Config,
    bot: &BotConfig,
    text: &str,
    spec: &crate::bots::spec::BotSpec,
) -> Result<(), Error> {
    use crate::bots::spec::BotSpec;
    if matches!(spec, BotSpec::Builtin(_)) {
        let keys = [
            ("python", bot.python.as_ref().map(|v| v.span())),
            ("dir", bot.dir.as_ref().map(|v| v.span())),
            ("env", bot.env.as_ref().map(|v| v.span())),
            ("memory_mb", bot.memory_mb.as_ref().map(|v| v.span())),
            ("cpu_s", bot.cpu_s.as_ref().map(|v| v.span())),
            ("file_mb", bot.file_mb.as_ref().map(|v| v.span())),
            (
                "build_limit_s",
                bot.build_limit_s.as_ref().map(|v| v.span()),
            ),
            ("sandbox", bot.sandbox.as_ref().map(|v| v.span())),
            ("spread_bots", bot.spread_bots.as_ref().map(|v| v.span())),
        ];
        if let Some((key, Some(span))) = keys.into_iter().find(|(_, s)| s.is_some()) {
            return Err(config.error_at(
                span,
                format!(
                    "`{key}` does not apply to the built-in bot `{}`: it runs inside arbiter, \
                     not as a program",
                    text
                ),
            ));
        }
    }
    if let Some(python) = &bot.python
        && !matches!(spec, BotSpec::CoursePython { .. })
    {
        return Err(config.error_at(
            python.span(),
            format!(
                "`python` is the interpreter of a course-style .py bot; `{}` is not one (a \
                 command names its own interpreter)",
                text
            ),
        ));
    }
    Ok(())
}

/// The key of a `key = value` whose value starts at byte `offset`, if that is what is there.
fn key_before(text: &str, offset: usize) -> Option<String> {
    let before = text.get(..offset)?.trim_end();
    let before = before.strip_suffix('=')?.trim_end();
    let start = before
        .char_indices()
        .rev()
        .find(|&(_, c)| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.' || c == '"'))
        .map_or(0, |(i, c)| i + c.len_utf8());
    let key = before[start..].trim_matches('"');
    (!key.is_empty()).then(|| key.to_string())
}

/// 1-based line of byte `offset` in `text`.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset.min(text.len()))
        .map(|t| t.matches('\n').count() + 1)
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spread_bots_is_the_tournaments_unless_a_bot_says_otherwise() {
        let text = r#"
[tournaments.t]
game = "asalto"
spread_bots = true
bots = [
  { spec = "a.py" },
  { spec = "b.py", spread_bots = false },
]
[tournaments.u]
game = "asalto"
bots = [{ spec = "a.py" }]
"#;
        let config = Config::parse(Path::new("t.toml"), text.to_string()).unwrap();
        let spread = |name: &str| -> Vec<bool> {
            let t = &config.file.tournaments[name];
            t.bots
                .get_ref()
                .iter()
                .map(|bot| confinement(&config, t, bot).unwrap().spread)
                .collect()
        };
        assert_eq!(spread("t"), [true, false]);
        assert_eq!(spread("u"), [false]);
    }

    #[test]
    fn a_bot_written_as_a_plain_string_is_told_to_be_a_table() {
        let text =
            "[tournaments.t]\ngame = \"asalto\"\nbots = [\"builtin:random\", \"builtin:greedy\"]\n";
        let Err(e) = Config::parse(Path::new("t.toml"), text.to_string()) else {
            panic!("a string is no bot table");
        };
        let said = e.to_string();
        assert!(
            said.contains("t.toml:3")
                && said.contains("expected a bot as a table: { spec = \"builtin:random\" }")
                && !said.contains("BotConfig"),
            "{said}"
        );
    }

    #[test]
    fn a_key_after_a_multibyte_character_is_no_panic() {
        // Found by fuzz/config_toml: a BOM inside a quoted key before `=`.
        let text = "\"\"\"pai\u{feff}\" =\n\r\r";
        assert!(Config::parse(Path::new("t.toml"), text.to_string()).is_err());
        assert_eq!(key_before("é= 1", 4).as_deref(), Some("é"));
        assert_eq!(key_before("x \u{feff}y = 1", 9).as_deref(), Some("y"));
    }

    #[test]
    fn spec_paths_are_relative_to_the_config_folder_for_every_bot_kind() {
        let base = Path::new("/league");
        assert_eq!(
            resolve_spec("./bots/proto.sh --fast", base),
            "/league/./bots/proto.sh --fast"
        );
        assert_eq!(
            resolve_spec("bots/Player1.java", base),
            "/league/bots/Player1.java"
        );
        assert_eq!(resolve_spec("Team01.py", base), "/league/Team01.py");
        assert_eq!(
            resolve_spec("'my bots/T.py'", base),
            "'/league/my bots/T.py'"
        );
        // Programs found in PATH, absolute paths and built-ins stay as written.
        assert_eq!(resolve_spec("python3 -u bot.py", base), "python3 -u bot.py");
        assert_eq!(resolve_spec("/opt/bot --x", base), "/opt/bot --x");
        assert_eq!(resolve_spec("builtin:random", base), "builtin:random");
        assert_eq!(
            resolve_program("venv/bin/python", base),
            "/league/venv/bin/python"
        );
        assert_eq!(resolve_program("python3", base), "python3");
    }
}
