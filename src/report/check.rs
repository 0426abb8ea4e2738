//! The preflight check's table: one line per bot with its status, start-up and first-move
//! times, and the first lines of what went wrong.

use crate::tournament::preflight::CheckRow;
use std::time::Duration;

/// Lines of a bot's error shown in the table.
const ERROR_LINES: usize = 3;

fn ms(d: Option<Duration>) -> String {
    d.map(|d| format!("{}", d.as_millis()))
        .unwrap_or_else(|| "-".into())
}

/// The check table; `roles` name the two move columns.
pub fn check_table(roles: [&str; 2], rows: &[CheckRow]) -> comfy_table::Table {
    let mut t = comfy_table::Table::new();
    t.load_style(comfy_table::presets::UTF8_FULL_CONDENSED);
    t.set_header(vec![
        "bot".to_string(),
        "status".into(),
        "start-up ms".into(),
        format!("{} move ms", roles[0]),
        format!("{} move ms", roles[1]),
        "error".into(),
    ]);
    for r in rows {
        let error: Vec<&str> = r
            .error
            .lines()
            .filter(|l| !l.trim().is_empty())
            .take(ERROR_LINES)
            .collect();
        // Cells hold what bots said: escaped here, so the table's columns are measured on
        // what the terminal will show.
        t.add_row(vec![
            crate::untrusted::text::terminal(&r.name).into_owned(),
            r.status.label().to_string(),
            ms(r.startup),
            ms(r.moves[0]),
            ms(r.moves[1]),
            crate::untrusted::text::terminal(&error.join("\n")).into_owned(),
        ]);
    }
    for i in 2..5 {
        if let Some(col) = t.column_mut(i) {
            col.set_cell_alignment(comfy_table::CellAlignment::Right);
        }
    }
    t
}
