//! Running a course solver (Battle's `BattleSolver`) on one case: a Java folder in the
//! course's layout, compiled once with the driver bots/java/BattleDriver.java and run in a
//! fresh JVM per case, or a console program `COMMAND STATE true|false` that prints its
//! answer on the last line of stdout. Either way the program is an ordinary confined bot
//! program (same spawn, limits, sandbox and shutdown; see [`super::process::once::run_once`]);
//! a solver still running at the limit is a timeout, killed with its JVM.
//!
//! A solver's folder may hold symbolic links (a git clone or an unzip keeps them): none is
//! followed, whether it points out of the folder or stays in it. A Java solver whose `src/`
//! holds one (or is one) is not compiled, and every case fails saying which, e.g.
//! `src/battle/Node.java is a link out of the solver's folder: not followed`: what a link
//! points at (a file only the referee's user can read, another team's `Node.java`) is never
//! read, copied or compiled. The solver runs in a copy of its folder that holds no link
//! either (the jail's).

use super::process::once::run_once_fairly;
use super::spec::{CommandSpec, Confinement};
use super::{Failure, FailureKind, java};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The driver that calls `new BattleSolver().solve(state, ab, false)`.
pub(crate) const BATTLE_DRIVER: &str = include_str!("../../bots/java/BattleDriver.java");
/// The marker of the driver's answer line.
const ANSWER_MARK: &str = "arbiter-answer ";
/// Where a solver folder's main class must be.
pub(crate) const SOLVER_FILE: &str = "src/battle/BattleSolver.java";

/// A solver as named on the command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SolverSpec {
    /// A folder with `src/battle/BattleSolver.java` (and `Node.java`, other classes).
    Java(PathBuf),
    /// `console:COMMAND`: the command's words.
    Console(Vec<String>),
}

impl SolverSpec {
    /// `console:COMMAND` (split like a shell would) or a folder in the course's layout.
    pub fn parse(text: &str) -> Result<SolverSpec, String> {
        if let Some(command) = text.strip_prefix("console:") {
            let words = super::spec::split_words(command)
                .filter(|w| !w.is_empty())
                .ok_or_else(|| {
                    format!(
                        "`{text}`: the command after `console:` is empty or has an unclosed quote"
                    )
                })?;
            return Ok(SolverSpec::Console(words));
        }
        let folder = PathBuf::from(text);
        let main = folder.join(SOLVER_FILE);
        // A link there is not followed: preparing the solver says so.
        if !main.is_file() && !main.is_symlink() {
            return Err(format!(
                "`{text}`: expected a folder holding {SOLVER_FILE} (the course's layout), or console:COMMAND"
            ));
        }
        Ok(SolverSpec::Java(folder))
    }

    /// A short name for tables: the folder's name, or the command.
    pub fn name(&self) -> String {
        match self {
            SolverSpec::Java(folder) => std::path::absolute(folder)
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_else(|| folder.display().to_string()),
            SolverSpec::Console(words) => words.join(" "),
        }
    }
}

/// A solver ready to run: the command to which a case's arguments are added.
#[derive(Clone, Debug)]
pub struct Prepared {
    command: CommandSpec,
    java: bool,
}

/// What one run of a solver gave.
#[derive(Debug)]
pub struct Solved {
    /// The answer text, or why there is none (a crash, a timeout, no answer line).
    pub answer: Result<String, Failure>,
    /// The solve's own time where the driver measured it (Java), else the process's.
    pub time: Duration,
    /// The solver's own output (stderr, and stdout other than the answer), tail.
    pub output: String,
}

/// Compiles a Java solver (once: the classes are cached by a hash of the sources) or
/// checks nothing for a console one. The error is a message: javac's output, say.
pub fn prepare(spec: &SolverSpec, confine: Confinement) -> Result<Prepared, String> {
    match spec {
        SolverSpec::Console(words) => {
            let mut command = CommandSpec::new(words[0].clone());
            command.args.extend(words[1..].iter().cloned());
            command.confine = confine;
            Ok(Prepared {
                command,
                java: false,
            })
        }
        SolverSpec::Java(folder) => {
            let classes = compile(folder, confine)?;
            let extra = std::env::var(java::JAVA_OPTS_VAR).unwrap_or_default();
            let mut command = java::jvm_command(
                &classes,
                "battle.BattleDriver",
                &java::java_program(),
                &confine.effective_limits(),
                &extra,
            );
            command.confine = confine;
            command.cwd = std::path::absolute(folder).ok();
            Ok(Prepared {
                command,
                java: true,
            })
        }
    }
}

impl Prepared {
    /// Runs the solver on `state` with the pruning flag `ab`, within `limit`.
    pub fn solve(&self, state: &str, ab: bool, limit: Duration) -> Solved {
        let command = self.command.clone().arg(state).arg(ab.to_string());
        let (result, stdout, mut output, mut time) =
            match run_once_fairly(&command, None, limit, &[]) {
                Ok(ran) => (
                    ran.failure(limit).map_or(Ok(()), Err),
                    ran.stdout,
                    ran.stderr,
                    ran.elapsed,
                ),
                Err(failure) => (Err(failure), String::new(), String::new(), Duration::ZERO),
            };
        let lines: Vec<&str> = stdout.lines().collect();
        let answer = result.and_then(|()| {
            let last = if self.java {
                lines.iter().position(|l| l.starts_with(ANSWER_MARK))
            } else {
                lines.iter().rposition(|l| !l.trim().is_empty())
            };
            for (k, line) in lines.iter().enumerate() {
                if Some(k) != last {
                    output.push_str(line);
                    output.push('\n');
                }
            }
            let Some(line) = last.map(|k| lines[k]) else {
                return Err(Failure::new(FailureKind::Crash, "exited without an answer"));
            };
            if !self.java {
                return Ok(line.trim().to_string());
            }
            let rest = &line[ANSWER_MARK.len()..];
            let (nanos, text) = rest.split_once(' ').unwrap_or((rest, ""));
            if let Ok(ns) = nanos.parse::<u64>() {
                time = Duration::from_nanos(ns);
            }
            if text == "null" {
                return Err(Failure::new(FailureKind::Crash, "solve returned null"));
            }
            Ok(unescape(text))
        });
        Solved {
            answer,
            time,
            output,
        }
    }
}

/// Undoes the driver's escapes (`\\`, `\n`, `\r`).
fn unescape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

/// Folder levels below a solver's `src/` whose `.java` files are compiled.
const MAX_SOURCE_DEPTH: usize = 8;

/// The `.java` files under the solver's `src/`, with their bytes and their paths relative
/// to it, in path order; an error naming every link met (none is followed), or a source
/// that cannot be read.
fn solver_sources(folder: &Path) -> Result<Vec<(PathBuf, Vec<u8>)>, String> {
    let src = folder.join("src");
    let tree = match src.is_symlink() {
        true => crate::untrusted::file::SourceTree {
            links: vec![src.clone()],
            ..Default::default()
        },
        false => crate::untrusted::file::source_tree(&src, MAX_SOURCE_DEPTH, &|_| true, &|p| {
            p.extension().is_some_and(|e| e == "java")
        }),
    };
    if !tree.links.is_empty() {
        let told: Vec<String> = tree
            .links
            .iter()
            .map(|link| {
                let name = link.strip_prefix(folder).unwrap_or(link).display();
                match crate::untrusted::file::link_leaves(link, folder) {
                    true => format!("{name} is a link out of the solver's folder: not followed"),
                    false => format!(
                        "{name} is a link: not followed (no link in a solver's folder is, even \
                         one that stays in it; put the file itself there)"
                    ),
                }
            })
            .collect();
        return Err(format!("not compiled: {}", told.join("; ")));
    }
    let mut sources = Vec::new();
    for (file, bytes) in tree.files {
        let rel = file.strip_prefix(&src).unwrap_or(&file).to_path_buf();
        let bytes = bytes.map_err(|e| format!("cannot read `{}`: {e}", rel_to(folder, &file)))?;
        sources.push((rel, bytes));
    }
    Ok(sources)
}

/// `file` as the solver's folder names it (`src/battle/Node.java`).
fn rel_to(folder: &Path, file: &Path) -> String {
    file.strip_prefix(folder)
        .unwrap_or(file)
        .display()
        .to_string()
}

/// Compiles every source under the folder's `src/` with the driver into a cached class
/// folder named after a hash of all of them; javac confined as `confine` says.
fn compile(folder: &Path, confine: Confinement) -> Result<PathBuf, String> {
    let src = folder.join("src");
    let sources = solver_sources(folder)?;
    let mut hash = Sha256::new();
    hash.update(BATTLE_DRIVER.as_bytes());
    for (rel, text) in &sources {
        hash.update(rel.to_string_lossy().as_bytes());
        hash.update((text.len() as u64).to_le_bytes());
        hash.update(text);
    }
    let key: String = hash.finalize()[..12]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let root = java::trusted_cache_root()?;
    let dir = root.join(format!("battle-{key}"));
    if dir.join("battle/BattleDriver.class").is_file() {
        return Ok(dir);
    }
    java::compile_into_place(&dir, "battle/BattleDriver.class", |work| {
        compile_into(work, &src, &sources, confine)
    })?;
    Ok(dir)
}

/// javac over copies of the solver's sources (`sources`, relative to `src`) and the driver.
fn compile_into(
    work: &Path,
    src: &Path,
    sources: &[(PathBuf, Vec<u8>)],
    confine: Confinement,
) -> Result<(), String> {
    let copy = work.join("src");
    let classes = work.join("classes");
    let mut args: Vec<String> = ["-encoding", "UTF-8", "-nowarn", "-proc:none", "-d"]
        .map(String::from)
        .to_vec();
    args.push(classes.to_string_lossy().into_owned());
    let driver = work.join("BattleDriver.java");
    let written = sources
        .iter()
        .map(|(rel, bytes)| (copy.join(rel), bytes.as_slice()))
        .chain([(driver.clone(), BATTLE_DRIVER.as_bytes())]);
    std::fs::create_dir_all(&classes)
        .map_err(|e| format!("cannot create `{}`: {e}", classes.display()))?;
    for (path, bytes) in written {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .map_err(|e| format!("cannot create `{}`: {e}", parent.display()))?;
        }
        std::fs::write(&path, bytes)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        args.push(path.to_string_lossy().into_owned());
    }
    java::run_javac(&java::javac_program(), work, args, confine, src)
        .map_err(|failed| failed.message("javac failed"))
}
