//! What an autograder hands back for one submission: its score, a test per opponent and
//! one for the check, a leaderboard, and the student's text, as Gradescope's results.json
//! or PrairieLearn's takes them. Made from the games' journal through the report's model,
//! so the numbers are the ones the tables would show.

use super::marks::{TeamFailure, failures_of};
use super::model::Report;
use crate::games::GameKind;
use crate::stats::elo::Anchor;
use crate::tournament::journal::Loaded;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Duration;

/// The platform whose results file is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Format {
    /// Gradescope: /autograder/submission in, /autograder/results/results.json out.
    Gradescope,
    /// PrairieLearn's external grader: /grade/student in, /grade/results/results.json out.
    Prairielearn,
}

impl Format {
    /// The submission folder and the results file: those given, else the platform's.
    pub(crate) fn paths(
        self,
        submission: Option<PathBuf>,
        results: Option<PathBuf>,
    ) -> (PathBuf, PathBuf) {
        let (s, r) = match self {
            Format::Gradescope => ("/autograder/submission", "/autograder/results/results.json"),
            Format::Prairielearn => ("/grade/student", "/grade/results/results.json"),
        };
        (
            submission.unwrap_or_else(|| PathBuf::from(s)),
            results.unwrap_or_else(|| PathBuf::from(r)),
        )
    }
}

/// How the score is given.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ScoreRule {
    /// The course mark as if the references were the class: max x the submission's
    /// points per game / the best points per game among it and the references.
    Mark,
    /// Max x the share of the points it could have won against the references.
    Share,
}

/// The teacher's rule for the score, and the time the run had.
#[derive(Clone, Debug)]
pub(crate) struct Rule {
    pub(crate) score: ScoreRule,
    pub(crate) max_score: f64,
    pub(crate) budget: Duration,
}

/// How a submission fared.
#[derive(Debug)]
pub(crate) enum Outcome {
    /// No bot could be found in it (nothing handed in, several bots): why.
    Refused(String),
    /// Its bot did not start or answer: the check's words.
    FailedCheck {
        name: String,
        file: Option<String>,
        words: String,
    },
    /// The autograder itself could not run (the teacher's setup): the error.
    Broken(String),
    /// Its games were played.
    Played(Box<Graded>),
}

/// The submission's results against one opponent.
#[derive(Debug, Clone)]
pub(crate) struct Against {
    pub(crate) opponent: String,
    /// A reference bot (it sets the score), else a bot of the class.
    pub(crate) reference: bool,
    pub(crate) games: u32,
    pub(crate) wins: u32,
    pub(crate) losses: u32,
    pub(crate) ties: u32,
    pub(crate) points: f64,
    /// The opponent's points against the submission.
    pub(crate) their_points: f64,
    pub(crate) failures: Vec<TeamFailure>,
}

/// A submission whose games were played.
#[derive(Debug)]
pub(crate) struct Graded {
    pub(crate) name: String,
    /// Its bot's file, as the student names it.
    pub(crate) file: Option<String>,
    pub(crate) against: Vec<Against>,
    /// Games scheduled, and whether the budget ended the run before all were played.
    pub(crate) total: usize,
    pub(crate) ran_out: bool,
    /// What the check measured.
    pub(crate) check: String,
    /// Its Elo with the first reference held at 0, and the 95% interval.
    pub(crate) elo: Option<(f64, f64, f64)>,
    pub(crate) points_win: f64,
}

impl Graded {
    /// The results of `name` in the gauntlet of `loaded` against `references` (the others
    /// are the class's bots); `total` games scheduled, `ran_out` when the budget ended it.
    pub(crate) fn of(
        loaded: &Loaded,
        name: &str,
        file: Option<String>,
        references: &[String],
        (total, ran_out): (usize, bool),
        check: String,
    ) -> Graded {
        let anchor = references.first().map(|bot| Anchor {
            bot: bot.clone(),
            elo: 0.0,
        });
        let report = Report::new(&loaded.plan, &loaded.games, &[], None, anchor.as_ref());
        let failures = failures_of(name, &loaded.games);
        let against = report
            .bots
            .iter()
            .filter(|b| b.as_str() != name)
            .map(|opponent| against(&report, name, opponent, references, &failures))
            .collect();
        let elo = report
            .table
            .rows
            .iter()
            .find(|r| r.bot == name && r.games > 0)
            .map(|r| (r.elo, r.elo_low, r.elo_high))
            .filter(|(e, lo, hi)| e.is_finite() && lo.is_finite() && hi.is_finite());
        Graded {
            name: name.to_string(),
            file,
            against,
            total,
            ran_out,
            check,
            elo,
            points_win: loaded.plan.points_win,
        }
    }

    /// Games played against every opponent.
    pub(crate) fn played(&self) -> u32 {
        self.against.iter().map(|a| a.games).sum()
    }

    fn of_references(&self) -> impl Iterator<Item = &Against> {
        self.against.iter().filter(|a| a.reference)
    }

    /// Points per game against the references.
    pub(crate) fn points_per_game(&self) -> f64 {
        let (points, games) = self
            .of_references()
            .fold((0.0, 0), |(p, g), a| (p + a.points, g + a.games));
        if games == 0 {
            0.0
        } else {
            points / games as f64
        }
    }

    /// The score by `rule`, rounded to hundredths.
    pub(crate) fn score(&self, rule: &Rule) -> f64 {
        let own = self.points_per_game();
        let fraction = match rule.score {
            ScoreRule::Mark => {
                let best = self
                    .of_references()
                    .filter(|a| a.games > 0)
                    .map(|a| a.their_points / a.games as f64)
                    .fold(own, f64::max);
                if best > 0.0 { own / best } else { 0.0 }
            }
            ScoreRule::Share if self.points_win > 0.0 => own / self.points_win,
            ScoreRule::Share => 0.0,
        };
        round2(rule.max_score * fraction)
    }
}

fn against(
    report: &Report,
    name: &str,
    opponent: &str,
    references: &[String],
    failures: &[TeamFailure],
) -> Against {
    let row = |bot: &str, other: &str| {
        report
            .pairings
            .iter()
            .find(|p| p.bot == bot && p.opponent == other)
    };
    let own = row(name, opponent);
    let theirs = row(opponent, name);
    Against {
        opponent: opponent.to_string(),
        reference: references.iter().any(|r| r == opponent),
        games: own.map_or(0, |p| p.stats.games),
        wins: own.map_or(0, |p| p.stats.wins),
        losses: own.map_or(0, |p| p.stats.losses),
        ties: own.map_or(0, |p| p.stats.ties),
        points: own.map_or(0.0, |p| p.points),
        their_points: theirs.map_or(0.0, |p| p.points),
        failures: failures
            .iter()
            .filter(|f| f.opponent == opponent)
            .cloned()
            .collect(),
    }
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

/// What the check measured of a bot that passed, in a line.
pub(crate) fn check_passed(row: &crate::tournament::preflight::CheckRow) -> String {
    let ms = |d: Option<Duration>| d.map_or("-".to_string(), |d| format!("{} ms", d.as_millis()));
    format!(
        "It started (in {}) and made a legal move as each role ({} and {}).",
        ms(row.startup),
        ms(row.moves[0]),
        ms(row.moves[1])
    )
}

/// What a submission of `game` should hold, for a student told theirs does not.
pub(crate) fn expected_bot(game: GameKind) -> String {
    let what = match game {
        GameKind::Gomoku => {
            "your Java player (a `.java` file with a class implementing the \
                             course's GomokuPlayer)"
        }
        GameKind::Advance => "your console program (its source or a `build.sh`)",
        _ => {
            "your bot file (a `TeamXX.py` with its `Player` class), with its helper files \
              beside it"
        }
    };
    format!("hand in {what}, at the top of the submission or in one zip")
}

/// The results file's text.
pub(crate) fn results(outcome: &Outcome, rule: &Rule, format: Format, elapsed: Duration) -> String {
    let value = match format {
        Format::Gradescope => gradescope(outcome, rule, elapsed),
        Format::Prairielearn => prairielearn(outcome, rule),
    };
    let mut text = serde_json::to_string_pretty(&value).unwrap_or_else(|_| "{}".to_string());
    text.push('\n');
    text
}

/// One test of the results: its name, score, most and whether it passed, and its text.
struct Test {
    name: String,
    score: f64,
    max: f64,
    passed: bool,
    output: String,
}

fn tests(outcome: &Outcome) -> Vec<Test> {
    let check = |passed: bool, output: String| Test {
        name: "The bot starts and answers".to_string(),
        score: 0.0,
        max: 0.0,
        passed,
        output,
    };
    match outcome {
        Outcome::Refused(why) | Outcome::Broken(why) => vec![check(false, why.clone())],
        Outcome::FailedCheck { words, .. } => vec![check(false, words.clone())],
        Outcome::Played(g) => {
            let mut all = vec![check(true, g.check.clone())];
            for a in &g.against {
                let mut output = format!(
                    "{} won, {} lost, {} tied of {} games: {} points of {}.",
                    a.wins,
                    a.losses,
                    a.ties,
                    a.games,
                    num(a.points),
                    num(a.games as f64 * g.points_win)
                );
                if !a.reference {
                    output.push_str(" (A bot of the class: these games do not set the score.)");
                }
                for f in &a.failures {
                    let _ = write!(output, "\nGame {} as {}: {}", f.game, f.role, f.words);
                }
                all.push(Test {
                    name: format!("Against {}", a.opponent),
                    score: a.points,
                    max: a.games as f64 * g.points_win,
                    passed: a.failures.is_empty(),
                    output,
                });
            }
            all
        }
    }
}

fn num(x: f64) -> String {
    super::numbers::num(x)
}

/// The score, and the student's text in Markdown.
fn score_and_text(outcome: &Outcome, rule: &Rule) -> (f64, String) {
    let max = num(rule.max_score);
    match outcome {
        Outcome::Refused(why) => (
            0.0,
            format!("**Score 0 of {max}.** No game was played: {why}.\n"),
        ),
        Outcome::FailedCheck { name, file, words } => (
            0.0,
            format!(
                "**Score 0 of {max}.** Your bot {} did not pass the check before the games, \
                 so no game was played: {words}.\n\nFix it and hand it in again.\n",
                file.as_deref()
                    .map_or_else(|| format!("`{name}`"), |f| format!("`{f}`"))
            ),
        ),
        Outcome::Broken(error) => (
            0.0,
            format!(
                "**Score 0 of {max}.** The autograder could not run your games: the course's \
                 setup failed, not your bot. Tell your teacher; this is what it said:\n\n\
                 ```\n{error}\n```\n"
            ),
        ),
        Outcome::Played(g) => {
            let score = g.score(rule);
            (score, played_text(g, rule, score))
        }
    }
}

fn played_text(g: &Graded, rule: &Rule, score: f64) -> String {
    let mut out = format!("**Score {} of {}.**\n\n", num(score), num(rule.max_score));
    if let Some(file) = &g.file {
        let _ = writeln!(out, "Your bot: `{file}`. {}\n", g.check);
    }
    let _ = writeln!(out, "It played {} of {} games.", g.played(), g.total);
    if g.ran_out {
        let _ = writeln!(
            out,
            "\nThe time the autograder has ({} s) ran out before every game was played: \
             the score counts the {} games that were.",
            rule.budget.as_secs(),
            g.played()
        );
    }
    out.push_str("\n| Opponent | Games | Won | Lost | Tied | Points |\n| --- | --- | --- | --- | --- | --- |\n");
    for a in &g.against {
        let _ = writeln!(
            out,
            "| {}{} | {} | {} | {} | {} | {} |",
            a.opponent,
            if a.reference { "" } else { " (class)" },
            a.games,
            a.wins,
            a.losses,
            a.ties,
            num(a.points)
        );
    }
    let _ = writeln!(
        out,
        "\nPoints per game against the references: {}.",
        num(round2(g.points_per_game()))
    );
    let _ = writeln!(
        out,
        "{}",
        match rule.score {
            ScoreRule::Mark => format!(
                "The score is the course mark: {} x your points per game / the best points \
                 per game among your bot and the references.",
                num(rule.max_score)
            ),
            ScoreRule::Share => format!(
                "The score is {} x the share of the points your bot could have won against \
                 the references.",
                num(rule.max_score)
            ),
        }
    );
    let failures: Vec<&TeamFailure> = g.against.iter().flat_map(|a| &a.failures).collect();
    if !failures.is_empty() {
        out.push_str("\n## Games your bot lost by a failure of its own\n\n");
        for f in &failures {
            let _ = writeln!(
                out,
                "- Game {} against {}, as {}: {}",
                f.game, f.opponent, f.role, f.words
            );
        }
        out.push_str("\nFix what failed and hand your bot in again.\n");
    }
    out
}

fn leaderboard(outcome: &Outcome, rule: &Rule, score: f64) -> Vec<Value> {
    let (ppg, elo) = match outcome {
        Outcome::Played(g) => (round2(g.points_per_game()), g.elo.map(|e| e.0.round())),
        _ => (0.0, None),
    };
    let _ = rule;
    let mut board = vec![json!({"name": "Points per game", "value": ppg, "order": "desc"})];
    if let Some(elo) = elo {
        board.push(json!({"name": "Elo", "value": elo, "order": "desc"}));
    }
    board.push(json!({"name": "Mark", "value": score, "order": "desc"}));
    board
}

fn gradescope(outcome: &Outcome, rule: &Rule, elapsed: Duration) -> Value {
    let (score, output) = score_and_text(outcome, rule);
    let tests: Vec<Value> = tests(outcome)
        .into_iter()
        .map(|t| {
            json!({
                "name": t.name,
                "score": t.score,
                "max_score": t.max,
                "status": if t.passed { "passed" } else { "failed" },
                "output": t.output,
                "output_format": "text",
                "visibility": "visible",
            })
        })
        .collect();
    json!({
        "score": score,
        "max_score": rule.max_score,
        "execution_time": elapsed.as_secs_f64().round(),
        "output": output,
        "output_format": "md",
        "visibility": "visible",
        // The autograder's own log names the teacher's paths and the other bots.
        "stdout_visibility": "hidden",
        "tests": tests,
        "leaderboard": leaderboard(outcome, rule, score),
    })
}

fn prairielearn(outcome: &Outcome, rule: &Rule) -> Value {
    let (score, output) = score_and_text(outcome, rule);
    let fraction = if rule.max_score > 0.0 {
        (score / rule.max_score).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let tests: Vec<Value> = tests(outcome)
        .into_iter()
        .map(|t| {
            json!({
                "name": t.name,
                "points": t.score,
                "max_points": t.max,
                "output": t.output,
                "message": if t.passed { "passed" } else { "failed" },
            })
        })
        .collect();
    json!({
        // The teacher's setup failing is no grade of the student's.
        "gradable": !matches!(outcome, Outcome::Broken(_)),
        "score": fraction,
        "message": output.lines().next().unwrap_or_default(),
        "output": output,
        "tests": tests,
    })
}

impl Outcome {
    /// One line for the autograder's log.
    pub(crate) fn summary(&self, rule: &Rule) -> String {
        let (score, _) = score_and_text(self, rule);
        match self {
            Outcome::Refused(why) => format!("no game played: {why}; score 0"),
            Outcome::FailedCheck { name, words, .. } => {
                format!("{name} failed the check: {words}; score 0")
            }
            Outcome::Broken(error) => format!("the autograder could not run: {error}"),
            Outcome::Played(g) => format!(
                "{}: {} of {} games played, {} points per game against the references; \
                 score {} of {}{}",
                g.name,
                g.played(),
                g.total,
                num(round2(g.points_per_game())),
                num(score),
                num(rule.max_score),
                if g.ran_out {
                    " (the time budget ran out)"
                } else {
                    ""
                }
            ),
        }
    }
}
