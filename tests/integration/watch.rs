//! The live page (`league --watch`, `arbiter watch DIR`) as a teacher and a class meet it:
//! in headless Chromium, a league of slow course bots shows its standings and a game in
//! play, and each game that ends appears on the page within 2 seconds of its journal line,
//! without a reload; a team's page lists that team's games only; an SPRT's page draws its
//! LLR. Without a browser: the server refuses `..` and garbage and goes on serving, and
//! nothing it serves holds a spy bot's secret or a bot folder's path.

use crate::cdp::{Browser, Tab};
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

const CHROMIUM: &str = "/usr/bin/chromium";

fn browser(test: &str, profile: &Path) -> Option<Browser> {
    crate::common::tool_here(
        test,
        Path::new(CHROMIUM).exists(),
        &format!("{CHROMIUM} (the live page is tested in headless Chromium)"),
        "apt-get update && apt-get install -y chromium",
    )
    .then(|| Browser::launch(Path::new(CHROMIUM), profile).unwrap_or_else(|e| panic!("{e}")))
}

/// A course bot that sleeps `sleep` seconds a move and answers a move the rules refuse
/// (an illegal move loses the turn in Asalto, so every game runs to the round limit).
fn slow_bot(dir: &Path, name: &str, sleep: f64) -> PathBuf {
    let path = dir.join(format!("{name}.py"));
    std::fs::write(
        &path,
        format!(
            "import time\n\nclass Player:\n    def play_rebel(self, board):\n        \
             time.sleep({sleep})\n        return [(0, 0), (0, 1)]\n\n    def play_officer(self, \
             board):\n        time.sleep({sleep})\n        return [(0, 0), (0, 1)]\n"
        ),
    )
    .unwrap();
    path
}

/// A command of arbiter's that serves the page, its stdout read for the URL (its first
/// line) and then drained; killed when dropped.
struct Serving {
    child: KilledWhenDropped,
    url: String,
    /// Every line of stdout, as it comes.
    lines: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Serving {
    fn start(args: &[&str]) -> Serving {
        let mut child = crate::common::arbiter()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("arbiter starts");
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut url = String::new();
        stdout.read_line(&mut url).expect("a first line");
        let url = url.trim().to_string();
        assert!(
            url.starts_with("http://127.0.0.1:") && url.ends_with('/'),
            "the first line is the page's URL: {url:?}"
        );
        let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = lines.clone();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                kept.lock().unwrap().push(line);
            }
        });
        Serving {
            child: KilledWhenDropped(child),
            url,
            lines,
        }
    }

    fn address(&self) -> String {
        self.url
            .trim_start_matches("http://")
            .trim_end_matches('/')
            .to_string()
    }

    /// Waits (up to `limit`) for the command to end; its exit code.
    fn wait(&mut self, limit: Duration) -> Option<i32> {
        let until = Instant::now() + limit;
        while Instant::now() < until {
            if let Some(status) = self.child.0.try_wait().unwrap() {
                return Some(status.code().unwrap_or(-1));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

/// Sends `request` as it is (no client tidies its path) and returns the status code and
/// body; `None` when the server closed the connection without an answer.
fn raw(address: &str, request: &[u8]) -> Option<(u16, String)> {
    let mut stream = TcpStream::connect(address).expect("the server listens");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(request).unwrap();
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let mut bytes = Vec::new();
    let _ = stream.read_to_end(&mut bytes);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let status = text.split(' ').nth(1)?.parse().ok()?;
    let body = text
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    Some((status, body))
}

fn get(address: &str, path: &str) -> (u16, String) {
    raw(
        address,
        format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .unwrap_or_else(|| panic!("GET {path}: no answer"))
}

fn get_json(address: &str, path: &str) -> Value {
    let (status, body) = get(address, path);
    assert_eq!(status, 200, "GET {path}: {body}");
    serde_json::from_str(&body).unwrap_or_else(|e| panic!("GET {path}: {e}: {body}"))
}

/// Evaluates `expression` (a JSON string) in `tab`.
fn eval(tab: &Tab, expression: &str) -> Value {
    let result = tab
        .evaluate(expression, false)
        .unwrap_or_else(|e| panic!("`{expression}` fails: {e}"));
    let text = result.as_str().unwrap_or("null").to_string();
    serde_json::from_str(&text).unwrap_or(Value::Null)
}

/// Waits up to `limit` for `test` to hold; how long it took, or a panic saying `what`.
fn until(limit: Duration, what: &str, mut test: impl FnMut() -> bool) -> Duration {
    let started = Instant::now();
    while started.elapsed() < limit {
        if test() {
            return started.elapsed();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("{what}: not within {limit:?}");
}

/// The ids of the journal's games, as written so far (a torn last line aside).
fn journal_ids(dir: &Path) -> Vec<u64> {
    arbiter::tournament::journal::load(&dir.join("games.jsonl"))
        .map(|loaded| loaded.games.iter().map(|g| g.id).collect())
        .unwrap_or_default()
}

#[test]
fn chromium_shows_the_standings_a_game_in_play_and_each_ended_game_within_two_seconds() {
    let test = "chromium_shows_the_standings_a_game_in_play_and_each_ended_game_within_two_seconds";
    let dir = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let Some(browser) = browser(test, profile.path()) else {
        return;
    };
    let slow_a = slow_bot(dir.path(), "SlowA", 0.25);
    let slow_b = slow_bot(dir.path(), "SlowB", 0.25);
    let out = dir.path().join("league");
    let mut league = Serving::start(&[
        "league",
        "--watch",
        "--quiet",
        "-j",
        "2",
        "--round-limit",
        "6",
        "--out",
        out.to_str().unwrap(),
        slow_a.to_str().unwrap(),
        slow_b.to_str().unwrap(),
        "builtin:greedy",
    ]);
    let tab = browser.new_tab().expect("a tab");
    tab.navigate(&league.url).expect("the page loads");
    // The standings as the report has them, and a game in play with its board.
    until(Duration::from_secs(30), "the standings' three rows", || {
        eval(
            &tab,
            "JSON.stringify(document.querySelectorAll('#standings tbody tr').length)",
        ) == 3
    });
    until(
        Duration::from_secs(30),
        "a game in play with its board",
        || {
            let game = eval(
                &tab,
                "JSON.stringify((function () { var g = document.querySelector('.live-game'); \
             if (!g) return null; return { cells: g.querySelectorAll('[data-cell]').length, \
             mover: g.querySelector('.to-move').textContent, clock: \
             g.querySelector('.clock').textContent }; })())",
            );
            game["cells"].as_u64() == Some(49)
                && game["mover"]
                    .as_str()
                    .is_some_and(|m| m.ends_with("to move"))
                && game["clock"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("ply "))
        },
    );
    // A mark the page keeps unless it is reloaded.
    tab.evaluate("window.arbiterTestMark = 7; '1'", false)
        .unwrap();
    // Each game that ends is on the page within 2 seconds of its journal line.
    let mut seen = journal_ids(&out);
    let total = 6;
    while seen.len() < total {
        let started = Instant::now();
        let mut new = Vec::new();
        while new.is_empty() {
            assert!(
                started.elapsed() < Duration::from_secs(60),
                "no game ended in 60 s"
            );
            new = journal_ids(&out)
                .into_iter()
                .filter(|id| !seen.contains(id))
                .collect();
            std::thread::sleep(Duration::from_millis(10));
        }
        let appeared = Instant::now();
        for id in &new {
            let took = until(
                Duration::from_secs(10),
                &format!("game {id} on the page"),
                || {
                    eval(
                        &tab,
                        &format!(
                            "JSON.stringify(!!document.querySelector('#finished tr[data-game=\"{id}\"]'))"
                        ),
                    ) == true
                },
            );
            let took = took.max(appeared.elapsed());
            eprintln!("game {id} on the page {took:?} after its journal line");
            assert!(
                took <= Duration::from_secs(2),
                "game {id} appeared on the page {took:?} after its journal line"
            );
        }
        seen.extend(new);
    }
    assert_eq!(
        eval(&tab, "JSON.stringify(window.arbiterTestMark)"),
        7,
        "the page was not reloaded"
    );
    // The run's end: the page shows the final tables.
    until(
        Duration::from_secs(20),
        "the page saying the run ended",
        || {
            eval(
                &tab,
                "JSON.stringify(document.getElementById('status').textContent)",
            )
            .as_str()
            .is_some_and(|s| s.starts_with("ended"))
        },
    );
    let games: Vec<u64> = eval(
        &tab,
        "JSON.stringify(Array.from(document.querySelectorAll('#standings tbody tr')).map(\
         function (tr) { return Number(tr.children[2].textContent); }))",
    )
    .as_array()
    .unwrap()
    .iter()
    .map(|v| v.as_u64().unwrap())
    .collect();
    assert_eq!(
        games,
        vec![4, 4, 4],
        "each bot's 4 games in the final standings"
    );
    assert_eq!(
        eval(
            &tab,
            "JSON.stringify(document.getElementById('progress').textContent)"
        ),
        "6/6 games"
    );

    // A team's page: its games only, and its failures in its feedback's words.
    let team = browser.new_tab().expect("a tab");
    team.navigate(&format!("{}team/SlowA", league.url))
        .expect("the team page loads");
    until(Duration::from_secs(10), "the team's games", || {
        eval(
            &team,
            "JSON.stringify(document.querySelectorAll('#finished tbody tr').length)",
        ) == 4
    });
    let rows = eval(
        &team,
        "JSON.stringify(Array.from(document.querySelectorAll('#finished tbody tr')).map(\
         function (tr) { return tr.children[1].textContent + ' ' + tr.children[2].textContent; }))",
    );
    for row in rows.as_array().unwrap() {
        assert!(
            row.as_str().unwrap().contains("SlowA"),
            "the team page lists another team's game: {row}"
        );
    }
    assert_eq!(
        eval(
            &team,
            "JSON.stringify(document.getElementById('team-title').textContent)"
        ),
        "SlowA"
    );
    let points = eval(
        &team,
        "JSON.stringify(document.querySelector('#team-elo svg').dataset.points)",
    );
    assert!(
        points.as_str().is_some_and(|p| p != "0"),
        "the team's Elo over the run is drawn: {points}"
    );
    // A finished game replayed move by move.
    team.evaluate(
        "document.querySelector('#finished tbody tr').click(); '1'",
        false,
    )
    .unwrap();
    until(Duration::from_secs(10), "a replay's board", || {
        eval(
            &team,
            "JSON.stringify(document.querySelectorAll('#replay-board [data-cell]').length)",
        ) == 49
    });
    drop(tab);
    assert_eq!(
        league.wait(Duration::from_secs(20)),
        Some(0),
        "the league ends, its page with it"
    );
    let said = league.lines.lock().unwrap().join("\n");
    assert!(said.contains("this run played 6"), "{said}");
}

#[test]
fn chromium_draws_an_sprts_llr_against_its_bounds() {
    let test = "chromium_draws_an_sprts_llr_against_its_bounds";
    let dir = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let out = dir.path().join("sprt");
    let (code, stdout, stderr) = crate::common::run(crate::common::arbiter().args([
        "sprt",
        "--candidate",
        "builtin:greedy",
        "--baseline",
        "builtin:random",
        "--elo0",
        "0",
        "--elo1",
        "200",
        "--round-limit",
        "30",
        "--max-pairs",
        "40",
        "--out",
        out.to_str().unwrap(),
    ]));
    assert!(matches!(code, 0 | 1 | 3), "{stdout}{stderr}");
    let Some(browser) = browser(test, profile.path()) else {
        return;
    };
    let mut watch = Serving::start(&["watch", out.to_str().unwrap()]);
    let state = get_json(&watch.address(), "/api/state");
    let pairs = state["sprt"]["llr"].as_array().expect("the LLR").len();
    assert!(pairs > 0, "{state}");
    let tab = browser.new_tab().expect("a tab");
    tab.navigate(&watch.url).expect("the page loads");
    until(Duration::from_secs(10), "the LLR chart", || {
        eval(
            &tab,
            "JSON.stringify(document.querySelector('#sprt-chart svg') ? \
             document.querySelector('#sprt-chart svg').dataset.points : null)",
        ) == Value::String((pairs + 1).to_string())
    });
    let bounds = eval(
        &tab,
        "JSON.stringify(document.querySelectorAll('#sprt-chart line.bound').length)",
    );
    assert_eq!(bounds, 2, "both bounds are drawn");
    let text = eval(
        &tab,
        "JSON.stringify(document.getElementById('sprt-text').textContent)",
    );
    assert!(
        text.as_str()
            .is_some_and(|t| t.contains("greedy vs random") && t.contains("LLR")),
        "{text}"
    );
    // Ctrl-C ends it.
    let pid = rustix::process::Pid::from_child(&watch.child.0);
    rustix::process::kill_process(pid, rustix::process::Signal::INT).unwrap();
    assert_eq!(watch.wait(Duration::from_secs(10)), Some(130));
}

/// A finished league of built-ins, served by `arbiter watch`.
fn served_league(dir: &Path) -> Serving {
    let out = dir.join("league");
    let (code, stdout, stderr) = crate::common::run(crate::common::arbiter().args([
        "league",
        "--quiet",
        "--round-limit",
        "20",
        "--out",
        out.to_str().unwrap(),
        "builtin:random",
        "builtin:greedy",
    ]));
    assert_eq!(code, 0, "{stdout}{stderr}");
    Serving::start(&["watch", out.to_str().unwrap()])
}

#[test]
fn the_page_server_refuses_parent_paths_and_garbage_and_goes_on_serving() {
    let dir = tempfile::tempdir().unwrap();
    let watch = served_league(dir.path());
    let address = watch.address();
    for path in [
        "/../../../etc/passwd",
        "/team/..%2F..%2Fetc%2Fpasswd",
        "/api/team/../../games.jsonl",
        "/..",
    ] {
        let (status, body) = get(&address, path);
        assert_eq!(status, 400, "GET {path}: {body}");
        assert!(!body.contains("root:"), "{path}: {body}");
    }
    for (path, status) in [
        ("/games.jsonl", 404),
        ("/live.json", 404),
        ("/api/game/abc", 400),
        ("/api/game/99999", 404),
        ("/team/nobody", 404),
        ("/api/team/nobody", 404),
    ] {
        assert_eq!(get(&address, path).0, status, "GET {path}");
    }
    let posted = raw(
        &address,
        b"POST /api/state HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi",
    );
    assert_eq!(posted.map(|(s, _)| s), Some(405), "a POST is refused");
    // Garbage, a request cut short, bytes that are not HTTP, a huge header: each gets an
    // error or a closed connection, and the server answers the next request.
    let huge = format!("GET / HTTP/1.1\r\nX: {}\r\n\r\n", "a".repeat(200_000));
    for (garbage, refused) in [
        (b"GARBAGE\r\n\r\n".to_vec(), true),
        (b"GET /api/sta".to_vec(), true),
        (vec![0x16, 0x03, 0x01, 0x00, 0xff, 0xfe, b'\n', b'\n'], true),
        (b"GET / HTTP/9.9\r\n\r\n".to_vec(), true),
        // A long header is HTTP still: answered or refused, the server goes on.
        (huge.into_bytes(), false),
    ] {
        if let Some((status, _)) = raw(&address, &garbage)
            && refused
        {
            assert!(
                (400..600).contains(&status),
                "{:?} got {status}",
                String::from_utf8_lossy(&garbage[..garbage.len().min(40)])
            );
        }
        let state = get_json(&address, "/api/state");
        assert_eq!(state["done"], 2, "the server goes on: {state}");
    }
    // The page itself.
    let (status, page) = get(&address, "/");
    assert_eq!(status, 200);
    assert!(page.contains("<title>arbiter: live</title>"));
    for outside in ["src=\"http", "href=\"http", "url(http", "import "] {
        assert!(
            !page.contains(outside),
            "the page loads nothing from elsewhere: {outside}"
        );
    }
}

#[test]
fn nothing_the_page_serves_holds_a_bots_secret_or_a_bot_folders_path() {
    let dir = tempfile::tempdir().unwrap();
    let token = "SPY-TOKEN-5f3a9c";
    let bots = dir.path().join("class-folder");
    std::fs::create_dir_all(&bots).unwrap();
    std::fs::write(bots.join("secret.txt"), token).unwrap();
    // The spy: its code holds the token, and it prints it on stdout and stderr each move.
    std::fs::write(
        bots.join("Spy.py"),
        format!(
            "# {token}\nimport sys\n\nclass Player:\n    def play_rebel(self, board):\n        \
             print('{token}')\n        sys.stderr.write('{token}\\n')\n        return [(0, 0), (0, 1)]\n\n    \
             def play_officer(self, board):\n        print('{token}')\n        \
             sys.stderr.write('{token}\\n')\n        return [(0, 0), (0, 1)]\n"
        ),
    )
    .unwrap();
    slow_bot(&bots, "Plain", 0.05);
    let out = dir.path().join("league");
    let mut league = Serving::start(&[
        "league",
        "--watch",
        "--quiet",
        "--round-limit",
        "6",
        "--out",
        out.to_str().unwrap(),
        bots.join("Spy.py").to_str().unwrap(),
        bots.join("Plain.py").to_str().unwrap(),
        "builtin:greedy",
    ]);
    let address = league.address();
    let folder = bots.display().to_string();
    let mut served = Vec::new();
    let crawl = |served: &mut Vec<(String, String)>| {
        let mut paths = vec!["/".to_string(), "/api/state".into(), "/api/games".into()];
        for team in ["Spy", "Plain", "greedy"] {
            paths.push(format!("/team/{team}"));
            paths.push(format!("/api/team/{team}"));
        }
        if let Ok(games) = serde_json::from_str::<Value>(&get(&address, "/api/games").1) {
            for g in games.as_array().into_iter().flatten() {
                paths.push(format!("/api/game/{}", g["id"]));
            }
        }
        for path in paths {
            if let Some((_, body)) = raw(
                &address,
                format!("GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes(),
            ) {
                served.push((path, body));
            }
        }
    };
    // While the league plays (games in play, their boards) and once it has ended.
    let started = Instant::now();
    while league.child.0.try_wait().unwrap().is_none()
        && started.elapsed() < Duration::from_secs(60)
    {
        crawl(&mut served);
        let ended = league
            .lines
            .lock()
            .unwrap()
            .iter()
            .any(|l| l.contains("this run played"));
        if ended {
            crawl(&mut served);
            break;
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    assert!(
        served.iter().any(|(p, _)| p.starts_with("/api/game/")),
        "the crawl reached finished games' replays"
    );
    assert!(
        served
            .iter()
            .any(|(p, b)| p == "/api/state" && b.contains("\"in_play\":[{")),
        "the crawl saw a game in play"
    );
    for (path, body) in &served {
        assert!(
            !body.contains(token),
            "{path} serves the spy's secret: {body}"
        );
        assert!(
            !body.contains(&folder),
            "{path} serves a bot folder's path: {body}"
        );
    }
    let live = std::fs::read_to_string(out.join("live.json")).unwrap();
    assert!(!live.contains(token) && !live.contains(&folder), "{live}");
    // The records do hold what the spy printed: the page is what leaves it out.
    let mut printed = false;
    arbiter::tournament::journal::for_each_record(&out.join("games.jsonl"), |_, record| {
        printed |= record
            .logs
            .values()
            .any(|log| log.stderr.contains(token) || log.chatter.contains(token));
        Ok(())
    })
    .unwrap();
    assert!(printed, "the spy's output reached its records");
    assert_eq!(league.wait(Duration::from_secs(20)), Some(0));
}

#[test]
fn a_run_refused_on_a_folder_another_run_holds_leaves_that_runs_live_state_alone() {
    let dir = tempfile::tempdir().unwrap();
    // Moves of 3 s: the running league rewrites its live file only when a game moves.
    let slow = slow_bot(dir.path(), "Slow", 3.0);
    let out = dir.path().join("league");
    let args = [
        "league",
        "--quiet",
        "--round-limit",
        "4",
        "--out",
        out.to_str().unwrap(),
        slow.to_str().unwrap(),
        "builtin:greedy",
    ];
    // Killed however the test ends: a failed assertion leaves no league running.
    let _first = KilledWhenDropped(
        crate::common::arbiter()
            .args(args)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );
    let live = out.join("live.json");
    let running = || {
        std::fs::read_to_string(&live)
            .ok()
            .and_then(|t| serde_json::from_str::<Value>(&t).ok())
            .is_some_and(|v| v["running"] == true && v["games"][0]["board"].is_object())
    };
    until(
        Duration::from_secs(30),
        "the first run's game in play",
        running,
    );
    let (code, stdout, stderr) = crate::common::run(crate::common::arbiter().args(args));
    assert_eq!(code, 2, "the second run is refused: {stdout}{stderr}");
    assert!(stderr.contains("another arbiter run"), "{stderr}");
    assert!(
        running(),
        "the refused run rewrote the live state: {}",
        std::fs::read_to_string(&live).unwrap()
    );
}

/// A child process killed (and reaped) when dropped.
struct KilledWhenDropped(Child);

impl Drop for KilledWhenDropped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
