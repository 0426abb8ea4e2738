//! Running a confined program once: start it with the same process group, limits,
//! sandbox and cgroup as a protocol bot, give it a deadline, and collect its exit status,
//! its stdout, and the files it wrote into a private folder; then make sure nothing of it
//! survives. Per-move console bots and checkers of solver programs are built on this.
//!
//! The folder holding the program's input and output files is carried into the sandbox
//! under `--sandbox user` (its arguments pointing into the folder follow the copy), so the
//! caller names files by their place in its own folder and gets them back from wherever
//! the program actually wrote them.

use super::POLL;
use super::spawn::{Running, Tail, lock};
use crate::bots::Failure;
use crate::bots::FailureKind;
use crate::bots::pipe::Piece;
use crate::bots::spec::CommandSpec;
use crate::clocks::deadline::{Late, MoveClock, deadline_after};
use crate::untrusted::file::{ReadBack, read_beneath};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// How much of a program's stdout is kept: the last bytes.
pub(crate) const STDOUT_BYTES: usize = 64 * 1024;
/// The largest output file read back; a longer one is refused.
pub(crate) const OUTPUT_FILE_BYTES: u64 = 1 << 20;
/// After the program exited, how long a descendant holding its stdout may delay the end.
const DRAIN: Duration = Duration::from_millis(100);

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exit {
    /// It exited with status 0.
    Success,
    /// It exited otherwise or was killed by a signal: why, as a crash or a broken limit.
    Failed(Failure),
    /// It was still running at the deadline, and was killed.
    TimedOut,
    /// It was still running at the deadline stretched as far as it goes, while the
    /// machine kept it from running for this long and its own time was within the limit
    /// (`clocks::runqueue`); it was killed.
    MachineLate(Duration),
}

/// What one run left.
#[derive(Clone, Debug)]
pub struct Ran {
    /// Whether it exited cleanly, failed, or ran past the deadline.
    pub exit: Exit,
    /// From the start of the process to its exit (or the deadline), start-up included,
    /// less a pause of the run (Ctrl-Z) and the time given back in `waited`.
    pub elapsed: Duration,
    /// The time the machine kept the program from running, given back to it
    /// (`clocks::runqueue`).
    pub waited: Duration,
    /// The end of its stdout.
    pub stdout: String,
    /// The end of its stderr.
    pub stderr: String,
    /// How it ended (`exit status 3`, a signal); `None` when it was killed at the deadline.
    pub ended: Option<String>,
    /// The files asked for, in order: read back without following links or blocking.
    pub outputs: Vec<ReadBack>,
}

/// Runs `command` once, at most `limit`. `folder` holds its input files and receives its
/// output files (the arguments name files in it); `outputs` are the names, in `folder`,
/// of the files to read back. `Err` only when the program could not be started.
pub fn run_once(
    command: &CommandSpec,
    folder: Option<&Path>,
    limit: Duration,
    outputs: &[&str],
) -> Result<Ran, Failure> {
    run_once_then(command, folder, limit, outputs, |_| {})
}

/// [`run_once`], run again ([`crate::clocks::runqueue::again_while_late`]) while the machine's load
/// keeps the program from running until its stretched deadline ([`Exit::MachineLate`]): for a
/// program whose one run is the whole verdict (a solver on a case), which the load must not decide.
pub(crate) fn run_once_fairly(
    command: &CommandSpec,
    folder: Option<&Path>,
    limit: Duration,
    outputs: &[&str],
) -> Result<Ran, Failure> {
    crate::clocks::runqueue::again_while_late(
        || run_once(command, folder, limit, outputs),
        |ran| matches!(ran, Ok(ran) if matches!(ran.exit, Exit::MachineLate(_))),
    )
}

/// [`run_once`], and `collect` is given the folder the program wrote `folder`'s files into
/// (its copy under the sandbox) before that goes away.
pub(crate) fn run_once_then(
    command: &CommandSpec,
    folder: Option<&Path>,
    limit: Duration,
    outputs: &[&str],
    collect: impl FnOnce(&Path),
) -> Result<Ran, Failure> {
    let mut command = command.clone();
    if let Some(folder) = folder {
        command.carried.push(folder.to_path_buf());
    }
    let started = Instant::now();
    let mut run = Running::spawn(&command)?;
    // The program reads no stdin: EOF at once.
    run.to_stdin = None;
    let deadline = deadline_after(started, limit);
    let mut clock = MoveClock::new(started, deadline, run.pgid.as_raw_nonzero().get()).sampled();
    let stdout = Tail::new(STDOUT_BYTES);
    let mut exited_at: Option<Instant> = None;
    let mut eof = false;
    let late = loop {
        let now = Instant::now();
        if exited_at.is_none() && run.exit_status().is_some() {
            exited_at = Some(now);
        }
        if let Some(at) = exited_at
            && (eof || now.duration_since(at) >= DRAIN)
        {
            break None;
        }
        if exited_at.is_none() {
            clock.look(now);
        }
        if now >= clock.deadline() {
            if clock.stretch() {
                continue;
            }
            break Some(clock.late(now));
        }
        if eof {
            // Stdout closed but the program still runs: wait for its exit, woken by it.
            // A confined program's output ends a millisecond or so before its jail does,
            // once a run: a console bot's every move.
            run.wait_exit(clock.wake() - now);
            continue;
        }
        let watch = exited_at.is_none() && run.pidfd.is_some();
        let until = match exited_at {
            Some(at) => clock.deadline().min(at + DRAIN),
            None if watch => clock.wake(),
            None => clock.wake().min(now + POLL),
        };
        let exit_fd = run.pidfd.as_ref().filter(|_| watch).map(|fd| fd.as_fd());
        match run.out.next(until, exit_fd) {
            Some(Piece::Line(line)) => {
                let mut tail = lock(&stdout);
                tail.push(&line);
                tail.push(b"\n");
            }
            Some(Piece::Overlong(n)) => {
                lock(&stdout).push(format!("[a line of {n} bytes dropped]\n").as_bytes())
            }
            Some(Piece::Eof) => eof = true,
            None => {}
        }
    };
    let wall = match (&late, exited_at) {
        (None, Some(at)) => at.saturating_duration_since(started),
        _ => Instant::now().saturating_duration_since(started),
    };
    if late.is_none() {
        clock.settle(started + wall);
    }
    let elapsed = wall
        .saturating_sub(clock.paused())
        .saturating_sub(clock.given());
    let ended = match late {
        Some(_) => None,
        None => run.exit_status().map(|s| super::verdict::describe_exit(&s)),
    };
    let exit = match late {
        Some(late) => {
            run.kill();
            match late {
                Late::Own => Exit::TimedOut,
                Late::Machine(waited) => Exit::MachineLate(waited),
            }
        }
        None => match run.exit_status().and_then(|s| s.exit_status()) {
            Some(0) => Exit::Success,
            _ => Exit::Failed(run.gone("the program failed")),
        },
    };
    // Files are read before the sandbox (and its copy of the folder) goes away.
    let outputs = outputs
        .iter()
        .map(|name| match folder {
            Some(folder) => {
                let (base, relative) = written_folder(&run, folder);
                read_beneath(&base, &relative.join(name), OUTPUT_FILE_BYTES)
            }
            None => ReadBack::Missing,
        })
        .collect();
    if let Some(folder) = folder {
        let (base, relative) = written_folder(&run, folder);
        collect(&base.join(relative));
    }
    run.shut_down();
    let stderr = run.stderr_text(Duration::from_millis(100));
    let stdout = lock(&stdout).text();
    Ok(Ran {
        exit,
        elapsed,
        waited: clock.given(),
        stdout,
        stderr,
        ended,
        outputs,
    })
}

/// Where the program wrote the files of `folder`: a folder arbiter made (which the program
/// cannot replace), and the path below it that the program could have changed.
fn written_folder(run: &Running, folder: &Path) -> (PathBuf, PathBuf) {
    let name = folder.file_name().unwrap_or_default().to_string_lossy();
    let copy = PathBuf::from(format!(".arbiter-{name}"));
    match (&run.sandbox, &run.jail) {
        (Some(sb), _) => (sb.workdir.clone(), copy),
        (None, Some(jail)) => (jail.private().to_path_buf(), copy),
        (None, None) => (folder.to_path_buf(), PathBuf::new()),
    }
}

impl Ran {
    /// The run as a failure of the program, when it was one: killed at the deadline
    /// (`timeout`), a non-zero exit or a signal (`crash`, or the limit it broke).
    pub fn failure(&self, limit: Duration) -> Option<Failure> {
        match &self.exit {
            Exit::Success => None,
            Exit::Failed(f) => Some(f.clone()),
            Exit::TimedOut => Some(Failure::new(
                FailureKind::Timeout,
                format!(
                    "still running after {} ms (the program was killed)",
                    limit.as_millis()
                ),
            )),
            Exit::MachineLate(waited) => Some(super::machine_late(self.elapsed + *waited, *waited)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_program_that_closes_its_stdout_and_works_on_is_waited_for_to_its_exit() {
        let command = CommandSpec::new("sh")
            .arg("-c")
            .arg("echo done; exec >&-; sleep 0.3; exit 3");
        let ran = run_once(&command, None, Duration::from_secs(20), &[]).expect("sh starts");
        assert_eq!(ran.stdout, "done\n");
        assert_eq!(ran.ended.as_deref(), Some("exit status 3"));
        assert!(matches!(ran.exit, Exit::Failed(_)), "{:?}", ran.exit);
        assert!(
            ran.elapsed >= Duration::from_millis(300),
            "{:?}",
            ran.elapsed
        );
        // Ended by its exit, not by the deadline.
        assert!(ran.elapsed < Duration::from_secs(10), "{:?}", ran.elapsed);
    }
}
