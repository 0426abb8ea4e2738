//! `arbiter suite advance`: the course's grader on our example suite.

use crate::common::{arbiter, run, shell_quote};
use std::path::Path;

const SUITE: &str = "tests/data/advance/suite";

fn suite_json(bot: &str, dir: &Path, extra: &[&str]) -> (serde_json::Value, String) {
    let mut args = vec![
        "suite",
        "advance",
        dir.to_str().unwrap(),
        "--bot",
        bot,
        "--json",
        "-j",
        "2",
    ];
    args.extend_from_slice(extra);
    let (code, out, err) = run(arbiter().args(&args));
    assert_eq!(code, 0, "{out}{err}");
    let last = out.lines().last().expect("a summary line");
    (serde_json::from_str(last).expect("JSON summary"), out)
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn grade7_passes_the_whole_example_suite_and_plays_the_games() {
    // One game: grade7 against itself takes seconds of CPU a game in a debug build.
    let (summary, out) = suite_json("builtin:grade7", &root().join(SUITE), &["--games", "1"]);
    assert_eq!(summary["passed"], summary["total"], "{out}");
    assert_eq!(summary["total"], 16);
    assert_eq!(summary["levels"]["7"]["black"], serde_json::json!([2, 2]));
    assert_eq!(
        summary["games"]["played"], 1,
        "all passed: the games are played"
    );
    assert!(summary["mark"].as_f64().unwrap() >= 85.0);
    assert!(!out.contains("failures:"), "{out}");
}

#[test]
fn grade6_fails_only_level7_cases_and_the_gate_stops_there() {
    let (summary, out) = suite_json("builtin:grade6", &root().join(SUITE), &[]);
    for level in ["4", "5", "6"] {
        for colour in ["white", "black"] {
            assert_eq!(
                summary["levels"][level][colour],
                serde_json::json!([2, 2]),
                "{out}"
            );
        }
    }
    let failures: Vec<&str> = out.lines().filter(|l| l.starts_with("  ")).collect();
    assert!(!failures.is_empty(), "{out}");
    for line in &failures {
        assert!(line.starts_with("  7/"), "{line}");
        assert!(
            line.contains("played [[") && line.contains("expected the answer"),
            "{line}"
        );
    }
    let passed7: u64 = ["white", "black"]
        .iter()
        .map(|c| summary["levels"]["7"][c][0].as_u64().unwrap())
        .sum();
    let expected = 75.0 + 10.0 * passed7 as f64 / 4.0;
    assert_eq!(summary["mark"].as_f64().unwrap(), expected);
    assert_eq!(
        summary["games"]["played"], 0,
        "games only after a full pass"
    );
}

#[test]
fn a_console_bot_is_graded_and_missing_levels_are_reported() {
    let dir = tempfile::tempdir().expect("temp dir");
    // Only level 4 and level 5 white: the rest is missing.
    for part in ["4", "5/white"] {
        let from = root().join(SUITE).join(part);
        let to = dir.path().join(part);
        copy_dir(&from, &to);
    }
    let bot = format!(
        "console:{} console-bot grade5 --seed 1",
        shell_quote(crate::common::arbiter_exe())
    );
    let (summary, out) = suite_json(&bot, dir.path(), &[]);
    assert_eq!(
        summary["levels"]["4"]["white"],
        serde_json::json!([2, 2]),
        "{out}"
    );
    assert_eq!(
        summary["levels"]["5"]["white"],
        serde_json::json!([2, 2]),
        "{out}"
    );
    assert!(out.contains("missing: 5/black"), "{out}");
    assert!(out.contains("missing: 7/white"), "{out}");
    assert_eq!(summary["mark"].as_f64().unwrap(), 50.0 + 15.0);
    assert_eq!(summary["games"]["played"], 0);
}

#[test]
fn a_console_bot_is_asked_its_name_once_per_run_not_once_per_case() {
    let dir = tempfile::tempdir().expect("temp dir");
    let log = dir.path().join("name-runs.log");
    let bot = dir.path().join("counting_bot.sh");
    // A console bot that notes every `name` run, then plays as grade7.
    std::fs::write(
        &bot,
        format!(
            "#!/bin/sh\nif [ \"$1\" = name ]; then echo run >> {log}; echo counter; exit 0; fi\nexec {arbiter} console-bot grade7 \"$@\"\n",
            log = shell_quote(log.to_str().unwrap()),
            arbiter = shell_quote(crate::common::arbiter_exe()),
        ),
    )
    .unwrap();
    std::fs::set_permissions(&bot, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let spec = format!("console:{}", shell_quote(bot.to_str().unwrap()));
    let (summary, out) = suite_json(
        &spec,
        &root().join(SUITE),
        &["--sandbox", "none", "--games", "0"],
    );
    assert_eq!(summary["total"], 16, "{out}");
    assert_eq!(summary["passed"], 16, "{out}");
    let runs = std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .count();
    // Once, when the bot is named: the cases find the name remembered (a run per case made
    // it 17, a run per worker 3).
    assert_eq!(runs, 1, "`name` ran {runs} times for 16 cases");
}

#[test]
fn a_bad_case_file_names_the_file_and_line() {
    let dir = tempfile::tempdir().expect("temp dir");
    let tests = dir.path().join("4/white/tests");
    std::fs::create_dir_all(&tests).unwrap();
    std::fs::create_dir_all(dir.path().join("4/white/answers")).unwrap();
    std::fs::write(tests.join("1.txt"), "mjdsgscjm\nbzzzzzzzb\n").unwrap();
    let (code, _, err) = run(arbiter().args([
        "suite",
        "advance",
        dir.path().to_str().unwrap(),
        "--bot",
        "builtin:grade7",
    ]));
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("1.txt") && err.contains("9 rows"), "{err}");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            copy_dir(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).unwrap();
        }
    }
}
