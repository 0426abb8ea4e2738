//! The adapters' code, compiled once per interpreter rather than at every bot start.
//!
//! An adapter runs as `python3 -u -c PROGRAM BOT_FILE`, and Python compiles a `-c` program
//! at every start: the course adapter took 1.1-1.7 ms of each bot's start, paid by both
//! bots of every game. So the interpreter that runs the bots marshals the adapter's code
//! object once (`PYTHON -I -S`, no site and no user code), the result is kept for the runs
//! that follow on this machine, and PROGRAM becomes a short loader: it unmarshals the
//! code when the interpreter's bytecode magic number is the one it was made with, and
//! compiles the adapter's source otherwise (another interpreter behind the same name).
//! Either way the adapter's frames read `File "<string>"`, as with the source itself.
//!
//! The kept code is a file named after what it depends on (the adapter's source, the
//! interpreter's name, path, inode, size and time), in a folder of the user's alone, and
//! carries a SHA-256 of its content: a truncated, planted or edited file is no code, and
//! the interpreter compiles the adapter again. When that fails too (no such interpreter,
//! one older than 3.6), PROGRAM is the source, as before.

use crate::bots::spec::find_program;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

/// The first line of a kept file; a new format changes it.
const HEADER: &str = "arbiter adapter code, format 1";
/// The largest kept file read: the course adapter's is about 25 kB.
const MAX_FILE_BYTES: u64 = 4 << 20;
/// The longest wait for the interpreter's compile run.
const COMPILE_LIMIT: Duration = Duration::from_secs(10);

/// Run as `PYTHON -I -S -c COMPILER` with the adapter's source on stdin: writes the
/// interpreter's bytecode magic number in hex, a newline, and the marshalled code object in
/// base64 (Python 3.6 or newer). Compiled without docstrings (the adapters use none, nor
/// asserts): the code is a sixth smaller, and the loader is read at every bot start.
const COMPILER: &str = "import sys,marshal,binascii,importlib.util as u\n\
c=compile(sys.stdin.buffer.read().decode('utf-8'),'<string>','exec',optimize=2)\n\
sys.stdout.write(u.MAGIC_NUMBER.hex()+'\\n'+binascii.b2a_base64(marshal.dumps(c),newline=False).decode('ascii')+'\\n')\n";

/// Code an interpreter made: its bytecode magic number (hex) and the marshalled code
/// object (base64).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Compiled {
    magic: String,
    code: String,
}

/// The `-c` program that runs `adapter` under the interpreter `python`: a loader of the
/// adapter's compiled code, or the source itself when no code can be had.
pub(crate) fn program(adapter: &'static str, python: &str) -> String {
    /// Per interpreter and adapter (one of arbiter's own): the loader, if there is code.
    type Loaders = BTreeMap<(String, &'static str), Option<String>>;
    static KNOWN: Mutex<Loaders> = Mutex::new(BTreeMap::new());
    // Held while the code is found or made: a game's two seats ask at once, and the first
    // run of a league has one compile, not one per seat.
    let mut known = KNOWN.lock().unwrap_or_else(|e| e.into_inner());
    let loader = known
        .entry((python.to_string(), adapter))
        .or_insert_with(|| {
            compiled(adapter, python, kept_folder().as_deref())
                .map(|compiled| loader(adapter, &compiled))
        });
    match loader {
        Some(loader) => loader.clone(),
        None => adapter.to_string(),
    }
}

/// The loader for `compiled`, with `adapter`'s source for an interpreter whose magic
/// number differs. The source goes deflated: Python reads its `-c` program at every start
/// (some 20 µs a kilobyte here), and the source in base64 was 17 of the loader's 45 kB.
/// Deflated fast: every `arbiter` process makes its loader once, before its first bot starts,
/// and the best compression cost a short game 1.3-1.5 ms (measured).
fn loader(adapter: &str, compiled: &Compiled) -> String {
    let source =
        crate::untrusted::deflate::deflate_base64(adapter.as_bytes(), flate2::Compression::fast());
    format!(
        "import marshal as _m,binascii as _b,importlib.util as _u\n\
         exec(_m.loads(_b.a2b_base64(\"{code}\")) if _u.MAGIC_NUMBER==bytes.fromhex(\"{magic}\") \
         else compile(__import__(\"zlib\").decompress(_b.a2b_base64(\"{source}\")).decode(\"utf-8\"),\
         \"<string>\",\"exec\"))\n",
        code = compiled.code,
        magic = compiled.magic,
    )
}

/// The folder kept code lives in: `arbiter-python-UID` in the system's temporary folder,
/// made if missing and used only if it is ours alone.
fn kept_folder() -> Option<PathBuf> {
    crate::untrusted::file::kept_dir("arbiter-python")
}

/// `adapter`'s code as `python` makes it: kept in `folder` from an earlier run, else made
/// now (and kept there).
fn compiled(adapter: &str, python: &str, folder: Option<&Path>) -> Option<Compiled> {
    let name = folder.and_then(|_| file_name(adapter, python));
    if let (Some(folder), Some(name)) = (folder, &name)
        && let Some(kept) = recall(folder, name)
    {
        return Some(kept);
    }
    let made = compile(adapter, python)?;
    if let (Some(folder), Some(name)) = (folder, &name) {
        keep(folder, name, &made);
    }
    Some(made)
}

/// The kept file's name: a digest of what the code depends on. `None` when the interpreter
/// cannot be found, so nothing is kept for it.
fn file_name(adapter: &str, python: &str) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let found = find_program(python)?;
    let real = std::fs::canonicalize(&found).ok()?;
    let meta = std::fs::metadata(&real).ok()?;
    let key = format!(
        "{HEADER}\nadapter {}\npython {python}\nfound {}\nreal {} {}:{} {} {}.{}\n",
        hex(&Sha256::digest(adapter.as_bytes())),
        found.display(),
        real.display(),
        meta.dev(),
        meta.ino(),
        meta.size(),
        meta.mtime(),
        meta.mtime_nsec()
    );
    Some(hex(&Sha256::digest(key.as_bytes())))
}

/// The file's text for `compiled`: the header, a digest of the rest, the rest.
fn file_text(compiled: &Compiled) -> String {
    let body = format!("{}\n{}\n", compiled.magic, compiled.code);
    format!(
        "{HEADER}\n{}\n{body}",
        hex(&Sha256::digest(body.as_bytes()))
    )
}

/// The code kept in `folder` under `name`, if the file is whole and ours: a link, a FIFO,
/// an oversized or altered file is no code.
fn recall(folder: &Path, name: &str) -> Option<Compiled> {
    let crate::untrusted::file::ReadBack::Bytes(bytes) =
        crate::untrusted::file::read_beneath(folder, Path::new(name), MAX_FILE_BYTES)
    else {
        return None;
    };
    let text = String::from_utf8(bytes).ok()?;
    let mut lines = text.splitn(3, '\n');
    let (header, digest, body) = (lines.next()?, lines.next()?, lines.next()?);
    if header != HEADER || digest != hex(&Sha256::digest(body.as_bytes())) {
        return None;
    }
    parse(body)
}

/// Kept for the runs that follow; a folder that takes no file only costs them a compile.
fn keep(folder: &Path, name: &str, compiled: &Compiled) {
    let _ = crate::untrusted::file::write_whole(folder, name, file_text(compiled).as_bytes());
}

/// The compile run's output (also a kept file's body): the magic number in hex, then the
/// code in base64, each on its line and checked, so that nothing but those characters ever
/// reaches a loader's string literals.
fn parse(text: &str) -> Option<Compiled> {
    let mut lines = text.lines();
    let magic = lines.next()?.trim();
    let code = lines.next()?.trim();
    let is_hex =
        !magic.is_empty() && magic.len() % 2 == 0 && magic.bytes().all(|b| b.is_ascii_hexdigit());
    let is_base64 = !code.is_empty()
        && code
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+/=".contains(&b));
    (is_hex && is_base64 && lines.all(|l| l.trim().is_empty())).then(|| Compiled {
        magic: magic.to_string(),
        code: code.to_string(),
    })
}

/// Has `python` compile `adapter`: isolated (`-I`: no environment, no user site, no
/// current folder) and without `site`, bounded in time.
fn compile(adapter: &str, python: &str) -> Option<Compiled> {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    use wait_timeout::ChildExt;
    let mut child = Command::new(python)
        .args(["-I", "-S", "-c", COMPILER])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    // The source fits the pipe's buffer many times over only on some systems: written
    // on a thread, while the code is read here.
    let mut stdin = child.stdin.take()?;
    let source = adapter.as_bytes().to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&source));
    let mut stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut out = Vec::new();
        let _ = (&mut stdout).take(MAX_FILE_BYTES).read_to_end(&mut out);
        out
    });
    let status = match child.wait_timeout(COMPILE_LIMIT) {
        Ok(Some(status)) => status,
        _ => {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
    };
    let _ = writer.join();
    let out = reader.join().ok()?;
    if !status.success() {
        return None;
    }
    parse(std::str::from_utf8(&out).ok()?)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ADAPTER: &str =
        "import sys\nsys.stdout.write('ran as %s with %s\\n' % (__name__, sys.argv[1:]))\n";

    fn run(program: &str) -> String {
        let out = std::process::Command::new("python3")
            .args(["-u", "-c", program, "bot.py"])
            .output()
            .expect("python3 runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    #[test]
    fn the_loader_runs_the_compiled_code_and_the_source_under_another_interpreter() {
        let made = compile(ADAPTER, "python3").expect("python3 compiles the adapter");
        let loader = loader(ADAPTER, &made);
        assert!(
            !loader.contains("sys.stdout.write"),
            "the source is not in clear"
        );
        assert_eq!(run(&loader), "ran as __main__ with ['bot.py']\n");
        // Code marshalled by an interpreter of another bytecode: the source is compiled.
        let other = Compiled {
            magic: "00000d0a".into(),
            code: "AAAA".into(),
        };
        assert_eq!(
            run(&super::loader(ADAPTER, &other)),
            "ran as __main__ with ['bot.py']\n"
        );
    }

    #[test]
    fn kept_code_is_recalled_whole_and_an_altered_or_planted_file_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let made = Compiled {
            magic: "a70d0d0a".into(),
            code: "4wAAAA+/==".into(),
        };
        keep(dir.path(), "kept", &made);
        assert_eq!(recall(dir.path(), "kept"), Some(made.clone()));
        let text = std::fs::read_to_string(dir.path().join("kept")).unwrap();
        // One character of the code changed: the digest no longer matches.
        std::fs::write(dir.path().join("altered"), text.replace("4wAAAA", "4wAAAB")).unwrap();
        assert_eq!(recall(dir.path(), "altered"), None);
        // Quotes where the code goes, with a digest that matches: refused as no code.
        let body = "a70d0d0a\n\")+__import__('os').system('x')#\n";
        let planted = format!(
            "{HEADER}\n{}\n{body}",
            hex(&Sha256::digest(body.as_bytes()))
        );
        std::fs::write(dir.path().join("planted"), planted).unwrap();
        assert_eq!(recall(dir.path(), "planted"), None);
        std::os::unix::fs::symlink(dir.path().join("kept"), dir.path().join("link")).unwrap();
        assert_eq!(recall(dir.path(), "link"), None);
        assert_eq!(recall(dir.path(), "missing"), None);
    }

    #[test]
    fn without_an_interpreter_that_compiles_the_program_is_the_source() {
        assert_eq!(compile(ADAPTER, "/nonexistent/python3"), None);
        assert_eq!(program(ADAPTER, "/nonexistent/python3"), ADAPTER);
        // An interpreter that fails the run (Python 2 has no -I) leaves the source too.
        assert_eq!(compile(ADAPTER, "false"), None);
    }

    #[test]
    fn the_kept_files_name_follows_the_adapter_and_the_interpreter() {
        let a = file_name(ADAPTER, "python3").expect("python3 is on PATH");
        assert_eq!(file_name(ADAPTER, "python3"), Some(a.clone()));
        assert_ne!(file_name("pass\n", "python3"), Some(a.clone()));
        assert_ne!(file_name(ADAPTER, "sh"), Some(a));
        assert_eq!(file_name(ADAPTER, "/nonexistent/python3"), None);
    }
}
