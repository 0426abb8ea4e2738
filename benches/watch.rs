//! What an audience of the live page costs a run (`league --watch`, issue 59: "a slow,
//! stalled or hundred-tab audience costs the run nothing"). A league of four course-style
//! Python bots (the course's greedy and random bots of bots/python/examples, two of each,
//! their generators seeded by name so that every league plays the same games; `--pairs`,
//! `--random-plies 4` from a fixed `--seed` so that the pairs differ; the default -j) is
//! run with `--watch` in both arms, so that the server is in both; the arms differ by the
//! audience alone:
//!
//! - quiet: nobody asks the server anything;
//! - watched: as soon as the page's URL (the first line of the league's stdout) appears,
//!   `BENCH_CLIENTS` viewers poll it as the page does, each on a keep-alive HTTP/1.1
//!   connection of its own (written by hand here): the page (`/`, or `/team/NAME` for
//!   every fifth viewer), then `/api/state`, then, when the state's `done` count changed
//!   since the last fetch, `/api/games` (a team page's `/api/team/NAME`), then a second's
//!   pause, and again (the viewers start spread over the first second). Beside them, three
//!   hostile clients: a connection that never sends anything, one that sends a partial
//!   request line and stalls, and one that asks for `/api/games` and reads its answer one
//!   byte per 100 ms. All stop when the league's process exits (their connection errors
//!   after its run's end are not counted).
//!
//! Each league's time is from its spawn to its summary line (`... games in DIR; this run
//! played N`, printed once its tables and report are written): the run's own time,
//! without the ~3 s that `--watch` then keeps serving for the pages open (that linger is
//! printed apart). The arms run in turns (which goes first alternates), each league into a
//! fresh `--out` folder, after one watched league that warms the caches and is not
//! counted. Printed: the medians of each arm and their ratio, the ratio of each watched
//! run to the quiet run beside it (median and a distribution-free 95% confidence
//! interval: a run and its neighbour share the machine's drift), the answers the audience
//! got (200s a second of the run, other statuses, connection errors during the run, the
//! answers' times), and the CPU seconds of the league (arbiter and its bots) in each arm
//! and of the audience (this process). Every league must play all
//! its games and every watched run must get answers, or the bench stops. Goal (issue
//! 59): watched at most 1.02x quiet.
//!
//! Run: cargo bench --bench watch. Knobs: `BENCH_RUNS` (runs of each arm, default 5),
//! `BENCH_CLIENTS` (viewers, default 50; 0: the hostile clients alone), `BENCH_PAIRS`
//! (role-swapped pairs of games per pairing, default 12: 144 games, some 10-20 s on two
//! cores), `BENCH_ROUNDS` (Asalto's round limit, default 1000, the course's: most games end
//! well before it), `BENCH_PYTHON` (the interpreter, default python3), `BENCH_ARBITER` (the
//! arbiter program, default this tree's release build).

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

mod support;
use support::{Paired, cpu_seconds, env_or, load_average, median};

/// The bots: each a course example subclassed with its generator seeded by its name.
const BOTS: [(&str, &str); 4] = [
    ("greedy_a", "greedy"),
    ("greedy_b", "greedy"),
    ("random_a", "random"),
    ("random_b", "random"),
];

/// The bots' files, each in a folder of its own with the course modules it imports (a
/// confined bot sees its own folder only).
fn write_bots(dir: &Path) -> Vec<String> {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("bots/python/examples");
    BOTS.iter()
        .map(|(name, kind)| {
            let folder = dir.join(name);
            std::fs::create_dir_all(&folder).expect("a bot's folder");
            for module in ["asalto_moves.py", "greedy_bot.py", "random_bot.py"] {
                std::fs::copy(examples.join(module), folder.join(module))
                    .expect("a course module copied");
            }
            let file = folder.join(format!("{name}.py"));
            let text = format!(
                r#""""The course's {kind} bot, its generator seeded with its name so that every
league of the bench plays the same games (benches/watch.rs)."""

import random

import {kind}_bot


class Player({kind}_bot.Player):
    def __init__(self):
        super().__init__()
        self.rng = random.Random("{name}")
"#
            );
            std::fs::write(&file, text).expect("a bot written");
            format!("{name}={}", file.display())
        })
        .collect()
}

/// What the audience got, summed over its clients.
#[derive(Default)]
struct Tally {
    /// 200 answers, and of them to `/api/state` and to the games' lists.
    ok: AtomicU64,
    states: AtomicU64,
    lists: AtomicU64,
    /// Answers of another status (a 503 before the run's journal exists, say), and how
    /// many of each.
    other: AtomicU64,
    statuses: Mutex<BTreeMap<u16, u64>>,
    /// Requests that got no answer: a connection refused, reset or timed out.
    failed: AtomicU64,
    /// Bytes the slow reader read.
    slow_bytes: AtomicU64,
    /// The hostile connections that were made.
    hostile: AtomicU64,
    /// Each 200 answer's time, request written to body read, in microseconds.
    times: Mutex<Vec<u32>>,
}

impl Tally {
    fn snapshot(&self) -> [u64; 3] {
        [
            self.ok.load(Ordering::SeqCst),
            self.other.load(Ordering::SeqCst),
            self.failed.load(Ordering::SeqCst),
        ]
    }
}

/// A keep-alive HTTP/1.1 connection to the page's server, made again after an error.
struct Client {
    addr: SocketAddr,
    conn: Option<BufReader<TcpStream>>,
}

fn invalid(what: &str) -> std::io::Error {
    std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string())
}

/// One line of the answer's head, without its CRLF; an error at the end of the stream.
fn head_line(conn: &mut BufReader<TcpStream>, line: &mut String) -> std::io::Result<()> {
    line.clear();
    if conn.read_line(line)? == 0 {
        return Err(std::io::ErrorKind::UnexpectedEof.into());
    }
    line.truncate(line.trim_end().len());
    Ok(())
}

/// A GET of `path`, sent in one write as a browser sends it.
fn request(addr: SocketAddr, path: &str) -> String {
    format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept: */*\r\n\r\n")
}

/// One request on `conn`: the answer's status and body, and whether the connection
/// stays open.
fn exchange(
    conn: &mut BufReader<TcpStream>,
    addr: SocketAddr,
    path: &str,
) -> std::io::Result<(u16, Vec<u8>, bool)> {
    conn.get_mut().write_all(request(addr, path).as_bytes())?;
    let mut line = String::new();
    head_line(conn, &mut line)?;
    let status: u16 = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| invalid("a status line"))?;
    let (mut length, mut chunked, mut close) = (None, false, false);
    loop {
        head_line(conn, &mut line)?;
        if line.is_empty() {
            break;
        }
        let Some((name, value)) = line.split_once(':') else {
            return Err(invalid("a header"));
        };
        let value = value.trim().to_ascii_lowercase();
        match name.trim().to_ascii_lowercase().as_str() {
            "content-length" => length = value.parse::<usize>().ok(),
            "transfer-encoding" => chunked = value.contains("chunked"),
            "connection" => close = value.contains("close"),
            _ => {}
        }
    }
    let mut body = Vec::new();
    if chunked {
        // tiny_http chunks an answer of 32 KiB or more.
        loop {
            head_line(conn, &mut line)?;
            let size = line.split(';').next().unwrap_or_default().trim();
            let size = usize::from_str_radix(size, 16).map_err(|_| invalid("a chunk's size"))?;
            if size == 0 {
                loop {
                    head_line(conn, &mut line)?;
                    if line.is_empty() {
                        break;
                    }
                }
                break;
            }
            let start = body.len();
            body.resize(start + size, 0);
            conn.read_exact(&mut body[start..])?;
            head_line(conn, &mut line)?;
        }
    } else if let Some(length) = length {
        body.resize(length, 0);
        conn.read_exact(&mut body)?;
    } else {
        conn.read_to_end(&mut body)?;
        close = true;
    }
    Ok((status, body, !close))
}

impl Client {
    fn new(addr: SocketAddr) -> Client {
        Client { addr, conn: None }
    }

    /// GET `path`: its status and body, counted in `tally`; `None` unless a 200.
    fn get(&mut self, path: &str, tally: &Tally) -> Option<Vec<u8>> {
        let started = Instant::now();
        let result = (|| {
            if self.conn.is_none() {
                let stream = TcpStream::connect_timeout(&self.addr, Duration::from_secs(5))?;
                stream.set_read_timeout(Some(Duration::from_secs(30)))?;
                stream.set_nodelay(true)?;
                self.conn = Some(BufReader::new(stream));
            }
            let conn = self.conn.as_mut().expect("connected");
            exchange(conn, self.addr, path)
        })();
        match result {
            Ok((status, body, open)) => {
                if !open {
                    self.conn = None;
                }
                if status == 200 {
                    let micros = started.elapsed().as_micros().min(u32::MAX as u128) as u32;
                    tally.times.lock().unwrap().push(micros);
                    tally.ok.fetch_add(1, Ordering::SeqCst);
                    Some(body)
                } else {
                    *tally.statuses.lock().unwrap().entry(status).or_default() += 1;
                    tally.other.fetch_add(1, Ordering::SeqCst);
                    None
                }
            }
            Err(_) => {
                self.conn = None;
                tally.failed.fetch_add(1, Ordering::SeqCst);
                None
            }
        }
    }
}

/// Sleeps `time`, or less when `stop` is raised meanwhile; whether it was not.
fn pause(time: Duration, stop: &AtomicBool) -> bool {
    let until = Instant::now() + time;
    while !stop.load(Ordering::SeqCst) {
        let now = Instant::now();
        if now >= until {
            return true;
        }
        std::thread::sleep((until - now).min(Duration::from_millis(50)));
    }
    false
}

/// A page open on `team`'s page or the whole run's, polling as page.js does.
fn viewer(addr: SocketAddr, team: Option<&str>, stop: &AtomicBool, tally: &Tally) {
    let (page, list) = match team {
        Some(team) => (format!("/team/{team}"), format!("/api/team/{team}")),
        None => ("/".to_string(), "/api/games".to_string()),
    };
    let mut client = Client::new(addr);
    let mut loaded = false;
    // The `done` count of the last list fetched (page.js's `gamesOf`).
    let mut listed: Option<Option<u64>> = None;
    while !stop.load(Ordering::SeqCst) {
        if !loaded {
            loaded = client.get(&page, tally).is_some();
        }
        if loaded && let Some(body) = client.get("/api/state", tally) {
            tally.states.fetch_add(1, Ordering::SeqCst);
            let done = serde_json::from_slice::<serde_json::Value>(&body)
                .ok()
                .and_then(|state| state["done"].as_u64());
            if listed != Some(done) && client.get(&list, tally).is_some() {
                tally.lists.fetch_add(1, Ordering::SeqCst);
                listed = Some(done);
            }
        }
        pause(Duration::from_secs(1), stop);
    }
}

/// The hostile clients.
#[derive(Clone, Copy)]
enum Hostile {
    /// Connects and never sends anything.
    Stalled,
    /// Sends a part of a request line and stalls.
    Partial,
    /// Asks for `/api/games` and reads the answer one byte per 100 ms.
    SlowReader,
}

fn hostile(addr: SocketAddr, kind: Hostile, stop: &AtomicBool, tally: &Tally) {
    while !stop.load(Ordering::SeqCst) {
        let Ok(mut stream) = TcpStream::connect_timeout(&addr, Duration::from_secs(5)) else {
            pause(Duration::from_millis(100), stop);
            continue;
        };
        tally.hostile.fetch_add(1, Ordering::SeqCst);
        let sent = match kind {
            Hostile::Stalled => Ok(()),
            Hostile::Partial => stream.write_all(b"GET /api/sta"),
            Hostile::SlowReader => stream.write_all(request(addr, "/api/games").as_bytes()),
        };
        if sent.is_err() {
            pause(Duration::from_millis(100), stop);
            continue;
        }
        match kind {
            // Held open, silent, until the league ends (or the server drops it: then
            // another).
            Hostile::Stalled | Hostile::Partial => {
                let _ = stream.set_read_timeout(Some(Duration::from_millis(100)));
                let mut byte = [0u8; 1];
                while !stop.load(Ordering::SeqCst) {
                    match stream.read(&mut byte) {
                        Ok(0) => break,
                        Ok(_) => {}
                        Err(e)
                            if matches!(
                                e.kind(),
                                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                            ) => {}
                        Err(_) => break,
                    }
                }
            }
            Hostile::SlowReader => {
                let _ = stream.set_read_timeout(Some(Duration::from_millis(100)));
                let mut byte = [0u8; 1];
                while pause(Duration::from_millis(100), stop) {
                    match stream.read(&mut byte) {
                        Ok(0) => break,
                        Ok(_) => {
                            tally.slow_bytes.fetch_add(1, Ordering::SeqCst);
                        }
                        Err(e)
                            if matches!(
                                e.kind(),
                                std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut
                            ) => {}
                        Err(_) => break,
                    }
                }
            }
        }
        pause(Duration::from_millis(100), stop);
    }
}

/// The audience of one league: its threads until [`Audience::stop`].
struct Audience {
    stop: Arc<AtomicBool>,
    tally: Arc<Tally>,
    threads: Vec<std::thread::JoinHandle<()>>,
}

impl Audience {
    fn start(addr: SocketAddr, clients: usize) -> Audience {
        let stop = Arc::new(AtomicBool::new(false));
        let tally = Arc::new(Tally::default());
        let mut threads = Vec::new();
        for kind in [Hostile::Stalled, Hostile::Partial, Hostile::SlowReader] {
            let (stop, tally) = (stop.clone(), tally.clone());
            threads.push(std::thread::spawn(move || {
                hostile(addr, kind, &stop, &tally)
            }));
        }
        for i in 0..clients {
            let (stop, tally) = (stop.clone(), tally.clone());
            // Every fifth viewer on a team's page; the viewers spread over a second.
            let team = (i % 5 == 4).then(|| BOTS[i / 5 % BOTS.len()].0);
            let offset = Duration::from_secs(1).mul_f64(i as f64 / clients as f64);
            threads.push(std::thread::spawn(move || {
                if pause(offset, &stop) {
                    viewer(addr, team, &stop, &tally);
                }
            }));
        }
        Audience {
            stop,
            tally,
            threads,
        }
    }

    fn stop(self) -> Arc<Tally> {
        self.stop.store(true, Ordering::SeqCst);
        for thread in self.threads {
            thread.join().expect("a client ends");
        }
        self.tally
    }
}

/// One league's figures.
struct League {
    /// Spawn to the summary line, and to the process's exit, in seconds.
    run: f64,
    exit: f64,
    /// CPU seconds of the league (arbiter and its bots), and of this process meanwhile.
    cpu: f64,
    own_cpu: f64,
    /// The audience's: what it had got by the run's end (200s, other answers, requests
    /// with no answer), the seconds from the URL to the run's end, and its whole tally.
    audience: Option<([u64; 3], f64, Arc<Tally>)>,
}

/// One league into the fresh folder `out`, watched by `clients` viewers or by nobody.
fn league(bin: &Path, args: &[String], out: &Path, games: usize, clients: Option<usize>) -> League {
    let cpu = cpu_seconds();
    let started = Instant::now();
    let mut child = Command::new(bin)
        .args(["league", "--out"])
        .arg(out)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("arbiter league starts");
    let mut stderr = child.stderr.take().expect("its stderr");
    let drain = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stderr.read_to_string(&mut text);
        text
    });
    let mut stdout = BufReader::new(child.stdout.take().expect("its stdout"));
    let mut said = String::new();
    let mut url = String::new();
    stdout.read_line(&mut url).expect("the league's stdout");
    said.push_str(&url);
    let url = url.trim_end().to_string();
    let addr: Option<SocketAddr> = url
        .strip_prefix("http://")
        .and_then(|a| a.trim_end_matches('/').parse().ok());
    let audience = match (addr, clients) {
        (Some(addr), Some(clients)) => Some((Audience::start(addr, clients), Instant::now())),
        _ => None,
    };
    let mut ended: Option<(f64, Option<[u64; 3]>, f64)> = None;
    let mut played = None;
    let mut line = String::new();
    loop {
        line.clear();
        if stdout.read_line(&mut line).expect("the league's stdout") == 0 {
            break;
        }
        said.push_str(&line);
        if let Some((_, n)) = line.trim_end().rsplit_once("; this run played ")
            && ended.is_none()
        {
            let run = started.elapsed().as_secs_f64();
            let (got, watched) = match &audience {
                Some((audience, from)) => (
                    Some(audience.tally.snapshot()),
                    from.elapsed().as_secs_f64(),
                ),
                None => (None, 0.0),
            };
            ended = Some((run, got, watched));
            played = n.parse::<usize>().ok();
        }
    }
    let status = child.wait().expect("arbiter league ends");
    let exit = started.elapsed().as_secs_f64();
    let after = cpu_seconds();
    let tally = audience.map(|(audience, _)| audience.stop());
    let errors = drain.join().unwrap_or_default();
    let context = format!("arbiter league {args:?}: {said}{errors}");
    assert!(
        addr.is_some(),
        "the page's URL is the first line: {context}"
    );
    assert!(status.success(), "{status}: {context}");
    assert_eq!(
        played,
        Some(games),
        "the league plays all its games: {context}"
    );
    let (run, got, watched) = ended.expect("a summary line");
    League {
        run,
        exit,
        cpu: after[1] - cpu[1],
        own_cpu: after[0] - cpu[0],
        audience: tally.map(|tally| (got.expect("counted at the run's end"), watched, tally)),
    }
}

fn main() {
    let runs: usize = env_or("BENCH_RUNS", 5).max(1);
    let clients: usize = env_or("BENCH_CLIENTS", 50);
    let pairs: usize = env_or("BENCH_PAIRS", 12).max(1);
    let rounds: u64 = env_or("BENCH_ROUNDS", 1000);
    let python: String = env_or("BENCH_PYTHON", "python3".to_string());
    let bin = support::arbiter_binary();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut args: Vec<String> = [
        "--watch",
        "--quiet",
        "--python",
        &python,
        "--pairs",
        &pairs.to_string(),
        "--random-plies",
        "4",
        "--seed",
        "3",
        "--round-limit",
        &rounds.to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(write_bots(&dir.path().join("bots")));
    let games = BOTS.len() * (BOTS.len() - 1) * pairs;
    println!(
        "watch bench: a league of {} course-style Python bots ({games} games: --pairs {pairs}, --random-plies 4, round limit {rounds}, the default -j) with --watch, watched by {clients} viewers (polling /api/state once a second, /api/games when `done` changes; every fifth on a team's page) and 3 hostile clients (stalled, a partial request line, a reader of a byte per 100 ms), and by nobody, in turns",
        BOTS.len()
    );
    println!("  load average at the start: {}", load_average());
    let folder = |name: String| dir.path().join(name);
    // A watched league first, not counted: the page cache, the interpreter's files.
    let warm = league(&bin, &args, &folder("warm".into()), games, Some(clients));
    println!(
        "  a first watched league, not counted: {:.2} s to its summary line",
        warm.run
    );
    let (mut watched, mut quiet) = (Vec::new(), Vec::new());
    for run in 0..runs {
        let watch = || {
            league(
                &bin,
                &args,
                &folder(format!("watched-{run}")),
                games,
                Some(clients),
            )
        };
        let alone = || league(&bin, &args, &folder(format!("quiet-{run}")), games, None);
        // Which goes first alternates: a drift within a pair favours neither.
        let (w, q) = if run % 2 == 0 {
            let w = watch();
            (w, alone())
        } else {
            let q = alone();
            (watch(), q)
        };
        let (got, seconds, _) = w.audience.as_ref().expect("the watched league's audience");
        println!(
            "  run {}: watched {:.2} s, quiet {:.2} s ({:.3}x); the audience got {} answers 200 in the run ({:.1} a second), {} of other statuses, {} requests unanswered",
            run + 1,
            w.run,
            q.run,
            w.run / q.run,
            got[0],
            got[0] as f64 / seconds,
            got[1],
            got[2]
        );
        assert!(
            clients == 0 || got[0] > 0,
            "the audience got answers in the run"
        );
        watched.push(w);
        quiet.push(q);
    }
    let times = |leagues: &[League]| leagues.iter().map(|l| l.run).collect::<Vec<f64>>();
    let paired = Paired::new(&times(&watched), &times(&quiet));
    println!(
        "  medians of {runs}: watched {:.3} s, quiet {:.3} s: {:.3}x; {} (goal: at most 1.02x)",
        paired.arbiter,
        paired.baseline,
        paired.arbiter / paired.baseline,
        paired.ratio_text()
    );
    let audiences: Vec<&([u64; 3], f64, Arc<Tally>)> =
        watched.iter().filter_map(|l| l.audience.as_ref()).collect();
    let rate = median(
        audiences
            .iter()
            .map(|(got, seconds, _)| got[0] as f64 / seconds)
            .collect(),
    );
    let sum = |f: &dyn Fn(&Tally) -> u64| audiences.iter().map(|a| f(&a.2)).sum::<u64>();
    let in_runs = |i: usize| audiences.iter().map(|a| a.0[i]).sum::<u64>();
    let mut answer_times: Vec<u32> = audiences
        .iter()
        .flat_map(|a| a.2.times.lock().unwrap().clone())
        .collect();
    answer_times.sort_unstable();
    let quantile = |q: f64| {
        answer_times
            .get(((answer_times.len() as f64 - 1.0) * q).round() as usize)
            .map_or(0.0, |&t| t as f64 / 1000.0)
    };
    let mut statuses = BTreeMap::new();
    for audience in &audiences {
        for (status, n) in audience.2.statuses.lock().unwrap().iter() {
            *statuses.entry(*status).or_insert(0u64) += n;
        }
    }
    let statuses = match statuses.is_empty() {
        true => "none".to_string(),
        false => statuses
            .iter()
            .map(|(status, n)| format!("{n} of {status}"))
            .collect::<Vec<_>>()
            .join(", "),
    };
    println!(
        "  the audience in the runs (URL to summary line) of the {runs} watched leagues: {} answers 200, {rate:.1} a second (median of the runs); {} answers of other statuses, {} requests unanswered",
        in_runs(0),
        in_runs(1),
        in_runs(2),
    );
    let (ok, states, lists) = (
        sum(&|t| t.ok.load(Ordering::SeqCst)),
        sum(&|t| t.states.load(Ordering::SeqCst)),
        sum(&|t| t.lists.load(Ordering::SeqCst)),
    );
    println!(
        "  in all, the linger included: {ok} answers 200 ({} pages, {states} states, {lists} games' lists) in median {:.2} ms, 99th percentile {:.2} ms, max {:.2} ms; other statuses: {statuses}; {} hostile connections made, the slow reader read {} bytes",
        ok - states - lists,
        quantile(0.5),
        quantile(0.99),
        quantile(1.0),
        sum(&|t| t.hostile.load(Ordering::SeqCst)),
        sum(&|t| t.slow_bytes.load(Ordering::SeqCst)),
    );
    assert!(
        clients == 0 || (states > 0 && lists > 0),
        "the audience got states and games' lists"
    );
    let of = |leagues: &[League], f: fn(&League) -> f64| median(leagues.iter().map(f).collect());
    println!(
        "  CPU seconds (user + system), medians: the league (arbiter and its bots) watched {:.2}, quiet {:.2}; the audience (this process) {:.2}",
        of(&watched, |l| l.cpu),
        of(&quiet, |l| l.cpu),
        of(&watched, |l| l.own_cpu),
    );
    let all: Vec<League> = watched.into_iter().chain(quiet).collect();
    println!(
        "  --watch's linger after the summary line (not counted): median {:.2} s",
        of(&all, |l| l.exit - l.run)
    );
    println!("  load average at the end: {}", load_average());
}
