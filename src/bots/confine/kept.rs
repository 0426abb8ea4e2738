//! What the jail trials found, kept for the runs that follow on this boot: a one-game
//! `arbiter play` otherwise spends about 4 ms of its start on them.
//!
//! Only the best finding is kept, that a jail with namespaces works (level 1). A kept
//! finding can therefore never lower a bot's confinement, whoever wrote it: at worst it
//! claims a level the machine no longer gives, the bot's jail then fails to build and says
//! so through its report pipe, and the run forgets the finding, runs the trials and starts
//! the bot again at the level they find ([`super::recheck`]).
//!
//! The finding holds for one boot, one user, one arbiter program and one set of the
//! settings that decide whether namespaces are allowed: a change to any of them (a
//! rebuilt arbiter, a sysctl turning user namespaces off, another container) and the
//! trials run again.

use crate::untrusted::file::ReadBack;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The folder the finding lives in: `arbiter-confinement-UID` in the system's temporary
/// folder (cleared at boot on most systems), made if missing and used only if it is ours
/// alone.
fn folder() -> Option<PathBuf> {
    crate::untrusted::file::kept_dir("arbiter-confinement")
}

/// The file of the finding, in its folder.
const FILE: &str = "found";

/// What the finding depends on, hashed: the boot, the user, the program that builds jails,
/// this process's namespaces, filters and capabilities, and the settings that allow or
/// refuse user namespaces.
fn key(helper: &Path) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let mut text = String::from("arbiter jail trials, format 1\n");
    let mut line = |name: &str, value: &str| {
        text.push_str(name);
        text.push('=');
        text.push_str(value.trim());
        text.push('\n');
    };
    let read = |path: &str| std::fs::read_to_string(path).unwrap_or_else(|_| "-".into());
    line("boot", &read("/proc/sys/kernel/random/boot_id"));
    let program = std::fs::metadata(helper).ok()?;
    line(
        "helper",
        &format!(
            "{} {}:{} {} {}.{}",
            helper.display(),
            program.dev(),
            program.ino(),
            program.size(),
            program.mtime(),
            program.mtime_nsec()
        ),
    );
    use rustix::process::{getegid, geteuid, getgid, getuid};
    line(
        "ids",
        &format!(
            "{} {} {} {}",
            getuid().as_raw(),
            geteuid().as_raw(),
            getgid().as_raw(),
            getegid().as_raw()
        ),
    );
    for ns in ["user", "mnt", "pid", "net", "ipc", "uts", "cgroup"] {
        let target = std::fs::read_link(format!("/proc/self/ns/{ns}"))
            .map(|t| t.display().to_string())
            .unwrap_or_else(|_| "-".into());
        line(ns, &target);
    }
    let status = read("/proc/self/status");
    for field in [
        "NoNewPrivs",
        "Seccomp",
        "Seccomp_filters",
        "CapEff",
        "CapBnd",
    ] {
        let value = status
            .lines()
            .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
            .unwrap_or("-");
        line(field, value);
    }
    for setting in [
        "/proc/sys/kernel/unprivileged_userns_clone",
        "/proc/sys/user/max_user_namespaces",
        "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
        "/proc/self/attr/current",
    ] {
        line(setting, &read(setting));
    }
    let digest = Sha256::digest(text.as_bytes());
    Some(digest.iter().map(|b| format!("{b:02x}")).collect())
}

/// Whether a finding kept earlier on this boot, for this user, program and settings, says
/// that jails with namespaces work.
pub(super) fn recall(helper: &Path) -> bool {
    folder().is_some_and(|dir| recall_in(&dir, helper))
}

/// Where the finding is kept, when one is kept that holds now.
pub(super) fn kept_at(helper: &Path) -> Option<PathBuf> {
    let dir = folder()?;
    recall_in(&dir, helper).then(|| dir.join(FILE))
}

/// Keeps the finding that jails with namespaces work.
pub(super) fn keep(helper: &Path) {
    if let Some(dir) = folder() {
        keep_in(&dir, helper);
    }
}

/// Forgets the finding: the next run runs the trials.
pub(super) fn forget() {
    if let Some(dir) = folder() {
        let _ = std::fs::remove_file(dir.join(FILE));
    }
}

fn recall_in(dir: &Path, helper: &Path) -> bool {
    let Some(key) = key(helper) else {
        return false;
    };
    // A FIFO, a link or a huge file planted there is no finding.
    match crate::untrusted::file::read_beneath(dir, Path::new(FILE), 256) {
        ReadBack::Bytes(bytes) => bytes == finding(&key).as_bytes(),
        _ => false,
    }
}

fn keep_in(dir: &Path, helper: &Path) {
    if let Some(key) = key(helper) {
        let _ = crate::untrusted::file::write_whole(dir, FILE, finding(&key).as_bytes());
    }
}

fn finding(key: &str) -> String {
    format!("namespaces {key}\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finding_is_recalled_for_the_same_helper_and_not_for_another() {
        let dir = tempfile::tempdir().unwrap();
        let helper = std::env::current_exe().unwrap();
        let other = tempfile::NamedTempFile::new().unwrap();
        assert!(!recall_in(dir.path(), &helper), "nothing kept yet");
        keep_in(dir.path(), &helper);
        assert!(recall_in(dir.path(), &helper));
        assert!(
            !recall_in(dir.path(), other.path()),
            "a finding about another program"
        );
    }

    #[test]
    fn a_planted_link_or_fifo_or_other_text_is_no_finding() {
        let dir = tempfile::tempdir().unwrap();
        let helper = std::env::current_exe().unwrap();
        let elsewhere = dir.path().join("elsewhere");
        std::fs::write(&elsewhere, finding(&key(&helper).unwrap())).unwrap();
        std::os::unix::fs::symlink(&elsewhere, dir.path().join(FILE)).unwrap();
        assert!(!recall_in(dir.path(), &helper), "a link is not followed");
        std::fs::remove_file(dir.path().join(FILE)).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            dir.path().join(FILE),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        // Read without blocking: a FIFO with no writer would hang a plain read.
        assert!(!recall_in(dir.path(), &helper), "a FIFO is no finding");
        std::fs::remove_file(dir.path().join(FILE)).unwrap();
        std::fs::write(dir.path().join(FILE), "namespaces 0123\n").unwrap();
        assert!(!recall_in(dir.path(), &helper), "a finding of another key");
    }

    #[test]
    fn the_key_changes_with_the_helper_program() {
        let helper = std::env::current_exe().unwrap();
        let other = tempfile::NamedTempFile::new().unwrap();
        assert_eq!(key(&helper), key(&helper));
        assert_ne!(key(&helper), key(other.path()));
        assert_eq!(key(Path::new("/no/such/arbiter")), None);
    }
}
