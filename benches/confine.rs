//! What confinement costs: the start of one bot program in a jail against the same start
//! unconfined, and a short game of two course Python bots confined against the same game
//! with `--sandbox none`.
//!
//! 1. Start-up: `true` started through the process layer of the library (its process group,
//!    pipes and sweep) `STARTS` times, unconfined and in a jail of each level this machine
//!    gives (level 1 where user namespaces work, and level 2); the median wall time of a
//!    start to exit, and the difference (goal: at most 10 ms).
//! 2. Games: a league (`arbiter league -j 1`, 20 games) of two course Python bots, each game
//!    starting a fresh pair of Python processes (the interpreter named by its own path, not
//!    a pyenv shim), `BENCH_GAMES` leagues each way, in turns;
//!    the median time a game, and the ratio confined / unconfined at each level (goal: at
//!    most 1.10).
//!
//! Run: cargo bench --bench confine (after `cargo build --release`, whose arbiter it runs).
//! Knobs: `BENCH_STARTS` (default 40), `BENCH_GAMES` (leagues, default 9), `BENCH_ROUNDS`
//! (the Asalto round limit of a game, default 20).

use arbiter::bots::spec::{CommandSpec, Confinement, SandboxMode};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The interpreter itself (not a pyenv shim, whose own start-up would dwarf what is
/// measured): `$BENCH_PYTHON` (default python3) asked for `sys.executable`.
fn python() -> String {
    static REAL: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    REAL.get_or_init(|| {
        let python = std::env::var("BENCH_PYTHON").unwrap_or_else(|_| "python3".into());
        let out = Command::new(&python)
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("a Python");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    })
    .clone()
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

/// One start of `true` to its exit, through the library's run-once path.
fn start(sandbox: SandboxMode) -> Duration {
    let mut command = CommandSpec::new("true");
    command.confine = Confinement {
        sandbox,
        ..Confinement::default()
    };
    let started = Instant::now();
    let ran = arbiter::bots::process::once::run_once(&command, None, Duration::from_secs(10), &[])
        .expect("true starts");
    assert!(
        ran.failure(Duration::from_secs(10)).is_none(),
        "{:?}",
        ran.exit
    );
    started.elapsed()
}

/// A league of `pairs` role-swapped pairs of the two bots, one game at a time: its wall
/// time per game (each game starts a fresh pair of Python processes).
fn league(arbiter: &Path, bots: [&Path; 2], sandbox: &str, rounds: u32, pairs: u32) -> Duration {
    let out_dir = tempfile::tempdir().expect("a folder");
    let started = Instant::now();
    let out = Command::new(arbiter)
        .args([
            "league",
            "--quiet",
            "-j",
            "1",
            "--pairs",
            &pairs.to_string(),
        ])
        .args(["--round-limit", &rounds.to_string(), "--sandbox", sandbox])
        .args(["--python", &python(), "--out"])
        .arg(out_dir.path())
        .arg(format!("a={}", bots[0].display()))
        .arg(format!("b={}", bots[1].display()))
        .output()
        .expect("arbiter league");
    let elapsed = started.elapsed();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // A bot that could not start (a Python closed to the jailed bot's user) is no game.
    let games = std::fs::read_to_string(out_dir.path().join("games.csv")).unwrap_or_default();
    assert!(
        !games.contains("spawn_failed"),
        "--sandbox {sandbox}: a bot could not start (as root, set BENCH_PYTHON to a Python \
         every user can run): {games}"
    );
    elapsed / (2 * pairs)
}

fn main() {
    let level = arbiter::jail::layers().level();
    let Some(level) = level else {
        println!(
            "bots cannot be confined here ({}): nothing to measure",
            arbiter::jail::layers().why_none()
        );
        return;
    };
    println!("confinement on this machine: {}", level.name());
    // Each level this machine gives: level 2 is what a desktop without user namespaces
    // gets, and its helper stays beside the bot (one more fork a start).
    let mut levels = vec![(SandboxMode::Landlock, "landlock")];
    if level == arbiter::jail::Level::Namespaces {
        levels.insert(0, (SandboxMode::Namespaces, "namespaces"));
    }
    let starts = env_or("BENCH_STARTS", 40usize);
    // One of each first: the probe, the page cache.
    start(SandboxMode::None);
    for &(mode, _) in &levels {
        start(mode);
    }
    let mut plain = Vec::new();
    let mut jailed = vec![Vec::new(); levels.len()];
    for _ in 0..starts {
        plain.push(start(SandboxMode::None));
        for (i, &(mode, _)) in levels.iter().enumerate() {
            jailed[i].push(start(mode));
        }
    }
    let plain = median(plain);
    for (times, (_, name)) in jailed.into_iter().zip(&levels) {
        let jailed = median(times);
        println!(
            "start of `true`, median of {starts}: unconfined {}, in a jail ({name}) {}: {} more a start",
            ms(plain),
            ms(jailed),
            ms(jailed.saturating_sub(plain))
        );
    }

    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let arbiter = root.join("target/release/arbiter");
    let arbiter = if arbiter.exists() {
        arbiter
    } else {
        root.join("target/debug/arbiter")
    };
    let bots = [
        root.join("bots/submissions/Team11.py"),
        root.join("bots/python/examples/random_bot.py"),
    ];
    let bots = [bots[0].as_path(), bots[1].as_path()];
    let runs = env_or("BENCH_GAMES", 9usize);
    let rounds = env_or("BENCH_ROUNDS", 20u32);
    let pairs = 10;
    league(&arbiter, bots, "none", rounds, 1);
    for (_, name) in &levels {
        league(&arbiter, bots, name, rounds, 1);
    }
    let mut none = Vec::new();
    let mut confined = vec![Vec::new(); levels.len()];
    for _ in 0..runs {
        none.push(league(&arbiter, bots, "none", rounds, pairs));
        for (i, (_, name)) in levels.iter().enumerate() {
            confined[i].push(league(&arbiter, bots, name, rounds, pairs));
        }
    }
    let none = median(none);
    for (times, (_, name)) in confined.into_iter().zip(&levels) {
        let confined = median(times);
        println!(
            "a game of two course Python bots ({rounds} rounds; a league of {} games at -j 1, {}), \
             median of {runs} leagues: --sandbox none {} a game, --sandbox {name} {} a game: \
             ratio {:.3} (goal: at most 1.10)",
            2 * pairs,
            arbiter.display(),
            ms(none),
            ms(confined),
            confined.as_secs_f64() / none.as_secs_f64()
        );
    }
}
