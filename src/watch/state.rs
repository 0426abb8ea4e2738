//! What the page shows of a tournament folder, as JSON, built from what its run writes:
//! the journal, and the live file while it runs. Never a bot's folder, a bot's spec (a
//! path of the teacher's) or a bot's stderr: a game's detail appears only in the words a
//! team's feedback uses for its own failures.
//!
//! The journal is read again only when it changed (its length or time), and what was
//! made of it is kept: a hundred pages polling cost a file's metadata a poll.

use crate::error::Error;
use crate::games::registry::{GameSettings, with_game};
use crate::record::GameSummary;
use crate::report::model::Report;
use crate::tournament::journal::{self, JOURNAL_FILE, Loaded};
use crate::tournament::live::LIVE_FILE;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Instant, SystemTime};

/// Replays kept, at most: a game's replay is made when a page asks for it.
const REPLAYS_KEPT: usize = 64;

/// The longest reply a replay's move list shows, in characters: a bot can send anything.
const REPLY_SHOWN: usize = 120;

/// Points of a team's Elo over the run, at most.
const ELO_POINTS: usize = 24;

/// A tournament folder, as the page sees it.
pub(crate) struct Folder {
    dir: PathBuf,
    cache: Mutex<Cache>,
}

#[derive(Default)]
struct Cache {
    /// The journal's length and time when `results` was made.
    stamp: Option<(u64, Option<SystemTime>)>,
    /// When `results` was made: made again at most every [`REMAKE_EVERY`].
    made: Option<Instant>,
    results: Option<Arc<Results>>,
    /// The journal as read so far: its games, and the end of its last whole line read.
    read: Option<Reading>,
    teams: HashMap<String, Arc<String>>,
    /// The standings at the points of the teams' Elo over the run, kept while the journal
    /// only grows.
    checkpoints: Checkpoints,
    /// The last state answered.
    state: Option<Answered>,
    replays: Vec<(u64, Arc<String>)>,
}

/// A state answered: the results and the live file's time it was made of, when, and
/// its text.
struct Answered(Arc<Results>, Option<SystemTime>, Instant, Arc<String>);

/// A state is answered again as it was for this long while neither the journal nor the
/// live file changed: a page moves its clocks on by itself.
const STATE_KEPT: std::time::Duration = std::time::Duration::from_millis(200);

/// A journal read up to `offset`: a run only appends to it, so each look reads the lines
/// added since, and a journal that was rewritten (shorter, or another header) is read
/// again whole.
struct Reading {
    loaded: Loaded,
    offset: u64,
    header: Vec<u8>,
    /// The file's inode: a journal rewritten is renamed into place, a new file.
    inode: u64,
    ids: std::collections::HashSet<u64>,
}

/// The results are made again at most this often however many pages ask: a hundred pages
/// polling a league whose games end every few milliseconds cost one remaking a while.
const REMAKE_EVERY: std::time::Duration = std::time::Duration::from_millis(400);

/// What the journal holds, made into what the page shows.
pub(crate) struct Results {
    /// The journal's games and plan, as read when these results were made.
    loaded: Arc<Loaded>,
    /// The standings, the SPRT and the counts, as JSON (the live part aside).
    summary: Value,
    /// Every finished game's row, newest first, as JSON text.
    pub(crate) games: Arc<String>,
}

impl Folder {
    pub(crate) fn new(dir: &Path) -> Folder {
        Folder {
            dir: dir.to_path_buf(),
            cache: Mutex::default(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The journal's results, read again when it changed.
    pub(crate) fn results(&self) -> Result<Arc<Results>, Error> {
        let journal = self.dir.join(JOURNAL_FILE);
        let stamp = std::fs::metadata(&journal)
            .map(|m| (m.len(), m.modified().ok()))
            .map_err(|source| Error::Unreadable {
                path: journal.clone(),
                source,
            })?;
        let mut cache = self.lock();
        if let Some(results) = &cache.results
            && (cache.stamp == Some(stamp)
                || cache.made.is_some_and(|made| made.elapsed() < REMAKE_EVERY))
        {
            return Ok(results.clone());
        }
        let before = cache.read.take();
        let inode = before.as_ref().map(|r| r.inode);
        let read = read_on(&journal, before)?;
        let results = Arc::new(results_of(&read.loaded, &journal)?);
        // The points of the Elo over the run stay while the journal only grew.
        let checkpoints = match inode == Some(read.inode) {
            true => std::mem::take(&mut cache.checkpoints),
            false => Checkpoints::new(),
        };
        *cache = Cache {
            stamp: Some(stamp),
            made: Some(Instant::now()),
            results: Some(results.clone()),
            read: Some(read),
            checkpoints,
            ..Cache::default()
        };
        Ok(results)
    }

    /// The page's state: the journal's results with the run's live state.
    pub(crate) fn state(&self) -> Result<String, Error> {
        if !self.dir.join(JOURNAL_FILE).exists() {
            // A run starting (its bots being checked, its journal not yet begun): nothing
            // to show but that it is coming.
            return Ok(json!({
                "game": "", "kind": "", "bots": [], "roles": [], "standings": [],
                "machine": "", "sprt": null, "running": true, "done": 0, "total": 0,
                "eta_s": null, "in_play": [], "kinds": [], "starting": true,
            })
            .to_string());
        }
        let results = self.results()?;
        let live_time = std::fs::metadata(self.dir.join(LIVE_FILE))
            .and_then(|m| m.modified())
            .ok();
        if let Some(Answered(of, time, made, text)) = &self.lock().state
            && Arc::ptr_eq(of, &results)
            && *time == live_time
            && made.elapsed() < STATE_KEPT
        {
            return Ok(text.as_str().to_string());
        }
        let mut state = results.summary.clone();
        let live = live_state(&self.dir);
        let done = results.loaded.games.len();
        let object = state.as_object_mut().expect("the summary is an object");
        // A run killed with its live file saying it runs holds the folder's lock no more.
        let running = live.as_ref().is_some_and(|l| l["running"] == true)
            && journal::held_by_a_run(&self.dir);
        object.insert("running".into(), json!(running));
        object.insert("done".into(), json!(done));
        object.insert(
            "total".into(),
            live.as_ref()
                .and_then(|l| l["total"].as_u64())
                .map_or(json!(done), |t| json!(t.max(done as u64))),
        );
        let (eta, games, kinds) = match (&live, running) {
            (Some(live), true) => (
                live["eta_s"].clone(),
                in_play_now(live),
                live["kinds"].clone(),
            ),
            (Some(live), false) => (Value::Null, json!([]), live["kinds"].clone()),
            (None, _) => (Value::Null, json!([]), json!([])),
        };
        object.insert("eta_s".into(), eta);
        object.insert("in_play".into(), games);
        object.insert("kinds".into(), kinds);
        let text = state.to_string();
        self.lock().state = Some(Answered(
            results,
            live_time,
            Instant::now(),
            Arc::new(text.clone()),
        ));
        Ok(text)
    }

    /// Every finished game's row, newest first; none before the run's journal begins.
    pub(crate) fn games(&self) -> Result<Arc<String>, Error> {
        if !self.dir.join(JOURNAL_FILE).exists() {
            return Ok(Arc::new("[]".into()));
        }
        Ok(self.results()?.games.clone())
    }

    /// Team `name`'s page: its standing, its games, its failures in its feedback's words
    /// and its Elo over the run; `None` for a name that is no bot of the tournament.
    pub(crate) fn team(&self, name: &str) -> Result<Option<Arc<String>>, Error> {
        let results = self.results()?;
        if !results.loaded.plan.bots.iter().any(|b| b.name == name) {
            return Ok(None);
        }
        if let Some(kept) = self.lock().teams.get(name) {
            return Ok(Some(kept.clone()));
        }
        let mut cache = self.lock();
        let text = Arc::new(team_of(&results.loaded, name, &mut cache.checkpoints).to_string());
        cache.teams.insert(name.to_string(), text.clone());
        Ok(Some(text))
    }

    /// Game `id`'s replay: every position drawn and every ply; `None` for no such game.
    pub(crate) fn replay(&self, id: u64) -> Result<Option<Arc<String>>, Error> {
        if let Some((_, kept)) = self.lock().replays.iter().find(|(i, _)| *i == id) {
            return Ok(Some(kept.clone()));
        }
        let results = self.results()?;
        if !results.loaded.games.iter().any(|g| g.id == id) {
            return Ok(None);
        }
        let journal = self.dir.join(JOURNAL_FILE);
        let mut record = None;
        journal::for_each_record(&journal, |got, whole| {
            if got == id && record.is_none() {
                record = Some(whole);
            }
            Ok(())
        })?;
        let Some(record) = record else {
            return Ok(None);
        };
        let plan = &results.loaded.plan;
        let settings = GameSettings::from_rules(&plan.game, &plan.rules)?;
        let text = with_game!(settings, plan.seed, |game| replay_json(&game, id, &record));
        let text = Arc::new(text.to_string());
        let mut cache = self.lock();
        if cache.replays.len() >= REPLAYS_KEPT {
            cache.replays.remove(0);
        }
        cache.replays.push((id, text.clone()));
        Ok(Some(text))
    }
}

/// The live file of `dir`, when there is one and it reads.
fn live_state(dir: &Path) -> Option<Value> {
    let text = std::fs::read(dir.join(LIVE_FILE)).ok()?;
    let value: Value = serde_json::from_slice(&text).ok()?;
    (value["live"] == crate::tournament::live::LIVE_FORMAT).then_some(value)
}

/// The live file's games in play, their clocks moved on to now.
fn in_play_now(live: &Value) -> Value {
    let now = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64);
    let since = now.saturating_sub(live["updated_ms"].as_u64().unwrap_or(now)) as f64 / 1000.0;
    let mut games = live["games"].clone();
    if let Some(list) = games.as_array_mut() {
        for game in list {
            for clock in ["game_s", "move_s"] {
                if let Some(s) = game[clock].as_f64() {
                    game[clock] = json!(s + since);
                }
            }
        }
    }
    games
}

/// A game's row of the page's list.
fn game_row(g: &GameSummary) -> Value {
    json!({
        "id": g.id,
        "bots": [g.players[0].as_str(), g.players[1].as_str()],
        "roles": [g.roles[0].as_str(), g.roles[1].as_str()],
        "winner": g.winner,
        "reason": g.reason.as_str(),
        "rounds": g.rounds,
    })
}

/// A standings row as the report has it.
fn standing_row(s: &crate::stats::league::Standing) -> Value {
    json!({
        "rank": s.rank,
        "bot": s.bot,
        "games": s.games,
        "wins": s.wins,
        "losses": s.losses,
        "ties": s.ties,
        "points": s.points,
        "rate": s.rate,
        "mark": s.mark,
        "elo": finite(s.elo),
        "elo_low": finite(s.elo_low),
        "elo_high": finite(s.elo_high),
        "illegal": s.illegal_moves,
        "timeouts": s.timeouts,
        "errors": s.errors,
    })
}

fn bot_names(plan: &journal::Plan) -> Vec<String> {
    plan.bots.iter().map(|b| b.name.clone()).collect()
}

fn scoring(plan: &journal::Plan) -> crate::stats::league::Scoring {
    crate::stats::league::Scoring {
        win: plan.points_win,
        tie: plan.points_tie,
    }
}

/// A number JSON can hold: an unbounded end of an interval is null.
fn finite(x: f64) -> Value {
    if x.is_finite() { json!(x) } else { Value::Null }
}

fn model<'a>(loaded: &'a Loaded, journal: &Path) -> Result<Report<'a>, Error> {
    crate::report::model_of(loaded, &loaded.plan.non_scoring(), None, journal)
}

/// `journal` read on from `before`: only the lines added since, or whole when it was
/// rewritten (a league updated or started afresh, a torn line repaired) or never read.
/// Lines are decoded one by one on this thread: a few new lines a look.
fn read_on(journal: &Path, before: Option<Reading>) -> Result<Reading, Error> {
    use std::io::{Read, Seek, SeekFrom};
    let io = |source| Error::Io {
        path: journal.to_path_buf(),
        source,
    };
    let mut file = std::fs::File::open(journal).map_err(io)?;
    let mut header = Vec::new();
    std::io::BufRead::read_until(&mut std::io::BufReader::new(&file), b'\n', &mut header)
        .map_err(io)?;
    let meta = file.metadata().map_err(io)?;
    let (len, inode) = (meta.len(), std::os::unix::fs::MetadataExt::ino(&meta));
    let Some(mut reading) =
        before.filter(|r| r.header == header && r.offset <= len && r.inode == inode)
    else {
        // Where the whole lines end, taken before the journal is loaded: a line appended
        // meanwhile is in what is loaded and read again the next time, once by its id,
        // where taken after it would be skipped for good.
        let bytes = std::fs::read(journal).map_err(io)?;
        let offset = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1) as u64;
        drop(bytes);
        let loaded = journal::load(journal)?;
        let ids = loaded.games.iter().map(|g| g.id).collect();
        return Ok(Reading {
            loaded,
            offset,
            header,
            inode,
            ids,
        });
    };
    file.seek(SeekFrom::Start(reading.offset)).map_err(io)?;
    let mut added = Vec::new();
    file.read_to_end(&mut added).map_err(io)?;
    let whole = added.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    for line in added[..whole]
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
    {
        let (id, record) =
            journal::decode_game(reading.loaded.version, line).map_err(|message| Error::Input {
                path: journal.to_path_buf(),
                line: 0,
                message,
            })?;
        if reading.ids.insert(id) {
            reading.loaded.games.push(GameSummary::of(id, &record));
        }
    }
    reading.offset += whole as u64;
    Ok(reading)
}

/// The journal's results as the page shows them.
fn results_of(read: &Loaded, journal: &Path) -> Result<Results, Error> {
    let loaded = Arc::new(Loaded {
        plan: read.plan.clone(),
        shard: read.shard,
        version: read.version,
        games: read.games.clone(),
        repair: None,
    });
    let plan = &loaded.plan;
    // A league's or a gauntlet's standings from its games' tally alone (the report's
    // other tables are not shown); an SPRT's from the report's model, which counts the
    // pairs its test counted.
    let report = match plan.sprt {
        Some(_) => Some(model(&loaded, journal)?),
        None => None,
    };
    let (rows, machine) = match &report {
        Some(report) => (report.table.rows.clone(), report.machine.line()),
        None => {
            let tally = crate::tournament::tally::Tally::of(&loaded.games);
            let mut table = crate::stats::league::table_of(
                &bot_names(plan),
                &tally.counts,
                scoring(plan),
                None,
            );
            crate::stats::league::set_marks(&mut table.rows, &plan.non_scoring());
            (table.rows, tally.machine.line())
        }
    };
    let standings: Vec<Value> = rows.iter().map(standing_row).collect();
    let sprt = report.as_ref().and_then(|r| r.sprt.as_ref()).map(|s| {
        let last = s.last();
        json!({
            "candidate": s.candidate,
            "baseline": s.baseline,
            "lower": last.map(|l| l.lower),
            "upper": last.map(|l| l.upper),
            "llr": s.history.iter().map(|h| [h.pairs as f64, h.llr]).collect::<Vec<_>>(),
            "verdict": last.map(|l| format!("{:?}", l.verdict)),
            "elo0": last.map(|l| l.elo0),
            "elo1": last.map(|l| l.elo1),
            "elo": last.map(|l| finite(l.elo.estimate)),
            "elo_low": last.map(|l| finite(l.elo.low)),
            "elo_high": last.map(|l| finite(l.elo.high)),
        })
    });
    let summary = json!({
        "game": plan.game,
        "kind": if plan.sprt.is_some() { "sprt" } else { plan.format.as_str() },
        "bots": plan.bots.iter().map(|b| b.name.as_str()).collect::<Vec<_>>(),
        "roles": plan.roles,
        "standings": standings,
        "machine": machine,
        "sprt": sprt,
    });
    let rows: Vec<Value> = loaded.games.iter().rev().map(game_row).collect();
    drop(report);
    Ok(Results {
        summary,
        games: Arc::new(Value::Array(rows).to_string()),
        loaded,
    })
}

/// Team `name`'s page, as JSON.
fn team_of(loaded: &Loaded, name: &str, kept: &mut Checkpoints) -> Value {
    let games: Vec<&GameSummary> = loaded
        .games
        .iter()
        .filter(|g| g.players.iter().any(|p| p.as_str() == name))
        .collect();
    let owned: Vec<GameSummary> = games.iter().map(|g| (*g).clone()).collect();
    let failures: Vec<Value> = crate::report::failure_lines(name, &owned)
        .into_iter()
        .map(|(game, role, opponent, words)| {
            json!({"game": game, "role": role, "opponent": opponent, "words": words})
        })
        .collect();
    json!({
        "team": name,
        "games": games.iter().rev().map(|g| game_row(g)).collect::<Vec<_>>(),
        "failures": failures,
        "elo": elo_over_the_run(loaded, name, kept),
    })
}

/// The standings after the first `upto` games of the journal, for the teams' Elo over
/// the run: each made once (a prefix of a journal that only grows stays what it was).
pub(crate) type Checkpoints =
    std::collections::BTreeMap<usize, Vec<crate::stats::league::Standing>>;

/// The journal's lengths the Elo over the run is drawn at: multiples of a power of two
/// that leaves at most [`ELO_POINTS`] of them, and the journal's length itself. A journal
/// that grows keeps its earlier points (the step only doubles), so each is fitted once.
fn checkpoints_of(n: usize) -> Vec<usize> {
    let mut step = 1;
    while n / step > ELO_POINTS {
        step *= 2;
    }
    let mut at: Vec<usize> = (1..=n / step).map(|k| k * step).collect();
    if at.last() != Some(&n) && n > 0 {
        at.push(n);
    }
    at
}

/// Team `name`'s Elo (with its interval) at each of [`checkpoints_of`] the journal's games:
/// `[games, elo, low, high]`; the standings at each point are kept in `kept`.
fn elo_over_the_run(loaded: &Loaded, name: &str, kept: &mut Checkpoints) -> Vec<Value> {
    let plan = &loaded.plan;
    let n = loaded.games.len();
    let mut points = Vec::new();
    for upto in checkpoints_of(n) {
        let rows = kept.entry(upto).or_insert_with(|| {
            let tally = crate::tournament::tally::Tally::of(&loaded.games[..upto]);
            crate::stats::league::table_of(&bot_names(plan), &tally.counts, scoring(plan), None)
                .rows
        });
        if let Some(row) = rows.iter().find(|r| r.bot == name)
            && row.games > 0
        {
            points.push(json!([
                upto,
                finite(row.elo),
                finite(row.elo_low),
                finite(row.elo_high)
            ]));
        }
    }
    // Points of a smaller step, or a length the journal has grown past, are drawn no more.
    let wanted = checkpoints_of(n);
    kept.retain(|upto, _| wanted.contains(upto));
    points
}

/// A game's replay as the page steps through it: the kinds of cells, each position drawn
/// (`views[0]` the start), each ply's side, reply and verdict.
fn replay_json<G: crate::games::Game>(
    game: &G,
    id: u64,
    record: &crate::record::GameRecord,
) -> Value {
    let names = |side: &str| record.players.get(side).cloned().unwrap_or_default();
    let roles = game.roles();
    let head = json!({
        "id": id,
        "bots": [names(roles[0]), names(roles[1])],
        "roles": roles,
        "winner": record.winner,
        "reason": record.reason,
        "kinds": game.view_kinds(),
    });
    let mut out = head;
    match crate::replay::replay(game, record) {
        Ok(replay) => {
            let plies: Vec<Value> = replay
                .plies
                .iter()
                .map(|ply| {
                    let mut reply = ply.reply.to_string();
                    if reply.chars().count() > REPLY_SHOWN {
                        reply = reply.chars().take(REPLY_SHOWN).collect::<String>() + "...";
                    }
                    json!({"side": ply.side, "reply": reply, "verdict": ply.verdict})
                })
                .collect();
            let views: Vec<Value> = replay
                .views
                .iter()
                .map(|view| {
                    json!({
                        "rows": view.rows,
                        "cols": view.cols,
                        "cells": view.cells.iter().map(|c| [c.kind, c.label.as_ref()]).collect::<Vec<_>>(),
                        "caption": view.caption,
                    })
                })
                .collect();
            out["plies"] = Value::Array(plies);
            out["views"] = Value::Array(views);
        }
        Err(e) => {
            out["plies"] = json!([]);
            out["views"] = json!([]);
            out["error"] = json!(e.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_elo_over_the_run_keeps_its_points_as_the_journal_grows() {
        assert_eq!(checkpoints_of(0), Vec::<usize>::new());
        assert_eq!(checkpoints_of(3), vec![1, 2, 3]);
        let at_30 = checkpoints_of(30);
        assert_eq!(at_30.len(), 15, "{at_30:?}");
        assert_eq!(at_30[..3], [2, 4, 6]);
        assert_eq!(at_30.last(), Some(&30));
        // Grown to 870 games: at most 24 points and the last, each a multiple of the step,
        // so the points of a smaller journal at that step are kept.
        let at_870 = checkpoints_of(870);
        assert!(at_870.len() <= ELO_POINTS + 1, "{at_870:?}");
        assert_eq!(at_870[0], 64);
        assert!(at_870.iter().all(|p| p % 64 == 0 || *p == 870));
        assert!(checkpoints_of(900).starts_with(&at_870[..at_870.len() - 1]));
    }
}
