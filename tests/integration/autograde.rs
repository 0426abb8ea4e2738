//! `arbiter autograde` as Gradescope and PrairieLearn run it: one submission (a good bot,
//! one with a SyntaxError, one that stalls, one importing a missing package, a Java
//! player, nothing at all) played against reference bots, each run leaving a results
//! file that validates against the platform's specification (a JSON schema kept in
//! tests/data/gradescope) with the score the games give; and deploy/gradescope's
//! run_autograder run under a temporary root as Gradescope runs it.

use crate::common::{arbiter, course_random_bot, csv_rows, read, run, tool_here};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn schema() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/gradescope/results.schema.json")
}

/// Fails unless `results` validates against Gradescope's schema (Python's jsonschema);
/// false where the validator is missing and the test is skipped.
fn valid_for_gradescope(test: &str, results: &Path) -> bool {
    let here = std::process::Command::new("python3")
        .args(["-c", "import jsonschema"])
        .status()
        .is_ok_and(|s| s.success());
    if !tool_here(
        test,
        here,
        "Python's jsonschema",
        "apt-get install python3-jsonschema",
    ) {
        return false;
    }
    let (code, stdout, stderr) = run(std::process::Command::new("python3")
        .args([
            "-c",
            "import json, sys, jsonschema\n\
             jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))",
        ])
        .arg(results)
        .arg(schema()));
    assert_eq!(
        code,
        0,
        "{} is not Gradescope's shape:\n{stdout}\n{stderr}",
        results.display()
    );
    true
}

/// `arbiter autograde` of the folder `submission` against `baselines`, results into
/// `dir/results/results.json`: the exit code, stdout, stderr and the results.
fn autograde(
    dir: &Path,
    submission: &Path,
    baselines: &[&str],
    extra: &[&str],
) -> (i32, String, String, Value) {
    let results = dir.join("results/results.json");
    let mut cmd = arbiter();
    cmd.arg("autograde")
        .arg("--submission")
        .arg(submission)
        .arg("--results")
        .arg(&results)
        .args(extra);
    for b in baselines {
        cmd.args(["--baseline", b]);
    }
    let (code, stdout, stderr) = run(&mut cmd);
    let text = read(&results);
    let value: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
    (code, stdout, stderr, value)
}

fn submission(dir: &Path, files: &[(&str, &str)]) -> PathBuf {
    let folder = dir.join("submission");
    std::fs::create_dir_all(&folder).unwrap();
    for (name, text) in files {
        std::fs::write(folder.join(name), text).unwrap();
    }
    folder
}

/// Points and games of each bot in the Asalto games of the folder `out` (games.csv): a
/// win scores 1, the course's tie nothing.
fn points_per_game(out: &Path) -> std::collections::BTreeMap<String, (f64, u32)> {
    let mut by: std::collections::BTreeMap<String, (f64, u32)> = Default::default();
    for row in csv_rows(&out.join("games.csv")) {
        for bot in [&row["rebel"], &row["officer"]] {
            let entry = by.entry(bot.clone()).or_default();
            entry.1 += 1;
            if row["winner"] == *bot {
                entry.0 += 1.0;
            }
        }
    }
    by
}

fn failed_with(results: &Value, words: &str) {
    assert_eq!(results["score"], 0.0, "{results:#}");
    let check = &results["tests"][0];
    assert_eq!(check["name"], "The bot starts and answers", "{results:#}");
    assert_eq!(check["status"], "failed", "{results:#}");
    assert!(
        check["output"].as_str().unwrap().contains(words)
            && results["output"].as_str().unwrap().contains(words),
        "expected `{words}` in {results:#}"
    );
    assert_eq!(results["tests"].as_array().unwrap().len(), 1, "{results:#}");
}

#[test]
fn a_good_bot_gets_the_course_mark_a_test_per_opponent_and_a_place_on_the_leaderboard() {
    let dir = tempfile::tempdir().unwrap();
    let sub = submission(dir.path(), &[("Team05.py", &course_random_bot())]);
    let (code, stdout, stderr, results) = autograde(
        dir.path(),
        &sub,
        &["builtin:greedy", "builtin:random"],
        &["--round-limit", "60", "--pairs", "2", "--limit-ms", "2000"],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    valid_for_gradescope(
        "autograde_good_bot",
        &dir.path().join("results/results.json"),
    );
    let games = points_per_game(&dir.path().join("results/arbiter"));
    let (own, played) = games["Team05"];
    assert_eq!(played, 8, "{games:?}");
    let best = games
        .values()
        .map(|(p, g)| p / *g as f64)
        .fold(0.0, f64::max);
    let expected = ((20.0 * (own / played as f64) / best) * 100.0).round() / 100.0;
    assert_eq!(
        results["score"].as_f64().unwrap(),
        expected,
        "{games:?}\n{results:#}"
    );
    assert_eq!(results["max_score"], 20.0);
    let tests = results["tests"].as_array().unwrap();
    let names: Vec<&str> = tests.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "The bot starts and answers",
            "Against greedy",
            "Against random"
        ]
    );
    assert_eq!(tests[0]["status"], "passed");
    for t in &tests[1..] {
        assert_eq!(t["max_score"], 4.0, "{t:#}");
        assert!(
            t["output"].as_str().unwrap().contains("of 4 games"),
            "{t:#}"
        );
    }
    let scored: f64 = tests[1..]
        .iter()
        .map(|t| t["score"].as_f64().unwrap())
        .sum();
    assert_eq!(scored, own, "{results:#}");
    let board: Vec<&str> = results["leaderboard"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["name"].as_str().unwrap())
        .collect();
    assert_eq!(board, ["Points per game", "Elo", "Mark"], "{results:#}");
    assert_eq!(results["leaderboard"][2]["value"], results["score"]);
    let output = results["output"].as_str().unwrap();
    assert!(
        output.contains("Your bot: `Team05.py`") && output.contains("It played 8 of 8 games"),
        "{output}"
    );
    // The student's text names no path of the machine's.
    assert!(!output.contains(dir.path().to_str().unwrap()), "{output}");
}

#[test]
fn a_bot_with_a_syntax_error_gets_0_and_its_error_with_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let sub = submission(
        dir.path(),
        &[(
            "Team07.py",
            "class Player:\n    def play(self board):\n        pass\n",
        )],
    );
    let (code, stdout, stderr, results) = autograde(dir.path(), &sub, &["builtin:greedy"], &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    valid_for_gradescope(
        "autograde_syntax_error",
        &dir.path().join("results/results.json"),
    );
    failed_with(&results, "SyntaxError");
    failed_with(&results, "Team07.py, line 2");
}

#[test]
fn a_bot_importing_a_missing_package_gets_0_and_the_missing_module() {
    let dir = tempfile::tempdir().unwrap();
    let source = format!("import tensorflow_not_here\n{}", course_random_bot());
    let sub = submission(dir.path(), &[("Team08.py", &source)]);
    let (code, stdout, stderr, results) = autograde(dir.path(), &sub, &["builtin:greedy"], &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    valid_for_gradescope(
        "autograde_missing_package",
        &dir.path().join("results/results.json"),
    );
    failed_with(&results, "No module named 'tensorflow_not_here'");
}

#[test]
fn a_bot_that_stalls_gets_0_for_running_out_of_time_and_one_slowed_down_ends_within_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let stalls = format!(
        "{}\nimport time\n_play = Player.play_rebel\nPlayer.play_rebel = lambda self, b: (time.sleep(30), _play(self, b))[1]\n\
         _play_o = Player.play_officer\nPlayer.play_officer = lambda self, b: (time.sleep(30), _play_o(self, b))[1]\n",
        course_random_bot()
    );
    let sub = submission(dir.path(), &[("Team09.py", &stalls)]);
    let (code, stdout, stderr, results) = autograde(
        dir.path(),
        &sub,
        &["builtin:greedy"],
        &["--limit-ms", "500"],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    valid_for_gradescope("autograde_stalls", &dir.path().join("results/results.json"));
    failed_with(&results, "ran out of time");

    // Answering well inside the move limit but slowly, its games cannot all be played in
    // a budget of 10 s: the run stops in time and counts what was played.
    let slow = dir.path().join("slow");
    let source = format!(
        "{}\nimport time\n_r = Player.play_rebel\nPlayer.play_rebel = lambda self, b: (time.sleep(0.05), _r(self, b))[1]\n\
         _o = Player.play_officer\nPlayer.play_officer = lambda self, b: (time.sleep(0.05), _o(self, b))[1]\n",
        course_random_bot()
    );
    let sub = submission(&slow, &[("Team10.py", &source)]);
    let started = std::time::Instant::now();
    let (code, stdout, stderr, results) = autograde(
        &slow,
        &sub,
        &["builtin:greedy", "builtin:random"],
        &[
            "--budget",
            "10",
            "--pairs",
            "20",
            "--limit-ms",
            "5000",
            "-j",
            "1",
        ],
    );
    let took = started.elapsed();
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    valid_for_gradescope("autograde_budget", &slow.join("results/results.json"));
    // Generous: the budget is 10 s, a run that ignored it would take minutes.
    assert!(took.as_secs() < 30, "took {took:?}");
    let output = results["output"].as_str().unwrap();
    assert!(
        output.contains("ran out before every game was played"),
        "{output}"
    );
    let played: u64 = results["tests"].as_array().unwrap()[1..]
        .iter()
        .map(|t| t["max_score"].as_f64().unwrap() as u64)
        .sum();
    assert!(played < 80, "{results:#}");
    assert!(
        output.contains(&format!("It played {played} of 80 games")),
        "{output}"
    );
}

#[test]
fn an_empty_submission_gets_0_and_what_to_hand_in() {
    let dir = tempfile::tempdir().unwrap();
    let sub = submission(dir.path(), &[]);
    let (code, stdout, stderr, results) = autograde(dir.path(), &sub, &["builtin:greedy"], &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    valid_for_gradescope("autograde_empty", &dir.path().join("results/results.json"));
    failed_with(&results, "the submission is empty");
    failed_with(&results, "hand in your bot file");
    // A stray file that is no bot says so too.
    let stray = dir.path().join("stray");
    let sub = submission(&stray, &[("notes.txt", "my bot is in the next upload")]);
    let (code, _, _, results) = autograde(&stray, &sub, &["builtin:greedy"], &[]);
    assert_eq!(code, 0);
    failed_with(&results, "no bot found in the submission");
}

#[test]
fn a_java_player_is_played_and_prairielearn_gets_the_same_score_out_of_1() {
    if !crate::adapters_java::have_jdk("autograde_java_player") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let player = crate::submissions::student_player("AnaPlayer");
    let sub = submission(dir.path(), &[("AnaPlayer.java", &player)]);
    let args = ["--game", "gomoku", "--pairs", "1", "--limit-ms", "5000"];
    let (code, stdout, stderr, results) = autograde(
        dir.path(),
        &sub,
        &["builtin:random", "builtin:greedy"],
        &args,
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    valid_for_gradescope("autograde_java", &dir.path().join("results/results.json"));
    assert_eq!(results["tests"][0]["status"], "passed", "{results:#}");
    assert_eq!(results["tests"].as_array().unwrap().len(), 3, "{results:#}");
    let score = results["score"].as_f64().unwrap();
    assert!(
        results["output"]
            .as_str()
            .unwrap()
            .contains("`AnaPlayer.java`")
    );

    let pl = dir.path().join("pl");
    let mut args = args.to_vec();
    args.extend(["--format", "prairielearn"]);
    let (code, stdout, stderr, results) =
        autograde(&pl, &sub, &["builtin:random", "builtin:greedy"], &args);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert_eq!(results["gradable"], true);
    let fraction = results["score"].as_f64().unwrap();
    assert!(
        (fraction - score / 20.0).abs() < 1e-9,
        "{fraction} against {score}"
    );
    let tests = results["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 3, "{results:#}");
    assert!(
        tests
            .iter()
            .all(|t| t["points"].is_number() && t["max_points"].is_number())
    );
}

#[test]
fn a_reference_bot_that_does_not_exist_is_the_courses_error_told_to_the_student_and_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let sub = submission(dir.path(), &[("Team05.py", &course_random_bot())]);
    let (code, _, stderr, results) = autograde(dir.path(), &sub, &["builtin:nosuchbot"], &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("nosuchbot"), "{stderr}");
    assert_eq!(results["score"], 0.0);
    assert!(
        results["output"]
            .as_str()
            .unwrap()
            .contains("the course's setup failed, not your bot"),
        "{results:#}"
    );
}

/// deploy/gradescope as a course uploads it: its run_autograder, in a copy of
/// Gradescope's folders under a temporary root, with the arbiter binary beside it.
#[test]
fn gradescopes_run_autograder_grades_a_submission_in_gradescopes_folders() {
    let root = tempfile::tempdir().unwrap();
    let source = root.path().join("source");
    std::fs::create_dir_all(&source).unwrap();
    let deploy = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/gradescope");
    for f in ["run_autograder", "setup.sh"] {
        std::fs::copy(deploy.join(f), source.join(f)).unwrap();
    }
    let submission = root.path().join("submission");
    std::fs::create_dir_all(&submission).unwrap();
    std::fs::write(submission.join("Team05.py"), course_random_bot()).unwrap();
    std::fs::create_dir_all(root.path().join("results")).unwrap();
    // The course's settings as a teacher edits them: quicker games for the test.
    let script = read(&source.join("run_autograder"))
        .replace("PAIRS=2", "PAIRS=1")
        .replace("LIMIT_MS=10000", "LIMIT_MS=2000")
        .replace("EXTRA=()", "EXTRA=(--round-limit 60)")
        .replace("builtin:alphabeta)", "builtin:random)");
    std::fs::write(source.join("run_autograder"), script).unwrap();
    let (code, stdout, stderr) = run(std::process::Command::new("bash")
        .arg(source.join("run_autograder"))
        .env("AUTOGRADER_ROOT", root.path())
        .env("ARBITER", crate::common::arbiter_exe()));
    let results = root.path().join("results/results.json");
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let value: Value = serde_json::from_str(&read(&results)).unwrap();
    valid_for_gradescope("autograde_run_autograder", &results);
    let tests = value["tests"].as_array().unwrap();
    let names: Vec<&str> = tests.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        [
            "The bot starts and answers",
            "Against greedy",
            "Against random"
        ],
        "{value:#}"
    );
    assert!(
        tests
            .iter()
            .all(|t| t["max_score"] == 0.0 || t["max_score"] == 2.0)
    );
    // The games are kept beside the results, and the bot was confined as usual.
    let games = root.path().join("results/games");
    assert!(games.join("games.jsonl").is_file() && games.join("games.csv").is_file());
    assert!(
        stdout.contains("confinement: namespaces") || stdout.contains("confinement: landlock"),
        "{stdout}"
    );
}
