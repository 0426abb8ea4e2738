//! The private folders a run makes for its bots (a jail's folder, a console program's run
//! folder, a build's output) carry the run's pid in their names: a run killed by SIGKILL
//! cannot remove its own, so the next run that makes folders of the same kind in the same
//! place removes those of runs that are gone, as it does with their cgroups
//! ([`super::cgroup`]). A folder holds copies of a bot's files and whatever the bot wrote,
//! up to its file limit: left alone, every killed run would leave them in `/var/tmp`.
//! A run that exits at once on a signal removes the folders it holds ([`remove_live`]).

use std::collections::BTreeSet;
use std::io;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// The private folders this run holds, for [`remove_live`].
static LIVE: Mutex<BTreeSet<PathBuf>> = Mutex::new(BTreeSet::new());

fn live() -> std::sync::MutexGuard<'static, BTreeSet<PathBuf>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// A private folder of this run: a fresh name nobody can guess, mode 0700, removed when
/// dropped.
#[derive(Debug)]
pub struct PrivateFolder {
    path: PathBuf,
}

impl PrivateFolder {
    /// Where the folder is.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for PrivateFolder {
    fn drop(&mut self) {
        // Removed outside the list's lock, so that a game's two folders go side by side
        // (each a few tenths of a millisecond of unlinking; under the lock, the second
        // bot's end waited for the first's). It leaves the list only once gone: a run
        // exiting on a signal meanwhile removes what is left of it.
        remove_wholly(&self.path);
        live().remove(&self.path);
    }
}

/// Removes `path` and everything below it, also while another thread is removing it
/// (each may find gone what it listed, and stop): tried again while it is there.
fn remove_wholly(path: &Path) {
    for attempt in 0..4 {
        let _ = std::fs::remove_dir_all(path);
        if std::fs::symlink_metadata(path).is_err_and(|e| e.kind() == io::ErrorKind::NotFound) {
            return;
        }
        // A folder the bot closed to its owner (mode 0300, 0500) cannot be emptied by an
        // owner who is not root: its rights are given back, all the way down, and it goes.
        if attempt == 0 {
            open_all(path);
        }
    }
}

/// Gives the owner its rights back on every folder beneath `path` (links not followed).
fn open_all(path: &Path) {
    let mut folders = vec![path.to_path_buf()];
    while let Some(folder) = folders.pop() {
        if super::caps::open_to_owner(&folder).is_err() {
            continue;
        }
        if let Ok(entries) = std::fs::read_dir(&folder) {
            for entry in entries.flatten() {
                if entry.file_type().is_ok_and(|t| t.is_dir()) {
                    folders.push(entry.path());
                }
            }
        }
    }
}

/// Whether the arbiter run with pid `pid` is gone: no process has that pid (a folder or
/// cgroup named after it is litter).
pub(crate) fn run_is_gone(pid: u32) -> bool {
    pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists()
}

/// Removes every private folder this run holds: for a run about to exit without
/// unwinding (on a signal), once its bots were killed. Takes a lock, so not for a signal
/// context.
pub fn remove_live() {
    for path in live().iter() {
        remove_wholly(path);
    }
}

/// A new private folder (mode 0700) of `kind` in `base`, named
/// `arbiter-KIND-PID-RANDOM`, removed when dropped. The first time this run makes one of
/// `kind` in `base`, the folders of that kind that runs now gone left there are removed.
pub fn private_folder(kind: &str, base: &Path) -> io::Result<PrivateFolder> {
    static CLEARED: Mutex<BTreeSet<(String, PathBuf)>> = Mutex::new(BTreeSet::new());
    let first = CLEARED
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert((kind.to_string(), base.to_path_buf()));
    if first {
        clear_dead_runs(kind, base);
    }
    use std::os::unix::fs::PermissionsExt;
    // Made and listed under the list's lock, for the same reason.
    let mut live = live();
    let path = tempfile::Builder::new()
        .prefix(&format!("arbiter-{kind}-{}-", std::process::id()))
        .permissions(std::fs::Permissions::from_mode(0o700))
        .tempdir_in(base)?
        .keep();
    live.insert(path.clone());
    Ok(PrivateFolder { path })
}

/// Removes the folders of `kind` in `base` whose run is gone: named with the pid of a
/// process that no longer exists, and owned by this process's user (another user's, if
/// any, are theirs to remove).
fn clear_dead_runs(kind: &str, base: &Path) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    let prefix = format!("arbiter-{kind}-");
    let me = rustix::process::geteuid().as_raw();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix(&prefix)
            .and_then(|rest| rest.split_once('-'))
            .and_then(|(pid, _)| pid.parse::<u32>().ok())
        else {
            continue;
        };
        if !run_is_gone(pid) {
            continue;
        }
        // Not followed if it is a link: only a real folder of this user's is removed.
        let Ok(meta) = std::fs::symlink_metadata(entry.path()) else {
            continue;
        };
        if meta.is_dir() && meta.uid() == me {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_removed_by_its_drop_and_by_an_exit_at_once_is_gone() {
        let base = tempfile::tempdir().unwrap();
        for _ in 0..20 {
            let folder = private_folder("race", base.path()).unwrap();
            let path = folder.path().to_path_buf();
            for i in 0..50 {
                let dir = path.join(format!("d{}", i % 5));
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(dir.join(format!("f{i}")), "x").unwrap();
            }
            // The game's end drops it while the run, on a signal, removes what it holds.
            let dropping = std::thread::spawn(move || drop(folder));
            remove_live();
            dropping.join().unwrap();
            assert!(!path.exists(), "{} is left", path.display());
            assert!(!live().contains(&path));
        }
    }

    #[test]
    fn folders_of_runs_that_are_gone_are_removed_and_the_rest_kept() {
        let base = tempfile::tempdir().unwrap();
        // A pid no process has: above the kernel's limit.
        let gone = base.path().join("arbiter-bot-4194305-abc123");
        std::fs::create_dir_all(gone.join("home/deep")).unwrap();
        std::fs::write(gone.join("home/deep/file"), "x").unwrap();
        let alive = base
            .path()
            .join(format!("arbiter-bot-{}-def456", std::process::id()));
        let parent = base.path().join("arbiter-bot-1-ghi789");
        let other_kind = base.path().join("arbiter-build-4194305-jkl012");
        let unnamed = base.path().join("arbiter-bot-mno345");
        let link = base.path().join("arbiter-bot-4194306-link");
        for dir in [&alive, &parent, &other_kind, &unnamed] {
            std::fs::create_dir(dir).unwrap();
        }
        std::os::unix::fs::symlink(&alive, &link).unwrap();
        clear_dead_runs("bot", base.path());
        assert!(!gone.exists(), "a gone run's folder stays");
        for kept in [&alive, &parent, &other_kind, &unnamed] {
            assert!(kept.exists(), "{} was removed", kept.display());
        }
        assert!(link.symlink_metadata().is_ok() && alive.exists());
    }

    #[test]
    fn a_private_folder_is_named_after_its_run_and_closed_to_others() {
        let base = tempfile::tempdir().unwrap();
        let folder = private_folder("test", base.path()).unwrap();
        let name = folder.path().file_name().unwrap().to_string_lossy();
        assert!(
            name.starts_with(&format!("arbiter-test-{}-", std::process::id())),
            "{name}"
        );
        let mode = std::fs::metadata(folder.path()).unwrap().mode() & 0o777;
        assert_eq!(mode, 0o700);
        let path = folder.path().to_path_buf();
        assert!(live().contains(&path));
        drop(folder);
        assert!(!path.exists() && !live().contains(&path));
    }
}
