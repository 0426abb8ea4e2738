//! `arbiter play`: the example course bots against every built-in, in both roles.

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
                    "200",
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
                assert_eq!(
                    rec["illegal"][course_role], 0,
                    "{rebel} vs {officer}: the course bot's moves are legal"
                );
                assert!(rec["moves"].as_array().unwrap().len() >= 2);
            }
        }
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
    let (code, stdout, stderr) = run(arbiter().args([
        "play",
        "--game",
        "gomoku",
        "--white",
        "ghost=/no/such/arbiter-bot",
        "--black",
        "builtin:random",
    ]));
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(stdout.contains("spawn_failed"), "{stdout}");
    assert!(stderr.contains("could not be started"), "{stderr}");
}
