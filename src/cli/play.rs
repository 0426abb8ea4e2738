//! `arbiter play` (one game, printed) and `arbiter bot` (a built-in bot over the protocol).

use super::games::GameOptions;
use super::options::named_spec;
use crate::bots::Player;
use crate::bots::spec::BotSpec;
use crate::engines::Builtins;
use crate::error::Error;
use crate::games::registry::with_game;
use crate::record::GameSummary;
use crate::referee::{Event, MatchConfig, play_game};
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub(crate) struct PlayArgs {
    #[command(flatten)]
    pub game: GameOptions,
    /// Asalto's rebel bot: `builtin:NAME`, a course-style file, or a command line, each
    /// optionally named as `NAME=SPEC`.
    #[arg(long)]
    pub rebel: Option<String>,
    /// Asalto's officer bot.
    #[arg(long)]
    pub officer: Option<String>,
    /// Gomoku's or Advance's white bot (moves first).
    #[arg(long)]
    pub white: Option<String>,
    /// Gomoku's or Advance's black bot.
    #[arg(long)]
    pub black: Option<String>,
    /// Hinger's first player.
    #[arg(long)]
    pub first: Option<String>,
    /// Hinger's second player.
    #[arg(long)]
    pub second: Option<String>,
    /// Battle's player a: the state string's starting player, who moves first.
    #[arg(long = "a")]
    pub a: Option<String>,
    /// Battle's player b.
    #[arg(long = "b")]
    pub b: Option<String>,
    #[command(flatten)]
    pub play: super::options::PlayOptions,
    /// Write the game record as JSON to this file.
    #[arg(long)]
    pub record: Option<PathBuf>,
    /// Print the board, the move and its time after each turn.
    #[arg(long)]
    pub show: bool,
}

#[derive(clap::Args, Debug)]
pub(crate) struct BotArgs {
    /// The built-in bot to serve (random, greedy, alphabeta; Battle: random, greedy,
    /// minimax).
    pub name: String,
    #[command(flatten)]
    pub game: GameOptions,
}

pub(crate) fn run(args: PlayArgs) -> Result<i32, Error> {
    let settings = args.game.settings()?;
    with_game!(settings, args.play.seed, |game| play_one(&game, &args))
}

pub(crate) fn serve(args: BotArgs) -> Result<i32, Error> {
    let settings = args.game.settings()?;
    with_game!(settings, 0, |game| serve_builtin(&game, &args.name))
}

impl PlayArgs {
    /// The bot given for `role`, by the flag named after it.
    fn role_flag(&self, role: &str) -> Option<&String> {
        match role {
            "rebel" => self.rebel.as_ref(),
            "officer" => self.officer.as_ref(),
            "white" => self.white.as_ref(),
            "black" => self.black.as_ref(),
            "first" => self.first.as_ref(),
            "second" => self.second.as_ref(),
            "a" => self.a.as_ref(),
            "b" => self.b.as_ref(),
            _ => None,
        }
    }
}

fn serve_builtin<G: Builtins>(game: &G, name: &str) -> Result<i32, Error> {
    if game.builtin(name, 0).is_none() {
        return Err(unknown_builtin(game, name));
    }
    let stdin = std::io::stdin().lock();
    let stdout = std::io::stdout().lock();
    crate::bots::serve::serve(game, name, stdin, stdout).map_err(|source| Error::Io {
        path: PathBuf::from("<stdout>"),
        source,
    })?;
    Ok(crate::error::exit::DONE)
}

fn unknown_builtin<G: Builtins>(game: &G, name: &str) -> Error {
    Error::usage(format!(
        "no built-in {} bot named `{name}`: expected one of {}",
        game.name(),
        game.builtin_names().join(", ")
    ))
}

fn play_one<G: Builtins>(game: &G, args: &PlayArgs) -> Result<i32, Error> {
    for role in [
        "rebel", "officer", "white", "black", "first", "second", "a", "b",
    ] {
        if args.role_flag(role).is_some() && game.side_named(role).is_none() {
            return Err(Error::usage(format!(
                "--{role} is not a role of {}: its roles are --{} and --{}",
                game.name(),
                game.roles()[0],
                game.roles()[1]
            )));
        }
    }
    // Where the record goes is checked before a game that may take minutes.
    if let Some(path) = &args.record {
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => std::path::Path::new("."),
        };
        if !folder.is_dir() || path.is_dir() {
            let why = match path.is_dir() {
                true => "it is a folder",
                false => "its folder does not exist",
            };
            return Err(Error::usage(format!(
                "--record {}: {why}: expected a file to write the game's record to",
                path.display()
            )));
        }
    }
    let specs = game.roles().map(|role| (role, args.role_flag(role)));
    let mut players: Vec<Box<dyn Player<G>>> = Vec::new();
    let mut names = Vec::new();
    let mut seated = Vec::new();
    // Both bots are the run's before either is asked its name: neither reads the other's
    // files, nor the record.
    let early = specs.iter().filter_map(|(_, text)| {
        super::options::spec_with_name(text.as_deref()?, args.play.python.as_deref()).ok()
    });
    let early: Vec<BotSpec> = early.map(|(_, _, spec)| spec).collect();
    crate::class::enter(early.iter().map(|spec| (spec, None)));
    if let Some(record) = &args.record {
        crate::jail::entrants::results(record);
    }
    for (role, text) in specs {
        let text = text.ok_or_else(|| Error::usage(format!("--{role} BOT is required")))?;
        let confine = args.play.confine.confinement();
        let (name, _, spec) = named_spec(text, args.play.python.as_deref(), confine)?;
        if let BotSpec::Builtin(name) = &spec
            && game.builtin(name, 0).is_none()
        {
            return Err(unknown_builtin(game, name));
        }
        if !matches!(spec, BotSpec::Builtin(_)) {
            super::confine::check(role, &confine)?;
        }
        names.push(name);
        seated.push((spec, confine));
    }
    for (spec, confine) in &seated {
        let player = crate::bots::open_player_in(spec, game, None, &Default::default(), *confine);
        players.push(player.map_err(Error::usage)?);
    }
    let config = MatchConfig {
        move_limit: Duration::from_millis(args.play.limit_ms),
        init_limit: Duration::from_millis(args.play.init_limit_ms),
        seed: args.play.seed,
        // One game: it may have a CPU for each bot.
        two_cpus: true,
        ..MatchConfig::default()
    };
    let [first, second] = &mut players[..] else {
        unreachable!("two seats")
    };
    let show = args.show;
    let mut on_event = |event: Event<'_, G>| {
        if !show {
            return;
        }
        match event {
            Event::Started { state } => say!("{}", game.render(state)),
            Event::Turn { record, state } => {
                let reason = record
                    .reason
                    .as_deref()
                    .map(|r| format!(" ({r})"))
                    .unwrap_or_default();
                say!(
                    "ply {} {} {} -> {}{} in {:.1} ms",
                    record.ply,
                    record.side,
                    record.reply,
                    record.verdict,
                    reason,
                    record.time_ms
                );
                say!("{}", game.render(state));
            }
            Event::Finished { .. } => {}
        }
    };
    let record = play_game(
        game,
        [first.as_mut(), second.as_mut()],
        [names[0].as_str(), names[1].as_str()],
        &config,
        &mut on_event,
    );
    say!("{}", crate::report::game_line(&GameSummary::of(0, &record)));
    if let Some(path) = &args.record {
        let json = serde_json::to_string_pretty(&record).expect("a record always serializes");
        std::fs::write(path, json + "\n").map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
    }
    // A bot that could not be started makes the game no evidence: say so to scripts.
    if record.reason == crate::bots::FailureKind::Spawn.code() {
        // Which bot, and why, in the words the record keeps.
        let why = record
            .detail
            .as_deref()
            .map(|d| format!(" ({})", crate::record::headline(d)))
            .unwrap_or_default();
        note!("a bot could not be started{why}: the game was not played (exit 1)");
        return Ok(crate::error::exit::FAILED);
    }
    // Nor is a game the machine's load left without a result (no bot's fault).
    if record.reason == crate::bots::MACHINE_LOAD {
        note!(
            "the machine was too busy for fair clocks: the game has no result; play it again \
             on a quieter machine (exit {})",
            crate::error::exit::OVERLOADED
        );
        return Ok(crate::error::exit::OVERLOADED);
    }
    Ok(crate::error::exit::DONE)
}
