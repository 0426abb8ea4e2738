//! How learning platforms name what a "download all" holds: which entries are a student's
//! files under a platform's flat name (Canvas, Blackboard, Moodle without folders), which
//! are the platform's own (receipts, online-text folders) or no submission at all (a
//! README, notes, a data file, an empty folder), and which words of an entry's name can
//! name its student (a user id or user name a roster may carry), and what a name says of
//! when the file was handed in (Canvas's `late` mark, Blackboard's attempt date).

use std::path::Path;

/// A file of a flat download: the student it belongs to and the name the student gave it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Flat {
    /// The platform's words for the student (`smithalice_10001`, `jsmith`): the files of
    /// one student share it.
    pub student: String,
    /// The file's own name (`Team01.py`), a re-upload's number dropped; none for a
    /// platform's receipt.
    pub original: Option<String>,
    /// Canvas's number of a file uploaded again (`Team01-2.py`: 2); 0 for the first.
    pub upload: u32,
}

/// The student and own name of a file named by a platform's flat download:
/// - Canvas: `sortablename_[late_]USERID_SUBMISSIONID_NAME`, where NAME may carry a
///   re-upload's number before its extension (`Team01-1.py`);
/// - Blackboard: `ASSIGNMENT_USERNAME_attempt_DATE_NAME`, and `..._attempt_DATE.txt` for the
///   receipt of each attempt;
/// - Moodle without folders: `Full Name_ID_assignsubmission_file_NAME`.
pub(crate) fn flat_name(name: &str) -> Option<Flat> {
    blackboard(name)
        .or_else(|| moodle(name))
        .or_else(|| canvas(name))
}

fn blackboard(name: &str) -> Option<Flat> {
    let at = name.find("_attempt_")?;
    let user = name[..at].rsplit('_').next().filter(|u| !u.is_empty())?;
    let after = &name[at + "_attempt_".len()..];
    let (date, original) = match after.split_once('_') {
        Some((date, original)) => (date, Some(original.to_string())),
        None => (after.strip_suffix(".txt")?, None),
    };
    let is_date = !date.is_empty() && date.chars().all(|c| c.is_ascii_digit() || c == '-');
    (is_date && date.chars().any(|c| c.is_ascii_digit())).then(|| Flat {
        student: user.to_string(),
        original: original.filter(|o| !o.is_empty()),
        upload: 0,
    })
}

fn moodle(name: &str) -> Option<Flat> {
    let (student, original) = name.split_once("_assignsubmission_file_")?;
    (!student.is_empty() && !original.is_empty()).then(|| Flat {
        student: student.to_string(),
        original: Some(original.to_string()),
        upload: 0,
    })
}

fn canvas(name: &str) -> Option<Flat> {
    let words: Vec<&str> = name.split('_').collect();
    let digits = |w: &&str| !w.is_empty() && w.chars().all(|c| c.is_ascii_digit());
    let first = match words.get(1) {
        Some(w) if w.eq_ignore_ascii_case("late") => 2,
        _ => 1,
    };
    let ids = words.get(first..first + 2)?;
    if words[0].is_empty() || !ids.iter().all(digits) || words.len() <= first + 2 {
        return None;
    }
    let (original, upload) = reupload(&words[first + 2..].join("_"));
    Some(Flat {
        student: format!("{}_{}", words[0], ids[0]),
        original: Some(original),
        upload,
    })
}

/// `Team01-1.py` as `Team01.py` and 1: Canvas numbers a file uploaded again.
fn reupload(name: &str) -> (String, u32) {
    let (stem, extension) = match name.rfind('.') {
        Some(at) if at > 0 => (&name[..at], &name[at..]),
        _ => (name, ""),
    };
    match stem.rsplit_once('-') {
        Some((before, n)) if !before.is_empty() && n.chars().all(|c| c.is_ascii_digit()) => {
            match n.parse() {
                Ok(number) => (format!("{before}{extension}"), number),
                Err(_) => (name.to_string(), 0),
            }
        }
        _ => (name.to_string(), 0),
    }
}

/// What the name of a platform's entry says of when it was handed in: Canvas's `yes` (the
/// name carries its `late` mark) or `no`, Blackboard's attempt date
/// (`2026-11-30 23:59:01`); none where the platform says nothing (Moodle, a hand-made
/// folder). `entry` may be a path: its last part is read.
pub fn late_of(entry: &str) -> Option<String> {
    let name = entry.rsplit('/').next().unwrap_or(entry);
    if let Some(at) = name.find("_attempt_")
        && blackboard(name).is_some()
    {
        let after = &name[at + "_attempt_".len()..];
        let date = after.split_once('_').map_or(after, |(d, _)| d);
        let date = date.strip_suffix(".txt").unwrap_or(date);
        let parts: Vec<&str> = date.split('-').collect();
        return Some(match parts.as_slice() {
            [y, mo, d, h, mi, s] => format!("{y}-{mo}-{d} {h}:{mi}:{s}"),
            _ => date.to_string(),
        });
    }
    if moodle(name).is_some() || canvas(name).is_none() {
        return None;
    }
    let late = name
        .split('_')
        .nth(1)
        .is_some_and(|w| w.eq_ignore_ascii_case("late"));
    Some(if late { "yes" } else { "no" }.to_string())
}

/// Why an entry of a class folder is no submission at all, if it is none: a platform's
/// online-text folder, an empty folder, a README or notes, a data file or a picture.
pub(crate) fn not_a_submission(entry: &Path) -> Option<&'static str> {
    let name = entry
        .file_name()
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    let meta = std::fs::symlink_metadata(entry).ok()?;
    if meta.is_dir() {
        if name.contains("_onlinetext_") {
            return Some("a platform's online-text folder, not a submission");
        }
        return holds_no_file(entry).then_some("an empty folder, not a submission");
    }
    if !meta.is_file() {
        return None;
    }
    let extension = name.rsplit_once('.').map(|(_, e)| e).unwrap_or_default();
    // Code and archives are judged as submissions, whatever their names.
    if matches!(extension, "py" | "java" | "cs" | "csproj" | "zip") {
        return None;
    }
    if name.starts_with("readme") || name.starts_with("notes") {
        return Some("a README or notes, not a submission");
    }
    match extension {
        "txt" | "md" | "pdf" | "doc" | "docx" | "odt" | "rtf" | "html" | "htm" => {
            Some("a document, not a submission")
        }
        "csv" | "json" | "npy" | "npz" | "pkl" | "pickle" | "h5" | "pt" | "dat" | "png" | "jpg"
        | "jpeg" | "gif" | "log" => Some("a data file, not a submission"),
        _ => None,
    }
}

/// Whether a folder holds no file at any depth (hidden ones aside).
fn holds_no_file(folder: &Path) -> bool {
    std::fs::read_dir(folder).is_ok_and(|entries| {
        entries.flatten().all(|e| {
            let path = e.path();
            let hidden = e.file_name().to_string_lossy().starts_with('.');
            hidden || (e.file_type().is_ok_and(|t| t.is_dir()) && holds_no_file(&path))
        })
    })
}

/// The student a platform's entry belongs to, as the platform names them: a Moodle
/// folder's `Full Name_ID` (before `_assignsubmission_file_`), or a flat file's student
/// (`smithalice_10001`, `jsmith`); none for a name no platform gave.
pub(crate) fn student_of(entry_name: &str) -> Option<String> {
    match entry_name.strip_suffix("_assignsubmission_file_") {
        Some(student) => (!student.is_empty()).then(|| student.to_string()),
        None => flat_name(entry_name).map(|f| f.student),
    }
}

/// Whether `name` (a bot's, a team's) carries a word of the student the platform's name of
/// `entry` gives (a path: its last part is read): their name or id, as a bot named after
/// its student's folder does (`Bob Jones_12346_assignsubmission_file_`, a Hinger agent's
/// folder); `Team05` from that folder does not.
pub fn names_its_student(entry: &str, name: &str) -> bool {
    let last = entry
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(entry);
    let Some(student) = student_of(last) else {
        return false;
    };
    let name = name.to_lowercase();
    student
        .split(|c: char| c == '_' || c.is_whitespace())
        .filter(|w| {
            w.chars().count() >= 3 || (!w.is_empty() && w.chars().all(|c| c.is_ascii_digit()))
        })
        .any(|w| name.contains(&w.to_lowercase()))
}

/// The words of an entry's name that may name its student: what lies between its
/// underscores (`Alice Smith_12345_assignsubmission_file_` gives `Alice Smith` and
/// `12345`), and, for a flat name, the student's own words.
pub(crate) fn student_words(entry_name: &str) -> Vec<String> {
    let mut words: Vec<String> = entry_name
        .split('_')
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect();
    if let Some(flat) = flat_name(entry_name) {
        words.push(flat.student);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flat(student: &str, original: Option<&str>) -> Option<Flat> {
        Some(Flat {
            student: student.into(),
            original: original.map(String::from),
            upload: 0,
        })
    }

    #[test]
    fn canvas_names_give_the_student_and_the_file_a_late_mark_and_a_reupload_number_aside() {
        assert_eq!(
            flat_name("smithalice_10001_5551_Team01.py"),
            flat("smithalice_10001", Some("Team01.py"))
        );
        assert_eq!(
            flat_name("jonesbob_late_10002_5552_Team02-1.py"),
            Some(Flat {
                upload: 1,
                ..flat("jonesbob_10002", Some("Team02.py")).unwrap()
            })
        );
        assert_eq!(
            flat_name("leecarol_10003_5553_my_utils.py"),
            flat("leecarol_10003", Some("my_utils.py"))
        );
        assert_eq!(flat_name("Team01.py"), None);
        assert_eq!(flat_name("Team_01.py"), None);
    }

    #[test]
    fn blackboard_names_give_the_user_name_and_the_file_and_a_receipt_no_file() {
        assert_eq!(
            flat_name("Asalto_Bot_jsmith_attempt_2026-03-01-10-30-00_Team01.py"),
            flat("jsmith", Some("Team01.py"))
        );
        assert_eq!(
            flat_name("Asalto_Bot_jsmith_attempt_2026-03-01-10-30-00.txt"),
            flat("jsmith", None)
        );
    }

    #[test]
    fn canvas_late_marks_and_blackboard_attempt_dates_are_read_and_moodle_says_nothing() {
        assert_eq!(
            late_of("subs/jonesbob_late_10002_5552_Team02-1.py").as_deref(),
            Some("yes")
        );
        assert_eq!(
            late_of("smithalice_10001_5551_Team01.py").as_deref(),
            Some("no")
        );
        assert_eq!(
            late_of("Asalto_Bot_jsmith_attempt_2026-11-30-23-59-01_Team01.py").as_deref(),
            Some("2026-11-30 23:59:01")
        );
        assert_eq!(
            late_of("Alice Smith_12345_assignsubmission_file_Team01.zip"),
            None
        );
        assert_eq!(late_of("Alice Smith_12345_assignsubmission_file_"), None);
        assert_eq!(late_of("Team01.py"), None);
    }

    #[test]
    fn moodle_flat_names_give_the_student_and_the_file() {
        assert_eq!(
            flat_name("Alice Smith_12345_assignsubmission_file_Team01.zip"),
            flat("Alice Smith_12345", Some("Team01.zip"))
        );
    }

    #[test]
    fn a_platforms_entry_names_its_student_and_a_hand_made_one_none() {
        assert_eq!(
            student_of("Ana Pérez_12345_assignsubmission_file_").as_deref(),
            Some("Ana Pérez_12345")
        );
        assert_eq!(
            student_of("smithalice_10001_5551_Team01.py").as_deref(),
            Some("smithalice_10001")
        );
        assert_eq!(student_of("team06"), None);
        assert_eq!(student_of("ada_1001_file_"), None);
        assert_eq!(student_of("Team06.py"), None);
    }

    #[test]
    fn student_words_hold_a_moodle_folders_id() {
        let words = student_words("Alice Smith_12345_assignsubmission_file_");
        assert!(words.contains(&"12345".to_string()), "{words:?}");
        assert!(words.contains(&"Alice Smith".to_string()), "{words:?}");
    }

    #[test]
    fn a_name_names_its_student_when_it_carries_their_name_or_id_from_the_platform() {
        let moodle = "class/Bob Jones_12346_assignsubmission_file_";
        assert!(names_its_student(
            moodle,
            "Bob Jones_12346_assignsubmission_file_"
        ));
        assert!(names_its_student(moodle, "jones"));
        assert!(names_its_student(moodle, "bot-12346"));
        assert!(!names_its_student(moodle, "Team05"));
        let canvas = "class/smithalice_10001_5551_agent.py";
        assert!(names_its_student(canvas, "smithalice_10001_5551_agent"));
        assert!(!names_its_student(canvas, "agent"));
        // An entry no platform named names no student.
        assert!(!names_its_student("class/team12", "team12"));
    }
}
