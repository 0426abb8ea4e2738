//! What freezing the waiting bot costs a game of quick bots, the games a student plays by
//! the thousand to test a bot (`sprt`, `gauntlet`): one 1000-round Asalto game of arbiter's
//! own protocol bots (`arbiter bot greedy` against `arbiter bot random`, moves of tens of
//! microseconds) through `arbiter play`, its start-up included, as it plays and with
//! `ARBITER_FREEZE=off`, in turns (which goes first alternates), `BENCH_RUNS` times each.
//!
//! It is played twice over: on the machine as it is, and beside a busy core (a thread of
//! this bench spinning on the last CPU, as another program of the machine would). Each
//! prints the medians, the ratio of each run to the run beside it (median and a
//! distribution-free 95% confidence interval: a run and its neighbour share the machine's
//! drift) and the difference a ply. Goals (issue 55): at most 1.05x on a quiet machine,
//! 1.15x beside a busy core.
//!
//! Run: cargo bench --bench freeze. Knobs: `BENCH_RUNS` (default 15), `BENCH_ARBITER` (the
//! arbiter program, default this tree's release build).

use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

mod support;
use support::{Paired, median, median_interval};

const PLIES: f64 = 2000.0;

/// One game's wall time in seconds, freezing or not.
fn game(bin: &std::path::Path, freezing: bool) -> f64 {
    let bot = |kind: &str| format!("{} bot {kind}", bin.display());
    let mut command = Command::new(bin);
    match freezing {
        true => command.env_remove("ARBITER_FREEZE"),
        false => command.env("ARBITER_FREEZE", "off"),
    };
    command
        .args([
            "play",
            "--rebel",
            &bot("greedy"),
            "--officer",
            &bot("random"),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let started = Instant::now();
    let out = command.output().expect("arbiter play runs");
    let wall = started.elapsed().as_secs_f64();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("after 1000 rounds"),
        "the game ran its 1000 rounds: {text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    wall
}

/// A thread spinning on the last CPU until the flag drops.
fn busy_core(stop: Arc<AtomicBool>) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
        let mut set = rustix::thread::CpuSet::new();
        set.set(cpus - 1);
        let _ = rustix::thread::sched_setaffinity(None, &set);
        let mut x = 0u64;
        while !stop.load(Ordering::Relaxed) {
            x = std::hint::black_box(x.wrapping_add(1));
        }
    })
}

fn measure(bin: &std::path::Path, runs: usize, label: &str) {
    let (mut on, mut off) = (Vec::new(), Vec::new());
    for run in 0..runs {
        // Which goes first alternates: a drift within a pair favours neither.
        if run % 2 == 0 {
            on.push(game(bin, true));
            off.push(game(bin, false));
        } else {
            off.push(game(bin, false));
            on.push(game(bin, true));
        }
    }
    let paired = Paired::new(&on, &off);
    let costs: Vec<f64> = on
        .iter()
        .zip(&off)
        .map(|(a, b)| (a - b) / PLIES * 1e6)
        .collect();
    let (cost, interval) = median_interval(costs);
    let interval = interval.map_or(String::new(), |(lo, hi)| {
        format!(" (95% CI {lo:.2} to {hi:.2})")
    });
    println!("  {label}, medians of {runs}:");
    println!(
        "    frozen {:.1} ms, ARBITER_FREEZE=off {:.1} ms: {:.3}x wall, {}",
        median(on) * 1000.0,
        median(off) * 1000.0,
        paired.arbiter / paired.baseline,
        paired.ratio_text()
    );
    println!("    freezing costs {cost:.2} us a ply run by run{interval}");
}

fn main() {
    let runs: usize = std::env::var("BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(15)
        .max(1);
    let bin = support::arbiter_binary();
    println!(
        "freeze bench: one 1000-round Asalto game of `arbiter bot greedy` against `arbiter bot random` through `arbiter play`, freezing on and off in turns"
    );
    // A first game of each warms the page cache and the jail's helper binary.
    game(&bin, true);
    game(&bin, false);
    measure(
        &bin,
        runs,
        "on the machine as it is (goal: at most 1.05x quiet)",
    );
    let stop = Arc::new(AtomicBool::new(false));
    let spinner = busy_core(stop.clone());
    measure(&bin, runs, "beside a busy core (goal: at most 1.15x)");
    stop.store(true, Ordering::Relaxed);
    spinner.join().expect("the spinner ends");
}
