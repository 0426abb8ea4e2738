//! What a report costs against the league it reports on: a league of four in-process
//! Asalto built-ins (`BENCH_PAIRS` role-swapped pairs per pairing, default 1000: 12,000
//! games) at -j 1 and at -j 2 (the whole command, its own report included: the speed-up),
//! then `arbiter report` of its folder, which replays every game for the
//! page's game browser: with rayon's threads (what `arbiter report` does), and with one
//! replaying thread (`RAYON_NUM_THREADS=1`, the baseline). Each report's page is checked to be the
//! same.
//!
//! Run: cargo build --release && cargo bench --bench report (it runs the release arbiter).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn timed(cmd: &mut Command) -> Duration {
    let started = Instant::now();
    let out = cmd.output().expect("arbiter runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    started.elapsed()
}

fn main() {
    let arbiter = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/release/arbiter");
    assert!(arbiter.is_file(), "run `cargo build --release` first");
    let pairs: u32 = std::env::var("BENCH_PAIRS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let dir = tempfile::tempdir().expect("a folder");
    let league_at = |jobs: &str, name: &str| {
        let out = dir.path().join(name);
        let took = timed(
            Command::new(&arbiter)
                .args(["league", "--game", "asalto", "-q", "-j", jobs, "--pairs"])
                .arg(pairs.to_string())
                .arg("--out")
                .arg(&out)
                .args(["a=builtin:random", "b=builtin:greedy", "c=builtin:random"])
                .arg("d=builtin:greedy"),
        );
        (out, took)
    };
    // The whole command, its own report included, at -j 1 then -j 2.
    let (_, serial) = league_at("1", "league-j1");
    let (league, played) = league_at("2", "league");
    let games = 12 * pairs;
    let report = |threads: Option<&str>, out: &str| {
        let mut cmd = Command::new(&arbiter);
        cmd.arg("report")
            .arg(&league)
            .arg("--out")
            .arg(dir.path().join(out));
        if let Some(n) = threads {
            cmd.env("RAYON_NUM_THREADS", n);
        }
        timed(&mut cmd)
    };
    let one = report(Some("1"), "one");
    let all = report(None, "all");
    let page = |out: &str| std::fs::read(dir.path().join(out).join("index.html")).unwrap();
    assert!(page("one") == page("all"), "the two reports differ");
    let s = |d: Duration| d.as_secs_f64();
    println!(
        "league of {games} games (its own report included): {:.2} s at -j 1, {:.2} s at -j 2: \
         {:.2}x faster (target: at least 1.85x)",
        s(serial),
        s(played),
        s(serial) / s(played)
    );
    println!(
        "arbiter report (every game replayed): {:.2} s on one thread, {:.2} s on {} \
         threads: {:.2}x faster; report / league: {:.2}",
        s(one),
        s(all),
        std::thread::available_parallelism().map_or(1, |n| n.get()),
        s(one) / s(all),
        s(all) / s(played)
    );
}
