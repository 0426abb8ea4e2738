//! Ending a bot: the graceful shutdown after a game, the kill after a failure, reaping
//! the leader, sweeping whatever it left behind, and killing every bot when arbiter stops.

use super::spawn::Running;
use crate::bots::EndInfo;
use crate::bots::protocol::ToBot;
use crate::jail::cgroup;
use crate::jail::reaper::{self, leaders};
use crate::jail::sandbox;
use rustix::process::{Pid, Signal, WaitIdStatus};
use std::time::{Duration, Instant};
use wait_timeout::ChildExt;

/// After `end`, how long a bot may take to exit by itself before SIGTERM.
const EXIT_GRACE: Duration = Duration::from_millis(300);
/// After SIGTERM, how long before SIGKILL.
const TERM_GRACE: Duration = Duration::from_millis(200);
/// The longest wait to reap a SIGKILLed bot (a process in uninterruptible sleep).
const REAP_LIMIT: Duration = Duration::from_secs(2);

/// SIGKILLs the process group of every bot this process started and has not reaped yet,
/// every process of every bot's cgroup, every process of every sandboxed bot's uid, and
/// what left the groups: the processes carrying a token of this run, the descendants of
/// all these (found while the groups are stopped), the orphans this process inherited.
///
/// Bots run in their own process groups, so a Ctrl-C at the terminal does not reach them:
/// the command line's handler of SIGINT, SIGTERM and SIGHUP calls this (from a normal
/// thread, not from inside a signal handler: it takes locks) before arbiter exits.
pub fn kill_all_bots() {
    let groups: Vec<i32> = leaders().iter().copied().collect();
    for &pgid in &groups {
        if let Some(pid) = Pid::from_raw(pgid) {
            let _ = rustix::process::kill_process_group(pid, Signal::STOP);
        }
    }
    sandbox::kill_every_bot_process(&groups);
    for &pgid in &groups {
        if let Some(pid) = Pid::from_raw(pgid) {
            let _ = rustix::process::kill_process_group(pid, Signal::KILL);
        }
    }
    cgroup::kill_all();
    sandbox::kill_all_sandboxed();
    for orphan in reaper::living_inherited() {
        if let Some(pid) = Pid::from_raw(orphan.pid) {
            let _ = rustix::process::kill_process(pid, Signal::KILL);
        }
    }
}

impl Running {
    pub(super) fn signal_group(&self, signal: Signal) {
        if self.reaped {
            return;
        }
        // ESRCH (nobody left) is the good case; nothing else can be done about other errors.
        let _ = rustix::process::kill_process_group(self.pgid, signal);
    }

    /// SIGKILL to the whole group, and to the leader in case it left the group.
    pub(super) fn kill(&mut self) {
        if !self.killed
            && self.cgroup.is_none()
            && self.sandbox.is_none()
            && self.exit_status().is_none()
        {
            // Without a cgroup or a uid, a descendant that left the group and cleared its
            // environment is known by its parent alone, which it loses when the leader
            // dies: so the group is stopped and the leader's descendants are killed first.
            self.signal_group(Signal::STOP);
            let leader = self.pgid.as_raw_nonzero().get();
            sandbox::sweep_descendants(Some(leader), leader, &self.token);
        }
        self.signal_group(Signal::KILL);
        if !self.reaped {
            let _ = self.child.kill();
        }
        self.killed = true;
    }

    /// Waits (bounded) for the killed leader and collects it.
    pub(super) fn reap(&mut self) {
        if self.reaped {
            return;
        }
        if let Ok(Some(_)) = self.child.wait_timeout(REAP_LIMIT) {
            self.reaped = true;
            leaders().remove(&self.pgid.as_raw_nonzero().get());
        }
    }

    /// The leader's exit, if it has exited, without reaping it: while unreaped, its pid
    /// cannot be reused, so signalling the group cannot hit a stranger.
    pub(super) fn exit_status(&self) -> Option<WaitIdStatus> {
        super::spawn::exited(self.pgid)
    }

    pub(super) fn wait_exit(&self, limit: Duration) -> Option<WaitIdStatus> {
        let until = Instant::now() + limit;
        // The pidfd wakes this thread the moment the leader exits.
        if let Some(pidfd) = &self.pidfd {
            loop {
                if let Some(status) = self.exit_status() {
                    return Some(status);
                }
                let now = Instant::now();
                if now >= until {
                    return None;
                }
                if crate::bots::pipe::wait_for(pidfd, rustix::event::PollFlags::IN, until - now) {
                    // Readable yet no status (reaped elsewhere): no more waking by it.
                    if self.exit_status().is_none() {
                        break;
                    }
                }
            }
        }
        // A bot told `end` exits within a millisecond or two: look often at first.
        let mut pause = Duration::from_micros(250);
        loop {
            if let Some(status) = self.exit_status() {
                return Some(status);
            }
            if Instant::now() >= until {
                return None;
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(Duration::from_millis(10));
        }
    }

    /// Kills whatever of the bot is still around once its leader was dealt with: every
    /// process of its cgroup, then every process of its uid (sandbox), or every
    /// descendant that left its process group.
    pub(super) fn sweep(&mut self) {
        if self.swept {
            return;
        }
        if let Some(cgroup) = &self.cgroup {
            cgroup.kill();
        }
        let leader = self.pgid.as_raw_nonzero().get();
        let unreaped = (!self.reaped).then_some(leader);
        match &self.sandbox {
            Some(sb) => sb.sweep_except(unreaped),
            None => sandbox::sweep_descendants(unreaped, leader, &self.token),
        }
        if self.cgroup.is_none() && self.sandbox.is_none() {
            kill_unclaimed_orphans();
        }
        self.swept = true;
    }

    /// Tells a bot still running how its game ended.
    pub(super) fn send_end(&mut self, end: &EndInfo) {
        if !self.killed {
            self.send(&ToBot::End {
                result: end.result.to_string(),
                reason: end.reason.clone(),
            });
        }
    }

    /// Stdin closed (after `end`, when [`Running::send_end`] told it), a grace period,
    /// SIGTERM, a shorter one, SIGKILL, reap.
    pub(super) fn shut_down(&mut self) {
        if !self.killed {
            // The writer flushes what is queued, then drops the pipe: the bot sees EOF.
            self.to_stdin = None;
            if self.wait_exit(EXIT_GRACE).is_none() {
                self.signal_group(Signal::TERM);
                self.wait_exit(TERM_GRACE);
            }
        }
        // Also for a bot that exited by itself: its children may still hold the pipes.
        self.kill();
        self.to_stdin = None;
        self.reap();
        self.sweep();
    }
}

/// Kills the orphans arbiter inherited that no running bot can claim: not in a running
/// bot's process group, no bot's token in their environment. Only a bot's descendant that
/// left its group, cleared its environment and lost its parent looks so: once its bot
/// exited, nothing else tells whose it was, and no bot may keep a process past its game.
fn kill_unclaimed_orphans() {
    let orphans = reaper::living_inherited();
    if orphans.is_empty() {
        return;
    }
    let groups = leaders().clone();
    for orphan in orphans {
        if !groups.contains(&orphan.pgrp)
            && !sandbox::has_any_token(orphan.pid)
            && let Some(pid) = Pid::from_raw(orphan.pid)
        {
            let _ = rustix::process::kill_process(pid, Signal::KILL);
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        // An early return or a panic in the referee must leave no bot behind.
        self.kill();
        self.to_stdin = None;
        self.reap();
        self.sweep();
        if !self.waiting {
            super::spawn::LIVE_BOTS.fetch_sub(1, std::sync::atomic::Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bots::spec::CommandSpec;

    #[test]
    fn kill_all_bots_reaches_every_live_group() {
        // The lib's unit tests start no other bots, so killing every live group is safe here.
        let command = CommandSpec::new("sh").arg("-c").arg("sleep 30 & sleep 30");
        let mut run = Running::spawn(&command).expect("sh starts");
        let pgid = run.pgid.as_raw_nonzero().get();
        assert!(leaders().contains(&pgid));
        kill_all_bots();
        let status = run.wait_exit(Duration::from_secs(2)).expect("killed");
        assert_eq!(status.terminating_signal(), Some(9));
        run.shut_down();
        assert!(run.reaped);
        assert!(!leaders().contains(&pgid));
    }
}
