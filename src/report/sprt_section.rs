//! The report's section on a sequential test: its verdict first, the test's settings and
//! state, and its two Elo estimates side by side.

use super::model::Report;
use super::numbers::{fixed, num};
use super::section::PAIR_COUNT_RULE;
use super::section::{Section, Table, columns};

pub(super) fn sprt(report: &Report) -> Option<Section> {
    let test = report.sprt.as_ref()?;
    let plan = report.plan.sprt.as_ref()?;
    let last = test.last();
    let verdict = match last.map(|s| s.verdict) {
        Some(crate::stats::sprt::Verdict::H1) => format!(
            "H1 accepted: {} is better than {} (Elo ≥ {})",
            test.candidate,
            test.baseline,
            num(plan.elo1)
        ),
        Some(crate::stats::sprt::Verdict::H0) => format!(
            "H0 accepted: {} is not better than {} (Elo ≤ {})",
            test.candidate,
            test.baseline,
            num(plan.elo0)
        ),
        _ => format!(
            "inconclusive after {} of at most {} pairs",
            last.map_or(0, |s| s.pairs),
            test.max_pairs
        ),
    };
    // An inconclusive test says which way it leans and how to go on.
    let go_on = match last {
        Some(s) if s.verdict == crate::stats::sprt::Verdict::Inconclusive => Some(format!(
            "It is not decided: {}. To go on, rerun the test's command with --max-pairs {} \
             (the pairs played are kept, and the test resumes).",
            lean(s, &test.candidate),
            more_pairs(s.pairs, u64::from(test.max_pairs))
        )),
        _ => None,
    };
    let (lower, upper) = crate::stats::sprt::bounds(test.alpha, test.beta);
    let elo = |x: f64| fixed(x, 1, true);
    let mut rows = vec![
        vec!["verdict".into(), verdict.clone()],
        vec!["candidate".into(), test.candidate.clone()],
        vec!["baseline".into(), test.baseline.clone()],
        vec![
            "hypotheses".into(),
            format!(
                "H0: Elo ≤ {} ({} is not stronger by more than that), H1: Elo ≥ {} ({} is \
                 stronger by at least that); {} model",
                num(plan.elo0),
                test.candidate,
                num(plan.elo1),
                test.candidate,
                plan.model
            ),
        ],
        vec![
            "error rates".into(),
            format!(
                "α = {} (the chance of accepting H1 when H0 holds), β = {} (the chance of \
                 accepting H0 when H1 holds)",
                num(test.alpha),
                num(test.beta)
            ),
        ],
        vec![
            "LLR bounds".into(),
            format!("[{}, {}]", fixed(lower, 3, false), fixed(upper, 3, false)),
        ],
        vec![
            "pairs".into(),
            format!(
                "{} of at most {}",
                last.map_or(0, |s| s.pairs),
                test.max_pairs
            ),
        ],
        vec!["LLR".into(), fixed(last.map_or(0.0, |s| s.llr), 3, false)],
    ];
    if let Some(s) = last {
        let p = s.pentanomial;
        rows.push(vec![
            "pentanomial 0, ½, 1, 1½, 2".into(),
            format!("{}, {}, {}, {}, {}", p[0], p[1], p[2], p[3], p[4]),
        ]);
        rows.push(vec![
            "Elo by pairs".into(),
            format!(
                "{} [{}, {}]",
                elo(s.elo.estimate),
                elo(s.elo.low),
                elo(s.elo.high)
            ),
        ]);
    }
    let mut text = vec![format!("Verdict: {verdict}.")];
    text.extend(go_on);
    text.extend([format!(
        "Is {} stronger than {}? The test counts role-swapped pairs and stops as soon \
             as the log-likelihood ratio (LLR) leaves its bounds.",
        test.candidate, test.baseline
    )]);
    text.extend(last.and_then(|s| two_elos(report, test, s)));
    Some(Section {
        id: "sprt".into(),
        title: "Sequential test (SPRT)".into(),
        text,
        tables: vec![Table {
            id: "sprt".into(),
            caption: "The sequential test".into(),
            columns: columns(&["", "value"], 2),
            rows,
        }],
        notes: vec![
            format!("Pentanomial: {}.", crate::stats::sprt::PENTANOMIAL_LEGEND),
            PAIR_COUNT_RULE.into(),
        ],
        plot: Some("sprt.svg"),
    })
}

/// The two Elo estimates of an SPRT side by side in one sentence: the pairs' (what the test
/// weighs) and the standings' (each game on its own, the two bots about a mean of 0).
fn two_elos(
    report: &Report,
    test: &super::model::SprtReport,
    last: &crate::tournament::sprt::SprtStatus,
) -> Option<String> {
    let rating = |name: &str| {
        report
            .table
            .rows
            .iter()
            .find(|r| r.bot == name)
            .map(|r| r.elo)
    };
    let (c, b) = (rating(&test.candidate)?, rating(&test.baseline)?);
    Some(format!(
        "Elo of {} over {}: {} [{}, {}] by pairs, the estimate the test weighs; the standings \
         rate each game on its own about a mean of 0 ({} {}, {} {}: {} apart), which takes a \
         pair's two games, played from one opening, as independent.",
        test.candidate,
        test.baseline,
        fixed(last.elo.estimate, 1, true),
        fixed(last.elo.low, 1, true),
        fixed(last.elo.high, 1, true),
        test.candidate,
        fixed(c, 0, true),
        test.baseline,
        fixed(b, 0, true),
        fixed(c - b, 0, true),
    ))
}

/// Which way an inconclusive test's LLR leans, and how far: `the LLR 1.204 leans
/// towards H1 (greedy stronger): 41% of the way from 0 to its bound 2.944`.
pub(crate) fn lean(status: &crate::tournament::sprt::SprtStatus, candidate: &str) -> String {
    let llr = fixed(status.llr, 3, false);
    let (towards, bound) = if status.llr > 0.0 {
        (format!("H1 ({candidate} stronger)"), status.upper)
    } else if status.llr < 0.0 {
        (format!("H0 ({candidate} not stronger)"), status.lower)
    } else {
        return format!("the LLR {llr} leans neither way");
    };
    let share = if bound != 0.0 {
        (status.llr / bound).clamp(0.0, 1.0)
    } else {
        0.0
    };
    format!(
        "the LLR {llr} leans towards {towards}: {} of the way from 0 to its bound {}",
        super::numbers::percent(share),
        fixed(bound, 3, false)
    )
}

/// The `--max-pairs` a rerun goes on to: twice the pairs played (and more than the
/// limit reached), as the journal keeps every pair played and a raised limit resumes.
pub(crate) fn more_pairs(pairs: u64, max_pairs: u64) -> u64 {
    (2 * pairs).max(max_pairs + 1).max(2)
}
