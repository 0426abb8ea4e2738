//! The waiting bot is frozen: while one side is to move, no process of the other runs, as
//! in the course's referee, which runs one bot at a time, so that the clock a bot faces
//! measures its own work. A bot's processes are its process group, which a jailed bot's
//! processes cannot leave (the jail's filter refuses `setsid` and `setpgid`): `SIGSTOP` to
//! the group stops them all at once, its helper included, and `SIGCONT` lets them go on.
//!
//! A stop is not a freeze: a bot can have itself continued (one-shot timers armed before the
//! stop that send it SIGCONT during it), and kernel work it queued (a large read) runs on.
//! So the tree's CPU time is read as it is stopped and again when its opponent has moved:
//! a bot that used more than [`RAN_WHILE_FROZEN`] meanwhile computed on its opponent's time,
//! and loses its game by `ran_while_frozen` ([`Freezer::ran_while_frozen`], judged by the
//! referee). A bot is
//! frozen from its `ready` (one started ahead for its next game too) until its first turn.
//!
//! `ARBITER_FREEZE=off` in arbiter's environment ([`DISABLE_VAR`]) leaves both bots running
//! throughout, as before freezing: for measuring what freezing costs (benches/python.rs
//! plays the same games both ways), and a way back should it ever be in the way.

use rustix::process::{Pid, Signal};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

/// The CPU time a frozen bot may still be seen to use: what its tasks run between the
/// stop's signal and its taking effect, and what a blocked system call finishes, a few
/// microseconds; well below what computing on the opponent's time takes (tenths of a
/// second a move), and two clock ticks, where the kernel counts in ticks.
pub const RAN_WHILE_FROZEN: Duration = Duration::from_millis(20);

/// How long a turn lasts before the waiting bot is frozen. A stop and the look at the CPU
/// time it allows cost tens of microseconds, and wake the bot's jail helper, which
/// measures the bot as it stops: for a game of quick bots (moves of tens of microseconds to
/// a millisecond, a student's thousands of test games) they were the most of a ply. A
/// waiting bot gets no more than this of its opponent's move unfrozen: 0.02% of a
/// 10-second limit, and of a quick move, where there is nothing to take.
pub const LAZY: Duration = Duration::from_millis(2);

/// The tree's CPU time when it was frozen: unknown.
const UNKNOWN: u64 = u64::MAX;

/// Set to `off`, no bot is ever frozen: [`Freezer::freeze`] does nothing (read once).
pub const DISABLE_VAR: &str = "ARBITER_FREEZE";

/// Whether freezing is on: unless [`DISABLE_VAR`] is `off`, read at the first freeze.
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os(DISABLE_VAR).is_none_or(|v| v != "off"))
}

/// One bot's process group, stopped or running. Clones share the state: the referee
/// freezes a bot through its clone, and a bot that goes on by its own turn
/// (`Freezer::by_turn`) thaws through its own.
#[derive(Clone, Debug)]
pub struct Freezer {
    group: Pid,
    frozen: Arc<AtomicBool>,
    /// The tree's CPU time in nanoseconds when it was last frozen ([`UNKNOWN`]: not read).
    cpu_at_freeze: Arc<AtomicU64>,
    /// Found not to have run since it was last frozen, at the end of its opponent's move.
    checked: Arc<AtomicBool>,
    /// The group's leader is a jail's helper, not the bot: it goes on while the bot is
    /// frozen (it measures the bot's folder, and must not be kept from it), and its own
    /// CPU time is not the bot's.
    helper_leads: bool,
    by_turn: bool,
}

impl Freezer {
    /// The freezer of the process group `group`, running, which [`hold`] thaws for its
    /// bot's turn. Only for a group whose leader is not reaped before the freezer is thawed
    /// for the last time (its id cannot be reused meanwhile).
    pub fn new(group: Pid) -> Freezer {
        Freezer {
            group,
            frozen: Arc::new(AtomicBool::new(false)),
            cpu_at_freeze: Arc::new(AtomicU64::new(UNKNOWN)),
            checked: Arc::new(AtomicBool::new(false)),
            helper_leads: false,
            by_turn: false,
        }
    }

    /// The freezer of a jailed bot's group, led by its jail's helper.
    pub fn led_by_helper(self) -> Freezer {
        Freezer {
            helper_leads: true,
            ..self
        }
    }

    /// The same freezer, for a bot whose turn thaws it once the turn is written rather
    /// than [`hold`] before: the bot then wakes once, with its turn to read, instead of once
    /// for `SIGCONT` and again for the turn.
    pub fn thawed_by_turn(&self) -> Freezer {
        Freezer {
            by_turn: true,
            ..self.clone()
        }
    }

    /// Stops every process of the group (one signal; nothing when it is stopped already, or
    /// when freezing is turned off, [`DISABLE_VAR`]).
    pub fn freeze(&self) {
        if enabled() && !self.frozen.swap(true, Ordering::AcqRel) {
            // ESRCH (the bot is gone) is its own affair: its turn will say so.
            super::pause::frozen_now(self.group.as_raw_nonzero().get(), true);
            let _ = rustix::process::kill_process_group(self.group, Signal::STOP);
            if self.helper_leads {
                let _ = rustix::process::kill_process(self.group, Signal::CONT);
            }
            let cpu = self.bot_cpu();
            self.cpu_at_freeze.store(
                cpu.map_or(UNKNOWN, |c| c.as_nanos() as u64),
                Ordering::Release,
            );
            self.checked.store(false, Ordering::Release);
        }
    }

    /// While the group is frozen: the CPU time its processes used since it was frozen,
    /// when that is more than [`RAN_WHILE_FROZEN`] (a bot that had itself continued, or
    /// left kernel work running); `None` otherwise, or where it cannot be read.
    pub fn ran_while_frozen(&self) -> Option<Duration> {
        if !self.frozen.load(Ordering::Acquire) {
            return None;
        }
        let before = self.cpu_at_freeze.load(Ordering::Acquire);
        if before == UNKNOWN {
            return None;
        }
        let now = self.bot_cpu()?;
        let ran = now.saturating_sub(Duration::from_nanos(before));
        let escaped = (ran > RAN_WHILE_FROZEN).then_some(ran);
        self.checked.store(escaped.is_none(), Ordering::Release);
        escaped
    }

    /// [`Freezer::ran_while_frozen`] at the bot's own turn, unless it was found not to have
    /// run after its opponent's move (a walk of its processes less a ply): a bot frozen
    /// since its `ready` whose opponent has not moved yet is looked at here.
    pub fn ran_while_frozen_unchecked(&self) -> Option<Duration> {
        match self.checked.load(Ordering::Acquire) {
            true => None,
            false => self.ran_while_frozen(),
        }
    }

    /// The CPU time the bot's processes used so far (its helper's own left out).
    fn bot_cpu(&self) -> Option<Duration> {
        super::runqueue::tree_cpu(self.group.as_raw_nonzero().get(), self.helper_leads)
    }

    /// Lets the group's processes go on (nothing when they are running).
    pub fn thaw(&self) {
        if self.frozen.swap(false, Ordering::AcqRel) {
            super::pause::frozen_now(self.group.as_raw_nonzero().get(), false);
            let _ = rustix::process::kill_process_group(self.group, Signal::CONT);
        }
    }
}

/// Before a turn of `mover`: the other seat's bot stops (now, or once the turn has lasted
/// [`LAZY`] when the mover's turn sees to it: `lazy[mover]`), the mover's goes on (now, or
/// as its turn is written: [`Freezer::thawed_by_turn`]).
pub fn hold(freezers: &[Option<Freezer>; 2], lazy: [bool; 2], mover: usize) {
    if let Some(other) = &freezers[1 - mover]
        && !lazy[mover]
    {
        other.freeze();
    }
    if let Some(own) = &freezers[mover]
        && !own.by_turn
    {
        own.thaw();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// The CPU time a process used, in clock ticks (utime + stime of /proc/PID/stat).
    fn ticks(pid: u32) -> u64 {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .unwrap()
            .1
            .split_whitespace()
            .collect();
        fields[11].parse::<u64>().unwrap() + fields[12].parse::<u64>().unwrap()
    }

    #[test]
    fn a_frozen_group_uses_no_cpu_until_thawed() {
        use std::os::unix::process::CommandExt;
        let mut spinner = std::process::Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .process_group(0)
            .spawn()
            .unwrap();
        let pid = spinner.id();
        let freezer = Freezer::new(Pid::from_raw(pid as i32).unwrap());
        std::thread::sleep(Duration::from_millis(200));
        freezer.freeze();
        std::thread::sleep(Duration::from_millis(50));
        let frozen_at = ticks(pid);
        std::thread::sleep(Duration::from_millis(500));
        assert_eq!(ticks(pid), frozen_at, "a frozen process ran");
        freezer.thaw();
        let until = std::time::Instant::now() + Duration::from_secs(10);
        while ticks(pid) == frozen_at {
            assert!(
                std::time::Instant::now() < until,
                "a thawed process never ran"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        spinner.kill().unwrap();
        spinner.wait().unwrap();
    }

    #[test]
    fn a_group_continued_behind_the_freezers_back_is_seen_to_have_run() {
        use std::os::unix::process::CommandExt;
        let mut spinner = std::process::Command::new("sh")
            .args(["-c", "while :; do :; done"])
            .process_group(0)
            .spawn()
            .unwrap();
        let pid = Pid::from_raw(spinner.id() as i32).unwrap();
        let freezer = Freezer::new(pid);
        std::thread::sleep(Duration::from_millis(100));
        freezer.freeze();
        std::thread::sleep(Duration::from_millis(100));
        // Stopped, it ran for nothing.
        assert_eq!(freezer.ran_while_frozen(), None);
        // Continued by a signal of its own: it runs while the freezer thinks it frozen.
        rustix::process::kill_process_group(pid, Signal::CONT).unwrap();
        std::thread::sleep(Duration::from_millis(300));
        let ran = freezer.ran_while_frozen();
        spinner.kill().unwrap();
        spinner.wait().unwrap();
        if super::super::runqueue::tree_cpu(std::process::id() as i32, false).is_none() {
            // A kernel without scheduler statistics: nothing to read.
            assert_eq!(ran, None);
            return;
        }
        assert!(
            ran.is_some_and(|r| r >= Duration::from_millis(50)),
            "{ran:?}"
        );
    }
}
