//! The report's sections for whoever fixes and marks the bots: every problem (a failure,
//! an entry left out) and a line per team of a round robin.

use super::marks::TeamResult;
use super::model::Report;
use super::numbers::{count, fixed};
use super::section::{Align, Section, Table, columns};

/// Every failure of a bot and every entry left out, for whoever fixes them.
pub(super) fn problems(report: &Report, results: &[TeamResult]) -> Option<Section> {
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
        let own = results
            .iter()
            .find(|r| r.team == s.bot && r.left_out.is_none());
        let failures = match own {
            Some(r) => r.failures.clone(),
            None => super::marks::failures_of(&s.bot, &report.failed),
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
        id: "problems".into(),
        title: "Problems".into(),
        text: vec![
            "Every game a bot lost by its own failure (an exception, a crash, a timeout, a \
             broken limit, a failed start, an illegal move where that loses), with the first \
             line of its error, and every entry of the submissions that is not a bot."
                .into(),
        ],
        tables: vec![Table {
            id: "problems".into(),
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

/// A team's status as a report for the class gives it: without the reason of an entry left
/// out nor the words of a failure, which quote the team's files and errors.
fn public_status(r: &TeamResult) -> &'static str {
    match (r.missing, r.marked, r.left_out.is_some()) {
        (true, _, _) => "no submission",
        (_, false, _) => "played, kept out of the marks (non-scoring)",
        (_, _, true) => "left out",
        _ => "played",
    }
}

/// A line per team of a round robin: its mark, what went wrong, and its feedback file.
pub(super) fn teams(report: &Report, results: &[TeamResult]) -> Option<Section> {
    if report.plan.format != "round_robin" {
        return None;
    }
    let rows = results
        .iter()
        .map(|r| {
            vec![
                r.team.clone(),
                match r.marked {
                    true => fixed(r.mark, 2, false),
                    false => "–".into(),
                },
                r.games.to_string(),
                r.failures.len().to_string(),
                r.illegal.to_string(),
                r.blocked.to_string(),
                match report.public {
                    true => public_status(r).to_string(),
                    false => r.status(),
                },
            ]
        })
        .collect();
    Some(Section {
        id: "teams".into(),
        title: "Teams".into(),
        text: {
            let mut text = vec![match report.public {
                true => "Each team's mark and status, and how many games it lost by a \
                         failure of its own; each team has its games and failures in its \
                         own feedback."
                    .to_string(),
                false => format!(
                    "Each team's mark and status; its games, failures and illegal moves are \
                     in the tournament folder's {}/TEAM.md, \
                     and its marks.csv holds the marks for a grade book.",
                    super::marks::FEEDBACK_DIR
                ),
            }];
            if !super::marks::complete(report) {
                text.push(format!(
                    "**Unfinished league**: {} games of its schedule were played; these marks \
                     are not final (marks.csv says complete = no).",
                    report.games
                ));
            }
            text
        },
        tables: vec![Table {
            id: "teams".into(),
            caption: "Teams".into(),
            columns: {
                let names = [
                    "team", "mark", "games", "failures", "illegal", "blocked", "status",
                ];
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

/// A section per team of a round robin (after the Teams table): its mark, record and
/// status, and its failures, as its feedback file gives them at length.
pub(super) fn team_sections(report: &Report, results: &[TeamResult]) -> Vec<Section> {
    if report.plan.format != "round_robin" {
        return Vec::new();
    }
    let total = report.table.rows.len();
    results
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut text = Vec::new();
            match (
                &r.left_out,
                report.table.rows.iter().find(|s| s.bot == r.team),
            ) {
                (Some(reason), _) => text.push(format!(
                    "Mark 0.00 of 20: its entry `{}` was left out ({reason}); no game was played.",
                    r.entry
                )),
                (None, Some(s)) => {
                    text.push(format!(
                        "Mark {} of 20, rank {} of {total}: {} in {} ({} won, {} tied, {} \
                         lost).",
                        match r.marked {
                            true => fixed(r.mark, 2, false),
                            false => "– (non-scoring)".into(),
                        },
                        s.rank,
                        count(s.points, "point", "points"),
                        count(s.games as f64, "game", "games"),
                        s.wins,
                        s.ties,
                        s.losses
                    ));
                    text.push(format!("Status: {}.", r.status()));
                    text.push(format!(
                        "{} the rules refused; {} (no legal move at all).",
                        count(r.illegal as f64, "illegal move", "illegal moves"),
                        count(r.blocked as f64, "blocked turn", "blocked turns")
                    ));
                }
                (None, None) if r.missing => text.push(
                    "Mark 0.00 of 20: a team of the roster with no submission in the folder \
                     the league was run on."
                        .to_string(),
                ),
                (None, None) => {}
            }
            let tables = match r.failures.is_empty() {
                true => Vec::new(),
                false => vec![Table {
                    id: format!("team-{}", i + 1),
                    caption: format!("Failures of {}", r.team),
                    columns: {
                        let mut cols = columns(&["game", "role", "opponent", "what happened"], 4);
                        cols[0].1 = Align::Right;
                        cols
                    },
                    rows: r
                        .failures
                        .iter()
                        .map(|f| {
                            vec![
                                f.game.to_string(),
                                f.role.clone(),
                                f.opponent.clone(),
                                f.words.clone(),
                            ]
                        })
                        .collect(),
                }],
            };
            Section {
                id: format!("team-{}", i + 1),
                title: team_title(&r.team),
                text,
                tables,
                notes: Vec::new(),
                plot: None,
            }
        })
        .collect()
}

/// A team's heading: `Team 7` for a team named `7`, but a name that already says it is a
/// team (`Team03`, `team-ai`) as it is, not `Team Team03`.
fn team_title(team: &str) -> String {
    if team.to_lowercase().starts_with("team") {
        team.to_string()
    } else {
        format!("Team {team}")
    }
}

#[cfg(test)]
mod tests {
    use super::team_title;

    #[test]
    fn a_team_named_team03_is_not_titled_team_team03() {
        assert_eq!(team_title("Team03"), "Team03");
        assert_eq!(team_title("team_b"), "team_b");
        assert_eq!(team_title("07"), "Team 07");
    }
}
