//! League throughput and memory: a 10,000-game league of in-process built-in bots, at
//! -j 1 and -j 2. Each measurement runs in a fresh child process so its peak RSS
//! (VmHWM) is its own.
//!
//! Run: cargo bench --bench league

use arbiter::bots::spec::BotSpec;
use arbiter::games::asalto::Asalto;
use arbiter::tournament::{self, Entrant, Format, Tournament};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

const GAMES: u32 = 10_000;
const CHILD: &str = "ARBITER_LEAGUE_BENCH_JOBS";

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn entrant(name: &str, spec: &str) -> Entrant {
    Entrant {
        name: name.into(),
        spec_text: spec.into(),
        spec: BotSpec::parse(spec).expect("valid spec"),
        cwd: None,
        env: BTreeMap::new(),
        confine: Default::default(),
        non_scoring: false,
    }
}

/// One league in this process; prints `games seconds peak_kib`.
fn child(jobs: usize) {
    let dir = std::env::temp_dir().join(format!(
        "arbiter-league-bench-{}-{jobs}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    // Two bots, GAMES / 2 role-swapped pairs: every game is a full Asalto game.
    let t = Tournament {
        format: Format::RoundRobin,
        entrants: vec![
            entrant("random", "builtin:random"),
            entrant("greedy", "builtin:greedy"),
        ],
        pairs: GAMES / 2,
        seed: 1,
        move_limit: Duration::from_secs(10),
        init_limit: Duration::from_secs(30),
        jobs,
        out: dir.clone(),
        force_new: false,
        openings: arbiter::tournament::openings::Openings::Standard,
    };
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let summary = tournament::run(
        &Asalto::default(),
        serde_json::Map::new(),
        &t,
        &stop,
        &mut |_| {},
    )
    .expect("league runs");
    let secs = started.elapsed().as_secs_f64();
    let journal = std::fs::metadata(dir.join("games.jsonl"))
        .map(|m| m.len())
        .unwrap_or(0);
    println!(
        "{} {secs} {} {journal}",
        summary.played,
        peak_rss_kib().unwrap_or(0)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn main() {
    if let Ok(jobs) = std::env::var(CHILD) {
        child(jobs.parse().expect("jobs"));
        return;
    }
    let me = std::env::current_exe().expect("own path");
    println!("league bench: {GAMES} games, builtin random vs builtin greedy, in-process, 2 cores");
    let mut rates = Vec::new();
    for jobs in [1usize, 2] {
        let out = std::process::Command::new(&me)
            .env(CHILD, jobs.to_string())
            .output()
            .expect("child runs");
        let text = String::from_utf8_lossy(&out.stdout);
        let fields: Vec<f64> = text
            .split_whitespace()
            .filter_map(|f| f.parse().ok())
            .collect();
        let [games, secs, kib, journal] = fields[..] else {
            panic!(
                "child failed: {text} {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        rates.push(games / secs);
        println!(
            "  -j {jobs}: {games} games in {secs:.2} s = {:.0} games/s; peak RSS {:.1} MiB; journal {:.1} MiB",
            games / secs,
            kib / 1024.0,
            journal / 1048576.0
        );
    }
    println!("  speed-up -j 2 over -j 1: {:.2}x", rates[1] / rates[0]);
}
