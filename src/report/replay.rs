//! The game browser of the report page: every game of a journal in a list, and a replay
//! that draws the board of the game opened, ply by ply (each game replayed by
//! [`crate::replay`]).
//!
//! Pages of a hundred thousand games stay quick: the page holds only the list, a small
//! table of numbers and strings; each game's plies are one compact string (its first view,
//! then per ply only the cells that changed), deflated on its own where it was replayed,
//! and put with the rest of its block of games into a script beside the page
//! (`REPLAYS_DIR`) that the page loads only when one of the block's games is opened. A [`Browser`] takes the games in journal order and writes
//! each whole block on a thread of its own, so a report holds the replays of a few blocks
//! at a time, however many games. A run hands it each game replayed on the worker that
//! played it; a report of a journal replays its games in parallel (`section`).

pub use crate::replay::{OPENING, Ply, Replay, Replayed, replay};

use crate::error::{Error, ReplayError};
use crate::games::Game;
use crate::games::registry::{GameSettings, with_game};
use crate::games::view::CellKind;
use crate::record::GameRecord;
pub(crate) use crate::replay::files::Item;
use crate::replay::files::{BlockDigest, Indexing, Key, OldBlocks};
pub(crate) use crate::replay::files::{GAMES_PER_BLOCK, REPLAYS_DIR, block_file, block_script};
use crate::replay::{GameRow, Strings, json_string};
use crate::tournament::chores::Chores;
use crate::tournament::journal::{Plan, for_each_record};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};

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

/// [`section`] of the games `read` hands its visitor, and what `read` returns; the list
/// gives each game's detail when `details`.
pub(super) fn section_reading<R>(
    plan: &Plan,
    out: &Path,
    details: bool,
    read: impl FnOnce(&mut dyn FnMut(u64, GameRecord) -> Result<(), Error>) -> Result<R, Error>,
) -> Result<(GamesHtml, R), Error> {
    let settings = GameSettings::from_rules(&plan.game, &plan.rules)?;
    let (browser, read) = with_game!(settings, plan.seed, |game| {
        let mut browser = Browser::new(out, game.view_kinds(), None)?;
        browser.details = details;
        let read = replay_in_parallel(&game, plan, &mut browser, |visit| {
            read(&mut |id, record| visit(Item::Record(id, Box::new(record), None)))
        });
        // The blocks written so far are waited for, whatever the reading gave.
        let made = browser.finish(plan);
        read.and_then(|read| made.map(|html| (html, read)))
    })?;
    browser.wait()?;
    Ok((browser, read))
}

/// The game browser being made from games handed in journal order ([`Browser::push`]):
/// the list grows by a row a game, and each whole block of `GAMES_PER_BLOCK` games is
/// written into `REPLAYS_DIR` as a chore of a run's game threads, or as a
/// task on rayon's, while games still come; a few blocks at most wait to be
/// written, a block past them being written at once by the thread that filled it.
pub struct Browser {
    folder: PathBuf,
    kinds: &'static [CellKind],
    list: GameList,
    /// The block being gathered: its games' ids and lines.
    ids: Vec<u64>,
    lines: Vec<u8>,
    /// Blocks filled so far.
    blocks: usize,
    /// Who writes the blocks: a run's game threads, else rayon's.
    chores: Option<Arc<Chores>>,
    writing: Arc<Writing>,
    /// Whether the list gives each game's detail (a public report's does not).
    details: bool,
    /// The keys of the block's games ([`Replayed::key`]).
    keys: Vec<Option<Key>>,
    /// The blocks written before, as the report's index describes them: a block of the
    /// same games is left as it is ([`super::replays_known`]).
    old_blocks: Arc<OldBlocks>,
    /// The report's index made anew; none for a report for the class.
    indexing: Option<Indexing>,
}

/// The blocks handed over and not yet written, and the first failure to write one.
#[derive(Default)]
struct Writing {
    state: Mutex<(usize, Option<Error>)>,
    written: Condvar,
    /// Buffers of blocks written, emptied for the next blocks: a block of long games is a
    /// megabyte, which a fresh buffer would take from the system page by page each time.
    spare: Mutex<Vec<Vec<u8>>>,
    /// Blocks handed over and not yet written, at most.
    waiting_at_most: usize,
    /// The digest of each block written (or left as it was), by its number.
    digests: Mutex<Vec<Option<BlockDigest>>>,
}

impl Writing {
    fn state(&self) -> std::sync::MutexGuard<'_, (usize, Option<Error>)> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Writes block `n` of `ids` and `lines` into `folder`, keeping the first failure,
    /// and keeps the emptied buffer of `lines` for a later block. A block that holds the
    /// same games as the one of digest `unchanged` there, and still is that one, is left
    /// as it is: it would be written byte for byte the same.
    fn write(
        &self,
        folder: &Path,
        (n, ids, mut lines): (usize, &[u64], Vec<u8>),
        unchanged: Option<BlockDigest>,
    ) {
        let digest = match unchanged.filter(|d| crate::replay::files::block_is(folder, n, d)) {
            Some(digest) => digest,
            None => {
                let script = block_script(n, ids, &lines);
                if let Err(e) = super::write_atomic(&folder.join(block_file(n)), script.as_bytes())
                {
                    self.state().1.get_or_insert(e);
                }
                crate::replay::files::digest_of(script.as_bytes())
            }
        };
        let mut digests = self
            .digests
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if digests.len() <= n {
            digests.resize(n + 1, None);
        }
        digests[n] = Some(digest);
        drop(digests);
        lines.clear();
        let mut spare = self
            .spare
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if spare.len() <= self.waiting_at_most {
            spare.push(lines);
        }
    }

    /// An empty buffer for a block's lines: a spare one, else one of `size` bytes.
    fn buffer(&self, size: usize) -> Vec<u8> {
        let spare = self
            .spare
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .pop();
        spare.unwrap_or_else(|| Vec::with_capacity(size))
    }
}

/// Blocks handed over and not yet written, at most, when a run's game threads write
/// them: gathering goes on while one is written, and what is held stays two blocks. The
/// game threads take a
/// block between games, far sooner than the next block fills.
const BLOCKS_WAITING: usize = 1;

/// [`BLOCKS_WAITING`] when rayon's threads write the blocks of a journal's report: one
/// per thread, as a journal is read far faster than a run plays, and a block written by
/// the reading thread itself is a block not read meanwhile.
fn blocks_waiting_on_rayon() -> usize {
    rayon::current_num_threads().max(BLOCKS_WAITING)
}

impl Browser {
    /// A browser writing its replays into `out/``REPLAYS_DIR` for a game whose cells
    /// are drawn as `kinds`, its blocks written as `chores` when given (a run's game
    /// threads do them between games), else on rayon's threads.
    pub fn new(
        out: &Path,
        kinds: &'static [CellKind],
        chores: Option<Arc<Chores>>,
    ) -> Result<Browser, Error> {
        let folder = out.join(REPLAYS_DIR);
        std::fs::create_dir_all(&folder).map_err(|source| Error::Io {
            path: folder.clone(),
            source,
        })?;
        Ok(Browser {
            list: GameList::new(&folder)?,
            indexing: Some(Indexing::new(out, &folder)?),
            keys: Vec::new(),
            old_blocks: Arc::default(),
            folder,
            kinds,
            ids: Vec::new(),
            lines: Vec::new(),
            blocks: 0,
            writing: Arc::new(Writing {
                waiting_at_most: match chores {
                    Some(_) => BLOCKS_WAITING,
                    None => blocks_waiting_on_rayon(),
                },
                ..Writing::default()
            }),
            chores,
            details: true,
        })
    }

    /// Leaves as they are the blocks of `old` (what the report's index says the folder
    /// holds) whose games come again, in the same order under the same ids.
    pub(crate) fn leave_unchanged(&mut self, old: Arc<OldBlocks>) {
        self.old_blocks = old;
    }

    /// Adds the next game in journal order.
    pub fn push(&mut self, game: &Replayed) {
        self.list.push(&game.row, self.details);
        if let Some(indexing) = &mut self.indexing {
            indexing.add(game);
        }
        self.keys.push(game.key);
        self.ids.push(game.row.id);
        // The block's packed lines as JSON strings, comma-separated (`block_script`).
        if !self.lines.is_empty() {
            self.lines.push(b',');
        }
        self.lines.push(b'"');
        self.lines.extend_from_slice(game.packed.as_bytes());
        self.lines.push(b'"');
        if self.ids.len() == GAMES_PER_BLOCK {
            self.write_block();
        }
    }

    /// Hands the block gathered so far over to be written, or writes it now when
    /// as many blocks as may wait are waiting ([`BLOCKS_WAITING`]).
    fn write_block(&mut self) {
        // The next block goes into a spare buffer, or one sized like this one's.
        let next = self.writing.buffer(self.lines.len());
        let (n, ids, lines) = (
            self.blocks,
            std::mem::replace(&mut self.ids, Vec::with_capacity(GAMES_PER_BLOCK)),
            std::mem::replace(&mut self.lines, next),
        );
        let keys = std::mem::take(&mut self.keys);
        // The same games, each with its key, under the same ids: the same script.
        let unchanged = self.old_blocks.get(n).and_then(|(digest, games)| {
            let same = games.len() == ids.len()
                && games
                    .iter()
                    .zip(ids.iter().zip(&keys))
                    .all(|((id, key), (new_id, new_key))| {
                        id == new_id && key.is_some() && key == new_key
                    });
            same.then_some(*digest)
        });
        self.blocks += 1;
        {
            let mut state = self.writing.state();
            if state.0 < self.writing.waiting_at_most {
                state.0 += 1;
                drop(state);
                let (writing, folder) = (self.writing.clone(), self.folder.clone());
                let chore = move || {
                    writing.write(&folder, (n, &ids, lines), unchanged);
                    writing.state().0 -= 1;
                    writing.written.notify_all();
                };
                match &self.chores {
                    Some(chores) => chores.add(Box::new(chore)),
                    None => rayon::spawn(chore),
                }
                return;
            }
        }
        self.writing
            .write(&self.folder, (n, &ids, lines), unchanged);
    }

    /// Waits until every block handed over is written (doing the chores still waiting,
    /// should no game thread be left to), and returns the first failure to write one.
    fn wait_for_blocks(&self) -> Result<(), Error> {
        if let Some(chores) = &self.chores {
            chores.do_waiting();
        }
        let mut state = self.writing.state();
        while state.0 > 0 {
            state = self
                .writing
                .written
                .wait(state)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
        state.1.take().map_or(Ok(()), Err)
    }

    /// The games handed so far.
    pub fn games(&self) -> usize {
        self.blocks * GAMES_PER_BLOCK + self.ids.len()
    }

    /// Writes the last block and returns the game browser's HTML for the journal of
    /// `plan`; the blocks still being written are waited for by [`GamesHtml::wait`]
    /// (which the page's writing does first), so that they are written while the rest of
    /// the report is made. Then what an earlier report left in the folder and this one
    /// did not write is removed, and the report's index written.
    pub fn finish(mut self, plan: &Plan) -> Result<GamesHtml, Error> {
        if !self.ids.is_empty() {
            self.write_block();
        }
        let mut head = json!({
            "game": plan.game,
            "games_per_block": GAMES_PER_BLOCK,
            "replays": format!("{REPLAYS_DIR}/"),
            "blocks": self.blocks,
            "roles": plan.roles,
            "kinds": self.kinds,
            "names": self.list.names.strings,
            "reasons": self.list.reasons.strings,
        })
        .to_string();
        // The list of games goes after the other keys, as the last one.
        head.pop().filter(|&c| c == '}').expect("a JSON object");
        let rows = self.list.finish(&self.folder)?;
        Ok(GamesHtml {
            head,
            rows,
            writing: Mutex::new(Some((
                self,
                crate::replay::files::head(&plan.game, &plan.rules, plan.seed, &plan.roles),
            ))),
        })
    }

    /// Waits for every block to be on the disk, removes what an earlier report left in
    /// the folder and this one did not write, and writes the report's index (whose first
    /// line is `index_head`), or removes it from a report for the class.
    fn settle(mut self, index_head: &str) -> Result<(), Error> {
        self.wait_for_blocks()?;
        remove_stale_blocks(&self.folder, self.blocks)?;
        let out = self.folder.parent().unwrap_or(Path::new("."));
        match self.indexing.take().filter(|_| self.details) {
            Some(indexing) => {
                let digests = self.writing.digests.lock();
                let digests = digests.unwrap_or_else(std::sync::PoisonError::into_inner);
                indexing.finish(index_head, GAMES_PER_BLOCK, &digests)
            }
            None => crate::replay::files::remove(out),
        }
    }
}

/// The game browser as HTML: `<section id="games">` with its own style and script (every
/// rule and name scoped to it) and the index of every game, written out by
/// [`GamesHtml::write`]. The rows are kept as the text they were made as, and streamed
/// into the page: a page of 100,000 games would take tens of megabytes as a tree of JSON
/// values, and megabytes more as copies.
pub struct GamesHtml {
    /// The index's JSON object but its list of games, without its closing brace.
    head: String,
    /// The list of games, comma-separated, in a nameless file: a few dozen bytes a game.
    rows: std::fs::File,
    /// The browser whose blocks may still be being written, and its index's head.
    writing: Mutex<Option<(Browser, String)>>,
}

impl GamesHtml {
    /// Waits until every block of replays is on the disk (see [`Browser::finish`]), and
    /// returns the first failure to write one, or the report's index.
    pub fn wait(&self) -> Result<(), Error> {
        let writing = self
            .writing
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        match writing {
            Some((browser, index_head)) => browser.settle(&index_head),
            None => Ok(()),
        }
    }

    /// Writes the section to `out`, its blocks of replays waited for first.
    pub fn write(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        self.wait()
            .map_err(|e| std::io::Error::other(e.to_string()))?;
        write!(
            out,
            "<section id=\"games\" class=\"arb-games\">\n<style>\n{css}</style>\n{body}\
             <script type=\"application/json\" id=\"arb-games-index\">",
            css = include_str!("replay.css"),
            body = include_str!("replay.html"),
        )?;
        write_script_safe(out, &self.head)?;
        out.write_all(b",\"games\":[")?;
        let mut rows = &self.rows;
        std::io::Seek::rewind(&mut rows)?;
        let mut rows = std::io::BufReader::with_capacity(1 << 16, rows);
        loop {
            let chunk = std::io::BufRead::fill_buf(&mut rows)?;
            if chunk.is_empty() {
                break;
            }
            let n = chunk.len();
            // The rows are written as UTF-8 text and `<` is one byte: any cut keeps it whole.
            write_script_safe_bytes(out, chunk)?;
            std::io::BufRead::consume(&mut rows, n);
        }
        write!(
            out,
            "]}}</script>\n<script>\n{js}</script>\n</section>\n",
            js = include_str!("replay.js"),
        )
    }

    /// The section as one string.
    pub fn to_html(&self) -> String {
        let mut bytes = Vec::new();
        // Writing into memory cannot fail.
        self.write(&mut bytes).expect("in-memory write");
        String::from_utf8(bytes).expect("the section is UTF-8")
    }
}

impl Drop for Browser {
    /// A browser given up (a failed run) still waits for the blocks it handed over.
    fn drop(&mut self) {
        let _ = self.wait_for_blocks();
    }
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

/// Games replayed by one task: the records waiting to be replayed are few (a record in
/// memory takes about 400 bytes a ply, a hundred times its journal line). Two, not eight:
/// a 100,000-game report then peaked at 35 MB instead of 42 MB, and two cores replayed
/// 1.34x as fast as one instead of 1.15x, the tasks put back in order sooner.
const GAMES_PER_TASK: usize = 2;

/// Tasks under way or waiting to be put back in order, at most: enough to keep every core
/// busy while this thread reads, few enough that the records and replays held stay a few
/// megabytes however long the journal. (Eight per core replayed 12,000 games 1.29x as fast
/// on two cores as on one, against 1.15x, but a 100,000-game report then peaked at 62 MB
/// instead of 42 MB: a record in memory takes about 400 bytes a ply.)
fn tasks_in_flight() -> usize {
    2 * rayon::current_num_threads().max(1)
}

/// Replays every game `read` hands its visitor, in tasks of [`GAMES_PER_TASK`] games on
/// rayon's threads while this thread reads, and hands them to `browser` in the order read.
/// Reading waits while [`tasks_in_flight`] tasks are unfinished or out of order, so memory
/// stays bounded. Returns what `read` returned.
pub(super) fn replay_in_parallel<G: Game, R>(
    game: &G,
    plan: &Plan,
    browser: &mut Browser,
    read: impl FnOnce(&mut dyn FnMut(Item) -> Result<(), Error>) -> Result<R, Error>,
) -> Result<R, Error> {
    let replay_task = |games: Vec<Item>| -> Vec<Replayed> {
        games
            .into_iter()
            .map(|item| match item {
                Item::Ready(replayed) => replayed,
                Item::Record(id, record, key) => Replayed {
                    key,
                    ..Replayed::of(game, &plan.roles, id, &record)
                },
            })
            .collect()
    };
    let in_flight = tasks_in_flight();
    let (tx, rx) = std::sync::mpsc::channel::<(usize, Vec<Replayed>)>();
    rayon::in_place_scope(|scope| {
        // Tasks sent; tasks whose games are in the browser.
        let (mut sent, mut emitted) = (0usize, 0usize);
        let mut waiting: std::collections::BTreeMap<usize, Vec<Replayed>> = Default::default();
        // Takes one task's games: they are put in order as they come.
        let mut take = |(n, games): (usize, Vec<Replayed>), emitted: &mut usize| {
            waiting.insert(n, games);
            while let Some(games) = waiting.remove(emitted) {
                *emitted += 1;
                games.iter().for_each(|game| browser.push(game));
            }
        };
        let mut batch = Vec::with_capacity(GAMES_PER_TASK);
        let send = |batch: Vec<Item>, sent: &mut usize| {
            let (tx, n) = (tx.clone(), *sent);
            let replay_task = &replay_task;
            // The receiver outlives every task: it is read until all have come.
            scope.spawn(move |_| {
                let _ = tx.send((n, replay_task(batch)));
            });
            *sent += 1;
        };
        let read = read(&mut |item| {
            batch.push(item);
            if batch.len() == GAMES_PER_TASK {
                let full = std::mem::replace(&mut batch, Vec::with_capacity(GAMES_PER_TASK));
                send(full, &mut sent);
                // Bounded: wait for the oldest tasks before reading on.
                while sent - emitted >= in_flight {
                    let Ok(done) = rx.recv() else { break };
                    take(done, &mut emitted);
                }
            }
            Ok(())
        });
        if !batch.is_empty() {
            send(batch, &mut sent);
        }
        while emitted < sent {
            let Ok(done) = rx.recv() else { break };
            take(done, &mut emitted);
        }
        read
    })
}

/// Writes JSON text so that it can sit inside a `<script>` element: `<` only ever occurs
/// inside JSON strings, where `\u003c` means the same, so no `</script>` can close the
/// element early.
fn write_script_safe(out: &mut dyn std::io::Write, json: &str) -> std::io::Result<()> {
    write_script_safe_bytes(out, json.as_bytes())
}

/// [`write_script_safe`] of JSON text's bytes.
fn write_script_safe_bytes(out: &mut dyn std::io::Write, json: &[u8]) -> std::io::Result<()> {
    let mut parts = json.split(|&b| b == b'<');
    if let Some(first) = parts.next() {
        out.write_all(first)?;
    }
    for part in parts {
        out.write_all(b"\\u003c")?;
        out.write_all(part)?;
    }
    Ok(())
}

/// The rows of the game list: `[id, first player, second player, winner seat (-1 for a
/// tie), reason, rounds, detail]`, players and reasons as indices into their tables; a
/// game's length in rounds, as every other output gives it.
struct GameList {
    names: Strings,
    reasons: Strings,
    /// The rows as JSON text, comma-separated, kept in a nameless file beside the replays
    /// rather than in memory: a few dozen bytes a game, megabytes for a long league.
    rows: std::io::BufWriter<std::fs::File>,
    listed: usize,
    /// The first failure to write a row, reported by [`GameList::finish`].
    failed: Option<std::io::Error>,
}

impl GameList {
    fn new(folder: &Path) -> Result<GameList, Error> {
        let file = tempfile::tempfile_in(folder).map_err(|source| Error::Io {
            path: folder.to_path_buf(),
            source,
        })?;
        Ok(GameList {
            names: Strings::default(),
            reasons: Strings::default(),
            rows: std::io::BufWriter::new(file),
            listed: 0,
            failed: None,
        })
    }

    /// Adds `row`, its detail only when `detail`.
    fn push(&mut self, row: &GameRow, detail: bool) {
        use std::io::Write;
        let (first, second) = (
            self.names.id(&row.players[0]),
            self.names.id(&row.players[1]),
        );
        let reason = self.reasons.id(&row.reason);
        let comma = if self.listed == 0 { "" } else { "," };
        self.listed += 1;
        if self.failed.is_some() {
            return;
        }
        let written = write!(
            self.rows,
            "{comma}[{},{first},{second},{},{reason},{},{}]",
            row.id,
            row.winner,
            row.rounds,
            json_string(if detail { &row.detail } else { "" })
        );
        self.failed = written.err();
    }

    /// The file of rows, written whole, or the first failure to write it (in `folder`).
    fn finish(&mut self, folder: &Path) -> Result<std::fs::File, Error> {
        let io = |source| Error::Io {
            path: folder.to_path_buf(),
            source,
        };
        if let Some(e) = self.failed.take() {
            return Err(io(e));
        }
        std::io::Write::flush(&mut self.rows).map_err(io)?;
        self.rows.get_ref().try_clone().map_err(io)
    }
}

#[cfg(test)]
#[path = "replay_tests.rs"]
mod tests;
