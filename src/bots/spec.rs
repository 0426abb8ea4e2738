//! Naming a bot: `builtin:NAME`, a course-style `.py` or `.java` file, or a protocol
//! program's command line.

use std::path::{Path, PathBuf};

use crate::jail::entrants::Owned;
pub use crate::jail::{
    CommandSpec, Confinement, DEFAULT_BUILD_S, DEFAULT_DISK_MB, DEFAULT_MEMORY_MB, DEFAULT_TASKS,
    Limits, SandboxMode, find_program, installed_program,
};

/// Whether `file` is named like a Hinger course agent (`a3_agent.py`, `a3_agent_v2.py`,
/// `agent.py`).
pub fn is_agent_file(file: &Path) -> bool {
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    file.extension().is_some_and(|e| e == "py") && (stem == "agent" || stem.starts_with("a3_agent"))
}

/// How a bot is reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BotSpec {
    /// A built-in engine, run in-process.
    Builtin(String),
    /// A course-style Python file, run through the adapter for the game: an Asalto
    /// `TeamXX.py` with a `Player` class, or a Hinger `a3_agent.py` with an `Agent` class.
    CoursePython {
        /// The bot's `.py` file.
        file: PathBuf,
        /// The interpreter to run it with; `None` for [`crate::bots::python::default_python`].
        python: Option<String>,
    },
    /// A course-style Java Gomoku bot (`PlayerNNN.java`, a class that is a `GomokuPlayer`),
    /// compiled in the course's environment and run through the Java driver.
    CourseJava {
        /// The player's `.java` file.
        file: PathBuf,
    },
    /// A program that speaks the protocol itself.
    Command(CommandSpec),
    /// A console program run once per move (`console:COMMAND`): `COMMAND white|black IN
    /// OUT` (see `super::console`).
    Console(CommandSpec),
    /// A C# console project (`console:DIR`, DIR holding a `*.csproj`): built once with
    /// `dotnet build -c Release`, then run as a console program with `dotnet DLL`.
    ConsoleProject(PathBuf),
}

/// Why a bot's text names no bot.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum SpecError {
    /// Nothing but whitespace.
    #[error("empty bot specification")]
    Empty,
    /// A command line whose quotes do not close: the text as given.
    #[error("bot specification `{0}`: unbalanced quotes")]
    Quotes(String),
    /// A `.py` or `.java` bot whose file is not there.
    #[error("course bot file `{}` does not exist", .0.display())]
    MissingFile(PathBuf),
    /// A `console:DIR` whose folder has no C# project to build.
    #[error("console bot folder `{}` holds no *.csproj project", .0.display())]
    NoProject(PathBuf),
}

impl BotSpec {
    /// Reads a bot as written on the command line or in a config file.
    pub fn parse(text: &str) -> Result<BotSpec, SpecError> {
        let text = text.trim();
        if text.is_empty() {
            return Err(SpecError::Empty);
        }
        if let Some(name) = text.strip_prefix("builtin:") {
            return Ok(BotSpec::Builtin(name.to_string()));
        }
        if let Some(command) = text.strip_prefix("console:") {
            return console_spec(command);
        }
        let words = split_words(text).ok_or_else(|| SpecError::Quotes(text.to_string()))?;
        if words.is_empty() {
            return Err(SpecError::Empty);
        }
        if words.len() == 1 && words[0].ends_with(".py") {
            let file = PathBuf::from(&words[0]);
            if !file.is_file() {
                return Err(SpecError::MissingFile(file));
            }
            return Ok(BotSpec::CoursePython { file, python: None });
        }
        if words.len() == 1 && words[0].ends_with(".java") {
            let file = PathBuf::from(&words[0]);
            if !file.is_file() {
                return Err(SpecError::MissingFile(file));
            }
            return Ok(BotSpec::CourseJava { file });
        }
        let mut command = CommandSpec::new(words[0].clone());
        command.args = words[1..].to_vec();
        Ok(BotSpec::Command(command))
    }

    /// What the bot owns on disk, seated in `cwd`: what the jails of the run's other bots
    /// hide ([`crate::jail::entrants`]).
    pub fn owned<'a>(&'a self, cwd: Option<&'a Path>) -> Owned<'a> {
        match self {
            BotSpec::Builtin(_) => Owned::Nothing,
            BotSpec::CoursePython { file, .. } if is_agent_file(file) => Owned::Agent(file),
            BotSpec::CoursePython { file, .. } | BotSpec::CourseJava { file } => Owned::File(file),
            BotSpec::ConsoleProject(dir) => Owned::Folder(dir),
            BotSpec::Command(command) | BotSpec::Console(command) => Owned::Command(command, cwd),
        }
    }
}

/// Adds `bots` to the run's entrants, each seated in its working folder: every jail of the
/// run hides from its bot the files of the others.
pub fn enter<'a>(bots: impl IntoIterator<Item = (&'a BotSpec, Option<&'a Path>)>) {
    crate::jail::entrants::enter(bots.into_iter().map(|(spec, cwd)| spec.owned(cwd)));
}

/// Whether `dir` is a folder holding a C# project file.
pub(crate) fn is_csproj_folder(dir: &Path) -> bool {
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|e| e.path().extension().is_some_and(|x| x == "csproj"))
    })
}

/// A command line split into words as a shell would (quotes, backslashes), but only at
/// spaces: a tab, a newline or any other control character is part of the word it is in,
/// so that a program or a file whose name holds one is one word, started as named. `None`
/// when a quote does not close.
pub(crate) fn split_words(text: &str) -> Option<Vec<String>> {
    // Each control character stands in as a private-use one while shlex splits, then is
    // put back; a text already holding those is split as it is.
    const STAND_IN: u32 = 0xF_0000;
    let stand_in = |c: char| char::from_u32(STAND_IN + c as u32);
    let stood_in = |c: char| (STAND_IN..STAND_IN + 0x100).contains(&(c as u32));
    if text.chars().any(stood_in) {
        return shlex::split(text);
    }
    let guarded: String = text
        .chars()
        .map(|c| match c.is_control() {
            true => stand_in(c).unwrap_or(c),
            false => c,
        })
        .collect();
    let words = shlex::split(&guarded)?;
    Some(
        words
            .into_iter()
            .map(|w| {
                w.chars()
                    .map(|c| match stood_in(c) {
                        true => char::from_u32(c as u32 - STAND_IN).unwrap_or(c),
                        false => c,
                    })
                    .collect()
            })
            .collect(),
    )
}

/// `console:COMMAND`: a C# project folder, or a command line run in the folder of the
/// first of its words that names a bot's own file, the program's included unless it is an
/// installed one ([`installed_program`]: `/usr/bin/python3 bot.py` runs in `bot.py`'s
/// folder); paths are made absolute, so they still hold there.
fn console_spec(text: &str) -> Result<BotSpec, SpecError> {
    let text = text.trim();
    let words = split_words(text).ok_or_else(|| SpecError::Quotes(text.to_string()))?;
    if words.is_empty() {
        return Err(SpecError::Empty);
    }
    if words.len() == 1 && Path::new(&words[0]).is_dir() {
        let dir = PathBuf::from(&words[0]);
        if !is_csproj_folder(&dir) {
            return Err(SpecError::NoProject(dir));
        }
        return Ok(BotSpec::ConsoleProject(dir));
    }
    let mut cwd = None;
    let words: Vec<String> = words
        .into_iter()
        .enumerate()
        .map(|(i, w)| {
            let path = Path::new(&w);
            if !path.is_file() {
                return w;
            }
            let full = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
            if cwd.is_none() && (i > 0 || !installed_program(&full)) {
                cwd = full.parent().map(Path::to_path_buf);
            }
            full.to_string_lossy().into_owned()
        })
        .collect();
    let mut command = CommandSpec::new(words[0].clone());
    command.args = words[1..].to_vec();
    command.cwd = cwd;
    Ok(BotSpec::Console(command))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_and_command_lines_parse() {
        assert_eq!(
            BotSpec::parse("builtin:random").unwrap(),
            BotSpec::Builtin("random".into())
        );
        let BotSpec::Command(c) = BotSpec::parse("python3 -u 'my bot.py' --depth 3").unwrap()
        else {
            panic!("expected a command")
        };
        assert_eq!(c.program, "python3");
        assert_eq!(c.args, ["-u", "my bot.py", "--depth", "3"]);
    }

    #[test]
    fn bad_specs_are_errors_not_panics() {
        assert_eq!(BotSpec::parse("   "), Err(SpecError::Empty));
        assert!(matches!(
            BotSpec::parse("python3 'unclosed"),
            Err(SpecError::Quotes(_))
        ));
        assert!(matches!(
            BotSpec::parse("/no/such/Team01.py"),
            Err(SpecError::MissingFile(_))
        ));
        assert!(matches!(
            BotSpec::parse("/no/such/Player1.java"),
            Err(SpecError::MissingFile(_))
        ));
    }

    #[test]
    fn a_control_character_is_part_of_its_word_and_only_spaces_split() {
        assert_eq!(
            split_words("./b\tot\x1b.sh  'my bot.py'\x07 x\\ y").unwrap(),
            ["./b\tot\x1b.sh", "my bot.py\x07", "x y"]
        );
        assert_eq!(split_words("a\nb c").unwrap(), ["a\nb", "c"]);
        assert!(split_words("'open").is_none());
    }

    #[test]
    fn a_console_command_runs_in_its_bots_folder_not_in_its_interpreters() {
        let dir = tempfile::tempdir().unwrap();
        let bot = dir.path().join("x.py");
        std::fs::write(&bot, "").unwrap();
        let python = Path::new("/usr/bin/python3");
        let command = |text: &str| match BotSpec::parse(text).unwrap() {
            BotSpec::Console(command) => command,
            other => panic!("{other:?}"),
        };
        if python.is_file() {
            let c = command(&format!("console:/usr/bin/python3 {}", bot.display()));
            assert_eq!(c.program, "/usr/bin/python3");
            assert_eq!(c.cwd.as_deref(), Some(dir.path()));
            let alone = command("console:/usr/bin/python3 -c pass");
            assert_eq!(alone.cwd, None);
        }
        // A program of the bot's own is its folder, as before.
        let own = dir.path().join("b\tot");
        std::fs::write(&own, "").unwrap();
        let c = command(&format!("console:{} {}", own.display(), bot.display()));
        assert_eq!(c.program, own.to_string_lossy());
        assert_eq!(c.cwd.as_deref(), Some(dir.path()));
        // A runtime's `bin` beside its `lib` is installed, wherever it is.
        let runtime = dir.path().join("opt/py");
        std::fs::create_dir_all(runtime.join("bin")).unwrap();
        std::fs::create_dir_all(runtime.join("lib")).unwrap();
        std::fs::write(runtime.join("bin/python3"), "").unwrap();
        assert!(installed_program(&runtime.join("bin/python3")));
        assert!(!installed_program(&own));
        let c = command(&format!(
            "console:{} {}",
            runtime.join("bin/python3").display(),
            bot.display()
        ));
        assert_eq!(c.cwd.as_deref(), Some(dir.path()));
    }
}
