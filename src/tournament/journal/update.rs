//! A league that grows with its class (`league --update`): the journal of a round robin is
//! rewritten for the bots of today, keeping every game whose two bots are unchanged (the
//! same name and the same plan entry: digest, interpreter, limits, confinement), and moving
//! every other game into `history.jsonl`, beside the journal: a changed bot's earlier
//! version, a retired bot. A game of the history whose two bots are back as they were is
//! taken back. Under seeds by pairing a pairing's games are the same games in any league
//! that holds both bots, so the journal left is the one a league started afresh with
//! today's bots would have written for those games, and the run then plays the rest.
//!
//! Crash-safe in this order: the history is written whole (beside, synced, renamed) before
//! the journal is; a crash between the two leaves games in both, which the next update
//! finds already in the history.

use super::format::*;
use super::reader::read_summaries_and_lines;
use crate::error::Error;
use crate::record::GameSummary;
use crate::tournament::schedule::Fixture;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::Write;
use std::path::Path;

/// The games of a league's earlier bots, beside its journal.
pub const HISTORY_FILE: &str = "history.jsonl";
/// How the bots of two plans differ, by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BotChanges {
    /// In the new plan only.
    pub added: Vec<String>,
    /// In both, as another program or with other settings (its files' digest, most often).
    pub changed: Vec<String>,
    /// In the old plan only.
    pub missing: Vec<String>,
}

impl BotChanges {
    /// The bots of `new` against those of `old`.
    pub fn between(old: &Plan, new: &Plan) -> BotChanges {
        let mut changes = BotChanges::default();
        for bot in &new.bots {
            match old.bots.iter().find(|b| b.name == bot.name) {
                None => changes.added.push(bot.name.clone()),
                Some(was) if identity(was) != identity(bot) => {
                    changes.changed.push(bot.name.clone())
                }
                Some(_) => {}
            }
        }
        changes.missing = old
            .bots
            .iter()
            .filter(|b| !new.bots.iter().any(|n| n.name == b.name))
            .map(|b| b.name.clone())
            .collect();
        changes
    }

    /// Whether no bot was added, changed or left out.
    pub fn is_empty(&self) -> bool {
        self.added.is_empty() && self.changed.is_empty() && self.missing.is_empty()
    }

    /// `added Team05; changed Team02; missing Team03`, each part only where it has a bot.
    pub fn said(&self) -> String {
        [
            ("added", &self.added),
            ("changed", &self.changed),
            ("missing", &self.missing),
        ]
        .iter()
        .filter(|(_, names)| !names.is_empty())
        .map(|(what, names)| format!("{what} {}", names.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
    }
}

/// A plan entry's settings: all but what tells which program it is (its files' digest,
/// or a built-in's spec) and where it lies (its spec, folder and file), which a bot
/// changed by its team, or found in the class's next download, changes.
fn settings(bot: &PlanBot) -> PlanBot {
    PlanBot {
        spec: String::new(),
        dir: None,
        file: None,
        digest: None,
        ..bot.clone()
    }
}

/// Which program a plan entry is: its files' digest, or a built-in's spec.
fn identity(bot: &PlanBot) -> &str {
    bot.digest.as_deref().unwrap_or(&bot.spec)
}

/// Whether two plan entries are the same bot: the same settings and the same program (a
/// class's next download holds an unchanged team's files under another folder's name).
pub(super) fn same_bot(a: &PlanBot, b: &PlanBot) -> bool {
    settings(a) == settings(b) && identity(a) == identity(b)
}

/// `old` and `new` with their bots of the same name only, each of `new`'s with the program
/// and place of `old`'s: what differs between them is a bot's settings (its interpreter,
/// limits, confinement, whether it scores), which change its games.
pub(super) fn bot_settings_views(old: &Plan, new: &Plan) -> (Plan, Plan) {
    let common: Vec<(&PlanBot, &PlanBot)> = new
        .bots
        .iter()
        .filter_map(|n| old.bots.iter().find(|o| o.name == n.name).map(|o| (o, n)))
        .collect();
    let was = common.iter().map(|(o, _)| (*o).clone()).collect();
    let is = common
        .iter()
        .map(|(o, n)| PlanBot {
            spec: o.spec.clone(),
            dir: o.dir.clone(),
            file: o.file.clone(),
            digest: o.digest.clone(),
            ..(*n).clone()
        })
        .collect();
    (
        Plan {
            bots: was,
            ..games_settings(old, new)
        },
        Plan {
            bots: is,
            ..new.clone()
        },
    )
}

/// Whether `new` lists other bots than `old`, or the same in another order or under other
/// paths: its journal is to be rewritten.
pub(super) fn bots_differ(old: &Plan, new: &Plan) -> bool {
    let listed = |plan: &Plan| {
        plan.bots
            .iter()
            .map(|b| PlanBot {
                file: None,
                ..b.clone()
            })
            .collect::<Vec<_>>()
    };
    listed(old) != listed(new)
}

/// `old` with what `--update` may change taken from `new`: the bots (and the entries left
/// out or merged, which follow them), and the pairs when raised. What differs then is a
/// setting of the games themselves.
pub(super) fn games_settings(old: &Plan, new: &Plan) -> Plan {
    Plan {
        bots: new.bots.clone(),
        left_out: new.left_out.clone(),
        merged: new.merged.clone(),
        pairs: old.pairs.max(new.pairs),
        ..old.clone()
    }
}

/// What an update did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Updated {
    /// The bots added, changed and retired.
    pub changes: BotChanges,
    /// Games kept, their two bots unchanged.
    pub kept: usize,
    /// Games taken back from the history: a bot brought back as it was.
    pub restored: usize,
    /// Games moved into the history: a changed bot's earlier version's, a retired bot's.
    pub retired: usize,
    /// Bots whose games came back from the history.
    pub returned: Vec<String>,
}

/// A game of the history: the plan entries of its two bots as they were, and the game.
pub type HistoryGame = ([PlanBot; 2], GameSummary);

/// One line of the history: a game no longer counted, with the plan entries of its two
/// bots (in move order) as they were when it was played.
#[derive(Serialize, Deserialize)]
struct HistoryLine {
    bots: [PlanBot; 2],
    /// The journal format of `game`.
    journal: u32,
    /// The game's journal line (its id is the one it had then).
    game: String,
}

/// Refuses an update of the journal at `path` written under `old` for `plan`, before
/// anything is written: a journal whose seeds do not come by pairing, or a plan whose
/// games themselves would change.
pub(super) fn check(path: &Path, old: &Plan, plan: &Plan) -> Result<(), Error> {
    if old.format != "round_robin" || plan.format != "round_robin" {
        return Err(Error::usage(format!(
            "--update: {} holds a {}, and only a league (a round robin) grows",
            path.display(),
            old.format
        )));
    }
    if old.seeds.as_deref() != Some(crate::tournament::schedule::BY_PAIRING) {
        return Err(Error::usage(format!(
            "--update: {} was written before leagues could grow: its games' seeds come from \
             their places in its schedule, which another set of bots changes, so none of \
             them could be kept as a game of today's league. Start afresh once (another \
             output folder, or --force-new: the old journal is kept as {})",
            path.display(),
            super::REPLACED_FILE
        )));
    }
    if plan.pairs < old.pairs {
        return Err(Error::usage(format!(
            "--update: {} was played with --pairs {}: pairs can be raised to play on, \
             keeping every game, but not lowered",
            path.display(),
            old.pairs
        )));
    }
    // A bot's own settings first (its interpreter, limits, confinement), then the league's.
    let (was, is) = bot_settings_views(old, plan);
    for (was, is) in [(&was, &is), (&games_settings(old, plan), plan)] {
        if was != is {
            return Err(Error::usage(format!(
                "--update: {} was written with other settings of the games themselves: {}. \
                 `--update` plays the games of new and changed bots under the league's own \
                 settings; rerun with them, or start afresh with another output folder or \
                 --force-new (the old journal is kept as {})",
                path.display(),
                plan_difference(was, is),
                super::REPLACED_FILE
            )));
        }
    }
    Ok(())
}

/// What an update does once the history holds the games it moved and before the journal
/// is rewritten, handed the journal's games as they were and the bots' changes: where
/// what follows from them is kept (the versions of each team).
pub type BeforeJournal<'a> =
    dyn FnMut(&Plan, &[GameSummary], &BotChanges) -> Result<(), Error> + 'a;

/// The key of a game in a schedule: its bots in move order, its seed and its start.
type GameKey = (String, String, u64, u64);

fn key_of(summary: &GameSummary) -> GameKey {
    (
        summary.players[0].to_string(),
        summary.players[1].to_string(),
        summary.seed,
        summary.pair,
    )
}

/// The journal line `text` (of format `version`, without its newline) as game `id`'s,
/// its newline included: what `line()` makes of its record. A line this arbiter wrote
/// reads back as the record it was written from, so `line()` of it is the line itself
/// but its id: only the id is written anew; any other line is decoded and written anew.
fn relined(version: u32, text: &[u8], id: u64) -> Result<String, String> {
    if let Some(rest) = super::known::after_id(text)
        && let Ok(rest) = std::str::from_utf8(rest)
    {
        return Ok(format!("{{\"game\":{id}{rest}\n"));
    }
    decode_game(version, text).map(|(_, record)| line(version, id, &record))
}

/// Rewrites the journal at `path` (format `version`, written under `old`, of `shard`) for `plan`, in
/// the folder `dir` whose lock the caller holds: see the module's documentation. `check`
/// has passed.
pub(super) fn rewrite(
    dir: &Path,
    path: &Path,
    (version, old, shard): (u32, &Plan, Option<crate::tournament::shard::Shard>),
    plan: &Plan,
    schedule: &[Fixture],
    before_journal: &mut BeforeJournal<'_>,
) -> Result<Updated, Error> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io {
            path: path.clone(),
            source,
        }
    };
    let ids: HashMap<GameKey, u64> = schedule
        .iter()
        .map(|f| {
            (
                (
                    plan.bots[f.first].name.clone(),
                    plan.bots[f.second].name.clone(),
                    f.seed,
                    f.start,
                ),
                f.id,
            )
        })
        .collect();
    let now = |name: &str| plan.bots.iter().find(|b| b.name == name);
    let was = |name: &str| old.bots.iter().find(|b| b.name == name);
    let current = |bots: [&PlanBot; 2]| {
        bots.iter()
            .all(|b| now(&b.name).is_some_and(|n| same_bot(b, n)))
    };
    // The journal's games: kept under their id of today's schedule, or into the history.
    let mut kept: BTreeMap<u64, String> = BTreeMap::new();
    // Each with its record, decoded once.
    let mut moved: Vec<(HistoryLine, GameSummary)> = Vec::new();
    let mut summaries: Vec<GameSummary> = Vec::new();
    // A line the cache knew and that does not decode (which no line this arbiter wrote
    // does): the journal as a whole is at fault, its line unknown.
    let bad = |summary: &GameSummary| {
        let id = summary.id;
        move |e: String| Error::Input {
            path: path.to_path_buf(),
            line: 0,
            message: format!("game {id}: not a game record: {e}"),
        }
    };
    // Summaries only, from the folder's cache where it knows them: a kept game's line is
    // kept as it is (but its id), and only a moved game's is decoded.
    read_summaries_and_lines(path, &mut |summary, text| {
        let id = summary.id;
        let (Some(a), Some(b)) = (was(&summary.players[0]), was(&summary.players[1])) else {
            return Err(Error::usage(format!(
                "{}: game {id} ({} vs {}) is of no bot of the journal's own plan; use another \
                 output folder",
                path.display(),
                summary.players[0],
                summary.players[1]
            )));
        };
        match ids.get(&key_of(&summary)) {
            Some(&new_id) if current([a, b]) => {
                kept.insert(
                    new_id,
                    relined(version, &text, new_id).map_err(bad(&summary))?,
                );
            }
            _ => {
                // Its line as it is, as `encode_game` would write it again.
                let mut game = relined(version, &text, id).map_err(bad(&summary))?;
                game.pop();
                moved.push((
                    HistoryLine {
                        bots: [a.clone(), b.clone()],
                        journal: version,
                        game,
                    },
                    summary.clone(),
                ))
            }
        }
        summaries.push(summary);
        Ok(())
    })?;
    let kept_count = kept.len();
    // The history: games of bots back as they were are taken back, the rest stay, and the
    // games moved now are added (once: a crash may have added them before).
    let history_path = dir.join(HISTORY_FILE);
    let mut history: Vec<HistoryLine> = read_history(&history_path)?;
    let mut restored = 0;
    let mut returned: Vec<String> = Vec::new();
    let mut seen: HashSet<(String, String, String)> = HashSet::new();
    let mut stays = Vec::with_capacity(history.len() + moved.len());
    let mut retired = 0;
    let earlier = history.drain(..).map(|entry| {
        let decoded = decode_game(entry.journal, entry.game.as_bytes()).ok();
        let summary = decoded.map(|(_, record)| GameSummary::of(0, &record));
        (false, entry, summary)
    });
    let now = moved
        .drain(..)
        .map(|(entry, summary)| (true, entry, Some(summary)));
    for (now_moved, entry, summary) in earlier.chain(now) {
        let Some(summary) = summary else {
            stays.push(entry);
            continue;
        };
        let digest = |b: &PlanBot| b.digest.clone().unwrap_or_default();
        let identity = (
            format!("{}\0{}", entry.bots[0].name, digest(&entry.bots[0])),
            format!("{}\0{}", entry.bots[1].name, digest(&entry.bots[1])),
            format!("{}\0{}", summary.seed, summary.pair),
        );
        if !seen.insert(identity) {
            continue;
        }
        match ids.get(&key_of(&summary)) {
            Some(&new_id)
                if current([&entry.bots[0], &entry.bots[1]]) && !kept.contains_key(&new_id) =>
            {
                // Decoded again: a game taken back is rare, and its line may be of another
                // format than the journal's.
                let (_, record) =
                    decode_game(entry.journal, entry.game.as_bytes()).map_err(|e| {
                        Error::Input {
                            path: history_path.clone(),
                            line: 0,
                            message: format!("not a game record: {e}"),
                        }
                    })?;
                kept.insert(new_id, line(version, new_id, &record));
                restored += 1;
                for bot in &entry.bots {
                    let back = was(&bot.name).is_none_or(|w| !same_bot(w, bot));
                    if back && !returned.contains(&bot.name) {
                        returned.push(bot.name.clone());
                    }
                }
            }
            _ => {
                retired += usize::from(now_moved);
                stays.push(entry);
            }
        }
    }
    let changes = BotChanges::between(old, plan);
    // The history first, then the journal: a crash between them loses no game.
    let mut text = Vec::new();
    for entry in &stays {
        serde_json::to_writer(&mut text, entry).expect("a history line always serializes");
        text.push(b'\n');
    }
    write_whole(&history_path, &text).map_err(io(&history_path))?;
    before_journal(old, &summaries, &changes)?;
    let header = Header {
        arbiter_journal: version,
        plan: plan.clone(),
        shard,
    };
    let mut text = serde_json::to_vec(&header).expect("a plan always serializes");
    text.push(b'\n');
    for line in kept.values() {
        text.extend_from_slice(line.as_bytes());
    }
    write_whole(path, &text).map_err(io(path))?;
    Ok(Updated {
        changes,
        kept: kept_count,
        restored,
        retired,
        returned,
    })
}

/// The lines of the history at `path`; none where there is no history yet.
fn read_history(path: &Path) -> Result<Vec<HistoryLine>, Error> {
    json_lines(
        path,
        "a line of a league's history: a game with its two bots, as `league --update` writes",
    )
}

/// The lines of a file of JSON lines that `league --update` keeps beside the journal,
/// each one `what` (a line that is not is an error naming its number); none where there is
/// no file yet.
pub(crate) fn json_lines<T: serde::de::DeserializeOwned>(
    path: &Path,
    what: &str,
) -> Result<Vec<T>, Error> {
    let text = match std::fs::read(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(Error::Io {
                path: path.to_path_buf(),
                source,
            });
        }
    };
    text.split(|&b| b == b'\n')
        .enumerate()
        .filter(|(_, line)| !line.is_empty())
        .map(|(i, line)| {
            serde_json::from_slice(line).map_err(|e| Error::Input {
                path: path.to_path_buf(),
                line: i + 1,
                message: format!("{e}: expected {what}"),
            })
        })
        .collect()
}

/// Writes `bytes` to `path` whole or not at all: beside it, synced, renamed over it.
fn write_whole(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let tmp = path.with_extension("update.tmp");
    let mut file = std::fs::File::create(&tmp)?;
    file.write_all(bytes)?;
    file.sync_all()?;
    std::fs::rename(&tmp, path)?;
    if let Some(dir) = path.parent() {
        std::fs::File::open(dir)?.sync_all()?;
    }
    Ok(())
}

/// The games of the history of the league in `dir`, each with its two bots' plan entries
/// as they were: for the versions of each team.
pub fn history_of(dir: &Path) -> Result<Vec<HistoryGame>, Error> {
    let path = dir.join(HISTORY_FILE);
    read_history(&path)?
        .into_iter()
        .enumerate()
        .map(|(i, entry)| {
            let (id, record) =
                decode_game(entry.journal, entry.game.as_bytes()).map_err(|e| Error::Input {
                    path: path.clone(),
                    line: i + 1,
                    message: format!("not a game record: {e}"),
                })?;
            Ok((entry.bots, GameSummary::of(id, &record)))
        })
        .collect()
}
