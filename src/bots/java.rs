//! Course-style Java Gomoku bots (a class extending `GomokuPlayer`, in its own `.java`
//! file), compiled with `javac` and run through the driver in bots/java/ArbiterDriver.java,
//! which speaks the protocol on the bot's behalf.
//!
//! The course API (`GomokuPlayer`, `Move`) and the driver are embedded in arbiter and
//! written out at compile time, so no repository checkout is needed. A bot is compiled once
//! per content: the class files go to a cache folder named after a hash of every source
//! compiled (and the `javac` command), under `$ARBITER_JAVA_CACHE` or the system's temporary
//! folder. Compilation happens at the bot's first start; parallel games of one league wait
//! for one compilation, and a compile error is remembered for the rest of the run (each
//! game is then a `spawn_failed` with javac's message).

use super::process::ProcessPlayer;
use super::spec::CommandSpec;
use super::{BotLog, EndInfo, Failure, FailureKind, Player, Setup, TurnReply};
use crate::games::Game;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

/// The course's abstract bot class, as arbiter provides it.
pub const GOMOKU_PLAYER: &str = include_str!("../../bots/java/GomokuPlayer.java");
/// The course's move class.
pub const MOVE: &str = include_str!("../../bots/java/Move.java");
/// The protocol driver: `java ArbiterDriver CLASS_NAME`.
pub const DRIVER: &str = include_str!("../../bots/java/ArbiterDriver.java");

/// The compiler used unless `ARBITER_JAVAC` names another.
pub const DEFAULT_JAVAC: &str = "javac";
/// The runtime used unless `ARBITER_JAVA` names another.
pub const DEFAULT_JAVA: &str = "java";

/// The names of arbiter's own sources: a bot folder's copies of them are not compiled.
const OWN_FILES: [&str; 3] = ["GomokuPlayer.java", "Move.java", "ArbiterDriver.java"];
/// javac's output kept in a spawn failure's detail (its first errors matter most).
const COMPILER_OUTPUT_BYTES: usize = 6000;

/// What compiling a bot gave: the class folder and the class to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compiled {
    pub dir: PathBuf,
    /// The bot's class, qualified by its package if it declares one.
    pub class: String,
}

/// The class a bot file declares: its file stem (a public class lives in the file of its
/// name), qualified by the file's `package` declaration if any.
pub fn class_name(file: &Path, source: &str) -> String {
    let stem = file
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    match package_of(source) {
        Some(package) => format!("{package}.{stem}"),
        None => stem,
    }
}

/// The package a Java source declares, if any (`package a.b;` before the first type).
pub fn package_of(source: &str) -> Option<String> {
    let code = strip_comments(source);
    let rest = code.trim_start().strip_prefix("package")?;
    if !rest.starts_with(|c: char| c.is_whitespace()) {
        return None;
    }
    let name: String = rest.split(';').next()?.split_whitespace().collect();
    let valid = !name.is_empty()
        && name.split('.').all(|part| {
            !part.is_empty()
                && part
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        });
    valid.then_some(name)
}

/// Java source without its comments (string literals are not special-cased: a `//` inside
/// a string cuts the rest of its line, which does not matter for finding a declaration).
fn strip_comments(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.find('\n').map_or("", |i| &after[i..]);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |i| &after[i + 2..]);
            out.push(' ');
        } else {
            let ch = rest.chars().next().unwrap_or(' ');
            out.push(ch);
            rest = &rest[ch.len_utf8()..];
        }
    }
    out
}

/// Whether a source declares a bot (a class extending `GomokuPlayer`).
fn declares_a_bot(source: &str) -> bool {
    let code = strip_comments(source);
    let words: Vec<&str> = code
        .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$' || c == '.'))
        .filter(|w| !w.is_empty())
        .collect();
    words
        .windows(2)
        .any(|w| w[0] == "extends" && (w[1] == "GomokuPlayer" || w[1].ends_with(".GomokuPlayer")))
}

/// The sources compiled for the bot `file`: the file itself, then the other `.java` files
/// of its folder in name order (helper classes), except files that declare another bot (a
/// league folder may hold many bots, each compiled on its own) and files named like
/// arbiter's own sources (`GomokuPlayer.java`, `Move.java`: arbiter's versions are used).
///
/// Each source comes with its bytes: files that are not UTF-8 (Windows-1252 comments are
/// common) are compiled as Windows-1252 and scanned as lossy text.
pub fn sources(file: &Path) -> std::io::Result<Vec<Source>> {
    let main = Source::read(file)?;
    let mut found = vec![main];
    let folder = file.parent().filter(|p| !p.as_os_str().is_empty());
    let Some(folder) = folder else {
        return Ok(found);
    };
    let mut others: Vec<PathBuf> = std::fs::read_dir(folder)?
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.extension().is_some_and(|e| e == "java")
                && p.file_name() != file.file_name()
                && p.is_file()
                && !OWN_FILES
                    .iter()
                    .any(|own| p.file_name().is_some_and(|n| n == *own))
        })
        .collect();
    others.sort();
    for path in others {
        let Ok(source) = Source::read(&path) else {
            continue;
        };
        if !declares_a_bot(&source.text()) {
            found.push(source);
        }
    }
    Ok(found)
}

/// One source file to compile.
#[derive(Clone, Debug)]
pub struct Source {
    pub path: PathBuf,
    pub bytes: Vec<u8>,
}

impl Source {
    fn read(path: &Path) -> std::io::Result<Source> {
        Ok(Source {
            path: path.to_path_buf(),
            bytes: std::fs::read(path)?,
        })
    }
    /// The text, with bytes that are not UTF-8 replaced.
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        String::from_utf8_lossy(&self.bytes)
    }
}

/// The `-encoding` for javac: UTF-8 when every source is, else Windows-1252 (which maps
/// every byte, so old Windows-edited files compile).
fn encoding(sources: &[Source]) -> &'static str {
    if sources
        .iter()
        .all(|s| std::str::from_utf8(&s.bytes).is_ok())
    {
        "UTF-8"
    } else {
        "windows-1252"
    }
}

/// FNV-1a, 64 bits: a stable hash for cache folder names (not for security).
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }
    fn bytes(&mut self, bytes: &[u8]) {
        // Length first, so that the boundaries between fields count.
        for b in (bytes.len() as u64).to_le_bytes().iter().chain(bytes) {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// The folder that holds compiled bots: `$ARBITER_JAVA_CACHE`, else `arbiter-java-UID` in
/// the system's temporary folder (one per user, so that nobody runs classes another user
/// put there).
pub fn cache_root() -> PathBuf {
    match std::env::var_os("ARBITER_JAVA_CACHE") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => std::env::temp_dir().join(format!(
            "arbiter-java-{}",
            rustix::process::getuid().as_raw()
        )),
    }
}

fn javac_program() -> String {
    std::env::var("ARBITER_JAVAC").unwrap_or_else(|_| DEFAULT_JAVAC.to_string())
}

fn java_program() -> String {
    std::env::var("ARBITER_JAVA").unwrap_or_else(|_| DEFAULT_JAVA.to_string())
}

/// A source of arbiter's API, moved into the bot's package when it declares one.
fn in_package(source: &str, package: Option<&str>) -> String {
    match package {
        Some(p) => format!("package {p};\n{source}"),
        None => source.to_string(),
    }
}

/// Compilations of this run, by cache key: each is done once, even from parallel games.
type Outcomes = Mutex<HashMap<String, Arc<OnceLock<Result<Compiled, String>>>>>;

fn outcomes() -> &'static Outcomes {
    static OUTCOMES: OnceLock<Outcomes> = OnceLock::new();
    OUTCOMES.get_or_init(Default::default)
}

/// Compiles the bot `file` with its folder's helper classes and arbiter's API and driver,
/// or finds it compiled already. The error is a message for a `spawn_failed` detail: a
/// missing file or compiler, or javac's own output.
pub fn compile(file: &Path) -> Result<Compiled, String> {
    compile_with(file, &javac_program())
}

/// [`compile`] with the compiler `javac` (a program name or path).
pub fn compile_with(file: &Path, javac: &str) -> Result<Compiled, String> {
    let file = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    let sources = sources(&file).map_err(|e| format!("cannot read `{}`: {e}", file.display()))?;
    let package = package_of(&sources[0].text());
    let class = class_name(&file, &sources[0].text());
    let mut hash = Fnv::new();
    for part in [javac, GOMOKU_PLAYER, MOVE, DRIVER, &class] {
        hash.bytes(part.as_bytes());
    }
    for source in &sources {
        hash.bytes(
            source
                .path
                .file_name()
                .unwrap_or_default()
                .as_encoded_bytes(),
        );
        hash.bytes(&source.bytes);
    }
    let stem = class.rsplit('.').next().unwrap_or("bot").to_string();
    let key = format!("{stem}-{:016x}", hash.0);
    let cell = outcomes()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(key.clone())
        .or_default()
        .clone();
    cell.get_or_init(|| {
        let dir = cache_root().join(&key);
        if dir.join("ArbiterDriver.class").is_file() {
            return Ok(Compiled {
                dir,
                class: class.clone(),
            });
        }
        run_javac(javac, &sources, package.as_deref(), &dir)?;
        Ok(Compiled {
            dir,
            class: class.clone(),
        })
    })
    .clone()
}

/// Compiles into a fresh folder next to `dir`, then renames it into place: another
/// arbiter run compiling the same bot at the same time cannot see a half-written folder.
fn run_javac(
    javac: &str,
    sources: &[Source],
    package: Option<&str>,
    dir: &Path,
) -> Result<(), String> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let root = dir.parent().unwrap_or(dir);
    std::fs::create_dir_all(root).map_err(|e| {
        format!(
            "cannot create the Java cache folder `{}`: {e}",
            root.display()
        )
    })?;
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let work = root.join(format!(
        ".{}.tmp-{}-{n}",
        dir.file_name().unwrap_or_default().to_string_lossy(),
        std::process::id()
    ));
    let result = compile_into(javac, sources, package, &work);
    if let Err(e) = result {
        let _ = std::fs::remove_dir_all(&work);
        return Err(e);
    }
    let classes = work.join("classes");
    match std::fs::rename(&classes, dir) {
        Ok(()) => {}
        // Another run got there first: its classes are the same.
        Err(_) if dir.join("ArbiterDriver.class").is_file() => {}
        Err(e) => {
            let _ = std::fs::remove_dir_all(&work);
            return Err(format!(
                "cannot move the compiled bot to `{}`: {e}",
                dir.display()
            ));
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}

fn compile_into(
    javac: &str,
    sources: &[Source],
    package: Option<&str>,
    work: &Path,
) -> Result<(), String> {
    let api = work.join("api");
    let classes = work.join("classes");
    for d in [&api, &classes] {
        std::fs::create_dir_all(d).map_err(|e| format!("cannot create `{}`: {e}", d.display()))?;
    }
    let mut files = Vec::new();
    for (name, text) in [
        ("GomokuPlayer.java", in_package(GOMOKU_PLAYER, package)),
        ("Move.java", in_package(MOVE, package)),
        ("ArbiterDriver.java", DRIVER.to_string()),
    ] {
        let path = api.join(name);
        std::fs::write(&path, text)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        files.push(path);
    }
    files.extend(sources.iter().map(|s| s.path.clone()));
    let output = Command::new(javac)
        .arg("-encoding")
        .arg(encoding(sources))
        .arg("-nowarn")
        .arg("-implicit:none")
        .arg("-d")
        .arg(&classes)
        .arg("-cp")
        .arg(&classes)
        .arg("-sourcepath")
        .arg(&api)
        .args(&files)
        .current_dir(work)
        .env_remove("CLASSPATH")
        .output()
        .map_err(|e| format!("cannot run the Java compiler `{javac}`: {e}"))?;
    if output.status.success() {
        return Ok(());
    }
    let mut text = String::from_utf8_lossy(&output.stderr).into_owned();
    text.push_str(&String::from_utf8_lossy(&output.stdout));
    if text.len() > COMPILER_OUTPUT_BYTES {
        let mut cut = COMPILER_OUTPUT_BYTES;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str("\n[javac output cut]");
    }
    let bot = sources[0].path.display();
    Err(format!(
        "javac could not compile `{bot}` ({}):\n{}",
        output.status,
        text.trim_end()
    ))
}

/// The command that runs a compiled bot: `java -Djava.awt.headless=true -XX:+UseSerialGC
/// -cp DIR ArbiterDriver CLASS`. The serial collector keeps one JVM from starting a
/// garbage-collector thread per core while many bots share the machine.
pub fn run_command(compiled: &Compiled, java: &str) -> CommandSpec {
    CommandSpec::new(java)
        .arg("-Djava.awt.headless=true")
        .arg("-XX:+UseSerialGC")
        .arg("-cp")
        .arg(compiled.dir.to_string_lossy().into_owned())
        .arg("ArbiterDriver")
        .arg(compiled.class.clone())
}

/// A course Java bot seated as a player: compiled at its first start, then run as a
/// protocol program in its file's folder (or the folder the seat names).
pub struct JavaPlayer {
    file: PathBuf,
    cwd: Option<PathBuf>,
    env: BTreeMap<String, String>,
    inner: Option<ProcessPlayer>,
}

impl JavaPlayer {
    pub fn new(file: &Path, cwd: Option<&Path>, env: &BTreeMap<String, String>) -> Self {
        let file = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
        let cwd = cwd.map(Path::to_path_buf).or_else(|| {
            file.parent()
                .filter(|p| !p.as_os_str().is_empty())
                .map(Path::to_path_buf)
        });
        JavaPlayer {
            file,
            cwd,
            env: env.clone(),
            inner: None,
        }
    }

    /// The bot's process group id while it runs: for tests and diagnostics.
    pub fn process_group(&self) -> Option<i32> {
        self.inner.as_ref().and_then(ProcessPlayer::process_group)
    }
}

impl<G: Game> Player<G> for JavaPlayer {
    fn start(&mut self, game: &G, setup: &Setup) -> Result<Option<String>, Failure> {
        self.inner = None;
        let compiled = compile(&self.file).map_err(|e| Failure::new(FailureKind::Spawn, e))?;
        let mut command = run_command(&compiled, &java_program());
        command.cwd = self.cwd.clone();
        command
            .env
            .extend(self.env.iter().map(|(k, v)| (k.clone(), v.clone())));
        let inner = self.inner.insert(ProcessPlayer::new(command));
        Player::<G>::start(inner, game, setup)
    }

    fn turn(&mut self, game: &G, state: &G::State) -> TurnReply<G::Move> {
        match self.inner.as_mut() {
            Some(inner) => Player::<G>::turn(inner, game, state),
            None => TurnReply {
                reply: super::Reply::Failed(Failure::new(
                    FailureKind::Crash,
                    "the bot is not running",
                )),
                elapsed: std::time::Duration::ZERO,
            },
        }
    }

    fn finish(&mut self, end: &EndInfo) -> BotLog {
        match self.inner.as_mut() {
            Some(inner) => Player::<G>::finish(inner, end),
            None => BotLog::default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_names_come_from_the_file_and_its_package() {
        let f = Path::new("/x/Player123.java");
        assert_eq!(
            class_name(f, "import java.awt.Color;\nclass A {}"),
            "Player123"
        );
        assert_eq!(
            class_name(
                f,
                "// header\n/* package no; */\npackage  league.bots ;\nclass A {}"
            ),
            "league.bots.Player123"
        );
        assert_eq!(package_of("packages x;"), None);
        assert_eq!(package_of("class A { String package; }"), None);
    }

    #[test]
    fn bots_are_told_from_helpers() {
        assert!(declares_a_bot("public class P extends GomokuPlayer {}"));
        assert!(declares_a_bot("class P extends\n  gomoku.GomokuPlayer{}"));
        assert!(!declares_a_bot("// extends GomokuPlayer\nclass Helper {}"));
        assert!(!declares_a_bot("class Helper extends Object {}"));
    }

    #[test]
    fn the_run_command_is_headless_and_names_the_class() {
        let c = run_command(
            &Compiled {
                dir: PathBuf::from("/cache/P-1"),
                class: "P".into(),
            },
            "java",
        );
        assert_eq!(c.program, "java");
        assert_eq!(
            c.args,
            [
                "-Djava.awt.headless=true",
                "-XX:+UseSerialGC",
                "-cp",
                "/cache/P-1",
                "ArbiterDriver",
                "P"
            ]
        );
        assert!(DRIVER.contains("class ArbiterDriver"));
        assert!(
            GOMOKU_PLAYER.contains("abstract Move chooseMove(Color[][] board, Color myColour)")
        );
    }
}
