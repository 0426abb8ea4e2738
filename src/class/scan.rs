//! The scan of a folder of submissions: its entries read (`submissions`), then the name
//! each bot plays under settled.
//!
//! Two different submissions under one team's name: a `TeamXX.py` names its team, so a
//! student who names her file after another team (`Team06.py` from a Team05 student's
//! folder) hands in a second Team06.
//!
//! Where a platform's folder or file names each one's student (Moodle's `Full
//! Name_ID_assignsubmission_file_/`, Canvas's and Blackboard's flat names), the league
//! plays on: each plays under its student's name (`Ana Pérez_12345`), said with both
//! entries, and with a roster under its student's team ([`Submissions::attribute`]). A
//! roster that puts both in one team, or one in a team that handed in another file, and two
//! entries that nothing tells apart (no platform names their students) stop the run before
//! any game, naming both files and how to resolve it.

use super::platform;
use super::roster::Roster;
use super::submissions::{Clash, Found, Handed, Submissions, file_name, one_name};
use crate::error::Error;
use crate::games::GameKind;
use std::path::Path;

/// The entries of `folder` whose names match `pattern` (`*` any run of characters, `?` one;
/// default every entry), each identified as a bot of `game` or skipped with the reason.
/// Zips are extracted under `unpack_to`. Hidden entries and `__pycache__` are ignored.
/// Entries holding the same files under one name are one bot ([`super::Same`]); two different
/// Asalto bots of one team's name that platforms' entries tell apart play under their
/// students' names ([`super::Clash`]); two different bots of one name (case aside) that
/// nothing tells apart are an error naming both entries and what to do.
pub fn scan(
    folder: &Path,
    game: GameKind,
    pattern: Option<&str>,
    unpack_to: &Path,
) -> Result<Submissions, Error> {
    let mut found = super::submissions::entries(folder, game, pattern, unpack_to)?;
    if game == GameKind::Asalto {
        found.clashes = by_student(&mut found.bots);
    }
    check_names(&found.bots)?;
    Ok(found)
}

/// Tells apart the bots of one name (case aside) by their students: where at most one of
/// them lies in no platform's entry, each other plays under its student's name. What is
/// told apart is returned, for the teacher to read and a roster to settle.
fn by_student(bots: &mut [Found]) -> Vec<Clash> {
    let mut clashes = Vec::new();
    for i in 0..bots.len() {
        let name = bots[i].name.clone();
        let group: Vec<usize> = (0..bots.len())
            .filter(|&j| one_name(&bots[j].name, &name))
            .collect();
        if group.len() < 2 || group[0] != i {
            continue;
        }
        let students: Vec<Option<String>> = group
            .iter()
            .map(|&j| platform::student_of(&file_name(&bots[j].entry)))
            .collect();
        if students.iter().filter(|s| s.is_none()).count() > 1 {
            continue;
        }
        let mut entries = Vec::new();
        for (&j, student) in group.iter().zip(students) {
            if let Some(student) = &student {
                bots[j].name = student.clone();
            }
            entries.push(Handed {
                entry: bots[j].entry.clone(),
                file: bots[j].file.clone(),
                student,
            });
        }
        clashes.push(Clash { name, entries });
    }
    clashes
}

/// Refuses two bots of one name (case aside) that nothing told apart, naming both files
/// and what to do.
fn check_names(bots: &[Found]) -> Result<(), Error> {
    for (i, bot) in bots.iter().enumerate() {
        let Some(other) = bots[..i].iter().find(|b| one_name(&b.name, &bot.name)) else {
            continue;
        };
        let names = match other.name == bot.name {
            true => format!("are both named `{}`", bot.name),
            // A roster, marks.csv and a case-insensitive file system take them for one.
            false => format!(
                "are named `{}` and `{}`, one name but for case",
                other.name, bot.name
            ),
        };
        return Err(Error::usage(format!(
            "two different submissions {names}: {} and {}; nothing tells whose each is (no \
             platform's folder or file names its student): keep the one that is {}'s and \
             remove the other from the folder, or rename it after its own team (a `TeamXX.py` \
             names its team)",
            other.entry.display(),
            bot.entry.display(),
            other.name
        )));
    }
    Ok(())
}

impl Clash {
    /// The lines that tell the teacher what was handed in under one name and how each plays.
    pub fn lines(&self, bots: &[Found]) -> Vec<String> {
        let goes_by = |entry: &Path| {
            bots.iter()
                .find(|b| b.entry == entry)
                .map_or(String::new(), |b| b.name.clone())
        };
        let mut lines = vec![format!(
            "{} different submissions are named after {}:",
            self.entries.len(),
            self.name
        )];
        for handed in &self.entries {
            let whose = match &handed.student {
                Some(student) => format!("{student}'s"),
                None => "no student's".to_string(),
            };
            lines.push(format!(
                "  {} ({whose}) plays as {}",
                handed.file.display(),
                goes_by(&handed.entry)
            ));
        }
        lines
    }
}

impl Submissions {
    /// Gives each submission of a [`Clash`] its student's team in `roster` (read from
    /// `path`), where the roster holds the student's platform id or user name: a line per
    /// clash to tell the teacher whose team the roster says each is. Refuses two submissions that would then be one team's, naming both
    /// files, the students and how to resolve it.
    pub fn attribute(&mut self, roster: &Roster, path: &Path) -> Result<Vec<String>, Error> {
        let mut notes = Vec::new();
        for clash in &self.clashes {
            let mut by_roster = Vec::new();
            for handed in &clash.entries {
                let Some(i) = roster.student_named_by(&file_name(&handed.entry)) else {
                    if let Some(student) = &handed.student {
                        by_roster.push(format!("no student of it is {student}"));
                    }
                    continue;
                };
                let team = roster.students[i].0.clone();
                if let Some(bot) = self.bots.iter_mut().find(|b| b.entry == handed.entry) {
                    by_roster.push(format!("{} is in {team}", roster.who(i)));
                    bot.name = team;
                }
            }
            if !by_roster.is_empty() {
                notes.push(format!(
                    "  by --roster {}: {}",
                    path.display(),
                    by_roster.join("; ")
                ));
            }
        }
        for (i, bot) in self.bots.iter().enumerate() {
            let Some(other) = self.bots[..i].iter().find(|b| one_name(&b.name, &bot.name)) else {
                continue;
            };
            let student = |b: &Found| match roster.student_named_by(&file_name(&b.entry)) {
                Some(s) => format!("{}'s", roster.who(s)),
                None => "no student's of the roster".to_string(),
            };
            return Err(Error::usage(format!(
                "--roster {}: two different submissions are {}'s: {} ({}) and {} ({}); a team \
                 plays one: keep the one {} is marked by and remove the other from the \
                 folder, or correct the roster's team of the student who is not in {} (no \
                 game was played)",
                path.display(),
                bot.name,
                other.file.display(),
                student(other),
                bot.file.display(),
                student(bot),
                bot.name,
                bot.name,
            )));
        }
        Ok(notes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    const BOT: &str = "class Player:\n    pass\n";

    fn put(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// A Moodle download where Ana, of Team05, handed in a `Team06.py` beside Luis's.
    fn moodle(dir: &Path) -> PathBuf {
        let class = dir.join("moodle");
        let folder = |student: &str| class.join(format!("{student}_assignsubmission_file_"));
        put(&folder("Ana Pérez_12345").join("Team06.py"), BOT);
        put(
            &folder("Luis Gómez_12346").join("Team06.py"),
            "Player = 1\n",
        );
        put(&folder("Bea Ruiz_12347").join("Team07.py"), BOT);
        class
    }

    fn names(found: &Submissions) -> Vec<&str> {
        found.bots.iter().map(|b| b.name.as_str()).collect()
    }

    fn roster(text: &str) -> Roster {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("roster.csv");
        std::fs::write(&path, text).unwrap();
        Roster::read(&path).unwrap()
    }

    #[test]
    fn a_file_named_after_another_team_plays_under_its_students_name_both_folders_said() {
        let dir = tempfile::tempdir().unwrap();
        let class = moodle(dir.path());
        let found = scan(&class, GameKind::Asalto, None, dir.path()).unwrap();
        assert_eq!(
            names(&found),
            ["Ana Pérez_12345", "Team07", "Luis Gómez_12346"]
        );
        assert_eq!(found.clashes.len(), 1, "{found:?}");
        let lines = found.clashes[0].lines(&found.bots).join("\n");
        assert!(
            lines.contains("2 different submissions are named after Team06")
                && lines.contains(
                    "Ana Pérez_12345_assignsubmission_file_/Team06.py (Ana Pérez_12345's) \
                     plays as Ana Pérez_12345"
                )
                && lines.contains("Luis Gómez_12346_assignsubmission_file_/Team06.py"),
            "{lines}"
        );
    }

    #[test]
    fn a_roster_gives_each_submission_named_after_one_team_its_students_team() {
        let dir = tempfile::tempdir().unwrap();
        let class = moodle(dir.path());
        let mut found = scan(&class, GameKind::Asalto, None, dir.path()).unwrap();
        let r = roster(
            "name,id,team\nAna Pérez,12345,Team05\nLuis Gómez,12346,Team06\nBea Ruiz,12347,Team07\n",
        );
        let notes = found.attribute(&r, Path::new("roster.csv")).unwrap();
        assert_eq!(names(&found), ["Team05", "Team07", "Team06"]);
        assert_eq!(
            notes,
            [
                "  by --roster roster.csv: Ana Pérez 12345 (line 2) is in Team05; \
                 Luis Gómez 12346 (line 3) is in Team06"
            ]
        );
    }

    #[test]
    fn a_roster_putting_both_in_one_team_is_refused_naming_both_files_and_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let class = moodle(dir.path());
        let mut found = scan(&class, GameKind::Asalto, None, dir.path()).unwrap();
        let r = roster(
            "name,id,team\nAna Pérez,12345,Team06\nLuis Gómez,12346,Team06\nBea Ruiz,12347,Team07\n",
        );
        let refused = found
            .attribute(&r, Path::new("roster.csv"))
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("two different submissions are Team06's")
                && refused.contains("Ana Pérez_12345_assignsubmission_file_/Team06.py")
                && refused.contains("Luis Gómez_12346_assignsubmission_file_/Team06.py")
                && refused.contains("Ana Pérez 12345 (line 2)'s")
                && refused.contains("keep the one Team06 is marked by"),
            "{refused}"
        );
    }

    #[test]
    fn two_files_of_one_name_that_no_platform_tells_apart_are_refused_with_what_to_do() {
        let dir = tempfile::tempdir().unwrap();
        let class = dir.path().join("class");
        put(&class.join("a/Team06.py"), BOT);
        put(&class.join("b/Team06.py"), "Player = 1\n");
        let refused = scan(&class, GameKind::Asalto, None, dir.path())
            .unwrap_err()
            .to_string();
        assert!(
            refused.contains("two different submissions are both named `Team06`")
                && refused.contains(&class.join("a").display().to_string())
                && refused.contains(&class.join("b").display().to_string())
                && refused.contains("nothing tells whose each is")
                && refused.contains("keep the one that is Team06's"),
            "{refused}"
        );
    }
}
