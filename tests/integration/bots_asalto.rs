//! Course-style bots playing real Asalto through the referee: the example bots' own rules
//! agree with the engine, and misbehaviour is adjudicated the Asalto way (an illegal reply
//! loses the turn; a failure loses the game).

use crate::bots_common as common;

use arbiter::bots::spec::{BotSpec, CommandSpec};
use arbiter::bots::{open_player, python::course_command};
use arbiter::games::asalto::Asalto;
use arbiter::record::GameRecord;
use arbiter::referee::{MatchConfig, play_game};
use common::*;
use std::path::PathBuf;
use std::time::Duration;

fn bot(path: &str) -> CommandSpec {
    course_command(&python_dir().join("examples").join(path), None)
}

fn play(rebel: CommandSpec, officer: CommandSpec, rounds: u32, seed: u64) -> GameRecord {
    let (mut a, ga) = Watched::new(rebel);
    let (mut b, gb) = Watched::new(officer);
    let config = MatchConfig {
        move_limit: Duration::from_millis(2000),
        init_limit: Duration::from_secs(10),
        seed,
        ..MatchConfig::default()
    };
    let record = play_game(
        &Asalto {
            round_limit: rounds,
        },
        [&mut a, &mut b],
        ["rebel-bot", "officer-bot"],
        &config,
        &mut |_| {},
    );
    for pgid in [ga, gb] {
        if let Some(pgid) = *pgid.lock().unwrap() {
            assert_group_gone(pgid);
        }
    }
    record
}

#[test]
fn the_example_bots_only_play_moves_the_engine_accepts() {
    for (rebel, officer) in [
        ("random_bot.py", "greedy_bot.py"),
        ("greedy_bot.py", "random_bot.py"),
    ] {
        let record = play(bot(rebel), bot(officer), 60, 1);
        // A bot with a legal move plays one; a bot without (blocked rebels happen in
        // these games) is asked all the same and answers None, an illegal move.
        let has_move = crate::common::asalto_turns_with_a_legal_move(&record);
        let mut stuck = 0;
        for (m, has_move) in record.moves.iter().zip(has_move) {
            let want = if has_move { "move" } else { "illegal" };
            assert_eq!(m.verdict, want, "{rebel} vs {officer}: {m:?}");
            stuck += u32::from(!has_move);
        }
        assert_eq!(record.illegal["rebel"] + record.illegal["officer"], stuck);
        assert!(record.plies > 0);
    }
}

#[test]
fn tuples_prints_and_helper_modules_are_fine_in_a_real_game() {
    let record = play(
        bot("misbehaving/tuple_bot.py"),
        bot("misbehaving/noisy_bot.py"),
        15,
        2,
    );
    assert!(
        record.moves.iter().all(|m| m.verdict == "move"),
        "{:?}",
        record.moves
    );
}

#[test]
fn non_moves_lose_the_turn_and_the_game_goes_on() {
    let record = play(
        bot("misbehaving/bad_returns_bot.py"),
        bot("random_bot.py"),
        12,
        3,
    );
    assert_eq!(record.illegal["officer"], 0);
    assert!(record.illegal["rebel"] >= 9, "{:?}", record.illegal);
    assert!(
        record
            .moves
            .iter()
            .filter(|m| m.side == "rebel")
            .all(|m| m.verdict == "illegal"),
        "{:?}",
        record.moves
    );
}

#[test]
fn failures_lose_the_game_with_their_reason() {
    let cases = [
        ("misbehaving/raise_bot.py", "exception"),
        ("misbehaving/exit_early_bot.py", "crash"),
        ("misbehaving/bad_init_bot.py", "exception"),
    ];
    for (file, reason) in cases {
        let record = play(bot("random_bot.py"), bot(file), 60, 4);
        assert_eq!(record.reason, reason, "{file}: {record:?}");
        assert_eq!(record.winner.as_deref(), Some("rebel"), "{file}");
    }
}

#[test]
fn open_player_seats_every_kind_of_bot() {
    let game = Asalto::default();
    let err = open_player(&BotSpec::Builtin("nosuch".into()), &game)
        .err()
        .expect("unknown builtin");
    assert!(err.contains("nosuch"), "{err}");
    for name in ["random", "greedy", "alphabeta"] {
        assert!(err.contains(name), "{err}");
    }
    let file: PathBuf = python_dir().join("examples/random_bot.py");
    let spec = BotSpec::parse(&file.to_string_lossy()).unwrap();
    let mut rebel = open_player(&spec, &game).unwrap();
    let mut officer = open_player(&spec, &game).unwrap();
    let record = play_game(
        &Asalto { round_limit: 5 },
        [rebel.as_mut(), officer.as_mut()],
        ["a", "b"],
        &MatchConfig::default(),
        &mut |_| {},
    );
    assert_eq!(record.illegal["rebel"] + record.illegal["officer"], 0);
    assert!(record.plies > 0);
}

/// A full-length game (1000 rounds at most) between the example bots: slow-ish, so
/// opt-in (`cargo test --test bots_asalto -- --ignored`).
#[test]
#[ignore]
fn a_full_length_game_between_the_example_bots() {
    let started = std::time::Instant::now();
    let record = play(bot("random_bot.py"), bot("random_bot.py"), 1000, 9);
    eprintln!(
        "{} plies, {} ({:?}) in {:?}",
        record.plies,
        record.reason,
        record.winner,
        started.elapsed()
    );
    // Only a side without a legal move replies illegally (None).
    let stuck = crate::common::asalto_turns_with_a_legal_move(&record)
        .into_iter()
        .filter(|has_move| !has_move)
        .count() as u32;
    assert_eq!(record.illegal["rebel"] + record.illegal["officer"], stuck);
}
