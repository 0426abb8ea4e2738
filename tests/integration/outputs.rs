//! What a teacher reads: a line per finished game, the `detail` of every failure in
//! games.csv and on the terminal, each game's wall time in games.csv, per-bot failure
//! counts in the standings, and `--quiet`.

use crate::common::{
    arbiter, arbiter_cmd, course_team, csv_rows, give_to_arbiter, journal_records, run, test_dir,
};
use std::path::Path;

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(path)
        .to_string_lossy()
        .into_owned()
}

/// A league of a built-in, a command that cannot be run (a file that is no program) and a
/// course bot that raises on its third move: every game involving one of the last two is
/// lost by its failure.
fn failing_league(out: &Path, extra: &[&str]) -> (i32, String, String) {
    let raiser = repo("bots/python/examples/misbehaving/raise_bot.py");
    std::fs::create_dir_all(out).unwrap();
    let ghost = out.join("arbiter-bot-program");
    std::fs::write(&ghost, "not a program\n").unwrap();
    let mut cmd = arbiter();
    cmd.arg("league")
        .arg("--out")
        .arg(out)
        .args(["--limit-ms", "5000", "-j", "2"])
        .args(extra)
        .arg("builtin:greedy")
        .arg(format!("ghost={}", ghost.display()))
        .arg(format!("raiser={raiser}"));
    run(&mut cmd)
}

#[test]
fn failures_are_explained_in_games_csv_on_the_terminal_and_counted_per_bot() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("league");
    let (code, stdout, stderr) = failing_league(&out, &[]);
    assert_eq!(code, 0, "{stderr}");

    let games = csv_rows(&out.join("games.csv"));
    assert_eq!(games.len(), 6);
    for g in &games {
        let detail = &g["detail"];
        match g["reason"].as_str() {
            "spawn_failed" => {
                assert!(
                    detail.contains("arbiter-bot-program") && !detail.contains('\n'),
                    "{g:?}"
                );
                // It ended before its first turn: no time in play.
                assert_eq!(g["duration_s"], "0.000", "{g:?}");
            }
            "exception" => assert_eq!(
                detail, "RuntimeError: deliberate failure on move 3 (raise_bot.py, line 12)",
                "{g:?}"
            ),
            other => panic!("unexpected reason {other}: {g:?}"),
        }
    }
    // One line per finished game, with the same detail.
    let lines: Vec<&str> = stdout.lines().filter(|l| l.starts_with("game ")).collect();
    assert_eq!(lines.len(), 6, "{stdout}");
    for g in &games {
        let line = lines
            .iter()
            .find(|l| l.starts_with(&format!("game {} (", g["game"])))
            .unwrap_or_else(|| panic!("no line for game {}: {stdout}", g["game"]));
        assert!(line.contains(&g["detail"]), "{line}");
        assert!(line.contains(&format!("by {}", g["reason"])), "{line}");
    }

    let standings = csv_rows(&out.join("standings.csv"));
    let counts = |bot: &str| {
        let row = standings.iter().find(|r| r["bot"] == bot).unwrap();
        (
            row["illegal_moves"].clone(),
            row["timeouts"].clone(),
            row["errors"].clone(),
        )
    };
    let n = |a: &str, b: &str, c: &str| (a.to_string(), b.to_string(), c.to_string());
    assert_eq!(counts("greedy"), n("0", "0", "0"));
    // The ghost never starts: it loses all four games by spawn_failed. The raiser loses
    // its two games against greedy by its exception and wins both against the ghost.
    assert_eq!(counts("ghost"), n("0", "0", "4"));
    assert_eq!(counts("raiser"), n("0", "0", "2"));
    assert!(stdout.contains("errors"), "{stdout}");
}

#[test]
fn quiet_leaves_out_the_lines_per_game() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = failing_league(&dir.path().join("q"), &["--quiet"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(!stdout.lines().any(|l| l.starts_with("game ")), "{stdout}");
    assert!(
        stdout.contains("raiser"),
        "the table is still printed: {stdout}"
    );
}

#[test]
fn play_prints_the_same_one_line_detail() {
    let raiser = repo("bots/python/examples/misbehaving/raise_bot.py");
    let (code, stdout, stderr) = run(arbiter().args([
        "play",
        "--rebel",
        &raiser,
        "--officer",
        "builtin:random",
        "--limit-ms",
        "5000",
    ]));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains(
            "officer (random) wins by exception after 3 rounds; illegal moves: rebel 0, officer 0; RuntimeError: deliberate failure on move 3 (raise_bot.py, line 12)"
        ),
        "{stdout}"
    );
}

/// Marks by the course formula over the scoring bots: 20 x_i / the best scoring x.
fn check_marks(rows: &[std::collections::BTreeMap<String, String>], non_scoring: &[&str]) {
    let points =
        |r: &std::collections::BTreeMap<String, String>| r["points"].parse::<f64>().unwrap();
    let best = rows
        .iter()
        .filter(|r| !non_scoring.contains(&r["bot"].as_str()))
        .map(points)
        .fold(0.0, f64::max);
    for row in rows {
        if non_scoring.contains(&row["bot"].as_str()) {
            assert_eq!(row["mark"], "", "{row:?}");
        } else {
            let expected = if best > 0.0 {
                20.0 * points(row) / best
            } else {
                0.0
            };
            let mark: f64 = row["mark"].parse().unwrap();
            assert!(
                (mark - expected).abs() < 0.001,
                "{row:?}: expected {expected}"
            );
        }
    }
}

#[test]
fn a_non_scoring_baseline_plays_and_ranks_but_the_best_scoring_bot_gets_twenty() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("ns");
    let (code, stdout, stderr) = run(arbiter()
        .args([
            "league",
            "-q",
            // Asalto's 1000 rounds of alphabeta moves took half a minute, and a built-in
            // searcher spends 40% of the move limit; who wins plays no part in what is
            // asserted.
            "--limit-ms",
            "30",
            "--round-limit",
            "30",
            "--seed",
            "5",
            "--non-scoring",
            "ref",
        ])
        .arg("--out")
        .arg(&out)
        .args(["ref=builtin:alphabeta", "builtin:greedy", "builtin:random"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("non-scoring ref"), "{stdout}");
    let rows = csv_rows(&out.join("standings.csv"));
    assert_eq!(rows.len(), 3, "the baseline is in the table");
    assert_eq!(
        rows.iter().find(|r| r["bot"] == "ref").unwrap()["games"],
        "4"
    );
    check_marks(&rows, &["ref"]);
    // The journal remembers it: `table` gives the same marks, and can mark differently.
    let (code, _, stderr) = run(arbiter().arg("table").arg(&out));
    assert_eq!(code, 0, "{stderr}");
    check_marks(&csv_rows(&out.join("standings.csv")), &["ref"]);
    let (code, _, stderr) = run(arbiter()
        .arg("table")
        .arg(&out)
        .args(["--non-scoring", "random"]));
    assert_eq!(code, 0, "{stderr}");
    check_marks(&csv_rows(&out.join("standings.csv")), &["random"]);
    // A name that is no bot of the tournament is refused, naming the bots.
    let (code, _, stderr) = run(arbiter()
        .arg("table")
        .arg(&out)
        .args(["--non-scoring", "nobody"]));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("nobody") && stderr.contains("ref, greedy, random"),
        "{stderr}"
    );
}

#[test]
fn scoring_false_in_tournaments_toml_keeps_a_bot_out_of_the_marks() {
    let dir = tempfile::tempdir().unwrap();
    let toml = "default = \"t\"\n[tournaments.t]\ngame = \"gomoku\"\nlimit_ms = 200\nout = \"out\"\nbots = [\n  { spec = \"builtin:alphabeta\", scoring = false },\n  { spec = \"builtin:greedy\" },\n  { spec = \"builtin:random\" },\n]\n";
    std::fs::write(dir.path().join("tournaments.toml"), toml).unwrap();
    let (code, stdout, stderr) = run(arbiter()
        .args(["run", "-q", "--config"])
        .arg(dir.path().join("tournaments.toml")));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("non-scoring alphabeta"), "{stdout}");
    check_marks(
        &csv_rows(&dir.path().join("out/standings.csv")),
        &["alphabeta"],
    );
    // Changing who scores is a change of the tournament's settings, named on resume.
    let toml = toml.replace(", scoring = false", "");
    std::fs::write(dir.path().join("tournaments.toml"), toml).unwrap();
    let (code, _, stderr) = run(arbiter()
        .args(["run", "-q", "--config"])
        .arg(dir.path().join("tournaments.toml")));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("non_scoring"), "{stderr}");
    assert!(
        stderr.contains("arbiter table"),
        "re-marking without replaying is offered: {stderr}"
    );
}

#[test]
fn exit_codes_match_the_documentation() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    let cases: Vec<(Vec<String>, i32, &str)> = vec![
        // Bad input of any kind: 2.
        (
            vec!["table".into(), missing.display().to_string()],
            2,
            "cannot read",
        ),
        (
            vec![
                "run".into(),
                "--config".into(),
                missing.join("t.toml").display().to_string(),
            ],
            2,
            "cannot read",
        ),
        (
            [
                "play",
                "--game",
                "hinger",
                "--first",
                "builtin:random",
                "--second",
                "builtin:random",
                "--board",
            ]
            .iter()
            .map(|s| s.to_string())
            .chain([missing.join("b.board").display().to_string()])
            .collect(),
            2,
            "cannot read",
        ),
        (
            [
                "league",
                "--out",
                "/tmp/unused",
                "builtin:random",
                "builtin:nosuch",
            ]
            .map(String::from)
            .to_vec(),
            2,
            "nosuch",
        ),
        (
            ["league", "--limit-ms", "0"].map(String::from).to_vec(),
            2,
            "limit",
        ),
        // A run whose results cannot be written failed: 1.
        (
            [
                "league",
                "-q",
                "--out",
                "/proc/arbiter-cannot-write-here",
                "builtin:random",
                "builtin:greedy",
            ]
            .map(String::from)
            .to_vec(),
            1,
            "/proc/arbiter-cannot-write-here",
        ),
        // A game played, whoever won: 0.
        (
            [
                "play",
                "--game",
                "gomoku",
                "--white",
                "builtin:random",
                "--black",
                "builtin:greedy",
            ]
            .map(String::from)
            .to_vec(),
            0,
            "",
        ),
    ];
    for (args, expected, says) in cases {
        let (code, stdout, stderr) = run(arbiter().args(&args));
        assert_eq!(code, expected, "{args:?}\n{stdout}\n{stderr}");
        assert!(stderr.contains(says), "{args:?}: {stderr}");
    }
}

/// What the sleepy bot of [`games_csv_gives_each_games_wall_time_at_least_its_bots_sleeps`]
/// sleeps before each of its moves, in seconds.
const SLEEP_S: f64 = 0.25;

#[test]
fn games_csv_gives_each_games_wall_time_at_least_its_bots_sleeps() {
    let dir = test_dir();
    let sleepy = course_team(
        dir.path(),
        "Team61",
        &format!(
            "import time\nimport randbot\n\nclass Player(randbot.Player):\n    \
             def play_rebel(self, board):\n        time.sleep({SLEEP_S})\n        \
             return super().play_rebel(board)\n    \
             def play_officer(self, board):\n        time.sleep({SLEEP_S})\n        \
             return super().play_officer(board)\n"
        ),
    );
    give_to_arbiter(dir.path());
    let out = dir.path().join("out");
    let (code, stdout, stderr) = run(&mut arbiter_cmd(
        &[
            "league",
            "--pairs",
            "1",
            "--round-limit",
            "4",
            "--limit-ms",
            "5000",
            "-j",
            "2",
            "--out",
            out.to_str().unwrap(),
            sleepy.to_str().unwrap(),
            "builtin:random",
            "builtin:greedy",
        ],
        &[],
    ));
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    let records: std::collections::BTreeMap<u64, _> = journal_records(&out).into_iter().collect();
    let games = csv_rows(&out.join("games.csv"));
    assert_eq!(games.len(), 6);
    for g in &games {
        let record = &records[&g["game"].parse::<u64>().unwrap()];
        let cell = &g["duration_s"];
        let seconds: f64 = cell
            .parse()
            .unwrap_or_else(|e| panic!("duration_s {cell:?}: {e}: {g:?}"));
        assert_eq!(
            cell.split('.').nth(1).map(str::len),
            Some(3),
            "seconds to the millisecond: {g:?}"
        );
        // Every turn lies within the game (the cell is rounded to the millisecond).
        let turns: f64 = record.moves.iter().map(|m| m.time_ms).sum::<f64>() / 1000.0;
        assert!(
            seconds >= turns - 0.002,
            "{seconds} s < its turns' {turns} s: {g:?}"
        );
        match record.players.iter().find(|(_, bot)| *bot == "Team61") {
            Some((role, _)) => {
                let slept = record.moves.iter().filter(|m| &m.side == role).count();
                assert!(slept >= 3, "the sleepy bot moved {slept} times: {g:?}");
                assert!(
                    seconds >= 0.95 * SLEEP_S * slept as f64,
                    "{seconds} s for {slept} moves of {SLEEP_S} s each: {g:?}"
                );
            }
            // Two built-ins in arbiter's own process: a few milliseconds, given a
            // generous margin on a busy machine.
            None => assert!(seconds < 1.0, "the built-ins' game took {seconds} s: {g:?}"),
        }
    }
}
