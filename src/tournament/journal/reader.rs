//! Reading a journal: its plan and games, every format since the first, a damaged last line
//! found and reported, never repaired here.

use super::format::*;
use super::known::{Key, Known, Remembering, key_of};
use super::listed::{listed_line, listed_summary};
use super::repair::Repair;
use crate::error::Error;
use crate::record::{GameRecord, GameSummary};
use crate::tournament::shard::Shard;
use std::fs::File;
use std::io::{BufRead, BufReader, Write as _};
use std::path::Path;

/// What a journal held when it was opened.
pub struct Loaded {
    /// The plan of the journal's header.
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
pub(super) struct Read {
    /// `None` when the header line itself is torn: the journal holds no game.
    pub(super) header: Option<(u32, Plan, Option<Shard>)>,
    pub(super) games: Vec<GameSummary>,
    /// A last line without its newline: its offset, and whether it is a whole line.
    pub(super) tail: Option<(u64, Repair)>,
}

/// Reads a journal without changing it (`arbiter table`). A damaged last line is left as
/// it is and reported in [`Loaded::repair`]; a run on the folder repairs it.
pub fn load(path: &Path) -> Result<Loaded, Error> {
    load_visiting(path, &mut |_, _| Ok(()))
}

/// [`load`], handing every finished game whole to `visit` as it is read (the first copy of
/// each id, in journal order): one reading for the tables and for what needs every
/// record, such as the report's replays.
pub fn load_visiting(
    path: &Path,
    visit: &mut dyn FnMut(u64, GameRecord) -> Result<(), Error>,
) -> Result<Loaded, Error> {
    // A folder without a journal is the user's mistake (a wrong path), not the harness's.
    if let Err(source) = std::fs::metadata(path) {
        return Err(Error::Unreadable {
            path: path.to_path_buf(),
            source,
        });
    }
    let mut read = read(path, visit)?;
    let games = std::mem::take(&mut read.games);
    loaded(path, read, games)
}

/// What a reading of the journal at `path` loaded, its games `games`.
fn loaded(path: &Path, read: Read, games: Vec<GameSummary>) -> Result<Loaded, Error> {
    let Some((version, plan, shard)) = read.header else {
        return Err(torn_header(path));
    };
    Ok(Loaded {
        plan,
        shard,
        version,
        games,
        repair: read.tail.map(|(_, kind)| kind),
    })
}

/// [`load`] with each game line made into a `T` by `decode` (of the journal's format and
/// the line's text, on every core a few lines at a time) rather than decoded whole, and
/// handed to `visit` in journal order (the first copy of each id, a torn last line left
/// out), which gives the game's summary for [`Loaded::games`], if any: what reads a
/// journal through a cache of what it holds.
pub(crate) fn load_decoding<T: Send>(
    path: &Path,
    decode: &Decode<'_, T>,
    visit: &mut dyn FnMut(u64, T) -> Result<Option<GameSummary>, Error>,
) -> Result<Loaded, Error> {
    if let Err(source) = std::fs::metadata(path) {
        return Err(Error::Unreadable {
            path: path.to_path_buf(),
            source,
        });
    }
    let mut games = Vec::new();
    let read = read_with(path, KNOWN_BATCH, decode, &mut |id, _, value| {
        games.extend(visit(id, value)?);
        Ok(())
    })?;
    loaded(path, read, games)
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

/// [`load`] without holding the games: each game's summary goes to `count` as it is
/// read (the first copy of each id, in journal order, a torn last line left out as
/// [`load`] leaves it), and is kept on disk, in a nameless file beside the journal, for
/// the tables that list every game to read again in schedule order ([`Listing`]). The
/// returned `games` is empty.
pub fn load_counting(
    path: &Path,
    count: &mut dyn FnMut(&GameSummary),
) -> Result<(Loaded, Listing), Error> {
    if let Err(source) = std::fs::metadata(path) {
        return Err(Error::Unreadable {
            path: path.to_path_buf(),
            source,
        });
    }
    let mut listing = ListingWriter::new(path.parent().unwrap_or(Path::new(".")), 0)?;
    let (read, known) = read_summaries(path, &mut |summary| {
        count(summary);
        listing.add(summary)
    })?;
    known.finish()?;
    let Some((version, plan, shard)) = read.header else {
        return Err(torn_header(path));
    };
    Ok((
        Loaded {
            plan,
            shard,
            version,
            games: Vec::new(),
            repair: read.tail.map(|(_, kind)| kind),
        },
        listing.finish()?,
    ))
}

/// A [`Listing`] being written, a game at a time: by [`load_counting`] as it reads a
/// journal, or by a run as it journals each game, so that its tables need not read the
/// journal again.
pub(crate) struct ListingWriter {
    spill: std::io::BufWriter<File>,
    folder: std::path::PathBuf,
    written: u64,
    lines: Vec<(u64, u64)>,
}

impl ListingWriter {
    /// A listing kept in a nameless file in `folder` (the journal's), of about `games`
    /// games when known (0 when not).
    pub(crate) fn new(folder: &Path, games: usize) -> Result<ListingWriter, Error> {
        let file = tempfile::tempfile_in(folder).map_err(|source| Error::Io {
            path: folder.to_path_buf(),
            source,
        })?;
        Ok(ListingWriter {
            spill: std::io::BufWriter::new(file),
            folder: folder.to_path_buf(),
            written: 0,
            // Sized at once when the number is known: a growing list of 100,000 games
            // leaves freed copies of itself behind.
            lines: Vec::with_capacity(games),
        })
    }

    /// Lists the next game (the first copy of its id: the caller keeps one).
    pub(crate) fn add(&mut self, summary: &GameSummary) -> Result<(), Error> {
        self.add_line(summary.id, &listed_line(summary))
    }

    /// [`ListingWriter::add`] of game `id` whose [`listed_line`] is `line`, made by the
    /// caller (a run makes it on the game thread that played the game).
    pub(crate) fn add_line(&mut self, id: u64, line: &str) -> Result<(), Error> {
        self.spill
            .write_all(line.as_bytes())
            .map_err(|source| Error::Io {
                path: self.folder.clone(),
                source,
            })?;
        self.lines.push((id, self.written));
        self.written += line.len() as u64;
        Ok(())
    }

    /// The listing of the games added, in schedule order.
    pub(crate) fn finish(self) -> Result<Listing, Error> {
        let ListingWriter {
            spill,
            folder,
            mut lines,
            ..
        } = self;
        let file = spill.into_inner().map_err(|e| Error::Io {
            path: folder.clone(),
            source: e.into_error(),
        })?;
        lines.sort_unstable();
        Ok(Listing {
            file,
            folder,
            lines,
        })
    }
}

/// The games of a journal kept on disk by [`load_counting`], to be read again one at a
/// time in schedule order ([`Listing::for_each`]): what games.csv and the feedback list of
/// each game, one short JSON line a game, read far faster than the journal's own lines.
/// The file has no name: it goes when the listing is dropped.
pub struct Listing {
    file: File,
    folder: std::path::PathBuf,
    /// Each game's id and the offset of its line, in schedule order.
    lines: Vec<(u64, u64)>,
}

impl Listing {
    /// Games listed.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether no game is listed.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Hands each game's summary to `visit`, in schedule order; its replay digest is not
    /// kept (all zero). Lines read in a row are read without seeking, so the games of a
    /// journal written in schedule order are read straight through.
    pub fn for_each(
        &self,
        visit: &mut dyn FnMut(&GameSummary) -> Result<(), Error>,
    ) -> Result<(), Error> {
        let io = |source| Error::Io {
            path: self.folder.clone(),
            source,
        };
        let mut file = &self.file;
        std::io::Seek::rewind(&mut file).map_err(io)?;
        let mut reader = BufReader::new(file);
        let mut at = 0u64;
        let mut line = Vec::new();
        for &(id, offset) in &self.lines {
            if offset != at {
                reader
                    .seek_relative(offset as i64 - at as i64)
                    .map_err(io)?;
            }
            line.clear();
            let read = reader.read_until(b'\n', &mut line).map_err(io)?;
            at = offset + read as u64;
            let summary = listed_summary(line.strip_suffix(b"\n").unwrap_or(&line))
                .ok()
                .filter(|g| g.id == id)
                .ok_or_else(|| {
                    io(std::io::Error::other(format!(
                        "the games kept for listing were changed: game {id} is not at byte {offset}"
                    )))
                })?;
            visit(&summary)?;
        }
        Ok(())
    }
}

fn torn_header(path: &Path) -> Error {
    Error::Input {
        path: path.to_path_buf(),
        line: 1,
        message: "the header line is torn (the run that created the journal was killed while \
                  writing it): the journal holds no game; rerun the tournament to start it \
                  afresh"
            .into(),
    }
}

/// The longest journal line read: a spelled-out record (format 3) of the longest game
/// takes a few megabytes; a line of gigabytes is no record, and is not held in memory.
const MAX_LINE_BYTES: u64 = 64 << 20;

/// Why a journal's first line is no header.
enum HeaderError {
    /// It is not JSON (a torn line, when it lacks its newline).
    NotJson(serde_json::Error),
    /// It is JSON, but no header this arbiter reads: why.
    Bad(String),
}

/// The header line `text` (without its newline): the journal's format, plan and shard.
fn header_of(text: &[u8]) -> Result<(u32, Plan, Option<Shard>), HeaderError> {
    let value = serde_json::from_slice::<serde_json::Value>(text).map_err(HeaderError::NotJson)?;
    let version = value
        .get("arbiter_journal")
        .and_then(|v| v.as_u64())
        .ok_or_else(|| {
            HeaderError::Bad("not an arbiter journal header: no `arbiter_journal` number".into())
        })?;
    if !(OLDEST_READABLE as u64..=FORMAT_VERSION as u64).contains(&version) {
        return Err(HeaderError::Bad(format!(
            "journal format {version} is not supported (this arbiter reads formats \
             {OLDEST_READABLE} to {FORMAT_VERSION})"
        )));
    }
    let h: Header = serde_json::from_value(value)
        .map_err(|e| HeaderError::Bad(format!("not an arbiter journal header: {e}")))?;
    Ok((version as u32, h.plan, h.shard))
}

/// The plan of the journal at `path`, from its header line alone (to start on the games
/// before they are read); `None` when the line is no header this arbiter reads, which a
/// whole reading then says.
pub fn read_plan(path: &Path) -> Option<Plan> {
    read_head(path).map(|(_, plan, _, _)| plan)
}

/// The header of the journal at `path` (format, plan, shard) and whether a whole line
/// follows it (a game), read without the games: what a run is checked against before it
/// writes anything. `None` when there is no header this arbiter reads.
pub(super) fn read_head(path: &Path) -> Option<(u32, Plan, Option<Shard>, bool)> {
    let file = File::open(path).ok()?;
    let mut reader = std::io::Read::take(BufReader::new(file), MAX_LINE_BYTES);
    let mut line = Vec::new();
    reader.read_until(b'\n', &mut line).ok()?;
    let (version, plan, shard) = header_of(line.strip_suffix(b"\n")?).ok()?;
    line.clear();
    reader.set_limit(MAX_LINE_BYTES);
    let game = reader.read_until(b'\n', &mut line).is_ok() && line.ends_with(b"\n");
    Some((version, plan, shard, game))
}

/// Reads a journal's lines: the header, the summary of each game (the first copy of each
/// id), and what is wrong with its last line.
pub(super) fn read(
    path: &Path,
    visit: &mut dyn FnMut(u64, GameRecord) -> Result<(), Error>,
) -> Result<Read, Error> {
    let mut games = Vec::new();
    let mut read = read_visiting(path, &mut |id, record| {
        games.push(GameSummary::of(id, &record));
        visit(id, record)
    })?;
    read.games = games;
    Ok(read)
}

/// Reads a journal's lines: the header and what is wrong with its last line, handing each
/// game (the first copy of each id) whole to `visit`; an error from `visit` stops the
/// reading. The returned `games` is empty: [`read`] fills it.
pub(super) fn read_visiting(
    path: &Path,
    visit: &mut dyn FnMut(u64, GameRecord) -> Result<(), Error>,
) -> Result<Read, Error> {
    read_at(path, &mut |id, _, record| visit(id, record))
}

/// [`read_visiting`], handing `visit` each game's id, the offset of its line and its
/// record.
fn read_at(
    path: &Path,
    visit: &mut dyn FnMut(u64, u64, GameRecord) -> Result<(), Error>,
) -> Result<Read, Error> {
    // A few lines at a time, decoded at once on every core: a whole record can be large,
    // and a report that replays every game would wait on one thread decoding them.
    read_with(path, RECORD_BATCH, &decode_game, visit)
}

/// Makes a game line's value of the journal's format and the line's text.
pub(crate) type Decode<'a, T> = dyn Fn(u32, &[u8]) -> Result<(u64, T), String> + Sync + 'a;

/// Game lines decoded at once when whole records are handed on: one per core, and a few
/// records held (a long game's is hundreds of kilobytes).
const RECORD_BATCH: usize = 4;

/// Game lines made at once by [`load_decoding`]: most are looked up in a cache, a few
/// decoded whole, which a few more than [`RECORD_BATCH`] keeps to a few megabytes.
const KNOWN_BATCH: usize = 16;

/// Game lines decoded at once when only their summaries are kept: enough to keep every
/// core busy, a few hundred kilobytes of lines.
const SUMMARY_BATCH: usize = 512;

/// A game line's summary, straight from its text.
fn summary_of(version: u32, text: &[u8]) -> Result<(u64, GameSummary), String> {
    decode_game(version, text).map(|(id, record)| (id, GameSummary::of(id, &record)))
}

/// A game line's summary and key ([`known`](super::known)): the one `known` holds for its
/// key, else decoded from the line.
fn summary_known(
    known: &Known,
    version: u32,
    text: &[u8],
) -> Result<(u64, (GameSummary, Option<Key>)), String> {
    let keyed = key_of(version, text);
    if let Some((id, key)) = keyed
        && let Some(summary) = known.summary(id, &key)
    {
        return Ok((id, (summary, Some(key))));
    }
    let (id, summary) = summary_of(version, text)?;
    // A line whose id is not the one it begins with is no line of this arbiter's.
    let key = keyed.filter(|(keyed, _)| *keyed == id).map(|(_, key)| key);
    Ok((id, (summary, key)))
}

/// [`read_summaries`] that hands `visit` each game's line too (without its newline), and
/// keeps no cache: what an update reads to rewrite the journal.
pub(super) fn read_summaries_and_lines(
    path: &Path,
    visit: &mut dyn FnMut(GameSummary, Vec<u8>) -> Result<(), Error>,
) -> Result<Read, Error> {
    let known = Known::of(path);
    read_with(
        path,
        SUMMARY_BATCH,
        &|version, text| {
            summary_known(&known, version, text)
                .map(|(id, (summary, _))| (id, (summary, text.to_vec())))
        },
        &mut |_, _, (summary, text)| visit(summary, text),
    )
}

/// Reads a journal's lines as [`read`] does, handing `visit` only each game's summary:
/// the ones the folder's cache knows are not decoded ([`known`](super::known)). Returns
/// the cache made anew for what was read, for the caller to finish, or to go on with as
/// it appends games.
pub(super) fn read_summaries(
    path: &Path,
    visit: &mut dyn FnMut(&GameSummary) -> Result<(), Error>,
) -> Result<(Read, Remembering), Error> {
    let known = Known::of(path);
    let mut remembering = Remembering::new(path)?;
    let read = read_with(
        path,
        SUMMARY_BATCH,
        &|version, text| summary_known(&known, version, text),
        &mut |_, _, (summary, key)| {
            remembering.add(key.as_ref(), &summary)?;
            visit(&summary)
        },
    )?;
    Ok((read, remembering))
}

/// Reads a journal's lines: the header and what is wrong with its last line, handing each
/// game (the first copy of each id, in journal order) to `visit` with the offset of its
/// line, as `decode` makes it of the journal's format and the line's text. Game lines are
/// decoded `batch` at a time, the lines of a batch on every core: decoding is most of the
/// time a large journal takes to read.
fn read_with<T: Send>(
    path: &Path,
    batch: usize,
    decode: &Decode<'_, T>,
    visit: &mut dyn FnMut(u64, u64, T) -> Result<(), Error>,
) -> Result<Read, Error> {
    use rayon::prelude::*;
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    let mut reader = BufReader::new(file);
    let mut offset: u64 = 0;
    let mut header: Option<(u32, Plan, Option<Shard>)> = None;
    let mut seen = std::collections::HashSet::new();
    let mut number = 0usize;
    let mut tail = None;
    // Lines read and not yet decoded: (line number, offset, whole, text with its newline).
    let mut lines: Vec<(usize, u64, bool, Vec<u8>)> = Vec::with_capacity(batch);
    let mut spare: Vec<Vec<u8>> = Vec::new();
    let mut ended = false;
    while !ended {
        let mut line = spare.pop().unwrap_or_default();
        line.clear();
        let read = std::io::Read::take(&mut reader, MAX_LINE_BYTES + 1)
            .read_until(b'\n', &mut line)
            .map_err(io)?;
        ended = read == 0;
        if !ended {
            number += 1;
            if read as u64 > MAX_LINE_BYTES {
                return Err(Error::Input {
                    path: path.to_path_buf(),
                    line: number,
                    message: format!(
                        "the line is longer than {} MiB, which no game's record needs",
                        MAX_LINE_BYTES >> 20
                    ),
                });
            }
            let complete = line.ends_with(b"\n");
            if number == 1 {
                let bad = |message: String| Error::Input {
                    path: path.to_path_buf(),
                    line: number,
                    message,
                };
                let text = line.strip_suffix(b"\n").unwrap_or(&line);
                match header_of(text) {
                    Err(HeaderError::NotJson(_)) if !complete => {
                        return Ok(Read {
                            header: None,
                            games: Vec::new(),
                            tail: Some((0, Repair::Dropped)),
                        });
                    }
                    Err(HeaderError::NotJson(e)) => {
                        return Err(bad(format!("not an arbiter journal header: {e}")));
                    }
                    Err(HeaderError::Bad(message)) => return Err(bad(message)),
                    Ok(read) => {
                        header = Some(read);
                        if !complete {
                            tail = Some((offset, Repair::Completed));
                        }
                    }
                }
            } else {
                lines.push((number, offset, complete, line));
            }
            offset += read as u64;
        }
        if lines.len() < batch.max(1) && !ended {
            continue;
        }
        let version = header.as_ref().map_or(FORMAT_VERSION, |(v, _, _)| *v);
        let decoded: Vec<Result<(u64, T), String>> = if lines.len() > 1 {
            lines
                .par_iter()
                .map(|(_, _, _, line)| decode(version, line.strip_suffix(b"\n").unwrap_or(line)))
                .collect()
        } else {
            lines
                .iter()
                .map(|(_, _, _, line)| decode(version, line.strip_suffix(b"\n").unwrap_or(line)))
                .collect()
        };
        for ((number, at, complete, line), result) in lines.drain(..).zip(decoded) {
            spare.push(line);
            match result {
                Ok((id, value)) => {
                    if !complete {
                        tail = Some((at, Repair::Completed));
                    }
                    if seen.insert(id) {
                        visit(id, at, value)?;
                    }
                }
                // Only the last line can lack its newline.
                Err(_) if !complete => {
                    tail = Some((at, Repair::Dropped));
                    ended = true;
                }
                Err(e) => {
                    return Err(Error::Input {
                        path: path.to_path_buf(),
                        line: number,
                        message: format!("not a game record: {e}"),
                    });
                }
            }
        }
        spare.truncate(batch);
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
