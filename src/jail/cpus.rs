//! The CPUs a bot starts on: every CPU arbiter may use, whatever CPU the thread that
//! starts it is placed on (`clocks::placement` places it once it is ready).

use rustix::thread::{CpuSet, sched_getaffinity, sched_setaffinity};
use std::sync::OnceLock;

/// The CPUs the process may use, as it started: bots start on all of them.
pub fn process_cpus() -> &'static CpuSet {
    static CPUS: OnceLock<CpuSet> = OnceLock::new();
    // The main thread's set (its tid is the pid): the threads that place games change
    // their own set, never the main thread's before this is read.
    CPUS.get_or_init(|| {
        sched_getaffinity(Some(rustix::process::getpid()))
            .or_else(|_| sched_getaffinity(None))
            .unwrap_or_else(|_| {
                let mut all = CpuSet::new();
                (0..CpuSet::MAX_CPU).for_each(|cpu| all.set(cpu));
                all
            })
    })
}

/// For `pre_exec`, after `fork`: the child runs on every CPU of the process, whatever
/// CPU the thread that started it was placed on (one raw system call).
pub(crate) fn unplace_child(cpus: &CpuSet) {
    let _ = sched_setaffinity(None, cpus);
}
