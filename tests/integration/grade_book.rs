//! What a teacher hands back: a learning platform's "download all" folder with a roster, a
//! broken team, a team whose folder holds no bot and a team missing from the folder; every
//! team and every student ends up with a row in marks.csv, a feedback file and a place in
//! the report. A mistyped path is bad input everywhere.

use crate::common::{arbiter, course_random_bot, csv_rows, read, run};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A course bot named after its team.
fn team_bot(team: &str) -> String {
    course_random_bot().replace("Team11", team)
}

/// A team whose file has a syntax error on its line 4, and one importing a missing module.
const SYNTAX_ERROR: &str = "import random\n\nclass Player:\n    def __init__(self)\n        pass\n";
const MISSING_MODULE: &str = "import no_such_module_here\n\nclass Player:\n    pass\n";

/// The folder a platform hands out: a folder per student holding what they submitted.
fn platform_folder(dir: &Path) -> PathBuf {
    let class = dir.join("class");
    // Both students of Team01 hand in its zip.
    for student in ["alice_1001", "frank_1006"] {
        let zip_path = class.join(format!("{student}_assignsubmission_file_/Team01.zip"));
        std::fs::create_dir_all(zip_path.parent().unwrap()).unwrap();
        let mut zip = zip::ZipWriter::new(std::fs::File::create(&zip_path).unwrap());
        zip.start_file("Team01/Team01.py", zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(team_bot("Team01").as_bytes()).unwrap();
        zip.finish().unwrap();
    }
    write(
        &class.join("bob_1002_assignsubmission_file_/Team02.py"),
        &team_bot("Team02"),
    );
    write(
        &class.join("carol_1003_assignsubmission_file_/Team03.py"),
        SYNTAX_ERROR,
    );
    write(
        &class.join("dave_1004_assignsubmission_file_/Team04.py"),
        MISSING_MODULE,
    );
    write(
        &class.join("erin_1005_assignsubmission_file_/notes.txt"),
        "we ran out of time\n",
    );
    write(&class.join("README.txt"), "Download of all submissions\n");
    class
}

/// Team01 has two students, who both handed in its zip; Team05's folder holds no bot;
/// Team06 handed nothing in.
const ROSTER: &str = "id,name,email,team\n\
    1001,Alice,alice@example.org,Team01\n\
    1006,Frank,frank@example.org,team01\n\
    1002,Bob,bob@example.org,Team02\n\
    1003,Carol,carol@example.org,Team03\n\
    1004,Dave,dave@example.org,Team04\n\
    1005,Erin,erin@example.org,Team05\n\
    1007,Gina,gina@example.org,Team06\n";

#[test]
fn a_platform_download_with_a_roster_gives_every_team_and_student_a_mark_and_a_status() {
    let dir = tempfile::tempdir().unwrap();
    let class = platform_folder(dir.path());
    let roster = dir.path().join("roster.csv");
    write(&roster, ROSTER);
    let out = dir.path().join("league");
    let (code, stdout, stderr) = run(arbiter()
        .args([
            "league",
            "--game",
            "asalto",
            "--round-limit",
            "20",
            "-j",
            "2",
            "-q",
        ])
        .arg("--roster")
        .arg(&roster)
        .arg("--out")
        .arg(&out)
        .arg(&class));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    // The terminal shows the entry left out as a row of its own, mark 0; the README is no
    // submission.
    assert!(stdout.contains("Left out: 1 entry"), "{stdout}");
    assert!(
        stderr.contains("ignored ") && stderr.contains("README.txt: a README or notes"),
        "{stderr}"
    );
    // Erin's folder holds no bot: her platform id names her, so it is her team's entry.
    assert!(
        stderr.contains(
            "handed in `erin_1005_assignsubmission_file_`, which is left out: marked as Team05"
        ),
        "{stderr}"
    );
    // The zip handed in twice is one bot, and the teacher is told.
    assert!(
        stderr.contains("frank_1006_assignsubmission_file_ holds the same files as")
            && stderr.contains("alice_1001_assignsubmission_file_: one bot, Team01"),
        "{stderr}"
    );
    assert!(stdout.contains("marks for the grade book"), "{stdout}");

    // Named as their files say, the zip in its student folder included.
    let standings = csv_rows(&out.join("standings.csv"));
    let mark_of: BTreeMap<&str, &str> = standings
        .iter()
        .map(|r| (r["bot"].as_str(), r["mark"].as_str()))
        .collect();
    for team in ["Team01", "Team02", "Team03", "Team04"] {
        assert!(mark_of.contains_key(team), "{team}: {standings:?}");
    }
    let left: Vec<&str> = standings
        .iter()
        .filter(|r| !r["left_out"].is_empty())
        .map(|r| r["bot"].as_str())
        .collect();
    assert_eq!(left, ["Team05"]);

    let marks = csv_rows(&out.join("marks.csv"));
    let by_name: BTreeMap<&str, &BTreeMap<String, String>> =
        marks.iter().map(|r| (r["name"].as_str(), r)).collect();
    // Every student of the roster, with their own columns.
    for name in ["Alice", "Frank", "Bob", "Carol", "Dave", "Erin", "Gina"] {
        assert!(by_name.contains_key(name), "{name}: {marks:?}");
    }
    assert_eq!(by_name["Alice"]["email"], "alice@example.org");
    // The right mark: the standings' mark of the student's team (case aside).
    for (name, team) in [("Alice", "Team01"), ("Frank", "Team01"), ("Bob", "Team02")] {
        let row = by_name[name];
        assert_eq!(row["team"], team, "{row:?}");
        let mark: f64 = row["mark"].parse().unwrap();
        let expected: f64 = mark_of[team].parse().unwrap();
        assert!(
            (mark - expected).abs() < 0.006,
            "{name}: {row:?} vs {expected}"
        );
        assert_eq!(row["games"], "6", "{row:?}");
        assert_eq!(row["status"], "played", "{row:?}");
    }
    // A status a teacher understands, with the student's error line.
    let carol = by_name["Carol"];
    assert_eq!(carol["mark"], "0.00");
    assert!(
        carol["status"].starts_with("could not start: SyntaxError")
            && carol["status"].contains("Team03.py, line 4"),
        "{carol:?}"
    );
    let dave = by_name["Dave"];
    assert!(
        dave["status"].starts_with("could not start: ModuleNotFoundError"),
        "{dave:?}"
    );
    let erin = by_name["Erin"];
    assert!(
        erin["status"].starts_with("left out: no bot") && erin["mark"] == "0.00",
        "{erin:?}"
    );
    assert_eq!(by_name["Gina"]["status"], "no submission");
    assert_eq!(by_name["Gina"]["mark"], "0.00");
    // Every row is a student of the roster, and the league played out: the marks are final.
    assert_eq!(marks.len(), 7, "{marks:?}");
    assert!(marks.iter().all(|r| r["complete"] == "yes"), "{marks:?}");

    // A feedback file for every team, naming its failures.
    let feedback = |team: &str| read(&out.join("feedback").join(format!("{team}.md")));
    let team03 = feedback("Team03");
    assert!(team03.contains("**Mark: 0.00 of 20**"), "{team03}");
    assert!(team03.contains("could not start: SyntaxError"), "{team03}");
    assert!(team03.contains("(Team03.py, line 4)"), "{team03}");
    let team01 = feedback("Team01");
    assert!(team01.contains("m = 20 × x / x_winner"), "{team01}");
    assert!(
        team01.contains("## Games") && team01.contains("| Team02 |"),
        "{team01}"
    );
    assert!(team01.contains("blocked turns"), "{team01}");
    assert!(feedback("Team06").contains("No submission was found"));
    assert!(feedback("Team05").contains("left out"));
    assert!(!out.join("feedback/README.md").exists());

    // The report shows the failures and the entries left out.
    let report = read(&out.join("report/report.md"));
    assert!(report.contains("## Problems"), "{report}");
    assert!(report.contains("SyntaxError"), "{report}");
    assert!(!report.contains("README"), "{report}");
    assert!(report.contains("## Teams"), "{report}");
    // A section per team, its failures with their first error line.
    let team03 = report
        .split("## Team03")
        .nth(1)
        .expect("a section for Team03");
    let team03 = team03.split("\n## ").next().unwrap_or_default();
    assert!(team03.contains("Mark 0.00 of 20"), "{team03}");
    assert!(team03.contains("could not start: SyntaxError"), "{team03}");
    // A team of the roster that handed nothing in is in the report too.
    assert!(report.contains("## Team06"), "{report}");
    assert!(report.contains("## Team05"), "{report}");
    assert!(
        report.contains("| illegal | blocked | timeouts | errors |"),
        "{report}"
    );
}

#[test]
fn a_double_failure_names_both_failures_and_is_a_loss_for_both() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    write(&class.join("Team03.py"), SYNTAX_ERROR);
    write(&class.join("Team04.py"), MISSING_MODULE);
    write(&class.join("Team05.py"), &team_bot("Team05"));
    let out = dir.path().join("league");
    let (code, stdout, stderr) = run(arbiter()
        .args([
            "league",
            "--game",
            "asalto",
            "--round-limit",
            "10",
            "-q",
            "--out",
        ])
        .arg(&out)
        .arg(&class));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let games = csv_rows(&out.join("games.csv"));
    let doubles: Vec<_> = games
        .iter()
        .filter(|g| g["reason"] == "both_failed")
        .collect();
    assert_eq!(doubles.len(), 2, "{games:?}");
    for g in &doubles {
        assert!(g["detail"].contains("SyntaxError"), "{g:?}");
        assert!(g["detail"].contains("ModuleNotFoundError"), "{g:?}");
        assert_eq!(g["winner"], "", "{g:?}");
    }
    let standings = csv_rows(&out.join("standings.csv"));
    for row in standings.iter().filter(|r| r["bot"] != "Team05") {
        // Four games each, all lost: two to Team05, two with each other.
        assert_eq!(
            (
                row["losses"].as_str(),
                row["ties"].as_str(),
                row["points"].as_str()
            ),
            ("4", "0", "0"),
            "{row:?}"
        );
        assert_eq!(row["errors"], "4", "{row:?}");
    }
    let marks = csv_rows(&out.join("marks.csv"));
    let team03 = marks.iter().find(|r| r["team"] == "Team03").unwrap();
    assert_eq!(team03["mark"], "0.00");
    assert!(
        team03["status"].starts_with("could not start: SyntaxError"),
        "its own failure, not the shared one: {team03:?}"
    );
}

#[test]
fn input_that_cannot_be_meant_is_refused_before_any_game() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    write(&class.join("Team01.py"), &team_bot("Team01"));
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let out = dir.path().join("out");
    let class_text = class.to_string_lossy().into_owned();
    let empty_text = empty.to_string_lossy().into_owned();
    let out_text = out.to_string_lossy().into_owned();
    let record = dir.path().join("nowhere/game.json");
    let record_text = record.to_string_lossy().into_owned();
    let cases: [(Vec<&str>, &str); 5] = [
        // A folder where one bot is expected.
        (
            vec![
                "play",
                "--rebel",
                &class_text,
                "--officer",
                "builtin:random",
            ],
            "is a folder, and one bot is expected here",
        ),
        // A record that could not be written, known before the game.
        (
            vec![
                "play",
                "--rebel",
                "builtin:random",
                "--officer",
                "builtin:greedy",
                "--record",
                &record_text,
            ],
            "its folder does not exist",
        ),
        // An empty folder of submissions: no check of nothing, no league of the rest.
        (vec!["check", &empty_text], "holds no file or folder"),
        (
            vec![
                "league",
                "--out",
                &out_text,
                &empty_text,
                "builtin:random",
                "builtin:greedy",
            ],
            "holds no file or folder",
        ),
        // A rating no sum keeps: the table would print inf.
        (
            vec![
                "league",
                "--out",
                &out_text,
                "--anchor",
                "greedy=1e308",
                "builtin:random",
                "builtin:greedy",
            ],
            "a rating from -100000 to 100000",
        ),
    ];
    for (args, expected) in cases {
        let (code, stdout, stderr) = run(arbiter().args(&args));
        assert_eq!(code, 2, "{args:?}\n{stdout}\n{stderr}");
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
        assert!(
            !stdout.contains(" wins by "),
            "no game was played: {stdout}"
        );
        assert!(!out.join("games.jsonl").exists(), "{args:?}");
    }
}

#[test]
fn a_roster_where_no_marks_are_given_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let roster = dir.path().join("roster.csv");
    write(&roster, "team,name\nTeam01,Ann\n");
    // In tournaments.toml, at the roster's line.
    let config = dir.path().join("tournaments.toml");
    write(
        &config,
        "default = \"g\"\n[tournaments.g]\ngame = \"gomoku\"\nformat = \"gauntlet\"\n\
         out = \"out\"\nroster = \"roster.csv\"\n\
         bots = [{ spec = \"builtin:greedy\" }, { spec = \"builtin:random\" }]\n",
    );
    let (code, _, stderr) = run(arbiter().args(["run", "--config"]).arg(&config));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("tournaments.toml:6") && stderr.contains("only a round robin gives marks"),
        "{stderr}"
    );
    assert!(
        !dir.path().join("out/games.jsonl").exists(),
        "no game was played"
    );
    // On a finished gauntlet's folder.
    let out = dir.path().join("g");
    let (code, _, stderr) = run(arbiter()
        .args(["gauntlet", "--game", "gomoku", "--out"])
        .arg(&out)
        .args([
            "--candidate",
            "builtin:greedy",
            "--baseline",
            "builtin:random",
        ]));
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = run(arbiter()
        .arg("table")
        .arg(&out)
        .arg("--roster")
        .arg(&roster));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("holds a gauntlet"), "{stderr}");
    assert!(!out.join("roster.csv").exists(), "the roster was not kept");
}

#[test]
fn a_mistyped_bot_path_is_bad_input_naming_it_in_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out").to_string_lossy().into_owned();
    let commands: [Vec<&str>; 5] = [
        vec!["league", "--game", "asalto", "--out", &out, "submisions/"],
        vec!["check", "--game", "asalto", "submisions/"],
        vec![
            "gauntlet",
            "--game",
            "asalto",
            "--out",
            &out,
            "--candidate",
            "submisions/Team01.pyc",
            "--baseline",
            "builtin:random",
        ],
        vec![
            "play",
            "--game",
            "asalto",
            "--rebel",
            "submisions",
            "--officer",
            "builtin:random",
        ],
        vec![
            "sprt",
            "--game",
            "asalto",
            "--out",
            &out,
            "--elo0",
            "0",
            "--elo1",
            "20",
            "--candidate",
            "./submisions/new",
            "--baseline",
            "builtin:random",
        ],
    ];
    for args in commands {
        let (code, stdout, stderr) = run(arbiter().args(&args));
        assert_eq!(code, 2, "{args:?}\n{stdout}\n{stderr}");
        assert!(stderr.contains("submisions"), "{args:?}: {stderr}");
        assert!(
            stderr.contains("does not exist") || stderr.contains("not a file, a folder"),
            "{args:?}: {stderr}"
        );
        assert!(!std::path::Path::new(&out).join("games.jsonl").exists());
    }
    // And in tournaments.toml, at the bot's line.
    let config = dir.path().join("tournaments.toml");
    write(
        &config,
        "default = \"t\"\n[tournaments.t]\ngame = \"gomoku\"\nout = \"out\"\n\
         bots = [\n  { spec = \"builtin:random\" },\n  { spec = \"submisions/\" },\n]\n",
    );
    let (code, _, stderr) = run(arbiter().args(["run", "--config"]).arg(&config));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("tournaments.toml:7") && stderr.contains("submisions/` does not exist"),
        "{stderr}"
    );
}

#[test]
fn a_bad_roster_is_refused_before_any_game_naming_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("league");
    for (text, expected) in [
        (
            "id,name\n1,Ann\n",
            ":1: no `team` or `group` column among id, name",
        ),
        ("team,id\nTeam01,1\n,2\n", ":3: the team cell is empty"),
        (
            "team,id\nTeam01,1,extra\n",
            ":2: 3 cells where the header has 2",
        ),
        ("", ":1: the file is empty"),
    ] {
        let roster = dir.path().join("roster.csv");
        write(&roster, text);
        let (code, stdout, stderr) = run(arbiter()
            .args(["league", "--game", "gomoku", "--roster"])
            .arg(&roster)
            .arg("--out")
            .arg(&out)
            .args(["builtin:random", "builtin:greedy"]));
        assert_eq!(code, 2, "{text:?}\n{stdout}\n{stderr}");
        assert!(
            stderr.contains(&format!("roster.csv{expected}")),
            "{text:?}: {stderr}"
        );
        assert!(!out.join("games.jsonl").exists(), "no game was played");
    }
}

#[test]
fn table_adds_a_roster_to_a_finished_league() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("league");
    let (code, _, stderr) = run(arbiter()
        .args(["league", "--game", "gomoku", "-q", "--out"])
        .arg(&out)
        .args(["Team01=builtin:random", "Team02=builtin:greedy"]));
    assert_eq!(code, 0, "{stderr}");
    // Without a roster: a row per team.
    let marks = csv_rows(&out.join("marks.csv"));
    let teams: Vec<&str> = marks.iter().map(|r| r["team"].as_str()).collect();
    assert_eq!(teams, ["Team02", "Team01"]);
    let roster = dir.path().join("class.csv");
    write(&roster, "team,name\nTeam01,Ann\nTeam02,Ben\nTeam03,Cy\n");
    let (code, _, stderr) = run(arbiter()
        .arg("table")
        .arg(&out)
        .arg("--roster")
        .arg(&roster));
    assert_eq!(code, 0, "{stderr}");
    let marks = csv_rows(&out.join("marks.csv"));
    let rows: Vec<(&str, &str, &str)> = marks
        .iter()
        .map(|r| (r["name"].as_str(), r["team"].as_str(), r["status"].as_str()))
        .collect();
    assert_eq!(
        rows,
        [
            ("Ann", "Team01", "played"),
            ("Ben", "Team02", "played"),
            ("Cy", "Team03", "no submission")
        ]
    );
    assert!(
        out.join("roster.csv").is_file(),
        "kept for the next rebuild"
    );
}

#[test]
fn help_shows_the_common_options_first_and_check_only_what_applies_to_a_check() {
    let (code, help, _) = run(arbiter().args(["league", "--help"]));
    assert_eq!(code, 0);
    let at = |text: &str| {
        help.find(text)
            .unwrap_or_else(|| panic!("{text} in {help}"))
    };
    for common in [
        "--jobs",
        "--limit-ms",
        "--out",
        "--pairs",
        "--roster",
        "--anchor",
    ] {
        assert!(
            at(common) < at("\nAsalto:"),
            "{common} before the games' options"
        );
    }
    assert!(at("\nAsalto:") < at("--round-limit"));
    assert!(at("\nHinger:") < at("--density") && at("\nBattle:") < at("--armies"));
    assert!(at("\nLimits and confinement:") < at("--memory-mb"));
    assert!(at("\nOpenings:") < at("--random-plies"));
    let (code, help, _) = run(arbiter().args(["check", "--help"]));
    assert_eq!(code, 0);
    for useless in ["--round-limit", "--seed", "--board", "--armies", "--pairs"] {
        assert!(
            !help.contains(useless),
            "check --help lists {useless}: {help}"
        );
    }
    for useful in [
        "--game",
        "--limit-ms",
        "--init-limit-ms",
        "--python",
        "--memory-mb",
    ] {
        assert!(help.contains(useful), "check --help lacks {useful}");
    }
}
