//! What a tournament's bots need from the harness's own setup, checked before any game,
//! and the digest of the files each bot is made of.
//!
//! A missing interpreter, Java tool or working folder is the harness's mistake, not the
//! bot's: journaling its games as forfeits would put a setup error in the table, so the
//! run is refused before the first game instead. A command bot's own program is the bot:
//! when it cannot be started, its games are lost by `spawn_failed`, as any bot failure. The digest goes into the journal's plan,
//! so a bot file edited between two runs of one tournament is noticed on resume.

use super::{Entrant, journal};
use crate::bots::spec::{BotSpec, find_program};
use crate::error::Error;
use crate::jail::SandboxMode;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The interpreter a course-style `.py` bot runs under.
pub(crate) fn interpreter(spec: &BotSpec) -> Option<String> {
    match spec {
        BotSpec::CoursePython { python, .. } => Some(
            python
                .clone()
                .unwrap_or_else(crate::bots::python::default_python),
        ),
        _ => None,
    }
}

/// Refuses the run when a bot's working folder, Python interpreter or Java tools cannot
/// be found.
pub fn check(entrants: &[Entrant]) -> Result<(), Error> {
    for e in entrants {
        let refuse = |what: String| {
            Err(Error::usage(format!(
                "bot {}: {what}; no game was played",
                e.name
            )))
        };
        if let Some(dir) = &e.cwd
            && !dir.is_dir()
        {
            return refuse(format!(
                "its working folder {} does not exist",
                dir.display()
            ));
        }
        match &e.spec {
            BotSpec::Builtin(_) | BotSpec::Command(_) | BotSpec::Console(_) => {}
            BotSpec::ConsoleProject(_) => {
                let dotnet = crate::bots::console::dotnet_program();
                if find_program(&dotnet).is_none() {
                    return refuse(format!(
                        "a C# console project needs `{dotnet}` (the .NET SDK on PATH, or \
                         $ARBITER_DOTNET), which is not found"
                    ));
                }
            }
            BotSpec::CoursePython { .. } => {
                let python = interpreter(&e.spec).unwrap_or_default();
                if find_program(&python).is_none() {
                    return refuse(format!(
                        "the Python interpreter `{python}` is not found (name another with \
                         --python, `python` in tournaments.toml or $ARBITER_PYTHON)"
                    ));
                }
            }
            BotSpec::CourseJava { .. } => {
                for (variable, default) in [
                    ("ARBITER_JAVAC", crate::bots::java::DEFAULT_JAVAC),
                    ("ARBITER_JAVA", crate::bots::java::DEFAULT_JAVA),
                ] {
                    let tool = std::env::var(variable).unwrap_or_else(|_| default.to_string());
                    if find_program(&tool).is_none() {
                        return refuse(format!(
                            "the Java tool `{tool}` is not found (install a JDK, or name it \
                             in ${variable})"
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Makes `entrants` the run's entrants for confinement: no bot reads another's files, nor
/// what of its folder is no part of its own submission ([`crate::class::enter`]).
pub fn enter(entrants: &[Entrant]) {
    crate::class::enter(entrants.iter().map(|e| (&e.spec, e.cwd.as_deref())));
}

/// The files a bot is made of: a `.py` bot's file and its folder's `.py` files, a `.java`
/// bot's file and its folder's `.java` files (neither another entrant's nor a class
/// entry the bot does not own, once the run's entrants are known: [`enter`]), a command's program and arguments that name
/// files (relative to its working folder). Sorted, without duplicates.
pub(crate) fn bot_files(spec: &BotSpec, cwd: Option<&Path>) -> Result<Vec<PathBuf>, Error> {
    let siblings = |file: &Path, extension: &str| -> Result<Vec<PathBuf>, Error> {
        let folder = match file.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let entries = std::fs::read_dir(&folder).map_err(|source| Error::Unreadable {
            path: folder.clone(),
            source,
        })?;
        let mut files = vec![file.to_path_buf()];
        for entry in entries.flatten() {
            let path = entry.path();
            // Another entrant's file, or a class's entry the bot does not own, is hidden
            // from it: none of its program.
            if crate::jail::entrants::is_others(&path, file) {
                continue;
            }
            if path.extension().is_some_and(|e| e == extension) && path.is_file() {
                files.push(path);
            }
        }
        Ok(files)
    };
    let mut files = match spec {
        BotSpec::Builtin(_) => Vec::new(),
        BotSpec::CoursePython { file, .. } => siblings(file, "py")?,
        BotSpec::CourseJava { file } => siblings(file, "java")?,
        BotSpec::ConsoleProject(dir) => std::fs::read_dir(dir)
            .map_err(|source| Error::Unreadable {
                path: dir.clone(),
                source,
            })?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "cs" || x == "csproj"))
            .collect(),
        BotSpec::Command(command) | BotSpec::Console(command) => std::iter::once(&command.program)
            .chain(&command.args)
            .filter(|word| command.program == **word || !word.starts_with('-'))
            .map(|word| match cwd {
                Some(dir) => dir.join(word),
                None => PathBuf::from(word),
            })
            .filter(|p| p.is_file())
            .collect(),
    };
    let absolute = |p: PathBuf| std::path::absolute(&p).unwrap_or(p);
    files = files.into_iter().map(absolute).collect();
    files.sort();
    files.dedup();
    Ok(files)
}

/// SHA-256 (hex) over the names and contents of the bot's files; `None` for a bot made of
/// no file (a built-in, or a command found in `PATH`).
pub(crate) fn digest(spec: &BotSpec, cwd: Option<&Path>) -> Result<Option<String>, Error> {
    let files = bot_files(spec, cwd)?;
    if files.is_empty() {
        return Ok(None);
    }
    let mut hasher = Sha256::new();
    for file in &files {
        let unreadable = |source| Error::Unreadable {
            path: file.clone(),
            source,
        };
        // Streamed: a helper file of gigabytes costs time, never memory; a FIFO or a device
        // where a file should be is an error, not a hang.
        let opened = crate::untrusted::file::open_regular(file).map_err(unreadable)?;
        let size = opened.metadata().map_err(unreadable)?.len();
        // Names are hashed without their folder: moving a bot's folder is no edit.
        let name = file.file_name().unwrap_or_default().to_string_lossy();
        hasher.update((name.len() as u64).to_le_bytes());
        hasher.update(name.as_bytes());
        hasher.update(size.to_le_bytes());
        let read = crate::untrusted::file::for_each_block(std::io::Read::take(opened, size), |b| {
            hasher.update(b)
        })
        .map_err(unreadable)?;
        if read != size {
            return Err(unreadable(std::io::Error::other(
                "it changed size while it was read",
            )));
        }
    }
    let hash = hasher.finalize();
    Ok(Some(hash.iter().map(|b| format!("{b:02x}")).collect()))
}

/// The confinement a bot program gets here, as the plan records it.
pub(super) fn sandbox_level(mode: SandboxMode) -> Result<String, String> {
    // What the trials find now, not a finding kept from an earlier run: this is the level
    // the plan holds a resumed run to.
    crate::jail::verify();
    Ok(match crate::jail::level_for(mode)? {
        Some(level) => level.name().to_string(),
        None => mode.name().to_string(),
    })
}

/// Sandboxed bots must not read or write the results (the live journal holds their
/// opponents' moves and logs, `unpacked/` other teams' code): the folder is made usable by
/// its owner alone (0700), and the journal readable by its owner alone (0600). The tables
/// written into the folder later are out of other users' reach through it.
pub(super) fn keep_results_private(dir: &Path) -> Result<(), Error> {
    use std::os::unix::fs::PermissionsExt;
    let private = |path: &Path, keep: u32| -> Result<(), Error> {
        let io = |source| Error::Io {
            path: path.to_path_buf(),
            source,
        };
        let mode = std::fs::metadata(path).map_err(io)?.permissions().mode() & 0o7777;
        if mode & !keep != 0 {
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode & keep))
                .map_err(io)?;
        }
        Ok(())
    };
    private(dir, 0o700)?;
    let journal = dir.join(journal::JOURNAL_FILE);
    if journal.exists() {
        private(&journal, 0o600)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_changes_when_a_bot_file_or_its_helper_is_edited() {
        let dir = tempfile::tempdir().unwrap();
        let bot = dir.path().join("Team01.py");
        std::fs::write(&bot, "class Player: pass\n").unwrap();
        std::fs::write(dir.path().join("helper.py"), "X = 1\n").unwrap();
        std::fs::write(dir.path().join("notes.txt"), "not code").unwrap();
        let spec = BotSpec::CoursePython {
            file: bot.clone(),
            python: None,
        };
        let first = digest(&spec, None).unwrap().unwrap();
        assert_eq!(first.len(), 64);
        std::fs::write(dir.path().join("notes.txt"), "other notes").unwrap();
        assert_eq!(
            digest(&spec, None).unwrap().unwrap(),
            first,
            "only .py files count"
        );
        std::fs::write(dir.path().join("helper.py"), "X = 2\n").unwrap();
        let second = digest(&spec, None).unwrap().unwrap();
        assert_ne!(second, first, "a helper module is part of the bot");
        std::fs::write(&bot, "class Player: depth = 3\n").unwrap();
        assert_ne!(digest(&spec, None).unwrap().unwrap(), second);
        assert_eq!(
            digest(&BotSpec::Builtin("random".into()), None).unwrap(),
            None
        );
    }

    #[test]
    fn a_command_digest_covers_its_program_and_file_arguments() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("bot.py"), "print()\n").unwrap();
        let spec = BotSpec::parse("python3 -u bot.py --depth 3").unwrap();
        let files = bot_files(&spec, Some(dir.path())).unwrap();
        assert_eq!(
            files,
            vec![std::path::absolute(dir.path().join("bot.py")).unwrap()]
        );
        let BotSpec::Command(mut command) = spec else {
            unreachable!()
        };
        command.program = "./bot.py".into();
        let files = bot_files(&BotSpec::Command(command), Some(dir.path())).unwrap();
        assert_eq!(files.len(), 1, "one file, named twice: {files:?}");
    }
}
