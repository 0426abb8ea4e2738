//! A lost move is the bot's own doing: a run paused at the terminal (Ctrl-Z, then `fg`)
//! charges no bot the pause, and its bots stop with it; an oversubscribed start says so.

use crate::common::*;
use std::time::{Duration, Instant};

/// The state letter (`R`, `S`, `T`...) and parent of process `pid`.
fn state_and_parent(pid: i32) -> Option<(char, i32)> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let mut after = stat.rsplit_once(')')?.1.split_whitespace();
    let state = after.next()?.chars().next()?;
    Some((state, after.next()?.parse().ok()?))
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
fn a_run_stopped_at_the_terminal_for_three_seconds_charges_no_bot_the_pause() {
    for level in ["namespaces", "landlock"] {
        let dir = test_dir();
        let rebel = course_thinker(dir.path(), "Team51", 0.3);
        let officer = course_thinker(dir.path(), "Team52", 0.3);
        give_to_arbiter(dir.path());
        let record = dir.path().join("game.json");
        let mut cmd = arbiter_cmd(
            &[
                "play",
                "--sandbox",
                level,
                "--round-limit",
                "6",
                "--limit-ms",
                "2500",
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
        std::thread::sleep(Duration::from_millis(1500));
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
        std::thread::sleep(Duration::from_secs(3));
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
            // 0.3 s of work a move: the 3 s pause would put any move past the limit.
            assert!(ms < 2500.0, "{level}: a move was charged {ms} ms: {m}");
        }
    }
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
