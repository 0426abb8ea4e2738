//! Advance speed, printed as a readable report:
//!
//! 1. perft(4) from the start: nodes per second.
//! 2. The example suite's positions, cycled to 200 cases, with `builtin:grade7` run as a
//!    console bot (`arbiter console-bot grade7`, one process per case): wall time, and the
//!    share of it that is process start-up, measured as 200 runs of the same program
//!    doing nothing (`arbiter console-bot grade7 name`) through the same transport.
//! 3. Games per second: `grade4` against `grade4` as console bots, and in-process.
//!
//! Run with `cargo bench --bench advance`. It builds the release `arbiter` binary first.
//! Knobs: `BENCH_CASES` (default 200), `BENCH_GAMES` (console games, default 4; in-process
//! games are 10 times as many).

use arbiter::bots::console::ask_name;
use arbiter::bots::open_player;
use arbiter::bots::spec::{BotSpec, CommandSpec, Confinement};
use arbiter::games::advance::Advance;
use arbiter::games::{Game, perft::perft};
use arbiter::graders::advance::{read_suite, run_case};
use arbiter::referee::{MatchConfig, play_game};
use std::path::PathBuf;
use std::time::{Duration, Instant};

mod support;
use support::{arbiter_binary, env_or};

fn console(bin: &std::path::Path, words: &[&str]) -> CommandSpec {
    let mut c = CommandSpec::new(bin.to_string_lossy()).arg("console-bot");
    for w in words {
        c = c.arg(*w);
    }
    c
}

fn main() {
    let game = Advance;
    let started = Instant::now();
    let nodes = perft(&game, &game.initial(), 4);
    let secs = started.elapsed().as_secs_f64();
    println!(
        "perft(4) from the start: {nodes} nodes in {secs:.3} s, {:.0} nodes/s",
        nodes as f64 / secs
    );

    let bin = arbiter_binary();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let suite = read_suite(&root.join("tests/data/advance/suite")).expect("the example suite");
    let cases = env_or("BENCH_CASES", 200usize);
    let spec = BotSpec::Console(console(&bin, &["grade7", "--seed", "1"]));
    let limit = Duration::from_secs(30);
    let started = Instant::now();
    let mut passed = 0;
    for i in 0..cases {
        let case = &suite.cases[i % suite.cases.len()];
        let verdict = run_case(case, &spec, limit, Confinement::default(), i as u64);
        passed += usize::from(verdict.failure.is_none());
    }
    let suite_wall = started.elapsed();
    let idle = console(&bin, &["grade7"]);
    let started = Instant::now();
    for _ in 0..cases {
        // A console-bot run as the suite makes one per case (the name is asked at the
        // first case only), doing no work: start-up, exit and cleanup.
        ask_name(&idle, limit).expect("starts");
    }
    let startup = started.elapsed();
    println!(
        "suite of {cases} positions, grade7 as a console bot: {passed} passed, {:.2} s wall, \
         {:.1} ms a case; process start-up {:.2} s ({:.0}% of the wall time)",
        suite_wall.as_secs_f64(),
        suite_wall.as_secs_f64() * 1000.0 / cases as f64,
        startup.as_secs_f64(),
        100.0 * startup.as_secs_f64() / suite_wall.as_secs_f64()
    );

    let games = env_or("BENCH_GAMES", 4usize);
    let play = |n: usize, spec: &BotSpec| {
        let started = Instant::now();
        let mut plies = 0;
        for i in 0..n {
            let mut a = open_player(spec, &game).expect("seat");
            let mut b = open_player(spec, &game).expect("seat");
            let config = MatchConfig {
                seed: i as u64,
                move_limit: limit,
                ..MatchConfig::default()
            };
            let r = play_game(
                &game,
                [a.as_mut(), b.as_mut()],
                ["a", "b"],
                &config,
                &mut |_| {},
            );
            plies += r.plies;
        }
        (n as f64 / started.elapsed().as_secs_f64(), plies)
    };
    let (console_rate, console_plies) = play(games, &BotSpec::Console(console(&bin, &["grade4"])));
    let (inproc_rate, inproc_plies) = play(10 * games, &BotSpec::Builtin("grade4".into()));
    println!(
        "grade4 vs grade4: console bots {console_rate:.3} games/s ({console_plies} plies in \
         {games} games), in-process {inproc_rate:.1} games/s ({inproc_plies} plies in {} \
         games)",
        10 * games
    );
}
