//! Course-style Python bots, run through an adapter that speaks the protocol on the bot's
//! behalf: Asalto bots (`TeamXX.py` with a `Player` class) through
//! bots/python/course_adapter.py, Hinger agents (`a3_agent.py` with an `Agent` class, next
//! to its `a1_state.py`) through bots/python/hinger_adapter.py. `adapter_for` picks one
//! from the game and the file's name.

mod code;

use super::spec::CommandSpec;
pub use super::spec::is_agent_file;
use std::path::{Path, PathBuf};

/// The adapter's source, embedded so that no file needs to be found at run time.
pub(crate) const COURSE_ADAPTER: &str = include_str!("../../bots/python/course_adapter.py");

/// The Hinger agent adapter's source, embedded likewise.
pub(crate) const HINGER_ADAPTER: &str = include_str!("../../bots/python/hinger_adapter.py");

/// The environment variable that chooses the search mode a Hinger agent is asked for
/// (`agent.move(state, mode)`); `alphabeta` when unset.
pub const HINGER_MODE_VAR: &str = "ARBITER_HINGER_MODE";

/// Which adapter runs a course Python file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Adapter {
    /// Asalto's `Player` class: [`course_command`].
    Course,
    /// Hinger's `Agent` class: [`hinger_command`].
    Hinger,
}

/// The adapter for a course Python file in the game named `game`: Hinger's for every file
/// when the game is Hinger, Asalto's for every file when it is Asalto, and otherwise by
/// the file's name (see [`is_agent_file`]).
pub(crate) fn adapter_for(game: &str, file: &Path) -> Adapter {
    match game {
        "hinger" => Adapter::Hinger,
        "asalto" => Adapter::Course,
        _ if is_agent_file(file) => Adapter::Hinger,
        _ => Adapter::Course,
    }
}

/// The command for a course Python file in the game named `game`.
pub fn command_for(game: &str, file: &Path, python: Option<&str>) -> CommandSpec {
    match adapter_for(game, file) {
        Adapter::Course => course_command(file, python),
        Adapter::Hinger => hinger_command(file, python),
    }
}

/// The interpreter used when none is given and `ARBITER_PYTHON` is not set.
pub(crate) const DEFAULT_PYTHON: &str = "python3";
/// Names the interpreter for `.py` bots given none (`--python` or a bot's `python`).
pub const PYTHON_VAR: &str = "ARBITER_PYTHON";

/// The interpreter for a `.py` bot given none: `$ARBITER_PYTHON` where set, else `python3`
/// from PATH.
pub fn default_python() -> String {
    std::env::var(PYTHON_VAR)
        .ok()
        .filter(|p| !p.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_PYTHON.to_string())
}

/// The command that runs the course bot `file`: `python3 -u -c <adapter> <file>` in the
/// file's folder (course bots open data files relative to themselves).
pub fn course_command(file: &Path, python: Option<&str>) -> CommandSpec {
    adapter_command(COURSE_ADAPTER, file, python)
}

/// The command that runs the Hinger agent `file` (an `a3_agent.py` whose folder holds its
/// `a1_state.py`): `python3 -u -c <hinger adapter> <file>` in the file's folder. The agent
/// is asked for the mode in `$ARBITER_HINGER_MODE` (default `alphabeta`).
pub(crate) fn hinger_command(file: &Path, python: Option<&str>) -> CommandSpec {
    adapter_command(HINGER_ADAPTER, file, python)
}

fn adapter_command(adapter: &'static str, file: &Path, python: Option<&str>) -> CommandSpec {
    let file = absolute(file);
    let python = python.map_or_else(default_python, str::to_string);
    let mut command = CommandSpec::new(&python)
        .arg("-u")
        .arg("-c")
        .arg(code::program(adapter, &python))
        .arg(file.to_string_lossy().into_owned());
    command.cwd = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .map(Path::to_path_buf);
    // Bots run from a shared folder must not litter it with __pycache__ folders.
    command
        .env
        .insert("PYTHONDONTWRITEBYTECODE".into(), "1".into());
    command
        .env
        .insert("PYTHONIOENCODING".into(), "utf-8".into());
    command
}

fn absolute(file: &Path) -> PathBuf {
    std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_the_embedded_adapter_in_the_bots_folder() {
        let c = course_command(Path::new("/league/bots/Team07.py"), None);
        assert_eq!(c.program, "python3");
        assert_eq!(c.args[0], "-u");
        assert_eq!(c.args[1], "-c");
        // The adapter's program: a loader of its compiled code, or its source.
        assert_eq!(c.args[2], code::program(COURSE_ADAPTER, "python3"));
        assert_eq!(c.args[3], "/league/bots/Team07.py");
        assert_eq!(c.cwd.as_deref(), Some(Path::new("/league/bots")));
        let c = course_command(Path::new("Team07.py"), Some("python3.12"));
        assert_eq!(c.program, "python3.12");
        assert!(Path::new(&c.args[3]).is_absolute());
        assert!(c.cwd.is_some());
    }

    #[test]
    fn the_game_and_the_file_name_choose_the_adapter() {
        let agent = Path::new("/t/team07/a3_agent.py");
        let team = Path::new("/t/Team07.py");
        assert_eq!(adapter_for("hinger", team), Adapter::Hinger);
        assert_eq!(adapter_for("hinger", agent), Adapter::Hinger);
        assert_eq!(adapter_for("asalto", agent), Adapter::Course);
        assert_eq!(adapter_for("asalto", team), Adapter::Course);
        assert_eq!(adapter_for("shapes", agent), Adapter::Hinger);
        assert_eq!(adapter_for("shapes", team), Adapter::Course);
        assert!(is_agent_file(Path::new("A3_Agent_final.py")));
        assert!(!is_agent_file(Path::new("a3_agent.txt")));
        let c = command_for("hinger", agent, None);
        assert_eq!(c.args[2], code::program(HINGER_ADAPTER, "python3"));
        assert_eq!(c.cwd.as_deref(), Some(Path::new("/t/team07")));
        let course = command_for("asalto", team, None).args[2].clone();
        assert_eq!(course, code::program(COURSE_ADAPTER, "python3"));
        assert_ne!(course, c.args[2]);
    }
}
