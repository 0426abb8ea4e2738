//! Running a program once to its end under a deadline, the way a solver is run: the same
//! spawn, confinement and shutdown as a protocol bot, but nothing on stdin and every line
//! of stdout collected. A program still running at the deadline is killed, with
//! everything it started (a JVM and its threads alike).

use super::read::{POLL, deadline_after};
use super::spawn::Running;
use crate::bots::pipe::Piece;
use crate::bots::spec::CommandSpec;
use crate::bots::{Failure, FailureKind};
use std::os::fd::AsFd;
use std::time::{Duration, Instant};

/// After the program exited, how long its last lines may take to come through the pipe
/// (a grandchild may hold it open).
const DRAIN: Duration = Duration::from_millis(150);

/// What one run gave.
#[derive(Debug)]
pub struct Collected {
    /// Every line of stdout, in order (an over-long line is replaced by a note).
    pub stdout: Vec<String>,
    /// The tail of stderr.
    pub stderr: String,
    /// From the start to the exit (or to the deadline).
    pub elapsed: Duration,
    /// `Ok` for exit status 0; else why not: `timeout` (killed at the deadline), a crash
    /// or a broken resource limit, with the exit status and stderr tail in the detail.
    pub result: Result<(), Failure>,
}

/// Runs `command` with its stdin closed until it exits or `limit` passes.
pub fn run_collect(command: &CommandSpec, limit: Duration) -> Collected {
    let started = Instant::now();
    let mut run = match Running::spawn(command) {
        Ok(run) => run,
        Err(failure) => {
            return Collected {
                stdout: Vec::new(),
                stderr: String::new(),
                elapsed: started.elapsed(),
                result: Err(failure),
            };
        }
    };
    // The writer drops the pipe: the program sees EOF on stdin at once.
    run.to_stdin = None;
    let deadline = deadline_after(started, limit);
    let mut stdout = Vec::new();
    let mut exited: Option<Instant> = None;
    let mut eof = false;
    let timed_out = loop {
        let now = Instant::now();
        if exited.is_none() && run.exit_status().is_some() {
            exited = Some(now);
        }
        if let Some(at) = exited
            && (eof || now >= at + DRAIN)
        {
            break false;
        }
        if exited.is_none() && now >= deadline {
            break true;
        }
        if eof {
            // Output closed but the program still runs: wait for its exit alone.
            std::thread::sleep(POLL.min(deadline.saturating_duration_since(now)));
            continue;
        }
        let watch = exited.is_none() && run.pidfd.is_some();
        let until = match exited {
            Some(at) => at + DRAIN,
            None if watch => deadline,
            None => deadline.min(now + POLL),
        };
        let pidfd = run.pidfd.as_ref().filter(|_| watch).map(|fd| fd.as_fd());
        match run.out.next(until, pidfd) {
            Some(Piece::Line(line)) => stdout.push(String::from_utf8_lossy(&line).into_owned()),
            Some(Piece::Overlong(n)) => stdout.push(format!("<an over-long line of {n} bytes>")),
            Some(Piece::Eof) => eof = true,
            None => {}
        }
    };
    let elapsed = match (timed_out, exited) {
        (false, Some(at)) => at.duration_since(started),
        _ => started.elapsed(),
    };
    let result = if timed_out {
        run.kill();
        Err(Failure::new(
            FailureKind::Timeout,
            format!("still running after {} ms (killed)", limit.as_millis()),
        ))
    } else {
        match run.exit_status().and_then(|s| s.exit_status()) {
            Some(0) => Ok(()),
            _ => Err(run.gone("the program ended")),
        }
    };
    let stderr = run.stderr_text(Duration::from_millis(200));
    run.shut_down(None);
    Collected {
        stdout,
        stderr,
        elapsed,
        result,
    }
}
