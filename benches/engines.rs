//! Benchmarks of the built-in Asalto engines, printed as a readable report:
//! move generation speed (perft), alpha-beta search speed and depth, and the strength of
//! each engine against the next weaker one in both roles.
//!
//! Run with `cargo bench --bench engines`. Environment knobs (all optional):
//! `BENCH_GAMES` games per role and pairing (default 60), `BENCH_NODES` alpha-beta node
//! limit per move in the strength matches (default 20000), `BENCH_THREADS` (default 2),
//! `BENCH_ROUNDS` the round limit of the strength games (default 1000, the course's),
//! `BENCH_SKIP` a comma list of sections to skip (`perft`, `search`, `strength`),
//! `BENCH_PAIRINGS` a comma list of the pairings to play (`alphabeta-vs-greedy`, ...).

use arbiter::bots::Player;
use arbiter::bots::inprocess::InProcess;
use arbiter::engines::{AlphaBeta, Engine, Greedy, Limits, RandomMover};
use arbiter::games::asalto::{Asalto, OFFICERS, State};
use arbiter::games::{Game, Side};
use arbiter::referee::{MatchConfig, play_game};
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn skipped(section: &str) -> bool {
    std::env::var("BENCH_SKIP")
        .map(|v| v.split(',').any(|s| s.trim() == section))
        .unwrap_or(false)
}

fn perft_section() {
    let game = Asalto::default();
    let start = game.initial();
    println!("## perft from the start (fast path: generate + play_unchecked, 1 thread)");
    println!("| depth | count | time | nodes/s |");
    println!("| --- | --- | --- | --- |");
    for depth in 5..=10 {
        let t = Instant::now();
        let count = game.perft_fast(&start, depth);
        let secs = t.elapsed().as_secs_f64();
        println!(
            "| {depth} | {count} | {:.3} s | {:.1} M |",
            secs,
            count as f64 / secs.max(1e-9) / 1e6
        );
        // Each depth costs several times the last: stop before the report drags.
        if secs > 1.5 {
            break;
        }
    }
    // Baseline in the same run: the generic checked path every game gets through the
    // trait (legal_moves into a Vec, clone, play), at depth 7.
    let t = Instant::now();
    let fast = game.perft_fast(&start, 7);
    let fast_secs = t.elapsed().as_secs_f64();
    let t = Instant::now();
    let checked = arbiter::games::perft::perft(&game, &start, 7);
    let checked_secs = t.elapsed().as_secs_f64();
    assert_eq!(fast, checked, "the two perft paths disagree");
    println!();
    println!(
        "perft(7) = {fast}: fast path {:.1} M nodes/s, generic checked path {:.1} M nodes/s: {:.1}x",
        fast as f64 / fast_secs.max(1e-9) / 1e6,
        checked as f64 / checked_secs.max(1e-9) / 1e6,
        checked_secs / fast_secs.max(1e-9)
    );
    println!();
}

fn search_section() {
    let game = Asalto::default();
    let start = game.initial();
    // The start position with the officers to move (as if the rebels had passed): the
    // officers' view of the opening.
    let officer_start =
        State::from_bitboards(start.rebels(), start.officers(), OFFICERS).unwrap_or(start);
    println!(
        "## alphabeta from the start, 1 s budget, 1 thread (score: centi-rebels for the side to move)"
    );
    println!("| side | depth | nodes | nodes/s | score | move | time |");
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    for (label, state) in [("rebel", start), ("officer", officer_start)] {
        let mut ab = AlphaBeta::<Asalto>::new(1);
        let (mv, stats) = ab.search(&game, &state, Duration::from_secs(1));
        let wire = mv
            .map(|m| game.move_to_wire(&m).to_string())
            .unwrap_or_default();
        println!(
            "| {label} | {} | {} | {:.2} M | {} | {wire} | {:.3} s |",
            stats.depth,
            stats.nodes,
            stats.nodes_per_second() / 1e6,
            stats.score,
            stats.elapsed.as_secs_f64()
        );
    }
    println!();
}

type Factory = fn(u64, u64) -> Box<dyn Engine<Asalto>>;

fn random(seed: u64, _nodes: u64) -> Box<dyn Engine<Asalto>> {
    Box::new(RandomMover::<Asalto>::new(seed))
}
fn greedy(seed: u64, _nodes: u64) -> Box<dyn Engine<Asalto>> {
    Box::new(Greedy::<Asalto>::new(seed))
}
fn alphabeta(seed: u64, nodes: u64) -> Box<dyn Engine<Asalto>> {
    Box::new(AlphaBeta::<Asalto>::with_limits(seed, Limits::nodes(nodes)).with_tt_bits(16))
}

#[derive(Default)]
struct Tally {
    wins: u32,
    losses: u32,
    ties: u32,
    plies: u64,
    reasons: BTreeMap<String, u32>,
}

fn strength_section() {
    let games: u64 = env_or("BENCH_GAMES", 60);
    let nodes: u64 = env_or("BENCH_NODES", 20_000);
    let threads: usize = env_or("BENCH_THREADS", 2);
    let rounds: u32 = env_or("BENCH_ROUNDS", 1000);
    let game = Asalto {
        round_limit: rounds,
    };
    println!(
        "## strength: {games} games per role, round limit {rounds}, alphabeta limited to \
         {nodes} nodes per move (deterministic, no clock), {threads} threads"
    );
    println!("| pairing | strong plays | wins | losses | ties | mean plies | endings |");
    println!("| --- | --- | --- | --- | --- | --- | --- |");
    let pairings: [(&str, &str, Factory, Factory); 3] = [
        ("greedy vs random", "greedy", greedy, random),
        ("alphabeta vs greedy", "alphabeta", alphabeta, greedy),
        ("alphabeta vs random", "alphabeta", alphabeta, random),
    ];
    let only = std::env::var("BENCH_PAIRINGS").unwrap_or_default();
    for (label, strong_name, strong, weak) in pairings {
        if !only.is_empty() && !only.split(',').any(|p| label.replace(' ', "-") == p.trim()) {
            continue;
        }
        let started = Instant::now();
        let jobs: Vec<(u64, Side)> = (0..games)
            .flat_map(|g| Side::BOTH.into_iter().map(move |s| (g, s)))
            .collect();
        let next = AtomicUsize::new(0);
        let tallies = Mutex::new([Tally::default(), Tally::default()]);
        std::thread::scope(|scope| {
            for _ in 0..threads.max(1) {
                scope.spawn(|| {
                    while let Some(&(seed, strong_side)) =
                        jobs.get(next.fetch_add(1, Ordering::Relaxed))
                    {
                        // The referee's config may grow (start numbers, cancellation):
                        // the defaults are right for whatever this bench does not set.
                        #[allow(clippy::needless_update)]
                        let config = MatchConfig {
                            move_limit: Duration::from_secs(10),
                            init_limit: Duration::from_secs(10),
                            seed,
                            ..MatchConfig::default()
                        };
                        let mut a = InProcess::new(strong_name, strong(seed, nodes));
                        let mut b = InProcess::new("weak", weak(seed ^ 0x5eed, nodes));
                        let players: [&mut dyn Player<Asalto>; 2] = match strong_side {
                            Side::First => [&mut a, &mut b],
                            Side::Second => [&mut b, &mut a],
                        };
                        let record = play_game(&game, players, ["a", "b"], &config, &mut |_| {});
                        let mut t = tallies.lock().unwrap_or_else(|e| e.into_inner());
                        let tally = &mut t[strong_side.index()];
                        match record.winner.as_deref() {
                            None => tally.ties += 1,
                            Some(w) if w == game.role_name(strong_side) => tally.wins += 1,
                            Some(_) => tally.losses += 1,
                        }
                        tally.plies += u64::from(record.plies);
                        *tally.reasons.entry(record.reason.clone()).or_default() += 1;
                    }
                });
            }
        });
        let tallies = tallies.into_inner().unwrap_or_else(|e| e.into_inner());
        for side in Side::BOTH {
            let t = &tallies[side.index()];
            let n = (t.wins + t.losses + t.ties).max(1);
            let endings: Vec<String> = t.reasons.iter().map(|(r, c)| format!("{r} {c}")).collect();
            println!(
                "| {label} | {} | {} ({:.0}%) | {} | {} | {:.0} | {} |",
                game.role_name(side),
                t.wins,
                100.0 * f64::from(t.wins) / f64::from(n),
                t.losses,
                t.ties,
                t.plies as f64 / f64::from(n),
                endings.join(", ")
            );
        }
        eprintln!("({label}: {:.1} s)", started.elapsed().as_secs_f64());
    }
    println!();
}

fn main() {
    // `cargo bench` passes `--bench`; any other argument is a filter we do not use.
    println!("# arbiter engine benchmarks (Asalto)\n");
    if !skipped("perft") {
        perft_section();
    }
    if !skipped("search") {
        search_section();
    }
    if !skipped("strength") {
        strength_section();
    }
}
