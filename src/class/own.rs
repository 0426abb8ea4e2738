//! What of the folder its file lies in a bot may read: its own submission, told from the
//! folder's shape by the class's own reading of it, the same whichever way the bot is named
//! (a class folder, `play` or `gauntlet` with a file, `check`).
//!
//! - A class folder is one that holds what only a class has: another team's submission in
//!   a folder or a zip (a team's folder, a platform's folder per student), a platform's
//!   flat file, or a class list (a CSV file whose header names a `team` column). A bot whose
//!   file lies loose in it owns its file alone, with the files named after it
//!   (`Team11_utils.py`, `Team11-book.txt`, a folder `Team11/` of its data, beside
//!   `Team11.py`) that are no submission themselves; it reads nothing else of the folder:
//!   no other team's file, folder or zip (playing or not), no loose file of nobody's, no
//!   class list, no earlier results, nothing the teacher put there.
//! - Any other folder is the bot's own: one team's folder (its bot at its top, with its
//!   helpers), a platform's folder per student, a zip's unpacked folder, a student's project
//!   (`play --rebel Team05.py` beside its helper modules, older versions beside the new one,
//!   `bots/league/` with its shared helper). The bot reads it, but no other bot file in it
//!   (a `Team*.py`, a Java player, a console program, playing or not) and no earlier
//!   results folder (one holding a journal, `games.jsonl`).
//!
//! A folder or zip named after the bot itself (`Team05_old/`, the `Team05.zip` it was
//! handed in as), or holding a bot of its name (`old/Team05.py` beside `Team05.py`), is
//! the same team's, not another's: it makes no class; nor does anything in a platform's
//! folder per student, which is its student's whatever it holds.
//! Protocol programs named by a command line are judged by the run's entrants alone
//! (`crate::jail::entrants`).

use super::platform;
use super::submissions::{
    file_name, identify, is_candidate, is_zip, named_after, one_name, own_files, stem_of,
};
use crate::bots::spec::{BotSpec, is_agent_file};
use crate::games::GameKind;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The file of an arbiter journal: a folder holding one is a run's results.
const JOURNAL_FILE: &str = "games.jsonl";

/// Makes `bots` the run's entrants, each seated in its working folder, and tells every jail
/// what of each bot's folder is its own: no bot reads another's files, nor what of its
/// folder is no part of its submission.
pub fn enter<'a>(bots: impl IntoIterator<Item = (&'a BotSpec, Option<&'a Path>)>) {
    let bots: Vec<(&BotSpec, Option<&Path>)> = bots.into_iter().collect();
    crate::bots::spec::enter(bots.iter().copied());
    for (spec, cwd) in bots {
        if let Some((file, game)) = bot_file(spec, cwd) {
            seat(&file, game);
        }
    }
}

/// How a bot's folder is read, for the bot whose file lies in it.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Shape {
    /// A class folder: the bot owns the entries of these names.
    Class(Vec<OsString>),
    /// The bot's own folder, but for these other bots' files and results folders.
    Own {
        /// Other bot files of the folder.
        bots: Vec<PathBuf>,
        /// Folders holding a journal.
        results: Vec<PathBuf>,
    },
}

/// The shape of the folder `file` lies in, for the bot of `file`, a bot of `game`.
pub(super) fn shape(file: &Path, game: GameKind) -> Option<Shape> {
    let folder = file.parent()?;
    let entries = own_files(folder);
    let own = stem_of(file);
    // A platform's folder per student is its student's, whatever else it holds.
    let students = file_name(folder).contains("_assignsubmission_");
    if !students
        && entries
            .iter()
            .any(|e| e != file && of_another_team(e, &own, game))
    {
        let owned = entries
            .iter()
            .filter(|e| *e == file || (named_after(e, &own) && !is_submission(e, game)))
            .filter_map(|e| e.file_name().map(OsString::from))
            .collect();
        return Some(Shape::Class(owned));
    }
    let bots = entries
        .iter()
        // The course's own players kept beside a student's are the student's to compile
        // with, no other bot.
        .filter(|e| *e != file && !e.is_dir() && is_candidate(e, game))
        .filter(|e| game != GameKind::Gomoku || !crate::bots::java::is_course_class(e))
        .cloned()
        .collect();
    let results = entries
        .iter()
        .filter(|e| e.join(JOURNAL_FILE).is_file())
        .cloned()
        .collect();
    Some(Shape::Own { bots, results })
}

/// Tells the jails what of the folder of `file`, a bot of `game`, is the bot's own.
fn seat(file: &Path, game: GameKind) {
    let Some(folder) = file.parent() else {
        return;
    };
    match shape(file, game) {
        Some(Shape::Class(owned)) => crate::jail::entrants::class_folder(folder, file, &owned),
        Some(Shape::Own { bots, results }) => {
            for bot in bots {
                crate::jail::entrants::enter_files(&[bot]);
            }
            for folder in results {
                crate::jail::entrants::results(&folder);
            }
        }
        None => {}
    }
}

/// The file a bot runs from, and the game it is a course bot of: a course file, or a
/// console program's first word that names a file. Protocol programs are none.
fn bot_file(spec: &BotSpec, cwd: Option<&Path>) -> Option<(PathBuf, GameKind)> {
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    match spec {
        BotSpec::CoursePython { file, .. } if is_agent_file(file) => {
            Some((absolute(file), GameKind::Hinger))
        }
        BotSpec::CoursePython { file, .. } => Some((absolute(file), GameKind::Asalto)),
        BotSpec::CourseJava { file } => Some((absolute(file), GameKind::Gomoku)),
        BotSpec::Console(command) => {
            let dir = command.cwd.as_deref().or(cwd);
            std::iter::once(&command.program)
                .chain(&command.args)
                .filter(|word| !word.starts_with('-'))
                .map(|word| match dir {
                    Some(dir) => dir.join(word),
                    None => PathBuf::from(word),
                })
                .find(|path| path.is_file())
                .map(|path| (absolute(&path), GameKind::Advance))
        }
        BotSpec::Builtin(_) | BotSpec::Command(_) | BotSpec::ConsoleProject(_) => None,
    }
}

/// Whether `entry` is what only a class holds, for the bot named `own`: another team's
/// folder or zip, a platform's folder or flat file, a class list.
fn of_another_team(entry: &Path, own: &str, game: GameKind) -> bool {
    let name = file_name(entry);
    if entry.is_dir() {
        if name.contains("_assignsubmission_") {
            return true;
        }
        let Ok(bot) = identify(entry, game) else {
            return false;
        };
        // Every Hinger agent is `a3_agent.py`: only its folder's name tells its team.
        let same_bot = game != GameKind::Hinger && one_name(&stem_of(&bot), own);
        return !named_after(entry, own) && !same_bot;
    }
    if is_zip(entry) {
        return !named_after(entry, own);
    }
    let flat = platform::flat_name(&name).is_some() && platform::not_a_submission(entry).is_none();
    flat || super::roster::is_class_list(entry)
}

/// Whether `entry` is a submission of its own (a bot file, a zip, a folder holding a bot, a
/// platform's file) or a class list: never another bot's, whatever its name.
fn is_submission(entry: &Path, game: GameKind) -> bool {
    let name = file_name(entry);
    if entry.is_dir() {
        return identify(entry, game).is_ok() || name.contains("_assignsubmission_");
    }
    is_zip(entry)
        || is_candidate(entry, game)
        || platform::flat_name(&name).is_some()
        || super::roster::is_class_list(entry)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    const BOT: &str = "class Player:\n    pass\n";

    fn names(owned: &[OsString]) -> Vec<String> {
        let mut names: Vec<String> = owned
            .iter()
            .map(|n| n.to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_loose_bot_of_a_class_folder_owns_its_file_and_the_files_named_after_it_only() {
        let dir = tempfile::tempdir().unwrap();
        let class = dir.path().join("class");
        put(&class.join("Team11.py"), BOT);
        put(&class.join("Team11_utils.py"), "X = 1\n");
        put(&class.join("team11-book.txt"), "opening\n");
        put(&class.join("Team110.py"), BOT);
        put(&class.join("Team11_v2.py"), BOT);
        put(&class.join("team12/Team12.py"), BOT);
        put(&class.join("team12/utils.py"), "X = 2\n");
        put(&class.join("Team14.zip"), "PK");
        put(&class.join("utils.py"), "X = 3\n");
        put(
            &class.join("roster.csv"),
            "name,email,team\nAna,ana@uni.es,Team11\n",
        );
        let shape = shape(&class.join("Team11.py"), GameKind::Asalto).unwrap();
        let Shape::Class(owned) = shape else {
            panic!("a class folder: {shape:?}")
        };
        assert_eq!(
            names(&owned),
            ["Team11.py", "Team11_utils.py", "team11-book.txt"]
        );
    }

    #[test]
    fn a_class_list_or_a_platform_file_alone_makes_a_flat_folder_a_class() {
        let dir = tempfile::tempdir().unwrap();
        let class = dir.path().join("class");
        put(&class.join("Team01.py"), BOT);
        put(&class.join("helper.py"), "X = 1\n");
        put(
            &class.join("list.csv"),
            "\u{feff}Student;Team\nAna;Team01\n",
        );
        assert!(matches!(
            shape(&class.join("Team01.py"), GameKind::Asalto),
            Some(Shape::Class(_))
        ));
        std::fs::remove_file(class.join("list.csv")).unwrap();
        put(&class.join("smithalice_10001_5551_Team02.py"), BOT);
        assert!(matches!(
            shape(&class.join("Team01.py"), GameKind::Asalto),
            Some(Shape::Class(_))
        ));
    }

    #[test]
    fn a_students_folder_of_versions_and_helpers_is_its_own_but_for_the_other_bot_files() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("project");
        put(&project.join("Team05.py"), BOT);
        put(&project.join("Team05_old.py"), BOT);
        put(&project.join("utils.py"), "X = 1\n");
        put(&project.join("data.csv"), "move,score\n1,2\n");
        put(&project.join("old/Team05.py"), BOT);
        put(&project.join("Team05.zip"), "PK");
        put(&project.join("Team05_backup.zip"), "PK");
        put(&project.join("results/games.jsonl"), "");
        let shape = shape(&project.join("Team05.py"), GameKind::Asalto);
        assert_eq!(
            shape,
            Some(Shape::Own {
                bots: vec![project.join("Team05_old.py")],
                results: vec![project.join("results")],
            })
        );
        // The example league: three teams and the helper they share.
        let league = Path::new(env!("CARGO_MANIFEST_DIR")).join("bots/league");
        assert!(matches!(
            super::shape(&league.join("Team03.py"), GameKind::Asalto),
            Some(Shape::Own { .. })
        ));
    }

    #[test]
    fn a_platforms_folder_per_student_is_its_students_whatever_else_it_holds() {
        let dir = tempfile::tempdir().unwrap();
        let student = dir.path().join("Ana Pérez_12345_assignsubmission_file_");
        put(&student.join("Team06.py"), BOT);
        put(&student.join("helpers.py"), "X = 1\n");
        put(&student.join("backup.zip"), "PK");
        assert!(matches!(
            shape(&student.join("Team06.py"), GameKind::Asalto),
            Some(Shape::Own { .. })
        ));
    }

    #[test]
    fn the_readmes_class_folder_gives_its_single_file_team_its_file_alone() {
        let submissions = Path::new(env!("CARGO_MANIFEST_DIR")).join("bots/submissions");
        let shape = shape(&submissions.join("Team11.py"), GameKind::Asalto);
        assert_eq!(shape, Some(Shape::Class(vec!["Team11.py".into()])));
    }

    #[test]
    fn the_journal_file_is_the_tournaments() {
        assert_eq!(JOURNAL_FILE, crate::tournament::journal::JOURNAL_FILE);
    }
}
