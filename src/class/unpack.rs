//! A submission's files made ready to run: a zip extracted once into a private folder
//! (again only when the archive changes, so a resumed tournament sees the same files), and
//! a flat download's files of one student gathered under their own names.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The file in an extracted folder that records which archive it came from.
const UNPACKED_MARK: &str = ".arbiter-zip-sha256";

/// Extracts `zip` into `target` unless `target` already holds this very archive; why not
/// when it cannot be. A marker is trusted only in a folder the running user owns and nobody
/// else can write; the archive is unpacked beside `target` and renamed into place, so a
/// half-unpacked team never runs and a failed one leaves nothing.
pub(super) fn unpack(zip: &Path, target: &Path) -> Result<(), String> {
    let hash = sha256_of(zip)?;
    let parent = target.parent().unwrap_or(Path::new("."));
    crate::untrusted::file::private_dir(parent).map_err(|e| e.to_string())?;
    let mark = target.join(UNPACKED_MARK);
    if crate::untrusted::file::trusted_dir(target).is_ok()
        && crate::untrusted::file::read_regular_file(&mark, 64)
            .is_ok_and(|m| String::from_utf8_lossy(&m).trim() == hash)
    {
        return Ok(());
    }
    let fresh = tempfile::Builder::new()
        .prefix(".unpacking-")
        .tempdir_in(parent)
        .map_err(|e| format!("cannot make a folder in `{}`: {e}", parent.display()))?;
    let into = fresh.path().join("files");
    crate::untrusted::archive::unpack_zip(zip, &into, &crate::untrusted::archive::SUBMISSION)?;
    std::fs::write(into.join(UNPACKED_MARK), &hash)
        .map_err(|e| format!("cannot write `{}`: {e}", mark.display()))?;
    if std::fs::symlink_metadata(target).is_ok() {
        std::fs::remove_dir_all(target)
            .or_else(|_| std::fs::remove_file(target))
            .map_err(|e| format!("cannot clear `{}`: {e}", target.display()))?;
    }
    std::fs::rename(&into, target).map_err(|e| {
        format!(
            "cannot move the unpacked files to `{}`: {e}",
            target.display()
        )
    })
}

/// SHA-256 (hex) of a file, streamed.
pub(super) fn sha256_of(path: &Path) -> Result<String, String> {
    let file =
        crate::untrusted::file::open_regular(path).map_err(|e| format!("cannot be read: {e}"))?;
    let mut hasher = Sha256::new();
    crate::untrusted::file::for_each_block(file, |block| hasher.update(block))
        .map_err(|e| format!("cannot be read: {e}"))?;
    Ok(hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// Copies one student's files of a flat download into `target` under the names they gave
/// them, so that a bot imports its helpers by their own names; the folder is made afresh.
pub(super) fn gather(files: &[(PathBuf, String)], target: &Path) -> Result<(), String> {
    let parent = target.parent().unwrap_or(Path::new("."));
    crate::untrusted::file::private_dir(parent).map_err(|e| e.to_string())?;
    if std::fs::symlink_metadata(target).is_ok() {
        std::fs::remove_dir_all(target)
            .or_else(|_| std::fs::remove_file(target))
            .map_err(|e| format!("cannot clear `{}`: {e}", target.display()))?;
    }
    std::fs::create_dir(target).map_err(|e| format!("cannot make `{}`: {e}", target.display()))?;
    // Later uploads come later in name order: a re-upload replaces the file it numbers.
    for (path, original) in files {
        let mut from = crate::untrusted::file::open_regular(path).map_err(|e| {
            format!(
                "{}: cannot be read: {e}",
                path.file_name().unwrap_or_default().display()
            )
        })?;
        let to = target.join(original);
        let mut file = std::fs::File::create(&to)
            .map_err(|e| format!("cannot write `{}`: {e}", to.display()))?;
        std::io::copy(&mut from, &mut file)
            .map_err(|e| format!("cannot write `{}`: {e}", to.display()))?;
    }
    Ok(())
}
