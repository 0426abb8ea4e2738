//! A class download as a new teacher tries it: Moodle, Canvas and Blackboard folders, a
//! roster that spells a team another way, a file that does not parse, a run stopped
//! part-way, stray files, and the feedback each team gets. Every mark and every feedback
//! file must be right without checking them by hand.

use crate::common::{arbiter, course_random_bot, csv_rows, read, run};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A course bot named after its team.
fn team_bot(team: &str) -> String {
    course_random_bot().replace("Team11", team)
}

/// A course bot whose `body` runs first at each move (`self.moves` counts them).
fn bot_doing(team: &str, body: &str) -> String {
    let mut bot = team_bot(team);
    bot.push_str(&format!(
        "\n\n_Random = Player\n\n\nclass Player(_Random):\n    def __init__(self):\n        \
         super().__init__()\n        self.moves = 0\n\n    def play_rebel(self, board):\n        \
         self.moves += 1\n        {body}\n        return super().play_rebel(board)\n\n    \
         def play_officer(self, board):\n        self.moves += 1\n        {body}\n        \
         return super().play_officer(board)\n"
    ));
    bot
}

/// Asalto's class file whose line 4 does not parse.
const SYNTAX_ERROR: &str = "import random\n\nclass Player:\n    def __init__(self)\n        pass\n";

/// A short league of `args` over `bots`, its folder `out`.
fn league(out: &Path, args: &[&str], bots: &[&Path]) -> (i32, String, String) {
    let mut cmd = arbiter();
    cmd.args([
        "league",
        "--game",
        "asalto",
        "--round-limit",
        "12",
        "-j",
        "2",
        "-q",
    ])
    .args(args)
    .arg("--out")
    .arg(out)
    .args(bots);
    run(&mut cmd)
}

fn rows_by(path: &Path, key: &str) -> BTreeMap<String, BTreeMap<String, String>> {
    csv_rows(path)
        .into_iter()
        .map(|r| (r[key].clone(), r))
        .collect()
}

/// A Moodle download: a folder per student and submission type.
fn moodle_class(dir: &Path) -> PathBuf {
    let class = dir.join("moodle");
    let folder = |student: &str| class.join(format!("{student}_assignsubmission_file_"));
    write(
        &folder("Alice Smith_12345").join("Team01.py"),
        &team_bot("Team01"),
    );
    write(
        &folder("Bob Jones_12346").join("Team02.py"),
        &team_bot("Team02"),
    );
    write(&folder("Carol Lee_12347").join("Team03.py"), SYNTAX_ERROR);
    // An online-text folder, an empty student folder and the download's README.
    write(
        &class.join("Carol Lee_12347_assignsubmission_onlinetext_/onlinetext.html"),
        "<p>My bot is attached.</p>",
    );
    std::fs::create_dir_all(folder("Dan Wu_12348")).unwrap();
    write(&class.join("README.md"), "# Submissions of Asalto league\n");
    class
}

#[test]
fn a_roster_spelling_a_team_another_way_is_refused_with_close_matches_before_any_game() {
    let dir = tempfile::tempdir().unwrap();
    // A Canvas download, and a roster without the platform's ids.
    let class = dir.path().join("class");
    write(
        &class.join("smithalice_10001_5551_Team01.py"),
        &team_bot("Team01"),
    );
    write(
        &class.join("jonesbob_10002_5552_Team02.py"),
        &team_bot("Team02"),
    );
    let roster = dir.path().join("roster.csv");
    write(
        &roster,
        "Student name,Email,Team\nAlice Smith,alice@example.org,Team 1\n\
         Bob Jones,bob@example.org,Team02\nErin Park,erin@example.org,Team09\n",
    );
    let out = dir.path().join("league");
    let (code, stdout, stderr) = league(&out, &["--roster", &roster.to_string_lossy()], &[&class]);
    assert_eq!(code, 2, "{stdout}\n{stderr}");
    // Both sides of what does not match, with the close match.
    assert!(
        stderr.contains("teams of the roster with no submission")
            && stderr
                .contains("Team 1 (Alice Smith alice@example.org (line 2)): did you mean Team01?")
            && stderr.contains("teams of the league with no student of the roster")
            && stderr.contains("Team01 (smithalice_10001_5551_Team01.py): the roster's `Team 1`?")
            && stderr.contains("--partial-roster"),
        "{stderr}"
    );
    // Before any game, and nothing left behind that looks like a league.
    assert!(
        !out.exists(),
        "{:?}",
        std::fs::read_dir(&out).map(|d| d.count())
    );

    // Asked for, a partial roster is taken: Team01 is marked without a student.
    let (code, stdout, stderr) = league(
        &out,
        &["--roster", &roster.to_string_lossy(), "--partial-roster"],
        &[&class],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let marks = rows_by(&out.join("marks.csv"), "Student name");
    assert_eq!(marks["Bob Jones"]["status"], "played");
    assert_eq!(marks["Alice Smith"]["status"], "no submission");
    assert!(
        marks[""]["status"].contains("no student of the roster"),
        "{marks:?}"
    );
    assert!(
        !out.join("feedback/Team 1.md").exists()
            || read(&out.join("feedback/Team 1.md")).contains("No submission")
    );
}

#[test]
fn a_moodle_download_is_matched_by_student_id_and_what_is_no_submission_is_no_team() {
    let dir = tempfile::tempdir().unwrap();
    let class = moodle_class(dir.path());
    // The team column spells Team01 another way; the student id is what matches.
    let roster = dir.path().join("roster.csv");
    write(
        &roster,
        "Student name,Student ID,Team\nAlice Smith,12345,Team 1\nBob Jones,12346,Team02\n\
         Carol Lee,12347,Team03\nDan Wu,12348,Team04\n",
    );
    // The README's walkthrough: check first, then the league with --check.
    let (code, stdout, stderr) = run(arbiter().args(["check", "-j", "2"]).arg(&class));
    assert_eq!(code, 1, "Team03 fails the check\n{stdout}\n{stderr}");
    for ignored in [
        "README.md",
        "_onlinetext_",
        "Dan Wu_12348_assignsubmission_file_",
    ] {
        assert_eq!(stderr.matches(ignored).count(), 1, "{ignored}: {stderr}");
    }
    let out = dir.path().join("league");
    let (code, stdout, stderr) = league(
        &out,
        &["--check", "--roster", &roster.to_string_lossy()],
        &[&class],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stderr.contains(
            "matched to Team01 by its submission `Alice Smith_12345_assignsubmission_file_`"
        ),
        "{stderr}"
    );
    for ignored in [
        "README.md",
        "_onlinetext_",
        "Dan Wu_12348_assignsubmission_file_",
    ] {
        assert_eq!(stderr.matches(ignored).count(), 1, "{ignored}: {stderr}");
    }
    // The file that does not parse: its team gets 0 with its reason, the others play.
    let marks = rows_by(&out.join("marks.csv"), "Student name");
    assert_eq!(marks.len(), 4, "a row per student and none else: {marks:?}");
    assert_eq!(marks["Alice Smith"]["team"], "Team01");
    assert_eq!(marks["Alice Smith"]["games"], "2");
    assert_eq!(marks["Alice Smith"]["status"], "played");
    let carol = &marks["Carol Lee"];
    assert!(
        carol["status"].starts_with("left out: failed the check: could not start: SyntaxError")
            && carol["status"].contains("(Team03.py, line 4)")
            && carol["mark"] == "0.00",
        "{carol:?}"
    );
    assert_eq!(marks["Dan Wu"]["status"], "no submission");
    assert!(marks.values().all(|r| r["complete"] == "yes"), "{marks:?}");
    // No README team, feedback or report section; the roster's Team04 is in the report.
    let feedback: Vec<String> = std::fs::read_dir(out.join("feedback"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let mut feedback = feedback;
    feedback.sort();
    assert_eq!(
        feedback,
        ["Team01.md", "Team02.md", "Team03.md", "Team04.md"]
    );
    let report = read(&out.join("report/report.md"));
    assert!(
        !report.contains("README") && !report.contains("onlinetext"),
        "{report}"
    );
    assert!(
        report.contains("## Team04") && report.contains("no submission"),
        "{report}"
    );
}

#[test]
fn a_mistyped_folder_stops_the_walkthrough_leaving_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let class = moodle_class(dir.path());
    let roster = dir.path().join("roster.csv");
    write(
        &roster,
        "Student name,Student ID,Team\nAlice Smith,12345,Team01\n",
    );
    let out = dir.path().join("league");
    let missing = dir.path().join("moodel");
    let (code, _, stderr) = league(
        &out,
        &["--check", "--roster", &roster.to_string_lossy()],
        &[&class, &missing],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("moodel"), "{stderr}");
    assert!(!out.exists(), "no roster.csv nor unpacked/ left behind");
}

#[test]
fn canvas_and_blackboard_downloads_give_every_team_its_bot_matched_by_user() {
    let dir = tempfile::tempdir().unwrap();
    // Canvas: sortable name, user id, submission id, then the file's own name; a late one
    // and one uploaded again.
    let canvas = dir.path().join("canvas");
    write(
        &canvas.join("smithalice_10001_5551_Team01.py"),
        &team_bot("Team01"),
    );
    write(
        &canvas.join("jonesbob_late_10002_5552_Team02.py"),
        &team_bot("Team02"),
    );
    write(
        &canvas.join("leecarol_10003_5553_Team03-1.py"),
        &team_bot("Team03"),
    );
    let roster = dir.path().join("canvas.csv");
    write(
        &roster,
        "name,id,team\nAlice Smith,10001,Team01\nBob Jones,10002,Team02\nCarol Lee,10003,Team3\n",
    );
    let out = dir.path().join("canvas-league");
    let (code, stdout, stderr) = league(&out, &["--roster", &roster.to_string_lossy()], &[&canvas]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("3 bots in")
            && ["Team01", "Team02", "Team03"]
                .iter()
                .all(|t| stderr.contains(&format!(" {t}"))),
        "{stderr}"
    );
    let marks = rows_by(&out.join("marks.csv"), "name");
    for (name, team) in [
        ("Alice Smith", "Team01"),
        ("Bob Jones", "Team02"),
        ("Carol Lee", "Team03"),
    ] {
        assert_eq!(marks[name]["team"], team, "{marks:?}");
        assert_eq!(marks[name]["games"], "4", "{marks:?}");
    }

    // Blackboard: assignment, user name, attempt and date, then the file; a receipt each.
    let blackboard = dir.path().join("blackboard");
    for (user, team) in [("asmith", "Team01"), ("bjones", "Team02")] {
        let stem = format!("Asalto League_{user}_attempt_2026-03-01-10-30-00");
        write(
            &blackboard.join(format!("{stem}_{team}.py")),
            &team_bot(team),
        );
        write(
            &blackboard.join(format!("{stem}.txt")),
            "Name: ...\nFiles:\n",
        );
    }
    let roster = dir.path().join("blackboard.csv");
    write(&roster, "Username,Team\nasmith,Team01\nbjones,Team 2\n");
    let out = dir.path().join("blackboard-league");
    let (code, stdout, stderr) = league(
        &out,
        &["--roster", &roster.to_string_lossy()],
        &[&blackboard],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert_eq!(
        stderr.matches("a platform's receipt").count(),
        2,
        "{stderr}"
    );
    let marks = rows_by(&out.join("marks.csv"), "Username");
    assert_eq!(marks.len(), 2, "{marks:?}");
    assert_eq!(
        marks["bjones"]["team"], "Team02",
        "matched by user name: {marks:?}"
    );
    assert_eq!(marks["bjones"]["status"], "played");
}

#[test]
fn two_team_folders_given_directly_are_two_bots_their_helpers_and_data_no_teams() {
    let dir = tempfile::tempdir().unwrap();
    let np = dir.path().join("TeamNP");
    write(&np.join("TeamNP.py"), &team_bot("TeamNP"));
    write(&np.join("weights.npy"), "\u{93}NUMPY v1");
    let g = dir.path().join("TeamG");
    write(
        &g.join("TeamG.py"),
        &team_bot("TeamG").replace("import random\n", "import random\nimport greedy_helper\n"),
    );
    write(&g.join("greedy_helper.py"), "WEIGHT = 1\n");
    let out = dir.path().join("league");
    let (code, stdout, stderr) = league(&out, &[], &[&np, &g]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let marks = rows_by(&out.join("marks.csv"), "team");
    assert_eq!(
        marks.keys().collect::<Vec<_>>(),
        ["TeamG", "TeamNP"],
        "{marks:?}"
    );
    assert!(marks.values().all(|r| r["status"] == "played"), "{marks:?}");
}

#[test]
fn feedback_holds_a_teams_own_errors_in_the_words_of_its_failure_folded_with_a_count() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    let folder = |student: &str| class.join(format!("{student}_assignsubmission_file_"));
    write(
        &folder("Alice Smith_1").join("Team01.py"),
        &team_bot("Team01"),
    );
    write(&folder("Erin Park_5").join("Team05.py"), SYNTAX_ERROR);
    write(
        &folder("Fay Chen_6").join("Team06.py"),
        &bot_doing(
            "Team06",
            "if self.moves == 2: raise TypeError('bad operand for the board')",
        ),
    );
    write(
        &folder("Gil Ross_7").join("Team07.py"),
        &bot_doing("Team07", "import time; time.sleep(2)"),
    );
    let out = dir.path().join("league");
    let (code, stdout, stderr) = league(&out, &["--limit-ms", "400"], &[&class]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let feedback = |team: &str| read(&out.join("feedback").join(format!("{team}.md")));
    let team01 = feedback("Team01");
    // Its opponents by name, none of their errors, no path of the teacher's.
    assert!(
        team01.contains("| Team05 |") && team01.contains("| Team06 |"),
        "{team01}"
    );
    for other in ["SyntaxError", "TypeError", "Team05.py", "Team06.py", "/"] {
        assert!(
            !team01.replace("20 × x / x_winner", "").contains(other),
            "{other}: {team01}"
        );
    }
    assert!(team01.contains("your opponent could not start"), "{team01}");
    // The same error in every game is one line with its count, and its whole text once.
    let team05 = feedback("Team05");
    let (failures, whole) = team05.split_once("## Your bot's errors").unwrap();
    assert_eq!(failures.matches("SyntaxError").count(), 1, "{team05}");
    assert_eq!(whole.matches("SyntaxError").count(), 1, "{team05}");
    assert!(team05.contains("6 games: "), "{team05}");
    assert!(team05.contains("*Could not start*"), "{team05}");
    assert!(!team05.contains("where your code raised"), "{team05}");
    let team06 = feedback("Team06");
    assert!(
        team06.contains("TypeError: bad operand for the board (Team06.py, line"),
        "{team06}"
    );
    assert!(team06.contains("where your code raised"), "{team06}");
    assert!(!team06.contains("SyntaxError"), "{team06}");
    // A team that only ran out of time is told so, not where its code raised.
    let team07 = feedback("Team07");
    assert!(
        team07.contains("*Ran out of time*") && team07.contains("move limit of 400 ms"),
        "{team07}"
    );
    assert!(!team07.contains("where your code raised"), "{team07}");
    assert!(
        !team07.contains("SyntaxError") && !team07.contains("TypeError"),
        "{team07}"
    );
}

#[test]
fn marks_of_a_run_stopped_part_way_say_they_are_not_final() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    for (student, team) in [
        ("Ann Ito_1", "Team01"),
        ("Ben Ode_2", "Team02"),
        ("Cy Ma_3", "Team03"),
    ] {
        write(
            &class.join(format!("{student}_assignsubmission_file_/{team}.py")),
            &bot_doing(team, "import time; time.sleep(0.05)"),
        );
    }
    let out = dir.path().join("league");
    let child = arbiter()
        .args([
            "league",
            "--game",
            "asalto",
            "--round-limit",
            "30",
            "-j",
            "1",
        ])
        .arg("--out")
        .arg(&out)
        .arg(&class)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Stopped as Ctrl-C stops it once a game is in the journal.
    let journal = out.join("games.jsonl");
    let started = Instant::now();
    while read_lines(&journal) < 2 && started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(20));
    }
    rustix::process::kill_process(
        rustix::process::Pid::from_child(&child),
        rustix::process::Signal::INT,
    )
    .unwrap();
    let done = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&done.stdout);
    assert_eq!(done.status.code(), Some(130), "{stdout}");
    assert!(stdout.contains("marks NOT FINAL"), "{stdout}");
    assert!(!stdout.contains("marks for the grade book"), "{stdout}");
    let marks = csv_rows(&out.join("marks.csv"));
    assert!(marks.iter().all(|r| r["complete"] == "no"), "{marks:?}");
    assert!(read(&out.join("feedback/Team01.md")).contains("This mark is not final"));
    assert!(read(&out.join("report/report.md")).contains("Unfinished league"));
    // `table` on the folder says so too.
    let (code, stdout, _) = run(arbiter().arg("table").arg(&out));
    assert_eq!(code, 0);
    assert!(stdout.contains("marks NOT FINAL"), "{stdout}");
}

fn read_lines(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| t.lines().count())
}

#[test]
fn a_non_scoring_team_keeps_its_students_rows() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    for (student, team) in [("Alice_1", "Team01"), ("Bob_2", "Team02")] {
        write(
            &class.join(format!("{student}_assignsubmission_file_/{team}.py")),
            &team_bot(team),
        );
    }
    let roster = dir.path().join("roster.csv");
    write(&roster, "name,id,team\nAlice,1,Team01\nBob,2,Team02\n");
    let out = dir.path().join("league");
    let (code, stdout, stderr) = league(&out, &["--roster", &roster.to_string_lossy()], &[&class]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let (code, stdout, stderr) = run(arbiter()
        .arg("table")
        .arg(&out)
        .args(["--non-scoring", "Team02"]));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let marks = rows_by(&out.join("marks.csv"), "name");
    assert_eq!(marks["Bob"]["team"], "Team02");
    assert_eq!(marks["Bob"]["games"], "2");
    assert_eq!(marks["Bob"]["mark"], "");
    assert!(marks["Bob"]["status"].contains("non-scoring"), "{marks:?}");
    // Team01 alone is marked: its mark is the one the standings give it.
    let standings = rows_by(&out.join("standings.csv"), "bot");
    let mark = |text: &str| text.parse::<f64>().unwrap();
    assert!(
        (mark(&marks["Alice"]["mark"]) - mark(&standings["Team01"]["mark"])).abs() < 0.006,
        "{marks:?} {standings:?}"
    );
    assert_eq!(standings["Team02"]["mark"], "");
}

#[test]
fn a_detail_naming_a_missing_file_keeps_its_name() {
    let dir = tempfile::tempdir().unwrap();
    let deep = dir
        .path()
        .join("a-folder-with-a-long-name/another-folder-with-a-long-name/and-one-more-level");
    std::fs::create_dir_all(&deep).unwrap();
    let missing = deep.join("nothere.py");
    let out = dir.path().join("league");
    let python = String::from_utf8(
        std::process::Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .unwrap()
            .stdout,
    )
    .unwrap();
    let bot = format!("Missing={} {}", python.trim(), missing.display());
    let mut cmd = arbiter();
    cmd.args(["league", "--game", "asalto", "-q", "--out"])
        .arg(&out)
        .args([bot.as_str(), "builtin:random"]);
    let (code, stdout, stderr) = run(&mut cmd);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let games = csv_rows(&out.join("games.csv"));
    for g in &games {
        assert!(g["detail"].contains("nothere.py"), "{g:?}");
        assert!(g["detail"].chars().count() <= 160, "{g:?}");
    }
    let _ = std::io::stdout().flush();
}

#[test]
fn a_canvas_download_plays_as_an_ordinary_user_at_both_confinement_levels() {
    use crate::common::{arbiter_cmd, give_to_arbiter, test_dir};
    let dir = test_dir();
    let canvas = dir.path().join("canvas");
    write(
        &canvas.join("smithalice_10001_5551_Team01.py"),
        &team_bot("Team01").replace("import random\n", "import random\nimport helper01\n"),
    );
    write(&canvas.join("smithalice_10001_5551_helper01.py"), "X = 1\n");
    write(
        &canvas.join("jonesbob_late_10002_5552_Team02-1.py"),
        &team_bot("Team02"),
    );
    give_to_arbiter(dir.path());
    for sandbox in [None, Some("landlock")] {
        let out = dir
            .path()
            .join(format!("out-{}", sandbox.unwrap_or("auto")));
        let out_text = out.to_string_lossy().into_owned();
        let canvas_text = canvas.to_string_lossy().into_owned();
        let mut args = vec![
            "league",
            "--game",
            "asalto",
            "--round-limit",
            "8",
            "-q",
            "--out",
            &out_text,
        ];
        if let Some(level) = sandbox {
            args.extend(["--sandbox", level]);
        }
        args.push(&canvas_text);
        let (code, stdout, stderr) = run(&mut arbiter_cmd(&args, &[]));
        assert_eq!(code, 0, "{sandbox:?}\n{stdout}\n{stderr}");
        let standings = rows_by(&out.join("standings.csv"), "bot");
        for team in ["Team01", "Team02"] {
            assert_eq!(standings[team]["games"], "2", "{sandbox:?} {standings:?}");
            assert_eq!(standings[team]["errors"], "0", "{sandbox:?} {standings:?}");
        }
    }
}

/// A Moodle download where Ana Pérez, a student of Team05, handed in a file named after
/// Team06 beside Luis Gómez's, of Team06; Bea Ruiz's Team07 and Carl Ott's Team05 partner
/// folder (nothing in it) come with them.
fn moodle_with_a_file_named_after_another_team(dir: &Path) -> PathBuf {
    let class = dir.join("moodle");
    let folder = |student: &str| class.join(format!("{student}_assignsubmission_file_"));
    write(
        &folder("Ana Pérez_12345").join("Team06.py"),
        &team_bot("Team05"),
    );
    write(
        &folder("Luis Gómez_12346").join("Team06.py"),
        &bot_doing("Team06", "pass"),
    );
    write(
        &folder("Bea Ruiz_12347").join("Team07.py"),
        &team_bot("Team07"),
    );
    class
}

#[test]
fn a_file_named_after_another_team_plays_as_its_students_team_by_the_roster() {
    let dir = tempfile::tempdir().unwrap();
    let class = moodle_with_a_file_named_after_another_team(dir.path());
    let roster = dir.path().join("roster.csv");
    write(
        &roster,
        "Student name,Student ID,Email,Team\nAna Pérez,12345,ana@uni.example,Team05\n\
         Luis Gómez,12346,luis@uni.example,Team06\nBea Ruiz,12347,bea@uni.example,Team07\n",
    );
    let out = dir.path().join("league");
    let (code, stdout, stderr) = league(&out, &["--roster", &roster.to_string_lossy()], &[&class]);
    assert_eq!(code, 0, "the league plays on: {stdout}\n{stderr}");
    // Both students' folders are named, each with the team it plays as.
    assert!(
        stderr.contains("2 different submissions are named after Team06")
            && stderr.contains(
                "Ana Pérez_12345_assignsubmission_file_/Team06.py (Ana Pérez_12345's) plays as \
                 Team05"
            )
            && stderr.contains(
                "Luis Gómez_12346_assignsubmission_file_/Team06.py (Luis Gómez_12346's) plays \
                 as Team06"
            )
            && stderr.contains("Ana Pérez 12345 ana@uni.example (line 2) is in Team05"),
        "{stderr}"
    );
    let marks = rows_by(&out.join("marks.csv"), "Student name");
    for (student, team) in [
        ("Ana Pérez", "Team05"),
        ("Luis Gómez", "Team06"),
        ("Bea Ruiz", "Team07"),
    ] {
        assert_eq!(marks[student]["team"], team, "{marks:?}");
        assert_eq!(marks[student]["status"], "played", "{marks:?}");
        assert_eq!(marks[student]["games"], "4", "{marks:?}");
    }
    let standings = rows_by(&out.join("standings.csv"), "bot");
    let mut teams: Vec<&str> = standings.keys().map(String::as_str).collect();
    teams.sort();
    assert_eq!(teams, ["Team05", "Team06", "Team07"], "{standings:?}");
    // Each plays its own student's file: Ana's under Team05, Luis's under Team06.
    let plan = read(&out.join("games.jsonl"));
    assert!(
        plan.contains("Ana Pérez_12345_assignsubmission_file_")
            && plan.contains("Luis Gómez_12346_assignsubmission_file_"),
        "{plan}"
    );
    for feedback in ["Team05.md", "Team06.md", "Team07.md"] {
        assert!(out.join("feedback").join(feedback).is_file(), "{feedback}");
    }
}

#[test]
fn a_file_named_after_another_team_without_a_roster_plays_under_its_students_name() {
    let dir = tempfile::tempdir().unwrap();
    let class = moodle_with_a_file_named_after_another_team(dir.path());
    let out = dir.path().join("league");
    let (code, stdout, stderr) = league(&out, &[], &[&class]);
    assert_eq!(code, 0, "the league plays on: {stdout}\n{stderr}");
    assert!(
        stderr.contains("2 different submissions are named after Team06")
            && stderr.contains(
                "Ana Pérez_12345_assignsubmission_file_/Team06.py (Ana Pérez_12345's) plays as \
                 Ana Pérez_12345"
            )
            && stderr.contains(
                "Luis Gómez_12346_assignsubmission_file_/Team06.py (Luis Gómez_12346's) plays \
                 as Luis Gómez_12346"
            )
            && stderr.contains("give --roster"),
        "{stderr}"
    );
    let marks = rows_by(&out.join("marks.csv"), "team");
    let mut teams: Vec<&str> = marks.keys().map(String::as_str).collect();
    teams.sort();
    assert_eq!(teams, ["Ana Pérez_12345", "Luis Gómez_12346", "Team07"]);
    assert!(marks.values().all(|r| r["games"] == "4"), "{marks:?}");
}

#[test]
fn two_files_of_one_team_that_nothing_tells_apart_are_refused_naming_both_and_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    // Two hand-made folders: no platform names their students.
    write(&class.join("ana/Team06.py"), &team_bot("Team05"));
    write(&class.join("luis/Team06.py"), &bot_doing("Team06", "pass"));
    write(&class.join("Team07.py"), &team_bot("Team07"));
    let out = dir.path().join("league");
    let (code, stdout, stderr) = league(&out, &[], &[&class]);
    assert_eq!(code, 2, "{stdout}\n{stderr}");
    assert!(
        stderr.contains(&format!(
            "two different submissions are both named `Team06`: {} and {}; nothing tells \
             whose each is",
            class.join("ana").display(),
            class.join("luis").display()
        )) && stderr.contains("keep the one that is Team06's and remove the other"),
        "{stderr}"
    );
    assert!(!out.exists(), "no game was played, nothing left behind");

    // A roster that puts two students' different files in one team: refused, both named.
    let moodle = moodle_with_a_file_named_after_another_team(dir.path());
    let roster = dir.path().join("roster.csv");
    write(
        &roster,
        "name,id,team\nAna Pérez,12345,Team06\nLuis Gómez,12346,Team06\nBea Ruiz,12347,Team07\n",
    );
    let (code, stdout, stderr) = league(&out, &["--roster", &roster.to_string_lossy()], &[&moodle]);
    assert_eq!(code, 2, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("two different submissions are Team06's")
            && stderr.contains(
                "Ana Pérez_12345_assignsubmission_file_/Team06.py (Ana Pérez 12345 (line 2)'s)"
            )
            && stderr.contains(
                "Luis Gómez_12346_assignsubmission_file_/Team06.py (Luis Gómez 12346 (line 3)'s)"
            )
            && stderr.contains("keep the one Team06 is marked by"),
        "{stderr}"
    );
    assert!(!out.exists(), "no game was played, nothing left behind");
}

/// Every file under `folder` whose text holds `what`, for a failure that says where.
fn files_holding(folder: &Path, what: &str) -> Vec<PathBuf> {
    let mut found = Vec::new();
    let mut folders = vec![folder.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if std::fs::read(&path)
                .is_ok_and(|bytes| String::from_utf8_lossy(&bytes).contains(what))
            {
                found.push(path);
            }
        }
    }
    found
}

#[test]
fn a_canvas_reupload_is_named_as_the_file_played_and_a_late_mark_is_in_marks_and_feedback() {
    let dir = tempfile::tempdir().unwrap();
    // Carol's first upload does not parse; her re-upload (Canvas's `-1`) is the one played.
    let canvas = dir.path().join("canvas");
    write(
        &canvas.join("smithalice_10001_5551_Team01.py"),
        &team_bot("Team01"),
    );
    write(
        &canvas.join("jonesbob_late_10002_5552_Team02.py"),
        &team_bot("Team02"),
    );
    write(&canvas.join("leecarol_10003_5553_Team03.py"), SYNTAX_ERROR);
    write(
        &canvas.join("leecarol_10003_5553_Team03-1.py"),
        &team_bot("Team03"),
    );
    let out = dir.path().join("league");
    let (code, stdout, stderr) = league(&out, &[], &[&canvas]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let played = "leecarol_10003_5553_Team03-1.py";
    let journal = read(&out.join("games.jsonl"));
    let header = journal.lines().next().unwrap_or_default();
    assert!(header.contains(&format!("canvas/{played}")), "{header}");
    let feedback = read(&out.join("feedback/Team03.md"));
    assert!(
        feedback.contains(&format!("Your bot: `{played}`")),
        "{feedback}"
    );
    // The superseded upload is named nowhere: not in the journal, feedback or report.
    let superseded = "leecarol_10003_5553_Team03.py";
    assert_eq!(files_holding(&out, superseded), Vec::<PathBuf>::new());
    let marks = rows_by(&out.join("marks.csv"), "team");
    assert_eq!(marks["Team03"]["status"], "played", "{marks:?}");
    // Canvas's late mark: `yes` for Bob's, `no` for the others, and a line in his feedback.
    assert_eq!(marks["Team02"]["late"], "yes", "{marks:?}");
    assert_eq!(marks["Team01"]["late"], "no", "{marks:?}");
    assert_eq!(marks["Team03"]["late"], "no", "{marks:?}");
    let late = "Your submission was handed in late";
    assert!(
        read(&out.join("feedback/Team02.md")).contains(late),
        "{}",
        read(&out.join("feedback/Team02.md"))
    );
    assert!(!read(&out.join("feedback/Team01.md")).contains(late));
    // `table` rebuilds the same column from the journal alone.
    std::fs::remove_file(out.join("marks.csv")).unwrap();
    let (code, _, stderr) = run(arbiter().arg("table").arg(&out));
    assert_eq!(code, 0, "{stderr}");
    let marks = rows_by(&out.join("marks.csv"), "team");
    assert_eq!(marks["Team02"]["late"], "yes", "{marks:?}");
}

#[test]
fn a_blackboard_teams_helper_file_is_never_its_entry_and_its_attempt_date_is_its_late_cell() {
    let dir = tempfile::tempdir().unwrap();
    let blackboard = dir.path().join("blackboard");
    let stem = |user: &str, date: &str| format!("Asalto League_{user}_attempt_{date}");
    // Team11 hands in its player with the helper it imports, as the course's example does.
    let team11 = stem("kwong", "2026-11-30-23-59-01");
    write(
        &blackboard.join(format!("{team11}_OfficerAI.py")),
        &team_bot("Team11"),
    );
    write(
        &blackboard.join(format!("{team11}_Team11.py")),
        "from OfficerAI import Player\n",
    );
    write(&blackboard.join(format!("{team11}.txt")), "Name: ...\n");
    let team12 = stem("lmoss", "2026-11-29-08-00-00");
    write(
        &blackboard.join(format!("{team12}_Team12.py")),
        &team_bot("Team12"),
    );
    // A student whose bot cannot be told (two team files) is left out by one of those,
    // never by the helper that sorts first.
    let left = stem("pquinn", "2026-11-28-12-00-00");
    write(&blackboard.join(format!("{left}_Aaa_helper.py")), "X = 1\n");
    write(
        &blackboard.join(format!("{left}_Team13.py")),
        &team_bot("Team13"),
    );
    write(
        &blackboard.join(format!("{left}_Team13_v2.py")),
        &team_bot("Team13"),
    );
    let out = dir.path().join("league");
    let (code, stdout, stderr) = league(&out, &[], &[&blackboard]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let left_out = read(&out.join("feedback/pquinn.md"));
    assert!(
        left_out.contains(&format!("`{left}_Team13_v2.py` was left out")),
        "{left_out}"
    );
    assert_eq!(
        files_holding(&out, &format!("{left}_Aaa_helper.py")),
        Vec::<PathBuf>::new()
    );
    let feedback = read(&out.join("feedback/Team11.md"));
    assert!(
        feedback.contains(&format!("Your bot: `{team11}_Team11.py`")),
        "{feedback}"
    );
    assert_eq!(
        files_holding(&out, &format!("{team11}_OfficerAI.py")),
        Vec::<PathBuf>::new()
    );
    let marks = rows_by(&out.join("marks.csv"), "team");
    assert_eq!(marks["Team11"]["status"], "played", "{marks:?}");
    assert_eq!(marks["Team11"]["late"], "2026-11-30 23:59:01", "{marks:?}");
    assert_eq!(marks["Team12"]["late"], "2026-11-29 08:00:00", "{marks:?}");
    assert!(
        feedback.contains("handed in on 2026-11-30 23:59:01"),
        "{feedback}"
    );
}

#[test]
fn a_merged_duplicate_keeps_its_student_whose_contrary_roster_team_is_said_not_applied() {
    let dir = tempfile::tempdir().unwrap();
    // Alice and Bob, both of Team12, handed in the same file, which plays from Bob's entry
    // (the first by name); the roster puts Alice in Team13 by mistake.
    let canvas = dir.path().join("canvas");
    for (student, team) in [
        ("youngalice_20001_7001", "Team12"),
        ("bakerbob_20002_7002", "Team12"),
        ("cruzcarl_20003_7003", "Team13"),
        ("diazdana_20004_7004", "Team14"),
    ] {
        write(
            &canvas.join(format!("{student}_{team}.py")),
            &team_bot(team),
        );
    }
    let roster = dir.path().join("class.csv");
    write(
        &roster,
        "name,id,team\nAlice Young,20001,Team13\nBob Baker,20002,Team12\n\
         Carl Cruz,20003,Team13\nDana Diaz,20004,Team14\n",
    );
    let marks_of = |out: &Path| rows_by(&out.join("marks.csv"), "name");
    let check = |out: &Path, stderr: &str| {
        assert!(
            stderr.contains("Alice Young 20001 (line 2): matched to Team12 by its submission")
                && stderr.contains("(the roster says `Team13`)"),
            "{stderr}"
        );
        let marks = marks_of(out);
        assert_eq!(marks.len(), 4, "{marks:?}");
        assert_eq!(marks["Alice Young"]["team"], "Team12", "{marks:?}");
        assert_eq!(
            marks["Alice Young"]["mark"], marks["Bob Baker"]["mark"],
            "{marks:?}"
        );
    };
    // With the roster at once.
    let out = dir.path().join("with-roster");
    let (code, stdout, stderr) = league(&out, &["--roster", &roster.to_string_lossy()], &[&canvas]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stderr.contains("one bot, Team12"), "{stderr}");
    check(&out, &stderr);
    // And added afterwards to a league played without one: the journal keeps Alice's
    // entry, so her id still names Team12.
    let out = dir.path().join("then-roster");
    let (code, stdout, stderr) = league(&out, &[], &[&canvas]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let (code, _, stderr) = run(arbiter()
        .arg("table")
        .arg(&out)
        .arg("--roster")
        .arg(&roster));
    assert_eq!(code, 0, "{stderr}");
    check(&out, &stderr);
}

#[test]
fn a_semicolon_roster_with_a_group_column_marks_every_student() {
    let dir = tempfile::tempdir().unwrap();
    let blackboard = dir.path().join("blackboard");
    for (user, team) in [("asmith", "Team01"), ("bjones", "Team02")] {
        write(
            &blackboard.join(format!(
                "Asalto League_{user}_attempt_2026-03-01-10-30-00_{team}.py"
            )),
            &team_bot(team),
        );
    }
    // As a spreadsheet in a language whose decimal mark is a comma saves it.
    let roster = dir.path().join("class.csv");
    write(
        &roster,
        "\u{feff}Surname;Given name;Login;Group\r\nSmith;Alice;asmith;Team01\r\n\
         Jones;Bob;bjones;Team02\r\n",
    );
    let out = dir.path().join("league");
    let (code, stdout, stderr) = league(
        &out,
        &["--roster", &roster.to_string_lossy()],
        &[&blackboard],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let marks = rows_by(&out.join("marks.csv"), "Login");
    assert_eq!(marks.len(), 2, "{marks:?}");
    assert_eq!(marks["asmith"]["Given name"], "Alice", "{marks:?}");
    assert_eq!(marks["bjones"]["team"], "Team02", "{marks:?}");
    assert_eq!(marks["bjones"]["status"], "played", "{marks:?}");
}

#[test]
fn a_moodle_folders_feedback_and_report_name_the_file_played_and_an_older_journal_takes_it() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("moodle");
    let folder = |student: &str| class.join(format!("{student}_assignsubmission_file_"));
    // Alice's folder holds her bot and her notes; Bob's his zip; Carol handed in a zip
    // loose in the download.
    write(
        &folder("Alice Smith_12345").join("Team01.py"),
        &team_bot("Team01"),
    );
    write(
        &folder("Alice Smith_12345").join("notes.txt"),
        "Our bot goes first.\n",
    );
    std::fs::create_dir_all(folder("Bob Jones_12346")).unwrap();
    crate::submissions::write_zip(
        &folder("Bob Jones_12346").join("Team02.zip"),
        &[("Team02/Team02.py", &team_bot("Team02"))],
    );
    crate::submissions::write_zip(
        &class.join("Team03.zip"),
        &[("Team03.py", &team_bot("Team03"))],
    );
    let out = dir.path().join("league");
    let (code, stdout, stderr) = league(&out, &[], &[&class]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    // The student's feedback names the file that played, never the platform's folder.
    for (team, played) in [
        ("Team01", "`Team01.py`"),
        ("Team02", "`Team02/Team02.py`"),
        ("Team03", "`Team03.py` in `Team03.zip`"),
    ] {
        let feedback = read(&out.join(format!("feedback/{team}.md")));
        assert!(
            feedback.contains(&format!("Your bot: {played}.")),
            "{team}: {feedback}"
        );
        assert!(!feedback.contains("assignsubmission"), "{team}: {feedback}");
    }
    // The report's table of bots gives the whole path of the file in its folder.
    let report = read(&out.join("report/report.md")).replace("\\_", "_");
    for played in [
        "moodle/Alice Smith_12345_assignsubmission_file_/Team01.py",
        "moodle/Bob Jones_12346_assignsubmission_file_/Team02/Team02.py",
        "moodle/Team03.zip: Team03.py",
    ] {
        assert!(report.contains(played), "{played}: {report}");
    }
    // A journal written before the file was kept (no `file` in its plan) resumes, plays
    // nothing again, and keeps the file from then on.
    let journal = out.join("games.jsonl");
    let text = read(&journal);
    let (head, games) = text.split_once('\n').unwrap();
    let mut header: serde_json::Value = serde_json::from_str(head).unwrap();
    for bot in header["plan"]["bots"].as_array_mut().unwrap() {
        bot.as_object_mut()
            .unwrap()
            .remove("file")
            .expect("a file kept");
    }
    std::fs::write(&journal, format!("{header}\n{games}")).unwrap();
    let (code, stdout, stderr) = league(&out, &[], &[&class]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let again = read(&journal);
    assert_eq!(again.lines().count(), text.lines().count(), "{again}");
    let header: serde_json::Value = serde_json::from_str(again.lines().next().unwrap()).unwrap();
    let files: Vec<&str> = header["plan"]["bots"]
        .as_array()
        .unwrap()
        .iter()
        .map(|b| b["file"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(files, ["Team01.py", "Team02/Team02.py", "Team03.py"]);
}
