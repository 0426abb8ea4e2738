//! Course-style Python Hinger agents (`a3_agent.py` + `a1_state.py`) through the embedded
//! Hinger adapter: the example agent plays whole games against every built-in engine in
//! both seats, from random starts; misbehaving agents get their verdicts; the adapter is
//! chosen by the game; no process outlives its game.

use crate::bots_common as common;

use arbiter::bots::inprocess::InProcess;
use arbiter::bots::python::{self, HINGER_MODE_VAR};
use arbiter::bots::spec::{BotSpec, CommandSpec};
use arbiter::bots::{Player, open_player_in};
use arbiter::engines::Builtins;
use arbiter::games::hinger::Hinger;
use arbiter::record::GameRecord;
use arbiter::referee::{MatchConfig, play_game};
use common::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn examples() -> PathBuf {
    python_dir().join("examples/hinger")
}

fn agent() -> PathBuf {
    examples().join("a3_agent.py")
}

fn misbehaving(name: &str) -> PathBuf {
    examples().join("misbehaving").join(name)
}

fn command(file: &Path) -> CommandSpec {
    python::command_for("hinger", file, None)
}

fn builtin(game: &Hinger, name: &str) -> InProcess<Hinger> {
    let (game, engine) = (game.clone(), name.to_string());
    InProcess::seeded(name, Box::new(move |seed| game.builtin(&engine, seed)))
        .with_budget_fraction(0.02)
}

fn config(seed: u64, start: u64) -> MatchConfig {
    MatchConfig {
        move_limit: Duration::from_secs(3),
        init_limit: Duration::from_secs(10),
        seed,
        start,
        ..MatchConfig::default()
    }
}

/// Plays an agent program against a built-in engine; `agent_first` seats the agent first.
/// Checks that the agent left no process behind.
fn play_agent(
    game: &Hinger,
    agent: CommandSpec,
    engine: &str,
    agent_first: bool,
    start: u64,
) -> GameRecord {
    let (mut bot, pgid) = Watched::new(agent);
    let mut engine = builtin(game, engine);
    let players: [&mut dyn Player<Hinger>; 2] = if agent_first {
        [&mut bot, &mut engine]
    } else {
        [&mut engine, &mut bot]
    };
    let record = play_game(
        game,
        players,
        ["first-bot", "second-bot"],
        &config(start + 100, start),
        &mut |_| {},
    );
    if let Some(pgid) = *pgid.lock().unwrap() {
        assert_group_gone(pgid);
    }
    record
}

/// A board of piles of 2: nothing can be a hinger for the first few moves.
fn calm() -> Hinger {
    Hinger::new(vec![vec![2; 3]; 3]).unwrap()
}

#[test]
fn the_example_agent_plays_whole_games_against_every_builtin_in_both_seats() {
    let game = Hinger::random_starts(4, 5, 0.7, 21).unwrap();
    let mut start = 0;
    for name in game.builtin_names() {
        for agent_first in [true, false] {
            let record = play_agent(&game, command(&agent()), name, agent_first, start);
            let seat = if agent_first { "first" } else { "second" };
            let context = format!("vs {name}, agent {seat}, start {start}: {record:?}");
            assert!(
                ["hinger", "all_removed"].contains(&record.reason.as_str()),
                "{context}"
            );
            assert!(
                record.moves.iter().all(|m| m.verdict == "move"),
                "{context}"
            );
            assert_eq!(
                record.logs[seat].announced_name.as_deref(),
                Some("hinger"),
                "{context}"
            );
            assert!(record.logs[seat].chatter.is_empty(), "{context}");
            start += 1;
        }
    }
}

#[test]
fn the_mode_comes_from_the_environment_and_prints_stay_off_the_protocol() {
    // A full 3 x 3 block has no hinger: the agent has to think on its first move.
    let game = Hinger::new(vec![vec![1; 3]; 3]).unwrap();
    for mode in ["minimax", "alphabeta"] {
        let mut agent = command(&agent());
        agent.env.insert(HINGER_MODE_VAR.into(), mode.into());
        let record = play_agent(&game, agent, "greedy", true, 0);
        assert!(
            record.moves.iter().all(|m| m.verdict == "move"),
            "{record:?}"
        );
        let log = &record.logs["first"];
        assert!(
            log.stderr.contains(&format!("thinking in {mode} mode")),
            "{}",
            log.stderr
        );
        assert!(log.chatter.is_empty(), "{}", log.chatter);
    }
}

#[test]
fn a_none_move_is_an_illegal_move_that_loses() {
    let record = play_agent(
        &calm(),
        command(&misbehaving("a3_agent_none.py")),
        "random",
        true,
        0,
    );
    assert_eq!(record.reason, "illegal_move", "{record:?}");
    assert_eq!(record.winner.as_deref(), Some("second"));
    let last = record.moves.last().unwrap();
    assert_eq!((last.ply, last.verdict.as_str()), (2, "illegal"));
    assert_eq!(last.reply, serde_json::Value::Null);
    assert_eq!(last.reason.as_deref(), Some("wrong_shape"));
}

#[test]
fn float_coordinates_are_not_integers() {
    let record = play_agent(
        &calm(),
        command(&misbehaving("a3_agent_float.py")),
        "random",
        false,
        0,
    );
    assert_eq!(record.reason, "illegal_move", "{record:?}");
    assert_eq!(record.winner.as_deref(), Some("first"));
    let last = record.moves.last().unwrap();
    assert_eq!(last.ply, 1);
    assert_eq!(last.reason.as_deref(), Some("not_integers"));
}

#[test]
fn an_agent_that_raises_loses_by_exception_with_the_traceback() {
    let record = play_agent(
        &calm(),
        command(&misbehaving("a3_agent_raise.py")),
        "random",
        false,
        0,
    );
    assert_eq!(record.reason, "exception", "{record:?}");
    assert_eq!(record.winner.as_deref(), Some("first"));
    // The second seat's second turn is ply 3.
    assert_eq!(record.plies, 4);
    let detail = record.detail.unwrap_or_default();
    assert!(detail.contains("Traceback"), "{detail}");
    assert!(
        detail.contains("ValueError: deliberate failure on move 2"),
        "{detail}"
    );
}

#[test]
fn extra_items_after_the_cell_are_dropped() {
    let game = Hinger::random_starts(3, 4, 0.8, 5).unwrap();
    for agent_first in [true, false] {
        let record = play_agent(
            &game,
            command(&misbehaving("a3_agent_triple.py")),
            "random",
            agent_first,
            3,
        );
        assert!(
            ["hinger", "all_removed"].contains(&record.reason.as_str()),
            "{record:?}"
        );
        assert!(
            record.moves.iter().all(|m| m.verdict == "move"),
            "{record:?}"
        );
    }
}

/// Copies the example agent into a fresh folder under `agent_name` (with or without its
/// a1_state.py).
fn copied_agent(agent_name: &str, with_state: bool) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join(agent_name);
    std::fs::copy(agent(), &file).unwrap();
    if with_state {
        std::fs::copy(
            examples().join("a1_state.py"),
            dir.path().join("a1_state.py"),
        )
        .unwrap();
    }
    (dir, file)
}

/// Plays the bot `spec` seated by `open_player_in` for `game` against a built-in engine;
/// checks that no process naming `marker` is left.
fn play_seated(game: &Hinger, spec: &BotSpec, marker: &Path) -> GameRecord {
    let mut bot = open_player_in(spec, game, None, &BTreeMap::new(), Default::default()).unwrap();
    let mut engine = builtin(game, "greedy");
    let record = play_game(
        game,
        [bot.as_mut(), &mut engine],
        ["agent", "greedy"],
        &config(1, 0),
        &mut |_| {},
    );
    drop(bot);
    assert_no_process_with(&marker.to_string_lossy());
    record
}

#[test]
fn any_python_file_in_a_hinger_game_runs_through_the_hinger_adapter() {
    // Not named like an agent: in a Hinger game it is one all the same.
    let (dir, file) = copied_agent("team07_bot.py", true);
    let spec = BotSpec::parse(&file.to_string_lossy()).unwrap();
    assert!(matches!(spec, BotSpec::CoursePython { .. }));
    let record = play_seated(&calm(), &spec, dir.path());
    assert!(
        ["hinger", "all_removed"].contains(&record.reason.as_str()),
        "{record:?}"
    );
    assert!(
        record.moves.iter().all(|m| m.verdict == "move"),
        "{record:?}"
    );
    let folder = dir.path().file_name().unwrap().to_string_lossy();
    assert_eq!(
        record.logs["first"].announced_name.as_deref(),
        Some(folder.as_ref())
    );
}

#[test]
fn an_agent_without_its_state_module_fails_at_the_handshake() {
    let (dir, file) = copied_agent("a3_agent.py", false);
    let spec = BotSpec::parse(&file.to_string_lossy()).unwrap();
    let record = play_seated(&calm(), &spec, dir.path());
    assert_eq!(record.reason, "exception", "{record:?}");
    assert_eq!(record.winner.as_deref(), Some("second"));
    assert_eq!(record.plies, 0);
    let detail = record.detail.unwrap_or_default();
    assert!(detail.contains("no a1_state.py next to"), "{detail}");
}
