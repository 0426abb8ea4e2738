//! The report's sections for whoever fixes and marks the bots: every problem (a failure,
//! an entry left out) and a line per team of a round robin.

use super::numbers::fixed;
use super::model::Report;
use super::section::{Align, Section, Table, columns};

/// Every failure of a bot and every entry left out, for whoever fixes them.
pub(super) fn problems(report: &Report) -> Option<Section> {
    let results = super::marks::team_results(report);
    let mut rows = Vec::new();
    for l in &report.plan.left_out {
        rows.push(vec![
            l.name.clone(),
            "–".into(),
            "left out".into(),
            format!("{}: {}", l.entry, l.reason),
        ]);
    }
    // Every bot's failures, reference bots included: a failing baseline is a problem too.
    for s in &report.table.rows {
        let own = results.iter().find(|r| r.team == s.bot && r.left_out.is_none());
        let failures = match own {
            Some(r) => r.failures.clone(),
            None => super::marks::failures_of(&s.bot, &report.games),
        };
        for f in failures {
            rows.push(vec![
                s.bot.clone(),
                f.game.to_string(),
                f.reason.clone(),
                f.words.clone(),
            ]);
        }
    }
    if rows.is_empty() {
        return None;
    }
    Some(Section {
        id: "problems",
        title: "Problems".into(),
        text: vec![
            "Every game a bot lost by its own failure (an exception, a crash, a timeout, a \
             broken limit, a failed start, an illegal move where that loses), with the first \
             line of its error, and every entry of the submissions that is not a bot."
                .into(),
        ],
        tables: vec![Table {
            id: "problems",
            caption: "Failures and left-out entries".into(),
            columns: {
                let mut cols = columns(&["bot", "game", "reason", "what happened"], 4);
                cols[1].1 = Align::Right;
                cols
            },
            rows,
        }],
        notes: Vec::new(),
        plot: None,
    })
}

/// A line per team of a round robin: its mark, what went wrong, and its feedback file.
pub(super) fn teams(report: &Report) -> Option<Section> {
    if report.plan.format != "round_robin" {
        return None;
    }
    let rows = super::marks::team_results(report)
        .iter()
        .map(|r| {
            vec![
                r.team.clone(),
                fixed(r.mark, 2, false),
                r.games.to_string(),
                r.failures.len().to_string(),
                r.illegal.to_string(),
                r.blocked.to_string(),
                r.status(),
            ]
        })
        .collect();
    Some(Section {
        id: "teams",
        title: "Teams".into(),
        text: vec![format!(
            "Each team's mark and status; its games, failures and illegal moves are in the \
             tournament folder's {}/TEAM.md, \
             and its marks.csv holds the marks for a grade book.",
            super::marks::FEEDBACK_DIR
        )],
        tables: vec![Table {
            id: "teams",
            caption: "Teams".into(),
            columns: {
                let names = ["team", "mark", "games", "failures", "illegal", "blocked", "status"];
                let mut cols = columns(&names, 1);
                cols[6].1 = Align::Left;
                cols
            },
            rows,
        }],
        notes: Vec::new(),
        plot: None,
    })
}
