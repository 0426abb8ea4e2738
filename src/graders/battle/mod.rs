//! The Battle solver checker: the course's checks of a `BattleSolver` (docs/rules/battle.md)
//! on a file of cases, for each pruning flag.
//!
//! For a case and a flag the answer `plan;score;nodesExpanded;` must parse; the plan must
//! replay from the start (the right player, living units) and end the game exactly at its
//! last action; the score must be the exact minimax value, and the plan's own end score
//! must be that score; without pruning the node count must equal the full tree's
//! non-terminal nodes, and with pruning it must be smaller wherever a cut is possible.
//! The reference counts follow the rules page's convention (`reference()`).

mod answer;
mod reference;
#[cfg(test)]
mod tests;

use crate::bots::FailureKind;
use crate::bots::solver::{Prepared, Solved};
use crate::error::Error;
use crate::games::battle::State;
use rayon::prelude::*;
use serde_json::json;
use std::path::Path;
use std::time::Duration;

pub(crate) use answer::{Answer, parse_answer, replay};
pub(crate) use reference::{Reference, reference};

/// One line of a case file.
#[derive(Clone, Debug)]
pub struct Case {
    /// 1-based line in the case file.
    pub line: usize,
    /// The state string as written.
    pub text: String,
    /// The state as parsed: where the solver's plan is replayed from.
    pub state: State,
    /// What the exact search says: the value and node counts answers are checked against.
    pub reference: Reference,
}

/// Reads a case file: one case per line, `STATE` or `STATE EXPECTED_SCORE`; `#` starts a
/// comment; blank lines are skipped. An expected score that is not the exact value is an
/// error in the file.
pub fn read_cases(path: &Path, text: &str) -> Result<Vec<Case>, Error> {
    let mut cases = Vec::new();
    for (k, raw) in text.lines().enumerate() {
        let line = k + 1;
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let bad = |message: String| Error::Input {
            path: path.to_path_buf(),
            line,
            message,
        };
        let mut words = content.split_whitespace();
        let state_text = words.next().unwrap_or_default();
        let expected =
            match words.next() {
                None => None,
                Some(w) => Some(w.parse::<i64>().map_err(|_| {
                    bad(format!("the expected score is `{w}`, expected an integer"))
                })?),
            };
        if let Some(extra) = words.next() {
            return Err(bad(format!(
                "`{extra}` after the expected score: a line is `STATE` or `STATE EXPECTED_SCORE`"
            )));
        }
        let state = State::parse(state_text).map_err(bad)?;
        let reference = reference(&state);
        if let Some(e) = expected
            && e != reference.value
        {
            return Err(bad(format!(
                "the expected score is {e}, but the exact minimax value is {}",
                reference.value
            )));
        }
        cases.push(Case {
            line,
            text: state_text.to_string(),
            state,
            reference,
        });
    }
    if cases.is_empty() {
        return Err(Error::Input {
            path: path.to_path_buf(),
            line: 0,
            message: "no cases: expected lines `STATE` or `STATE EXPECTED_SCORE`".into(),
        });
    }
    Ok(cases)
}

/// Why a case failed, as a stable snake_case code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The solver could not be compiled or started.
    SpawnFailed,
    /// No answer within the time limit (or still kept from running by the machine's load).
    Timeout,
    /// An exception, a crash, a broken limit, or no answer.
    Crash,
    /// An answer that does not parse as `plan;score;nodesExpanded;`.
    BadFormat,
    /// A plan that does not replay from the start or does not end the game at its last action.
    IllegalPlan,
    /// A score other than the exact minimax value.
    WrongScore,
    /// The plan's own end score is not the score given.
    PlanScore,
    /// `ab=true` without a cut where one is possible.
    NoPruning,
    /// `ab=false` with a count other than the full tree's.
    NodeCount,
}

impl Fault {
    /// The snake_case code reports and the JSON summary give this fault (`wrong_score`, ...).
    pub fn code(self) -> &'static str {
        match self {
            Fault::SpawnFailed => "spawn_failed",
            Fault::Timeout => "timeout",
            Fault::Crash => "crash",
            Fault::BadFormat => "bad_format",
            Fault::IllegalPlan => "illegal_plan",
            Fault::WrongScore => "wrong_score",
            Fault::PlanScore => "plan_score",
            Fault::NoPruning => "no_pruning",
            Fault::NodeCount => "node_count",
        }
    }
}

/// The judgement of one case under one flag.
#[derive(Clone, Debug)]
pub struct Verdict {
    /// The first check that failed (`None`: passed).
    pub fault: Option<Fault>,
    /// Every failed check, in words (empty when passed).
    pub reason: String,
    /// The node count the solver reported, if it answered.
    pub nodes: Option<u64>,
    /// The solve's time: the driver's own measure (Java), else the process's run.
    pub time: Duration,
}

/// Judges a solver's run on `case` with flag `ab`.
pub(crate) fn judge(case: &Case, ab: bool, solved: &Solved) -> Verdict {
    let mut problems: Vec<(Fault, String)> = Vec::new();
    let mut nodes = None;
    let tail = |out: &str| {
        let lines: Vec<&str> = out.lines().filter(|l| !l.trim().is_empty()).collect();
        lines[lines.len().saturating_sub(3)..].join(" | ")
    };
    match &solved.answer {
        Err(failure) => {
            let fault = match failure.kind {
                // Still kept from running after its runs again (`run_once_fairly`): said
                // as a timeout, with the detail that names the machine's load.
                FailureKind::Timeout | FailureKind::MachineLoad => Fault::Timeout,
                FailureKind::Spawn => Fault::SpawnFailed,
                _ => Fault::Crash,
            };
            let mut why = failure.detail.replace('\n', " | ");
            let out = tail(&solved.output);
            if !why.contains("stderr tail") && !out.is_empty() {
                why.push_str(&format!("; output: {out}"));
            }
            problems.push((fault, why));
        }
        Ok(text) => match parse_answer(text) {
            Err(why) => {
                let shown: String = text.chars().take(120).collect();
                problems.push((Fault::BadFormat, format!("{why}; the answer was `{shown}`")));
            }
            Ok(answer) => {
                nodes = Some(answer.nodes);
                check_answer(case, ab, &answer, &mut problems);
            }
        },
    }
    Verdict {
        fault: problems.first().map(|(f, _)| *f),
        reason: problems
            .iter()
            .map(|(_, r)| r.as_str())
            .collect::<Vec<_>>()
            .join("; "),
        nodes,
        time: solved.time,
    }
}

fn check_answer(case: &Case, ab: bool, answer: &Answer, problems: &mut Vec<(Fault, String)>) {
    let r = &case.reference;
    match replay(&case.state, &answer.plan) {
        Err(why) => problems.push((Fault::IllegalPlan, format!("plan: {why}"))),
        Ok(end) if end != answer.score => problems.push((
            Fault::PlanScore,
            format!(
                "the plan ends with score {end}, the answer says {}",
                answer.score
            ),
        )),
        Ok(_) => {}
    }
    if answer.score != r.value {
        problems.push((
            Fault::WrongScore,
            format!("score {}, the minimax value is {}", answer.score, r.value),
        ));
    }
    // Keep the order of the rules page: the score before the plan's own score.
    problems.sort_by_key(|(f, _)| match f {
        Fault::IllegalPlan => 0,
        Fault::WrongScore => 1,
        _ => 2,
    });
    if ab {
        if r.ab_nodes < r.full_nodes && answer.nodes >= r.full_nodes {
            problems.push((
                Fault::NoPruning,
                format!(
                    "ab=true expanded {} nodes, no fewer than the full tree's {} (alpha-beta: {})",
                    answer.nodes, r.full_nodes, r.ab_nodes
                ),
            ));
        }
    } else if answer.nodes != r.full_nodes {
        problems.push((
            Fault::NodeCount,
            format!(
                "ab=false expanded {} nodes, the full tree has {}",
                answer.nodes, r.full_nodes
            ),
        ));
    }
}

/// One solver's results: `verdicts[flag][case]` for each flag checked.
#[derive(Debug)]
pub struct SolverResult {
    /// The solver's name, as the caller gave it.
    pub name: String,
    /// The pruning flags checked (`ab=false`, `ab=true`), in order.
    pub flags: Vec<bool>,
    /// For each flag of `flags`, a verdict per case, in the cases' order.
    pub verdicts: Vec<Vec<Verdict>>,
}

/// Runs every solver on every case under every flag, `jobs` runs at once. A solver that
/// could not be prepared (`Err`: javac's message) fails every case with that message.
pub fn grade(
    solvers: &[(String, Result<Prepared, String>)],
    cases: &[Case],
    flags: &[bool],
    jobs: usize,
    limit: Duration,
) -> Vec<SolverResult> {
    let mut tasks = Vec::new();
    for s in 0..solvers.len() {
        for f in 0..flags.len() {
            for c in 0..cases.len() {
                tasks.push((s, f, c));
            }
        }
    }
    let run = |&(s, f, c): &(usize, usize, usize)| {
        let case = &cases[c];
        let solved = match &solvers[s].1 {
            Ok(prepared) => prepared.solve(&case.text, flags[f], limit),
            Err(why) => Solved {
                answer: Err(crate::bots::Failure::new(FailureKind::Spawn, why.clone())),
                time: Duration::ZERO,
                output: String::new(),
            },
        };
        judge(case, flags[f], &solved)
    };
    let verdicts: Vec<Verdict> = match rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
    {
        Ok(pool) => pool.install(|| tasks.par_iter().map(run).collect()),
        Err(_) => tasks.iter().map(run).collect(),
    };
    let mut it = verdicts.into_iter();
    solvers
        .iter()
        .map(|(name, _)| SolverResult {
            name: name.clone(),
            flags: flags.to_vec(),
            verdicts: flags
                .iter()
                .map(|_| it.by_ref().take(cases.len()).collect())
                .collect(),
        })
        .collect()
}

impl SolverResult {
    /// How many cases passed under `flags[flag]`.
    pub fn passed(&self, flag: usize) -> usize {
        self.verdicts[flag]
            .iter()
            .filter(|v| v.fault.is_none())
            .count()
    }

    /// The one-line JSON summary: cases, passes per flag, failures.
    pub fn json(&self, cases: &[Case]) -> serde_json::Value {
        let mut passed = serde_json::Map::new();
        let mut failures = Vec::new();
        for (f, ab) in self.flags.iter().enumerate() {
            passed.insert(ab.to_string(), self.passed(f).into());
            for (c, v) in self.verdicts[f].iter().enumerate() {
                if let Some(fault) = v.fault {
                    failures.push(json!({
                        "case": cases[c].text,
                        "line": cases[c].line,
                        "ab": ab,
                        "kind": fault.code(),
                        "reason": v.reason,
                    }));
                }
            }
        }
        json!({"solver": self.name, "cases": cases.len(), "passed": passed, "failures": failures})
    }
}

/// The class table: one row per solver (cases passed per flag, node counts summed over
/// the answered cases against the reference's, solve time), then every failure.
pub fn render(results: &[SolverResult], cases: &[Case]) -> String {
    let mut t = comfy_table::Table::new();
    t.load_style(comfy_table::presets::UTF8_FULL_CONDENSED);
    let Some(first) = results.first() else {
        return String::new();
    };
    let mut header = vec!["solver".to_string()];
    for ab in &first.flags {
        header.push(format!("ab={ab} passed"));
        header.push(format!("ab={ab} nodes / reference"));
    }
    header.push("time total".into());
    header.push("time max".into());
    t.set_header(header);
    for r in results {
        let mut row = vec![r.name.clone()];
        let mut total = Duration::ZERO;
        let mut max = Duration::ZERO;
        for (f, ab) in r.flags.iter().enumerate() {
            row.push(format!("{}/{}", r.passed(f), cases.len()));
            let (mut got, mut want) = (0u64, 0u64);
            for (c, v) in r.verdicts[f].iter().enumerate() {
                total += v.time;
                max = max.max(v.time);
                if let Some(n) = v.nodes {
                    got = got.saturating_add(n);
                    let reference = &cases[c].reference;
                    let n = if *ab {
                        reference.ab_nodes
                    } else {
                        reference.full_nodes
                    };
                    want = want.saturating_add(n);
                }
            }
            row.push(format!("{got} / {want}"));
        }
        row.push(format!("{:.1} ms", total.as_secs_f64() * 1000.0));
        row.push(format!("{:.1} ms", max.as_secs_f64() * 1000.0));
        t.add_row(row);
    }
    let mut out = format!("{t}\n");
    let mut failures = String::new();
    for r in results {
        for (f, ab) in r.flags.iter().enumerate() {
            for (c, v) in r.verdicts[f].iter().enumerate() {
                if let Some(fault) = v.fault {
                    failures.push_str(&format!(
                        "{} line {} ab={ab} {}: {} ({})\n",
                        r.name,
                        cases[c].line,
                        fault.code(),
                        v.reason,
                        cases[c].text
                    ));
                }
            }
        }
    }
    if !failures.is_empty() {
        out.push_str("failures:\n");
        out.push_str(&failures);
    }
    out
}
