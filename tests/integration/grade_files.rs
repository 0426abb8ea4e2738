//! Marks where the class already is: `arbiter table DIR --grades canvas|moodle|blackboard`
//! from each platform's own export of the class (a team column added, as a teacher does),
//! checked cell by cell: the exact header, a row per student (one whose team handed
//! nothing in included), the marks of marks.csv, Moodle's feedback column, and the refusals
//! (a roster without the column a platform needs, an unfinished league).

use crate::common::{arbiter, csv_rows, read, run};
use std::path::{Path, PathBuf};

fn rosters() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("bots/rosters")
}

/// A finished league of the example class's teams (Team15 of the rosters handed nothing
/// in), quick built-ins standing for their bots.
fn league(dir: &Path) -> PathBuf {
    let out = dir.join("league");
    let (code, stdout, stderr) = run(arbiter()
        .args(["league", "--game", "asalto", "--round-limit", "60"])
        .args(["--pairs", "1", "--limit-ms", "500", "-q", "--roster"])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("bots/roster.csv"))
        .arg("--out")
        .arg(&out)
        .args([
            "Team11=builtin:greedy",
            "Team12=builtin:random",
            "Team13=builtin:greedy",
            "Team14=builtin:random",
        ]));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    out
}

fn table(out: &Path, args: &[&str]) -> (i32, String, String) {
    run(arbiter().arg("table").arg(out).args(args))
}

/// Each student's mark in marks.csv by the roster's `id` column (bots/roster.csv).
fn marks_by_id(out: &Path) -> Vec<(String, String)> {
    csv_rows(&out.join("marks.csv"))
        .into_iter()
        .filter(|r| !r["id"].is_empty())
        .map(|r| (r["id"].clone(), r["mark"].clone()))
        .collect()
}

fn lines(text: &str) -> Vec<&str> {
    text.lines().collect()
}

#[test]
fn canvas_gets_its_gradebook_columns_the_points_possible_row_and_every_student() {
    let dir = tempfile::tempdir().unwrap();
    let out = league(dir.path());
    let marks = marks_by_id(&out);
    let roster = rosters().join("canvas-gradebook.csv");
    let (code, stdout, stderr) = table(
        &out,
        &["--roster", roster.to_str().unwrap(), "--grades", "canvas"],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let file = out.join("grades-canvas.csv");
    assert!(
        stdout.contains(&format!("grades: {}", file.display())),
        "{stdout}"
    );
    let text = read(&file);
    let rows = lines(&text);
    // No --assignment: the folder's name, and a new column (the export has none of it).
    assert_eq!(
        rows[0],
        "Student,ID,SIS User ID,SIS Login ID,Section,league"
    );
    assert_eq!(rows[1], "    Points Possible,,,,,20");
    let mark = |sis: &str| marks.iter().find(|(id, _)| id == sis).unwrap().1.clone();
    assert_eq!(
        rows[2..],
        [
            format!(
                "\"Lovelace, Ada\",101,s1001,s1001,COMP101 A,{}",
                mark("s1001")
            ),
            format!(
                "\"Turing, Alan\",102,s1002,s1002,COMP101 A,{}",
                mark("s1002")
            ),
            format!(
                "\"Hopper, Grace\",103,s1003,s1003,COMP101 A,{}",
                mark("s1003")
            ),
            format!(
                "\"Dijkstra, Edsger\",104,s1004,s1004,COMP101 A,{}",
                mark("s1004")
            ),
            format!(
                "\"Liskov, Barbara\",105,s1005,s1005,COMP101 A,{}",
                mark("s1005")
            ),
            "\"Knuth, Donald\",106,s1006,s1006,COMP101 A,0.00".to_string(),
        ]
    );
    assert!(marks.iter().any(|(_, m)| m == "20.00"), "{marks:?}");
    // The assignment of the export, by its name: its column's id; a student with no
    // submission gets the course's mark for that.
    let (code, stdout, stderr) = table(
        &out,
        &[
            "--grades",
            "canvas",
            "--assignment",
            "Asalto league",
            "--no-submission-mark",
            "2",
            "--out",
            dir.path().join("upload.csv").to_str().unwrap(),
        ],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let text = read(&dir.path().join("upload.csv"));
    let rows = lines(&text);
    assert_eq!(
        rows[0],
        "Student,ID,SIS User ID,SIS Login ID,Section,Asalto league (4321)"
    );
    assert_eq!(rows[7], "\"Knuth, Donald\",106,s1006,s1006,COMP101 A,2.00");
}

#[test]
fn moodle_gets_its_users_id_number_the_mark_and_the_teams_feedback() {
    let dir = tempfile::tempdir().unwrap();
    let out = league(dir.path());
    let roster = rosters().join("moodle-participants.csv");
    let (code, stdout, stderr) = table(
        &out,
        &[
            "--roster",
            roster.to_str().unwrap(),
            "--grades",
            "moodle",
            "--assignment",
            "Asalto league",
        ],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let rows = csv_rows(&out.join("grades-moodle.csv"));
    assert_eq!(
        rows[0].keys().collect::<Vec<_>>(),
        [
            "Asalto league",
            "Feedback for Asalto league",
            "First name",
            "ID number",
            "Last name"
        ]
    );
    let header = read(&out.join("grades-moodle.csv"));
    assert!(
        header.starts_with(
            "ID number,First name,Last name,Asalto league,Feedback for Asalto league\n"
        ),
        "{header}"
    );
    let ids: Vec<&str> = rows.iter().map(|r| r["ID number"].as_str()).collect();
    assert_eq!(ids, ["s1001", "s1002", "s1003", "s1004", "s1005", "s1006"]);
    let marks = csv_rows(&out.join("marks.csv"));
    for (row, marked) in rows.iter().zip(&marks) {
        assert_eq!(row["Asalto league"], marked["mark"], "{row:?}");
        // The team's feedback file, whole, as Moodle shows it beside the grade.
        let feedback = read(&out.join(format!("feedback/{}.md", marked["team"])));
        assert_eq!(row["Feedback for Asalto league"], feedback, "{row:?}");
    }
    assert!(rows[5]["Feedback for Asalto league"].contains("No submission was found"));
}

#[test]
fn blackboard_gets_a_tab_separated_upload_from_its_utf16_grade_center_download() {
    let dir = tempfile::tempdir().unwrap();
    let out = league(dir.path());
    let marks = marks_by_id(&out);
    let roster = rosters().join("blackboard-grade-center.xls");
    let (code, stdout, stderr) = table(
        &out,
        &[
            "--roster",
            roster.to_str().unwrap(),
            "--grades",
            "blackboard",
            "--assignment",
            "Asalto league",
        ],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let text = read(&out.join("grades-blackboard.txt"));
    let rows = lines(&text);
    assert_eq!(
        rows[0],
        "Last Name\tFirst Name\tUsername\tAsalto league [Total Pts: 20] |1234567"
    );
    assert_eq!(rows.len(), 7, "{text}");
    for (row, (id, mark)) in rows[1..].iter().zip(&marks) {
        let cells: Vec<&str> = row.split('\t').collect();
        assert_eq!((cells[2], cells[3]), (id.as_str(), mark.as_str()), "{row}");
    }
    assert_eq!(rows[6], "Knuth\tDonald\ts1006\t0.00");
    // Another assignment's name: a new column, which has no id.
    let (code, _, stderr) = table(&out, &["--grades", "blackboard", "--assignment", "Week 2"]);
    assert_eq!(code, 0, "{stderr}");
    let text = read(&out.join("grades-blackboard.txt"));
    assert!(
        text.starts_with("Last Name\tFirst Name\tUsername\tWeek 2 [Total Pts: 20]\n"),
        "{text}"
    );
}

#[test]
fn a_roster_without_the_platforms_column_or_an_unfinished_league_is_refused_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = league(dir.path());
    let kept = read(&out.join("roster.csv"));
    let tables = read(&out.join("standings.csv"));
    // The example roster has no platform's columns: Canvas needs `Student`.
    let moodle = rosters().join("moodle-participants.csv");
    let (code, _, stderr) = table(
        &out,
        &["--roster", moodle.to_str().unwrap(), "--grades", "canvas"],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("--grades canvas: the roster has no `Student` column")
            && stderr.contains("First name, Last name, ID number, Email address"),
        "{stderr}"
    );
    let (code, _, stderr) = table(&out, &["--grades", "blackboard"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no `Last Name` column"), "{stderr}");
    assert_eq!(read(&out.join("roster.csv")), kept, "the kept roster stays");
    // Only a flag of --grades means anything with it.
    let (code, _, stderr) = table(&out, &["--assignment", "Asalto league"]);
    assert_eq!(code, 2, "{stderr}");
    // A league cut short: its marks are not final.
    let journal = out.join("games.jsonl");
    let text = read(&journal);
    let cut: Vec<&str> = text.lines().take(5).collect();
    std::fs::write(&journal, cut.join("\n") + "\n").unwrap();
    let canvas = rosters().join("canvas-gradebook.csv");
    let (code, _, stderr) = table(
        &out,
        &["--roster", canvas.to_str().unwrap(), "--grades", "canvas"],
    );
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("has not played all its games, so its marks are not final")
            && stderr.contains("--partial"),
        "{stderr}"
    );
    assert_eq!(read(&out.join("roster.csv")), kept);
    assert_eq!(read(&out.join("standings.csv")), tables);
    let written: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("grades"))
        .collect();
    assert_eq!(written, Vec::<String>::new());
    // With --partial, a file whose name says so.
    let (code, stdout, stderr) = table(
        &out,
        &[
            "--roster",
            canvas.to_str().unwrap(),
            "--grades",
            "canvas",
            "--partial",
        ],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let file = out.join("grades-canvas-NOT-FINAL.csv");
    assert_eq!(lines(&read(&file)).len(), 8);
    assert!(!out.join("grades-canvas.csv").exists());
}

/// The rows of the CSV file at `path` as Python's csv module reads them, opened the way
/// its documentation says for a file from Excel (`utf-8-sig`, which drops a byte-order
/// mark), with `delimiter`.
fn python_rows(path: &Path, delimiter: char) -> Vec<Vec<String>> {
    let script = "import csv, json, sys\n\
                  with open(sys.argv[1], newline='', encoding='utf-8-sig') as f:\n\
                  \x20   print(json.dumps(list(csv.reader(f, delimiter=sys.argv[2]))))\n";
    let out = std::process::Command::new("/usr/bin/python3")
        .args(["-c", script])
        .arg(path)
        .arg(delimiter.to_string())
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("json rows")
}

#[test]
fn marks_and_grade_files_for_excel_carry_a_bom_and_its_separator_and_read_back_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let out = league(dir.path());
    // A class list with names no ASCII spreadsheet keeps, a comma and a semicolon in cells.
    let roster = dir.path().join("participants.csv");
    std::fs::write(
        &roster,
        "First name,Last name,ID number,Email address,Team\n\
         Jürgen,Müller,s1001,jm@example.org,Team11\n\
         Łucja,\"Nowak; Kowalska\",s1002,ln@example.org,Team12\n\
         Zoë,\"Ng, Li\",s1003,zn@example.org,Team13\n\
         Søren,Ørsted,s1004,so@example.org,Team14\n\
         José,Peña,s1005,jp@example.org,Team15\n",
    )
    .unwrap();
    let roster = roster.to_str().unwrap();
    let moodle = ["--grades", "moodle", "--assignment", "Asalto league"];
    let plain_args = [&["--roster", roster][..], &moodle[..]].concat();
    let (code, stdout, stderr) = table(&out, &plain_args);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let plain_marks = python_rows(&out.join("marks.csv"), ',');
    let plain_grades = python_rows(&out.join("grades-moodle.csv"), ',');
    assert!(!read(&out.join("marks.csv")).starts_with('\u{feff}'));
    assert_eq!(plain_marks[1][..2], ["Jürgen", "Müller"]);

    let excel = [&plain_args[..], &["--bom", "--delimiter", "semicolon"][..]].concat();
    let (code, stdout, stderr) = table(&out, &excel);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    for (name, plain, header) in [
        ("marks.csv", &plain_marks, "First name;Last name;ID number;"),
        (
            "grades-moodle.csv",
            &plain_grades,
            "ID number;First name;Last name;",
        ),
    ] {
        let bytes = std::fs::read(out.join(name)).unwrap();
        assert!(
            bytes.starts_with(b"\xEF\xBB\xBF"),
            "{name} starts with a BOM"
        );
        let text = String::from_utf8(bytes[3..].to_vec()).unwrap();
        assert!(
            text.starts_with(header),
            "{name} is separated by semicolons: {text}"
        );
        assert_eq!(&python_rows(&out.join(name), ';'), plain, "{name}");
        // A cell holding the separator is quoted; the comma no longer needs it.
        assert!(text.contains("\"Nowak; Kowalska\""), "{text}");
        assert!(text.contains(";Ng, Li;"), "{text}");
    }
    // A Moodle file restyled for Excel is still one Moodle's feedback column reads whole.
    let feedback = read(&out.join("feedback/Team11.md"));
    assert_eq!(plain_grades[1][4], feedback);

    // Canvas's import takes commas only: the grade file keeps them, marks.csv follows the
    // teacher, and the note says which is which.
    let canvas = rosters().join("canvas-gradebook.csv");
    let (code, stdout, stderr) = table(
        &out,
        &[
            "--roster",
            canvas.to_str().unwrap(),
            "--grades",
            "canvas",
            "--delimiter",
            "tab",
        ],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("--delimiter tab: Canvas's import takes its own separator"),
        "{stderr}"
    );
    assert!(read(&out.join("grades-canvas.csv")).starts_with("Student,ID,SIS User ID,"));
    assert!(read(&out.join("marks.csv")).starts_with("Student\tID\t"));
    // And a grade file is made again from a marks.csv restyled by an earlier run.
    let (code, stdout, stderr) = table(&out, &plain_args);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert_eq!(
        python_rows(&out.join("grades-moodle.csv"), ','),
        plain_grades
    );
}
