//! The game browser of the report page: every game of a journal in a list, and a replay
//! that draws the board of the game opened, ply by ply.
//!
//! A record is replayed exactly as the referee played it: from the plan's start position
//! for the record's start number, through the opening (played move by move the way the
//! referee plays it), then each reply by its verdict (a legal move is played, an illegal
//! reply gets the game's penalty, a failure ends the game). Every position is drawn with
//! [`Game::view`], so this module names no game. A replay that disagrees with the record
//! (a refused move, another verdict, another last board) is reported on that game instead
//! of a board.
//!
//! Pages of a hundred thousand games stay quick: the page holds only the list, a small
//! table of numbers and strings; each game's plies are one compact string (its first view,
//! then per ply only the cells that changed), deflated with the rest of its block of games
//! into a script beside the page ([`REPLAYS_DIR`]) that the page loads only when one of
//! the block's games is opened. Blocks are replayed in parallel and written as they are
//! made, so a report holds the replays of a few blocks at a time, however many games.

use crate::error::{Error, ReplayError};
use crate::games::openings::{OpeningKind, play_opening};
use crate::games::registry::{GameSettings, with_game};
use crate::games::view::BoardView;
use crate::games::{Game, ReasonCode};
use crate::record::GameRecord;
use crate::tournament::journal::{Loaded, Plan, for_each_record, load_visiting, read_plan};
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::Path;

/// The verdict given to the plies of an opening in a replay: played by the referee before
/// the bots were asked.
pub const OPENING: &str = "opening";

/// The longest reply shown in a move list, in characters: a bot can send anything.
const REPLY_CHARS: usize = 120;

/// One turn of a replay.
#[derive(Clone, Debug, PartialEq)]
pub struct Ply {
    /// The mover's role.
    pub side: String,
    /// What was sent (for an opening ply, the opening's move).
    pub reply: Value,
    /// The record's verdict (`move`, `huff`, `illegal`, `failed`), or [`OPENING`].
    pub verdict: String,
    /// The illegal-move or failure reason.
    pub reason: Option<String>,
    /// The reply's time; `None` for an opening ply.
    pub time_ms: Option<f64>,
}

/// A replayed game: `views[0]` is the start, `views[i + 1]` the position after `plies[i]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Replay {
    pub plies: Vec<Ply>,
    pub views: Vec<BoardView>,
}

/// Replays `record` under the rules of `game` (the game of the record's plan), checking
/// every step against the record.
pub fn replay<G: Game>(game: &G, record: &GameRecord) -> Result<Replay, ReplayError> {
    let mut out = Replay {
        plies: Vec::new(),
        views: Vec::new(),
    };
    replay_each(game, record, |ply, view| {
        out.plies.extend(ply);
        out.views.push(view);
    })?;
    Ok(out)
}

/// [`replay`], handing each position to `step` as it is reached rather than keeping them
/// all (a long game's views take megabytes): first `(None, start)`, then for each ply
/// `(Some(ply), position after it)`. On an error, the steps handed so far are not the
/// whole game.
fn replay_each<G: Game>(
    game: &G,
    record: &GameRecord,
    mut step: impl FnMut(Option<Ply>, BoardView),
) -> Result<(), ReplayError> {
    let fail = |ply: usize, message: String| ReplayError { ply, message };
    if record.game != game.name() {
        return Err(fail(
            0,
            format!("a {} record replayed as {}", record.game, game.name()),
        ));
    }
    let mut state = game.start_position(record.start);
    if !record.start_board.is_null() && game.encode_board(&state) != record.start_board {
        return Err(fail(
            0,
            format!(
                "the plan's start {} is {}, the record's {}",
                record.start,
                game.encode_board(&state),
                record.start_board
            ),
        ));
    }
    // The last position handed over, and the plies so far.
    let mut last = game.view(&state);
    step(None, last.clone());
    let mut plies = 0usize;
    if let (OpeningKind::Moves { .. }, Value::Array(opening)) = (game.openings(), &record.opening) {
        for wire in opening {
            let side = game.role_name(game.side_to_move(&state)).to_string();
            // One move at a time, with the referee's own checks: an opening that failed
            // there (a `bad_opening` game) stops here at the same move.
            let played = play_opening(game, &mut state, std::slice::from_ref(wire));
            let view = game.view(&state);
            // A move the referee's checks refused after playing it (one that ends the
            // game) stays on the board, as it did in the game.
            if played.is_ok() || view != last {
                let ply = Ply {
                    side,
                    reply: wire.clone(),
                    verdict: OPENING.to_string(),
                    reason: None,
                    time_ms: None,
                };
                plies += 1;
                last = view.clone();
                step(Some(ply), view);
            }
            if played.is_err() {
                break;
            }
        }
    }
    for (i, mv) in record.moves.iter().enumerate() {
        let at = plies;
        let mover = game.role_name(game.side_to_move(&state));
        if mv.side != mover {
            return Err(fail(
                at,
                format!("the record has {} moving, the rules {mover}", mv.side),
            ));
        }
        match mv.verdict.as_str() {
            "failed" => {
                if i + 1 != record.moves.len() {
                    return Err(fail(at, "a failure that does not end the game".into()));
                }
            }
            "illegal" => match game.parse_move(&state, &mv.reply) {
                Err(why) => {
                    let code = crate::referee::illegal_code(game, &state, &why);
                    game.play_illegal(&mut state, &why);
                    // Records written before blocked turns had their own code give the
                    // move's own reason there.
                    if let Some(reason) = &mv.reason
                        && reason != code
                        && reason != why.code()
                    {
                        return Err(fail(
                            at,
                            format!("{} is illegal for {code}, not {reason}", mv.reply),
                        ));
                    }
                }
                Ok(_) => {
                    return Err(fail(
                        at,
                        format!("the record calls {} illegal; the rules take it", mv.reply),
                    ));
                }
            },
            verdict => match game.parse_move(&state, &mv.reply) {
                Ok(checked) if game.move_kind(&checked) == verdict => {
                    game.play(&mut state, &checked);
                }
                Ok(checked) => {
                    return Err(fail(
                        at,
                        format!(
                            "the record calls {} a {verdict}, the rules a {}",
                            mv.reply,
                            game.move_kind(&checked)
                        ),
                    ));
                }
                Err(why) => {
                    return Err(fail(
                        at,
                        format!(
                            "the record plays {}, which the rules refuse: {why}",
                            mv.reply
                        ),
                    ));
                }
            },
        }
        let ply = Ply {
            side: mv.side.clone(),
            reply: mv.reply.clone(),
            verdict: mv.verdict.clone(),
            reason: mv.reason.clone(),
            time_ms: Some(mv.time_ms),
        };
        plies += 1;
        step(Some(ply), game.view(&state));
    }
    let last = game.encode_board(&state);
    if last != record.final_board {
        return Err(fail(
            plies,
            format!(
                "the replay ends on {last}, the record on {}",
                record.final_board
            ),
        ));
    }
    Ok(())
}

/// Replays every game of a journal under its plan's rules, one record at a time, handing
/// `visit` the game's id, its record and its replay (or why it does not replay).
pub fn for_each_replay(
    plan: &Plan,
    journal: &Path,
    mut visit: impl FnMut(u64, &GameRecord, Result<Replay, ReplayError>) -> Result<(), Error>,
) -> Result<(), Error> {
    let settings = GameSettings::from_rules(&plan.game, &plan.rules)?;
    with_game!(settings, plan.seed, |game| {
        for_each_record(journal, |id, record| {
            let replayed = replay(&game, &record);
            visit(id, &record, replayed)
        })
        .map(|_| ())
    })
}

/// The folder, inside a report's folder, that holds the page's replays: one script per
/// block of [`GAMES_PER_BLOCK`] games, `000000.js`, `000001.js`, ... in journal order.
pub const REPLAYS_DIR: &str = "replays";

/// The file of block `block` inside [`REPLAYS_DIR`].
pub fn block_file(block: usize) -> String {
    format!("{block:06}.js")
}

/// The game browser as one HTML fragment: `<section id="games">` with its own style and
/// script (every rule and name scoped to it), the list of every game of `journal` and the
/// replay panel. The replays themselves are written beside the page, into
/// `out/`[`REPLAYS_DIR`], block by block as they are made, so that neither this process
/// nor the page holds every game's replay: the page loads a block's file when one of its
/// games is opened. The DOM it draws is described in docs/OUTPUTS.md (tests read the
/// board back from it).
pub fn section(plan: &Plan, journal: &Path, out: &Path) -> Result<String, Error> {
    Ok(section_reading(plan, out, |visit| for_each_record(journal, visit))?.0)
}

/// The journal loaded ([`crate::tournament::journal::load`]) and its game browser
/// ([`section`], its replays written into `out`) from one reading of it.
pub fn load_and_section(journal: &Path, out: &Path) -> Result<(Loaded, String), Error> {
    let Some(plan) = read_plan(journal) else {
        // Whatever is wrong with the header, the whole reading says it.
        let loaded = load_visiting(journal, &mut |_, _| Ok(()))?;
        let games = section(&loaded.plan, journal, out)?;
        return Ok((loaded, games));
    };
    let (games, loaded) = section_reading(&plan, out, |visit| load_visiting(journal, visit))?;
    Ok((loaded, games))
}

/// [`section`] of the games `read` hands its visitor, and what `read` returns.
fn section_reading<R>(
    plan: &Plan,
    out: &Path,
    read: impl FnOnce(&mut dyn FnMut(u64, GameRecord) -> Result<(), Error>) -> Result<R, Error>,
) -> Result<(String, R), Error> {
    let settings = GameSettings::from_rules(&plan.game, &plan.rules)?;
    let folder = out.join(REPLAYS_DIR);
    std::fs::create_dir_all(&folder).map_err(|source| Error::Io {
        path: folder.clone(),
        source,
    })?;
    let mut list = GameList::default();
    let (kinds, (blocks, read)) = with_game!(settings, plan.seed, |game| {
        replay_blocks(&game, plan, &folder, &mut list, read).map(|done| (game.view_kinds(), done))
    })?;
    remove_stale_blocks(&folder, blocks)?;
    let head = json!({
        "game": plan.game,
        "games_per_block": GAMES_PER_BLOCK,
        "replays": format!("{REPLAYS_DIR}/"),
        "blocks": blocks,
        "roles": plan.roles,
        "kinds": kinds,
        "names": list.names.strings,
        "reasons": list.reasons.strings,
    })
    .to_string();
    // The rows are spliced in as the text they were kept as: a page of 100,000 games
    // would take tens of megabytes as a tree of JSON values.
    let index = format!(
        "{},\"games\":[{}]}}",
        head.strip_suffix('}').expect("a JSON object"),
        list.rows
    );
    let html = format!(
        "<section id=\"games\" class=\"arb-games\">\n<style>\n{css}</style>\n{body}\
         <script type=\"application/json\" id=\"arb-games-index\">{index}</script>\n\
         <script>\n{js}</script>\n</section>\n",
        css = include_str!("replay.css"),
        body = include_str!("replay.html"),
        index = script_safe(&index),
        js = include_str!("replay.js"),
    );
    Ok((html, read))
}

/// Removes from the replays' folder what an earlier report left there and this one did
/// not write: the files of blocks past the `blocks` written (a journal started afresh may
/// be shorter), and temporary files of a write that was cut short. Only names this module
/// writes are touched.
fn remove_stale_blocks(folder: &Path, blocks: usize) -> Result<(), Error> {
    let io = |path: &Path, source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    for entry in std::fs::read_dir(folder).map_err(|e| io(folder, e))? {
        let entry = entry.map_err(|e| io(folder, e))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let (number, temporary) = match name.strip_prefix('.') {
            Some(rest) => (rest.strip_suffix(".js.tmp"), true),
            None => (name.strip_suffix(".js"), false),
        };
        let Some(number) =
            number.filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        else {
            continue;
        };
        let past = number.parse::<usize>().map_or(true, |n| n >= blocks);
        if temporary || past {
            let path = entry.path();
            std::fs::remove_file(&path).map_err(|e| io(&path, e))?;
        }
    }
    Ok(())
}

/// Games replayed by one task: a block's games are replayed by several tasks, so that the
/// records waiting to be replayed are few (a record in memory takes about 400 bytes a ply,
/// a hundred times its journal line). Two, not eight: a 100,000-game league's run then
/// peaked at 35 MB instead of 42 MB, and two cores replayed 1.34x as fast as one instead
/// of 1.15x, the tasks put back in order sooner.
const GAMES_PER_TASK: usize = 2;

/// Tasks under way or waiting to be put back in order, at most: enough to keep every core
/// busy while this thread reads, few enough that the records and replays held stay a few
/// megabytes however long the journal. (Eight per core replayed 12,000 games 1.29x as fast
/// on two cores as on one, against 1.15x, but a 100,000-game league then peaked at 62 MB
/// instead of 42 MB: a record in memory takes about 400 bytes a ply.)
fn tasks_in_flight() -> usize {
    2 * rayon::current_num_threads().max(1)
}

/// What a task hands back.
enum Done {
    /// Task `n`'s games replayed: their rows, ids and lines (each ended by a newline).
    Replayed(usize, Vec<ListRow>, Vec<u8>),
    /// A block's file written, or why not.
    Written(Result<(), Error>),
}

/// Replays every game `read` hands its visitor and writes the replays into `folder`, a
/// file per block of [`GAMES_PER_BLOCK`] games in journal order ([`block_file`]); each
/// game's row is added to `list` in that order. Returns the blocks written and what `read`
/// returned. This thread reads while tasks of [`GAMES_PER_TASK`] games are replayed and
/// encoded on rayon's threads; their games are put back in order as they come, and each
/// whole block is deflated and written by another task. Reading waits while
/// [`tasks_in_flight`] tasks are unfinished or out of order, so memory stays bounded.
fn replay_blocks<G: Game, R>(
    game: &G,
    plan: &Plan,
    folder: &Path,
    list: &mut GameList,
    read: impl FnOnce(&mut dyn FnMut(u64, GameRecord) -> Result<(), Error>) -> Result<R, Error>,
) -> Result<(usize, R), Error> {
    let replay_task = |games: Vec<(u64, GameRecord)>| -> (Vec<ListRow>, Vec<u8>) {
        let mut lines = Vec::new();
        let rows = games
            .into_iter()
            .map(|(id, record)| {
                lines.extend_from_slice(encode_game(game, &record).as_bytes());
                lines.push(b'\n');
                ListRow::of(plan, id, &record)
            })
            .collect();
        (rows, lines)
    };
    let write_task = |n: usize, ids: Vec<u64>, lines: Vec<u8>| -> Result<(), Error> {
        super::write_atomic(
            &folder.join(block_file(n)),
            block_script(n, &ids, &lines).as_bytes(),
        )
    };
    let in_flight = tasks_in_flight();
    let (tx, rx) = std::sync::mpsc::channel::<Done>();
    let (blocks, read, failed) = rayon::in_place_scope(|scope| {
        // Tasks sent; tasks whose games are in `list`; block files being written.
        let (mut sent, mut emitted, mut writing) = (0usize, 0usize, 0usize);
        let mut failed: Option<Error> = None;
        let mut waiting: std::collections::BTreeMap<usize, (Vec<ListRow>, Vec<u8>)> =
            Default::default();
        // The block being gathered, in order: its games' ids and lines.
        let (mut blocks, mut ids, mut lines) = (0usize, Vec::new(), Vec::new());
        let write = |ids: &mut Vec<u64>, lines: &mut Vec<u8>, blocks: &mut usize| {
            let (tx, n) = (tx.clone(), *blocks);
            let (ids, lines) = (std::mem::take(ids), std::mem::take(lines));
            let write_task = &write_task;
            // The receiver outlives every task: it is read until all have come.
            scope.spawn(move |_| {
                let _ = tx.send(Done::Written(write_task(n, ids, lines)));
            });
            *blocks += 1;
        };
        // Takes one task's answer: its games are put in order, whole blocks written.
        let mut take = |done: Done, emitted: &mut usize, writing: &mut usize| match done {
            Done::Written(result) => {
                *writing -= 1;
                if let Err(e) = result {
                    failed.get_or_insert(e);
                }
            }
            Done::Replayed(n, rows, text) => {
                waiting.insert(n, (rows, text));
                while let Some((rows, text)) = waiting.remove(emitted) {
                    *emitted += 1;
                    let mut at = 0;
                    for row in rows {
                        ids.push(row.id);
                        list.push(row);
                        // One line per game, in order.
                        let end = text[at..]
                            .iter()
                            .position(|&b| b == b'\n')
                            .map_or(text.len(), |i| at + i + 1);
                        lines.extend_from_slice(&text[at..end]);
                        at = end;
                        if ids.len() == GAMES_PER_BLOCK {
                            write(&mut ids, &mut lines, &mut blocks);
                            *writing += 1;
                        }
                    }
                }
            }
        };
        let mut batch = Vec::with_capacity(GAMES_PER_TASK);
        let send = |batch: Vec<(u64, GameRecord)>, sent: &mut usize| {
            let (tx, n) = (tx.clone(), *sent);
            let replay_task = &replay_task;
            scope.spawn(move |_| {
                let (rows, lines) = replay_task(batch);
                let _ = tx.send(Done::Replayed(n, rows, lines));
            });
            *sent += 1;
        };
        let read = read(&mut |id, record| {
            batch.push((id, record));
            if batch.len() == GAMES_PER_TASK {
                let full = std::mem::replace(&mut batch, Vec::with_capacity(GAMES_PER_TASK));
                send(full, &mut sent);
                // Bounded: wait for the oldest tasks before reading on.
                while sent - emitted + writing >= in_flight {
                    let Ok(done) = rx.recv() else { break };
                    take(done, &mut emitted, &mut writing);
                }
            }
            Ok(())
        });
        if !batch.is_empty() {
            send(batch, &mut sent);
        }
        while emitted < sent {
            let Ok(done) = rx.recv() else { break };
            take(done, &mut emitted, &mut writing);
        }
        if !ids.is_empty() {
            write(&mut ids, &mut lines, &mut blocks);
            writing += 1;
        }
        while writing > 0 {
            let Ok(Done::Written(result)) = rx.recv() else {
                break;
            };
            writing -= 1;
            if let Err(e) = result {
                failed.get_or_insert(e);
            }
        }
        (blocks, read, failed)
    });
    let read = read?;
    if let Some(e) = failed {
        return Err(e);
    }
    Ok((blocks, read))
}

/// JSON text that can sit inside a `<script>` element: `<` only ever occurs inside JSON
/// strings, where `\u003c` means the same, so no `</script>` can close the element early.
fn script_safe(json: &str) -> String {
    json.replace('<', "\\u003c")
}

/// Games per block of replays (one file each): few enough that opening a game loads and
/// inflates little, enough that deflate finds what games share (an Asalto league's
/// replays shrink about fifteenfold).
pub const GAMES_PER_BLOCK: usize = 64;

/// The function a block's script calls, defined by the page: `(block, ids, data)`.
pub const BLOCK_CALLBACK: &str = "arbiterReplayBlock";

/// The script of block `n` holding the games `ids` whose lines are `lines`: one call
/// `arbiterReplayBlock(n, [ids], "DATA")`, DATA the lines deflated (zlib) and in base64,
/// which the browser inflates with its own `DecompressionStream`. A script rather than
/// data: a page opened from the disk may load scripts beside it but not fetch files.
fn block_script(n: usize, ids: &[u64], lines: &[u8]) -> String {
    use base64::Engine;
    use std::io::Write;
    let mut deflate = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    // Writing into memory cannot fail.
    deflate.write_all(lines).expect("in-memory deflate");
    let bytes = deflate.finish().expect("in-memory deflate");
    let ids: Vec<String> = ids.iter().map(u64::to_string).collect();
    format!(
        "{BLOCK_CALLBACK}({n},[{}],\"{}\");\n",
        ids.join(","),
        base64::engine::general_purpose::STANDARD.encode(bytes)
    )
}

/// Strings a page holds once and refers to by index.
#[derive(Default)]
struct Strings {
    strings: Vec<String>,
    index: HashMap<String, usize>,
}

impl Strings {
    fn id(&mut self, text: &str) -> usize {
        if let Some(&i) = self.index.get(text) {
            return i;
        }
        self.strings.push(text.to_string());
        self.index.insert(text.to_string(), self.strings.len() - 1);
        self.strings.len() - 1
    }
}

/// The rows of the game list: `[id, first player, second player, winner seat (-1 for a
/// tie), reason, rounds, detail]`, players and reasons as indices into their tables; a
/// game's length in rounds, as every other output gives it.
#[derive(Default)]
struct GameList {
    names: Strings,
    reasons: Strings,
    /// The rows as JSON text, comma-separated: a few dozen bytes per game.
    rows: String,
}

/// What the game list shows of one game, before its names are made indices.
struct ListRow {
    id: u64,
    players: [String; 2],
    winner: i64,
    reason: String,
    rounds: u32,
    detail: String,
}

impl ListRow {
    fn of(plan: &Plan, id: u64, record: &GameRecord) -> ListRow {
        let role = |i: usize| plan.roles.get(i).cloned().unwrap_or_default();
        let player = |i: usize| record.players.get(&role(i)).cloned().unwrap_or_default();
        ListRow {
            id,
            players: [player(0), player(1)],
            winner: record
                .winner
                .as_ref()
                .and_then(|w| plan.roles.iter().position(|r| r == w))
                .map_or(-1, |i| i as i64),
            reason: record.reason.clone(),
            rounds: record.rounds,
            detail: crate::record::short_detail(record),
        }
    }
}

impl GameList {
    fn push(&mut self, row: ListRow) {
        use std::fmt::Write;
        if !self.rows.is_empty() {
            self.rows.push(',');
        }
        let (first, second) = (
            self.names.id(&row.players[0]),
            self.names.id(&row.players[1]),
        );
        let reason = self.reasons.id(&row.reason);
        // Writing into memory cannot fail.
        let _ = write!(
            self.rows,
            "[{},{first},{second},{},{reason},{},{}]",
            row.id,
            row.winner,
            row.rounds,
            json_string(&row.detail)
        );
    }
}

/// `text` as a JSON string.
fn json_string(text: &str) -> String {
    serde_json::to_string(text).expect("a string always serializes")
}

#[path = "replay_encode.rs"]
mod encode;
use encode::encode_game;

#[cfg(test)]
#[path = "replay_tests.rs"]
mod tests;
