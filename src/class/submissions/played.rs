//! Which of the files handed in a bot made ready to run came from, and where its file lies
//! within its entry: what every output names as the file that played.

use super::{file_name, is_zip, lone_zip};
use std::path::{Path, PathBuf};

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
