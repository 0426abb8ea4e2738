//! The zoo of misbehaving bots (tests/zoo/): each, in both roles, gets its verdict, the
//! game ends within the limit plus a little grace, the referee's memory stays bounded, and
//! no process of the bot remains. Under root each runs once more in `--sandbox user`,
//! and the bots that attack their surroundings run there only.

use crate::bots_common::{Shapes, processes_with};
use crate::common::journal_text;
use arbiter::bots::process::{CHATTER_BYTES, ProcessPlayer, STDERR_BYTES};
use arbiter::bots::spec::{CommandSpec, Confinement, Limits, SandboxMode};
use arbiter::games::Side;
use arbiter::jail::sandbox;
use arbiter::record::GameRecord;
use arbiter::referee::{MatchConfig, play_game};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

pub(crate) const MOVE_MS: u64 = 1000;
const INIT_MS: u64 = 5000;
/// Starting two Pythons, noticing a dead bot, killing and sweeping: time beyond the limits
/// a game may take (generous: the tests share two cores with everything else).
const GRACE: Duration = Duration::from_secs(4);

pub fn zoo_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/zoo")
}

/// The isolation modes to try: always none; user when running as root.
fn modes() -> Vec<SandboxMode> {
    if sandbox::is_root() {
        vec![SandboxMode::None, SandboxMode::Auto, SandboxMode::User]
    } else {
        eprintln!("zoo: not root, so the --sandbox user runs are skipped (CI runs as root)");
        vec![SandboxMode::None, SandboxMode::Auto]
    }
}

fn confine(sandbox: SandboxMode, limits: Limits) -> Confinement {
    Confinement {
        limits,
        sandbox,
        ..Default::default()
    }
}

pub fn zoo_bot(script: &str, args: &[String], confine: Confinement) -> CommandSpec {
    let dir = zoo_dir();
    let mut c = CommandSpec::new("python3")
        .arg("-u")
        .arg(dir.join(script).to_string_lossy().into_owned());
    c.args.extend(args.iter().cloned());
    c.cwd = Some(dir);
    c.confine = confine;
    c
}

pub(crate) struct Played {
    pub(crate) record: GameRecord,
    pub(crate) zoo_role: &'static str,
    pub(crate) other_role: &'static str,
    pub(crate) elapsed: Duration,
}

impl Played {
    pub(crate) fn reason(&self) -> &str {
        &self.record.reason
    }
    pub(crate) fn zoo_lost(&self) -> bool {
        self.record.winner.as_deref() == Some(self.other_role)
    }
    pub(crate) fn zoo_stderr(&self) -> &str {
        &self.record.logs[self.zoo_role].stderr
    }
    pub(crate) fn describe(&self) -> String {
        format!(
            "zoo bot as {}: {} won by {} after {} plies in {:?}; detail: {:?}",
            self.zoo_role,
            self.record.winner.as_deref().unwrap_or("nobody"),
            self.record.reason,
            self.record.plies,
            self.elapsed,
            self.record.detail
        )
    }
}

/// One game of Shapes (6 plies, any list of points is a move) between `bot` and the polite
/// bot, `bot` on `side`, both with the same confinement.
pub(crate) fn play(bot: CommandSpec, side: Side, move_ms: u64) -> Played {
    let polite = zoo_bot("polite.py", &[], bot.confine);
    let mut zoo = ProcessPlayer::new(bot);
    let mut other = ProcessPlayer::new(polite);
    let game = Shapes { plies: 6 };
    let config = MatchConfig {
        move_limit: Duration::from_millis(move_ms),
        init_limit: Duration::from_millis(INIT_MS),
        seed: 1,
        ..MatchConfig::default()
    };
    let started = Instant::now();
    let record = match side {
        Side::First => play_game(
            &game,
            [&mut zoo, &mut other],
            ["zoo", "polite"],
            &config,
            &mut |_| {},
        ),
        Side::Second => play_game(
            &game,
            [&mut other, &mut zoo],
            ["polite", "zoo"],
            &config,
            &mut |_| {},
        ),
    };
    let elapsed = started.elapsed();
    let (zoo_role, other_role) = match side {
        Side::First => ("rebel", "officer"),
        Side::Second => ("officer", "rebel"),
    };
    Played {
        record,
        zoo_role,
        other_role,
        elapsed,
    }
}

/// Scripts that keep a CPU busy until they are stopped (spinning, or flooding their
/// output for the referee to read): where the move limit ends their games, they are played
/// one at a time, since six of them at once on two cores keep each other from running,
/// which is the machine's load (`clocks::runqueue`): such a move would be no result, not the
/// timeout its test expects.
const SPINNING: [&str; 2] = ["busy.py", "stdout_flood.py"];

/// The move limit of a [`SPINNING`] script's timeout games, played one at a time.
const SPINNING_MOVE_MS: u64 = 300;

/// `script` in both roles and every mode, all at once (one at a time for a [`SPINNING`]
/// script under a move limit of seconds); checks the time bound and that no process of it
/// survives, then hands each game to `check`.
pub(crate) fn zoo_case(
    script: &str,
    args: &[String],
    limits: Limits,
    move_ms: u64,
    sandbox_only: bool,
    check: impl Fn(&Played, SandboxMode) + Sync,
) {
    zoo_case_on(
        &Side::BOTH,
        script,
        args,
        limits,
        move_ms,
        sandbox_only,
        check,
    );
}

/// [`zoo_case`] with the zoo bot on `sides` only.
fn zoo_case_on(
    sides: &[Side],
    script: &str,
    args: &[String],
    limits: Limits,
    move_ms: u64,
    sandbox_only: bool,
    check: impl Fn(&Played, SandboxMode) + Sync,
) {
    let modes: Vec<SandboxMode> = modes()
        .into_iter()
        .filter(|m| !sandbox_only || *m == SandboxMode::User)
        .collect();
    if modes.is_empty() {
        eprintln!("zoo: {script} runs only under --sandbox user, which needs root: skipped");
        return;
    }
    let bound = Duration::from_millis(INIT_MS.min(2000) + 2 * move_ms) + GRACE;
    std::thread::scope(|scope| {
        let mut games = Vec::new();
        for &mode in &modes {
            for &side in sides {
                let bot = zoo_bot(script, args, confine(mode, limits));
                let game = scope.spawn(move || play(bot, side, move_ms));
                if SPINNING.contains(&script) && move_ms < 10_000 {
                    let played = game.join().expect("the game thread");
                    games.push((mode, scope.spawn(move || played)));
                } else {
                    games.push((mode, game));
                }
            }
        }
        for (mode, handle) in games {
            let played = handle.join().expect("the game thread");
            assert!(
                played.elapsed <= bound,
                "{script} ({mode:?}): the game took {:?}, over {bound:?}: {}",
                played.elapsed,
                played.describe()
            );
            check(&played, mode);
        }
    });
    let sandboxes = std::env::temp_dir().join("arbiter-sandbox");
    assert_no_stray(script, &[zoo_dir(), sandboxes]);
}

/// A copy of the zoo in a fresh folder that any user may read: its bots' processes are
/// told apart from those of the other tests by their path.
pub(crate) fn zoo_copy() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    for entry in std::fs::read_dir(zoo_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "py") {
            std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
        }
    }
    dir
}

/// The Python processes running `script` from one of the folders `roots` (zombies have
/// no command line: not counted).
pub(crate) fn pythons_running(script: &str, roots: &[PathBuf]) -> Vec<i32> {
    processes_with(script)
        .into_iter()
        .filter(|pid| {
            let argv = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
            let mut args = argv.split(|&b| b == 0).map(String::from_utf8_lossy);
            let program = args.next().unwrap_or_default();
            let is_python = Path::new(program.as_ref())
                .file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("python"));
            is_python
                && args.any(|a| {
                    let a = Path::new(a.as_ref());
                    a.file_name().is_some_and(|n| n == script)
                        && roots.iter().any(|r| a.starts_with(r))
                })
        })
        .collect()
}

/// No process runs `script` any more. (The arbiter running the zoo gauntlet names every
/// script on its command line: only the bots' Pythons count.)
pub fn assert_no_stray(script: &str, roots: &[PathBuf]) {
    let until = Instant::now() + Duration::from_secs(3);
    loop {
        let left = pythons_running(script, roots);
        if left.is_empty() {
            return;
        }
        if Instant::now() >= until {
            panic!("processes of {script} survived: {left:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn rss_mib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .map_or(0, |kb| kb / 1024)
}

pub(crate) fn lost_by(p: &Played, reason: &str) {
    assert!(
        p.zoo_lost() && p.reason() == reason,
        "expected a loss by {reason}: {}",
        p.describe()
    );
}

#[test]
fn sleeps_forever_is_a_timeout() {
    zoo_case(
        "sleeper.py",
        &[],
        Limits::default(),
        MOVE_MS,
        false,
        |p, _| lost_by(p, "timeout"),
    );
}

#[test]
fn a_bot_that_ignores_sigxcpu_is_a_cpu_loss_at_the_hard_limit_in_a_jail_too() {
    // The hard limit's SIGKILL ends the bot; in a jail the group's leader is the jail's
    // helper, whose own CPU is nearly none: the bot's is what its init handed up.
    let cpu = Limits {
        cpu_s: Some(1),
        ..Limits::default()
    };
    // A CPU limit is the bot's own whichever side it plays, and each game spends it on a
    // core: one side per mode.
    zoo_case_on(
        &[Side::First],
        "stubborn_busy.py",
        &[],
        cpu,
        20_000,
        false,
        |p, mode| {
            lost_by(p, "cpu");
            let detail = p.record.detail.as_deref().unwrap_or("");
            assert!(
                detail.contains("CPU limit of 1 s"),
                "{mode:?}: {}",
                p.describe()
            );
            assert!(detail.contains("SIGKILL"), "{mode:?}: {}", p.describe());
        },
    );
}

#[test]
fn busy_loop_is_a_timeout_and_under_a_cpu_limit_a_cpu_loss() {
    // Its games are played one at a time (SPINNING): a short limit keeps them short.
    zoo_case(
        "busy.py",
        &[],
        Limits::default(),
        SPINNING_MOVE_MS,
        false,
        |p, _| lost_by(p, "timeout"),
    );
    let cpu = Limits {
        cpu_s: Some(1),
        ..Limits::default()
    };
    // A move limit well above the CPU limit, so that the CPU limit strikes first even
    // when the machine is busy (a loaded core gives the bot its 1 s slowly).
    // One side per mode, as for the bot that ignores SIGXCPU.
    zoo_case_on(
        &[Side::First],
        "busy.py",
        &[],
        cpu,
        20_000,
        false,
        |p, _| {
            lost_by(p, "cpu");
            assert!(
                p.record
                    .detail
                    .as_deref()
                    .unwrap_or("")
                    .contains("CPU limit of 1 s"),
                "{}",
                p.describe()
            );
        },
    );
}

#[test]
fn crash_in_the_middle_is_a_crash_with_the_traceback() {
    zoo_case(
        "crasher.py",
        &[],
        Limits::default(),
        MOVE_MS,
        false,
        |p, _| {
            lost_by(p, "crash");
            assert!(p.record.plies >= 3, "{}", p.describe());
            assert!(
                p.record
                    .detail
                    .as_deref()
                    .unwrap_or("")
                    .contains("RuntimeError"),
                "{}",
                p.describe()
            );
        },
    );
}

#[test]
fn exit_before_the_handshake_is_a_crash() {
    zoo_case(
        "early_exit.py",
        &[],
        Limits::default(),
        MOVE_MS,
        false,
        |p, _| {
            lost_by(p, "crash");
            let detail = p.record.detail.as_deref().unwrap_or("");
            assert!(
                detail.contains("before `ready`") && detail.contains("exit status 4"),
                "{}",
                p.describe()
            );
        },
    );
}

#[test]
fn garbage_lines_then_a_stray_object_is_a_protocol_error() {
    zoo_case(
        "garbage.py",
        &[],
        Limits::default(),
        MOVE_MS,
        false,
        |p, _| {
            lost_by(p, "protocol_error");
            // The tail keeps CHATTER_BYTES of bytes; as text, each invalid byte becomes a
            // three-byte replacement character.
            assert!(p.record.logs[p.zoo_role].chatter.len() <= 3 * CHATTER_BYTES + 100);
        },
    );
}

#[test]
fn ten_megabyte_lines_are_illegal_replies_and_memory_stays_bounded() {
    let before = rss_mib();
    // Writing 10 MiB takes a loaded machine a while: a move limit that leaves time.
    zoo_case(
        "huge_line.py",
        &[],
        Limits::default(),
        5000,
        false,
        |p, _| {
            // Shapes ends in a tie after 6 plies; every reply of the zoo bot was illegal.
            assert_eq!(p.reason(), "round_limit", "{}", p.describe());
            assert_eq!(p.record.illegal[p.zoo_role], 3, "{}", p.describe());
        },
    );
    let after = rss_mib();
    // Several games with 30 lines of 10 MiB each went through this process.
    assert!(
        after < before + 128,
        "RSS grew from {before} to {after} MiB"
    );
}

#[test]
fn stdout_flood_is_a_timeout_with_bounded_chatter() {
    let before = rss_mib();
    zoo_case(
        "stdout_flood.py",
        &[],
        Limits::default(),
        SPINNING_MOVE_MS,
        false,
        |p, _| {
            lost_by(p, "timeout");
            assert!(p.record.logs[p.zoo_role].chatter.len() <= CHATTER_BYTES + 100);
        },
    );
    assert!(rss_mib() < before + 128);
}

#[test]
fn stderr_flood_is_kept_bounded_and_the_game_goes_on() {
    zoo_case(
        "stderr_flood.py",
        &[],
        Limits::default(),
        MOVE_MS,
        false,
        |p, _| {
            assert_eq!(p.reason(), "round_limit", "{}", p.describe());
            assert!(p.zoo_stderr().len() <= STDERR_BYTES + 100);
            assert!(p.zoo_stderr().contains("earlier bytes dropped"));
        },
    );
}

#[test]
fn closing_stdout_is_a_crash() {
    zoo_case(
        "closes_stdout.py",
        &[],
        Limits::default(),
        MOVE_MS,
        false,
        |p, _| {
            lost_by(p, "crash");
            assert!(
                p.record
                    .detail
                    .as_deref()
                    .unwrap_or("")
                    .contains("closed its stdout"),
                "{}",
                p.describe()
            );
        },
    );
}

#[test]
fn a_fork_storm_is_a_timeout_and_every_child_dies() {
    zoo_case(
        "fork_storm.py",
        &[],
        Limits::default(),
        MOVE_MS,
        false,
        |p, mode| {
            lost_by(p, "timeout");
            if mode == SandboxMode::User {
                // RLIMIT_NPROC of the bot's own uid stops the storm early.
                assert!(!p.zoo_stderr().contains("forked 300"), "{}", p.zoo_stderr());
            }
        },
    );
}

#[test]
fn a_memory_hog_loses_by_memory() {
    let limits = Limits {
        memory_mb: Some(300),
        ..Limits::default()
    };
    // A generous move limit: allocating is slow on a loaded machine.
    zoo_case("memory_hog.py", &[], limits, 10_000, false, |p, _| {
        lost_by(p, "memory");
        assert!(
            p.record
                .detail
                .as_deref()
                .unwrap_or("")
                .contains("memory limit of 300 MiB"),
            "{}",
            p.describe()
        );
    });
}

#[test]
fn a_grandchild_that_left_the_group_holding_the_pipes_is_killed() {
    zoo_case(
        "escapee.py",
        &[],
        Limits::default(),
        MOVE_MS,
        false,
        |p, _| {
            lost_by(p, "crash");
        },
    );
}

#[test]
fn a_killer_cannot_touch_the_opponent_or_the_referee() {
    zoo_case(
        "killer.py",
        &[],
        Limits::default(),
        MOVE_MS,
        true,
        |p, _| {
            // kill -9 -1 reaches the processes of its own uid but itself: nothing. The game
            // goes on to its end.
            assert_eq!(p.reason(), "round_limit", "{}", p.describe());
            assert!(p.zoo_stderr().contains("killed 0,"), "{}", p.zoo_stderr());
            let other = &p.record.logs[p.other_role];
            assert!(other.announced_name.is_some(), "{}", p.describe());
        },
    );
}

#[test]
fn a_spy_can_read_and_write_nothing_of_others_nor_reach_the_network() {
    use std::os::unix::fs::PermissionsExt;
    // A results folder as arbiter makes it (0755), and an opponent's folder kept private
    // (0700) as docs/SECURITY.md asks: the sandbox runs a copy of it.
    let results = tempfile::tempdir().unwrap();
    std::fs::set_permissions(results.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let opponent = tempfile::tempdir().unwrap();
    std::fs::set_permissions(opponent.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    std::fs::write(opponent.path().join("secret.txt"), "the opponent's secret").unwrap();
    let sandboxes = std::env::temp_dir().join("arbiter-sandbox");
    let args: Vec<String> = [
        results.path(),
        opponent.path(),
        &opponent.path().join("secret.txt"),
        &sandboxes,
    ]
    .iter()
    .map(|p| p.to_string_lossy().into_owned())
    .collect();
    zoo_case("spy.py", &args, Limits::default(), MOVE_MS, true, |p, _| {
        assert_eq!(p.reason(), "round_limit", "{}", p.describe());
        let stderr = p.zoo_stderr();
        assert_eq!(stderr.matches(": denied").count(), 6, "{stderr}");
        assert!(!stderr.contains("ALLOWED"), "{stderr}");
    });
    assert!(!results.path().join("spy.txt").exists());
    assert!(!opponent.path().join("spy.txt").exists());
}

/// `arbiter gauntlet`: the built-in random bot against the whole zoo, with short limits,
/// under `--sandbox user` when root. The run ends, its journal holds every game, and no
/// process of any zoo bot remains.
#[test]
fn a_gauntlet_against_the_zoo_completes_its_journal_and_leaves_nothing() {
    use crate::common::{arbiter, run};
    let root = sandbox::is_root();
    if !root {
        eprintln!("zoo gauntlet: not root, so it runs without the sandbox and without killer.py");
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("zoo-gauntlet");
    let zoo = zoo_copy();
    let mut scripts = vec![
        "sleeper.py",
        "busy.py",
        "crasher.py",
        "early_exit.py",
        "garbage.py",
        "huge_line.py",
        "stdout_flood.py",
        "closes_stdout.py",
        "fork_storm.py",
        "memory_hog.py",
        "escapee.py",
        "error_bytes.py",
        "surrogate_move.py",
        "huge_int_move.py",
        "session_helper.py",
        "zombie_maker.py",
    ];
    if root {
        scripts.push("killer.py");
    }
    let baselines: Vec<String> = scripts
        .iter()
        .map(|s| {
            let path = zoo.path().join(s);
            format!(
                "{}=python3 -u {}",
                s.trim_end_matches(".py"),
                path.display()
            )
        })
        .collect();
    let started = Instant::now();
    let mut cmd = arbiter();
    cmd.args(["gauntlet", "--game", "asalto", "--out"])
        .arg(&out)
        .args([
            "--limit-ms",
            "500",
            "--init-limit-ms",
            "5000",
            "--round-limit",
            "30",
        ])
        .args(["--memory-mb", "200", "--cpu-s", "10", "-j", "2"])
        .args(["--sandbox", if root { "user" } else { "none" }])
        .args(["--candidate", "builtin:random", "--baseline"])
        .args(&baselines);
    let (code, stdout, stderr) = run(&mut cmd);
    assert_eq!(code, 0, "stdout:\n{stdout}\nstderr:\n{stderr}");
    if root {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&out).unwrap().permissions().mode();
        assert_eq!(
            mode & 0o022,
            0,
            "results folder mode {mode:o}: writable by others"
        );
    }
    let journal = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    let lines: Vec<&str> = journal.lines().collect();
    // The plan, then one line per game: every baseline in both roles.
    assert_eq!(lines.len(), 1 + 2 * scripts.len(), "{journal}");
    let mut reasons = std::collections::BTreeMap::new();
    for line in &lines[1..] {
        let entry: serde_json::Value = serde_json::from_str(line).expect("a whole JSON line");
        let record = &entry["record"];
        let players = record["players"].as_object().unwrap();
        let zoo = players
            .values()
            .find_map(|p| p.as_str().filter(|p| *p != "random"))
            .unwrap();
        reasons
            .entry(zoo.to_string())
            .or_insert_with(Vec::new)
            .push(record["reason"].as_str().unwrap().to_string());
    }
    let expect = |bot: &str, reason: &str| {
        let got = &reasons[bot];
        assert!(
            got.iter().all(|r| r == reason),
            "{bot}: {got:?}, expected {reason}"
        );
    };
    expect("sleeper", "timeout");
    expect("busy", "timeout");
    expect("early_exit", "crash");
    expect("garbage", "protocol_error");
    expect("stdout_flood", "timeout");
    expect("closes_stdout", "crash");
    expect("fork_storm", "timeout");
    // Filling 200 MiB may take the hog longer than the 1 s move limit on a loaded
    // machine: then it times out first (the zoo test above gives it the time).
    assert!(
        reasons["memory_hog"]
            .iter()
            .all(|r| r == "memory" || r == "timeout"),
        "memory_hog: {:?}",
        reasons["memory_hog"]
    );
    expect("escapee", "crash");
    expect("error_bytes", "exception");
    // Their replies are illegal moves or legal ones: the game ends by the rules.
    let rule_endings = [
        "fortress_full",
        "rebels_captured",
        "officers_immobile",
        "round_limit",
    ];
    for bot in [
        "surrogate_move",
        "huge_int_move",
        "session_helper",
        "zombie_maker",
    ] {
        assert!(
            reasons[bot]
                .iter()
                .all(|r| rule_endings.contains(&r.as_str())),
            "{bot}: {:?}",
            reasons[bot]
        );
    }
    for script in &scripts {
        assert_no_stray(script, &[zoo.path().to_path_buf()]);
    }
    eprintln!(
        "zoo gauntlet: {} games in {:?}: {reasons:?}",
        lines.len() - 1,
        started.elapsed()
    );
}

/// The confinement keys of tournaments.toml: per tournament, overridden per bot, and
/// wrong values named with their line.
#[test]
fn tournaments_toml_confinement_keys() {
    use crate::common::{arbiter, run};
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("tournaments.toml");
    let copy = zoo_copy();
    let zoo = copy.path().join("memory_hog.py");
    let polite = copy.path().join("polite.py");
    let text = format!(
        "[tournaments.t]\ngame = \"asalto\"\nlimit_ms = 5000\nround_limit = 2\nmemory_mb = 4000\n\
         bots = [\n  {{ name = \"hog\", spec = \"python3 -u {}\", memory_mb = 150 }},\n  \
         {{ name = \"polite\", spec = \"python3 -u {}\" }},\n]\n",
        zoo.display(),
        polite.display()
    );
    std::fs::write(&config, &text).unwrap();
    let (code, stdout, stderr) = run(arbiter().arg("run").arg("--config").arg(&config));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let journal = journal_text(&dir.path().join("results/t"));
    // The bot's own 150 MiB, not the tournament's 4000, stopped the hog in both games
    // (the detail of each game's record names the limit).
    assert_eq!(
        journal.matches("memory limit of 150 MiB").count(),
        2,
        "{journal}"
    );
    assert_no_stray("memory_hog.py", &[copy.path().to_path_buf()]);

    for (bad, expected) in [
        (
            "sandbox = \"maybe\"",
            ":5: sandbox `maybe`: expected auto, namespaces, landlock, none or user",
        ),
        ("cpu_s = 0", ":5: `cpu_s` must be at least 1"),
    ] {
        let text = format!(
            "[tournaments.t]\ngame = \"asalto\"\nbots = [{{ spec = \"builtin:random\" }}, \
             {{ spec = \"python3 x.py\" }}]\nlimit_ms = 5\n{bad}\n"
        );
        std::fs::write(&config, &text).unwrap();
        let (code, _, stderr) = run(arbiter().arg("run").arg("--config").arg(&config));
        assert_eq!(code, 2, "{bad}: {stderr}");
        assert!(
            stderr.contains(expected),
            "{bad}: expected `{expected}` in {stderr}"
        );
    }
}
