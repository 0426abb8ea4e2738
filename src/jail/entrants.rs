//! Who else plays: the files of every entrant of the run, its results folder and its class
//! folders, set once by the run before its bots start. What a jail hides from a bot is
//! computed from these lists, never from file names or contents: the files of every entrant
//! but the bot's own, the results (the live journal), and of a class folder every entry the
//! bot does not own (which entries a bot owns is the class's to say: `crate::class`).

use super::CommandSpec;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::RwLock;

/// The run's entrants, each as the paths it owns, its results folders and files, and its
/// class folders.
#[derive(Default)]
struct Run {
    entrants: Vec<Vec<PathBuf>>,
    results: Vec<PathBuf>,
    classes: Vec<Class>,
}

/// A folder of which each bot reads only the entries it owns ([`class_folder`]).
struct Class {
    /// The folder as named and as the file system resolves it.
    forms: Vec<PathBuf>,
    /// Each bot's file (in its forms), with the names of the entries it owns.
    owners: Vec<(Vec<PathBuf>, Vec<OsString>)>,
}

static RUN: RwLock<Run> = RwLock::new(Run {
    entrants: Vec::new(),
    results: Vec::new(),
    classes: Vec::new(),
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

/// Makes `folder` a class folder in which the bot whose file is `file` owns the entries
/// named `own`: every other entry of the folder, whatever it is (another team's file,
/// folder or zip, whether it plays or not, the class list, earlier results, the teacher's
/// notes), is hidden from that bot, and every entry from a bot that owns none. The entries
/// are read when a jail is made, so that one added since is hidden too.
pub fn class_folder(folder: &Path, file: &Path, own: &[OsString]) {
    let forms_of_folder = forms(folder);
    let files = forms(file);
    let mut run = RUN.write().unwrap_or_else(|e| e.into_inner());
    let at = match run.classes.iter().position(|c| c.forms == forms_of_folder) {
        Some(at) => at,
        None => {
            run.classes.push(Class {
                forms: forms_of_folder,
                owners: Vec::new(),
            });
            run.classes.len() - 1
        }
    };
    let class = &mut run.classes[at];
    match class.owners.iter_mut().find(|(f, _)| *f == files) {
        Some((_, names)) => {
            for name in own {
                if !names.contains(name) {
                    names.push(name.clone());
                }
            }
        }
        None => class.owners.push((files, own.to_vec())),
    }
}

impl Class {
    /// The names of the entries owned by the bot whose files `named` holds.
    fn owned_by(&self, named: &[PathBuf]) -> Vec<&OsString> {
        self.owners
            .iter()
            .filter(|(files, _)| files.iter().any(|f| named.contains(f)))
            .flat_map(|(_, names)| names)
            .collect()
    }

    /// Every entry of the folder but those named `owned`, in each of the folder's forms.
    fn others(&self, owned: &[&OsString]) -> Vec<PathBuf> {
        let mut paths = Vec::new();
        for form in &self.forms {
            for entry in std::fs::read_dir(form).into_iter().flatten().flatten() {
                let name = entry.file_name();
                if !owned.contains(&&name) {
                    paths.push(form.join(name));
                }
            }
        }
        paths
    }
}

/// Whether `path` (a file beside the bot file `own`) is another's as far as the bot of
/// `own` is concerned, so hidden from it: a file of another entrant of the run, or an
/// entry of a class folder the bot does not own. A bot's digest leaves such files out: a
/// late team's file added beside a team's in one folder changes nothing of that team's.
pub(crate) fn is_others(path: &Path, own: &Path) -> bool {
    let run = RUN.read().unwrap_or_else(|e| e.into_inner());
    let path_forms = forms(path);
    let own_forms = forms(own);
    let another = run.entrants.iter().any(|files| {
        files.iter().any(|f| path_forms.contains(f)) && !files.iter().any(|f| own_forms.contains(f))
    });
    if another {
        return true;
    }
    let (Some(folder), Some(name)) = (path.parent(), path.file_name()) else {
        return false;
    };
    let folder_forms = forms(folder);
    run.classes
        .iter()
        .filter(|c| c.forms.iter().any(|f| folder_forms.contains(f)))
        .any(|c| !c.owned_by(&own_forms).contains(&&name.to_os_string()))
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
            let own = |word: &String| {
                let path = match cwd {
                    Some(dir) => dir.join(word),
                    None => PathBuf::from(word),
                };
                let path = absolute(&path);
                let system = super::inside::SYSTEM.iter().any(|s| path.starts_with(s));
                // `.` names the working folder, which bots may share.
                let shared = cwd.is_some_and(|dir| absolute(dir).starts_with(&path));
                (!system && !shared && path.exists() && path.parent().is_some()).then_some(path)
            };
            files.extend(
                command
                    .args
                    .iter()
                    .filter(|word| !word.starts_with('-'))
                    .filter_map(own),
            );
            // The program is the bot's own only when no argument names a file: an
            // interpreter outside the system's folders (a pyenv's, a venv's) also runs
            // the course bots, whose entrants name no program, so it is no one's.
            if files.is_empty() && command.program.contains('/') {
                files.extend(own(&command.program));
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
    if run.entrants.is_empty() && run.results.is_empty() && run.classes.is_empty() {
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
    // Of a class folder, what the bot does not own: in its folder, the copy leaves it out.
    for class in &run.classes {
        let others = class.others(&class.owned_by(&named));
        hidden.extend(others.into_iter().filter(|p| !holds_own(p)));
    }
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
/// `own` is, or an entry of a class folder that the bot of `own` does not own.
pub fn of_another(path: &Path, own: &Path) -> bool {
    let run = RUN.read().unwrap_or_else(|e| e.into_inner());
    let another_entrants = run
        .entrants
        .iter()
        .filter(|files| !files.iter().any(|f| own.starts_with(f)))
        .flatten()
        .any(|f| path.starts_with(f));
    let own = forms(own);
    another_entrants
        || run.classes.iter().any(|class| {
            let owned = class.owned_by(&own);
            class.forms.iter().any(|form| {
                let Some(std::path::Component::Normal(entry)) = path
                    .strip_prefix(form)
                    .ok()
                    .and_then(|rest| rest.components().next())
                else {
                    return false;
                };
                let holds_own = own.iter().any(|o| o.starts_with(form.join(entry)));
                !holds_own && !owned.iter().any(|name| name.as_os_str() == entry)
            })
        })
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
    fn a_class_folder_hides_from_its_bot_every_entry_it_does_not_own_entrant_or_not() {
        let dir = tempfile::tempdir().unwrap();
        let dir = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir(dir.join("team12")).unwrap();
        for name in [
            "Team11.py",
            "Team11_utils.py",
            "team12/utils.py",
            "roster.csv",
        ] {
            std::fs::write(dir.join(name), "").unwrap();
        }
        let own = [
            OsString::from("Team11.py"),
            OsString::from("Team11_utils.py"),
        ];
        class_folder(&dir, &dir.join("Team11.py"), &own);
        enter([Owned::File(&dir.join("Team11.py"))]);
        let command = crate::bots::python::course_command(&dir.join("Team11.py"), None);
        let hidden = hidden_from(&command, &dir);
        assert!(hidden.contains(&dir.join("team12")), "{hidden:?}");
        assert!(hidden.contains(&dir.join("roster.csv")), "{hidden:?}");
        assert!(!hidden.contains(&dir.join("Team11.py")), "{hidden:?}");
        assert!(!hidden.contains(&dir.join("Team11_utils.py")), "{hidden:?}");
        // An entry made after the folder was told a class's is hidden too.
        std::fs::write(dir.join("Team15.py"), "").unwrap();
        assert!(hidden_from(&command, &dir).contains(&dir.join("Team15.py")));
        // What a Java player's compiler may read of the folder: the same.
        let own_file = dir.join("Team11.py");
        assert!(of_another(&dir.join("team12/utils.py"), &own_file));
        assert!(of_another(&dir.join("roster.csv"), &own_file));
        assert!(!of_another(&dir.join("Team11_utils.py"), &own_file));
        // A bot of a team's folder in the class reads its folder.
        let team12 = dir.join("team12/Team12.py");
        std::fs::write(&team12, "").unwrap();
        enter([Owned::File(&team12)]);
        assert!(!of_another(&dir.join("team12/utils.py"), &team12));
        assert!(of_another(&dir.join("Team11_utils.py"), &team12));
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
