//! Gomoku and Hinger through the same commands as Asalto: play, perft, league, sprt.

use crate::common::*;

#[test]
fn perft_of_every_game_from_the_command_line() {
    for (args, expected) in [
        (vec!["perft", "asalto", "4"], "1610"),
        (vec!["perft", "gomoku", "2"], "4032"),
        (vec!["perft", "gomoku", "3"], "249984"),
    ] {
        let (code, stdout, stderr) = run(arbiter().args(&args));
        assert_eq!(code, 0, "{args:?}: {stderr}");
        assert_eq!(stdout.lines().last(), Some(expected), "{args:?}");
    }
}

#[test]
fn play_uses_each_games_role_names() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("g.json");
    let (code, stdout, stderr) = run(arbiter()
        .args([
            "play",
            "--game",
            "gomoku",
            "--white",
            "builtin:greedy",
            "--black",
            "builtin:random",
            "--record",
        ])
        .arg(&record));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("white greedy vs black random"), "{stdout}");
    let rec: serde_json::Value = serde_json::from_str(&read(&record)).unwrap();
    assert_eq!(rec["game"], "gomoku");
    assert!(
        rec["winner"].is_null() || rec["winner"] == "white" || rec["winner"] == "black",
        "{}",
        rec["winner"]
    );

    let board = dir.path().join("b.txt");
    std::fs::write(&board, "1 1 0 0 2\n1 1 0 0 0\n0 0 1 1 1\n0 0 0 1 1\n").unwrap();
    let (code, stdout, stderr) = run(arbiter()
        .args([
            "play",
            "--game",
            "hinger",
            "--first",
            "builtin:alphabeta",
            "--second",
            "builtin:random",
            "--board",
        ])
        .arg(&board));
    assert_eq!(code, 0, "{stderr}");
    // State A of the rules page has hingers at (1,1) and (2,2): alphabeta takes one at once.
    assert!(
        stdout.contains("first (alphabeta) wins by hinger after 1 rounds"),
        "{stdout}"
    );
}

#[test]
fn a_role_of_another_game_is_a_usage_error() {
    let (code, _, stderr) = run(arbiter().args([
        "play",
        "--game",
        "gomoku",
        "--rebel",
        "builtin:random",
        "--black",
        "builtin:random",
    ]));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--rebel is not a role of gomoku"),
        "{stderr}"
    );
    let (code, _, stderr) =
        run(arbiter().args(["play", "--game", "hinger", "--first", "builtin:random"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("--second BOT is required"), "{stderr}");
}

#[test]
fn gomoku_league_scores_two_one_zero() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gl");
    let (code, stdout, stderr) = run(arbiter()
        .args([
            "league",
            "--game",
            "gomoku",
            "--pairs",
            "2",
            "--limit-ms",
            "2000",
            "--out",
        ])
        .arg(&out)
        .args(["builtin:random", "builtin:greedy", "r2=builtin:random"]));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let games = csv_rows(&out.join("games.csv"));
    assert_eq!(games.len(), 12);
    assert!(games[0].contains_key("white") && games[0].contains_key("black"));
    let standings = csv_rows(&out.join("standings.csv"));
    for row in &standings {
        let wins: f64 = row["wins"].parse().unwrap();
        let ties: f64 = row["ties"].parse().unwrap();
        let points: f64 = row["points"].parse().unwrap();
        assert_eq!(points, 2.0 * wins + ties, "{row:?}");
    }
}

#[test]
fn hinger_league_plays_each_random_start_twice_with_players_swapped() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("hl");
    let (code, stdout, stderr) = run(arbiter()
        .args([
            "league",
            "--game",
            "hinger",
            "--rows",
            "4",
            "--cols",
            "4",
            "--density",
            "0.7",
            "--pairs",
            "3",
        ])
        .arg("--out")
        .arg(&out)
        .args(["builtin:random", "builtin:alphabeta"]));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let mut starts: std::collections::BTreeMap<String, Vec<(String, String)>> = Default::default();
    for (_, record) in journal_records(&out) {
        let first = record.players["first"].clone();
        let second = record.players["second"].clone();
        let start = record.start_board.to_string();
        starts.entry(start).or_default().push((first, second));
    }
    assert_eq!(starts.len(), 3, "three distinct start boards: {starts:?}");
    for games in starts.values() {
        assert_eq!(games.len(), 2);
        assert_eq!(games[0], (games[1].1.clone(), games[1].0.clone()));
    }
}

#[test]
fn sprt_runs_on_gomoku() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = run(arbiter().args([
        "sprt",
        "--out",
        dir.path().join("sprt").to_str().unwrap(),
        "--game",
        "gomoku",
        "--candidate",
        "builtin:greedy",
        "--baseline",
        "builtin:random",
        "--elo0",
        "0",
        "--elo1",
        "100",
        "--model",
        "logistic",
        "--json",
        "--max-pairs",
        "200",
    ]));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let v: serde_json::Value = serde_json::from_str(stdout.lines().last().unwrap()).unwrap();
    assert_eq!(v["verdict"], "H1");
}

#[test]
fn course_bots_in_both_languages_play_small_leagues() {
    let root = env!("CARGO_MANIFEST_DIR");
    let dir = tempfile::tempdir().unwrap();

    let agent = format!("{root}/bots/python/examples/hinger/a3_agent.py");
    let out = dir.path().join("hinger");
    let (code, stdout, stderr) = run(arbiter()
        .args([
            "league",
            "--game",
            "hinger",
            "--rows",
            "4",
            "--cols",
            "4",
            "--density",
            "0.8",
            "--pairs",
            "2",
        ])
        .args(["--limit-ms", "5000", "--out"])
        .arg(&out)
        .args([
            &format!("agent={agent}"),
            "builtin:random",
            "builtin:greedy",
        ]));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let games = csv_rows(&out.join("games.csv"));
    assert_eq!(games.len(), 12);
    for g in &games {
        assert!(
            ["hinger", "all_removed"].contains(&g["reason"].as_str()),
            "the agent plays by the rules: {g:?}"
        );
    }

    if !crate::adapters_java::have_jdk(
        "course_bots_in_both_languages_play_small_leagues (Java part)",
    ) {
        return;
    }
    let player = format!("{root}/bots/java/examples/Player123456789.java");
    let out = dir.path().join("gomoku");
    let (code, stdout, stderr) = run(arbiter()
        .args(["league", "--game", "gomoku", "--limit-ms", "5000", "--out"])
        .arg(&out)
        .args([player.as_str(), "builtin:random", "builtin:greedy"]));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let games = csv_rows(&out.join("games.csv"));
    assert_eq!(games.len(), 6);
    for g in &games {
        assert!(
            ["five_in_row", "no_window_left", "board_full"].contains(&g["reason"].as_str()),
            "{g:?}"
        );
    }
    let standings = csv_rows(&out.join("standings.csv"));
    assert!(
        standings.iter().any(|r| r["bot"] == "Player123456789"),
        "{standings:?}"
    );
}
