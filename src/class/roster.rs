//! A class list (`--roster`): which students make up which team, read from the teacher's
//! CSV file, and matched to the league's teams before any game, so that no student is
//! marked "no submission" for a team whose name the roster spells another way.
//!
//! A student is matched to a team by the platform's student id or user name when the roster
//! carries one that a submission's folder or file names (`Alice Smith_12345_...`,
//! `smithalice_10001_...`, `..._jsmith_attempt_...`), else by the roster's team column, case
//! and surrounding spaces aside.

use crate::error::Error;
use std::path::Path;

/// The roster's copy in a tournament folder: a rebuilt report finds it there.
pub const ROSTER_FILE: &str = "roster.csv";

/// A class list: which students make up which team.
#[derive(Clone, Debug, PartialEq)]
pub struct Roster {
    /// The student columns, as the file names them (the team column left out).
    pub columns: Vec<String>,
    /// Each student: their team and their cells of `columns`.
    pub students: Vec<(String, Vec<String>)>,
    /// Where the team column is among the file's columns.
    pub team_at: usize,
    /// The team column's name as the file writes it.
    pub team_column: String,
    /// Each student's line in the file.
    pub lines: Vec<u64>,
}

impl Roster {
    /// Reads a roster: a CSV file (its cells separated by commas, semicolons or tabs, as its
    /// header line shows) whose header names a `team` or `group` column (any case) and any
    /// other columns (id, name, email, ...), one row per student.
    pub fn read(path: &Path) -> Result<Roster, Error> {
        Roster::parse(path, &read_roster_file(path)?)
    }

    /// A roster from the bytes of the file `path`, which errors name.
    fn parse(path: &Path, bytes: &[u8]) -> Result<Roster, Error> {
        let bad = |line: u64, what: String| {
            Error::usage(format!("--roster {}:{line}: {what}", path.display()))
        };
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .delimiter(delimiter(bytes))
            .from_reader(bytes);
        let mut records = reader.records();
        let header = match records.next() {
            Some(Ok(header)) => header,
            Some(Err(e)) => return Err(bad(1, format!("not CSV: {e}"))),
            None => {
                return Err(bad(
                    1,
                    "the file is empty: expected a header such as team,id,name,email".into(),
                ));
            }
        };
        let header: Vec<String> = header
            .iter()
            .map(|c| c.trim().trim_start_matches('\u{feff}').to_string())
            .collect();
        let Some(team_at) = team_column(&header) else {
            return Err(bad(
                1,
                format!(
                    "no `team` or `group` column among {}: expected a header such as \
                     team,id,name,email (separated by commas, semicolons or tabs)",
                    header.join(", ")
                ),
            ));
        };
        let columns = header
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != team_at)
            .map(|(_, c)| c.clone())
            .collect();
        let mut students = Vec::new();
        let mut lines = Vec::new();
        for (i, record) in records.enumerate() {
            let line = i as u64 + 2;
            let record = record.map_err(|e| bad(line, format!("not CSV: {e}")))?;
            // Canvas's gradebook export has a row of each column's points under its header.
            let points_row = record.get(0).is_some_and(|c| c.trim() == "Points Possible");
            if points_row || record.iter().all(|c| c.trim().is_empty()) {
                continue;
            }
            if record.len() != header.len() {
                return Err(bad(
                    line,
                    format!(
                        "{} cells where the header has {}",
                        record.len(),
                        header.len()
                    ),
                ));
            }
            let team = record.get(team_at).unwrap_or_default().trim().to_string();
            if team.is_empty() {
                return Err(bad(
                    line,
                    "the team cell is empty: expected a team's name".into(),
                ));
            }
            let cells = record
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != team_at)
                .map(|(_, c)| c.trim().to_string())
                .collect();
            students.push((team, cells));
            lines.push(line);
        }
        if students.is_empty() {
            return Err(bad(2, "no student: expected a row per student".into()));
        }
        Ok(Roster {
            columns,
            students,
            team_column: header[team_at].clone(),
            team_at,
            lines,
        })
    }
}

/// Where the team column is among a roster's header cells (trimmed, a BOM stripped):
/// `team`, else `group`, in any case.
fn team_column(header: &[String]) -> Option<usize> {
    ["team", "group"]
        .iter()
        .find_map(|name| header.iter().position(|c| c.eq_ignore_ascii_case(name)))
}

/// The separator of a CSV file's cells (a roster's, a restyled marks.csv's), told from its header line: a spreadsheet saved in a
/// language whose decimal mark is a comma writes `;`, and some write tabs. The one that
/// occurs most outside quotes wins; a comma where none does.
pub fn delimiter(bytes: &[u8]) -> u8 {
    let mut counts = [(b',', 0usize), (b';', 0), (b'\t', 0)];
    let mut quoted = false;
    for &byte in bytes.iter().take_while(|&&b| b != b'\n') {
        if byte == b'"' {
            quoted = !quoted;
        } else if !quoted && let Some((_, n)) = counts.iter_mut().find(|(c, _)| *c == byte) {
            *n += 1;
        }
    }
    counts
        .iter()
        .fold(
            (b',', 0),
            |best, &(c, n)| if n > best.1 { (c, n) } else { best },
        )
        .0
}

/// The bytes of a roster file, read without following a link or blocking, bounded, as
/// UTF-8: a file in UTF-16 with its byte-order mark (Blackboard's Grade Center download)
/// is converted.
fn read_roster_file(path: &Path) -> Result<Vec<u8>, Error> {
    let bytes = crate::untrusted::file::read_regular_file(path, 16 << 20).map_err(|e| {
        Error::usage(format!(
            "--roster {}: cannot be read: {e}: expected a CSV file with a team column",
            path.display()
        ))
    })?;
    let unit: fn([u8; 2]) -> u16 = match bytes.get(..2) {
        Some([0xFF, 0xFE]) => u16::from_le_bytes,
        Some([0xFE, 0xFF]) => u16::from_be_bytes,
        _ => return Ok(bytes),
    };
    let units: Vec<u16> = bytes[2..]
        .chunks(2)
        .map(|pair| unit([pair[0], *pair.get(1).unwrap_or(&0)]))
        .collect();
    String::from_utf16(&units)
        .map(String::into_bytes)
        .map_err(|_| {
            Error::usage(format!(
                "--roster {}: starts as UTF-16 but is not: expected a CSV file in UTF-8 or \
                 UTF-16",
                path.display()
            ))
        })
}

/// Whether `path` looks like a class list: a `.csv` file whose first line names a `team`
/// or `group` column, as `--roster` reads (only its first 4 KiB are looked at).
pub(super) fn is_class_list(path: &Path) -> bool {
    use std::io::Read;
    let is_csv = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("csv"));
    let Some(file) = is_csv
        .then(|| crate::untrusted::file::open_regular(path).ok())
        .flatten()
    else {
        return false;
    };
    let mut head = Vec::new();
    if file.take(4096).read_to_end(&mut head).is_err() {
        return false;
    }
    let text = String::from_utf8_lossy(&head);
    text.lines()
        .next()
        .unwrap_or_default()
        .split([',', ';', '\t'])
        .any(|cell| {
            let cell = cell.trim().trim_start_matches('\u{feff}').trim_matches('"');
            cell.trim().eq_ignore_ascii_case("team") || cell.trim().eq_ignore_ascii_case("group")
        })
}

/// How a team's name is matched between the roster and the league: case and surrounding
/// spaces aside.
pub fn same_team(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

impl Roster {
    /// The roster as a CSV file, its columns in the file's order, its cells as they were.
    pub fn to_csv(&self) -> Vec<u8> {
        let mut header = self.columns.clone();
        header.insert(self.team_at, self.team_column.clone());
        let mut writer = csv::Writer::from_writer(Vec::new());
        // Writing into a Vec cannot fail.
        writer.write_record(&header).expect("in-memory csv");
        for (team, cells) in &self.students {
            let mut row = cells.clone();
            row.insert(self.team_at, team.clone());
            writer.write_record(&row).expect("in-memory csv");
        }
        writer.into_inner().expect("in-memory csv")
    }

    /// The student whose platform id or user name the entry `entry_name` carries (a cell
    /// of theirs among its words: `Alice Smith_12345_assignsubmission_file_` names the
    /// student whose id is 12345), if one student's does.
    pub(super) fn student_named_by(&self, entry_name: &str) -> Option<usize> {
        let words = super::platform::student_words(entry_name);
        self.students
            .iter()
            .position(|(_, cells)| names_student(cells, &words))
    }

    /// Whether the entry `entry` (a path, or a spec `FOLDER/ENTRY`) is the student `i`'s: its
    /// name carries their platform id or user name.
    pub fn named_by(&self, i: usize, entry: &str) -> bool {
        let name = entry.rsplit('/').next().unwrap_or(entry);
        names_student(&self.students[i].1, &super::platform::student_words(name))
    }

    /// A student for messages: their cells, or their line.
    pub(super) fn who(&self, i: usize) -> String {
        let cells: Vec<&str> = self.students[i]
            .1
            .iter()
            .map(String::as_str)
            .filter(|c| !c.is_empty())
            .collect();
        format!("{} (line {})", cells.join(" "), self.lines[i])
    }
}

/// The league's side of the match: its teams and what each handed in.
#[derive(Debug, Default)]
pub struct Teams<'a> {
    /// Teams that play for marks and entries left out: each must be some student's.
    pub marked: Vec<&'a str>,
    /// Bots kept out of the marks (reference bots): a student of one is matched, none is
    /// needed.
    pub unmarked: Vec<&'a str>,
    /// Of `marked`, the names of entries left out (not bots): such an entry that names a
    /// student goes by that student's team.
    pub left_out: Vec<&'a str>,
    /// (team, entry name) for every entry of a submissions folder a team came in.
    pub handed_in: &'a [(String, String)],
}

/// What matching a roster gives: lines to show, and the left-out entries to rename after
/// their students' teams (old name, new name).
#[derive(Debug, Default)]
pub struct Matched {
    /// One line per match worth telling the teacher (which student got which team).
    pub notes: Vec<String>,
    /// (entry's name, team's name) for each left-out entry that goes by its student's team.
    pub renamed: Vec<(String, String)>,
    /// Left-out entries of students whose team plays from another entry (a partner's):
    /// no team of their own.
    pub dropped: Vec<String>,
}

/// Matches `roster` to the league's `teams`: a student whose platform id or user name an
/// entry's name carries gets that entry's team (said in the returned notes). Refuses (exit
/// 2) a roster that leaves a marked team with no student, or a team of the roster with no
/// submission where one of the league's is close to its name, listing what is unmatched on
/// both sides with the close matches, unless `partial` (the teacher marks only the students
/// the roster lists). A roster team with no submission and nothing close is a team that
/// handed nothing in: its students get "no submission".
pub fn match_teams<'a>(
    roster: &mut Roster,
    path: &Path,
    teams: &Teams<'a>,
    partial: bool,
) -> Result<Matched, Error> {
    let mut notes = Vec::new();
    let mut renamed: Vec<(String, String)> = Vec::new();
    let mut dropped: Vec<String> = Vec::new();
    let is_bot = |name: &str| {
        teams
            .marked
            .iter()
            .chain(&teams.unmarked)
            .any(|t| same_team(t, name) && !teams.left_out.contains(t))
    };
    for i in 0..roster.students.len() {
        let (team, cells) = &roster.students[i];
        let by_id = teams
            .handed_in
            .iter()
            .find(|(_, entry)| names_student(cells, &super::platform::student_words(entry)));
        let Some((bot, entry)) = by_id.filter(|(bot, _)| !same_team(bot, team)) else {
            continue;
        };
        // An entry that is no bot (no Team*.py in it) takes its student's team name, or
        // is no team when that team plays from a partner's entry.
        if teams.left_out.contains(&bot.as_str()) && is_bot(team) {
            if !dropped.contains(bot) {
                notes.push(format!(
                    "{}: handed in `{entry}`, which is left out; the team {team} plays from \
                     another entry",
                    roster.who(i)
                ));
                dropped.push(bot.clone());
            }
        } else if teams.left_out.contains(&bot.as_str()) {
            if !renamed.iter().any(|(old, _)| old == bot) {
                notes.push(format!(
                    "{}: handed in `{entry}`, which is left out: marked as {team}",
                    roster.who(i)
                ));
                renamed.push((bot.clone(), team.clone()));
            }
        } else {
            notes.push(format!(
                "{}: matched to {bot} by its submission `{entry}` (the roster says `{team}`)",
                roster.who(i)
            ));
            roster.students[i].0 = bot.clone();
        }
    }
    let name_of = |t: &'a str| -> &str {
        renamed
            .iter()
            .find(|(old, _)| old == t)
            .map_or(t, |(_, new)| new.as_str())
    };
    let league: Vec<&str> = teams
        .marked
        .iter()
        .chain(&teams.unmarked)
        .map(|t| name_of(t))
        .collect();
    let no_student: Vec<&str> = teams
        .marked
        .iter()
        .filter(|t| !dropped.iter().any(|d| d == *t))
        .map(|t| name_of(t))
        .filter(|t| !roster.students.iter().any(|(r, _)| same_team(r, t)))
        .collect();
    let mut no_submission: Vec<(String, Vec<usize>, Option<&str>)> = Vec::new();
    for (i, (team, _)) in roster.students.iter().enumerate() {
        if league.iter().any(|t| same_team(t, team)) {
            continue;
        }
        match no_submission
            .iter_mut()
            .find(|(t, _, _)| same_team(t, team))
        {
            Some((_, students, _)) => students.push(i),
            None => {
                let close = league.iter().copied().find(|t| close_names(t, team));
                no_submission.push((team.clone(), vec![i], close));
            }
        }
    }
    let refused = !no_student.is_empty() || no_submission.iter().any(|(_, _, c)| c.is_some());
    let roster_side = |out: &mut String| {
        for (team, students, close) in &no_submission {
            let hint = close
                .map(|c| format!(": did you mean {c}?"))
                .unwrap_or_default();
            let who: Vec<String> = students.iter().map(|&i| roster.who(i)).collect();
            out.push_str(&format!("\n  {team} ({}){hint}", who.join("; ")));
        }
    };
    if refused && !partial {
        let mut text = format!(
            "--roster {}: the roster and the submissions do not match (no game was played)",
            path.display()
        );
        if !no_submission.is_empty() {
            text.push_str("\nteams of the roster with no submission:");
            roster_side(&mut text);
        }
        if !no_student.is_empty() {
            text.push_str("\nteams of the league with no student of the roster:");
            for team in &no_student {
                let close = no_submission
                    .iter()
                    .find(|(r, _, _)| close_names(r, team))
                    .map(|(r, _, _)| format!(": the roster's `{r}`?"))
                    .unwrap_or_default();
                let entries: Vec<&str> = teams
                    .handed_in
                    .iter()
                    .filter(|(t, _)| name_of(t) == *team)
                    .map(|(_, e)| e.as_str())
                    .collect();
                let from = match entries.is_empty() {
                    true => String::new(),
                    false => format!(" ({})", entries.join(", ")),
                };
                text.push_str(&format!("\n  {team}{from}{close}"));
            }
        }
        text.push_str(
            "\nexpected each team of the league in the roster's `team` column (or the \
             platform's student id or user name in a column): fix the roster, or give \
             --partial-roster to mark a part of the class",
        );
        return Err(Error::usage(text));
    }
    if !no_submission.is_empty() {
        let mut text = "no submission (mark 0) for the roster's".to_string();
        roster_side(&mut text);
        notes.push(text);
    }
    if !no_student.is_empty() {
        notes.push(format!(
            "--partial-roster: no student of the roster for {}",
            no_student.join(", ")
        ));
    }
    Ok(Matched {
        notes,
        renamed,
        dropped,
    })
}

/// Whether a student's `cells` hold one of an entry's `words` (its platform id or user
/// name): a cell of two characters or more, case aside.
fn names_student(cells: &[String], words: &[String]) -> bool {
    cells
        .iter()
        .filter(|c| c.chars().count() >= 2)
        .any(|c| words.iter().any(|w| w.eq_ignore_ascii_case(c)))
}

/// Whether two team names look like one written two ways: `Team 1` and `Team01`, `team-1`
/// and `Team1`, or a typo or two apart.
pub(crate) fn close_names(a: &str, b: &str) -> bool {
    let (a, b) = (squeezed(a), squeezed(b));
    // The numbers tell teams apart: only the words around them may be misspelt.
    let parts = |s: &str| -> (String, String) {
        (
            s.chars().filter(|c| !c.is_ascii_digit()).collect(),
            s.chars()
                .map(|c| if c.is_ascii_digit() { c } else { ' ' })
                .collect::<String>()
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
        )
    };
    let ((wa, na), (wb, nb)) = (parts(&a), parts(&b));
    a == b || (na == nb && wa.chars().count() >= 3 && edit_distance(&wa, &wb) <= 2)
}

/// A name lowercased, letters and digits only, leading zeros of each number dropped.
fn squeezed(name: &str) -> String {
    let mut out = String::new();
    let mut in_number = false;
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_digit() {
            if c == '0' && !in_number {
                continue;
            }
            in_number = true;
            out.push(c);
        } else if c.is_alphanumeric() {
            in_number = false;
            out.push(c);
        } else {
            in_number = false;
        }
    }
    out
}

/// Levenshtein's distance: the fewest one-character edits from `a` to `b`.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, &cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(above + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

/// Reads and checks the roster at `path`, for keeping with [`keep_roster`] once matched.
pub fn read_roster(path: &Path) -> Result<Roster, Error> {
    Roster::read(path)
}

/// Beside a kept roster that lists a part of the class (`--partial-roster`): the league's
/// teams with no student of it are marked per team, which a later `arbiter table` accepts.
pub const PARTIAL_ROSTER_FILE: &str = "roster.partial";

/// Whether the roster kept in the tournament folder `dir` was given as a part of the class.
pub fn kept_partial(dir: &Path) -> bool {
    dir.join(PARTIAL_ROSTER_FILE).is_file()
}

/// Keeps a copy of `roster` (read from `path`) in the tournament folder `dir` (made if
/// missing), where every later writing of the tables finds it: the file as it is, or with
/// the teams its students were matched to by their platform id. `partial`: it lists a
/// part of the class ([`PARTIAL_ROSTER_FILE`] says so beside it).
pub fn keep_roster(dir: &Path, path: &Path, roster: &Roster, partial: bool) -> Result<(), Error> {
    let bytes = read_roster_file(path)?;
    let bytes = match Roster::parse(path, &bytes)? == *roster {
        true => bytes,
        false => roster.to_csv(),
    };
    let io = |source| Error::Io {
        path: dir.join(ROSTER_FILE),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    crate::untrusted::file::write_atomic(&dir.join(ROSTER_FILE), &bytes)?;
    let marker = dir.join(PARTIAL_ROSTER_FILE);
    match partial {
        true => crate::untrusted::file::write_atomic(
            &marker,
            b"roster.csv lists a part of the class (--partial-roster): the league's teams \
              with no student of it are marked per team\n",
        ),
        false => match std::fs::remove_file(&marker) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::Io {
                path: marker,
                source: e,
            }),
            _ => Ok(()),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roster(text: &str) -> Roster {
        Roster::parse(Path::new("roster.csv"), text.as_bytes()).unwrap()
    }

    #[test]
    fn a_platform_id_matches_students_to_submissions_whatever_the_team_column_says() {
        let mut r = roster(
            "name,id,team\nAlice,1001,Team 1\nErin,1005,Team05\nFrank,1006,Team06\n\
             Gina,1007,Team07\nHal,1008,Team08\n",
        );
        let handed_in = [
            ("Team01", "Alice_1001_assignsubmission_file_"),
            ("Team06", "Frank_1006_assignsubmission_file_"),
            ("erin_1005", "erin_1005_assignsubmission_file_"),
            ("gina_1007", "gina_1007_assignsubmission_file_"),
        ]
        .map(|(t, e)| (t.to_string(), e.to_string()));
        let teams = Teams {
            marked: vec!["Team01", "Team06", "erin_1005", "gina_1007"],
            unmarked: vec![],
            left_out: vec!["erin_1005", "gina_1007"],
            handed_in: &handed_in,
        };
        // Gina's folder holds no bot, but her team plays from her partner's entry.
        r.students[3].0 = "Team06".into();
        let matched = match_teams(&mut r, Path::new("roster.csv"), &teams, false).unwrap();
        let teams_of: Vec<&str> = r.students.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(teams_of, ["Team01", "Team05", "Team06", "Team06", "Team08"]);
        assert_eq!(
            matched.renamed,
            [("erin_1005".to_string(), "Team05".to_string())]
        );
        assert_eq!(matched.dropped, ["gina_1007"]);
        // Hal's Team08 handed nothing in, and nothing is close to it.
        assert!(
            matched.notes.iter().any(|n| n.contains("Team08")),
            "{matched:?}"
        );
    }

    #[test]
    fn a_roster_leaving_a_team_of_the_league_unmatched_is_refused_unless_partial() {
        let handed_in = [("Team01".to_string(), "Team01.py".to_string())];
        let teams = Teams {
            marked: vec!["Team01", "Team02"],
            unmarked: vec!["greedy"],
            left_out: vec![],
            handed_in: &handed_in,
        };
        let text = "name,team\nAlice,Team 1\nBob,Team02\nRef,greedy\n";
        let refused = match_teams(&mut roster(text), Path::new("r.csv"), &teams, false)
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("Team 1 (Alice (line 2)): did you mean Team01?")
                && refused.contains("  Team01 (Team01.py): the roster's `Team 1`?")
                && !refused.contains("Bob")
                && !refused.contains("greedy"),
            "{refused}"
        );
        let matched = match_teams(&mut roster(text), Path::new("r.csv"), &teams, true).unwrap();
        assert!(
            matched
                .notes
                .iter()
                .any(|n| n.contains("no student of the roster for Team01"))
        );
    }

    #[test]
    fn a_semicolon_or_tab_roster_is_read_and_a_group_column_is_its_team() {
        let semicolons = roster(
            "\u{feff}Surname;Given name;Login; Group \nSmith;Alice;asmith;Team01\n\
             \"Jones; Jr\";Bob;bjones;Team02\n",
        );
        assert_eq!(semicolons.team_column, "Group");
        assert_eq!(semicolons.columns, ["Surname", "Given name", "Login"]);
        assert_eq!(semicolons.students[1].0, "Team02");
        assert_eq!(semicolons.students[1].1[0], "Jones; Jr");
        let tabs = roster("login\tname\tteam\nasmith\tAlice, Smith\tTeam01\n");
        assert_eq!(
            tabs.students,
            [(
                "Team01".to_string(),
                vec!["asmith".to_string(), "Alice, Smith".to_string()]
            )]
        );
        // A team column wins over a group one.
        let both = roster("group,team,id\nlab1,Team01,1\n");
        assert_eq!(both.students[0].0, "Team01");
    }

    #[test]
    fn close_names_take_a_space_or_a_leading_zero_for_one_name() {
        assert!(close_names("Team 1", "Team01"));
        assert!(close_names("team-12", "Team12"));
        assert!(close_names("Tema05", "Team05"));
        assert!(!close_names("Team01", "Team06"));
        assert!(!close_names("Team1", "Team11"));
    }
}
