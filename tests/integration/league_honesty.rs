//! A league that says what it does: a refused rerun leaves its folder (and the class list
//! the marks go by) as it was, a class list that no longer matches the league is refused
//! by `table`, a closed stdout neither ends nor hides a league, `--help` says what
//! `--check` does, and built-ins that count for the marks are named.

use crate::common::{arbiter, course_random_bot, csv_rows, read, run, served};
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A course Asalto bot named after its team.
fn team_bot(team: &str) -> String {
    course_random_bot().replace("Team11", team)
}

/// Every file under `dir` with its bytes, by its path in `dir`.
fn files_of(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(at) = todo.pop() {
        for entry in std::fs::read_dir(&at).unwrap().flatten() {
            let path = entry.path();
            if entry.file_type().unwrap().is_dir() {
                todo.push(path);
            } else {
                let bytes = std::fs::read(&path).unwrap();
                files.insert(path.strip_prefix(dir).unwrap().to_path_buf(), bytes);
            }
        }
    }
    files
}

/// (name, team, status) of each row of marks.csv.
fn marked(out: &Path) -> Vec<(String, String, String)> {
    csv_rows(&out.join("marks.csv"))
        .into_iter()
        .map(|r| (r["name"].clone(), r["team"].clone(), r["status"].clone()))
        .collect()
}

fn league(out: &Path, roster: &Path, class: &Path, extra: &[&str]) -> (i32, String, String) {
    run(arbiter()
        .args(["league", "--round-limit", "20", "-j", "2", "-q"])
        .args(extra)
        .arg("--roster")
        .arg(roster)
        .arg("--out")
        .arg(out)
        .arg(class))
}

#[test]
fn a_refused_rerun_into_another_league_s_folder_changes_no_file_and_table_checks_the_kept_roster() {
    let dir = tempfile::tempdir().unwrap();
    let first = dir.path().join("class1");
    for team in ["Team01", "Team02", "Team03"] {
        write(&first.join(format!("{team}.py")), &team_bot(team));
    }
    let r1 = dir.path().join("r1.csv");
    write(&r1, "team,name\nTeam01,Ann\nTeam02,Ben\nTeam03,Cy\n");
    let out = dir.path().join("league");
    let (code, stdout, stderr) = league(&out, &r1, &first, &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let played = marked(&out);
    let names: Vec<&str> = played.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(names, ["Ann", "Ben", "Cy"], "{played:?}");
    assert!(played.iter().all(|r| r.2 == "played"), "{played:?}");
    let before = files_of(&out);
    assert!(
        before.contains_key(Path::new("roster.csv"))
            && before.keys().any(|p| p.starts_with("feedback")),
        "{:?}",
        before.keys()
    );

    // Another class, a zip among its hand-ins, into the same folder, checked first.
    let second = dir.path().join("class2");
    let zip_path = second.join("TeamA.zip");
    std::fs::create_dir_all(&second).unwrap();
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&zip_path).unwrap());
    zip.start_file("TeamA/TeamA.py", zip::write::SimpleFileOptions::default())
        .unwrap();
    zip.write_all(team_bot("TeamA").as_bytes()).unwrap();
    zip.finish().unwrap();
    write(&second.join("TeamB.py"), &team_bot("TeamB"));
    let r2 = dir.path().join("r2.csv");
    write(&r2, "team,name\nTeamA,Dan\nTeamB,Eve\n");
    let (code, stdout, stderr) = league(&out, &r2, &second, &["--check"]);
    assert_eq!(code, 2, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("was written with other settings"),
        "{stderr}"
    );
    // Refused before its check started a bot: no check table, no count of bots passing.
    assert!(
        !stdout.contains("passed the check") && !stdout.contains("failed the check"),
        "the check ran first:\n{stdout}"
    );
    let after = files_of(&out);
    assert_eq!(
        before.keys().collect::<Vec<_>>(),
        after.keys().collect::<Vec<_>>(),
        "the folder's files"
    );
    for (path, bytes) in &before {
        assert!(after[path] == *bytes, "{} changed", path.display());
    }

    // The tables are still the first league's, marked by its class list.
    let (code, stdout, stderr) = run(arbiter().arg("table").arg(&out));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert_eq!(marked(&out), played);

    // A class list of another league copied over the kept one is refused, naming the file
    // and the teams on each side, and nothing is rewritten.
    std::fs::copy(&r2, out.join("roster.csv")).unwrap();
    let marks = read(&out.join("marks.csv"));
    let (code, stdout, stderr) = run(arbiter().arg("table").arg(&out));
    assert_eq!(code, 2, "{stdout}\n{stderr}");
    assert!(
        stderr.contains(&format!("{}", out.join("roster.csv").display()))
            && stderr.contains("does not match the league's teams"),
        "{stderr}"
    );
    let roster_side = stderr
        .find("teams of the roster with no submission")
        .unwrap();
    let league_side = stderr
        .find("teams of the league with no student of the roster")
        .unwrap();
    assert!(
        stderr[roster_side..league_side].contains("TeamA (Dan")
            && stderr[roster_side..league_side].contains("TeamB (Eve"),
        "{stderr}"
    );
    for team in ["Team01", "Team02", "Team03"] {
        assert!(stderr[league_side..].contains(team), "{stderr}");
    }
    assert_eq!(read(&out.join("marks.csv")), marks, "marks.csv unchanged");
    // A league resumed on the folder refuses that class list too, before any game.
    let (code, _, stderr) = run(arbiter()
        .args(["league", "--round-limit", "20", "-q", "--out"])
        .arg(&out)
        .arg(&first));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("does not match the league's teams"),
        "{stderr}"
    );
    assert_eq!(read(&out.join("marks.csv")), marks, "marks.csv unchanged");
}

#[test]
fn a_league_given_a_partial_roster_is_rebuilt_by_table_with_that_roster() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("league");
    let roster = dir.path().join("part.csv");
    write(&roster, "team,name\nTeam01,Ann\n");
    let (code, _, stderr) = run(arbiter()
        .args([
            "league",
            "--game",
            "gomoku",
            "-q",
            "--partial-roster",
            "--roster",
        ])
        .arg(&roster)
        .arg("--out")
        .arg(&out)
        .args(["Team01=builtin:random", "Team02=builtin:greedy"]));
    assert_eq!(code, 0, "{stderr}");
    let rows = marked(&out);
    let (code, _, stderr) = run(arbiter().arg("table").arg(&out));
    assert_eq!(code, 0, "the folder says its roster is partial: {stderr}");
    assert_eq!(marked(&out), rows);
    // The same class list kept without that word (a folder of an older arbiter) is
    // refused, and accepted with --partial-roster.
    std::fs::remove_file(out.join("roster.partial")).unwrap();
    let (code, _, stderr) = run(arbiter().arg("table").arg(&out));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("Team02"), "{stderr}");
    let (code, _, stderr) = run(arbiter().arg("table").arg(&out).arg("--partial-roster"));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(marked(&out), rows);
}

#[test]
fn a_league_whose_stdout_is_closed_plays_every_game_and_writes_every_file() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    for team in ["Team01", "Team02", "Team03"] {
        write(&class.join(format!("{team}.py")), &team_bot(team));
    }
    let out = dir.path().join("league");
    // A line per game, read by a reader that quits after the first (`| head -1`).
    let mut child = arbiter()
        .args([
            "league",
            "--round-limit",
            "20",
            "--pairs",
            "2",
            "-j",
            "1",
            "--out",
        ])
        .arg(&out)
        .arg(&class)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut reader = std::io::BufReader::new(child.stdout.take().unwrap());
    let mut first = String::new();
    reader.read_line(&mut first).unwrap();
    assert!(!first.is_empty());
    drop(reader);
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("standard output was closed"),
        "said on stderr: {stderr}"
    );
    // 3 bots, 2 role-swapped pairs each pairing: 12 games, every one in every output.
    assert_eq!(csv_rows(&out.join("games.csv")).len(), 12, "{stderr}");
    let marks = csv_rows(&out.join("marks.csv"));
    assert_eq!(marks.len(), 3);
    assert!(marks.iter().all(|r| r["complete"] == "yes"), "{marks:?}");
    for team in ["Team01", "Team02", "Team03"] {
        assert!(
            out.join("feedback").join(format!("{team}.md")).is_file(),
            "{team}"
        );
    }
    assert!(out.join("report/index.html").is_file());
    assert!(read(&out.join("report/report.md")).contains("Team03"));
}

#[test]
fn league_help_says_check_leaves_a_failing_bot_out_and_plays_on() {
    let (code, help, _) = run(arbiter().args(["league", "--help"]));
    assert_eq!(code, 0);
    let check = &help[help.find("--check").unwrap()..];
    let check = &check[..check.find("\n  -").unwrap_or(check.len())];
    let check = check.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        check.contains("left out of the games (mark 0") && check.contains("the others play"),
        "{check}"
    );
    assert!(
        !check.contains("stop before any game if one fails"),
        "{check}"
    );
}

#[test]
fn built_ins_that_count_for_the_marks_are_named_once_unless_non_scoring() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("league");
    let bots = [
        format!("Team01={}", served("random")),
        format!("Team02={}", served("random")),
        "greedy=builtin:greedy".to_string(),
    ];
    let (code, _, stderr) = run(arbiter()
        .args(["league", "--game", "gomoku", "-q", "--out"])
        .arg(&out)
        .args(&bots));
    assert_eq!(code, 0, "{stderr}");
    let note = "the built-in bot greedy (builtin:greedy) counts for the marks";
    assert_eq!(stderr.matches(note).count(), 1, "{stderr}");
    assert!(
        stderr.contains("to keep it out of the marks, give --non-scoring greedy"),
        "{stderr}"
    );
    assert!(!stderr.contains("Team01 count"), "{stderr}");
    let out = dir.path().join("reference");
    let (code, _, stderr) = run(arbiter()
        .args([
            "league",
            "--game",
            "gomoku",
            "-q",
            "--non-scoring",
            "greedy",
            "--out",
        ])
        .arg(&out)
        .args(&bots));
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("counts for the marks"), "{stderr}");
    // A league of built-ins alone marks no team.
    let (code, _, stderr) = run(arbiter()
        .args(["league", "--game", "gomoku", "-q", "--out"])
        .arg(dir.path().join("builtins"))
        .args(["builtin:random", "builtin:greedy"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("for the marks"), "{stderr}");
    // A gauntlet gives no marks.
    let (code, _, stderr) = run(arbiter()
        .args(["gauntlet", "--game", "gomoku", "-q", "--out"])
        .arg(dir.path().join("g"))
        .args([
            "--candidate",
            "builtin:greedy",
            "--baseline",
            "builtin:random",
        ]));
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("for the marks"), "{stderr}");
}

#[test]
fn run_names_its_scoring_built_ins_and_refuses_a_kept_roster_of_other_teams() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("tournaments.toml");
    write(
        &config,
        &format!(
            "default = \"g\"\n[tournaments.g]\ngame = \"gomoku\"\nout = \"out\"\n\
             bots = [{{ name = \"Team01\", spec = \"builtin:random\" }}, \
             {{ name = \"Team02\", spec = \"{}\" }}, \
             {{ name = \"ref\", spec = \"builtin:greedy\", scoring = false }}]\n",
            served("random")
        ),
    );
    let (code, _, stderr) = run(arbiter().args(["run", "-q", "--config"]).arg(&config));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        stderr.matches("counts for the marks").count(),
        1,
        "{stderr}"
    );
    assert!(
        stderr.contains("the built-in bot Team01 (builtin:random) counts for the marks")
            && stderr.contains("give `scoring = false` on its bot in tournaments.toml"),
        "{stderr}"
    );
    assert!(!stderr.contains("ref (builtin:greedy)"), "{stderr}");
    assert!(!stderr.contains("Team02"), "{stderr}");
    // A class list of other teams in its folder is refused before any game.
    let out = dir.path().join("out");
    write(&out.join("roster.csv"), "team,name\nTeamA,Dan\n");
    let journal = read(&out.join("games.jsonl"));
    let (code, _, stderr) = run(arbiter().args(["run", "-q", "--config"]).arg(&config));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("does not match the league's teams") && stderr.contains("Team01"),
        "{stderr}"
    );
    assert_eq!(read(&out.join("games.jsonl")), journal);
}

#[test]
fn a_refused_run_leaves_its_folder_as_it_was_and_a_fresh_one_is_not_made() {
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("tournaments.toml");
    let toml = |folder: &str| {
        format!(
            "default = \"t\"\n[tournaments.t]\ngame = \"asalto\"\nround_limit = 6\nout = \"out\"\n\
             bots = [{{ spec = \"builtin:random\" }}, {{ folder = \"{folder}\" }}]\n"
        )
    };
    write(&dir.path().join("first/Team01.py"), &team_bot("Team01"));
    write(&config, &toml("first"));
    let (code, _, stderr) = run(arbiter().args(["run", "-q", "--config"]).arg(&config));
    assert_eq!(code, 0, "{stderr}");
    let out = dir.path().join("out");
    let before = files_of(&out);
    // Another class with a zip among its hand-ins, into the same folder: refused, and the
    // zip it unpacked to read it goes.
    let second = dir.path().join("second");
    std::fs::create_dir_all(&second).unwrap();
    let mut zip = zip::ZipWriter::new(std::fs::File::create(second.join("TeamA.zip")).unwrap());
    zip.start_file("TeamA/TeamA.py", zip::write::SimpleFileOptions::default())
        .unwrap();
    zip.write_all(team_bot("TeamA").as_bytes()).unwrap();
    zip.finish().unwrap();
    write(&config, &toml("second"));
    let (code, _, stderr) = run(arbiter().args(["run", "-q", "--config"]).arg(&config));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("other settings"), "{stderr}");
    assert_eq!(files_of(&out), before, "the refused run changed its folder");
    // Refused before any game into a folder of its own: no folder is left behind.
    write(
        &config,
        &toml("second").replace("out = \"out\"", "out = \"fresh\"\nrows = 4"),
    );
    let (code, _, stderr) = run(arbiter().args(["run", "-q", "--config"]).arg(&config));
    assert_eq!(code, 2, "{stderr}");
    assert!(!dir.path().join("fresh").exists(), "{stderr}");
}

#[test]
fn a_league_check_that_no_bot_passes_fails_says_why_and_leaves_no_folder() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    // As students hand them in: a colon forgotten, a package the course does not have.
    write(
        &class.join("Team01.py"),
        "class Player:\n    def play_rebel(self, board)\n        return None\n",
    );
    write(&class.join("Team02.py"), "import nosuchpackage\n");
    let out = dir.path().join("league");
    let (code, stdout, stderr) = run(arbiter()
        .args(["league", "--check", "-q", "--limit-ms", "2000", "--out"])
        .arg(&out)
        .arg(class.join("Team01.py"))
        .arg(class.join("Team02.py")));
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(
        stdout.contains("SyntaxError: expected ':' (Team01.py, line 2)")
            && stdout.contains("No module named 'nosuchpackage' (Team02.py, line 1)"),
        "{stdout}"
    );
    assert!(
        stderr.contains("fewer than two bots passed the check: no game was played"),
        "{stderr}"
    );
    // Nothing promises files that are not written.
    assert!(!stderr.contains("marks.csv"), "{stderr}");
    assert!(
        !out.exists(),
        "a league that played nothing leaves no folder"
    );
}
