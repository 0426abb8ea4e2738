//! A submission's files made ready to run: a zip extracted once into a private folder
//! (again only when the archive changes, so a resumed tournament sees the same files), and
//! a flat download's files of one student gathered under their own names; and which of
//! the files handed in a bot made ready to run came from, which every output names.

use super::submissions::{file_name, is_zip, lone_zip};
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

/// The file of a student's flat download that the bot `file` (gathered into `target`) came
/// from, which every output names: the last upload of the file played (`Team03-1.py`, not
/// the `Team03.py` it replaced, nor a helper beside it), or the zip it was unpacked from.
pub(super) fn played_entry(files: &[(PathBuf, String)], target: &Path, file: &Path) -> PathBuf {
    let played = match lone_zip(target) {
        Some(zip) => file_name(&zip),
        None => file_name(file),
    };
    files
        .iter()
        .rev()
        .find(|(_, original)| *original == played)
        .or(files.last())
        .map(|(path, _)| path.clone())
        .unwrap_or_default()
}

/// The path of the bot `file` within `entry` when the entry is a folder or a zip, as its
/// team knows it: below the folder, or below the folder `entry` was unpacked into (a
/// folder of `unpack_to`); none for an entry that is the file played (a flat download's
/// upload is named as uploaded, never as gathered).
pub(super) fn within(entry: &Path, file: &Path, unpack_to: &Path) -> Option<String> {
    if !entry.is_dir() && !is_zip(entry) {
        return None;
    }
    let inside = match file.strip_prefix(entry) {
        Ok(inside) => inside.to_path_buf(),
        Err(_) => file
            .strip_prefix(unpack_to)
            .ok()?
            .components()
            .skip(1)
            .collect(),
    };
    let inside = inside.to_string_lossy().into_owned();
    (!inside.is_empty()).then_some(inside)
}
