//! A game's record and summary: the short detail of a failure, its headline, the replay
//! digest, and where faults fall.

use super::*;

fn record(reason: &str, detail: Option<&str>, moves: Vec<MoveRecord>) -> GameRecord {
    GameRecord {
        game: "gomoku".into(),
        roles: vec!["white".into(), "black".into()],
        players: BTreeMap::from([
            ("white".to_string(), "a".to_string()),
            ("black".to_string(), "b".to_string()),
        ]),
        winner: Some("black".into()),
        reason: reason.into(),
        detail: detail.map(String::from),
        rounds: 1,
        plies: moves.len() as u32,
        illegal: BTreeMap::new(),
        seed: 1,
        start: 0,
        start_board: Value::Null,
        opening: Value::Null,
        moves,
        final_board: Value::Null,
        logs: BTreeMap::new(),
        machine: MachineLoad::default(),
        duration_ms: None,
    }
}

#[test]
fn a_long_detail_keeps_the_missing_files_name_and_its_end() {
    let detail = format!(
        "spawn failed: stderr tail: /opt/very/long/path/to/the/course/environment/bin/\
         python3.12: can't open file '/tmp/{}/submissions/unpacked/Team09/nothere.py': \
         [Errno 2] No such file or directory",
        "x".repeat(60)
    );
    let line = shorten(&detail);
    assert!(line.chars().count() <= DETAIL_CHARS, "{line}");
    assert!(line.contains("nothere.py'"), "{line}");
    assert!(line.contains("python3.12:"), "{line}");
    assert!(line.ends_with("No such file or directory"), "{line}");
    let long: String = "word ".repeat(60);
    let cut = shorten(&format!("start {long}the end"));
    assert!(
        cut.starts_with("start ") && cut.ends_with("the end"),
        "{cut}"
    );
    assert_eq!(cut.chars().count(), DETAIL_CHARS);
}

/// Journals written before keep their digests: the text hashed is still that of
/// `json!([start_board, opening, replies])`, byte for byte.
#[test]
fn the_replay_digest_hashes_the_same_text_as_a_json_value_of_the_game() {
    use sha2::{Digest, Sha256};
    let mv = |side: &str, reply: Value, verdict: &str| MoveRecord {
        ply: 0,
        side: side.into(),
        reply,
        verdict: verdict.into(),
        reason: None,
        time_ms: 1.5,
    };
    let mut r = record(
        "five",
        None,
        vec![
            mv("white", serde_json::json!([[3, 3], [2, 3]]), "move"),
            mv("black", Value::Null, "illegal"),
            mv(
                "white",
                serde_json::json!({"b": 1.25, "a": "x\"y"}),
                "illegal",
            ),
        ],
    );
    r.start_board = serde_json::json!(["  ...  ", "  O.O  "]);
    r.opening = serde_json::json!([[[3, 3], [2, 2]]]);
    let replies: Vec<(&str, &Value, &str)> = r
        .moves
        .iter()
        .map(|m| (m.side.as_str(), &m.reply, m.verdict.as_str()))
        .collect();
    let text = serde_json::json!([r.start_board, r.opening, replies]).to_string();
    let former: [u8; 12] = Sha256::digest(text.as_bytes())[..12]
        .try_into()
        .expect("12 bytes");
    assert_eq!(replay_digest(&r), former);
    r.moves[1].reply = serde_json::json!(0);
    assert_ne!(replay_digest(&r), former);
}

#[test]
fn an_exception_detail_names_type_message_file_and_line() {
    let traceback = "Traceback (most recent call last):\n  File \"<string>\", line 156, in main\n  File \"/home/t/bots/Team05.py\", line 16, in play_rebel\n    return self._play(board)\n  File \"/home/t/bots/helper.py\", line 12, in _play\n    raise RuntimeError(\"boom\")\nRuntimeError: boom\n";
    let r = record("exception", Some(traceback), vec![]);
    assert_eq!(short_detail(&r), "RuntimeError: boom (helper.py, line 12)");
}

#[test]
fn a_syntax_error_detail_names_the_bots_file_not_the_import_machinery() {
    let traceback = "Traceback (most recent call last):\n  File \"<string>\", line 139, in main\n  File \"<frozen importlib._bootstrap>\", line 241, in _call_with_frames_removed\n  File \"/tmp/Bad.py\", line 2\n    def play_rebel(self, b)\n                           ^\nSyntaxError: expected ':'\n";
    let r = record("exception", Some(traceback), vec![]);
    assert_eq!(
        short_detail(&r),
        "SyntaxError: expected ':' (Bad.py, line 2)"
    );
}

#[test]
fn a_java_exception_detail_names_the_players_frame() {
    let trace = "java.lang.IllegalStateException: boom\n\tat PlayerThrows.chooseMove(PlayerThrows.java:11)\n\tat java.base/jdk.internal.reflect.NativeMethodAccessorImpl.invoke0(Native Method)\n\tat ArbiterDriver.run(ArbiterDriver.java:123)\n";
    let r = record("exception", Some(trace), vec![]);
    assert_eq!(
        short_detail(&r),
        "java.lang.IllegalStateException: boom (PlayerThrows.java, line 11)"
    );
}

#[test]
fn a_spawn_failure_detail_is_its_first_line_and_a_long_one_is_cut() {
    let r = record(
        "spawn_failed",
        Some("\ncannot start `x`: No such file\nmore"),
        vec![],
    );
    assert_eq!(short_detail(&r), "cannot start `x`: No such file");
    let long = "e".repeat(500);
    let r = record("crash", Some(&long), vec![]);
    let d = short_detail(&r);
    assert_eq!(d.chars().count(), DETAIL_CHARS);
    assert!(d.contains("...") && d.ends_with('e'), "{d}");
}

#[test]
fn a_detail_that_announces_what_follows_is_shown_with_it() {
    let crashed = "the bot closed its stdout (exit status 3); stderr tail:\n\
                   starting\nmy_bot.c:42: assertion 'board != NULL' failed\n";
    assert_eq!(
        short_detail(&record("crash", Some(crashed), vec![])),
        "the bot closed its stdout (exit status 3); stderr tail: \
         my_bot.c:42: assertion 'board != NULL' failed"
    );
    let javac = "javac could not compile `/x/PlayerBroken.java` (exit status 1):\n\
                 PlayerBroken.java:7: error: ';' expected\n    int x = 1\n             ^\n1 error\n";
    assert_eq!(
        short_detail(&record("spawn_failed", Some(javac), vec![])),
        "javac could not compile `/x/PlayerBroken.java` (exit status 1): \
         PlayerBroken.java:7: error: ';' expected"
    );
    // Announcing nothing, it is shown without its colon.
    assert_eq!(
        headline("the program failed (exit status 1); stderr tail:\n"),
        "the program failed (exit status 1); stderr tail"
    );
}

#[test]
fn a_game_lost_by_an_illegal_move_names_the_move_and_why() {
    let last = MoveRecord {
        ply: 0,
        side: "white".into(),
        reply: serde_json::json!([9, 9]),
        verdict: "illegal".into(),
        reason: Some("off_board".into()),
        time_ms: 1.0,
    };
    let r = record("illegal_move", None, vec![last]);
    assert_eq!(short_detail(&r), "white played [9,9]: off_board");
    assert_eq!(short_detail(&record("five_in_row", None, vec![])), "");
}

#[test]
fn faults_fall_on_the_loser_or_on_both_seats() {
    let mut r = record("timeout", Some("no reply within 100 ms"), vec![]);
    let s = GameSummary::of(0, &r);
    assert_eq!(s.faults(), vec![(0, Fault::Timeout)]);
    r.reason = "both_failed".into();
    r.winner = None;
    assert_eq!(
        GameSummary::of(0, &r).faults(),
        vec![(0, Fault::Error), (1, Fault::Error)]
    );
    r.reason = "five_in_row".into();
    r.winner = Some("white".into());
    assert!(GameSummary::of(0, &r).faults().is_empty());
}
