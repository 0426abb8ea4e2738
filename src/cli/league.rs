//! `arbiter league`, `gauntlet`, `run` and `table`: tournaments from the command line or
//! from tournaments.toml, with progress while they run and the standings at the end.

use super::options::{MatchOptions, OpeningOptions, cli_entrant, jobs_or_cores, parse_spec};
use super::signals::graceful_stop;
use super::submissions::{SubmissionOptions, cli_entrants};
use crate::config::{Config, TournamentConfig};
use crate::engines::Builtins;
use crate::error::Error;
use crate::games::GameKind;
use crate::games::registry::{self, GameSettings, with_game};
use crate::report;
use crate::tournament::journal::Repair;
use crate::tournament::openings::OpeningChoice;
use crate::tournament::shard::Shard;
use crate::tournament::{self, Entrant, Format, LeagueEvent, Tournament};
use std::collections::HashSet;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Options of the tournament commands.
#[derive(clap::Args, Debug)]
pub struct LeagueOptions {
    #[command(flatten)]
    pub matches: MatchOptions,
    /// The output folder (journal and tables); rerun with the same folder to resume.
    #[arg(long)]
    pub out: PathBuf,
    /// Role-swapped pairs of games per pairing.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub pairs: u32,
    /// No line per finished game: progress and the final table only.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Start afresh although the folder holds a journal (kept as games.jsonl.old).
    #[arg(long)]
    pub force_new: bool,
    /// A bot kept out of the course marks (a reference bot): it plays and is ranked, but
    /// has no mark and does not set x_winner. Repeat for several.
    #[arg(long = "non-scoring", value_name = "NAME")]
    pub non_scoring: Vec<String>,
    #[command(flatten)]
    pub openings: OpeningOptions,
    /// Play only shard K of N of the schedule (K from 1), for a cluster: each shard
    /// writes its own folder; `arbiter merge` makes them one.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
}

#[derive(clap::Args, Debug)]
pub struct LeagueArgs {
    #[command(flatten)]
    pub options: LeagueOptions,
    #[command(flatten)]
    pub submissions: SubmissionOptions,
    /// The bots: `NAME=SPEC`, a SPEC (`builtin:NAME`, a `.py` file, a command line), or a
    /// folder of submissions (every bot in it).
    #[arg(required = true, num_args = 1..)]
    pub bots: Vec<String>,
}

#[derive(clap::Args, Debug)]
pub struct GauntletArgs {
    #[command(flatten)]
    pub options: LeagueOptions,
    /// The bot under test: `NAME=SPEC` or a SPEC.
    #[arg(long)]
    pub candidate: String,
    /// The bots it plays against.
    #[arg(long, required = true, num_args = 1..)]
    pub baseline: Vec<String>,
}

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// The tournament to run (default: the file's `default`).
    pub name: Option<String>,
    /// The tournaments file.
    #[arg(long, default_value = "tournaments.toml")]
    pub config: PathBuf,
    /// Games at once, overriding the file.
    #[arg(short = 'j', long, value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: Option<u32>,
    /// No line per finished game: progress and the final table only.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Start afresh although the output folder holds a journal (kept as games.jsonl.old).
    #[arg(long)]
    pub force_new: bool,
    /// Play only shard K of N of the schedule (K from 1), for a cluster; without --out, a
    /// shard writes to shard-K inside the tournament's folder.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<Shard>,
    /// The output folder, overriding the file's `out` (default: results/NAME).
    #[arg(long)]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub submissions: SubmissionOptions,
}

#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// The merged folder (it must not hold a journal).
    #[arg(long)]
    pub out: PathBuf,
    /// Merge what is there although shards or games are missing, and say what.
    #[arg(long)]
    pub partial: bool,
    /// The shards' output folders.
    #[arg(required = true, num_args = 1.., value_name = "SHARD_DIR")]
    pub shards: Vec<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub struct TableArgs {
    /// A tournament's output folder.
    pub dir: PathBuf,
    /// Marks leaving out these bots instead of the ones the tournament was run with.
    /// Repeat for several.
    #[arg(long = "non-scoring", value_name = "NAME")]
    pub non_scoring: Vec<String>,
}

pub fn league(args: LeagueArgs) -> Result<i32, Error> {
    let entrants = cli_entrants(
        &args.bots,
        args.options.matches.game.game,
        args.options.matches.play.python.as_deref(),
        &args.options.out,
        args.submissions.strict,
    )?;
    start(
        &args.options,
        Format::RoundRobin,
        entrants,
        args.submissions.check,
    )
}

pub fn gauntlet(args: GauntletArgs) -> Result<i32, Error> {
    let python = args.options.matches.play.python.as_deref();
    let mut entrants = vec![cli_entrant(&args.candidate, python)?];
    for b in &args.baseline {
        entrants.push(cli_entrant(b, python)?);
    }
    start(&args.options, Format::Gauntlet, entrants, false)
}

pub fn merge(args: MergeArgs) -> Result<i32, Error> {
    let merged = tournament::merge::merge(&args.shards, &args.out, args.partial)?;
    // The merged folder's tables and report are made from its journal, as `arbiter table`
    // makes them.
    let (_, table, index) = report::rebuild_tables(
        &args.out,
        None,
        &args.out.join(report::REPORT_DIR),
        report::Replays::RUN,
    )?;
    println!("{}", report::standings_text(&merged.plan.roles, &table));
    println!(
        "merged {} of {} games from {} of {} shards into {}",
        merged.games,
        merged.total,
        merged.count as usize - merged.missing_shards.len(),
        merged.count,
        args.out.display()
    );
    println!("{}", super::report::written(&index));
    let missing = merged.missing();
    if !missing.is_empty() {
        for line in missing {
            eprintln!("partial: {line}");
        }
        eprintln!(
            "partial: a run resumed on {} with the same settings plays what is missing",
            args.out.display()
        );
    }
    Ok(0)
}

pub fn table(args: TableArgs) -> Result<i32, Error> {
    let listed = (!args.non_scoring.is_empty()).then_some(args.non_scoring.as_slice());
    let (loaded, table, index) = report::rebuild_tables(
        &args.dir,
        listed,
        &args.dir.join(report::REPORT_DIR),
        report::Replays::RUN,
    )?;
    match loaded.repair {
        Some(Repair::Dropped) => eprintln!(
            "note: the journal's last line is torn (a run was killed mid-write): left out and \
             left as it is; the next run on this folder drops it and plays that game again"
        ),
        Some(Repair::Completed) => eprintln!(
            "note: the journal's last line lacks its newline: counted, and left as it is; the \
             next run on this folder completes it"
        ),
        None => {}
    }
    if loaded.version < 3 {
        let lacks = if loaded.version < 2 {
            "the limits, interpreter, confinement, bot digests and openings"
        } else {
            "the openings (its games started from the standard start)"
        };
        eprintln!(
            "note: journal format {}: its plan lacks {lacks}; tables are rebuilt, but a run \
             will not resume it",
            loaded.version
        );
    }
    if let Some(shard) = loaded.shard {
        eprintln!(
            "note: {} holds shard {shard} of the schedule: these tables count its games only; \
             `arbiter merge` makes the whole tables from every shard",
            args.dir.display()
        );
    }
    println!("{}", report::standings_text(&loaded.plan.roles, &table));
    println!("tables written to {}", args.dir.display());
    println!("{}", super::report::written(&index));
    Ok(0)
}

fn start(
    options: &LeagueOptions,
    format: Format,
    mut entrants: Vec<Entrant>,
    check: bool,
) -> Result<i32, Error> {
    let m = &options.matches;
    let settings = m.game.settings()?;
    let names: Vec<&str> = entrants.iter().map(|e| e.name.as_str()).collect();
    for name in &options.non_scoring {
        report::check_bot_name(name, &names)?;
    }
    for e in &mut entrants {
        e.non_scoring = options.non_scoring.contains(&e.name);
    }
    let mut tournament = m.tournament(
        format,
        entrants,
        options.pairs,
        options.out.clone(),
        options.force_new,
    );
    tournament.shard = options.shard;
    let choice = options.openings.choice();
    let random_by_default = format != Format::RoundRobin;
    dispatch(
        &settings,
        tournament,
        (&choice, random_by_default),
        options.quiet,
        check,
        &|e| e,
    )
}

/// Checks the bots against the game (and, with `check`, runs each once), then plays.
/// `openings`: what was asked, and whether random plies are the default.
fn dispatch(
    settings: &GameSettings,
    mut tournament: Tournament,
    openings: (&OpeningChoice, bool),
    quiet: bool,
    check: bool,
    locate: &dyn Fn(Error) -> Error,
) -> Result<i32, Error> {
    with_game!(settings, tournament.seed, |game| {
        check_entrants(&game, &tournament.entrants).map_err(locate)?;
        tournament.openings = openings.0.resolve(&game, openings.1)?;
        if check && !super::submissions::preflight(&game, &tournament)? {
            eprintln!("a bot failed the check: no game was played");
            return Ok(1);
        }
        warn_oversubscribed(tournament.jobs);
        play(&game, settings.rules(), &tournament, quiet)
    })
}

pub(crate) fn check_entrants<G: Builtins>(game: &G, entrants: &[Entrant]) -> Result<(), Error> {
    let mut names = HashSet::new();
    for e in entrants {
        if !names.insert(e.name.as_str()) {
            return Err(Error::usage(format!(
                "two bots are named `{}`: give them distinct names (NAME=SPEC)",
                e.name
            )));
        }
        if let crate::bots::spec::BotSpec::Builtin(name) = &e.spec
            && game.builtin(name, 0).is_none()
        {
            return Err(Error::usage(format!(
                "bot {}: no built-in {} bot named `{name}`: expected one of {}",
                e.name,
                game.name(),
                game.builtin_names().join(", ")
            )));
        }
    }
    if entrants.len() < 2 {
        return Err(Error::usage("a tournament needs at least two bots"));
    }
    for e in entrants {
        if !matches!(e.spec, crate::bots::spec::BotSpec::Builtin(_)) {
            super::confine::check(&e.name, &e.confine)?;
        }
    }
    Ok(())
}

fn play<G: Builtins>(
    game: &G,
    rules: serde_json::Map<String, serde_json::Value>,
    t: &Tournament,
    quiet: bool,
) -> Result<i32, Error> {
    let stop = graceful_stop();
    let mut progress = Progress::new(quiet);
    let summary = tournament::run(game, rules, t, &stop, &mut |event| {
        progress.show(&t.out, event)
    })?;
    progress.finish();
    println!("{}", report::standings_text(&summary.roles, &summary.table));
    let part = match t.shard {
        Some(shard) => format!(" (shard {shard} of the schedule)"),
        None => String::new(),
    };
    println!(
        "{} of {} games{part} in {}; this run played {}",
        summary.finished,
        summary.total,
        t.out.display(),
        summary.played
    );
    if let Some(shard) = t.shard {
        println!(
            "when every shard is done: arbiter merge --out DIR SHARD_DIR... (this is shard {shard})"
        );
    }
    report_distinct(&summary.distinct);
    let interrupted = summary.interrupted;
    // The report reads the journal afresh: the run's own copy of every game goes first, so
    // a large league never holds two.
    drop(summary);
    let index = report::write_report(
        &t.out,
        &t.out.join(report::REPORT_DIR),
        report::Replays::RUN,
    )?;
    println!("{}", super::report::written(&index));
    if interrupted {
        eprintln!("interrupted: rerun the same command to resume");
        return Ok(130);
    }
    Ok(0)
}

pub fn run(args: RunArgs) -> Result<i32, Error> {
    let config = Config::load(&args.config)?;
    let (name, t) = config.tournament(args.name.as_deref())?;
    // Canonical, so the plan names the same folders whatever the current folder.
    let base = std::fs::canonicalize(config.base_dir()).unwrap_or_else(|_| config.base_dir());
    let kind = parse_game(&config, t)?;
    crate::config::check_game_keys(&config, t, kind)?;
    let out = match (&args.out, &t.out) {
        (Some(out), _) => out.clone(),
        (None, Some(out)) => base.join(out),
        (None, None) => base.join("results").join(&name),
    };
    // Each shard in a folder of its own inside the tournament's, unless told where.
    let out = match args.shard {
        Some(shard) if args.out.is_none() => out.join(format!("shard-{}", shard.index)),
        _ => out,
    };
    let mut entrants = Vec::new();
    for bot in t.bots.get_ref() {
        let python = bot
            .python
            .as_ref()
            .map(|p| p.get_ref().as_str())
            .or(t.python.as_deref())
            .map(|p| crate::config::resolve_program(p, &base));
        let env = bot
            .env
            .as_ref()
            .map(|e| e.get_ref().clone())
            .unwrap_or_default();
        let confine = crate::config::confinement(&config, t, bot)?;
        let written = match crate::config::bot_source(&config, bot, t.bots.span())? {
            crate::config::BotSource::Spec(written) => written,
            crate::config::BotSource::Folder { folder, pattern } => {
                let at = |e: Error| config.error_at(folder.span(), e.to_string());
                if let Some(p) = &bot.python
                    && kind == GameKind::Gomoku
                {
                    return Err(config.error_at(
                        p.span(),
                        "`python` is the interpreter of course-style .py bots; the bots of a \
                         Gomoku folder are Java players",
                    ));
                }
                let path = base.join(folder.get_ref());
                if !path.is_dir() {
                    return Err(at(Error::usage(format!(
                        "`folder`: {} is not a folder of submissions",
                        path.display()
                    ))));
                }
                let found = super::submissions::folder_entrants(
                    &path,
                    folder.get_ref(),
                    kind,
                    pattern,
                    &super::submissions::unpack_dir(&out, &path),
                    python.as_deref(),
                    args.submissions.strict,
                )
                .map_err(at)?;
                entrants.extend(found.into_iter().map(|e| Entrant {
                    env: env.clone(),
                    confine,
                    non_scoring: bot.scoring.as_ref().is_some_and(|s| !*s.get_ref()),
                    ..e
                }));
                continue;
            }
        };
        let at = |e: Error| config.error_at(written.span(), e.to_string());
        let spec_text = crate::config::resolve_spec(written.get_ref(), &base);
        let spec = parse_spec(&spec_text, python.as_deref()).map_err(at)?;
        crate::config::check_bot_keys(&config, bot, written.get_ref(), &spec)?;
        let name = match &bot.name {
            Some(n) if n.get_ref().trim().is_empty() => {
                return Err(config.error_at(n.span(), "bot name is empty"));
            }
            Some(n) => n.get_ref().clone(),
            None => crate::bots::display_name(&spec),
        };
        // A command's words are read in its working folder: the config's, unless `dir`.
        let cwd = match &bot.dir {
            Some(d) => Some(base.join(d.get_ref())),
            None if matches!(spec, crate::bots::spec::BotSpec::Command(_)) => Some(base.clone()),
            None => None,
        };
        entrants.push(Entrant {
            name,
            spec_text: written.get_ref().clone(),
            spec,
            cwd,
            env,
            confine,
            non_scoring: bot.scoring.as_ref().is_some_and(|s| !*s.get_ref()),
        });
    }
    let positive = |v: Option<(u64, std::ops::Range<usize>)>,
                    key: &str,
                    default: u64|
     -> Result<u64, Error> {
        match v {
            Some((0, span)) => Err(config.error_at(span, format!("`{key}` must be at least 1"))),
            Some((value, _)) => Ok(value),
            None => Ok(default),
        }
    };
    let pairs = positive(spanned(&t.pairs), "pairs", 1)?;
    let jobs_cfg = positive(spanned(&t.jobs), "jobs", 0)?;
    let round_limit = positive(
        spanned(&t.round_limit),
        "round_limit",
        registry::DEFAULT_ROUND_LIMIT.into(),
    )?;
    let format = match t.format.as_ref().map(|f| (f.get_ref().as_str(), f.span())) {
        None | Some(("round_robin", _)) => Format::RoundRobin,
        Some(("gauntlet", _)) => Format::Gauntlet,
        Some((other, span)) => {
            return Err(config.error_at(
                span,
                format!("format `{other}`: expected round_robin or gauntlet"),
            ));
        }
    };
    let tournament = Tournament {
        format,
        entrants,
        pairs: pairs as u32,
        seed: t.seed.unwrap_or(1),
        move_limit: Duration::from_millis(positive(spanned(&t.limit_ms), "limit_ms", 10_000)?),
        init_limit: Duration::from_millis(positive(
            spanned(&t.init_limit_ms),
            "init_limit_ms",
            30_000,
        )?),
        jobs: jobs_or_cores(
            args.jobs
                .map(|j| j as usize)
                .or((jobs_cfg > 0).then_some(jobs_cfg as usize)),
        ),
        out,
        force_new: args.force_new,
        openings: crate::tournament::openings::Openings::Standard,
        shard: args.shard,
    };
    let mut boards = Vec::new();
    for board in t.boards.iter().flatten() {
        boards.push(super::games::read_grid(&base.join(board.get_ref()))?);
    }
    let limited = |v: &Option<toml::Spanned<u32>>, key: &str, default: u32| match v {
        Some(s) if !(1..=64).contains(s.get_ref()) => {
            Err(config.error_at(s.span(), format!("`{key}` must be between 1 and 64")))
        }
        Some(s) => Ok(*s.get_ref()),
        None => Ok(default),
    };
    let density = match &t.density {
        Some(d) if !(0.0..=1.0).contains(d.get_ref()) => {
            return Err(config.error_at(d.span(), "`density` must be between 0 and 1"));
        }
        Some(d) => *d.get_ref(),
        None => registry::DEFAULT_DENSITY,
    };
    let settings = GameSettings {
        kind,
        round_limit: round_limit as u32,
        boards,
        rows: limited(&t.rows, "rows", registry::DEFAULT_ROWS as u32)? as usize,
        cols: limited(&t.cols, "cols", registry::DEFAULT_COLS as u32)? as usize,
        density,
        armies: Vec::new(),
        ..GameSettings::defaults(kind)
    };
    let choice = crate::config::opening_choice(&config, t, &base)?;
    let bots_span = t.bots.span();
    eprintln!("tournament `{name}` from {}", config.path.display());
    dispatch(
        &settings,
        tournament,
        (&choice, false),
        args.quiet,
        args.submissions.check,
        &|e| config.error_at(bots_span.clone(), e.to_string()),
    )
}

fn spanned<T: Copy + Into<u64>>(
    v: &Option<toml::Spanned<T>>,
) -> Option<(u64, std::ops::Range<usize>)> {
    v.as_ref().map(|s| ((*s.get_ref()).into(), s.span()))
}

fn parse_game(config: &Config, t: &TournamentConfig) -> Result<GameKind, Error> {
    use clap::ValueEnum;
    GameKind::from_str(t.game.get_ref(), true).map_err(|_| {
        let known: Vec<String> = GameKind::value_variants()
            .iter()
            .filter_map(|v| v.to_possible_value())
            .map(|v| v.get_name().to_string())
            .collect();
        config.error_at(
            t.game.span(),
            format!(
                "unknown game `{}`: expected one of {}",
                t.game.get_ref(),
                known.join(", ")
            ),
        )
    })
}

/// `distinct pairs: K of N`, and the warning when some pair was a replay.
pub(crate) fn report_distinct(distinct: &tournament::openings::DistinctPairs) {
    let (line, warning) = distinct.report();
    println!("{line}");
    if let Some(warning) = warning {
        eprintln!("{warning}");
    }
}

/// Moves are timed by the wall clock: more games than cores steal time from bots.
pub(crate) fn warn_oversubscribed(jobs: usize) {
    let cores = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1);
    if jobs > cores {
        eprintln!(
            "warning: {jobs} games at once on {cores} cores: moves are timed by the wall clock, so bots may lose time to each other"
        );
    }
}

/// A line per finished game (unless quiet), under a progress bar on a terminal, with plain
/// periodic lines otherwise.
struct Progress {
    quiet: bool,
    bar: Option<indicatif::ProgressBar>,
    last_line: Instant,
    started: Instant,
    first_done: usize,
}

impl Progress {
    fn new(quiet: bool) -> Self {
        Progress {
            quiet,
            bar: None,
            last_line: Instant::now(),
            started: Instant::now(),
            first_done: 0,
        }
    }

    /// Shows `event` of the run writing into `out`, and keeps the run's tables there up
    /// to date.
    fn show(&mut self, out: &Path, event: LeagueEvent<'_>) -> Result<(), Error> {
        match event {
            LeagueEvent::Results { plan, games, sprt } => {
                report::write_tables(out, plan, games)?;
                if let Some(history) = sprt {
                    report::write_sprt_csv(out, history)?;
                }
            }
            LeagueEvent::PairCounted(_) => {}
            LeagueEvent::Started {
                total,
                already_done,
                repair,
            } => {
                match repair {
                    Some(Repair::Dropped) => eprintln!(
                        "the journal's last line was torn (an earlier run was killed mid-write): dropped, that game is played again"
                    ),
                    Some(Repair::Completed) => eprintln!(
                        "the journal's last line had lost its newline (an earlier run was killed mid-write): the game is whole, the newline was added"
                    ),
                    None => {}
                }
                if already_done > 0 {
                    eprintln!("resuming: {already_done} of {total} games already played");
                }
                self.first_done = already_done;
                self.started = Instant::now();
                if std::io::stdout().is_terminal() {
                    let bar = indicatif::ProgressBar::new(total as u64);
                    bar.set_style(
                        indicatif::ProgressStyle::with_template(
                            "{bar:30} {pos}/{len} games, {elapsed} elapsed, ETA {eta} {msg}",
                        )
                        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                    );
                    bar.set_position(already_done as u64);
                    self.bar = Some(bar);
                } else {
                    println!("{already_done}/{total} games");
                }
            }
            LeagueEvent::GameFinished {
                summary,
                done,
                total,
                leader,
            } => {
                if !self.quiet {
                    let line = format!(
                        "game {} ({done}/{total}): {}",
                        summary.id,
                        report::game_line(summary)
                    );
                    match &self.bar {
                        Some(bar) => bar.println(line),
                        None => println!("{line}"),
                    }
                }
                let lead = leader
                    .map(|(bot, points)| format!("leader: {bot} ({points} points)"))
                    .unwrap_or_default();
                if let Some(bar) = &self.bar {
                    bar.set_position(done as u64);
                    bar.set_message(lead);
                } else if self.last_line.elapsed() >= Duration::from_secs(5) || done == total {
                    let played = (done - self.first_done).max(1) as f64;
                    let eta = self.started.elapsed().as_secs_f64() / played * (total - done) as f64;
                    println!("{done}/{total} games, ETA {eta:.0} s, {lead}");
                    self.last_line = Instant::now();
                }
            }
        }
        Ok(())
    }

    fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}
