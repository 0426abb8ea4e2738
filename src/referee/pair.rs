//! A game on two CPUs: the second seat's turns run on a thread of their own, placed on a
//! second CPU with that seat's bot, while the referee's thread stays on the game's CPU with
//! the first seat's bot. The two threads pass each turn through memory.
//!
//! Why: two bots taking turns on one CPU evict each other's caches, and a bot woken on
//! another CPU costs tens of microseconds more on a virtual machine. Here every bot is
//! woken on its own CPU by a thread already running there, and each bot keeps its CPU's
//! caches: a 1000-round game of two quick course bots (moves of 20-25 µs) took 1.16 times
//! as long on one CPU as on two (`arbiter play`, 9 alternated runs). The gain is the quick
//! bots': for bots that think about 0.25 ms a move, one CPU and two came out the same
//! within 1% (30 alternated runs). (For moves of a millisecond one CPU is some 15 µs a
//! move cheaper; going back to one CPU once a game's recent moves were long gained nothing
//! measurable on course bots, so a game stays paired.) The price: while one bot thinks,
//! the thread on the other CPU waits spinning, for at most [`SPIN`] a move before it
//! sleeps; no thread spins while no bot is thinking but for the referee's own work between
//! two turns.
//!
//! The second CPU is taken as a game takes its CPU ([`Placement::take`]): one no other
//! game holds. Without one free, or when the second seat cannot be placed, the game is
//! played on one CPU as usual.

use crate::bots::{Player, TurnReply};
use crate::clocks::placement::Placement;
use crate::games::{Game, Side};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU8, Ordering};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// How long a thread waiting for the other spins before it sleeps: longer than a quick
/// bot's move and the referee's work between turns, short against a move worth sleeping
/// through (the wake-up then costs tens of microseconds once).
pub(crate) const SPIN: Duration = Duration::from_millis(2);

/// The second seat's thread is starting (taking its CPU, placing its bot).
const STARTING: u8 = 0;
/// Waiting for a turn.
const IDLE: u8 = 1;
/// A turn is asked for (the position is in `position`).
const ASKED: u8 = 2;
/// The turn's reply is in `reply`.
const ANSWERED: u8 = 3;
/// The game is over: the thread ends.
const STOP: u8 = 4;
/// The thread ended without taking a CPU, or unexpectedly.
const GONE: u8 = 5;

struct Handover<G: Game> {
    step: AtomicU8,
    position: Mutex<Option<G::State>>,
    reply: Mutex<Option<TurnReply<G::Move>>>,
    referee: Thread,
}

impl<G: Game> Handover<G> {
    fn set(&self, step: u8, wake: &Thread) {
        self.step.store(step, Ordering::Release);
        // Only a system call when `wake` sleeps.
        wake.unpark();
    }
}

/// Marks the hand-over `GONE` however the second seat's thread ends, unless the game
/// stopped it: the referee's thread never waits for a thread that is gone.
struct Leaving<'h, G: Game>(&'h Handover<G>);

impl<G: Game> Drop for Leaving<'_, G> {
    fn drop(&mut self) {
        if self.0.step.load(Ordering::Acquire) != STOP {
            self.0.set(GONE, &self.0.referee);
        }
    }
}

/// Waits until `step` holds one of `wanted`, spinning at most `spin`, then sleeping until
/// woken (with a timeout, against a lost wake-up).
fn wait_for(step: &AtomicU8, wanted: &[u8], spin: Duration) -> u8 {
    let started = Instant::now();
    let mut spins: u32 = 0;
    let mut spinning = !spin.is_zero();
    loop {
        let now = step.load(Ordering::Acquire);
        if wanted.contains(&now) {
            return now;
        }
        if spinning {
            std::hint::spin_loop();
            spins = spins.wrapping_add(1);
            // The clock is read every few hundred turns of the loop only.
            if spins.is_multiple_of(256) && started.elapsed() >= spin {
                spinning = false;
            }
        } else {
            std::thread::park_timeout(Duration::from_millis(20));
        }
    }
}

/// Plays with the second seat on a CPU of its own when one is free: `play` gets the turn
/// of either side. `None` when no second CPU was had: the caller plays on one CPU.
pub(crate) fn play<G: Game, R>(
    game: &G,
    seats: &mut [&mut dyn Player<G>; 2],
    play: impl FnOnce(&mut super::TurnOf<'_, G>) -> R,
) -> Option<R> {
    let handover: Handover<G> = Handover {
        step: AtomicU8::new(STARTING),
        position: Mutex::new(None),
        reply: Mutex::new(None),
        referee: std::thread::current(),
    };
    let [first, second] = seats;
    std::thread::scope(|scope| {
        let handover = &handover;
        let second: &mut dyn Player<G> = &mut **second;
        let worker = scope.spawn(move || {
            let leaving = Leaving(handover);
            // This thread takes a CPU no game holds, and the seat's bot comes along.
            let Some(cpu) = Placement::take() else {
                return;
            };
            if !second.place(&cpu) {
                return;
            }
            handover.set(IDLE, &handover.referee);
            while wait_for(&handover.step, &[ASKED, STOP], SPIN) == ASKED {
                let position = lock(&handover.position).take();
                let Some(position) = position else {
                    return;
                };
                let turn = second.turn(game, &position);
                *lock(&handover.reply) = Some(turn);
                handover.set(ANSWERED, &handover.referee);
            }
            drop(leaving);
        });
        let worker_thread = worker.thread().clone();
        // Without spinning: the new thread starts on this thread's CPU (it inherits the
        // game's placement) and must run there before it takes its own.
        if wait_for(&handover.step, &[IDLE, GONE], Duration::ZERO) == GONE {
            return None;
        }
        let mut turn_of = |side: Side, position: &G::State| -> TurnReply<G::Move> {
            match side {
                Side::First => first.turn(game, position),
                Side::Second => {
                    *lock(&handover.position) = Some(position.clone());
                    handover.set(ASKED, &worker_thread);
                    let got = wait_for(&handover.step, &[ANSWERED, GONE], SPIN);
                    let reply = lock(&handover.reply).take();
                    match (got, reply) {
                        (ANSWERED, Some(reply)) => {
                            handover.step.store(IDLE, Ordering::Release);
                            reply
                        }
                        _ => panic!("the second seat's thread ended during its turn"),
                    }
                }
            }
        };
        // Stopped however the game ends, a panic included: else the scope would wait for
        // a thread that waits for a turn.
        let _stop = Stop(handover, worker_thread.clone());
        Some(play(&mut turn_of))
    })
}

struct Stop<'h, G: Game>(&'h Handover<G>, Thread);

impl<G: Game> Drop for Stop<'_, G> {
    fn drop(&mut self) {
        self.0.set(STOP, &self.1);
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// CPU time of the calling thread.
    fn thread_cpu() -> Duration {
        // SAFETY: clock_gettime writes the struct it is given.
        let mut t: libc::timespec = unsafe { std::mem::zeroed() };
        unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
        Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
    }

    #[test]
    fn a_wait_spins_briefly_then_sleeps_until_woken() {
        let step = Arc::new(AtomicU8::new(IDLE));
        let (tx, rx) = std::sync::mpsc::channel();
        let waiter = {
            let step = step.clone();
            std::thread::spawn(move || {
                tx.send(std::thread::current()).unwrap();
                let cpu = thread_cpu();
                let started = Instant::now();
                let got = wait_for(&step, &[ANSWERED], SPIN);
                (got, started.elapsed(), thread_cpu() - cpu)
            })
        };
        let thread = rx.recv().unwrap();
        // A move far longer than the spin: the waiter must sleep through most of it.
        std::thread::sleep(Duration::from_millis(300));
        step.store(ANSWERED, Ordering::Release);
        thread.unpark();
        let (got, waited, cpu) = waiter.join().unwrap();
        assert_eq!(got, ANSWERED);
        assert!(waited >= Duration::from_millis(290), "waited {waited:?}");
        assert!(
            cpu < Duration::from_millis(100),
            "the waiter spent {cpu:?} of CPU waiting {waited:?}: it spun instead of sleeping"
        );
    }

    #[test]
    fn a_wait_sees_a_step_set_while_it_spins() {
        let step = Arc::new(AtomicU8::new(IDLE));
        let waiter = {
            let step = step.clone();
            std::thread::spawn(move || wait_for(&step, &[ANSWERED, GONE], SPIN))
        };
        step.store(GONE, Ordering::Release);
        assert_eq!(waiter.join().unwrap(), GONE);
    }
}
