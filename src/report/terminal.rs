//! What a run prints on the terminal: a line per game and the standings table.

use super::numbers::{fixed, num};
use crate::record::GameSummary;
use crate::stats::league::{LeagueTable, Standing};

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
        let real = g.illegal[seat].saturating_sub(g.blocked[seat]);
        match g.blocked[seat] {
            0 => format!("{} {real}", g.roles[seat]),
            blocked => format!("{} {real} (+{blocked} blocked turns)", g.roles[seat]),
        }
    };
    format!(
        "{} {} vs {} {}: {verdict} by {} after {} rounds; illegal moves: {}, {}{detail}",
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

/// The standings as a terminal table, with the fitted role advantage below it.
pub fn standings_text(roles: &[String], table: &LeagueTable) -> String {
    let unmarked: Vec<&str> = table
        .rows
        .iter()
        .filter(|s| s.mark.is_none())
        .map(|s| s.bot.as_str())
        .collect();
    let note = if unmarked.is_empty() {
        String::new()
    } else {
        format!(
            "\nMarks leave out the non-scoring {}: 20 goes to the best of the others.",
            unmarked.join(", ")
        )
    };
    format!(
        "{}\nElo: mean 0, 95% intervals; fitted advantage of the {} role: {} ± {}{note}",
        standings_table(roles, &table.rows),
        roles.first().map(String::as_str).unwrap_or("first"),
        fixed(table.role_advantage, 1, true),
        fixed(table.role_advantage_error, 1, false)
    )
}

/// The standings as a terminal table.
pub fn standings_table(roles: &[String], table: &[Standing]) -> comfy_table::Table {
    let mut t = comfy_table::Table::new();
    t.load_style(comfy_table::presets::UTF8_FULL_CONDENSED);
    let mut header: Vec<String> = [
        "#", "bot", "games", "W", "L", "T", "points", "pts/game", "mark", "Elo", "95% CI",
    ]
    .map(String::from)
    .to_vec();
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
            s.mark
                .map(|m| fixed(m, 2, false))
                .unwrap_or_else(|| "-".into()),
            fixed(s.elo, 0, true),
            format!(
                "[{}, {}]",
                fixed(s.elo_low, 0, true),
                fixed(s.elo_high, 0, true)
            ),
        ];
        row.extend(s.by_role.iter().map(|(g, w)| format!("{w}/{g}")));
        row.extend(
            [s.illegal_moves, s.timeouts, s.errors, s.blocked_turns].map(|n| n.to_string()),
        );
        t.add_row(row);
    }
    let failure_columns = 11 + roles.len()..15 + roles.len();
    for i in (2..10).chain(failure_columns) {
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
