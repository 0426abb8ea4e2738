//! `arbiter solve battle`: grade course solvers on a case file (see `graders::battle`).

use super::confine::{ConfineArgs, check};
use super::options::jobs_or_cores;
use super::read_file;
use crate::bots::solver::{SolverSpec, prepare};
use crate::error::Error;
use crate::graders::battle::{grade, read_cases, render};
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub(crate) struct SolveArgs {
    /// The exercise: `battle` (the Minimax Battle solver).
    #[arg(value_parser = ["battle"])]
    pub exercise: String,
    /// A solver: a folder in the course's layout (src/battle/BattleSolver.java), or
    /// `console:COMMAND`, run as `COMMAND STATE true|false` with its answer on the last
    /// line of stdout. Repeat for a class table.
    #[arg(long = "solver", required = true)]
    pub solvers: Vec<String>,
    /// The cases: one per line, `STATE` or `STATE EXPECTED_SCORE`; `#` comments.
    #[arg(long)]
    pub cases: PathBuf,
    /// The pruning flag to check: true, false or both.
    #[arg(long, default_value = "both", value_parser = ["true", "false", "both"])]
    pub ab: String,
    /// Solver runs at once (default: the number of cores).
    #[arg(short = 'j', long, value_parser = clap::value_parser!(u32).range(1..))]
    pub jobs: Option<u32>,
    /// The limit of one solve in milliseconds (a Java solver's JVM start included).
    #[arg(long, default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub limit_ms: u64,
    /// Print one JSON line per solver instead of the table.
    #[arg(long)]
    pub json: bool,
    #[command(flatten)]
    pub confine: ConfineArgs,
}

/// Exit 0 when every solver passed every case, 1 when something failed, 2 bad input.
pub(crate) fn run(args: SolveArgs) -> Result<i32, Error> {
    let confine = args.confine.confinement();
    check("solver", &confine)?;
    let specs = args
        .solvers
        .iter()
        .map(|s| SolverSpec::parse(s).map_err(|e| Error::usage(format!("--solver {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    let cases = read_cases(&args.cases, &read_file(&args.cases)?)?;
    // No solver reads another's files, nor the cases and their answers.
    for spec in &specs {
        match spec {
            SolverSpec::Java(folder) => {
                crate::jail::entrants::enter_files(std::slice::from_ref(folder))
            }
            SolverSpec::Console(words) => {
                let mut command = crate::bots::spec::CommandSpec::new(words[0].clone());
                command.args = words[1..].to_vec();
                let bot = crate::bots::spec::BotSpec::Command(command);
                crate::bots::spec::enter([(&bot, None)]);
            }
        }
    }
    crate::jail::entrants::results(&args.cases);
    let flags = match args.ab.as_str() {
        "true" => vec![true],
        "false" => vec![false],
        _ => vec![false, true],
    };
    let prepared: Vec<_> = specs
        .iter()
        .map(|s| (s.name(), prepare(s, confine)))
        .collect();
    let jobs = jobs_or_cores(args.jobs.map(|j| j as usize));
    let limit = Duration::from_millis(args.limit_ms);
    let results = grade(&prepared, &cases, &flags, jobs, limit);
    if args.json {
        for r in &results {
            say!("{}", r.json(&cases));
        }
    } else {
        super::print(&crate::untrusted::text::terminal(&render(&results, &cases)));
    }
    let all = results
        .iter()
        .all(|r| (0..flags.len()).all(|f| r.passed(f) == cases.len()));
    Ok(if all {
        crate::error::exit::DONE
    } else {
        crate::error::exit::FAILED
    })
}
