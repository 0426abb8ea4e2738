//! What a teacher hands out as it is: each team's feedback, which says only what the
//! student can do and holds the team's own errors whole (never another team's), and the
//! report for the class (`arbiter report --public`), which shows the teams, standings and
//! marks and no student's name or id, no path of the teacher's and no team's error.

use crate::common::{arbiter, course_random_bot, read, run};
use std::path::{Path, PathBuf};

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A course bot named after its team.
fn team_bot(team: &str) -> String {
    course_random_bot().replace("Team11", team)
}

/// The course's misbehaving bot that raises on its third move
/// (bots/python/examples/misbehaving/raise_bot.py) as a team hands it in: in one file,
/// its helper's legal moves taken from the course's random bot, and writing a line of its
/// own to stderr before each move (with markup, which its feedback must not render).
fn raising_bot() -> String {
    let raise = read(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("bots/python/examples/misbehaving/raise_bot.py"),
    );
    let random = course_random_bot();
    let rules = &random[..random.find("class Player").unwrap()];
    let raise = raise
        .replace("from asalto_moves import a_legal_move\n", "")
        .replace(
            "        self.moves += 1\n",
            "        self.moves += 1\n        print('raiser thinking ``` <img src=x onerror=alert(1)>', \
             self.moves, file=sys.stderr)\n",
        );
    assert!(raise.contains("raise RuntimeError") && raise.contains("sys.stderr"));
    format!(
        "import sys\n{rules}\n\ndef a_legal_move(board, role):\n    moves = rebel_moves(board) \
         if role == 'rebel' else officer_moves(board)\n    return moves[0] if moves else None\n\n\
         {raise}"
    )
}

/// The course's random bot, writing a line of its own to stderr at each move.
fn chatty_bot(team: &str) -> String {
    team_bot(team)
        .replace("import random\n", "import random\nimport sys\n")
        .replace(
            "    def play_rebel(self, board):\n",
            "    def play_rebel(self, board):\n        print('CHATTY stderr of the opponent', \
             file=sys.stderr)\n",
        )
        .replace(
            "    def play_officer(self, board):\n",
            "    def play_officer(self, board):\n        print('CHATTY stderr of the opponent', \
             file=sys.stderr)\n",
        )
}

/// A Moodle download (a folder per student, named by the student's name and id): Team01
/// plays fair, Team02 raises on its third move, Team03 writes to stderr, Team04 does not
/// parse.
fn moodle_class(dir: &Path) -> PathBuf {
    let class = dir.join("moodle");
    let folder = |student: &str| class.join(format!("{student}_assignsubmission_file_"));
    write(
        &folder("Alice Smith_12345").join("Team01.py"),
        &team_bot("Team01"),
    );
    write(&folder("Bob Jones_12346").join("Team02.py"), &raising_bot());
    write(
        &folder("Carol Lee_12347").join("Team03.py"),
        &chatty_bot("Team03"),
    );
    write(
        &folder("Dan Wu_12348").join("Team04.py"),
        "import random\n\nclass Player:\n    def __init__(self)\n        pass\n",
    );
    class
}

const ROSTER: &str = "Student name,Student ID,Email,Team\n\
    Alice Smith,12345,alice.smith@example.org,Team01\n\
    Bob Jones,12346,bob.jones@example.org,Team02\n\
    Carol Lee,12347,carol.lee@example.org,Team03\n\
    Dan Wu,12348,dan.wu@example.org,Team04\n";

/// A league of the class of [`moodle_class`] with its roster, `--check` leaving Team04
/// out; returns the league's folder.
fn class_league(dir: &Path) -> PathBuf {
    let class = moodle_class(dir);
    let roster = dir.join("roster.csv");
    write(&roster, ROSTER);
    let out = dir.join("league");
    let (code, stdout, stderr) = run(arbiter()
        .args([
            "league",
            "--game",
            "asalto",
            "--round-limit",
            "12",
            "-j",
            "2",
        ])
        .args(["-q", "--check", "--limit-ms", "5000", "--roster"])
        .arg(&roster)
        .arg("--out")
        .arg(&out)
        .arg(&class));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    out
}

/// `text` without its fenced code blocks: what Markdown renders as text.
fn outside_code_blocks(text: &str) -> String {
    let mut out = String::new();
    let mut fence: Option<String> = None;
    for line in text.lines() {
        let ticks: String = line.chars().take_while(|&c| c == '`').collect();
        match &fence {
            Some(open) if ticks.len() >= open.len() && line.trim() == ticks => fence = None,
            Some(_) => {}
            None if ticks.len() >= 3 => fence = Some(ticks),
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    assert!(fence.is_none(), "a code block left open: {text}");
    out
}

#[test]
fn feedback_holds_a_teams_own_traceback_and_stderr_only_and_says_only_what_a_student_can_do() {
    let dir = tempfile::tempdir().unwrap();
    let out = class_league(dir.path());
    let feedback = |team: &str| read(&out.join("feedback").join(format!("{team}.md")));
    let raiser = feedback("Team02");
    // Its whole traceback, its innermost frame named by its file alone.
    let errors = &raiser[raiser
        .find("## Your bot's errors")
        .unwrap_or_else(|| panic!("{raiser}"))..];
    assert!(
        errors.contains("Traceback (most recent call last)")
            && errors.contains("File \"Team02.py\", line")
            && errors.contains("raise RuntimeError(\"deliberate failure on move 3\")")
            && errors.contains("RuntimeError: deliberate failure on move 3"),
        "{raiser}"
    );
    assert!(
        errors.contains("The error in games ") || errors.contains("The error in game "),
        "{raiser}"
    );
    // Its own stderr, in a block its own text cannot close; none of its opponents'.
    assert!(
        errors.contains("raiser thinking ``` <img src=x onerror=alert(1)> 3"),
        "{raiser}"
    );
    assert!(errors.contains("\n````text\n"), "{raiser}");
    assert!(!raiser.contains("CHATTY"), "{raiser}");
    let rendered = outside_code_blocks(&raiser);
    assert!(
        !rendered.contains('<') && !rendered.contains("Traceback"),
        "{rendered}"
    );
    assert!(
        raiser.contains("The whole error is under *Your bot's errors*"),
        "{raiser}"
    );

    // Its opponents get none of it: not its traceback, not its stderr.
    for team in ["Team01", "Team03", "Team04"] {
        let other = feedback(team);
        for theirs in [
            "Traceback",
            "deliberate failure",
            "RuntimeError",
            "raiser thinking",
            "CHATTY",
        ] {
            assert!(!other.contains(theirs), "{team}: {theirs}: {other}");
        }
        assert!(!other.contains("## Your bot's errors"), "{team}: {other}");
    }
    assert!(
        feedback("Team01").contains("your opponent raised an exception"),
        "{}",
        feedback("Team01")
    );

    // Every file says what the student can do, and nothing the teacher would have to.
    let class_path = dir.path().to_string_lossy().into_owned();
    for team in ["Team01", "Team02", "Team03", "Team04"] {
        let text = feedback(team);
        let lower = text.to_lowercase();
        for promise in [
            "rerun",
            "re-run",
            "arbiter play",
            "ask for",
            "run the game again",
        ] {
            assert!(!lower.contains(promise), "{team}: {promise}: {text}");
        }
        assert!(!text.contains(&class_path), "{team}: {text}");
        assert!(
            text.contains("## What you can do")
                && text.contains("the way your course takes submissions")
                && text.contains(
                    "you can test it on your own machine if you like: play it with the \
                     course's own referee against the course's sample bots, or, if you have \
                     arbiter installed, run `arbiter check` on your file."
                ),
            "{team}: {text}"
        );
    }
    assert!(
        feedback("Team02").contains("Fix what failed and hand your bot in again"),
        "{}",
        feedback("Team02")
    );
    assert!(
        feedback("Team04").contains("Fix your entry and hand it in again"),
        "{}",
        feedback("Team04")
    );
    assert!(
        feedback("Team01").contains("a better mark is a matter of better play"),
        "{}",
        feedback("Team01")
    );
}

/// Every text file of the report folder `dir`, by its path, for the report's readers:
/// the pages, Markdown, LaTeX and plots.
fn report_texts(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut texts = Vec::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if ["md", "html", "tex", "svg", "js"]
                .iter()
                .any(|e| path.extension().is_some_and(|x| x == *e))
            {
                texts.push((path.clone(), read(&path)));
            }
        }
    }
    texts
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        match entry.path().is_dir() {
            true => copy_dir(&entry.path(), &target),
            false => {
                std::fs::copy(entry.path(), &target).unwrap();
            }
        }
    }
}

#[test]
fn a_public_report_shows_teams_standings_and_marks_and_no_student_path_or_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = class_league(dir.path());
    let teachers = read(&out.join("report/report.md"));
    // The teacher's report quotes the errors and entries the public one must not.
    assert!(
        teachers.contains("deliberate failure") && teachers.contains("SyntaxError"),
        "{teachers}"
    );
    let (code, stdout, stderr) = run(arbiter().arg("report").arg(&out).arg("--public"));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let public = out.join("report-public");
    assert_eq!(
        stdout.trim(),
        format!("report: {}", public.join("index.html").display())
    );
    // The teacher's report is left as it was.
    assert_eq!(read(&out.join("report/report.md")), teachers);

    // Written over a copy of the teacher's report, it leaves none of its files behind.
    let over = dir.path().join("over-teachers");
    copy_dir(&out.join("report"), &over);
    assert!(over.join("tables/problems.tex").is_file());
    let (code, stdout, stderr) = run(arbiter()
        .arg("report")
        .arg(&out)
        .arg("--public")
        .arg("--out")
        .arg(&over));
    assert_eq!(code, 0, "{stdout}\n{stderr}");

    let texts = report_texts(&public);
    for file in [
        "report.md",
        "report.tex",
        "index.html",
        "tables/standings.tex",
    ] {
        assert!(
            texts.iter().any(|(p, _)| p == &public.join(file)),
            "{file}: {texts:?}"
        );
    }
    let class_path = dir.path().to_string_lossy().into_owned();
    for (path, text) in texts.iter().chain(&report_texts(&over)) {
        let lower = text.to_lowercase();
        for student in [
            "alice",
            "smith",
            "bob jones",
            "carol",
            "dan wu",
            "12345",
            "12346",
            "12347",
            "12348",
            "example.org",
            "example[.]org",
        ] {
            assert!(!lower.contains(student), "{}: {student}", path.display());
        }
        for error in [
            "traceback",
            "deliberate failure",
            "runtimeerror",
            "syntaxerror",
            "raiser thinking",
            "chatty",
            "team02.py",
            "team04.py",
        ] {
            assert!(!lower.contains(error), "{}: {error}", path.display());
        }
        for path_part in [
            class_path.as_str(),
            "assignsubmission",
            "unpacked",
            "moodle",
        ] {
            assert!(!text.contains(path_part), "{}: {path_part}", path.display());
        }
    }
    // The standings and marks of every team, by team name, and the teams' statuses.
    let md = read(&public.join("report.md"));
    for section in [
        "## Standings",
        "## Teams",
        "## Points matrix",
        "## Settings",
    ] {
        assert!(md.contains(section), "{section}: {md}");
    }
    assert!(
        !md.contains("## Problems") && !md.contains("## Team Team"),
        "{md}"
    );
    for team in ["Team01", "Team02", "Team03", "Team04"] {
        assert!(md.contains(&format!("| {team} |")), "{team}: {md}");
    }
    assert!(md.contains("| left out |"), "{md}");
    assert!(md.contains("| mark |") && md.contains("20.00"), "{md}");
    let html = read(&public.join("index.html"));
    assert!(
        html.contains("id=\"table-standings\"") && html.contains("id=\"games\""),
        "the page has its standings and its games"
    );
}

/// A Moodle download of a Hinger class: a folder per student, each with the course's
/// agent (`a3_agent.py`, which names no team), Eva's agent not parsing.
fn hinger_moodle_class(dir: &Path) -> PathBuf {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("bots/python/examples/hinger");
    let class = dir.join("hinger-class");
    for student in ["Ana Pérez_12345", "Luis Gómez_12346", "Eva Novak_12347"] {
        let folder = class.join(format!("{student}_assignsubmission_file_"));
        for file in ["a3_agent.py", "a1_state.py"] {
            write(&folder.join(file), &read(&examples.join(file)));
        }
    }
    write(
        &class.join("Eva Novak_12347_assignsubmission_file_/a3_agent.py"),
        "def agent(state\n",
    );
    class
}

#[test]
fn a_public_report_of_bots_named_after_their_students_gives_them_names_that_name_no_one() {
    let dir = tempfile::tempdir().unwrap();
    let class = hinger_moodle_class(dir.path());
    let out = dir.path().join("league");
    let (code, stdout, stderr) = run(arbiter()
        .args(["league", "--game", "hinger", "--rows", "4", "--cols", "5"])
        .args(["--pairs", "1", "-j", "2", "-q", "--check", "--out"])
        .arg(&out)
        .arg(&class));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    // The teacher's report goes by the students' folders, which name them.
    let teachers = read(&out.join("report/report.md"));
    assert!(teachers.contains("Ana Pérez"), "{teachers}");
    let (code, stdout, stderr) = run(arbiter().arg("report").arg(&out).arg("--public"));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let public = out.join("report-public");
    for (path, text) in report_texts(&public) {
        let lower = text.to_lowercase();
        for student in ["ana", "pérez", "luis", "gómez", "eva", "novak", "1234"] {
            assert!(!lower.contains(student), "{}: {student}", path.display());
        }
        assert!(!text.contains("assignsubmission"), "{}", path.display());
    }
    // Each bot is there under a name of its own, the one left out too.
    let md = read(&public.join("report.md"));
    for bot in ["Bot 1", "Bot 2", "Bot 3"] {
        assert!(md.contains(&format!("| {bot} |")), "{bot}: {md}");
    }
    assert!(md.contains("| left out |"), "{md}");
    // Each student's feedback says which name is theirs: the plan's order, the bots that
    // played, then the entry left out.
    for (student, public) in [
        ("Ana Pérez_12345", "Bot 1"),
        ("Luis Gómez_12346", "Bot 2"),
        ("Eva Novak_12347", "Bot 3"),
    ] {
        let feedback = read(&out.join(format!("feedback/{student}_assignsubmission_file_.md")));
        assert!(
            feedback.contains(&format!(
                "your bot is listed as `{public}`, not by your name"
            )),
            "{student}: {feedback}"
        );
    }
    let row = md.lines().find(|l| l.starts_with("| Bot 3 |")).unwrap();
    assert!(row.contains("left out"), "{md}");
}
