//! Hostile submissions and files, tried the way they are attacked: console bots that leave
//! a FIFO or a link where their output should be, a build that never ends, zip bombs and
//! broken zips in a class folder, a FIFO where a bot file should be, code planted in a
//! shared temporary folder. Where the tests run as root, arbiter runs as `nobody` (through
//! `setpriv`), as a teacher would run it.

use crate::common::*;
use crate::common::{NOBODY, arbiter_cmd, as_nobody, give_to_arbiter, test_dir};
use std::io::Write;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use wait_timeout::ChildExt;

struct Finished {
    code: i32,
    out: String,
    err: String,
    elapsed: Duration,
    /// The largest resident set of arbiter and what it waited for, in MiB.
    peak_mib: u64,
}

/// Runs `cmd`, killing it after `limit` (a hang is a failed test, not a stuck run).
fn run_bounded(mut cmd: Command, limit: Duration) -> Finished {
    let logs = tempfile::tempdir().unwrap();
    let (out_path, err_path) = (logs.path().join("out"), logs.path().join("err"));
    cmd.stdin(Stdio::null())
        .stdout(std::fs::File::create(&out_path).unwrap())
        .stderr(std::fs::File::create(&err_path).unwrap());
    let started = Instant::now();
    let mut child = cmd.spawn().expect("start arbiter");
    let status = match child.wait_timeout(limit).unwrap() {
        Some(status) => status,
        None => {
            let _ = child.kill();
            let _ = child.wait();
            panic!(
                "still running after {limit:?}: {}{}",
                read(&out_path),
                read(&err_path)
            );
        }
    };
    let elapsed = started.elapsed();
    // SAFETY: getrusage writes the struct it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    Finished {
        code: status.code().unwrap_or(-1),
        out: read(&out_path),
        err: read(&err_path),
        elapsed,
        peak_mib: usage.ru_maxrss as u64 / 1024,
    }
}

/// A console bot (`sh SCRIPT white|black IN OUT`) written into `dir`.
fn console_bot(dir: &Path, name: &str, body: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, format!("[ \"$1\" = name ] && exit 0\n{body}")).unwrap();
    give_to_arbiter(&path);
    format!("console:sh {}", path.display())
}

fn play_advance(dir: &Path, white: &str, extra: &[&str]) -> (Finished, serde_json::Value) {
    let record = dir.join("game.json");
    let extra = [&["--limit-ms", "2000"], extra].concat();
    let args = advance_against_grade4(white, &record, &extra);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    // `--sandbox user` needs root: arbiter runs as root, the bot under its own uid.
    let cmd = if extra.contains(&"--sandbox") {
        let mut cmd = Command::new(crate::common::arbiter_exe());
        cmd.args(&args);
        cmd
    } else {
        arbiter_cmd(&args, &[])
    };
    let done = run_bounded(cmd, Duration::from_secs(60));
    assert_eq!(done.code, 0, "{}{}", done.out, done.err);
    let record = serde_json::from_str(&read(&record)).expect("a game record");
    (done, record)
}

/// Without the sandbox (as `nobody` where the tests run as root), and with it (as root).
fn runs_with_and_without_the_sandbox() -> Vec<Vec<&'static str>> {
    let mut runs = vec![vec![]];
    if arbiter::jail::sandbox::is_root() {
        runs.push(vec!["--sandbox", "user"]);
    }
    runs
}

#[test]
fn a_console_bot_leaving_a_fifo_for_its_output_loses_by_bad_output_within_its_move_limit() {
    let dir = test_dir();
    let bot = console_bot(dir.path(), "fifo.sh", "rm -f \"$3\"; mkfifo \"$3\"\n");
    for extra in runs_with_and_without_the_sandbox() {
        let (done, record) = play_advance(dir.path(), &bot, &extra);
        assert_eq!(record["winner"], "black", "{extra:?}: {record}");
        assert_eq!(record["reason"], "bad_output");
        let detail = record["detail"].as_str().unwrap_or_default();
        assert!(detail.contains("FIFO"), "{detail}");
        assert!(done.elapsed < Duration::from_secs(30), "{:?}", done.elapsed);
    }
}

#[test]
fn a_console_bot_linking_its_output_to_a_secret_learns_nothing_of_it() {
    let dir = test_dir();
    // The secret: a file arbiter can read; under the sandbox, one the bot cannot.
    let secret = dir.path().join("secret.txt");
    std::fs::write(&secret, "TOPSECRET first line\nsecond\n").unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o600)).unwrap();
    give_to_arbiter(&secret);
    let body = format!("rm -f \"$3\"; ln -s {} \"$3\"\n", secret.display());
    let bot = console_bot(dir.path(), "link.sh", &body);
    for extra in runs_with_and_without_the_sandbox() {
        let (done, record) = play_advance(dir.path(), &bot, &extra);
        assert_eq!(record["reason"], "bad_output", "{extra:?}: {record}");
        let detail = record["detail"].as_str().unwrap_or_default();
        assert!(detail.contains("symbolic link"), "{detail}");
        let everything = format!("{record}{}{}", done.out, done.err);
        assert!(!everything.contains("TOPSECRET"), "{everything}");
        assert!(!everything.contains("2 lines"), "{everything}");
    }
}

/// A C# project whose `dotnet` (a stand-in on PATH) never finishes its build, and first
/// tries to leave a file in the home folder.
#[test]
fn a_never_ending_build_ends_at_its_deadline_and_writes_nothing_outside_its_folder() {
    let dir = test_dir();
    let project = dir.path().join("team01");
    std::fs::create_dir(&project).unwrap();
    std::fs::write(project.join("Team01.csproj"), "<Project/>\n").unwrap();
    let tools = dir.path().join("tools");
    std::fs::create_dir(&tools).unwrap();
    let dotnet = tools.join("dotnet");
    std::fs::write(
        &dotnet,
        "#!/bin/sh\necho planted > \"$HOME/planted\"\nexec sleep 600\n",
    )
    .unwrap();
    std::fs::set_permissions(&dotnet, std::fs::Permissions::from_mode(0o755)).unwrap();
    let (home, tmp) = (dir.path().join("home"), dir.path().join("tmp"));
    std::fs::create_dir(&home).unwrap();
    std::fs::create_dir(&tmp).unwrap();
    give_to_arbiter(dir.path());
    let path = format!(
        "{}:{}",
        tools.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let record = dir.path().join("game.json");
    let white = format!("console:{}", project.display());
    let args = [
        "play",
        "--game",
        "advance",
        "--white",
        &white,
        "--black",
        "builtin:grade4",
        "--build-limit-s",
        "2",
        "--record",
        &record.to_string_lossy(),
    ];
    let env = [
        ("PATH", path.as_str()),
        ("HOME", &home.to_string_lossy()),
        ("TMPDIR", &tmp.to_string_lossy()),
    ];
    let done = run_bounded(arbiter_cmd(&args, &env), Duration::from_secs(60));
    assert!(done.elapsed < Duration::from_secs(30), "{:?}", done.elapsed);
    let everything = format!("{}{}", done.out, done.err);
    assert!(
        everything.contains("still running after 2 s"),
        "{everything}"
    );
    if done.code == 0 {
        let record: serde_json::Value = serde_json::from_str(&read(&record)).unwrap();
        assert_eq!(record["reason"], "spawn_failed", "{record}");
    }
    assert!(!home.join("planted").exists(), "the build wrote into HOME");
    let left = left_in_temp(&tmp);
    assert!(left.is_empty(), "left in TMPDIR: {left:?}");
    crate::bots_common::assert_no_process_with(&dotnet.to_string_lossy());
}

fn write_zip(path: &Path, files: &[(&str, &[u8])]) {
    let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
    for (name, bytes) in files {
        zip.start_file(*name, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(bytes).unwrap();
    }
    zip.finish().unwrap();
}

/// A zip of 1.5 GB of zeros in one file, made by Python's zlib (fast even in a debug test).
fn zip_bomb(path: &Path) {
    let script = format!(
        "import zipfile\n\
         with zipfile.ZipFile({:?}, 'w', zipfile.ZIP_DEFLATED, compresslevel=1) as z:\n\
         \x20   with z.open('TeamBomb/TeamBomb.py', 'w', force_zip64=True) as f:\n\
         \x20       block = bytes(1 << 20)\n\
         \x20       for _ in range(1536):\n\
         \x20           f.write(block)\n",
        path.to_string_lossy()
    );
    let status = Command::new("python3")
        .arg("-c")
        .arg(script)
        .status()
        .unwrap();
    assert!(status.success());
}

fn du_mib(path: &Path) -> u64 {
    let out = Command::new("du").arg("-sm").arg(path).output().unwrap();
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or(u64::MAX)
}

/// A class folder with two good teams and every kind of bad archive and bad file.
fn hostile_class(dir: &Path) -> PathBuf {
    let class = dir.join("class");
    std::fs::create_dir(&class).unwrap();
    std::fs::write(class.join("Team01.py"), course_random_bot()).unwrap();
    write_zip(
        &class.join("Team02.zip"),
        &[("Team02/Team02.py", course_random_bot().as_bytes())],
    );
    zip_bomb(&class.join("TeamBomb.zip"));
    std::fs::write(class.join("TeamFake.zip"), "this is not a zip\n").unwrap();
    write_zip(
        &class.join("TeamSlip.zip"),
        &[("../TeamSlip.py", course_random_bot().as_bytes())],
    );
    let mut zip = zip::ZipWriter::new(std::fs::File::create(class.join("TeamLink.zip")).unwrap());
    zip.add_symlink(
        "TeamLink.py",
        "/etc/passwd",
        zip::write::SimpleFileOptions::default(),
    )
    .unwrap();
    zip.finish().unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        class.join("Team03.py"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o644),
        0,
    )
    .unwrap();
    give_to_arbiter(dir);
    class
}

#[test]
fn a_class_with_a_zip_bomb_and_broken_zips_plays_its_good_teams_in_bounded_memory_and_disk() {
    let dir = test_dir();
    let class = hostile_class(dir.path());
    let out = dir.path().join("out");
    let args = [
        "league",
        "--game",
        "asalto",
        "--pairs",
        "1",
        "--round-limit",
        "20",
        "-j",
        "1",
        "--out",
        &out.to_string_lossy(),
        &class.to_string_lossy(),
    ];
    let done = run_bounded(arbiter_cmd(&args, &[]), Duration::from_secs(120));
    assert_eq!(done.code, 0, "{}{}", done.out, done.err);
    for (entry, why) in [
        ("TeamBomb.zip", "unpacks to more than"),
        ("TeamFake.zip", "not a readable zip"),
        ("TeamSlip.zip", "outside"),
        ("TeamLink.zip", "symbolic link"),
        ("Team03.py", "FIFO"),
    ] {
        let line = done
            .err
            .lines()
            .find(|l| l.contains("left out") && l.contains(entry))
            .unwrap_or_else(|| panic!("{entry} is not left out:\n{}", done.err));
        assert!(line.contains(why), "{line}");
    }
    let standings = read(&out.join("standings.csv"));
    assert!(
        standings.contains("Team01") && standings.contains("Team02"),
        "{standings}"
    );
    assert!(done.peak_mib < 300, "peak {} MiB", done.peak_mib);
    assert!(du_mib(&out) < 300, "{} MiB on disk", du_mib(&out));
    let unpacked: Vec<String> = std::fs::read_dir(out.join("unpacked/class"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(unpacked, ["Team02"], "nothing half unpacked is left");
    let file = out.join("unpacked/class/Team02/Team02/Team02.py");
    let mode = std::fs::metadata(&file).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "unpacked code is its owner's alone");
    // --strict still stops the class before any game.
    let strict_out = dir.path().join("strict");
    let mut strict: Vec<&str> = args.to_vec();
    let strict_text = strict_out.to_string_lossy().into_owned();
    strict[10] = &strict_text;
    strict.push("--strict");
    let done = run_bounded(arbiter_cmd(&strict, &[]), Duration::from_secs(60));
    assert_eq!(done.code, 2, "{}{}", done.out, done.err);
    assert!(!strict_out.join("games.jsonl").exists());
}

/// The attack on a predictable folder: another user creates
/// `$TMPDIR/arbiter-check/<hash of the folder's path>/Team14/` first, with a planted
/// `Team14.py` and the marker of the real zip. The check must never run it.
#[test]
fn check_never_runs_code_planted_in_a_shared_temporary_folder() {
    use sha2::Digest;
    let dir = test_dir();
    let class = dir.path().join("class");
    std::fs::create_dir(&class).unwrap();
    let zip = class.join("Team14.zip");
    write_zip(
        &zip,
        &[("Team14/Team14.py", course_random_bot().as_bytes())],
    );
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    let key = hex(&sha2::Sha256::digest(class.to_string_lossy().as_bytes())[..8]);
    let zip_hash = hex(&sha2::Sha256::digest(std::fs::read(&zip).unwrap()));
    let planted = tmp.join("arbiter-check").join(key).join("Team14");
    std::fs::create_dir_all(&planted).unwrap();
    let ran = dir.path().join("planted-code-ran");
    std::fs::write(
        planted.join("Team14.py"),
        format!(
            "open({:?}, 'w').write('ran')\n{}",
            ran.to_string_lossy(),
            course_random_bot()
        ),
    )
    .unwrap();
    std::fs::write(planted.join(".arbiter-zip-sha256"), &zip_hash).unwrap();
    give_to_arbiter(&class);
    // The planted tree belongs to someone else (root, when arbiter runs as nobody), open
    // to everyone.
    for p in [
        tmp.join("arbiter-check"),
        planted.parent().unwrap().to_path_buf(),
        planted.clone(),
    ] {
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o777)).unwrap();
    }
    if as_nobody() {
        std::os::unix::fs::chown(dir.path(), Some(NOBODY), Some(NOBODY)).unwrap();
    }
    let args = [
        "check",
        "--game",
        "asalto",
        "--limit-ms",
        "5000",
        &class.to_string_lossy(),
    ];
    let env = [("TMPDIR", tmp.to_string_lossy().into_owned())];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let done = run_bounded(arbiter_cmd(&args, &env), Duration::from_secs(60));
    assert_eq!(done.code, 0, "{}{}", done.out, done.err);
    assert!(!ran.exists(), "the planted code ran");
    let left: Vec<String> = left_in_temp(&tmp)
        .into_iter()
        .filter(|n| n != "arbiter-check")
        .collect();
    assert!(
        left.is_empty(),
        "the check's private folder stays: {left:?}"
    );
}

#[test]
fn a_sandboxed_league_keeps_its_results_and_unpacked_code_from_other_users() {
    if !arbiter::jail::sandbox::is_root() {
        eprintln!("skipped: --sandbox user needs root");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    std::fs::create_dir(&class).unwrap();
    std::fs::write(class.join("Team01.py"), course_random_bot()).unwrap();
    write_zip(
        &class.join("Team02.zip"),
        &[("Team02/Team02.py", course_random_bot().as_bytes())],
    );
    let out = dir.path().join("out");
    let (code, stdout, stderr) = run(arbiter().args([
        "league",
        "--game",
        "asalto",
        "--pairs",
        "1",
        "--round-limit",
        "10",
        "--sandbox",
        "user",
        "--out",
        &out.to_string_lossy(),
        &class.to_string_lossy(),
    ]));
    assert_eq!(code, 0, "{stdout}{stderr}");
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&out), 0o700);
    assert_eq!(mode(&out.join("games.jsonl")), 0o600);
    assert_eq!(mode(&out.join("unpacked/class")), 0o700);
}

/// The start with the white Zombie of (7,1) stepped to (6,1).
const AFTER_ZOMBIE: &str = "mjdsgscjm\\nbzzzzzzzb\\n.........\\n.........\\n.........\\n\
                            .........\\n.Z.......\\nB.ZZZZZZB\\nMJCSGSDJM\\n";

/// A stand-in for the .NET SDK: `build PROJECT ... -o OUT` writes OUT/Team01.dll and the uid
/// that built it; `DLL ARGS` plays as the console program (refusing to, under the sandbox,
/// when the build ran as root).
fn stand_in_dotnet(dir: &Path, sandboxed: bool) -> PathBuf {
    let path = dir.join("dotnet");
    let check = if sandboxed {
        "[ \"$(cat \"$(dirname \"$dll\")/uid.txt\")\" != 0 ] || exit 7\n"
    } else {
        ""
    };
    std::fs::write(
        &path,
        format!(
            "#!/bin/sh\n\
             if [ \"$1\" = build ]; then\n\
             \x20 while [ $# -gt 0 ]; do [ \"$1\" = -o ] && out=\"$2\"; shift; done\n\
             \x20 id -u > \"$out/uid.txt\"; echo dll > \"$out/Team01.dll\"; exit 0\n\
             fi\n\
             dll=\"$1\"; shift\n\
             {check}\
             [ \"$1\" = name ] && {{ echo csharp; exit 0; }}\n\
             printf '{AFTER_ZOMBIE}' > \"$3\"\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

#[test]
fn a_csharp_project_is_built_into_a_private_folder_and_plays_with_and_without_the_sandbox() {
    let mut modes = vec![false];
    if arbiter::jail::sandbox::is_root() {
        modes.push(true);
    }
    for sandboxed in modes {
        let dir = tempfile::tempdir().unwrap();
        // A sandboxed bot's uid must reach the stand-in SDK.
        std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        let project = dir.path().join("team01");
        std::fs::create_dir(&project).unwrap();
        std::fs::write(project.join("Team01.csproj"), "<Project/>\n").unwrap();
        let dotnet = stand_in_dotnet(dir.path(), sandboxed);
        let record = dir.path().join("game.json");
        let white = format!("console:{}", project.display());
        let mut args = vec![
            "play".to_string(),
            "--game".into(),
            "advance".into(),
            "--white".into(),
            white,
            "--black".into(),
            "builtin:grade4".into(),
            "--round-limit".into(),
            "1".into(),
            "--record".into(),
            record.to_string_lossy().into_owned(),
        ];
        if sandboxed {
            args.extend(["--sandbox".into(), "user".into()]);
        }
        let (code, out, err) = run(arbiter().args(&args).env("ARBITER_DOTNET", &dotnet));
        assert_eq!(code, 0, "sandbox {sandboxed}: {out}{err}");
        let record: serde_json::Value = serde_json::from_str(&read(&record)).unwrap();
        assert_eq!(
            record["logs"]["white"]["announced_name"], "csharp",
            "{record}"
        );
        assert_eq!(record["moves"][0]["verdict"], "move", "{record}");
        assert!(
            !project.join("bin").exists() && !project.join("uid.txt").exists(),
            "the build wrote into the team's folder"
        );
    }
}

/// Another user made the Java class cache's folder first (or it is open to everyone): no
/// class in it is run, and the player fails to start, naming the folder.
#[test]
fn a_java_class_cache_someone_else_could_write_is_refused_not_run() {
    let dir = test_dir();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("bots/java/examples");
    let player = dir.path().join("PlayerNull.java");
    std::fs::copy(examples.join("PlayerNull.java"), &player).unwrap();
    give_to_arbiter(&player);
    let tmp = dir.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(0o1777)).unwrap();
    let uid = if as_nobody() {
        NOBODY
    } else {
        rustix::process::getuid().as_raw()
    };
    let cache = tmp.join(format!("arbiter-java-{uid}"));
    std::fs::create_dir(&cache).unwrap();
    std::fs::set_permissions(&cache, std::fs::Permissions::from_mode(0o777)).unwrap();
    let record = dir.path().join("game.json");
    let args = [
        "play",
        "--game",
        "gomoku",
        "--black",
        &player.to_string_lossy(),
        "--white",
        "builtin:random",
        "--record",
        &record.to_string_lossy(),
    ];
    let tmp_text = tmp.to_string_lossy().into_owned();
    let mut cmd = arbiter_cmd(&args, &[("TMPDIR", &tmp_text)]);
    cmd.env_remove("ARBITER_JAVA_CACHE");
    let done = run_bounded(cmd, Duration::from_secs(120));
    let everything = format!("{}{}", done.out, done.err);
    assert!(
        everything.contains("cannot use the Java cache folder")
            && everything.contains(&format!("arbiter-java-{uid}`")),
        "{everything}"
    );
    let left: Vec<_> = std::fs::read_dir(&cache).unwrap().flatten().collect();
    assert!(left.is_empty(), "nothing compiled into it: {left:?}");
}
