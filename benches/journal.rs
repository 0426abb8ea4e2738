//! Journal size and the memory of a large league.
//!
//! 1. The journal line of a 1000-round Asalto game (one that reaches the round limit:
//!    two in-process bots that stall, each playing a random legal move that does not end
//!    the game), in format 3 and in format 4.
//! 2. Bytes per game of a random-vs-greedy Asalto league: the same records encoded in
//!    format 3 and format 4, and the ratio.
//! 3. A whole league run by the `arbiter` binary (`arbiter league --game asalto
//!    builtin:random builtin:greedy --pairs P -j 2 --quiet`): its peak RSS, its time and
//!    its journal's bytes per game. P is 50,000 (100,000 games) unless
//!    `ARBITER_JOURNAL_BENCH_PAIRS` says otherwise.
//!
//! Run: cargo bench --bench journal

use arbiter::bots::inprocess::InProcess;
use arbiter::bots::spec::BotSpec;
use arbiter::engines::{Engine, Heuristic};
use arbiter::games::asalto::Asalto;
use arbiter::record::GameRecord;
use arbiter::referee::{MatchConfig, play_game};
use arbiter::tournament::journal::encode_game;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::{Duration, Instant};

/// League games encoded both ways.
const LEAGUE_GAMES: u64 = 2_000;
const PAIRS_VAR: &str = "ARBITER_JOURNAL_BENCH_PAIRS";

/// A move that does not end the game and, of those, one whose worst reply leaves the
/// position best for the mover by the game's heuristic (ties drawn at random): a pair of
/// these keeps an Asalto game going to the round limit.
struct Staller(ChaCha8Rng);

impl<G: Heuristic> Engine<G> for Staller {
    fn choose(&mut self, game: &G, state: &G::State, _budget: Duration) -> Option<G::Move> {
        let me = game.side_to_move(state);
        let mut moves = Vec::new();
        game.legal_moves(state, &mut moves);
        let mut best: Vec<(i64, G::Move)> = Vec::new();
        for mv in moves.iter() {
            let mut after = state.clone();
            if game.play(&mut after, mv).is_some() {
                continue;
            }
            let mut replies = Vec::new();
            game.legal_moves(&after, &mut replies);
            let worst = replies
                .iter()
                .map(|reply| {
                    let mut next = after.clone();
                    match game.play(&mut next, reply) {
                        Some(_) => i64::MIN / 2,
                        None => i64::from(game.evaluate(&next, me)),
                    }
                })
                .min()
                .unwrap_or_else(|| i64::from(game.evaluate(&after, me)));
            best.push((worst, mv.clone()));
        }
        let top = best.iter().map(|(score, _)| *score).max();
        let pool: Vec<G::Move> = match top {
            Some(top) => best
                .into_iter()
                .filter(|(score, _)| *score == top)
                .map(|(_, mv)| mv)
                .collect(),
            None => moves,
        };
        if pool.is_empty() {
            return None;
        }
        let pick = self.0.random_range(0..pool.len());
        Some(pool[pick].clone())
    }
}

fn config(seed: u64) -> MatchConfig {
    MatchConfig {
        move_limit: Duration::from_secs(10),
        init_limit: Duration::from_secs(10),
        seed,
        start: seed,
        opening: Vec::new(),
        cancel: None,
        two_cpus: false,
    }
}

/// The first seed's game of two stallers that reaches the round limit.
fn long_game() -> GameRecord {
    let game = Asalto::default();
    let mut endings = Vec::new();
    for seed in 0..100 {
        let mut seats: Vec<InProcess<Asalto>> = (0..2)
            .map(|i| {
                InProcess::new(
                    "staller",
                    Box::new(Staller(ChaCha8Rng::seed_from_u64(seed * 2 + i))),
                )
            })
            .collect();
        let [first, second] = seats.as_mut_slice() else {
            unreachable!()
        };
        let record = play_game(
            &game,
            [first, second],
            ["staller_a", "staller_b"],
            &config(seed),
            &mut |_| {},
        );
        if record.reason == "round_limit" {
            return record;
        }
        endings.push(format!("{} after {} rounds", record.reason, record.rounds));
    }
    panic!("no staller game reached the round limit: {endings:?}");
}

fn league_record(seed: u64) -> GameRecord {
    let game = Asalto::default();
    let open = |name: &str| {
        arbiter::bots::open_player(&BotSpec::parse(&format!("builtin:{name}")).unwrap(), &game)
            .unwrap()
    };
    let names = if seed.is_multiple_of(2) {
        ["random", "greedy"]
    } else {
        ["greedy", "random"]
    };
    let (mut first, mut second) = (open(names[0]), open(names[1]));
    play_game(
        &game,
        [first.as_mut(), second.as_mut()],
        names,
        &config(seed / 2),
        &mut |_| {},
    )
}

fn line_bytes(version: u32, id: u64, record: &GameRecord) -> usize {
    encode_game(version, id, record).len() + 1
}

/// The league of part 3, run by the binary; prints its figures.
fn league_run(pairs: u64) {
    let dir = std::env::temp_dir().join(format!("arbiter-journal-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let started = Instant::now();
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .args([
            "league",
            "--game",
            "asalto",
            "builtin:random",
            "builtin:greedy",
        ])
        .args(["--pairs", &pairs.to_string(), "-j", "2", "--quiet", "--out"])
        .arg(&dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .expect("arbiter runs");
    let secs = started.elapsed().as_secs_f64();
    assert!(status.success(), "the league failed: {status}");
    // SAFETY: an all-zero rusage is valid, and the call fills it.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `usage` outlives the call.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) };
    let journal = std::fs::metadata(dir.join("games.jsonl"))
        .map(|m| m.len())
        .unwrap_or(0);
    let games = pairs * 2;
    println!(
        "3. league of {games} games (arbiter league --game asalto builtin:random builtin:greedy \
         --pairs {pairs} -j 2 --quiet): {secs:.1} s, peak RSS {:.1} MiB, journal {:.1} MiB = \
         {:.0} bytes/game",
        usage.ru_maxrss as f64 / 1024.0,
        journal as f64 / 1048576.0,
        journal as f64 / games as f64
    );
    let _ = std::fs::remove_dir_all(&dir);
}

fn main() {
    // `cargo bench` passes `--bench`; anything else is a filter naming the parts to run.
    let parts: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let run = |part: &str| parts.is_empty() || parts.iter().any(|p| p == part);

    if run("long") {
        let record = long_game();
        println!(
            "1. a {}-round Asalto game ({} plies, {}): format 3 {} bytes, format 4 {} bytes",
            record.rounds,
            record.moves.len(),
            record.reason,
            line_bytes(3, 0, &record),
            line_bytes(4, 0, &record)
        );
    }
    if run("league") {
        let (mut old, mut new) = (0usize, 0usize);
        for id in 0..LEAGUE_GAMES {
            let record = league_record(id);
            old += line_bytes(3, id, &record);
            new += line_bytes(4, id, &record);
        }
        let per = |total: usize| total as f64 / LEAGUE_GAMES as f64;
        println!(
            "2. {LEAGUE_GAMES} random-vs-greedy Asalto games: format 3 {:.0} bytes/game, format \
             4 {:.0} bytes/game, ratio {:.1}",
            per(old),
            per(new),
            per(old) / per(new)
        );
    }
    if run("rss") {
        let pairs = std::env::var(PAIRS_VAR)
            .ok()
            .and_then(|p| p.parse().ok())
            .unwrap_or(50_000);
        league_run(pairs);
    }
}
