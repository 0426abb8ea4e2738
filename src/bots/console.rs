//! Console bots: a program run once per move, as the Advance course runs students' bots.
//!
//! Per move the referee writes the position as a board file (the game's
//! [`Game::board_file`]) to a fresh IN file in a private folder, runs
//! `COMMAND white|black IN OUT` in the bot's own folder through
//! [`super::process::once::run_once`] (process group, limits, sandbox, cgroup
//! and the final sweep as for protocol bots), reads OUT, and finds the legal move that
//! turns IN into OUT. Process start-up is part of the move's time.
//!
//! - no OUT, or an OUT that is not a board (wrong size, bad characters): `bad_output`;
//! - a board no legal move gives (OUT equal to IN among them): the reply is the board,
//!   which the game judges illegal;
//! - a non-zero exit or a signal: `crash` (or the limit it broke); past the move limit:
//!   `timeout`.
//!
//! `COMMAND name` gives the bot's display name; it is one of the program's runs like a move
//! (same group, cgroup, limits and sandbox), asked with a bounded wait when the bot is
//! named or at its first game (or graded case), and remembered for the rest of the run: a
//! suite of 200 positions otherwise ran every program twice a case. A failure there only
//! leaves the bot unnamed, and the name is asked again at its next game.

use super::process::once::{Exit, run_once, run_once_then};
use super::spec::{CommandSpec, Confinement, DEFAULT_BUILD_S, SandboxMode};
use super::{BotLog, EndInfo, Failure, FailureKind, Player, Reply, Setup, TurnReply};
use crate::games::Game;
use crate::jail::leftovers::private_folder;
use crate::untrusted::file::ReadBack;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

/// The longest wait for `COMMAND name`.
pub(crate) const NAME_LIMIT: Duration = Duration::from_secs(5);
/// How much of the bot's stderr is kept over a game: the last bytes.
const STDERR_BYTES: usize = 16 * 1024;

/// A console program seated as a player.
pub struct ConsolePlayer {
    command: CommandSpec,
    limit: Duration,
    name: Option<String>,
    stderr: String,
    moves: u32,
}

/// The names programs gave in this run: each program (command line, folder, environment
/// and confinement alike) is asked once.
static NAMES: Mutex<Vec<(CommandSpec, String)>> = Mutex::new(Vec::new());

fn known_name(command: &CommandSpec) -> Option<String> {
    let names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    names
        .iter()
        .find(|(known, _)| known == command)
        .map(|(_, name)| name.clone())
}

fn remember_name(command: &CommandSpec, name: &str) {
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if !names.iter().any(|(known, _)| known == command) {
        names.push((command.clone(), name.to_string()));
    }
}

/// The name `command` gives to `COMMAND name` (within [`NAME_LIMIT`]), unless this run has
/// it already; `None` when the program gives none in time (asked again next time).
pub(crate) fn name_of(command: &CommandSpec) -> Option<String> {
    name_within(command, NAME_LIMIT).ok()?.0
}

/// The name `command` gives, remembered from earlier in the run or asked now within
/// `limit` (and remembered), with what the run wrote on stderr.
fn name_within(
    command: &CommandSpec,
    limit: Duration,
) -> Result<(Option<String>, String), Failure> {
    if let Some(name) = known_name(command) {
        return Ok((Some(name), String::new()));
    }
    let (name, stderr) = ask_name(command, limit)?;
    if let Some(name) = &name {
        remember_name(command, name);
    }
    Ok((name, stderr))
}

/// Runs `COMMAND name` as one of the program's own runs (its process group, cgroup, limits
/// and sandbox, per `command.confine`), waiting `limit` at most: the first non-empty line
/// of its output, if it ran cleanly, and its stderr.
pub fn ask_name(
    command: &CommandSpec,
    limit: Duration,
) -> Result<(Option<String>, String), Failure> {
    let ran = run_once(&command.clone().arg("name"), None, limit, &[])?;
    if ran.failure(limit).is_some() {
        return Ok((None, ran.stderr));
    }
    let name = ran.stdout.lines().map(str::trim).find(|l| !l.is_empty());
    Ok((name.map(|n| n.chars().take(64).collect()), ran.stderr))
}

impl ConsolePlayer {
    /// Seats `command`, run once per move; its move limit comes with the game's setup.
    pub fn new(command: CommandSpec) -> ConsolePlayer {
        ConsolePlayer {
            command,
            limit: Duration::from_secs(10),
            name: None,
            stderr: String::new(),
            moves: 0,
        }
    }

    fn keep_stderr(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        self.stderr.push_str(text);
        if self.stderr.len() > 2 * STDERR_BYTES {
            let mut cut = self.stderr.len() - STDERR_BYTES;
            while !self.stderr.is_char_boundary(cut) {
                cut += 1;
            }
            self.stderr.drain(..cut);
        }
    }

    /// One move: the board file of `state` in, the move that gives the board out.
    fn play_once<G: Game>(&mut self, game: &G, state: &G::State) -> TurnReply<G::Move> {
        let failed = |kind, detail: String| TurnReply {
            reply: Reply::Failed(Failure::new(kind, detail)),
            elapsed: Duration::ZERO,
            waited: Duration::ZERO,
        };
        let Some(board) = game.board_file(state) else {
            let why = format!("{} has no board file for console bots", game.name());
            return failed(FailureKind::Spawn, why);
        };
        self.moves += 1;
        let folder = match private_folder("console", &std::env::temp_dir()) {
            Ok(f) => f,
            Err(e) => return failed(FailureKind::Spawn, format!("cannot make a folder: {e}")),
        };
        let input = folder.path().join("in.txt");
        let output = folder.path().join("out.txt");
        if let Err(e) = std::fs::write(&input, board) {
            return failed(FailureKind::Spawn, format!("cannot write the board: {e}"));
        }
        let side = game.side_to_move(state);
        let command = self
            .command
            .clone()
            .arg(game.role_name(side))
            .arg(input.to_string_lossy())
            .arg(output.to_string_lossy());
        let ran = match run_once(&command, Some(folder.path()), self.limit, &["out.txt"]) {
            Ok(ran) => ran,
            Err(failure) => {
                return TurnReply {
                    reply: Reply::Failed(failure),
                    elapsed: Duration::ZERO,
                    waited: Duration::ZERO,
                };
            }
        };
        self.keep_stderr(&ran.stderr);
        let elapsed = ran.elapsed;
        let reply = match ran.failure(self.limit) {
            Some(failure) => Reply::Failed(failure),
            None => match ran.outputs.first() {
                Some(ReadBack::Bytes(bytes)) => self.judge(game, state, bytes),
                Some(ReadBack::Refused(why)) => Reply::Failed(Failure::new(
                    FailureKind::BadOutput,
                    format!("the output file is not read: {why}"),
                )),
                Some(ReadBack::Missing) | None => Reply::Failed(Failure::new(
                    FailureKind::BadOutput,
                    "the program exited 0 without writing its output file",
                )),
            },
        };
        TurnReply {
            reply,
            elapsed,
            waited: ran.waited,
        }
    }

    fn judge<G: Game>(&self, game: &G, state: &G::State, bytes: &[u8]) -> Reply<G::Move> {
        let bad = |why: String| {
            Reply::Failed(Failure::new(
                FailureKind::BadOutput,
                format!("the output file is not a board: {why}"),
            ))
        };
        let Ok(text) = std::str::from_utf8(bytes) else {
            return bad("it is not UTF-8 text".into());
        };
        let after = game.side_to_move(state).other();
        match game.parse_board(text, after) {
            Err(e) if e.line == 0 => bad(e.message),
            Err(e) => bad(format!("line {}: {}", e.line, e.message)),
            Ok(target) => match game.move_to_reach(state, &target) {
                Some(mv) => Reply::Checked(mv),
                // The game says why: for Advance, no legal move gives this board.
                None => Reply::Wire(game.encode_board(&target)),
            },
        }
    }
}

impl<G: Game> Player<G> for ConsolePlayer {
    fn start(&mut self, game: &G, setup: &Setup) -> Result<Option<String>, Failure> {
        self.limit = setup.move_limit;
        self.stderr.clear();
        self.moves = 0;
        if game.board_file(&game.initial()).is_none() {
            return Err(Failure::new(
                FailureKind::Spawn,
                format!("{} has no board file for console bots", game.name()),
            ));
        }
        if self.name.is_none() {
            let (name, stderr) = name_within(&self.command, setup.init_limit.min(NAME_LIMIT))?;
            self.keep_stderr(&stderr);
            self.name = name;
        }
        Ok(self.name.clone())
    }

    fn turn(&mut self, game: &G, state: &G::State) -> TurnReply<G::Move> {
        self.play_once(game, state)
    }

    fn finish(&mut self, _end: &EndInfo) -> BotLog {
        BotLog {
            name: self.name.clone(),
            stderr: std::mem::take(&mut self.stderr),
            chatter: String::new(),
        }
    }
}

/// A built C# project: the command that runs it, and the private folder holding the build
/// (removed with it).
type Build = (
    CommandSpec,
    std::sync::Arc<crate::jail::leftovers::PrivateFolder>,
);

/// The C# projects built in this run, by folder and confinement: a folder is built once,
/// whatever the number of games it plays.
static BUILT: std::sync::Mutex<
    std::collections::BTreeMap<(std::path::PathBuf, String), Result<Build, String>>,
> = std::sync::Mutex::new(std::collections::BTreeMap::new());

/// Fits .NET's collector into a jailed bot's address space: by default it reserves far
/// more than it uses, and would not start under the cap.
fn dotnet_heap(command: &mut CommandSpec, confine: &Confinement) {
    if let Some(mb) = confine.effective_limits().memory_mb {
        let heap = (mb / 2).saturating_mul(1 << 20);
        command
            .env
            .insert("DOTNET_GCHeapHardLimit".into(), format!("{heap:#x}"));
    }
}

/// The most a build's output may hold.
const BUILD_BYTES: u64 = 256 << 20;

/// The console command of the C# project in `dir`: built once with `dotnet build -c
/// Release` like a bot's own run (its process group, limits, sandbox and cgroup, under
/// `confine`), killed at its deadline, into a private folder; then `dotnet NAME.dll` from
/// there, run in `dir`. The error says why there is no program.
pub(crate) fn build_project(dir: &Path, confine: Confinement) -> Result<CommandSpec, String> {
    let dir = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    let key = (dir.clone(), format!("{confine:?}"));
    // The lock is held over the build: parallel games wait for the one build.
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    built
        .entry(key)
        .or_insert_with(|| build_now(&dir, confine))
        .as_ref()
        .map(|(command, _)| command.clone())
        .map_err(Clone::clone)
}

/// The .NET program: `$ARBITER_DOTNET`, else `dotnet` from PATH (a sandboxed bot's PATH
/// holds the system folders only).
pub fn dotnet_program() -> String {
    std::env::var("ARBITER_DOTNET")
        .ok()
        .filter(|p| !p.is_empty())
        .unwrap_or_else(|| "dotnet".to_string())
}

/// Removes every build folder of this run.
pub fn remove_builds() {
    BUILT.lock().unwrap_or_else(|e| e.into_inner()).clear();
}

fn build_now(dir: &Path, confine: Confinement) -> Result<Build, String> {
    let project = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read `{}`: {e}", dir.display()))?
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "csproj"))
        .ok_or_else(|| format!("`{}` holds no *.csproj project", dir.display()))?;
    let stem = project
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let place = crate::jail::leftovers::private_folder("build", &std::env::temp_dir())
        .map_err(|e| format!("cannot make a folder for the build: {e}"))?;
    let (out, home) = (place.path().join("out"), place.path().join("home"));
    for folder in [&out, &home] {
        crate::untrusted::file::private_dir(folder)
            .map_err(|e| format!("cannot make a folder for the build: {e}"))?;
    }
    let limit = Duration::from_secs(confine.build_s.unwrap_or(DEFAULT_BUILD_S));
    let mut command = CommandSpec::new(dotnet_program())
        .arg("build")
        .arg(project.to_string_lossy())
        .arg("-c")
        .arg("Release")
        .arg("--nologo")
        .arg("-o")
        .arg(out.to_string_lossy());
    command.cwd = Some(dir.to_path_buf());
    command.confine = confine;
    dotnet_heap(&mut command, &confine);
    // Whatever the SDK keeps between builds goes into the build's own folder (the sandbox
    // points HOME at the bot's folder itself).
    for (key, value) in [
        ("HOME", home.to_string_lossy().into_owned()),
        ("DOTNET_CLI_HOME", home.to_string_lossy().into_owned()),
        ("DOTNET_CLI_TELEMETRY_OPTOUT", "1".into()),
        ("DOTNET_NOLOGO", "1".into()),
        ("DOTNET_SKIP_FIRST_TIME_EXPERIENCE", "1".into()),
        ("MSBUILDDISABLENODEREUSE", "1".into()),
    ] {
        if confine.sandbox == SandboxMode::None
            || key.starts_with("DOTNET_")
            || key.starts_with("MSBUILD")
        {
            command.env.insert(key.into(), value);
        }
    }
    // Under the sandbox the output folder is carried into the bot's folder (the argument
    // follows it), and its files are copied back out before the sandbox goes.
    let mut copied = Ok(());
    let sandboxed = confine.sandbox != SandboxMode::None;
    let ran = run_once_then(&command, Some(&out), limit, &[], |written| {
        if sandboxed {
            copied = copy_build(written, &out);
        }
    })
    .map_err(|f| {
        format!(
            "cannot build the C# project `{}`: {}; install the .NET SDK or name a built \
             program with console:COMMAND",
            project.display(),
            f.detail
        )
    })?;
    let log_tail = |text: &str| {
        let tail: Vec<&str> = text.lines().rev().take(15).collect();
        tail.into_iter().rev().collect::<Vec<_>>().join("\n")
    };
    match ran.exit {
        Exit::Success => {}
        Exit::TimedOut | Exit::MachineLate(_) => {
            return Err(format!(
                "the build of `{}` was still running after {} s and was killed \
                 (--build-limit-s, build_limit_s)",
                project.display(),
                limit.as_secs()
            ));
        }
        Exit::Failed(f) => {
            return Err(format!(
                "`dotnet build -c Release` failed in `{}` ({}):\n{}",
                dir.display(),
                f.detail,
                log_tail(&format!("{}{}", ran.stdout, ran.stderr))
            ));
        }
    }
    copied.map_err(|e| format!("cannot keep the build of `{}`: {e}", project.display()))?;
    let dll = out.join(format!("{stem}.dll"));
    if !dll.is_file() {
        return Err(format!(
            "the build of `{}` left no {stem}.dll",
            project.display()
        ));
    }
    let mut command = CommandSpec::new(dotnet_program()).arg(dll.to_string_lossy());
    command.cwd = Some(dir.to_path_buf());
    dotnet_heap(&mut command, &confine);
    command.carried.push(out);
    Ok((command, std::sync::Arc::new(place)))
}

/// Copies what a sandboxed build wrote (in the bot's folder, which it could have turned
/// into anything) into `out`.
fn copy_build(written: &Path, out: &Path) -> std::io::Result<()> {
    let is_folder = std::fs::symlink_metadata(written).is_ok_and(|m| m.is_dir());
    if !is_folder {
        return Err(std::io::Error::other("its output folder is not a folder"));
    }
    std::fs::remove_dir(out)?;
    crate::untrusted::file::copy_private_tree(written, out, BUILD_BYTES, &|_| false)?;
    Ok(())
}
