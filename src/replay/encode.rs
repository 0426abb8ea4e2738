//! One game's line of the replays' files: its first view, then per ply what changed.

use super::*;

/// Whether two cells are drawn alike: a game's kinds are a few static names, so most
/// cells compare by address, and most labels are empty.
fn same_cell(a: &crate::games::view::Cell, b: &crate::games::view::Cell) -> bool {
    (std::ptr::eq(a.kind, b.kind) || a.kind == b.kind)
        && a.label.len() == b.label.len()
        && (a.label.is_empty() || a.label == b.label)
}

/// One game's replay as the page decodes it when the game is opened:
/// `[cols, cells, strings, start cells, start caption, plies, error]`. `cells` lists the
/// distinct `[kind, label]` cells, `strings` the captions, roles, verdicts and reasons;
/// the start is a cell index per grid cell. Each ply is `[role, reply, verdict, reason,
/// time_ms, caption, changes]`, `changes` being `[grid cell, cell, ...]` pairs, or
/// `{"cols", "cells"}` when the grid itself changed shape. A game that does not replay has
/// `null` cells and its error as `[ply, message]`.
pub(crate) fn encode_game<G: Game>(game: &G, record: &GameRecord) -> String {
    let mut encoder = Encoder::default();
    // The start, and the position before the ply being encoded: no more is kept.
    let mut start: Option<(usize, String, usize)> = None;
    let mut before: Option<BoardView> = None;
    let replayed = replay_each(game, record, |ply, after| {
        match (ply, &before) {
            (Some(ply), Some(before)) => {
                let changes = encoder.changes(before, &after);
                let caption = encoder.strings.id(&after.caption) as i64;
                encoder.ply(ply, caption, &changes);
            }
            _ => {
                let cells: Vec<usize> = after.cells.iter().map(|c| encoder.cell_id(c)).collect();
                let caption = encoder.strings.id(&after.caption);
                start = Some((after.cols, numbers(&cells), caption));
            }
        }
        before = Some(after);
    });
    match (replayed, start) {
        (Ok(()), Some((cols, cells, caption))) => {
            encoder.finish(cols, &cells, caption as i64, "null")
        }
        (result, _) => {
            let e = result.err().unwrap_or_else(|| ReplayError {
                ply: 0,
                message: "no start position".into(),
            });
            // The moves as recorded, from a fresh table of strings.
            let mut encoder = Encoder::default();
            for m in &record.moves {
                let ply = PlyOf {
                    side: &m.side,
                    reply: &m.reply,
                    verdict: &m.verdict,
                    reason: m.reason.as_deref(),
                    time_ms: Some(m.time_ms),
                };
                encoder.ply(ply, -1, "[]");
            }
            let error = format!("[{},{}]", e.ply, json_string(&e.message));
            encoder.finish(0, "null", -1, &error)
        }
    }
}

/// A game's line being written: its distinct cells and strings, and its plies so far.
#[derive(Default)]
struct Encoder {
    /// A game draws a handful of distinct cells: a short list searched in order beats a
    /// map with a key built per lookup.
    cells: Vec<crate::games::view::Cell>,
    strings: Strings,
    plies: String,
    scratch: Vec<u8>,
    flat: Vec<usize>,
}

impl Encoder {
    fn cell_id(&mut self, c: &crate::games::view::Cell) -> usize {
        match self.cells.iter().position(|known| same_cell(known, c)) {
            Some(i) => i,
            None => {
                self.cells.push(c.clone());
                self.cells.len() - 1
            }
        }
    }

    /// The cells that differ from `before` to `after`, as `[grid cell, cell, ...]`, or the
    /// whole grid when its shape changed.
    fn changes(&mut self, before: &BoardView, after: &BoardView) -> String {
        if (before.rows, before.cols) == (after.rows, after.cols) {
            let mut flat = std::mem::take(&mut self.flat);
            flat.clear();
            for (i, (a, b)) in before.cells.iter().zip(&after.cells).enumerate() {
                if !same_cell(a, b) {
                    flat.push(i);
                    flat.push(self.cell_id(b));
                }
            }
            let text = numbers(&flat);
            self.flat = flat;
            text
        } else {
            let all: Vec<usize> = after.cells.iter().map(|c| self.cell_id(c)).collect();
            format!("{{\"cells\":{},\"cols\":{}}}", numbers(&all), after.cols)
        }
    }

    fn ply(&mut self, ply: PlyOf<'_>, caption: i64, changes: &str) {
        use std::fmt::Write;
        let plies = &mut self.plies;
        plies.push(if plies.is_empty() { '[' } else { ',' });
        // In this order, as the tables have always listed them.
        let side = self.strings.id(ply.side);
        let verdict = self.strings.id(ply.verdict);
        let reason = ply.reason.map_or(-1, |r| self.strings.id(r) as i64);
        // Writing into memory cannot fail.
        let _ = write!(plies, "[{side},");
        self.scratch.clear();
        serde_json::to_writer(&mut self.scratch, ply.reply).expect("a reply always serializes");
        let reply = String::from_utf8_lossy(&self.scratch);
        if reply.chars().count() > REPLY_CHARS {
            let cut: String = reply.chars().take(REPLY_CHARS).collect();
            plies.push_str(&json_string(&format!("{cut}…")));
        } else {
            plies.push_str(&reply);
        }
        let _ = write!(plies, ",{verdict},{reason},");
        self.scratch.clear();
        // serde_json writes the time as the page always had it (`12.0`, `null`).
        serde_json::to_writer(
            &mut self.scratch,
            &ply.time_ms.map(|t| (t * 10.0).round() / 10.0),
        )
        .expect("a number always serializes");
        plies.push_str(&String::from_utf8_lossy(&self.scratch));
        let _ = write!(plies, ",{caption},{changes}]");
    }

    fn finish(mut self, cols: usize, start: &str, caption: i64, error: &str) -> String {
        if self.plies.is_empty() {
            self.plies.push('[');
        }
        self.plies.push(']');
        let cells: Vec<String> = self
            .cells
            .iter()
            .map(|c| format!("[{},{}]", json_string(c.kind), json_string(&c.label)))
            .collect();
        let strings: Vec<String> = self
            .strings
            .strings
            .iter()
            .map(|s| json_string(s))
            .collect();
        format!(
            "[{cols},[{}],[{}],{start},{caption},{},{error}]",
            cells.join(","),
            strings.join(","),
            self.plies
        )
    }
}

/// Numbers as a JSON array.
fn numbers(list: &[usize]) -> String {
    use std::fmt::Write;
    let mut text = String::with_capacity(2 + 4 * list.len());
    text.push('[');
    for (i, n) in list.iter().enumerate() {
        if i > 0 {
            text.push(',');
        }
        // Writing into memory cannot fail.
        let _ = write!(text, "{n}");
    }
    text.push(']');
    text
}
