//! Leagues: schedule, journal, resume, tables and bad input.

use crate::common::*;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

pub(crate) fn league_cmd(out: &Path, extra: &[&str], bots: &[&str]) -> std::process::Command {
    let mut cmd = arbiter();
    cmd.args(["league", "--game", "asalto", "--out"])
        .arg(out)
        .args(extra)
        .args(bots);
    cmd
}

#[test]
fn every_ordered_pair_plays_k_times_in_each_role() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("league");
    let (code, stdout, stderr) = run(&mut league_cmd(
        &out,
        &["--pairs", "2", "-j", "2", "--seed", "5"],
        &["builtin:random", "builtin:greedy", "r2=builtin:random"],
    ));
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    let games = csv_rows(&out.join("games.csv"));
    assert_eq!(games.len(), 3 * 2 * 2);
    let mut counts: BTreeMap<(String, String), u32> = BTreeMap::new();
    for g in &games {
        *counts
            .entry((g["rebel"].clone(), g["officer"].clone()))
            .or_default() += 1;
    }
    for a in ["random", "greedy", "r2"] {
        for b in ["random", "greedy", "r2"] {
            if a != b {
                assert_eq!(
                    counts.get(&(a.to_string(), b.to_string())),
                    Some(&2),
                    "{a} as rebel vs {b}"
                );
            }
        }
    }
    let ids: Vec<u64> = games.iter().map(|g| g["game"].parse().unwrap()).collect();
    assert_eq!(
        ids,
        (0..12).collect::<Vec<_>>(),
        "games.csv is in schedule order"
    );
    let standings = csv_rows(&out.join("standings.csv"));
    assert_eq!(standings.len(), 3);
    for file in [
        "games.csv",
        "standings.csv",
        "pairwise.csv",
        "points_matrix.csv",
    ] {
        let text = read(&out.join(file)).to_lowercase();
        assert!(
            !text.contains("nan") && !text.contains("inf"),
            "{file} holds a non-finite number:\n{text}"
        );
    }
    for row in &standings {
        let (low, elo, high): (f64, f64, f64) = (
            row["elo_low"].parse().unwrap(),
            row["elo"].parse().unwrap(),
            row["elo_high"].parse().unwrap(),
        );
        assert!(low <= elo && elo <= high, "{row:?}");
    }
    let total_games: u32 = standings
        .iter()
        .map(|s| s["games"].parse::<u32>().unwrap())
        .sum();
    assert_eq!(total_games, 24);
    assert!(
        stdout.contains("mark"),
        "the standings table is printed:\n{stdout}"
    );
}

/// Standings as (bot, points, mark) in rank order.
fn standings_of(dir: &Path) -> Vec<(String, String, String)> {
    csv_rows(&dir.join("standings.csv"))
        .into_iter()
        .map(|r| (r["bot"].clone(), r["points"].clone(), r["mark"].clone()))
        .collect()
}

pub(crate) fn journal_ids(dir: &Path) -> Vec<u64> {
    read(&dir.join("games.jsonl"))
        .lines()
        .skip(1)
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["game"]
                .as_u64()
                .unwrap()
        })
        .collect()
}

#[test]
fn league_killed_with_sigkill_resumes_to_the_same_standings() {
    let dir = tempfile::tempdir().unwrap();
    // Subprocess bots make each game take long enough to be killed in the middle.
    let bots = [
        format!("a={}", served("random")),
        format!("b={}", served("greedy")),
        format!("c={}", served("random")),
    ];
    let bots: Vec<&str> = bots.iter().map(String::as_str).collect();
    let args = [
        "--pairs",
        "3",
        "-j",
        "1",
        "--seed",
        "11",
        "--limit-ms",
        "5000",
    ];

    let whole = dir.path().join("whole");
    let (code, _, stderr) = run(&mut league_cmd(&whole, &args, &bots));
    assert_eq!(code, 0, "{stderr}");

    let killed = dir.path().join("killed");
    let mut child = league_cmd(&killed, &args, &bots)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let lines = std::fs::read_to_string(killed.join("games.jsonl"))
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if lines >= 4 || Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let partial = journal_ids(&killed);
    assert!(
        partial.len() >= 3 && partial.len() < 18,
        "killed mid-league, {} games journaled",
        partial.len()
    );

    let (code, _, stderr) = run(&mut league_cmd(&killed, &args, &bots));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("resuming"), "{stderr}");
    let mut ids = journal_ids(&killed);
    ids.sort();
    assert_eq!(ids, (0..18).collect::<Vec<_>>(), "every game exactly once");
    assert_eq!(standings_of(&killed), standings_of(&whole));
    let strip = |p: &Path| {
        let mut rows = csv_rows(&p.join("games.csv"));
        for r in &mut rows {
            r.retain(|k, _| !k.ends_with("_ms") && k != "duration_s");
        }
        rows
    };
    assert_eq!(
        strip(&killed),
        strip(&whole),
        "the same games, move times and durations aside"
    );
}

#[test]
fn torn_last_line_is_dropped_and_the_game_replayed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("t");
    let bots = ["builtin:random", "builtin:greedy"];
    let (code, _, stderr) = run(&mut league_cmd(&out, &["--pairs", "2"], &bots));
    assert_eq!(code, 0, "{stderr}");
    let journal = out.join("games.jsonl");
    let full = read(&journal);
    let lines: Vec<&str> = full.lines().collect();
    // Keep the header and two games, then half of the third line, as a crash mid-write would.
    let torn = format!(
        "{}\n{}\n{}\n{}",
        lines[0],
        lines[1],
        lines[2],
        &lines[3][..lines[3].len() / 2]
    );
    std::fs::write(&journal, torn).unwrap();
    let (code, _, stderr) = run(&mut league_cmd(&out, &["--pairs", "2"], &bots));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("torn"), "{stderr}");
    let mut ids = journal_ids(&out);
    ids.sort();
    assert_eq!(ids, vec![0, 1, 2, 3]);
}

#[test]
fn a_changed_schedule_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s");
    let bots = ["builtin:random", "builtin:greedy"];
    assert_eq!(run(&mut league_cmd(&out, &["--seed", "1"], &bots)).0, 0);
    let (code, _, stderr) = run(&mut league_cmd(&out, &["--seed", "2"], &bots));
    assert_eq!(code, 2);
    assert!(stderr.contains("seed 1 there, 2 now"), "{stderr}");
    let (code, _, stderr) = run(&mut league_cmd(
        &out,
        &["--seed", "1"],
        &["builtin:random", "builtin:alphabeta"],
    ));
    assert_eq!(code, 2);
    assert!(stderr.contains("bots ["), "{stderr}");
}

#[test]
fn table_rebuilds_every_table_from_the_journal() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tab");
    let (code, _, stderr) = run(&mut league_cmd(
        &out,
        &["--pairs", "2"],
        &["builtin:random", "builtin:greedy", "x=builtin:random"],
    ));
    assert_eq!(code, 0, "{stderr}");
    let before: Vec<String> = [
        "games.csv",
        "standings.csv",
        "pairwise.csv",
        "points_matrix.csv",
    ]
    .iter()
    .map(|f| read(&out.join(f)))
    .collect();
    for f in [
        "games.csv",
        "standings.csv",
        "pairwise.csv",
        "points_matrix.csv",
    ] {
        std::fs::remove_file(out.join(f)).unwrap();
    }
    let (code, stdout, stderr) = run(arbiter().arg("table").arg(&out));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("greedy"));
    let after: Vec<String> = [
        "games.csv",
        "standings.csv",
        "pairwise.csv",
        "points_matrix.csv",
    ]
    .iter()
    .map(|f| read(&out.join(f)))
    .collect();
    assert_eq!(before, after);
}

#[test]
fn bad_command_lines_exit_2_with_a_clear_message() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("bad");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["builtin:random", "builtin:nosuch"],
            "no built-in asalto bot named `nosuch`",
        ),
        (
            vec!["builtin:random", "/no/such/Team01.py"],
            "does not exist",
        ),
        (
            vec!["builtin:random", "builtin:random"],
            "two bots are named `random`",
        ),
    ];
    for (bots, expected) in cases {
        let (code, _, stderr) = run(&mut league_cmd(&out, &[], &bots));
        assert_eq!(code, 2, "{bots:?}: {stderr}");
        assert!(
            stderr.contains(expected),
            "{bots:?}: expected `{expected}` in:\n{stderr}"
        );
    }
    for bad in [["--pairs", "0"], ["-j", "x"], ["--limit-ms=-5", "x"]] {
        let (code, _, stderr) = run(&mut league_cmd(
            &out,
            &bad,
            &["builtin:random", "builtin:greedy"],
        ));
        assert_eq!(code, 2, "{bad:?}: {stderr}");
        let flag = bad[0].split('=').next().unwrap();
        assert!(stderr.contains(flag), "{bad:?}: {stderr}");
    }
}

pub(crate) fn run_config(dir: &Path, toml: &str, name: Option<&str>) -> (i32, String, String) {
    let config = dir.join("tournaments.toml");
    std::fs::write(&config, toml).unwrap();
    let mut cmd = arbiter();
    cmd.arg("run").arg("--config").arg(&config);
    if let Some(n) = name {
        cmd.arg(n);
    }
    run(&mut cmd)
}

#[test]
fn tournaments_toml_errors_name_the_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "default = \"t\"\n[tournaments.t]\ngame = \"asalto\"\nbots = [{ spec = \"builtin:random\" }, { spec = \"builtin:greedy\" }]\nlimt_ms = 5\n",
            ":5:",
            "limt_ms",
        ),
        (
            "[tournaments.t]\ngame = \"chess\"\nbots = [{ spec = \"builtin:random\" }, { spec = \"builtin:greedy\" }]\n",
            ":2:",
            "unknown game `chess`",
        ),
        (
            "[tournaments.t]\ngame = \"asalto\"\npairs = 0\nbots = [{ spec = \"builtin:random\" }, { spec = \"builtin:greedy\" }]\n",
            ":3:",
            "`pairs` must be at least 1",
        ),
        (
            "[tournaments.t]\ngame = \"asalto\"\nbots = [\n  { spec = \"builtin:random\" },\n  { spec = \"missing/Team9.py\" },\n]\n",
            ":5:",
            "does not exist",
        ),
        (
            "[tournaments.t]\ngame = \"asalto\"\nbots = [\n  { spec = \"builtin:random\", nmae = \"x\" },\n]\n",
            ":4:",
            "nmae",
        ),
        (
            "default = \"nope\"\n[tournaments.t]\ngame = \"asalto\"\nbots = []\n",
            ":1:",
            "`nope` is not defined",
        ),
        (
            "[tournaments.t]\ngame = \"asalto\"\nbots = [{ spec = \"builtin:random\" }]\npairs = \"two\"\n",
            ":4:",
            "pairs",
        ),
    ];
    for (toml, line, key) in cases {
        let (code, _, stderr) = run_config(dir.path(), toml, None);
        assert_eq!(code, 2, "{toml}\n{stderr}");
        assert!(
            stderr.contains("tournaments.toml") && stderr.contains(line),
            "expected {line} in:\n{stderr}"
        );
        assert!(stderr.contains(key), "expected `{key}` in:\n{stderr}");
    }
    // A missing file is bad input like any other: exit 2.
    let (code, _, stderr) = run(arbiter().args(["run", "--config", "/no/such/tournaments.toml"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("/no/such/tournaments.toml"), "{stderr}");
    // An error about the file as a whole names no line (there is no line 0).
    let toml = "[tournaments.t]\ngame = \"asalto\"\nbots = [{ spec = \"builtin:random\" }, { spec = \"builtin:greedy\" }]\n";
    let (code, _, stderr) = run_config(dir.path(), toml, Some("nosuch"));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no tournament `nosuch`"), "{stderr}");
    assert!(!stderr.contains(":0:"), "{stderr}");
}

#[test]
fn run_plays_a_tournament_from_the_config_with_paths_relative_to_it() {
    let dir = tempfile::tempdir().unwrap();
    let toml = "default = \"small\"\n[tournaments.small]\ngame = \"asalto\"\nseed = 3\nout = \"out/small\"\nbots = [{ name = \"r\", spec = \"builtin:random\" }, { spec = \"builtin:greedy\" }]\n";
    let (code, stdout, stderr) = run_config(dir.path(), toml, None);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("greedy"), "{stdout}");
    let rows = csv_rows(&dir.path().join("out/small/games.csv"));
    assert_eq!(rows.len(), 2);
}

#[test]
fn ctrl_c_stops_the_league_kills_every_bot_and_leaves_a_resumable_journal() {
    let dir = tempfile::tempdir().unwrap();
    // Course bots copied under a unique folder: its path marks every bot process.
    let bots_dir = dir.path().join("ctrlc-bots");
    std::fs::create_dir_all(&bots_dir).unwrap();
    let source = format!(
        "{}/bots/python/examples/random_bot.py",
        env!("CARGO_MANIFEST_DIR")
    );
    for name in ["a.py", "b.py", "c.py"] {
        std::fs::copy(&source, bots_dir.join(name)).unwrap();
    }
    let bots: Vec<String> = ["a.py", "b.py", "c.py"]
        .iter()
        .map(|n| bots_dir.join(n).display().to_string())
        .collect();
    let bots: Vec<&str> = bots.iter().map(String::as_str).collect();
    let out = dir.path().join("out");
    let args = ["--pairs", "4", "-j", "2", "--limit-ms", "5000"];
    let child = league_cmd(&out, &args, &bots)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while std::fs::read_to_string(out.join("games.jsonl"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
        < 3
        && Instant::now() < deadline
    {
        std::thread::sleep(Duration::from_millis(5));
    }
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert!(stderr.contains("stopping"), "{stderr}");
    crate::bots_common::assert_no_process_with(bots_dir.to_str().unwrap());

    // Every journal line is a whole game that ended by the rules, not by the stop, and a
    // rerun finishes the league.
    let journal = read(&out.join("games.jsonl"));
    assert!(
        !journal.contains("\"reason\":\"crash\""),
        "a game killed by the stop was journaled"
    );
    let partial = journal_ids(&out);
    assert!(partial.len() < 24, "stopped early: {} games", partial.len());
    let (code, _, stderr) = run(&mut league_cmd(&out, &args, &bots));
    assert_eq!(code, 0, "{stderr}");
    let mut ids = journal_ids(&out);
    ids.sort();
    assert_eq!(ids, (0..24).collect::<Vec<_>>());
}

#[test]
fn gauntlet_standings_rank_by_score_rate_with_games_shown() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g");
    let (code, stdout, stderr) = run(arbiter()
        .args(["gauntlet", "--game", "gomoku", "--pairs", "2", "--out"])
        .arg(&out)
        .args([
            "--candidate",
            "builtin:greedy",
            "--baseline",
            "builtin:random",
            "g2=builtin:greedy",
            "r2=builtin:random",
        ]));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("pts/game"), "{stdout}");
    let rows = csv_rows(&out.join("standings.csv"));
    let games: BTreeMap<String, u32> = rows
        .iter()
        .map(|r| (r["bot"].clone(), r["games"].parse().unwrap()))
        .collect();
    assert_eq!(games["greedy"], 12, "the candidate plays every game");
    assert_eq!(games["random"], 4);
    let rates: Vec<f64> = rows.iter().map(|r| r["rate"].parse().unwrap()).collect();
    for (row, rate) in rows.iter().zip(&rates) {
        let points: f64 = row["points"].parse().unwrap();
        let games: f64 = row["games"].parse().unwrap();
        assert!((points / games - rate).abs() < 1e-3, "{row:?}");
    }
    assert!(
        rates.windows(2).all(|w| w[0] >= w[1]),
        "ranked by score rate: {rows:?}"
    );
    // No table writes a negative zero.
    for file in [
        "games.csv",
        "standings.csv",
        "pairwise.csv",
        "points_matrix.csv",
    ] {
        for row in csv_rows(&out.join(file)) {
            for (column, value) in row {
                assert!(
                    !(value.starts_with("-0") && value.parse::<f64>() == Ok(0.0)),
                    "{file} {column}: {value}"
                );
            }
        }
    }
}
