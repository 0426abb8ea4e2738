//! League throughput and memory at -j 1 and -j 2: a 10,000-game league of in-process
//! built-in bots, a league of the same bots as subprocesses speaking the protocol
//! (`arbiter bot random`, `arbiter bot greedy`: two processes started per game, as for
//! any bot program), and a league of course Python bots (bots/python/examples:
//! random_bot.py against greedy_bot.py, behind the course adapter, confined as
//! `arbiter league` confines them). Each measurement runs in a fresh child process so its
//! peak RSS (VmHWM) and its CPU time (its own and its bots', user + system) are its own.
//!
//! Besides the rate, each line gives how busy the cores were: the CPU seconds of arbiter
//! and its bots over wall seconds times cores (on a machine shared with other work, the
//! cores it did not get count as idle). The Python league is measured with the next
//! games' bots started ahead (`ARBITER_PRESTART=1`, the default while a core is left over
//! from the games in play) and without (`ARBITER_PRESTART=0`, the default with a game on
//! every core), in turns, `BENCH_ROUNDS` times; each figure is the median of its rounds.
//!
//! Run: cargo bench --bench league (it builds the release `arbiter` binary first).
//! Knobs: `BENCH_SUBPROCESS_GAMES` (default 1000), `BENCH_PYTHON_GAMES` (default 60),
//! `BENCH_ROUNDS` (default 1), `BENCH_AHEAD` (the games ahead to compare, default `0,1`),
//! `BENCH_ONLY=python` (the Python league alone).

use arbiter::bots::spec::{BotSpec, CommandSpec};
use arbiter::games::asalto::Asalto;
use arbiter::tournament::{self, Entrant, Format, PRESTART_VAR, Tournament};
use std::collections::BTreeMap;
use std::path::Path;
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
const PYTHON_BOTS: &str = "ARBITER_LEAGUE_BENCH_PYTHON_BOTS";

/// The bots of a league.
#[derive(Clone)]
enum Bots {
    /// In-process built-in engines.
    Builtin,
    /// `arbiter bot NAME` programs of this binary.
    Subprocess(String),
    /// The course Python examples in this folder.
    Python(String),
}

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
        file: None,
    }
}

/// One league in this process; prints `games seconds peak_kib journal_bytes cpu_seconds`.
fn child(jobs: usize, games: u32, bots: Bots) {
    let dir = std::env::temp_dir().join(format!(
        "arbiter-league-bench-{}-{jobs}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let entrants = match &bots {
        Bots::Subprocess(bin) => vec![subprocess(bin, "random"), subprocess(bin, "greedy")],
        Bots::Builtin => vec![
            entrant("random", "builtin:random"),
            entrant("greedy", "builtin:greedy"),
        ],
        // As `arbiter league` takes a course bot: its file as the spec.
        Bots::Python(folder) => ["random_bot", "greedy_bot"]
            .iter()
            .map(|name| entrant(name, &format!("{folder}/{name}.py")))
            .collect(),
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
        update: false,
        openings: arbiter::tournament::openings::Openings::Standard,
        shard: None,
        left_out: Vec::new(),
        merged: Vec::new(),
        refused: Vec::new(),
        replays: false,
        chores: None,
        live: None,
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

/// One measured league.
struct Measured {
    games: f64,
    secs: f64,
    kib: f64,
    journal: f64,
    cpu: f64,
}

impl Measured {
    fn rate(&self) -> f64 {
        self.games / self.secs
    }

    /// CPU seconds of arbiter and its bots over wall seconds times cores.
    fn busy(&self) -> f64 {
        self.cpu / (self.secs * cores() as f64)
    }
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// One league at `jobs` in a child process; `prestart` as `ARBITER_PRESTART` gets it.
fn measure(me: &Path, jobs: usize, games: u32, bots: &Bots, prestart: Option<&str>) -> Measured {
    let mut command = Command::new(me);
    command
        .env(CHILD, jobs.to_string())
        .env(KIND, games.to_string());
    match bots {
        Bots::Builtin => {}
        Bots::Subprocess(bin) => {
            command.env(BINARY, bin);
        }
        Bots::Python(folder) => {
            command.env(PYTHON_BOTS, folder);
        }
    }
    // Without a number of its own, the child inherits the bench's.
    if let Some(value) = prestart {
        command.env(PRESTART_VAR, value);
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
    Measured {
        games,
        secs,
        kib,
        journal,
        cpu,
    }
}

fn print_line(jobs: usize, m: &Measured) {
    println!(
        "  -j {jobs}: {} games in {:.2} s = {:.1} games/s; CPU {:.0} us a game; busy {:.1}%; peak RSS {:.1} MiB; journal {:.1} MiB",
        m.games,
        m.secs,
        m.rate(),
        m.cpu * 1e6 / m.games,
        m.busy() * 100.0,
        m.kib / 1024.0,
        m.journal / 1048576.0
    );
}

/// Runs one league per -j in a child process; prints each rate and the speed-up.
fn league(me: &Path, label: &str, games: u32, bots: Bots) {
    // A league of bot programs at -j 1 already keeps more than one core busy: the next
    // game's bots start on the spare core while a game is played (the default below the
    // cores), so the speed-up to -j 2 is bounded by what -j 1 leaves idle.
    let target = match bots {
        Bots::Builtin => "target: at least 1.85x on 2 idle cores",
        _ => "no target: at -j 1 the next game's bots start on the spare core",
    };
    println!(
        "{label}: {games} games, random vs greedy, {} cores; load at the start {}",
        cores(),
        load()
    );
    let mut rates = Vec::new();
    for jobs in [1usize, 2] {
        let m = measure(me, jobs, games, &bots, None);
        rates.push(m.rate());
        print_line(jobs, &m);
    }
    println!(
        "  speed-up -j 2 over -j 1: {:.2}x ({target}); load at the end {}",
        rates[1] / rates[0],
        load()
    );
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The course Python league at -j 1 and -j 2 for each number of games ahead in
/// `ahead` (`ARBITER_PRESTART`; 0: bots started when their game comes), all in turns for
/// `rounds` rounds; prints the medians, and the range of the busy-ness.
fn python_league(me: &Path, games: u32, rounds: usize, ahead: &[usize]) {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("bots/python/examples");
    let bots = Bots::Python(examples.to_string_lossy().into_owned());
    println!(
        "course Python bots (random_bot.py vs greedy_bot.py, confined): {games} games, {} cores, {rounds} round(s), medians; load at the start {}",
        cores(),
        load()
    );
    let mut runs: Vec<[Vec<Measured>; 2]> =
        ahead.iter().map(|_| [Vec::new(), Vec::new()]).collect();
    for _ in 0..rounds {
        for (m, n) in ahead.iter().enumerate() {
            for (j, jobs) in [1usize, 2].into_iter().enumerate() {
                let value = n.to_string();
                runs[m][j].push(measure(me, jobs, games, &bots, Some(&value)));
            }
        }
    }
    for (m, n) in ahead.iter().enumerate() {
        match n {
            0 => println!("  bots started when their game comes ({PRESTART_VAR}=0):"),
            n => println!(
                "  bots of each worker's next {n} game(s) started ahead ({PRESTART_VAR}={n}):"
            ),
        }
        let mut rates = Vec::new();
        for (j, jobs) in [1usize, 2].into_iter().enumerate() {
            let of = |f: &dyn Fn(&Measured) -> f64| median(runs[m][j].iter().map(f).collect());
            let rate = of(&|m| m.rate());
            let busy: Vec<f64> = runs[m][j].iter().map(Measured::busy).collect();
            let (low, high) = busy
                .iter()
                .fold((f64::MAX, f64::MIN), |(l, h), &b| (l.min(b), h.max(b)));
            rates.push(rate);
            println!(
                "    -j {jobs}: {:.1} games/s ({} games in {:.2} s); CPU {:.0} ms a game; busy {:.1}% (rounds {:.1}-{:.1}%); peak RSS {:.1} MiB",
                rate,
                of(&|m| m.games),
                of(&|m| m.secs),
                of(&|m| m.cpu * 1e3 / m.games),
                median(busy.clone()) * 100.0,
                low * 100.0,
                high * 100.0,
                of(&|m| m.kib) / 1024.0,
            );
        }
        println!("    speed-up -j 2 over -j 1: {:.2}x", rates[1] / rates[0]);
    }
    println!(
        "  (goal: cores at least 91% busy at -j 2; by default a league starts bots ahead only while a core is left over: here at -j 1, not at -j 2); load at the end {}",
        load()
    );
}

fn main() {
    if let Ok(jobs) = std::env::var(CHILD) {
        let games = std::env::var(KIND).ok().and_then(|g| g.parse().ok());
        let bots = match (std::env::var(BINARY), std::env::var(PYTHON_BOTS)) {
            (Ok(bin), _) => Bots::Subprocess(bin),
            (_, Ok(folder)) => Bots::Python(folder),
            _ => Bots::Builtin,
        };
        child(jobs.parse().expect("jobs"), games.unwrap_or(GAMES), bots);
        return;
    }
    let me = std::env::current_exe().expect("own path");
    let knob = |name: &str, default: u32| {
        std::env::var(name)
            .ok()
            .and_then(|g| g.parse().ok())
            .unwrap_or(default)
    };
    let python_only = std::env::var("BENCH_ONLY").is_ok_and(|v| v == "python");
    if !python_only {
        league(&me, "in-process built-ins", GAMES, Bots::Builtin);
        let bin = arbiter_binary();
        league(
            &me,
            "subprocess built-ins (`arbiter bot`)",
            knob("BENCH_SUBPROCESS_GAMES", 1000),
            Bots::Subprocess(bin.to_string_lossy().into_owned()),
        );
    }
    let ahead: Vec<usize> = std::env::var("BENCH_AHEAD")
        .unwrap_or_else(|_| format!("0,{}", tournament::DEFAULT_AHEAD))
        .split(',')
        .filter_map(|n| n.trim().parse().ok())
        .collect();
    python_league(
        &me,
        knob("BENCH_PYTHON_GAMES", 60),
        knob("BENCH_ROUNDS", 1).max(1) as usize,
        &ahead,
    );
}
