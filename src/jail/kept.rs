//! What the confinement's trials found, kept for the runs that follow on this boot: a
//! one-game `arbiter play` otherwise spends about 4 ms of its start on the jail trials and
//! half a millisecond on the cgroup probe.
//!
//! Two findings are kept, each only when it is the best one: that a jail with namespaces
//! works (level 1), and that processes can be born in bots' cgroups under arbiter's own
//! ([`Finding::born_into_cgroups`]). A kept finding can therefore never lower a bot's
//! confinement, whoever wrote it: at worst it claims what the machine no longer gives.
//! A jail that then fails to build says so through its report, and the run forgets
//! the finding, runs the trials and starts the bot again at the level they find
//! ([`super::recheck`]); a bot whose jail could not be born in its cgroup is found outside
//! it as it starts, is swept as a bot without one, and the finding is forgotten.
//!
//! A finding holds for one boot, one user, one arbiter program and one set of the
//! settings that decide whether namespaces are allowed (and, for cgroups, arbiter's own
//! cgroup and who may write to it): a change to any of them (a rebuilt arbiter, a sysctl
//! turning user namespaces off, another container, another cgroup) and the trials run
//! again.

use crate::untrusted::file::ReadBack;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

/// The folder the finding lives in: `arbiter-confinement-UID` in the system's temporary
/// folder (cleared at boot on most systems), made if missing and used only if it is ours
/// alone.
fn folder() -> Option<PathBuf> {
    crate::untrusted::file::kept_dir("arbiter-confinement")
}

/// One finding: its file in the folder, its word, and what it depends on beyond what every
/// finding does.
pub(super) struct Finding {
    file: &'static str,
    word: &'static str,
    depends_on: String,
}

impl Finding {
    /// That jails with namespaces work.
    pub(super) fn namespaces() -> Finding {
        Finding {
            file: "found",
            word: "namespaces",
            depends_on: String::new(),
        }
    }

    /// That processes can be born in bots' cgroups made in `parent`, arbiter's own cgroup:
    /// it depends on where that is and on who may write to it and to its `cgroup.procs`.
    pub(super) fn born_into_cgroups(parent: &Path) -> Finding {
        use std::os::unix::fs::MetadataExt;
        let mut depends_on = String::new();
        for path in [parent.to_path_buf(), parent.join("cgroup.procs")] {
            let stat = match std::fs::metadata(&path) {
                Ok(m) => format!(
                    "{}:{} {}:{} {:o}",
                    m.dev(),
                    m.ino(),
                    m.uid(),
                    m.gid(),
                    m.mode()
                ),
                Err(_) => "-".into(),
            };
            depends_on.push_str(&format!("cgroup {} {stat}\n", path.display()));
        }
        Finding {
            file: "cgroups",
            word: "born-into-cgroups",
            depends_on,
        }
    }

    /// Whether this finding was kept earlier on this boot, for this user, program and
    /// settings.
    pub(super) fn recall(&self, helper: &Path) -> bool {
        folder().is_some_and(|dir| self.recall_in(&dir, helper))
    }

    /// Where the finding is kept, when one is kept that holds now.
    pub(super) fn kept_at(&self, helper: &Path) -> Option<PathBuf> {
        let dir = folder()?;
        self.recall_in(&dir, helper).then(|| dir.join(self.file))
    }

    /// Keeps the finding for the runs that follow.
    pub(super) fn keep(&self, helper: &Path) {
        if let Some(dir) = folder() {
            self.keep_in(&dir, helper);
        }
    }

    /// Forgets the finding: the next run runs the trials.
    pub(super) fn forget(&self) {
        if let Some(dir) = folder() {
            let _ = std::fs::remove_file(dir.join(self.file));
        }
    }

    fn recall_in(&self, dir: &Path, helper: &Path) -> bool {
        let Some(text) = self.text(helper) else {
            return false;
        };
        // A FIFO, a link or a huge file planted there is no finding.
        match crate::untrusted::file::read_beneath(dir, Path::new(self.file), 256) {
            ReadBack::Bytes(bytes) => bytes == text.as_bytes(),
            _ => false,
        }
    }

    fn keep_in(&self, dir: &Path, helper: &Path) {
        if let Some(text) = self.text(helper) {
            let _ = crate::untrusted::file::write_whole(dir, self.file, text.as_bytes());
        }
    }

    /// The file's whole text: the word and the key.
    fn text(&self, helper: &Path) -> Option<String> {
        Some(format!(
            "{} {}\n",
            self.word,
            key(helper, &self.depends_on)?
        ))
    }
}

/// What a finding depends on, hashed: the boot, the user, the program that builds jails,
/// this process's namespaces, filters and capabilities, the settings that allow or refuse
/// user namespaces, and what this finding depends on of its own (`more`, lines).
fn key(helper: &Path, more: &str) -> Option<String> {
    let mut text = settings(helper)?;
    text.push_str(more);
    let digest = Sha256::digest(text.as_bytes());
    Some(digest.iter().map(|b| format!("{b:02x}")).collect())
}

/// What every finding depends on, as text: read once a run for the program that builds
/// jails (a run recalls both findings as it seats its first bot).
fn settings(helper: &Path) -> Option<String> {
    static READ: std::sync::Mutex<Option<(PathBuf, String)>> = std::sync::Mutex::new(None);
    let mut read = READ.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((program, text)) = read.as_ref()
        && program == helper
    {
        return Some(text.clone());
    }
    let text = settings_now(helper)?;
    *read = Some((helper.to_path_buf(), text.clone()));
    Some(text)
}

fn settings_now(helper: &Path) -> Option<String> {
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
    Some(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_finding_is_recalled_for_the_same_helper_and_not_for_another() {
        let dir = tempfile::tempdir().unwrap();
        let helper = std::env::current_exe().unwrap();
        let other = tempfile::NamedTempFile::new().unwrap();
        let found = Finding::namespaces();
        assert!(!found.recall_in(dir.path(), &helper), "nothing kept yet");
        found.keep_in(dir.path(), &helper);
        assert!(found.recall_in(dir.path(), &helper));
        assert!(
            !found.recall_in(dir.path(), other.path()),
            "a finding about another program"
        );
    }

    #[test]
    fn a_planted_link_or_fifo_or_other_text_is_no_finding() {
        let dir = tempfile::tempdir().unwrap();
        let helper = std::env::current_exe().unwrap();
        let found = Finding::namespaces();
        let elsewhere = dir.path().join("elsewhere");
        std::fs::write(&elsewhere, found.text(&helper).unwrap()).unwrap();
        std::os::unix::fs::symlink(&elsewhere, dir.path().join(found.file)).unwrap();
        assert!(
            !found.recall_in(dir.path(), &helper),
            "a link is not followed"
        );
        std::fs::remove_file(dir.path().join(found.file)).unwrap();
        rustix::fs::mknodat(
            rustix::fs::CWD,
            dir.path().join(found.file),
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        // Read without blocking: a FIFO with no writer would hang a plain read.
        assert!(
            !found.recall_in(dir.path(), &helper),
            "a FIFO is no finding"
        );
        std::fs::remove_file(dir.path().join(found.file)).unwrap();
        std::fs::write(dir.path().join(found.file), "namespaces 0123\n").unwrap();
        assert!(
            !found.recall_in(dir.path(), &helper),
            "a finding of another key"
        );
    }

    #[test]
    fn the_key_changes_with_the_helper_program() {
        let helper = std::env::current_exe().unwrap();
        let other = tempfile::NamedTempFile::new().unwrap();
        assert_eq!(key(&helper, ""), key(&helper, ""));
        assert_ne!(key(&helper, ""), key(other.path(), ""));
        assert_eq!(key(Path::new("/no/such/arbiter"), ""), None);
    }

    /// The cgroup finding is its own: keeping or forgetting it leaves the jail's alone, and
    /// it holds only for the cgroup it was found in, as it is now: another folder, or the
    /// same one given to another owner, is not what was probed.
    #[test]
    fn the_cgroup_finding_holds_for_its_own_cgroup_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let helper = std::env::current_exe().unwrap();
        let parent = dir.path().join("cgroup");
        std::fs::create_dir(&parent).unwrap();
        std::fs::write(parent.join("cgroup.procs"), "").unwrap();
        let other = dir.path().join("other");
        std::fs::create_dir(&other).unwrap();
        let jail = Finding::namespaces();
        jail.keep_in(dir.path(), &helper);
        let cgroups = Finding::born_into_cgroups(&parent);
        assert!(!cgroups.recall_in(dir.path(), &helper), "nothing kept yet");
        cgroups.keep_in(dir.path(), &helper);
        assert!(Finding::born_into_cgroups(&parent).recall_in(dir.path(), &helper));
        assert!(
            jail.recall_in(dir.path(), &helper),
            "the jail's finding stays"
        );
        assert!(
            !Finding::born_into_cgroups(&other).recall_in(dir.path(), &helper),
            "another cgroup"
        );
        std::fs::set_permissions(
            parent.join("cgroup.procs"),
            std::os::unix::fs::PermissionsExt::from_mode(0o600),
        )
        .unwrap();
        assert!(
            !Finding::born_into_cgroups(&parent).recall_in(dir.path(), &helper),
            "its cgroup.procs got another mode"
        );
        // One finding's file put in the other's place stands for nothing.
        std::fs::copy(dir.path().join("cgroups"), dir.path().join("found")).unwrap();
        assert!(
            !jail.recall_in(dir.path(), &helper),
            "the cgroup finding taken for the jail's"
        );
    }
}
