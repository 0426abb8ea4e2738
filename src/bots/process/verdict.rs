//! Why a bot that is gone failed: its exit status and last stderr lines as a `crash`, or
//! the resource limit it broke; an `error` message as an `exception` (or the limit its
//! text names).

use super::ERROR_MESSAGE_BYTES;
use super::spawn::Running;
use crate::bots::protocol::{FromBot, truncate_front};
use crate::bots::{Failure, FailureKind};
use crate::jail::caps;
use crate::jail::procfs;
use rustix::process::WaitIdStatus;
use std::time::Duration;

/// Lines in a bot's stderr or error message that tell of an allocation failure: Python,
/// C++, Rust, C (`strerror(ENOMEM)`), Java, Go.
const MEMORY_MARKERS: &[&str] = &[
    "MemoryError",
    "std::bad_alloc",
    "memory allocation of",
    "Cannot allocate memory",
    "OutOfMemoryError",
    "out of memory",
];

/// Lines that tell of a write past the file-size limit where the bot survived SIGXFSZ
/// (Python and the JVM ignore it, so the write fails with EFBIG): `strerror(EFBIG)`, as
/// in Python's `OSError: [Errno 27] File too large`, and the errno's name.
const FILE_SIZE_MARKERS: &[&str] = &["File too large", "EFBIG"];

impl Running {
    pub(super) fn stderr_text(&self, limit: Duration) -> String {
        self.stderr.text_at_end(limit)
    }

    /// Why the bot is gone: what was seen, its exit status and its last stderr lines, as
    /// a crash, or as the limit it broke when that can be told.
    pub(super) fn gone(&self, what: &str) -> Failure {
        let status = self.wait_exit(Duration::from_millis(500));
        let described = match &status {
            Some(status) => describe_exit(status),
            None => "still running".to_string(),
        };
        let mut detail = format!("{what} ({described})");
        let stderr = self.stderr_text(Duration::from_millis(200));
        let tail = last_lines(&stderr, 12, 2000);
        if !tail.is_empty() {
            detail.push_str("; stderr tail:\n");
            detail.push_str(&tail);
        }
        let kind = self.limit_broken(status.as_ref(), &tail);
        let note = match kind {
            // The jail's helper stopped the bot at its disk cap, and said so last.
            FailureKind::FileSize if tail.contains(caps::DISK_CAP_MARK) => {
                Some("disk cap exceeded".to_string())
            }
            _ => self.limit_note(kind),
        };
        if let Some(note) = note.or_else(|| self.task_note(&tail)) {
            detail = format!("{note}: {detail}");
        }
        Failure::new(kind, detail)
    }

    /// Which limit killed the bot, if one did: SIGXCPU or a SIGKILL we did not send after
    /// the CPU limit was used up is `cpu`; SIGXFSZ is `file_size`; an allocation failure
    /// in its last stderr lines under a memory limit is `memory`. Anything else: `crash`.
    pub(super) fn limit_broken(
        &self,
        status: Option<&WaitIdStatus>,
        stderr_tail: &str,
    ) -> FailureKind {
        let signal = status.and_then(|s| s.terminating_signal());
        if signal == Some(rustix::process::Signal::XCPU.as_raw()) {
            return FailureKind::Cpu;
        }
        if signal == Some(rustix::process::Signal::XFSZ.as_raw()) {
            return FailureKind::FileSize;
        }
        if signal == Some(9)
            && !self.killed
            && let Some(limit) = self.limits.cpu_s
            && self
                .cpu_used()
                .is_some_and(|used| used + 0.05 >= limit as f64)
        {
            return FailureKind::Cpu;
        }
        self.limit_named(stderr_tail).unwrap_or(FailureKind::Crash)
    }

    /// The CPU seconds the bot used: the group leader's own, or, for a jailed bot, what
    /// the jail's helper (the leader) reaped from its init and so from the bot.
    fn cpu_used(&self) -> Option<f64> {
        let leader = self.pgid.as_raw_nonzero().get();
        match self.jail {
            Some(_) => procfs::cpu_seconds_with_children(leader),
            None => procfs::cpu_seconds(leader),
        }
    }

    /// The limit a bot's own words (its last stderr lines, its error message) say it ran
    /// into, among the limits it has.
    fn limit_named(&self, text: &str) -> Option<FailureKind> {
        let named = |markers: &[&str]| markers.iter().any(|m| text.contains(m));
        // A JVM that cannot make a thread says so with an OutOfMemoryError: that is the
        // process cap (see `task_note`), not memory.
        if self.limits.memory_mb.is_some()
            && named(MEMORY_MARKERS)
            && self.task_note(text).is_none()
        {
            return Some(FailureKind::Memory);
        }
        if self.limits.file_mb.is_some() && named(FILE_SIZE_MARKERS) {
            return Some(FailureKind::FileSize);
        }
        None
    }

    /// A note for a bot whose words say it could not make a process or thread while it
    /// has a cap on them: its failure keeps its kind (a crash, an exception).
    fn task_note(&self, text: &str) -> Option<String> {
        let cap = self.limits.procs?;
        caps::TASK_MARKERS
            .iter()
            .any(|m| text.contains(m))
            .then(|| format!("cap of {cap} processes and threads reached"))
    }

    pub(super) fn limit_note(&self, kind: FailureKind) -> Option<String> {
        let l = self.limits;
        match kind {
            FailureKind::Cpu => Some(format!("CPU limit of {} s used up", l.cpu_s?)),
            FailureKind::Memory => Some(format!("memory limit of {} MiB reached", l.memory_mb?)),
            FailureKind::FileSize => Some(match l.file_mb {
                Some(mb) => format!("file size limit of {mb} MiB exceeded"),
                None => "file size limit exceeded".to_string(),
            }),
            _ => None,
        }
    }

    /// An `error` message, as an exception or, when it names a limit the bot has (an
    /// allocation failure, a file too large), as breaking that limit.
    pub(super) fn exception(&self, message: &serde_json::Value) -> Failure {
        let mut failure = exception(message);
        if let Some(kind) = self.limit_named(&failure.detail) {
            failure.kind = kind;
            if let Some(note) = self.limit_note(kind) {
                failure.detail = format!("{note}: {}", failure.detail);
            }
        } else if let Some(note) = self.task_note(&failure.detail) {
            failure.detail = format!("{note}: {}", failure.detail);
        }
        failure
    }
}

pub(super) fn describe_exit(status: &WaitIdStatus) -> String {
    if let Some(code) = status.exit_status() {
        return format!("exit status {code}");
    }
    if let Some(signal) = status.terminating_signal() {
        let name = match signal {
            1 => " (SIGHUP)",
            2 => " (SIGINT)",
            4 => " (SIGILL)",
            6 => " (SIGABRT)",
            7 => " (SIGBUS)",
            8 => " (SIGFPE)",
            9 => " (SIGKILL)",
            11 => " (SIGSEGV)",
            13 => " (SIGPIPE)",
            15 => " (SIGTERM)",
            _ => "",
        };
        return format!("killed by signal {signal}{name}");
    }
    "exited".to_string()
}

/// The last `lines` lines of `text`, at most `max` bytes.
fn last_lines(text: &str, lines: usize, max: usize) -> String {
    let trimmed = text.trim_end();
    let start = trimmed
        .rmatch_indices('\n')
        .nth(lines.saturating_sub(1))
        .map_or(0, |(i, _)| i + 1);
    truncate_front(&trimmed[start..], max)
}

pub(super) fn exception(message: &serde_json::Value) -> Failure {
    let text = FromBot::error_text(message);
    let text = if text.trim().is_empty() {
        "the bot reported an error without a message".to_string()
    } else {
        truncate_front(&text, ERROR_MESSAGE_BYTES)
    };
    Failure::new(FailureKind::Exception, text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_lines_of_stderr() {
        assert_eq!(last_lines("a\nb\nc\nd\n", 2, 100), "c\nd");
        assert_eq!(last_lines("only", 5, 100), "only");
        assert_eq!(last_lines("", 5, 100), "");
    }
}
