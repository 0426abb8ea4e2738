//! Compiling a player with javac in the course environment, once per run and per content:
//! the class files go to a private cache folder named after a hash of every source javac
//! could read.

use super::discovery::*;
use super::environment::*;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, Mutex, OnceLock};

/// javac's output kept in a spawn failure's detail (its first errors matter most).
pub(super) const COMPILER_OUTPUT_BYTES: usize = 6000;
/// Folder levels below a player's source root whose `.java` files count for its cache key.
pub(super) const MAX_SOURCE_DEPTH: usize = 8;

/// What compiling a player gave: the class folder and the class to run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compiled {
    pub dir: PathBuf,
    /// The player's class, qualified by its package if it declares one.
    pub class: String,
}

/// The `.java` files javac could read for a player: every one under its source root
/// (hidden folders and links skipped, [`MAX_SOURCE_DEPTH`] levels), with its bytes, in
/// path order.
pub(super) fn sources_under(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
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
                && let Ok(bytes) = crate::untrusted::file::read_source(&path)
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
pub(super) fn encoding(sources: &[(PathBuf, Vec<u8>)]) -> &'static str {
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
pub(super) struct Fnv(u64);

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

/// [`cache_root`], made if missing, once it is known to be ours alone: classes found there
/// are run as the player, so a folder someone else made or can write is refused.
pub fn trusted_cache_root() -> Result<PathBuf, String> {
    let root = cache_root();
    crate::untrusted::file::private_dir(&root)
        .map_err(|e| format!("cannot use the Java cache folder: {e}"))?;
    Ok(root)
}

/// Compilations of this run, by cache key: each is done once, even from parallel games.
pub(super) type Outcomes = Mutex<HashMap<String, Arc<OnceLock<Result<Compiled, String>>>>>;

pub(super) fn outcomes() -> &'static Outcomes {
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
    let player_source = crate::untrusted::file::read_source(&file)
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
        let dir = trusted_cache_root()?.join(&key);
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
pub(super) struct Javac<'a> {
    javac: &'a str,
    file: &'a Path,
    /// Helper files javac cannot find by name, given to it with the player's.
    strays: &'a [PathBuf],
    root: &'a Path,
    package: Option<&'a str>,
    encoding: &'static str,
}

impl Javac<'_> {
    fn run(&self, dir: &Path) -> Result<(), String> {
        compile_into_place(dir, "ArbiterDriver.class", |work| self.compile_into(work))
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

/// Fills the cache folder `dir` with classes: `compile` writes them into `classes/` of a
/// fresh work folder beside `dir`, which is then renamed into place, so that another
/// arbiter run compiling the same sources at the same time never sees half a folder. A run
/// that got there first (its `marker` class is in `dir`) made the same classes.
pub(crate) fn compile_into_place(
    dir: &Path,
    marker: &str,
    compile: impl FnOnce(&Path) -> Result<(), String>,
) -> Result<(), String> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let root = dir.parent().unwrap_or(dir);
    // Classes found there are run as the player: the folder must be ours alone.
    crate::untrusted::file::private_dir(root)
        .map_err(|e| format!("cannot use the Java cache folder `{}`: {e}", root.display()))?;
    let n = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let work = root.join(format!(
        ".{}.tmp-{}-{n}",
        dir.file_name().unwrap_or_default().to_string_lossy(),
        std::process::id()
    ));
    let result = compile(&work).and_then(|()| match std::fs::rename(work.join("classes"), dir) {
        Ok(()) => Ok(()),
        Err(_) if dir.join(marker).is_file() => Ok(()),
        Err(e) => Err(format!(
            "cannot move the compiled classes to `{}`: {e}",
            dir.display()
        )),
    });
    let _ = std::fs::remove_dir_all(&work);
    result
}
