//! The Java zoo (tests/zoo/java/): course Java players that break a limit or report where
//! they run, in both colours, without and (as root) with `--sandbox user`. Each gets its
//! verdict (`file_size`, `memory`, `cpu`), a sandboxed one runs under its own uid in its
//! private folder with the limits in force, and no JVM survives its game. Skipped (with a
//! message) without a JDK.

use crate::adapters_java::have_jdk;
use crate::bots_common::assert_no_process_with;
use arbiter::bots::inprocess::InProcess;
use arbiter::bots::java::{self, JavaPlayer};
use arbiter::bots::spec::{Confinement, Limits, SandboxMode};
use arbiter::bots::{Player, open_player_in};
use arbiter::engines::Builtins;
use arbiter::games::gomoku::Gomoku;
use arbiter::jail::sandbox;
use arbiter::record::GameRecord;
use arbiter::referee::{MatchConfig, play_game};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The isolation modes to try: always none; user when running as root.
fn modes() -> Vec<SandboxMode> {
    if sandbox::is_root() {
        vec![SandboxMode::None, SandboxMode::Auto, SandboxMode::User]
    } else {
        eprintln!("zoo_java: not root, so the --sandbox user runs are skipped (CI runs as root)");
        vec![SandboxMode::None, SandboxMode::Auto]
    }
}

/// A copy of the Java zoo in a fresh folder any user may read (the bots write there
/// without the sandbox).
fn zoo_copy() -> tempfile::TempDir {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let zoo = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/zoo/java");
    for entry in std::fs::read_dir(zoo).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    dir
}

/// One game of `file` (white or black) against the built-in random bot, the Java player
/// confined by `confine`, with a generous move limit: a JVM starts slowly on a loaded
/// machine, and the limits must be what ends the game, not the clock.
fn play(
    file: &Path,
    confine: Confinement,
    java_white: bool,
    move_ms: u64,
) -> (GameRecord, &'static str) {
    let mut bot = JavaPlayer::new(file, None, &BTreeMap::new()).confined(confine);
    let mut engine = InProcess::seeded("random", Box::new(|seed| Gomoku.builtin("random", seed)))
        .with_budget_fraction(0.01);
    let players: [&mut dyn Player<Gomoku>; 2] = if java_white {
        [&mut bot, &mut engine]
    } else {
        [&mut engine, &mut bot]
    };
    let config = MatchConfig {
        move_limit: Duration::from_millis(move_ms),
        init_limit: Duration::from_secs(30),
        seed: 5,
        ..MatchConfig::default()
    };
    let record = play_game(
        &Gomoku,
        players,
        ["white-bot", "black-bot"],
        &config,
        &mut |_| {},
    );
    (record, if java_white { "white" } else { "black" })
}

/// `name` from the zoo in both colours and every mode, two games at a time; each record
/// goes to `check` with the Java player's colour, the mode and the zoo's folder.
/// Afterwards no JVM of it runs.
fn zoo_case(
    name: &str,
    limits: Limits,
    move_ms: u64,
    check: impl Fn(&GameRecord, &str, SandboxMode, &Path) + Sync,
) {
    zoo_case_as(&[true, false], name, limits, move_ms, check);
}

/// [`zoo_case`] with the zoo player as white (`true`), black (`false`) or both.
fn zoo_case_as(
    whites: &[bool],
    name: &str,
    limits: Limits,
    move_ms: u64,
    check: impl Fn(&GameRecord, &str, SandboxMode, &Path) + Sync,
) {
    if !have_jdk(name) {
        return;
    }
    let zoo = zoo_copy();
    let file = zoo.path().join(format!("{name}.java"));
    let compiled = java::compile(&file).expect("the zoo player compiles");
    for mode in modes() {
        let confine = Confinement {
            limits,
            sandbox: mode,
            ..Default::default()
        };
        std::thread::scope(|scope| {
            let games: Vec<_> = whites
                .iter()
                .map(|&white| {
                    let file = &file;
                    scope.spawn(move || play(file, confine, white, move_ms))
                })
                .collect();
            for game in games {
                let (record, colour) = game.join().expect("the game thread");
                check(&record, colour, mode, zoo.path());
            }
        });
        // The class folder's name is in every JVM's command line, sandboxed copy or not.
        assert_no_process_with(&compiled.dir.file_name().unwrap().to_string_lossy());
    }
}

fn lost_by(record: &GameRecord, colour: &str, reason: &str) {
    let winner = if colour == "white" { "black" } else { "white" };
    assert!(
        record.winner.as_deref() == Some(winner) && record.reason == reason,
        "expected the Java player ({colour}) to lose by {reason}: {record:?}"
    );
}

#[test]
fn a_java_player_writing_past_the_file_limit_loses_by_file_size() {
    let limits = Limits {
        file_mb: Some(1),
        ..Limits::default()
    };
    zoo_case("BigWriter", limits, 20_000, |record, colour, _, _| {
        lost_by(record, colour, "file_size");
        let detail = record.detail.as_deref().unwrap_or("");
        assert!(
            detail.contains("file size limit of 1 MiB exceeded"),
            "{detail}"
        );
        assert!(detail.contains("File too large"), "{detail}");
    });
}

#[test]
fn a_java_player_allocating_without_end_loses_by_memory() {
    let limits = Limits {
        memory_mb: Some(768),
        ..Limits::default()
    };
    zoo_case("MemoryHog", limits, 20_000, |record, colour, _, _| {
        lost_by(record, colour, "memory");
        let detail = record.detail.as_deref().unwrap_or("");
        assert!(detail.contains("memory limit of 768 MiB"), "{detail}");
        assert!(detail.contains("OutOfMemoryError"), "{detail}");
    });
}

#[test]
fn a_java_player_spinning_the_cpu_loses_by_cpu() {
    let limits = Limits {
        cpu_s: Some(1),
        ..Limits::default()
    };
    // The move limit is far beyond the CPU budget: only the CPU limit can end the game.
    // The limit is the JVM's whichever colour it plays, and each game spends it on a
    // core: one colour per mode.
    zoo_case_as(
        &[true],
        "Spinner",
        limits,
        60_000,
        |record, colour, _, _| {
            lost_by(record, colour, "cpu");
            let detail = record.detail.as_deref().unwrap_or("");
            assert!(detail.contains("CPU limit of 1 s used up"), "{detail}");
        },
    );
}

/// The lines of the Reporter's log that start with `key `.
fn reported<'a>(stderr: &'a str, key: &str) -> Vec<&'a str> {
    let prefix = format!("{key} ");
    stderr
        .lines()
        .filter_map(|l| l.strip_prefix(prefix.as_str()))
        .collect()
}

#[test]
fn a_sandboxed_java_player_runs_under_its_own_uid_in_its_private_folder_with_the_limits() {
    let limits = Limits {
        memory_mb: Some(1024),
        cpu_s: Some(30),
        file_mb: Some(2),
        ..Limits::default()
    };
    zoo_case("Reporter", limits, 20_000, |record, colour, mode, zoo| {
        assert!(
            ["five_in_row", "no_window_left", "board_full"].contains(&record.reason.as_str()),
            "the reporter plays to the end: {record:?}"
        );
        let log = &record.logs[colour].stderr;
        let uid: u32 = reported(log, "uid")[0].parse().unwrap();
        let at = PathBuf::from(reported(log, "folder")[0]);
        // Its folder holds its own files (in the sandbox, a copy of them).
        assert_eq!(reported(log, "own source"), ["true"], "{log}");
        let limit = |what: &str| {
            reported(log, "limit")
                .into_iter()
                .find(|l| l.starts_with(what))
                .unwrap_or_else(|| panic!("no {what} limit in {log}"))
                .to_string()
        };
        assert!(
            limit("Max address space").contains(&(1024u64 << 20).to_string()),
            "{log}"
        );
        assert!(limit("Max cpu time").contains(" 30 31 "), "{log}");
        assert!(
            limit("Max file size").contains(&(2u64 << 20).to_string()),
            "{log}"
        );
        match mode {
            SandboxMode::User => {
                assert!(uid >= sandbox::UID_BASE, "{log}");
                assert!(
                    at.starts_with(std::env::temp_dir().join("arbiter-sandbox")),
                    "{log}"
                );
                // Its own copy of its folder and of its classes.
                let classpath = PathBuf::from(reported(log, "classpath")[0]);
                assert!(classpath.starts_with(&at), "{log}");
                assert_eq!(
                    reported(log, "PATH"),
                    ["/usr/local/bin:/usr/bin:/bin"],
                    "{log}"
                );
                assert_eq!(
                    reported(log, "HOME"),
                    [at.to_string_lossy().as_ref()],
                    "{log}"
                );
            }
            SandboxMode::None => {
                assert_eq!(uid, rustix::process::getuid().as_raw(), "{log}");
                assert_eq!(at, zoo, "{log}");
            }
            _ => {
                // In its jail: its private folder (a copy of its own), its own HOME, and
                // as root, a uid of its own.
                assert_ne!(at, zoo, "{log}");
                assert_eq!(
                    reported(log, "HOME"),
                    [at.to_string_lossy().as_ref()],
                    "{log}"
                );
                if sandbox::is_root() {
                    let own = sandbox::UID_BASE..sandbox::UID_BASE + 2000;
                    assert!(own.contains(&uid), "{log}");
                }
            }
        }
    });
}

#[test]
fn a_jvm_that_cannot_start_under_the_memory_limit_fails_to_spawn_and_says_so() {
    if !have_jdk("a_jvm_that_cannot_start_under_the_memory_limit...") {
        return;
    }
    let zoo = zoo_copy();
    let spec =
        arbiter::bots::spec::BotSpec::parse(&zoo.path().join("Reporter.java").to_string_lossy())
            .unwrap();
    // 64 MiB: the launcher dies of SIGSEGV without a word; 300 MiB: the JVM reports that
    // it cannot reserve its memory, and would write a crash report into its folder.
    for mb in [64, 300] {
        let confine = Confinement {
            limits: Limits {
                memory_mb: Some(mb),
                ..Limits::default()
            },
            sandbox: SandboxMode::None,
            ..Default::default()
        };
        let mut bot = open_player_in(&spec, &Gomoku, None, &BTreeMap::new(), confine).unwrap();
        let mut engine =
            InProcess::seeded("random", Box::new(|seed| Gomoku.builtin("random", seed)));
        let config = MatchConfig {
            move_limit: Duration::from_secs(10),
            init_limit: Duration::from_secs(30),
            ..MatchConfig::default()
        };
        let record = play_game(
            &Gomoku,
            [bot.as_mut(), &mut engine],
            ["a", "b"],
            &config,
            &mut |_| {},
        );
        assert_eq!(record.reason, "spawn_failed", "{record:?}");
        assert_eq!(record.winner.as_deref(), Some("black"));
        let detail = record.detail.clone().unwrap_or_default();
        let expected = format!("the JVM did not start under the memory limit of {mb} MiB");
        assert!(detail.contains(&expected), "{detail}");
        let crash_reports: Vec<_> = std::fs::read_dir(zoo.path())
            .unwrap()
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("hs_err"))
            .collect();
        assert!(crash_reports.is_empty(), "{crash_reports:?}");
    }
}

#[test]
fn a_jvm_starts_under_the_least_memory_limit_arbiter_allows_for_it() {
    let limits = Limits {
        memory_mb: Some(java::min_memory_mb()),
        ..Limits::default()
    };
    zoo_case("Reporter", limits, 20_000, |record, colour, _, _| {
        assert!(
            ["five_in_row", "no_window_left", "board_full"].contains(&record.reason.as_str()),
            "the reporter ({colour}) plays to the end: {record:?}"
        );
    });
}

#[test]
fn a_lone_surrogate_in_an_exception_message_is_still_an_exception() {
    zoo_case(
        "Surrogate",
        Limits::default(),
        20_000,
        |record, colour, _, _| {
            lost_by(record, colour, "exception");
            let detail = record.detail.as_deref().unwrap_or("");
            assert!(
                detail.contains("lone \u{fffd} surrogate and a pair \u{1f600}"),
                "{detail}"
            );
        },
    );
}

#[test]
fn a_deep_recursion_is_an_exception_named_by_its_type_and_the_bot_s_line() {
    if !have_jdk("Recursor") {
        return;
    }
    let zoo = zoo_copy();
    // Without a memory limit, as `arbiter play` runs it: a 256 MiB stack to overflow.
    let confine = Confinement::default();
    let (record, colour) = play(&zoo.path().join("Recursor.java"), confine, true, 20_000);
    lost_by(&record, colour, "exception");
    let shown = arbiter::record::short_detail(&record);
    assert!(
        shown.starts_with("java.lang.StackOverflowError")
            && shown.contains("(Recursor.java, line 6)"),
        "{shown}"
    );
}
