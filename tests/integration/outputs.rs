//! What a teacher reads: a line per finished game, the `detail` of every failure in
//! games.csv and on the terminal, per-bot failure counts in the standings, and `--quiet`.

use crate::common::{arbiter, csv_rows, run};
use std::path::Path;

fn repo(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(path)
        .to_string_lossy()
        .into_owned()
}

/// A league of a built-in, a command that does not exist and a course bot that raises on
/// its third move: every game involving one of the last two is lost by its failure.
fn failing_league(out: &Path, extra: &[&str]) -> (i32, String, String) {
    let raiser = repo("bots/python/examples/misbehaving/raise_bot.py");
    let mut cmd = arbiter();
    cmd.arg("league")
        .arg("--out")
        .arg(out)
        .args(["--limit-ms", "5000", "-j", "2"])
        .args(extra)
        .args(["builtin:greedy", "ghost=/no/such/arbiter-bot-program"])
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
            "spawn_failed" => assert!(
                detail.contains("/no/such/arbiter-bot-program") && !detail.contains('\n'),
                "{g:?}"
            ),
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
