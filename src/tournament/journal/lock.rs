//! One run at a time in a folder: a POSIX record lock on its `games.lock`, which the kernel
//! drops when the run ends or is killed, and a set of the folders this process holds.

use super::LOCK_FILE;
use crate::error::Error;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

/// Takes the folder's run lock, or says at once who holds it.
/// A run's hold on its folder: the record lock on `games.lock`, and the folder's place in
/// this process's own list (a record lock does not exclude its own process).
pub(super) struct FolderLock {
    _file: File,
    key: PathBuf,
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        locked_here().remove(&self.key);
    }
}

pub(super) fn locked_here() -> std::sync::MutexGuard<'static, std::collections::HashSet<PathBuf>> {
    static LOCKED: std::sync::OnceLock<std::sync::Mutex<std::collections::HashSet<PathBuf>>> =
        std::sync::OnceLock::new();
    LOCKED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

pub(super) fn lock_folder(dir: &Path) -> Result<FolderLock, Error> {
    let path = dir.join(LOCK_FILE);
    let busy = || {
        Error::usage(format!(
            "another arbiter run is using {} (it holds the lock on {}): wait for it to end, \
             or use another output folder",
            dir.display(),
            path.display()
        ))
    };
    let key = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mut here = locked_here();
    // Checked before the file is opened: closing any descriptor of a file drops this
    // process's record locks on it, so a refused second open must not touch it.
    if here.contains(&key) {
        return Err(busy());
    }
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
    match lock_whole_file(&file) {
        Ok(()) => {
            here.insert(key.clone());
            Ok(FolderLock { _file: file, key })
        }
        Err(e) if matches!(e.raw_os_error(), Some(libc::EAGAIN | libc::EACCES)) => Err(busy()),
        Err(source) => Err(Error::Io { path, source }),
    }
}

/// Takes a POSIX record lock (`fcntl(F_SETLK)`) on the whole file, without waiting.
///
/// Not `flock`: a flock belongs to the open file, which a bot being started shares until it
/// execs, so an arbiter killed at that moment would leave its lock to the bot for a while. A
/// record lock belongs to this process alone and goes when it ends.
pub(super) fn lock_whole_file(file: &File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: an all-zero `flock` is valid (every field is an integer); the ones that
    // matter are set below.
    let mut range: libc::flock = unsafe { std::mem::zeroed() };
    range.l_type = libc::F_WRLCK as libc::c_short;
    range.l_whence = libc::SEEK_SET as libc::c_short;
    range.l_start = 0;
    range.l_len = 0; // to the end, however long
    // SAFETY: the descriptor is open for the call, and `range` outlives it.
    if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLK, &range) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Whether a run holds `dir`'s lock (this process's or another's), found without taking
/// it: a reader such as the live page tells a running run from one that was killed.
pub(crate) fn held_by_a_run(dir: &Path) -> bool {
    use std::os::fd::AsRawFd;
    let key = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    if locked_here().contains(&key) {
        return true;
    }
    // This process holds no lock on the file: closing this descriptor drops none.
    let Ok(file) = File::open(dir.join(LOCK_FILE)) else {
        return false;
    };
    // SAFETY: an all-zero `flock` is valid (every field is an integer).
    let mut range: libc::flock = unsafe { std::mem::zeroed() };
    range.l_type = libc::F_WRLCK as libc::c_short;
    range.l_whence = libc::SEEK_SET as libc::c_short;
    // SAFETY: the descriptor is open for the call, and `range` outlives it.
    let asked = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETLK, &mut range) };
    asked == 0 && range.l_type != libc::F_UNLCK as libc::c_short
}
