//! `arbiter suite advance DIR --bot SPEC`: the course's functionality grade for one bot.

use super::options::parse_spec;
use crate::error::Error;
use crate::graders::advance::{self as grader, COLOURS, LEVELS};
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub(crate) enum SuiteGame {
    Advance,
}

#[derive(clap::Args, Debug)]
pub(crate) struct SuiteArgs {
    /// The game whose course suite this is.
    #[arg(value_enum)]
    pub game: SuiteGame,
    /// The suite folder: `L/white|black/tests/N.txt` and `.../answers/N.txt`, L in 4..7.
    pub dir: PathBuf,
    /// The bot: `builtin:NAME`, `console:COMMAND`, or a protocol program.
    #[arg(long)]
    pub bot: String,
    /// Cases (and games) run at once.
    #[arg(short = 'j', long, value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: Option<u32>,
    /// Games against builtin:grade7 once every case passed, half as each colour.
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// The move limit per case and per game move.
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub limit_ms: u64,
    /// Seeds the bots' choices among equally good moves (the bonus games' seeds follow).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// End with a one-line JSON summary.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub confine: super::confine::ConfineArgs,
}

pub(crate) fn run(args: SuiteArgs) -> Result<i32, Error> {
    let SuiteGame::Advance = args.game;
    let spec = parse_spec(&args.bot, None)?;
    if let crate::bots::spec::BotSpec::Builtin(name) = &spec {
        use crate::engines::Builtins;
        let game = crate::games::advance::Advance;
        if game.builtin(name, 0).is_none() {
            return Err(Error::usage(format!(
                "no built-in advance bot named `{name}`: expected one of {}",
                game.builtin_names().join(", ")
            )));
        }
    }
    let confine = args.confine.confinement();
    // The bot reads its own files, never the suite's cases and their answers.
    crate::class::enter([(&spec, None)]);
    crate::jail::entrants::results(&args.dir);
    let name = crate::bots::display_name(&spec, None, &Default::default(), confine);
    super::confine::check(&name, &confine)?;
    let limit = Duration::from_millis(args.limit_ms);
    let suite = grader::read_suite(&args.dir)?;
    let jobs = super::options::jobs_or_cores(args.jobs.map(|j| j as usize));
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .map_err(|e| Error::usage(format!("cannot start {jobs} workers: {e}")))?;
    let verdicts: Vec<grader::Verdict> = pool.install(|| {
        use rayon::prelude::*;
        suite
            .cases
            .par_iter()
            .enumerate()
            .map(|(i, case)| {
                grader::run_case(
                    case,
                    &spec,
                    limit,
                    confine,
                    args.seed.wrapping_add(i as u64),
                )
            })
            .collect()
    });
    let tally = grader::tally(&verdicts);
    let mut table = comfy_table::Table::new();
    table.load_style(comfy_table::presets::UTF8_FULL_CONDENSED);
    table.set_header(["level", "white", "black", "passed"]);
    for level in LEVELS {
        let cell = |colour: &str| {
            if suite.missing.contains(&(level, colour_static(colour))) {
                return "missing".to_string();
            }
            tally
                .get(&level)
                .and_then(|by| by.get(colour))
                .map_or("0/0".into(), |[p, t]| format!("{p}/{t}"))
        };
        let [p, t] = tally.get(&level).map_or([0, 0], |by| {
            by.values().fold([0, 0], |[p, t], c| [p + c[0], t + c[1]])
        });
        table.add_row(vec![
            level.to_string(),
            cell("white"),
            cell("black"),
            format!("{p}/{t}"),
        ]);
    }
    say!("{table}");
    let failures: Vec<&grader::Verdict> = verdicts.iter().filter(|v| v.failure.is_some()).collect();
    if !failures.is_empty() {
        say!("failures:");
        for v in &failures {
            say!(
                "  {}/{}/{}: {}",
                v.level,
                v.colour,
                v.id,
                v.failure.as_deref().unwrap_or_default()
            );
        }
    }
    for (level, colour) in &suite.missing {
        say!("missing: {level}/{colour}");
    }
    let (mut played, mut won) = (0, 0);
    if grader::all_passed(&suite, &verdicts) && args.games > 0 {
        let results: Vec<Result<bool, String>> = pool.install(|| {
            use rayon::prelude::*;
            (0..args.games)
                .into_par_iter()
                .map(|i| grader::bonus_game(&spec, &name, i, limit, confine, args.seed))
                .collect()
        });
        for r in results {
            played += 1;
            won += usize::from(r.map_err(Error::usage)?);
        }
        say!("games against grade7: {won} won of {played}");
    }
    let functionality = grader::functionality_mark(&tally);
    let bonus = grader::game_bonus(played, won);
    say!(
        "mark: {:.1}% (functionality {:.1}%, games {:.1}%)",
        functionality + bonus,
        functionality,
        bonus
    );
    if args.json {
        let summary = grader::summary(&tally, played, won);
        say!(
            "{}",
            serde_json::to_string(&summary).expect("a summary always serializes")
        );
    }
    Ok(crate::error::exit::DONE)
}

fn colour_static(colour: &str) -> &'static str {
    COLOURS
        .into_iter()
        .find(|c| *c == colour)
        .unwrap_or("white")
}
