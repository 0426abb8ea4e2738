//! The games a folder's journal is known to hold: a private cache beside the journal
//! ([`KNOWN_FILE`]) of each game line's summary, so that a reading of the journal that
//! needs only the results (a resumed run, an update, `arbiter table`) decodes only the
//! lines it has not seen before: decoding a line (inflating its moves, replaying their
//! times and digest) is most of what reading a journal costs, and a league that grows
//! by a bot would otherwise decode every game it keeps, each time.
//!
//! A line's entry is found by a digest of the journal's format and the line without its
//! id (`{"game":ID,` and the rest): a game moved to another id by an update keeps its
//! entry. An entry is only ever made from a line decoded (or written) by this arbiter, so
//! whatever the journal says the summary is the line's own. The file is written whole,
//! its entries in journal order, and ends with a digest of everything before it: a file
//! cut short, edited or of another version is ignored as a whole and made again; entries
//! of lines no longer in the journal are left out when it is written again. No output
//! reads it but the readings it spares, and what they make is the same with or without
//! it (tested).

use super::listed::{Listed, listed_fields, listed_of};
use crate::error::Error;
use crate::record::GameSummary;
use crate::replay::files::{hex, unhex};
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// The cache's file, beside the journal: hidden, as no person reads it.
pub const KNOWN_FILE: &str = ".games.known";

/// The first line of the cache: its own format and the build that wrote it (a summary is
/// what this build makes of a line; another build's cache is made again).
fn head() -> String {
    format!("arbiter known games 1 {}\n", env!("ARBITER_BUILD"))
}
/// How the last line begins: then the SHA-256 of every byte before it, in hex.
const END: &[u8] = b"end ";

/// A game line's key: its digest without the id.
pub(crate) use crate::replay::files::Key;

/// The game line `line` (without its newline) of a journal in format `version`: its id
/// and key, or `None` when it does not begin as every line this arbiter writes does
/// (`{"game":ID,`), which is then decoded as it is, never cached.
pub(crate) fn key_of(version: u32, line: &[u8]) -> Option<(u64, Key)> {
    let (id, rest) = split_id(line)?;
    let mut hash = Sha256::new();
    hash.update(version.to_le_bytes());
    hash.update(rest);
    let mut key = [0; 16];
    key.copy_from_slice(&hash.finalize()[..16]);
    Some((id, key))
}

/// The id a game line begins with (`{"game":ID,`) and the rest of the line from the comma
/// on; `None` when it does not begin so.
fn split_id(line: &[u8]) -> Option<(u64, &[u8])> {
    let rest = line.strip_prefix(b"{\"game\":")?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    // JSON has no leading zeros: such a line is no line of this arbiter's.
    if digits == 0 || (digits > 1 && rest[0] == b'0') || rest.get(digits) != Some(&b',') {
        return None;
    }
    let id = std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()?;
    Some((id, &rest[digits..]))
}

/// A game line without its id ([`split_id`]), from the comma after it on.
pub(super) fn after_id(line: &[u8]) -> Option<&[u8]> {
    split_id(line).map(|(_, rest)| rest)
}

/// The entries of a folder's cache, read whole: each key and its summary's text.
#[derive(Default)]
pub(crate) struct Known {
    text: Vec<u8>,
    entries: HashMap<Key, (usize, usize)>,
}

impl Known {
    /// The cache beside the journal at `journal`; empty when there is none, or it is not
    /// whole (cut short, edited, of another version).
    pub(crate) fn of(journal: &Path) -> Known {
        let path = journal.with_file_name(KNOWN_FILE);
        let Ok(text) = std::fs::read(path) else {
            return Known::default();
        };
        Known::parse(text).unwrap_or_default()
    }

    fn parse(text: Vec<u8>) -> Option<Known> {
        let body = text.strip_suffix(b"\n")?;
        let end = body.iter().rposition(|&b| b == b'\n')? + 1;
        let digest = body[end..].strip_prefix(END)?;
        let head = head();
        if digest != hex(&Sha256::digest(&text[..end])).as_bytes()
            || !text.starts_with(head.as_bytes())
        {
            return None;
        }
        let mut entries = HashMap::new();
        let mut at = head.len();
        for line in text[head.len()..end].split_inclusive(|&b| b == b'\n') {
            let key = unhex(line.get(..32)?)?;
            if line.get(32) != Some(&b' ') {
                return None;
            }
            entries.insert(key, (at + 33, at + line.len() - 1));
            at += line.len();
        }
        Some(Known { text, entries })
    }

    /// Whether the summary of the line of `key` is known.
    pub(crate) fn knows(&self, key: &Key) -> bool {
        self.entries.contains_key(key)
    }

    /// The summary of game `id` whose line's key is `key`, when it is known.
    pub(crate) fn summary(&self, id: u64, key: &Key) -> Option<GameSummary> {
        let &(from, to) = self.entries.get(key)?;
        let (fields, replay): (Listed<String>, [u8; 12]) =
            serde_json::from_slice(&self.text[from..to]).ok()?;
        let mut summary = listed_of(fields);
        summary.id = id;
        summary.replay = replay;
        Some(summary)
    }
}

/// The cache being written anew, a game at a time in journal order: by a reading of the
/// journal, then by a run as it appends each game. The entries wait in a nameless file
/// (a few hundred bytes a game) until [`Remembering::finish`] writes the cache whole.
pub(crate) struct Remembering {
    spill: std::io::BufWriter<std::fs::File>,
    path: PathBuf,
}

impl Remembering {
    /// A cache for the journal at `journal`, with no entry yet.
    pub(crate) fn new(journal: &Path) -> Result<Remembering, Error> {
        let path = journal.with_file_name(KNOWN_FILE);
        let folder = journal.parent().unwrap_or(Path::new("."));
        let file = tempfile::tempfile_in(folder).map_err(|source| Error::Io {
            path: folder.to_path_buf(),
            source,
        })?;
        Ok(Remembering {
            spill: std::io::BufWriter::new(file),
            path,
        })
    }

    /// Adds the next game of the journal: its line's key (none for a line that has none)
    /// and its summary.
    pub(crate) fn add(&mut self, key: Option<&Key>, summary: &GameSummary) -> Result<(), Error> {
        let Some(key) = key else { return Ok(()) };
        let entry = (listed_fields(summary), summary.replay);
        let mut line = hex(key).into_bytes();
        line.push(b' ');
        serde_json::to_writer(&mut line, &entry).expect("a summary always serializes");
        line.push(b'\n');
        self.spill.write_all(&line).map_err(|source| Error::Io {
            path: self.path.clone(),
            source,
        })
    }

    /// [`Remembering::add`] of a game line `line` (its newline may follow) of format
    /// `version`.
    pub(crate) fn add_line(
        &mut self,
        version: u32,
        line: &str,
        summary: &GameSummary,
    ) -> Result<(), Error> {
        let line = line.strip_suffix('\n').unwrap_or(line).as_bytes();
        self.add(key_of(version, line).map(|(_, key)| key).as_ref(), summary)
    }

    /// Writes the cache whole, over the one before.
    pub(crate) fn finish(self) -> Result<(), Error> {
        let io = |source| Error::Io {
            path: self.path.clone(),
            source,
        };
        let mut file = self.spill.into_inner().map_err(|e| io(e.into_error()))?;
        file.rewind().map_err(io)?;
        crate::untrusted::file::write_atomic_with(&self.path, |out| {
            let head = head();
            let mut hash = Sha256::new();
            hash.update(head.as_bytes());
            out.write_all(head.as_bytes())?;
            let mut buffer = vec![0; 1 << 16];
            loop {
                let n = file.read(&mut buffer)?;
                if n == 0 {
                    break;
                }
                hash.update(&buffer[..n]);
                out.write_all(&buffer[..n])?;
            }
            out.write_all(END)?;
            out.write_all(hex(&hash.finalize()).as_bytes())?;
            out.write_all(b"\n")
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_keyed_without_its_id_and_only_when_it_begins_as_arbiters_do() {
        let (a, ka) = key_of(4, br#"{"game":12,"record":{}}"#).unwrap();
        let (b, kb) = key_of(4, br#"{"game":7,"record":{}}"#).unwrap();
        assert_eq!((a, b), (12, 7));
        assert_eq!(ka, kb, "the id is no part of the key");
        assert_ne!(ka, key_of(3, br#"{"game":7,"record":{}}"#).unwrap().1);
        assert_ne!(ka, key_of(4, br#"{"game":7,"record":{"a":1}}"#).unwrap().1);
        for line in [
            &br#"{"game":012,"record":{}}"#[..],
            br#"{"game":,"record":{}}"#,
            br#"{ "game":1,"record":{}}"#,
            br#"{"game":99999999999999999999999,"record":{}}"#,
            br#"{"game":1}"#,
        ] {
            assert!(
                key_of(4, line).is_none(),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }

    #[test]
    fn a_cache_cut_short_or_edited_is_ignored_whole() {
        let dir = tempfile::tempdir().unwrap();
        let journal = dir.path().join("games.jsonl");
        let summary = GameSummary {
            id: 3,
            players: [crate::record::shared("a"), crate::record::shared("b")],
            roles: [crate::record::shared("x"), crate::record::shared("y")],
            winner: Some(1),
            reason: crate::record::shared("win"),
            rounds: 9,
            illegal: [0, 1],
            blocked: [0, 0],
            max_ms: [0.25, 1.5],
            mean_ms: [0.125, 0.1],
            seed: 77,
            detail: crate::record::shared(""),
            pair: 4,
            opening: crate::record::shared("[]"),
            replay: [7; 12],
            machine: Default::default(),
            duration_ms: Some(1234.567),
        };
        let line = r#"{"game":3,"record":{"x":1}}"#;
        let mut remembering = Remembering::new(&journal).unwrap();
        remembering.add_line(4, line, &summary).unwrap();
        remembering.finish().unwrap();
        let (_, key) = key_of(4, line.as_bytes()).unwrap();
        let known = Known::of(&journal);
        let mut moved = summary.clone();
        moved.id = 40;
        assert_eq!(known.summary(40, &key), Some(moved));
        let path = dir.path().join(KNOWN_FILE);
        let text = std::fs::read(&path).unwrap();
        std::fs::write(&path, &text[..text.len() - 3]).unwrap();
        assert!(Known::of(&journal).summary(3, &key).is_none(), "cut short");
        let edited = String::from_utf8(text).unwrap().replace("77", "78");
        std::fs::write(&path, edited).unwrap();
        assert!(Known::of(&journal).summary(3, &key).is_none(), "edited");
    }
}
