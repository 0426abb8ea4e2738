//! Bots started ahead: while a worker plays a game, the bots of its next game are started
//! and handshaken (by default only while a core is left over from the games in play; the
//! tests that need it ask for it with `ARBITER_PRESTART`). The games are the games played
//! without starting ahead, and bots started for a game that is never played (a stop, an
//! SPRT verdict) are killed and reaped.

use crate::bots_common::{assert_no_process_with, processes_with};
use crate::common::*;
use crate::league::league_cmd;
use arbiter::bots::spec::BotSpec;
use arbiter::games::asalto::Asalto;
use arbiter::jail::sandbox::TOKEN_VAR;
use arbiter::record::GameRecord;
use arbiter::tournament::{self, Entrant, Format, LeagueEvent, PRESTART_VAR, Tournament};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// A course bot that raises in its constructor: it fails before `ready`.
const BROKEN_BOT: &str =
    "class Player:\n    def __init__(self):\n        raise RuntimeError('no board for me')\n";

/// The example course bot `name` (random_bot, greedy_bot) slowed down by `pause` seconds a
/// move, written into `dir` as `file`, beside the rules module that the greedy one imports:
/// the folder in every bot's command line marks the bot's processes. Its random choices are
/// seeded, so that a test's results do not hang on a lucky game (an SPRT whose unseeded
/// greedy bot drew two pairs against the random one once gave H0).
fn slowed_course_bot(dir: &Path, name: &str, file: &str, pause: f64) -> String {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("bots/python/examples");
    std::fs::copy(
        examples.join("asalto_moves.py"),
        dir.join("asalto_moves.py"),
    )
    .unwrap();
    let source = read(&examples.join(format!("{name}.py")));
    let slowed = format!(
        "{source}\n\nimport random as _random\nimport time as _time\n_Fast = Player\n\n\n\
         class Player(_Fast):\n    def __init__(self):\n        _Fast.__init__(self)\n        \
         self.rng = _random.Random(7)\n\n    \
         def play_rebel(self, board):\n        _time.sleep({pause})\n        \
         return _Fast.play_rebel(self, board)\n\n    def play_officer(self, board):\n        \
         _time.sleep({pause})\n        return _Fast.play_officer(self, board)\n"
    );
    let path = dir.join(file);
    std::fs::write(&path, slowed).unwrap();
    path.display().to_string()
}

/// The processes of the bots the arbiter process `pid` started, whatever they run: each
/// carries a token of its arbiter in its environment.
fn bot_processes_of(pid: u32) -> Vec<i32> {
    let wanted = format!("{TOKEN_VAR}={pid}-");
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| e.file_name().to_str()?.parse::<i32>().ok())
        .filter(|p| {
            std::fs::read(format!("/proc/{p}/environ")).is_ok_and(|env| {
                env.split(|&b| b == 0)
                    .any(|var| var.starts_with(wanted.as_bytes()))
            })
        })
        .collect()
}

/// Waits (bounded) until no bot process of the arbiter process `pid` is left.
fn assert_no_bot_of(pid: u32) {
    for _ in 0..50 {
        if bot_processes_of(pid).is_empty() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!(
        "bot processes outlived arbiter {pid}: {:?}",
        bot_processes_of(pid)
    );
}

/// A record as it compares across runs: everything but the reply times, the game's wall
/// time and the name of a confined bot's private folder, made afresh for every bot (it
/// shows in a traceback).
fn timeless(mut record: GameRecord) -> GameRecord {
    for m in &mut record.moves {
        m.time_ms = 0.0;
    }
    record.duration_ms = None;
    let unnamed = |text: &str| {
        let mut out = String::new();
        let mut rest = text;
        while let Some(at) = rest.find("arbiter-bot-") {
            let (head, tail) = rest.split_at(at + "arbiter-bot-".len());
            out.push_str(head);
            out.push_str("PID-XXXXXX");
            // `PID-RANDOM`: up to the folder's end.
            let end = tail.find('/').unwrap_or(tail.len());
            rest = &tail[end..];
        }
        out + rest
    };
    record.detail = record.detail.as_deref().map(unnamed);
    for log in record.logs.values_mut() {
        log.stderr = unnamed(&log.stderr);
    }
    record
}

/// The same games, game for game, in the same order.
fn assert_same_games(got: &[(u64, GameRecord)], want: &[(u64, GameRecord)], what: &str) {
    let ids = |games: &[(u64, GameRecord)]| games.iter().map(|(id, _)| *id).collect::<Vec<_>>();
    assert_eq!(ids(got), ids(want), "{what}: games or their order differ");
    for ((id, a), (_, b)) in got.iter().zip(want) {
        assert!(a == b, "{what}: game {id} differs:\n{a:?}\n{b:?}");
    }
}

fn league_records(
    out: &Path,
    extra: &[&str],
    bots: &[&str],
    env: &[(&str, &str)],
) -> Vec<(u64, GameRecord)> {
    let mut cmd = league_cmd(out, extra, bots);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (code, stdout, stderr) = run(&mut cmd);
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    journal_records(out)
        .into_iter()
        .map(|(id, r)| (id, timeless(r)))
        .collect()
}

#[test]
fn games_with_bots_started_ahead_are_the_games_without() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken").join("TeamBroken.py");
    std::fs::create_dir_all(broken.parent().unwrap()).unwrap();
    std::fs::write(&broken, BROKEN_BOT).unwrap();
    // Deterministic bots (seeded by their hello) and one that fails before `ready`.
    let bots = [
        format!("r={}", served("random")),
        format!("g={}", served("greedy")),
        format!("b={}", broken.display()),
    ];
    let bots: Vec<&str> = bots.iter().map(String::as_str).collect();
    let args = ["--pairs", "2", "-j", "1", "--seed", "9"];
    let without = league_records(
        &dir.path().join("without"),
        &args,
        &bots,
        &[(PRESTART_VAR, "0")],
    );
    // Started ahead whatever the cores (by default only while a core is left over).
    let ahead_env = [(PRESTART_VAR, "1")];
    let ahead = league_records(&dir.path().join("ahead"), &args, &bots, &ahead_env);
    assert_eq!(without.len(), 12);
    // The failure before `ready` is the same record whenever the bot was started.
    let failed: Vec<&str> = without.iter().map(|(_, r)| r.reason.as_str()).collect();
    assert!(
        failed.contains(&"exception"),
        "the broken bot fails its handshake: {failed:?}"
    );
    // At -j 1, the same records in the same order.
    assert_same_games(&ahead, &without, "-j 1");

    // At -j 2 the order of the journal is the order games end in; each game is the same.
    let args = ["--pairs", "2", "-j", "2", "--seed", "9"];
    let mut parallel = league_records(&dir.path().join("parallel"), &args, &bots, &ahead_env);
    parallel.sort_by_key(|(id, _)| *id);
    assert_same_games(&parallel, &without, "-j 2");

    // A shard plays its part of the schedule with bots started ahead, game for game the
    // same as in the whole run.
    let shard_out = dir.path().join("shard");
    let args = ["--pairs", "2", "-j", "2", "--seed", "9", "--shard", "2/3"];
    let mut shard = league_records(&shard_out, &args, &bots, &ahead_env);
    assert!(!shard.is_empty());
    shard.sort_by_key(|(id, _)| *id);
    let whole: Vec<(u64, GameRecord)> = without
        .iter()
        .filter(|(id, _)| shard.iter().any(|(i, _)| i == id))
        .cloned()
        .collect();
    assert_same_games(&shard, &whole, "shard 2/3");
}

fn course_entrant(name: &str, file: &str) -> Entrant {
    Entrant {
        name: name.into(),
        spec_text: file.into(),
        spec: BotSpec::parse(file).unwrap(),
        cwd: None,
        env: BTreeMap::new(),
        confine: Default::default(),
        non_scoring: false,
        file: None,
    }
}

/// Whether the process `pid` still runs (not a zombie) with `marker` in its command line.
fn running_with(pid: i32, marker: &str) -> bool {
    let alive = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| !stat.contains(") Z "));
    alive && processes_with(marker).contains(&pid)
}

#[test]
fn a_stop_kills_and_reaps_the_bots_started_for_the_next_game() {
    let dir = tempfile::tempdir().unwrap();
    // The bots' file names mark their processes (a confined bot sees its file at a
    // path of its own, under the same name).
    let marker = "prestart_stop_bot_";
    // SAFETY: set before any thread of this test starts; nextest runs each test in a
    // process of its own. Started ahead whatever the cores.
    unsafe { std::env::set_var(PRESTART_VAR, "1") };
    let a = slowed_course_bot(dir.path(), "random_bot", "prestart_stop_bot_a.py", 0.02);
    let b = slowed_course_bot(dir.path(), "greedy_bot", "prestart_stop_bot_b.py", 0.02);
    let out: PathBuf = dir.path().join("out");
    let t = Tournament {
        format: Format::RoundRobin,
        entrants: vec![course_entrant("a", &a), course_entrant("b", &b)],
        pairs: 3,
        seed: 4,
        move_limit: Duration::from_secs(10),
        init_limit: Duration::from_secs(30),
        jobs: 1,
        out: out.clone(),
        force_new: false,
        update: false,
        openings: tournament::openings::Openings::Standard,
        shard: None,
        left_out: Vec::new(),
        merged: Vec::new(),
        refused: Vec::new(),
        replays: false,
        chores: None,
        live: None,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let mut seen_ahead = Vec::new();
    let summary = tournament::run(
        &Asalto::default(),
        serde_json::Map::new(),
        &t,
        &stop,
        &mut |event| {
            if let LeagueEvent::GameFinished { .. } = event
                && !stop.load(Ordering::SeqCst)
            {
                // The first game's bots are gone by now: what runs (one worker) is the
                // next games' bots, started while the first was played.
                seen_ahead = processes_with(marker);
                stop.store(true, Ordering::SeqCst);
            }
            Ok(())
        },
    )
    .unwrap();
    assert!(
        !seen_ahead.is_empty(),
        "the next games' bots were started during the first game"
    );
    assert_eq!(summary.played, 1, "the stop ends the run after one game");
    assert!(summary.interrupted);
    // Killed before the run returned, not after.
    let left: Vec<i32> = seen_ahead
        .into_iter()
        .filter(|&p| running_with(p, marker))
        .collect();
    assert!(
        left.is_empty(),
        "bots started ahead outlived the run: {left:?}"
    );
    assert_no_process_with(marker);
    assert_eq!(journal_records(&out).len(), 1);
}

#[test]
fn ctrl_c_while_the_next_games_bots_wait_leaves_no_bot_and_a_resumable_journal() {
    let dir = tempfile::tempdir().unwrap();
    let a = slowed_course_bot(dir.path(), "random_bot", "prestart_ctrlc_a.py", 0.01);
    let b = slowed_course_bot(dir.path(), "greedy_bot", "prestart_ctrlc_b.py", 0.01);
    let out = dir.path().join("out");
    let args = ["--pairs", "4", "-j", "1", "--limit-ms", "5000"];
    let bots = [a.as_str(), b.as_str()];
    let child = league_cmd(&out, &args, &bots)
        .env(PRESTART_VAR, "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Mid-league (a game journaled), one game in play at -j 1 has two bots: more, for
    // longer than a game's end takes, means the next games' are up too.
    let league = child.id() as i32;
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut both_up_since = None::<Instant>;
    let mut waiting = false;
    while Instant::now() < deadline {
        let journaled = std::fs::read_to_string(out.join("games.jsonl"))
            .map(|t| t.lines().count())
            .unwrap_or(0);
        // The header and a game.
        let with_a = bots_with("prestart_ctrlc_a.py", league);
        let with_b = bots_with("prestart_ctrlc_b.py", league);
        if journaled >= 2 && with_a.min(with_b) >= 2 {
            let since = *both_up_since.get_or_insert_with(Instant::now);
            if since.elapsed() >= Duration::from_millis(50) {
                waiting = true;
                break;
            }
        } else {
            both_up_since = None;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    assert!(
        waiting,
        "the next games' bots were never up beside the game in play"
    );
    let status = std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    let pid = child.id();
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(130), "{stderr}");
    assert_no_bot_of(pid);
    assert_no_process_with("prestart_ctrlc_");
    // Nothing the stop ended was journaled, and a rerun plays the rest.
    let partial = journal_records(&out);
    assert!(partial.len() < 8, "stopped early: {} games", partial.len());
    assert!(
        partial.iter().all(|(_, r)| r.reason != "crash"),
        "{partial:?}"
    );
    let (code, _, stderr) = run(league_cmd(&out, &args, &bots).env(PRESTART_VAR, "1"));
    assert_eq!(code, 0, "{stderr}");
    let mut ids: Vec<u64> = journal_records(&out).iter().map(|(id, _)| *id).collect();
    ids.sort();
    assert_eq!(ids, (0..8).collect::<Vec<_>>());
    assert_no_process_with("prestart_ctrlc_");
}

/// How many processes other than the arbiter process `arbiter` (whose command line names
/// every bot) have `marker` in their command line.
fn bots_with(marker: &str, arbiter: i32) -> usize {
    processes_with(marker)
        .into_iter()
        .filter(|&p| p != arbiter)
        .count()
}

/// The longest time more than `limit` processes of one of two bots were up at once while
/// a league of them ran with `extra` arguments (sampled every 2 ms to its end). A stretch,
/// not a count: as one game ends and the next begins, a bot on its way out may still be
/// seen beside the next game's (more so on a loaded machine), while a bot started ahead is
/// up for most of the game before its own, whose moves take 10 ms each.
fn longest_over(dir: &Path, extra: &[&str], marker: &str, limit: usize) -> (Duration, String) {
    let a = slowed_course_bot(dir, "random_bot", &format!("{marker}a.py"), 0.01);
    let b = slowed_course_bot(dir, "greedy_bot", &format!("{marker}b.py"), 0.01);
    let out = dir.join(format!("{marker}out"));
    let mut child = league_cmd(&out, extra, &[a.as_str(), b.as_str()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let league = child.id() as i32;
    let (mut over_since, mut longest) = (None::<Instant>, Duration::ZERO);
    while child.try_wait().unwrap().is_none() {
        let with_a = bots_with(&format!("{marker}a.py"), league);
        let with_b = bots_with(&format!("{marker}b.py"), league);
        if with_a.max(with_b) > limit {
            let since = *over_since.get_or_insert_with(Instant::now);
            longest = longest.max(since.elapsed());
        } else {
            over_since = None;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let output = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert_eq!(journal_records(&out).len(), 4, "{stderr}");
    (longest, stderr)
}

/// By default the bots of a worker's next game are started ahead only while the games in
/// play leave a core idle: at -j 1 on a machine of two cores or more, the next game's bots
/// are up beside the game in play; at the default -j (a game on every core), a bot has one
/// process per game in play but for a moment as a game ends.
#[test]
fn bots_are_started_ahead_only_while_a_core_is_left_over() {
    let dir = tempfile::tempdir().unwrap();
    let cores = arbiter::clocks::placement::cores();
    let moment = Duration::from_millis(150);
    let (over, stderr) = longest_over(dir.path(), &["--pairs", "2"], "prestart_full_", cores);
    assert!(
        over < moment,
        "more processes of one bot than games for {over:?} with {cores} games on {cores} \
         cores: bots were started ahead\n{stderr}"
    );
    if cores >= 2 {
        let extra = ["--pairs", "2", "-j", "1"];
        let (over, stderr) = longest_over(dir.path(), &extra, "prestart_spare_", 1);
        assert!(
            over >= moment,
            "one game at a time on {cores} cores, and the next game's bots were up beside it \
             for {over:?} at most\n{stderr}"
        );
    }
}

#[test]
fn an_sprt_verdict_kills_the_bots_started_for_games_it_no_longer_needs() {
    let dir = tempfile::tempdir().unwrap();
    let strong = slowed_course_bot(dir.path(), "greedy_bot", "prestart_sprt_strong.py", 0.0);
    let weak = slowed_course_bot(dir.path(), "random_bot", "prestart_sprt_weak.py", 0.0);
    let out = dir.path().join("sprt");
    let child = arbiter()
        .env(PRESTART_VAR, "1")
        .args(["sprt", "--game", "asalto", "--out"])
        .arg(&out)
        .args(["--candidate", &strong, "--baseline", &weak])
        .args([
            "--elo0",
            "0",
            "--elo1",
            "400",
            "--model",
            "logistic",
            "--seed",
            "3",
            "-j",
            "2",
            "--max-pairs",
            "200",
            "--json",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let output = child.wait_with_output().unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr),
    );
    assert_eq!(
        output.status.code(),
        Some(0),
        "H1 expected:\n{stdout}\n{stderr}"
    );
    let pairs = serde_json::from_str::<serde_json::Value>(stdout.lines().last().unwrap()).unwrap()
        ["pairs"]
        .as_u64()
        .unwrap();
    assert!(pairs < 200, "the verdict came early: {pairs} pairs");
    assert_no_bot_of(pid);
    assert_no_process_with("prestart_sprt_");
}
