//! League throughput and memory at -j 1 and -j 2: a 10,000-game league of in-process
//! built-in bots, and a league of the same bots as subprocesses speaking the protocol
//! (`arbiter bot random`, `arbiter bot greedy`: two processes started per game, as for
//! any bot program). Each measurement runs in a fresh child process so its peak RSS
//! (VmHWM) and its CPU time (its own and its bots', user + system) are its own.
//!
//! Run: cargo bench --bench league (it builds the release `arbiter` binary first).
//! Knob: `BENCH_SUBPROCESS_GAMES` (default 1000).

use arbiter::bots::spec::{BotSpec, CommandSpec};
use arbiter::games::asalto::Asalto;
use arbiter::tournament::{self, Entrant, Format, Tournament};
use std::collections::BTreeMap;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

mod support;
use support::arbiter_binary;

const GAMES: u32 = 10_000;
const CHILD: &str = "ARBITER_LEAGUE_BENCH_JOBS";
const KIND: &str = "ARBITER_LEAGUE_BENCH_KIND";
const BINARY: &str = "ARBITER_LEAGUE_BENCH_BINARY";

/// CPU seconds (user + system) of this process and of its reaped children.
fn cpu_seconds() -> f64 {
    let of = |who| {
        // SAFETY: getrusage only writes the struct it is given.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        unsafe { libc::getrusage(who, &mut usage) };
        let tv = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        tv(usage.ru_utime) + tv(usage.ru_stime)
    };
    of(libc::RUSAGE_SELF) + of(libc::RUSAGE_CHILDREN)
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "?".into())
}

fn peak_rss_kib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn entrant(name: &str, spec: &str) -> Entrant {
    with_spec(name, spec, BotSpec::parse(spec).expect("valid spec"))
}

/// `arbiter bot NAME` as a bot program.
fn subprocess(binary: &str, name: &str) -> Entrant {
    let spec = BotSpec::Command(CommandSpec::new(binary).arg("bot").arg(name));
    with_spec(name, &format!("{binary} bot {name}"), spec)
}

fn with_spec(name: &str, spec_text: &str, spec: BotSpec) -> Entrant {
    Entrant {
        name: name.into(),
        spec_text: spec_text.into(),
        spec,
        cwd: None,
        env: BTreeMap::new(),
        confine: Default::default(),
        non_scoring: false,
    }
}

/// One league in this process; prints `games seconds peak_kib journal_bytes cpu_seconds`.
fn child(jobs: usize, games: u32, binary: Option<String>) {
    let dir = std::env::temp_dir().join(format!(
        "arbiter-league-bench-{}-{jobs}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let entrants = match &binary {
        Some(bin) => vec![subprocess(bin, "random"), subprocess(bin, "greedy")],
        None => vec![
            entrant("random", "builtin:random"),
            entrant("greedy", "builtin:greedy"),
        ],
    };
    // Two bots, games / 2 role-swapped pairs: every game is a full Asalto game.
    let t = Tournament {
        format: Format::RoundRobin,
        entrants,
        pairs: games / 2,
        seed: 1,
        move_limit: Duration::from_secs(10),
        init_limit: Duration::from_secs(30),
        jobs,
        out: dir.clone(),
        force_new: false,
        openings: arbiter::tournament::openings::Openings::Standard,
        shard: None,
        left_out: Vec::new(),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let cpu = cpu_seconds();
    let started = Instant::now();
    let summary = tournament::run(
        &Asalto::default(),
        serde_json::Map::new(),
        &t,
        &stop,
        // The tables kept up to date as the CLI keeps them.
        &mut |event| match event {
            tournament::LeagueEvent::Counted { plan, tally } => {
                arbiter::report::write_counted_tables(&dir, plan, tally, None).map(drop)
            }
            _ => Ok(()),
        },
    )
    .expect("league runs");
    let secs = started.elapsed().as_secs_f64();
    let cpu = cpu_seconds() - cpu;
    let journal = std::fs::metadata(dir.join("games.jsonl"))
        .map(|m| m.len())
        .unwrap_or(0);
    println!(
        "{} {secs} {} {journal} {cpu}",
        summary.played,
        peak_rss_kib().unwrap_or(0)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs one league per -j in a child process; prints each rate and the speed-up.
fn league(me: &std::path::Path, label: &str, games: u32, binary: Option<&str>) {
    println!(
        "{label}: {games} games, random vs greedy, 2 cores; load at the start {}",
        load()
    );
    let mut rates = Vec::new();
    for jobs in [1usize, 2] {
        let mut command = Command::new(me);
        command
            .env(CHILD, jobs.to_string())
            .env(KIND, games.to_string());
        if let Some(bin) = binary {
            command.env(BINARY, bin);
        }
        let out = command.output().expect("child runs");
        let text = String::from_utf8_lossy(&out.stdout);
        let fields: Vec<f64> = text
            .split_whitespace()
            .filter_map(|f| f.parse().ok())
            .collect();
        let [games, secs, kib, journal, cpu] = fields[..] else {
            panic!(
                "child failed: {text} {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        rates.push(games / secs);
        println!(
            "  -j {jobs}: {games} games in {secs:.2} s = {:.0} games/s; CPU {:.0} us a game; peak RSS {:.1} MiB; journal {:.1} MiB",
            games / secs,
            cpu * 1e6 / games,
            kib / 1024.0,
            journal / 1048576.0
        );
    }
    println!(
        "  speed-up -j 2 over -j 1: {:.2}x (target: at least 1.85x on 2 idle cores); load at the end {}",
        rates[1] / rates[0],
        load()
    );
}

fn main() {
    if let Ok(jobs) = std::env::var(CHILD) {
        let games = std::env::var(KIND).ok().and_then(|g| g.parse().ok());
        child(
            jobs.parse().expect("jobs"),
            games.unwrap_or(GAMES),
            std::env::var(BINARY).ok(),
        );
        return;
    }
    let me = std::env::current_exe().expect("own path");
    league(&me, "in-process built-ins", GAMES, None);
    let bin = arbiter_binary();
    let games = std::env::var("BENCH_SUBPROCESS_GAMES")
        .ok()
        .and_then(|g| g.parse().ok())
        .unwrap_or(1000);
    league(
        &me,
        "subprocess built-ins (`arbiter bot`)",
        games,
        Some(&bin.to_string_lossy()),
    );
}
