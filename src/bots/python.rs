//! Course-style Python bots (`TeamXX.py` with a `Player` class), run through the adapter in
//! bots/python/course_adapter.py, which speaks the protocol on the bot's behalf.

use super::spec::CommandSpec;
use std::path::{Path, PathBuf};

/// The adapter's source, embedded so that no file needs to be found at run time.
pub const COURSE_ADAPTER: &str = include_str!("../../bots/python/course_adapter.py");

/// The interpreter used when none is given.
pub const DEFAULT_PYTHON: &str = "python3";

/// The command that runs the course bot `file`: `python3 -u -c <adapter> <file>` in the
/// file's folder (course bots open data files relative to themselves).
pub fn course_command(file: &Path, python: Option<&str>) -> CommandSpec {
    let file = absolute(file);
    let mut command = CommandSpec::new(python.unwrap_or(DEFAULT_PYTHON))
        .arg("-u")
        .arg("-c")
        .arg(COURSE_ADAPTER)
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
        assert!(c.args[2].contains("def main()"));
        assert_eq!(c.args[3], "/league/bots/Team07.py");
        assert_eq!(c.cwd.as_deref(), Some(Path::new("/league/bots")));
        let c = course_command(Path::new("Team07.py"), Some("python3.12"));
        assert_eq!(c.program, "python3.12");
        assert!(Path::new(&c.args[3]).is_absolute());
        assert!(c.cwd.is_some());
    }
}
