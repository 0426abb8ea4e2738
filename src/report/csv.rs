//! The CSV tables of a tournament folder: games.csv, standings.csv, pairwise.csv,
//! points_matrix.csv and sprt.csv, each written whole or not at all.

use super::model::Report;
use super::numbers::{elo, fixed, num};
use super::{write_atomic, write_atomic_with};
use crate::error::Error;
use crate::record::GameSummary;
use crate::stats::league::{Pairing, Standing};
use crate::tournament::journal::LeftOut;
use crate::tournament::sprt::SprtStatus;
use std::path::Path;

/// Writes games.csv, standings.csv, pairwise.csv and points_matrix.csv of `report` into `dir`.
pub(crate) fn write_csv_tables(dir: &Path, report: &Report) -> Result<(), Error> {
    let roles = &report.plan.roles;
    if report.source.listed() {
        // An error reading the journal again is the journal's, not games.csv's.
        let mut failed = None;
        let written = write_atomic_with(&dir.join("games.csv"), |out| {
            let mut csv = GamesCsv::new(out, roles)?;
            report
                .source
                .for_each(&mut |g| {
                    csv.row(g).map_err(|e| Error::Io {
                        path: dir.join("games.csv"),
                        source: e,
                    })
                })
                .map_err(|e| {
                    let message = e.to_string();
                    failed = Some(e);
                    std::io::Error::other(message)
                })?;
            csv.finish()
        });
        if let Some(e) = failed {
            return Err(e);
        }
        written?;
    }
    write_atomic(
        &dir.join("standings.csv"),
        &standings_csv_with(
            roles,
            &report.table.rows,
            report.marks(),
            &report.plan.left_out,
        ),
    )?;
    write_atomic(&dir.join("pairwise.csv"), &pairwise_csv(&report.pairings))?;
    // In the standings' order, as the report's matrix.
    let order = report.ranked();
    let bots: Vec<String> = order.iter().map(|&i| report.bots[i].clone()).collect();
    let points: Vec<Vec<f64>> = order
        .iter()
        .map(|&i| order.iter().map(|&j| report.points[i][j]).collect())
        .collect();
    write_atomic(
        &dir.join("points_matrix.csv"),
        &points_matrix_csv(&bots, &points),
    )
}

pub(super) fn csv_bytes(header: Vec<String>, rows: impl Iterator<Item = Vec<String>>) -> Vec<u8> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    // Writing into a Vec cannot fail.
    write_row(&mut writer, &header).expect("in-memory csv");
    for row in rows {
        write_row(&mut writer, &row).expect("in-memory csv");
    }
    writer.into_inner().expect("in-memory csv")
}

/// Every CSV row goes out through here: a cell a spreadsheet would take for a formula (a
/// bot's error, a folder's name) gets a leading `'`.
fn write_row<W: std::io::Write>(writer: &mut csv::Writer<W>, row: &[String]) -> csv::Result<()> {
    writer.write_record(
        row.iter()
            .map(|cell| crate::untrusted::text::csv_cell(cell).into_owned()),
    )
}

/// games.csv written a row at a time, the games given in schedule order.
struct GamesCsv<'w> {
    writer: csv::Writer<&'w mut dyn std::io::Write>,
}

impl<'w> GamesCsv<'w> {
    fn new(out: &'w mut dyn std::io::Write, roles: &[String]) -> std::io::Result<GamesCsv<'w>> {
        let mut header: Vec<String> = vec!["game".into(), "pair".into()];
        header.extend(roles.iter().cloned());
        header.extend(["winner", "winner_role", "reason", "rounds"].map(String::from));
        for suffix in ["illegal", "max_ms", "mean_ms"] {
            header.extend(roles.iter().map(|r| format!("{r}_{suffix}")));
        }
        header.push("seed".into());
        header.push("opening".into());
        header.push("detail".into());
        header.extend(roles.iter().map(|r| format!("{r}_blocked")));
        header.push("duration_s".into());
        let mut writer = csv::Writer::from_writer(out);
        write_row(&mut writer, &header).map_err(std::io::Error::other)?;
        Ok(GamesCsv { writer })
    }

    fn row(&mut self, g: &GameSummary) -> std::io::Result<()> {
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
        row.extend((0..2).map(|seat| g.refused(seat).to_string()));
        row.extend(g.max_ms.iter().map(|&t| num(t)));
        row.extend(g.mean_ms.iter().map(|&t| num(t)));
        row.push(g.seed.to_string());
        row.push(g.opening.to_string());
        row.push(g.detail.to_string());
        row.extend(g.blocked.iter().map(|n| n.to_string()));
        // Empty for a game journaled before its wall time was kept.
        row.push(
            g.duration_ms
                .map(|ms| fixed(ms / 1000.0, 3, false))
                .unwrap_or_default(),
        );
        write_row(&mut self.writer, &row).map_err(std::io::Error::other)
    }

    fn finish(mut self) -> std::io::Result<()> {
        self.writer.flush()
    }
}

/// sprt.csv: one row per counted pair (`pair` as in games.csv, from 0), the test as it
/// stood after it.
/// Writes sprt.csv: the test after each pair.
pub fn write_sprt_csv(dir: &Path, history: &[SprtStatus]) -> Result<(), Error> {
    write_atomic(&dir.join("sprt.csv"), &sprt_csv(history))
}

pub(crate) fn sprt_csv(history: &[SprtStatus]) -> Vec<u8> {
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

/// standings.csv: the league table with per-role results, the marks when `marks` (a league's; a
/// gauntlet's or an SPRT's would compare nothing), and a row for every entry `left_out` (no games,
/// mark 0, the reason in the `left_out` column), so that no team is missing from the table.
pub(crate) fn standings_csv_with(
    roles: &[String],
    table: &[Standing],
    marks: bool,
    left_out: &[LeftOut],
) -> Vec<u8> {
    let mut header: Vec<String> = [
        "rank", "bot", "games", "wins", "losses", "ties", "points", "rate", "mark", "elo",
        "elo_low", "elo_high",
    ]
    .into_iter()
    .filter(|&c| marks || c != "mark")
    .map(String::from)
    .collect();
    for role in roles {
        header.push(format!("{role}_games"));
        header.push(format!("{role}_wins"));
    }
    header.extend(
        [
            "illegal_moves",
            "timeouts",
            "errors",
            "blocked_turns",
            "left_out",
        ]
        .map(String::from),
    );
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
        ];
        if marks {
            row.push(s.mark.map(num).unwrap_or_default());
        }
        row.extend([elo(s.elo), elo(s.elo_low), elo(s.elo_high)]);
        for (games, wins) in s.by_role {
            row.push(games.to_string());
            row.push(wins.to_string());
        }
        row.extend([s.illegal_moves, s.timeouts, s.errors, s.blocked_turns].map(|n| n.to_string()));
        row.push(String::new());
        row
    });
    let left = left_out.iter().map(|l| {
        header
            .iter()
            .map(|column| match column.as_str() {
                "bot" => l.name.clone(),
                "left_out" => l.reason.clone(),
                "rank" | "elo" | "elo_low" | "elo_high" => String::new(),
                _ => "0".into(),
            })
            .collect()
    });
    let header = header.clone();
    csv_bytes(header, rows.chain(left))
}

/// pairwise.csv: one row per ordered pair that met, from `bot`'s side: its points,
/// score, Elo difference with 95% error, and likelihood of superiority.
pub(crate) fn pairwise_csv(pairings: &[Pairing]) -> Vec<u8> {
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
pub(crate) fn points_matrix_csv(bots: &[String], matrix: &[Vec<f64>]) -> Vec<u8> {
    let mut header = vec!["bot".to_string()];
    header.extend(bots.iter().cloned());
    let rows = bots.iter().zip(matrix).map(|(bot, scores)| {
        let mut row = vec![bot.clone()];
        row.extend(scores.iter().map(|&x| num(x)));
        row
    });
    csv_bytes(header, rows)
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
