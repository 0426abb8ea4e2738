//! Course-style Python bots through the embedded adapter, and the misbehaving example bots
//! of bots/python/examples, each adjudicated through the referee with the right verdict and
//! leaving no process behind. The game is a stand-in with Asalto's wire shapes, so that
//! these tests do not depend on the rules engine.

use crate::bots_common as common;

use arbiter::bots::python::course_command;
use arbiter::bots::spec::CommandSpec;
use arbiter::record::GameRecord;
use arbiter::referee::{MatchConfig, play_game};
use common::*;
use serde_json::json;
use std::path::PathBuf;
use std::time::Duration;

fn example(name: &str) -> PathBuf {
    python_dir().join("examples").join(name)
}

fn misbehaving(name: &str) -> PathBuf {
    python_dir().join("examples/misbehaving").join(name)
}

fn course(file: PathBuf) -> CommandSpec {
    course_command(&file, None)
}

/// Plays `rebel` against `officer` for `plies` turns with a 1 s move limit; checks that
/// neither bot left a process behind.
fn play(rebel: CommandSpec, officer: CommandSpec, plies: u32) -> GameRecord {
    let (mut a, ga) = Watched::new(rebel);
    let (mut b, gb) = Watched::new(officer);
    let config = MatchConfig {
        move_limit: Duration::from_millis(1000),
        init_limit: Duration::from_secs(10),
        seed: 3,
        ..MatchConfig::default()
    };
    let record = play_game(
        &Shapes { plies },
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
fn the_example_bots_play_legal_shaped_moves() {
    let record = play(
        course(example("random_bot.py")),
        course(example("greedy_bot.py")),
        6,
    );
    assert_eq!(record.reason, "round_limit", "{record:?}");
    assert!(
        record.moves.iter().all(|m| m.verdict == "move"),
        "{record:?}"
    );
    assert_eq!(
        record.logs["rebel"].announced_name.as_deref(),
        Some("random_bot")
    );
    assert_eq!(
        record.logs["officer"].announced_name.as_deref(),
        Some("greedy_bot")
    );
}

#[test]
fn a_bot_thinking_past_the_limit_loses_on_time() {
    let record = play(
        course(misbehaving("slow_bot.py")),
        course(example("random_bot.py")),
        6,
    );
    assert_eq!(record.reason, "timeout");
    assert_eq!(record.winner.as_deref(), Some("officer"));
    assert_eq!(record.moves[0].verdict, "failed");
}

#[test]
fn a_bot_raising_at_move_three_loses_by_exception_with_the_traceback() {
    let record = play(
        course(example("random_bot.py")),
        course(misbehaving("raise_bot.py")),
        20,
    );
    assert_eq!(record.reason, "exception");
    assert_eq!(record.winner.as_deref(), Some("rebel"));
    // The officer's third turn is ply 5.
    assert_eq!(record.plies, 6);
    let detail = record.detail.unwrap_or_default();
    assert!(detail.contains("Traceback"), "{detail}");
    assert!(
        detail.contains("RuntimeError: deliberate failure on move 3"),
        "{detail}"
    );
}

#[test]
fn printing_inside_a_move_never_reaches_the_protocol() {
    let record = play(
        course(misbehaving("noisy_bot.py")),
        course(misbehaving("noisy_bot.py")),
        6,
    );
    assert_eq!(record.reason, "round_limit", "{record:?}");
    assert!(
        record.moves.iter().all(|m| m.verdict == "move"),
        "{record:?}"
    );
    let log = &record.logs["rebel"];
    assert!(log.stderr.contains("thinking about"), "{}", log.stderr);
    assert!(
        log.stderr.contains("fake, written to fd 1"),
        "{}",
        log.stderr
    );
    assert!(log.stderr.contains("noisy bot loading"), "{}", log.stderr);
    assert!(log.chatter.is_empty(), "{}", log.chatter);
}

#[test]
fn non_moves_are_illegal_moves_not_crashes() {
    let record = play(
        course(misbehaving("bad_returns_bot.py")),
        course(example("random_bot.py")),
        18,
    );
    assert_eq!(record.reason, "round_limit", "{record:?}");
    assert_eq!(record.illegal["rebel"], 9);
    assert_eq!(record.illegal["officer"], 0);
    let replies: Vec<_> = record
        .moves
        .iter()
        .filter(|m| m.side == "rebel")
        .map(|m| (m.reply.clone(), m.verdict.as_str()))
        .collect();
    let expected = [
        json!(null),
        json!("e2e4"),
        json!(3.5),
        json!({"a": 1}),
        json!([[1]]),
        json!("nan"),
        json!(true),
        json!([[3, 2], "x"]),
    ];
    for (i, want) in expected.iter().enumerate() {
        assert_eq!(&replies[i].0, want, "reply {i}");
        assert_eq!(replies[i].1, "illegal");
    }
    assert!(replies[8].0.as_str().unwrap_or("").starts_with("<object"));
}

#[test]
fn tuples_and_integer_like_values_are_accepted() {
    let record = play(
        course(misbehaving("tuple_bot.py")),
        course(misbehaving("tuple_bot.py")),
        8,
    );
    assert_eq!(record.reason, "round_limit", "{record:?}");
    assert!(
        record.moves.iter().all(|m| m.verdict == "move"),
        "{record:?}"
    );
}

#[test]
fn an_exit_before_the_handshake_is_a_crash() {
    let record = play(
        course(example("random_bot.py")),
        course(misbehaving("exit_early_bot.py")),
        6,
    );
    assert_eq!(record.reason, "crash");
    assert_eq!(record.winner.as_deref(), Some("rebel"));
    let detail = record.detail.unwrap_or_default();
    assert!(detail.contains("exit status 3"), "{detail}");
    assert!(detail.contains("giving up at import"), "{detail}");
}

#[test]
fn a_constructor_that_raises_is_an_exception_at_the_handshake() {
    let record = play(
        course(misbehaving("bad_init_bot.py")),
        course(example("random_bot.py")),
        6,
    );
    assert_eq!(record.reason, "exception");
    assert_eq!(record.winner.as_deref(), Some("officer"));
    assert!(
        record
            .detail
            .unwrap_or_default()
            .contains("cannot load my opening book")
    );
}

#[test]
fn a_missing_interpreter_is_a_spawn_failure() {
    let record = play(
        course_command(&example("random_bot.py"), Some("/no/such/python3")),
        course(example("random_bot.py")),
        6,
    );
    assert_eq!(record.reason, "spawn_failed");
    assert_eq!(record.winner.as_deref(), Some("officer"));
    assert!(
        record
            .detail
            .unwrap_or_default()
            .contains("/no/such/python3")
    );
}

#[test]
fn a_forked_child_holding_stdout_cannot_hang_the_game_or_survive_it() {
    let record = play(
        CommandSpec::new("sh").arg(misbehaving("fork_hang_bot.sh").to_string_lossy()),
        course(example("random_bot.py")),
        6,
    );
    assert_eq!(record.reason, "timeout");
    assert_eq!(record.winner.as_deref(), Some("officer"));
}

#[test]
fn a_huge_line_is_an_illegal_move() {
    let record = play(
        CommandSpec::new("python3")
            .arg("-u")
            .arg(misbehaving("huge_line_bot.py").to_string_lossy()),
        course(example("random_bot.py")),
        4,
    );
    assert_eq!(record.reason, "round_limit", "{record:?}");
    assert_eq!(record.moves[0].verdict, "illegal");
    assert!(
        record.moves[0]
            .reply
            .as_str()
            .unwrap_or("")
            .starts_with("<discarded: over-long line")
    );
    assert_eq!(record.illegal["rebel"], 2);
}

#[test]
fn a_flood_of_output_stays_bounded() {
    let record = play(
        CommandSpec::new("python3")
            .arg("-u")
            .arg(misbehaving("flood_bot.py").to_string_lossy()),
        course(example("random_bot.py")),
        6,
    );
    assert_eq!(record.reason, "round_limit", "{record:?}");
    let log = &record.logs["rebel"];
    assert!(log.chatter.len() < 70 * 1024, "{}", log.chatter.len());
    assert!(log.stderr.len() < 70 * 1024, "{}", log.stderr.len());
}

#[test]
fn a_bot_killing_itself_mid_game_is_a_crash_with_its_status() {
    let record = play(
        course(misbehaving("exit_midgame_bot.py")),
        course(example("random_bot.py")),
        10,
    );
    assert_eq!(record.reason, "crash");
    assert_eq!(record.winner.as_deref(), Some("officer"));
    assert_eq!(record.plies, 3, "the rebel's second turn is ply 2");
    let detail = record.detail.unwrap_or_default();
    assert!(detail.contains("exit status 5"), "{detail}");
}

#[test]
fn a_forked_child_does_not_outlive_the_game() {
    let file = misbehaving("forking_bot.py");
    let record = play(course(file.clone()), course(example("random_bot.py")), 6);
    assert_eq!(record.reason, "round_limit", "{record:?}");
    assert!(
        record.moves.iter().all(|m| m.verdict == "move"),
        "{record:?}"
    );
    // `play` checked the process group. The fork also carries the file in its command line,
    // and only this test runs this bot: any live process naming it is a survivor.
    std::thread::sleep(Duration::from_millis(100));
    let left: Vec<String> = processes_with(&file.to_string_lossy())
        .into_iter()
        .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/stat")).ok())
        .filter(|stat| !stat.contains(") Z "))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

/// What the adapter writes to stdout for `input`, run directly (no referee).
fn adapter_output(spec: &CommandSpec, input: &str) -> String {
    String::from_utf8(run_adapter(spec, &[], input).stdout).unwrap()
}

/// The adapter run directly on `input` (no referee), the interpreter given `python_flags`
/// first: its exit, stdout and stderr.
fn run_adapter(spec: &CommandSpec, python_flags: &[&str], input: &str) -> std::process::Output {
    let mut child = std::process::Command::new(&spec.program)
        .args(python_flags)
        .args(&spec.args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    std::io::Write::write_all(&mut stdin, input.as_bytes()).unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

/// The adapter reads a turn exactly as arbiter writes it for Asalto by a quicker route than
/// json.loads; any other spelling of the same turn must get the same reply, and a line
/// that only looks like a turn must be skipped as before.
#[test]
fn a_turn_gets_the_same_reply_however_it_is_spelled() {
    let dir = tempfile::tempdir().unwrap();
    let bot = dir.path().join("Echo.py");
    std::fs::write(
        &bot,
        "class Player:\n\
         \x20   def play_rebel(self, board):\n\
         \x20       return [(len(board), len(board[0])), (''.join(board[2]).count('R'), ord(board[1][2]))]\n\
         \x20   def play_officer(self, board):\n\
         \x20       board[0][0] = 'x'\n\
         \x20       return [[-1, sum(row.count('O') for row in board)]]\n",
    )
    .unwrap();
    let spec = course(bot);
    let rows = r#"["  ...  ","  O.O  ","RR...RR","RRRRRRR","RRRRRRR","  RRR  ","  RRR  "]"#;
    let exact = |role: &str, ply: &str| {
        format!(
            r#"{{"type":"turn","role":"{role}","board":{rows},"illegal":{{"officer":0,"rebel":12}},"ply":{ply}}}"#
        )
    };
    let hello = r#"{"type":"hello","protocol":1,"game":"asalto","role":"rebel","time_limit_ms":1000,"init_limit_ms":1000,"seed":1}"#;
    let lines = [
        hello.to_string(),
        exact("rebel", "0"),
        exact("officer", "907"),
        // The same turns spelled otherwise: keys reordered, spaces, escapes, no counters.
        format!(r#"{{"board":{rows},"type":"turn","ply":0,"role":"rebel"}}"#),
        format!(r#"{{ "type": "turn", "role": "offic\u0065r", "board": {rows} }}"#),
        exact("rebel", "0").replace("RRRRRRR", "RRRR\\u0052RR"),
        // Not JSON (a leading zero): skipped, as json.loads refuses it.
        exact("rebel", "01"),
        exact("officer", "1").replace("\"ply\":1}", "\"ply\":1,\"x\":[]}"),
    ];
    let replies: Vec<serde_json::Value> = adapter_output(&spec, &(lines.join("\n") + "\n"))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let rebel = json!({"type": "move", "move": [[7, 7], [4, 79]]});
    let officer = json!({"type": "move", "move": [[-1, 2]]});
    assert_eq!(
        replies,
        [
            json!({"type": "ready", "name": "Echo"}),
            rebel.clone(),
            officer.clone(),
            rebel.clone(),
            officer.clone(),
            rebel,
            officer,
        ]
    );
}

/// The adapter reads the hello exactly as arbiter writes it without the json module, and
/// writes `ready` itself for a plain name: any other spelling of the hello must give the
/// same role, a line that is no JSON object is skipped before it, and a name that needs
/// escaping comes out as json.dumps writes it.
#[test]
fn a_hello_gets_the_same_role_however_it_is_spelled() {
    let dir = tempfile::tempdir().unwrap();
    let bot = dir.path().join("Roles.py");
    std::fs::write(
        &bot,
        "class Player:\n\
         \x20   name = 'Zo\u{eb} \"the\" bot\\\\'\n\
         \x20   def play_rebel(self, board):\n\
         \x20       return [(1, 1), (1, 2)]\n\
         \x20   def play_officer(self, board):\n\
         \x20       return [(2, 2), (2, 3)]\n",
    )
    .unwrap();
    let spec = course(bot);
    let rows = r#"["  ...  ","  O.O  ","RR...RR","RRRRRRR","RRRRRRR","  RRR  ","  RRR  "]"#;
    // A turn without a role: the bot plays the role its hello gave.
    let turn = format!(r#"{{"type":"turn","board":{rows}}}"#);
    let officer = r#"{"type":"move","move":[[2,2],[2,3]]}"#;
    let rebel = r#"{"type":"move","move":[[1,1],[1,2]]}"#;
    let ready = r#"{"type":"ready","name":"Zo\u00eb \"the\" bot\\"}"#;
    for (hello, played) in [
        (
            r#"{"type":"hello","protocol":1,"game":"asalto","role":"officer","time_limit_ms":1000,"init_limit_ms":1000,"seed":7}"#,
            officer,
        ),
        (
            r#"{"seed":7,"role":"rebel","type":"hello","protocol":1,"game":"asalto"}"#,
            rebel,
        ),
        (
            r#"{ "type": "hello", "protocol": 1, "game": "asalto", "role": "offic\u0065r" }"#,
            officer,
        ),
        // A leading zero is no JSON: as json.loads would, the adapter does not take it.
        (
            r#"{"type":"hello","protocol":1,"game":"asalto","role":"rebel","time_limit_ms":01,"init_limit_ms":1,"seed":1}"#,
            "",
        ),
    ] {
        let input = format!("not json\n{hello}\n{turn}\n");
        let out = adapter_output(&spec, &input);
        let lines: Vec<&str> = out.lines().collect();
        if played.is_empty() {
            // The turn is then taken as the first message and the role is unknown.
            assert!(
                !lines.contains(&rebel) && !lines.contains(&officer),
                "{out}"
            );
            continue;
        }
        assert_eq!(lines, [ready, played], "for {hello}");
    }
}

/// The adapter writes the usual reply (a sequence of integer pairs) itself, a format per
/// length: every length, short or long, must come out as the JSON the bot's value is, in
/// the compact spelling json.dumps gives.
#[test]
fn a_move_of_any_length_reaches_the_referee_as_returned() {
    let dir = tempfile::tempdir().unwrap();
    let bot = dir.path().join("Lengths.py");
    std::fs::write(
        &bot,
        "LENGTHS = [0, 1, 2, 3, 8, 16, 17, 40]\n\
         class Player:\n\
         \x20   def __init__(self):\n\
         \x20       self.turn = 0\n\
         \x20   def play_rebel(self, board):\n\
         \x20       n = LENGTHS[self.turn % len(LENGTHS)]\n\
         \x20       self.turn += 1\n\
         \x20       points = [(i - 3, 2 * i) if i % 2 else [i, -i] for i in range(n)]\n\
         \x20       return tuple(points) if self.turn % 2 else points\n",
    )
    .unwrap();
    let spec = course(bot);
    let hello = r#"{"type":"hello","protocol":1,"game":"asalto","role":"rebel","time_limit_ms":1000,"init_limit_ms":1000,"seed":1}"#;
    let turn = r#"{"type":"turn","role":"rebel","board":["  ...  ","  O.O  ","RR...RR","RRRRRRR","RRRRRRR","  RRR  ","  RRR  "],"illegal":{"officer":0,"rebel":0},"ply":0}"#;
    let lengths = [0usize, 1, 2, 3, 8, 16, 17, 40];
    let input = std::iter::once(hello)
        .chain(lengths.iter().map(|_| turn))
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    let lines: Vec<String> = adapter_output(&spec, &input)
        .lines()
        .skip(1)
        .map(str::to_string)
        .collect();
    let expected: Vec<String> = lengths
        .iter()
        .map(|&n| {
            let points: Vec<[i64; 2]> = (0..n as i64)
                .map(|i| if i % 2 == 1 { [i - 3, 2 * i] } else { [i, -i] })
                .collect();
            let points = serde_json::to_string(&points).unwrap();
            format!(r#"{{"type":"move","move":{points}}}"#)
        })
        .collect();
    assert_eq!(lines, expected);
}

/// The adapter imports `traceback` only when a bot raises: where the import fails then
/// (the bot broke it), the exception is still reported, by its type and message.
#[test]
fn a_bot_raising_after_breaking_the_traceback_import_still_loses_by_exception() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("no_traceback_bot.py");
    std::fs::write(
        &file,
        r#"import sys


class Player:
    def play_rebel(self, board):
        sys.modules["traceback"] = None
        raise RuntimeError("raised with traceback unimportable")

    def play_officer(self, board):
        return self.play_rebel(board)
"#,
    )
    .unwrap();
    let record = play(course(file), course(example("random_bot.py")), 6);
    assert_eq!(record.reason, "exception", "{record:?}");
    assert_eq!(record.winner.as_deref(), Some("officer"));
    let detail = record.detail.unwrap_or_default();
    assert!(detail.contains("Traceback unavailable"), "{detail}");
    assert!(
        detail.contains("RuntimeError: raised with traceback unimportable"),
        "{detail}"
    );
}

/// A game as arbiter writes it, from `hello` to `end`, goes by the adapter without the
/// json module: its import is over a millisecond of each bot's start, and of each bot's
/// end, which the referee waits for. After `end` the adapter answers nothing more.
#[test]
fn a_game_as_arbiter_writes_it_never_imports_json_in_the_adapter() {
    use arbiter::bots::protocol::{ToBot, encode};
    use arbiter::games::Game;
    use arbiter::games::asalto::Asalto;
    let dir = tempfile::tempdir().unwrap();
    let bot = dir.path().join("Steady.py");
    std::fs::write(
        &bot,
        "class Player:\n\
         \x20   def play_rebel(self, board):\n\
         \x20       return [(4, 0), (3, 0)]\n\
         \x20   def play_officer(self, board):\n\
         \x20       return ((2, 2), (2, 3))\n",
    )
    .unwrap();
    let game = Asalto::default();
    let mut input = encode(&ToBot::Hello {
        protocol: arbiter::bots::protocol::PROTOCOL_VERSION,
        game: "asalto".into(),
        role: "rebel".into(),
        time_limit_ms: 10_000,
        init_limit_ms: 10_000,
        seed: 3,
    });
    let mut turn = Vec::new();
    game.write_turn(&game.initial(), &mut turn);
    let turn = String::from_utf8(turn).unwrap();
    input.push_str(&turn);
    input.push_str(&turn);
    input.push_str(&encode(&ToBot::End {
        result: "tie".into(),
        reason: "a \"quoted\" reason".into(),
    }));
    // Nothing after the end is answered.
    input.push_str(&turn);
    let out = run_adapter(&course(bot), &["-X", "importtime"], &input);
    assert!(out.status.success(), "{:?}", out.status);
    let rebel = r#"{"type":"move","move":[[4,0],[3,0]]}"#;
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        format!("{{\"type\":\"ready\",\"name\":\"Steady\"}}\n{rebel}\n{rebel}\n")
    );
    let imports = String::from_utf8(out.stderr).unwrap();
    let imported: Vec<&str> = imports
        .lines()
        .filter_map(|line| line.rsplit('|').next())
        .map(str::trim)
        .collect();
    // The import log is there: the adapter's own `re` is in it.
    assert!(imported.contains(&"re"), "{imports}");
    assert!(
        !imported
            .iter()
            .any(|m| *m == "json" || m.starts_with("json.")),
        "the adapter imported json:\n{imports}"
    );
}
