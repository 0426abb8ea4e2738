//! `arbiter run`: a tournament named in tournaments.toml, its settings read from the file
//! with the file, line and field in every error.

use super::options::{jobs_or_cores, parse_spec};
use super::submissions::SubmissionOptions;
use crate::config::{Config, TournamentConfig};
use crate::error::Error;
use crate::games::GameKind;
use crate::games::registry::{self, GameSettings};
use crate::tournament::shard::Shard;
use crate::tournament::{Entrant, Format, Tournament};
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub(crate) struct RunArgs {
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

pub(crate) fn run(args: RunArgs) -> Result<i32, Error> {
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
    // A run refused or stopped before its first game leaves its folder as it was.
    let folder = out.clone();
    super::league::keeping_folder(&folder, || {
        // The class list is read before the bots: it tells whose team a folder's submissions
        // named after one team are. It is no bot's to read, wherever it lies.
        let class_list = match &t.roster {
            Some(roster) => {
                let path = base.join(roster.get_ref());
                let kept = crate::class::read_roster(&path)
                    .map_err(|e| config.error_at(roster.span(), e.to_string()))?;
                crate::jail::entrants::results(&path);
                Some((path, kept))
            }
            None => None,
        };
        let mut entrants = Vec::new();
        let mut left_out = Vec::new();
        let mut merged = Vec::new();
        let mut handed_in = Vec::new();
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
                        (
                            args.submissions.strict,
                            class_list
                                .as_ref()
                                .map(|(path, kept)| (kept, path.as_path())),
                        ),
                    )
                    .map_err(at)?;
                    left_out.extend(found.left_out);
                    merged.extend(found.merged);
                    handed_in.extend(found.handed_in);
                    entrants.extend(found.entrants.into_iter().map(|e| Entrant {
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
            if let (crate::bots::spec::BotSpec::Command(command), None) = (&spec, &bot.dir) {
                super::options::check_program(written.get_ref(), &command.program).map_err(at)?;
            }
            crate::config::check_bot_keys(&config, bot, written.get_ref(), &spec)?;
            // A command's words are read in its working folder: the config's, unless `dir`.
            let cwd = match &bot.dir {
                Some(d) => Some(base.join(d.get_ref())),
                None if matches!(spec, crate::bots::spec::BotSpec::Command(_)) => {
                    Some(base.clone())
                }
                None => None,
            };
            let name = match &bot.name {
                Some(n) if n.get_ref().trim().is_empty() => {
                    return Err(config.error_at(n.span(), "bot name is empty"));
                }
                Some(n) => n.get_ref().clone(),
                // Asked once every entrant is known ([`super::options::name_entrants`]).
                None => String::new(),
            };
            entrants.push(Entrant {
                name,
                spec_text: written.get_ref().clone(),
                spec,
                cwd,
                env,
                confine,
                non_scoring: bot.scoring.as_ref().is_some_and(|s| !*s.get_ref()),
                file: None,
            });
        }
        super::options::name_entrants(&mut entrants);
        let positive = |v: Option<(u64, std::ops::Range<usize>)>,
                        key: &str,
                        default: u64|
         -> Result<u64, Error> {
            match v {
                Some((0, span)) => {
                    Err(config.error_at(span, format!("`{key}` must be at least 1")))
                }
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
        if round_limit > u64::from(registry::MAX_ROUND_LIMIT)
            && let Some((_, span)) = spanned(&t.round_limit)
        {
            return Err(config.error_at(
                span,
                format!(
                    "`round_limit` is at most {} (the course plays {})",
                    registry::MAX_ROUND_LIMIT,
                    registry::DEFAULT_ROUND_LIMIT
                ),
            ));
        }
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
        let mut tournament = Tournament {
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
            update: false,
            openings: crate::tournament::openings::Openings::Standard,
            shard: args.shard,
            left_out,
            merged,
            refused: Vec::new(),
            // Set by `league::dispatch`, which makes the run's report.
            replays: false,
            chores: None,
            live: None,
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
        note!("tournament `{name}` from {}", config.path.display());
        if t.roster.is_none() && tournament.force_new {
            super::league::note_kept_roster(&tournament.out);
        }
        let mut roster_copy = None;
        if let (Some(roster), Some((path, mut kept))) = (&t.roster, class_list) {
            // Only a round robin gives marks: a roster anywhere else would do nothing.
            if tournament.format != Format::RoundRobin {
                return Err(config.error_at(
                    roster.span(),
                    "`roster`: only a round robin gives marks (format = \"round_robin\", the \
                     default); a gauntlet has none"
                        .to_string(),
                ));
            }
            let at = |e: Error| config.error_at(roster.span(), e.to_string());
            let partial = t.partial_roster.as_ref().is_some_and(|p| *p.get_ref());
            match_class(&mut tournament, &handed_in, (&mut kept, &path), partial).map_err(at)?;
            roster_copy = Some(super::league::RosterCopy {
                path,
                roster: kept,
                partial,
            });
        }
        // Without `roster`, a round robin marks by the class list kept in its folder, which
        // must match its teams as a given one must.
        let kept_path = tournament.out.join(crate::report::marks::ROSTER_FILE);
        if t.roster.is_none()
            && tournament.format == Format::RoundRobin
            && let Some(mut kept) = crate::report::marks::kept_roster(&tournament.out)?
        {
            let partial = crate::class::kept_partial(&tournament.out);
            let out = tournament.out.clone();
            match_class(
                &mut tournament,
                &handed_in,
                (&mut kept, &kept_path),
                partial,
            )
            .map_err(|e| {
                Error::usage(super::league::kept_mismatch(
                    &out,
                    &kept_path,
                    &e.to_string(),
                    &format!(
                        "`roster = \"FILE\"` in {} (with `partial_roster = true` if it lists a \
                         part of the class)",
                        config.path.display()
                    ),
                ))
            })?;
        }
        super::league::dispatch(
            &settings,
            tournament,
            (&choice, false),
            super::league::Start {
                quiet: args.quiet,
                check: args.submissions.check,
                anchor: None,
                roster: roster_copy,
                leave_out: super::league::LeaveOut::Toml,
            },
            &|e| config.error_at(bots_span.clone(), e.to_string()),
        )
    })
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

/// Matches the class list `roster` (read from `path`) to the teams of `tournament`
/// ([`crate::class::match_teams`]), whose left-out entries then go by their students'
/// teams.
fn match_class(
    tournament: &mut Tournament,
    handed_in: &[(String, String)],
    (roster, path): (&mut crate::class::Roster, &std::path::Path),
    partial: bool,
) -> Result<(), Error> {
    let teams = crate::class::Teams {
        marked: tournament
            .entrants
            .iter()
            .filter(|e| !e.non_scoring)
            .map(|e| e.name.as_str())
            .chain(tournament.left_out.iter().map(|l| l.name.as_str()))
            .collect(),
        unmarked: tournament
            .entrants
            .iter()
            .filter(|e| e.non_scoring)
            .map(|e| e.name.as_str())
            .collect(),
        left_out: tournament
            .left_out
            .iter()
            .map(|l| l.name.as_str())
            .collect(),
        handed_in,
    };
    let matched = crate::report::marks::match_teams(roster, path, &teams, partial)?;
    for line in &matched.notes {
        note!("{line}");
    }
    tournament
        .left_out
        .retain(|l| !matched.dropped.contains(&l.name));
    for (old, new) in matched.renamed {
        for l in tournament.left_out.iter_mut().filter(|l| l.name == old) {
            l.name = new.clone();
        }
    }
    Ok(())
}
