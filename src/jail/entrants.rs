//! Who else plays: the files of every entrant of the run and its results folder, set once
//! by the run before its bots start. What a jail hides from a bot is computed from this
//! list, never from file names or contents: the files of every entrant but the bot's own,
//! and the results (the live journal).

use super::CommandSpec;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

/// The run's entrants, each as the paths it owns, and its results folders and files.
#[derive(Default)]
struct Run {
    entrants: Vec<Vec<PathBuf>>,
    results: Vec<PathBuf>,
}

static RUN: RwLock<Run> = RwLock::new(Run {
    entrants: Vec::new(),
    results: Vec::new(),
});

/// What an entrant of the run owns, as the bot's naming describes it.
#[derive(Clone, Copy, Debug)]
pub enum Owned<'a> {
    /// Nothing on disk (a built-in).
    Nothing,
    /// A course bot's file, or a Java player's source.
    File(&'a Path),
    /// A Hinger course agent's file, whose folder every team names alike.
    Agent(&'a Path),
    /// A project's folder (a C# console project).
    Folder(&'a Path),
    /// A program's command: its file and the files its arguments name, seated in `cwd`
    /// when given.
    Command(&'a CommandSpec, Option<&'a Path>),
}

/// Adds the entrants of a run.
pub fn enter<'a>(entrants: impl IntoIterator<Item = Owned<'a>>) {
    let owned: Vec<Vec<PathBuf>> = entrants
        .into_iter()
        .map(files_of)
        .filter(|files| !files.is_empty())
        .collect();
    let mut run = RUN.write().unwrap_or_else(|e| e.into_inner());
    for files in owned {
        if !run.entrants.contains(&files) {
            run.entrants.push(files);
        }
    }
}

/// Adds an entrant made of `files` (a folder it owns, such as a solver's project).
pub fn enter_files(files: &[PathBuf]) {
    let files: Vec<PathBuf> = files.iter().flat_map(|f| forms(f)).collect();
    let mut run = RUN.write().unwrap_or_else(|e| e.into_inner());
    if !files.is_empty() && !run.entrants.contains(&files) {
        run.entrants.push(files);
    }
}

/// Adds where the run writes its results (a folder, or a file such as a game's record), or
/// what only the referee reads (a grader's cases and their answers).
pub fn results(path: &Path) {
    let mut forms = forms(path);
    let mut run = RUN.write().unwrap_or_else(|e| e.into_inner());
    forms.retain(|p| !run.results.contains(p));
    run.results.extend(forms);
}

/// The paths an entrant owns: a course bot's file (and a Hinger agent's folder, which holds
/// its `a1_state.py` and which every team names alike), a C# project's folder, a program's
/// file and the files and folders its arguments name. Its working folder is not its own:
/// bots may share one.
pub(crate) fn files_of(owned: Owned<'_>) -> Vec<PathBuf> {
    let mut files = Vec::new();
    match owned {
        Owned::Nothing => {}
        Owned::Agent(file) => {
            // Its file too: a folder two agents share is neither's, their files are.
            let file = absolute(file);
            files.extend(file.parent().map(Path::to_path_buf));
            files.push(file);
        }
        Owned::File(file) | Owned::Folder(file) => files.push(absolute(file)),
        Owned::Command(command, cwd) => {
            let cwd = cwd.or(command.cwd.as_deref());
            for word in std::iter::once(&command.program).chain(&command.args) {
                if word.starts_with('-') || (word == &command.program && !word.contains('/')) {
                    continue;
                }
                let path = match cwd {
                    Some(dir) => dir.join(word),
                    None => PathBuf::from(word),
                };
                let path = absolute(&path);
                let system = super::inside::SYSTEM.iter().any(|s| path.starts_with(s));
                // `.` names the working folder, which bots may share.
                let shared = cwd.is_some_and(|dir| absolute(dir).starts_with(&path));
                if !system && !shared && path.exists() && path.parent().is_some() {
                    files.push(path);
                }
            }
        }
    }
    files.into_iter().flat_map(|f| forms(&f)).collect()
}

/// What `command` must not read: every path of the run's other entrants and its results,
/// but none that holds one of its own files (a folder it shares with them: their entries
/// in it are hidden instead). Its own entrants are those owning a path it names (its
/// program, an argument, its working folder, a folder it carries, its entry).
pub(crate) fn hidden_from(command: &CommandSpec, origin: &Path) -> Vec<PathBuf> {
    let run = RUN.read().unwrap_or_else(|e| e.into_inner());
    if run.entrants.is_empty() && run.results.is_empty() {
        return Vec::new();
    }
    let mut named: Vec<PathBuf> = std::iter::once(&command.program)
        .chain(&command.args)
        .flat_map(|word| word.split(':'))
        .filter(|word| !word.is_empty() && !word.starts_with('-'))
        .map(|word| absolute(&origin.join(word)))
        .collect();
    named.push(absolute(origin));
    named.extend(command.carried.iter().map(|c| absolute(c)));
    named.extend(command.entry.iter().map(|e| absolute(e)));
    // How closely an entrant's paths hold what the command names, as how many of them do
    // and how deep: its own entrants hold it most closely (two Hinger agents share a
    // folder, two scripts an interpreter, but each has its own file).
    let closeness = |files: &Vec<PathBuf>| {
        let holding = files
            .iter()
            .filter(|f| named.iter().any(|n| n.starts_with(f)));
        let deepest = holding.clone().map(|f| f.components().count()).max();
        (holding.count(), deepest.unwrap_or(0))
    };
    let closest = run.entrants.iter().map(closeness).max().unwrap_or((0, 0));
    let owns = |files: &Vec<PathBuf>| closest.0 > 0 && closeness(files) == closest;
    let own: Vec<&PathBuf> = run.entrants.iter().filter(|e| owns(e)).flatten().collect();
    let holds_own = |path: &Path| own.iter().any(|o| o.starts_with(path));
    let mut hidden: Vec<PathBuf> = run
        .entrants
        .iter()
        .filter(|e| !owns(e))
        .flatten()
        .chain(&run.results)
        .filter(|p| !holds_own(p))
        .cloned()
        .collect();
    hidden.sort();
    hidden.dedup();
    hidden
}

/// Whether `path` is one of an entrant's files, or lies in one of its folders.
pub(crate) fn is_entrants(path: &Path) -> bool {
    let run = RUN.read().unwrap_or_else(|e| e.into_inner());
    run.entrants.iter().flatten().any(|f| path.starts_with(f))
}

/// Whether `path` is, or lies in, the files of an entrant other than the one whose file
/// `own` is.
pub fn of_another(path: &Path, own: &Path) -> bool {
    let run = RUN.read().unwrap_or_else(|e| e.into_inner());
    run.entrants
        .iter()
        .filter(|files| !files.iter().any(|f| own.starts_with(f)))
        .flatten()
        .any(|f| path.starts_with(f))
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// A path as named and as the file system resolves it (a folder reached through a link).
fn forms(path: &Path) -> Vec<PathBuf> {
    let path = absolute(path);
    match std::fs::canonicalize(&path) {
        Ok(real) if real != path => vec![path, real],
        _ => vec![path],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bot_is_hidden_the_other_entrants_files_and_the_results_but_not_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let dir = std::fs::canonicalize(dir.path()).unwrap();
        for name in ["alice.py", "bob.py", "helper.py"] {
            std::fs::write(dir.join(name), "").unwrap();
        }
        enter([
            Owned::File(&dir.join("alice.py")),
            Owned::File(&dir.join("bob.py")),
        ]);
        results(&dir.join("results"));
        let command = crate::bots::python::course_command(&dir.join("alice.py"), None);
        let hidden = hidden_from(&command, &dir);
        assert!(hidden.contains(&dir.join("bob.py")), "{hidden:?}");
        assert!(hidden.contains(&dir.join("results")), "{hidden:?}");
        assert!(!hidden.contains(&dir.join("alice.py")), "{hidden:?}");
        assert!(!hidden.contains(&dir.join("helper.py")), "{hidden:?}");
    }

    #[test]
    fn scripts_sharing_an_interpreter_and_a_folder_each_own_only_their_script() {
        let dir = tempfile::tempdir().unwrap();
        let dir = std::fs::canonicalize(dir.path()).unwrap();
        let bin = dir.join("venv/bin");
        std::fs::create_dir_all(&bin).unwrap();
        for file in [bin.join("python"), dir.join("a.py"), dir.join("b.py")] {
            std::fs::write(file, "").unwrap();
        }
        let script = |name: &str| {
            let mut command = CommandSpec::new("venv/bin/python").arg(name).arg(".");
            command.cwd = Some(dir.clone());
            command
        };
        let (a, b) = (script("a.py"), script("b.py"));
        enter([Owned::Command(&a, None), Owned::Command(&b, None)]);
        let hidden = hidden_from(&b, &dir);
        assert_eq!(hidden, [dir.join("a.py")]);
        let hidden = hidden_from(&a, &dir);
        assert_eq!(hidden, [dir.join("b.py")]);
    }
}
