//! Differential test of Asalto against an independent model of the course referee
//! (tests/differential/course_model.py, written from docs/rules/asalto.md): the same
//! deterministic course bots (tests/differential/scripted_bot.py) play a few hundred seeded
//! games through `arbiter play --record` and through the model, and every game must agree
//! on its winner, the class of its ending, its rounds, both illegal-move counts, the kind
//! of every turn and the final board.
//!
//! The bots' replies depend on the boards they were shown and on how often they were asked,
//! so a referee that skips a turn (or judges one differently) shows up in the turn list and
//! usually in everything after it.

use crate::common::*;
use arbiter::games::Side;
use arbiter::games::asalto::OFFICERS;
use arbiter::record::GameRecord;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Games played: each round limit of the mix six times. Each costs two Python start-ups,
/// whatever its length, so short games save little: the mix of limits is chosen for the
/// endings it reaches.
const GAMES: u64 = 60;

/// Round limits, by seed: short games end on the limit and its illegal-count tie-break,
/// long ones on the rules.
fn round_limit(seed: u64) -> u32 {
    [3, 6, 10, 20, 40, 100, 1000, 1000, 1000, 1000][(seed % 10) as usize]
}

fn differential_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/differential")
}

/// The interpreter behind `python3`, resolved once (version-manager shims cost a tenth of
/// a second per bot start), wrapped in a script in `dir` that runs it with `-S`: the
/// adapter and these bots need only the standard library, and site-packages' start-up
/// hooks can cost more than a whole short game.
fn python(dir: &Path) -> (String, PathBuf) {
    let (code, out, err) = run(
        std::process::Command::new("python3").args(["-c", "import sys; print(sys.executable)"])
    );
    assert_eq!(
        code, 0,
        "python3 is needed for the differential test: {err}"
    );
    let exe = out.trim().to_string();
    let wrapper = dir.join("python-S");
    std::fs::write(
        &wrapper,
        format!("#!/bin/sh\nexec {} -S \"$@\"\n", shell_quote(&exe)),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    (exe, wrapper)
}

/// What both referees say about one game, in the model's terms.
#[derive(Debug, PartialEq)]
struct Account {
    winner: Option<String>,
    reason: String,
    rounds: u64,
    illegal: [u64; 2],
    turns: Vec<(String, String)>,
    board: Vec<String>,
}

fn from_model(v: &Value) -> Account {
    Account {
        winner: v["winner"].as_str().map(str::to_string),
        reason: v["reason"].as_str().unwrap_or("?").to_string(),
        rounds: v["rounds"].as_u64().unwrap_or(u64::MAX),
        illegal: [
            v["illegal"]["rebel"].as_u64().unwrap_or(u64::MAX),
            v["illegal"]["officer"].as_u64().unwrap_or(u64::MAX),
        ],
        turns: v["turns"]
            .as_array()
            .map(|turns| {
                turns
                    .iter()
                    .map(|t| {
                        (
                            t[0].as_str().unwrap_or("?").to_string(),
                            t[1].as_str().unwrap_or("?").to_string(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default(),
        board: rows(&v["board"]),
    }
}

fn rows(v: &Value) -> Vec<String> {
    v.as_array()
        .map(|r| {
            r.iter()
                .map(|s| s.as_str().unwrap_or("?").to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// An arbiter record in the model's terms: rule endings by their class, a bot's exception
/// as `exception`; anything else keeps arbiter's own word and so disagrees.
fn from_record(v: &Value) -> Account {
    let reason = match v["reason"].as_str().unwrap_or("?") {
        "rebels_captured" => "captured",
        "fortress_full" => "fortress",
        "officers_immobile" => "immobile",
        "round_limit" => "limit",
        other => other,
    };
    let turns = v["moves"]
        .as_array()
        .map(|moves| {
            moves
                .iter()
                .map(|m| {
                    let verdict = match (m["verdict"].as_str(), m["reason"].as_str()) {
                        (Some("failed"), Some("exception")) => "exception".to_string(),
                        (Some(v), _) => v.to_string(),
                        (None, _) => "?".to_string(),
                    };
                    (m["side"].as_str().unwrap_or("?").to_string(), verdict)
                })
                .collect()
        })
        .unwrap_or_default();
    Account {
        winner: v["winner"].as_str().map(str::to_string),
        reason: reason.to_string(),
        rounds: v["rounds"].as_u64().unwrap_or(u64::MAX),
        illegal: [
            v["illegal"]["rebel"].as_u64().unwrap_or(u64::MAX),
            v["illegal"]["officer"].as_u64().unwrap_or(u64::MAX),
        ],
        turns,
        board: rows(&v["final_board"]),
    }
}

/// The first difference between two accounts of a game, in words.
fn difference(arbiter: &Account, model: &Account) -> Option<String> {
    if let Some(i) = (0..arbiter.turns.len().max(model.turns.len()))
        .find(|&i| arbiter.turns.get(i) != model.turns.get(i))
    {
        return Some(format!(
            "turn {i}: arbiter {:?}, model {:?}",
            arbiter.turns.get(i),
            model.turns.get(i)
        ));
    }
    let fields = [
        (
            "winner",
            format!("{:?}", arbiter.winner),
            format!("{:?}", model.winner),
        ),
        ("reason", arbiter.reason.clone(), model.reason.clone()),
        (
            "rounds",
            arbiter.rounds.to_string(),
            model.rounds.to_string(),
        ),
        (
            "illegal",
            format!("{:?}", arbiter.illegal),
            format!("{:?}", model.illegal),
        ),
        (
            "board",
            format!("{:?}", arbiter.board),
            format!("{:?}", model.board),
        ),
    ];
    fields
        .into_iter()
        .find(|(_, a, m)| a != m)
        .map(|(what, a, m)| format!("{what}: arbiter {a}, model {m}"))
}

/// Turns, per role, on which the side to move had no legal move.
fn turns_without_a_move(record: &Value) -> [usize; 2] {
    let record: GameRecord = serde_json::from_value(record.clone()).expect("a game record");
    let mut stuck = [0; 2];
    for (m, has_move) in record
        .moves
        .iter()
        .zip(asalto_turns_with_a_legal_move(&record))
    {
        if let Some(seat) = record.roles.iter().position(|r| *r == m.side) {
            stuck[seat] += usize::from(!has_move);
        }
    }
    stuck
}

#[test]
fn asalto_agrees_with_an_independent_model_of_the_course_referee() {
    let dir = tempfile::tempdir().unwrap();
    let (python, fast_python) = python(dir.path());
    std::fs::copy(
        differential_dir().join("scripted_bot.py"),
        dir.path().join("scripted_bot.py"),
    )
    .unwrap();
    let mut manifest = String::new();
    for seed in 0..GAMES {
        let bot = dir.path().join(format!("Team{seed}.py"));
        std::fs::write(
            &bot,
            format!(
                "from scripted_bot import ScriptedPlayer\n\n\nclass Player(ScriptedPlayer):\n    SEED = {seed}\n"
            ),
        )
        .unwrap();
        manifest.push_str(
            &json!({"id": seed, "bot": bot, "round_limit": round_limit(seed)}).to_string(),
        );
        manifest.push('\n');
    }
    let manifest_path = dir.path().join("games.jsonl");
    std::fs::write(&manifest_path, manifest).unwrap();

    let (code, out, err) = run(std::process::Command::new(&python)
        .arg(differential_dir().join("course_model.py"))
        .arg(&manifest_path));
    assert_eq!(code, 0, "the model failed: {err}");
    let model: BTreeMap<u64, Value> = out
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).expect("a model line is JSON");
            (v["id"].as_u64().expect("an id"), v)
        })
        .collect();
    assert_eq!(model.len() as u64, GAMES);

    // Two games at a time: each is two short-lived Python processes.
    let next = AtomicUsize::new(0);
    let records = Mutex::new(BTreeMap::new());
    std::thread::scope(|scope| {
        for _ in 0..2 {
            scope.spawn(|| {
                loop {
                    let seed = next.fetch_add(1, Ordering::Relaxed) as u64;
                    if seed >= GAMES {
                        break;
                    }
                    let bot = dir.path().join(format!("Team{seed}.py"));
                    let record = dir.path().join(format!("Team{seed}.json"));
                    let (code, _, err) = run(arbiter()
                        .args(["play", "--python"])
                        .arg(&fast_python)
                        .arg("--seed")
                        .arg(seed.to_string())
                        .arg("--round-limit")
                        .arg(round_limit(seed).to_string())
                        .arg("--rebel")
                        .arg(&bot)
                        .arg("--officer")
                        .arg(&bot)
                        .arg("--record")
                        .arg(&record));
                    assert_eq!(code, 0, "game {seed}: {err}");
                    let v: Value = serde_json::from_str(&read(&record)).unwrap();
                    records.lock().unwrap().insert(seed, v);
                }
            });
        }
    });
    let records = records.into_inner().unwrap();

    let mut disagreements = Vec::new();
    let mut reasons = BTreeMap::<String, usize>::new();
    let mut games_stuck = [0; 2];
    for seed in 0..GAMES {
        let record = &records[&seed];
        let arbiter = from_record(record);
        *reasons.entry(arbiter.reason.clone()).or_default() += 1;
        let stuck = turns_without_a_move(record);
        for side in Side::BOTH {
            games_stuck[side.index()] += usize::from(stuck[side.index()] > 0);
        }
        if let Some(why) = difference(&arbiter, &from_model(&model[&seed])) {
            disagreements.push(format!(
                "game {seed} (round limit {}): {why}",
                round_limit(seed)
            ));
        }
    }
    let summary = format!(
        "{} of {GAMES} games disagree; endings {reasons:?}; games with a turn without a legal \
         move: rebels {}, officers {}",
        disagreements.len(),
        games_stuck[Side::First.index()],
        games_stuck[OFFICERS.index()],
    );
    println!("{summary}");
    assert!(
        disagreements.is_empty(),
        "{summary}\n{}",
        disagreements.join("\n")
    );
    // The sample must reach what the comparison is for: turns without a legal move, huffs,
    // exceptions and rule endings of every kind.
    assert!(games_stuck[OFFICERS.index()] >= 5, "{summary}");
    for reason in ["captured", "fortress", "immobile", "limit", "exception"] {
        assert!(
            reasons.contains_key(reason),
            "no game ended by {reason}: {summary}"
        );
    }
    let huffs = records
        .values()
        .flat_map(|r| r["moves"].as_array().cloned().unwrap_or_default())
        .filter(|m| m["verdict"] == "huff")
        .count();
    assert!(huffs >= 20, "{huffs} huffs: {summary}");
}
