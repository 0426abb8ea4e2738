//! The Landlock rules of what a bot reads in place: a folder whole, or a folder with
//! other entrants' files or the run's results beneath it, which stay out of reach.

use std::path::{Path, PathBuf};

/// Adds rules to read `path` except the `hidden` paths beneath it. A folder on the way to
/// a hidden one is not read whole: each of its other entries is, and its names may be
/// listed unless a hidden folder lies beneath (a listing right reaches every folder
/// beneath). A link is not followed: a rule on it would be a rule on its target.
pub(super) fn readable_but(
    ruleset: landlock::RulesetCreated,
    path: &Path,
    hidden: &[&PathBuf],
    abi: landlock::ABI,
) -> Result<landlock::RulesetCreated, landlock::RulesetError> {
    use landlock::{AccessFs, PathBeneath, PathFd, RulesetCreatedAttr};
    let beneath: Vec<&PathBuf> = hidden
        .iter()
        .copied()
        .filter(|h| h.starts_with(path))
        .collect();
    // A folder missing here (no /lib32) is no error.
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(ruleset);
    };
    if beneath.iter().any(|h| h.as_path() == path) {
        return Ok(ruleset);
    }
    let read = AccessFs::from_read(abi);
    if beneath.is_empty() || !meta.is_dir() {
        let Ok(fd) = PathFd::new(path) else {
            return Ok(ruleset);
        };
        let access = if meta.is_dir() {
            read
        } else {
            read & AccessFs::from_file(abi)
        };
        return ruleset.add_rule(PathBeneath::new(fd, access));
    }
    let mut ruleset = ruleset;
    if !beneath.iter().any(|h| h.is_dir()) {
        let Ok(fd) = PathFd::new(path) else {
            return Ok(ruleset);
        };
        ruleset = ruleset.add_rule(PathBeneath::new(fd, AccessFs::ReadDir))?;
    }
    for entry in std::fs::read_dir(path).into_iter().flatten().flatten() {
        if entry.file_type().is_ok_and(|t| t.is_symlink()) {
            continue;
        }
        ruleset = readable_but(ruleset, &entry.path(), &beneath, abi)?;
    }
    Ok(ruleset)
}
