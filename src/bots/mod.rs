//! How a bot is reached: built-in engines in-process, or programs over the line protocol.
//!
//! Bot misbehaviour is data: every way a bot can fail is a [`Failure`] the referee
//! adjudicates, never a panic or an `Err` of the harness.

pub mod console;
pub mod inprocess;
pub mod java;
pub mod pipe;
pub mod process;
pub mod protocol;
pub mod python;
pub mod serve;
pub mod solver;
pub mod spec;

use crate::engines::Builtins;
use crate::games::{Game, Side};
use spec::{BotSpec, is_agent_file};
use std::time::Duration;

/// What a bot is told at the start of a game.
#[derive(Clone, Debug)]
pub struct Setup {
    /// The side this bot plays (its role in the game).
    pub side: Side,
    /// Time allowed for each move, from the turn written to the reply read.
    pub move_limit: Duration,
    /// Time allowed for the handshake, from `hello` written to `ready` read.
    pub init_limit: Duration,
    /// This seat's seed, derived from the game's: the two seats of a game get different ones.
    pub seed: u64,
}

/// The reason code of a game that the machine's load left without a result
/// ([`FailureKind::MachineLoad`]).
pub const MACHINE_LOAD: &str = "machine_load";

/// Why a bot lost outside the rules of the game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FailureKind {
    /// No reply within the move limit (or the handshake within the init limit).
    Timeout,
    /// EOF, exit or crash without a message.
    Crash,
    /// The bot reported an exception (`{"type":"error"}`).
    Exception,
    /// The bot could not be started at all (missing program, compile error).
    Spawn,
    /// A JSON object that breaks the protocol (a wrong `type` where a reply is due).
    Protocol,
    /// Ran out of its memory limit (an allocation failure it reported or died of).
    Memory,
    /// Used up its CPU-seconds limit (killed by SIGXCPU, or SIGKILL at the hard limit).
    Cpu,
    /// Wrote a file beyond its file-size limit (killed by SIGXFSZ).
    FileSize,
    /// A program run once per move left no output file, or one that is not a board.
    BadOutput,
    /// Used CPU time while it was frozen for its opponent's move ([`crate::clocks::freeze`]).
    RanWhileFrozen,
    /// No reply while the machine kept the bot from running ([`crate::clocks::runqueue`]): no fault
    /// of the bot's, and no result; a league plays the game again.
    MachineLoad,
}

impl FailureKind {
    /// The snake_case reason code a game record gives this failure (`timeout`, `crash`, ...).
    pub fn code(self) -> &'static str {
        match self {
            FailureKind::Timeout => "timeout",
            FailureKind::Crash => "crash",
            FailureKind::Exception => "exception",
            FailureKind::Spawn => "spawn_failed",
            FailureKind::Protocol => "protocol_error",
            FailureKind::Memory => "memory",
            FailureKind::Cpu => "cpu",
            FailureKind::FileSize => "file_size",
            FailureKind::BadOutput => "bad_output",
            FailureKind::RanWhileFrozen => "ran_while_frozen",
            FailureKind::MachineLoad => MACHINE_LOAD,
        }
    }
}

/// How a bot lost outside the rules, and what happened, for the game's record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// Which way it failed; gives the record's reason code.
    pub kind: FailureKind,
    /// What happened, in words (an exit status, a message, the limit broken).
    pub detail: String,
}

impl Failure {
    /// A failure of `kind`, described by `detail`.
    pub fn new(kind: FailureKind, detail: impl Into<String>) -> Self {
        Failure {
            kind,
            detail: detail.into(),
        }
    }
}

/// The failure of a bot that used `ran` of CPU time while it was frozen.
pub fn ran_while_frozen_failure(ran: std::time::Duration) -> Failure {
    Failure::new(
        FailureKind::RanWhileFrozen,
        format!(
            "used {} ms of CPU time while it was frozen for its opponent's move (it had \
             itself continued, or left work running in the kernel)",
            ran.as_millis()
        ),
    )
}

/// A bot's answer to one turn.
#[derive(Clone, Debug)]
pub enum Reply<M> {
    /// A move already checked against the position (in-process engines).
    Checked(M),
    /// Whatever JSON the bot put in its `move` field: the game parses and checks it.
    Wire(serde_json::Value),
    /// The bot lost outside the rules.
    Failed(Failure),
}

/// A bot's answer to one turn and the time it is charged for it.
#[derive(Clone, Debug)]
pub struct TurnReply<M> {
    /// The move, or how the bot failed.
    pub reply: Reply<M>,
    /// The time charged to the bot: from writing the turn to receiving the reply, on a
    /// monotonic clock, less what [`TurnReply::waited`] gave back and any pause of the run.
    pub elapsed: Duration,
    /// The time the machine kept the bot from running during the turn, given back to it
    /// ([`crate::clocks::runqueue`]): zero for most turns.
    pub waited: Duration,
}

/// What a bot left behind in one game: its stderr tail and skipped stdout chatter.
#[derive(Clone, Debug, Default)]
pub struct BotLog {
    /// The name the bot announced in `ready` (an engine's own name), if any.
    pub name: Option<String>,
    /// The last bytes of its stderr ([`process::STDERR_BYTES`] at most).
    pub stderr: String,
    /// The last bytes of the stdout lines that were not JSON objects, which were skipped.
    pub chatter: String,
}

/// How the game ended, as told to a bot in the `end` message.
#[derive(Clone, Debug)]
pub struct EndInfo {
    /// `win`, `loss` or `tie` from this bot's point of view.
    pub result: &'static str,
    /// The game's snake_case reason code (`fortress_full`, `timeout`, ...).
    pub reason: String,
}

/// One bot seat in one game.
pub trait Player<G: Game>: Send {
    /// Handshake: `hello` out, `ready` back within the init limit. Returns the name the
    /// bot announced, if any.
    fn start(&mut self, game: &G, setup: &Setup) -> Result<Option<String>, Failure>;
    /// One turn for the position `state` (this bot is the side to move).
    fn turn(&mut self, game: &G, state: &G::State) -> TurnReply<G::Move>;
    /// Tells the bot how the game ended, then makes sure nothing of it survives.
    fn finish(&mut self, end: &EndInfo) -> BotLog;
    /// Whether `start` and `finish` return at once, waiting for nothing (an engine in
    /// this process): the referee then calls them in turn rather than on a thread each.
    fn in_process(&self) -> bool {
        false
    }
    /// Moves the bot's processes onto the game's CPU, beside the referee (see
    /// [`crate::clocks::placement`]); from then on the bot must not spin while it waits, as it
    /// would take the CPU from the side it waits for. False when there is nothing to move.
    fn place(&mut self, _placement: &crate::clocks::placement::Placement) -> bool {
        false
    }
    /// The bot's processes as one group to stop while the other side is to move
    /// ([`crate::clocks::freeze`]); `None` for a bot with no process between its turns.
    fn freezer(&self) -> Option<crate::clocks::freeze::Freezer> {
        None
    }
    /// Takes on freezing `opponent` once a turn of this bot has lasted
    /// [`crate::clocks::freeze::LAZY`], until the game's end: true when it does (a bot whose
    /// turns wait in arbiter's own loop); else the referee freezes the opponent as each of
    /// this bot's turns begins.
    fn freeze_when_slow(&mut self, _opponent: crate::clocks::freeze::Freezer) -> bool {
        false
    }
}

/// The name a bot goes by when none is given: a console program's answer to `COMMAND
/// name`, else the name derived from the spec. The program is asked as it will be seated
/// (in `cwd`, with `env`, under `confine`: a student's program runs nowhere else), once a
/// run: its games find the answer remembered.
pub fn display_name(
    spec: &BotSpec,
    cwd: Option<&std::path::Path>,
    env: &std::collections::BTreeMap<String, String>,
    confine: spec::Confinement,
) -> String {
    if let BotSpec::Console(command) = spec
        && let Some(name) = console::name_of(&seat_command(command.clone(), cwd, env, confine))
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || " _-.+()".contains(c))
    {
        return name;
    }
    default_name(spec)
}

/// A bot's short default name: the builtin's name, the file stem (a Java bot's player class; for
/// a Hinger `a3_agent.py`, whose name every team shares, its folder's name), or the
/// program's stem.
pub fn default_name(spec: &BotSpec) -> String {
    fn stem(p: &std::path::Path) -> String {
        p.file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
    match spec {
        BotSpec::Builtin(name) => name.clone(),
        BotSpec::CoursePython { file, .. } if is_agent_file(file) => std::path::absolute(file)
            .ok()
            .and_then(|f| {
                f.parent()?
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
            })
            .unwrap_or_else(|| stem(file)),
        BotSpec::CoursePython { file, .. } => stem(file),
        BotSpec::CourseJava { file } => java::default_name(file),
        BotSpec::ConsoleProject(dir) => std::path::absolute(dir)
            .ok()
            .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| "console".into()),
        BotSpec::Command(c) | BotSpec::Console(c) => {
            // `python3 bot.py` is named after the script, not the interpreter;
            // `arbiter bot greedy` after the program and its last word.
            let last = c.args.iter().rev().find(|a| !a.starts_with('-'));
            match last {
                Some(a) if a.contains('.') || a.contains('/') => stem(a.as_ref()),
                Some(a) if a.chars().all(|ch| ch.is_alphanumeric() || ch == '_') => {
                    format!("{}-{a}", stem(c.program.as_ref()))
                }
                _ => stem(c.program.as_ref()),
            }
        }
    }
}

/// A program's command as seated: under `confine`, in `cwd` when given, with `env` added.
fn seat_command(
    mut command: spec::CommandSpec,
    cwd: Option<&std::path::Path>,
    env: &std::collections::BTreeMap<String, String>,
    confine: spec::Confinement,
) -> spec::CommandSpec {
    command.confine = confine;
    if let Some(dir) = cwd {
        command.cwd = Some(dir.to_path_buf());
    }
    command
        .env
        .extend(env.iter().map(|(k, v)| (k.clone(), v.clone())));
    command
}

/// Seats the bot `spec` names: a built-in engine in-process, anything else as a subprocess
/// (started by [`Player::start`]). An unknown built-in name is an error listing the valid ones.
pub fn open_player<G: Builtins>(spec: &BotSpec, game: &G) -> Result<Box<dyn Player<G>>, String> {
    open_player_in(
        spec,
        game,
        None,
        &std::collections::BTreeMap::new(),
        spec::Confinement::default(),
    )
}

/// [`open_player`], with a working directory, extra environment, and resource limits and
/// isolation for a program (a built-in engine runs in-process and ignores all three).
pub fn open_player_in<G: Builtins>(
    spec: &BotSpec,
    game: &G,
    cwd: Option<&std::path::Path>,
    env: &std::collections::BTreeMap<String, String>,
    confine: spec::Confinement,
) -> Result<Box<dyn Player<G>>, String> {
    let seat = |command| seat_command(command, cwd, env, confine);
    let program =
        |command| -> Box<dyn Player<G>> { Box::new(process::ProcessPlayer::new(seat(command))) };
    let console =
        |command| -> Box<dyn Player<G>> { Box::new(console::ConsolePlayer::new(seat(command))) };
    match spec {
        BotSpec::Builtin(name) => {
            let names = game.builtin_names();
            if !names.contains(&name.as_str()) {
                return Err(format!(
                    "unknown built-in bot `{name}` for {}: expected one of {}",
                    game.name(),
                    names.join(", ")
                ));
            }
            let game = game.clone();
            let engine_name = name.clone();
            Ok(Box::new(inprocess::InProcess::seeded(
                name.clone(),
                Box::new(move |seed| game.builtin(&engine_name, seed)),
            )))
        }
        // The adapter depends on the game: Asalto's `Player` or Hinger's `Agent`.
        BotSpec::CoursePython { file, python } => Ok(program(python::command_for(
            game.name(),
            file,
            python.as_deref(),
        ))),
        BotSpec::CourseJava { file } => Ok(Box::new(
            java::JavaPlayer::new(file, cwd, env).confined(confine),
        )),
        BotSpec::Command(command) => Ok(program(command.clone())),
        BotSpec::Console(command) => Ok(console(command.clone())),
        BotSpec::ConsoleProject(dir) => Ok(console(console::build_project(dir, confine)?)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_names_come_from_the_file() {
        assert_eq!(
            default_name(&BotSpec::parse("builtin:greedy").unwrap()),
            "greedy"
        );
        assert_eq!(
            default_name(&BotSpec::parse("python3 bots/x/Team07.py").unwrap()),
            "Team07"
        );
        assert_eq!(
            default_name(&BotSpec::parse("./target/release/mybot --fast").unwrap()),
            "mybot"
        );
        assert_eq!(
            default_name(&BotSpec::parse("arbiter bot greedy").unwrap()),
            "arbiter-greedy"
        );
    }

    #[test]
    fn course_files_are_detected_and_named() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let java = root.join("bots/java/examples/Player123456789.java");
        let spec = BotSpec::parse(&java.to_string_lossy()).unwrap();
        assert_eq!(spec, BotSpec::CourseJava { file: java });
        assert_eq!(default_name(&spec), "Player123456789");
        let agent = root.join("bots/python/examples/hinger/a3_agent.py");
        let spec = BotSpec::parse(&agent.to_string_lossy()).unwrap();
        assert!(matches!(spec, BotSpec::CoursePython { .. }));
        assert_eq!(default_name(&spec), "hinger");
    }
}
