//! The waiting bot is frozen: while one side is to move, no process of the other runs, as
//! in the course's referee, which runs one bot at a time, so that the clock a bot faces
//! measures its own work. A bot's processes are its process group, which a jailed bot's
//! processes cannot leave (the jail's filter refuses `setsid` and `setpgid`): `SIGSTOP` to
//! the group stops them all at once, its helper included, and `SIGCONT` lets them go on.
//!
//! `ARBITER_FREEZE=off` in arbiter's environment ([`DISABLE_VAR`]) leaves both bots running
//! throughout, as before freezing: for measuring what freezing costs (benches/python.rs
//! plays the same games both ways), and a way back should it ever be in the way.

use rustix::process::{Pid, Signal};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

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
            by_turn: false,
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
        }
    }

    /// Lets the group's processes go on (nothing when they are running).
    pub fn thaw(&self) {
        if self.frozen.swap(false, Ordering::AcqRel) {
            super::pause::frozen_now(self.group.as_raw_nonzero().get(), false);
            let _ = rustix::process::kill_process_group(self.group, Signal::CONT);
        }
    }
}

/// Before a turn of `mover`: the other seat's bot stops, the mover's goes on (now, or as
/// its turn is written: [`Freezer::thawed_by_turn`]).
pub fn hold(freezers: &[Option<Freezer>; 2], mover: usize) {
    if let Some(other) = &freezers[1 - mover] {
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
}
