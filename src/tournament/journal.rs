//! The journal `games.jsonl`: the source of truth of a tournament run.
//!
//! Its first line names the plan: the schedule (game, bots, pairs, seed) and every
//! setting that can change a result (limits, interpreter, confinement, each bot's folder,
//! environment and a digest of its files), and beside the plan the shard of the schedule
//! the folder plays, when it plays only one (so the plans of all shards compare equal). Each further line is one finished game,
//! written whole with a single `write` and flushed as the game ends. A crash can leave at
//! most one damaged last line: a line that lost only its newline is completed, a torn one
//! is dropped (its game is played again), and the run says which. Lines are not fsynced
//! one by one: a finished game survives the harness being killed at any moment; the
//! journal is fsynced when a run ends, so a power loss can cost the games of the last few
//! seconds, which a resume then plays again.
//!
//! One run at a time: a run holds an OS lock (a POSIX record lock) on `games.lock` in the folder for
//! as long as it writes there. The kernel drops the lock when the run ends or is killed,
//! so a lock never outlives its run.
//!
//! A game line of format 4 (the one written now) is compact: the fields a reader looks for
//! in plain JSON, the moves, boards, logs and failure detail packed column-wise and
//! compressed (see [`compact`] for the encoding and for the one loss, times kept to the
//! microsecond). Every reader decodes game lines through [`decode_game`].
//!
//! Older formats are still read by [`load`] (`arbiter table`) and [`for_each_record`]:
//! format 3 (each game line the whole record as JSON), format 1 (before the plan held the
//! limits, interpreter, confinement and digests) and format 2 (before it held the openings
//! and the SPRT settings; its games all started from the standard start). A format 3
//! journal is resumed in format 3: its further games are written as format 3 lines, so a
//! journal never mixes two formats. A run refuses to resume formats 1 and 2, since it
//! cannot tell whether those settings changed.

use super::compact;
use super::shard::Shard;
use crate::error::Error;
use crate::record::{GameRecord, GameSummary};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

pub const JOURNAL_FILE: &str = "games.jsonl";
/// Where `--force-new` keeps the journal it replaces.
pub const REPLACED_FILE: &str = "games.jsonl.old";
/// The file whose `flock` marks a run in progress.
pub const LOCK_FILE: &str = "games.lock";
/// The format a new journal is written in.
pub const FORMAT_VERSION: u32 = 4;
/// The oldest format a run resumes, writing its further games in that format.
const OLDEST_RESUMABLE: u32 = 3;
/// The oldest format [`load`] reads.
const OLDEST_READABLE: u32 = 1;

/// Everything that decides a tournament's results: a journal written under one plan is
/// never resumed under another.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// `round_robin`, `gauntlet` or `sprt`.
    pub format: String,
    pub game: String,
    /// Role names in move order.
    pub roles: Vec<String>,
    pub bots: Vec<PlanBot>,
    pub pairs: u32,
    pub seed: u64,
    /// Game settings that change the rules (Asalto: the round limit).
    #[serde(default)]
    pub rules: serde_json::Map<String, serde_json::Value>,
    /// League points for a win and a tie.
    pub points_win: f64,
    pub points_tie: f64,
    /// The move and start-up limits in milliseconds (absent in format 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init_limit_ms: Option<u64>,
    /// How the pairs' openings are chosen; absent for the standard start (and before
    /// format 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings: Option<PlanOpenings>,
    /// The test of an `sprt` run (format 3 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<PlanSprt>,
}

/// The openings setting: random plies, or a book by its content and order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlanOpenings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_plies: Option<u32>,
    /// SHA-256 of the book's lines as read (blank lines and comments left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub book_sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub book_lines: Option<usize>,
    /// `sequential` or `random`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<String>,
}

/// The settings of a sequential test: they decide when it stops and its verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanSprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    /// `normalized` or `logistic`.
    pub model: String,
}

/// One bot as the plan knows it. Every field but `name` and `spec` is absent in format 1
/// and left out when it does not apply (a built-in bot has no files, folder or limits).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlanBot {
    pub name: String,
    /// The specification as written.
    pub spec: String,
    /// The interpreter of a course-style `.py` bot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python: Option<String>,
    /// The working folder given for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mb: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_s: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_mb: Option<u64>,
    /// `none` or `user`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
    /// SHA-256 over the files the bot is made of (see `tournament::setup`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// Kept out of the course marks (a reference bot): it plays and is ranked, but has no
    /// mark and does not set x_winner. Absent (false) in format 1 and for scoring bots.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub non_scoring: bool,
}

impl Plan {
    /// The bots kept out of the course marks.
    pub fn non_scoring(&self) -> Vec<String> {
        self.bots
            .iter()
            .filter(|b| b.non_scoring)
            .map(|b| b.name.clone())
            .collect()
    }
}

#[derive(Serialize, Deserialize)]
struct Header {
    arbiter_journal: u32,
    plan: Plan,
    /// The one shard of the schedule this folder plays; absent for the whole schedule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    shard: Option<Shard>,
}

/// The journal line of game `id` in format `version`, its newline included.
pub fn line(version: u32, id: u64, record: &GameRecord) -> String {
    let mut line = encode_game(version, id, record);
    line.push('\n');
    line
}

#[derive(Serialize)]
struct EntryOut<'a> {
    game: u64,
    record: &'a GameRecord,
}

#[derive(Deserialize)]
struct EntryIn {
    game: u64,
    record: GameRecord,
}

/// Makes `record` what a reader of a journal in format `version` gets back: in format 4,
/// its times to the microsecond.
pub fn keep(version: u32, record: &mut GameRecord) {
    if version >= 4 {
        compact::keep_times(record);
    }
}

/// The line of game `id` in journal format `version` (without its newline): format 4's
/// compact line, or the whole record as JSON for formats 1 to 3.
pub fn encode_game(version: u32, id: u64, record: &GameRecord) -> String {
    if version >= 4 {
        compact::encode(id, record)
    } else {
        serde_json::to_string(&EntryOut { game: id, record }).expect("a record always serializes")
    }
}

/// Reads one game line of a journal in format `version`: the one decoding of games, used
/// by [`load`], [`for_each_record`] and a resume alike.
pub fn decode_game(version: u32, line: &[u8]) -> Result<(u64, GameRecord), String> {
    if version >= 4 {
        compact::decode(line)
    } else {
        serde_json::from_slice::<EntryIn>(line)
            .map(|entry| (entry.game, entry.record))
            .map_err(|e| e.to_string())
    }
}

/// What was wrong with the journal's last line, and what opening it for a run did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repair {
    /// A whole game record that had lost its newline: the newline was added.
    Completed,
    /// A line cut short by a crash: removed; its game is played again.
    Dropped,
}

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
    _lock: FolderLock,
}

/// What a journal held when it was opened.
pub struct Loaded {
    pub plan: Plan,
    /// The shard of the schedule the journal holds, `None` for the whole schedule.
    pub shard: Option<Shard>,
    /// The format it was written in.
    pub version: u32,
    /// Finished games in journal order, the first copy of each id.
    pub games: Vec<GameSummary>,
    /// What was done about a damaged last line ([`load`] only reports it: `Dropped` then
    /// means the torn line was left out of `games`, `Completed` that the line counts).
    pub repair: Option<Repair>,
}

/// A journal's content as read, before anything is decided about it.
struct Read {
    /// `None` when the header line itself is torn: the journal holds no game.
    header: Option<(u32, Plan, Option<Shard>)>,
    games: Vec<GameSummary>,
    /// A last line without its newline: its offset, and whether it is a whole line.
    tail: Option<(u64, Repair)>,
}

impl Journal {
    /// Opens `dir/games.jsonl` for `plan`: creates it, or resumes it when it was written
    /// under the same plan, after repairing a damaged last line. Anything else is refused
    /// with every difference spelled out. `force_new` starts afresh, keeping the old
    /// journal as `games.jsonl.old`.
    pub fn open(dir: &Path, plan: &Plan, force_new: bool) -> Result<(Journal, Loaded), Error> {
        Journal::open_shard(dir, plan, None, force_new)
    }

    /// [`Journal::open`] for one shard of the plan's schedule (`None`: all of it). A
    /// journal of another shard, or of the whole schedule, is refused, naming both.
    pub fn open_shard(
        dir: &Path,
        plan: &Plan,
        shard: Option<Shard>,
        force_new: bool,
    ) -> Result<(Journal, Loaded), Error> {
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
        let exists = path.metadata().map(|m| m.len() > 0).unwrap_or(false);
        if exists && force_new {
            std::fs::rename(&path, dir.join(REPLACED_FILE)).map_err(io)?;
        }
        let read = if exists && !force_new {
            Some(read(&path)?)
        } else {
            None
        };
        let mut repair = None;
        let mut version = FORMAT_VERSION;
        let games = match read {
            // A journal with no game (or only a torn header) holds no result: it is
            // started afresh under the new plan.
            Some(read) if read.header.is_some() && !read.games.is_empty() => {
                let (old_version, old, old_shard) = read.header.expect("checked");
                version = old_version;
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
                if old != *plan {
                    let difference = plan_difference(&old, plan);
                    // Who is kept out of the marks changes no game: say how to re-mark
                    // without playing again.
                    let marks_only = if difference.contains("non_scoring") {
                        format!(
                            ". To mark the games played with other bots kept out of the marks, \
                             rebuild the tables instead: arbiter table {} --non-scoring NAME",
                            path.parent().unwrap_or(Path::new(".")).display()
                        )
                    } else {
                        String::new()
                    };
                    return Err(Error::usage(format!(
                        "{} was written with other settings: {difference}. One table never \
                         mixes two settings: rerun with the same settings to resume, or start \
                         afresh with another output folder or --force-new (the old journal is \
                         kept as {REPLACED_FILE}){marks_only}",
                        path.display(),
                    )));
                }
                if old_shard != shard {
                    let show = |s: Option<Shard>| match s {
                        Some(s) => format!("shard {s} of the schedule"),
                        None => "the whole schedule".to_string(),
                    };
                    return Err(Error::usage(format!(
                        "{} holds {}, and this run asks for {}: give each shard its own output \
                         folder (or start afresh with --force-new; the old journal is kept as \
                         {REPLACED_FILE})",
                        path.display(),
                        show(old_shard),
                        show(shard)
                    )));
                }
                if let Some((offset, kind)) = read.tail {
                    let mut file = OpenOptions::new().append(true).open(&path).map_err(io)?;
                    match kind {
                        Repair::Completed => file.write_all(b"\n").map_err(io)?,
                        Repair::Dropped => file.set_len(offset).map_err(io)?,
                    }
                    file.sync_data().map_err(io)?;
                    repair = Some(kind);
                }
                read.games
            }
            _ => {
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
        let journal = Journal {
            file,
            path,
            len,
            broken: false,
            version,
            _lock: lock,
        };
        let loaded = Loaded {
            plan: plan.clone(),
            shard,
            version,
            games,
            repair,
        };
        Ok((journal, loaded))
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

    /// Appends a line made by [`line`] and flushes it: [`Journal::append`] for a line
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

    /// Forces the journal to disk (at the end of a run).
    pub fn sync(&mut self) -> Result<(), Error> {
        self.file.sync_all().map_err(|source| Error::Io {
            path: self.path.clone(),
            source,
        })
    }
}

/// Takes the folder's run lock, or says at once who holds it.
/// A run's hold on its folder: the record lock on `games.lock`, and the folder's place in
/// this process's own list (a record lock does not exclude its own process).
struct FolderLock {
    _file: File,
    key: PathBuf,
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        locked_here().remove(&self.key);
    }
}

fn locked_here() -> std::sync::MutexGuard<'static, std::collections::HashSet<PathBuf>> {
    static LOCKED: std::sync::OnceLock<std::sync::Mutex<std::collections::HashSet<PathBuf>>> =
        std::sync::OnceLock::new();
    LOCKED
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner())
}

fn lock_folder(dir: &Path) -> Result<FolderLock, Error> {
    let path = dir.join(LOCK_FILE);
    let busy = || {
        Error::usage(format!(
            "another arbiter run is using {} (it holds the lock on {}): wait for it to end, \
             or use another output folder",
            dir.display(),
            path.display()
        ))
    };
    let key = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    let mut here = locked_here();
    // Checked before the file is opened: closing any descriptor of a file drops this
    // process's record locks on it, so a refused second open must not touch it.
    if here.contains(&key) {
        return Err(busy());
    }
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
    match lock_whole_file(&file) {
        Ok(()) => {
            here.insert(key.clone());
            Ok(FolderLock { _file: file, key })
        }
        Err(e) if matches!(e.raw_os_error(), Some(libc::EAGAIN | libc::EACCES)) => Err(busy()),
        Err(source) => Err(Error::Io { path, source }),
    }
}

/// Takes a POSIX record lock (`fcntl(F_SETLK)`) on the whole file, without waiting.
///
/// Not `flock`: a flock belongs to the open file, which a bot being started shares until it
/// execs, so an arbiter killed at that moment would leave its lock to the bot for a while. A
/// record lock belongs to this process alone and goes when it ends.
fn lock_whole_file(file: &File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: an all-zero `flock` is valid (every field is an integer); the ones that
    // matter are set below.
    let mut range: libc::flock = unsafe { std::mem::zeroed() };
    range.l_type = libc::F_WRLCK as libc::c_short;
    range.l_whence = libc::SEEK_SET as libc::c_short;
    range.l_start = 0;
    range.l_len = 0; // to the end, however long
    // SAFETY: the descriptor is open for the call, and `range` outlives it.
    if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETLK, &range) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Reads a journal without changing it (`arbiter table`). A damaged last line is left as
/// it is and reported in [`Loaded::repair`]; a run on the folder repairs it.
pub fn load(path: &Path) -> Result<Loaded, Error> {
    // A folder without a journal is the user's mistake (a wrong path), not the harness's.
    if let Err(source) = std::fs::metadata(path) {
        return Err(Error::Unreadable {
            path: path.to_path_buf(),
            source,
        });
    }
    let read = read(path)?;
    let Some((version, plan, shard)) = read.header else {
        return Err(Error::Input {
            path: path.to_path_buf(),
            line: 1,
            message: "the header line is torn (the run that created the journal was killed \
                      while writing it): the journal holds no game; rerun the tournament to \
                      start it afresh"
                .into(),
        });
    };
    Ok(Loaded {
        plan,
        shard,
        version,
        games: read.games,
        repair: read.tail.map(|(_, kind)| kind),
    })
}

/// Reads a journal without changing it and hands every finished game to `visit`, in
/// journal order, the first copy of each id only (a torn last line is left out). Returns
/// the plan: the report and the merge of shards read whole records this way, one at a
/// time, so a league of any size is never held in memory.
pub fn for_each_record(
    path: &Path,
    mut visit: impl FnMut(u64, GameRecord) -> Result<(), Error>,
) -> Result<Plan, Error> {
    let read = read_visiting(path, &mut visit)?;
    match read.header {
        Some((_, plan, _)) => Ok(plan),
        None => Err(Error::Input {
            path: path.to_path_buf(),
            line: 1,
            message: "the header line is torn: the journal holds no game".into(),
        }),
    }
}

/// Reads a journal's lines: the header, the summary of each game (the first copy of each
/// id), and what is wrong with its last line.
fn read(path: &Path) -> Result<Read, Error> {
    let mut games = Vec::new();
    let mut read = read_visiting(path, &mut |id, record| {
        games.push(GameSummary::of(id, &record));
        Ok(())
    })?;
    read.games = games;
    Ok(read)
}

/// Reads a journal's lines: the header and what is wrong with its last line, handing each
/// game (the first copy of each id) whole to `visit`; an error from `visit` stops the
/// reading. The returned `games` is empty: [`read`] fills it.
fn read_visiting(
    path: &Path,
    visit: &mut dyn FnMut(u64, GameRecord) -> Result<(), Error>,
) -> Result<Read, Error> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    let mut offset: u64 = 0;
    let mut header: Option<(u32, Plan, Option<Shard>)> = None;
    let mut seen = std::collections::HashSet::new();
    let mut number = 0usize;
    let mut tail = None;
    loop {
        line.clear();
        let read = reader.read_until(b'\n', &mut line).map_err(io)?;
        if read == 0 {
            break;
        }
        number += 1;
        let complete = line.ends_with(b"\n");
        let bad = |message: String| Error::Input {
            path: path.to_path_buf(),
            line: number,
            message,
        };
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        if number == 1 {
            match serde_json::from_slice::<serde_json::Value>(text) {
                Err(_) if !complete => {
                    return Ok(Read {
                        header: None,
                        games: Vec::new(),
                        tail: Some((0, Repair::Dropped)),
                    });
                }
                Err(e) => return Err(bad(format!("not an arbiter journal header: {e}"))),
                Ok(value) => {
                    let version = value
                        .get("arbiter_journal")
                        .and_then(|v| v.as_u64())
                        .ok_or_else(|| {
                            bad("not an arbiter journal header: no `arbiter_journal` number".into())
                        })?;
                    if !(OLDEST_READABLE as u64..=FORMAT_VERSION as u64).contains(&version) {
                        return Err(bad(format!(
                            "journal format {version} is not supported (this arbiter reads \
                             formats {OLDEST_READABLE} to {FORMAT_VERSION})"
                        )));
                    }
                    let h: Header = serde_json::from_value(value)
                        .map_err(|e| bad(format!("not an arbiter journal header: {e}")))?;
                    header = Some((version as u32, h.plan, h.shard));
                    if !complete {
                        tail = Some((offset, Repair::Completed));
                    }
                }
            }
        } else {
            let version = header.as_ref().map_or(FORMAT_VERSION, |(v, _, _)| *v);
            match decode_game(version, text) {
                Ok((id, record)) => {
                    if !complete {
                        tail = Some((offset, Repair::Completed));
                    }
                    if seen.insert(id) {
                        visit(id, record)?;
                    }
                }
                Err(_) if !complete => {
                    tail = Some((offset, Repair::Dropped));
                    break;
                }
                Err(e) => return Err(bad(format!("not a game record: {e}"))),
            }
        }
        offset += read as u64;
    }
    if header.is_none() {
        return Err(Error::Input {
            path: path.to_path_buf(),
            line: 1,
            message: "empty journal".into(),
        });
    }
    Ok(Read {
        header,
        games: Vec::new(),
        tail,
    })
}

/// Every setting that differs, as `name old there, new now`.
fn plan_difference(old: &Plan, new: &Plan) -> String {
    plan_difference_between(old, new, "there", "now")
}

/// Every setting that differs, as `name OLD OLD_LABEL, NEW NEW_LABEL`.
pub(crate) fn plan_difference_between(
    old: &Plan,
    new: &Plan,
    old_label: &str,
    new_label: &str,
) -> String {
    use serde_json::Value;
    let show = |v: Option<&Value>| match v {
        None | Some(Value::Null) => "unset".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    };
    let fields = |v: Value| match v {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    let mut diffs = Vec::new();
    let mut compare =
        |prefix: &str, old: serde_json::Map<String, Value>, new: serde_json::Map<String, Value>| {
            let mut keys: Vec<&String> = new.keys().collect();
            keys.extend(old.keys().filter(|k| !new.contains_key(*k)));
            for key in keys {
                if key == "bots" || old.get(key) == new.get(key) {
                    continue;
                }
                diffs.push(format!(
                    "{prefix}{key} {} {old_label}, {} {new_label}",
                    show(old.get(key)),
                    show(new.get(key))
                ));
            }
        };
    let to_value = |p: &Plan| serde_json::to_value(p).expect("a plan always serializes");
    compare("", fields(to_value(old)), fields(to_value(new)));
    let names = |p: &Plan| p.bots.iter().map(|b| b.name.clone()).collect::<Vec<_>>();
    if names(old) != names(new) {
        let list = |p: &Plan| {
            p.bots
                .iter()
                .map(|b| format!("{}={}", b.name, b.spec))
                .collect::<Vec<_>>()
                .join(" ")
        };
        diffs.push(format!(
            "bots [{}] {old_label}, [{}] {new_label}",
            list(old),
            list(new)
        ));
    } else {
        for (a, b) in old.bots.iter().zip(&new.bots) {
            let value = |bot: &PlanBot| fields(serde_json::to_value(bot).expect("serializes"));
            compare(&format!("bot {} ", a.name), value(a), value(b));
        }
    }
    diffs.join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan() -> Plan {
        let bot = |name: &str| PlanBot {
            name: name.into(),
            spec: format!("builtin:{name}"),
            ..PlanBot::default()
        };
        Plan {
            format: "round_robin".into(),
            game: "gomoku".into(),
            roles: vec!["white".into(), "black".into()],
            bots: vec![bot("random"), bot("greedy")],
            pairs: 1,
            seed: 1,
            rules: serde_json::Map::new(),
            points_win: 2.0,
            points_tie: 1.0,
            limit_ms: Some(200),
            init_limit_ms: Some(30_000),
            openings: None,
            sprt: None,
        }
    }

    fn record() -> GameRecord {
        serde_json::from_value(serde_json::json!({
            "game": "gomoku", "roles": ["white", "black"],
            "players": {"white": "random", "black": "greedy"},
            "winner": "black", "reason": "five_in_row", "rounds": 5, "plies": 10,
            "illegal": {"white": 0, "black": 0}, "seed": 7, "moves": [], "final_board": null
        }))
        .unwrap()
    }

    #[test]
    fn every_changed_setting_is_named_with_its_old_and_new_value() {
        let old = plan();
        let mut new = plan();
        new.limit_ms = Some(5000);
        new.bots[1].python = Some("python3.12".into());
        new.bots[1].digest = Some("ab".into());
        new.rules.insert("density".into(), 0.5.into());
        let text = plan_difference(&old, &new);
        for part in [
            "limit_ms 200 there, 5000 now",
            "bot greedy python unset there, python3.12 now",
            "bot greedy digest unset there, ab now",
            "rules {} there, {\"density\":0.5} now",
        ] {
            assert!(text.contains(part), "`{part}` in: {text}");
        }
        assert_eq!(text.matches(';').count(), 3, "{text}");
    }

    #[test]
    fn a_torn_line_is_dropped_and_the_next_game_starts_on_a_line_of_its_own() {
        let dir = tempfile::tempdir().unwrap();
        let (mut journal, _) = Journal::open(dir.path(), &plan(), false).unwrap();
        journal.append(0, &record()).unwrap();
        drop(journal);
        let path = dir.path().join(JOURNAL_FILE);
        let whole = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{whole}{{\"game\":1,\"rec")).unwrap();
        let before = std::fs::read(&path).unwrap();
        // Reading reports the damage and changes nothing.
        let loaded = load(&path).unwrap();
        assert_eq!(
            (loaded.games.len(), loaded.repair),
            (1, Some(Repair::Dropped))
        );
        assert_eq!(std::fs::read(&path).unwrap(), before);
        let (mut journal, loaded) = Journal::open(dir.path(), &plan(), false).unwrap();
        assert_eq!(loaded.repair, Some(Repair::Dropped));
        journal.append(1, &record()).unwrap();
        drop(journal);
        let loaded = load(&path).unwrap();
        assert_eq!((loaded.games.len(), loaded.repair), (2, None));
    }

    #[test]
    fn a_second_open_of_a_folder_is_refused_while_the_first_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        let (journal, _) = Journal::open(dir.path(), &plan(), false).unwrap();
        let err = Journal::open(dir.path(), &plan(), false).err().unwrap();
        assert!(
            err.to_string().contains("another arbiter run is using"),
            "{err}"
        );
        // The refusal left the first run's lock in place, against other processes too.
        let try_lock =
            "import fcntl, sys; fcntl.lockf(open(sys.argv[1], 'a'), fcntl.LOCK_EX | fcntl.LOCK_NB)";
        let other = std::process::Command::new("python3")
            .args(["-c", try_lock])
            .arg(dir.path().join(LOCK_FILE))
            .stderr(std::process::Stdio::null())
            .status()
            .expect("python3 runs");
        assert!(!other.success(), "another process took the lock");
        drop(journal);
        assert!(Journal::open(dir.path(), &plan(), false).is_ok());
    }

    #[test]
    fn a_shard_journal_resumes_only_as_its_own_shard() {
        let dir = tempfile::tempdir().unwrap();
        let first = Some(Shard::new(1, 3).unwrap());
        let (mut journal, _) = Journal::open_shard(dir.path(), &plan(), first, false).unwrap();
        journal.append(0, &record()).unwrap();
        drop(journal);
        let loaded = load(&dir.path().join(JOURNAL_FILE)).unwrap();
        assert_eq!(loaded.shard, first);
        assert_eq!(
            loaded.plan,
            plan(),
            "the shard is beside the plan, not in it"
        );
        let second = Some(Shard::new(2, 3).unwrap());
        for (asked, named) in [(second, "shard 2/3"), (None, "the whole schedule")] {
            let err = Journal::open_shard(dir.path(), &plan(), asked, false)
                .err()
                .unwrap()
                .to_string();
            assert!(
                err.contains("holds shard 1/3 of the schedule") && err.contains(named),
                "{err}"
            );
        }
        let (_, loaded) = Journal::open_shard(dir.path(), &plan(), first, false).unwrap();
        assert_eq!(loaded.games.len(), 1);
    }

    #[test]
    fn a_journal_without_games_is_started_afresh_under_new_settings() {
        let dir = tempfile::tempdir().unwrap();
        drop(Journal::open(dir.path(), &plan(), false).unwrap());
        let mut new = plan();
        new.limit_ms = Some(5000);
        let (_, loaded) = Journal::open(dir.path(), &new, false).unwrap();
        assert!(loaded.games.is_empty());
        assert_eq!(load(&dir.path().join(JOURNAL_FILE)).unwrap().plan, new);
    }

    #[test]
    fn every_record_is_read_whole_once_in_journal_order_without_the_torn_tail() {
        let dir = tempfile::tempdir().unwrap();
        let (mut journal, _) = Journal::open(dir.path(), &plan(), false).unwrap();
        let mut second = record();
        second.winner = None;
        second.reason = "board_full".into();
        journal.append(3, &record()).unwrap();
        journal.append(1, &second).unwrap();
        journal.append(3, &second).unwrap();
        drop(journal);
        let path = dir.path().join(JOURNAL_FILE);
        let whole = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, format!("{whole}{{\"game\":2,\"rec")).unwrap();
        let mut seen = Vec::new();
        let read_plan = for_each_record(&path, |id, r| {
            seen.push((id, r));
            Ok(())
        })
        .unwrap();
        assert_eq!(read_plan, plan());
        assert_eq!(seen, vec![(3, record()), (1, second)]);
        // The visitor's own error stops the reading and is returned.
        let err = for_each_record(&path, |_, _| Err(Error::usage("stop".to_string())));
        assert!(err.unwrap_err().to_string().contains("stop"));
    }
}
