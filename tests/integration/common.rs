//! Helpers shared by the integration tests.

use arbiter::games::Game;
use arbiter::games::asalto::Asalto;
use arbiter::record::GameRecord;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The `arbiter` binary under test.
pub fn arbiter() -> Command {
    Command::new(arbiter_exe())
}

/// A protocol-speaking subprocess bot: arbiter serving one of its built-ins.
pub fn served(name: &str) -> String {
    format!("{} bot {name}", shell_quote(arbiter_exe()))
}

pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// Runs a command and returns (exit code, stdout, stderr).
pub fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().expect("run arbiter");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// Rows of a CSV file as maps from column name to value.
pub fn csv_rows(path: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let reader = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    rows_of(reader)
}

/// The rows of a CSV file laid out for a spreadsheet (`table --bom --delimiter`): it must
/// start with UTF-8's byte-order mark and have `delimiter` between its cells.
pub fn spreadsheet_rows(
    path: &Path,
    delimiter: u8,
) -> Vec<std::collections::BTreeMap<String, String>> {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let body = bytes
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or_else(|| panic!("{} starts with no byte-order mark", path.display()))
        .to_vec();
    rows_of(
        csv::ReaderBuilder::new()
            .delimiter(delimiter)
            .from_reader(std::io::Cursor::new(body)),
    )
}

fn rows_of<R: std::io::Read>(
    mut reader: csv::Reader<R>,
) -> Vec<std::collections::BTreeMap<String, String>> {
    let headers = reader.headers().expect("csv header").clone();
    reader
        .records()
        .map(|r| {
            let r = r.expect("csv row");
            headers
                .iter()
                .zip(r.iter())
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// Replays an Asalto record with arbiter's rules: for each turn, whether the side to move
/// had a legal move (a side without one is asked all the same, and its reply is illegal).
/// The replay starts after the record's opening and stops at a failed turn, the last.
pub fn asalto_turns_with_a_legal_move(record: &GameRecord) -> Vec<bool> {
    let game = Asalto::default();
    let mut state = game.initial();
    let opening = record.opening.as_array().cloned().unwrap_or_default();
    arbiter::games::openings::play_opening(&game, &mut state, &opening)
        .expect("a recorded opening is legal");
    let mut legal = Vec::new();
    let mut has_move = Vec::new();
    for m in &record.moves {
        legal.clear();
        game.legal_moves(&state, &mut legal);
        has_move.push(!legal.is_empty());
        let _ = match game.parse_move(&state, &m.reply) {
            _ if m.verdict == "failed" => break,
            Ok(mv) => game.play(&mut state, &mv),
            Err(why) => game.play_illegal(&mut state, &why),
        };
    }
    has_move
}

/// Every game of a tournament folder's journal, whole, in journal order.
pub fn journal_records(dir: &Path) -> Vec<(u64, GameRecord)> {
    let mut records = Vec::new();
    let path = dir.join("games.jsonl");
    arbiter::tournament::journal::for_each_record(&path, |id, record| {
        records.push((id, record));
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    records
}

/// The journal's games as JSON text, one record a line, to search and to show.
pub fn journal_text(dir: &Path) -> String {
    journal_records(dir)
        .iter()
        .map(|(id, record)| format!("{id} {}\n", serde_json::to_string(record).unwrap()))
        .collect()
}

/// The example team's self-contained random course bot (Asalto), as a team hands it in.
pub fn course_random_bot() -> String {
    read(&Path::new(env!("CARGO_MANIFEST_DIR")).join("bots/submissions/Team11.py"))
}

/// A course Asalto bot in a team folder of its own: `NAME/NAME.py` holding `source`, beside
/// the example team's random bot as its helper module (`randbot.py`, which `source` builds
/// on). Returns the bot's file.
pub fn course_team(dir: &Path, name: &str, source: &str) -> std::path::PathBuf {
    let team = dir.join(name);
    std::fs::create_dir_all(&team).unwrap();
    std::fs::write(team.join("randbot.py"), course_random_bot()).unwrap();
    let file = team.join(format!("{name}.py"));
    std::fs::write(&file, source).unwrap();
    file
}

/// A course Asalto bot in a team folder of its own ([`course_team`]) that burns `cpu_s` of
/// CPU time each move.
pub fn course_thinker(dir: &Path, name: &str, cpu_s: f64) -> std::path::PathBuf {
    let source = format!(
        r#"import time
import randbot

class Player(randbot.Player):
    def _think(self):
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

// Running arbiter as an ordinary user: `nobody` where the tests run as root.

pub const NOBODY: u32 = 65534;

/// Whether arbiter runs as `nobody` here: the tests run as root and `nobody` can run the
/// binary (its folders may be closed to other users, e.g. under /root).
pub fn as_nobody() -> bool {
    static WORKS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *WORKS.get_or_init(|| {
        let works = rustix::process::getuid().is_root()
            && Command::new("/usr/bin/setpriv")
                .args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"])
                .arg(arbiter_exe())
                .arg("--version")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .is_ok_and(|s| s.success());
        if rustix::process::getuid().is_root() && !works {
            eprintln!(
                "note: nobody cannot run the arbiter binary here: these tests run it as root"
            );
        }
        works
    })
}

/// `program`, run as the user arbiter runs as in these tests: `nobody` where
/// [`as_nobody`], else this process's user.
pub fn as_arbiters_user(program: impl AsRef<std::ffi::OsStr>) -> Command {
    if as_nobody() {
        let mut cmd = Command::new("/usr/bin/setpriv");
        cmd.args(["--reuid=nobody", "--regid=nogroup", "--clear-groups", "--"])
            .arg(program);
        cmd
    } else {
        Command::new(program)
    }
}

/// `arbiter ARGS`, as `nobody` where [`as_nobody`], with `env` added.
pub fn arbiter_cmd(args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut cmd = as_arbiters_user(arbiter_exe());
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// A folder for one test that `nobody` (when arbiter runs as nobody) owns.
pub fn test_dir() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("temp dir");
    if as_nobody() {
        std::os::unix::fs::chown(dir.path(), Some(NOBODY), Some(NOBODY)).unwrap();
    }
    dir
}

/// Gives everything under `path` to `nobody` (when arbiter runs as nobody).
pub fn give_to_arbiter(path: &Path) {
    if !as_nobody() {
        return;
    }
    std::os::unix::fs::lchown(path, Some(NOBODY), Some(NOBODY)).unwrap();
    if std::fs::symlink_metadata(path).unwrap().is_dir() {
        for entry in std::fs::read_dir(path).unwrap() {
            give_to_arbiter(&entry.unwrap().path());
        }
    }
}

/// Every number in `text` written with a minus sign that is worth zero (`-0`, `-0.0`,
/// `+-0.00`): a negative zero shown to a reader.
pub fn negative_zeros(text: &str) -> Vec<String> {
    let bytes = text.as_bytes();
    let mut found = Vec::new();
    for (i, _) in text.match_indices('-') {
        let end = bytes[i + 1..]
            .iter()
            .position(|b| !(b.is_ascii_digit() || *b == b'.'))
            .map_or(bytes.len(), |n| i + 1 + n);
        let number = text[i..end].trim_end_matches('.');
        if number.len() > 1 && bytes[i + 1].is_ascii_digit() && number.parse::<f64>() == Ok(0.0) {
            found.push(number.to_string());
        }
    }
    found
}

/// What a run left in the temporary folder `tmp`, but for what it keeps there by design
/// for the runs that follow: the jail trials' finding (`arbiter-confinement-UID/found`)
/// and the Python adapters' compiled code (`arbiter-python-UID/` and a SHA-256 in hex).
/// Anything else in those folders counts as left.
pub fn left_in_temp(tmp: &Path) -> Vec<String> {
    let mut left = Vec::new();
    for entry in std::fs::read_dir(tmp).unwrap().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let kept: Option<fn(&str) -> bool> = if name.starts_with("arbiter-confinement-") {
            Some(|file| file == "found")
        } else if name.starts_with("arbiter-python-") {
            Some(|file| file.len() == 64 && file.bytes().all(|b| b.is_ascii_hexdigit()))
        } else {
            None
        };
        if let Some(kept) = kept
            && entry.path().is_dir()
        {
            for file in std::fs::read_dir(entry.path()).unwrap().flatten() {
                let file = file.file_name().to_string_lossy().into_owned();
                if !kept(&file) {
                    left.push(format!("{name}/{file}"));
                }
            }
        } else {
            left.push(name);
        }
    }
    left
}

/// `arbiter play` of an Advance game, the console program `white` against the built-in
/// grade4, its record written to `record`, with `extra` arguments after.
pub fn advance_against_grade4(white: &str, record: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "play",
        "--game",
        "advance",
        "--white",
        white,
        "--black",
        "builtin:grade4",
        "--record",
    ]
    .map(String::from)
    .to_vec();
    args.push(record.to_string_lossy().into_owned());
    args.extend(extra.iter().map(|a| a.to_string()));
    args
}

/// Where `tests/install` leaves its stamp once it has installed what the tests need.
pub fn installed_stamp() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("tests-installed")
}

/// Whether the tools were installed for the tests: on CI (`CI` set, not `false` or `0`),
/// or once `tests/install` has run.
pub fn tools_installed() -> bool {
    std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0")
        || installed_stamp().exists()
}

/// Whether `test` can run: `found` tells whether the tool it needs (`what`, installed as
/// `install` says) is here. A missing tool fails the test where the tools were installed
/// ([`tools_installed`]): a skip there would hide a broken install. Elsewhere the test
/// prints SKIPPED and the caller returns.
pub fn tool_here(test: &str, found: bool, what: &str, install: &str) -> bool {
    if !found {
        assert!(
            !tools_installed(),
            "{test}: {what} is missing although the tools were installed (CI, or after \
             tests/install): {install}"
        );
        eprintln!("SKIPPED {test}: {what} is missing ({install}, or run tests/install)");
    }
    found
}

/// The arbiter program the tests run: the build's own, or, where the build folder is
/// private to root (a `mktemp -d` CARGO_TARGET_DIR, mode 0700) so that `nobody` could
/// neither run it as arbiter nor start a jail's program from it, a copy of it and of
/// `arbiter-jail` in a folder of the temporary folder that everyone may enter, made once
/// per build and shared by the tests.
pub fn arbiter_exe() -> &'static str {
    static EXE: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    EXE.get_or_init(|| {
        let exe = Path::new(env!("CARGO_BIN_EXE_arbiter"));
        let public = |p: &Path| {
            use std::os::unix::fs::PermissionsExt;
            p.metadata()
                .is_ok_and(|m| m.permissions().mode() & 0o001 != 0)
        };
        let open_to_all = exe
            .ancestors()
            .skip(1)
            .all(|dir| dir.as_os_str().is_empty() || public(dir));
        if open_to_all || !rustix::process::getuid().is_root() {
            return env!("CARGO_BIN_EXE_arbiter").to_string();
        }
        let meta = exe.metadata().expect("the build's arbiter");
        let stamp = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        let shared = std::env::temp_dir().join(format!(
            "arbiter-tests-{:x}-{}-{stamp}",
            {
                use std::hash::{Hash, Hasher};
                let mut h = std::collections::hash_map::DefaultHasher::new();
                exe.hash(&mut h);
                h.finish()
            },
            meta.len()
        ));
        if !shared.join("arbiter").exists() {
            // Made whole beside it, then renamed into place: a test never runs a half copy.
            let part = tempfile::Builder::new()
                .prefix("arbiter-tests-")
                .tempdir_in(std::env::temp_dir())
                .expect("a temporary folder")
                .keep();
            for from in [exe, Path::new(env!("CARGO_BIN_EXE_arbiter-jail"))] {
                let to = part.join(from.file_name().unwrap());
                std::fs::copy(from, &to).expect("a copy of the build's programs");
            }
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&part, std::fs::Permissions::from_mode(0o755)).unwrap();
            if std::fs::rename(&part, &shared).is_err() {
                // Another test's copy got there first.
                let _ = std::fs::remove_dir_all(&part);
            }
        }
        shared.join("arbiter").to_string_lossy().into_owned()
    })
}

/// `cmd`, to run on CPU `cpu` only (and everything it starts).
pub fn on_cpu(cpu: usize, cmd: &mut std::process::Command) -> &mut std::process::Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: sched_setaffinity is async-signal-safe; nothing else runs in the child.
    unsafe {
        cmd.pre_exec(move || {
            let mut set = rustix::thread::CpuSet::new();
            set.set(cpu);
            rustix::thread::sched_setaffinity(None, &set).map_err(std::io::Error::from)
        })
    }
}

/// Runs `each` for both confinement levels at once, each on a CPU of its own (the first
/// level's on CPU 0, the second's on CPU 1), or in turn on CPU 0 where there is one CPU.
pub fn at_both_levels(each: impl Fn(&str, usize) + Sync) {
    let levels = ["namespaces", "landlock"];
    if std::thread::available_parallelism().map_or(1, |n| n.get()) < 2 {
        levels.iter().for_each(|level| each(level, 0));
        return;
    }
    std::thread::scope(|scope| {
        let each = &each;
        let runs: Vec<_> = levels
            .iter()
            .enumerate()
            .map(|(cpu, level)| scope.spawn(move || each(level, cpu)))
            .collect();
        for run in runs {
            if let Err(panic) = run.join() {
                std::panic::resume_unwind(panic);
            }
        }
    });
}

/// Copies the folder `from` into `to`, whole.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Every file under `dir`, by its path inside it; a PDF by its lines sorted (svg2pdf writes
/// a page's resources from a hash map, in an order that varies between processes). The
/// live state a run leaves (`live.json`, its clocks) is no output to compare: left out.
pub fn folder_files(dir: &Path) -> std::collections::BTreeMap<PathBuf, Vec<u8>> {
    let mut files = std::collections::BTreeMap::new();
    let mut folders = vec![dir.to_path_buf()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
                continue;
            }
            if folder == dir && path.file_name().is_some_and(|n| n == "live.json") {
                continue;
            }
            let mut bytes = std::fs::read(&path).unwrap();
            if path.extension().is_some_and(|e| e == "pdf") {
                let mut lines: Vec<&[u8]> = bytes.split(|b| *b == b'\n').collect();
                lines.sort_unstable();
                bytes = lines.join(&b'\n');
            }
            files.insert(path.strip_prefix(dir).unwrap().to_path_buf(), bytes);
        }
    }
    files
}

/// Two folders' files ([`folder_files`]) are the same files, byte for byte: `what` names
/// the two.
pub fn assert_same_files(
    a: &std::collections::BTreeMap<PathBuf, Vec<u8>>,
    b: &std::collections::BTreeMap<PathBuf, Vec<u8>>,
    what: &str,
) {
    assert_eq!(
        a.keys().collect::<Vec<_>>(),
        b.keys().collect::<Vec<_>>(),
        "{what}: the same files"
    );
    for (path, bytes) in a {
        assert!(
            *bytes == b[path],
            "{} differs between {what}:\n{}",
            path.display(),
            String::from_utf8_lossy(&bytes[..bytes.len().min(400)])
        );
    }
}
