//! The zoo bots that hold the process layer to docs/PROTOCOL.md and docs/SECURITY.md: each
//! case, in both roles (and under `--sandbox user` when root), gets the verdict the docs
//! promise, with the bot's time taken when its reply or failure was seen, and leaves no
//! process behind.

use crate::common::{arbiter, read, run, served};
use crate::zoo::{
    MOVE_MS, Played, assert_no_stray, lost_by, play, pythons_running, zoo_case, zoo_copy, zoo_dir,
};
use arbiter::bots::protocol::UNDECODABLE_MOVE_PREFIX;
use arbiter::bots::python::course_command;
use arbiter::bots::spec::Limits;
use arbiter::bots::spec::{Confinement, SandboxMode};
use arbiter::games::Side;
use arbiter::jail::cgroup::cgroup_of;
use std::path::Path;
use std::time::{Duration, Instant};

/// The time recorded for the zoo bot's last move (the one it failed on).
fn last_move_ms(p: &Played) -> f64 {
    p.record
        .moves
        .iter()
        .rev()
        .find(|m| m.side == p.zoo_role)
        .map_or(f64::NAN, |m| m.time_ms)
}

/// Every reply of the zoo bot was judged illegal and the game went on to its end.
fn every_reply_illegal(p: &Played) {
    assert_eq!(p.reason(), "round_limit", "{}", p.describe());
    assert_eq!(p.record.illegal[p.zoo_role], 3, "{}", p.describe());
}

/// The zoo bot's replies, as recorded.
fn zoo_replies(p: &Played) -> Vec<&serde_json::Value> {
    let zoo = p.zoo_role;
    p.record
        .moves
        .iter()
        .filter(|m| m.side == zoo)
        .map(|m| &m.reply)
        .collect()
}

/// A limit the bot's failure (at once, on its first turn) is far inside, and that the old
/// timing, which charged the cleanup to the bot, went past.
const SHORT_MS: u64 = 500;

#[test]
fn closing_stdout_is_a_crash_timed_when_the_end_of_output_is_seen() {
    zoo_case(
        "closes_stdout.py",
        &[],
        Limits::default(),
        SHORT_MS,
        false,
        |p, _| {
            lost_by(p, "crash");
            assert!(last_move_ms(p) < 0.5 * SHORT_MS as f64, "{}", p.describe());
        },
    );
}

#[test]
fn exiting_while_a_grandchild_holds_the_pipes_is_a_crash_timed_at_the_exit() {
    zoo_case(
        "escapee.py",
        &[],
        Limits::default(),
        SHORT_MS,
        false,
        |p, _| {
            lost_by(p, "crash");
            assert!(last_move_ms(p) < 0.5 * SHORT_MS as f64, "{}", p.describe());
        },
    );
}

#[test]
fn a_python_bot_writing_past_its_file_limit_loses_by_file_size() {
    let limits = Limits {
        file_mb: Some(1),
        ..Limits::default()
    };
    // Uncaught (the traceback in stderr, exit status 1) and reported (an `error`).
    for args in [vec![], vec!["report".to_string()]] {
        zoo_case("file_hog.py", &args, limits, MOVE_MS, false, |p, _| {
            lost_by(p, "file_size");
            let detail = p.record.detail.as_deref().unwrap_or("");
            assert!(
                detail.contains("file size limit of 1 MiB") && detail.contains("File too large"),
                "{args:?}: {}",
                p.describe()
            );
        });
    }
}

#[test]
fn a_lone_surrogate_move_is_an_illegal_move() {
    zoo_case(
        "surrogate_move.py",
        &[],
        Limits::default(),
        MOVE_MS,
        false,
        |p, _| {
            every_reply_illegal(p);
            for reply in zoo_replies(p) {
                assert_eq!(reply, "\u{fffd}", "{}", p.describe());
            }
        },
    );
}

#[test]
fn a_400_digit_integer_move_is_an_illegal_move_that_says_why() {
    zoo_case(
        "huge_int_move.py",
        &[],
        Limits::default(),
        MOVE_MS,
        false,
        |p, _| {
            every_reply_illegal(p);
            for reply in zoo_replies(p) {
                let text = reply.as_str().unwrap_or("");
                assert!(
                    text.starts_with(UNDECODABLE_MOVE_PREFIX)
                        && text.contains("number out of range"),
                    "{}",
                    p.describe()
                );
            }
        },
    );
}

#[test]
fn an_error_message_with_undecodable_bytes_is_an_exception_with_its_traceback() {
    zoo_case(
        "error_bytes.py",
        &[],
        Limits::default(),
        MOVE_MS,
        false,
        |p, _| {
            lost_by(p, "exception");
            let detail = p.record.detail.as_deref().unwrap_or("");
            assert!(
                detail.contains("Traceback")
                    && detail
                        .contains("FileNotFoundError: no such model file: weights-\u{fffd}.bin"),
                "{}",
                p.describe()
            );
        },
    );
}

/// The course bot tests/zoo/course_odd.py misbehaving as `case`, through arbiter's course
/// adapter, in both roles: each game goes to `check`.
fn course_case(case: &str, limits: Limits, check: impl Fn(&Played)) {
    for side in Side::BOTH {
        let mut bot = course_command(&zoo_dir().join("course_odd.py"), None);
        bot.env.insert("ZOO_CASE".into(), case.into());
        bot.confine = Confinement {
            limits,
            sandbox: SandboxMode::None,
            ..Default::default()
        };
        check(&play(bot, side, MOVE_MS));
    }
    assert_no_stray("course_odd.py", &[zoo_dir()]);
}

#[test]
fn course_bots_returning_undecodable_values_make_illegal_moves() {
    course_case("surrogate", Limits::default(), |p| {
        every_reply_illegal(p);
        assert!(
            zoo_replies(p).iter().all(|r| *r == "\u{fffd}"),
            "{}",
            p.describe()
        );
    });
    course_case("huge_int", Limits::default(), |p| {
        every_reply_illegal(p);
        let undecodable = |r: &&serde_json::Value| {
            r.as_str()
                .is_some_and(|t| t.starts_with(UNDECODABLE_MOVE_PREFIX))
        };
        assert!(zoo_replies(p).iter().all(undecodable), "{}", p.describe());
    });
}

#[test]
fn a_course_bot_raising_with_undecodable_bytes_is_an_exception_with_its_traceback() {
    course_case("undecodable_error", Limits::default(), |p| {
        lost_by(p, "exception");
        let detail = p.record.detail.as_deref().unwrap_or("");
        assert!(
            detail.contains("Traceback") && detail.contains("weights-\u{fffd}.bin"),
            "{}",
            p.describe()
        );
    });
}

#[test]
fn a_course_bot_writing_past_its_file_limit_loses_by_file_size() {
    let limits = Limits {
        file_mb: Some(1),
        ..Limits::default()
    };
    course_case("file_hog", limits, |p| {
        lost_by(p, "file_size");
        let detail = p.record.detail.as_deref().unwrap_or("");
        assert!(detail.contains("File too large"), "{}", p.describe());
    });
}

#[test]
fn a_helper_in_its_own_session_without_environment_does_not_outlive_its_game() {
    // zoo_case checks that no process naming the script survives: the helper names it.
    zoo_case(
        "session_helper.py",
        &[],
        Limits::default(),
        MOVE_MS,
        false,
        |p, _| {
            assert_eq!(p.reason(), "round_limit", "{}", p.describe());
        },
    );
}

/// Without a cgroup (`ARBITER_CGROUP=off`), a helper that left the bot's group and
/// cleared its environment is still swept: found by its parent while the bot is stopped
/// before it is killed (`sleep`: the bot times out), or, once the bot exited by itself and
/// the helper was orphaned, as an orphan no running bot claims.
#[test]
fn without_a_cgroup_a_helper_in_its_own_session_is_still_swept() {
    let copy = zoo_copy();
    let roots = [copy.path().to_path_buf()];
    let helper = format!(
        "python3 -u {}",
        copy.path().join("session_helper.py").display()
    );
    let polite = format!("python3 -u {}", copy.path().join("polite.py").display());
    for args in ["", " sleep"] {
        let helper = format!("{helper}{args}");
        for (rebel, officer) in [(&helper, &polite), (&polite, &helper)] {
            let mut cmd = arbiter();
            cmd.env(arbiter::jail::cgroup::DISABLE_VAR, "off")
                .args(["play", "--rebel", rebel, "--officer", officer])
                .args(["--round-limit", "2", "--limit-ms", "1000"]);
            let (code, stdout, stderr) = run(&mut cmd);
            assert_eq!(code, 0, "{stdout}\n{stderr}");
            let verdict = if args.is_empty() {
                "round_limit"
            } else {
                "timeout"
            };
            assert!(stdout.contains(verdict), "{args:?}: {stdout}");
            assert_no_stray("session_helper.py", &roots);
        }
    }
}

/// Zombie children of this process that are not group leaders and not in its own group:
/// orphans inherited from bots (bot leaders lead their groups and are reaped by their
/// owners; the tests' own commands share this process's group).
fn inherited_zombies() -> Vec<i32> {
    let me = std::process::id() as i32;
    let my_group = rustix::process::getpgrp().as_raw_nonzero().get();
    arbiter::jail::procfs::processes()
        .into_iter()
        .filter(|p| p.state == 'Z' && p.ppid == me && p.pgrp != p.pid && p.pgrp != my_group)
        .map(|p| p.pid)
        .collect()
}

#[test]
fn orphans_inherited_by_the_subreaper_are_reaped_as_they_arrive() {
    zoo_case(
        "zombie_maker.py",
        &[],
        Limits::default(),
        MOVE_MS,
        false,
        |p, _| {
            assert_eq!(p.reason(), "round_limit", "{}", p.describe());
        },
    );
    // Other tests' orphans come and go meanwhile: none may stay.
    let until = Instant::now() + Duration::from_secs(5);
    loop {
        let left = inherited_zombies();
        if left.is_empty() {
            return;
        }
        assert!(Instant::now() < until, "zombies left: {left:?}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_legal_move_padded_to_exactly_the_line_limit_is_accepted_before_lf_and_crlf() {
    for args in [vec![], vec!["crlf".to_string()]] {
        zoo_case(
            "padded_move.py",
            &args,
            Limits::default(),
            5000,
            false,
            |p, _| {
                assert_eq!(p.reason(), "round_limit", "{args:?}: {}", p.describe());
                assert_eq!(
                    p.record.illegal[p.zoo_role],
                    0,
                    "{args:?}: {}",
                    p.describe()
                );
            },
        );
    }
}

/// Replies are matched to turns by order alone (docs/PROTOCOL.md): a second reply is
/// dropped and noted when it arrives before the next turn is sent, and taken as the answer
/// to the next turn when it arrives after. Which one happens is a race the bot runs with
/// the opponent's turn; either way a repeated legal move is no fault and the game goes on.
#[test]
fn a_second_reply_right_after_the_first_is_no_fault_either_way() {
    zoo_case(
        "double_reply.py",
        &[],
        Limits::default(),
        MOVE_MS,
        false,
        |p, _| {
            assert_eq!(p.reason(), "round_limit", "{}", p.describe());
            assert_eq!(p.record.illegal[p.zoo_role], 0, "{}", p.describe());
            assert_eq!(zoo_replies(p).len(), 3, "{}", p.describe());
        },
    );
}

#[test]
fn the_reference_bot_plays_hinger_in_both_roles() {
    let dir = tempfile::tempdir().unwrap();
    for served_first in [true, false] {
        let bot = served("random");
        let bot = format!("{bot} --game hinger");
        let (first, second) = if served_first {
            (bot.as_str(), "builtin:random")
        } else {
            ("builtin:random", bot.as_str())
        };
        let record = dir.path().join(format!("hinger-{served_first}.json"));
        let mut cmd = arbiter();
        cmd.args([
            "play", "--game", "hinger", "--first", first, "--second", second,
        ])
        .args(["--limit-ms", "5000", "--record"])
        .arg(&record);
        let (code, stdout, stderr) = run(&mut cmd);
        assert_eq!(code, 0, "{stdout}\n{stderr}");
        let rec: serde_json::Value = serde_json::from_str(&read(&record)).unwrap();
        let role = if served_first { "first" } else { "second" };
        let served_moves = rec["moves"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["side"] == role)
            .count();
        assert!(served_moves >= 1, "{rec}");
        let reason = rec["reason"].as_str().unwrap();
        assert!(
            !["exception", "crash", "timeout", "protocol_error"].contains(&reason)
                && rec["illegal"][role] == 0,
            "{rec}"
        );
    }
}

/// Starts `cmd`, an arbiter command whose bots include the zoo script `sleeper_file` from
/// one of `roots`, with a long move limit; returns once the script runs: arbiter's process
/// and the script's pid.
// The caller waits for the returned child (the lint does not follow it out).
#[allow(clippy::zombie_processes)]
fn start_until_running(
    mut cmd: std::process::Command,
    sleeper_file: &str,
    roots: &[std::path::PathBuf],
) -> (std::process::Child, i32) {
    let mut child = cmd
        .args(["--limit-ms", "60000"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("arbiter starts");
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(&pid) = pythons_running(sleeper_file, roots).first() {
            return (child, pid);
        }
        if Instant::now() >= until {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{sleeper_file} never started");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// `arbiter ARGS` running `sleeper` (a zoo script and its arguments: one that sleeps on
/// its turn) and `polite.py` (from a fresh copy of the zoo, in the order `bots` gives them:
/// `--rebel`/`--officer` flags or positional bots), ended by `signals` sent one after the
/// other once the sleeper sleeps: arbiter exits, and no bot or helper survives, nor any
/// bot's private folder.
fn signals_end_command_and_its_bots(
    command: &[&str],
    sleeper: &str,
    bots: impl Fn(String, String) -> Vec<String>,
    signals: &[rustix::process::Signal],
    without_cgroup: bool,
) {
    let copy = zoo_copy();
    let roots = [copy.path().to_path_buf()];
    let script = |name: &str| format!("python3 -u {}", copy.path().join(name).display());
    let sleeper_file = sleeper.split(' ').next().unwrap();
    let mut cmd = arbiter();
    if without_cgroup {
        cmd.env(arbiter::jail::cgroup::DISABLE_VAR, "off");
    }
    cmd.args(command)
        .args(bots(script(sleeper), script("polite.py")));
    let (mut child, _) = start_until_running(cmd, sleeper_file, &roots);
    // The sleeper is in its first turn once it started and answered hello: a moment more.
    std::thread::sleep(Duration::from_millis(500));
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    for &signal in signals {
        rustix::process::kill_process(pid, signal).unwrap();
        std::thread::sleep(Duration::from_millis(100));
    }
    let until = Instant::now() + Duration::from_secs(10);
    while child.try_wait().unwrap().is_none() {
        assert!(
            Instant::now() < until,
            "{command:?} did not exit on {signals:?}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    for bot in [sleeper_file, "polite.py"] {
        crate::zoo::assert_no_stray(bot, &roots);
    }
    let left = jail_folders_of(child.id());
    assert!(left.is_empty(), "{command:?} on {signals:?} left {left:?}");
}

/// The jail folders of the arbiter run with pid `run`, where arbiter makes them.
fn jail_folders_of(run: u32) -> Vec<std::path::PathBuf> {
    let prefix = format!("arbiter-bot-{run}-");
    [Path::new("/var/tmp").to_path_buf(), std::env::temp_dir()]
        .iter()
        .flat_map(|base| std::fs::read_dir(base).into_iter().flatten().flatten())
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .collect()
}

#[test]
fn sigint_sigterm_and_sighup_to_play_kill_its_bots() {
    use rustix::process::Signal;
    for signal in [Signal::INT, Signal::TERM, Signal::HUP] {
        for sleeper_is_rebel in [true, false] {
            let flags = |sleeper: String, polite: String| {
                let (rebel, officer) = if sleeper_is_rebel {
                    (sleeper, polite)
                } else {
                    (polite, sleeper)
                };
                vec!["--rebel".into(), rebel, "--officer".into(), officer]
            };
            signals_end_command_and_its_bots(&["play"], "sleeper.py", flags, &[signal], false);
        }
    }
}

/// A league stops on a first SIGTERM (its running games cancelled, their bots killed) and
/// quits on a second; either way no bot survives.
#[test]
fn sigterm_to_a_league_kills_its_bots() {
    use rustix::process::Signal;
    let dir = tempfile::tempdir().unwrap();
    for (i, signals) in [vec![Signal::TERM], vec![Signal::TERM, Signal::TERM]]
        .iter()
        .enumerate()
    {
        let out = dir.path().join(format!("league-{i}"));
        let out = out.to_string_lossy().into_owned();
        let command = ["league", "--out", out.as_str(), "-j", "1"];
        let bots = |a, b| vec![a, b];
        signals_end_command_and_its_bots(&command, "sleeper.py", bots, signals, false);
    }
}

/// Without a cgroup, a signal still reaches a helper that left its bot's group and cleared
/// its environment: found by its parent while the groups are stopped.
#[test]
fn without_a_cgroup_a_signal_to_play_kills_helpers_in_their_own_session() {
    let flags = |sleeper: String, polite: String| {
        vec!["--rebel".into(), sleeper, "--officer".into(), polite]
    };
    let sleeper = "session_helper.py sleep";
    signals_end_command_and_its_bots(
        &["play"],
        sleeper,
        flags,
        &[rustix::process::Signal::TERM],
        true,
    );
}

/// `arbiter play` of the zoo's sleeper against a built-in (with `level`'s arguments), once
/// the sleeper sleeps: the zoo's copy, its root, arbiter, and the sleeper's pid.
fn play_until_the_sleeper_sleeps(
    level: &[&str],
) -> (
    tempfile::TempDir,
    [std::path::PathBuf; 1],
    std::process::Child,
    i32,
) {
    let copy = zoo_copy();
    let roots = [copy.path().to_path_buf()];
    let sleeper = format!("python3 -u {}", copy.path().join("sleeper.py").display());
    let mut cmd = arbiter();
    cmd.args(["play", "--rebel", &sleeper])
        .args(["--officer", "builtin:random"])
        .args(level);
    let (child, pid) = start_until_running(cmd, "sleeper.py", &roots);
    (copy, roots, child, pid)
}

/// A jailed bot is born in the bot's cgroup (at level 1 its namespace, at level 2 the bot
/// beside its helper): the helper that builds the jail (the bot's leader, arbiter's own
/// code) is never moved there, a move that would make the kernel wait for an RCU grace
/// period on every bot's start.
#[test]
fn a_jailed_bot_is_born_in_its_cgroup_and_its_helper_stays_out_at_both_levels() {
    for level in [&[][..], &["--sandbox", "landlock"][..]] {
        a_jailed_bot_is_born_in_its_cgroup(level);
    }
}

fn a_jailed_bot_is_born_in_its_cgroup(level: &[&str]) {
    // The zoo's copy is kept until the end: the sleeper runs from it.
    let (_copy, roots, mut child, sleeper) = play_until_the_sleeper_sleeps(level);
    let bots = format!("/arbiter-{}-bot-", child.id());
    let sleepers = cgroup_of(sleeper);
    let helpers: Vec<i32> = std::fs::read_dir(format!("/proc/{}/task", child.id()))
        .unwrap()
        .flatten()
        .map(|task| {
            let children = std::fs::read_to_string(task.path().join("children"));
            children.unwrap_or_default() + " "
        })
        .collect::<String>()
        .split_whitespace()
        .filter_map(|pid| pid.parse().ok())
        .filter(|pid| {
            std::fs::read(format!("/proc/{pid}/cmdline"))
                .is_ok_and(|c| c.split(|&b| b == 0).any(|arg| arg == b"confine"))
        })
        .collect();
    let helper_cgroups: Vec<String> = helpers.iter().map(|&pid| cgroup_of(pid)).collect();
    // Ended as a user would end it, so that it cleans up after itself.
    let _ = rustix::process::kill_process(
        rustix::process::Pid::from_raw(child.id() as i32).unwrap(),
        rustix::process::Signal::TERM,
    );
    child.wait().unwrap();
    assert_no_stray("sleeper.py", &roots);
    if !sleepers.contains(&bots) {
        eprintln!("no cgroups for bots here (not root, or no cgroup2): skipped");
        return;
    }
    assert_eq!(
        helpers.len(),
        1,
        "{level:?}: one jail helper: {helper_cgroups:?}"
    );
    assert!(
        !helper_cgroups[0].contains(&bots),
        "{level:?}: the helper was moved into the bot's cgroup: {helper_cgroups:?}, the bot's {sleepers}"
    );
}

/// An arbiter killed with SIGKILL cannot clean up, but its bots do not outlive it: each
/// jail's helper sees arbiter end and kills its bot, whatever the bot does with its input.
/// The bots' cgroups and their jails' folders (copies of their files, what they wrote) stay,
/// until the next run that makes cgroups and jails there removes them. At both levels, as
/// root and as an ordinary user.
#[test]
fn the_bots_of_an_arbiter_killed_with_sigkill_die_with_it_and_the_next_run_clears_up() {
    for level in [&[][..], &["--sandbox", "landlock"][..]] {
        for as_user in [false, true] {
            if as_user && !crate::common::as_nobody() {
                continue;
            }
            let context = format!("level {level:?}, as an ordinary user: {as_user}");
            let arbiter = || match as_user {
                true => crate::common::as_arbiters_user(crate::common::arbiter_exe()),
                false => arbiter(),
            };
            let copy = zoo_copy();
            let roots = [copy.path().to_path_buf()];
            let script = |name: &str| format!("python3 -u {}", copy.path().join(name).display());
            let mut cmd = arbiter();
            cmd.args(["play", "--rebel", &script("sleeper.py")])
                .args(["--officer", "builtin:random"])
                .args(level);
            let (mut child, sleeper) = start_until_running(cmd, "sleeper.py", &roots);
            // Looked at while the run lives (a run killed is anyone's to clear up: another
            // test's run may clear it up first).
            let run_pid = child.id();
            let jails = || jail_folders_of(run_pid);
            assert!(
                !jails().is_empty(),
                "{context}: the run's jail folder is not where it was looked for"
            );
            let path = cgroup_of(sleeper);
            let in_a_cgroup = path.contains(&format!("/arbiter-{}-bot-", child.id()));
            child.kill().unwrap();
            child.wait().unwrap();
            // The sleeper ignores the end of its input and sleeps for an hour.
            assert_no_stray("sleeper.py", &roots);
            // Any run that starts a bot program clears up.
            let mut next = arbiter();
            next.args(["play", "--rebel", &script("polite.py")])
                .args(["--officer", "builtin:random", "--round-limit", "1"])
                .args(level);
            let (code, stdout, stderr) = run(&mut next);
            assert_eq!(code, 0, "{context}: {stdout}\n{stderr}");
            if in_a_cgroup {
                let left: Vec<String> = ["/sys/fs/cgroup", "/sys/fs/cgroup/unified"]
                    .iter()
                    .map(|mount| format!("{mount}{path}"))
                    .filter(|dir| Path::new(dir).exists())
                    .collect();
                assert!(left.is_empty(), "{context}: cgroup left: {left:?}");
            }
            assert_eq!(
                jails(),
                Vec::<std::path::PathBuf>::new(),
                "{context}: jail folders left"
            );
        }
    }
}
