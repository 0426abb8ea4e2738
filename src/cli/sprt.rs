//! `arbiter sprt`: is the candidate better than the baseline? A sequential test usable as
//! a CI gate: exit 0 when H1 is accepted, 1 when H0 is, 3 when inconclusive.

use super::league::{check_entrants, warn_oversubscribed};
use super::options::{MatchOptions, OpeningOptions, cli_entrant};
use super::signals::graceful_stop;
use crate::engines::Builtins;
use crate::error::Error;
use crate::games::registry::with_game;
use crate::stats::sprt::{Model, Verdict};
use crate::tournament::sprt::{self, SprtSettings, SprtStatus};
use crate::tournament::{Format, LeagueEvent, Tournament};
use std::path::PathBuf;
use std::sync::atomic::Ordering;

#[derive(clap::Args, Debug)]
pub(crate) struct SprtArgs {
    #[command(flatten)]
    pub matches: MatchOptions,
    /// The new bot: `NAME=SPEC` or a SPEC.
    #[arg(long)]
    pub candidate: String,
    /// The bot it must beat.
    #[arg(long)]
    pub baseline: String,
    /// H0: the candidate is this many Elo stronger (or weaker, if negative).
    #[arg(long, allow_hyphen_values = true)]
    pub elo0: f64,
    /// H1: the candidate is this many Elo stronger; must exceed elo0.
    #[arg(long, allow_hyphen_values = true)]
    pub elo1: f64,
    /// The chance of accepting H1 when H0 holds.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// The chance of accepting H0 when H1 holds.
    #[arg(long, default_value_t = 0.05)]
    pub beta: f64,
    /// How elo0 and elo1 are measured.
    #[arg(long, value_enum, default_value = "normalized")]
    pub model: Model,
    /// Stop after this many role-swapped pairs, inconclusive. 1000 pairs (2000 games)
    /// tell a difference of about 20 Elo; with course bots, whose moves may take seconds,
    /// they already take hours, and a test that has not decided by then is close to a
    /// tie at any practical budget.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_pairs: u32,
    /// The output folder (journal, tables, sprt.csv); rerun the same command to resume
    /// (default: results/sprt-CANDIDATE-vs-BASELINE).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Start afresh although the folder holds a journal (kept as games.jsonl.old).
    #[arg(long)]
    pub force_new: bool,
    #[command(flatten)]
    pub openings: OpeningOptions,
    /// Print a final JSON line instead of the summary.
    #[arg(long)]
    pub json: bool,
    /// Refused: a sequential test cannot be split into shards (taken only to say why).
    #[arg(long, value_name = "K/N", hide = true)]
    pub shard: Option<String>,
    #[command(flatten)]
    pub live: super::watch::WatchOptions,
}

pub(crate) fn run(args: SprtArgs) -> Result<i32, Error> {
    if let Some(shard) = &args.shard {
        return Err(Error::usage(format!(
            "--shard {shard}: an SPRT is sequential (each pair decides whether the next is \
             played), so it cannot be split into shards; run it on one machine, or shard a \
             gauntlet instead"
        )));
    }
    if !(args.elo0.is_finite() && args.elo1.is_finite() && args.elo1 > args.elo0) {
        return Err(Error::usage(format!(
            "--elo1 ({}) must be greater than --elo0 ({})",
            args.elo1, args.elo0
        )));
    }
    crate::stats::sprt::check_bounds(args.model, args.elo0, args.elo1).map_err(Error::usage)?;
    for (name, p) in [("--alpha", args.alpha), ("--beta", args.beta)] {
        if !(p > 0.0 && p < 0.5) {
            return Err(Error::usage(format!(
                "{name} must be between 0 and 0.5, not {p}"
            )));
        }
    }
    let python = args.matches.play.python.as_deref();
    let confine = args.matches.play.confine.confinement();
    let mut entrants = vec![
        cli_entrant(&args.candidate, python, confine)?,
        cli_entrant(&args.baseline, python, confine)?,
    ];
    super::options::name_entrants(&mut entrants);
    let out = args.out.clone().unwrap_or_else(|| {
        // Only characters every file system takes: names may hold anything.
        let safe = |name: &str| -> String {
            name.chars()
                .map(|c| {
                    if c.is_ascii_alphanumeric() || "_-.".contains(c) {
                        c
                    } else {
                        '_'
                    }
                })
                .collect()
        };
        PathBuf::from("results").join(format!(
            "sprt-{}-vs-{}",
            safe(&entrants[0].name),
            safe(&entrants[1].name)
        ))
    });
    let mut tournament =
        args.matches
            .tournament(Format::Sprt, entrants, args.max_pairs, out, args.force_new);
    let settings = SprtSettings {
        elo0: args.elo0,
        elo1: args.elo1,
        alpha: args.alpha,
        beta: args.beta,
        model: args.model,
    };
    let game_settings = args.matches.game.settings()?;
    let choice = args.openings.choice();
    tournament.live = Some(crate::tournament::live::Board::new(tournament.jobs));
    let _page = super::watch::Beside::start(&args.live, &tournament.out, args.json)?;
    with_game!(game_settings, tournament.seed, |game| {
        tournament.openings = choice.resolve(&game, true)?;
        test(
            &game,
            game_settings.rules(),
            &tournament,
            &settings,
            args.json,
        )
    })
}

fn test<G: Builtins>(
    game: &G,
    rules: serde_json::Map<String, serde_json::Value>,
    tournament: &Tournament,
    settings: &SprtSettings,
    json: bool,
) -> Result<i32, Error> {
    check_entrants(game, &tournament.entrants)?;
    warn_oversubscribed(tournament.jobs);
    if let Some(line) = super::confine::summary_line(&tournament.entrants) {
        note!("{line}");
    }
    let names = [
        tournament.entrants[0].name.as_str(),
        tournament.entrants[1].name.as_str(),
    ];
    note!(
        "SPRT {} vs {}: H0 elo {}, H1 elo {}, alpha {}, beta {}",
        names[0],
        names[1],
        crate::report::numbers::num(settings.elo0),
        crate::report::numbers::num(settings.elo1),
        crate::report::numbers::num(settings.alpha),
        crate::report::numbers::num(settings.beta)
    );
    let stop = graceful_stop();
    let out = &tournament.out;
    // However the test ends, its live state says so.
    let _ended = tournament.live.as_deref().map(|board| board.ending(out));
    let max_pairs = u64::from(tournament.pairs);
    let run = sprt::run(game, rules, tournament, settings, &stop, &mut |event| {
        match event {
            // The last pair's line is the summary's first: printed there, once.
            LeagueEvent::PairCounted(status)
                if status.verdict == Verdict::Inconclusive && status.pairs < max_pairs =>
            {
                note!("{}", progress_line(status))
            }
            LeagueEvent::PairCounted(_) => {}
            LeagueEvent::Results { plan, games, sprt } => {
                crate::report::write_tables_with(out, plan, games, sprt, None)?;
                crate::report::write_sprt_csv(out, sprt.unwrap_or_default())?;
            }
            LeagueEvent::Started {
                total,
                already_done,
                ..
            } => {
                if let Some(board) = &tournament.live {
                    board.counts(total, already_done);
                }
            }
            LeagueEvent::GameFinished { .. } | LeagueEvent::Counted { .. } => {}
        }
        Ok(())
    })?;
    if run.resumed > 0 {
        note!(
            "resumed {}: {} games were already played",
            run.out.display(),
            run.resumed
        );
    }
    let (index, _) =
        crate::report::write_report(&run.out, &run.out.join(crate::report::REPORT_DIR))?;
    let status = run.status;
    let interrupted = status.verdict == Verdict::Inconclusive && stop.load(Ordering::SeqCst);
    if json {
        #[derive(serde::Serialize)]
        struct Final<'a> {
            candidate: &'a str,
            baseline: &'a str,
            distinct_pairs: usize,
            /// Journaled games the test did not count (finished while stopping).
            uncounted_games: usize,
            #[serde(flatten)]
            status: &'a SprtStatus,
        }
        let line = Final {
            candidate: names[0],
            baseline: names[1],
            distinct_pairs: run.distinct.distinct,
            uncounted_games: run.uncounted,
            status: &status,
        };
        say!("{}", serde_json::to_string(&line).expect("serializable"));
        // stdout holds the one JSON line.
        note!("{}", super::report::written(&index));
    } else {
        let verdict = match status.verdict {
            Verdict::H1 => format!(
                "H1 accepted: {} is better than {} (elo >= {})",
                names[0], names[1], settings.elo1
            ),
            Verdict::H0 => format!(
                "H0 accepted: {} is not better than {} (elo <= {})",
                names[0], names[1], settings.elo0
            ),
            Verdict::Inconclusive if interrupted => {
                format!("interrupted: inconclusive after {} pairs", status.pairs)
            }
            Verdict::Inconclusive => format!("inconclusive after {} pairs", status.pairs),
        };
        let games = |n: usize| format!("{n} more game{}", if n == 1 { "" } else { "s" });
        let counted = match (status.verdict, run.uncounted) {
            (Verdict::Inconclusive, 0) => String::new(),
            (Verdict::Inconclusive, more) => format!(
                "; {} finished beyond the last complete pair: kept in the journal (a rerun \
                 counts them), left out of the tables and the report",
                games(more)
            ),
            (_, 0) => format!("; decided after {} pairs", status.pairs),
            (_, more) => format!(
                "; decided after {} pairs; {} finished while stopping: kept in the journal, \
                 left out of the tables and the report",
                status.pairs,
                games(more)
            ),
        };
        say!("{}", progress_line(&status));
        say!(
            "pentanomial {:?}: {}",
            status.pentanomial,
            crate::stats::sprt::PENTANOMIAL_LEGEND
        );
        say!("{}", hypotheses(names, settings));
        say!("{verdict}{counted}");
        if status.verdict == Verdict::Inconclusive {
            let lean = crate::report::sprt_section::lean(&status, names[0]);
            if interrupted {
                say!("{lean}; to go on, rerun the same command: the test resumes");
            } else {
                say!(
                    "{lean}; to go on, rerun with more pairs (the pairs played are kept): {}",
                    rerun_with_more_pairs(crate::report::sprt_section::more_pairs(
                        status.pairs,
                        max_pairs
                    ))
                );
            }
        }
        say!("results in {}", run.out.display());
        super::league::report_distinct(&run.distinct);
        say!("{}", run.machine.line());
        say!("{}", super::report::written(&index));
    }
    Ok(match status.verdict {
        Verdict::H1 => crate::error::exit::DONE,
        Verdict::H0 => crate::error::exit::H0,
        Verdict::Inconclusive => crate::error::exit::INCONCLUSIVE,
    })
}

/// The test's hypotheses and error rates, in words.
fn hypotheses(names: [&str; 2], s: &SprtSettings) -> String {
    let num = crate::report::numbers::num;
    format!(
        "H0: elo <= {} ({} is not stronger than {} by more than that), H1: elo >= {} (it is \
         stronger by at least that), {} model; alpha {} (the chance of accepting H1 when H0 \
         holds), beta {} (the chance of accepting H0 when H1 holds)",
        num(s.elo0),
        names[0],
        names[1],
        num(s.elo1),
        match s.model {
            crate::stats::sprt::Model::Normalized => "normalized",
            crate::stats::sprt::Model::Logistic => "logistic",
        },
        num(s.alpha),
        num(s.beta)
    )
}

fn progress_line(s: &SprtStatus) -> String {
    use crate::report::numbers::fixed;
    // An end the data cannot bound is infinite: shown as such, never as a number.
    let elo = |x: f64| {
        if x.is_finite() {
            fixed(x, 1, true)
        } else if x > 0.0 {
            "+inf".into()
        } else {
            "-inf".into()
        }
    };
    format!(
        "pairs {:>5}  LLR {:>7} [{}, {}]  pentanomial {:?}  elo {} [{}, {}]",
        s.pairs,
        fixed(s.llr, 3, false),
        fixed(s.lower, 3, false),
        fixed(s.upper, 3, false),
        s.pentanomial,
        elo(s.elo.estimate),
        elo(s.elo.low),
        elo(s.elo.high)
    )
}

/// This command again with `--max-pairs pairs`, quoted for a shell.
fn rerun_with_more_pairs(pairs: u64) -> String {
    let mut words: Vec<String> = vec!["arbiter".into()];
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--max-pairs" {
            args.next();
        } else if !arg.starts_with("--max-pairs=") {
            words.push(arg);
        }
    }
    words.extend(["--max-pairs".to_string(), pairs.to_string()]);
    shlex::try_join(words.iter().map(String::as_str))
        .unwrap_or_else(|_| format!("the same command with --max-pairs {pairs}"))
}
