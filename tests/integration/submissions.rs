//! A folder of submissions as a bot source, and the preflight check of every bot.

use crate::common::*;
use std::io::Write;
use std::path::Path;

/// A random bot whose moves come from a helper module `utils`, which must be its own team's
/// (`utils.WHO == who`).
fn bot_using_utils(who: &str) -> String {
    format!(
        "import utils\n\nif utils.WHO != {who:?}:\n    raise ImportError('imported the utils of ' + utils.WHO)\n\n\
         class Player(utils.Player):\n    pass\n"
    )
}

fn utils_of(who: &str) -> String {
    format!("{}\nWHO = {who:?}\n", course_random_bot())
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

pub(crate) fn write_zip(path: &Path, files: &[(&str, &str)]) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    for (name, text) in files {
        zip.start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(text.as_bytes()).unwrap();
    }
    zip.finish().unwrap();
}

/// Good bots of every shape, and entries that are no bot: a folder with none, one with
/// two candidates, a stray file.
fn good_folder(dir: &Path) {
    write(&dir.join("Team21.py"), &course_random_bot());
    write(&dir.join("alpha/TeamAlpha.py"), &bot_using_utils("alpha"));
    write(&dir.join("alpha/utils.py"), &utils_of("alpha"));
    write(&dir.join("beta/Team_beta.py"), &bot_using_utils("beta"));
    write(&dir.join("beta/utils.py"), &utils_of("beta"));
    write_zip(
        &dir.join("Team22.zip"),
        &[
            ("Team22/Team22.py", &bot_using_utils("zip")),
            ("Team22/utils.py", &utils_of("zip")),
        ],
    );
    write(&dir.join("empty_team/notes.txt"), "we ran out of time\n");
    write(&dir.join("twice/TeamX.py"), &course_random_bot());
    write(&dir.join("twice/TeamY.py"), &course_random_bot());
    write(&dir.join("README.txt"), "submissions of the class\n");
}

/// Bots that fail the check, each in its own way.
fn bad_bots(dir: &Path) {
    write(
        &dir.join("Team31.py"),
        "import no_such_module_here\n\nclass Player:\n    pass\n",
    );
    write(
        &dir.join("Team32.py"),
        "class Player:\n    def __init__(self):\n        raise ValueError('no weights file')\n",
    );
    write(
        &dir.join("Team33.py"),
        "import time\n\nclass Player:\n    def __init__(self):\n        time.sleep(60)\n",
    );
    write(
        &dir.join("Team34.py"),
        "class Player:\n    def play_rebel(self, board):\n        return [[0, 0], [1, 1]]\n\n    \
         def play_officer(self, board):\n        return [[0, 0], [1, 1]]\n",
    );
}

/// The check table's rows: bot name to (status, error column).
fn table_rows(stdout: &str) -> Vec<(String, String, String)> {
    let mut rows: Vec<(String, String, String)> = Vec::new();
    for line in stdout.lines().filter(|l| l.contains('┆')) {
        let cells: Vec<String> = line
            .trim_matches(|c| c == '│' || c == ' ')
            .split('┆')
            .map(|c| c.trim().to_string())
            .collect();
        if cells[0] == "bot" {
            continue;
        }
        if cells[0].is_empty() {
            // A continuation line of the error column.
            if let Some(last) = rows.last_mut() {
                last.2.push('\n');
                last.2.push_str(&cells[5]);
            }
            continue;
        }
        rows.push((cells[0].clone(), cells[1].clone(), cells[5].clone()));
    }
    rows
}

#[test]
fn the_check_table_gives_each_bot_of_a_folder_its_status() {
    let dir = tempfile::tempdir().unwrap();
    let subs = dir.path().join("subs");
    good_folder(&subs);
    bad_bots(&subs);
    let (code, stdout, stderr) = run(arbiter()
        .args([
            "check",
            "-j",
            "2",
            "--init-limit-ms",
            "1500",
            "--limit-ms",
            "5000",
        ])
        .arg(&subs));
    assert_eq!(
        code, 1,
        "a failing bot makes the check fail\n{stdout}\n{stderr}"
    );
    let rows = table_rows(&stdout);
    let statuses: Vec<(&str, &str)> = rows
        .iter()
        .map(|(n, s, _)| (n.as_str(), s.as_str()))
        .collect();
    assert_eq!(
        statuses,
        [
            ("Team21", "ok"),
            ("Team22", "ok"),
            ("Team31", "exception"),
            ("Team32", "exception"),
            ("Team33", "timeout"),
            ("Team34", "illegal"),
            ("TeamAlpha", "ok"),
            ("Team_beta", "ok"),
        ],
        "{stdout}"
    );
    let error = |name: &str| &rows.iter().find(|r| r.0 == name).unwrap().2;
    assert!(error("Team31").contains("ModuleNotFoundError"), "{stdout}");
    assert!(error("Team32").contains("no weights file"), "{stdout}");
    assert!(error("Team34").contains("illegal"), "{stdout}");
    assert!(error("Team21").is_empty(), "{stdout}");
    // The bots list and the entries left out, with the reason.
    assert!(
        stderr.contains("8 bots in")
            && stderr
                .contains("Team21, Team22, Team31, Team32, Team33, Team34, TeamAlpha, Team_beta"),
        "{stderr}"
    );
    // A README is no submission: listed once as ignored, no team.
    assert_eq!(stderr.matches("README.txt").count(), 1, "{stderr}");
    assert!(
        stderr.contains("ignored ") && stderr.contains("README.txt: a README or notes"),
        "{stderr}"
    );
    assert!(stderr.contains("empty_team: no bot"), "{stderr}");
    assert!(
        stderr.contains("twice: several candidates (TeamX.py, TeamY.py)"),
        "{stderr}"
    );
}

#[test]
fn a_check_of_good_bots_passes_and_strict_refuses_a_folder_with_strays() {
    let dir = tempfile::tempdir().unwrap();
    let subs = dir.path().join("subs");
    write(&subs.join("Team21.py"), &course_random_bot());
    write(&subs.join("alpha/TeamAlpha.py"), &bot_using_utils("alpha"));
    write(&subs.join("alpha/utils.py"), &utils_of("alpha"));
    let (code, stdout, stderr) = run(arbiter().args(["check", "-j", "2"]).arg(&subs));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("all 2 bots passed the check"), "{stdout}");
    // Notes are no submission, even under --strict; a stray script is an entry that is
    // not a bot.
    write(&subs.join("notes.txt"), "stray\n");
    let (code, stdout, stderr) = run(arbiter().args(["check", "--strict"]).arg(&subs));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    write(&subs.join("stray.py"), "print('hello')\n");
    let (code, _, stderr) = run(arbiter().args(["check", "--strict"]).arg(&subs));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--strict") && stderr.contains("stray.py: not a bot"),
        "{stderr}"
    );
}

#[test]
fn a_league_over_a_folder_plays_every_good_bot_and_resumes_with_the_same_plan() {
    let dir = tempfile::tempdir().unwrap();
    let subs = dir.path().join("subs");
    good_folder(&subs);
    let out = dir.path().join("league");
    let league = || {
        let mut cmd = arbiter();
        cmd.args(["league", "-q", "-j", "2", "--limit-ms", "1000", "--out"])
            .arg(&out)
            .arg(&subs);
        cmd
    };
    let (code, stdout, stderr) = run(&mut league());
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let rows = csv_rows(&out.join("standings.csv"));
    let (standings, left): (Vec<_>, Vec<_>) = rows.iter().partition(|r| r["left_out"].is_empty());
    let mut bots: Vec<&str> = standings.iter().map(|r| r["bot"].as_str()).collect();
    bots.sort();
    // Named as their files say: `TeamAlpha.py` in the folder `alpha` is TeamAlpha.
    assert_eq!(bots, ["Team21", "Team22", "TeamAlpha", "Team_beta"]);
    // What is not a bot still has its row: no games, mark 0, why.
    let mut left_out: Vec<(&str, &str, &str)> = left
        .iter()
        .map(|r| (r["bot"].as_str(), r["games"].as_str(), r["mark"].as_str()))
        .collect();
    left_out.sort();
    assert_eq!(left_out, [("empty_team", "0", "0"), ("twice", "0", "0")]);
    assert!(
        left.iter()
            .any(|r| r["left_out"].starts_with("several candidates")),
        "{left:?}"
    );
    for row in &standings {
        assert_eq!(row["games"], "6", "{row:?}");
        assert_eq!(
            row["errors"], "0",
            "each bot imports its own utils: {row:?}"
        );
    }
    assert!(
        out.join("unpacked/subs/Team22/Team22/Team22.py").is_file(),
        "the zip is extracted beside the results"
    );
    // The plan's specs and digests are the same on a second run: it resumes.
    let (code, stdout, stderr) = run(&mut league());
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("this run played 0"), "{stdout}");
}

#[test]
fn two_submissions_of_one_name_are_an_error_naming_both() {
    let dir = tempfile::tempdir().unwrap();
    let subs = dir.path().join("subs");
    write(&subs.join("Team40.py"), &course_random_bot());
    write(&subs.join("Team40/Team40.py"), &course_random_bot());
    let out = dir.path().join("out");
    let (code, _, stderr) = run(arbiter()
        .args(["league", "--out"])
        .arg(&out)
        .arg(&subs)
        .arg("builtin:random"));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("two different submissions are both named `Team40`")
            && stderr.contains(&subs.join("Team40").display().to_string())
            && stderr.contains(&subs.join("Team40.py").display().to_string()),
        "{stderr}"
    );
    assert!(!out.join("games.jsonl").exists(), "no game was played");
}

#[test]
fn tournaments_toml_takes_a_folder_with_a_pattern_and_names_a_misused_dir() {
    let dir = tempfile::tempdir().unwrap();
    good_folder(&dir.path().join("subs"));
    let config = dir.path().join("t.toml");
    write(
        &config,
        "[tournaments.class]\ngame = \"asalto\"\nlimit_ms = 1000\nbots = [\n    \
         { folder = \"subs\", pattern = \"Team2*\" },\n    { spec = \"builtin:greedy\" },\n]\n",
    );
    let (code, stdout, stderr) = run(arbiter()
        .args(["run", "class", "-q", "--check", "--config"])
        .arg(&config));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("all 3 bots passed the check"), "{stdout}");
    let standings = csv_rows(&dir.path().join("results/class/standings.csv"));
    let mut bots: Vec<&str> = standings.iter().map(|r| r["bot"].as_str()).collect();
    bots.sort();
    assert_eq!(bots, ["Team21", "Team22", "greedy"]);

    write(
        &config,
        "[tournaments.class]\ngame = \"asalto\"\nbots = [\n    { dir = \"subs\" },\n]\n",
    );
    let (code, _, stderr) = run(arbiter().args(["run", "--config"]).arg(&config));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("t.toml:4:") && stderr.contains("`dir`") && stderr.contains("folder = "),
        "{stderr}"
    );
    write(
        &config,
        "[tournaments.class]\ngame = \"asalto\"\nbots = [\n    { folder = \"subs\", name = \"x\" },\n]\n",
    );
    let (code, _, stderr) = run(arbiter().args(["run", "--config"]).arg(&config));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("t.toml:4:") && stderr.contains("`name`"),
        "{stderr}"
    );
}

/// The course's own Java class `name` as shipped in bots/java/, as students keep it.
pub(crate) fn course_java(name: &str) -> String {
    read(&Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("bots/java/{name}.java")))
}

/// A student's Gomoku player of class `class`: the first empty cell, from the last row up.
pub(crate) fn student_player(class: &str) -> String {
    course_java("SequencePlayer")
        .replace("class SequencePlayer", &format!("class {class}"))
        .replace(
            "int row = 0; row < GomokuBoard.ROWS; row++",
            "int row = GomokuBoard.ROWS - 1; row >= 0; row--",
        )
}

#[test]
fn course_classes_beside_a_gomoku_player_are_the_courses_and_a_check_of_no_bot_fails() {
    if !crate::adapters_java::have_jdk("course_classes_beside_a_gomoku_player") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // A Moodle download where every student kept the course's players beside their own:
    // copies, one with Windows line endings, one edited.
    let class = dir.path().join("gomoku");
    let folder = |student: &str| class.join(format!("{student}_assignsubmission_file_"));
    for (student, player) in [("Ana Ruiz_301", "AnaPlayer"), ("Ben Holt_302", "BenPlayer")] {
        write(
            &folder(student).join(format!("{player}.java")),
            &student_player(player),
        );
        write(
            &folder(student).join("RandomPlayer.java"),
            &course_java("RandomPlayer"),
        );
        write(
            &folder(student).join("SequencePlayer.java"),
            &course_java("SequencePlayer").replace('\n', "\r\n"),
        );
    }
    write(
        &folder("Ben Holt_302").join("RandomPlayer.java"),
        &course_java("RandomPlayer").replace("public class", "// tried it\npublic class"),
    );
    let (code, stdout, stderr) = run(arbiter()
        .args(["check", "--game", "gomoku", "-j", "2"])
        .arg(&class));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("2 bots in") && !stderr.contains("several candidates"),
        "{stderr}"
    );
    assert!(stdout.contains("all 2 bots passed the check"), "{stdout}");
    let mut league = arbiter();
    league
        .args([
            "league", "--game", "gomoku", "-q", "-j", "2", "--pairs", "1", "--out",
        ])
        .arg(dir.path().join("league"))
        .arg(&class);
    let (code, stdout, stderr) = run(&mut league);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let marks = csv_rows(&dir.path().join("league/marks.csv"));
    assert_eq!(marks.len(), 2, "{marks:?}");
    assert!(marks.iter().all(|r| r["status"] == "played"), "{marks:?}");

    // A class whose folders hold nothing but the course's players has no bot: the check
    // says so and fails, and so does a league's.
    let empty = dir.path().join("course-only");
    for student in ["Cy Park_303", "Di Lowe_304"] {
        let f = empty.join(format!("{student}_assignsubmission_file_"));
        write(&f.join("RandomPlayer.java"), &course_java("RandomPlayer"));
        write(
            &f.join("SequencePlayer.java"),
            &course_java("SequencePlayer"),
        );
    }
    let (code, stdout, stderr) = run(arbiter().args(["check", "--game", "gomoku"]).arg(&empty));
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("only the course's own players (RandomPlayer.java, SequencePlayer.java)"),
        "{stderr}"
    );
    assert!(
        stdout.contains("no bot was checked") && !stdout.contains("all 0 bots passed"),
        "{stdout}"
    );
    let mut league = arbiter();
    league
        .args(["league", "--game", "gomoku", "--check", "-q", "--out"])
        .arg(dir.path().join("league-empty"))
        .arg(&empty);
    let (code, stdout, stderr) = run(&mut league);
    assert_eq!(code, 2, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("only the course's own players")
            && stderr.contains("2 entries of the folder left out")
            && stderr.contains("no game was played"),
        "{stdout}\n{stderr}"
    );
}
