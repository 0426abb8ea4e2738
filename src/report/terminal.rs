//! What a run prints on the terminal: a line per game and the standings table.

use super::model::{Report, too_few_to_tell};
use super::numbers::{fixed, num};
use crate::record::GameSummary;
use crate::stats::league::{Pairing, Standing};

/// One line saying who played which role, who won, how, when, and why if a bot failed:
/// what `play` prints and what a tournament prints as each game ends.
pub fn game_line(g: &GameSummary) -> String {
    let verdict = match g.winner {
        Some(w) => format!("{} ({}) wins", g.roles[w], g.players[w]),
        None if g.both_lost() => "both lose".to_string(),
        None => "tie".to_string(),
    };
    let detail = if g.detail.is_empty() {
        String::new()
    } else {
        format!("; {}", g.detail)
    };
    let illegal = |seat: usize| {
        let real = g.refused(seat);
        match g.blocked[seat] {
            0 => format!("{} {real}", g.roles[seat]),
            blocked => format!("{} {real} (+{blocked} blocked turns)", g.roles[seat]),
        }
    };
    let machine = match (g.machine.replays, g.machine.waited) {
        (0, 0) => String::new(),
        (0, w) => format!("; {w} late moves timed without their wait for a CPU"),
        (r, 0) => format!("; played again {r}x (machine load)"),
        (r, w) => format!(
            "; played again {r}x (machine load); {w} late moves timed without their wait for a CPU"
        ),
    };
    format!(
        "{} {} vs {} {}: {verdict} by {} after {} rounds; illegal moves: {}, {}{detail}{machine}",
        g.roles[0],
        g.players[0],
        g.roles[1],
        g.players[1],
        g.reason,
        g.rounds,
        illegal(0),
        illegal(1)
    )
}

/// What a finished tournament shows on the terminal: the standings (with the marks in a
/// league only), the fitted role advantage below them, and for a gauntlet one
/// head-to-head line per baseline.
pub(crate) fn results_text(report: &Report) -> String {
    let table = &report.table;
    let roles = &report.plan.roles;
    let unmarked: Vec<&str> = table
        .rows
        .iter()
        .filter(|s| s.mark.is_none())
        .map(|s| s.bot.as_str())
        .collect();
    let note = if unmarked.is_empty() || !report.marks() {
        String::new()
    } else {
        format!(
            "\nMarks leave out the non-scoring {}: 20 goes to the best of the others.",
            unmarked.join(", ")
        )
    };
    let mut text = format!(
        "{}\nElo: {}, 95% intervals; fitted advantage of the {} role: {} ± {}{note}",
        standings_table(roles, &table.rows, report.marks()),
        report.elo_reference(),
        roles.first().map(String::as_str).unwrap_or("first"),
        fixed(table.role_advantage, 1, true),
        fixed(table.role_advantage_error, 1, false)
    );
    let lines = report.head_to_head();
    if !lines.is_empty() {
        text.push_str("\nHead to head (candidate's W-D-L and score, Elo difference with its 95% interval, likelihood of superiority):");
        for p in lines {
            text.push('\n');
            text.push_str(&head_to_head_line(p));
        }
    }
    text
}

/// `A vs B: 10-2-4 (68.8%), Elo +136 [+40, +232], LOS 99.0%`, with the words that say when
/// the difference means nothing.
pub(crate) fn head_to_head_line(p: &Pairing) -> String {
    let s = &p.stats;
    let mut line = format!(
        "{} vs {}: {}-{}-{} ({}%), Elo {} [{}, {}], LOS {}%",
        crate::untrusted::text::terminal(&p.bot),
        crate::untrusted::text::terminal(&p.opponent),
        s.wins,
        s.ties,
        s.losses,
        fixed(100.0 * s.score, 1, false),
        fixed(s.elo, 0, true),
        fixed(s.elo - s.elo_error, 0, true),
        fixed(s.elo + s.elo_error, 0, true),
        fixed(100.0 * s.los, 1, false)
    );
    if let Some(words) = too_few_to_tell(s) {
        line.push_str(": ");
        line.push_str(&words);
    }
    line
}

/// The standings as a terminal table, with the course marks when `marks`.
pub(crate) fn standings_table(
    roles: &[String],
    table: &[Standing],
    marks: bool,
) -> comfy_table::Table {
    let mut t = comfy_table::Table::new();
    t.load_style(comfy_table::presets::UTF8_FULL_CONDENSED);
    let mut header: Vec<String> = [
        "#", "bot", "games", "W", "L", "T", "points", "pts/game", "mark", "Elo", "95% CI",
    ]
    .into_iter()
    .filter(|&c| marks || c != "mark")
    .map(String::from)
    .collect();
    header.extend(roles.iter().map(|r| format!("W as {r}")));
    header.extend(["illegal", "timeouts", "errors", "blocked"].map(String::from));
    t.set_header(header);
    for s in table {
        let mut row = vec![
            s.rank.to_string(),
            // A bot's name may be a folder's: shown escaped, and measured as shown.
            crate::untrusted::text::terminal(&s.bot).into_owned(),
            s.games.to_string(),
            s.wins.to_string(),
            s.losses.to_string(),
            s.ties.to_string(),
            num(s.points),
            fixed(s.rate, 3, false),
        ];
        if marks {
            row.push(
                s.mark
                    .map(|m| fixed(m, 2, false))
                    .unwrap_or_else(|| "-".into()),
            );
        }
        row.extend([
            fixed(s.elo, 0, true),
            format!(
                "[{}, {}]",
                fixed(s.elo_low, 0, true),
                fixed(s.elo_high, 0, true)
            ),
        ]);
        row.extend(s.by_role.iter().map(|(g, w)| format!("{w}/{g}")));
        row.extend([s.illegal_moves, s.timeouts, s.errors, s.blocked_turns].map(|n| n.to_string()));
        t.add_row(row);
    }
    let fixed_columns = if marks { 11 } else { 10 };
    let failure_columns = fixed_columns + roles.len()..fixed_columns + 4 + roles.len();
    for i in (2..fixed_columns - 1).chain(failure_columns) {
        if let Some(col) = t.column_mut(i) {
            col.set_cell_alignment(comfy_table::CellAlignment::Right);
        }
    }
    t
}

/// The entries of the submissions folders that are not bots, as a table of their own rows
/// below the standings (no games, mark 0, the reason); `None` when there are none.
pub fn left_out_text(left_out: &[crate::tournament::journal::LeftOut]) -> Option<String> {
    if left_out.is_empty() {
        return None;
    }
    let mut t = comfy_table::Table::new();
    t.load_style(comfy_table::presets::UTF8_FULL_CONDENSED);
    t.set_header(["bot", "games", "mark", "left out because"]);
    for l in left_out {
        t.add_row([
            crate::untrusted::text::terminal(&l.name).into_owned(),
            "0".into(),
            "0.00".into(),
            crate::untrusted::text::terminal(&format!("{}: {}", l.entry, l.reason)).into_owned(),
        ]);
    }
    Some(format!(
        "Left out: {} entr{} of the submissions, no games, mark 0:\n{t}",
        left_out.len(),
        if left_out.len() == 1 { "y" } else { "ies" }
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::stats::elo::pair_stats;

    fn pairing(wins: u32, ties: u32, losses: u32) -> Pairing {
        Pairing {
            bot: "new".into(),
            opponent: "greedy".into(),
            points: 0.0,
            stats: pair_stats(wins, ties, losses),
        }
    }

    #[test]
    fn a_head_to_head_line_reads_as_the_readme_shows_it() {
        assert_eq!(
            head_to_head_line(&pairing(14, 2, 4)),
            "new vs greedy: 14-2-4 (75.0%), Elo +191 [+27, +355], LOS 99.1%"
        );
    }

    #[test]
    fn a_head_to_head_line_says_when_it_cannot_tell() {
        let line = head_to_head_line(&pairing(3, 0, 0));
        assert!(
            line.ends_with(
                ": too few games to tell (3 decisive games); rerun with about --pairs 5 to play on"
            ),
            "{line}"
        );
        let line = head_to_head_line(&pairing(0, 0, 20));
        assert!(
            line.contains("0.0%") && line.contains("no finite Elo"),
            "{line}"
        );
        // A sweep over 20 games (10 pairs) is no Elo however long: twice the pairs.
        assert!(line.ends_with("about --pairs 20 to play on"), "{line}");
        assert!(!line.contains("-0 ") && !line.contains("-0.0"), "{line}");
    }
}
