//! A jail holds the same at both levels (`--sandbox namespaces`, and `--sandbox landlock`,
//! what a desktop without user namespaces gets), for an ordinary user: course bots written
//! to escape try every way out before they play, and report each on stderr as
//! `SPY what: reached` or `SPY what: blocked (...)`. Where the tests run as root, arbiter
//! runs as `nobody`.

use crate::common::*;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const LEVELS: [&str; 2] = ["namespaces", "landlock"];

/// In a [`play_with`] environment: arbiter runs as root itself (where the tests do).
const AS_ROOT: &str = "(as root)";

/// Python that defines `probe(what, attempt)`: runs `attempt()` and reports it.
const PROBE: &str = r#"import os, sys, ctypes, ctypes.util
libc = ctypes.CDLL(None, use_errno=True)

def probe(what, attempt):
    try:
        attempt()
        print("SPY " + what + ": reached", file=sys.stderr, flush=True)
    except Exception as e:
        print("SPY " + what + ": blocked (" + type(e).__name__ + ")", file=sys.stderr, flush=True)

def call(name, *args):
    r = getattr(libc, name)(*args)
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, os.strerror(e))
    return r

def ancestors():
    pid, chain = os.getppid(), []
    while pid > 1:
        chain.append(pid)
        with open("/proc/%d/stat" % pid) as f:
            pid = int(f.read().rsplit(")", 1)[1].split()[1])
    return chain
"#;

/// A team folder `TeamNN/` in `dir` whose `TeamNN.py` runs `body` at import, then plays
/// as the example team's random bot (its helper module, `randbot.py`).
fn attacker(dir: &Path, name: &str, body: &str) -> PathBuf {
    let source =
        format!("{PROBE}\n{body}\n\nimport randbot\n\nclass Player(randbot.Player):\n    pass\n");
    let file = course_team(dir, name, &source);
    give_to_arbiter(dir);
    file
}

/// `arbiter play` of `rebel` against a built-in at `level`, as an ordinary user: the exit
/// code, what it printed and the game's record.
fn play_at(level: &str, rebel: &Path, extra: &[&str]) -> (i32, String, serde_json::Value) {
    play_with(level, rebel, extra, &[])
}

/// [`play_at`] with `env` added to arbiter's environment.
fn play_with(
    level: &str,
    rebel: &Path,
    extra: &[&str],
    env: &[(&str, &str)],
) -> (i32, String, serde_json::Value) {
    let record = rebel
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join(format!("{level}.json"));
    let mut args = vec![
        "play",
        "--sandbox",
        level,
        "--round-limit",
        "3",
        "--rebel",
        rebel.to_str().unwrap(),
        "--officer",
        "builtin:random",
        "--record",
        record.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let mut cmd = match env.iter().any(|(k, _)| *k == AS_ROOT) {
        // As root: the bot runs as nobody, with the system's Python (root's own may be
        // closed to it).
        true => {
            let mut cmd = arbiter();
            cmd.args(&args).args(["--python", "/usr/bin/python3"]);
            cmd
        }
        false => arbiter_cmd(&args, &[]),
    };
    cmd.envs(env.iter().copied().filter(|(k, _)| *k != AS_ROOT));
    let (code, stdout, stderr) = run(&mut cmd);
    let text = format!("{stdout}{stderr}");
    let record: serde_json::Value = std::fs::read_to_string(&record)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_else(|| panic!("no record at {level}: {text}"));
    (code, text, record)
}

/// The spy's reports in a record: probe to whether it was reached.
fn reports(record: &serde_json::Value) -> std::collections::BTreeMap<String, bool> {
    let stderr = record["logs"]["rebel"]["stderr"]
        .as_str()
        .unwrap_or_default();
    stderr
        .lines()
        .filter_map(|line| line.strip_prefix("SPY "))
        .filter_map(|r| r.split_once(": "))
        .map(|(what, outcome)| (what.to_string(), outcome == "reached"))
        .collect()
}

/// Asserts that every probe in `blocked` was tried and blocked, and every one in
/// `reached` was tried and reached, in the record of a game at `level`.
fn assert_probes(level: &str, record: &serde_json::Value, blocked: &[&str], reached: &[&str]) {
    let seen = reports(record);
    for what in blocked {
        assert_eq!(
            seen.get(*what),
            Some(&false),
            "{level}: `{what}` must be blocked: {seen:?}\n{record}"
        );
    }
    for what in reached {
        assert_eq!(
            seen.get(*what),
            Some(&true),
            "{level}: `{what}` must work: {seen:?}\n{record}"
        );
    }
}

/// The processes whose command line holds `mark`.
fn processes_marked(mark: &str) -> Vec<i32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        if String::from_utf8_lossy(&cmdline).contains(mark) {
            found.push(pid);
        }
    }
    found
}

fn assert_none_marked(level: &str, mark: &str) {
    let until = Instant::now() + Duration::from_secs(3);
    loop {
        let left = processes_marked(mark);
        if left.is_empty() {
            return;
        }
        assert!(
            Instant::now() < until,
            "{level}: processes outlived the game: {left:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn no_process_a_bot_starts_outlives_its_game_whatever_it_does_to_its_session_group_or_parentage() {
    for level in LEVELS {
        let dir = test_dir();
        let mark = format!("escapee-{level}-{}", std::process::id());
        let body = format!(
            r#"
MARK = {mark:?}
def arbiter_group():
    for pid in ancestors():
        with open("/proc/%d/stat" % pid) as f:
            group = int(f.read().rsplit(")", 1)[1].split()[2])
        if group != os.getpgrp():
            return group
    raise LookupError("no other group in sight")

probe("new session", os.setsid)
probe("join arbiter's group", lambda: os.setpgid(0, arbiter_group()))
probe("controlling terminal", lambda: os.open("/dev/tty", os.O_RDWR))
def terminal_of_an_ancestor():
    for pid in ancestors():
        for fd in (0, 1, 2):
            try:
                os.open("/proc/%d/fd/%d" % (pid, fd), os.O_RDONLY)
                return
            except OSError:
                pass
    raise PermissionError("none")
probe("an ancestor's descriptors", terminal_of_an_ancestor)
# A grandchild that loses its parent, clears its environment and sleeps.
child = os.fork()
if child == 0:
    try:
        os.setsid()
    except OSError:
        pass
    if os.fork() == 0:
        os.execve(sys.executable, [sys.executable, "-c", "import time; time.sleep(120)", MARK], {{}})
    os._exit(0)
os.waitpid(child, 0)
probe("grandchild started", lambda: None)
"#
        );
        let bot = attacker(dir.path(), "Team31", &body);
        // With a cgroup where arbiter can make one, and without; as an ordinary user,
        // and as root where the tests run as root.
        let root = rustix::process::getuid().is_root();
        let runs = [("on", false), ("off", false), ("on", true), ("off", true)];
        for (cgroup, as_root) in runs.into_iter().filter(|&(_, r)| !r || root) {
            let mut env = vec![(arbiter::jail::cgroup::DISABLE_VAR, cgroup)];
            if as_root {
                env.push((AS_ROOT, ""));
            }
            let (code, text, record) = play_with(level, &bot, &[], &env);
            let level = &format!("{level}, cgroups {cgroup}, as root: {as_root}");
            assert_eq!(code, 0, "{level}: {text}");
            assert_eq!(record["reason"], "round_limit", "{level}: {record}");
            assert_probes(
                level,
                &record,
                &[
                    "new session",
                    "join arbiter's group",
                    "controlling terminal",
                    "an ancestor's descriptors",
                ],
                &["grandchild started"],
            );
            assert_none_marked(level, &mark);
        }
    }
}

#[test]
fn a_bot_can_change_its_own_process_but_no_other_process_of_the_user() {
    // A process of the user arbiter runs as, which the bot must not touch.
    let mut victim = as_arbiters_user("sleep").arg("120").spawn().unwrap();
    let pid = victim.id();
    let limits_before = std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap();
    for level in LEVELS {
        let dir = test_dir();
        let body = format!(
            r#"
import resource
VICTIM = {pid}
class RLimit(ctypes.Structure):
    _fields_ = [("cur", ctypes.c_ulong), ("max", ctypes.c_ulong)]
three = RLimit(3, 3)
probe("prlimit on another process", lambda: call("prlimit", VICTIM, resource.RLIMIT_NOFILE, ctypes.byref(three), None))
probe("prlimit on arbiter", lambda: call("prlimit", ancestors()[-1], resource.RLIMIT_NOFILE, ctypes.byref(three), None))
probe("setpriority of another process", lambda: os.setpriority(os.PRIO_PROCESS, VICTIM, 19))
probe("setpriority of the user", lambda: os.setpriority(os.PRIO_USER, os.getuid(), 19))
probe("affinity of another process", lambda: os.sched_setaffinity(VICTIM, {{0}}))
probe("scheduler of another process", lambda: os.sched_setscheduler(VICTIM, os.SCHED_BATCH, os.sched_param(0)))
probe("io priority of another process", lambda: call("syscall", 251, 1, VICTIM, (3 << 13) | 7))
probe("pidfd of another process", lambda: os.pidfd_open(VICTIM))
probe("kcmp", lambda: call("syscall", 312, os.getpid(), VICTIM, 0, 0, 0))
probe("signal to another process", lambda: os.kill(VICTIM, 0))
# Its own process stays its own to change.
probe("own priority", lambda: os.setpriority(os.PRIO_PROCESS, 0, 1))
probe("own limit", lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (64, resource.getrlimit(resource.RLIMIT_NOFILE)[1])))
probe("own affinity", lambda: os.sched_setaffinity(0, os.sched_getaffinity(0)))
probe("own pidfd", lambda: os.close(os.pidfd_open(os.getpid())))
"#
        );
        let bot = attacker(dir.path(), "Team32", &body);
        let (code, text, record) = play_at(level, &bot, &[]);
        assert_eq!(code, 0, "{level}: {text}");
        assert_eq!(record["reason"], "round_limit", "{level}: {record}");
        assert_probes(
            level,
            &record,
            &[
                "prlimit on another process",
                "prlimit on arbiter",
                "setpriority of another process",
                "setpriority of the user",
                "affinity of another process",
                "scheduler of another process",
                "io priority of another process",
                "pidfd of another process",
                "kcmp",
                "signal to another process",
            ],
            &["own priority", "own limit", "own affinity", "own pidfd"],
        );
    }
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let nice = stat
        .rsplit_once(')')
        .unwrap()
        .1
        .split_whitespace()
        .nth(16)
        .unwrap()
        .to_string();
    assert_eq!(nice, "0", "the victim's nice value changed");
    assert_eq!(
        std::fs::read_to_string(format!("/proc/{pid}/limits")).unwrap(),
        limits_before,
        "the victim's limits changed"
    );
    assert!(victim.try_wait().unwrap().is_none(), "the victim died");
    victim.kill().unwrap();
    victim.wait().unwrap();
}

#[test]
fn a_bot_has_no_socket_of_any_family_and_no_sysv_ipc() {
    use std::os::unix::net::UnixListener;
    let shared = test_dir();
    let udp = std::net::UdpSocket::bind("127.0.0.1:0").unwrap();
    udp.set_nonblocking(true).unwrap();
    let udp_port = udp.local_addr().unwrap().port();
    let tcp = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    tcp.set_nonblocking(true).unwrap();
    let tcp_port = tcp.local_addr().unwrap().port();
    // A session bus or an ssh-agent: a pathname socket any process of the user may reach.
    let unix_path = shared.path().join("agent.sock");
    let unix = UnixListener::bind(&unix_path).unwrap();
    unix.set_nonblocking(true).unwrap();
    std::fs::set_permissions(&unix_path, std::fs::Permissions::from_mode(0o777)).unwrap();
    give_to_arbiter(shared.path());
    // A SysV segment of another program, open to everyone.
    // SAFETY: plain SysV calls on a segment this test makes and removes.
    let segment = unsafe { libc::shmget(libc::IPC_PRIVATE, 4096, libc::IPC_CREAT | 0o666) };
    assert!(segment >= 0);
    for level in LEVELS {
        let dir = test_dir();
        let body = format!(
            r#"
import socket
def udp(family, host):
    s = socket.socket(family, socket.SOCK_DGRAM)
    s.sendto(b"x", (host, {udp_port}))
probe("udp to 127.0.0.1", lambda: udp(socket.AF_INET, "127.0.0.1"))
probe("udp to ::1", lambda: udp(socket.AF_INET6, "::1"))
probe("udp bind", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).bind(("127.0.0.1", 0)))
probe("tcp to 127.0.0.1", lambda: socket.create_connection(("127.0.0.1", {tcp_port}), timeout=1))
probe("unix socket of the user", lambda: socket.socket(socket.AF_UNIX).connect({unix:?}))
probe("netlink", lambda: socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0))
probe("socketpair", lambda: socket.socketpair())
probe("sysv segment made", lambda: call("shmget", 0, 4096, 0o1666))
probe("sysv segment of another program", lambda: call("shmat", {segment}, None, 0) and None)
probe("sysv semaphores", lambda: call("semget", 0, 1, 0o1666))
probe("sysv queue", lambda: call("msgget", 0, 0o1666))
probe("memfd", lambda: os.memfd_create("x"))
"#,
            unix = unix_path.to_string_lossy(),
        );
        let bot = attacker(dir.path(), "Team33", &body);
        let (code, text, record) = play_at(level, &bot, &[]);
        assert_eq!(code, 0, "{level}: {text}");
        assert_eq!(record["reason"], "round_limit", "{level}: {record}");
        assert_probes(
            level,
            &record,
            &[
                "udp to 127.0.0.1",
                "udp to ::1",
                "udp bind",
                "tcp to 127.0.0.1",
                "unix socket of the user",
                "netlink",
                "sysv segment made",
                "sysv segment of another program",
                "sysv semaphores",
                "sysv queue",
                "memfd",
            ],
            &["socketpair"],
        );
    }
    let mut buf = [0u8; 16];
    assert!(udp.recv_from(&mut buf).is_err(), "a datagram arrived");
    assert!(tcp.accept().is_err(), "a TCP connection arrived");
    assert!(unix.accept().is_err(), "a Unix connection arrived");
    // SAFETY: the segment this test made.
    let mut info: libc::shmid_ds = unsafe { std::mem::zeroed() };
    assert_eq!(
        unsafe { libc::shmctl(segment, libc::IPC_STAT, &mut info) },
        0
    );
    assert_eq!(info.shm_nattch, 0, "a bot attached the segment");
    unsafe { libc::shmctl(segment, libc::IPC_RMID, std::ptr::null_mut()) };
}

#[test]
fn a_bot_starts_with_no_descriptor_arbiter_inherited_from_its_caller() {
    use std::os::fd::AsRawFd;
    use std::os::unix::process::CommandExt;
    let secret_dir = test_dir();
    let secret = secret_dir.path().join("caller.txt");
    std::fs::write(&secret, "the caller's file\n").unwrap();
    give_to_arbiter(secret_dir.path());
    for level in LEVELS {
        let dir = test_dir();
        let body = r#"
FOLDER = os.environ.get("NO_SUCH_VARIABLE", "SECRETFOLDER")
def own_descriptors():
    return sorted(int(fd) for fd in os.listdir("/proc/self/fd"))
fds = own_descriptors()
print("SPY descriptors " + ",".join(map(str, fds)) + ": seen", file=sys.stderr, flush=True)
for fd in fds:
    try:
        print("SPY descriptor %d is %s: seen" % (fd, os.readlink("/proc/self/fd/%d" % fd)), file=sys.stderr, flush=True)
    except OSError:
        pass
def points_to(fd, name):
    if name not in os.readlink("/proc/self/fd/%d" % fd):
        raise LookupError("fd %d is not the caller's" % fd)
probe("fd 7", lambda: points_to(7, "caller.txt"))
probe("fd 8", lambda: points_to(8, FOLDER))
"#;
        let folder_name = secret_dir.path().file_name().unwrap().to_string_lossy();
        let bot = attacker(
            dir.path(),
            "Team34",
            &body.replace("SECRETFOLDER", &folder_name),
        );
        let record = dir.path().join("game.json");
        let file = std::fs::File::open(&secret).unwrap();
        let folder = std::fs::File::open(secret_dir.path()).unwrap();
        let (file, folder) = (file.as_raw_fd(), folder.as_raw_fd());
        let mut cmd = arbiter_cmd(
            &[
                "play",
                "--sandbox",
                level,
                "--round-limit",
                "2",
                "--rebel",
                bot.to_str().unwrap(),
                "--officer",
                "builtin:random",
                "--record",
                record.to_str().unwrap(),
            ],
            &[],
        );
        // SAFETY: dup2 only, in the child before exec: arbiter's caller holds fds 7 and 8
        // open across exec, as a shell's redirection leaves them.
        unsafe {
            cmd.pre_exec(move || {
                if libc::dup2(file, 7) < 0 || libc::dup2(folder, 8) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let (code, stdout, stderr) = run(&mut cmd);
        assert_eq!(code, 0, "{level}: {stdout}{stderr}");
        let record: serde_json::Value = serde_json::from_str(&read(&record)).unwrap();
        assert_probes(level, &record, &["fd 7", "fd 8"], &[]);
        let stderr = record["logs"]["rebel"]["stderr"]
            .as_str()
            .unwrap_or_default();
        assert!(
            !stderr.contains("caller.txt")
                && !stderr.contains(&*secret_dir.path().to_string_lossy()),
            "{level}: {stderr}"
        );
    }
}

#[test]
fn a_bot_is_capped_by_default_in_processes_memory_and_disk_and_each_breach_says_which() {
    for level in LEVELS {
        // Processes: a fork storm stops at the cap, and the bot still plays.
        let dir = test_dir();
        let mark = format!("storm-{level}-{}", std::process::id());
        let body = format!(
            r#"
made = 0
try:
    for _ in range(3000):
        if os.fork() == 0:
            os.execv(sys.executable, [sys.executable, "-c", "import time; time.sleep(120)", {mark:?}])
        made += 1
except OSError as e:
    pass
print("SPY processes made %d: seen" % made, file=sys.stderr, flush=True)
probe("3000 processes", lambda: made == 3000 or (_ for _ in ()).throw(OSError("capped")))
"#
        );
        let bot = attacker(dir.path(), "Team35", &body);
        let (code, text, record) = play_at(level, &bot, &[]);
        assert_eq!(code, 0, "{level}: {text}");
        assert_eq!(record["reason"], "round_limit", "{level}: {record}");
        assert_probes(level, &record, &["3000 processes"], &[]);
        let stderr = record["logs"]["rebel"]["stderr"].as_str().unwrap();
        let made: u64 = stderr
            .lines()
            .find_map(|l| l.strip_prefix("SPY processes made "))
            .and_then(|l| l.split(':').next()?.parse().ok())
            .unwrap();
        assert!(
            (100..=300).contains(&made),
            "{level}: {made} processes made"
        );
        assert_none_marked(level, &mark);

        // A bot that dies of the cap on processes says so in its verdict.
        let dir = test_dir();
        let body = r#"
children = []
while True:
    pid = os.fork()
    if pid == 0:
        import time
        time.sleep(60)
        os._exit(0)
    children.append(pid)
"#;
        let bot = attacker(dir.path(), "Team39", body);
        let (_, text, record) = play_at(level, &bot, &[]);
        assert_eq!(record["winner"], "officer", "{level}: {text}");
        let detail = record["detail"].as_str().unwrap();
        assert!(
            detail.contains("cap of 256 processes and threads reached"),
            "{level}: {detail}"
        );

        // Memory: 3 GiB cannot be had, and the loss says the cap.
        let dir = test_dir();
        let bot = attacker(dir.path(), "Team36", "hog = bytearray(3 << 30)\n");
        let (_, text, record) = play_at(level, &bot, &[]);
        assert_eq!(record["reason"], "memory", "{level}: {text}");
        let detail = record["detail"].as_str().unwrap();
        assert!(
            detail.contains("memory limit of 2048 MiB"),
            "{level}: {detail}"
        );

        // Disk: files that hold 1.2 GB, each under the largest file allowed, in its
        // private folder (its HOME and /tmp): stopped at the disk cap.
        let dir = test_dir();
        let body = r#"
import tempfile
written = []
def fill():
    for i in range(6):
        with open(os.path.join(tempfile.gettempdir(), "fill%d" % i), "wb") as f:
            os.posix_fallocate(f.fileno(), 0, 200 << 20)
    written.append(True)
probe("1.2 GB written", fill)
import time
# Time for the helper's measure, where it is the helper that stops it.
if written:
    time.sleep(30)
"#;
        let bot = attacker(dir.path(), "Team37", body);
        let (_, text, record) = play_at(level, &bot, &["--init-limit-ms", "60000"]);
        if level == "namespaces" {
            // Refused by the kernel at the cap (the private folder's writes go to a tmpfs of
            // the cap): the bot is told `No space left on device`, and plays on.
            assert_probes(level, &record, &["1.2 GB written"], &[]);
            assert_eq!(record["reason"], "round_limit", "{level}: {text}");
            continue;
        }
        assert_eq!(record["reason"], "file_size", "{level}: {text}");
        let detail = record["detail"].as_str().unwrap();
        assert!(
            detail.contains("disk cap") && detail.contains("1024 MiB"),
            "{level}: {detail}"
        );
    }
}

#[test]
fn a_course_bot_loading_numpy_and_its_weights_plays_under_the_default_caps() {
    // The model file is made by numpy itself, beside the bot, as a team hands it in.
    for level in LEVELS {
        let dir = test_dir();
        let body = r#"
import numpy as np
here = os.path.dirname(os.path.abspath(__file__))
WEIGHTS = np.load(os.path.join(here, "weights.npy"))
probe("weights loaded", lambda: WEIGHTS.sum())
"#;
        let bot = attacker(dir.path(), "Team38", body);
        let made = Command::new("python3")
            .args([
                "-c",
                "import numpy as np, sys; np.save(sys.argv[1], np.random.default_rng(1).random((3_932_160,)))",
            ])
            .arg(bot.parent().unwrap().join("weights.npy"))
            .status()
            .expect("python3 with numpy (tests/install installs it)");
        assert!(made.success());
        give_to_arbiter(dir.path());
        let size = std::fs::metadata(bot.parent().unwrap().join("weights.npy"))
            .unwrap()
            .len();
        assert!(size > 30_000_000, "{size}");
        let (code, text, record) = play_at(level, &bot, &[]);
        assert_eq!(code, 0, "{level}: {text}");
        assert_eq!(record["reason"], "round_limit", "{level}: {record}");
        assert_probes(level, &record, &[], &["weights loaded"]);
    }
}

/// The median time of the rebel's moves in a record, in ms.
fn rebel_median_ms(record: &serde_json::Value) -> f64 {
    let mut times: Vec<f64> = record["moves"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["side"] == "rebel")
        .filter_map(|m| m["time_ms"].as_f64())
        .collect();
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

#[test]
fn the_waiting_bot_is_frozen_so_a_hogs_busy_processes_steal_nothing_from_its_opponent() {
    // Each level's games on a CPU of their own: the victim, the hog and its busy
    // processes share it, so whatever the busy processes ran would be the victim's loss.
    at_both_levels(|level, cpu| {
        let dir = test_dir();
        let victim = course_thinker(dir.path(), "Team40", 0.2);
        give_to_arbiter(dir.path());
        // At its first move the hog starts 8 busy processes, which spin for the rest of
        // the game, then answers at once.
        let hog = attacker(
            dir.path(),
            "Team41",
            r#"
import randbot as _r
class _Hog(_r.Player):
    started = False
    def play_officer(self, board):
        if not _Hog.started:
            _Hog.started = True
            for _ in range(8):
                if os.fork() == 0:
                    while True:
                        pass
        return super().play_officer(board)
import randbot
randbot.Player = _Hog
"#,
        );
        let quiet = test_dir();
        let calm = attacker(quiet.path(), "Team42", "");
        let game = |officer: &Path| {
            let record = dir.path().join("game.json");
            let args = [
                "play",
                "--sandbox",
                level,
                "--round-limit",
                "4",
                "--limit-ms",
                "5000",
                "--rebel",
                victim.to_str().unwrap(),
                "--officer",
                officer.to_str().unwrap(),
                "--record",
                record.to_str().unwrap(),
            ];
            let (code, stdout, stderr) = run(on_cpu(cpu, &mut arbiter_cmd(&args, &[])));
            assert_eq!(code, 0, "{level}: {stdout}{stderr}");
            let record: serde_json::Value = serde_json::from_str(&read(&record)).unwrap();
            assert_eq!(record["reason"], "round_limit", "{level}: {record}");
            rebel_median_ms(&record)
        };
        // Alternated, so that a change in the machine's load meets both alike.
        let (mut against_quiet, mut against_hog) = (Vec::new(), Vec::new());
        for _ in 0..3 {
            against_quiet.push(game(&calm));
            against_hog.push(game(&hog));
        }
        // The quickest game each way: a spike of the machine's other load lengthens a
        // game, never shortens one (unfrozen, the hog's processes took 8-15 times as long).
        against_quiet.sort_by(f64::total_cmp);
        against_hog.sort_by(f64::total_cmp);
        let (quiet, hogged) = (against_quiet[0], against_hog[0]);
        assert!(
            hogged <= quiet * 1.10,
            "{level}: the victim's moves took {hogged:.0} ms against the hog, {quiet:.0} ms \
             against a quiet bot ({against_hog:?} against {against_quiet:?})"
        );
    });
}

/// One bot at its process cap costs no other bot a thread: a bot forks until the kernel
/// refuses (its children sleep), while its opponent searches each move in a worker thread.
/// The opponent plays on, at both levels as root (each bot runs as a uid of its own), and
/// at level 1 as an ordinary user (each bot in a user namespace of its own, whose count
/// starts afresh). At level 2 as an ordinary user the bots share the user's uid, and with
/// it the kernel's count (docs/SECURITY.md says so).
#[test]
fn a_bot_at_its_process_cap_costs_its_opponent_no_thread() {
    let dir = test_dir();
    let forker = course_team(
        dir.path(),
        "Team43",
        r#"import os, time
import randbot

class Player(randbot.Player):
    forked = 0
    def play_rebel(self, board):
        if Player.forked == 0:
            while True:
                try:
                    pid = os.fork()
                except OSError:
                    break
                if pid == 0:
                    time.sleep(600)
                    os._exit(0)
                Player.forked += 1
        return super().play_rebel(board)
"#,
    );
    let threader = course_team(
        dir.path(),
        "Team44",
        r#"import threading
import randbot

class Player(randbot.Player):
    def play_officer(self, board):
        found = []
        worker = threading.Thread(target=lambda: found.append(super(Player, self).play_officer(board)))
        worker.start()
        worker.join()
        return found[0]
"#,
    );
    give_to_arbiter(dir.path());
    // At level 2 as an ordinary user every bot runs as the user: not promised there.
    let cases = user_cases()
        .into_iter()
        .filter(|&(level, as_root)| as_root || level == "namespaces");
    for (level, as_root) in cases {
        let Some(played) = play_case(dir.path(), level, as_root, &forker, &threader, &[]) else {
            continue;
        };
        assert_eq!(played.code, 0, "{}", played.text);
        assert_eq!(
            played.record["reason"], "round_limit",
            "{}\n{}",
            played.text, played.record
        );
    }
}

/// The cases of a test that holds for every user: each level as an ordinary user (`nobody`
/// where the tests run as root), and each level as root where the tests run as root.
fn user_cases() -> Vec<(&'static str, bool)> {
    let mut cases: Vec<(&str, bool)> = LEVELS.iter().map(|&level| (level, false)).collect();
    if rustix::process::getuid().is_root() {
        cases.extend(LEVELS.iter().map(|&level| (level, true)));
    }
    cases
}

/// One game of [`play_case`].
struct Played {
    /// arbiter's exit code.
    code: i32,
    /// The case, and what arbiter printed.
    text: String,
    /// The game's record.
    record: serde_json::Value,
    /// The pid of the arbiter run.
    run_pid: u32,
}

/// `arbiter play` of `rebel` against `officer` for 4 rounds at a 20 s limit (a cheat's
/// first move may fill gigabytes, which a machine whose memory was never touched gives
/// slowly), at `level`,
/// as root (with the system's Python, which root's own may be closed to) or as an ordinary
/// user, its record in `dir`; `None` where this machine has no such level.
fn play_case(
    dir: &Path,
    level: &str,
    as_root: bool,
    rebel: &Path,
    officer: &Path,
    extra: &[&str],
) -> Option<Played> {
    let name = rebel.file_stem().unwrap().to_string_lossy();
    let record = dir.join(format!("{name}-{level}-{as_root}.json"));
    let mut args = vec![
        "play",
        "--sandbox",
        level,
        "--round-limit",
        "4",
        "--limit-ms",
        "20000",
        "--rebel",
        rebel.to_str().unwrap(),
        "--officer",
        officer.to_str().unwrap(),
        "--record",
        record.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let mut cmd = match as_root {
        true => {
            let mut cmd = arbiter();
            cmd.args(&args).args(["--python", "/usr/bin/python3"]);
            cmd
        }
        false => arbiter_cmd(&args, &[]),
    };
    let child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let run_pid = child.id();
    let out = child.wait_with_output().unwrap();
    let text = format!(
        "{level}, as root: {as_root}: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    if text.contains("cannot be confined") {
        eprintln!("no {level} here: skipped");
        return None;
    }
    let record = serde_json::from_str(&std::fs::read_to_string(&record).unwrap_or_default())
        .unwrap_or_else(|_| panic!("no record: {text}"));
    Some(Played {
        code: out.status.code().unwrap_or(-1),
        text,
        record,
        run_pid,
    })
}

/// A course bot that writes past its disk cap in ways a folder's walk misses: at its first
/// move it `fallocate`s four files of 900 MiB each and unlinks them while holding them
/// open, then fills a folder it closed to everyone (mode 0300) with two more; it says on
/// stderr how much it got, and plays on.
fn disk_cheat(dir: &Path) -> PathBuf {
    let file = course_team(
        dir,
        "Team45",
        r#"import os, sys
import randbot

held = []

def fill(path):
    fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
    try:
        os.posix_fallocate(fd, 0, 900 << 20)
        return 900
    except OSError as e:
        print("DISK refused: " + os.strerror(e.errno), file=sys.stderr, flush=True)
        return 0
    finally:
        held.append(fd)

class Player(randbot.Player):
    done = False
    def play_rebel(self, board):
        if not Player.done:
            Player.done = True
            got = 0
            for i in range(4):
                got += fill("big%d" % i)
                os.unlink("big%d" % i)
            os.mkdir("closed")
            got += fill("closed/a") + fill("closed/b")
            os.chmod("closed", 0o300)
            print("DISK got %d MiB" % got, file=sys.stderr, flush=True)
        return super().play_rebel(board)
"#,
    );
    give_to_arbiter(dir);
    file
}

/// The disk cap holds however a bot writes: at level 1 the kernel refuses writes past it
/// (the private folder's writes go to a tmpfs of the cap), at level 2 the bot loses by
/// `file_size` (its helper, never frozen, counts files unlinked but held open and opens the
/// folders the bot closed); at both levels, as root and as an ordinary user, what it wrote
/// is removed after its game.
#[test]
fn a_bot_that_hides_what_it_writes_stays_within_its_disk_cap_and_leaves_nothing() {
    let dir = test_dir();
    let cheat = disk_cheat(dir.path());
    let opponent = course_thinker(dir.path(), "Team46", 0.05);
    give_to_arbiter(dir.path());
    for (level, as_root) in user_cases() {
        let Some(played) = play_case(dir.path(), level, as_root, &cheat, &opponent, &[]) else {
            continue;
        };
        let (text, record) = (&played.text, &played.record);
        assert_eq!(played.code, 0, "{text}");
        let stderr = record["logs"]["rebel"]["stderr"]
            .as_str()
            .unwrap_or_default();
        match level {
            "namespaces" => {
                // Refused by the kernel at the cap: 900 MiB of the 1024 it has.
                assert!(
                    stderr.contains("DISK refused: No space left on device"),
                    "{text}\n{record}"
                );
                assert!(stderr.contains("DISK got 900 MiB"), "{text}\n{record}");
            }
            _ => {
                assert_eq!(record["reason"], "file_size", "{text}\n{record}");
                assert!(
                    record["detail"]
                        .as_str()
                        .is_some_and(|d| d.contains("disk cap")),
                    "{text}\n{record}"
                );
            }
        }
        // Nothing of the run's is left in /var/tmp or $TMPDIR.
        let prefix = format!("arbiter-bot-{}-", played.run_pid);
        let left: Vec<PathBuf> = [Path::new("/var/tmp").to_path_buf(), std::env::temp_dir()]
            .iter()
            .flat_map(|base| std::fs::read_dir(base).into_iter().flatten().flatten())
            .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
            .map(|e| e.path())
            .collect();
        assert!(left.is_empty(), "{text}: left {left:?}");
    }
}

/// A course bot that holds more memory than its cap in ways no one process's address space
/// shows: at its first move, `how` is `children` (two forked children of 1.1 GiB each,
/// under a cap of 2048 MiB a process) or `sockets` (3000 socket pairs, each filled until
/// the kernel holds no more, a few MiB of address space); then it sleeps in its move.
fn memory_cheat(dir: &Path, name: &str, how: &str) -> PathBuf {
    let source = r#"import os, resource, socket, sys, time
import randbot

HOW = "HOW"
kept = []

class Player(randbot.Player):
    done = False
    def play_rebel(self, board):
        if not Player.done:
            Player.done = True
            if HOW == "children":
                held, told = os.pipe()
                for _ in range(2):
                    if os.fork() == 0:
                        block = b"\x01" * (1100 << 20)
                        os.write(told, b"x")
                        time.sleep(600)
                        os._exit(0)
                # Both hold their memory before the move goes on.
                os.read(held, 1)
                os.read(held, 1)
            else:
                soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
                resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
                chunk = b"\x01" * 65536
                for _ in range(3000):
                    a, b = socket.socketpair()
                    a.setblocking(False)
                    try:
                        while True:
                            a.send(chunk)
                    except (BlockingIOError, OSError):
                        pass
                    kept.append((a, b))
            print("MEMORY held", file=sys.stderr, flush=True)
            time.sleep(4)
        return super().play_rebel(board)
"#
    .replace("HOW", how);
    let file = course_team(dir, name, &source);
    give_to_arbiter(dir);
    file
}

/// The memory cap holds for the bot as a whole: processes that are each within it, and
/// kernel buffers (socket queues) that no address space shows, count together, and the bot
/// loses by `memory`, at both levels, as root and as an ordinary user.
#[test]
fn a_bot_that_spreads_its_memory_over_processes_or_sockets_loses_by_memory() {
    let dir = test_dir();
    let opponent = course_thinker(dir.path(), "Team49", 0.05);
    give_to_arbiter(dir.path());
    for (name, how) in [("Team47", "children"), ("Team48", "sockets")] {
        let cheat = memory_cheat(dir.path(), name, how);
        for (level, as_root) in user_cases() {
            let Some(played) = play_case(dir.path(), level, as_root, &cheat, &opponent, &[]) else {
                continue;
            };
            let (text, record) = (format!("{how}, {}", played.text), &played.record);
            assert_eq!(played.code, 0, "{text}");
            assert_eq!(record["reason"], "memory", "{text}\n{record}");
            assert_eq!(record["winner"], "officer", "{text}\n{record}");
            assert!(
                record["detail"]
                    .as_str()
                    .is_some_and(|d| d.contains("memory cap of 2048 MiB")),
                "{text}\n{record}"
            );
        }
    }
}
