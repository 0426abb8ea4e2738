//! A class-data archive of javac's own classes. A player's compile is short, and most of it
//! goes to loading and linking the compiler's classes: mapped from an archive, a course
//! player's compile took 1.05-1.3 s of CPU instead of 1.4 s. The first compile with a JDK writes
//! the archive (`-XX:ArchiveClassesAtExit`) into the Java cache; later compiles map it
//! (`-XX:SharedArchiveFile`). The archive holds the JDK's classes only: javac runs no code
//! of the player (`-proc:none`).
//!
//! The archive goes where javac may read and write, its work folder, and the option naming
//! it follows that folder into a jail. A JDK older than 13 (no dynamic archives), one whose
//! release cannot be read, or a JVM that refuses the option compiles as before.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// The archive's name in a compile's work folder.
const IN_WORK: &str = "javac.jsa";
/// The most an archive may hold: javac's is about 11 MB.
const ARCHIVE_BYTES: u64 = 256 << 20;

/// Set once a JVM refused an archive option: the rest of the run compiles without one.
static REFUSED: AtomicBool = AtomicBool::new(false);

/// What a compile does with the archive of its JDK.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Cds {
    /// Maps the archive, linked into the work folder.
    Use,
    /// Writes the archive into the work folder, to keep in the cache once javac has run.
    Make(PathBuf),
}

impl Cds {
    /// The plan for a compile by `javac`, its JVM given the options `jvm`, in `work`: the
    /// archive linked there if there is one; `None` where no archive can serve.
    pub(super) fn plan(javac: &str, jvm: &[String], work: &Path) -> Option<Cds> {
        if REFUSED.load(Ordering::Relaxed) {
            return None;
        }
        // The work folder is in the cache folder, known to be ours alone
        // (`compile_into_place`): the archive is kept beside it.
        let archive = work.parent()?.join(archive_name(javac, jvm)?);
        let linked = work.join(IN_WORK);
        if is_archive(&archive)
            && (std::fs::hard_link(&archive, &linked).is_ok()
                || std::fs::copy(&archive, &linked).is_ok())
        {
            Some(Cds::Use)
        } else {
            Some(Cds::Make(archive))
        }
    }

    /// javac's options for the plan, its work folder being `work`. JVM warnings (an
    /// archive that does not map, say) are not shown: javac's own messages are.
    pub(super) fn args(&self, work: &Path) -> Vec<String> {
        let file = work.join(IN_WORK).to_string_lossy().into_owned();
        let option = match self {
            Cds::Use => format!("-J-XX:SharedArchiveFile={file}"),
            Cds::Make(_) => format!("-J-XX:ArchiveClassesAtExit={file}"),
        };
        vec![option, "-J-Xlog:all=error".to_string()]
    }

    /// After a compile that wrote the archive into `written` (the work folder as javac saw
    /// it), keeps it in the cache, whether or not the player compiled: it holds the JDK's
    /// classes only. A run that got there first made the same.
    pub(super) fn keep(&self, written: &Path) {
        let Cds::Make(archive) = self else {
            return;
        };
        let made = written.join(IN_WORK);
        let fits = std::fs::symlink_metadata(&made).is_ok_and(|m| m.len() <= ARCHIVE_BYTES);
        if !fits || !is_archive(&made) {
            return;
        }
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let partial = archive.with_extension(format!("tmp-{}-{n}", std::process::id()));
        if std::fs::copy(&made, &partial).is_err() || std::fs::rename(&partial, archive).is_err() {
            let _ = std::fs::remove_file(&partial);
        }
    }

    /// Whether javac's `output` says its JVM did not start: then the compile is tried
    /// again without an archive ([`Cds::refuse`]).
    pub(super) fn jvm_refused(output: &str) -> bool {
        output.contains("Could not create the Java Virtual Machine")
            || output.contains("Error occurred during initialization of VM")
    }

    /// The rest of the run compiles without an archive.
    pub(super) fn refuse() {
        REFUSED.store(true, Ordering::Relaxed);
    }
}

/// Whether `path` is a regular file that starts as a dynamic class-data archive does: one
/// cut short or overwritten is made again rather than tried at every compile.
fn is_archive(path: &Path) -> bool {
    use std::io::Read;
    let regular = std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file());
    let mut magic = [0u8; 4];
    regular
        && std::fs::File::open(path).is_ok_and(|mut f| f.read_exact(&mut magic).is_ok())
        && magic == DYNAMIC_MAGIC
}

/// The first bytes of a dynamic archive: HotSpot's `0xf00baba8`, little-endian.
const DYNAMIC_MAGIC: [u8; 4] = [0xa8, 0xab, 0x0b, 0xf0];

/// The archive's file name for the JDK `javac` belongs to, run with the JVM options `jvm`:
/// named after the program's real path, the JDK's release and class image, and
/// the options, so that another JDK, the same one updated, or a JVM sized otherwise (whose
/// archive would not map) gets an archive of its own.
fn archive_name(javac: &str, jvm: &[String]) -> Option<String> {
    let program = std::fs::canonicalize(crate::bots::spec::find_program(javac)?).ok()?;
    let home = program.parent()?.parent()?;
    let release = std::fs::read_to_string(home.join("release")).ok()?;
    if release_major(&release)? < 13 {
        return None;
    }
    let modules = std::fs::metadata(home.join("lib").join("modules")).ok()?;
    let modified = modules
        .modified()
        .ok()?
        .duration_since(std::time::UNIX_EPOCH)
        .ok()?;
    use sha2::{Digest, Sha256};
    let mut hash = Sha256::new();
    let fields = [
        program.as_os_str().as_encoded_bytes(),
        release.as_bytes(),
        &modules.len().to_le_bytes(),
        &modified.as_nanos().to_le_bytes(),
    ];
    for field in fields.into_iter().chain(jvm.iter().map(|o| o.as_bytes())) {
        // Length first, so that the boundaries between fields count.
        hash.update((field.len() as u64).to_le_bytes());
        hash.update(field);
    }
    let digest = hash.finalize();
    let name: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    Some(format!("javac-{name}.jsa"))
}

/// The major version in a JDK's `release` file (`JAVA_VERSION="17.0.15"`; `"1.8.0_392"`
/// is 8).
fn release_major(release: &str) -> Option<u32> {
    let line = release
        .lines()
        .find_map(|l| l.strip_prefix("JAVA_VERSION="))?;
    let version = line.trim().trim_matches('"');
    let mut parts = version.split(['.', '_', '-', '+']);
    let first: u32 = parts.next()?.parse().ok()?;
    if first == 1 {
        parts.next()?.parse().ok()
    } else {
        Some(first)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_major_version_is_read_from_a_jdks_release_file() {
        assert_eq!(
            release_major("IMPLEMENTOR=\"Debian\"\nJAVA_VERSION=\"17.0.15\"\n"),
            Some(17)
        );
        assert_eq!(release_major("JAVA_VERSION=\"1.8.0_392\""), Some(8));
        assert_eq!(release_major("JAVA_VERSION=\"21\""), Some(21));
        assert_eq!(release_major("JAVA_VERSION=\"11.0.2+9\""), Some(11));
        assert_eq!(release_major("OS_NAME=\"Linux\""), None);
    }

    #[test]
    fn a_jvm_that_did_not_start_is_refused_and_a_compile_error_is_not() {
        assert!(!Cds::jvm_refused("Player.java:3: error: ';' expected"));
        assert!(Cds::jvm_refused(
            "Error occurred during initialization of VM\nUnrecognized VM option"
        ));
    }
}
