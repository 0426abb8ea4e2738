//! Writing a journal: [`Journal::open`] creates one or resumes one written under the same
//! plan (repairing a damaged last line), and appends each finished game as one line.

use super::format::*;
use super::known::Remembering;
use super::lock::{FolderLock, lock_folder};
use super::reader::{Loaded, read_summaries};
use super::update::{BeforeJournal, Updated};
use super::{JOURNAL_FILE, REPLACED_FILE};
use crate::error::Error;
use crate::record::{GameRecord, GameSummary};
use crate::tournament::schedule::Fixture;
use crate::tournament::shard::Shard;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// An open journal, appended to by one writer that holds the folder's lock.
pub struct Journal {
    file: File,
    path: PathBuf,
    /// Bytes of whole lines: a failed write is cut back to this length.
    len: u64,
    /// A failed write could not be cut back: nothing more may be appended.
    broken: bool,
    /// The format of its lines: a resumed journal keeps its own.
    version: u32,
    /// The folder's cache of summaries made anew ([`Journal::remember`]).
    known: Option<Remembering>,
    _lock: FolderLock,
}

impl Journal {
    /// Opens `dir/games.jsonl` for `plan`: creates it, or resumes it when it was written
    /// under the same plan, after repairing a damaged last line. Anything else is refused
    /// with every difference spelled out. `force_new` starts afresh, keeping the old
    /// journal as `games.jsonl.old`.
    pub fn open(dir: &Path, plan: &Plan, force_new: bool) -> Result<(Journal, Loaded), Error> {
        Journal::open_shard(dir, plan, None, force_new)
    }

    /// What [`Journal::open_shard`] would refuse, found without writing anything (no
    /// folder, lock or journal is made): a command checks this before it changes any file
    /// of the folder, or plays a game of its check.
    pub fn check_open(
        dir: &Path,
        plan: &Plan,
        shard: Option<Shard>,
        force_new: bool,
        update: bool,
    ) -> Result<(), Error> {
        let path = dir.join(JOURNAL_FILE);
        if force_new {
            return Ok(());
        }
        match super::reader::read_head(&path) {
            // A journal with no game is started afresh; one this arbiter cannot read is
            // refused by the opening itself, with what is wrong with it.
            Some((version, old, old_shard, true)) => match update {
                true => resumable_updating(&path, version, &old, old_shard, plan, shard),
                false => resumable(&path, version, &old, old_shard, plan, shard).map(|_| ()),
            },
            _ => Ok(()),
        }
    }

    /// [`Journal::open_shard`] for `league --update` (`schedule`: the whole one): a journal
    /// written for other bots is first rewritten for `plan`'s (its games of unchanged
    /// bots kept, the others moved into the league's history; see `update`), then
    /// resumed. What the update did, when there was a journal to update.
    pub fn open_updating(
        dir: &Path,
        plan: &Plan,
        schedule: &[Fixture],
        shard: Option<Shard>,
        before_journal: &mut BeforeJournal<'_>,
    ) -> Result<(Journal, Loaded, Option<Updated>), Error> {
        Journal::open_with(dir, plan, shard, false, Some((schedule, before_journal)))
    }

    /// [`Journal::open`] for one shard of the plan's schedule (`None`: all of it). A
    /// journal of another shard, or of the whole schedule, is refused, naming both.
    pub fn open_shard(
        dir: &Path,
        plan: &Plan,
        shard: Option<Shard>,
        force_new: bool,
    ) -> Result<(Journal, Loaded), Error> {
        Journal::open_with(dir, plan, shard, force_new, None).map(|(j, l, _)| (j, l))
    }

    fn open_with(
        dir: &Path,
        plan: &Plan,
        shard: Option<Shard>,
        force_new: bool,
        update: Option<(&[Fixture], &mut BeforeJournal<'_>)>,
    ) -> Result<(Journal, Loaded, Option<Updated>), Error> {
        std::fs::create_dir_all(dir).map_err(|source| Error::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let lock = lock_folder(dir)?;
        let path = dir.join(JOURNAL_FILE);
        let io = |source| Error::Io {
            path: path.clone(),
            source,
        };
        let mut updated = None;
        if let Some((schedule, before_journal)) = update
            && let Some((version, old, old_shard, true)) = super::reader::read_head(&path)
        {
            resumable_updating(&path, version, &old, old_shard, plan, shard)?;
            if super::update::bots_differ(&old, plan) {
                updated = Some(super::update::rewrite(
                    dir,
                    &path,
                    (version, &old, old_shard),
                    plan,
                    schedule,
                    before_journal,
                )?);
            }
        }
        let exists = path.metadata().map(|m| m.len() > 0).unwrap_or(false);
        if exists && force_new {
            std::fs::rename(&path, replaced_path(dir)).map_err(io)?;
        }
        let mut games = Vec::new();
        let (read, mut known) = if exists && !force_new {
            let (read, known) = read_summaries(&path, &mut |summary| {
                games.push(summary.clone());
                Ok(())
            })?;
            (Some(read), Some(known))
        } else {
            (None, None)
        };
        let mut repair = None;
        let mut version = FORMAT_VERSION;
        let games = match read {
            // A journal with no game (or only a torn header) holds no result: it is
            // started afresh under the new plan.
            Some(read) if read.header.is_some() && !games.is_empty() => {
                let (old_version, old, old_shard) = read.header.expect("checked");
                version = old_version;
                let raised = resumable(&path, version, &old, old_shard, plan, shard)?;
                if let Some((offset, kind)) = read.tail {
                    kind.apply(&path, offset).map_err(io)?;
                    repair = Some(kind);
                }
                if raised {
                    rewrite_header(&path, version, plan, shard).map_err(io)?;
                }
                games
            }
            _ => {
                known = None;
                let mut file = File::create(&path).map_err(io)?;
                let header = Header {
                    arbiter_journal: FORMAT_VERSION,
                    plan: plan.clone(),
                    shard,
                };
                let mut line = serde_json::to_string(&header).expect("a plan always serializes");
                line.push('\n');
                file.write_all(line.as_bytes()).map_err(io)?;
                file.sync_data().map_err(io)?;
                Vec::new()
            }
        };
        let file = OpenOptions::new().append(true).open(&path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        let known = match known {
            Some(known) => known,
            None => Remembering::new(&path)?,
        };
        let journal = Journal {
            file,
            path,
            len,
            broken: false,
            version,
            known: Some(known),
            _lock: lock,
        };
        let loaded = Loaded {
            plan: plan.clone(),
            shard,
            version,
            games,
            repair,
        };
        Ok((journal, loaded, updated))
    }

    /// Makes `record` what a reader of this journal will get back: in format 4, its times
    /// to the microsecond. A run summarizes the game after this, so the tables it writes
    /// are the ones `arbiter table` rebuilds from the journal.
    pub fn keep(&self, record: &mut GameRecord) {
        keep(self.version, record)
    }

    /// The format this journal's game lines are written in.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// Appends one finished game as one line, in one write, and flushes it. A write that
    /// fails is cut back, so the journal never holds a partial line followed by another.
    pub fn append(&mut self, id: u64, record: &GameRecord) -> Result<(), Error> {
        self.append_line(&line(self.version, id, record))
    }

    /// Appends a line made by `line()` and flushes it: [`Journal::append`] for a line
    /// made elsewhere (on the thread that played the game).
    pub fn append_line(&mut self, line: &str) -> Result<(), Error> {
        let io = |source| Error::Io {
            path: self.path.clone(),
            source,
        };
        if self.broken {
            return Err(io(std::io::Error::other(
                "an earlier write failed and could not be undone: nothing more is appended",
            )));
        }
        match self
            .file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.flush())
        {
            Ok(()) => {
                self.len += line.len() as u64;
                Ok(())
            }
            Err(source) => {
                if self.file.set_len(self.len).is_err() {
                    self.broken = true;
                }
                Err(io(source))
            }
        }
    }

    /// Keeps in the folder's cache the summary of a game whose line was just appended
    /// (`line`, made by `line()`): a run that remembers every game it appends then writes
    /// the cache whole ([`Journal::write_known`]), for the next reading to decode nothing.
    pub fn remember(&mut self, line: &str, summary: &GameSummary) -> Result<(), Error> {
        match &mut self.known {
            Some(known) => known.add_line(self.version, line, summary),
            None => Ok(()),
        }
    }

    /// Writes the folder's cache of summaries: the games read when the journal was opened
    /// and each one remembered since. Only a run that remembered every game it appended
    /// writes it; once.
    pub fn write_known(&mut self) -> Result<(), Error> {
        match self.known.take() {
            Some(known) => known.finish(),
            None => Ok(()),
        }
    }

    /// Forces the journal to disk (at the end of a run).
    pub fn sync(&mut self) -> Result<(), Error> {
        self.file.sync_all().map_err(|source| Error::Io {
            path: self.path.clone(),
            source,
        })
    }
}

/// Whether `new` is `old` with more pairs: the schedule of more pairs begins with the
/// games of fewer (pair after pair, each game's seed from its id), so the games played
/// stay the same games and the run plays on.
fn pairs_raised(old: &Plan, new: &Plan) -> bool {
    new.pairs > old.pairs
        && Plan {
            pairs: new.pairs,
            ..old.clone()
        } == *new
}

/// Puts `plan` into the header of the (whole-schedule) journal at `path`, keeping every
/// line after it: a copy beside it, synced, renamed over it, so a crash leaves one of the
/// two whole.
fn rewrite_header(
    path: &Path,
    version: u32,
    plan: &Plan,
    shard: Option<Shard>,
) -> std::io::Result<()> {
    use std::io::BufRead;
    let mut old = std::io::BufReader::new(File::open(path)?);
    let mut first = Vec::new();
    old.read_until(b'\n', &mut first)?;
    let tmp = path.with_extension("jsonl.tmp");
    let mut new = std::io::BufWriter::new(File::create(&tmp)?);
    let header = Header {
        arbiter_journal: version,
        plan: plan.clone(),
        shard,
    };
    serde_json::to_writer(&mut new, &header)?;
    new.write_all(b"\n")?;
    std::io::copy(&mut old, &mut new)?;
    let new = new.into_inner().map_err(|e| e.into_error())?;
    new.sync_all()?;
    std::fs::rename(&tmp, path)?;
    if let Some(dir) = path.parent() {
        File::open(dir)?.sync_all()?;
    }
    Ok(())
}

/// Whether the journal at `path`, of format `version` written under `old` for `old_shard`,
/// may be resumed under `plan` for `shard`: `Ok(true)` when its header is to be rewritten
/// (its pairs raised, or what only describes the bots is new: the entries merged into
/// them, their files), the refusal with every difference spelled out otherwise.
fn resumable(
    path: &Path,
    version: u32,
    old: &Plan,
    old_shard: Option<Shard>,
    plan: &Plan,
    shard: Option<Shard>,
) -> Result<bool, Error> {
    if version < OLDEST_RESUMABLE {
        let missing = if version < 2 {
            "the move limits, the interpreter, the resource limits, the sandbox, \
                 a digest of each bot's files or the openings"
        } else {
            "the openings or the SPRT settings"
        };
        return Err(Error::usage(format!(
            "{} is in journal format {version}, which does not record {missing}, \
                 so a resume could mix settings; `arbiter table` still reads it. To \
                 play on, start afresh: another output folder, or --force-new (the old \
                 journal is kept as {REPLACED_FILE})",
            path.display()
        )));
    }
    // Entries merged into a bot and the file each bot plays in its folder follow the folder
    // and change no game: a journal written before they were kept resumes as well, and
    // keeps them from then on.
    let described =
        old.merged != plan.merged || old.bots.iter().any(|b| b.file != file_of(plan, b));
    let old = &Plan {
        merged: plan.merged.clone(),
        bots: old
            .bots
            .iter()
            .map(|b| PlanBot {
                file: file_of(plan, b),
                ..b.clone()
            })
            .collect(),
        ..old.clone()
    };
    let raised = *old != *plan && old_shard.is_none() && pairs_raised(old, plan);
    if *old != *plan && !raised {
        let difference = plan_difference(old, plan);
        // Who is kept out of the marks changes no game: say how to re-mark
        // without playing again.
        let marks_only = if difference.changes("non_scoring") {
            format!(
                ". To mark the games played with other bots kept out of the marks, \
                     rebuild the tables instead: arbiter table {} --non-scoring NAME",
                path.parent().unwrap_or(Path::new(".")).display()
            )
        } else if pairs_raised(plan, old) {
            // Fewer pairs would drop games already played from every table.
            let flag = if plan.format == "sprt" {
                "--max-pairs"
            } else {
                "--pairs"
            };
            format!(
                ". {flag} can be raised to play on, keeping every game played, but \
                     not lowered: rerun with {flag} {} or more",
                old.pairs
            )
        } else {
            String::new()
        };
        // Only its bots differ (added, missing, their files changed): `--update` plays
        // only what that changes.
        let bots = super::update::BotChanges::between(old, plan);
        let (was, is) = super::update::bot_settings_views(old, plan);
        if !bots.is_empty()
            && old_shard.is_none()
            && was == is
            && super::update::games_settings(old, plan) == *plan
            && plan.format == "round_robin"
        {
            return Err(Error::usage(format!(
                "{} was written with other settings: {difference}. Its bots differ: {}. \
                 Rerun with --update to play only the games of the bots added or changed \
                 (a bot missing is retired: its games are kept in the folder's history, \
                 out of the standings), keeping every other game; or start afresh with \
                 another output folder or --force-new (the old journal is kept as \
                 {REPLACED_FILE})",
                path.display(),
                bots.said()
            )));
        }
        return Err(Error::usage(format!(
            "{} was written with other settings: {difference}. One table never \
                 mixes two settings: rerun with the same settings to resume, or start \
                 afresh with another output folder or --force-new (the old journal is \
                 kept as {REPLACED_FILE}){marks_only}",
            path.display(),
        )));
    }
    same_shard(path, old_shard, shard)?;
    Ok(raised || described)
}

/// Refuses a journal of `old_shard` (`None`: the whole schedule) for a run of `shard`.
fn same_shard(path: &Path, old_shard: Option<Shard>, shard: Option<Shard>) -> Result<(), Error> {
    if old_shard == shard {
        return Ok(());
    }
    let show = |s: Option<Shard>| match s {
        Some(s) => format!("shard {s} of the schedule"),
        None => "the whole schedule".to_string(),
    };
    Err(Error::usage(format!(
        "{} holds {}, and this run asks for {}: give each shard its own output folder (or \
         start afresh with --force-new; the old journal is kept as {REPLACED_FILE})",
        path.display(),
        show(old_shard),
        show(shard)
    )))
}

/// Whether the journal at `path` may be updated to `plan` (`league --update`): as
/// [`resumable`] where its bots are the same, else as `update::check` says.
fn resumable_updating(
    path: &Path,
    version: u32,
    old: &Plan,
    old_shard: Option<Shard>,
    plan: &Plan,
    shard: Option<Shard>,
) -> Result<(), Error> {
    if version < OLDEST_RESUMABLE {
        return resumable(path, version, old, old_shard, plan, shard).map(|_| ());
    }
    super::update::check(path, old, plan)?;
    // A shard's folder grows as that shard.
    same_shard(path, old_shard, shard)
}

/// The file `plan` gives the bot of `bot`'s name, or `bot`'s own where `plan` has none of
/// that name.
fn file_of(plan: &Plan, bot: &PlanBot) -> Option<String> {
    plan.bots
        .iter()
        .find(|b| b.name == bot.name)
        .map_or(bot.file.clone(), |b| b.file.clone())
}

/// Where a journal started afresh is kept: `games.jsonl.old`, or when an earlier one is
/// kept there, the first free of `games.jsonl.old.2`, `.3`, ...: no journal is overwritten.
fn replaced_path(dir: &Path) -> PathBuf {
    std::iter::once(dir.join(REPLACED_FILE))
        .chain((2..).map(|n| dir.join(format!("{REPLACED_FILE}.{n}"))))
        .find(|path| std::fs::symlink_metadata(path).is_err())
        .expect("an endless run of names has a free one")
}
