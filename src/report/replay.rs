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
//! Pages of thousands of games stay quick: the list is a small table of numbers and
//! strings, and each game's plies are embedded as one compact string (its first view, then
//! per ply only the cells that changed) that the page parses only when the game is opened.

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
    let mut out = Replay {
        plies: Vec::new(),
        views: vec![game.view(&state)],
    };
    if let (OpeningKind::Moves { .. }, Value::Array(opening)) = (game.openings(), &record.opening) {
        for wire in opening {
            let side = game.role_name(game.side_to_move(&state)).to_string();
            // One move at a time, with the referee's own checks: an opening that failed
            // there (a `bad_opening` game) stops here at the same move.
            let played = play_opening(game, &mut state, std::slice::from_ref(wire));
            let view = game.view(&state);
            // A move the referee's checks refused after playing it (one that ends the
            // game) stays on the board, as it did in the game.
            if played.is_ok() || view != *out.views.last().expect("one view at least") {
                out.plies.push(Ply {
                    side,
                    reply: wire.clone(),
                    verdict: OPENING.to_string(),
                    reason: None,
                    time_ms: None,
                });
                out.views.push(view);
            }
            if played.is_err() {
                break;
            }
        }
    }
    for (i, mv) in record.moves.iter().enumerate() {
        let at = out.plies.len();
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
        out.plies.push(Ply {
            side: mv.side.clone(),
            reply: mv.reply.clone(),
            verdict: mv.verdict.clone(),
            reason: mv.reason.clone(),
            time_ms: Some(mv.time_ms),
        });
        out.views.push(game.view(&state));
    }
    let last = game.encode_board(&state);
    if last != record.final_board {
        return Err(fail(
            out.plies.len(),
            format!(
                "the replay ends on {last}, the record on {}",
                record.final_board
            ),
        ));
    }
    Ok(out)
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

/// The game browser as one HTML fragment: `<section id="games">` with its own style and
/// script (every rule and name scoped to it), the list of every game of `journal` and the
/// replay panel. It needs no network and no other file. The DOM it draws is described in
/// docs/OUTPUTS.md (tests read the board back from it).
pub fn section(plan: &Plan, journal: &Path) -> Result<String, Error> {
    Ok(section_reading(plan, |visit| for_each_record(journal, visit))?.0)
}

/// The journal loaded ([`crate::tournament::journal::load`]) and its game browser
/// ([`section`]) from one reading of it.
pub fn load_and_section(journal: &Path) -> Result<(Loaded, String), Error> {
    let Some(plan) = read_plan(journal) else {
        // Whatever is wrong with the header, the whole reading says it.
        let loaded = load_visiting(journal, &mut |_, _| Ok(()))?;
        let games = section(&loaded.plan, journal)?;
        return Ok((loaded, games));
    };
    let (games, loaded) = section_reading(&plan, |visit| load_visiting(journal, visit))?;
    Ok((loaded, games))
}

/// [`section`] of the games `read` hands its visitor, and what `read` returns.
fn section_reading<R>(
    plan: &Plan,
    read: impl FnOnce(&mut dyn FnMut(u64, GameRecord) -> Result<(), Error>) -> Result<R, Error>,
) -> Result<(String, R), Error> {
    let settings = GameSettings::from_rules(&plan.game, &plan.rules)?;
    let mut list = GameList::default();
    let (kinds, (replays, read)) = with_game!(settings, plan.seed, |game| {
        replay_blocks(&game, plan, &mut list, read).map(|done| (game.view_kinds(), done))
    })?;
    let index = json!({
        "game": plan.game,
        "games_per_block": GAMES_PER_BLOCK,
        "roles": plan.roles,
        "kinds": kinds,
        "names": list.names.strings,
        "reasons": list.reasons.strings,
        "games": list.rows,
    });
    let html = format!(
        "<section id=\"games\" class=\"arb-games\">\n<style>\n{css}</style>\n{body}\
         <script type=\"application/json\" id=\"arb-games-index\">{index}</script>\n\
         <script type=\"text/plain\" id=\"arb-games-replays\">\n{replays}</script>\n\
         <script>\n{js}</script>\n</section>\n",
        css = include_str!("replay.css"),
        body = include_str!("replay.html"),
        index = script_safe(&index.to_string()),
        js = include_str!("replay.js"),
    );
    Ok((html, read))
}

/// Blocks of games being replayed at once: enough to keep every core busy, few enough
/// that the records held in memory stay a small part of a big journal.
const BLOCKS_IN_FLIGHT: usize = 16;

/// One block's game rows and its line of replays.
type DoneBlock = (Vec<ListRow>, String);

/// The replay blocks of every game `read` hands its visitor (one line each, see
/// [`Blocks`]), each game's row added to `list` in that order, and what `read` returned.
/// This thread reads while blocks of [`GAMES_PER_BLOCK`] games are replayed, encoded and
/// deflated on rayon's threads; they are put back in order as they come.
fn replay_blocks<G: Game, R>(
    game: &G,
    plan: &Plan,
    list: &mut GameList,
    read: impl FnOnce(&mut dyn FnMut(u64, GameRecord) -> Result<(), Error>) -> Result<R, Error>,
) -> Result<(String, R), Error> {
    let encode = |games: Vec<(u64, GameRecord)>| -> DoneBlock {
        let mut block = Blocks::default();
        let rows = games
            .iter()
            .map(|(id, record)| {
                let replayed = replay(game, record);
                block.push(&encode_game(record, &replayed));
                ListRow::of(plan, *id, record)
            })
            .collect();
        (rows, block.finish())
    };
    let mut text = String::new();
    let mut next = 0usize;
    let mut waiting: std::collections::BTreeMap<usize, DoneBlock> = Default::default();
    let mut emit = |n: usize, done: DoneBlock, list: &mut GameList| {
        waiting.insert(n, done);
        while let Some((rows, line)) = waiting.remove(&next) {
            rows.into_iter().for_each(|row| list.push(row));
            text.push_str(&line);
            next += 1;
        }
        next
    };
    let (tx, rx) = std::sync::mpsc::channel::<(usize, DoneBlock)>();
    let read = rayon::in_place_scope(|scope| {
        let mut sent = 0usize;
        let mut emitted = 0usize;
        let mut batch = Vec::with_capacity(GAMES_PER_BLOCK);
        let send = |batch: Vec<(u64, GameRecord)>, sent: &mut usize| {
            let (tx, n) = (tx.clone(), *sent);
            let encode = &encode;
            scope.spawn(move |_| {
                // The receiver outlives every block: it is read until all have come.
                let _ = tx.send((n, encode(batch)));
            });
            *sent += 1;
        };
        let read = read(&mut |id, record| {
            batch.push((id, record));
            if batch.len() == GAMES_PER_BLOCK {
                let full = std::mem::replace(&mut batch, Vec::with_capacity(GAMES_PER_BLOCK));
                send(full, &mut sent);
                // Bounded: wait for the oldest blocks before reading on.
                while sent - emitted >= BLOCKS_IN_FLIGHT {
                    let Ok((n, done)) = rx.recv() else { break };
                    emitted = emit(n, done, list);
                }
            }
            Ok(())
        });
        if !batch.is_empty() {
            send(batch, &mut sent);
        }
        while emitted < sent {
            let Ok((n, done)) = rx.recv() else { break };
            emitted = emit(n, done, list);
        }
        read
    });
    let read = read?;
    Ok((text, read))
}

/// JSON text that can sit inside a `<script>` element: `<` only ever occurs inside JSON
/// strings, where `\u003c` means the same, so no `</script>` can close the element early.
fn script_safe(json: &str) -> String {
    json.replace('<', "\\u003c")
}

/// Games per compressed block of replays: few enough that opening a game inflates little,
/// enough that deflate finds what games share (a Asalto league's replays shrink about
/// fifteenfold).
const GAMES_PER_BLOCK: usize = 64;

/// The replays of a page: one line per block of [`GAMES_PER_BLOCK`] games, the games' lines
/// deflated (zlib) and in base64, which a browser inflates with its own
/// `DecompressionStream`.
#[derive(Default)]
struct Blocks {
    text: String,
    pending: Vec<u8>,
    games: usize,
}

impl Blocks {
    fn push(&mut self, line: &str) {
        self.pending.extend_from_slice(line.as_bytes());
        self.pending.push(b'\n');
        self.games += 1;
        if self.games.is_multiple_of(GAMES_PER_BLOCK) {
            self.flush();
        }
    }

    fn flush(&mut self) {
        use base64::Engine;
        use std::io::Write;
        if self.pending.is_empty() {
            return;
        }
        let mut deflate =
            flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        // Writing into memory cannot fail.
        deflate.write_all(&self.pending).expect("in-memory deflate");
        let bytes = deflate.finish().expect("in-memory deflate");
        self.text
            .push_str(&base64::engine::general_purpose::STANDARD.encode(bytes));
        self.text.push('\n');
        self.pending.clear();
    }

    fn finish(mut self) -> String {
        self.flush();
        self.text
    }
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
    rows: Vec<Value>,
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
        self.rows.push(json!([
            row.id,
            self.names.id(&row.players[0]),
            self.names.id(&row.players[1]),
            row.winner,
            self.reasons.id(&row.reason),
            row.rounds,
            row.detail,
        ]));
    }
}

/// Whether two cells are drawn alike: a game's kinds are a few static names, so most
/// cells compare by address, and most labels are empty.
fn same_cell(a: &crate::games::view::Cell, b: &crate::games::view::Cell) -> bool {
    (std::ptr::eq(a.kind, b.kind) || a.kind == b.kind)
        && a.label.len() == b.label.len()
        && (a.label.is_empty() || a.label == b.label)
}

/// One game's replay as the page decodes it when the game is opened:
/// `[cols, cells, strings, start cells, start caption, plies, error]`. `cells` lists the
/// distinct `[kind, label]` cells, `strings` the captions, roles, verdicts and reasons;
/// the start is a cell index per grid cell. Each ply is `[role, reply, verdict, reason,
/// time_ms, caption, changes]`, `changes` being `[grid cell, cell, ...]` pairs, or
/// `{"cols", "cells"}` when the grid itself changed shape. A game that does not replay has
/// `null` cells and its error as `[ply, message]`.
fn encode_game(record: &GameRecord, replayed: &Result<Replay, ReplayError>) -> String {
    // A game draws a handful of distinct cells: a short list searched in order beats a
    // map with a key built per lookup.
    let mut cells: Vec<crate::games::view::Cell> = Vec::new();
    let mut strings = Strings::default();
    let mut cell_id =
        |c: &crate::games::view::Cell| match cells.iter().position(|known| same_cell(known, c)) {
            Some(i) => i,
            None => {
                cells.push(c.clone());
                cells.len() - 1
            }
        };
    // The plies first: they name the cells and strings the tables before them list.
    let mut plies = String::from("[");
    let mut scratch = Vec::new();
    let mut encode_ply = |strings: &mut Strings, ply: &Ply, caption: i64, changes: &str| {
        use std::fmt::Write;
        if plies.len() > 1 {
            plies.push(',');
        }
        // In this order, as the tables have always listed them.
        let side = strings.id(&ply.side);
        let verdict = strings.id(&ply.verdict);
        let reason = ply.reason.as_deref().map_or(-1, |r| strings.id(r) as i64);
        // Writing into memory cannot fail.
        let _ = write!(plies, "[{side},");
        scratch.clear();
        serde_json::to_writer(&mut scratch, &ply.reply).expect("a reply always serializes");
        let reply = String::from_utf8_lossy(&scratch);
        if reply.chars().count() > REPLY_CHARS {
            let cut: String = reply.chars().take(REPLY_CHARS).collect();
            plies.push_str(&json_string(&format!("{cut}…")));
        } else {
            plies.push_str(&reply);
        }
        let _ = write!(plies, ",{verdict},{reason},");
        scratch.clear();
        // serde_json writes the time as the page always had it (`12.0`, `null`).
        serde_json::to_writer(
            &mut scratch,
            &ply.time_ms.map(|t| (t * 10.0).round() / 10.0),
        )
        .expect("a number always serializes");
        plies.push_str(&String::from_utf8_lossy(&scratch));
        let _ = write!(plies, ",{caption},{changes}]");
    };
    let numbers = |list: &[usize]| {
        use std::fmt::Write;
        let mut text = String::with_capacity(2 + 4 * list.len());
        text.push('[');
        for (i, n) in list.iter().enumerate() {
            if i > 0 {
                text.push(',');
            }
            let _ = write!(text, "{n}");
        }
        text.push(']');
        text
    };
    let (cols, start, caption, error) = match replayed {
        Ok(replay) => {
            let first = &replay.views[0];
            let start: Vec<usize> = first.cells.iter().map(&mut cell_id).collect();
            let caption = strings.id(&first.caption);
            let mut flat = Vec::new();
            for (ply, pair) in replay.plies.iter().zip(replay.views.windows(2)) {
                let (before, after) = (&pair[0], &pair[1]);
                let changes = if (before.rows, before.cols) == (after.rows, after.cols) {
                    flat.clear();
                    for (i, (a, b)) in before.cells.iter().zip(&after.cells).enumerate() {
                        if !same_cell(a, b) {
                            flat.push(i);
                            flat.push(cell_id(b));
                        }
                    }
                    numbers(&flat)
                } else {
                    let all: Vec<usize> = after.cells.iter().map(&mut cell_id).collect();
                    format!("{{\"cells\":{},\"cols\":{}}}", numbers(&all), after.cols)
                };
                let caption = strings.id(&after.caption) as i64;
                encode_ply(&mut strings, ply, caption, &changes);
            }
            (
                first.cols,
                numbers(&start),
                caption as i64,
                "null".to_string(),
            )
        }
        Err(e) => {
            for m in &record.moves {
                let ply = Ply {
                    side: m.side.clone(),
                    reply: m.reply.clone(),
                    verdict: m.verdict.clone(),
                    reason: m.reason.clone(),
                    time_ms: Some(m.time_ms),
                };
                encode_ply(&mut strings, &ply, -1, "[]");
            }
            (
                0,
                "null".to_string(),
                -1,
                format!("[{},{}]", e.ply, json_string(&e.message)),
            )
        }
    };
    plies.push(']');
    let cells: Vec<String> = cells
        .iter()
        .map(|c| format!("[{},{}]", json_string(c.kind), json_string(&c.label)))
        .collect();
    let strings: Vec<String> = strings.strings.iter().map(|s| json_string(s)).collect();
    format!(
        "[{cols},[{}],[{}],{start},{caption},{plies},{error}]",
        cells.join(","),
        strings.join(",")
    )
}

/// `text` as a JSON string.
fn json_string(text: &str) -> String {
    serde_json::to_string(text).expect("a string always serializes")
}
