//! `arbiter merge`: the folders of a sharded tournament's shards made into one folder, as
//! if one run had played every game.
//!
//! Everything is checked before anything is written: the shards' plans are identical, the
//! shards are distinct shards of one count, each folder's games are games of the schedule
//! and of its own shard, no game is in two folders, and (unless a partial merge is asked
//! for) no shard and no game is missing. The merged journal holds every game under its
//! scheduled id, in id order, and is an ordinary tournament journal: the tables are
//! written from it as a run writes them, and a run resumed on the merged folder plays only
//! what the shards did not.

use super::journal::{self, Journal, Plan};
use super::shard::{self, Shard};
use crate::error::Error;
use crate::record::GameSummary;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// Journal text held at once while the merged journal is written in id order: a league of
/// any size is merged in windows of about this many bytes of its lines, one pass over the
/// shards per window. Lines are held as the merged journal writes them (a few KB a game in
/// format 4), not as decoded records, which take a hundred times more.
const WINDOW_BYTES: usize = 64 << 20;

/// What a merge wrote, and what it lacked.
pub struct Merged {
    /// The plan every shard shares, now the merged journal's.
    pub plan: Plan,
    /// Games in the merged journal.
    pub games: usize,
    /// Games in the whole schedule.
    pub total: usize,
    /// The number of shards the tournament was split into (N of `--shard K/N`).
    pub count: u32,
    /// Shards (from 1) no folder was given for.
    pub missing_shards: Vec<u32>,
    /// Games of the given shards that their folders do not hold.
    pub missing_games: Vec<u64>,
}

impl Merged {
    /// What a partial merge lacks, in one line per kind; empty when it is whole.
    pub fn missing(&self) -> Vec<String> {
        missing_lines(&self.missing_shards, self.count, &self.missing_games)
    }
}

fn missing_lines(shards: &[u32], count: u32, games: &[u64]) -> Vec<String> {
    let mut lines = Vec::new();
    if !shards.is_empty() {
        let list: Vec<String> = shards.iter().map(|k| format!("{k}/{count}")).collect();
        lines.push(format!(
            "missing shard{}: {} (no folder given for {})",
            if shards.len() == 1 { "" } else { "s" },
            list.join(", "),
            if shards.len() == 1 { "it" } else { "them" }
        ));
    }
    if !games.is_empty() {
        lines.push(format!(
            "missing {} game{} of the shards given (unfinished shards): {}",
            games.len(),
            if games.len() == 1 { "" } else { "s" },
            shard::id_ranges(games)
        ));
    }
    lines
}

/// One shard folder as read.
struct ShardFolder {
    dir: PathBuf,
    journal: PathBuf,
    plan: Plan,
    shard: Shard,
    games: Vec<GameSummary>,
}

/// Merges the shard folders `dirs` into `out`, which must not hold a journal. With
/// `partial`, missing shards and games are allowed (and listed in the result); without,
/// they are an error, as is every inconsistency, and nothing is written.
pub fn merge(dirs: &[PathBuf], out: &Path, partial: bool) -> Result<Merged, Error> {
    if dirs.is_empty() {
        return Err(Error::usage("merge: give the shards' folders"));
    }
    let out_journal = out.join(journal::JOURNAL_FILE);
    if out_journal.metadata().is_ok_and(|m| m.len() > 0) {
        return Err(Error::usage(format!(
            "{} already holds a journal: a merge never writes over one; merge into a new \
             folder, or remove that folder first",
            out.display()
        )));
    }
    let folders = dirs
        .iter()
        .map(|dir| read_shard(dir))
        .collect::<Result<Vec<_>, Error>>()?;
    let first = &folders[0];
    let plan = first.plan.clone();
    let count = first.shard.count;
    let mut problems = Vec::new();
    let mut by_index: BTreeMap<u32, &ShardFolder> = BTreeMap::new();
    for folder in &folders {
        if folder.plan != plan {
            problems.push(format!(
                "{} was run with other settings than {}: {}",
                folder.dir.display(),
                first.dir.display(),
                journal::plan_difference_between(
                    &plan,
                    &folder.plan,
                    &format!("in {}", first.dir.display()),
                    &format!("in {}", folder.dir.display()),
                )
            ));
        }
        if folder.shard.count != count {
            problems.push(format!(
                "{} is shard {} and {} is shard {}: the shards of one tournament are cut \
                 into one number of shards",
                first.dir.display(),
                first.shard,
                folder.dir.display(),
                folder.shard
            ));
        } else if let Some(other) = by_index.insert(folder.shard.index, folder) {
            problems.push(format!(
                "{} and {} are both shard {}: give each shard once",
                other.dir.display(),
                folder.dir.display(),
                folder.shard
            ));
        }
    }
    if !problems.is_empty() {
        return Err(refusal(problems));
    }
    let schedule = super::schedule_of(&plan).map_err(|e| Error::Input {
        path: first.journal.clone(),
        line: 1,
        message: e,
    })?;
    let seeds = super::schedule::Seeds::of(plan.seeds.as_deref()).map_err(|e| Error::Input {
        path: first.journal.clone(),
        line: 1,
        message: e,
    })?;
    let shard_of_game = shard::shards_of(&schedule, count, seeds);

    // Where each game is, checked against the schedule and the folder's shard.
    let mut holder: HashMap<u64, usize> = HashMap::new();
    let mut duplicates: BTreeMap<(usize, usize), Vec<u64>> = BTreeMap::new();
    let mut strangers = Vec::new();
    for (f, folder) in folders.iter().enumerate() {
        for game in &folder.games {
            let scheduled = schedule.get(game.id as usize).map(|fixture| {
                [
                    plan.bots[fixture.first].name.as_str(),
                    plan.bots[fixture.second].name.as_str(),
                ]
            });
            if scheduled != Some([game.players[0].as_str(), game.players[1].as_str()]) {
                strangers.push(format!(
                    "{}: game {} ({} vs {}) is not in the plan's schedule",
                    folder.journal.display(),
                    game.id,
                    game.players[0],
                    game.players[1]
                ));
                continue;
            }
            if let Some(&other) = holder.get(&game.id) {
                duplicates.entry((other, f)).or_default().push(game.id);
                continue;
            }
            holder.insert(game.id, f);
            let belongs = shard_of_game[game.id as usize];
            if belongs != folder.shard.index {
                strangers.push(format!(
                    "{}: game {} belongs to shard {belongs}/{count}, not to this folder's \
                     shard {}",
                    folder.journal.display(),
                    game.id,
                    folder.shard
                ));
            }
        }
    }
    for ((a, b), ids) in &duplicates {
        let (noun, verb) = if ids.len() == 1 {
            ("game", "is")
        } else {
            ("games", "are")
        };
        problems.push(format!(
            "{noun} {} {verb} in both {} and {}",
            shard::id_ranges(ids),
            folders[*a].dir.display(),
            folders[*b].dir.display()
        ));
    }
    problems.extend(strangers);
    if !problems.is_empty() {
        return Err(refusal(problems));
    }
    let missing_shards: Vec<u32> = (1..=count).filter(|k| !by_index.contains_key(k)).collect();
    let missing_games: Vec<u64> = schedule
        .iter()
        .filter(|f| {
            by_index.contains_key(&shard_of_game[f.id as usize]) && !holder.contains_key(&f.id)
        })
        .map(|f| f.id)
        .collect();
    if !partial && (!missing_shards.is_empty() || !missing_games.is_empty()) {
        let mut lines = missing_lines(&missing_shards, count, &missing_games);
        lines.push(
            "nothing was written; to merge what is there, add --partial (a run resumed on the \
             merged folder then plays what is missing)"
                .into(),
        );
        return Err(refusal(lines));
    }

    let (mut merged, _) = Journal::open(out, &plan, false)?;
    let version = merged.version();
    let mut ids: Vec<(u64, usize)> = holder.into_iter().collect();
    ids.sort_unstable();
    let mut next = 0;
    while next < ids.len() {
        // One pass over the shards fills the window with the lines of the next ids in
        // order, until their bytes reach the budget.
        let first = ids[next].0;
        let wanted: HashMap<u64, usize> = ids[next..].iter().copied().collect();
        let mut lines: BTreeMap<u64, String> = BTreeMap::new();
        let mut bytes = 0;
        let mut sources: Vec<usize> = ids[next..].iter().map(|&(_, f)| f).collect();
        sources.sort_unstable();
        sources.dedup();
        for f in sources {
            journal::for_each_record(&folders[f].journal, |id, record| {
                if id < first || wanted.get(&id) != Some(&f) {
                    return Ok(());
                }
                let line = journal::line(version, id, &record);
                bytes += line.len();
                lines.insert(id, line);
                // Past the budget, the highest ids wait for the next pass.
                while bytes > WINDOW_BYTES && lines.len() > 1 {
                    let (_, dropped) = lines.pop_last().expect("more than one");
                    bytes -= dropped.len();
                }
                Ok(())
            })?;
        }
        // The window is the longest run of the next ids whose lines were all kept.
        for (id, line) in &lines {
            if next == ids.len() || *id != ids[next].0 {
                break;
            }
            merged.append_line(line)?;
            next += 1;
        }
    }
    merged.sync()?;
    drop(merged);
    carry_versions(&folders, out, &plan)?;

    let games = folders.iter().map(|f| f.games.len()).sum();
    Ok(Merged {
        plan,
        games,
        total: schedule.len(),
        count,
        missing_shards,
        missing_games,
    })
}

/// The history and versions the shards of a league that grew keep beside their journals
/// (`league --update --shard`), made one beside the merged journal: every shard's history,
/// and the versions of them all, each version that left the standings with how it stood in
/// the whole league ([`super::versions::merged`]).
fn carry_versions(folders: &[ShardFolder], out: &Path, plan: &journal::Plan) -> Result<(), Error> {
    let mut history = Vec::new();
    let mut events = Vec::new();
    for folder in folders {
        let path = folder.dir.join(journal::HISTORY_FILE);
        match std::fs::read(&path) {
            Ok(mut text) => {
                if !text.is_empty() && !text.ends_with(b"\n") {
                    text.push(b'\n');
                }
                history.extend(text);
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(Error::Unreadable { path, source }),
        }
        events.extend(super::versions::versions_of(&folder.dir)?);
    }
    if !history.is_empty() {
        crate::untrusted::file::write_atomic(&out.join(journal::HISTORY_FILE), &history)?;
    }
    if events.is_empty() {
        return Ok(());
    }
    let games = journal::load(&out.join(journal::JOURNAL_FILE))?.games;
    let past = journal::history_of(out)?;
    let merged = super::versions::merged(events, plan, &games, &past);
    super::versions::write(out, &merged)
}

fn read_shard(dir: &Path) -> Result<ShardFolder, Error> {
    let path = dir.join(journal::JOURNAL_FILE);
    let loaded = journal::load(&path)?;
    if loaded.repair == Some(journal::Repair::Dropped) {
        eprintln!(
            "note: {}: the last line is torn (its run was killed mid-write): that game is left \
             out, as its shard's resume would play it again",
            path.display()
        );
    }
    let Some(shard) = loaded.shard else {
        return Err(Error::Input {
            path,
            line: 1,
            message: "this journal holds the whole schedule, not one shard (it was run \
                      without --shard): there is nothing to merge it with"
                .into(),
        });
    };
    Ok(ShardFolder {
        dir: dir.to_path_buf(),
        journal: path,
        plan: loaded.plan,
        shard,
        games: loaded.games,
    })
}

fn refusal(problems: Vec<String>) -> Error {
    Error::usage(format!("cannot merge:\n  {}", problems.join("\n  ")))
}
