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
use std::sync::OnceLock;

/// Set to `off`, no bot is ever frozen: [`Freezer::freeze`] does nothing (read once).
pub const DISABLE_VAR: &str = "ARBITER_FREEZE";

/// Whether freezing is on: unless [`DISABLE_VAR`] is `off`, read at the first freeze.
pub fn enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| std::env::var_os(DISABLE_VAR).is_none_or(|v| v != "off"))
}

/// One bot's process group, stopped or running.
#[derive(Debug)]
pub struct Freezer {
    group: Pid,
    frozen: bool,
}

impl Freezer {
    /// The freezer of the process group `group`, running. Only for a group whose leader is
    /// not reaped before the freezer is thawed for the last time (its id cannot be reused
    /// meanwhile).
    pub fn new(group: Pid) -> Freezer {
        Freezer {
            group,
            frozen: false,
        }
    }

    /// Stops every process of the group (one signal; nothing when it is stopped already, or
    /// when freezing is turned off, [`DISABLE_VAR`]).
    pub fn freeze(&mut self) {
        if !self.frozen && enabled() {
            // ESRCH (the bot is gone) is its own affair: its turn will say so.
            super::pause::frozen_now(self.group.as_raw_nonzero().get(), true);
            let _ = rustix::process::kill_process_group(self.group, Signal::STOP);
            self.frozen = true;
        }
    }

    /// Lets the group's processes go on.
    pub fn thaw(&mut self) {
        if self.frozen {
            super::pause::frozen_now(self.group.as_raw_nonzero().get(), false);
            let _ = rustix::process::kill_process_group(self.group, Signal::CONT);
            self.frozen = false;
        }
    }
}

/// Before a turn of `mover`: the other seat's bot stops, the mover's goes on.
pub fn hold(freezers: &mut [Option<Freezer>; 2], mover: usize) {
    if let Some(other) = &mut freezers[1 - mover] {
        other.freeze();
    }
    if let Some(own) = &mut freezers[mover] {
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
        let mut freezer = Freezer::new(Pid::from_raw(pid as i32).unwrap());
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
