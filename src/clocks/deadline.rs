//! A move's deadline: the limit from the moment the bot was asked, moved by a pause of the
//! run and by the time the machine kept the bot waiting for a CPU, and whose it was when it
//! passed. Every wait for a bot's reply (a protocol bot's turn, a console program's run)
//! keeps one [`MoveClock`].

use super::runqueue;
use std::time::{Duration, Instant};

/// `from + limit`, for any limit a configuration can hold (no overflow panic).
pub fn deadline_after(from: Instant, limit: Duration) -> Instant {
    const FAR: Duration = Duration::from_secs(365 * 24 * 3600);
    from.checked_add(limit.min(FAR)).unwrap_or(from)
}

/// Whose a deadline passed without a reply was.
pub enum Late {
    /// The bot's: its own time ran out.
    Own,
    /// The machine's: the deadline stretched as far as it goes while the bot's own time
    /// was still within its limit, with this much time it waited for a CPU.
    Machine(Duration),
}

/// A move's deadline, which moves by the time arbiter was stopped (Ctrl-Z: so was the bot)
/// and by the time the machine kept the bot waiting for a CPU ([`super::runqueue`]), up to
/// `runqueue::MAX_STRETCH` times the limit.
pub struct MoveClock {
    asked: Instant,
    limit: Duration,
    deadline: Instant,
    /// The deadline before any stretch (a pause's aside).
    first_deadline: Instant,
    cap: Instant,
    /// When the bot's counters are first read: only once a move lasts (most replies come
    /// before), at no cost to a quick one.
    look_at: Instant,
    threshold: Duration,
    leader: i32,
    watch: runqueue::Watch,
    paused_at_start: Duration,
    /// How far a pause moved the deadline.
    paused: Duration,
    /// For a program that ends by exiting ([`MoveClock::sampled`]): how often its counters
    /// are read after the first look, and when next.
    sampling: Option<(Duration, Instant)>,
}

impl MoveClock {
    /// The clock of a wait asked for at `asked`, due by `deadline`, of the bot whose
    /// process group `leader` leads.
    pub fn new(asked: Instant, deadline: Instant, leader: i32) -> MoveClock {
        let limit = deadline.saturating_duration_since(asked);
        MoveClock {
            asked,
            limit,
            deadline,
            first_deadline: deadline,
            cap: deadline_after(asked, limit.saturating_mul(runqueue::MAX_STRETCH)),
            look_at: asked + runqueue::first_look(limit),
            threshold: runqueue::threshold(limit),
            leader,
            watch: runqueue::Watch::begin(),
            paused_at_start: super::pause::paused(),
            paused: Duration::ZERO,
            sampling: None,
        }
    }

    /// The same clock for a program whose move ends with its exit (a console bot's run):
    /// its tasks' counters go with it, so the wait it had since the last reading would be
    /// lost at its end; they are read every eighth of the limit once the move lasts.
    pub fn sampled(self) -> MoveClock {
        let every = (self.limit / 8).max(Duration::from_millis(10));
        MoveClock {
            sampling: Some((every, self.look_at + every)),
            ..self
        }
    }

    /// The deadline as it stands.
    pub fn deadline(&self) -> Instant {
        self.deadline
    }

    /// When a wait must end to keep the clock: the deadline, or the first look at the
    /// bot's counters while it is to come.
    pub fn wake(&self) -> Instant {
        match (self.watch.looked(), self.sampling) {
            (false, _) => self.deadline.min(self.look_at),
            (true, Some((_, next))) => self.deadline.min(next),
            (true, None) => self.deadline,
        }
    }

    /// Reads the bot's counters for the first time, when that is due at `now` (and, for a
    /// [`MoveClock::sampled`] clock, again at each reading due).
    pub fn look(&mut self, now: Instant) {
        if !self.watch.looked() {
            if now >= self.look_at {
                self.watch.look(self.leader);
            }
            return;
        }
        if let Some((every, next)) = self.sampling
            && now >= next
        {
            self.sampling = Some((every, now + every));
            self.watch.measure(self.leader, self.threshold);
            self.follow_the_wait();
        }
    }

    /// Moves the deadline to the first one plus all the wait given back so far (up to the
    /// cap); whether it moved.
    fn follow_the_wait(&mut self) -> bool {
        let target = (self.first_deadline + self.watch.given).min(self.cap);
        let moved = target > self.deadline;
        if moved {
            self.deadline = target;
        }
        moved
    }

    /// At the deadline: moves it by a pause of the run or by the machine's wait since it
    /// was last moved, and says whether it moved.
    pub fn stretch(&mut self) -> bool {
        let paused = super::pause::paused().saturating_sub(self.paused_at_start);
        if paused > self.paused {
            let by = paused - self.paused;
            self.deadline += by;
            self.first_deadline += by;
            self.cap += by;
            self.paused = paused;
            return true;
        }
        if self.deadline >= self.cap {
            // Measured once more, so that whose the passed deadline is ([`Self::late`]) is
            // judged by the wait up to the cap, not up to the last stretch (at which the
            // bot's own time was, by construction, its whole limit).
            self.watch.measure(self.leader, self.threshold);
            return false;
        }
        self.watch.measure(self.leader, self.threshold);
        self.follow_the_wait()
    }

    /// The time given back so far for the machine's wait.
    pub fn given(&self) -> Duration {
        self.watch.given
    }

    /// The time given back for the machine's wait, once the reply was seen at `at`: a
    /// reply seen past its first deadline (a move the wait stretched, or a reply the
    /// referee itself was kept from seeing in time) is measured once more, so that the wait
    /// since the last look is given back too; a move answered in time costs nothing more.
    pub fn settle(&mut self, at: Instant) -> Duration {
        if at > self.first_deadline {
            self.watch.measure(self.leader, self.threshold);
        }
        self.watch.given
    }

    /// The time a pause of the run moved the deadline by.
    pub fn paused(&self) -> Duration {
        self.paused
    }

    /// Whose the passed deadline is, at `now`.
    pub fn late(&self, now: Instant) -> Late {
        let own = now
            .saturating_duration_since(self.asked)
            .saturating_sub(self.paused)
            .saturating_sub(self.watch.given);
        if now >= self.cap && !self.watch.given.is_zero() && own < self.limit {
            Late::Machine(self.watch.given)
        } else {
            Late::Own
        }
    }
}
