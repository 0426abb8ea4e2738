//! The Battle solver checker: the course's checks of a `BattleSolver` (docs/rules/battle.md)
//! on a file of cases, for each pruning flag.
//!
//! For a case and a flag the answer `plan;score;nodesExpanded;` must parse; the plan must
//! replay from the start (the right player, living units) and end the game exactly at its
//! last action; the score must be the exact minimax value, and the plan's own end score
//! must be that score; without pruning the node count must equal the full tree's
//! non-terminal nodes, and with pruning it must be smaller wherever a cut is possible.
//! The reference counts follow the rules page's convention ([`reference`]).

use crate::bots::FailureKind;
use crate::bots::solver::{Prepared, Solved};
use crate::engines::battle::Solver;
use crate::error::Error;
use crate::games::battle::{Letter, State};
use rayon::prelude::*;
use serde_json::json;
use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

/// One line of a case file.
#[derive(Clone, Debug)]
pub struct Case {
    /// 1-based line in the case file.
    pub line: usize,
    /// The state string as written.
    pub text: String,
    pub state: State,
    pub reference: Reference,
}

/// What the exact search says about a start, by the course's convention.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// The minimax value for the starting player.
    pub value: i64,
    /// The principal variation (first best child on ties) in the course's notation.
    pub plan: String,
    /// Non-terminal nodes of the full tree: plain minimax's count (saturating).
    pub full_nodes: u64,
    /// Nodes alpha-beta expands with the convention's move order and cut test.
    pub ab_nodes: u64,
}

impl Reference {
    /// The course's answer string for this reference (`plan;score;nodes;`).
    pub fn answer(&self, ab: bool) -> String {
        let nodes = if ab { self.ab_nodes } else { self.full_nodes };
        format!("{};{};{};", self.plan, self.value, nodes)
    }
}

type Healths = Box<[u32]>;

fn healths(state: &State) -> Healths {
    [crate::games::Side::First, crate::games::Side::Second]
        .iter()
        .flat_map(|s| state.army(*s).iter().map(|u| u.health))
        .collect()
}

/// The reference of a start position (side [`crate::games::Side::First`] to move).
pub fn reference(state: &State) -> Reference {
    let mut solver = Solver::new();
    let value = solver.course_value(state).unwrap_or(0);
    let mut plan = Vec::new();
    let mut at = state.clone();
    while at.winner().is_none() {
        let (mv, _) = solver
            .best(&at, None)
            .unwrap_or_else(|| unreachable!("a live position has an attack"));
        plan.push(action(&at, mv.attacker, mv.target));
        at.attack(mv.attacker, mv.target);
    }
    let mut full = HashMap::new();
    let full_nodes = count_full(state, &mut full);
    let mut memo = HashMap::new();
    let (_, ab_nodes) = alphabeta(state, i64::MIN, i64::MAX, &mut memo);
    Reference {
        value,
        plan: plan.join(","),
        full_nodes,
        ab_nodes,
    }
}

/// `P(i,j)` for the side to move of `state`.
fn action(state: &State, attacker: usize, target: usize) -> String {
    let p = state.letter(state.to_move()).as_char();
    format!("{p}({attacker},{target})")
}

/// Non-terminal nodes of the tree below `state`, each position counted as often as the
/// tree holds it (memoised by position: a subtree's size depends on its root alone).
fn count_full(state: &State, memo: &mut HashMap<(bool, Healths), u64>) -> u64 {
    if state.winner().is_some() {
        return 0;
    }
    let key = (state.to_move() == crate::games::Side::First, healths(state));
    if let Some(&n) = memo.get(&key) {
        return n;
    }
    let mut n: u64 = 1;
    for (i, j) in state.attacks() {
        let mut next = state.clone();
        next.attack(i, j);
        n = n.saturating_add(count_full(&next, memo));
    }
    memo.insert(key, n);
    n
}

type AbMemo = HashMap<(bool, Healths, i64, i64), (i64, u64)>;

/// Course alpha-beta from the starting player's view: its value and expanded nodes. A
/// node's count depends on the position and the window alone, so both are memoised.
fn alphabeta(state: &State, mut alpha: i64, mut beta: i64, memo: &mut AbMemo) -> (i64, u64) {
    if state.winner().is_some() {
        return (state.score().unwrap_or(0), 0);
    }
    let max = state.to_move() == crate::games::Side::First;
    let key = (max, healths(state), alpha, beta);
    if let Some(&hit) = memo.get(&key) {
        return hit;
    }
    let mut nodes: u64 = 1;
    let mut best = if max { i64::MIN } else { i64::MAX };
    for (i, j) in state.attacks() {
        let mut next = state.clone();
        next.attack(i, j);
        let (v, n) = alphabeta(&next, alpha, beta, memo);
        nodes = nodes.saturating_add(n);
        if (max && v > best) || (!max && v < best) {
            best = v;
        }
        if max {
            alpha = alpha.max(best);
        } else {
            beta = beta.min(best);
        }
        if alpha >= beta {
            break;
        }
    }
    memo.insert(key, (best, nodes));
    (best, nodes)
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

/// A solver's answer, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// `(player, attacker, target)` per action.
    pub plan: Vec<(Letter, usize, usize)>,
    pub score: i64,
    pub nodes: u64,
}

/// Reads `plan;score;nodesExpanded;` (the final `;` may be left out).
pub fn parse_answer(text: &str) -> Result<Answer, String> {
    let text = text.trim();
    let body = text.strip_suffix(';').unwrap_or(text);
    let fields: Vec<&str> = body.split(';').collect();
    let [plan, score, nodes] = fields.as_slice() else {
        return Err(format!(
            "expected `plan;score;nodesExpanded;`, got {} field(s)",
            fields.len()
        ));
    };
    let score = score
        .trim()
        .parse::<i64>()
        .map_err(|_| format!("the score `{score}` is not an integer"))?;
    let nodes = nodes
        .trim()
        .parse::<u64>()
        .map_err(|_| format!("nodesExpanded `{nodes}` is not a non-negative integer"))?;
    let plan = if plan.trim().is_empty() {
        Vec::new()
    } else {
        split_actions(plan)?
    };
    Ok(Answer { plan, score, nodes })
}

/// `A(1,0),B(0,1)` into actions: the commas inside parentheses are not separators.
fn split_actions(plan: &str) -> Result<Vec<(Letter, usize, usize)>, String> {
    let mut actions = Vec::new();
    let mut rest = plan.trim();
    while !rest.is_empty() {
        let close = rest
            .find(')')
            .ok_or_else(|| format!("action `{rest}` has no closing parenthesis"))?;
        let one = &rest[..=close];
        actions.push(
            parse_action(one.trim())
                .ok_or_else(|| format!("action {} `{one}` is not P(i,j)", actions.len() + 1))?,
        );
        rest = rest[close + 1..].trim_start();
        if let Some(after) = rest.strip_prefix(',') {
            rest = after.trim_start();
        } else if !rest.is_empty() {
            return Err(format!("expected `,` between actions, got `{rest}`"));
        }
    }
    Ok(actions)
}

fn parse_action(text: &str) -> Option<(Letter, usize, usize)> {
    let letter = match text.chars().next()? {
        'A' => Letter::A,
        'B' => Letter::B,
        _ => return None,
    };
    let inner = text[1..].trim().strip_prefix('(')?.strip_suffix(')')?;
    let (i, j) = inner.split_once(',')?;
    Some((letter, i.trim().parse().ok()?, j.trim().parse().ok()?))
}

/// Replays `plan` from `start`; the end score, or why the plan is not a legal, complete
/// game.
pub fn replay(start: &State, plan: &[(Letter, usize, usize)]) -> Result<i64, String> {
    let mut state = start.clone();
    for (k, &(p, i, j)) in plan.iter().enumerate() {
        let n = k + 1;
        let action = format!("{}({i},{j})", p.as_char());
        if state.winner().is_some() {
            return Err(format!(
                "action {n} {action}: the game ended at action {k}, the plan goes on"
            ));
        }
        let mover = state.letter(state.to_move());
        if p != mover {
            return Err(format!(
                "action {n} {action}: it is {}'s turn",
                mover.as_char()
            ));
        }
        let own = state.army_of(p);
        let enemy = state.army_of(p.other());
        match (own.get(i), enemy.get(j)) {
            (None, _) => {
                return Err(format!(
                    "action {n} {action}: {} has no unit {i}",
                    p.as_char()
                ));
            }
            (_, None) => {
                return Err(format!(
                    "action {n} {action}: {} has no unit {j}",
                    p.other().as_char()
                ));
            }
            (Some(u), _) if !u.alive() => {
                return Err(format!("action {n} {action}: the attacker is dead"));
            }
            (_, Some(u)) if !u.alive() => {
                return Err(format!("action {n} {action}: the target is dead"));
            }
            _ => {}
        }
        state.attack(i, j);
    }
    state.score().ok_or_else(|| {
        format!(
            "the game is not over after the plan's {} action(s): {}",
            plan.len(),
            state.course_string()
        )
    })
}

/// Why a case failed, as a stable snake_case code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The solver could not be compiled or started.
    SpawnFailed,
    Timeout,
    /// An exception, a crash, a broken limit, or no answer.
    Crash,
    BadFormat,
    IllegalPlan,
    WrongScore,
    /// The plan's own end score is not the score given.
    PlanScore,
    /// `ab=true` without a cut where one is possible.
    NoPruning,
    /// `ab=false` with a count other than the full tree's.
    NodeCount,
}

impl Fault {
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
    pub time: Duration,
}

/// Judges a solver's run on `case` with flag `ab`.
pub fn judge(case: &Case, ab: bool, solved: &Solved) -> Verdict {
    let mut problems: Vec<(Fault, String)> = Vec::new();
    let mut nodes = None;
    let tail = |out: &str| {
        let lines: Vec<&str> = out.lines().filter(|l| !l.trim().is_empty()).collect();
        lines[lines.len().saturating_sub(3)..].join(" | ")
    };
    match &solved.answer {
        Err(failure) => {
            let fault = match failure.kind {
                FailureKind::Timeout => Fault::Timeout,
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
    pub name: String,
    pub flags: Vec<bool>,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::Failure;

    fn case(text: &str) -> Case {
        let state = State::parse(text).unwrap();
        Case {
            line: 1,
            text: text.into(),
            reference: reference(&state),
            state,
        }
    }

    fn answered(text: &str) -> Solved {
        Solved {
            answer: Ok(text.into()),
            time: Duration::ZERO,
            output: String::new(),
        }
    }

    fn fault(c: &Case, ab: bool, answer: &str) -> Option<&'static str> {
        judge(c, ab, &answered(answer)).fault.map(Fault::code)
    }

    #[test]
    fn reference_reproduces_the_rules_page_example() {
        let r = case("3,1,4,2;3,5;A;").reference;
        assert_eq!(r.answer(false), "A(1,0),B(0,1),A(0,0);3;8;");
        assert_eq!(r.answer(true), "A(1,0),B(0,1),A(0,0);3;8;");
    }

    #[test]
    fn reference_prunes_where_a_cut_is_possible() {
        let r = case("4,1,3,2,2,3;3,2,4,1;A;").reference;
        assert!(r.ab_nodes < r.full_nodes, "{r:?}");
        let single = case("5,2;4,3;A;").reference;
        // One unit each: one child per node, nothing to cut.
        assert_eq!(single.ab_nodes, single.full_nodes);
        assert_eq!(single.plan, "A(0,0),B(0,0),A(0,0)");
        assert_eq!(single.value, 2);
    }

    #[test]
    fn a_lost_start_scores_minus_the_winners_health() {
        // B one-shots A's only unit whatever A does.
        let r = case("1,1;5,1;B;").reference;
        assert_eq!(r.value, 5);
        let r = case("1,1;5,1;A;").reference;
        assert_eq!(r.value, -4);
    }

    #[test]
    fn the_reference_answer_passes_both_flags() {
        for text in ["3,1,4,2;3,5;B;", "2,2;2,2;B;", "1,9,1,9;9,1,9,1;A;"] {
            let c = case(text);
            for ab in [false, true] {
                let v = judge(&c, ab, &answered(&c.reference.answer(ab)));
                assert_eq!(v.fault, None, "{text} ab={ab}: {}", v.reason);
            }
        }
    }

    #[test]
    fn each_kind_of_wrong_answer_gets_its_fault() {
        let c = case("3,1,4,2;3,5;A;");
        assert_eq!(
            fault(&c, false, "A(1,0),B(0,1),A(0,0);3;"),
            Some("bad_format")
        );
        assert_eq!(fault(&c, false, "A(1,0) B(0,1);3;8;"), Some("bad_format"));
        assert_eq!(
            fault(&c, false, "A(1,0),A(0,1),A(0,0);3;8;"),
            Some("illegal_plan")
        );
        assert_eq!(fault(&c, false, "A(1,0),B(0,1);3;8;"), Some("illegal_plan"));
        assert_eq!(
            fault(&c, false, "A(1,0),B(0,1),A(0,0),B(0,0);3;8;"),
            Some("illegal_plan")
        );
        assert_eq!(
            fault(&c, false, "A(1,0),B(0,1),A(0,0);4;8;"),
            Some("wrong_score")
        );
        // A legal plan ending with 4 (B hits the weak unit), but the value is 3.
        assert_eq!(
            fault(&c, false, "A(1,0),B(0,0),A(1,0);3;8;"),
            Some("plan_score")
        );
        assert_eq!(
            fault(&c, false, "A(1,0),B(0,1),A(0,0);3;7;"),
            Some("node_count")
        );
        let big = case("4,1,3,2,2,3;3,2,4,1;A;");
        let r = &big.reference;
        let unpruned = format!("{};{};{};", r.plan, r.value, r.full_nodes);
        assert_eq!(fault(&big, true, &unpruned), Some("no_pruning"));
        assert_eq!(fault(&big, false, &unpruned), None);
    }

    #[test]
    fn a_run_failure_is_its_fault_with_the_solvers_output() {
        let c = case("3,1,4,2;3,5;A;");
        let solved = Solved {
            answer: Err(Failure::new(
                FailureKind::Timeout,
                "still running after 100 ms (killed)",
            )),
            time: Duration::from_millis(100),
            output: "thinking\n".into(),
        };
        let v = judge(&c, true, &solved);
        assert_eq!(v.fault, Some(Fault::Timeout));
        assert!(v.reason.contains("thinking"), "{}", v.reason);
    }

    #[test]
    fn case_files_name_the_line_of_a_bad_case() {
        let path = Path::new("cases.txt");
        let cases = read_cases(
            path,
            "# comment\n\n3,1,4,2;3,5;A; 3 # example\n2,2;2,2;B;\n",
        )
        .unwrap();
        assert_eq!(cases.iter().map(|c| c.line).collect::<Vec<_>>(), vec![3, 4]);
        let err = read_cases(path, "3,1,4,2;3,5;A; 4\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("cases.txt:1") && err.contains("exact minimax value is 3"),
            "{err}"
        );
        let err = read_cases(path, "\n3,1,4;3,5;A;\n")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("cases.txt:2") && err.contains("even count"),
            "{err}"
        );
        assert!(read_cases(path, "# nothing\n").is_err());
    }
}
