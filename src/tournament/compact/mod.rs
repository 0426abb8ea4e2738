//! The compact game line of journal format 4.
//!
//! A format 3 line spelled out every move as a JSON object (`{"ply":12,"side":"rebel",
//! "reply":...,"verdict":"move","time_ms":0.0123}`): about 80 bytes a move, 160 KB for a
//! 1000-round game. A format 4 line keeps the fields a reader looks for (players, winner,
//! reason, rounds, ...) as plain JSON and packs the rest, the moves, the boards, the logs
//! and the failure detail, into one string:
//!
//! `{"game": ID, "record": {small fields}, "packed": BASE64}`
//!
//! `packed` is the standard base64 of a zlib stream of these parts, each unsigned integer
//! a LEB128 varint and each text its byte length then its UTF-8 bytes:
//!
//! 1. the rest of the record as one JSON text: `{"detail", "start_board", "opening",
//!    "final_board", "logs", "machine", "duration_ms"}` (the detail left out when there
//!    is none, what the machine's load did to the game when it did nothing, and the
//!    game's wall time in a record that has none: lines written before it was kept);
//! 2. the line's strings: the count, then each text: every side, verdict and reason the
//!    moves use, referred to below by index;
//! 3. the line's replies: the count, then each distinct reply as compact JSON text;
//! 4. the move count `n`, then the moves column by column, `n` values each: the ply
//!    (zigzag of its difference to the previous ply plus one, so consecutive plies are
//!    all zero), the side (string index), the verdict (string index), the reason (0 for
//!    none, else string index plus one), the reply (reply index) and the time taken in
//!    whole microseconds.
//!
//! Columns of small repeated numbers are what zlib compresses best: a 1000-round game
//! takes a few kilobytes. Every field reads back exactly as written except the times (a
//! move's and the game's), which are kept to the microsecond: each is a wall time measured
//! with `std::time::Instant`, and below a microsecond it is noise (the scheduler, the
//! channel between the referee and the bot); the limits a move's time is checked against
//! are milliseconds.

use crate::games::registry::MAX_PLIES;
use crate::record::{BotLogRecord, GameRecord, MachineLoad, MoveRecord};
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, HashMap};
use std::io::Read;

/// Inflated parts larger than this are refused: an honest line of the longest game
/// ([`MAX_PLIES`] turns, a few bytes each, with its logs' bounded tails) needs a fraction of
/// it, and a crafted one must not exhaust memory.
const MAX_INFLATED: u64 = 32 << 20;
/// Distinct sides, verdicts and reasons on one line: a handful in any real game.
const MAX_STRINGS: usize = 256;

/// The record's fields kept as plain JSON on the line.
#[derive(Serialize, Deserialize)]
struct Head {
    game: String,
    roles: Vec<String>,
    players: BTreeMap<String, String>,
    winner: Option<String>,
    reason: String,
    rounds: u32,
    plies: u32,
    illegal: BTreeMap<String, u32>,
    seed: u64,
    start: u64,
}

/// The record's large fields, packed as one JSON text.
#[derive(Serialize, Deserialize)]
struct Rest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    detail: Option<String>,
    start_board: Value,
    opening: Value,
    final_board: Value,
    logs: BTreeMap<String, BotLogRecord>,
    /// Absent on a quiet machine and in lines written before it was kept.
    #[serde(default, skip_serializing_if = "MachineLoad::is_empty")]
    machine: MachineLoad,
    /// The game's wall time: absent in lines written before it was kept (and an earlier
    /// arbiter, reading a line that has it, passes over it as an unknown field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    duration_ms: Option<f64>,
}

#[derive(Serialize)]
struct LineOut<'a> {
    game: u64,
    record: Head,
    packed: &'a str,
}

#[derive(Deserialize)]
struct LineIn {
    game: u64,
    record: Head,
    packed: String,
}

/// The time of a move as kept: whole microseconds, rounded to the nearest.
pub(crate) fn time_us(time_ms: f64) -> u64 {
    // A negative or non-finite time cannot come from a clock; it is kept as zero.
    if time_ms.is_finite() && time_ms > 0.0 {
        (time_ms * 1000.0).round() as u64
    } else {
        0
    }
}

/// A time in milliseconds as kept: to the microsecond ([`time_us`]).
fn keep_ms(time_ms: f64) -> f64 {
    time_us(time_ms) as f64 / 1000.0
}

/// Rounds the times of `record` (its moves' and its duration) as [`encode`] keeps them.
pub(crate) fn keep_times(record: &mut GameRecord) {
    for mv in &mut record.moves {
        mv.time_ms = keep_ms(mv.time_ms);
    }
    record.duration_ms = record.duration_ms.map(keep_ms);
}

/// The line of game `id` (without its newline).
pub(crate) fn encode(id: u64, record: &GameRecord) -> String {
    let mut raw = Vec::with_capacity(64 + record.moves.len() * 6);
    let rest = Rest {
        detail: record.detail.clone(),
        start_board: record.start_board.clone(),
        opening: record.opening.clone(),
        final_board: record.final_board.clone(),
        logs: record.logs.clone(),
        machine: record.machine.clone(),
        duration_ms: record.duration_ms.map(keep_ms),
    };
    put_text(
        &mut raw,
        &serde_json::to_string(&rest).expect("values always serialize"),
    );

    let mut strings = Interner::default();
    let mut replies = Interner::default();
    let mut columns: [Vec<u8>; 6] = Default::default();
    let mut previous_ply: i64 = -1;
    for mv in &record.moves {
        let ply = i64::from(mv.ply);
        put_varint(&mut columns[0], zigzag(ply - (previous_ply + 1)));
        previous_ply = ply;
        put_varint(&mut columns[1], strings.index(&mv.side));
        put_varint(&mut columns[2], strings.index(&mv.verdict));
        let reason = mv.reason.as_ref().map_or(0, |r| strings.index(r) + 1);
        put_varint(&mut columns[3], reason);
        put_varint(&mut columns[4], replies.index(&mv.reply.to_string()));
        put_varint(&mut columns[5], time_us(mv.time_ms));
    }
    for table in [&strings, &replies] {
        put_varint(&mut raw, table.texts.len() as u64);
        for text in &table.texts {
            put_text(&mut raw, text);
        }
    }
    put_varint(&mut raw, record.moves.len() as u64);
    for column in &columns {
        raw.extend_from_slice(column);
    }

    let packed = crate::untrusted::deflate::deflate_base64(&raw, flate2::Compression::best());
    let head = Head {
        game: record.game.clone(),
        roles: record.roles.clone(),
        players: record.players.clone(),
        winner: record.winner.clone(),
        reason: record.reason.clone(),
        rounds: record.rounds,
        plies: record.plies,
        illegal: record.illegal.clone(),
        seed: record.seed,
        start: record.start,
    };
    serde_json::to_string(&LineOut {
        game: id,
        record: head,
        packed: &packed,
    })
    .expect("a record always serializes")
}

/// Reads a line written by [`encode`]: the game's id and its record, or what is wrong.
pub(crate) fn decode(line: &[u8]) -> Result<(u64, GameRecord), String> {
    let line: LineIn = serde_json::from_slice(line).map_err(|e| e.to_string())?;
    // Every count below is bounded by what the record itself says before anything is
    // allocated from it: a line may claim anything.
    let plies = line.record.plies;
    if plies > MAX_PLIES {
        return Err(format!(
            "the record claims {plies} turns; no game runs past {MAX_PLIES}"
        ));
    }
    let zlib = base64::engine::general_purpose::STANDARD
        .decode(line.packed.as_bytes())
        .map_err(|e| format!("`packed` is not base64: {e}"))?;
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(zlib.as_slice())
        .take(MAX_INFLATED + 1)
        .read_to_end(&mut raw)
        .map_err(|e| format!("`packed` is not a zlib stream: {e}"))?;
    if raw.len() as u64 > MAX_INFLATED {
        return Err(format!("`packed` inflates past {MAX_INFLATED} bytes"));
    }
    let mut input = Reader { bytes: &raw, at: 0 };
    let rest: Rest = serde_json::from_str(input.text("the boards and logs")?)
        .map_err(|e| format!("`packed` boards and logs: {e}"))?;
    // The strings are the few names of sides, verdicts and reasons; each distinct reply is
    // some move's.
    let strings = input.texts("strings", MAX_STRINGS)?;
    let replies = input
        .texts("replies", plies as usize)?
        .into_iter()
        .map(|text| {
            serde_json::from_str::<Value>(text).map_err(|e| format!("`packed` reply {text}: {e}"))
        })
        .collect::<Result<Vec<Value>, String>>()?;
    let n = input.count("moves")?;
    if n > plies as usize {
        return Err(format!(
            "`packed` claims {n} moves, more than the record's {plies} turns"
        ));
    }
    let mut columns: [Vec<u64>; 6] = Default::default();
    for (column, name) in columns
        .iter_mut()
        .zip(["ply", "side", "verdict", "reason", "reply", "time"])
    {
        column.reserve(n);
        for _ in 0..n {
            column.push(input.varint(name)?);
        }
    }
    if input.at != raw.len() {
        return Err(format!(
            "`packed` has {} bytes after its last move",
            raw.len() - input.at
        ));
    }
    let string = |i: u64, what: &str, at: usize| {
        strings
            .get(i as usize)
            .map(|s| s.to_string())
            .ok_or_else(|| {
                format!(
                    "`packed` move {at}: {what} {i} is not among the line's {} strings",
                    strings.len()
                )
            })
    };
    let [plies, sides, verdicts, reasons, reply_ids, times] = &columns;
    let mut moves = Vec::with_capacity(n);
    let mut previous_ply: i64 = -1;
    for (at, &ply_code) in plies.iter().enumerate() {
        let ply = previous_ply + 1 + unzigzag(ply_code);
        let ply = u32::try_from(ply).map_err(|_| format!("`packed` move {at}: ply {ply}"))?;
        previous_ply = i64::from(ply);
        let reply = replies
            .get(reply_ids[at] as usize)
            .cloned()
            .ok_or_else(|| {
                format!(
                    "`packed` move {at}: reply {} is not among the line's {} replies",
                    reply_ids[at],
                    replies.len()
                )
            })?;
        moves.push(MoveRecord {
            ply,
            side: string(sides[at], "side", at)?,
            reply,
            verdict: string(verdicts[at], "verdict", at)?,
            reason: match reasons[at] {
                0 => None,
                i => Some(string(i - 1, "reason", at)?),
            },
            time_ms: times[at] as f64 / 1000.0,
        });
    }
    let head = line.record;
    Ok((
        line.game,
        GameRecord {
            game: head.game,
            roles: head.roles,
            players: head.players,
            winner: head.winner,
            reason: head.reason,
            detail: rest.detail,
            rounds: head.rounds,
            plies: head.plies,
            illegal: head.illegal,
            seed: head.seed,
            start: head.start,
            start_board: rest.start_board,
            opening: rest.opening,
            moves,
            final_board: rest.final_board,
            logs: rest.logs,
            machine: rest.machine,
            duration_ms: rest.duration_ms,
        },
    ))
}

/// Distinct texts in order of first use.
#[derive(Default)]
struct Interner {
    texts: Vec<String>,
    index: HashMap<String, u64>,
}

impl Interner {
    fn index(&mut self, text: &str) -> u64 {
        if let Some(&i) = self.index.get(text) {
            return i;
        }
        let i = self.texts.len() as u64;
        self.texts.push(text.to_string());
        self.index.insert(text.to_string(), i);
        i
    }
}

fn zigzag(n: i64) -> u64 {
    ((n << 1) ^ (n >> 63)) as u64
}

fn unzigzag(n: u64) -> i64 {
    ((n >> 1) as i64) ^ -((n & 1) as i64)
}

fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn put_text(out: &mut Vec<u8>, text: &str) {
    put_varint(out, text.len() as u64);
    out.extend_from_slice(text.as_bytes());
}

/// Reads the inflated parts, every read checked against the end.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn varint(&mut self, what: &str) -> Result<u64, String> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let Some(&byte) = self.bytes.get(self.at) else {
                return Err(format!("`packed` ends inside its {what}"));
            };
            self.at += 1;
            n |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Ok(n);
            }
        }
        Err(format!("`packed` has a {what} number longer than 64 bits"))
    }

    /// A count of things that each take at least one byte: never more than what is left.
    fn count(&mut self, what: &str) -> Result<usize, String> {
        let n = self.varint(what)?;
        let left = (self.bytes.len() - self.at) as u64;
        if n > left {
            return Err(format!(
                "`packed` claims {n} {what} in its last {left} bytes"
            ));
        }
        Ok(n as usize)
    }

    fn text(&mut self, what: &str) -> Result<&'a str, String> {
        let len = self.count(what)?;
        let bytes = &self.bytes[self.at..self.at + len];
        self.at += len;
        std::str::from_utf8(bytes).map_err(|e| format!("`packed` {what}: {e}"))
    }

    fn texts(&mut self, what: &str, most: usize) -> Result<Vec<&'a str>, String> {
        let n = self.count(what)?;
        if n > most {
            return Err(format!(
                "`packed` claims {n} {what}, more than the {most} a record can hold"
            ));
        }
        (0..n).map(|_| self.text(what)).collect()
    }
}

#[cfg(test)]
mod tests;
