//! The report page's game browser in a real browser (headless Chromium): a game is
//! clicked in the list and stepped through, and after every step the board read back from
//! the page's DOM is the journal's position; the last one matches the record's
//! `final_board` read on its own; illegal replies, huffs and failures are marked on their
//! ply; a screenshot is taken.
//!
//! Chromium is required: without it the tests fail and say how to install it.

use crate::cdp::{Browser, Tab};
use crate::replay::{builtin_league, replays_of};
use arbiter::record::GameRecord;
use arbiter::report::replay::Replay;
use arbiter::tournament::journal::{JOURNAL_FILE, Journal, for_each_record};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const CHROMIUM: &str = "/usr/bin/chromium";

/// Writes the report of the tournament in `dir` as a user does (`arbiter report`) and
/// returns its page.
fn make_page(dir: &Path) -> PathBuf {
    let out = dir.join("report");
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_arbiter"))
        .arg("report")
        .arg(dir)
        .arg("--out")
        .arg(&out)
        .status()
        .expect("arbiter runs");
    assert!(status.success(), "arbiter report {} failed", dir.display());
    out.join("index.html")
}

/// Headless Chromium with a fresh profile, kept offline; `profile` must outlive it. `None`
/// (the test prints SKIPPED) where Chromium is missing and the tools were not installed;
/// where they were, a missing Chromium fails the test.
fn browser(test: &str, profile: &Path) -> Option<Browser> {
    crate::common::tool_here(
        test,
        Path::new(CHROMIUM).exists(),
        &format!("{CHROMIUM} (the report page is tested in headless Chromium)"),
        "apt-get update && apt-get install -y chromium",
    )
    .then(|| Browser::launch(Path::new(CHROMIUM), profile).unwrap_or_else(|e| panic!("{e}")))
}

fn open<'a>(browser: &'a Browser, page: &Path) -> Tab<'a> {
    let tab = browser.new_tab().expect("a tab");
    let url = format!("file://{}", page.display());
    tab.navigate(&url)
        .unwrap_or_else(|e| panic!("{url} does not load: {e}"));
    tab
}

/// Runs `expression` (which must give a JSON string) and parses its value.
fn eval_json(tab: &Tab, expression: &str) -> Value {
    eval_json_awaiting(tab, expression, false)
}

/// [`eval_json`] of an expression that may give a promise of the JSON string.
fn eval_json_awaiting(tab: &Tab, expression: &str, promise: bool) -> Value {
    let result = tab
        .evaluate(expression, promise)
        .unwrap_or_else(|e| panic!("`{expression}` fails: {e}"));
    let text = result
        .as_str()
        .unwrap_or_else(|| panic!("`{expression}` gave no string: {result:?}"));
    serde_json::from_str(text).expect("the page's JSON")
}

/// What the replay panel shows: the game, the ply, and every drawn cell as
/// `(row, col, data-cell)`.
#[derive(Debug, PartialEq)]
struct Drawn {
    game: String,
    ply: usize,
    cells: Vec<(usize, usize, String)>,
}

/// A JavaScript expression that reads the panel from the DOM, as [`Drawn`] parses it.
const READ_PANEL: &str = "({game: document.getElementById('arb-replay').dataset.game, \
     ply: document.getElementById('arb-replay').dataset.ply, \
     cells: Array.from(document.querySelectorAll('#games #arb-board [data-cell]'))\
     .map(c => [Number(c.dataset.row), Number(c.dataset.col), c.dataset.cell])})";

fn drawn(tab: &Tab) -> Drawn {
    parse_drawn(&eval_json(tab, &format!("JSON.stringify({READ_PANEL})")))
}

fn parse_drawn(value: &Value) -> Drawn {
    let cells = value["cells"]
        .as_array()
        .expect("cells")
        .iter()
        .map(|c| {
            (
                c[0].as_u64().expect("row") as usize,
                c[1].as_u64().expect("col") as usize,
                c[2].as_str().expect("cell").to_string(),
            )
        })
        .collect();
    Drawn {
        game: value["game"].as_str().unwrap_or_default().to_string(),
        ply: value["ply"]
            .as_str()
            .and_then(|p| p.parse().ok())
            .expect("data-ply"),
        cells,
    }
}

/// The cells the journal's replay says are on the board after `ply` plies.
fn expected(replay: &Replay, ply: usize) -> Vec<(usize, usize, String)> {
    let view = &replay.views[ply];
    view.cells
        .iter()
        .enumerate()
        .map(|(i, c)| (i / view.cols, i % view.cols, c.key()))
        .collect()
}

/// A real mouse click (moved, pressed, released by the browser's input layer) in the
/// middle of the element `selector` picks, scrolled into view first.
/// Opens game `id` with a click on its row, and waits until the panel shows it (a game
/// is inflated when it is opened): returns how long that took in the page, in ms.
fn open_game(tab: &Tab, id: u64) -> f64 {
    let started = eval_json(tab, "JSON.stringify(performance.now())");
    click(tab, &format!("#games #arb-table tr[data-game='{id}']"));
    let waited = eval_json_awaiting(
        tab,
        &format!(
            "new Promise(done => {{ const t = performance.now(); (function poll() {{ \
             if (document.getElementById('arb-replay').dataset.game === '{id}') \
             done(JSON.stringify(performance.now())); \
             else if (performance.now() - t > 60000) done('null'); \
             else setTimeout(poll, 2); }})(); }})"
        ),
        true,
    );
    let (Some(started), Some(shown)) = (started.as_f64(), waited.as_f64()) else {
        panic!("game {id} was clicked but never shown");
    };
    shown - started
}

fn click(tab: &Tab, selector: &str) {
    let selector_js = serde_json::to_string(selector).expect("a string");
    let rect = eval_json(
        tab,
        &format!(
            "JSON.stringify((() => {{ const e = document.querySelector({selector_js}); \
             if (!e) return null; e.scrollIntoView({{block: 'center'}}); \
             const r = e.getBoundingClientRect(); \
             return [r.left + r.width / 2, r.top + r.height / 2]; }})())"
        ),
    );
    let (Some(x), Some(y)) = (rect[0].as_f64(), rect[1].as_f64()) else {
        panic!("nothing to click: no element matches {selector}");
    };
    tab.click_point(x, y)
        .unwrap_or_else(|e| panic!("cannot click {selector}: {e}"));
}

/// Checks the board after a step: the panel is at `ply` of game `id` and draws the
/// journal's position there.
fn check_step(tab: &Tab, id: u64, replay: &Replay, ply: usize, how: &str) -> Drawn {
    let now = drawn(tab);
    check_drawn(&now, id, replay, ply, how);
    now
}

/// The cell kinds a character of a row-strings board may be drawn as: the record's
/// `final_board` read without the replay code.
fn accepted_kinds(game: &str, ch: char) -> &'static [&'static str] {
    match (game, ch) {
        ("asalto", 'R') => &["rebel:R"],
        ("asalto", 'O') => &["officer:O"],
        ("asalto", '.') => &["empty", "fortress"],
        ("gomoku", 'W') => &["white"],
        ("gomoku", 'B') => &["black"],
        ("gomoku", '.') => &["empty"],
        (_, ' ') => &["off"],
        _ => &[],
    }
}

fn check_final_board(record: &GameRecord, now: &Drawn) {
    let rows: Vec<&str> = record
        .final_board
        .as_array()
        .expect("a board of rows")
        .iter()
        .map(|r| r.as_str().expect("a row string"))
        .collect();
    let mut seen = 0;
    for (r, row) in rows.iter().enumerate() {
        for (c, ch) in row.chars().enumerate() {
            let cell = now
                .cells
                .iter()
                .find(|(rr, cc, _)| (*rr, *cc) == (r, c))
                .unwrap_or_else(|| panic!("no cell drawn at ({r}, {c})"));
            assert!(
                accepted_kinds(&record.game, ch).contains(&cell.2.as_str()),
                "final_board has {ch:?} at ({r}, {c}), the page draws {}",
                cell.2
            );
            seen += 1;
        }
    }
    assert_eq!(
        seen,
        now.cells.len(),
        "the page draws cells off the final board"
    );
}

/// Checks a board read from the DOM after a step: the panel is at `ply` of game `id` and
/// draws the journal's position there.
fn check_drawn(now: &Drawn, id: u64, replay: &Replay, ply: usize, how: &str) {
    assert_eq!(
        (now.game.as_str(), now.ply),
        (id.to_string().as_str(), ply),
        "after {how}"
    );
    assert_eq!(
        now.cells,
        expected(replay, ply),
        "game {id} after {how}: the board drawn is not the journal's position at ply {ply}"
    );
}

/// Presses the button `id` once per ply from inside the page (its click handler runs as
/// for a mouse click), reading the board after each press: a whole game in one round
/// trip to the browser.
fn press_through(tab: &Tab, button: &str, times: usize) -> Vec<Drawn> {
    let boards = eval_json(
        tab,
        &format!(
            "JSON.stringify((() => {{ const out = []; for (let i = 0; i < {times}; i++) {{ \
             document.getElementById('{button}').click(); out.push({READ_PANEL}); }} \
             return out; }})())"
        ),
    );
    boards
        .as_array()
        .expect("boards")
        .iter()
        .map(parse_drawn)
        .collect()
}

/// Opens game `id` from the list and walks it: with the mouse and the keyboard over a
/// few plies, then forward over every ply and back to the start, checking the board
/// after each step; the last board also against the record's `final_board`.
fn walk(tab: &Tab, id: u64, record: &GameRecord, replay: &Replay) {
    let plies = replay.plies.len();
    assert!(plies >= 3, "game {id} is too short to walk: {plies} plies");
    open_game(tab, id);
    check_step(tab, id, replay, 0, "opening the game");
    click(tab, "#arb-step");
    check_step(tab, id, replay, 1, "a click on the step button");
    tab.press_key("ArrowRight").expect("a key press");
    check_step(tab, id, replay, 2, "the right arrow key");
    click(tab, "#arb-back");
    check_step(tab, id, replay, 1, "a click on the back button");
    tab.press_key("ArrowLeft").expect("a key press");
    check_step(tab, id, replay, 0, "the left arrow key");

    let forward = press_through(tab, "arb-step", plies);
    let mut changes = 0;
    for (i, now) in forward.iter().enumerate() {
        let ply = i + 1;
        check_drawn(now, id, replay, ply, "a step forward");
        let before = if i == 0 {
            expected(replay, 0)
        } else {
            forward[i - 1].cells.clone()
        };
        if replay.plies[i].verdict == "move" {
            assert_ne!(
                now.cells, before,
                "game {id}: ply {ply} is a move, yet the drawn board did not change"
            );
            changes += 1;
        }
    }
    assert!(changes > 0, "game {id}: no move changed the board drawn");
    check_final_board(record, forward.last().expect("a last board"));
    for (i, now) in press_through(tab, "arb-back", plies).iter().enumerate() {
        check_drawn(now, id, replay, plies - 1 - i, "a step back");
    }

    tab.press_key("End").expect("a key press");
    let last = check_step(tab, id, replay, plies, "the End key");
    check_final_board(record, &last);
    click(tab, "#arb-first");
    check_step(tab, id, replay, 0, "a click on the first-position button");
    let middle = plies / 2 + 1;
    click(tab, &format!("#games #arb-moves li[data-ply='{middle}']"));
    check_step(tab, id, replay, middle, "a click in the move list");
}

/// A screenshot of the page as it is: a PNG that decodes and is no blank page.
fn screenshot(tab: &Tab) -> Vec<u8> {
    let png = tab.screenshot_png().expect("a screenshot");
    let decoder = png::Decoder::new(&png[..]);
    let mut reader = decoder.read_info().expect("the screenshot is a PNG");
    let mut pixels = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut pixels).expect("the PNG decodes");
    assert!(
        info.width >= 800 && info.height >= 600,
        "{}x{}",
        info.width,
        info.height
    );
    let step = info.color_type.samples();
    let colours: BTreeSet<&[u8]> = pixels[..info.line_size * info.height as usize]
        .chunks(step)
        .collect();
    assert!(
        colours.len() > 20,
        "the screenshot has {} colours: a blank page?",
        colours.len()
    );
    png
}

/// Adds to the journal of `dir` one Asalto game whose bots send illegal replies, huff and
/// finally fail, so the page has every kind of ply to mark.
fn add_unruly_game(dir: &Path) -> u64 {
    let journal = dir.join(JOURNAL_FILE);
    let mut ids = Vec::new();
    let plan = for_each_record(&journal, |id, _| {
        ids.push(id);
        Ok(())
    })
    .expect("the journal reads");
    let record = (0..50)
        .map(|seed| crate::replay::unruly_asalto_game(seed, true))
        .find(|r| {
            ["illegal", "huff", "failed"]
                .iter()
                .all(|v| r.moves.iter().any(|m| m.verdict == *v))
        })
        .expect("a game with an illegal reply, a huff and a failure");
    let id = ids.iter().max().map_or(0, |m| m + 1);
    let (mut open, _) = Journal::open(dir, &plan, false).expect("the journal opens");
    open.append(id, &record).expect("the game is appended");
    id
}

#[test]
fn chromium_steps_through_games_and_draws_the_journal_positions() {
    let dir = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let asalto = builtin_league(
        dir.path(),
        "asalto",
        &["--pairs", "1", "--round-limit", "30"],
        &["builtin:random", "builtin:greedy"],
    );
    let unruly = add_unruly_game(&asalto);
    let gomoku = builtin_league(
        dir.path(),
        "gomoku",
        &["--pairs", "1"],
        &["builtin:random", "builtin:greedy"],
    );
    let Some(browser) = browser(
        "chromium_steps_through_games_and_draws_the_journal_positions",
        profile.path(),
    ) else {
        return;
    };
    for folder in [&asalto, &gomoku] {
        let replays = replays_of(folder);
        let tab = open(&browser, &make_page(folder));
        let rows = eval_json(
            &tab,
            "JSON.stringify(document.querySelectorAll('#games #arb-table tbody tr').length)",
        );
        assert_eq!(rows, replays.len(), "every game is listed");
        // The longest game, walked whole.
        let (id, record, replay) = replays
            .iter()
            .max_by_key(|(_, _, r)| r.plies.len())
            .expect("a game");
        walk(&tab, *id, record, replay);
    }

    // The game with illegal replies, a huff and a failure: each marked on its ply.
    let tab = open(&browser, &make_page(&asalto));
    let (_, record, replay) = replays_of(&asalto)
        .into_iter()
        .find(|(id, _, _)| *id == unruly)
        .expect("the unruly game");
    walk(&tab, unruly, &record, &replay);
    for verdict in ["illegal", "huff", "failed"] {
        let ply = replay
            .plies
            .iter()
            .position(|p| p.verdict == verdict)
            .unwrap_or_else(|| panic!("the unruly game has no {verdict}"))
            + 1;
        let class = eval_json(
            &tab,
            &format!(
                "JSON.stringify(document.querySelector(\"#arb-moves li[data-ply='{ply}']\").className)"
            ),
        );
        assert!(
            class.as_str().is_some_and(|c| c.contains("arb-mark")),
            "ply {ply} ({verdict}) is not marked in the move list: {class}"
        );
        click(&tab, &format!("#games #arb-moves li[data-ply='{ply}']"));
        check_step(&tab, unruly, &replay, ply, "a click on a marked ply");
        let last = eval_json(
            &tab,
            "JSON.stringify(document.getElementById('arb-last').textContent)",
        );
        assert!(
            last.as_str().is_some_and(|t| t.contains(verdict)),
            "the panel does not say ply {ply} was {verdict}: {last}"
        );
    }
    let png = screenshot(&tab);
    let shot = dir.path().join("replay.png");
    std::fs::write(&shot, &png).unwrap();
    assert!(png.len() > 10_000, "{} bytes", png.len());
}

/// Waits until the replay panel shows game `id` or says why it cannot: the panel's
/// result line.
fn wait_for_panel(tab: &Tab, id: u64) -> String {
    let said = eval_json_awaiting(
        tab,
        &format!(
            "new Promise(done => {{ const t = performance.now(); (function poll() {{ \
             const panel = document.getElementById('arb-replay'); \
             const result = document.getElementById('arb-result'); \
             if (panel.dataset.game === '{id}' || result.className === 'arb-error') \
             done(JSON.stringify(result.textContent)); \
             else if (performance.now() - t > 60000) done('null'); \
             else setTimeout(poll, 2); }})(); }})"
        ),
        true,
    );
    said.as_str()
        .unwrap_or_else(|| panic!("game {id}: the panel never answered"))
        .to_string()
}

#[test]
fn chromium_loads_each_block_of_replays_from_its_file_beside_the_page() {
    let dir = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    // 140 games: three blocks, two pages of the list.
    let asalto = builtin_league(
        dir.path(),
        "asalto",
        &["--pairs", "70", "--round-limit", "20"],
        &["builtin:random", "builtin:greedy"],
    );
    let replays = replays_of(&asalto);
    assert_eq!(replays.len(), 140);
    let page = make_page(&asalto);
    let Some(browser) = browser(
        "chromium_loads_each_block_of_replays_from_its_file_beside_the_page",
        profile.path(),
    ) else {
        return;
    };
    let tab = open(&browser, &page);
    // No block is loaded before a game is opened.
    let scripts = "JSON.stringify(document.getElementById('games').dataset.loadedBlocks || '')";
    assert_eq!(eval_json(&tab, scripts), "");
    // The first game, then a game of the last block, reached on the list's last page.
    let (first, record, replay) = &replays[0];
    walk(&tab, *first, record, replay);
    click(&tab, "#arb-last-page");
    let (last, record, replay) = replays.last().expect("a last game");
    walk(&tab, *last, record, replay);
    assert_eq!(
        eval_json(&tab, scripts),
        "0 2",
        "only the blocks of the games opened are loaded"
    );

    // A block file missing: the panel says which and why, and the game opens once the
    // file is back.
    let (middle, record, replay) = &replays[70];
    let file = page.parent().unwrap().join("replays/000001.js");
    let kept = dir.path().join("kept.js");
    std::fs::rename(&file, &kept).unwrap();
    click(&tab, "#arb-first-page");
    let said = {
        click(&tab, &format!("#games #arb-table tr[data-game='{middle}']"));
        wait_for_panel(&tab, *middle)
    };
    assert!(
        said.contains("replays/000001.js could not be read"),
        "the panel says: {said}"
    );
    std::fs::rename(&kept, &file).unwrap();
    walk(&tab, *middle, record, replay);
}

/// Writes the README's screenshot, docs/report.png: an Asalto game in mid-replay. Run on
/// demand: `cargo test --test integration replay_page::readme_screenshot -- --ignored`.
#[test]
#[ignore]
fn readme_screenshot() {
    let dir = tempfile::tempdir().unwrap();
    let profile = tempfile::tempdir().unwrap();
    let asalto = builtin_league(
        dir.path(),
        "asalto",
        &["--pairs", "2", "--seed", "3"],
        &["builtin:greedy", "builtin:alphabeta", "builtin:random"],
    );
    let replays = replays_of(&asalto);
    let (id, _, replay) = replays
        .iter()
        .find(|(_, r, _)| r.reason != "round_limit" && r.moves.len() > 30)
        .unwrap_or(&replays[0]);
    let Some(browser) = browser("readme_screenshot", profile.path()) else {
        return;
    };
    let tab = open(&browser, &make_page(&asalto));
    open_game(&tab, *id);
    let middle = replay.plies.len() * 2 / 3;
    click(&tab, &format!("#games #arb-moves li[data-ply='{middle}']"));
    check_step(&tab, *id, replay, middle, "a click in the move list");
    let png = screenshot(&tab);
    let out = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/report.png");
    std::fs::write(&out, &png).unwrap();
    eprintln!("wrote {} ({} bytes)", out.display(), png.len());
}

/// Measures the page of a large league: its size, when the list is drawn, and how long a
/// game takes to open. `ARBITER_PAGE_DIR=FOLDER cargo test --release --test integration
/// replay_page::large_league_page -- --ignored --nocapture`.
#[test]
#[ignore]
fn large_league_page() {
    let folder = PathBuf::from(std::env::var("ARBITER_PAGE_DIR").expect("ARBITER_PAGE_DIR"));
    let started = std::time::Instant::now();
    // A page already made from this journal (by `arbiter report DIR`) is measured as it is.
    let made = folder.join("report").join("index.html");
    let fresh = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    let page = if fresh(&made) > fresh(&folder.join(JOURNAL_FILE)) {
        made
    } else {
        make_page(&folder)
    };
    let built = started.elapsed();
    let bytes = std::fs::metadata(&page).unwrap().len();
    let profile = tempfile::tempdir().unwrap();
    let Some(browser) = browser("large_league_page", profile.path()) else {
        return;
    };
    for round in 1..=3 {
        let tab = open(&browser, &page);
        let timing = eval_json(
            &tab,
            "JSON.stringify((() => { const n = performance.getEntriesByType('navigation')[0]; \
             return {dom: n.domContentLoadedEventEnd, load: n.loadEventEnd, \
             list: Number(document.getElementById('games').dataset.readyMs), \
             games: document.querySelectorAll('#arb-table tbody tr').length}; })())",
        );
        // From the row's click to the board drawn, timed inside the page: the last game of
        // the first page, then the game listed before it (its block already inflated).
        let open_ms = |row: &str| {
            eval_json_awaiting(
                &tab,
                &format!(
                    "new Promise(done => {{ const rows = document.querySelectorAll('#arb-table tbody tr'); \
                     const tr = rows[{row}]; const t = performance.now(); tr.click(); \
                     (function poll() {{ if (document.getElementById('arb-replay').dataset.game === tr.dataset.game) \
                     done(JSON.stringify(performance.now() - t)); else setTimeout(poll, 1); }})(); }})"
                ),
                true,
            )
            .as_f64()
            .expect("a time")
        };
        let open_ms_first = open_ms("rows.length - 1");
        let again_ms = open_ms("rows.length - 2");
        let open_ms = open_ms_first;
        eprintln!(
            "round {round}: page {bytes} bytes (built in {built:?}); DOMContentLoaded {} ms, \
             load {} ms, list drawn {} ms, rows on the first page {}; opening a game {:.1} ms, \
             another of its block {:.1} ms",
            timing["dom"], timing["load"], timing["list"], timing["games"], open_ms, again_ms
        );
    }
}
