//! `arbiter play`: the example course bots against every built-in, in both roles; and
//! `arbiter bot`, a built-in over the protocol, on a turn without a legal move.

use crate::common::*;

#[test]
fn example_course_bots_play_full_games_against_every_builtin_in_both_roles() {
    let root = env!("CARGO_MANIFEST_DIR");
    let dir = tempfile::tempdir().unwrap();
    // One game at a time: the move limit is wall-clock time, and games side by side on a
    // small machine would steal it from each other.
    for example in ["random_bot.py", "greedy_bot.py"] {
        for builtin in ["random", "greedy", "alphabeta"] {
            for course_is_rebel in [true, false] {
                let course = format!("{root}/bots/python/examples/{example}");
                let engine = format!("builtin:{builtin}");
                let record = dir
                    .path()
                    .join(format!("{example}-{builtin}-{course_is_rebel}.json"));
                let (rebel, officer) = if course_is_rebel {
                    (&course, &engine)
                } else {
                    (&engine, &course)
                };
                let mut cmd = arbiter();
                cmd.args([
                    "play",
                    "--rebel",
                    rebel,
                    "--officer",
                    officer,
                    "--limit-ms",
                    "50",
                    // Enough for every ending; a random bot can keep alphabeta from
                    // winning for most of the course's 1000 rounds.
                    "--round-limit",
                    "150",
                    "--record",
                ]);
                let (code, stdout, stderr) = run(cmd.arg(&record));
                assert_eq!(code, 0, "{rebel} vs {officer}: {stderr}");

                let rec: serde_json::Value = serde_json::from_str(&read(&record)).unwrap();
                let reason = rec["reason"].as_str().unwrap();
                let course_role = if course_is_rebel { "rebel" } else { "officer" };
                // The limit is wall-clock time: on a loaded test machine the built-in may
                // overrun its budget, which is its loss, not the course bot's.
                let builtin_overran = reason == "timeout" && rec["winner"] == course_role;
                let rule_ending = [
                    "fortress_full",
                    "rebels_captured",
                    "officers_immobile",
                    "round_limit",
                ];
                assert!(
                    rule_ending.contains(&reason) || builtin_overran,
                    "{rebel} vs {officer} ended by {reason}:\n{stdout}"
                );
                // The course bot plays a legal move whenever it has one; without one it is
                // asked all the same, and its reply is illegal.
                let game: arbiter::record::GameRecord =
                    serde_json::from_value(rec.clone()).unwrap();
                let turns = game.moves.iter().zip(asalto_turns_with_a_legal_move(&game));
                let mut stuck = 0;
                for (m, has_move) in turns.filter(|(m, _)| m.side == course_role) {
                    let want = if has_move { "move" } else { "illegal" };
                    assert_eq!(m.verdict, want, "{rebel} vs {officer}: {m:?}");
                    stuck += u32::from(!has_move);
                }
                assert_eq!(game.illegal[course_role], stuck, "{rebel} vs {officer}");
                // Both sides moved, unless the built-in overran its first move.
                assert!(builtin_overran || rec["moves"].as_array().unwrap().len() >= 2);
            }
        }
    }
}

#[test]
fn arbiter_bot_answers_a_turn_without_a_legal_move_with_null() {
    use std::io::Write;
    // Officers to move, both boxed in: no step, no jump.
    let board = [
        "  ORO  ", "  RRR  ", "..RRR..", "...R...", "...R...", "  ...  ", "  ...  ",
    ];
    let input = [
        serde_json::json!({"type": "hello", "protocol": 1, "game": "asalto", "role": "officer",
            "time_limit_ms": 2000, "init_limit_ms": 2000, "seed": 4}),
        serde_json::json!({"type": "turn", "role": "officer", "board": board, "ply": 1,
            "illegal": {"rebel": 0, "officer": 0}}),
        serde_json::json!({"type": "end", "result": "loss", "reason": "officers_immobile"}),
    ]
    .map(|m| m.to_string() + "\n")
    .concat();
    for name in ["random", "greedy", "alphabeta"] {
        let mut child = arbiter()
            .args(["bot", name])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .expect("arbiter bot starts");
        child
            .stdin
            .take()
            .unwrap()
            .write_all(input.as_bytes())
            .unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{name}");
        let replies: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(
            replies,
            [
                serde_json::json!({"type": "ready", "name": name}),
                serde_json::json!({"type": "move", "move": null}),
            ],
            "{name}"
        );
    }
}

#[test]
fn play_takes_name_equals_spec_like_the_other_commands() {
    let (code, stdout, stderr) = run(arbiter().args([
        "play",
        "--game",
        "gomoku",
        "--white",
        "alice=builtin:random",
        "--black",
        "bob=builtin:greedy",
    ]));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stdout.contains("white alice vs black bob"),
        "the names given are the players' names:\n{stdout}"
    );
}

#[test]
fn play_exits_1_when_a_bot_could_not_be_started() {
    // A program that is there but cannot be run (not executable): the game is its loss.
    let dir = tempfile::tempdir().unwrap();
    let ghost = dir.path().join("arbiter-bot");
    std::fs::write(&ghost, "not a program\n").unwrap();
    let spec = format!("ghost={}", ghost.display());
    let (code, stdout, stderr) = run(arbiter().args([
        "play",
        "--game",
        "gomoku",
        "--white",
        &spec,
        "--black",
        "builtin:random",
    ]));
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(stdout.contains("spawn_failed"), "{stdout}");
    assert!(stderr.contains("could not be started"), "{stderr}");
    // And says why, in the record's words.
    assert!(stderr.contains("Permission denied"), "{stderr}");
}

#[test]
fn a_crashed_program_s_last_stderr_line_is_in_the_line_play_prints() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let bot = dir.path().join("cbot.sh");
    std::fs::write(
        &bot,
        "#!/bin/sh\nread hello\necho '{\"type\":\"ready\",\"name\":\"cbot\"}'\nread turn\n\
         echo starting >&2\necho \"my_bot.c:42: assertion 'board != NULL' failed\" >&2\nexit 3\n",
    )
    .unwrap();
    std::fs::set_permissions(&bot, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (code, stdout, stderr) = run(arbiter()
        .args(["play", "--officer", "builtin:random", "--rebel"])
        .arg(&bot));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stdout.contains(
            "(exit status 3); stderr tail: my_bot.c:42: assertion 'board != NULL' failed"
        ),
        "{stdout}"
    );
}

#[test]
fn an_error_in_calling_a_course_bot_names_its_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (
            "TeamArgs.py",
            "import random\n\nclass Player:\n    def __init__(self, depth):\n        self.depth = depth\n",
        ),
        (
            "TeamNoRebel.py",
            "class Player:\n    def play_officer(self, board):\n        return None\n",
        ),
        (
            "TeamHelp.py",
            "import helper\n\nclass Player:\n    def play_rebel(self, board):\n        return helper.f()\n",
        ),
        (
            "helper.py",
            "def f():\n    raise ValueError('in the helper')\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    for (bot, shown) in [
        // The adapter's call of the constructor: the bot's __init__.
        (
            "TeamArgs.py",
            "TypeError: Player.__init__() missing 1 required positional argument: 'depth' (TeamArgs.py, line 4)",
        ),
        // The adapter's look-up of the move's method: the bot's class.
        (
            "TeamNoRebel.py",
            "AttributeError: 'Player' object has no attribute 'play_rebel' (TeamNoRebel.py, line 1)",
        ),
        // Raised in the bot's own code: its own frame, as before.
        (
            "TeamHelp.py",
            "ValueError: in the helper (helper.py, line 2)",
        ),
    ] {
        let (code, stdout, stderr) = run(arbiter()
            .args(["play", "--officer", "builtin:random", "--rebel"])
            .arg(dir.path().join(bot)));
        assert_eq!(code, 0, "{stdout}\n{stderr}");
        assert!(stdout.contains(shown), "{bot}: {stdout}");
    }
}

/// A course bot that plays the example random bot's moves (random_bot.py beside it) and
/// writes, each turn, the CPUs it may run on and the CPU it runs on to its stderr.
const CPU_REPORTER: &str = r#"
import os, sys
import random_bot

class Player(random_bot.Player):
    def report(self):
        allowed = sorted(os.sched_getaffinity(0))
        with open("/proc/self/stat") as f:
            here = int(f.read().rsplit(")", 1)[1].split()[36])
        sys.stderr.write("cpus %s on %d\n" % (",".join(map(str, allowed)), here))
    def play_rebel(self, board):
        self.report()
        return super().play_rebel(board)
    def play_officer(self, board):
        self.report()
        return super().play_officer(board)
"#;

/// A folder holding [`CPU_REPORTER`] and the example bot it plays as; the reporter's path.
fn cpu_reporter() -> (tempfile::TempDir, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let bot = dir.path().join("reporter.py");
    std::fs::write(&bot, CPU_REPORTER).unwrap();
    std::fs::copy(
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/bots/python/examples/random_bot.py"
        ),
        dir.path().join("random_bot.py"),
    )
    .unwrap();
    (dir, bot)
}

/// The CPUs this machine has, when there are two or more to place a game's bots on.
fn cpus_to_place_on() -> Option<usize> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores < 2 {
        eprintln!("one CPU: nothing to place");
        return None;
    }
    Some(cores)
}

/// Per role, the (allowed CPUs, CPU) lines the bot wrote.
fn cpus_per_turn(record: &serde_json::Value) -> Vec<Vec<(String, String)>> {
    ["rebel", "officer"]
        .iter()
        .map(|role| {
            rec_stderr(record, role)
                .lines()
                .filter_map(|l| l.strip_prefix("cpus "))
                .map(|l| {
                    let (allowed, here) = l.split_once(" on ").unwrap();
                    (allowed.to_string(), here.to_string())
                })
                .collect()
        })
        .collect()
}

/// Per role, the (allowed CPUs, CPU) lines, checked to be one a turn or more; and every
/// CPU set either bot said it may use.
type Reported = (
    Vec<Vec<(String, String)>>,
    std::collections::BTreeSet<String>,
);

fn reported_cpus(record: &serde_json::Value) -> Reported {
    let turns = cpus_per_turn(record);
    assert!(
        turns.iter().all(|t| t.len() >= 10),
        "each bot reports every turn: {turns:?}"
    );
    let allowed = turns
        .iter()
        .flatten()
        .map(|(allowed, _)| allowed.clone())
        .collect();
    (turns, allowed)
}

fn rec_stderr(record: &serde_json::Value, role: &str) -> String {
    record["logs"][role]["stderr"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// `arbiter play`, one game, puts each bot program on a CPU of its own for the game (two
/// being free: the claims are this test's own), where it runs; spread, they may use every
/// CPU. (A league's game keeps its bots on one CPU: the next test.)
#[test]
fn arbiter_play_runs_each_bot_on_a_cpu_of_its_own_unless_spread() {
    let Some(cores) = cpus_to_place_on() else {
        return;
    };
    let (dir, bot) = cpu_reporter();
    // Claims of this test's own: games of other tests hold none of its CPUs. Apart from
    // the bots' folder, which each bot's jail copies while the other's start writes there.
    let claims = tempfile::tempdir().unwrap();
    let all: Vec<String> = (0..cores).map(|c| c.to_string()).collect();
    for spread in [false, true] {
        let record = dir.path().join(format!("spread-{spread}.json"));
        let mut cmd = arbiter();
        cmd.env("TMPDIR", claims.path())
            .args(["play", "--round-limit", "20", "--record"])
            .arg(&record)
            .arg("--rebel")
            .arg(&bot)
            .arg("--officer")
            .arg(&bot);
        if spread {
            cmd.arg("--spread-bots");
        }
        let (code, stdout, stderr) = run(&mut cmd);
        assert_eq!(code, 0, "{stdout}\n{stderr}");
        let rec: serde_json::Value = serde_json::from_str(&read(&record)).unwrap();
        let (turns, allowed) = reported_cpus(&rec);
        if spread {
            assert_eq!(allowed, [all.join(",")].into(), "{turns:?}");
        } else {
            // One CPU for each bot for the whole game, not the other's, and it runs on it.
            let cpus: Vec<&str> = turns
                .iter()
                .map(|bot| {
                    let (cpu, _) = &bot[0];
                    assert!(!cpu.contains(','), "{turns:?}");
                    assert!(
                        bot.iter()
                            .all(|(allowed, here)| allowed == cpu && here == cpu),
                        "{turns:?}"
                    );
                    cpu.as_str()
                })
                .collect();
            assert_ne!(cpus[0], cpus[1], "both bots on one CPU: {turns:?}");
        }
    }
}

/// A league's game keeps both its bots on one CPU with the referee (its spare CPUs start
/// the next games' bots), where `arbiter play` would give each its own.
#[test]
fn a_league_game_keeps_its_bots_on_one_cpu() {
    if cpus_to_place_on().is_none() {
        return;
    }
    let (dir, bot) = cpu_reporter();
    let out = dir.path().join("league");
    let (a, b) = (
        format!("a={}", bot.display()),
        format!("b={}", bot.display()),
    );
    let mut cmd = crate::league::league_cmd(
        &out,
        &["--pairs", "1", "-j", "1", "--round-limit", "20"],
        &[&a, &b],
    );
    // Claims of this test's own, apart from the bots' folder, as above.
    let claims = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = run(cmd.env("TMPDIR", claims.path()));
    assert_eq!(code, 0, "{stdout}{stderr}");
    let records = journal_records(&out);
    assert_eq!(records.len(), 2);
    for (_, record) in records {
        let (turns, allowed) = reported_cpus(&serde_json::to_value(&record).unwrap());
        assert_eq!(allowed.len(), 1, "{turns:?}");
        assert!(!allowed.first().unwrap().contains(','), "{turns:?}");
    }
}
