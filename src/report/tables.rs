//! The report's content as sections of plain tables and sentences, in no markup yet:
//! report.md, report.tex and index.html each render these same sections, so the three say
//! the same thing in the same order.

use super::model::{Report, too_few_to_tell};
use super::numbers::{fixed, num};

use super::section::columns;
pub(crate) use super::section::{Align, Section, Table};

/// The report's title.
pub(crate) fn title(report: &Report) -> String {
    format!(
        "{}: {} of {} bots",
        report.plan.game,
        format_name(&report.plan.format),
        report.bots.len()
    )
}

fn format_name(format: &str) -> &str {
    match format {
        "round_robin" => "round robin",
        "gauntlet" => "gauntlet",
        "sprt" => "SPRT",
        other => other,
    }
}

/// Every section, in the report's order.
pub(crate) fn sections(report: &Report) -> Vec<Section> {
    // An SPRT is run for its verdict: the report opens with it.
    let mut sections: Vec<Section> = super::sprt_section::sprt(report).into_iter().collect();
    sections.push(standings(report));
    sections.extend(head_to_head(report));
    // Every team's failures, found once for the sections that show them.
    let mut teams = super::marks::team_results(report);
    // By rank; teams with none (left out, no submission) after them by name.
    teams.sort_by(|a, b| {
        (a.rank.is_none(), a.rank, a.team.to_lowercase()).cmp(&(
            b.rank.is_none(),
            b.rank,
            b.team.to_lowercase(),
        ))
    });
    // The sections that quote errors and entries are the teacher's alone.
    if !report.public {
        sections.extend(super::teams::problems(report, &teams));
    }
    sections.extend(super::teams::teams(report, &teams));
    sections.extend(super::versions::section(&report.versions));
    sections.extend([matrix(report), roles(report), endings(report)]);
    if !report.public {
        sections.extend(super::teams::team_sections(report, &teams));
    }
    sections.push(settings(report));
    sections
}

/// `wins/games` and the rate, e.g. `3/4 (75%)`.
fn share(wins: u32, games: u32) -> String {
    if games == 0 {
        "0/0".into()
    } else {
        format!(
            "{wins}/{games} ({})",
            super::numbers::percent(wins as f64 / games as f64)
        )
    }
}

fn standings(report: &Report) -> Section {
    let roles = report.role_names();
    let marks = report.marks();
    let mut names: Vec<&str> = [
        "#", "bot", "games", "W", "L", "T", "points", "mark", "Elo", "95% CI",
    ]
    .into_iter()
    .filter(|&c| marks || c != "mark")
    .collect();
    let role_columns: Vec<String> = roles.iter().map(|r| format!("W as {r}")).collect();
    names.extend(role_columns.iter().map(String::as_str));
    names.extend(["illegal", "blocked", "timeouts", "errors"]);
    let mut cols = columns(&names, 2);
    cols[0].1 = Align::Right;
    let left_out = report.plan.left_out.iter().map(|l| {
        names
            .iter()
            .map(|column| match *column {
                "#" | "Elo" => "–".to_string(),
                "bot" => l.name.clone(),
                "mark" => "0.00".into(),
                "95% CI" => "left out".into(),
                c if c.starts_with("W as") => "–".into(),
                _ => "0".into(),
            })
            .collect::<Vec<_>>()
    });
    let rows = report
        .table
        .rows
        .iter()
        .map(|s| {
            let mut row = vec![
                s.rank.to_string(),
                s.bot.clone(),
                s.games.to_string(),
                s.wins.to_string(),
                s.losses.to_string(),
                s.ties.to_string(),
                num(s.points),
            ];
            if marks {
                row.push(s.mark.map_or_else(|| "–".into(), |m| fixed(m, 2, false)));
            }
            row.extend([
                fixed(s.elo, 0, true),
                format!(
                    "[{}, {}]",
                    fixed(s.elo_low, 0, true),
                    fixed(s.elo_high, 0, true)
                ),
            ]);
            row.extend(s.by_role.iter().map(|&(g, w)| share(w, g)));
            row.extend(
                [s.illegal_moves, s.blocked_turns, s.timeouts, s.errors].map(|n| n.to_string()),
            );
            row
        })
        .chain(left_out)
        .collect();
    let (shown, of) = (report.distinct.distinct, report.distinct.pairs);
    let played = super::numbers::count(report.games as f64, "game", "games");
    let mut text = vec![if of == 0 {
        // A league stopped before any pairing played its second game, roles swapped.
        format!("{played} played; no role-swapped pair has both its games yet.")
    } else {
        format!("{played} played; {shown} of {of} role-swapped pairs were distinct games.")
    }];
    if shown < of {
        text.push(format!(
            "{} pairs replayed an earlier pair move for move: they are no new evidence.",
            of - shown
        ));
    }
    text.push(machine_sentence(&report.machine));
    if report.uncounted > 0 {
        text.push(format!(
            "{} more games finished after the test's last counted pair (while the run was \
             stopping): they are in the journal, not in these tables.",
            report.uncounted
        ));
    }
    let mark = if marks {
        " Mark: 20 × points / the best scoring bot's points."
    } else {
        ""
    };
    let mut notes = vec![format!(
        "Ranked by points per game.{mark} Elo: {}, 95% intervals; the {} role's fitted \
         advantage is {} ± {} Elo.",
        report.elo_reference(),
        roles[0],
        fixed(report.table.role_advantage, 1, true),
        fixed(report.table.role_advantage_error, 1, false)
    )];
    notes.push(
        "Likelihood of superiority: the chance that the row's bot is the stronger of the two, \
         from their games against each other, draws ignored: \
         LOS = (1 + erf((W − L) / √(2 (W + L)))) / 2; – where they did not meet."
            .into(),
    );
    if marks && !report.non_scoring.is_empty() {
        notes.push(format!(
            "Marks leave out the non-scoring {}: 20 goes to the best of the others.",
            report.non_scoring.join(", ")
        ));
    }
    notes.push(
        "Illegal: replies the rules refused; blocked: turns with no legal move at all, whose \
         every reply is illegal (the course counts both as illegal moves); timeouts and \
         errors: games lost by running out of time or by the bot's own failure."
            .into(),
    );
    if !report.plan.left_out.is_empty() {
        notes.push(format!(
            "{} entr{} of the submissions left out (no games, mark 0){}.",
            report.plan.left_out.len(),
            if report.plan.left_out.len() == 1 {
                "y was"
            } else {
                "ies were"
            },
            if report.public { "" } else { ": see Problems" }
        ));
    }
    Section {
        id: "standings".into(),
        title: "Standings".into(),
        text,
        tables: vec![
            Table {
                id: "standings".into(),
                caption: "Standings".into(),
                columns: cols,
                rows,
            },
            los_matrix(report),
        ],
        notes,
        plot: Some("elo.svg"),
    }
}

/// The likelihood of superiority of each bot over each other, in the standings' order.
fn los_matrix(report: &Report) -> Table {
    let order = report.ranked();
    let mut columns = vec![("LOS %".to_string(), Align::Left)];
    columns.extend(
        order
            .iter()
            .map(|&j| (report.bots[j].clone(), Align::Right)),
    );
    let rows = order
        .iter()
        .map(|&i| {
            let mut row = vec![report.bots[i].clone()];
            row.extend(order.iter().map(|&j| {
                report
                    .los(i, j)
                    .map_or_else(|| "–".into(), |los| fixed(100.0 * los, 1, false))
            }));
            row
        })
        .collect();
    Table {
        id: "los".into(),
        caption: "Likelihood of superiority (%) of the row's bot over the column's".into(),
        columns,
        rows,
    }
}

/// A gauntlet's candidate against each baseline: score, Elo difference, LOS, and whether
/// the difference means anything.
fn head_to_head(report: &Report) -> Option<Section> {
    let pairings = report.head_to_head();
    let candidate = pairings.first()?.bot.clone();
    let rows = pairings
        .iter()
        .map(|p| {
            let s = &p.stats;
            vec![
                p.opponent.clone(),
                s.games.to_string(),
                format!("{}-{}-{}", s.wins, s.ties, s.losses),
                format!("{}%", fixed(100.0 * s.score, 1, false)),
                fixed(s.elo, 0, true),
                format!(
                    "[{}, {}]",
                    fixed(s.elo - s.elo_error, 0, true),
                    fixed(s.elo + s.elo_error, 0, true)
                ),
                format!("{}%", fixed(100.0 * s.los, 1, false)),
                too_few_to_tell(s).unwrap_or_default(),
            ]
        })
        .collect();
    Some(Section {
        id: "head-to-head".into(),
        title: "Head to head".into(),
        text: vec![format!(
            "{candidate} against each baseline, from {candidate}'s side: wins-draws-losses, \
             score, the Elo difference that score implies with its 95% interval, and the \
             likelihood of superiority (LOS, draws ignored)."
        )],
        tables: vec![Table {
            id: "head-to-head".into(),
            caption: format!("{candidate} against each baseline"),
            columns: {
                let mut cols = columns(
                    &[
                        "baseline", "games", "W-D-L", "score", "Elo", "95% CI", "LOS", "note",
                    ],
                    1,
                );
                // The note is a sentence: left-aligned, so that it wraps as text does.
                cols[7].1 = Align::Left;
                cols
            },
            rows,
        }],
        notes: vec![format!(
            "A difference from fewer than {} decisive games, from a score of 0% or 100%, or \
             with an interval wider than ±{} Elo says nothing about who is stronger: its \
             line says so.",
            crate::stats::elo::MIN_DECISIVE,
            num(crate::stats::elo::MAX_HALF_WIDTH)
        )],
        plot: None,
    })
}

fn matrix(report: &Report) -> Section {
    let order = report.ranked();
    let mut cols = vec![(String::new(), Align::Left)];
    cols.extend(
        order
            .iter()
            .map(|&j| (report.bots[j].clone(), Align::Right)),
    );
    let rows = order
        .iter()
        .map(|&i| {
            let mut row = vec![report.bots[i].clone()];
            row.extend(order.iter().map(|&j| {
                if report.met[i][j] == 0 {
                    "–".to_string()
                } else {
                    num(report.points[i][j])
                }
            }));
            row
        })
        .collect();
    let points = |x: f64| super::numbers::count(x, "point", "points");
    Section {
        id: "matrix".into(),
        title: "Points matrix".into(),
        text: vec![format!(
            "The points the row's bot scored against the column's bot (a win {}, a tie {}); \
             – where they did not meet.",
            points(report.plan.points_win),
            points(report.plan.points_tie)
        )],
        tables: vec![Table {
            id: "matrix".into(),
            caption: "Points scored by the row's bot against the column's".into(),
            columns: cols,
            rows,
        }],
        notes: Vec::new(),
        plot: Some("points_matrix.svg"),
    }
}

fn roles(report: &Report) -> Section {
    let roles = report.role_names();
    let overall = Table {
        id: "roles".into(),
        caption: "Results by role".into(),
        columns: columns(&["role", "games", "wins", "ties", "losses"], 1),
        rows: report
            .roles
            .iter()
            .map(|r| {
                vec![
                    r.role.clone(),
                    r.games.to_string(),
                    share(r.wins, r.games),
                    r.ties.to_string(),
                    (r.games - r.wins - r.ties).to_string(),
                ]
            })
            .collect(),
    };
    let names: Vec<String> = ["bot".to_string()]
        .into_iter()
        .chain(roles.iter().map(|r| format!("wins as {r}")))
        .collect();
    let by_bot = Table {
        id: "roles-by-bot".into(),
        caption: "Wins by role, per bot".into(),
        columns: columns(&names.iter().map(String::as_str).collect::<Vec<_>>(), 1),
        rows: report
            .table
            .rows
            .iter()
            .map(|s| {
                let mut row = vec![s.bot.clone()];
                row.extend(s.by_role.iter().map(|&(g, w)| share(w, g)));
                row
            })
            .collect(),
    };
    Section {
        id: "roles".into(),
        title: "Results by role".into(),
        text: vec![format!(
            "How often each role won, over all games and for each bot ({} moves first).",
            roles[0]
        )],
        tables: vec![overall, by_bot],
        notes: Vec::new(),
        plot: Some("roles.svg"),
    }
}

fn endings(report: &Report) -> Section {
    let roles = report.role_names();
    let names: Vec<String> = ["ending".to_string(), "games".to_string()]
        .into_iter()
        .chain(roles.iter().map(|r| format!("{r} wins")))
        .chain(["ties", "rounds min", "median", "mean", "max"].map(String::from))
        .collect();
    let rows = report
        .endings
        .iter()
        .map(|e| {
            vec![
                e.reason.clone(),
                e.games().to_string(),
                e.wins[0].to_string(),
                e.wins[1].to_string(),
                e.ties.to_string(),
                e.min().to_string(),
                num(e.median()),
                fixed(e.mean(), 1, false),
                e.max().to_string(),
            ]
        })
        .collect();
    Section {
        id: "endings".into(),
        title: "Game lengths and endings".into(),
        text: vec!["How the games ended, and how many rounds they lasted.".into()],
        tables: vec![Table {
            id: "endings".into(),
            caption: "Endings and game lengths (rounds)".into(),
            columns: columns(&names.iter().map(String::as_str).collect::<Vec<_>>(), 1),
            rows,
        }],
        notes: Vec::new(),
        plot: Some("lengths.svg"),
    }
}

fn settings(report: &Report) -> Section {
    let plan = report.plan;
    let ms = |v: Option<u64>| v.map_or_else(|| "not recorded".into(), |v| format!("{v} ms"));
    let pairs = match plan.format.as_str() {
        "round_robin" => format!("{} per pairing", plan.pairs),
        "gauntlet" => format!("{} per baseline", plan.pairs),
        _ => format!("at most {}", plan.pairs),
    };
    let rules = if plan.rules.is_empty() {
        "the game's own".to_string()
    } else {
        plan.rules
            .iter()
            .map(|(k, v)| match v {
                serde_json::Value::String(s) => format!("{k} = {s}"),
                v => format!("{k} = {v}"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let openings = match &plan.openings {
        None => "the standard start".to_string(),
        Some(o) => match (o.random_plies, &o.book_sha256) {
            (Some(n), _) => format!("{n} random plies per pair"),
            (None, Some(sha)) => format!(
                "a book of {} lines, {} order (SHA-256 {})",
                o.book_lines.unwrap_or(0),
                o.order.as_deref().unwrap_or("sequential"),
                short_digest(sha)
            ),
            (None, None) => "the standard start".to_string(),
        },
    };
    let rows = vec![
        vec!["game".into(), plan.game.clone()],
        vec!["format".into(), format_name(&plan.format).to_string()],
        vec!["roles".into(), plan.roles.join(", ")],
        vec!["role-swapped pairs".into(), pairs],
        vec!["seed".into(), plan.seed.to_string()],
        vec!["move limit".into(), ms(plan.limit_ms)],
        vec!["start-up limit".into(), ms(plan.init_limit_ms)],
        vec![
            "points".into(),
            format!(
                "win {}, tie {}, loss 0",
                num(plan.points_win),
                num(plan.points_tie)
            ),
        ],
        vec!["rules".into(), rules],
        vec!["openings".into(), openings],
        vec!["confinement".into(), confinement(plan)],
        vec!["Elo".into(), report.elo_reference()],
    ];
    let marks = report.marks();
    let bots = Table {
        id: "bots".into(),
        caption: "The bots".into(),
        columns: columns(
            &["bot", "spec", "marked", "files (SHA-256)"]
                .into_iter()
                .filter(|&c| marks || c != "marked")
                // A spec is a path of the teacher's, naming a student's download.
                .filter(|&c| !report.public || c != "spec")
                .collect::<Vec<_>>(),
            4,
        ),
        // In the standings' order, as every other table.
        rows: report
            .ranked()
            .into_iter()
            .filter_map(|i| plan.bots.iter().find(|b| b.name == report.bots[i]))
            .map(|b| {
                let mut row = vec![b.name.clone()];
                if !report.public {
                    // The spec, and the file of its folder or zip that played.
                    row.push(b.played());
                }
                if marks {
                    row.push(if report.non_scoring.contains(&b.name) {
                        "no".into()
                    } else {
                        "yes".into()
                    });
                }
                row.push(b.digest.as_deref().map_or("–".into(), short_digest));
                row
            })
            .collect(),
    };
    Section {
        id: "settings".into(),
        title: "Settings".into(),
        text: vec!["Every setting that can change a result, as the journal records it.".into()],
        tables: vec![
            Table {
                id: "settings".into(),
                caption: "Settings".into(),
                columns: columns(&["setting", "value"], 2),
                rows,
            },
            bots,
        ],
        notes: Vec::new(),
        plot: None,
    }
}

/// The first 12 hex digits: enough to tell two versions of a bot apart.
fn short_digest(sha: &str) -> String {
    sha.chars().take(12).collect()
}

/// How the run's bot programs were confined, as its plan records it.
fn confinement(plan: &crate::tournament::journal::Plan) -> String {
    let mut levels: Vec<&str> = plan
        .bots
        .iter()
        .filter_map(|b| b.sandbox.as_deref())
        .collect();
    levels.sort();
    levels.dedup();
    let named: Vec<String> = levels
        .iter()
        .map(|level| match *level {
            "namespaces" => "namespaces (level 1)".to_string(),
            "landlock" => "Landlock and seccomp (level 2: no pid isolation)".to_string(),
            "none" => "none: bots ran as the user".to_string(),
            "user" => "a uid per bot (--sandbox user)".to_string(),
            other => other.to_string(),
        })
        .collect();
    if named.is_empty() {
        "built-in bots only".to_string()
    } else {
        named.join("; ")
    }
}

/// What the machine's load did to the games, as a sentence of the report.
fn machine_sentence(machine: &crate::tournament::tally::MachineTotals) -> String {
    let mut line = machine.line();
    // `machine load: ...` as a sentence.
    line.replace_range(..1, "M");
    line.push('.');
    line
}
