//! Grade files a learning platform imports as they are (`arbiter table DIR --grades`): the
//! marks of `marks.csv`, a row per student of the roster, in the shape of Canvas's
//! gradebook import, Moodle's grade import or Blackboard's Grade Center upload, with the
//! team's feedback in the platform's feedback column where it has one.
//!
//! The platform's ids come from the roster, which is usually the platform's own export with
//! a team column added: Canvas's gradebook export (`Student`, `ID`, `SIS User ID`, `SIS
//! Login ID`, `Section`; its `Points Possible` row is skipped), Moodle's participants or
//! grades export (`ID number`, `Email address` or `Username`), Blackboard's Grade Center
//! download (`Last Name`, `First Name`, `Username`; tab-separated UTF-16 is read too). An
//! assignment's column of that export gives its id (`Asalto league (4321)` on Canvas,
//! `Asalto league [Total Pts: 20 Score] |1234` on Blackboard), so the marks go into that
//! assignment; without one the platform makes a new column.

use crate::class::Roster;
use crate::error::Error;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// A platform whose grade import a grade file is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
// The variants' names say it all; a doc comment would turn `table --help` into its long
// form for three words.
#[allow(missing_docs)]
pub enum Platform {
    Canvas,
    Moodle,
    Blackboard,
}

impl Platform {
    fn name(self) -> &'static str {
        match self {
            Platform::Canvas => "canvas",
            Platform::Moodle => "moodle",
            Platform::Blackboard => "blackboard",
        }
    }
    fn extension(self, separator: u8) -> &'static str {
        match separator {
            b'\t' => "txt",
            _ => "csv",
        }
    }
}

/// The platform's name as its users write it.
pub fn title(platform: Platform) -> &'static str {
    match platform {
        Platform::Canvas => "Canvas",
        Platform::Moodle => "Moodle",
        Platform::Blackboard => "Blackboard",
    }
}

/// The separator of `platform`'s grade file when the teacher asked for `asked`: Canvas's
/// import takes commas only, Blackboard's Grade Center an upload separated by tabs (as its
/// download is), Moodle's import whichever separator the teacher picks on its page
/// (commas unless asked).
pub fn separator(platform: Platform, asked: Option<super::sheet::Delimiter>) -> u8 {
    match platform {
        Platform::Canvas => b',',
        Platform::Blackboard => b'\t',
        Platform::Moodle => asked.map_or(b',', super::sheet::Delimiter::byte),
    }
}

/// What a grade file is made of besides the folder's marks.
#[derive(Clone, Debug)]
pub struct GradeFile {
    /// Whose import it is for.
    pub platform: Platform,
    /// The assignment's name as the platform shows it.
    pub assignment: String,
    /// Where to write it; none for `DIR/grades-PLATFORM.csv`.
    pub out: Option<PathBuf>,
    /// The mark of a student whose team handed nothing in.
    pub no_submission_mark: f64,
    /// Whether the marks of an unfinished league may be written (into a file whose name
    /// says they are not final).
    pub partial: bool,
    /// A byte-order mark for Excel, Moodle's separator.
    pub sheet: super::sheet::Sheet,
}

/// What a cell a spreadsheet would take for a formula starts with.
const FORMULA: [char; 6] = ['=', '+', '-', '@', '\t', '\r'];
/// The points every mark is out of: m = 20 x / x_winner.
const OUT_OF: &str = "20";
/// Feedback longer than this goes in by its start and a pointer to its file.
const FEEDBACK_CHARS: usize = 4000;

/// Writes the grade file `grade` of the tournament folder `dir` from its `marks.csv` and
/// `feedback/`, and returns where.
pub fn write(dir: &Path, grade: &GradeFile) -> Result<PathBuf, Error> {
    let marks_path = dir.join(super::marks::MARKS_FILE);
    let marks = read_marks(&marks_path)?;
    let roster = super::marks::kept_roster(dir)?;
    check_roster(grade.platform, roster.as_ref(), dir)?;
    let roster = roster.expect("checked");
    let complete = marks
        .iter()
        .all(|m| m.get("complete").is_some_and(|c| c == "yes"));
    if !grade.partial {
        check_final(complete, dir)?;
    }
    let columns = &roster.columns;
    // The students' rows of marks.csv, in the roster's order: rows of teams with no student
    // (blank roster cells) are for no one.
    let students: Vec<&BTreeMap<String, String>> = marks
        .iter()
        .filter(|m| {
            columns
                .iter()
                .any(|c| m.get(c).is_some_and(|v| !v.is_empty()))
        })
        .collect();
    let mark = |m: &BTreeMap<String, String>| match m.get("status").map(String::as_str) {
        Some("no submission") => super::numbers::fixed(grade.no_submission_mark, 2, false),
        _ => m.get("mark").cloned().unwrap_or_default(),
    };
    let feedback = |m: &BTreeMap<String, String>| feedback_text(dir, m);
    let cell = |m: &BTreeMap<String, String>, name: &str| {
        column(columns, &[name])
            .and_then(|c| m.get(c))
            .cloned()
            .unwrap_or_default()
    };
    // Every column is a cell of a row but Moodle's feedback, which is text of many lines.
    let (delimiter, header, rows): (u8, Vec<String>, Vec<Vec<String>>) = match grade.platform {
        Platform::Canvas => {
            let title = with_id(columns, &grade.assignment, canvas_id)
                .map_or(grade.assignment.clone(), |id| {
                    format!("{} ({id})", grade.assignment)
                });
            let ids = ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"];
            let mut header: Vec<String> = ids.map(String::from).to_vec();
            header.push(title);
            let mut points = vec![String::new(); ids.len()];
            points[0] = "    Points Possible".into();
            points.push(OUT_OF.into());
            let rows = std::iter::once(points)
                .chain(students.iter().map(|m| {
                    let mut row: Vec<String> = ids.iter().map(|c| cell(m, c)).collect();
                    row.push(mark(m));
                    row
                }))
                .collect();
            (separator(grade.platform, None), header, rows)
        }
        Platform::Moodle => {
            let id = column(columns, MOODLE_IDS).cloned().unwrap_or_default();
            let names: Vec<String> = ["First name", "Last name"]
                .iter()
                .filter_map(|c| column(columns, &[c]).cloned())
                .collect();
            let mut header = vec![id.clone()];
            header.extend(names.iter().cloned());
            header.push(grade.assignment.clone());
            header.push(format!("Feedback for {}", grade.assignment));
            let rows = students
                .iter()
                .map(|m| {
                    let mut row = vec![m.get(&id).cloned().unwrap_or_default()];
                    row.extend(names.iter().map(|c| m.get(c).cloned().unwrap_or_default()));
                    row.push(mark(m));
                    row.push(feedback(m));
                    row
                })
                .collect();
            (
                separator(grade.platform, grade.sheet.delimiter),
                header,
                rows,
            )
        }
        Platform::Blackboard => {
            let title = format!("{} [Total Pts: {OUT_OF}]", grade.assignment);
            let title = match with_id(columns, &grade.assignment, blackboard_id) {
                Some(id) => format!("{title} |{id}"),
                None => title,
            };
            let ids = ["Last Name", "First Name", "Username"];
            let mut header: Vec<String> = ids.map(String::from).to_vec();
            header.push(title);
            let rows = students
                .iter()
                .map(|m| {
                    let mut row: Vec<String> = ids.iter().map(|c| cell(m, c)).collect();
                    row.push(mark(m));
                    row
                })
                .collect();
            (separator(grade.platform, None), header, rows)
        }
    };
    let path = grade.out.clone().unwrap_or_else(|| {
        dir.join(format!(
            "grades-{}.{}",
            grade.platform.name(),
            grade.platform.extension(delimiter)
        ))
    });
    let path = match complete {
        true => path,
        false => not_final(&path),
    };
    let feedback_at = (grade.platform == Platform::Moodle).then(|| header.len() - 1);
    let mut writer = csv::WriterBuilder::new()
        .delimiter(delimiter)
        .from_writer(Vec::new());
    for row in std::iter::once(header).chain(rows) {
        let cells = row
            .iter()
            .enumerate()
            .map(|(i, c)| match Some(i) == feedback_at {
                true => std::borrow::Cow::Borrowed(c.as_str()),
                false => crate::untrusted::text::csv_cell(c),
            });
        // Writing into a Vec cannot fail.
        writer
            .write_record(cells.map(|c| c.into_owned()))
            .expect("in-memory csv");
    }
    let mut bytes = match grade.sheet.bom {
        true => super::sheet::BOM.to_vec(),
        false => Vec::new(),
    };
    bytes.extend(writer.into_inner().expect("in-memory csv"));
    super::write_atomic(&path, &bytes)?;
    Ok(path)
}

/// Refuses the grade file of the league in `dir` unless it is `complete`: the marks of a
/// league that has not played all its games are not final.
pub fn check_final(complete: bool, dir: &Path) -> Result<(), Error> {
    match complete {
        true => Ok(()),
        false => Err(Error::usage(format!(
            "--grades: the league in {} has not played all its games, so its marks are not \
             final: play it to the end (rerun the league, which resumes), or give --partial \
             for a file named as not final",
            dir.display()
        ))),
    }
}

/// The columns Moodle's import can map to a user, in the order they are taken.
const MOODLE_IDS: &[&str] = &[
    "ID number",
    "idnumber",
    "Email address",
    "email",
    "Username",
];

/// Refuses a grade file for `platform` from `roster` (of the folder `dir`) when there is
/// none, or when it lacks a column the platform's import needs, naming it: before anything
/// is written.
pub fn check_roster(platform: Platform, roster: Option<&Roster>, dir: &Path) -> Result<(), Error> {
    let Some(roster) = roster else {
        return Err(Error::usage(format!(
            "--grades: {} has no class list: give --roster FILE (the platform's export of \
             the class with a team column), which matches each student to a team",
            dir.display()
        )));
    };
    let needed: &[(&[&str], &str)] = match platform {
        Platform::Canvas => &[
            (
                &["Student"],
                " (the student's name, as Canvas's gradebook export has)",
            ),
            (&["ID"], " (Canvas's user id, as its gradebook export has)"),
        ],
        Platform::Moodle => &[(
            MOODLE_IDS,
            " (or `Email address` or `Username`: one that Moodle's import maps to a user)",
        )],
        Platform::Blackboard => &[
            (
                &["Last Name"],
                " (as Blackboard's Grade Center download has)",
            ),
            (
                &["First Name"],
                " (as Blackboard's Grade Center download has)",
            ),
            (
                &["Username"],
                " (as Blackboard's Grade Center download has)",
            ),
        ],
    };
    for (names, what) in needed {
        if column(&roster.columns, names).is_none() {
            return Err(Error::usage(format!(
                "--grades {}: the roster has no `{}` column{what}; its columns: {}",
                platform.name(),
                names[0],
                roster.columns.join(", ")
            )));
        }
    }
    Ok(())
}

/// `path` named as holding marks that are not final: `grades-canvas-NOT-FINAL.csv`.
fn not_final(path: &Path) -> PathBuf {
    let stem = path.file_stem().unwrap_or_default().to_string_lossy();
    let name = match path.extension() {
        Some(e) => format!("{stem}-NOT-FINAL.{}", e.to_string_lossy()),
        None => format!("{stem}-NOT-FINAL"),
    };
    path.with_file_name(name)
}

/// The roster's column named as one of `names` (case and surrounding spaces aside).
fn column<'a>(columns: &'a [String], names: &[&str]) -> Option<&'a String> {
    names.iter().find_map(|name| {
        columns
            .iter()
            .find(|c| c.trim().eq_ignore_ascii_case(name.trim()))
    })
}

/// The platform's id of the assignment named `assignment` among the roster's columns, as
/// `id_of` reads a column's header for that name.
fn with_id(
    columns: &[String],
    assignment: &str,
    id_of: fn(&str, &str) -> Option<String>,
) -> Option<String> {
    columns
        .iter()
        .find_map(|c| id_of(c.trim(), assignment.trim()))
}

/// Canvas's `NAME (ID)`.
fn canvas_id(header: &str, name: &str) -> Option<String> {
    let id = header
        .strip_prefix(name)?
        .trim()
        .strip_prefix('(')?
        .strip_suffix(')')?;
    (!id.is_empty() && id.chars().all(|c| c.is_ascii_digit())).then(|| id.to_string())
}

/// Blackboard's `NAME [Total Pts: 20 Score] |ID`.
fn blackboard_id(header: &str, name: &str) -> Option<String> {
    let rest = header.strip_prefix(name)?.trim_start();
    let (_, id) = rest.strip_prefix('[')?.split_once(']')?;
    let id = id.trim().strip_prefix('|')?.trim();
    (!id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then(|| id.to_string())
}

/// The feedback file of the team of `marks`' row, as its text (its start and a pointer to
/// the file when long); empty for a team with none.
fn feedback_text(dir: &Path, marks: &BTreeMap<String, String>) -> String {
    let Some(team) = marks.get("team") else {
        return String::new();
    };
    let name = format!("{}.md", super::feedback::file_safe(team));
    let path = dir.join(super::marks::FEEDBACK_DIR).join(&name);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return String::new();
    };
    match text.char_indices().nth(FEEDBACK_CHARS) {
        None => text,
        Some((at, _)) => {
            let cut = text[..at].rfind('\n').unwrap_or(at);
            format!(
                "{}\n\n(The whole feedback is in the file {}/{name}.)\n",
                &text[..cut],
                super::marks::FEEDBACK_DIR
            )
        }
    }
}

/// The rows of `marks.csv` by column name.
fn read_marks(path: &Path) -> Result<Vec<BTreeMap<String, String>>, Error> {
    let bad = |e: String| Error::Input {
        path: path.to_path_buf(),
        line: 0,
        message: format!("{e}: expected the marks.csv a league or `arbiter table` writes"),
    };
    let bytes = std::fs::read(path).map_err(|e| bad(e.to_string()))?;
    // `arbiter table --bom --delimiter` may have restyled it for a spreadsheet.
    let bytes = bytes.strip_prefix(super::sheet::BOM).unwrap_or(&bytes);
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(crate::class::csv_delimiter(bytes))
        .from_reader(bytes);
    let header: Vec<String> = reader
        .headers()
        .map_err(|e| bad(e.to_string()))?
        .iter()
        .map(str::to_string)
        .collect();
    reader
        .records()
        .map(|r| {
            let r = r.map_err(|e| bad(e.to_string()))?;
            Ok(header
                .iter()
                .cloned()
                // marks.csv marks a cell a spreadsheet would take for a formula with `'`.
                .zip(r.iter().map(|c| match c.strip_prefix('\'') {
                    Some(rest) if rest.starts_with(FORMULA) => rest.to_string(),
                    _ => c.to_string(),
                }))
                .collect())
        })
        .collect()
}
