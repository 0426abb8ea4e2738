//! The journal's formats: a new tournament writes compact format 4 lines that every
//! reader reads back whole; a format 3 journal still gives its tables and is resumed in
//! its own format; a journal written before games' wall times were kept gives them empty
//! and is resumed, its new games with theirs.

use crate::common::*;
use std::path::{Path, PathBuf};

const TABLES: [&str; 4] = ["games", "standings", "pairwise", "points_matrix"];

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/journal")
}

/// The league the format 3 fixture holds: 3 pairs of Gomoku, random against greedy.
fn fixture_league(out: &Path) -> std::process::Command {
    let mut cmd = arbiter();
    cmd.args([
        "league",
        "--game",
        "gomoku",
        "--limit-ms",
        "5000",
        "--pairs",
        "3",
    ])
    .args(["--seed", "5", "--quiet", "--out"])
    .arg(out)
    .args(["random=builtin:random", "greedy=builtin:greedy"]);
    cmd
}

/// A folder holding the format 3 fixture, its last `drop` games left out.
fn format3_folder(dir: &Path, drop: usize) -> PathBuf {
    let out = dir.join("format3");
    std::fs::create_dir(&out).unwrap();
    let text = read(&data().join("format3_gomoku.jsonl"));
    let lines: Vec<&str> = text.lines().collect();
    let kept = &lines[..lines.len() - drop];
    std::fs::write(out.join("games.jsonl"), format!("{}\n", kept.join("\n"))).unwrap();
    out
}

fn assert_tables_are_the_fixtures(out: &Path) {
    for table in TABLES {
        assert_eq!(
            read(&out.join(format!("{table}.csv"))),
            read(&data().join(format!("format3_gomoku_{table}.csv"))),
            "{table}.csv differs from the one the fixture's games gave"
        );
    }
}

fn header_version(out: &Path) -> u64 {
    let text = read(&out.join("games.jsonl"));
    let header: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    header["arbiter_journal"].as_u64().unwrap()
}

#[test]
fn table_reads_a_format_3_journal_giving_the_tables_of_its_games() {
    let dir = tempfile::tempdir().unwrap();
    let out = format3_folder(dir.path(), 0);
    let (code, stdout, stderr) = run(arbiter().arg("table").arg(&out));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("greedy"), "{stdout}");
    assert_tables_are_the_fixtures(&out);
}

#[test]
fn a_format_3_journal_is_resumed_in_format_3() {
    let dir = tempfile::tempdir().unwrap();
    let out = format3_folder(dir.path(), 2);
    let (code, _, stderr) = run(&mut fixture_league(&out));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(header_version(&out), 3, "the header keeps its format");
    let text = read(&out.join("games.jsonl"));
    for line in text.lines().skip(1) {
        let entry: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(
            entry["record"]["moves"].is_array() && entry.get("packed").is_none(),
            "a game line of a format 3 journal is a whole format 3 record: {line}"
        );
    }
    let ids: Vec<u64> = journal_records(&out).iter().map(|(id, _)| *id).collect();
    assert_eq!(ids.len(), 6, "the two missing games were played: {ids:?}");
    // The two games played again are the fixture's own (the built-ins are seeded), so the
    // tables but for the times are the fixture's.
    for table in ["standings", "pairwise", "points_matrix"] {
        assert_eq!(
            read(&out.join(format!("{table}.csv"))),
            read(&data().join(format!("format3_gomoku_{table}.csv"))),
            "{table}.csv after the resume"
        );
    }
}

#[test]
fn a_new_journal_is_in_format_4_and_reads_back_as_the_run_saw_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("format4");
    // A book whose one line is the standard start: starts dealt from a book keep each
    // game's seed from its place in the schedule, as the fixture's league had them, so
    // its games are the fixture's games.
    let book = dir.path().join("standard.txt");
    std::fs::write(&book, "[]\n").unwrap();
    let (code, _, stderr) = run(fixture_league(&out).arg("--openings").arg(&book));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(header_version(&out), 4);
    let text = read(&out.join("games.jsonl"));
    for line in text.lines().skip(1) {
        let entry: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(
            entry["packed"].is_string() && entry["record"]["players"].is_object(),
            "a format 4 line keeps the small fields plain and packs the rest: {line}"
        );
    }
    // The same games as the format 3 fixture's, move for move.
    let fixture = format3_folder(dir.path(), 0);
    // (Games end in any order when played in parallel: they are compared by id.)
    let sorted = |dir: &Path| {
        let mut records = journal_records(dir);
        records.sort_by_key(|(id, _)| *id);
        records
    };
    let (new, old) = (sorted(&out), sorted(&fixture));
    assert_eq!(new.len(), old.len());
    for ((id, a), (old_id, b)) in new.iter().zip(&old) {
        assert_eq!(id, old_id);
        let replies = |r: &arbiter::record::GameRecord| {
            r.moves
                .iter()
                .map(|m| (m.ply, m.side.clone(), m.reply.clone(), m.verdict.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(replies(a), replies(b), "game {id}");
        assert_eq!(
            (&a.final_board, &a.start_board, &a.winner),
            (&b.final_board, &b.start_board, &b.winner),
            "game {id}"
        );
    }
    // `table` rebuilds from the format 4 journal what the run wrote but for the times,
    // which the journal keeps to the microsecond.
    let written: Vec<String> = ["standings", "pairwise"]
        .iter()
        .map(|t| read(&out.join(format!("{t}.csv"))))
        .collect();
    let (code, _, stderr) = run(arbiter().arg("table").arg(&out));
    assert_eq!(code, 0, "{stderr}");
    for (t, before) in ["standings", "pairwise"].iter().zip(&written) {
        assert_eq!(&read(&out.join(format!("{t}.csv"))), before, "{t}.csv");
    }
}

#[test]
fn a_damaged_format_4_line_is_refused_naming_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("damaged");
    let (code, _, stderr) = run(&mut fixture_league(&out));
    assert_eq!(code, 0, "{stderr}");
    let path = out.join("games.jsonl");
    let text = read(&path);
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let mut entry: serde_json::Value = serde_json::from_str(&lines[2]).unwrap();
    entry["packed"] = serde_json::json!("eJwrSS0u0U1KTQEAGx4ESQ==");
    lines[2] = entry.to_string();
    std::fs::write(&path, format!("{}\n", lines.join("\n"))).unwrap();
    let (code, _, stderr) = run(arbiter().arg("table").arg(&out));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("games.jsonl:3") && stderr.contains("packed"),
        "the error names the file, the line and the field: {stderr}"
    );
}

/// A folder holding the format 4 fixture, a journal written before the games' wall time
/// was kept (by arbiter a4444d9, the league of [`fixture_league`]), its last `drop` games
/// left out.
fn format4_folder(dir: &Path, drop: usize) -> PathBuf {
    let out = dir.join("format4-before-durations");
    std::fs::create_dir(&out).unwrap();
    let text = read(&data().join("format4_gomoku.jsonl"));
    let lines: Vec<&str> = text.lines().collect();
    let kept = &lines[..lines.len() - drop];
    std::fs::write(out.join("games.jsonl"), format!("{}\n", kept.join("\n"))).unwrap();
    out
}

/// games.csv's `duration_s` per game id.
fn durations(out: &Path) -> std::collections::BTreeMap<u64, String> {
    csv_rows(&out.join("games.csv"))
        .into_iter()
        .map(|row| (row["game"].parse().unwrap(), row["duration_s"].clone()))
        .collect()
}

#[test]
fn a_journal_written_before_durations_were_kept_gives_games_csv_with_duration_s_empty() {
    let dir = tempfile::tempdir().unwrap();
    let out = format4_folder(dir.path(), 0);
    let (code, _, stderr) = run(arbiter().arg("table").arg(&out));
    assert_eq!(code, 0, "{stderr}");
    // The table that build wrote, with the new column at its end, empty.
    assert_eq!(
        read(&out.join("games.csv")),
        read(&data().join("format4_gomoku_games.csv"))
    );
    let cells = durations(&out);
    assert_eq!(cells.len(), 6);
    assert!(cells.values().all(String::is_empty), "{cells:?}");
    // A format 3 journal, older still, the same.
    let old = format3_folder(dir.path(), 0);
    let (code, _, stderr) = run(arbiter().arg("table").arg(&old));
    assert_eq!(code, 0, "{stderr}");
    assert!(durations(&old).values().all(String::is_empty));
}

#[test]
fn a_journal_begun_before_durations_were_kept_resumes_its_new_games_with_one_and_its_old_without() {
    let dir = tempfile::tempdir().unwrap();
    let out = format4_folder(dir.path(), 2);
    let before = read(&out.join("games.jsonl"));
    let (code, _, stderr) = run(&mut fixture_league(&out));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("resuming"), "{stderr}");
    assert_eq!(header_version(&out), 4, "the format stays 4");
    let after = read(&out.join("games.jsonl"));
    assert!(
        after.starts_with(&before),
        "the old lines are kept as they were"
    );
    // The old games have no duration; the two played now have theirs.
    for (id, record) in journal_records(&out) {
        match id {
            0..=3 => assert_eq!(record.duration_ms, None, "game {id}"),
            _ => assert!(
                record.duration_ms.is_some_and(|ms| ms >= 0.0),
                "game {id}: {:?}",
                record.duration_ms
            ),
        }
    }
    let cells = durations(&out);
    assert_eq!(cells.len(), 6);
    for (id, cell) in &cells {
        if *id < 4 {
            assert_eq!(cell, "", "game {id}: journaled before durations were kept");
        } else {
            let seconds: f64 = cell
                .parse()
                .unwrap_or_else(|e| panic!("game {id}: {cell:?}: {e}"));
            assert!(
                seconds >= 0.0 && cell.split('.').nth(1).map(str::len) == Some(3),
                "game {id}: {cell:?}, seconds with 3 decimals"
            );
        }
    }
    // The tables rebuilt from the journal, through the cache of summaries the run left and
    // without it, are the run's: the cache carries each game's duration or its absence.
    let written = read(&out.join("games.csv"));
    let (code, _, stderr) = run(arbiter().arg("table").arg(&out));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(read(&out.join("games.csv")), written, "through the cache");
    std::fs::remove_file(out.join(".games.known")).unwrap();
    let (code, _, stderr) = run(arbiter().arg("table").arg(&out));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(read(&out.join("games.csv")), written, "without the cache");
}
