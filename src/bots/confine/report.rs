//! The jail's report pipe: the one word the referee gets from `arbiter confine` that a bot
//! cannot fake. The referee makes the pipe and hands its write end to the helper, named
//! in the helper's environment; every step of the jail that fails writes why into it; the
//! `exec` of the bot's program closes it. Read to its end, it says that the program
//! started, or why the jail (not the bot) failed: a bot's own exit status or stderr,
//! which it controls, could only claim so.

use std::os::fd::{AsRawFd, BorrowedFd, OwnedFd};
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::{Duration, Instant};

/// Names the report pipe's descriptor in `arbiter confine`'s environment.
pub const VAR: &str = "ARBITER_JAIL_REPORT_FD";

/// The report pipe's descriptor in this process, or -1.
static REPORT: AtomicI32 = AtomicI32::new(-1);

/// Takes the report pipe named in the environment, and its name out of the environment
/// the bot inherits; marked close-on-exec. A descriptor that is not a pipe is left alone.
///
/// # Safety
/// Only while this process is single-threaded (it changes the environment).
pub unsafe fn take() {
    let Some(fd) = std::env::var(VAR).ok().and_then(|v| v.parse::<i32>().ok()) else {
        return;
    };
    // SAFETY: the caller promises a single thread.
    unsafe { std::env::remove_var(VAR) };
    if fd < 0 {
        return;
    }
    // SAFETY: only inspected and flagged here; an fd that is not open fails fstat.
    let borrowed = unsafe { BorrowedFd::borrow_raw(fd) };
    let is_pipe = rustix::fs::fstat(borrowed).is_ok_and(|st| {
        rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::Fifo
    });
    if is_pipe && rustix::io::fcntl_setfd(borrowed, rustix::io::FdFlags::CLOEXEC).is_ok() {
        REPORT.store(fd, Ordering::SeqCst);
    }
}

/// Says why the jail failed on the report pipe, if there is one.
pub fn say(why: &str) {
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

/// Closes this process's end of the report pipe: one that only waits for another (the
/// helper for the namespace's init, the init for the bot) must not hold it open, or the
/// referee would wait for its end as well.
pub(super) fn let_go() {
    let fd = REPORT.swap(-1, Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: our own descriptor, closed once.
        unsafe { libc::close(fd) };
    }
}

/// The referee's end of a jail's report pipe, and the end the helper inherits until the
/// helper is started.
pub struct JailReport {
    read: OwnedFd,
    write: Option<OwnedFd>,
}

/// How long the referee waits for a jail to be built: far beyond the milliseconds it
/// takes, and after it the bot's handshake limit decides.
const JAIL_BUILT_WITHIN: Duration = Duration::from_secs(10);

impl JailReport {
    pub(super) fn new() -> std::io::Result<JailReport> {
        use rustix::pipe::{PipeFlags, pipe_with};
        let (read, write) = pipe_with(PipeFlags::CLOEXEC)?;
        // Above the standard descriptors, which the spawn sets up before it is moved.
        let write = match write.as_raw_fd() {
            0..=2 => rustix::io::fcntl_dupfd_cloexec(&write, 3)?,
            _ => write,
        };
        Ok(JailReport {
            read,
            write: Some(write),
        })
    }

    /// The helper's end, until the helper is started.
    pub(super) fn write_fd(&self) -> Option<i32> {
        self.write.as_ref().map(|w| w.as_raw_fd())
    }

    /// Once the helper started: `Ok` when the bot's program started in its jail (the
    /// pipe closed without a word), else why the jail failed, as the helper said it.
    pub fn word(mut self) -> Result<(), String> {
        use rustix::event::{PollFd, PollFlags, poll};
        self.write = None;
        let deadline = Instant::now() + JAIL_BUILT_WITHIN;
        let mut said = Vec::new();
        let mut buf = [0u8; 1024];
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(());
            }
            let mut fds = [PollFd::new(&self.read, PollFlags::IN)];
            let timeout = rustix::event::Timespec::try_from(left).ok();
            match poll(&mut fds, timeout.as_ref()) {
                Ok(0) | Err(rustix::io::Errno::INTR) => continue,
                Ok(_) => {}
                Err(_) => return Ok(()),
            }
            match rustix::io::read(&self.read, &mut buf) {
                Ok(0) => break,
                Ok(n) if said.len() < 4096 => said.extend_from_slice(&buf[..n]),
                Ok(_) | Err(rustix::io::Errno::INTR) => {}
                Err(_) => break,
            }
        }
        match said.is_empty() {
            true => Ok(()),
            false => Err(String::from_utf8_lossy(&said).trim().to_string()),
        }
    }
}

/// In the child, before `exec`: the report pipe's end kept open across it, at the number
/// the helper is told (moving it could close a descriptor the spawn itself relies on).
pub(super) fn pass_on(fd: i32) -> std::io::Result<()> {
    // SAFETY: a plain system call on a descriptor of this child.
    if unsafe { libc::fcntl(fd, libc::F_SETFD, 0) } == -1 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}
