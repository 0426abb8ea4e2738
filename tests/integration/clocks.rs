//! A lost move is the bot's own doing: a run paused at the terminal (Ctrl-Z, then `fg`)
//! charges no bot the pause, and its bots stop with it; a move that busy programs outside
//! arbiter kept from running is timed without that wait, or its game played again, while
//! a bot that sleeps past its limit still loses; an oversubscribed start says so.

use crate::common::*;
use std::time::{Duration, Instant};

/// The state letter (`R`, `S`, `T`...) and parent of process `pid`.
fn state_and_parent(pid: i32) -> Option<(char, i32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut after = stat.rsplit_once(')')?.1.split_whitespace();
    let state = after.next()?.chars().next()?;
    Some((state, after.next()?.parse().ok()?))
}

/// The CPU time process `pid` used, in clock ticks (0 when it is gone).
fn cpu_ticks(pid: i32) -> u64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0;
    };
    let Some((_, rest)) = stat.rsplit_once(')') else {
        return 0;
    };
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let field = |i: usize| {
        fields
            .get(i)
            .and_then(|f| f.parse::<u64>().ok())
            .unwrap_or(0)
    };
    // After the name: state(0) ... utime(11) stime(12).
    field(11) + field(12)
}

/// Every process beneath `root`, with its state.
fn tree_states(root: i32) -> Vec<(i32, char)> {
    let mut all = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        if let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>()
            && let Some((state, parent)) = state_and_parent(pid)
        {
            all.push((pid, state, parent));
        }
    }
    let mut tree = vec![root];
    let mut found = Vec::new();
    while let Some(parent) = tree.pop() {
        for &(pid, state, p) in &all {
            if p == parent {
                tree.push(pid);
                found.push((pid, state));
            }
        }
    }
    found
}

#[test]
fn a_run_stopped_at_the_terminal_longer_than_a_move_may_take_charges_no_bot_the_pause() {
    at_both_levels(|level, _cpu| {
        let dir = test_dir();
        let rebel = course_thinker(dir.path(), "Team51", 0.25);
        let officer = course_thinker(dir.path(), "Team52", 0.25);
        give_to_arbiter(dir.path());
        let record = dir.path().join("game.json");
        let mut cmd = arbiter_cmd(
            &[
                "play",
                "--sandbox",
                level,
                "--round-limit",
                "3",
                "--limit-ms",
                "1000",
                "--rebel",
                rebel.to_str().unwrap(),
                "--officer",
                officer.to_str().unwrap(),
                "--record",
                record.to_str().unwrap(),
            ],
            &[],
        );
        cmd.stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let child = cmd.spawn().unwrap();
        // setpriv execs arbiter: the child's pid is arbiter's.
        let arbiter = child.id() as i32;
        // Stopped in the middle of a move: once a bot has thought for 0.1 s.
        let until = Instant::now() + Duration::from_secs(30);
        while !tree_states(arbiter).iter().any(|&(pid, _)| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| String::from_utf8_lossy(&c).contains("Team5"))
                && cpu_ticks(pid) >= 10
        }) {
            assert!(Instant::now() < until, "{level}: no bot ever thought");
            std::thread::sleep(Duration::from_millis(10));
        }
        rustix::process::kill_process(
            rustix::process::Pid::from_raw(arbiter).unwrap(),
            rustix::process::Signal::TSTP,
        )
        .unwrap();
        // Stopped: arbiter and every process beneath it, the bots' included.
        let until = Instant::now() + Duration::from_secs(5);
        loop {
            let stopped = state_and_parent(arbiter).is_some_and(|(s, _)| s == 'T')
                && tree_states(arbiter)
                    .iter()
                    .all(|&(_, s)| s == 'T' || s == 'Z');
            if stopped {
                break;
            }
            assert!(
                Instant::now() < until,
                "{level}: not stopped: {:?}",
                tree_states(arbiter)
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let bots = tree_states(arbiter).len();
        assert!(bots >= 2, "{level}: no bot process beneath arbiter");
        // Half again a move's limit: a move that ran on through it would be charged more.
        std::thread::sleep(Duration::from_millis(1500));
        assert!(
            tree_states(arbiter)
                .iter()
                .all(|&(_, s)| s == 'T' || s == 'Z'),
            "{level}: a bot ran while arbiter was stopped"
        );
        rustix::process::kill_process(
            rustix::process::Pid::from_raw(arbiter).unwrap(),
            rustix::process::Signal::CONT,
        )
        .unwrap();
        let out = child.wait_with_output().unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(0), "{level}: {text}");
        let record: serde_json::Value = serde_json::from_str(&read(&record)).unwrap();
        assert_eq!(record["reason"], "round_limit", "{level}: {text}");
        for m in record["moves"].as_array().unwrap() {
            let ms = m["time_ms"].as_f64().unwrap();
            // 0.25 s of work a move: the 1.5 s pause would put any move past the limit.
            assert!(ms < 1000.0, "{level}: a move was charged {ms} ms: {m}");
        }
    });
}

/// A league started with more games in play than free cores says so once, before any
/// game, with what it means for the clocks: `-j` above the cores, or other work already
/// keeping the cores busy.
#[test]
fn an_oversubscribed_start_is_announced_once_with_what_it_means_for_the_clocks() {
    let cores = std::thread::available_parallelism().unwrap().get();
    let league = |jobs: usize| {
        let dir = test_dir();
        let out = dir.path().join("out");
        let jobs = jobs.to_string();
        let (code, stdout, stderr) = run(&mut arbiter_cmd(
            &[
                "league",
                "--pairs",
                "1",
                "--round-limit",
                "5",
                "-j",
                &jobs,
                "--out",
                &out.to_string_lossy(),
                "builtin:random",
                "builtin:greedy",
            ],
            &[],
        ));
        assert_eq!(code, 0, "{stdout}{stderr}");
        stderr
    };
    let said = league(cores + 1);
    assert_eq!(said.matches("games at once on").count(), 1, "{said}");
    assert!(
        said.contains(&format!("{} games at once on {cores} cores", cores + 1))
            && said.contains("a bot may run out of time for the machine's sake, not its own"),
        "{said}"
    );
    // Busy processes outside arbiter, one per core: a league of one game at a time is
    // told the machine is busy.
    let spinners: Vec<std::process::Child> = (0..cores)
        .map(|_| {
            std::process::Command::new("sh")
                .args(["-c", "while :; do :; done"])
                .spawn()
                .unwrap()
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    let said = league(1);
    for mut spinner in spinners {
        spinner.kill().unwrap();
        spinner.wait().unwrap();
    }
    assert!(said.contains("with the machine already busy"), "{said}");
}

/// Busy processes outside arbiter, pinned to one CPU with whatever [`on_cpu`] starts there;
/// killed when dropped.
struct Hogs(Vec<std::process::Child>);

impl Hogs {
    fn start(count: usize) -> Hogs {
        Hogs::start_on(0, count)
    }

    fn start_on(cpu: usize, count: usize) -> Hogs {
        let hogs = (0..count)
            .map(|_| {
                on_cpu(
                    cpu,
                    std::process::Command::new("sh").args(["-c", "while :; do :; done"]),
                )
                .spawn()
                .unwrap()
            })
            .collect();
        // Running before the game starts.
        std::thread::sleep(Duration::from_millis(200));
        Hogs(hogs)
    }

    fn stop(&mut self) {
        for hog in &mut self.0 {
            let _ = hog.kill();
            let _ = hog.wait();
        }
        self.0.clear();
    }
}

impl Drop for Hogs {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Bots in no cgroup of their own, which the scheduler would share the CPU with as a
/// group against the busy processes': each process then gets its share, so the bot's is
/// known (a fifth beside four busy processes).
const CGROUP_OFF: (&str, &str) = ("ARBITER_CGROUP", "off");

/// `cmd`, to run on CPU 0 only (and everything it starts).
fn on_cpu_zero(cmd: &mut std::process::Command) -> &mut std::process::Command {
    on_cpu(0, cmd)
}

/// A course bot that sleeps `seconds` at each move: it waits for nothing but its timer.
fn course_sleeper(dir: &std::path::Path, name: &str, seconds: f64) -> std::path::PathBuf {
    let source = format!(
        "import time\nimport randbot\n\nclass Player(randbot.Player):\n    \
         def play_rebel(self, board):\n        time.sleep({seconds})\n        \
         return super().play_rebel(board)\n"
    );
    course_team(dir, name, &source)
}

/// A course bot that answers at once.
fn course_quick(dir: &std::path::Path, name: &str) -> std::path::PathBuf {
    let team = dir.join(name);
    std::fs::create_dir_all(&team).unwrap();
    let file = team.join(format!("{name}.py"));
    std::fs::write(&file, course_random_bot()).unwrap();
    file
}

/// `arbiter play` of `rebel` and `officer` for `rounds` rounds at `--limit-ms 1000` on
/// CPU `cpu`, beside `hogs` busy processes pinned there: its exit code, output and record.
fn play_beside_hogs(
    cpu: usize,
    level: &str,
    dir: &std::path::Path,
    rebel: &std::path::Path,
    officer: &std::path::Path,
    rounds: &str,
    hogs: usize,
) -> (i32, String, serde_json::Value) {
    give_to_arbiter(dir);
    let record = dir.join("game.json");
    let _hogs = Hogs::start_on(cpu, hogs);
    let (code, stdout, stderr) = run(on_cpu(
        cpu,
        &mut arbiter_cmd(
            &[
                "play",
                "--sandbox",
                level,
                "--round-limit",
                rounds,
                "--limit-ms",
                "1000",
                "--rebel",
                rebel.to_str().unwrap(),
                "--officer",
                officer.to_str().unwrap(),
                "--record",
                record.to_str().unwrap(),
            ],
            &[CGROUP_OFF],
        ),
    ));
    let text = format!("{level}: {stdout}{stderr}");
    let record = serde_json::from_str(&std::fs::read_to_string(&record).unwrap_or_default())
        .unwrap_or(serde_json::Value::Null);
    (code, text, record)
}

/// A bot that sleeps past its limit loses by `timeout`, busy CPU or not: a sleeping bot
/// waits for no CPU, so the machine gives it nothing back.
#[test]
fn a_bot_sleeping_past_its_limit_loses_by_timeout_even_beside_busy_processes_on_its_cpu() {
    at_both_levels(|level, cpu| {
        let dir = test_dir();
        let rebel = course_sleeper(dir.path(), "Team81", 2.0);
        let officer = course_quick(dir.path(), "Team82");
        let (code, text, record) =
            play_beside_hogs(cpu, level, dir.path(), &rebel, &officer, "1", 3);
        assert_eq!(code, 0, "{text}");
        assert_eq!(record["reason"], "timeout", "{text}");
        assert_eq!(record["winner"], "officer", "{text}");
        assert!(
            record["detail"]
                .as_str()
                .is_some_and(|d| d.contains("no reply within 1000 ms")),
            "{text}"
        );
        // What it waited for its CPU before it fell asleep may be given back; its sleep not.
        let waited: f64 = record["machine"]["waited"].as_array().map_or(0.0, |w| {
            w.iter().map(|w| w["waited_ms"].as_f64().unwrap()).sum()
        });
        assert!(waited < 500.0, "{level}: {record}");
    });
}

/// A bot that needs 0.5 s of CPU a move at `--limit-ms 1000`, kept waiting for its CPU by
/// three busy processes pinned there (about 2 s of wall time a move), loses nothing: its
/// moves are timed without the wait, and the record says how long each waited.
#[test]
fn a_move_made_late_by_busy_processes_on_its_cpu_is_timed_without_the_wait() {
    at_both_levels(|level, cpu| {
        let dir = test_dir();
        let rebel = course_thinker(dir.path(), "Team83", 0.5);
        let officer = course_quick(dir.path(), "Team84");
        let (code, text, record) =
            play_beside_hogs(cpu, level, dir.path(), &rebel, &officer, "1", 3);
        assert_eq!(code, 0, "{text}\n{record}");
        assert_eq!(record["reason"], "round_limit", "{text}\n{record}");
        let waited = record["machine"]["waited"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert!(!waited.is_empty(), "{level}: no move ran late: {record}");
        for w in &waited {
            let ms = w["waited_ms"].as_f64().unwrap();
            assert_eq!(w["side"], "rebel", "{level}: {w}");
            // Kept from its CPU for most of the move.
            assert!(ms > 300.0, "{level}: waited only {ms} ms: {w}");
            let ply = w["ply"].as_u64().unwrap() as usize;
            let time = record["moves"][ply]["time_ms"].as_f64().unwrap();
            assert!(
                time < 1000.0 && time + ms > 1000.0,
                "{level}: move {ply} timed {time} ms after {ms} ms of waiting"
            );
        }
        assert!(
            text.contains("late moves timed without their wait for a CPU"),
            "{text}"
        );
    });
}

/// A game whose bot the machine kept from running past eight times its limit has no
/// result: a league plays it again (here once the busy processes are gone), the journal
/// keeps why, and the summary and report count it.
#[test]
fn a_game_the_machine_left_without_a_result_is_played_again_and_counted() {
    let dir = test_dir();
    // 0.25 s of CPU a move: beside sixteen busy processes on its CPU it gets about a
    // seventeenth of it, under 0.17 s in the 2.8 s a move may stretch to; alone, 0.25 s of
    // its 0.35 s.
    let thinker = course_thinker(dir.path(), "Team85", 0.25);
    let quick = course_quick(dir.path(), "Team86");
    give_to_arbiter(dir.path());
    let out = dir.path().join("out");
    let mut hogs = Hogs::start(16);
    let mut cmd = arbiter_cmd(
        &[
            "league",
            "--pairs",
            "1",
            "--round-limit",
            "1",
            "--limit-ms",
            "350",
            "-j",
            "1",
            "--out",
            out.to_str().unwrap(),
            thinker.to_str().unwrap(),
            quick.to_str().unwrap(),
        ],
        // No bots started ahead: the busy processes go once the first game's thinker is.
        &[("ARBITER_PRESTART", "0"), CGROUP_OFF],
    );
    on_cpu_zero(&mut cmd)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let child = cmd.spawn().unwrap();
    let arbiter = child.id() as i32;
    // The thinker's processes that have thought: 0.1 s of CPU or more (a league's check
    // of its bots before the games starts its interpreter briefly too).
    let thinking = || -> Vec<i32> {
        tree_states(arbiter)
            .into_iter()
            .map(|(pid, _)| pid)
            .filter(|pid| {
                std::fs::read(format!("/proc/{pid}/cmdline"))
                    .is_ok_and(|c| String::from_utf8_lossy(&c).contains("Team85"))
                    && cpu_ticks(*pid) >= 10
            })
            .collect()
    };
    // The first play's thinker: once it is gone, so are the busy processes.
    let until = Instant::now() + Duration::from_secs(60);
    let mut seen: Vec<i32> = Vec::new();
    loop {
        assert!(Instant::now() < until, "the first play never ended");
        for pid in thinking() {
            if !seen.contains(&pid) {
                seen.push(pid);
            }
        }
        let gone = |pid: &i32| !std::path::Path::new(&format!("/proc/{pid}")).exists();
        if !seen.is_empty() && seen.iter().all(gone) {
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    hogs.stop();
    let out_text = child.wait_with_output().unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out_text.stdout),
        String::from_utf8_lossy(&out_text.stderr)
    );
    assert_eq!(out_text.status.code(), Some(0), "{text}");
    let records = journal_records(&out);
    assert_eq!(records.len(), 2, "{text}");
    let replayed: Vec<&Vec<String>> = records
        .iter()
        .map(|(_, r)| &r.machine.replayed)
        .filter(|r| !r.is_empty())
        .collect();
    assert_eq!(replayed.len(), 1, "{text}");
    assert_eq!(replayed[0].len(), 1, "{text}");
    assert!(
        replayed[0][0].contains("Team85") && replayed[0][0].contains("kept the bot from running"),
        "{:?}",
        replayed[0]
    );
    for (_, r) in &records {
        assert_ne!(r.reason, "machine_load", "{text}");
        assert_ne!(r.reason, "timeout", "{text}");
    }
    assert!(text.contains("machine load: 1 game replayed"), "{text}");
    assert!(text.contains("played again 1x (machine load)"), "{text}");
    let report = read(&out.join("report").join("report.md"));
    assert!(report.contains("Machine load: 1 game replayed"), "{report}");
}

/// A program run once per move (a console bot) is timed the same way: kept waiting for its
/// CPU by busy processes there, it is given the wait back and answers within its limit.
#[test]
fn a_console_bot_kept_waiting_by_busy_processes_on_its_cpu_is_timed_without_the_wait() {
    use arbiter::bots::process::once::{Exit, run_once};
    use arbiter::bots::spec::CommandSpec;
    // No cgroup of its own (see CGROUP_OFF).
    // SAFETY: nextest runs each test in a process of its own, and no other thread of this
    // one reads the environment.
    unsafe { std::env::set_var(CGROUP_OFF.0, CGROUP_OFF.1) };
    // This thread, and so the program it starts, on CPU 0 with the busy processes; and the
    // process's main thread, whose CPUs arbiter starts a program on (`placement`).
    let before = rustix::thread::sched_getaffinity(None).unwrap();
    let mut zero = rustix::thread::CpuSet::new();
    zero.set(0);
    rustix::thread::sched_setaffinity(None, &zero).unwrap();
    rustix::thread::sched_setaffinity(Some(rustix::process::getpid()), &zero).unwrap();
    // The interpreter's files read once first: the time its start waits for a cold disk is
    // its own, not the machine's CPU wait this test measures.
    let warm = std::process::Command::new("/usr/bin/python3")
        .args(["-c", "import time"])
        .status();
    assert!(warm.is_ok_and(|s| s.success()));
    let hogs = Hogs::start(3);
    // 0.25 s of CPU at a 1000 ms limit (with the interpreter's start and its jail's, some
    // 0.4 s): about 1.6 s of wall time beside three busy processes.
    let program = CommandSpec::new("/usr/bin/python3").arg("-c").arg(
        "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.25:\n    pass\n",
    );
    let limit = Duration::from_millis(1000);
    let ran = run_once(&program, None, limit, &[]);
    drop(hogs);
    rustix::thread::sched_setaffinity(None, &before).unwrap();
    let ran = ran.expect("python3 starts");
    assert_eq!(ran.exit, Exit::Success, "{ran:?}");
    assert!(ran.waited > Duration::from_millis(200), "{ran:?}");
    assert!(ran.elapsed < limit, "{ran:?}");
    assert!(ran.elapsed + ran.waited > limit, "{ran:?}");
}

/// A course bot that cheats the fair clocks: at its first move it forks `spinners` busy
/// processes at nice 19 pinned to its own CPU (they wait in its run queue almost the whole
/// time) and a sleeping process allowed on every CPU (as if it owned them all); then
/// each move burns `cpu_s` of CPU time in its main process.
fn course_clock_buyer(dir: &std::path::Path, name: &str, cpu_s: f64) -> std::path::PathBuf {
    let source = format!(
        r#"import os, time
import randbot

def _spin():
    os.nice(19)
    while True:
        pass

class Player(randbot.Player):
    _armed = False
    def _think(self):
        if not Player._armed:
            Player._armed = True
            cpu = min(os.sched_getaffinity(0))
            os.sched_setaffinity(0, {{cpu}})
            for _ in range(3):
                if os.fork() == 0:
                    _spin()
            if os.fork() == 0:
                os.sched_setaffinity(0, set(range(os.cpu_count())))
                time.sleep(3600)
        start = time.process_time()
        while time.process_time() - start < {cpu_s}:
            pass
    def play_rebel(self, board):
        self._think()
        return super().play_rebel(board)
    def play_officer(self, board):
        self._think()
        return super().play_officer(board)
"#
    );
    course_team(dir, name, &source)
}

/// The run-queue wait of a bot's own processes is not the machine's: a bot that keeps its
/// own spinners waiting on its CPU, and spreads a sleeping process over every CPU, is given
/// nothing back for it, and a move that burns three times its limit of CPU loses by
/// `timeout`, at both levels, as an ordinary user.
#[test]
fn a_bot_that_makes_its_own_tasks_wait_buys_no_time() {
    at_both_levels(|level, cpu| {
        let dir = test_dir();
        let rebel = course_clock_buyer(dir.path(), "Team87", 1.5);
        let officer = course_quick(dir.path(), "Team88");
        give_to_arbiter(dir.path());
        let record = dir.path().join("game.json");
        let (code, stdout, stderr) = run(on_cpu(
            cpu,
            &mut arbiter_cmd(
                &[
                    "play",
                    "--sandbox",
                    level,
                    "--round-limit",
                    "3",
                    "--limit-ms",
                    "500",
                    "--rebel",
                    rebel.to_str().unwrap(),
                    "--officer",
                    officer.to_str().unwrap(),
                    "--record",
                    record.to_str().unwrap(),
                ],
                &[],
            ),
        ));
        let text = format!("{level}: {stdout}{stderr}");
        assert_eq!(code, 0, "{text}");
        let record: serde_json::Value = serde_json::from_str(&read(&record)).unwrap();
        assert_eq!(record["reason"], "timeout", "{text}\n{record}");
        assert_eq!(record["winner"], "officer", "{text}\n{record}");
        // Not one of its moves was accepted.
        let rebel_moves = record["moves"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["side"] == "rebel" && m["verdict"] != "failed")
            .count();
        assert_eq!(rebel_moves, 0, "{level}: {record}");
    });
}

/// A bot whose own processes keep it waiting never makes its game `machine_load`: it never
/// answers, it loses by `timeout`, and the league ends (exit 0) instead of stopping with
/// exit 4 for "the machine's other programs", at both levels, as an ordinary user.
#[test]
fn a_bot_whose_own_tasks_keep_it_waiting_cannot_stop_a_league() {
    let dir = test_dir();
    let stalling = course_clock_buyer(dir.path(), "Team89", 1000.0);
    let quick = course_quick(dir.path(), "Team90");
    give_to_arbiter(dir.path());
    for level in ["namespaces", "landlock"] {
        let (out, code, text) = league_on_cpu_zero(dir.path(), level, &[&stalling, &quick], &[]);
        assert_eq!(code, 0, "{text}");
        let records = journal_records(&out);
        assert_eq!(records.len(), 2, "{text}");
        for (_, r) in &records {
            assert_eq!(r.reason, "timeout", "{text}");
            assert!(r.machine.replayed.is_empty(), "{text}");
        }
        assert!(text.contains("machine load: 0 games replayed"), "{text}");
    }
}

/// `arbiter league` of `bots` at `level` on CPU 0 (one pair, two rounds, a 300 ms limit,
/// `-j 1`), as an ordinary user with `env` added: its results folder, exit code and output.
fn league_on_cpu_zero(
    dir: &std::path::Path,
    level: &str,
    bots: &[&std::path::Path],
    env: &[(&str, &str)],
) -> (std::path::PathBuf, i32, String) {
    let out = dir.join(format!("out-{level}"));
    let mut args = vec![
        "league",
        "--sandbox",
        level,
        "--pairs",
        "1",
        "--round-limit",
        "2",
        "--limit-ms",
        "300",
        "-j",
        "1",
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend(bots.iter().map(|bot| bot.to_str().unwrap()));
    let (code, stdout, stderr) = run(on_cpu_zero(&mut arbiter_cmd(&args, env)));
    (out, code, format!("{level}: {stdout}{stderr}"))
}

/// A course bot that escapes its freeze: one-shot POSIX timers, armed before each reply,
/// send it SIGCONT a millisecond apart for the next `span_ms`, and a thread of its own spins
/// all along, pondering on its opponent's time. `arm_at_start`: the timers and the thread
/// start with the player (before `ready`), as a bot started ahead for its next game would.
fn course_freeze_escaper(
    dir: &std::path::Path,
    name: &str,
    arm_at_start: bool,
) -> std::path::PathBuf {
    let source = format!(
        r#"import ctypes, signal, threading
import randbot

_libc = ctypes.CDLL(None, use_errno=True)

class _Sigevent(ctypes.Structure):
    _fields_ = [("value", ctypes.c_void_p), ("signo", ctypes.c_int),
                ("notify", ctypes.c_int), ("rest", ctypes.c_int * 12)]

class _Timespec(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("nsec", ctypes.c_long)]

class _Itimerspec(ctypes.Structure):
    _fields_ = [("interval", _Timespec), ("value", _Timespec)]

def _arm(span_ms):
    for ms in range(1, span_ms + 1):
        event = _Sigevent(signo=signal.SIGCONT, notify=0)
        timer = ctypes.c_void_p()
        if _libc.timer_create(1, ctypes.byref(event), ctypes.byref(timer)) != 0:
            return
        when = _Itimerspec()
        when.value.sec, when.value.nsec = ms // 1000, (ms % 1000) * 1000000
        _libc.timer_settime(timer, 0, ctypes.byref(when), None)

def _ponder():
    while True:
        pass

class Player(randbot.Player):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        threading.Thread(target=_ponder, daemon=True).start()
        if {arm_at_start}:
            _arm(3000)
    def play_rebel(self, board):
        _arm(1000)
        return super().play_rebel(board)
    def play_officer(self, board):
        _arm(1000)
        return super().play_officer(board)
"#,
        arm_at_start = if arm_at_start { "True" } else { "False" }
    );
    course_team(dir, name, &source)
}

/// A bot that has itself continued while frozen for its opponent's move (timers that send
/// it SIGCONT) computes nothing on its opponent's time for long: it loses its game by
/// `ran_while_frozen` at the end of the opponent's move, at both levels, as an ordinary
/// user; also when it armed the timers before its `ready`, as a bot started ahead would.
#[test]
fn a_bot_that_thaws_itself_while_frozen_loses_by_ran_while_frozen() {
    at_both_levels(|level, cpu| {
        for arm_at_start in [false, true] {
            let dir = test_dir();
            let escaper = course_freeze_escaper(dir.path(), "Team91", arm_at_start);
            let thinker = course_thinker(dir.path(), "Team92", 0.3);
            give_to_arbiter(dir.path());
            let record = dir.path().join("game.json");
            let (code, stdout, stderr) = run(on_cpu(
                cpu,
                &mut arbiter_cmd(
                    &[
                        "play",
                        "--sandbox",
                        level,
                        "--round-limit",
                        "5",
                        "--limit-ms",
                        "3000",
                        "--rebel",
                        thinker.to_str().unwrap(),
                        "--officer",
                        escaper.to_str().unwrap(),
                        "--record",
                        record.to_str().unwrap(),
                    ],
                    &[],
                ),
            ));
            let text = format!("{level}, armed at start: {arm_at_start}: {stdout}{stderr}");
            assert_eq!(code, 0, "{text}");
            let record: serde_json::Value = serde_json::from_str(&read(&record)).unwrap();
            assert_eq!(record["reason"], "ran_while_frozen", "{text}\n{record}");
            assert_eq!(record["winner"], "rebel", "{text}\n{record}");
            let detail = record["detail"].as_str().unwrap_or_default();
            assert!(detail.starts_with("officer: used "), "{text}\n{record}");
            // Caught at the first move it had the time of: the thinker's first or second.
            assert!(record["plies"].as_u64().unwrap() <= 3, "{text}\n{record}");
        }
        // Moving first, armed before its `ready`, against an opponent slow to start: it
        // computes before its opponent has moved at all, and is caught at its own first
        // turn.
        let dir = test_dir();
        let escaper = course_freeze_escaper(dir.path(), "Team91", true);
        let slow = course_team(
            dir.path(),
            "Team92",
            "import time\nimport randbot\n\nclass Player(randbot.Player):\n    \
             def __init__(self, *args, **kwargs):\n        time.sleep(0.5)\n        \
             super().__init__(*args, **kwargs)\n",
        );
        give_to_arbiter(dir.path());
        let record = dir.path().join("game.json");
        let (code, stdout, stderr) = run(on_cpu(
            cpu,
            &mut arbiter_cmd(
                &[
                    "play",
                    "--sandbox",
                    level,
                    "--round-limit",
                    "5",
                    "--limit-ms",
                    "3000",
                    "--rebel",
                    escaper.to_str().unwrap(),
                    "--officer",
                    slow.to_str().unwrap(),
                    "--record",
                    record.to_str().unwrap(),
                ],
                &[],
            ),
        ));
        let text = format!("{level}, moving first: {stdout}{stderr}");
        assert_eq!(code, 0, "{text}");
        let record: serde_json::Value = serde_json::from_str(&read(&record)).unwrap();
        assert_eq!(record["reason"], "ran_while_frozen", "{text}\n{record}");
        assert_eq!(record["winner"], "officer", "{text}\n{record}");
        assert_eq!(record["plies"], 1, "{text}\n{record}");
    });
}

/// A course bot that leaves kernel work running as it replies: threads that each start a
/// read of 192 MiB (`preadv`, from the page cache) just before its move is returned.
fn course_kernel_worker(dir: &std::path::Path, name: &str) -> std::path::PathBuf {
    let source = r#"import os, threading
import randbot

SIZE = 192 << 20
state = {}

def read_all():
    buf = state["bufs"].pop()
    os.preadv(state["fd"], [buf], 0)
    state["bufs"].append(buf)

class Player(randbot.Player):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # Made within the start-up limit: writing the file in a move could run past the
        # move limit on a disk still busy (a machine that just installed packages).
        with open("data", "wb") as f:
            f.write(b"\x02" * SIZE)
        state["fd"] = os.open("data", os.O_RDONLY)
        state["bufs"] = [bytearray(SIZE) for _ in range(4)]
    def _leave_work(self):
        for _ in range(4):
            threading.Thread(target=read_all, daemon=True).start()
    def play_rebel(self, board):
        self._leave_work()
        return super().play_rebel(board)
    def play_officer(self, board):
        self._leave_work()
        return super().play_officer(board)
"#;
    course_team(dir, name, source)
}

/// Kernel work a bot leaves running when it is frozen (large reads it started just before
/// replying) is CPU time used while frozen: it loses by `ran_while_frozen`, at both levels,
/// as an ordinary user.
#[test]
fn a_bot_that_leaves_kernel_work_running_while_frozen_loses_by_ran_while_frozen() {
    at_both_levels(|level, cpu| {
        let dir = test_dir();
        let worker = course_kernel_worker(dir.path(), "Team93");
        let thinker = course_thinker(dir.path(), "Team94", 0.3);
        give_to_arbiter(dir.path());
        let record = dir.path().join("game.json");
        let (code, stdout, stderr) = run(on_cpu(
            cpu,
            &mut arbiter_cmd(
                &[
                    "play",
                    "--sandbox",
                    level,
                    "--round-limit",
                    "5",
                    "--limit-ms",
                    "5000",
                    "--rebel",
                    worker.to_str().unwrap(),
                    "--officer",
                    thinker.to_str().unwrap(),
                    "--record",
                    record.to_str().unwrap(),
                ],
                &[],
            ),
        ));
        let text = format!("{level}: {stdout}{stderr}");
        assert_eq!(code, 0, "{text}");
        let record: serde_json::Value = serde_json::from_str(&read(&record)).unwrap();
        assert_eq!(record["reason"], "ran_while_frozen", "{text}\n{record}");
        assert_eq!(record["winner"], "officer", "{text}\n{record}");
    });
}

/// A bot started ahead for its next game is frozen from its `ready`: the thirty busy
/// processes its player starts as it is made (before `ready`) take nothing from the games
/// played meanwhile, no game is played again for the machine's load, and the league ends
/// (exit 0), at both levels, as an ordinary user.
#[test]
fn a_bot_started_ahead_with_busy_helpers_takes_nothing_from_the_games_in_play() {
    let dir = test_dir();
    let spawner = course_team(
        dir.path(),
        "Team95",
        r#"import os
import randbot

class Player(randbot.Player):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for _ in range(30):
            if os.fork() == 0:
                while True:
                    pass
"#,
    );
    let thinkers: Vec<std::path::PathBuf> = ["Team96", "Team97"]
        .iter()
        .map(|name| course_thinker(dir.path(), name, 0.15))
        .collect();
    give_to_arbiter(dir.path());
    for level in ["namespaces", "landlock"] {
        let bots = [
            spawner.as_path(),
            thinkers[0].as_path(),
            thinkers[1].as_path(),
        ];
        // One game started ahead, as where a core is left over.
        let (out, code, text) =
            league_on_cpu_zero(dir.path(), level, &bots, &[("ARBITER_PRESTART", "1")]);
        assert_eq!(code, 0, "{text}");
        let records = journal_records(&out);
        assert_eq!(records.len(), 6, "{text}");
        for (_, r) in &records {
            assert!(r.machine.replayed.is_empty(), "{text}");
            assert_ne!(r.reason, "machine_load", "{text}");
            // The thinkers' games with each other are played as on a quiet machine.
            let names: Vec<&String> = r.players.values().collect();
            if !names.iter().any(|n| n.contains("Team95")) {
                assert_eq!(r.reason, "round_limit", "{text}");
            }
        }
        assert!(text.contains("machine load: 0 games replayed"), "{text}");
    }
}
