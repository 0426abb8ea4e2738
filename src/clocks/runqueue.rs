//! What the machine, not the bot, took from a move: the time a bot was ready to run but
//! waited for a CPU that other programs held.
//!
//! The course's referee runs one bot at a time on a quiet machine, so the clock a bot
//! faces there measures its own work. Here other programs (another game, another user, a
//! build) may hold the CPUs while a bot is to move; the scheduler then keeps the bot
//! waiting in its run queue, and the kernel counts that wait per task (the second number
//! of `/proc/PID/task/TID/schedstat`, in nanoseconds). A move that runs past its limit is
//! given back the time its bot waited so, and loses only when the bot's own time (the
//! wall time less that wait) is over the limit.
//!
//! What counts as the machine's wait, and why it cannot be made up by a bot:
//! - A task that sleeps or blocks (a bot that sleeps past its limit, waits on a pipe) is
//!   not runnable: it accrues no run-queue wait, and loses by `timeout` as ever.
//! - A bot's own tasks keep each other waiting when they are more than its CPUs (a bot
//!   that forks busy processes). That wait is the bot's doing: the wait given back is at
//!   most the CPU time the bot's tasks left unused on the CPUs they may run on (their
//!   count times the wall time, less the CPU time all of the bot's tasks used, reaped
//!   children included). A bot that keeps its CPUs busy itself is given nothing back.
//! - A bot's own tasks can also keep each other waiting on CPUs they leave idle in part:
//!   spinners at `nice 19` pinned to the bot's CPU, one sleeping task allowed on every CPU
//!   (which makes the bot look as if it owned them all): their wait looks like the
//!   machine's. What the bot cannot fake is the CPU time its own processes used, so:
//! - whatever is given back, a move is charged at least the CPU time the bot's own
//!   processes used in it (since the first look; reaped children included), when that is
//!   within the move's wall time: no number of processes, priority or affinity buys a
//!   bot more CPU than its limit. (A bot that answers within its limit is charged its wall
//!   time, as on the course's machine, however many CPUs it kept busy.)
//! - The wait is the longest wait of one task, not the sum over tasks: threads waiting at
//!   once do not add up to more than the wall time they waited.
//! - The referee thread's own run-queue wait counts too (a reply the referee was kept from
//!   seeing in time), the longer of the two being given back; its CPU time counts as the
//!   bot's (a bot that floods its output makes the referee read it), so that a referee
//!   busy with the bot gives nothing back.
//! - Waits below `threshold` are not given back: a quiet machine has them too (timer
//!   ticks, kernel threads, the referee itself between two reads), as the course's does,
//!   where they are part of the clock. At a 1 s limit the threshold is 20 ms: one
//!   scheduler period of a busy CPU (the kernel's default latency target is 6–24 ms
//!   depending on the core count), well above what a bot alone on an idle CPU waits in
//!   a second (tens of microseconds), and below what one busy program beside it costs
//!   (half of the CPU).
//!
//! A move can be given back no more than `MAX_STRETCH` times its limit in wall time:
//! past that, a move that the machine still kept from running is no result
//! ([`FailureKind::MachineLoad`](crate::bots::FailureKind::MachineLoad)), and its game is
//! played again.

use std::collections::HashMap;
use std::time::{Duration, Instant};

/// A move's wall time may stretch to this many times its limit while the bot waits for a
/// CPU; then its game is played again. At 8, a move is replayed only when the bot had
/// less than an eighth of a CPU for the whole stretch (at 4, a bot flooding its output on
/// a core that a busy program outside shared, with a test suite beside, got less than a
/// quarter): a machine loaded beyond that would not finish a league at any sensible pace
/// anyway. A bot that never answers is still judged as soon as its own time is out: at a
/// quarter of a CPU, at four times its limit.
pub(crate) const MAX_STRETCH: u32 = 8;

/// How many times a game, or a program's one run, that the machine's load left without a
/// result is played again before arbiter gives up on fair clocks.
pub const MAX_REPLAYS: usize = 3;

/// How long a play the machine's load left without a result waits before it is played
/// again: a moment for a burst of load to pass.
pub const REPLAY_PAUSE: Duration = Duration::from_secs(1);

/// `run()`, run again [`REPLAY_PAUSE`] later, up to [`MAX_REPLAYS`] times, while `late`
/// says the machine's load left its outcome without a result; the last outcome.
pub fn again_while_late<T>(run: impl FnMut() -> T, late: impl Fn(&T) -> bool) -> T {
    again_after(REPLAY_PAUSE, run, late)
}

/// [`again_while_late`] with `pause` between the runs.
fn again_after<T>(pause: Duration, mut run: impl FnMut() -> T, late: impl Fn(&T) -> bool) -> T {
    let mut outcome = run();
    for _ in 0..MAX_REPLAYS {
        if !late(&outcome) {
            break;
        }
        std::thread::sleep(pause);
        outcome = run();
    }
    outcome
}

/// How long into a move the bot's counters are first read: a move answered sooner costs
/// nothing (most moves of most bots), and the wait before it is not given back (at most
/// this, which keeps the measure on the bot's side of any doubt).
pub(crate) fn first_look(limit: Duration) -> Duration {
    (limit / 10).min(Duration::from_millis(20))
}

/// The least wait given back for a move of `limit`: 2% of the limit, at least 5 ms.
pub(crate) fn threshold(limit: Duration) -> Duration {
    (limit / 50).max(Duration::from_millis(5))
}

/// One task's counters, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Counters {
    /// Time run on a CPU.
    ran: u64,
    /// Time waited in a run queue.
    waited: u64,
}

/// The counters of every task of a bot's processes at one moment.
#[derive(Clone, Debug)]
pub(crate) struct Snapshot {
    at: Instant,
    tasks: HashMap<i32, Counters>,
    /// CPU time of children reaped by the bot's processes (their `cutime + cstime`).
    reaped: Duration,
    /// The counters of the thread that takes the snapshot: the referee's, which waits for
    /// the bot's reply and may itself be kept from running when it comes.
    referee: Counters,
    /// The CPUs the bot's tasks may run on: the most any of them may.
    cpus: usize,
}

/// What [`Snapshot::machine_wait`] found between two snapshots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Between {
    /// The wait that was the machine's doing.
    pub(crate) wait: Duration,
    /// The CPU time the bot's own processes used.
    pub(crate) bot_ran: Duration,
}

impl Between {
    /// The most a move `elapsed` long may be given back, whatever its wait: what leaves it
    /// charged the CPU time the bot's processes used (none, past its wall time).
    pub(crate) fn most_given(&self, elapsed: Duration) -> Duration {
        elapsed.saturating_sub(self.bot_ran)
    }
}

impl Snapshot {
    /// The counters of the process tree under `leader` (the bot's process group leader,
    /// which its processes cannot leave), read from /proc; `None` where the kernel keeps
    /// no scheduler statistics or the leader is gone.
    pub(crate) fn take(leader: i32) -> Option<Snapshot> {
        let mut snapshot = Snapshot {
            at: Instant::now(),
            tasks: HashMap::new(),
            reaped: Duration::ZERO,
            referee: own_counters().unwrap_or_default(),
            cpus: 1,
        };
        snapshot.walk(leader, true)?;
        Some(snapshot)
    }

    /// Adds the counters of the tree under `leader`, and with `cpus` the CPUs its tasks may
    /// run on; `None` when the leader is gone.
    fn walk(&mut self, leader: i32, cpus: bool) -> Option<()> {
        let snapshot = self;
        let mut queue = vec![leader];
        let mut seen = 0usize;
        while let Some(pid) = queue.pop() {
            // A tree of thousands of processes is the bot's own doing: counted so far.
            seen += 1;
            if seen > 4096 {
                break;
            }
            let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
                // Gone since its parent listed it (or the leader itself is gone).
                if pid == leader {
                    return None;
                }
                continue;
            };
            if let Some(reaped) = reaped_cpu(pid) {
                snapshot.reaped += reaped;
            }
            for task in tasks.flatten() {
                let Some(tid) = task.file_name().to_str().and_then(|s| s.parse().ok()) else {
                    continue;
                };
                let path = task.path();
                match read_counters(&path.join("schedstat")) {
                    Some(counters) => {
                        snapshot.tasks.insert(tid, counters);
                    }
                    None if pid == leader && snapshot.tasks.is_empty() => return None,
                    None => {}
                }
                if let Ok(list) = std::fs::read_to_string(path.join("children")) {
                    queue.extend(
                        list.split_whitespace()
                            .filter_map(|p| p.parse::<i32>().ok()),
                    );
                }
                if cpus
                    && let Ok(set) =
                        rustix::thread::sched_getaffinity(rustix::process::Pid::from_raw(tid))
                {
                    snapshot.cpus = snapshot.cpus.max(set.count() as usize);
                }
            }
        }
        Some(())
    }

    /// The wait between `self` and `later` that was the machine's doing (see the module's
    /// doc): the longest run-queue wait of one task of the bot or of the referee thread (a
    /// reply written while the referee waited for a CPU is seen late by that much; the
    /// longer of the two, as they may have waited at once), at most the CPU time the bot's
    /// tasks left unused, at most the wall time between the two snapshots (taken on the same
    /// thread); and the CPU time the bot's processes used.
    pub(crate) fn machine_wait(&self, later: &Snapshot) -> Between {
        let wall = later.at.saturating_duration_since(self.at);
        let mut bot_ran = later.reaped.saturating_sub(self.reaped).as_nanos() as u64;
        let mut longest = 0u64;
        for (tid, now) in &later.tasks {
            // A task born meanwhile counts from its birth.
            let before = self.tasks.get(tid).copied().unwrap_or_default();
            bot_ran += now.ran.saturating_sub(before.ran);
            longest = longest.max(now.waited.saturating_sub(before.waited));
        }
        let referee = later.referee.waited.saturating_sub(self.referee.waited);
        // The referee's own work meanwhile is the bot's doing (reading what it floods its
        // output with): the CPU it took is no one else's.
        let ran = bot_ran + later.referee.ran.saturating_sub(self.referee.ran);
        let capacity = wall.as_nanos() as u64 * later.cpus.max(self.cpus) as u64;
        let unused = capacity.saturating_sub(ran);
        Between {
            wait: Duration::from_nanos(longest.max(referee).min(unused)).min(wall),
            bot_ran: Duration::from_nanos(bot_ran),
        }
    }
}

/// The CPU time the processes of the tree under `leader` used so far (every task's, and
/// their reaped children's); `None` where the kernel keeps no scheduler statistics or
/// the leader is gone. The same walk as [`Snapshot::take`], without the machine's counters.
/// `without_leader`: the leader's own tasks are left out (a jail's helper), what it reaped
/// is not.
pub(crate) fn tree_cpu(leader: i32, without_leader: bool) -> Option<Duration> {
    let mut snapshot = Snapshot {
        at: Instant::now(),
        tasks: HashMap::new(),
        reaped: Duration::ZERO,
        referee: Counters::default(),
        cpus: 1,
    };
    // Read at each freeze and after each move of the opponent: only the counters.
    snapshot.walk(leader, false)?;
    if without_leader {
        // A jail's helper has one thread, its leader's.
        snapshot.tasks.remove(&leader);
    }
    let ran: u64 = snapshot.tasks.values().map(|c| c.ran).sum();
    Some(snapshot.reaped + Duration::from_nanos(ran))
}

fn read_counters(path: &std::path::Path) -> Option<Counters> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut fields = text.split_whitespace();
    let ran = fields.next()?.parse().ok()?;
    let waited = fields.next()?.parse().ok()?;
    Some(Counters { ran, waited })
}

/// The calling thread's own counters, read through a descriptor of its
/// `/proc/thread-self/schedstat` kept open per thread (one `pread` a call: it is read at the
/// start of every move).
fn own_counters() -> Option<Counters> {
    use std::cell::RefCell;
    use std::os::unix::fs::FileExt;
    thread_local! {
        static OWN: RefCell<Option<std::fs::File>> = const { RefCell::new(None) };
    }
    OWN.with(|own| {
        let mut own = own.borrow_mut();
        if own.is_none() {
            *own = std::fs::File::open("/proc/thread-self/schedstat").ok();
        }
        let mut buf = [0u8; 96];
        let n = own.as_ref()?.read_at(&mut buf, 0).ok()?;
        let text = std::str::from_utf8(&buf[..n]).ok()?;
        let mut fields = text.split_whitespace();
        let ran = fields.next()?.parse().ok()?;
        let waited = fields.next()?.parse().ok()?;
        Some(Counters { ran, waited })
    })
}

/// The CPU time of the children `pid` reaped (`cutime + cstime` of /proc/PID/stat).
fn reaped_cpu(pid: i32) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &stat[stat.rfind(')')? + 1..];
    let mut fields = rest.split_whitespace().skip(13);
    let cutime: u64 = fields.next()?.parse().ok()?;
    let cstime: u64 = fields.next()?.parse().ok()?;
    // SAFETY: sysconf has no preconditions.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    let hz = if hz > 0 { hz as u64 } else { 100 };
    Some(Duration::from_nanos((cutime + cstime) * 1_000_000_000 / hz))
}

/// What a wait for a move found of the machine's doing, as it went: the referee thread's
/// own counters at the start, the first look at the bot's, and the wait given back so far.
#[derive(Debug)]
pub(crate) struct Watch {
    started: Instant,
    /// The referee thread's counters when the move began.
    own: Option<Counters>,
    looked: bool,
    first: Option<Snapshot>,
    /// Given back so far (over the threshold, else zero).
    pub given: Duration,
}

impl Watch {
    /// The watch of a move that begins now, on the referee thread that waits for it.
    pub(crate) fn begin() -> Watch {
        Watch {
            started: Instant::now(),
            own: own_counters(),
            looked: false,
            first: None,
            given: Duration::ZERO,
        }
    }

    /// Reads the bot's counters for the first time (at [`first_look`]); once only, taken
    /// or not (a bot gone, a kernel without the statistics).
    pub(crate) fn look(&mut self, leader: i32) {
        if !self.looked {
            self.looked = true;
            self.first = Snapshot::take(leader);
        }
    }

    /// Whether the first look was taken (or tried).
    pub(crate) fn looked(&self) -> bool {
        self.looked
    }

    /// The machine's wait, read now: since the first look at the bot, or, before it, the
    /// referee's own since the move began (until the first look the referee is blocked
    /// waiting for the reply, so its wait is a reply seen late); what is given back in all
    /// (zero below `threshold`).
    pub(crate) fn measure(&mut self, leader: i32, threshold: Duration) -> Duration {
        let mut own_floor = None;
        let wait = match &self.first {
            Some(first) => match Snapshot::take(leader) {
                Some(now) => {
                    let between = first.machine_wait(&now);
                    // What is given back never leaves the move charged less than the CPU
                    // time the bot used since the first look.
                    own_floor =
                        Some(between.most_given(now.at.saturating_duration_since(self.started)));
                    between.wait
                }
                None => return self.given,
            },
            None => match (self.own, own_counters()) {
                (Some(start), Some(now)) => {
                    Duration::from_nanos(now.waited.saturating_sub(start.waited))
                        .min(self.started.elapsed())
                }
                _ => return self.given,
            },
        };
        if wait >= threshold {
            self.given = self.given.max(wait);
        }
        if let Some(most) = own_floor {
            self.given = self.given.min(most);
        }
        self.given
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(at: Instant, cpus: usize, tasks: &[(i32, u64, u64)]) -> Snapshot {
        Snapshot {
            at,
            tasks: tasks
                .iter()
                .map(|&(tid, ran, waited)| (tid, Counters { ran, waited }))
                .collect(),
            reaped: Duration::ZERO,
            referee: Counters::default(),
            cpus,
        }
    }

    const MS: u64 = 1_000_000;

    #[test]
    fn a_single_bot_kept_waiting_by_others_is_given_its_wait() {
        let t0 = Instant::now();
        let before = snapshot(t0, 1, &[(10, 0, 0)]);
        // 1.5 s of wall: 0.5 s run, 1.0 s waited.
        let after = snapshot(
            t0 + Duration::from_millis(1500),
            1,
            &[(10, 500 * MS, 1000 * MS)],
        );
        assert_eq!(
            before.machine_wait(&after).wait,
            Duration::from_millis(1000)
        );
    }

    #[test]
    fn a_bot_whose_own_tasks_fill_its_cpus_is_given_nothing() {
        let t0 = Instant::now();
        let before = snapshot(t0, 2, &[(10, 0, 0)]);
        // 1 s of wall on 2 CPUs: the main task waited 0.8 s behind 8 busy children of
        // its own, which ran 1.8 s between them.
        let mut tasks = vec![(10, 200 * MS, 800 * MS)];
        tasks.extend((11..19).map(|tid| (tid, 225 * MS, 775 * MS)));
        let after = snapshot(t0 + Duration::from_secs(1), 2, &tasks);
        assert_eq!(before.machine_wait(&after).wait, Duration::ZERO);
    }

    #[test]
    fn a_bots_own_tasks_wait_is_given_back_no_further_than_its_cpu_time_allows() {
        let t0 = Instant::now();
        // One sleeping task allowed on both CPUs, a main task and spinners at nice 19 on
        // one CPU: the main task waited 0.9 s of 1.5 s, and the bot's tasks ran 1.4 s.
        let before = snapshot(t0, 2, &[(10, 0, 0), (11, 0, 0), (12, 0, 0)]);
        let after = snapshot(
            t0 + Duration::from_millis(1500),
            2,
            &[
                (10, 100 * MS, 900 * MS),
                (11, 1300 * MS, 200 * MS),
                (12, 0, 0),
            ],
        );
        // Its spinners' wait looks like the machine's, but what the bot's processes ran is
        // measured beside it: of a move of 1.5 s, 0.1 s at most is given back.
        let between = before.machine_wait(&after);
        assert_eq!(between.wait, Duration::from_millis(900));
        assert_eq!(between.bot_ran, Duration::from_millis(1400));
        assert_eq!(
            between.most_given(Duration::from_millis(1500)),
            Duration::from_millis(100)
        );
        // Past its wall time (more CPUs than one), nothing.
        assert_eq!(
            between.most_given(Duration::from_millis(1000)),
            Duration::ZERO
        );
    }

    #[test]
    fn threads_waiting_at_once_give_back_no_more_than_the_longest_wait() {
        let t0 = Instant::now();
        let before = snapshot(t0, 4, &[(10, 0, 0), (11, 0, 0)]);
        let after = snapshot(
            t0 + Duration::from_secs(1),
            4,
            &[(10, 400 * MS, 600 * MS), (11, 300 * MS, 500 * MS)],
        );
        assert_eq!(before.machine_wait(&after).wait, Duration::from_millis(600));
    }

    #[test]
    fn a_reply_the_referee_was_kept_from_seeing_is_given_the_referees_wait() {
        let t0 = Instant::now();
        let before = snapshot(t0, 1, &[(10, 0, 0)]);
        let mut after = snapshot(
            t0 + Duration::from_millis(500),
            1,
            &[(10, 80 * MS, 20 * MS)],
        );
        after.referee.waited = 300 * MS;
        assert_eq!(before.machine_wait(&after).wait, Duration::from_millis(300));
        // Unless the bot's own processes held the CPU it shares with the referee.
        let mut hogging = snapshot(t0 + Duration::from_millis(500), 1, &[(10, 480 * MS, 0)]);
        hogging.referee.waited = 300 * MS;
        assert_eq!(
            before.machine_wait(&hogging).wait,
            Duration::from_millis(20)
        );
        // Or the referee itself, reading what the bot flooded its output with.
        let mut flooding = snapshot(
            t0 + Duration::from_millis(500),
            1,
            &[(10, 250 * MS, 250 * MS)],
        );
        flooding.referee.ran = 250 * MS;
        assert_eq!(before.machine_wait(&flooding).wait, Duration::ZERO);
    }

    #[test]
    fn a_run_left_without_a_result_is_run_again_at_most_three_times() {
        // Each run returns how many runs there have been; `late` judges that count.
        let pause = Duration::from_millis(50);
        let counted = |late: fn(&usize) -> bool| {
            let mut runs = 0;
            again_after(
                pause,
                || {
                    runs += 1;
                    runs
                },
                late,
            )
        };
        // Late twice, then a result: three runs, each after the pause.
        let started = Instant::now();
        assert_eq!(counted(|&n| n < 3), 3);
        assert!(started.elapsed() >= 2 * pause);
        // Never a result: the first run and three more, the last outcome kept.
        assert_eq!(counted(|_| true), 1 + MAX_REPLAYS);
    }

    #[test]
    fn a_sleeping_bot_waits_for_nothing() {
        let t0 = Instant::now();
        let before = snapshot(t0, 1, &[(10, 5 * MS, MS)]);
        let after = snapshot(t0 + Duration::from_secs(2), 1, &[(10, 6 * MS, MS)]);
        assert_eq!(before.machine_wait(&after).wait, Duration::ZERO);
    }

    #[test]
    fn the_counters_of_a_live_process_tree_are_read() {
        use std::os::unix::process::CommandExt;
        let mut child = std::process::Command::new("sh")
            .args(["-c", "sleep 5 & while :; do :; done"])
            .process_group(0)
            .spawn()
            .unwrap();
        let group = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
        // The shell and its `sleep`, which would outlive it holding the test's output.
        let end = |child: &mut std::process::Child| {
            let _ = rustix::process::kill_process_group(group, rustix::process::Signal::KILL);
            child.wait().unwrap();
        };
        // Read once the shell has spun 100 ms and started its `sleep` (a loaded machine
        // gives it its CPU late).
        let until = Instant::now() + Duration::from_secs(20);
        let snapshot = loop {
            std::thread::sleep(Duration::from_millis(50));
            let Some(snapshot) = Snapshot::take(child.id() as i32) else {
                end(&mut child);
                // A kernel without scheduler statistics: nothing to read.
                assert!(std::fs::metadata("/proc/self/schedstat").is_err());
                return;
            };
            let shell = snapshot.tasks[&(child.id() as i32)];
            if (shell.ran >= 100 * MS && snapshot.tasks.len() >= 2) || Instant::now() >= until {
                break snapshot;
            }
        };
        end(&mut child);
        // The shell and its `sleep`, each with its one task.
        assert!(snapshot.tasks.len() >= 2, "{snapshot:?}");
        let shell = snapshot.tasks[&(child.id() as i32)];
        assert!(
            shell.ran >= 100 * MS,
            "the spinning shell ran {} ns",
            shell.ran
        );
        assert!(snapshot.cpus >= 1);
    }
}
