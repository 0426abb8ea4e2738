//! The compact line read back: real and odd records exactly, damaged and crafted lines
//! refused with what is wrong.

use super::*;
use crate::bots::spec::BotSpec;
use crate::engines::Builtins;
use crate::record::Waited;
use crate::referee::{MatchConfig, play_game};
use proptest::prelude::*;
use serde_json::json;
use std::io::Write;
use std::time::Duration;

/// What a record reads back as: itself, its times to the microsecond.
fn as_kept(record: &GameRecord) -> GameRecord {
    let mut kept = record.clone();
    keep_times(&mut kept);
    kept
}

fn assert_round_trips(id: u64, record: &GameRecord) {
    let line = encode(id, record);
    assert!(!line.contains('\n'), "a line holds no newline: {line}");
    let (read_id, read) =
        decode(line.as_bytes()).unwrap_or_else(|e| panic!("{e}: the line {line}"));
    assert_eq!(read_id, id, "the game id");
    assert_eq!(read, as_kept(record), "the record read back from {line}");
    // Reading back is exact from then on: a decoded record encodes to the same line.
    assert_eq!(encode(id, &read), line, "a read record encodes the same");
}

fn play<G: Builtins>(game: &G, bots: [&str; 2], seed: u64) -> GameRecord {
    let open = |name: &str| {
        crate::bots::open_player(&BotSpec::parse(&format!("builtin:{name}")).unwrap(), game)
            .unwrap()
    };
    let (mut first, mut second) = (open(bots[0]), open(bots[1]));
    let config = MatchConfig {
        move_limit: Duration::from_secs(10),
        init_limit: Duration::from_secs(10),
        seed,
        start: seed,
        opening: Vec::new(),
        ..MatchConfig::default()
    };
    play_game(
        game,
        [first.as_mut(), second.as_mut()],
        bots,
        &config,
        &mut |_| {},
    )
}

/// Games of every game's built-in bots, both ways round, a few seeds each.
fn real_records() -> Vec<GameRecord> {
    use crate::games::{advance::Advance, asalto::Asalto, battle, gomoku::Gomoku, hinger};
    let mut records = Vec::new();
    for seed in 0..3 {
        for bots in [["random", "greedy"], ["greedy", "random"]] {
            records.push(play(&Advance, bots, seed));
            records.push(play(&Asalto::default(), bots, seed));
            records.push(play(&Gomoku, bots, seed));
            let hinger = hinger::Hinger::random_starts(4, 5, 0.6, seed).unwrap();
            records.push(play(&hinger, bots, seed));
            let armies = battle::Battle::random(battle::RandomArmies::default(), seed);
            records.push(play(&armies.unwrap(), bots, seed));
        }
    }
    records
}

/// A real record changed into every odd case a journal must keep: illegal replies,
/// huffs, failures with reasons and details, logs, and replies of any JSON shape.
fn odd_records(base: &GameRecord) -> Vec<GameRecord> {
    let roles = base.roles.clone();
    let mv =
        |ply: u32, side: usize, reply: Value, verdict: &str, reason: Option<&str>| MoveRecord {
            ply,
            side: roles[side].clone(),
            reply,
            verdict: verdict.into(),
            reason: reason.map(String::from),
            time_ms: 0.000_4 + f64::from(ply) * 12.345_678,
        };
    let mut illegal = base.clone();
    illegal.moves.push(mv(
        90,
        0,
        json!([[9, 9], [10, 10]]),
        "illegal",
        Some("off_board"),
    ));
    illegal.moves.push(mv(91, 0, json!("e2e4"), "huff", None));
    // A side that moves twice and a ply that goes back: nothing is assumed of order.
    illegal
        .moves
        .push(mv(91, 0, Value::Null, "failed", Some("timeout")));
    illegal.moves.push(mv(3, 1, json!(null), "move", None));
    illegal.reason = "illegal_move".into();
    illegal.detail = Some("Traceback (most recent call last):\n  File \"/b/Bot.py\", line 3\nValueError: ünïcödé 😀\n".into());
    illegal.illegal.insert(roles[0].clone(), 7);
    illegal.winner = None;
    // A record written before the game's wall time was kept.
    illegal.duration_ms = None;

    let mut odd = base.clone();
    odd.moves = vec![
        mv(
            0,
            0,
            json!({"b": {"nested": [1, {"deep": true}]}, "a": -0.5}),
            "move",
            None,
        ),
        mv(1, 1, json!(18_446_744_073_709_551_615u64), "move", None),
        mv(2, 0, json!(-9_223_372_036_854_775_808i64), "move", None),
        mv(3, 1, json!(1.0e300), "move", None),
        mv(4, 0, json!(5e-324), "illegal", Some("wrong_shape")),
        mv(
            5,
            1,
            json!("\u{0}\u{1f}\"\\ \u{2028} 日本"),
            "illegal",
            Some("not_a_move"),
        ),
        mv(6, 0, json!([]), "move", None),
        mv(7, 1, json!({}), "move", None),
        mv(8, 0, json!(""), "failed", Some("crash")),
    ];
    odd.moves[8].time_ms = 3_600_000.0;
    // Kept to the microsecond, as a move's time.
    odd.duration_ms = Some(3_600_012.345_678_9);
    odd.logs.insert(
        roles[0].clone(),
        BotLogRecord {
            announced_name: Some("Team 05 — Ä".into()),
            stderr: "line 1\nline 2\r\n\u{0}".into(),
            chatter: "hello\n".repeat(100),
        },
    );
    odd.logs.insert(roles[1].clone(), BotLogRecord::default());
    odd.start_board = json!({"cells": [[0, 1], [2, 3]], "to_move": "x"});
    odd.opening = json!([[1, 2], [3, 4]]);
    odd.final_board = Value::Null;

    let mut empty = base.clone();
    empty.moves.clear();
    empty.reason = "spawn_failed".into();
    empty.detail = Some(String::new());
    empty.players.clear();
    empty.roles.clear();
    empty.illegal.clear();
    empty.seed = u64::MAX;
    empty.start = u64::MAX;
    empty.rounds = u32::MAX;
    empty.plies = MAX_PLIES;

    let mut late = base.clone();
    for m in &mut late.moves {
        m.ply += u32::MAX - 200;
    }
    let mut odd_ones = vec![illegal, odd, empty, late];
    // Moves were added: the turns count them, as the referee's would.
    for record in &mut odd_ones {
        record.plies = record.plies.max(record.moves.len() as u32);
    }
    odd_ones
}

#[test]
fn every_field_of_real_and_odd_records_reads_back_exactly() {
    let records = real_records();
    let mut verdicts = std::collections::BTreeSet::new();
    for (i, record) in records.iter().enumerate() {
        verdicts.extend(record.moves.iter().map(|m| m.verdict.clone()));
        assert_round_trips(i as u64, record);
        for odd in odd_records(record) {
            assert_round_trips(u64::MAX - i as u64, &odd);
        }
    }
    assert!(
        verdicts.contains("move"),
        "real games were played: {verdicts:?}"
    );
}

#[test]
fn times_are_kept_to_the_nearest_microsecond() {
    assert_eq!(time_us(0.0004), 0);
    assert_eq!(time_us(0.0005), 1);
    assert_eq!(time_us(12.3456), 12_346);
    assert_eq!(time_us(-1.0), 0);
    assert_eq!(time_us(f64::NAN), 0);
    assert_eq!(time_us(3_600_000.0), 3_600_000_000);
}

#[test]
fn a_damaged_packed_field_is_an_error_naming_what_is_wrong() {
    let record = real_records().swap_remove(1);
    let line = encode(4, &record);
    let value: Value = serde_json::from_str(&line).unwrap();
    let packed = value["packed"].as_str().unwrap().to_string();
    let with = |packed: &str| {
        let mut v = value.clone();
        v["packed"] = json!(packed);
        decode(v.to_string().as_bytes())
    };
    let err = with("not base64!").unwrap_err();
    assert!(err.contains("not base64"), "{err}");
    let err = with("AAAA").unwrap_err();
    assert!(err.contains("zlib"), "{err}");
    // A zlib stream of parts cut short.
    let raw = {
        let zlib = base64::engine::general_purpose::STANDARD
            .decode(&packed)
            .unwrap();
        let mut raw = Vec::new();
        flate2::read::ZlibDecoder::new(zlib.as_slice())
            .read_to_end(&mut raw)
            .unwrap();
        raw
    };
    let repack = |raw: &[u8]| {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(raw).unwrap();
        base64::engine::general_purpose::STANDARD.encode(z.finish().unwrap())
    };
    let err = with(&repack(&raw[..raw.len() - 1])).unwrap_err();
    assert!(err.contains("ends inside"), "{err}");
    let mut longer = raw.clone();
    longer.push(0);
    let err = with(&repack(&longer)).unwrap_err();
    assert!(err.contains("after its last move"), "{err}");
}

fn arbitrary_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        ".*".prop_map(Value::from),
    ];
    leaf.prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::from),
            prop::collection::btree_map(".{0,6}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn arbitrary_move() -> impl Strategy<Value = MoveRecord> {
    (
        any::<u32>(),
        "[a-z]{0,8}|.{0,4}",
        arbitrary_json(),
        prop_oneof![
            Just("move".to_string()),
            Just("illegal".to_string()),
            ".{0,8}"
        ],
        proptest::option::of(".{0,12}"),
        0u64..10_000_000_000,
    )
        .prop_map(|(ply, side, reply, verdict, reason, us)| MoveRecord {
            ply,
            side,
            reply,
            verdict,
            reason,
            time_ms: us as f64 / 1000.0,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn generated_records_read_back_exactly(
        id in any::<u64>(),
        moves in prop::collection::vec(arbitrary_move(), 0..40),
        boards in (arbitrary_json(), arbitrary_json(), arbitrary_json()),
        detail in proptest::option::of(".*"),
        stderr in ".*",
        names in ("[a-z]{1,6}", ".{0,10}"),
        numbers in (any::<u32>(), any::<u32>(), any::<u64>(), any::<u64>()),
        replayed in prop::collection::vec(".{0,30}", 0..3),
        waited_ms in prop::collection::vec(0.0f64..1e7, 0..3),
        duration_us in proptest::option::of(0u64..10_000_000_000),
    ) {
        let (role, player) = names;
        let record = GameRecord {
            game: "g".into(),
            roles: vec![role.clone(), "other".into()],
            players: BTreeMap::from([(role.clone(), player)]),
            winner: Some(role.clone()),
            reason: "r".into(),
            detail,
            rounds: numbers.0,
            // A record holds no more moves than turns, and no game runs past MAX_PLIES.
            plies: (numbers.1 % (MAX_PLIES + 1)).max(moves.len() as u32),
            illegal: BTreeMap::from([(role.clone(), numbers.0)]),
            seed: numbers.2,
            start: numbers.3,
            start_board: boards.0,
            opening: boards.1,
            moves,
            final_board: boards.2,
            logs: BTreeMap::from([(role.clone(), BotLogRecord { announced_name: None, stderr, chatter: String::new() })]),
            machine: MachineLoad {
                waited: waited_ms
                    .into_iter()
                    .enumerate()
                    .map(|(ply, waited_ms)| Waited { ply: ply as u32, side: role.clone(), waited_ms })
                    .collect(),
                replayed,
            },
            duration_ms: duration_us.map(|us| us as f64 / 1000.0),
        };
        let line = encode(id, &record);
        prop_assert_eq!(decode(line.as_bytes()), Ok((id, record)));
    }

    #[test]
    fn any_packed_bytes_are_read_or_refused_without_panicking(
        bytes in prop::collection::vec(any::<u8>(), 0..200),
    ) {
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
        z.write_all(&bytes).unwrap();
        let packed = base64::engine::general_purpose::STANDARD.encode(z.finish().unwrap());
        let line = json!({"game": 1, "record": {"game": "g", "roles": [], "players": {},
            "winner": null, "reason": "r", "rounds": 0, "plies": 0, "illegal": {},
            "seed": 0, "start": 0}, "packed": packed});
        let _ = decode(line.to_string().as_bytes());
    }
}
