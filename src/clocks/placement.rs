//! Where a game's processes run: for the length of a game, the referee's thread and the
//! processes of its bots share one CPU.
//!
//! Why: in a turn-based game exactly one of them works at a time (the referee, or the
//! bot whose turn it is), so one CPU is all a game can use. Left to the scheduler, a
//! woken bot goes to an idle CPU, and on a virtual machine waking a halted CPU costs tens
//! of microseconds, twice a move; on the CPU of the thread that woke it, the hand-over is
//! a switch of a few microseconds, as in a raw pipe echo. A game takes a CPU no other
//! game holds (in this process or another arbiter process of the user), so -j N games
//! use N CPUs; when every CPU is held, the game is not placed.
//!
//! A bot is started on every CPU the process may use (its start-up may run beside a game
//! in play) and placed once it is ready. Placement is a matter of speed only: a bot may
//! move itself, and a CPU the kernel refuses leaves things where they were.

use rustix::fs::{FlockOperation, flock};
use rustix::process::Pid;
use rustix::thread::{CpuSet, sched_getaffinity, sched_getcpu, sched_setaffinity};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use crate::jail::cpus::process_cpus;

/// How many cores this process may use: its CPU set, and a cgroup's CPU quota where one
/// is set, as the standard library counts them (read once). `-j` defaults to it.
pub fn cores() -> usize {
    static CORES: OnceLock<usize> = OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// The folder of the CPUs' claims, one file per CPU, shared by every arbiter process of
/// the user: a game holds an exclusive `flock` on its CPU's file while it is placed, so
/// that two arbiter processes (two `play`s, two tests, two shards) do not pile their
/// games on one CPU, and a process that dies drops its claims with its descriptors.
fn claims_dir() -> Option<&'static Path> {
    static DIR: OnceLock<Option<PathBuf>> = OnceLock::new();
    DIR.get_or_init(|| {
        let uid = rustix::process::getuid().as_raw();
        let dir = std::env::temp_dir().join(format!("arbiter-cpus-{uid}"));
        let _ = std::fs::DirBuilder::new().mode(0o700).create(&dir);
        // Another user's folder (or a link planted in its place) is not used: placement
        // is for speed only, and goes without.
        let meta = std::fs::symlink_metadata(&dir).ok()?;
        (meta.is_dir() && meta.uid() == uid).then_some(dir)
    })
    .as_deref()
}

/// One game's CPU, held for the game: the calling thread runs on it until the placement
/// is dropped, which gives the thread its former CPUs back and releases the CPU's claim.
pub struct Placement {
    cpu: usize,
    former: CpuSet,
    /// The claim on the CPU's file; closing it releases the claim.
    _claim: std::fs::File,
}

impl Placement {
    /// Places the calling thread on a CPU no other game claims (its own CPU first). None
    /// when the process has a single CPU (nothing to choose), when every CPU is claimed
    /// (more games than CPUs: the scheduler shares them out), or when the kernel refuses.
    pub fn take() -> Option<Placement> {
        let cpus: Vec<usize> = (0..CpuSet::MAX_CPU)
            .filter(|&cpu| process_cpus().is_set(cpu))
            .collect();
        if cpus.len() < 2 {
            return None;
        }
        let former = sched_getaffinity(None).ok()?;
        let here = sched_getcpu();
        let order = cpus
            .iter()
            .copied()
            .filter(|&cpu| cpu == here)
            .chain(cpus.iter().copied().filter(|&cpu| cpu != here));
        let dir = claims_dir()?;
        for cpu in order {
            let Ok(file) = std::fs::OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .mode(0o600)
                .custom_flags(libc::O_NOFOLLOW)
                .open(dir.join(format!("cpu{cpu}")))
            else {
                continue;
            };
            if flock(&file, FlockOperation::NonBlockingLockExclusive).is_err() {
                continue;
            }
            let placement = Placement {
                cpu,
                former,
                _claim: file,
            };
            sched_setaffinity(None, &placement.set()).ok()?;
            return Some(placement);
        }
        None
    }

    /// The number of the CPU the game holds, as the kernel numbers them.
    pub fn cpu(&self) -> usize {
        self.cpu
    }

    fn set(&self) -> CpuSet {
        let mut set = CpuSet::new();
        set.set(self.cpu);
        set
    }

    /// Places the process `root` and everything it started (every thread of each) on the
    /// game's CPU. Returns how many threads were placed; a process that is gone or
    /// refuses is skipped.
    pub fn place_tree(&self, root: i32) -> usize {
        set_tree(root, &self.set())
    }

    /// Gives the calling thread its former CPUs back while the game's CPU stays claimed:
    /// for the end of a game, so that the referee's work for one bot's end and the other
    /// bot's exit need not queue on one CPU (dropping the placement does the same, and
    /// releases the claim).
    pub fn unpin(&self) {
        let _ = sched_setaffinity(None, &self.former);
    }
}

/// Puts the process `root` and everything it started back on every CPU of the process, as
/// a bot starts: for a placed bot at the end of its game, so that the exits of a game's
/// processes (each unmapping an interpreter's memory) need not queue on one CPU. Returns
/// how many threads were moved.
pub fn unplace_tree(root: i32) -> usize {
    set_tree(root, process_cpus())
}

/// Sets the CPUs of `root` and of everything it started (every thread of each); a process
/// that is gone or refuses is skipped. Returns how many threads were set.
fn set_tree(root: i32, set: &CpuSet) -> usize {
    let mut placed = 0;
    let mut pending = vec![root];
    // Bounded: a bot that forks without end cannot keep the referee here.
    let mut budget = 4096;
    while let Some(pid) = pending.pop() {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            continue;
        };
        for task in tasks.flatten() {
            budget -= 1;
            if budget == 0 {
                return placed;
            }
            let Some(tid) = task
                .file_name()
                .to_str()
                .and_then(|t| t.parse::<i32>().ok())
                .and_then(Pid::from_raw)
            else {
                continue;
            };
            if sched_setaffinity(Some(tid), set).is_ok() {
                placed += 1;
            }
            if let Ok(children) = std::fs::read_to_string(task.path().join("children")) {
                pending.extend(
                    children
                        .split_whitespace()
                        .filter_map(|c| c.parse::<i32>().ok()),
                );
            }
        }
    }
    placed
}

impl Drop for Placement {
    fn drop(&mut self) {
        self.unpin();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cpus_of(tid: Option<Pid>) -> Vec<usize> {
        let set = sched_getaffinity(tid).expect("affinity");
        (0..CpuSet::MAX_CPU).filter(|&c| set.is_set(c)).collect()
    }

    /// Claims of this test alone: other tests' games (other processes) hold none of them.
    fn private_claims() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        // SAFETY: set before the test starts a thread; each test is its own process
        // under nextest, and the folder is read once.
        unsafe { std::env::set_var("TMPDIR", dir.path()) };
        assert!(claims_dir().unwrap().starts_with(dir.path()));
        dir
    }

    #[test]
    fn a_placement_pins_the_thread_and_its_drop_gives_the_cpus_back() {
        let _claims = private_claims();
        let before = cpus_of(None);
        let Some(placement) = Placement::take() else {
            assert!(before.len() < 2, "more than one CPU but no placement");
            return;
        };
        assert_eq!(cpus_of(None), vec![placement.cpu()]);
        // A second game at the same time goes to another CPU.
        let other = std::thread::spawn(|| Placement::take().map(|p| p.cpu()))
            .join()
            .unwrap();
        assert_ne!(other, Some(placement.cpu()));
        if before.len() == 2 {
            // Both CPUs held: a third game is not placed.
            let both = std::thread::spawn(|| {
                let second = Placement::take();
                (second.is_some(), Placement::take().is_some())
            })
            .join()
            .unwrap();
            assert_eq!(both, (true, false));
        }
        drop(placement);
        assert_eq!(cpus_of(None), before);
        // Its CPU is free again.
        assert!(Placement::take().is_some());
    }

    #[test]
    fn a_process_tree_is_placed_with_its_children() {
        let _claims = private_claims();
        let Some(placement) = Placement::take() else {
            assert!(
                cpus_of(None).len() < 2,
                "more than one CPU but no placement"
            );
            return;
        };
        // A shell that starts a child and waits: both must land on the game's CPU.
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 5 & wait"])
            .spawn()
            .expect("sh");
        let pid = child.id() as i32;
        // The child `sleep` exists once the shell forked it.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        while std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
            .map_or(true, |c| c.trim().is_empty())
        {
            assert!(std::time::Instant::now() < deadline, "sh never forked");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert!(placement.place_tree(pid) >= 2);
        let sleep: i32 = std::fs::read_to_string(format!("/proc/{pid}/task/{pid}/children"))
            .unwrap()
            .split_whitespace()
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert_eq!(cpus_of(Pid::from_raw(pid)), vec![placement.cpu()]);
        assert_eq!(cpus_of(Pid::from_raw(sleep)), vec![placement.cpu()]);
        // At the game's end the tree gets every CPU of the process back, and the thread
        // its own, while the CPU stays claimed.
        let all: Vec<usize> = (0..CpuSet::MAX_CPU)
            .filter(|&c| process_cpus().is_set(c))
            .collect();
        assert!(unplace_tree(pid) >= 2);
        assert_eq!(cpus_of(Pid::from_raw(pid)), all);
        assert_eq!(cpus_of(Pid::from_raw(sleep)), all);
        placement.unpin();
        assert_eq!(cpus_of(None), all);
        assert!(
            Placement::take().is_none_or(|other| other.cpu() != placement.cpu()),
            "the game's CPU was claimed again before its placement was dropped"
        );
        let _ = child.kill();
        let _ = child.wait();
        let _ = rustix::process::kill_process(
            Pid::from_raw(sleep).unwrap(),
            rustix::process::Signal::KILL,
        );
    }
}
