//! Every bot confined by default, without root: a course bot that spies before it plays,
//! run by an ordinary user with no sandbox flag, reaches none of what it looks for and still
//! plays; the same at level 2 (Landlock and seccomp, forced), and for a console program.
//! Where the tests run as root, arbiter runs as `nobody` (through `setpriv`).

use crate::common::*;
use std::net::TcpListener;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// `arbiter ARGS` as an ordinary user: `nobody` where the tests run as root.
fn arbiter_as_user(args: &[&str]) -> (i32, String, String) {
    let mut cmd = arbiter_cmd(args, &[]);
    cmd.env_remove("ARBITER_JAVA_CACHE");
    run(&mut cmd)
}

/// What the spy looks for, baked into its source.
struct Targets {
    opponent: PathBuf,
    results: PathBuf,
    secret: PathBuf,
    mark: PathBuf,
    port: u16,
}

/// A course Asalto bot that first tries everything in `targets`, reports each on stderr as
/// `SPY what: reached` or `SPY what: blocked`, then plays through its own helper module.
fn spy_bot(t: &Targets) -> String {
    format!(
        r#"import os, socket, sys
import spyhelp

def probe(what, attempt):
    try:
        attempt()
        print("SPY " + what + ": reached", file=sys.stderr)
    except Exception as e:
        print("SPY " + what + ": blocked (" + type(e).__name__ + ")", file=sys.stderr)

def read(path):
    with open(path) as f:
        f.read()

def find_mark():
    if not os.path.exists({mark:?}):
        raise FileNotFoundError("no mark")

def leave_mark():
    with open({mark:?}, "w") as f:
        f.write("here")

def list_results():
    os.listdir({results:?})

def write_results():
    with open(os.path.join({results:?}, "spy.txt"), "w") as f:
        f.write("x")

def other_processes():
    mine = {{os.getpid(), os.getppid()}}
    others = []
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) not in mine:
            try:
                with open("/proc/" + pid + "/cmdline", "rb") as f:
                    others.append(f.read())
            except OSError:
                pass
    if not any(b"arbiter" in c or b"league" in c for c in others):
        raise LookupError("nothing but itself")

def jail_description():
    for pid in ("1", str(os.getppid())):
        with open("/proc/" + pid + "/cmdline", "rb") as f:
            if b"read_only" in f.read():
                return
    raise LookupError("not on a command line")

def connect():
    socket.create_connection(("127.0.0.1", {port}), timeout=2).close()

probe("opponent's file", lambda: read({opponent:?}))
probe("opponent's file beside it", lambda: read("Team02.py"))
probe("results folder listing", list_results)
probe("results folder writing", write_results)
probe("0600 file of the user", lambda: read({secret:?}))
probe("mark of an earlier game", find_mark)
leave_mark_ok = True
try:
    leave_mark()
except Exception:
    leave_mark_ok = False
probe("other processes", other_processes)
probe("listener on 127.0.0.1", connect)
probe("jail's description", jail_description)

class Player(spyhelp.Player):
    pass
"#,
        opponent = t.opponent.to_string_lossy(),
        results = t.results.to_string_lossy(),
        secret = t.secret.to_string_lossy(),
        mark = t.mark.to_string_lossy(),
        port = t.port,
    )
}

/// A class of two in one flat folder, the spy and its victim, with the spy's helper; the
/// results folder, the user's secret, and a listener.
fn setup(dir: &Path) -> (PathBuf, PathBuf, Targets, TcpListener) {
    let class = dir.join("class");
    std::fs::create_dir(&class).unwrap();
    let results = dir.join("results");
    let secret = dir.join("secret.txt");
    std::fs::write(&secret, "the user's secret\n").unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let targets = Targets {
        opponent: class.join("Team02.py"),
        results: results.clone(),
        secret,
        mark: std::env::temp_dir().join(format!("spy-mark-{}", std::process::id())),
        port: listener.local_addr().unwrap().port(),
    };
    let _ = std::fs::remove_file(&targets.mark);
    std::fs::write(class.join("Team01.py"), spy_bot(&targets)).unwrap();
    std::fs::write(class.join("spyhelp.py"), course_random_bot()).unwrap();
    std::fs::write(class.join("Team02.py"), course_random_bot()).unwrap();
    give_to_arbiter(dir);
    (class, results, targets, listener)
}

/// The spy's reports over its games: probe to whether it was ever reached.
fn reports(results: &Path) -> std::collections::BTreeMap<String, bool> {
    let mut seen = std::collections::BTreeMap::new();
    for (_, record) in journal_records(results) {
        for log in record.logs.values() {
            for line in log.stderr.lines() {
                if let Some(report) = line.strip_prefix("SPY ") {
                    let (what, outcome) = report.split_once(": ").unwrap();
                    *seen.entry(what.to_string()).or_insert(false) |= outcome == "reached";
                }
            }
        }
    }
    seen
}

fn league(class: &Path, results: &Path, extra: &[&str]) -> (i32, String, String) {
    let (class, results) = (class.to_string_lossy(), results.to_string_lossy());
    let mut args = vec![
        "league",
        "--game",
        "asalto",
        "--pairs",
        "1",
        "--round-limit",
        "10",
        "-j",
        "1",
        "--out",
        &results,
    ];
    args.extend_from_slice(extra);
    args.push(&class);
    arbiter_as_user(&args)
}

#[test]
fn a_spying_course_bot_reaches_nothing_by_default_and_still_plays() {
    let dir = tempfile::tempdir().unwrap();
    let (class, results, targets, _listener) = setup(dir.path());
    let (code, stdout, stderr) = league(&class, &results, &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("confinement: namespaces") || stderr.contains("confinement: namespaces"),
        "the run says its level: {stdout}{stderr}"
    );
    let seen = reports(&results);
    assert_eq!(seen.len(), 9, "every probe ran in both games: {seen:?}");
    let reached: Vec<&String> = seen.iter().filter(|(_, r)| **r).map(|(w, _)| w).collect();
    assert!(reached.is_empty(), "the spy reached: {reached:?}");
    assert!(
        !targets.mark.exists(),
        "the spy's mark stayed in its own /tmp"
    );
    assert!(!results.join("spy.txt").exists());
    // It played: its games ended by the round limit or a win, not by a failure.
    for (_, record) in journal_records(&results) {
        assert!(
            [
                "round_limit",
                "fortress_full",
                "officers_captured",
                "rebels_reduced",
                "no_moves"
            ]
            .iter()
            .any(|r| record.reason == *r)
                || record.detail.is_none(),
            "{:?}: {:?}",
            record.reason,
            record.detail
        );
    }
}

#[test]
fn at_level_two_a_spying_course_bot_reaches_no_file_and_no_tcp() {
    let dir = tempfile::tempdir().unwrap();
    let (class, results, targets, _listener) = setup(dir.path());
    let (code, stdout, stderr) = league(&class, &results, &["--sandbox", "landlock"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(
        format!("{stdout}{stderr}").contains("no pid isolation"),
        "the run says what level 2 does not give: {stdout}{stderr}"
    );
    let seen = reports(&results);
    let reached: Vec<&String> = seen
        .iter()
        .filter(|(what, r)| **r && what.as_str() != "other processes")
        .map(|(w, _)| w)
        .collect();
    assert!(
        reached.is_empty(),
        "the spy reached: {reached:?} ({seen:?})"
    );
    assert!(!targets.mark.exists(), "no mark left in /tmp");
}

/// A file of the user's that only the user may read, in `dir`.
fn user_secret(dir: &Path) -> PathBuf {
    let secret = dir.join("secret.txt");
    std::fs::write(&secret, "the user's secret\n").unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    secret
}

/// An Advance game of the console program `white` against grade4, played by an ordinary
/// user under `--sandbox sandbox`: its record.
fn advance_game_as_user(white: &str, sandbox: &str, record: &Path) -> serde_json::Value {
    let args = advance_against_grade4(white, record, &["--sandbox", sandbox]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, stdout, stderr) = arbiter_as_user(&args);
    assert_eq!(code, 0, "{stdout}{stderr}");
    serde_json::from_str(&read(record)).unwrap()
}

#[test]
fn a_console_program_is_confined_too() {
    let dir = tempfile::tempdir().unwrap();
    let secret = user_secret(dir.path());
    let script = dir.path().join("spy.sh");
    std::fs::write(
        &script,
        format!(
            "[ \"$1\" = name ] && exit 0\n\
             if cat {} >/dev/null 2>&1; then echo 'SPY secret: reached' >&2; \
             else echo 'SPY secret: blocked' >&2; fi\n\
             if cat /proc/[0-9]*/cmdline 2>/dev/null | tr '\\0' ' ' | grep -q -- '--gam[e]'; \
             then echo 'SPY processes: reached' >&2; else echo 'SPY processes: blocked' >&2; fi\n\
             cp \"$2\" \"$3\"\n",
            secret.display()
        ),
    )
    .unwrap();
    give_to_arbiter(dir.path());
    let white = format!("console:sh {}", script.display());
    // By default (level 1 here), and at level 2, where the processes stay visible.
    for (sandbox, processes) in [("auto", "blocked"), ("landlock", "reached")] {
        let record = advance_game_as_user(
            &white,
            sandbox,
            &dir.path().join(format!("game-{sandbox}.json")),
        );
        let log = record["logs"]["white"]["stderr"]
            .as_str()
            .unwrap_or_default();
        assert!(log.contains("SPY secret: blocked"), "{sandbox}: {log}");
        assert!(
            log.contains(&format!("SPY processes: {processes}")),
            "{sandbox}: {log}"
        );
        // The unchanged board is the course's illegal move: the program ran and was judged.
        assert_eq!(record["reason"], "illegal_move", "{sandbox}: {record}");
    }
}

#[test]
fn a_console_programs_name_run_is_confined_like_its_moves() {
    let dir = tempfile::tempdir().unwrap();
    let secret = user_secret(dir.path());
    let mark = dir.path().join("named.mark");
    // Asked its name, it tries to read the user's file and to leave a mark beside it, and
    // names itself after what it managed; asked for a move, it keeps the board.
    let script = dir.path().join("namer.sh");
    std::fs::write(
        &script,
        format!(
            "if [ \"$1\" = name ]; then\n\
               touch {mark} 2>/dev/null\n\
               if cat {secret} >/dev/null 2>&1; then echo leaked; else echo sealed; fi\n\
               exit 0\n\
             fi\n\
             cp \"$2\" \"$3\"\n",
            mark = shell_quote(&mark.to_string_lossy()),
            secret = shell_quote(&secret.to_string_lossy()),
        ),
    )
    .unwrap();
    give_to_arbiter(dir.path());
    // By default, and as the user asked it: `--sandbox none` runs the name like the moves,
    // unconfined (it was asked under the default sandbox whatever the bot's).
    for (sandbox, name, marked) in [("auto", "sealed", false), ("none", "leaked", true)] {
        let _ = std::fs::remove_file(&mark);
        let record = advance_game_as_user(
            &format!("console:sh {}", script.display()),
            sandbox,
            &dir.path().join(format!("game-{sandbox}.json")),
        );
        assert_eq!(record["players"]["white"], name, "{sandbox}: {record}");
        assert_eq!(mark.exists(), marked, "{sandbox}: the name run's mark");
        assert_eq!(record["reason"], "illegal_move", "{sandbox}: {record}");
    }
}

#[test]
fn a_resume_under_another_confinement_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let (class, results, _targets, _listener) = setup(dir.path());
    std::fs::write(class.join("Team01.py"), course_random_bot()).unwrap();
    give_to_arbiter(dir.path());
    let (code, stdout, stderr) = league(&class, &results, &["--sandbox", "none"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("confinement: none"), "{stdout}");
    // The same league again with the default: the plan says `none`, this run would confine.
    let journal = read(&results.join("games.jsonl"));
    let kept = journal.lines().count();
    let (code, _, stderr) = league(&class, &results, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("sandbox none there"), "{stderr}");
    assert_eq!(read(&results.join("games.jsonl")).lines().count(), kept);
}

#[test]
fn doctor_says_what_this_machine_gives_and_exits_by_it() {
    let (code, stdout, stderr) = arbiter_as_user(&["doctor"]);
    for layer in ["user namespaces: ", "Landlock: ", "seccomp: ", "python3: "] {
        assert!(stdout.contains(layer), "{stdout}{stderr}");
    }
    let confined = stdout.contains("bots are confined at level");
    assert_eq!(code, if confined { 0 } else { 1 }, "{stdout}");
    // The program the build makes for it, beside arbiter.
    let builder = Path::new(crate::common::arbiter_exe()).with_file_name("arbiter-jail");
    assert!(
        stdout.contains(&format!("jails are built by: {}\n", builder.display())),
        "{stdout}"
    );
    // Where this machine gives level 1, a league says so too (tested above).
    if stdout.contains("user namespaces: yes") {
        assert!(stdout.contains("level 1 (namespaces)"), "{stdout}");
        // The trials it ran found level 1: kept for the runs that follow, and said where.
        let uid = match as_nobody() {
            true => NOBODY,
            false => rustix::process::getuid().as_raw(),
        };
        let kept = std::env::temp_dir().join(format!("arbiter-confinement-{uid}/found"));
        assert!(
            stdout.contains(&format!("this finding from {}", kept.display())),
            "{stdout}"
        );
    }
}

/// Where user namespaces are refused (Ubuntu's AppArmor rule, Docker's profile; here
/// `ARBITER_USERNS=off`), doctor reports level 2, what it leaves open and the default caps.
#[test]
fn doctor_on_a_machine_without_user_namespaces_reports_level_two_and_what_it_does_not_cover() {
    let (code, stdout, stderr) = run(&mut arbiter_cmd(&["doctor"], &[("ARBITER_USERNS", "off")]));
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("user namespaces: no"), "{stdout}");
    assert!(stdout.contains("ARBITER_USERNS=off"), "{stdout}");
    assert!(
        stdout.contains("bots are confined at level 2 (landlock): no pid isolation"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "2048 MiB of address space, 256 processes and threads, 1024 MiB written to disk"
        ),
        "{stdout}"
    );
    // A league there runs at level 2 and says so, with its caps.
    let dir = test_dir();
    let class = dir.path().join("class");
    std::fs::create_dir(&class).unwrap();
    for team in ["Team01.py", "Team02.py"] {
        std::fs::write(class.join(team), course_random_bot()).unwrap();
    }
    give_to_arbiter(dir.path());
    let out = dir.path().join("out");
    let (code, stdout, stderr) = run(&mut arbiter_cmd(
        &[
            "league",
            "--pairs",
            "1",
            "--round-limit",
            "5",
            "--out",
            &out.to_string_lossy(),
            &class.to_string_lossy(),
        ],
        &[("ARBITER_USERNS", "off")],
    ));
    assert_eq!(code, 0, "{stdout}{stderr}");
    let said = format!("{stdout}{stderr}");
    assert!(
        said.contains("confinement: landlock (no pid isolation"),
        "{said}"
    );
    assert!(
        said.contains("caps per bot: 2048 MiB of address space"),
        "{said}"
    );
}

/// A Java player that spies in its constructor, then plays like SequencePlayer.
fn java_spy(secret: &Path, port: u16) -> String {
    format!(
        r#"import java.nio.file.*;
import java.net.Socket;

public class JavaSpy extends SequencePlayer {{
    interface Attempt {{ void run() throws Exception; }}

    static void probe(String what, Attempt attempt) {{
        try {{
            attempt.run();
            System.out.println("SPY " + what + ": reached");
        }} catch (Throwable e) {{
            System.out.println("SPY " + what + ": blocked");
        }}
    }}

    public JavaSpy() {{
        probe("opponent's file beside it", () -> Files.readAllBytes(Paths.get("Player123456789.java")));
        probe("0600 file of the user", () -> Files.readAllBytes(Paths.get({secret:?})));
        probe("other processes", () -> {{
            try (DirectoryStream<Path> procs = Files.newDirectoryStream(Paths.get("/proc"))) {{
                for (Path p : procs) {{
                    String name = p.getFileName().toString();
                    if (!name.chars().allMatch(Character::isDigit)) continue;
                    try {{
                        String cmd = new String(Files.readAllBytes(p.resolve("cmdline")));
                        if (cmd.contains("--game")) return;
                    }} catch (Exception e) {{ }}
                }}
            }}
            throw new Exception("none seen");
        }});
        probe("listener on 127.0.0.1", () -> new Socket("127.0.0.1", {port}).close());
        probe("own helper", () -> Files.readAllBytes(Paths.get("SpyHelp.java")));
        System.out.flush();
    }}
}}
"#,
        secret = secret.to_string_lossy(),
    )
}

/// A fresh folder holding an empty `class/` and the user's 0600 `secret.txt`.
fn class_and_secret() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let team = dir.path().join("class");
    std::fs::create_dir(&team).unwrap();
    let secret = dir.path().join("secret.txt");
    std::fs::write(&secret, "the user's secret\n").unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    (dir, team, secret)
}

#[test]
fn a_spying_java_player_reaches_nothing_but_its_own_files_and_still_plays() {
    let (dir, team, secret) = class_and_secret();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::fs::write(team.join("JavaSpy.java"), java_spy(&secret, port)).unwrap();
    std::fs::write(team.join("SpyHelp.java"), "class SpyHelp {}\n").unwrap();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("bots/java/examples");
    for example in ["Player123456789.java", "Lines.java"] {
        std::fs::copy(examples.join(example), team.join(example)).unwrap();
    }
    give_to_arbiter(dir.path());
    let record = dir.path().join("game.json");
    let (code, stdout, stderr) = arbiter_as_user(&[
        "play",
        "--game",
        "gomoku",
        "--black",
        &team.join("JavaSpy.java").to_string_lossy(),
        // The player beside it is its opponent: another entrant of the run.
        "--white",
        &team.join("Player123456789.java").to_string_lossy(),
        "--record",
        &record.to_string_lossy(),
    ]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let record: serde_json::Value = serde_json::from_str(&read(&record)).unwrap();
    let log = record["logs"]["black"]["stderr"]
        .as_str()
        .unwrap_or_default();
    for blocked in [
        "opponent's file beside it",
        "0600 file of the user",
        "other processes",
        "listener on 127.0.0.1",
    ] {
        assert!(log.contains(&format!("SPY {blocked}: blocked")), "{log}");
    }
    assert!(log.contains("SPY own helper: reached"), "{log}");
    assert!(
        ["five_in_row", "no_window_left", "board_full"]
            .contains(&record["reason"].as_str().unwrap_or("")),
        "it played: {record}"
    );
}

/// javac is a submission's build: it runs in the jail (a stand-in compiler that looks
/// around reaches neither the user's 0600 file nor other processes), it is killed at the
/// build deadline, and the real javac never reads a neighbour's player: a player that
/// builds on the one beside it does not compile, and its error names the file the student
/// knows, not the jail's copy.
#[test]
fn a_java_players_compile_is_confined_and_never_reads_a_neighbours_player() {
    let (dir, team, secret) = class_and_secret();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("bots/java/examples");
    std::fs::copy(
        examples.join("PlayerNull.java"),
        team.join("PlayerNull.java"),
    )
    .unwrap();
    std::fs::write(
        team.join("Copycat.java"),
        "import java.awt.Color;\n\
         public class Copycat extends GomokuPlayer {\n\
         \x20   private final PlayerNull victim = new PlayerNull();\n\
         \x20   public Move chooseMove(Color[][] b, Color me) { return victim.chooseMove(b, me); }\n\
         }\n",
    )
    .unwrap();
    // The jail passes no variable of the user's on: the slow one is another script.
    let looker = dir.path().join("javac-looker");
    let slow = dir.path().join("javac-slow");
    std::fs::write(&slow, "#!/bin/sh\nsleep 60\n").unwrap();
    std::fs::set_permissions(&slow, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(
        &looker,
        format!(
            "#!/bin/sh\n\
             if cat {secret:?} >/dev/null 2>&1; then echo 'LOOK secret: reached'; \
             else echo 'LOOK secret: blocked'; fi\n\
             echo \"LOOK processes: $(ls /proc | grep -c '^[0-9]')\"\n\
             echo \"LOOK referee: $(for f in /proc/[0-9]*/cmdline; do tr '\\0' ' ' < $f; echo; \
             done | grep -c -- '[-]-game')\"\n\
             exit 3\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&looker, std::fs::Permissions::from_mode(0o755)).unwrap();
    give_to_arbiter(dir.path());
    let play = |player: &str, env: &[(&str, &str)], extra: &[&str]| {
        let record = dir.path().join(format!("{player}.json"));
        let mut args = vec!["play", "--game", "gomoku", "--black"];
        let file = team.join(player).to_string_lossy().into_owned();
        args.push(&file);
        let record_arg = record.to_string_lossy().into_owned();
        args.extend(["--white", "builtin:random", "--record", &record_arg]);
        args.extend_from_slice(extra);
        let mut cmd = arbiter_cmd(&args, env);
        cmd.env_remove("ARBITER_JAVA_CACHE");
        let started = std::time::Instant::now();
        let (code, stdout, stderr) = run(&mut cmd);
        let took = started.elapsed();
        // A game a bot could not start is not played: exit 1.
        assert_eq!(code, 1, "{stdout}{stderr}");
        let record: serde_json::Value = serde_json::from_str(&read(&record)).unwrap();
        assert_eq!(record["reason"], "spawn_failed", "{record}");
        (
            record["detail"].as_str().unwrap_or_default().to_string(),
            took,
        )
    };
    let looker_path = looker.to_string_lossy().into_owned();
    let (detail, _) = play("Copycat.java", &[("ARBITER_JAVAC", &looker_path)], &[]);
    assert!(detail.contains("LOOK secret: blocked"), "{detail}");
    let seen: usize = detail
        .split("LOOK processes: ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(usize::MAX);
    // Its own jail's: the jail's init, the shell and what it runs for the count.
    assert!(seen <= 6, "the compiler saw {seen} processes: {detail}");
    assert!(detail.contains("LOOK referee: 0"), "{detail}");
    assert!(detail.contains("exit status 3"), "{detail}");
    // Killed at the build deadline, long before it would have ended.
    let (detail, took) = play(
        "Copycat.java",
        &[("ARBITER_JAVAC", &slow.to_string_lossy())],
        &["--build-limit-s", "2"],
    );
    assert!(detail.contains("still running after 2 s"), "{detail}");
    assert!(took < std::time::Duration::from_secs(40), "{took:?}");
    if !have_jdk() {
        return;
    }
    let (detail, _) = play("Copycat.java", &[], &[]);
    assert!(detail.contains("cannot find symbol"), "{detail}");
    assert!(detail.contains("PlayerNull"), "{detail}");
    let shown = format!("{}:", team.join("Copycat.java").display());
    assert!(detail.contains(&shown), "the student's path: {detail}");
    assert!(!detail.contains("/var/tmp/arbiter-bot"), "{detail}");
}

fn have_jdk() -> bool {
    crate::common::tool_here(
        "a_java_players_compile_is_confined_and_never_reads_a_neighbours_player",
        std::process::Command::new("javac")
            .arg("-version")
            .output()
            .is_ok_and(|o| o.status.success()),
        "a JDK (`javac` on PATH)",
        "apt-get install -y openjdk-17-jdk-headless",
    )
}

/// The cgroup2 folder of this process's own cgroup, if the tests can make cgroups in it.
fn own_cgroup_folder() -> Option<PathBuf> {
    let own = arbiter::jail::cgroup::cgroup_of(std::process::id() as i32);
    if own.is_empty() {
        return None;
    }
    ["/sys/fs/cgroup/unified", "/sys/fs/cgroup"]
        .iter()
        .map(|mount| Path::new(mount).join(own.trim_start_matches('/')))
        // cgroup2's own file (the root cgroup has no `cgroup.kill`).
        .find(|dir| dir.join("cgroup.controllers").exists())
}

/// An ordinary user whose cgroup was delegated to them (as systemd delegates a user's
/// service) gets a cgroup per bot, and each jailed bot is born in its own: the jail makes
/// its user namespace first, and the kernel still lets it start a process in the cgroup.
#[test]
fn an_ordinary_users_jailed_bot_is_born_in_a_cgroup_of_the_users_delegated_one() {
    if !as_nobody() {
        eprintln!("not root, or nobody cannot run arbiter here: skipped");
        return;
    }
    let Some(own) = own_cgroup_folder() else {
        eprintln!("no cgroup2 hierarchy to delegate from here: skipped");
        return;
    };
    let delegated = own.join(format!("arbiter-test-delegated-{}", std::process::id()));
    if std::fs::create_dir(&delegated).is_err() {
        eprintln!("cannot make a cgroup under {}: skipped", own.display());
        return;
    }
    for file in [
        "",
        "cgroup.procs",
        "cgroup.threads",
        "cgroup.subtree_control",
    ] {
        std::os::unix::fs::chown(delegated.join(file), Some(NOBODY), Some(NOBODY)).unwrap();
    }
    // At level 1 the jail makes its user namespace first; at level 2 the bot is forked
    // beside its helper: both are born in the cgroup.
    let outcome = std::panic::catch_unwind(|| {
        for level in [&[][..], &["--sandbox", "landlock"][..]] {
            born_in_a_delegated_cgroup(&delegated, level);
        }
    });
    let _ = std::fs::remove_dir(&delegated);
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

fn born_in_a_delegated_cgroup(delegated: &Path, level: &[&str]) {
    let dir = test_dir();
    let record = dir.path().join("game.json");
    let mut cmd = arbiter_cmd(
        &[
            "play",
            "--rebel",
            "sh -c 'grep 0:: /proc/self/cgroup >&2; exit 3'",
            "--officer",
            "builtin:random",
            "--record",
            &record.to_string_lossy(),
        ]
        .into_iter()
        .chain(level.iter().copied())
        .collect::<Vec<_>>(),
        &[],
    );
    let procs = std::fs::OpenOptions::new()
        .write(true)
        .open(delegated.join("cgroup.procs"))
        .unwrap();
    let procs_fd = std::os::fd::AsRawFd::as_raw_fd(&procs);
    // SAFETY: one raw write, before setpriv makes arbiter run as nobody.
    unsafe {
        std::os::unix::process::CommandExt::pre_exec(&mut cmd, move || {
            let fd = std::os::fd::BorrowedFd::borrow_raw(procs_fd);
            rustix::io::write(fd, b"0").map(|_| ()).map_err(Into::into)
        });
    }
    let (code, stdout, stderr) = run(&mut cmd);
    drop(procs);
    let left: Vec<PathBuf> = std::fs::read_dir(delegated)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    assert_eq!(code, 0, "{level:?}: {stdout}{stderr}");
    assert!(left.is_empty(), "{level:?}: bot cgroups left: {left:?}");
    let record: serde_json::Value = serde_json::from_str(&read(&record)).unwrap();
    let log = record["logs"]["rebel"]["stderr"]
        .as_str()
        .unwrap_or_default();
    let name = delegated.file_name().unwrap().to_string_lossy();
    assert!(
        log.lines()
            .any(|l| l.contains(&format!("/{name}/arbiter-")) && l.contains("-bot-")),
        "{level:?}: the bot is not in a bot cgroup of the delegated one: {log}"
    );
}

/// Root's bots run as nobody: at level 2 a program behind a folder closed to other users
/// (a Python under /root/.pyenv) cannot start, and the failure says why and what to do.
#[test]
fn at_level_two_roots_bot_behind_a_closed_folder_fails_saying_why() {
    if !rustix::process::getuid().is_root() {
        eprintln!("not root: skipped");
        return;
    }
    let closed = tempfile::tempdir().unwrap();
    std::fs::set_permissions(closed.path(), std::fs::Permissions::from_mode(0o700)).unwrap();
    let bot = closed.path().join("bot.sh");
    std::fs::write(&bot, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&bot, std::fs::Permissions::from_mode(0o755)).unwrap();
    let record = closed.path().join("game.json");
    let (code, stdout, stderr) = run(std::process::Command::new(crate::common::arbiter_exe())
        .args(["play", "--sandbox", "landlock", "--rebel"])
        .arg(&bot)
        .args(["--officer", "builtin:random", "--record"])
        .arg(&record));
    if stderr.contains("cannot be confined") || stderr.contains("--sandbox landlock:") {
        eprintln!("no level 2 here: skipped ({stderr})");
        return;
    }
    // The bot never started: no evidence, and the jail's own words say why.
    assert_eq!(code, 1, "{stdout}{stderr}");
    let record: serde_json::Value = serde_json::from_str(&read(&record)).unwrap();
    assert_eq!(record["reason"], "spawn_failed", "{record}");
    let detail = record["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("cannot start the bot in its jail")
            && detail.contains("Permission denied")
            && detail
                .split_once("a bot started by root runs as uid ")
                .and_then(|(_, rest)| rest.split_once(',')?.0.parse::<u32>().ok())
                .is_some_and(|uid| {
                    let own =
                        arbiter::jail::sandbox::UID_BASE..arbiter::jail::sandbox::UID_BASE + 2000;
                    own.contains(&uid)
                })
            && detail.contains("every folder above them must be open to other users"),
        "{detail}"
    );
}

/// `arbiter play` of `rebel` against a built-in, as an ordinary user, with `env` added; the
/// exit code, what it printed and the game's record.
fn play_against_builtin(
    dir: &Path,
    rebel: &str,
    env: &[(&str, &str)],
) -> (i32, String, serde_json::Value) {
    let record = dir.join("game.json");
    let args = [
        "play",
        "--rebel",
        rebel,
        "--officer",
        "builtin:random",
        "--record",
        &record.to_string_lossy(),
    ];
    let (code, stdout, stderr) = run(&mut arbiter_cmd(&args, env));
    let text = format!("{stdout}{stderr}");
    let record = std::fs::read_to_string(&record)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| panic!("no record: {text}"));
    (code, text, record)
}

/// A program that cannot start inside its jail never started: the game is no evidence
/// (exit 1) and the jail's own words say why, not a crash with an empty stderr.
#[test]
fn a_program_that_cannot_start_in_its_jail_is_a_spawn_failure_saying_why() {
    let dir = test_dir();
    let bot = dir.path().join("bot.sh");
    std::fs::write(&bot, "#!/opt/no-such-interpreter\nprint('never')\n").unwrap();
    std::fs::set_permissions(&bot, std::fs::Permissions::from_mode(0o755)).unwrap();
    give_to_arbiter(dir.path());
    let (code, text, record) = play_against_builtin(dir.path(), &bot.to_string_lossy(), &[]);
    assert_eq!(code, 1, "{text}");
    assert_eq!(record["reason"], "spawn_failed", "{record}");
    let detail = record["detail"].as_str().unwrap_or_default();
    assert!(
        detail.contains("cannot start the bot in its jail")
            && detail.contains("bot.sh")
            && detail.contains("No such file or directory"),
        "{detail}"
    );
}

/// Only the jail can say that it failed: a bot that prints what a failed jail prints and
/// exits with its status is a bot that crashed, and the game counts.
#[test]
fn a_bot_faking_its_jails_failure_is_a_crash() {
    let dir = test_dir();
    let bot = dir.path().join("bot.sh");
    std::fs::write(
        &bot,
        "#!/bin/sh\necho 'arbiter confine: unshare(user, mount, pid, network, ipc, uts namespaces): Operation not permitted' >&2\nexit 125\n",
    )
    .unwrap();
    std::fs::set_permissions(&bot, std::fs::Permissions::from_mode(0o755)).unwrap();
    give_to_arbiter(dir.path());
    let (code, text, record) = play_against_builtin(dir.path(), &bot.to_string_lossy(), &[]);
    if text.contains("cannot be confined") {
        eprintln!("no confinement here: skipped ({text})");
        return;
    }
    assert_eq!(code, 0, "{text}");
    assert_eq!(record["reason"], "crash", "{record}");
    assert_eq!(record["winner"], "officer", "{record}");
}

/// A stand-in for the program that builds jails, `DIR/arbiter-stand-in`: the bash lines
/// `body` (with `$here`, its folder, and `${2#@}`, the jail's description), then the real
/// `arbiter confine`. Returned with `DIR/tmp`, made for its runs' kept findings.
fn jail_stand_in(dir: &Path, body: &str) -> (PathBuf, PathBuf) {
    let tmp = dir.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let stand_in = dir.join("arbiter-stand-in");
    let arbiter = shell_quote(crate::common::arbiter_exe());
    let script = format!("#!/bin/bash\nhere=$(dirname \"$0\")\n{body}exec {arbiter} \"$@\"\n");
    std::fs::write(&stand_in, script).unwrap();
    std::fs::set_permissions(&stand_in, std::fs::Permissions::from_mode(0o755)).unwrap();
    (tmp, stand_in)
}

/// A run keeps what the jail trials found (namespaces work) for the runs after it. When
/// that no longer holds, the jail says so, the run forgets the finding, runs the trials
/// and starts the bot at the level they find: the game is played, not lost by a bot that
/// could not start. The machine's refusal is played by a stand-in for the program that
/// builds jails, which refuses namespaces once a file beside it says so.
#[test]
fn a_kept_finding_that_no_longer_holds_is_tried_again_and_the_bot_started_at_the_level_found() {
    let dir = test_dir();
    let (tmp, stand_in) = jail_stand_in(
        dir.path(),
        "# As `arbiter confine @FILE`, but refusing jails with namespaces while `refuse` is here.\n\
         if [ -e \"$here/refuse\" ] && grep -q '\"level\":\"namespaces\"' \"${2#@}\"; then\n\
         \x20 why='unshare(user, mount, pid, network, ipc, uts namespaces): Operation not permitted (the test refuses)'\n\
         \x20 echo \"arbiter confine: $why\" >&2\n\
         \x20 if [ -n \"$ARBITER_JAIL_REPORT\" ]; then printf '%s' \"$why\" > \"$ARBITER_JAIL_REPORT\"; fi\n\
         \x20 exit 125\n\
         fi\n",
    );
    give_to_arbiter(dir.path());
    let uid = match as_nobody() {
        true => NOBODY,
        false => rustix::process::getuid().as_raw(),
    };
    let found = tmp.join(format!("arbiter-confinement-{uid}/found"));
    let env = [
        ("ARBITER_EXE", stand_in.to_str().unwrap()),
        ("TMPDIR", tmp.to_str().unwrap()),
    ];
    let bot = served("random");
    let (code, text, record) = play_against_builtin(dir.path(), &bot, &env);
    if text.contains("cannot be confined") {
        eprintln!("no confinement here: skipped ({text})");
        return;
    }
    assert_eq!(code, 0, "{text}");
    assert!(record["plies"].as_u64().unwrap_or(0) > 0, "{record}");
    if !found.exists() {
        eprintln!("namespaces do not work here, so nothing was kept: skipped ({text})");
        return;
    }

    std::fs::write(dir.path().join("refuse"), "").unwrap();
    let (code, text, record) = play_against_builtin(dir.path(), &bot, &env);
    assert_eq!(code, 0, "{text}");
    assert_ne!(record["reason"], "spawn_failed", "{record}");
    assert!(record["plies"].as_u64().unwrap_or(0) > 0, "{record}");
    assert!(
        !found.exists(),
        "the finding that no longer holds is forgotten"
    );
    // The trials of that run found level 2: it is not kept, and the next run tries again.
    let (code, text, _) = play_against_builtin(dir.path(), &bot, &env);
    assert_eq!(code, 0, "{text}");
    assert!(!found.exists());
}

/// A build makes two programs, and each jail is built by the `arbiter-jail` beside
/// arbiter, which starts sooner than arbiter itself. One left by another build (`cargo run`
/// relinks arbiter alone) refuses the jail's description as being of another build: the
/// run then builds its jails with arbiter itself, without a warning (every `cargo run`
/// after a change leaves such a program; `arbiter doctor` says so), and the game is
/// played, not lost by a bot that could not start; at the trials as at a bot's start. The
/// `arbiter-jail` here stands in for the one a build makes: it notes each start, then is
/// the real one, or one of another build while a file beside it says so.
#[test]
fn jails_are_built_beside_arbiter_and_by_arbiter_itself_when_that_program_is_of_another_build() {
    let dir = test_dir();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(crate::common::arbiter_exe(), bin.join("arbiter")).unwrap();
    let jail = bin.join("arbiter-jail");
    let script = format!(
        "#!/bin/bash\n\
         here=$(dirname \"$0\")\n\
         echo \"$@\" >> \"$here/starts\"\n\
         if [ -e \"$here/other\" ]; then\n\
         \x20 why='{}'\n\
         \x20 echo \"arbiter confine: $why\" >&2\n\
         \x20 if [ -n \"$ARBITER_JAIL_REPORT\" ]; then printf '%s' \"$why\" > \"$ARBITER_JAIL_REPORT\"; fi\n\
         \x20 exit 125\n\
         fi\n\
         exec {} \"$@\"\n",
        "the program that builds jails is of another build (the stand-in of one)",
        shell_quote(
            Path::new(crate::common::arbiter_exe())
                .with_file_name("arbiter-jail")
                .to_str()
                .unwrap()
        )
    );
    std::fs::write(&jail, script).unwrap();
    std::fs::set_permissions(&jail, std::fs::Permissions::from_mode(0o755)).unwrap();
    give_to_arbiter(dir.path());
    let starts = || {
        let text = std::fs::read_to_string(bin.join("starts")).unwrap_or_default();
        let _ = std::fs::remove_file(bin.join("starts"));
        text.lines().count()
    };
    let warned = |text: &str| text.matches("another build").count();
    let bot = served("random");
    let exe = bin.join("arbiter");
    let play = |tmp: &str| {
        let tmp = dir.path().join(tmp);
        if !tmp.exists() {
            std::fs::create_dir(&tmp).unwrap();
            give_to_arbiter(&tmp);
        }
        let env = [
            ("ARBITER_EXE", exe.to_str().unwrap()),
            ("TMPDIR", tmp.to_str().unwrap()),
        ];
        play_against_builtin(dir.path(), &bot, &env)
    };

    let (code, text, record) = play("tmp");
    if text.contains("cannot be confined") {
        eprintln!("no confinement here: skipped ({text})");
        return;
    }
    assert_eq!(code, 0, "{text}");
    assert!(record["plies"].as_u64().unwrap_or(0) > 0, "{record}");
    assert_eq!(warned(&text), 0, "{text}");
    // The trials of each level and the bot's start.
    assert_eq!(starts(), 3, "{text}");

    std::fs::write(bin.join("other"), "").unwrap();
    // The level kept from the run before: the bot's start meets the other build.
    let (code, text, record) = play("tmp");
    assert_eq!(code, 0, "{text}");
    assert_ne!(record["reason"], "spawn_failed", "{record}");
    assert!(record["plies"].as_u64().unwrap_or(0) > 0, "{record}");
    assert_eq!(warned(&text), 0, "{text}");
    assert_eq!(starts(), 1, "then arbiter built the jail: {text}");
    // No level kept: the trials meet it, and the bot starts through arbiter at once.
    let (code, text, record) = play("fresh-tmp");
    assert_eq!(code, 0, "{text}");
    assert!(record["plies"].as_u64().unwrap_or(0) > 0, "{record}");
    assert_eq!(warned(&text), 0, "{text}");
    assert!(
        (1..=2).contains(&starts()),
        "only the trials met it: {text}"
    );
    // Where it is said: the doctor names arbiter as the program that builds the jails,
    // and why.
    let tmp = dir.path().join("fresh-tmp");
    let env = [
        ("ARBITER_EXE", exe.to_str().unwrap()),
        ("TMPDIR", tmp.to_str().unwrap()),
    ];
    let (_, stdout, stderr) = run(&mut arbiter_cmd(&["doctor"], &env));
    let said = format!(
        "jails are built by: {} ({} is of another build: `cargo build --release` builds both)\n",
        exe.display(),
        jail.display()
    );
    assert!(stdout.contains(&said), "{stdout}{stderr}");
}

/// A run keeps what its cgroup probe found (processes can be born in bots' cgroups), and
/// the runs after it make no probe cgroup: their first bot takes the first cgroup
/// (`-bot-0`, where the probing run's took `-bot-1`). When a jail could not be born in its
/// bot's cgroup after all, the bot is found outside it as it starts: it plays on as a bot
/// without one, no cgroup of the run is left, and the finding is forgotten. The refusal
/// is played by a stand-in for the program that builds jails, which takes the cgroup out
/// of the jail's description while a file beside it says so. Run as root: the user whose
/// runs make cgroups here.
#[test]
fn a_bot_born_outside_its_cgroup_plays_without_it_and_the_kept_finding_is_forgotten() {
    if !rustix::process::getuid().is_root() {
        eprintln!("not root: no cgroups for bots here: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (tmp, stand_in) = jail_stand_in(
        dir.path(),
        "# As `arbiter confine @FILE`, with no cgroup to be born in while `refuse` is here.\n\
         if [ -e \"$here/refuse\" ]; then sed -i 's/\"cgroup\":\"[^\"]*\"/\"cgroup\":null/' \"${2#@}\"; fi\n",
    );
    let found = tmp.join("arbiter-confinement-0/cgroups");
    // Alive while its start is checked, then out without a word.
    let bot = "sh -c 'grep 0:: /proc/self/cgroup >&2; sleep 0.3; exit 3'";
    let game = || {
        let record = dir.path().join("game.json");
        let mut cmd = arbiter();
        cmd.args([
            "play",
            "--rebel",
            bot,
            "--officer",
            "builtin:random",
            "--record",
        ])
        .arg(&record)
        .env("ARBITER_EXE", &stand_in)
        .env("TMPDIR", &tmp);
        let child = cmd
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let pid = child.id();
        let out = child.wait_with_output().unwrap();
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(0), "{text}");
        let record: serde_json::Value = serde_json::from_str(&read(&record)).unwrap();
        let log = record["logs"]["rebel"]["stderr"]
            .as_str()
            .unwrap_or_default()
            .to_string();
        (pid, log)
    };
    let (pid, log) = game();
    if !found.exists() {
        eprintln!("no bot cgroups with CLONE_INTO_CGROUP here: skipped ({log})");
        return;
    }
    assert!(
        log.contains(&format!("/arbiter-{pid}-bot-1")),
        "the probing run's bot in the cgroup after the probe's: {log}"
    );
    let (pid, log) = game();
    assert!(
        log.contains(&format!("/arbiter-{pid}-bot-0")),
        "a run after it makes no probe cgroup: {log}"
    );
    assert!(found.exists(), "the finding stays while it holds");

    std::fs::write(dir.path().join("refuse"), "").unwrap();
    let (pid, log) = game();
    assert!(
        log.starts_with("0::") && !log.contains("-bot-"),
        "the stand-in's bot was born in a bot cgroup: {log}"
    );
    assert!(
        !found.exists(),
        "the finding that did not hold is forgotten"
    );
    let cgroup_root = ["/sys/fs/cgroup/unified", "/sys/fs/cgroup"]
        .into_iter()
        .find(|m| Path::new(m).join("cgroup.controllers").exists())
        .unwrap();
    let own = arbiter::jail::cgroup::cgroup_of(std::process::id() as i32);
    let parent = Path::new(cgroup_root).join(own.trim_start_matches('/'));
    let left: Vec<String> = std::fs::read_dir(&parent)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(&format!("arbiter-{pid}-")))
        .collect();
    assert!(left.is_empty(), "cgroups of the run left: {left:?}");
}

/// The folder that keeps the trials' finding is used only when it is the running user's
/// alone: one planted by another user (here root, for arbiter running as nobody) is
/// neither read nor written, and the run plays on after its own trials.
#[test]
fn a_finding_folder_planted_by_another_user_is_neither_read_nor_written() {
    if !as_nobody() {
        eprintln!("arbiter does not run as nobody here: skipped");
        return;
    }
    let dir = test_dir();
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    give_to_arbiter(dir.path());
    // Root's, open to all: what another user could leave in a shared /tmp.
    let planted = tmp.join(format!("arbiter-confinement-{NOBODY}"));
    std::fs::create_dir(&planted).unwrap();
    std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o777)).unwrap();
    std::fs::write(planted.join("found"), "namespaces planted\n").unwrap();
    let env = [("TMPDIR", tmp.to_str().unwrap())];
    let (code, text, record) = play_against_builtin(dir.path(), &served("random"), &env);
    assert_eq!(code, 0, "{text}");
    assert!(record["plies"].as_u64().unwrap_or(0) > 0, "{record}");
    assert_eq!(read(&planted.join("found")), "namespaces planted\n");
    assert_eq!(
        std::fs::read_dir(&planted).unwrap().count(),
        1,
        "nothing written there"
    );
}

/// What tells `arbiter confine` where its report is never reaches the bot.
#[test]
fn a_jailed_bot_does_not_inherit_the_report_pipes_name() {
    let dir = test_dir();
    let bot = dir.path().join("EnvSpy.py");
    std::fs::write(
        &bot,
        "import os, sys\n\
         class Player:\n\
         \x20   def __init__(self):\n\
         \x20       sys.stderr.write('ENV %s\\n' % ' '.join(sorted(os.environ)))\n\
         \x20   def play_rebel(self, board):\n\
         \x20       return None\n\
         \x20   def play_officer(self, board):\n\
         \x20       return None\n",
    )
    .unwrap();
    give_to_arbiter(dir.path());
    let (code, text, record) = play_against_builtin(dir.path(), &bot.to_string_lossy(), &[]);
    assert_eq!(code, 0, "{text}");
    let logged = record["logs"]["rebel"]["stderr"]
        .as_str()
        .unwrap_or_default();
    let env = logged
        .lines()
        .find(|l| l.starts_with("ENV "))
        .unwrap_or_else(|| panic!("no ENV line: {record}"));
    assert!(env.contains("PATH"), "{env}");
    assert!(!env.contains("ARBITER_JAIL_REPORT"), "{env}");
}
