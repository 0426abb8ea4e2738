//! Protocol overhead, printed as a readable report:
//!
//! 1. One move's round trip through the protocol (`ProcessPlayer::turn` with
//!    `arbiter bot random` as the subprocess) against a raw pipe echo between two processes
//!    (a `cat` child: write one turn-sized line, read it back), measured in the same run;
//!    each also with both processes on one CPU, as the referee places a game's bots
//!    beside itself (`arbiter::clocks::placement`): the protocol then never spins. Then the
//!    same placed round trip with a bot that does no work (this bench's own program,
//!    answering every turn with the same move, unread): the protocol's own cost, the
//!    referee's side and the pipes, without a bot's thinking. Last, that bot unplaced and
//!    never sleeping (it polls its stdin without blocking) while the referee spins too:
//!    no wake-up on either side, the fastest the protocol can answer on this machine.
//!    Last, each of the two bots over the bare pipes, placed, without a referee: the
//!    turn line written as it is and the reply read back unchecked. Against it, the
//!    protocol's round trip with the same bot is what the referee's side adds, and the
//!    bare round trip against the echo is what the bot's own work adds.
//! 2. Games per second, built-in random against random: both as `arbiter bot random`
//!    subprocesses through the referee, and both in-process.
//!
//! Run with `cargo bench --bench protocol`. It builds the release `arbiter` binary first
//! (`cargo build --release --bins`). Knobs: `BENCH_MOVES` (round trips per
//! measurement, default 5000), `BENCH_GAMES` (subprocess games, default 40; in-process
//! games are 10 times as many).

use arbiter::bots::process::ProcessPlayer;
use arbiter::bots::protocol::{self, ToBot};
use arbiter::bots::spec::{BotSpec, CommandSpec};
use arbiter::bots::{EndInfo, Player, Reply, Setup};
use arbiter::clocks::placement::Placement;
use arbiter::games::asalto::Asalto;
use arbiter::games::{Game, Side};
use arbiter::referee::{MatchConfig, play_game};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod support;
use support::{arbiter_binary, env_or};

struct Stats {
    mean: Duration,
    median: Duration,
    p99: Duration,
}

fn stats(mut samples: Vec<Duration>) -> Stats {
    samples.sort();
    let n = samples.len();
    let total: Duration = samples.iter().sum();
    Stats {
        mean: total / n as u32,
        median: samples[n / 2],
        p99: samples[(n * 99 / 100).min(n - 1)],
    }
}

fn us(d: Duration) -> String {
    format!("{:.1} µs", d.as_secs_f64() * 1e6)
}

/// The line the referee sends for the start position.
fn turn_line(game: &Asalto) -> String {
    let mut line = Vec::new();
    game.write_turn(&game.initial(), &mut line);
    String::from_utf8(line).expect("a turn line is UTF-8")
}

fn raw_echo(line: &str, moves: usize) -> Vec<Duration> {
    let mut child = Command::new("cat")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("cat starts");
    echo_with(&mut child, None, line, moves, |back| {
        assert_eq!(back.len(), line.len())
    })
}

/// `moves` round trips (after a tenth as many unmeasured) of `line` to `child` over its
/// pipes, each reply read back with a blocking read and handed to `check`; `hello` is sent
/// first and its one-line answer read, unmeasured.
fn echo_with(
    child: &mut std::process::Child,
    hello: Option<&str>,
    line: &str,
    moves: usize,
    check: impl Fn(&str),
) -> Vec<Duration> {
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut back = String::new();
    if let Some(hello) = hello {
        stdin.write_all(hello.as_bytes()).expect("hello");
        stdout.read_line(&mut back).expect("its answer");
    }
    let mut samples = Vec::with_capacity(moves);
    for i in 0..moves + moves / 10 {
        back.clear();
        let t = Instant::now();
        stdin.write_all(line.as_bytes()).expect("write");
        stdin.flush().expect("flush");
        stdout.read_line(&mut back).expect("read");
        let elapsed = t.elapsed();
        check(&back);
        if i >= moves / 10 {
            samples.push(elapsed);
        }
    }
    drop(stdin);
    let _ = child.wait();
    samples
}

/// Round trips as in a game: the bot and the bench's thread placed on one CPU, as the
/// referee places a game's bots beside itself.
fn placed_round_trips(bin: &std::path::Path, game: &Asalto, moves: usize) -> Vec<Duration> {
    protocol_round_trips_with(random_bot(bin), game, moves, true)
}

fn protocol_round_trips(bin: &std::path::Path, game: &Asalto, moves: usize) -> Vec<Duration> {
    protocol_round_trips_with(random_bot(bin), game, moves, false)
}

fn random_bot(bin: &std::path::Path) -> CommandSpec {
    CommandSpec::new(bin.to_string_lossy())
        .arg("bot")
        .arg("random")
}

/// Set in this bench's own program started as a bot that does no work ([`idle_bot`]).
const IDLE_BOT_VAR: &str = "PROTOCOL_BENCH_IDLE_BOT";
/// Set too, that bot never sleeps: it polls its stdin without blocking.
const IDLE_SPIN_VAR: &str = "PROTOCOL_BENCH_IDLE_SPIN";

/// A bot that does no work: it answers the first line with `ready` and every other line
/// with the same move, unread, until `end`. Through `ProcessPlayer::turn`, placed, its
/// round trip is the protocol's own cost (the referee's encoding, pipes and reading)
/// without a bot's thinking, against the raw echo.
fn idle_bot() -> ! {
    let spin = std::env::var_os(IDLE_SPIN_VAR).is_some();
    if spin {
        rustix::io::ioctl_fionbio(std::io::stdin(), true).expect("a non-blocking stdin");
    }
    let mut input = std::io::stdin().lock();
    let mut out = std::io::stdout().lock();
    let mut line = Vec::with_capacity(512);
    let mut ready = false;
    loop {
        line.clear();
        match input.read_until(b'\n', &mut line) {
            Ok(0) => break,
            Ok(_) => {}
            // Nothing yet (a spinning bot): the part of a line read stays in `line`.
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                while !line.ends_with(b"\n") {
                    match input.read_until(b'\n', &mut line) {
                        Ok(0) => std::process::exit(0),
                        Ok(_) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                            std::hint::spin_loop()
                        }
                        Err(_) => std::process::exit(0),
                    }
                }
            }
            Err(_) => break,
        }
        if line.starts_with(br#"{"type":"end""#) {
            break;
        }
        let reply: &[u8] = match ready {
            false => b"{\"type\":\"ready\"}\n",
            true => b"{\"type\":\"move\",\"move\":[[4,0],[3,0]]}\n",
        };
        ready = true;
        if out.write_all(reply).and_then(|()| out.flush()).is_err() {
            break;
        }
    }
    std::process::exit(0)
}

fn idle_bot_command(spin: bool) -> CommandSpec {
    let me = std::env::current_exe().expect("the bench's own program");
    let mut command = CommandSpec::new(me.to_string_lossy());
    command.env.insert(IDLE_BOT_VAR.into(), "1".into());
    if spin {
        command.env.insert(IDLE_SPIN_VAR.into(), "1".into());
    }
    command
}

/// `program` started on a CPU of its own claim (by `taskset`), the bench's thread placed
/// on it too, with piped stdin and stdout.
fn placed_child(
    program: &str,
    args: &[String],
    env: &BTreeMap<String, String>,
) -> (Placement, std::process::Child) {
    let placement = Placement::take().expect("a CPU to place the child on");
    let cpus = format!("{}", placement.cpu());
    let child = Command::new("taskset")
        .args(["-c", &cpus, program])
        .args(args)
        .envs(env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("taskset starts the child");
    (placement, child)
}

/// Round trips to the same bot as the protocol's, `arbiter bot random` (or this bench's bot
/// that does no work), over the bare pipes: the turn line written as it is, the reply read
/// with a blocking read, nothing checked but its type; both on one CPU. The protocol's
/// round trip over this one is what the referee's side adds to the bot's own.
fn placed_bare_bot(command: CommandSpec, line: &str, moves: usize) -> Vec<Duration> {
    let (_placement, mut child) = placed_child(&command.program, &command.args, &command.env);
    let hello = rebel_hello();
    echo_with(&mut child, Some(&hello), line, moves, |back| {
        assert!(back.starts_with(r#"{"type":"move""#), "{back}")
    })
}

/// The raw echo with `cat` and the bench's thread on one CPU.
fn placed_raw_echo(line: &str, moves: usize) -> Vec<Duration> {
    let (_placement, mut child) = placed_child("cat", &[], &BTreeMap::new());
    echo_with(&mut child, None, line, moves, |back| {
        assert_eq!(back.len(), line.len())
    })
}

fn protocol_round_trips_with(
    bot: CommandSpec,
    game: &Asalto,
    moves: usize,
    placed: bool,
) -> Vec<Duration> {
    let mut player = ProcessPlayer::new(bot);
    let setup = Setup {
        side: Side::First,
        move_limit: Duration::from_secs(10),
        init_limit: Duration::from_secs(10),
        seed: 1,
    };
    Player::<Asalto>::start(&mut player, game, &setup).expect("the bot starts");
    let placement = placed.then(|| Placement::take().expect("a CPU to place the game on"));
    if let Some(placement) = &placement {
        assert!(Player::<Asalto>::place(&mut player, placement));
    }
    let state = game.initial();
    let mut samples = Vec::with_capacity(moves);
    for i in 0..moves + moves / 10 {
        let t = Instant::now();
        let reply = Player::<Asalto>::turn(&mut player, game, &state);
        let elapsed = t.elapsed();
        assert!(
            matches!(reply.reply, Reply::Wire(_)),
            "a move: {:?}",
            reply.reply
        );
        if i >= moves / 10 {
            samples.push(elapsed);
        }
    }
    Player::<Asalto>::finish(
        &mut player,
        &EndInfo {
            result: "tie",
            reason: "bench".into(),
        },
    );
    samples
}

/// The `hello` a rebel bot is sent, with the referee's usual limits.
fn rebel_hello() -> String {
    protocol::encode(&ToBot::Hello {
        protocol: protocol::PROTOCOL_VERSION,
        game: "asalto".into(),
        role: "rebel".into(),
        time_limit_ms: 10_000,
        init_limit_ms: 10_000,
        seed: 1,
    })
}

/// The bot's own work per turn without any pipe: `serve` over an in-memory input.
fn serve_in_memory(game: &Asalto, line: &str, moves: usize) -> Duration {
    let hello = rebel_hello();
    let mut input = hello;
    for _ in 0..moves {
        input.push_str(line);
    }
    let mut out = Vec::with_capacity(moves * 40);
    let t = Instant::now();
    arbiter::bots::serve::serve(game, "random", input.as_bytes(), &mut out).expect("serve");
    let elapsed = t.elapsed();
    assert_eq!(out.iter().filter(|&&b| b == b'\n').count(), moves + 1);
    elapsed / moves as u32
}

/// The referee's own work per turn without any pipe: write the turn into the buffer it
/// keeps (as `ProcessPlayer::turn` does), classify a reply.
fn referee_in_memory(game: &Asalto, moves: usize) -> Duration {
    let state = game.initial();
    let reply = r#"{"type":"move","move":[[4,0],[3,0]]}"#;
    let mut line = Vec::new();
    let t = Instant::now();
    for _ in 0..moves {
        line.clear();
        game.write_turn(&state, &mut line);
        std::hint::black_box(&line);
        let got = protocol::classify::<protocol::FromBot>(std::hint::black_box(reply));
        std::hint::black_box(got);
    }
    t.elapsed() / moves as u32
}

/// Plays `games` games of random against random; returns games per second and plies.
fn games_per_second(game: &Asalto, spec: &BotSpec, games: usize) -> (f64, u64) {
    let started = Instant::now();
    let mut plies = 0u64;
    for g in 0..games {
        let mut a = arbiter::bots::open_player(spec, game).expect("seat");
        let mut b = arbiter::bots::open_player(spec, game).expect("seat");
        let config = MatchConfig {
            move_limit: Duration::from_secs(10),
            init_limit: Duration::from_secs(10),
            seed: g as u64 + 1,
            ..MatchConfig::default()
        };
        let record = play_game(
            game,
            [a.as_mut(), b.as_mut()],
            ["a", "b"],
            &config,
            &mut |_| {},
        );
        assert!(
            !record.reason.contains("crash") && !record.reason.contains("timeout"),
            "game {g} ended by {}: {:?}",
            record.reason,
            record.detail
        );
        plies += record.plies as u64;
    }
    (games as f64 / started.elapsed().as_secs_f64(), plies)
}

fn main() {
    if std::env::var_os(IDLE_BOT_VAR).is_some() {
        idle_bot();
    }
    // `cargo bench` passes `--bench`; nothing to filter here.
    let moves: usize = env_or("BENCH_MOVES", 5000);
    let games: usize = env_or("BENCH_GAMES", 40);
    let bin = arbiter_binary();
    let game = Asalto::default();
    let line = turn_line(&game);

    println!("# Protocol benchmark");
    println!();
    println!(
        "{} round trips per measurement after a warm-up; the turn line is {} bytes; cores: {}",
        moves,
        line.len(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    println!();
    println!("## One move's round trip");
    println!("| path | mean | median | p99 |");
    println!("| --- | --- | --- | --- |");
    // Each row is printed as soon as it is measured.
    let row = |label: &str, samples: Vec<Duration>| {
        let s = stats(samples);
        println!(
            "| {label} | {} | {} | {} |",
            us(s.mean),
            us(s.median),
            us(s.p99)
        );
        s
    };
    let raw = row("raw pipe echo (`cat`)", raw_echo(&line, moves));
    let raw_placed = row(
        "raw pipe echo (`cat`), both on one CPU",
        placed_raw_echo(&line, moves),
    );
    let proto = row(
        "protocol: ProcessPlayer::turn with `arbiter bot random`, unplaced (spins)",
        protocol_round_trips(&bin, &game, moves),
    );
    let placed = row(
        "protocol: the same placed on one CPU, as in a game (no spin)",
        placed_round_trips(&bin, &game, moves),
    );
    let idle = row(
        "protocol, placed, with a bot that does no work (the protocol's own cost)",
        protocol_round_trips_with(idle_bot_command(false), &game, moves, true),
    );
    let spinning = row(
        "protocol, unplaced, that bot never sleeping and the referee spinning (no wake-up anywhere)",
        protocol_round_trips_with(idle_bot_command(true), &game, moves, false),
    );
    let bare = row(
        "`arbiter bot random` over bare pipes, placed (no referee)",
        placed_bare_bot(random_bot(&bin), &line, moves),
    );
    let bare_idle = row(
        "the bot that does no work over bare pipes, placed (no referee)",
        placed_bare_bot(idle_bot_command(false), &line, moves),
    );
    println!();
    println!("ratios (target: at most 1.1x median, 1.5x p99):");
    let ratios = [
        ("placed protocol / raw echo", &placed, &raw),
        (
            "placed protocol / raw echo on one CPU",
            &placed,
            &raw_placed,
        ),
        ("unplaced protocol / raw echo", &proto, &raw),
        (
            "the protocol's own cost (a bot that does no work, placed) / raw echo on one CPU",
            &idle,
            &raw_placed,
        ),
        (
            "with no wake-up anywhere (that bot never sleeping, the referee spinning) / raw echo",
            &spinning,
            &raw,
        ),
        (
            "`arbiter bot random` over bare pipes / raw echo on one CPU (the bot's own work, no referee)",
            &bare,
            &raw_placed,
        ),
        (
            "placed protocol / the same bot over bare pipes (the referee's side)",
            &placed,
            &bare,
        ),
        (
            "a bot that does no work: placed protocol / over bare pipes",
            &idle,
            &bare_idle,
        ),
    ];
    for (label, a, b) in ratios {
        println!(
            "- {label}: {:.2}x median, {:.2}x p99",
            a.median.as_secs_f64() / b.median.as_secs_f64(),
            a.p99.as_secs_f64() / b.p99.as_secs_f64()
        );
    }
    println!();
    println!("Where the protocol's time goes, per move, without pipes:");
    println!(
        "- the bot (`serve`: parse the turn, rebuild the position, pick a random move, answer): {}",
        us(serve_in_memory(&game, &line, moves))
    );
    println!(
        "- the referee (encode the turn, classify the reply): {}",
        us(referee_in_memory(&game, moves))
    );
    println!();

    println!("## Games per second, random against random");
    println!("| bots | games | plies per game | games/s |");
    println!("| --- | --- | --- | --- |");
    let sub = BotSpec::Command(
        CommandSpec::new(bin.to_string_lossy())
            .arg("bot")
            .arg("random"),
    );
    let (sub_rate, sub_plies) = games_per_second(&game, &sub, games);
    println!(
        "| subprocesses (`arbiter bot random`) | {games} | {:.0} | {sub_rate:.1} |",
        sub_plies as f64 / games as f64
    );
    let inproc_games = games * 10;
    let inproc = BotSpec::Builtin("random".into());
    let (in_rate, in_plies) = games_per_second(&game, &inproc, inproc_games);
    println!(
        "| in-process (`builtin:random`) | {inproc_games} | {:.0} | {in_rate:.1} |",
        in_plies as f64 / inproc_games as f64
    );
    println!();
    println!("ratio in-process / subprocess: {:.1}x", in_rate / sub_rate);
}
