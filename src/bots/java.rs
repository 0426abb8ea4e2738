//! Course-style Java Gomoku players (a top-level class that is a `GomokuPlayer`), compiled
//! with `javac` in the course's environment and run through the driver in
//! bots/java/ArbiterDriver.java, which speaks the protocol on the player's behalf.
//!
//! The course environment (`GomokuBoard`, `GomokuPlayer`, `Move`, `SequencePlayer`,
//! `RandomPlayer`, from docs/rules/gomoku.md) and the driver are embedded in arbiter.
//! A player's file is compiled alone, with its own folder and then the environment as
//! source paths: javac pulls in exactly the classes the player uses, the player's own
//! before ours (arbiter adds the files of helpers javac cannot find by name), and a broken
//! unrelated file in the folder plays no part. The class files
//! go to a cache folder named after a hash of everything javac could read, under
//! `$ARBITER_JAVA_CACHE` or the system's temporary folder. Compilation happens at the
//! player's first start; parallel games of one league wait for one compilation, and a
//! compile error is remembered for the rest of the run (each game is then a
//! `spawn_failed` with javac's message).
//!
//! A Java player is then an ordinary bot program: the same spawn path, limits and sandbox
//! as every other (its class files travel into the sandbox as a private copy), with JVM
//! flags derived from the memory limit so that the JVM fits in its address space.

use super::process::ProcessPlayer;
use super::spec::{CommandSpec, Confinement, Limits};
use super::{BotLog, EndInfo, Failure, FailureKind, Player, Setup, TurnReply};
use crate::games::Game;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

/// The course's board: constants and the methods a player may simulate with.
pub const GOMOKU_BOARD: &str = include_str!("../../bots/java/GomokuBoard.java");
/// The course's abstract player class.
pub const GOMOKU_PLAYER: &str = include_str!("../../bots/java/GomokuPlayer.java");
/// The course's move class.
pub const MOVE: &str = include_str!("../../bots/java/Move.java");
/// The course's example player: the first empty cell, row by row.
pub const SEQUENCE_PLAYER: &str = include_str!("../../bots/java/SequencePlayer.java");
/// The course's example player: a random empty cell.
pub const RANDOM_PLAYER: &str = include_str!("../../bots/java/RandomPlayer.java");
/// The protocol driver: `java ArbiterDriver CLASS_NAME`.
pub const DRIVER: &str = include_str!("../../bots/java/ArbiterDriver.java");

/// The course environment, class name and source (default package).
pub const ENVIRONMENT: [(&str, &str); 5] = [
    ("GomokuBoard", GOMOKU_BOARD),
    ("GomokuPlayer", GOMOKU_PLAYER),
    ("Move", MOVE),
    ("SequencePlayer", SEQUENCE_PLAYER),
    ("RandomPlayer", RANDOM_PLAYER),
];
/// The environment's classes that are players (they extend `GomokuPlayer`).
const ENVIRONMENT_PLAYERS: [&str; 2] = ["SequencePlayer", "RandomPlayer"];

/// The compiler used unless `ARBITER_JAVAC` names another.
pub const DEFAULT_JAVAC: &str = "javac";
/// The runtime used unless `ARBITER_JAVA` names another.
pub const DEFAULT_JAVA: &str = "java";
/// Extra JVM options (whitespace-separated), placed after arbiter's so that they win.
pub const JAVA_OPTS_VAR: &str = "ARBITER_JAVA_OPTS";

/// Address space a JVM takes beyond its heap and the player's thread stack: the runtime
/// image mapped whole (about 120 MiB), code cache, class space, metaspace, libraries and
/// the JVM's own threads. Measured at about 320 MiB for OpenJDK 17 with the flags of
/// [`memory_flags`]; the rest is margin.
pub const JVM_OVERHEAD_MB: u64 = 400;
/// The smallest heap arbiter gives a JVM.
pub const MIN_HEAP_MB: u64 = 16;
/// The player's thread stack without a memory limit (course players recurse deeply).
pub const STACK_MB: u64 = 256;

/// javac's output kept in a spawn failure's detail (its first errors matter most).
const COMPILER_OUTPUT_BYTES: usize = 6000;
/// Folder levels below a player's source root whose `.java` files count for its cache key.
const MAX_SOURCE_DEPTH: usize = 8;
/// How far a chain of superclasses is followed to find `GomokuPlayer`.
const MAX_SUPERCLASSES: usize = 32;

/// What compiling a player gave: the class folder and the class to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compiled {
    pub dir: PathBuf,
    /// The player's class, qualified by its package if it declares one.
    pub class: String,
}

/// Java source with comments removed and string, text-block and character literals
/// emptied, so that what is left is code only (a `{` or `class` in a string is not one).
fn code_only(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(ch) = rest.chars().next() {
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.find('\n').map_or("", |i| &after[i..]);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.find("*/").map_or("", |i| &after[i + 2..]);
            out.push(' ');
        } else if let Some(after) = rest.strip_prefix("\"\"\"") {
            rest = skip_literal(after, "\"\"\"");
            out.push_str("\"\"");
        } else if ch == '"' || ch == '\'' {
            let quote = &rest[..1];
            rest = skip_literal(&rest[1..], quote);
            out.push_str(quote);
            out.push_str(quote);
        } else {
            out.push(ch);
            rest = &rest[ch.len_utf8()..];
        }
    }
    out
}

/// The text after a literal's closing `end` (escapes skipped; an unterminated string or
/// character literal ends at its line's end, as javac would report it).
fn skip_literal<'a>(text: &'a str, end: &str) -> &'a str {
    let mut chars = text.char_indices();
    while let Some((i, ch)) = chars.next() {
        if ch == '\\' {
            chars.next();
        } else if text[i..].starts_with(end) {
            return &text[i + end.len()..];
        } else if ch == '\n' && end.len() == 1 {
            return &text[i..];
        }
    }
    ""
}

/// Code split into words (identifiers, qualified names, keywords) and single symbols.
fn tokens(code: &str) -> Vec<&str> {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$' || c == '.';
    let mut out = Vec::new();
    let mut start = None;
    for (i, ch) in code.char_indices() {
        if word(ch) {
            start.get_or_insert(i);
            continue;
        }
        if let Some(s) = start.take() {
            out.push(&code[s..i]);
        }
        if !ch.is_whitespace() {
            out.push(&code[i..i + ch.len_utf8()]);
        }
    }
    if let Some(s) = start {
        out.push(&code[s..]);
    }
    out
}

/// The package a Java source declares, if any (`package a.b;` before the first type).
pub fn package_of(source: &str) -> Option<String> {
    let code = code_only(source);
    let words = tokens(&code);
    // Annotations may come first (`@Deprecated package a;` in package-info only, but cheap).
    let at = words.iter().position(|w| *w == "package")?;
    if words[..at]
        .iter()
        .any(|w| ["class", "interface", "enum", "import", "record"].contains(w))
    {
        return None;
    }
    let name = *words.get(at + 1)?;
    let valid = words.get(at + 2) == Some(&";")
        && name.split('.').all(|part| {
            !part.is_empty()
                && !part.starts_with(|c: char| c.is_ascii_digit())
                && part
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == '$')
        });
    valid.then(|| name.to_string())
}

/// A top-level class a source declares.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClassDecl {
    pub name: String,
    /// The class it extends, as written (`SequencePlayer`, `a.b.Base`).
    pub superclass: Option<String>,
    pub is_abstract: bool,
}

/// The top-level classes of a source (not interfaces, enums, records or nested classes).
pub fn top_level_classes(source: &str) -> Vec<ClassDecl> {
    let code = code_only(source);
    let words = tokens(&code);
    let mut found = Vec::new();
    let mut depth = 0usize;
    // Where the current top-level declaration's modifiers began.
    let mut since = 0;
    let mut i = 0;
    while i < words.len() {
        match words[i] {
            "{" => depth += 1,
            "}" => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    since = i + 1;
                }
            }
            ";" if depth == 0 => since = i + 1,
            "class" if depth == 0 && i + 1 < words.len() => {
                let is_abstract = words[since..i].contains(&"abstract");
                let name = words[i + 1].to_string();
                let mut superclass = None;
                let mut angle = 0usize;
                let mut j = i + 2;
                while j < words.len() && words[j] != "{" {
                    match words[j] {
                        "<" => angle += 1,
                        ">" => angle = angle.saturating_sub(1),
                        "extends" if angle == 0 => {
                            superclass = words.get(j + 1).map(|w| w.to_string());
                        }
                        _ => {}
                    }
                    j += 1;
                }
                found.push(ClassDecl {
                    name,
                    superclass,
                    is_abstract,
                });
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// The folder javac resolves the player's classes from: its file's folder, or for a
/// player in package `a.b` kept in `…/a/b/`, the folder above `a`.
pub fn source_root(file: &Path, package: Option<&str>) -> PathBuf {
    let folder = file
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf();
    let Some(package) = package else {
        return folder;
    };
    let mut root = folder.as_path();
    for part in package.rsplit('.') {
        match (root.file_name(), root.parent()) {
            (Some(name), Some(parent)) if name == part => root = parent,
            _ => return folder,
        }
    }
    root.to_path_buf()
}

/// Where the class `name` (as a source of `package` writes it) would be found in `root`.
fn source_file(root: &Path, package: Option<&str>, name: &str) -> PathBuf {
    let relative = match (name.contains('.'), package) {
        (true, _) => name.replace('.', "/"),
        (false, Some(p)) => format!("{}/{name}", p.replace('.', "/")),
        (false, None) => name.to_string(),
    };
    root.join(format!("{relative}.java"))
}

/// What javac can see of a player's folder besides the player's file: the source root, and
/// the classes of the player's package declared in files not named after them (`class
/// Node` in `Helpers.java`), which javac cannot find by name on the source path.
struct Folder {
    root: PathBuf,
    package: Option<String>,
    strays: BTreeMap<String, (PathBuf, ClassDecl)>,
}

impl Folder {
    fn of(file: &Path, package: Option<&str>) -> Folder {
        let root = source_root(file, package);
        let dir = match package {
            Some(p) => root.join(p.replace('.', "/")),
            None => root.clone(),
        };
        let mut strays = BTreeMap::new();
        let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "java") && p != file && p.is_file())
            .collect();
        paths.sort();
        for path in paths {
            let Ok(bytes) = std::fs::read(&path) else {
                continue;
            };
            let text = String::from_utf8_lossy(&bytes);
            if package_of(&text).as_deref() != package {
                continue;
            }
            let stem = path.file_stem().unwrap_or_default().to_string_lossy();
            for decl in top_level_classes(&text) {
                if decl.name != stem {
                    strays
                        .entry(decl.name.clone())
                        .or_insert_with(|| (path.clone(), decl));
                }
            }
        }
        Folder {
            root,
            package: package.map(str::to_string),
            strays,
        }
    }

    /// The declaration of the class `name` (as the player's package writes it) in the
    /// folder: in the file of its name, else a stray.
    fn find(&self, name: &str) -> Option<ClassDecl> {
        let simple = name.rsplit('.').next().unwrap_or(name);
        let path = source_file(&self.root, self.package.as_deref(), name);
        let named = std::fs::read(&path).ok().and_then(|text| {
            top_level_classes(&String::from_utf8_lossy(&text))
                .into_iter()
                .find(|d| d.name == simple)
        });
        named.or_else(|| {
            (!name.contains('.'))
                .then(|| self.strays.get(simple).map(|(_, d)| d.clone()))
                .flatten()
        })
    }

    /// The files of strays the player's file uses, directly or through each other: javac
    /// must be given them, since it cannot find them by name.
    fn strays_used(&self, source: &str) -> Vec<PathBuf> {
        let mut declared: std::collections::BTreeSet<String> = top_level_classes(source)
            .into_iter()
            .map(|d| d.name)
            .collect();
        let mut added: Vec<PathBuf> = Vec::new();
        let mut texts = vec![source.to_string()];
        while let Some(text) = texts.pop() {
            let code = code_only(&text);
            for word in tokens(&code) {
                // `Cells.last(b)` uses `Cells`.
                let name = word.split('.').next().unwrap_or(word);
                let Some((path, _)) = self.strays.get(name) else {
                    continue;
                };
                if declared.contains(name) || added.contains(path) {
                    continue;
                }
                let Ok(bytes) = std::fs::read(path) else {
                    continue;
                };
                let helper = String::from_utf8_lossy(&bytes).into_owned();
                declared.extend(top_level_classes(&helper).into_iter().map(|d| d.name));
                added.push(path.clone());
                texts.push(helper);
            }
        }
        added.sort();
        added
    }
}

/// Whether a class extending `superclass` is a `GomokuPlayer`: the chain of superclasses
/// is followed through the player's own file, its folder (the player's classes win) and
/// the course environment.
fn extends_player(superclass: &str, own: &[ClassDecl], folder: &Folder, depth: usize) -> bool {
    let simple = superclass.rsplit('.').next().unwrap_or(superclass);
    if simple == "GomokuPlayer" {
        return true;
    }
    if depth >= MAX_SUPERCLASSES {
        return false;
    }
    let mine = (!superclass.contains('.'))
        .then(|| own.iter().find(|d| d.name == simple).cloned())
        .flatten();
    match mine.or_else(|| folder.find(superclass)) {
        Some(ClassDecl {
            superclass: Some(up),
            ..
        }) => extends_player(&up, own, folder, depth + 1),
        Some(_) => false,
        None => ENVIRONMENT_PLAYERS.contains(&simple),
    }
}

/// The player class of a Java file: the one top-level, non-abstract class in it that is a
/// `GomokuPlayer` (directly or through other classes), qualified by the file's package.
/// None or several is an error naming the file and the candidates.
pub fn player_class(file: &Path) -> Result<String, String> {
    let bytes =
        std::fs::read(file).map_err(|e| format!("cannot read `{}`: {e}", file.display()))?;
    let source = String::from_utf8_lossy(&bytes);
    let package = package_of(&source);
    let folder = Folder::of(file, package.as_deref());
    let classes = top_level_classes(&source);
    let players: Vec<&ClassDecl> = classes
        .iter()
        .filter(|c| {
            !c.is_abstract
                && c.superclass
                    .as_deref()
                    .is_some_and(|s| extends_player(s, &classes, &folder, 0))
        })
        .collect();
    let names = |list: &[&ClassDecl]| {
        list.iter()
            .map(|c| c.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    };
    match players.as_slice() {
        [one] => Ok(match &package {
            Some(p) => format!("{p}.{}", one.name),
            None => one.name.clone(),
        }),
        [] => {
            let all: Vec<&ClassDecl> = classes.iter().collect();
            let listed = if all.is_empty() {
                "it declares no top-level class".to_string()
            } else {
                format!("its top-level classes: {}", names(&all))
            };
            Err(format!(
                "`{}` declares no player: no top-level, non-abstract class in it extends \
                 GomokuPlayer (directly or through another class such as SequencePlayer); {listed}",
                file.display()
            ))
        }
        several => Err(format!(
            "`{}` declares several players ({}): keep one top-level GomokuPlayer class per file",
            file.display(),
            names(several)
        )),
    }
}

/// A Java player's default name: its player class's simple name, else the file's stem.
pub fn default_name(file: &Path) -> String {
    match player_class(file) {
        Ok(class) => class.rsplit('.').next().unwrap_or(&class).to_string(),
        Err(_) => file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default(),
    }
}

/// The `.java` files javac could read for a player: every one under its source root
/// (hidden folders and links skipped, [`MAX_SOURCE_DEPTH`] levels), with its bytes, in
/// path order.
fn sources_under(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    fn walk(dir: &Path, depth: usize, out: &mut Vec<(PathBuf, Vec<u8>)>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let hidden = entry.file_name().to_string_lossy().starts_with('.');
            if kind.is_dir() && !hidden && depth < MAX_SOURCE_DEPTH {
                walk(&path, depth + 1, out);
            } else if kind.is_file()
                && path.extension().is_some_and(|e| e == "java")
                && let Ok(bytes) = std::fs::read(&path)
            {
                out.push((path, bytes));
            }
        }
    }
    let mut out = Vec::new();
    walk(root, 0, &mut out);
    out.sort();
    out
}

/// The `-encoding` for javac: UTF-8 when every source is, else Windows-1252 (which maps
/// every byte, so old Windows-edited files compile).
fn encoding(sources: &[(PathBuf, Vec<u8>)]) -> &'static str {
    if sources
        .iter()
        .all(|(_, bytes)| std::str::from_utf8(bytes).is_ok())
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

/// The folder that holds compiled players: `$ARBITER_JAVA_CACHE`, else `arbiter-java-UID`
/// in the system's temporary folder (one per user, so that nobody runs classes another user
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

pub(crate) fn javac_program() -> String {
    std::env::var("ARBITER_JAVAC").unwrap_or_else(|_| DEFAULT_JAVAC.to_string())
}

pub(crate) fn java_program() -> String {
    std::env::var("ARBITER_JAVA").unwrap_or_else(|_| DEFAULT_JAVA.to_string())
}

/// A source of the course environment, moved into the player's package when it declares one.
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

/// Compiles the player `file` in the course environment, with the driver, or finds it
/// compiled already. The error is a message for a `spawn_failed` detail: a missing file or
/// compiler, no player class (or several), or javac's own output.
pub fn compile(file: &Path) -> Result<Compiled, String> {
    compile_with(file, &javac_program())
}

/// [`compile`] with the compiler `javac` (a program name or path).
pub fn compile_with(file: &Path, javac: &str) -> Result<Compiled, String> {
    let file = std::path::absolute(file).unwrap_or_else(|_| file.to_path_buf());
    let class = player_class(&file)?;
    let package = class.rsplit_once('.').map(|(p, _)| p.to_string());
    let folder = Folder::of(&file, package.as_deref());
    let root = folder.root.clone();
    let player_source = std::fs::read(&file)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default();
    let strays = folder.strays_used(&player_source);
    let sources = sources_under(&root);
    let encoding = encoding(&sources);
    let mut hash = Fnv::new();
    for part in [javac, DRIVER, &class, encoding] {
        hash.bytes(part.as_bytes());
    }
    hash.bytes(file.as_os_str().as_encoded_bytes());
    hash.bytes(root.as_os_str().as_encoded_bytes());
    for (name, text) in ENVIRONMENT {
        hash.bytes(name.as_bytes());
        hash.bytes(text.as_bytes());
    }
    for (path, bytes) in &sources {
        hash.bytes(path.as_os_str().as_encoded_bytes());
        hash.bytes(bytes);
    }
    let simple = class.rsplit('.').next().unwrap_or("player").to_string();
    let key = format!("{simple}-{:016x}", hash.0);
    let cell = outcomes()
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .entry(key.clone())
        .or_default()
        .clone();
    cell.get_or_init(|| {
        let dir = cache_root().join(&key);
        let compiled = Compiled {
            dir: dir.clone(),
            class: class.clone(),
        };
        if !dir.join("ArbiterDriver.class").is_file() {
            let job = Javac {
                javac,
                file: &file,
                strays: &strays,
                root: &root,
                package: package.as_deref(),
                encoding,
            };
            job.run(&dir)?;
        }
        Ok(compiled)
    })
    .clone()
}

/// One compilation: the player's file, the driver, and whatever they use from the source
/// root and then the environment (plus the helper files javac cannot find by name).
struct Javac<'a> {
    javac: &'a str,
    file: &'a Path,
    /// Helper files javac cannot find by name, given to it with the player's.
    strays: &'a [PathBuf],
    root: &'a Path,
    package: Option<&'a str>,
    encoding: &'static str,
}

impl Javac<'_> {
    /// Compiles into a fresh folder next to `dir`, then renames it into place: another
    /// arbiter run compiling the same player at the same time cannot see a half-written
    /// folder.
    fn run(&self, dir: &Path) -> Result<(), String> {
        static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let root = dir.parent().unwrap_or(dir);
        create_private_dir(root).map_err(|e| {
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
        if let Err(e) = self.compile_into(&work) {
            let _ = std::fs::remove_dir_all(&work);
            return Err(e);
        }
        let classes = work.join("classes");
        let moved = match std::fs::rename(&classes, dir) {
            Ok(()) => Ok(()),
            // Another run got there first: its classes are the same.
            Err(_) if dir.join("ArbiterDriver.class").is_file() => Ok(()),
            Err(e) => Err(format!(
                "cannot move the compiled player to `{}`: {e}",
                dir.display()
            )),
        };
        let _ = std::fs::remove_dir_all(&work);
        moved
    }

    fn compile_into(&self, work: &Path) -> Result<(), String> {
        let env = work.join("env");
        let package_dir = match self.package {
            Some(p) => env.join(p.replace('.', "/")),
            None => env.clone(),
        };
        let driver = work.join("driver");
        let classes = work.join("classes");
        for d in [&package_dir, &driver, &classes] {
            std::fs::create_dir_all(d)
                .map_err(|e| format!("cannot create `{}`: {e}", d.display()))?;
        }
        let mut written = vec![(driver.join("ArbiterDriver.java"), DRIVER.to_string())];
        for (name, text) in ENVIRONMENT {
            written.push((
                package_dir.join(format!("{name}.java")),
                in_package(text, self.package),
            ));
        }
        for (path, text) in &written {
            std::fs::write(path, text)
                .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
        }
        // The player's folder comes first on the source path: its classes win over the
        // environment's. Classes are found by file name there, and only those used are
        // compiled (-implicit:class writes them out).
        let sourcepath = std::env::join_paths([self.root, env.as_path()])
            .map_err(|e| format!("cannot use `{}` as a source path: {e}", self.root.display()))?;
        let output = Command::new(self.javac)
            .arg("-encoding")
            .arg(self.encoding)
            .arg("-nowarn")
            .arg("-implicit:class")
            .arg("-proc:none")
            .arg("-d")
            .arg(&classes)
            .arg("-cp")
            .arg(&classes)
            .arg("-sourcepath")
            .arg(&sourcepath)
            .arg(self.file)
            .args(self.strays)
            .arg(&written[0].0)
            .current_dir(work)
            .env_remove("CLASSPATH")
            .output()
            .map_err(|e| format!("cannot run the Java compiler `{}`: {e}", self.javac))?;
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
        Err(format!(
            "javac could not compile `{}` ({}):\n{}",
            self.file.display(),
            output.status,
            text.trim_end()
        ))
    }
}

/// Creates `dir` (and its parents); a folder created here is readable by its owner only,
/// so that no other user can put classes in it for us to run.
pub(crate) fn create_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
    if dir.is_dir() {
        return Ok(());
    }
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent)?;
    }
    match std::fs::DirBuilder::new().mode(0o700).create(dir) {
        Ok(()) => std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700)),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(e),
    }
}

/// The JVM flags that fit a JVM into `memory_mb` MiB of address space (`RLIMIT_AS`), and
/// the player thread's stack in MiB. Without a limit, only the stack (256 MiB).
///
/// The limit is split into the player's thread stack (an eighth, 16 to 256 MiB), the
/// JVM's fixed reservations (code cache and class space capped at 32 MiB, metaspace at
/// 96 MiB, [`JVM_OVERHEAD_MB`] in all) and the heap (`-Xmx`, the rest, at least
/// [`MIN_HEAP_MB`]). Under [`min_memory_mb`] the JVM cannot start.
pub fn memory_flags(memory_mb: Option<u64>) -> (Vec<String>, u64) {
    let Some(limit) = memory_mb else {
        return (Vec::new(), STACK_MB);
    };
    let stack = stack_mb(limit);
    let heap = limit
        .saturating_sub(JVM_OVERHEAD_MB + stack)
        .max(MIN_HEAP_MB);
    let flags = [
        format!("-Xmx{heap}m"),
        "-XX:ReservedCodeCacheSize=32m".to_string(),
        "-XX:CompressedClassSpaceSize=32m".to_string(),
        "-XX:MaxMetaspaceSize=96m".to_string(),
    ];
    (flags.to_vec(), stack)
}

/// The command that runs a compiled player under `limits`: `java -Djava.awt.headless=true
/// -XX:+UseSerialGC -XX:-UsePerfData -XX:ErrorFile=/dev/null -XX:ReplayDataFile=/dev/null
/// [memory flags] -Darbiter.stack.mb=N [$ARBITER_JAVA_OPTS] -cp DIR ArbiterDriver CLASS`. The serial collector keeps one JVM from starting a
/// garbage-collector thread per core while many bots share the machine; without perf data
/// the JVM writes nothing to /tmp. `extra` holds more JVM options ([`JAVA_OPTS_VAR`]). The
/// class folder is carried into a sandbox (its copy is private to the bot).
pub fn run_command(compiled: &Compiled, java: &str, limits: &Limits, extra: &str) -> CommandSpec {
    jvm_command(&compiled.dir, "ArbiterDriver", java, limits, extra).arg(compiled.class.clone())
}

/// The command that runs the class `main` from the class folder `classes` with the flags
/// of [`run_command`] (arguments to `main` are added by the caller).
pub fn jvm_command(
    classes: &Path,
    main: &str,
    java: &str,
    limits: &Limits,
    extra: &str,
) -> CommandSpec {
    let (flags, stack) = memory_flags(limits.memory_mb);
    let mut command = CommandSpec::new(java)
        .arg("-Djava.awt.headless=true")
        .arg("-XX:+UseSerialGC")
        .arg("-XX:-UsePerfData")
        // A crashing JVM would leave its report in the bot's folder (the original one,
        // without the sandbox); its summary still reaches the bot's logs.
        .arg("-XX:ErrorFile=/dev/null")
        .arg("-XX:ReplayDataFile=/dev/null");
    command.args.extend(flags);
    command.args.push(format!("-Darbiter.stack.mb={stack}"));
    command
        .args
        .extend(extra.split_whitespace().map(str::to_string));
    let dir = classes.to_string_lossy().into_owned();
    command = command.arg("-cp").arg(dir).arg(main);
    if limits.memory_mb.is_some() {
        // glibc's per-thread malloc arenas reserve 64 MiB of address space each.
        command.env.insert("MALLOC_ARENA_MAX".into(), "1".into());
    }
    command.carried.push(classes.to_path_buf());
    command
}

/// What a JVM prints when it cannot reserve its memory at start.
const JVM_START_FAILURES: &[&str] = &[
    "Error occurred during initialization of VM",
    "Could not reserve enough space",
    "Could not allocate compressed class space",
    "There is insufficient memory for the Java Runtime Environment",
    "Could not create the Java Virtual Machine",
    "Failed to start thread",
];

/// The least memory limit under which [`memory_flags`] leaves the heap its minimum, in
/// MiB: the least a JVM is expected to start under.
pub fn min_memory_mb() -> u64 {
    (JVM_OVERHEAD_MB..)
        .find(|&mb| mb >= JVM_OVERHEAD_MB + stack_mb(mb) + MIN_HEAP_MB)
        .unwrap_or(u64::MAX)
}

/// The player thread's stack under a memory limit: an eighth of it, 16 to 256 MiB.
fn stack_mb(memory_mb: u64) -> u64 {
    (memory_mb / 8).clamp(16, STACK_MB)
}

/// A failure before `ready` of a JVM under a memory limit becomes a `spawn_failed` that
/// says the JVM did not start under it. The driver answers the handshake with `ready` or
/// an `error` (a player's constructor or static initialiser that fails, even by running
/// out of memory, is an `error`), so a JVM that crashes or exits before either never got
/// to run the player: it could not reserve its memory. Its own words about that (on
/// stderr, or on stdout, which is the bot's chatter log) or a crash without a word (a
/// launcher short of address space dies of SIGSEGV) are all that can be seen.
fn jvm_start_failure(failure: Failure, limits: &Limits) -> Failure {
    let Some(mb) = limits.memory_mb else {
        return failure;
    };
    if !matches!(failure.kind, FailureKind::Crash | FailureKind::Memory) {
        return failure;
    }
    let (flags, stack) = memory_flags(Some(mb));
    let said = if JVM_START_FAILURES
        .iter()
        .any(|m| failure.detail.contains(m))
    {
        ""
    } else {
        " (its own message, if any, is in its chatter log)"
    };
    Failure::new(
        FailureKind::Spawn,
        format!(
            "the JVM did not start under the memory limit of {mb} MiB{said}: --memory-mb \
             sets RLIMIT_AS (address space), and a JVM reserves about {} MiB beyond its heap, \
             so give it at least {} MiB (flags used: {} -Darbiter.stack.mb={stack}); {}",
            JVM_OVERHEAD_MB + stack,
            min_memory_mb(),
            flags.join(" "),
            failure.detail
        ),
    )
}

/// The message of a write past `RLIMIT_FSIZE` in the JVM: HotSpot ignores SIGXFSZ, so the
/// write fails with `EFBIG` and the player gets an `IOException` instead of dying.
const FILE_TOO_LARGE: &str = "File too large";

/// A player that died of writing past the file size limit (its `IOException` reported as
/// an exception) loses by `file_size`.
fn file_size_failure(failure: Failure, limits: &Limits) -> Failure {
    match limits.file_mb {
        Some(mb)
            if matches!(failure.kind, FailureKind::Exception | FailureKind::Crash)
                && failure.detail.contains(FILE_TOO_LARGE) =>
        {
            Failure::new(
                FailureKind::FileSize,
                format!("file size limit of {mb} MiB exceeded: {}", failure.detail),
            )
        }
        _ => failure,
    }
}

/// A course Java player seated as a bot: compiled at its first start, then run as a
/// protocol program in its file's folder (or the folder the seat names), confined like
/// every bot program.
pub struct JavaPlayer {
    file: PathBuf,
    cwd: Option<PathBuf>,
    env: BTreeMap<String, String>,
    confine: Confinement,
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
            confine: Confinement::default(),
            inner: None,
        }
    }

    /// The player with resource limits and isolation.
    pub fn confined(mut self, confine: Confinement) -> Self {
        self.confine = confine;
        self
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
        let limits = self.confine.limits;
        let extra = std::env::var(JAVA_OPTS_VAR).unwrap_or_default();
        let mut command = run_command(&compiled, &java_program(), &limits, &extra);
        command.cwd = self.cwd.clone();
        command.confine = self.confine;
        command
            .env
            .extend(self.env.iter().map(|(k, v)| (k.clone(), v.clone())));
        let inner = self.inner.insert(ProcessPlayer::new(command));
        Player::<G>::start(inner, game, setup)
            .map_err(|f| file_size_failure(jvm_start_failure(f, &limits), &limits))
    }

    fn turn(&mut self, game: &G, state: &G::State) -> TurnReply<G::Move> {
        match self.inner.as_mut() {
            Some(inner) => {
                let mut reply = Player::<G>::turn(inner, game, state);
                if let super::Reply::Failed(failure) = reply.reply {
                    reply.reply =
                        super::Reply::Failed(file_size_failure(failure, &self.confine.limits));
                }
                reply
            }
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

    fn decl(name: &str, superclass: Option<&str>, is_abstract: bool) -> ClassDecl {
        ClassDecl {
            name: name.into(),
            superclass: superclass.map(Into::into),
            is_abstract,
        }
    }

    #[test]
    fn packages_are_read_past_comments_and_strings() {
        assert_eq!(
            package_of("// header\n/* package no; */\npackage  league.bots ;\nclass A {}"),
            Some("league.bots".into())
        );
        assert_eq!(package_of("packages x;"), None);
        assert_eq!(package_of("class A { String package; }"), None);
        assert_eq!(package_of("import a.b; class A { int package = 1; }"), None);
    }

    #[test]
    fn top_level_classes_are_found_with_their_superclass() {
        let source = r#"
            import java.awt.Color;
            // class Commented extends GomokuPlayer {}
            public abstract class Base<T extends Comparable<T>> extends GomokuPlayer {
                class Inner extends GomokuPlayer {}
                String s = "class InString extends GomokuPlayer { }";
                char c = '{';
            }
            final class P123 extends Base<Integer> implements Runnable { public void run() {} }
            interface Helper { }
            class Plain { }
            enum E { A, B }
        "#;
        assert_eq!(
            top_level_classes(source),
            [
                decl("Base", Some("GomokuPlayer"), true),
                decl("P123", Some("Base"), false),
                decl("Plain", None, false),
            ]
        );
    }

    #[test]
    fn the_player_class_is_found_by_what_it_is_not_by_its_file_name() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        write("Base.java", "abstract class Base extends SequencePlayer {}");
        let through_folder = write(
            "Player1.java",
            "class Helper {}\npublic class Renamed extends Base {}",
        );
        assert_eq!(player_class(&through_folder).unwrap(), "Renamed");
        assert_eq!(default_name(&through_folder), "Renamed");
        let through_env = write("Lazy.java", "class LazySeq extends SequencePlayer {}");
        assert_eq!(player_class(&through_env).unwrap(), "LazySeq");
        let packaged = write(
            "P2.java",
            "package a.b;\nimport java.awt.Color;\npublic class P2 extends a.b.GomokuPlayer {}",
        );
        assert_eq!(player_class(&packaged).unwrap(), "a.b.P2");
        let none = write("Util.java", "class Util extends Thread {}\nclass Other {}");
        let err = player_class(&none).unwrap_err();
        assert!(
            err.contains("Util.java") && err.contains("declares no player"),
            "{err}"
        );
        assert!(err.contains("Util, Other"), "{err}");
        let two = write(
            "Two.java",
            "class A extends GomokuPlayer {}\nclass B extends RandomPlayer {}",
        );
        let err = player_class(&two).unwrap_err();
        assert!(
            err.contains("Two.java") && err.contains("several players (A, B)"),
            "{err}"
        );
        // Through a class declared in a file of another name, which javac is then given.
        write(
            "Helpers.java",
            "abstract class Base2 extends GomokuPlayer {}\nclass Node { Leaf leaf; }\nclass Leaf {}",
        );
        write("Unused.java", "class Unused {}");
        let stray = write(
            "P3.java",
            "class P3 extends Base2 { Object n = Node.class; }",
        );
        assert_eq!(player_class(&stray).unwrap(), "P3");
        let folder = Folder::of(&stray, None);
        assert_eq!(
            folder.strays_used("class P3 extends Base2 { Object n = Node.class; }"),
            [dir.path().join("Helpers.java")]
        );
        // A class the player declares itself is its own, not a stray's.
        assert!(
            folder
                .strays_used("class P4 extends GomokuPlayer {} class Node {}")
                .is_empty()
        );
        // A loop of superclasses ends.
        let cycle = write("Cycle.java", "class X extends Y {}\nclass Y extends X {}");
        assert!(player_class(&cycle).is_err());
        // The player's own SequencePlayer wins over the environment's.
        write("SequencePlayer.java", "public class SequencePlayer {}");
        assert!(player_class(&through_env).is_err());
    }

    #[test]
    fn packaged_players_resolve_from_the_folder_above_their_package() {
        let p = Path::new("/x/league/a/b/P.java");
        assert_eq!(source_root(p, Some("a.b")), Path::new("/x/league"));
        assert_eq!(source_root(p, None), Path::new("/x/league/a/b"));
        // Kept flat, not in a/b/: the file's own folder.
        assert_eq!(
            source_root(Path::new("/x/flat/P.java"), Some("a.b")),
            Path::new("/x/flat")
        );
    }

    #[test]
    fn the_run_command_is_headless_and_carries_its_classes() {
        let compiled = Compiled {
            dir: PathBuf::from("/cache/P-1"),
            class: "P".into(),
        };
        let c = run_command(&compiled, "java", &Limits::default(), "");
        assert_eq!(c.program, "java");
        let tail: Vec<&str> = c.args.iter().rev().take(4).map(String::as_str).collect();
        assert_eq!(tail, ["P", "ArbiterDriver", "/cache/P-1", "-cp"]);
        assert!(c.args.contains(&"-Djava.awt.headless=true".to_string()));
        assert!(c.args.contains(&"-Darbiter.stack.mb=256".to_string()));
        assert!(!c.args.iter().any(|a| a.starts_with("-Xmx")));
        assert_eq!(c.carried, [PathBuf::from("/cache/P-1")]);
        // Options of one's own come after arbiter's, so that they win.
        let limits = Limits {
            memory_mb: Some(1024),
            ..Limits::default()
        };
        let c = run_command(&compiled, "java", &limits, " -Xmx700m  -Dx=1 ");
        let at = |flag: &str| c.args.iter().position(|a| a == flag).unwrap();
        assert!(at("-Xmx496m") < at("-Xmx700m"));
        assert_eq!(at("-Dx=1") + 1, at("-cp"));
        assert_eq!(c.env.get("MALLOC_ARENA_MAX").map(String::as_str), Some("1"));
        assert!(DRIVER.contains("class ArbiterDriver"));
        assert!(
            GOMOKU_PLAYER.contains("abstract Move chooseMove(Color[][] board, Color myColour)")
        );
    }

    #[test]
    fn the_memory_limit_is_split_into_stack_fixed_reservations_and_heap() {
        let (flags, stack) = memory_flags(Some(1024));
        assert_eq!(stack, 128);
        assert_eq!(flags[0], format!("-Xmx{}m", 1024 - JVM_OVERHEAD_MB - 128));
        assert_eq!(min_memory_mb(), 475);
        let (flags, stack) = memory_flags(Some(min_memory_mb()));
        assert_eq!((flags[0].as_str(), stack), ("-Xmx16m", 59));
        let (flags, stack) = memory_flags(Some(4096));
        assert_eq!((flags[0].as_str(), stack), ("-Xmx3440m", 256));
        // Too little for a JVM: the smallest heap, and the start fails with a clear detail.
        let (flags, stack) = memory_flags(Some(128));
        assert_eq!((flags[0].as_str(), stack), ("-Xmx16m", 16));
        let limits = Limits {
            memory_mb: Some(128),
            ..Limits::default()
        };
        let failure = Failure::new(
            FailureKind::Crash,
            "before `ready`: the bot exited (exit status 1); stderr tail:\n\
             Error occurred during initialization of VM",
        );
        let failure = jvm_start_failure(failure, &limits);
        assert_eq!(failure.kind, FailureKind::Spawn);
        assert!(
            failure
                .detail
                .starts_with("the JVM did not start under the memory limit of 128 MiB"),
            "{}",
            failure.detail
        );
        // A player's constructor that fails is the player's exception, limit or not.
        let thrown = Failure::new(FailureKind::Exception, "cannot build P: OutOfMemoryError");
        assert_eq!(jvm_start_failure(thrown.clone(), &limits), thrown);
        // Without a memory limit, a crash stays a crash.
        let crash = Failure::new(
            FailureKind::Crash,
            "Error occurred during initialization of VM",
        );
        assert_eq!(jvm_start_failure(crash.clone(), &Limits::default()), crash);
    }

    #[test]
    fn a_write_past_the_file_limit_is_a_file_size_loss() {
        let limits = Limits {
            file_mb: Some(1),
            ..Limits::default()
        };
        let thrown = Failure::new(
            FailureKind::Exception,
            "java.io.IOException: File too large\n\tat java.io.FileOutputStream.writeBytes",
        );
        let failure = file_size_failure(thrown.clone(), &limits);
        assert_eq!(failure.kind, FailureKind::FileSize);
        assert!(
            failure
                .detail
                .starts_with("file size limit of 1 MiB exceeded")
        );
        assert_eq!(
            file_size_failure(thrown.clone(), &Limits::default()),
            thrown
        );
    }
}
