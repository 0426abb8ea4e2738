//! A team's zip unpacked within limits.
//!
//! An archive is someone else's file: it may not be a zip at all, name paths outside its
//! folder, hold links, or inflate a megabyte into gigabytes. Unpacking streams each entry to
//! disk through a fixed buffer and stops at the first limit broken, saying which; the caller
//! unpacks into a fresh folder and removes it on failure, so a half-unpacked team never runs.
//! Files come out readable by the running user only (0600, 0700 for folders and for files
//! the archive marks executable).

use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Component, Path, PathBuf};

/// How much an archive may hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The archive file itself.
    pub archive_bytes: u64,
    /// Everything it unpacks to, together.
    pub unpacked_bytes: u64,
    /// Files and folders in it.
    pub entries: usize,
    /// Unpacked bytes per byte of archive, once more than `ratio_floor` bytes are unpacked:
    /// source code compresses about 5 to 10 times; a bomb thousands of times.
    pub ratio: u64,
    /// Bytes an archive may unpack to before `ratio` applies, so a tiny zip of text is not refused.
    pub ratio_floor: u64,
}

/// The limits for a team's submission: far above any course's code, far below what fills
/// a disk.
pub const SUBMISSION: Limits = Limits {
    archive_bytes: 64 << 20,
    unpacked_bytes: 128 << 20,
    entries: 10_000,
    ratio: 100,
    ratio_floor: 4 << 20,
};

/// Unpacks the zip `archive` into `target`, which must not exist yet. On failure the
/// reason is returned and `target` may hold part of the archive: the caller removes it.
pub fn unpack_zip(archive: &Path, target: &Path, limits: &Limits) -> Result<(), String> {
    let file = super::file::open_regular(archive).map_err(|e| format!("cannot be read: {e}"))?;
    let size = file
        .metadata()
        .map_err(|e| format!("cannot be read: {e}"))?
        .len();
    if size > limits.archive_bytes {
        return Err(format!(
            "the archive is {} MiB, more than the {} MiB a submission may be",
            size >> 20,
            limits.archive_bytes >> 20
        ));
    }
    let mut zip = zip::ZipArchive::new(std::io::BufReader::new(file))
        .map_err(|e| format!("not a readable zip archive ({e})"))?;
    if zip.len() > limits.entries {
        return Err(format!(
            "the archive holds {} entries, more than the {} a submission may hold",
            zip.len(),
            limits.entries
        ));
    }
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(target)
        .map_err(|e| format!("cannot create `{}`: {e}", target.display()))?;
    let mut unpacked: u64 = 0;
    let mut buffer = vec![0u8; 64 * 1024];
    for i in 0..zip.len() {
        let mut entry = zip
            .by_index(i)
            .map_err(|e| format!("entry {} cannot be read ({e})", i + 1))?;
        let shown = entry
            .name()
            .map(|n| n.into_owned())
            .unwrap_or_else(|_| format!("number {}", i + 1));
        let Some(relative) = plain_path(entry.enclosed_name()) else {
            return Err(format!(
                "entry `{shown}` names a place outside the archive's folder"
            ));
        };
        if entry.is_symlink() {
            return Err(format!(
                "entry `{shown}` is a symbolic link; a submission holds files and folders only"
            ));
        }
        let path = target.join(&relative);
        if entry.is_dir() {
            make_dirs(target, &relative)?;
            continue;
        }
        if let Some(parent) = relative.parent() {
            make_dirs(target, parent)?;
        }
        let mode = if entry.unix_mode().is_some_and(|m| m & 0o111 != 0) {
            0o700
        } else {
            0o600
        };
        let mut out = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(mode)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&path)
            .map_err(|e| format!("entry `{shown}` cannot be written ({e})"))?;
        loop {
            let n = match entry.read(&mut buffer) {
                Ok(0) => break,
                Ok(n) => n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(format!("entry `{shown}` cannot be unpacked ({e})")),
            };
            unpacked += n as u64;
            if unpacked > limits.unpacked_bytes {
                return Err(format!(
                    "the archive unpacks to more than {} MiB, the most a submission may hold",
                    limits.unpacked_bytes >> 20
                ));
            }
            if unpacked > limits.ratio_floor && unpacked > size.saturating_mul(limits.ratio) {
                return Err(format!(
                    "the archive unpacks to more than {} times its size (a zip bomb?)",
                    limits.ratio
                ));
            }
            out.write_all(&buffer[..n])
                .map_err(|e| format!("entry `{shown}` cannot be written ({e})"))?;
        }
    }
    Ok(())
}

/// The entry's path when it is made of plain names only.
fn plain_path(path: Option<PathBuf>) -> Option<PathBuf> {
    let path = path?;
    let plain = path.components().all(|c| matches!(c, Component::Normal(_)));
    (plain && path.components().next().is_some()).then_some(path)
}

/// Creates the folders of `relative` under `target`, 0700; an entry that is a file where
/// a folder is needed is refused by the kernel.
fn make_dirs(target: &Path, relative: &Path) -> Result<(), String> {
    let mut at = target.to_path_buf();
    for part in relative.components() {
        at.push(part);
        match std::fs::DirBuilder::new().mode(0o700).create(&at) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists && at.is_dir() => {}
            Err(e) => {
                return Err(format!(
                    "folder `{}` cannot be made ({e})",
                    relative.display()
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;
    use zip::write::SimpleFileOptions;

    fn zip_of(path: &Path, entries: &[(&str, &[u8])]) {
        let mut zip = zip::ZipWriter::new(std::fs::File::create(path).unwrap());
        for (name, bytes) in entries {
            if name.ends_with('/') {
                zip.add_directory(*name, SimpleFileOptions::default())
                    .unwrap();
            } else {
                zip.start_file(*name, SimpleFileOptions::default().unix_permissions(0o755))
                    .unwrap();
                zip.write_all(bytes).unwrap();
            }
        }
        zip.finish().unwrap();
    }

    #[test]
    fn a_submission_is_unpacked_private_to_the_running_user() {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("Team01.zip");
        zip_of(
            &archive,
            &[
                ("team01/", b""),
                ("team01/Team01.py", b"class Player: pass\n"),
            ],
        );
        let target = dir.path().join("out");
        unpack_zip(&archive, &target, &SUBMISSION).unwrap();
        let file = target.join("team01/Team01.py");
        assert_eq!(std::fs::read(&file).unwrap(), b"class Player: pass\n");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&target), 0o700);
        assert_eq!(mode(&target.join("team01")), 0o700);
        assert_eq!(mode(&file), 0o700, "executable for its owner only");
    }

    #[test]
    fn a_zip_bomb_stops_at_the_limit_with_a_reason() {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("bomb.zip");
        let zeros = vec![0u8; 8 << 20];
        zip_of(&archive, &[("a", &zeros), ("b", &zeros)]);
        let limits = Limits {
            unpacked_bytes: 12 << 20,
            ratio: 1_000_000,
            ..SUBMISSION
        };
        let err = unpack_zip(&archive, &dir.path().join("out"), &limits).unwrap_err();
        assert!(err.contains("more than 12 MiB"), "{err}");
        let err = unpack_zip(&archive, &dir.path().join("out2"), &SUBMISSION).unwrap_err();
        assert!(err.contains("times its size"), "{err}");
        let limits = Limits {
            entries: 1,
            ..SUBMISSION
        };
        let err = unpack_zip(&archive, &dir.path().join("out3"), &limits).unwrap_err();
        assert!(err.contains("2 entries"), "{err}");
    }

    #[test]
    fn what_is_not_a_zip_or_escapes_its_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let archive = dir.path().join("fake.zip");
        std::fs::write(&archive, "not a zip").unwrap();
        let err = unpack_zip(&archive, &dir.path().join("out"), &SUBMISSION).unwrap_err();
        assert!(err.contains("not a readable zip"), "{err}");

        let mut zip = zip::ZipWriter::new(std::fs::File::create(&archive).unwrap());
        zip.start_file("../evil.py", SimpleFileOptions::default())
            .unwrap();
        zip.write_all(b"x").unwrap();
        zip.finish().unwrap();
        let err = unpack_zip(&archive, &dir.path().join("out2"), &SUBMISSION).unwrap_err();
        assert!(err.contains("outside"), "{err}");
        assert!(!dir.path().join("evil.py").exists());

        let mut zip = zip::ZipWriter::new(std::fs::File::create(&archive).unwrap());
        zip.add_symlink("link", "/etc/passwd", SimpleFileOptions::default())
            .unwrap();
        zip.finish().unwrap();
        let err = unpack_zip(&archive, &dir.path().join("out3"), &SUBMISSION).unwrap_err();
        assert!(err.contains("symbolic link"), "{err}");
    }
}
