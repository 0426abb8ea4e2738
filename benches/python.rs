//! What arbiter costs over a plain Python referee, for course-style Python bots.
//!
//! The same Asalto games, seeded random bot against seeded greedy bot in both role orders
//! (benches/baseline/seeded_*_bot.py: the course-style bots of bots/python/examples with
//! their generators seeded from `$ASALTO_BENCH_SEED`), are played three ways:
//!
//! 1. through arbiter: the referee of the library, each bot in its own Python process
//!    behind the course adapter, a fresh pair of processes per game, as a league does;
//! 2. the baseline: benches/baseline/asalto_referee.py, one Python process per game that
//!    imports both bots and alternates their calls with the rules;
//! 3. the baseline's moves alone: one Python process for every game, so that the
//!    difference from (2) is the baseline's own start-up per game;
//! 4. as a league plays them: `arbiter league` of the two bots at -j 1 (the next games'
//!    bots started while one is played), against (2) for the same games;
//! 5. one 1000-round game through `arbiter play`, the command line with all its start-up
//!    (its confinement probes, its bots' jails), against (2) for the same game; then the
//!    same game between the same bots made to think longer (`BENCH_THINK` times, default
//!    10: the game then takes about as long as the 1000-round game of two course bots the
//!    project measured in the course's referee, 0.68 s); then a short game (random
//!    rebels, soon captured) of the quick bots and of the thinking ones, each with its
//!    floor: the baseline plus what a second interpreter started beside the first adds
//!    (two side by side against one alone), which no referee with a process per bot beats;
//! 6. what a move costs through the pipes with Python bots: a minimal bot that speaks the
//!    protocol itself, a course bot behind the adapter, two course bots.
//!
//! What freezing the waiting bot costs (src/clocks/freeze.rs: while one side is to move,
//! the other's process group is stopped): part 5 plays each of its games through `arbiter
//! play` twice a run, as it plays and with `ARBITER_FREEZE=off`, in turns with the
//! baseline, and prints beside the ratio with freezing on the ratio with it off and the
//! difference a ply (each run's freezing-on time less its freezing-off time, over the
//! game's plies; median and 95% confidence interval); part 6 then plays its 2000-ply game
//! of two course bots with freezing on and off in turns, `5 * BENCH_ROUNDS` times each:
//! the difference of the games' wall times a ply, of their CPU times (arbiter's and its
//! bots'; the signals wake every process of both groups each ply), and of the referee's
//! mean move time.
//! Parts 1 and 4 play in this process, frozen unless the bench runs with
//! `ARBITER_FREEZE=off`; parts 5 and 6 set it for each `arbiter play` themselves.
//!
//! Parts 5 and 6 run `arbiter play`, which puts each bot on a CPU of its own when two are
//! free (`arbiter::referee::pair`); parts 1 and 4 play as a league does, a game's bots on
//! one CPU.
//!
//! Part 5 gives, beside the ratio of the medians, each run's ratio to the baseline's run
//! beside it: their median, with a distribution-free 95% confidence interval, says how
//! far the machine's drift leaves a figure from its line.
//!
//! Every game must come out the same (every reply, the winner) in (1) and (2), or the
//! bench stops: the comparison is of the same work. The three are run in turns, `ROUNDS`
//! times, and each figure is the median; the CPU time (user + system, arbiter's own and
//! its bots') is printed too, as it moves less than wall time on a busy machine.
//!
//! Run: cargo bench --bench python. Knobs: `BENCH_PAIRS` (role-swapped pairs of games,
//! default 10), `BENCH_ROUNDS` (default 3), `BENCH_THINK` (default 10), `BENCH_PYTHON`
//! (default python3, resolved to the interpreter's own path), `BENCH_SANDBOX` (how
//! arbiter confines the bots, as `--sandbox` takes it: default `auto`, as a league does;
//! `none`, with `ARBITER_CGROUP=off` (a bot without a jail joins its cgroup by a move,
//! which costs more than the jail), shows what confinement costs), `BENCH_ARBITER` (the
//! arbiter program of parts 5 and 6, default this tree's release build: an earlier
//! commit's build gives the same figures before a change).

use arbiter::bots::spec::{BotSpec, Confinement};
use arbiter::games::asalto::Asalto;
use arbiter::referee::{MatchConfig, play_game};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

mod support;
use support::{Paired, cpu_seconds, env_or, load_average, median, median_interval};

const SEED_VAR: &str = "ASALTO_BENCH_SEED";
const FREEZE_VAR: &str = arbiter::clocks::freeze::DISABLE_VAR;

/// One game: who plays the rebels, who the officers, and the seed.
#[derive(Clone)]
struct Fixture {
    rebel: PathBuf,
    officer: PathBuf,
    seed: u64,
}

/// What is compared: every reply, and the winner; and the game's wall time where it was
/// taken alone.
#[derive(Debug)]
struct Played {
    moves: Vec<Value>,
    winner: Option<String>,
    wall: Option<Duration>,
}

impl Played {
    fn same_game(&self, other: &Played) -> bool {
        self.moves == other.moves && self.winner == other.winner
    }
}

struct Measured {
    wall: Duration,
    /// This process's CPU seconds, and its children's.
    cpu: [f64; 2],
    games: Vec<Played>,
}

fn measure(run: impl FnOnce() -> Vec<Played>) -> Measured {
    let cpu = cpu_seconds();
    let started = Instant::now();
    let games = run();
    Measured {
        wall: started.elapsed(),
        cpu: {
            let [s, c] = cpu_seconds();
            [s - cpu[0], c - cpu[1]]
        },
        games,
    }
}

fn through_arbiter(python: &str, fixtures: &[Fixture]) -> Vec<Played> {
    let game = Asalto::default();
    fixtures
        .iter()
        .map(|f| {
            let started = Instant::now();
            let env = BTreeMap::from([(SEED_VAR.to_string(), f.seed.to_string())]);
            let seat = |file: &Path| {
                let spec = BotSpec::CoursePython {
                    file: file.to_path_buf(),
                    python: Some(python.to_string()),
                };
                arbiter::bots::open_player_in(&spec, &game, None, &env, confinement())
                    .expect("a course bot")
            };
            let (mut rebel, mut officer) = (seat(&f.rebel), seat(&f.officer));
            let config = MatchConfig {
                seed: f.seed,
                ..MatchConfig::default()
            };
            let record = play_game(
                &game,
                [rebel.as_mut(), officer.as_mut()],
                ["rebel", "officer"],
                &config,
                &mut |_| {},
            );
            assert!(
                record.detail.is_none(),
                "game {} ended by {}: {:?}",
                f.seed,
                record.reason,
                record.detail
            );
            // The bots are reaped before the game counts as over, as in a league.
            drop((rebel, officer));
            Played {
                moves: record.moves.into_iter().map(|m| m.reply).collect(),
                winner: record.winner,
                wall: Some(started.elapsed()),
            }
        })
        .collect()
}

/// The games of `fixtures`, whose seeds are all `seed`, as `arbiter league` plays them: a
/// league of the two bots at -j 1, role-swapped pairs, the next games' bots started while
/// one is played. Every bot of the league gets the same seed, so its games are the
/// fixtures' games, in order.
fn as_a_league(python: &str, fixtures: &[Fixture], seed: u64) -> Vec<Played> {
    use arbiter::tournament::{self, Entrant, Format, Tournament};
    let dir = std::env::temp_dir().join(format!("arbiter-python-league-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let env = BTreeMap::from([(SEED_VAR.to_string(), seed.to_string())]);
    // The first fixture's rebel plays the first game's rebels.
    let entrants = [&fixtures[0].rebel, &fixtures[0].officer]
        .iter()
        .map(|file| Entrant {
            name: file.file_stem().unwrap().to_string_lossy().into_owned(),
            spec_text: file.display().to_string(),
            spec: BotSpec::CoursePython {
                file: file.to_path_buf(),
                python: Some(python.to_string()),
            },
            cwd: None,
            env: env.clone(),
            confine: confinement(),
            non_scoring: false,
            file: None,
        })
        .collect();
    let t = Tournament {
        format: Format::RoundRobin,
        entrants,
        pairs: (fixtures.len() / 2) as u32,
        seed: 1,
        move_limit: Duration::from_secs(10),
        init_limit: Duration::from_secs(30),
        jobs: 1,
        out: dir.clone(),
        force_new: true,
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
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    tournament::run(
        &Asalto::default(),
        serde_json::Map::new(),
        &t,
        &stop,
        &mut |_| Ok(()),
    )
    .expect("the league runs");
    let mut games = BTreeMap::new();
    arbiter::tournament::journal::for_each_record(&dir.join("games.jsonl"), |id, record| {
        assert!(
            record.detail.is_none(),
            "league game {id} ended by {}: {:?}",
            record.reason,
            record.detail
        );
        games.insert(
            id,
            Played {
                moves: record.moves.into_iter().map(|m| m.reply).collect(),
                winner: record.winner,
                wall: None,
            },
        );
        Ok(())
    })
    .expect("the league's journal reads");
    let _ = std::fs::remove_dir_all(&dir);
    games.into_values().collect()
}

fn parse_baseline(stdout: &[u8]) -> Vec<Played> {
    String::from_utf8_lossy(stdout)
        .lines()
        .map(|line| {
            let v: Value = serde_json::from_str(line).expect("a JSON line from the baseline");
            Played {
                moves: v["moves"].as_array().expect("moves").clone(),
                winner: v["winner"].as_str().map(str::to_string),
                wall: None,
            }
        })
        .collect()
}

fn baseline_command(python: &str, script: &Path, f: &Fixture, games: usize) -> Command {
    let mut command = Command::new(python);
    command
        .arg(script)
        .arg(&f.rebel)
        .arg(&f.officer)
        .arg(f.seed.to_string())
        .arg(games.to_string())
        // As arbiter runs course bots: no bytecode written next to them.
        .env("PYTHONDONTWRITEBYTECODE", "1");
    command
}

fn run_baseline(mut command: Command) -> Vec<Played> {
    baseline_games(command.output().expect("the baseline runs"))
}

fn baseline_games(out: std::process::Output) -> Vec<Played> {
    assert!(
        out.status.success(),
        "the baseline failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    parse_baseline(&out.stdout)
}

/// One process per game.
fn baseline_per_game(python: &str, script: &Path, fixtures: &[Fixture]) -> Vec<Played> {
    fixtures
        .iter()
        .flat_map(|f| {
            let started = Instant::now();
            let mut games = run_baseline(baseline_command(python, script, f, 1));
            let wall = started.elapsed();
            games.iter_mut().for_each(|g| g.wall = Some(wall));
            games
        })
        .collect()
}

/// One process per role order for all its games (consecutive seeds), put back in fixture
/// order.
fn baseline_one_process(python: &str, script: &Path, fixtures: &[Fixture]) -> Vec<Played> {
    let pairs = fixtures.len() / 2;
    let even: Vec<Fixture> = fixtures.iter().step_by(2).cloned().collect();
    let odd: Vec<Fixture> = fixtures.iter().skip(1).step_by(2).cloned().collect();
    let a = run_baseline(baseline_command(python, script, &even[0], pairs));
    let b = run_baseline(baseline_command(python, script, &odd[0], pairs));
    a.into_iter().zip(b).flat_map(|(x, y)| [x, y]).collect()
}

/// The interpreter's own path: a launcher such as pyenv's `python3` shim (a shell script
/// that costs more than Python's start-up) would otherwise be timed on both sides.
fn interpreter(python: &str) -> String {
    let out = Command::new(python)
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("the Python interpreter runs");
    let path = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if path.is_empty() {
        python.to_string()
    } else {
        path
    }
}

/// How the bots are confined: `$BENCH_SANDBOX`, as `--sandbox` takes it (default `auto`).
fn confinement() -> Confinement {
    let mode = env_or("BENCH_SANDBOX", "auto".to_string());
    Confinement {
        sandbox: arbiter::bots::spec::SandboxMode::parse(&mode)
            .unwrap_or_else(|| panic!("BENCH_SANDBOX={mode}: not a --sandbox mode")),
        ..Confinement::default()
    }
}

/// Part 5's figures of one game, played through `arbiter play` as it plays (freezing the
/// waiting bot), through `arbiter play` with freezing off, and by the baseline.
struct ThroughPlay {
    /// Freezing on against the baseline.
    on: Paired,
    /// Freezing off against the baseline.
    off: Paired,
    /// What freezing cost a ply, in seconds: the median of each run's difference (freezing
    /// on less off) over the plies, with its 95% confidence interval.
    per_ply: (f64, Option<(f64, f64)>),
    plies: u64,
}

/// Part 5: one game through `arbiter play`, freezing on and off, and the baseline,
/// alternated `runs` times (freezing on first in even runs, off first in odd ones; the
/// baseline last), each command alone timed. The game must come out the same every way
/// every time. A jailed bot gets arbiter's environment for bots, without
/// `$ASALTO_BENCH_SEED`: both sides play the bots seeded "0".
fn one_game_through_play(
    python: &str,
    script: &Path,
    dir: &Path,
    rebel: &Path,
    officer: &Path,
    runs: usize,
) -> ThroughPlay {
    let bin = support::arbiter_binary();
    // Beside the bots' folder, not in it: a confined bot's folder is copied at its start.
    let record = dir.with_extension("records").join("play.json");
    let fixture = Fixture {
        rebel: rebel.to_path_buf(),
        officer: officer.to_path_buf(),
        seed: 0,
    };
    // The game `arbiter play` played with `freezing`, and its time, after checking it is
    // `expected` (the baseline's game) when given.
    let play = |freezing: Freezing| -> (f64, Played, u64) {
        let (rebel, officer) = (rebel.as_os_str(), officer.as_os_str());
        let started = Instant::now();
        play_recorded(&bin, python, dir, rebel, officer, &record, freezing);
        let took = started.elapsed().as_secs_f64();
        let v = read_record(&record);
        let played = Played {
            moves: v["moves"]
                .as_array()
                .expect("moves")
                .iter()
                .map(|m| m["reply"].clone())
                .collect(),
            winner: v["winner"].as_str().map(str::to_string),
            wall: None,
        };
        (took, played, v["plies"].as_u64().unwrap_or(0))
    };
    let (mut on, mut off, mut baseline) = (Vec::new(), Vec::new(), Vec::new());
    let mut plies = 0;
    for run in 0..runs {
        let order = if run % 2 == 0 {
            [Freezing::On, Freezing::Off]
        } else {
            [Freezing::Off, Freezing::On]
        };
        let mut games = Vec::new();
        for freezing in order {
            let (took, played, n) = play(freezing);
            match freezing {
                Freezing::On => on.push(took),
                Freezing::Off => off.push(took),
            }
            plies = n;
            games.push(played);
        }
        let started = Instant::now();
        let out = baseline_command(python, script, &fixture, 1)
            .output()
            .expect("the baseline runs");
        baseline.push(started.elapsed().as_secs_f64());
        let base = baseline_games(out);
        for played in &games {
            assert!(
                played.same_game(&base[0]),
                "arbiter play and the baseline played different games"
            );
        }
    }
    let per_ply: Vec<f64> = on
        .iter()
        .zip(&off)
        .map(|(a, b)| (a - b) / plies.max(1) as f64)
        .collect();
    ThroughPlay {
        on: Paired::new(&on, &baseline),
        off: Paired::new(&off, &baseline),
        per_ply: median_interval(per_ply),
        plies,
    }
}

/// The lines part 5 prints of what freezing costs a game: freezing off against the
/// baseline, and freezing on less off, a game and a ply.
fn print_freezing(t: &ThroughPlay) {
    let (cost, interval) = t.per_ply;
    let interval = interval.map_or(String::new(), |(lo, hi)| {
        format!(" (95% CI {:.2} to {:.2})", lo * 1e6, hi * 1e6)
    });
    println!(
        "    freezing off ({FREEZE_VAR}=off) {:.1} ms: {:.3}x wall, {}",
        t.off.arbiter * 1000.0,
        t.off.arbiter / t.off.baseline,
        t.off.ratio_text()
    );
    println!(
        "    freezing costs {:.2} us a ply run by run{interval}, {:.1} ms over the game's {} plies",
        cost * 1e6,
        cost * t.plies as f64 * 1000.0,
        t.plies
    );
}

/// Whether `arbiter play` freezes the waiting bot (as it does unless `ARBITER_FREEZE=off`).
#[derive(Clone, Copy, PartialEq)]
enum Freezing {
    On,
    Off,
}

/// `arbiter play` of one game in `dir`, its record written to `record`, freezing the
/// waiting bot or not whatever the bench's own environment says.
fn play_recorded(
    bin: &Path,
    python: &str,
    dir: &Path,
    rebel: &std::ffi::OsStr,
    officer: &std::ffi::OsStr,
    record: &Path,
    freezing: Freezing,
) {
    let mut command = Command::new(bin);
    match freezing {
        Freezing::On => command.env_remove(FREEZE_VAR),
        Freezing::Off => command.env(FREEZE_VAR, "off"),
    };
    let status = command
        .current_dir(dir)
        .args(["play", "--python", python, "--rebel"])
        .arg(rebel)
        .arg("--officer")
        .arg(officer)
        .arg("--record")
        .arg(record)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("arbiter play runs");
    assert!(status.success(), "arbiter play: {status}");
}

fn read_record(record: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(record).expect("the record"))
        .expect("the record is JSON")
}

/// Course-style bots that think longer, as course teams' bots do: each move is worked out
/// `think` times (the generator put back each time, so that the move is the one the quick
/// bot plays) and played once. Written beside the seeded bots they wrap.
fn thinking_bots(dir: &Path, think: u32) -> [PathBuf; 2] {
    ["greedy", "random"].map(|kind| {
        let path = dir.join(format!("thinking_{kind}_bot.py"));
        let text = format!(
            r#""""The seeded {kind} bot, thinking {think} times as long: every move is worked out
{think} times, its generator put back before each, and played once (benches/python.rs)."""

import seeded_{kind}_bot

THINK = {think}


class Player(seeded_{kind}_bot.Player):
    def _think(self, play, board):
        for _ in range(THINK - 1):
            state = self.rng.getstate()
            play([row[:] for row in board])
            self.rng.setstate(state)
        return play(board)

    def play_rebel(self, board):
        return self._think(super().play_rebel, board)

    def play_officer(self, board):
        return self._think(super().play_officer, board)
"#
        );
        std::fs::write(&path, text).expect("a thinking bot written");
        path
    })
}

/// What a move costs through the pipes with Python bots, in `arbiter play` games of bots
/// that always answer the same illegal move (so that every game runs its 1000 rounds): the
/// referee's mean time per move (its write of the turn to its read of the reply), for a
/// minimal Python bot that speaks the protocol itself, for a course bot behind the
/// adapter, and for two course bots; then what freezing the waiting bot adds to a move of
/// two course bots: their game with freezing on and off in turns, `freeze_runs` times each,
/// the difference of the games' wall times over their plies.
fn move_cost_with_python_bots(python: &str, dir: &Path, runs: usize, freeze_runs: usize) {
    let bin = support::arbiter_binary();
    let echo = dir.join("protocol_echo_bot.py");
    std::fs::write(
        &echo,
        "import os\nlines = os.fdopen(0, 'rb')\nlines.readline()\nos.write(1, b'{\"type\":\"ready\"}\\n')\nwhile True:\n    line = lines.readline()\n    if not line or b'\"end\"' in line:\n        break\n    os.write(1, b'{\"type\":\"move\",\"move\":[[0,0],[0,1]]}\\n')\n",
    )
    .expect("the echo bot written");
    let course = dir.join("same_move_bot.py");
    std::fs::write(
        &course,
        "class Player:\n    def play_rebel(self, board):\n        return [(0, 0), (0, 1)]\n\n    def play_officer(self, board):\n        return [(0, 0), (0, 1)]\n",
    )
    .expect("the course bot written");
    let echo_command = format!("{python} {}", echo.display());
    let record = dir.with_extension("records").join("moves.json");
    // One game: its wall time and CPU time (arbiter's and its bots', user + system) in
    // seconds, and the mean µs a move per role.
    let game = |rebel: &str, officer: &str, freezing: Freezing| -> (f64, f64, [f64; 2]) {
        let cpu = cpu_seconds()[1];
        let started = Instant::now();
        play_recorded(
            &bin,
            python,
            dir,
            rebel.as_ref(),
            officer.as_ref(),
            &record,
            freezing,
        );
        let wall = started.elapsed().as_secs_f64();
        let cpu = cpu_seconds()[1] - cpu;
        let v = read_record(&record);
        assert_eq!(
            v["plies"], PLIES,
            "the game ran its 1000 rounds: {}",
            v["reason"]
        );
        let mean = |side: &str| {
            let times: Vec<f64> = v["moves"]
                .as_array()
                .expect("moves")
                .iter()
                .filter(|m| m["side"] == side)
                .map(|m| m["time_ms"].as_f64().expect("a move's time"))
                .collect();
            times.iter().sum::<f64>() * 1000.0 / times.len() as f64
        };
        (wall, cpu, [mean("rebel"), mean("officer")])
    };
    const PLIES: u64 = 2000;
    // Mean µs a move per role, medians over the runs.
    let per_move = |rebel: &str, officer: &str| -> [f64; 2] {
        let mut seen = [Vec::new(), Vec::new()];
        for _ in 0..runs {
            let (_, _, means) = game(rebel, officer, Freezing::On);
            for i in 0..2 {
                seen[i].push(means[i]);
            }
        }
        seen.map(median)
    };
    let course_file = course.display().to_string();
    let [echo_a, echo_b] = per_move(&echo_command, &echo_command);
    let [adapted, beside] = per_move(&course_file, &echo_command);
    let [both_a, both_b] = per_move(&course_file, &course_file);
    // Two course bots, freezing on and off in turns.
    let [mut walls, mut cpus, mut means] = [0, 1, 2].map(|_| [Vec::new(), Vec::new()]);
    for run in 0..freeze_runs {
        let order = if run % 2 == 0 {
            [Freezing::On, Freezing::Off]
        } else {
            [Freezing::Off, Freezing::On]
        };
        for freezing in order {
            let (wall, cpu, [a, b]) = game(&course_file, &course_file, freezing);
            let i = usize::from(freezing == Freezing::Off);
            walls[i].push(wall);
            cpus[i].push(cpu);
            means[i].push((a + b) / 2.0);
        }
    }
    let per_ply: Vec<f64> = walls[0]
        .iter()
        .zip(&walls[1])
        .map(|(on, off)| (on - off) * 1e6 / PLIES as f64)
        .collect();
    let (cost, interval) = median_interval(per_ply);
    let cpu_per_ply: Vec<f64> = cpus[0]
        .iter()
        .zip(&cpus[1])
        .map(|(on, off)| (on - off) * 1e6 / PLIES as f64)
        .collect();
    let (cpu_cost, cpu_interval) = median_interval(cpu_per_ply);
    let [cpu_on, cpu_off] = cpus.map(median);
    let [wall_on, wall_off] = walls.map(median);
    let [mean_on, mean_off] = means.map(median);
    println!(
        "  a move's cost with Python bots (arbiter play, 2000 plies of the same illegal move; the referee's mean per move, medians of {runs}):"
    );
    println!(
        "    two minimal Python bots speaking the protocol: {:.1} / {:.1} us",
        echo_a, echo_b
    );
    println!(
        "    a course bot behind the adapter, against a minimal bot: {adapted:.1} us (the minimal bot {beside:.1} us): the adapter adds {:.1} us",
        adapted - beside
    );
    println!(
        "    two course bots behind the adapter: {both_a:.1} / {both_b:.1} us: {:.1} us a move more than beside a minimal bot",
        (both_a + both_b) / 2.0 - adapted
    );
    println!(
        "  what freezing the waiting bot costs a move, two course bots ({PLIES} plies, freezing on and off in turns, medians of {freeze_runs} each):"
    );
    println!(
        "    the game: {:.1} ms frozen, {:.1} ms with {FREEZE_VAR}=off: {:.3}x; freezing costs {cost:.2} us a ply run by run{}",
        wall_on * 1000.0,
        wall_off * 1000.0,
        wall_on / wall_off,
        interval.map_or(String::new(), |(lo, hi)| format!(
            " (95% CI {lo:.2} to {hi:.2})"
        ))
    );
    println!(
        "    its CPU (arbiter's and the bots', user + system): {:.1} ms frozen, {:.1} ms not: {:.3}x; freezing costs {cpu_cost:.2} us of CPU a ply run by run{}",
        cpu_on * 1000.0,
        cpu_off * 1000.0,
        cpu_on / cpu_off,
        cpu_interval.map_or(String::new(), |(lo, hi)| format!(
            " (95% CI {lo:.2} to {hi:.2})"
        ))
    );
    println!(
        "    the referee's mean per move: {mean_on:.1} us frozen, {mean_off:.1} us not: {:.1} us of it a move (the signals themselves are sent before the move's clock starts)",
        mean_on - mean_off
    );
}

/// The wall time of `python -c pass` alone, and of two started at once (both waited for),
/// medians of `runs` alternated: what a second bot process costs a short game at least,
/// even with no referee between them. Two interpreters side by side contend for memory
/// and caches; on a two-CPU virtual machine each start is slower than one alone.
fn interpreter_starts(python: &str, runs: usize) -> (f64, f64) {
    let start = || {
        Command::new(python)
            .args(["-c", "pass"])
            .spawn()
            .expect("the interpreter starts")
    };
    let (mut one, mut two) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let t = Instant::now();
        assert!(start().wait().expect("an exit").success());
        one.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let (mut a, mut b) = (start(), start());
        assert!(a.wait().expect("an exit").success());
        assert!(b.wait().expect("an exit").success());
        two.push(t.elapsed().as_secs_f64());
    }
    (median(one), median(two))
}

fn main() {
    let pairs: usize = env_or("BENCH_PAIRS", 10);
    let rounds: usize = env_or("BENCH_ROUNDS", 3).max(1);
    let python = interpreter(&env_or("BENCH_PYTHON", "python3".to_string()));
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // The seeded bots import the course examples they wrap; a confined bot sees only its
    // own folder, so the bench plays from one folder holding both (and the baseline).
    let dir = std::env::temp_dir().join(format!("arbiter-python-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("the bench's folder");
    std::fs::create_dir_all(dir.with_extension("records")).expect("the records' folder");
    for from in [
        root.join("benches/baseline"),
        root.join("bots/python/examples"),
    ] {
        for entry in std::fs::read_dir(&from)
            .expect("the bench's bots")
            .flatten()
        {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "py") {
                std::fs::copy(&path, dir.join(entry.file_name())).expect("a bot copied");
            }
        }
    }
    let script = root.join("benches/baseline/asalto_referee.py");
    let random = dir.join("seeded_random_bot.py");
    let greedy = dir.join("seeded_greedy_bot.py");
    // Both role orders with the same seed, pair after pair (consecutive seeds per order,
    // which the one-process baseline relies on).
    let fixtures: Vec<Fixture> = (1..=pairs as u64)
        .flat_map(|seed| {
            [
                Fixture {
                    rebel: random.clone(),
                    officer: greedy.clone(),
                    seed,
                },
                Fixture {
                    rebel: greedy.clone(),
                    officer: random.clone(),
                    seed,
                },
            ]
        })
        .collect();
    let games = fixtures.len();

    println!(
        "python bench: {games} Asalto games ({pairs} role-swapped pairs), seeded course-style random vs greedy, {rounds} rounds, medians"
    );
    println!("  interpreter: {python}");
    println!(
        "  arbiter's bots confined by --sandbox {}",
        env_or("BENCH_SANDBOX", "auto".to_string())
    );
    println!(
        "  the waiting bot frozen in parts 1 and 4 (in this process; {FREEZE_VAR}=off turns it off): {}",
        if arbiter::clocks::freeze::enabled() {
            "yes"
        } else {
            "no"
        }
    );
    println!("  load (1, 5, 15 min) at the start: {}", load_average());
    let (mut arb, mut per, mut one) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let a = measure(|| through_arbiter(&python, &fixtures));
        let p = measure(|| baseline_per_game(&python, &script, &fixtures));
        let o = measure(|| baseline_one_process(&python, &script, &fixtures));
        if round == 0 {
            assert_eq!(a.games.len(), games);
            assert_eq!(p.games.len(), games);
            assert_eq!(o.games.len(), games);
            for (i, x) in a.games.iter().enumerate() {
                assert!(
                    x.same_game(&p.games[i]),
                    "game {i} differs between arbiter ({x:?}) and the baseline ({:?})",
                    p.games[i]
                );
                assert!(
                    p.games[i].same_game(&o.games[i]),
                    "game {i} differs between the baseline's two ways"
                );
            }
            let plies: usize = a.games.iter().map(|g| g.moves.len()).sum();
            println!(
                "  the same {games} games both ways: {plies} plies in all, {:.0} per game",
                plies as f64 / games as f64
            );
        }
        arb.push(a);
        per.push(p);
        one.push(o);
    }
    let wall = |ms: &[Measured]| median(ms.iter().map(|m| m.wall.as_secs_f64()).collect());
    let cpu = |ms: &[Measured]| median(ms.iter().map(|m| m.cpu[0] + m.cpu[1]).collect());
    let own = median(arb.iter().map(|m| m.cpu[0]).collect());
    let (wa, wp, wo) = (wall(&arb), wall(&per), wall(&one));
    let (ca, cp, co) = (cpu(&arb), cpu(&per), cpu(&one));
    let ms = |s: f64| s * 1000.0 / games as f64;
    println!("  per game                                  wall ms   cpu ms");
    println!(
        "  arbiter, two bot processes per game      {:8.1} {:8.1}",
        ms(wa),
        ms(ca)
    );
    println!(
        "    of which arbiter's own (referee, pipes, process control)  {:8.1}",
        ms(own)
    );
    println!(
        "  baseline, one Python process per game    {:8.1} {:8.1}",
        ms(wp),
        ms(cp)
    );
    println!(
        "  baseline, one Python process in all      {:8.1} {:8.1}",
        ms(wo),
        ms(co)
    );
    println!(
        "  ratio arbiter / baseline (one process per game): {:.3}x wall, {:.3}x cpu; target: at most 1.05x wall",
        wa / wp,
        ca / cp
    );
    println!(
        "  of the baseline's game, its Python start-up takes {:.1} ms ({:.0}%); arbiter's extra {:.1} ms a game",
        ms(wp - wo),
        100.0 * (wp - wo) / wp,
        ms(wa - wp)
    );
    // Short games show the per-game cost, long ones the per-move cost.
    println!("  by role order (medians over rounds of the summed wall time per game):");
    for (order, label) in [
        (0, "random rebels, greedy officers"),
        (1, "greedy rebels, random officers"),
    ] {
        let sum = |ms: &[Measured]| {
            median(
                ms.iter()
                    .map(|m| {
                        m.games
                            .iter()
                            .skip(order)
                            .step_by(2)
                            .filter_map(|g| g.wall)
                            .map(|w| w.as_secs_f64())
                            .sum::<f64>()
                    })
                    .collect(),
            )
        };
        let plies: usize = arb[0]
            .games
            .iter()
            .skip(order)
            .step_by(2)
            .map(|g| g.moves.len())
            .sum();
        let n = pairs as f64;
        let (a, p) = (sum(&arb), sum(&per));
        println!(
            "    {label}: {:.0} plies a game; arbiter {:.1} ms, baseline {:.1} ms a game: {:.3}x; arbiter's extra {:.1} ms a game, {:.1} us a ply",
            plies as f64 / n,
            a * 1000.0 / n,
            p * 1000.0 / n,
            a / p,
            (a - p) * 1000.0 / n,
            (a - p) * 1e6 / plies as f64
        );
    }

    let long_runs = 5 * rounds;
    let t = one_game_through_play(&python, &script, &dir, &greedy, &random, long_runs);
    let (p, plies) = (&t.on, t.plies);
    println!(
        "  one game through arbiter play (the command line, its start-up included; greedy rebels, random officers, {plies} plies), medians of {long_runs}:"
    );
    println!(
        "    arbiter play {:.1} ms, baseline {:.1} ms: {:.3}x wall, {}; target: at most 1.05x",
        p.arbiter * 1000.0,
        p.baseline * 1000.0,
        p.arbiter / p.baseline,
        p.ratio_text()
    );
    print_freezing(&t);
    // The same game between bots that think about as long as course bots do.
    let think: u32 = env_or("BENCH_THINK", 10);
    let [slow_greedy, slow_random] = thinking_bots(&dir, think);
    let t = one_game_through_play(
        &python,
        &script,
        &dir,
        &slow_greedy,
        &slow_random,
        long_runs,
    );
    let (p, plies) = (&t.on, t.plies);
    println!(
        "  the same game, each bot thinking {think} times as long (BENCH_THINK), {plies} plies, medians of {long_runs}:"
    );
    println!(
        "    arbiter play {:.1} ms, baseline {:.1} ms: {:.3}x wall ({:.1} ms more), {}; target: at most 1.05x",
        p.arbiter * 1000.0,
        p.baseline * 1000.0,
        p.arbiter / p.baseline,
        (p.arbiter - p.baseline) * 1000.0,
        p.ratio_text()
    );
    print_freezing(&t);
    // Short games (the random rebels are soon captured), where start-up and end weigh
    // most: the quick bots, then the bots that think. A few tens of milliseconds each, on
    // a machine whose speed drifts by a millisecond or two: five times the runs.
    let short_runs = 15 * rounds;
    let (one, two) = interpreter_starts(&python, short_runs);
    for (label, rebel, officer) in [
        ("quick", &random, &greedy),
        ("thinking", &slow_random, &slow_greedy),
    ] {
        let t = one_game_through_play(&python, &script, &dir, rebel, officer, short_runs);
        let (p, plies) = (&t.on, t.plies);
        let (a, b) = (p.arbiter, p.baseline);
        println!(
            "  a short game through arbiter play, {label} bots (random rebels, greedy officers, {plies} plies), medians of {}:",
            short_runs
        );
        println!(
            "    arbiter play {:.1} ms, baseline {:.1} ms: {:.3}x wall ({:.1} ms more), {}; target: at most 1.10x",
            a * 1000.0,
            b * 1000.0,
            a / b,
            (a - b) * 1000.0,
            p.ratio_text()
        );
        println!(
            "    its floor with a process per bot: the baseline plus a second interpreter's start beside the first, {:.3}x",
            (b + two - one) / b
        );
        print_freezing(&t);
    }
    println!(
        "  an interpreter's start (`{python} -c pass`) {:.1} ms alone, {:.1} ms for two side by side ({:.3}x), medians of {}",
        one * 1000.0,
        two * 1000.0,
        two / one,
        short_runs
    );
    move_cost_with_python_bots(&python, &dir, rounds, 5 * rounds);

    // As a league plays them: the same two games (one seed, both role orders) again and
    // again, the next games' bots started while one is played.
    let seed = 1;
    let league_fixtures: Vec<Fixture> = (0..pairs)
        .flat_map(|_| fixtures[..2].iter().cloned())
        .map(|f| Fixture { seed, ..f })
        .collect();
    let (mut lg, mut lb) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let l = measure(|| as_a_league(&python, &league_fixtures, seed));
        let b = measure(|| baseline_per_game(&python, &script, &league_fixtures));
        if round == 0 {
            // A league orders each pair's two games its own way: every game must be one
            // of the two, each as often as in the baseline.
            assert_eq!(l.games.len(), league_fixtures.len());
            let count =
                |games: &[Played], of: &Played| games.iter().filter(|g| g.same_game(of)).count();
            for (i, x) in l.games.iter().enumerate() {
                assert!(
                    b.games[..2].iter().any(|g| x.same_game(g)),
                    "league game {i} is neither of the baseline's two games"
                );
            }
            for g in &b.games[..2] {
                assert_eq!(count(&l.games, g), count(&b.games, g));
            }
        }
        lg.push(l);
        lb.push(b);
    }
    let (wl, wb) = (wall(&lg), wall(&lb));
    let (cl, cb) = (cpu(&lg), cpu(&lb));
    let n = league_fixtures.len() as f64;
    println!(
        "  as a league plays them (arbiter league -j 1, {} games of seed {seed}, both role orders):",
        league_fixtures.len()
    );
    println!(
        "    arbiter {:.1} ms a game ({:.1} ms cpu), baseline {:.1} ms a game ({:.1} ms cpu): {:.3}x wall; target: at most 1.05x",
        wl * 1000.0 / n,
        cl * 1000.0 / n,
        wb * 1000.0 / n,
        cb * 1000.0 / n,
        wl / wb
    );
    println!("  load (1, 5, 15 min) at the end: {}", load_average());
    let _ = std::fs::remove_dir_all(dir.with_extension("records"));
    let _ = std::fs::remove_dir_all(&dir);
}
