//! The subprocess player against scripted bots: every way a bot can misbehave is
//! adjudicated with the right failure, quickly, and leaves no process behind.

use crate::bots_common as common;

use arbiter::bots::process::{OVERLONG_REPLY_PREFIX, ProcessPlayer};
use arbiter::bots::spec::CommandSpec;
use arbiter::bots::{FailureKind, Player, Reply};
use arbiter::games::{Game, Side};
use common::*;
use std::time::{Duration, Instant};

const READY: &str = r#"echo '{"type":"ready","name":"sh-bot"}'"#;
const MOVE: &str = r#"echo '{"type":"move","move":[[3,2],[2,2]]}'"#;

fn game() -> Shapes {
    Shapes { plies: 4 }
}

/// Starts `command` as the rebel; returns the player and its process group.
fn started(
    command: CommandSpec,
    move_ms: u64,
    init_ms: u64,
) -> (ProcessPlayer, Option<String>, i32) {
    let mut p = ProcessPlayer::new(command);
    let name = Player::<Shapes>::start(&mut p, &game(), &setup(Side::First, move_ms, init_ms))
        .expect("handshake");
    let pgid = p.process_group().expect("running");
    (p, name, pgid)
}

fn turn(p: &mut ProcessPlayer) -> arbiter::bots::TurnReply<Vec<(u8, u8)>> {
    let g = game();
    let state = g.initial();
    Player::<Shapes>::turn(p, &g, &state)
}

fn finish(p: &mut ProcessPlayer) -> arbiter::bots::BotLog {
    Player::<Shapes>::finish(p, &end())
}

fn failure(reply: &Reply<Vec<(u8, u8)>>) -> (FailureKind, String) {
    match reply {
        Reply::Failed(f) => (f.kind, f.detail.clone()),
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[test]
fn a_well_behaved_bot_gets_hello_turns_and_end() {
    let (dir, command) = sh_bot(&format!(
        r#"
read hello; echo "$hello" >&2
{READY}
while read line; do
  echo "$line" >&2
  case "$line" in *'"end"'*) exit 0;; esac
  {MOVE}
done
"#
    ));
    let (mut p, name, pgid) = started(command, 5000, 5000);
    assert_eq!(name.as_deref(), Some("sh-bot"));
    for _ in 0..3 {
        let t = turn(&mut p);
        match t.reply {
            Reply::Wire(v) => assert_eq!(v, serde_json::json!([[3, 2], [2, 2]])),
            other => panic!("expected a move, got {other:?}"),
        }
        assert!(t.elapsed < Duration::from_secs(2));
    }
    let started = Instant::now();
    let log = finish(&mut p);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "finish is bounded"
    );
    assert!(log.stderr.contains(r#""type":"hello","protocol":1,"game":"shapes","role":"rebel","time_limit_ms":5000,"init_limit_ms":5000,"seed":7"#), "{}", log.stderr);
    assert!(
        log.stderr
            .contains(r#""type":"turn","role":"rebel","board":["  ...  ","#),
        "{}",
        log.stderr
    );
    assert!(
        log.stderr
            .contains(r#""illegal":{"officer":0,"rebel":0},"ply":0"#),
        "{}",
        log.stderr
    );
    assert!(
        log.stderr
            .contains(r#"{"type":"end","result":"tie","reason":"round_limit"}"#),
        "{}",
        log.stderr
    );
    assert_eq!(log.name.as_deref(), Some("sh-bot"));
    assert_group_gone(pgid);
    drop(dir);
}

#[test]
fn a_missing_program_is_a_spawn_failure_naming_it() {
    let mut p = ProcessPlayer::new(CommandSpec::new("/no/such/arbiter-test-bot"));
    let err =
        Player::<Shapes>::start(&mut p, &game(), &setup(Side::First, 1000, 1000)).unwrap_err();
    assert_eq!(err.kind, FailureKind::Spawn);
    assert!(
        err.detail.contains("/no/such/arbiter-test-bot"),
        "{}",
        err.detail
    );
    assert!(err.detail.contains("No such file"), "{}", err.detail);
    let log = finish(&mut p);
    assert!(log.stderr.is_empty());
}

#[test]
fn a_missing_working_folder_is_a_spawn_failure() {
    let mut command = CommandSpec::new("sh");
    command.cwd = Some("/no/such/folder-for-arbiter".into());
    let mut p = ProcessPlayer::new(command);
    let err =
        Player::<Shapes>::start(&mut p, &game(), &setup(Side::First, 1000, 1000)).unwrap_err();
    assert_eq!(err.kind, FailureKind::Spawn);
    assert!(
        err.detail.contains("/no/such/folder-for-arbiter"),
        "{}",
        err.detail
    );
}

#[test]
fn no_ready_within_the_init_limit_is_a_timeout_and_the_bot_is_killed() {
    let (_dir, command) = sh_bot("sleep 30\n");
    let mut p = ProcessPlayer::new(command);
    let started = Instant::now();
    let err = Player::<Shapes>::start(&mut p, &game(), &setup(Side::First, 1000, 500)).unwrap_err();
    assert_eq!(err.kind, FailureKind::Timeout);
    assert!(started.elapsed() < Duration::from_secs(3));
    let pgid = p.process_group().expect("kept for finish");
    finish(&mut p);
    assert_group_gone(pgid);
}

#[test]
fn a_slow_move_is_a_timeout_and_the_bot_is_killed() {
    let (_dir, command) = sh_bot(&format!("read hello\n{READY}\nread turn\nsleep 30\n"));
    let (mut p, _, pgid) = started(command, 1000, 5000);
    let started = Instant::now();
    let t = turn(&mut p);
    let (kind, detail) = failure(&t.reply);
    assert_eq!(kind, FailureKind::Timeout, "{detail}");
    assert!(t.elapsed >= Duration::from_millis(1000));
    assert!(started.elapsed() < Duration::from_secs(3));
    finish(&mut p);
    assert_group_gone(pgid);
}

#[test]
fn an_exit_before_the_handshake_is_a_crash_with_status_and_stderr() {
    let (_dir, command) = sh_bot("echo 'cannot load weights.bin' >&2\nexit 3\n");
    let mut p = ProcessPlayer::new(command);
    let err =
        Player::<Shapes>::start(&mut p, &game(), &setup(Side::First, 1000, 5000)).unwrap_err();
    assert_eq!(err.kind, FailureKind::Crash);
    assert!(err.detail.contains("exit status 3"), "{}", err.detail);
    assert!(
        err.detail.contains("cannot load weights.bin"),
        "{}",
        err.detail
    );
    finish(&mut p);
}

#[test]
fn death_by_a_signal_mid_game_is_a_crash_naming_the_signal() {
    let (_dir, command) = sh_bot(&format!("read hello\n{READY}\nread turn\nkill -SEGV $$\n"));
    let (mut p, _, pgid) = started(command, 5000, 5000);
    let (kind, detail) = failure(&turn(&mut p).reply);
    assert_eq!(kind, FailureKind::Crash);
    assert!(detail.contains("signal 11"), "{detail}");
    finish(&mut p);
    assert_group_gone(pgid);
}

#[test]
fn an_error_message_is_an_exception_with_its_text() {
    let (_dir, command) = sh_bot(&format!(
        "read hello\n{READY}\nread turn\necho '{{\"type\":\"error\",\"message\":\"ZeroDivisionError: division by zero\"}}'\nsleep 30\n"
    ));
    let (mut p, _, pgid) = started(command, 5000, 5000);
    let (kind, detail) = failure(&turn(&mut p).reply);
    assert_eq!(kind, FailureKind::Exception);
    assert_eq!(detail, "ZeroDivisionError: division by zero");
    finish(&mut p);
    assert_group_gone(pgid);
}

#[test]
fn an_error_instead_of_ready_is_an_exception() {
    let (_dir, command) =
        sh_bot("read hello\necho '{\"type\":\"error\",\"message\":\"no model\"}'\n");
    let mut p = ProcessPlayer::new(command);
    let err =
        Player::<Shapes>::start(&mut p, &game(), &setup(Side::First, 1000, 5000)).unwrap_err();
    assert_eq!(err.kind, FailureKind::Exception);
    assert_eq!(err.detail, "no model");
    finish(&mut p);
}

#[test]
fn unknown_message_types_are_protocol_errors() {
    for reply in [
        r#"{"type":"moov","move":[[3,2],[2,2]]}"#,
        r#"{"move":[[3,2],[2,2]]}"#,
        r#"{"type":"ready"}"#,
    ] {
        let (_dir, command) = sh_bot(&format!(
            "read hello\n{READY}\nread turn\necho '{reply}'\nsleep 30\n"
        ));
        let (mut p, _, pgid) = started(command, 5000, 5000);
        let (kind, detail) = failure(&turn(&mut p).reply);
        assert_eq!(kind, FailureKind::Protocol, "{reply}: {detail}");
        finish(&mut p);
        assert_group_gone(pgid);
    }
}

#[test]
fn a_move_before_ready_is_a_protocol_error() {
    let (_dir, command) = sh_bot(&format!("read hello\n{MOVE}\nsleep 30\n"));
    let mut p = ProcessPlayer::new(command);
    let err =
        Player::<Shapes>::start(&mut p, &game(), &setup(Side::First, 1000, 5000)).unwrap_err();
    assert_eq!(err.kind, FailureKind::Protocol);
    let pgid = p.process_group().unwrap();
    finish(&mut p);
    assert_group_gone(pgid);
}

#[test]
fn chatter_is_skipped_and_kept() {
    let (_dir, command) = sh_bot(&format!(
        "echo 'loading...'\nread hello\necho '[1,2]'\n{READY}\nread turn\necho 'thinking hard'\necho 42\n{MOVE}\nread end\n"
    ));
    let (mut p, _, _) = started(command, 5000, 5000);
    assert!(matches!(turn(&mut p).reply, Reply::Wire(_)));
    let log = finish(&mut p);
    assert_eq!(log.chatter, "loading...\n[1,2]\nthinking hard\n42\n");
}

#[test]
fn an_over_long_line_is_an_illegal_reply_and_the_game_goes_on() {
    let (_dir, command) = py_bot(
        r#"
import sys, json
def send(m): sys.stdout.write(json.dumps(m) + "\n"); sys.stdout.flush()
sys.stdin.readline(); send({"type": "ready"})
sys.stdin.readline(); sys.stdout.write("x" * (3 << 20) + "\n"); sys.stdout.flush()
sys.stdin.readline(); send({"type": "move", "move": [[3, 2], [2, 2]]})
sys.stdin.readline()
"#,
    );
    let (mut p, _, pgid) = started(command, 5000, 5000);
    match turn(&mut p).reply {
        Reply::Wire(serde_json::Value::String(s)) => {
            assert!(s.starts_with(OVERLONG_REPLY_PREFIX), "{s}");
            assert!(s.contains(&(3usize << 20).to_string()), "{s}");
        }
        other => panic!("expected the over-long marker, got {other:?}"),
    }
    assert!(matches!(
        turn(&mut p).reply,
        Reply::Wire(serde_json::Value::Array(_))
    ));
    finish(&mut p);
    assert_group_gone(pgid);
}

#[test]
fn a_chatter_flood_is_bounded_and_does_not_hide_the_move() {
    let (_dir, command) = py_bot(
        r#"
import sys, json
sys.stdin.readline(); print(json.dumps({"type": "ready"}), flush=True)
sys.stdin.readline()
line = "chatter " * 16 + "\n"
sys.stdout.write(line * 200000)
sys.stderr.write(line * 200000)
print(json.dumps({"type": "move", "move": [[3, 2], [2, 2]]}), flush=True)
sys.stdin.readline()
"#,
    );
    let (mut p, _, _) = started(command, 10000, 5000);
    assert!(matches!(
        turn(&mut p).reply,
        Reply::Wire(serde_json::Value::Array(_))
    ));
    let log = finish(&mut p);
    assert!(log.chatter.len() < 70 * 1024, "{}", log.chatter.len());
    assert!(log.chatter.starts_with("["), "the dropped part is marked");
    assert!(log.stderr.len() < 70 * 1024, "{}", log.stderr.len());
}

#[test]
fn a_bot_that_closed_its_stdin_is_a_crash_not_a_panic() {
    // Nobody reads the bot's stdin any more: writing the turn fails with EPIPE. (Closed
    // before its `ready`: from `ready` on, a bot is frozen until its turn.)
    let (_dir, command) = sh_bot(&format!("read hello\nexec 0<&-\n{READY}\nexec sleep 30\n"));
    let (mut p, _, pgid) = started(command, 2000, 5000);
    let (kind, detail) = failure(&turn(&mut p).reply);
    assert_eq!(kind, FailureKind::Crash, "{detail}");
    assert!(detail.contains("stdin"), "{detail}");
    finish(&mut p);
    assert_group_gone(pgid);
}

#[test]
fn a_bot_that_exits_while_its_child_holds_stdout_is_a_crash() {
    // The child keeps the pipe open, so no EOF comes: the exit itself must be noticed.
    let (_dir, command) = sh_bot(&format!(
        "read hello\n{READY}\n(trap '' TERM; while :; do sleep 1; done) &\nread turn\nexit 4\n"
    ));
    let (mut p, _, pgid) = started(command, 5000, 5000);
    let started = Instant::now();
    let (kind, detail) = failure(&turn(&mut p).reply);
    assert_eq!(kind, FailureKind::Crash, "{detail}");
    assert!(detail.contains("exit status 4"), "{detail}");
    assert!(started.elapsed() < Duration::from_secs(2));
    let started = Instant::now();
    finish(&mut p);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "finish is bounded"
    );
    assert_group_gone(pgid);
}

#[test]
fn a_hanging_bot_with_a_child_holding_stdout_leaves_nothing_behind() {
    let (_dir, command) = sh_bot(&format!(
        "trap '' TERM\nread hello\n{READY}\n(trap '' TERM; while :; do sleep 1; done) &\nread turn\nwhile :; do sleep 1; done\n"
    ));
    let (mut p, _, pgid) = started(command, 1000, 5000);
    let (kind, _) = failure(&turn(&mut p).reply);
    assert_eq!(kind, FailureKind::Timeout);
    let started = Instant::now();
    finish(&mut p);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "finish is bounded"
    );
    assert_group_gone(pgid);
}

#[test]
fn finish_escalates_to_kill_for_a_bot_that_ignores_end_and_sigterm() {
    let (_dir, command) = sh_bot(&format!(
        "trap '' TERM\nread hello\n{READY}\n(trap '' TERM; while :; do sleep 1; done) &\nwhile :; do sleep 1; done\n"
    ));
    let (mut p, _, pgid) = started(command, 1000, 5000);
    let started = Instant::now();
    finish(&mut p);
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "finish is bounded"
    );
    assert_group_gone(pgid);
}

#[test]
fn dropping_a_player_kills_its_bot() {
    let (_dir, command) = sh_bot(&format!(
        "read hello\n{READY}\n(while :; do sleep 1; done) &\nwhile :; do sleep 1; done\n"
    ));
    let (p, _, pgid) = started(command, 1000, 5000);
    drop(p);
    assert_group_gone(pgid);
}

#[test]
fn a_whole_game_through_the_referee_with_two_process_bots() {
    let body = format!(
        "read hello\n{READY}\nwhile read line; do case \"$line\" in *'\"end\"'*) exit 0;; esac; {MOVE}; done\n"
    );
    let (_d1, c1) = sh_bot(&body);
    let (_d2, c2) = sh_bot(&body);
    let (mut a, ga) = Watched::new(c1);
    let (mut b, gb) = Watched::new(c2);
    let g = Shapes { plies: 10 };
    let record = arbiter::referee::play_game(
        &g,
        [&mut a, &mut b],
        ["a", "b"],
        &arbiter::referee::MatchConfig::default(),
        &mut |_| {},
    );
    assert_eq!(record.reason, "round_limit");
    assert_eq!(record.plies, 10);
    assert!(record.moves.iter().all(|m| m.verdict == "move"));
    assert_eq!(
        record.logs["rebel"].announced_name.as_deref(),
        Some("sh-bot")
    );
    for pgid in [ga, gb] {
        assert_group_gone(pgid.lock().unwrap().expect("started"));
    }
}

#[test]
fn unsolicited_replies_are_dropped_and_noted() {
    // The stray move goes out with `ready`, in one write: from `ready` on, the bot is
    // frozen until its turn, and a move written after that is its reply.
    let ready_and_move = r#"printf '%s\n' '{"type":"ready","name":"sh-bot"}' '{"type":"move","move":[[3,2],[2,2]]}'"#;
    let (_dir, command) = sh_bot(&format!(
        "read hello\n{ready_and_move}\nread turn\necho '{{\"type\":\"move\",\"move\":[[4,4],[3,4]]}}'\nread end\n"
    ));
    let (mut p, _, _) = started(command, 5000, 5000);
    match turn(&mut p).reply {
        Reply::Wire(v) => assert_eq!(v, serde_json::json!([[4, 4], [3, 4]])),
        other => panic!("expected the real reply, got {other:?}"),
    }
    let log = finish(&mut p);
    assert!(
        log.chatter.contains("ignored unsolicited"),
        "{}",
        log.chatter
    );
}

#[test]
fn an_error_between_turns_counts_at_the_next_turn() {
    // Sent with `ready`, in one write (from `ready` on, the bot is frozen until its turn).
    let ready_and_error = r#"printf '%s\n' '{"type":"ready","name":"sh-bot"}' '{"type":"error","message":"background thread died"}'"#;
    let (_dir, command) = sh_bot(&format!("read hello\n{ready_and_error}\nsleep 30\n"));
    let (mut p, _, pgid) = started(command, 5000, 5000);
    let (kind, detail) = failure(&turn(&mut p).reply);
    assert_eq!(kind, FailureKind::Exception);
    assert_eq!(detail, "background thread died");
    finish(&mut p);
    assert_group_gone(pgid);
}
