//! The files of replays a report's game browser writes beside its page: one script per
//! block of games, each game's line deflated on its own ([`pack_line`]), and a private index
//! of what the blocks hold ([`KNOWN_FILE`]), so that the report of a journal that changed
//! a little (a league updated, run again, or rebuilt by `arbiter table`) replays only the
//! games it has not replayed before (a game it had is copied as it was packed, neither
//! inflated nor deflated again), and leaves a block whose games are all as they were as
//! it is.
//!
//! A game's line of a replays file depends only on the game's journal line (not its id:
//! an update may move a game to another id) and on the game, its rules, the seed and the
//! roles: each game is found by its journal line's key (`tournament::journal::key_of`),
//! the whole index by a digest of those settings and of the build that wrote it. A
//! game's replay is read back from the block written before, checked against that
//! block's digest in the index; a block rewritten since, or read once already and let go,
//! is not read again: its games are replayed as if unknown. The index ends with a digest
//! of everything before it: one cut short or edited is ignored whole and made again.
//! What the page shows is the same with or without it (tested); a report for the class
//! keeps none (its list is not the teacher's).

use super::{GameRow, Replayed};
use crate::error::Error;
use sha2::{Digest, Sha256};
use std::collections::{HashMap, HashSet, VecDeque};
use std::io::{Seek, Write};
use std::path::{Path, PathBuf};

/// The folder, inside a report's folder, that holds the page's replays: one script per
/// block of [`GAMES_PER_BLOCK`] games, `000000.js`, `000001.js`, ... in journal order.
pub(crate) const REPLAYS_DIR: &str = "replays";

/// The file of block `block` inside [`REPLAYS_DIR`].
pub(crate) fn block_file(block: usize) -> String {
    format!("{block:06}.js")
}

/// Games per block of replays (one file each): few enough that opening a game loads
/// little, enough that a league's folder holds few files.
pub(crate) const GAMES_PER_BLOCK: usize = 64;

/// The function a block's script calls, defined by the page: `(block, ids, data)`.
pub(crate) const BLOCK_CALLBACK: &str = "arbiterReplayBlock";

/// A game's line of a replays file as a block holds it: deflated (zlib, the fastest level)
/// and in base64, on its own. Each game is packed apart, where the game is replayed (on
/// the thread that played it, or on rayon's): a block is then only its games' packed
/// lines put together, and a league that grew writes its blocks again without deflating
/// (or inflating) a game it already had. A game deflated alone shrinks about as much as in
/// a block, its own positions being most of what it repeats: a league's replays take 0-10%
/// more room than deflated block by block (measured on Asalto leagues of built-ins).
pub(crate) fn pack_line(line: &str) -> String {
    crate::untrusted::deflate::deflate_base64(line.as_bytes(), flate2::Compression::fast())
}

/// The script of block `n` holding the games `ids` whose packed lines ([`pack_line`]) are
/// `packed`, each as a JSON string, comma-separated: one call
/// `arbiterReplayBlock(n, [ids], ["GAME", ...])`, which the page inflates a game at a time,
/// with the browser's own `DecompressionStream`, when the game is opened. A script rather
/// than data: a page opened from the disk may load scripts beside it but not fetch files.
pub(crate) fn block_script(n: usize, ids: &[u64], packed: &[u8]) -> String {
    let ids: Vec<String> = ids.iter().map(u64::to_string).collect();
    let mut script = format!("{BLOCK_CALLBACK}({n},[{}],[", ids.join(","));
    script.reserve(packed.len() + 4);
    // Base64 and quotes: ASCII.
    script.push_str(std::str::from_utf8(packed).unwrap_or_default());
    script.push_str("]);\n");
    script
}

/// A game of a journal for the game browser: replayed already (found in the report's
/// index), or its record to replay, with its journal line's key when known.
pub(crate) enum Item {
    Ready(Replayed),
    Record(u64, Box<crate::record::GameRecord>, Option<Key>),
}

/// A game's journal line's key (`tournament::journal::key_of`).
pub(crate) type Key = [u8; 16];

/// The index, in the report's folder beside the page: hidden, as no person reads it.
pub(crate) const KNOWN_FILE: &str = ".replays.known";

/// A block's digest: the SHA-256 of its script.
pub(crate) type BlockDigest = [u8; 32];

/// The first line of the index: its format, the build, and the settings that make a
/// game's replay: the game, its rules, the seed and the roles.
pub(crate) fn head(
    game: &str,
    rules: &serde_json::Map<String, serde_json::Value>,
    seed: u64,
    roles: &[String],
) -> String {
    let settings =
        serde_json::to_string(&(game, rules, seed, roles)).expect("settings always serialize");
    format!(
        "arbiter known replays 2 {} {}\n",
        env!("ARBITER_BUILD"),
        hex(&Sha256::digest(settings.as_bytes())[..16])
    )
}

/// How the last line begins: then the SHA-256 of every byte before it, in hex.
const END: &[u8] = b"end ";

/// A game's row of the list but its id: `[first, second, winner, reason, rounds, detail]`.
type Row = ([String; 2], i64, String, u32, String);

fn row_of(row: &GameRow) -> (&[String; 2], i64, &str, u32, &str) {
    (
        &row.players,
        row.winner,
        &row.reason,
        row.rounds,
        &row.detail,
    )
}

/// The blocks an index describes: each one's digest and its games' ids and keys, in
/// order (`None` for a game with no key).
pub(crate) type OldBlocks = Vec<(BlockDigest, Vec<(u64, Option<Key>)>)>;

/// The index of a report's folder as read: each known game's block, place and row, and
/// the blocks' games; with the blocks read back so far.
#[derive(Default)]
pub(crate) struct KnownReplays {
    folder: PathBuf,
    text: Vec<u8>,
    games: HashMap<Key, (usize, usize, (usize, usize))>,
    blocks: OldBlocks,
}

/// The blocks of an index read back so far: the last few, and which were tried.
#[derive(Default)]
pub(crate) struct BlocksRead {
    /// The packed lines of the blocks read back last, a few at most.
    read: VecDeque<(usize, Vec<String>)>,
    /// Blocks read back once (or found changed): never read again.
    tried: HashSet<usize>,
}

/// Blocks read back and held at once: a report replays its journal in order, and a game
/// an update moved comes from the block it was in or the next.
const BLOCKS_HELD: usize = 4;

impl KnownReplays {
    /// The index of the report in `out` whose first line is `head` ([`head`]); empty
    /// when there is none, or it is not whole, or of another build or other settings.
    pub(crate) fn of(out: &Path, head: &str) -> KnownReplays {
        let folder = out.join(REPLAYS_DIR);
        std::fs::read(out.join(KNOWN_FILE))
            .ok()
            .and_then(|text| KnownReplays::parse(text, head))
            .map(|known| KnownReplays { folder, ..known })
            .unwrap_or_default()
    }

    fn parse(text: Vec<u8>, head: &str) -> Option<KnownReplays> {
        let body = text.strip_suffix(b"\n")?;
        let end = body.iter().rposition(|&b| b == b'\n')? + 1;
        let digest = body[end..].strip_prefix(END)?;
        if digest != hex(&Sha256::digest(&text[..end])).as_bytes()
            || !text.starts_with(head.as_bytes())
        {
            return None;
        }
        let mut known = KnownReplays::default();
        let mut at = head.len();
        for line in text[head.len()..end].split_inclusive(|&b| b == b'\n') {
            let words = &line[..line.len() - 1];
            if let Some(digest) = words.strip_prefix(b"block ") {
                let mut bytes = [0; 32];
                let (a, b) = (digest.get(..32)?, digest.get(32..64)?);
                bytes[..16].copy_from_slice(&unhex(a)?);
                bytes[16..].copy_from_slice(&unhex(b)?);
                known.blocks.push((bytes, Vec::new()));
            } else {
                // `KEY ID ROW`, the key `-` for a game that has none.
                let mut parts = words.splitn(3, |&b| b == b' ');
                let (key, id, row) = (parts.next()?, parts.next()?, parts.next()?);
                let key = match key {
                    b"-" => None,
                    key => Some(unhex(key)?),
                };
                let id = std::str::from_utf8(id).ok()?.parse().ok()?;
                let block = known.blocks.len().checked_sub(1)?;
                let games = &mut known.blocks[block].1;
                if let Some(key) = key {
                    let from = at + (line.len() - 1 - row.len());
                    known
                        .games
                        .insert(key, (block, games.len(), (from, at + line.len() - 1)));
                }
                games.push((id, key));
            }
            at += line.len();
        }
        known.text = text;
        Some(known)
    }

    /// Whether the game of `key` is known.
    pub(crate) fn knows(&self, key: &Key) -> bool {
        self.games.contains_key(key)
    }

    /// The blocks the index describes, for [`super::replay::Browser`] to leave those
    /// whose games are all as they were.
    pub(crate) fn take_blocks(&mut self) -> OldBlocks {
        std::mem::take(&mut self.blocks)
    }

    /// Game `id` whose journal line's key is `key`, as the browser wrote it before: its
    /// row and its line read back from its block; `None` when it is not known, or its
    /// block is no longer as the index says, or was let go.
    pub(crate) fn replayed(
        &self,
        id: u64,
        key: &Key,
        blocks: &OldBlocks,
        reading: &mut BlocksRead,
    ) -> Option<Replayed> {
        let &(block, place, (from, to)) = self.games.get(key)?;
        let (players, winner, reason, rounds, detail): Row =
            serde_json::from_slice(&self.text[from..to]).ok()?;
        if !reading.read.iter().any(|(n, _)| *n == block) {
            if !reading.tried.insert(block) {
                return None;
            }
            let lines = read_block(&self.folder, block, &blocks.get(block)?.0)?;
            if reading.read.len() == BLOCKS_HELD {
                reading.read.pop_front();
            }
            reading.read.push_back((block, lines));
        }
        let (_, lines) = reading.read.iter().find(|(n, _)| *n == block)?;
        Some(Replayed {
            row: GameRow {
                id,
                players,
                winner,
                reason,
                rounds,
                detail,
            },
            packed: lines.get(place)?.clone(),
            key: Some(*key),
        })
    }
}

/// The packed lines ([`pack_line`]) of block `n` in `folder`, when its script's digest is
/// `digest`.
fn read_block(folder: &Path, n: usize, digest: &BlockDigest) -> Option<Vec<String>> {
    let script = std::fs::read(folder.join(block_file(n))).ok()?;
    if Sha256::digest(&script)[..] != digest[..] {
        return None;
    }
    // `arbiterReplayBlock(n,[ids],["GAME",...]);\n`: base64 holds no quote nor comma.
    let data = script.strip_suffix(b"]);\n")?;
    let data = &data[data.windows(3).position(|w| w == b"],[")? + 3..];
    if data.is_empty() {
        return Some(Vec::new());
    }
    data.split(|&b| b == b',')
        .map(|item| {
            let item = item.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
            String::from_utf8(item.to_vec()).ok()
        })
        .collect()
}

/// Whether block `n` of `folder` is still the script of `digest`: then a block of the same
/// games need not be written again.
pub(crate) fn block_is(folder: &Path, n: usize, digest: &BlockDigest) -> bool {
    std::fs::read(folder.join(block_file(n)))
        .is_ok_and(|script| Sha256::digest(&script)[..] == digest[..])
}

/// The digest of a block's script.
pub(crate) fn digest_of(script: &[u8]) -> BlockDigest {
    Sha256::digest(script).into()
}

/// The index being written anew as the browser takes its games: each game's key, id and
/// row wait in a nameless file (a few dozen bytes a game) until the blocks are written and
/// [`Indexing::finish`] writes the index whole.
pub(crate) struct Indexing {
    spill: std::io::BufWriter<std::fs::File>,
    path: PathBuf,
    failed: Option<std::io::Error>,
}

impl Indexing {
    /// An index for the report in `out`, its games waiting in `folder`.
    pub(crate) fn new(out: &Path, folder: &Path) -> Result<Indexing, Error> {
        let file = tempfile::tempfile_in(folder).map_err(|source| Error::Io {
            path: folder.to_path_buf(),
            source,
        })?;
        Ok(Indexing {
            spill: std::io::BufWriter::new(file),
            path: out.join(KNOWN_FILE),
            failed: None,
        })
    }

    /// Adds the next game.
    pub(crate) fn add(&mut self, game: &Replayed) {
        if self.failed.is_some() {
            return;
        }
        let key = game.key.map_or_else(|| "-".to_string(), |key| hex(&key));
        let mut line = format!("{key} {} ", game.row.id).into_bytes();
        serde_json::to_writer(&mut line, &row_of(&game.row)).expect("a row always serializes");
        line.push(b'\n');
        self.failed = self.spill.write_all(&line).err();
    }

    /// Writes the index whole, over the one before, its first line `head` ([`head`]): the
    /// games added, `per_block` a block, under their blocks' `digests`.
    pub(crate) fn finish(
        self,
        head: &str,
        per_block: usize,
        digests: &[Option<BlockDigest>],
    ) -> Result<(), Error> {
        let io = |source| Error::Io {
            path: self.path.clone(),
            source,
        };
        if let Some(e) = self.failed {
            return Err(io(e));
        }
        // Every block was written: a failure to write one was said before.
        let Some(digests) = digests.iter().copied().collect::<Option<Vec<_>>>() else {
            return Err(io(std::io::Error::other(
                "a block of replays was not written",
            )));
        };
        let mut file = self.spill.into_inner().map_err(|e| io(e.into_error()))?;
        file.rewind().map_err(io)?;
        let mut games = std::io::BufRead::lines(std::io::BufReader::new(file));
        crate::untrusted::file::write_atomic_with(&self.path, |out| {
            let mut hash = Sha256::new();
            let mut put = |bytes: &[u8]| {
                hash.update(bytes);
                out.write_all(bytes)
            };
            put(head.as_bytes())?;
            for digest in &digests {
                put(format!("block {}\n", hex(digest)).as_bytes())?;
                for line in games.by_ref().take(per_block) {
                    put(line?.as_bytes())?;
                    put(b"\n")?;
                }
            }
            let digest = hex(&hash.finalize());
            out.write_all(END)?;
            out.write_all(digest.as_bytes())?;
            out.write_all(b"\n")
        })
    }
}

/// Removes the index of the report in `out`: a report for the class keeps none (its
/// rows are not the teacher's, and a teacher's index names each game's error).
pub(crate) fn remove(out: &Path) -> Result<(), Error> {
    let path = out.join(KNOWN_FILE);
    match std::fs::remove_file(&path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(Error::Io { path, source: e }),
        _ => Ok(()),
    }
}

/// `bytes` in hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The 16 bytes written in hex as `text`.
pub(crate) fn unhex(text: &[u8]) -> Option<Key> {
    let mut key = [0; 16];
    for (i, pair) in text.chunks(2).enumerate() {
        let digit = |b: u8| (b as char).to_digit(16);
        *key.get_mut(i)? = (digit(pair[0])? * 16 + digit(*pair.get(1)?)?) as u8;
    }
    Some(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    /// What a block holds of each game is read back as it was packed, and inflates to the
    /// game's line: a league that grew copies it into its new block unchanged.
    #[test]
    fn a_blocks_packed_lines_are_read_back_as_written_and_inflate_to_each_games_line() {
        use base64::Engine;
        let lines = ["[7,[[\"a\",\"\"]],[]]", "[\"x\",\"y, \\\"z\\\"\"]", ""];
        let packed: Vec<String> = lines.iter().map(|l| pack_line(l)).collect();
        let joined: Vec<String> = packed.iter().map(|p| format!("\"{p}\"")).collect();
        let script = block_script(3, &[10, 11, 12], joined.join(",").as_bytes());
        assert!(
            script.starts_with("arbiterReplayBlock(3,[10,11,12],[\""),
            "{script}"
        );
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join(block_file(3)), &script).unwrap();
        let read = read_block(dir.path(), 3, &digest_of(script.as_bytes())).expect("read back");
        assert_eq!(read, packed);
        for (packed, line) in read.iter().zip(lines) {
            let zlib = base64::engine::general_purpose::STANDARD
                .decode(packed)
                .unwrap();
            let mut text = String::new();
            flate2::read::ZlibDecoder::new(zlib.as_slice())
                .read_to_string(&mut text)
                .unwrap();
            assert_eq!(text, line);
        }
        // Another digest: not read.
        assert_eq!(read_block(dir.path(), 3, &[0; 32]), None);
        // A block of no games.
        let empty = block_script(0, &[], b"");
        std::fs::write(dir.path().join(block_file(0)), &empty).unwrap();
        assert_eq!(
            read_block(dir.path(), 0, &digest_of(empty.as_bytes())),
            Some(Vec::new())
        );
    }
}
