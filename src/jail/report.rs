//! The jail's report: the one word the referee gets from `arbiter confine` that a bot
//! cannot fake. The referee makes a FIFO in the jail's private folder, where no bot
//! reaches, and names it in the helper's environment; the helper opens its write end
//! first thing, close-on-exec; every step of the jail that fails writes why into it; the
//! `exec` of the bot's program closes it. Read to its end, it says that the program
//! started, or why the jail (not the bot) failed: a bot's own exit status or stderr,
//! which it controls, could only claim so.
//!
//! A FIFO named in the environment rather than a pipe handed down: then no code of the
//! referee's has to run between the helper's `fork` and its `exec`, so the helper is
//! started by `posix_spawn`, a `vfork`. A `fork` copied the referee's memory map and made
//! its other threads fault on every page they wrote until the helper's `exec`: a game's
//! second bot took 2 ms to start beside the first.

use std::ffi::OsStr;
use std::os::fd::{BorrowedFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

/// Names the report's FIFO in `arbiter confine`'s environment.
pub(crate) const VAR: &str = "ARBITER_JAIL_REPORT";

/// The FIFO's name in the jail's private folder.
const NAME: &str = "jail.report";

/// The report's descriptor in this process, or -1.
static REPORT: AtomicI32 = AtomicI32::new(-1);

/// Opens the report named in the environment, close-on-exec, and takes its name out of the
/// environment the bot inherits. Anything but a FIFO that the referee reads is left alone.
///
/// # Safety
/// Only while this process is single-threaded (it changes the environment).
pub(crate) unsafe fn take() {
    use rustix::fs::{FileType, Mode, OFlags};
    let Some(path) = std::env::var_os(VAR) else {
        return;
    };
    // SAFETY: the caller promises a single thread.
    unsafe { std::env::remove_var(VAR) };
    // Without a reader the open fails (ENXIO) rather than waiting for one; a link is not
    // followed.
    let flags = OFlags::WRONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let Ok(fd) = rustix::fs::open(Path::new(&path), flags, Mode::empty()) else {
        return;
    };
    let is_fifo = rustix::fs::fstat(&fd)
        .is_ok_and(|st| FileType::from_raw_mode(st.st_mode) == FileType::Fifo);
    if is_fifo {
        REPORT.store(std::os::fd::IntoRawFd::into_raw_fd(fd), Ordering::SeqCst);
    }
}

/// Says why the jail failed on the report, if there is one.
pub(crate) fn say(why: &str) {
    let fd = REPORT.load(Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: the descriptor stays open until `let_go`, in this process.
        let pipe = unsafe { BorrowedFd::borrow_raw(fd) };
        let mut rest = why.as_bytes();
        while let Ok(n) = rustix::io::write(pipe, rest) {
            if n == 0 || n == rest.len() {
                break;
            }
            rest = &rest[n..];
        }
    }
}

/// Closes this process's end of the report: one that only waits for another (the helper
/// for the namespace's init, the init for the bot) must not hold it open, or the referee
/// would wait for its end as well.
pub(super) fn let_go() {
    let fd = REPORT.swap(-1, Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: our own descriptor, closed once.
        unsafe { libc::close(fd) };
    }
}

/// What a program that builds jails says when the description is of another build
/// (`super::helper`): the words [`JailRefused::said`] knows it by.
pub(crate) const OTHER_BUILD: &str = "the program that builds jails is of another build";

/// Why a jail was not built, in the words of the program that builds it, read once where
/// they cross from that program to arbiter: callers decide by the variant.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JailRefused {
    /// The program beside arbiter is of another build and read none of this build's
    /// description ([`OTHER_BUILD`]): arbiter builds the jail itself.
    #[error("{0}")]
    OtherBuild(String),
    /// A step of the jail failed, or the program ended without saying why.
    #[error("{0}")]
    Failed(String),
}

impl JailRefused {
    /// What a program that builds jails said, by what it means.
    pub(crate) fn said(text: String) -> JailRefused {
        if text.starts_with(OTHER_BUILD) {
            JailRefused::OtherBuild(text)
        } else {
            JailRefused::Failed(text)
        }
    }
}

/// The referee's end of a jail's report.
pub struct JailReport {
    read: OwnedFd,
    path: PathBuf,
}

/// How long the referee waits for a jail to be built: far beyond the milliseconds it
/// takes, and after it the bot's handshake limit decides.
const JAIL_BUILT_WITHIN: Duration = Duration::from_secs(10);

impl JailReport {
    /// A new report in `folder`, the jail's private folder, opened for reading.
    pub(super) fn new(folder: &Path) -> std::io::Result<JailReport> {
        use rustix::fs::{Mode, OFlags};
        let path = folder.join(NAME);
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &path,
            rustix::fs::FileType::Fifo,
            Mode::RUSR | Mode::WUSR,
            0,
        )?;
        let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let read = rustix::fs::open(&path, flags, Mode::empty())?;
        Ok(JailReport { read, path })
    }

    /// What the helper is told in its environment ([`VAR`]).
    pub(super) fn name(&self) -> &OsStr {
        self.path.as_os_str()
    }

    /// Once the helper started: `Ok` when the bot's program started in its jail (the
    /// report was opened and closed without a word), else why the jail failed, as the
    /// helper said it. `helper` (a pidfd) ends the wait when the helper is gone without
    /// ever opening the report.
    pub fn word(self, helper: Option<BorrowedFd<'_>>) -> Result<(), JailRefused> {
        use rustix::event::{PollFd, PollFlags, poll};
        let deadline = Instant::now() + JAIL_BUILT_WITHIN;
        let mut said = Vec::new();
        let mut buf = [0u8; 1024];
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(());
            }
            // A FIFO's reader is told of a hang-up only once a writer came and went: until
            // the helper opens it, the wait goes on (or ends with the helper).
            let mut fds = vec![PollFd::new(&self.read, PollFlags::IN)];
            if let Some(helper) = &helper {
                fds.push(PollFd::new(helper, PollFlags::IN));
            }
            let timeout = rustix::event::Timespec::try_from(left).ok();
            match poll(&mut fds, timeout.as_ref()) {
                Ok(0) | Err(rustix::io::Errno::INTR) => continue,
                Ok(_) => {}
                Err(_) => return Ok(()),
            }
            if fds[0].revents().is_empty() {
                // The helper ended with the report still open elsewhere (what it said
                // stands), or without ever opening it (its closing would have hung the
                // report up before its exit was told).
                if !said.is_empty() {
                    break;
                }
                return Err(JailRefused::Failed(
                    "the jail's helper ended before it opened its report (see the bot's stderr)"
                        .to_string(),
                ));
            }
            match rustix::io::read(&self.read, &mut buf) {
                Ok(0) => break,
                Ok(n) if said.len() < 4096 => said.extend_from_slice(&buf[..n]),
                Ok(_) | Err(rustix::io::Errno::INTR) | Err(rustix::io::Errno::AGAIN) => {}
                Err(_) => break,
            }
        }
        match said.is_empty() {
            true => Ok(()),
            false => Err(JailRefused::said(
                String::from_utf8_lossy(&said).trim().to_string(),
            )),
        }
    }
}

impl Drop for JailReport {
    fn drop(&mut self) {
        // Its folder goes with the jail; the FIFO goes now, so that nothing opens it later.
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;
    use std::process::Command;
    use std::time::Instant;

    /// Runs `script` (sh) with the report named as the helper gets it, and reads the word.
    fn word_after(script: &str) -> (Result<(), String>, Duration) {
        let dir = tempfile::tempdir().unwrap();
        let report = JailReport::new(dir.path()).unwrap();
        let child = Command::new("sh")
            .args(["-c", script])
            .env(VAR, report.name())
            .spawn()
            .unwrap();
        let pid = rustix::process::Pid::from_child(&child);
        let pidfd = rustix::process::pidfd_open(pid, rustix::process::PidfdFlags::empty()).unwrap();
        let started = Instant::now();
        let word = report.word(Some(pidfd.as_fd()));
        let took = started.elapsed();
        let _ = child.wait_with_output();
        assert!(
            std::fs::read_dir(dir.path()).unwrap().next().is_none(),
            "the FIFO is removed with its report"
        );
        (word.map_err(|e| e.to_string()), took)
    }

    #[test]
    fn a_report_opened_and_closed_without_a_word_says_the_program_started() {
        let (word, _) = word_after(r#"exec 3>"$ARBITER_JAIL_REPORT"; sleep 0.2; exec 3>&-"#);
        assert_eq!(word, Ok(()));
    }

    #[test]
    fn what_a_failed_step_writes_is_the_word() {
        let (word, _) = word_after(r#"printf 'mount a tmpfs: EPERM' > "$ARBITER_JAIL_REPORT""#);
        assert_eq!(word, Err("mount a tmpfs: EPERM".to_string()));
    }

    /// What a step said stands when the helper ends while something it started still
    /// holds the report open: not read as a helper that never opened it.
    #[test]
    fn what_was_said_stands_when_the_helper_ends_with_the_report_held_elsewhere() {
        let (word, _) = word_after(
            r#"(exec 3>"$ARBITER_JAIL_REPORT"; printf 'a step failed' >&3; sleep 1) >/dev/null 2>&1 & sleep 0.2"#,
        );
        assert_eq!(word, Err("a step failed".to_string()));
    }

    /// A helper that is gone without ever opening its report (it could not read its jail,
    /// or it is another program) is a failed start, told as soon as it ends: not a wait
    /// for the jail's whole allowance.
    #[test]
    fn a_helper_gone_without_opening_its_report_is_a_failed_start_at_once() {
        let (word, took) = word_after("exit 125");
        let why = word.expect_err("a failed start");
        assert!(why.contains("before it opened its report"), "{why}");
        assert!(took < Duration::from_secs(5), "waited {took:?}");
    }

    /// The helper's side takes only a FIFO the referee reads, never a link or a plain
    /// file put there, and the name never reaches what it starts.
    #[test]
    fn the_helper_takes_its_fifo_and_nothing_planted_in_its_place() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("plain");
        std::fs::write(&plain, "").unwrap();
        let report = JailReport::new(dir.path()).unwrap();
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&report.path, &link).unwrap();
        for planted in [&plain, &link] {
            // SAFETY: each test is its own process under nextest, and this one starts no
            // thread.
            unsafe {
                std::env::set_var(VAR, planted);
                take();
            }
            assert_eq!(REPORT.load(Ordering::SeqCst), -1, "{}", planted.display());
            assert!(std::env::var_os(VAR).is_none());
        }
        unsafe {
            std::env::set_var(VAR, report.name());
            take();
        }
        assert!(REPORT.load(Ordering::SeqCst) >= 0);
        assert!(std::env::var_os(VAR).is_none());
        say("a step failed");
        let_go();
        drop(link);
        assert_eq!(
            report.word(None),
            Err(JailRefused::Failed("a step failed".to_string()))
        );
    }

    #[test]
    fn a_refusal_from_another_builds_program_is_told_by_its_variant() {
        let other = format!("{OTHER_BUILD} (`arbiter build 1`, the description `arbiter build 2`)");
        assert_eq!(
            JailRefused::said(other.clone()),
            JailRefused::OtherBuild(other.clone())
        );
        assert_eq!(JailRefused::said(other.clone()).to_string(), other);
        let step = "mount: Operation not permitted".to_string();
        assert_eq!(JailRefused::said(step.clone()), JailRefused::Failed(step));
    }
}
