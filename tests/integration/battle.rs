//! Battle through the binary: games between built-ins, a league, and the solver checker
//! on the example solvers of bots/java/battle (one correct, one per kind of mistake).

use super::adapters_java::have_jdk;
use super::common::{arbiter, csv_rows, read, run};
use arbiter::record::GameRecord;
use serde_json::Value;
use std::path::{Path, PathBuf};

fn repo(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(path)
}

/// `arbiter solve battle --json` on `cases`: the JSON line of each solver, by name.
fn solve(solvers: &[&str], cases: &str, extra: &[&str]) -> (i32, Vec<Value>) {
    let mut cmd = arbiter();
    cmd.args(["solve", "battle", "--json", "-j", "2", "--cases"])
        .arg(repo(cases))
        .args(extra);
    for s in solvers {
        let spec = if s.starts_with("console:") {
            s.to_string()
        } else {
            repo(&format!("bots/java/battle/{s}")).display().to_string()
        };
        cmd.arg("--solver").arg(spec);
    }
    let (code, stdout, stderr) = run(&mut cmd);
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}\n{stderr}")))
        .collect();
    assert_eq!(
        lines.len(),
        solvers.len(),
        "stdout:\n{stdout}\nstderr:\n{stderr}"
    );
    (code, lines)
}

fn kinds(line: &Value, ab: bool) -> Vec<String> {
    line["failures"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["ab"] == ab)
        .map(|f| f["kind"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn minimax_wins_the_rules_page_example_with_its_margin_in_the_record() {
    let dir = tempfile::tempdir().unwrap();
    let record = dir.path().join("game.json");
    let (code, stdout, stderr) = run(arbiter()
        .args(["play", "--game", "battle", "--armies", "3,1,4,2;3,5;A;"])
        .args([
            "--a",
            "builtin:minimax",
            "--b",
            "builtin:greedy",
            "--record",
        ])
        .arg(&record));
    assert_eq!(code, 0, "{stdout}{stderr}");
    let r: GameRecord = serde_json::from_str(&read(&record)).unwrap();
    assert_eq!(r.winner.as_deref(), Some("a"));
    assert_eq!(r.reason, "army_destroyed");
    assert_eq!(
        r.final_board,
        serde_json::json!({"a": [[3, 1], [0, 2]], "b": [[0, 5]]})
    );
}

#[test]
fn a_battle_league_on_random_armies_ranks_minimax_above_random() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("league");
    let (code, stdout, stderr) = run(arbiter()
        .args([
            "league", "--game", "battle", "--units", "3", "--health", "2..6",
        ])
        .args(["--pairs", "6", "-j", "2", "--out"])
        .arg(&out)
        .args(["builtin:random", "builtin:minimax"]));
    assert_eq!(code, 0, "{stdout}{stderr}");
    let standings = csv_rows(&out.join("standings.csv"));
    assert_eq!(standings[0]["bot"], "minimax", "{standings:?}");
    let games = csv_rows(&out.join("games.csv"));
    assert_eq!(games.len(), 12);
    assert!(
        games.iter().all(|g| g["reason"] == "army_destroyed"),
        "{games:?}"
    );
}

#[test]
fn bad_armies_are_a_usage_error_naming_the_problem() {
    let (code, _, stderr) = run(arbiter()
        .args(["play", "--game", "battle", "--armies", "3,1,4;3,5;A;"])
        .args(["--a", "builtin:random", "--b", "builtin:random"]));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--armies") && stderr.contains("even count"),
        "{stderr}"
    );
    let (code, _, stderr) = run(arbiter().args(["play", "--game", "battle", "--health", "3..1"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("health"), "{stderr}");
}

#[test]
fn every_example_solver_gets_its_own_failure() {
    if !have_jdk("every_example_solver_gets_its_own_failure") {
        return;
    }
    let names = [
        "correct",
        "no_pruning",
        "wrong_score",
        "illegal_plan",
        "crash",
    ];
    let (code, lines) = solve(&names, "bots/java/battle/cases.txt", &[]);
    assert_eq!(code, 1);
    let by_name = |n: &str| lines.iter().find(|l| l["solver"] == n).unwrap();
    let correct = by_name("correct");
    assert_eq!(correct["cases"], 7);
    assert_eq!(
        correct["passed"],
        serde_json::json!({"false": 7, "true": 7}),
        "{correct}"
    );

    let no_pruning = by_name("no_pruning");
    assert!(kinds(no_pruning, false).is_empty(), "{no_pruning}");
    let pruned = kinds(no_pruning, true);
    assert!(
        !pruned.is_empty() && pruned.iter().all(|k| k == "no_pruning"),
        "{no_pruning}"
    );

    for (name, kind) in [
        ("wrong_score", "wrong_score"),
        ("illegal_plan", "illegal_plan"),
    ] {
        let line = by_name(name);
        for ab in [false, true] {
            let k = kinds(line, ab);
            assert!(k.contains(&kind.to_string()), "{name}: {line}");
        }
    }
    let crash = by_name("crash");
    assert_eq!(crash["passed"], serde_json::json!({"false": 0, "true": 0}));
    let failures = crash["failures"].as_array().unwrap();
    assert!(failures.iter().all(|f| f["kind"] == "crash"), "{crash}");
    // Its own print went to its output, not into the answer.
    assert!(
        failures[0]["reason"]
            .as_str()
            .unwrap()
            .contains("NullPointerException"),
        "{crash}"
    );
}

#[test]
fn an_endless_solver_is_a_timeout_and_is_killed_with_its_jvm() {
    if !have_jdk("an_endless_solver_is_a_timeout_and_is_killed_with_its_jvm") {
        return;
    }
    // A case no other test uses, so that the look for a surviving JVM below cannot find the
    // solvers of tests running at the same time.
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("endless.txt");
    std::fs::write(&cases, "2,1,5,2;4,3;A;\n").unwrap();
    let started = std::time::Instant::now();
    let (code, lines) = solve(
        &["endless"],
        cases.to_str().unwrap(),
        &["--ab", "true", "--limit-ms", "3000"],
    );
    assert_eq!(code, 1);
    assert_eq!(kinds(&lines[0], true), vec!["timeout"], "{}", lines[0]);
    // Well under a minute: the JVM was killed at the limit, not waited for.
    assert!(started.elapsed().as_secs() < 60);
    let leftovers = std::process::Command::new("pgrep")
        .args(["-f", "battle.BattleDriver 2,1,5,2;4,3;A; true"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    assert!(
        leftovers.is_empty(),
        "a solver JVM outlived its timeout: {leftovers}"
    );
}

#[test]
fn a_console_solver_answers_on_its_last_stdout_line() {
    let answer = "console:sh -c 'echo thinking about $0; echo \"A(1,0),B(0,1),A(0,0);3;8;\"'";
    let (code, lines) = solve(&[answer], "tests/data/battle/example.txt", &[]);
    assert_eq!(code, 0, "{}", lines[0]);
    assert_eq!(
        lines[0]["passed"],
        serde_json::json!({"false": 1, "true": 1})
    );
    let wrong = "console:sh -c 'echo \"A(1,0),B(0,1),A(0,0);3\"'";
    let (code, lines) = solve(
        &[wrong],
        "tests/data/battle/example.txt",
        &["--ab", "false"],
    );
    assert_eq!(code, 1);
    let f = &lines[0]["failures"][0];
    assert_eq!(f["kind"], "bad_format");
    assert!(
        f["reason"]
            .as_str()
            .unwrap()
            .contains("A(1,0),B(0,1),A(0,0);3"),
        "{f}"
    );
}

#[test]
fn a_case_file_with_a_wrong_expected_score_names_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases = dir.path().join("cases.txt");
    std::fs::write(&cases, "# a comment\n3,1,4,2;3,5;A; 5\n").unwrap();
    let (code, _, stderr) = run(arbiter()
        .args(["solve", "battle", "--solver", "console:true", "--cases"])
        .arg(&cases));
    assert_eq!(code, 2);
    assert!(
        stderr.contains("cases.txt:2") && stderr.contains("exact minimax value is 3"),
        "{stderr}"
    );
}

/// `arbiter solve battle --json` on the rules page's example with the solver folders
/// `solvers`: the exit code, each solver's JSON line by its folder's name, and all that
/// arbiter wrote.
fn solve_folders(solvers: &[&Path]) -> (i32, Vec<Value>, String) {
    let mut cmd = arbiter();
    cmd.args(["solve", "battle", "--json", "-j", "2", "--cases"])
        .arg(repo("tests/data/battle/example.txt"));
    for s in solvers {
        cmd.arg("--solver").arg(s);
    }
    let (code, stdout, stderr) = run(&mut cmd);
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}\n{stderr}")))
        .collect();
    assert_eq!(lines.len(), solvers.len(), "{stdout}{stderr}");
    (code, lines, format!("{stdout}{stderr}"))
}

/// A solver folder `dir/NAME` in the course's layout: the correct example's
/// BattleSolver.java, and Node.java as `node` says (`None`: none).
fn solver_folder(dir: &Path, name: &str, node: Option<&str>) -> PathBuf {
    let folder = dir.join(name);
    let battle = folder.join("src/battle");
    std::fs::create_dir_all(&battle).unwrap();
    let correct = repo("bots/java/battle/correct/src/battle");
    std::fs::copy(
        correct.join("BattleSolver.java"),
        battle.join("BattleSolver.java"),
    )
    .unwrap();
    if let Some(text) = node {
        std::fs::write(battle.join("Node.java"), text).unwrap();
    }
    folder
}

/// Every failure of a solver's line: (kind, reason).
fn failures(line: &Value) -> Vec<(String, String)> {
    line["failures"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            let text = |k: &str| f[k].as_str().unwrap_or_default().to_string();
            (text("kind"), text("reason"))
        })
        .collect()
}

#[test]
fn a_solver_whose_node_java_links_a_root_only_file_is_not_compiled_and_the_file_never_shows() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    // A file only the referee's user (root, where the tests run as root) can read, written
    // as Java so that javac would quote its line in an error.
    const SECRET: &str = "ROOT_ONLY_SECRET_4e1f9c";
    let closed = dir.path().join("closed");
    std::fs::create_dir(&closed).unwrap();
    let secret = closed.join("secret.java");
    std::fs::write(
        &secret,
        format!("package battle; class Node {{ {SECRET} }}\n"),
    )
    .unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::set_permissions(&closed, std::fs::Permissions::from_mode(0o700)).unwrap();
    let team = solver_folder(dir.path(), "team", None);
    std::os::unix::fs::symlink(&secret, team.join("src/battle/Node.java")).unwrap();
    let (code, lines, all) = solve_folders(&[&team]);
    assert_eq!(code, 1, "{all}");
    assert!(!all.contains(SECRET), "the root-only file was read: {all}");
    let failed = failures(&lines[0]);
    assert_eq!(failed.len(), 2, "both flags fail: {all}");
    for (kind, reason) in failed {
        assert_eq!(kind, "spawn_failed", "{all}");
        assert!(
            reason.contains(
                "src/battle/Node.java is a link out of the solver's folder: not followed"
            ),
            "{reason}"
        );
    }
}

#[test]
fn a_solver_linking_another_teams_node_or_sources_compiles_none_of_that_teams_code() {
    if !have_jdk("a_solver_linking_another_teams_node_or_sources_compiles_none_of_that_teams_code")
    {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // The other team's Node.java: the correct one, but any run of it fails with its marker.
    const MARKER: &str = "OTHER_TEAMS_NODE_7b2d";
    let node = std::fs::read_to_string(repo("bots/java/battle/correct/src/battle/Node.java"))
        .unwrap()
        .replacen(
            "public class Node {",
            &format!(
                "public class Node {{\n    static {{ if (System.nanoTime() != 0) throw new \
                 IllegalStateException(\"{MARKER}\"); }}"
            ),
            1,
        );
    assert!(node.contains(MARKER));
    let other = solver_folder(dir.path(), "other", Some(&node));
    // Its code copied in shows the marker: a solver that compiled it would say so.
    let copied = solver_folder(dir.path(), "copied", Some(&node));
    // A link to the other team's Node.java, by a relative path; and a `src/` that is a link
    // to the other team's whole `src/`.
    let linked = solver_folder(dir.path(), "linked", None);
    std::os::unix::fs::symlink(
        "../../../other/src/battle/Node.java",
        linked.join("src/battle/Node.java"),
    )
    .unwrap();
    let whole = dir.path().join("whole");
    std::fs::create_dir(&whole).unwrap();
    std::os::unix::fs::symlink(other.join("src"), whole.join("src")).unwrap();
    // A link that stays in the folder is not followed either.
    let inside = solver_folder(dir.path(), "inside", None);
    std::fs::create_dir(inside.join("lib")).unwrap();
    std::fs::write(inside.join("lib/Node.java"), &node).unwrap();
    std::os::unix::fs::symlink("../../lib/Node.java", inside.join("src/battle/Node.java")).unwrap();
    let (_, lines, all) = solve_folders(&[&copied, &linked, &whole, &inside]);
    let by_name = |n: &str| lines.iter().find(|l| l["solver"] == n).unwrap();
    for (kind, reason) in failures(by_name("copied")) {
        assert_eq!(kind, "crash", "{all}");
        assert!(reason.contains(MARKER), "{reason}");
    }
    for (name, told) in [
        (
            "linked",
            "src/battle/Node.java is a link out of the solver's folder: not followed",
        ),
        (
            "whole",
            "src is a link out of the solver's folder: not followed",
        ),
        ("inside", "src/battle/Node.java is a link: not followed"),
    ] {
        let failed = failures(by_name(name));
        assert_eq!(failed.len(), 2, "{name}: {all}");
        for (kind, reason) in failed {
            assert_eq!(kind, "spawn_failed", "{name}: {reason}");
            assert!(reason.contains(told), "{name}: {reason}");
            assert!(
                !reason.contains(MARKER),
                "{name} ran the other team's code: {reason}"
            );
        }
    }
}
