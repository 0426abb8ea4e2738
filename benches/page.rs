//! How quickly a big league's report page opens and replays: a league of two in-process
//! Asalto built-ins (`arbiter league --game asalto builtin:random builtin:greedy -j 2`,
//! which ends by writing its report with every game's replay), then its page opened in
//! headless Chromium (driven over the DevTools protocol, as the browser tests drive it):
//! - the page's load (navigation to DOMContentLoaded, to the load event, and to the game
//!   list drawn), three times in a fresh tab;
//! - opening the first game, and a game of the last block (reached with the list's last
//!   page button): from the row's click to its board drawn, its block file loaded and
//!   inflated; each board checked against the journal (the start, and after End the last
//!   position) so a fast page that draws the wrong position does not count.
//!
//! `BENCH_PAIRS` sets the sizes as role-swapped pairs, comma-separated (default
//! `6000,50000`: 12,000 and 100,000 games). Chromium is required (`/usr/bin/chromium`, or
//! `CHROMIUM=PATH`).
//!
//! Run: cargo bench --bench page (it builds and runs the release arbiter).

#[allow(dead_code)]
#[path = "../tests/integration/cdp.rs"]
mod cdp;
mod support;

use arbiter::report::replay::{Replay, for_each_replay};
use arbiter::tournament::journal::{JOURNAL_FILE, read_plan};
use cdp::{Browser, Tab};
use serde_json::Value;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// Plays the league of `pairs` pairs into `out`: its wall time in s and peak RSS in MiB.
// The child is reaped by wait4, which gives its own peak RSS (getrusage's children's
// figure is the largest of every child so far).
#[allow(clippy::zombie_processes)]
fn league(arbiter: &Path, pairs: u64, out: &Path) -> (f64, f64) {
    let started = Instant::now();
    let child = Command::new(arbiter)
        .args([
            "league", "--game", "asalto", "-j", "2", "--quiet", "--pairs",
        ])
        .arg(pairs.to_string())
        .arg("--out")
        .arg(out)
        .args(["builtin:random", "builtin:greedy"])
        .stdout(Stdio::null())
        .spawn()
        .expect("arbiter runs");
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid, and wait4 fills it for this child alone.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `status` and `usage` outlive the call; the child is ours and not yet waited.
    let waited = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    let secs = started.elapsed().as_secs_f64();
    assert!(
        waited > 0 && libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "the league of {pairs} pairs failed"
    );
    (secs, usage.ru_maxrss as f64 / 1024.0)
}

/// The replays of the first and the last game of the journal in `dir`, in journal order,
/// with their ids: made from a journal of those two lines alone, so that the check does
/// not replay a hundred thousand games.
fn first_and_last(dir: &Path) -> [(u64, Replay); 2] {
    let journal = dir.join(JOURNAL_FILE);
    let plan = read_plan(&journal).expect("the journal's plan");
    let reader = std::io::BufReader::new(std::fs::File::open(&journal).expect("the journal"));
    let (mut header, mut first, mut last) = (None, None, None);
    for line in reader.lines() {
        let line = line.expect("a journal line");
        if header.is_none() {
            header = Some(line);
        } else if first.is_none() {
            first = Some(line);
        } else {
            last = Some(line);
        }
    }
    let two = tempfile::tempdir().expect("a folder");
    let path = two.path().join(JOURNAL_FILE);
    let mut file = std::fs::File::create(&path).expect("a journal");
    for line in [header, first, last].into_iter().flatten() {
        writeln!(file, "{line}").expect("written");
    }
    drop(file);
    let mut replays = Vec::new();
    for_each_replay(&plan, &path, |id, _, replayed| {
        replays.push((id, replayed.expect("the game replays")));
        Ok(())
    })
    .expect("the two games replay");
    let last = replays.pop().expect("two games");
    let first = replays.pop().expect("two games");
    [first, last]
}

/// Runs `expression`, which gives a JSON string (or a promise of one when `promise`).
fn eval(tab: &Tab, expression: &str, promise: bool) -> Value {
    let value = tab
        .evaluate(expression, promise)
        .unwrap_or_else(|e| panic!("`{expression}`: {e}"));
    serde_json::from_str(value.as_str().expect("a JSON string")).expect("JSON")
}

/// The board drawn, as `(row, col, data-cell)`.
const READ_BOARD: &str = "Array.from(document.querySelectorAll('#games #arb-board [data-cell]'))\
     .map(c => [Number(c.dataset.row), Number(c.dataset.col), c.dataset.cell])";

fn board_of(value: &Value) -> Vec<(u64, u64, String)> {
    value
        .as_array()
        .expect("cells")
        .iter()
        .map(|c| {
            (
                c[0].as_u64().expect("a row"),
                c[1].as_u64().expect("a col"),
                c[2].as_str().expect("a cell").to_string(),
            )
        })
        .collect()
}

fn expected(replay: &Replay, ply: usize) -> Vec<(u64, u64, String)> {
    let view = &replay.views[ply];
    view.cells
        .iter()
        .enumerate()
        .map(|(i, c)| ((i / view.cols) as u64, (i % view.cols) as u64, c.key()))
        .collect()
}

/// Clicks the row of game `id` (on the list's page shown) and waits for its board: the
/// ms from the click to the board drawn, measured in the page. Then checks the start
/// and, after End, the last position against the journal's replay.
fn open_and_check(tab: &Tab, id: u64, replay: &Replay) -> f64 {
    let ms = eval(
        tab,
        &format!(
            "new Promise((done, fail) => {{ \
             const tr = document.querySelector(\"#games #arb-table tr[data-game='{id}']\"); \
             if (!tr) {{ fail('no row for game {id}'); return; }} \
             const panel = document.getElementById('arb-replay'); \
             const t = performance.now(); tr.click(); \
             (function poll() {{ \
               if (panel.dataset.game === '{id}') done(JSON.stringify(performance.now() - t)); \
               else if (performance.now() - t > 60000) fail('game {id} never shown'); \
               else setTimeout(poll, 1); }})(); }})"
        ),
        true,
    )
    .as_f64()
    .expect("a time");
    let start = board_of(&eval(tab, &format!("JSON.stringify({READ_BOARD})"), false));
    assert_eq!(start, expected(replay, 0), "game {id}: the start drawn");
    let end = board_of(&eval(
        tab,
        &format!(
            "(() => {{ document.getElementById('arb-last-ply').click(); \
             return JSON.stringify({READ_BOARD}); }})()"
        ),
        false,
    ));
    assert_eq!(
        end,
        expected(replay, replay.plies.len()),
        "game {id}: the last position drawn"
    );
    ms
}

struct Round {
    dom: f64,
    load: f64,
    list: f64,
    first: f64,
    last: f64,
}

fn measure(browser: &Browser, page: &Path, games: [(u64, Replay); 2]) -> Vec<Round> {
    let url = format!("file://{}", page.display());
    (0..3)
        .map(|_| {
            let tab = browser.new_tab().expect("a tab");
            tab.navigate(&url)
                .unwrap_or_else(|e| panic!("{url} does not load: {e}"));
            let timing = eval(
                &tab,
                "JSON.stringify((() => { const n = performance.getEntriesByType('navigation')[0]; \
                 return [n.domContentLoadedEventEnd, n.loadEventEnd, \
                 Number(document.getElementById('games').dataset.readyMs)]; })())",
                false,
            );
            let first = open_and_check(&tab, games[0].0, &games[0].1);
            tab.evaluate("document.getElementById('arb-last-page').click()", false)
                .expect("the last page");
            let last = open_and_check(&tab, games[1].0, &games[1].1);
            Round {
                dom: timing[0].as_f64().expect("a time"),
                load: timing[1].as_f64().expect("a time"),
                list: timing[2].as_f64().expect("a time"),
                first,
                last,
            }
        })
        .collect()
}

fn folder_size(dir: &Path) -> (u64, usize) {
    std::fs::read_dir(dir).map_or((0, 0), |entries| {
        entries
            .filter_map(Result::ok)
            .fold((0, 0), |(bytes, n), e| {
                (bytes + e.metadata().map_or(0, |m| m.len()), n + 1)
            })
    })
}

fn main() {
    let chromium = PathBuf::from(std::env::var("CHROMIUM").unwrap_or("/usr/bin/chromium".into()));
    assert!(
        chromium.exists(),
        "{} is missing: this bench opens the report page in headless Chromium \
         (apt-get install chromium, or CHROMIUM=PATH)",
        chromium.display()
    );
    let sizes: Vec<u64> = std::env::var("BENCH_PAIRS")
        .unwrap_or_else(|_| "6000,50000".into())
        .split(',')
        .map(|p| {
            p.trim()
                .parse()
                .expect("BENCH_PAIRS: pairs, comma-separated")
        })
        .collect();
    let arbiter = support::arbiter_binary();
    let dir = tempfile::tempdir().expect("a folder");
    let mut leagues = Vec::new();
    for &pairs in &sizes {
        let out = dir.path().join(format!("league-{pairs}"));
        let (secs, rss) = league(&arbiter, pairs, &out);
        let games = 2 * pairs;
        let page = out.join("report").join("index.html");
        let bytes = std::fs::metadata(&page).expect("the page").len();
        let (replays, files) = folder_size(&out.join("report").join("replays"));
        println!(
            "league of {games} games at -j 2, its report included: {secs:.1} s, peak RSS \
             {rss:.1} MiB; page {:.2} MB, replays {:.1} MB in {files} files",
            bytes as f64 / 1e6,
            replays as f64 / 1e6
        );
        leagues.push((games, out, page));
    }
    let profile = tempfile::tempdir().expect("a profile folder");
    let browser = Browser::launch(&chromium, profile.path()).expect("Chromium starts");
    println!(
        "\n{:>8}  {:>22}  {:>22}  {:>22}  {:>22}  {:>22}",
        "games",
        "DOMContentLoaded ms",
        "load event ms",
        "list drawn ms",
        "open 1st game ms",
        "open last-block ms"
    );
    for (games, out, page) in &leagues {
        let rounds = measure(&browser, page, first_and_last(out));
        let column = |f: fn(&Round) -> f64| {
            rounds
                .iter()
                .map(|r| format!("{:.0}", f(r)))
                .collect::<Vec<_>>()
                .join(" / ")
        };
        println!(
            "{games:>8}  {:>22}  {:>22}  {:>22}  {:>22}  {:>22}",
            column(|r| r.dom),
            column(|r| r.load),
            column(|r| r.list),
            column(|r| r.first),
            column(|r| r.last)
        );
    }
    println!(
        "\n(three rounds each, a fresh tab each; opening a game: from the row's click to its \
         board drawn, its block's file loaded and inflated; every board checked against the \
         journal)"
    );
}
