//! `arbiter autograde`: one student's submission played against the course's reference
//! bots inside an autograder (Gradescope's layout by default, PrairieLearn's with
//! `--format prairielearn`), within the time the platform gives, its result written as
//! the platform reads it. Whatever the submission does (nothing handed in, a bot that does
//! not start, raises or stalls), the student gets a results file with a score and the
//! reason: a crash of the autograder would show only the platform's generic error.

use super::options::{MatchOptions, OpeningOptions, cli_entrant};
use crate::error::Error;
use crate::report::autograde::{Format, Graded, Outcome, ScoreRule};
use crate::tournament::Entrant;
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

#[derive(clap::Args, Debug)]
pub(crate) struct AutogradeArgs {
    #[command(flatten)]
    pub matches: MatchOptions,
    /// The student's submission: a folder holding the bot's files (or a zip of them).
    /// Default: /autograder/submission (Gradescope), /grade/student (PrairieLearn).
    #[arg(long, value_name = "DIR")]
    pub submission: Option<PathBuf>,
    /// Where the result goes. Default: /autograder/results/results.json (Gradescope),
    /// /grade/results/results.json (PrairieLearn).
    #[arg(long, value_name = "FILE")]
    pub results: Option<PathBuf>,
    /// The platform whose results file is written.
    #[arg(long, value_enum, default_value = "gradescope")]
    pub format: Format,
    /// A reference bot the submission plays against: `NAME=SPEC` or a SPEC; repeat for
    /// several.
    #[arg(long, required = true, num_args = 1..)]
    pub baseline: Vec<String>,
    /// A folder of the class's accepted bots (a folder of submissions): each plays the
    /// submission too, as an opponent that does not set the score. A bot of the folder
    /// with the submission's own name (its earlier version) is left out.
    #[arg(long, value_name = "DIR")]
    pub class: Option<PathBuf>,
    /// Role-swapped pairs of games against each opponent.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub pairs: u32,
    /// The time the whole run may take, in seconds (Gradescope's default limit is 10
    /// minutes): the games still unplayed when it is nearly spent are left out, and the
    /// result says how many counted.
    #[arg(long, value_name = "SECONDS", default_value_t = 540, value_parser = clap::value_parser!(u64).range(10..))]
    pub budget: u64,
    /// How the score is given: `mark`, the course mark as if the references were the
    /// class (max-score x the submission's points per game / the best points per game of
    /// the run); `share`, max-score x the share of the points it could have won.
    #[arg(long, value_enum, default_value = "mark")]
    pub score: ScoreRule,
    /// The score of a submission that does as well as the best.
    #[arg(long, default_value_t = 20.0)]
    pub max_score: f64,
    /// The folder of the games (journal, tables, report). Default: `arbiter` beside the
    /// results file.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    #[command(flatten)]
    pub openings: OpeningOptions,
}

/// Time kept back from the budget for what follows the games: the tables, the report and
/// the results file.
fn reserve(budget: Duration) -> Duration {
    (budget / 5).min(Duration::from_secs(20))
}

pub(crate) fn run(args: AutogradeArgs) -> Result<i32, Error> {
    let started = Instant::now();
    let (submission, results) = args
        .format
        .paths(args.submission.clone(), args.results.clone());
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| results.parent().unwrap_or(Path::new(".")).join("arbiter"));
    let budget = Duration::from_secs(args.budget);
    let (outcome, code) = match grade(&args, &submission, &out, started + budget - reserve(budget))
    {
        Ok(outcome) => (outcome, crate::error::exit::DONE),
        // The teacher's side failed (a reference bot that does not exist, a folder that
        // cannot be written): the student is told so, the teacher by the exit code.
        Err(e) => {
            note!("arbiter: {e}");
            (Outcome::Broken(e.to_string()), e.exit_code())
        }
    };
    let elapsed = started.elapsed();
    let text = crate::report::autograde::results(&outcome, &args.rule(), args.format, elapsed);
    if let Some(parent) = results.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|source| Error::Io {
            path: parent.to_path_buf(),
            source,
        })?;
    }
    crate::untrusted::file::write_atomic(&results, text.as_bytes())?;
    say!("{}", outcome.summary(&args.rule()));
    say!("results: {}", results.display());
    Ok(code)
}

impl AutogradeArgs {
    fn rule(&self) -> crate::report::autograde::Rule {
        crate::report::autograde::Rule {
            score: self.score,
            max_score: self.max_score,
            budget: Duration::from_secs(self.budget),
        }
    }
}

/// Finds the submission's bot, checks it, and plays it against every opponent until
/// `stop_at`.
fn grade(
    args: &AutogradeArgs,
    submission: &Path,
    out: &Path,
    stop_at: Instant,
) -> Result<Outcome, Error> {
    let m = &args.matches;
    let settings = m.game.settings()?;
    let python = m.play.python.as_deref();
    let confine = m.play.confine.confinement();
    // The teacher's bots are known good before the student's is looked at.
    let mut opponents = Vec::new();
    for b in &args.baseline {
        opponents.push(cli_entrant(b, python, confine)?);
    }
    let candidate = match find_bot(args, submission, out) {
        Ok(candidate) => candidate,
        Err(reason) => return Ok(Outcome::Refused(reason)),
    };
    let mut entrants = vec![candidate];
    entrants.extend(opponents);
    super::options::name_entrants(&mut entrants);
    let references: Vec<String> = entrants[1..].iter().map(|e| e.name.clone()).collect();
    if let Some(class) = &args.class {
        let found = super::submissions::folder_entrants(
            class,
            &class.to_string_lossy(),
            m.game.game,
            None,
            &super::submissions::unpack_dir(out, class),
            python,
            (false, None),
        )?;
        let taken: Vec<String> = entrants.iter().map(|e| e.name.clone()).collect();
        entrants.extend(
            found
                .entrants
                .into_iter()
                .filter(|e| !taken.contains(&e.name))
                .map(|e| Entrant { confine, ..e }),
        );
        super::options::name_entrants(&mut entrants);
    }
    let name = entrants[0].name.clone();
    let file = entrants[0]
        .file
        .clone()
        .or_else(|| Some(entrants[0].spec_text.clone()))
        .map(|f| last_part(&f));
    // The submission alone is checked first: a bot that cannot start or answer plays no
    // game, and its reason is the result.
    let checked = crate::games::registry::with_game!(settings, m.play.seed, |game| {
        super::league::check_entrants(&game, &entrants)?;
        let rows = super::submissions::run_checks(
            &game,
            &entrants[..1],
            Duration::from_millis(m.play.limit_ms),
            Duration::from_millis(m.play.init_limit_ms),
            1,
        )?;
        Ok::<_, Error>(rows.into_iter().next())
    })?;
    let check = match checked {
        Some(row) if row.ok() => crate::report::autograde::check_passed(&row),
        Some(row) => {
            let line = crate::record::headline(&row.error);
            let words = crate::record::failure_words(row.status.label(), &line);
            return Ok(Outcome::FailedCheck { name, file, words });
        }
        None => {
            return Ok(Outcome::Refused(
                "the submission's bot was not checked".into(),
            ));
        }
    };
    let mut tournament = m.tournament(
        crate::tournament::Format::Gauntlet,
        entrants,
        args.pairs,
        out.to_path_buf(),
        true,
    );
    tournament.left_out = Vec::new();
    let total = tournament.entrants.len().saturating_sub(1) * args.pairs as usize * 2;
    // The budget ends the games as Ctrl-C does: those in play are cancelled, and the
    // finished ones count.
    let stop = super::signals::graceful_stop();
    let timer_stop = stop.clone();
    let ran_out = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let timer_ran_out = ran_out.clone();
    let done = std::sync::Arc::new((std::sync::Mutex::new(false), std::sync::Condvar::new()));
    let timer_done = done.clone();
    let timer = std::thread::spawn(move || {
        let (lock, wake) = &*timer_done;
        let mut finished = lock.lock().unwrap_or_else(|e| e.into_inner());
        while !*finished {
            let now = Instant::now();
            if now >= stop_at {
                timer_ran_out.store(true, Ordering::SeqCst);
                timer_stop.store(true, Ordering::SeqCst);
                return;
            }
            finished = wake
                .wait_timeout(finished, stop_at - now)
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    });
    let played = super::league::dispatch(
        &settings,
        tournament,
        (&args.openings.choice(), true),
        super::league::Start {
            quiet: true,
            check: false,
            anchor: None,
            roster: None,
            leave_out: super::league::LeaveOut::Flag,
        },
        &|e| e,
    );
    {
        let (lock, wake) = &*done;
        *lock.lock().unwrap_or_else(|e| e.into_inner()) = true;
        wake.notify_all();
    }
    let _ = timer.join();
    let ran_out = ran_out.load(Ordering::SeqCst);
    played?;
    if ran_out {
        // The stop was the budget's, not the user's: nothing else is to end.
        stop.store(false, Ordering::SeqCst);
    }
    let journal = crate::report::journal_of(out)?;
    let loaded = crate::tournament::journal::load(&journal)?;
    Ok(Outcome::Played(Box::new(Graded::of(
        &loaded,
        &name,
        file,
        &references,
        (total, ran_out),
        check,
    ))))
}

/// The one bot of the submission, or why there is none, in words for the student.
fn find_bot(args: &AutogradeArgs, submission: &Path, out: &Path) -> Result<Entrant, String> {
    let m = &args.matches;
    let game = m.game.game;
    let expected = crate::report::autograde::expected_bot(game);
    if !submission.is_dir() {
        return Err(format!(
            "nothing was handed in ({} is no folder): {expected}",
            submission.display()
        ));
    }
    let empty = std::fs::read_dir(submission)
        .map(|mut entries| entries.next().is_none())
        .unwrap_or(true);
    if empty {
        return Err(format!("the submission is empty: {expected}"));
    }
    let found = super::submissions::cli_entrants(
        &[submission.to_string_lossy().into_owned()],
        game,
        m.play.python.as_deref(),
        out,
        (false, None),
        m.play.confine.confinement(),
    )
    .map_err(|e| format!("{}: {expected}", own_words(&e.to_string(), submission)))?;
    let mut bots = found.entrants;
    match bots.len() {
        1 => Ok(bots.remove(0)),
        0 => Err(match found.left_out.first() {
            Some(l) => format!(
                "no bot found in the submission: {}; {expected}",
                own_words(&l.reason, submission)
            ),
            None => format!("no bot found in the submission: {expected}"),
        }),
        n => Err(format!(
            "the submission holds {n} bots ({}): hand in one; {expected}",
            bots.iter()
                .map(|b| b.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// `text` with the submission's folder taken out of its paths: the student knows its
/// files by their names.
fn own_words(text: &str, submission: &Path) -> String {
    let folder = submission.to_string_lossy();
    let folder = folder.trim_end_matches('/');
    text.replace(&format!("{folder}/"), "")
        .replace(folder, "the submission")
}

/// The last part of a path, as a student names the file.
fn last_part(path: &str) -> String {
    Path::new(path)
        .file_name()
        .map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned())
}
