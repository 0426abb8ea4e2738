//! Everything a person reads or a spreadsheet loads: CSV tables, terminal tables and the
//! report folder (report.md, report.tex, plots/*.svg, index.html).
//!
//! Every file is written to a temporary sibling and renamed over the old one, so a reader
//! (or a crash) never sees half a table. Every table and plot renders one
//! [`model::Report`], computed from the journal alone.

pub mod check;
pub mod html;
pub mod latex;
pub mod markdown;
pub mod model;
pub mod plots;
pub mod replay;
pub mod tables;

use crate::error::Error;
use crate::record::GameSummary;
use crate::stats::league::{LeagueTable, Pairing, Standing};
use crate::tournament::journal::{self, Loaded, Plan};
use crate::tournament::sprt::SprtStatus;
use model::Report;
use std::path::{Path, PathBuf};

/// The report's folder inside a tournament folder, unless told otherwise.
pub const REPORT_DIR: &str = "report";

/// Writes games.csv, standings.csv, pairwise.csv and points_matrix.csv of `report` into `dir`.
pub fn write_csv_tables(dir: &Path, report: &Report) -> Result<(), Error> {
    let roles = &report.plan.roles;
    write_atomic_with(&dir.join("games.csv"), |out| {
        write_games_csv(out, roles, &report.games)
    })?;
    write_atomic(
        &dir.join("standings.csv"),
        &standings_csv(roles, &report.table.rows),
    )?;
    write_atomic(&dir.join("pairwise.csv"), &pairwise_csv(&report.pairings))?;
    write_atomic(
        &dir.join("points_matrix.csv"),
        &points_matrix_csv(&report.bots, &report.points),
    )
}

/// Writes games.csv, standings.csv, pairwise.csv and points_matrix.csv into `dir`, with the
/// marks leaving out the plan's non-scoring bots.
pub fn write_tables(dir: &Path, plan: &Plan, games: &[GameSummary]) -> Result<LeagueTable, Error> {
    write_tables_marking(dir, plan, games, &plan.non_scoring())
}

/// [`write_tables`] with the marks leaving out `non_scoring` instead of the plan's list.
pub fn write_tables_marking(
    dir: &Path,
    plan: &Plan,
    games: &[GameSummary],
    non_scoring: &[String],
) -> Result<LeagueTable, Error> {
    let report = Report::new(plan, games, non_scoring, None);
    write_csv_tables(dir, &report)?;
    Ok(report.table)
}

/// Rebuilds every table of `dir` and its report (into `report_dir`) from its journal
/// alone, which it only reads, with one computation of the results; the marks leave out
/// `non_scoring` when given, else the journal's non-scoring bots. Returns the journal as
/// loaded, the league table and the report's index.html.
pub fn rebuild_tables(
    dir: &Path,
    non_scoring: Option<&[String]>,
    report_dir: &Path,
    replays: Replays,
) -> Result<(journal::Loaded, LeagueTable, PathBuf), Error> {
    let journal_path = dir.join(journal::JOURNAL_FILE);
    let loaded = journal::load(&journal_path)?;
    let names: Vec<&str> = loaded.plan.bots.iter().map(|b| b.name.as_str()).collect();
    let listed = match non_scoring {
        Some(list) => {
            for name in list {
                check_bot_name(name, &names)?;
            }
            list.to_vec()
        }
        None => loaded.plan.non_scoring(),
    };
    let model = model_of(&loaded, &listed, &journal_path)?;
    write_csv_tables(dir, &model)?;
    let index = write_report_files(&model, &journal_path, report_dir, replays)?;
    let table = model.table.clone();
    drop(model);
    Ok((loaded, table, index))
}

/// A bot name the user gave (`--non-scoring NAME`) must be one of the tournament's.
pub fn check_bot_name(name: &str, names: &[&str]) -> Result<(), Error> {
    if names.contains(&name) {
        Ok(())
    } else {
        Err(Error::usage(format!(
            "--non-scoring {name}: no bot of that name; the bots are {}",
            names.join(", ")
        )))
    }
}

/// The most games whose replays the report written by a run (and by `arbiter table` and
/// `arbiter merge`) puts in its page: replaying a larger league takes minutes and its page
/// hundreds of megabytes, so there the page says how to have it (`arbiter report DIR`,
/// which replays every game).
pub const RUN_REPLAY_LIMIT: usize = 10_000;

/// Which games the page's game browser replays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replays {
    /// Every game, however many.
    All,
    /// Every game when there are at most this many, else none (the page says why).
    UpTo(usize),
}

impl Replays {
    /// What a run writes at its end.
    pub const RUN: Replays = Replays::UpTo(RUN_REPLAY_LIMIT);

    fn allow(self, games: usize) -> bool {
        match self {
            Replays::All => true,
            Replays::UpTo(limit) => games <= limit,
        }
    }
}

/// Writes the report of the tournament folder `dir` (read from its journal alone) into
/// `out`: report.md, report.tex, plots/*.svg and index.html. Returns index.html's path.
pub fn write_report(dir: &Path, out: &Path, replays: Replays) -> Result<PathBuf, Error> {
    let journal = journal_of(dir)?;
    let loaded = journal::load(&journal)?;
    write_loaded_report(&loaded, &loaded.plan.non_scoring(), &journal, out, replays)
}

/// The journal of the tournament folder `dir`, or an error that says what `dir` is not.
pub fn journal_of(dir: &Path) -> Result<PathBuf, Error> {
    if !dir.is_dir() {
        return Err(Error::usage(format!(
            "{}: no such folder: expected a tournament's output folder (the --out of league, \
             gauntlet, run or sprt)",
            dir.display()
        )));
    }
    let journal = dir.join(journal::JOURNAL_FILE);
    if !journal.is_file() {
        return Err(Error::usage(format!(
            "{} holds no {}: expected a tournament's output folder (the --out of league, \
             gauntlet, run or sprt), whose journal every table is made from",
            dir.display(),
            journal::JOURNAL_FILE
        )));
    }
    Ok(journal)
}

/// [`write_report`] of a journal already loaded from `journal`, the marks leaving out
/// `non_scoring`.
pub fn write_loaded_report(
    loaded: &Loaded,
    non_scoring: &[String],
    journal: &Path,
    out: &Path,
    replays: Replays,
) -> Result<PathBuf, Error> {
    let report = model_of(loaded, non_scoring, journal)?;
    write_report_files(&report, journal, out, replays)
}

/// The report's model of a journal already loaded from `journal` (its SPRT recounted), the
/// marks leaving out `non_scoring`: what the CSV tables and the report files render.
pub fn model_of<'a>(
    loaded: &'a Loaded,
    non_scoring: &[String],
    journal: &Path,
) -> Result<Report<'a>, Error> {
    let history = crate::tournament::sprt::recount(&loaded.plan, &loaded.games).map_err(|e| {
        Error::Input {
            path: journal.to_path_buf(),
            line: 1,
            message: e.to_string(),
        }
    })?;
    Ok(Report::new(
        &loaded.plan,
        &loaded.games,
        non_scoring,
        history,
    ))
}

/// Writes report.md, report.tex, plots/*.svg and index.html of `report` (the model of
/// `journal`) into `out`. Returns index.html's path.
pub fn write_report_files(
    report: &Report,
    journal: &Path,
    out: &Path,
    replays: Replays,
) -> Result<PathBuf, Error> {
    let plots_dir = out.join("plots");
    std::fs::create_dir_all(&plots_dir).map_err(|source| Error::Io {
        path: plots_dir.clone(),
        source,
    })?;
    let plots = plots::all(report)?;
    for plot in &plots {
        write_atomic(&plots_dir.join(plot.file), plot.svg.as_bytes())?;
    }
    write_atomic(&out.join("report.md"), markdown::render(report).as_bytes())?;
    write_atomic(&out.join("report.tex"), latex::render(report).as_bytes())?;
    let index = out.join("index.html");
    write_atomic(
        &index,
        html::render(report, &plots, journal, replays.allow(report.games.len()))?.as_bytes(),
    )?;
    Ok(index)
}

/// Writes `path` atomically: a temporary file in the same folder, then a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), Error> {
    write_atomic_with(path, |file| file.write_all(bytes))
}

/// [`write_atomic`] of what `write` writes, streamed to the file rather than built in
/// memory first.
pub fn write_atomic_with(
    path: &Path,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<(), Error> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = path.with_file_name(format!(".{name}.tmp"));
    let mut file = std::io::BufWriter::new(std::fs::File::create(&tmp).map_err(io)?);
    write(&mut file).map_err(io)?;
    file.into_inner().map_err(|e| io(e.into_error()))?;
    std::fs::rename(&tmp, path).map_err(io)
}

fn csv_bytes(header: Vec<String>, rows: impl Iterator<Item = Vec<String>>) -> Vec<u8> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    // Writing into a Vec cannot fail.
    writer.write_record(&header).expect("in-memory csv");
    for row in rows {
        writer.write_record(&row).expect("in-memory csv");
    }
    writer.into_inner().expect("in-memory csv")
}

/// `x` to at most 3 decimals, shortest form; empty when not finite.
fn num(x: f64) -> String {
    if x.is_finite() {
        // Adding 0.0 turns a -0.0 (from rounding a tiny negative) into 0.
        format!("{}", (x * 1000.0).round() / 1000.0 + 0.0)
    } else {
        String::new()
    }
}

/// `x` with `decimals` decimals (`+` sign when `signed`), never `-0.0`.
fn fixed(x: f64, decimals: i32, signed: bool) -> String {
    let scale = 10f64.powi(decimals);
    let x = (x * scale).round() / scale + 0.0;
    let d = decimals as usize;
    if signed {
        format!("{x:+.d$}")
    } else {
        format!("{x:.d$}")
    }
}

/// games.csv: one row per game, in scheduled order.
pub fn games_csv(roles: &[String], games: &[&GameSummary]) -> Vec<u8> {
    let mut bytes = Vec::new();
    write_games_csv(&mut bytes, roles, games).expect("writing to memory");
    bytes
}

/// [`games_csv`] written row by row into `out`: a league of any size never holds its
/// whole games table in memory.
pub fn write_games_csv(
    out: &mut dyn std::io::Write,
    roles: &[String],
    games: &[&GameSummary],
) -> std::io::Result<()> {
    let mut header: Vec<String> = vec!["game".into(), "pair".into()];
    header.extend(roles.iter().cloned());
    header.extend(["winner", "winner_role", "reason", "rounds"].map(String::from));
    for suffix in ["illegal", "max_ms", "mean_ms"] {
        header.extend(roles.iter().map(|r| format!("{r}_{suffix}")));
    }
    header.push("seed".into());
    header.push("opening".into());
    header.push("detail".into());
    let mut sorted = games.to_vec();
    sorted.sort_by_key(|g| g.id);
    let rows = sorted.into_iter().map(|g| {
        let mut row = vec![
            g.id.to_string(),
            g.pair.to_string(),
            g.players[0].to_string(),
            g.players[1].to_string(),
        ];
        row.push(
            g.winner
                .map(|w| g.players[w].to_string())
                .unwrap_or_default(),
        );
        row.push(g.winner.map(|w| g.roles[w].to_string()).unwrap_or_default());
        row.push(g.reason.to_string());
        row.push(g.rounds.to_string());
        row.extend(g.illegal.iter().map(|n| n.to_string()));
        row.extend(g.max_ms.iter().map(|&t| num(t)));
        row.extend(g.mean_ms.iter().map(|&t| num(t)));
        row.push(g.seed.to_string());
        row.push(g.opening.to_string());
        row.push(g.detail.to_string());
        row
    });
    let mut writer = csv::Writer::from_writer(out);
    writer.write_record(&header)?;
    for row in rows {
        writer.write_record(&row)?;
    }
    writer.flush()
}

/// sprt.csv: one row per counted pair (`pair` as in games.csv, from 0), the test as it
/// stood after it.
/// Writes sprt.csv: the test after each pair.
pub fn write_sprt_csv(dir: &Path, history: &[SprtStatus]) -> Result<(), Error> {
    write_atomic(&dir.join("sprt.csv"), &sprt_csv(history))
}

pub fn sprt_csv(history: &[SprtStatus]) -> Vec<u8> {
    let mut header: Vec<String> = [
        "pair", "llr", "lower", "upper", "elo", "elo_low", "elo_high",
    ]
    .map(String::from)
    .to_vec();
    header.extend((0..5).map(|i| format!("pairs_{}", ["0", "0.5", "1", "1.5", "2"][i])));
    let rows = history.iter().map(|s| {
        // An interval with no finite end (no loss yet, or no win) leaves the cell empty.
        let elo = |x: f64| {
            if x.is_finite() {
                fixed(x, 1, false)
            } else {
                String::new()
            }
        };
        let mut row = vec![
            s.pairs.saturating_sub(1).to_string(),
            num(s.llr),
            num(s.lower),
            num(s.upper),
            elo(s.elo.estimate),
            elo(s.elo.low),
            elo(s.elo.high),
        ];
        row.extend(s.pentanomial.iter().map(|n| n.to_string()));
        row
    });
    csv_bytes(header, rows)
}

/// One line saying who played which role, who won, how, when, and why if a bot failed:
/// what `play` prints and what a tournament prints as each game ends.
pub fn game_line(g: &GameSummary) -> String {
    let verdict = match g.winner {
        Some(w) => format!("{} ({}) wins", g.roles[w], g.players[w]),
        None => "tie".to_string(),
    };
    let detail = if g.detail.is_empty() {
        String::new()
    } else {
        format!("; {}", g.detail)
    };
    format!(
        "{} {} vs {} {}: {verdict} by {} after {} rounds; illegal moves: {} {}, {} {}{detail}",
        g.roles[0],
        g.players[0],
        g.roles[1],
        g.players[1],
        g.reason,
        g.rounds,
        g.roles[0],
        g.illegal[0],
        g.roles[1],
        g.illegal[1]
    )
}

/// standings.csv: the league table with marks and per-role results.
pub fn standings_csv(roles: &[String], table: &[Standing]) -> Vec<u8> {
    let mut header: Vec<String> = [
        "rank", "bot", "games", "wins", "losses", "ties", "points", "rate", "mark", "elo",
        "elo_low", "elo_high",
    ]
    .map(String::from)
    .to_vec();
    for role in roles {
        header.push(format!("{role}_games"));
        header.push(format!("{role}_wins"));
    }
    header.extend(["illegal_moves", "timeouts", "errors"].map(String::from));
    let rows = table.iter().map(|s| {
        let mut row = vec![
            s.rank.to_string(),
            s.bot.clone(),
            s.games.to_string(),
            s.wins.to_string(),
            s.losses.to_string(),
            s.ties.to_string(),
            num(s.points),
            num(s.rate),
            s.mark.map(num).unwrap_or_default(),
            elo(s.elo),
            elo(s.elo_low),
            elo(s.elo_high),
        ];
        for (games, wins) in s.by_role {
            row.push(games.to_string());
            row.push(wins.to_string());
        }
        row.extend([s.illegal_moves, s.timeouts, s.errors].map(|n| n.to_string()));
        row
    });
    csv_bytes(header, rows)
}

fn elo(x: f64) -> String {
    if x.is_finite() {
        fixed(x, 1, false)
    } else {
        String::new()
    }
}

/// pairwise.csv: one row per ordered pair that met, from `bot`'s side: its points,
/// score, Elo difference with 95% error, and likelihood of superiority.
pub fn pairwise_csv(pairings: &[Pairing]) -> Vec<u8> {
    let header = [
        "bot",
        "opponent",
        "games",
        "wins",
        "ties",
        "losses",
        "points",
        "score",
        "elo_diff",
        "elo_error",
        "los",
    ]
    .map(String::from)
    .to_vec();
    let rows = pairings.iter().map(|p| {
        vec![
            p.bot.clone(),
            p.opponent.clone(),
            p.stats.games.to_string(),
            p.stats.wins.to_string(),
            p.stats.ties.to_string(),
            p.stats.losses.to_string(),
            num(p.points),
            fixed(p.stats.score, 4, false),
            elo(p.stats.elo),
            elo(p.stats.elo_error),
            fixed(p.stats.los, 4, false),
        ]
    });
    csv_bytes(header, rows)
}

/// points_matrix.csv: `row` scored this many points against `column`.
pub fn points_matrix_csv(bots: &[String], matrix: &[Vec<f64>]) -> Vec<u8> {
    let mut header = vec!["bot".to_string()];
    header.extend(bots.iter().cloned());
    let rows = bots.iter().zip(matrix).map(|(bot, scores)| {
        let mut row = vec![bot.clone()];
        row.extend(scores.iter().map(|&x| num(x)));
        row
    });
    csv_bytes(header, rows)
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
    header.extend(["illegal", "timeouts", "errors"].map(String::from));
    t.set_header(header);
    for s in table {
        let mut row = vec![
            s.rank.to_string(),
            s.bot.clone(),
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
        row.extend([s.illegal_moves, s.timeouts, s.errors].map(|n| n.to_string()));
        t.add_row(row);
    }
    let failure_columns = 11 + roles.len()..14 + roles.len();
    for i in (2..10).chain(failure_columns) {
        if let Some(col) = t.column_mut(i) {
            col.set_cell_alignment(comfy_table::CellAlignment::Right);
        }
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_that_round_to_zero_are_written_without_a_minus_sign() {
        assert_eq!(num(-0.0), "0");
        assert_eq!(num(-0.0001), "0");
        assert_eq!(elo(-0.0), "0.0");
        assert_eq!(elo(-0.04), "0.0");
        assert_eq!(elo(-0.06), "-0.1");
        assert_eq!(fixed(-0.4, 0, true), "+0");
        assert_eq!(fixed(-0.6, 0, true), "-1");
        assert_eq!(fixed(0.25, 4, false), "0.2500");
        let pairing = Pairing {
            bot: "a".into(),
            opponent: "b".into(),
            points: 1.0,
            stats: crate::stats::elo::pair_stats(1, 0, 1),
        };
        let csv = String::from_utf8(pairwise_csv(&[pairing])).unwrap();
        assert!(!csv.contains("-0"), "{csv}");
    }
}
