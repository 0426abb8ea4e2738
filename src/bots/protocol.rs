//! Protocol v1 messages (docs/PROTOCOL.md): one JSON object per line, both ways.
//!
//! [`ToBot`] is what the referee writes, [`FromBot`] what a bot answers. [`classify`] sorts
//! an incoming line into a message, a protocol violation (a JSON object that is no known
//! message) or chatter (anything that is not a JSON object, which is skipped).

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::io::{self, BufRead};

/// The protocol version announced in `hello`.
pub const PROTOCOL_VERSION: u32 = 1;

/// The longest line either side may send, newline excluded.
pub(crate) const MAX_LINE_BYTES: usize = 1 << 20;

/// Referee to bot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToBot {
    /// The first message: which game, which role, the limits and a seed for the bot's RNG.
    Hello {
        /// The protocol version, [`PROTOCOL_VERSION`].
        protocol: u32,
        /// The game's name (`asalto`).
        game: String,
        /// The bot's role for the whole game (`rebel` or `officer`).
        role: String,
        /// The move limit in milliseconds.
        time_limit_ms: u64,
        /// The limit for answering `hello` with `ready`, in milliseconds.
        init_limit_ms: u64,
        /// A seed for the bot's random numbers; differs per game and per seat.
        seed: u64,
    },
    /// The bot's turn: the board in the game's wire encoding plus game-specific fields
    /// (Asalto: `ply`, `illegal`).
    Turn {
        /// The role to move: always the bot's own.
        role: String,
        /// The position in the game's wire encoding.
        board: Value,
        /// The game's own fields, sent beside `board` at the top level of the message.
        #[serde(flatten)]
        fields: Map<String, Value>,
    },
    /// The game is over: `result` is `win`, `loss` or `tie` from the bot's point of view.
    End {
        /// `win`, `loss` or `tie`.
        result: String,
        /// The snake_case reason code: a rule ending or a failure (`timeout`, `crash`, ...).
        reason: String,
    },
}

/// Bot to referee.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromBot {
    /// The answer to `hello`.
    Ready {
        /// The name the bot announces, kept in the record; optional.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// The answer to `turn`: any JSON value; the game decides whether it is a legal move.
    Move {
        /// The `move` field: the move in the game's encoding, judged by the game alone.
        #[serde(rename = "move")]
        mv: Value,
    },
    /// The bot gives up with an exception (a loss).
    Error {
        /// What went wrong (usually a traceback string); any JSON, absent as `null`.
        #[serde(default)]
        message: Value,
    },
}

impl FromBot {
    /// The `error` message's text, whatever JSON the bot put there.
    pub fn error_text(message: &Value) -> String {
        match message {
            Value::String(s) => s.clone(),
            Value::Null => String::new(),
            other => other.to_string(),
        }
    }
}

/// One incoming line, sorted.
#[derive(Clone, Debug, PartialEq)]
pub enum Incoming<T> {
    /// A known message.
    Message(T),
    /// A JSON object that is not a valid message: why.
    Violation(String),
    /// Not a JSON object at all: the bot's own printing, skipped.
    Chatter,
}

/// Sorts one line (without its newline) from the other side.
pub fn classify<T: DeserializeOwned + Tagged>(line: &str) -> Incoming<T> {
    let line = line.trim();
    // Fast path: a well-formed message, read straight into its type. Anything else takes
    // the slow path, which says what is wrong.
    if line.starts_with('{') {
        if let Some(message) = T::quick(line) {
            return Incoming::Message(message);
        }
        if let Ok(message) = serde_json::from_str::<T>(line) {
            return Incoming::Message(message);
        }
    }
    // JSON allows what serde_json cannot hold: a lone surrogate escape (Python's
    // `json.dumps` writes one for a string from undecodable bytes) is read as U+FFFD, as
    // undecodable bytes are; a number out of range or nesting too deep makes the message
    // undecodable, which is said, not taken for chatter.
    let repaired = repair_lone_surrogates(line);
    let line = repaired.as_deref().unwrap_or(line);
    let value: Value = match serde_json::from_str(line) {
        Ok(v) => v,
        Err(e) if line.starts_with('{') && serde_json::from_str::<IgnoredAny>(line).is_ok() => {
            return undecodable(line, &e);
        }
        Err(_) => return Incoming::Chatter,
    };
    let Value::Object(object) = value else {
        return Incoming::Chatter;
    };
    let kind = match object.get("type") {
        None => return Incoming::Violation("a JSON object without a `type` field".into()),
        Some(Value::String(s)) => s.clone(),
        Some(other) => {
            return Incoming::Violation(format!("`type` must be a string, not {}", short(other)));
        }
    };
    if !T::TYPES.contains(&kind.as_str()) {
        return Incoming::Violation(format!(
            "unknown message type `{}` (expected one of: {})",
            truncate(&kind, 80),
            T::TYPES.join(", ")
        ));
    }
    match serde_json::from_value::<T>(Value::Object(object)) {
        Ok(message) => Incoming::Message(message),
        Err(e) => Incoming::Violation(format!("malformed `{}` message: {e}", truncate(&kind, 80))),
    }
}

/// A JSON object that serde_json cannot represent (`why`): the message its `type` names,
/// with the undecodable part said in it, when the direction has one for that type; else a
/// protocol violation.
fn undecodable<T: Tagged>(line: &str, why: &serde_json::Error) -> Incoming<T> {
    #[derive(Deserialize)]
    struct Envelope {
        #[serde(rename = "type")]
        kind: Option<Value>,
    }
    let kind = match serde_json::from_str::<Envelope>(line).map(|e| e.kind) {
        Ok(Some(Value::String(kind))) => kind,
        Ok(None) => return Incoming::Violation("a JSON object without a `type` field".into()),
        Ok(Some(other)) => {
            return Incoming::Violation(format!("`type` must be a string, not {}", short(&other)));
        }
        Err(e) => return Incoming::Violation(format!("a JSON object that cannot be decoded: {e}")),
    };
    match T::undecodable(&kind, &why.to_string()) {
        Some(message) => Incoming::Message(message),
        None => Incoming::Violation(format!(
            "a `{}` message that cannot be decoded: {why}",
            truncate(&kind, 80)
        )),
    }
}

/// `line` with every `\uXXXX` escape of a lone UTF-16 surrogate replaced by `\ufffd`;
/// `None` when it has none. A backslash can only stand inside a JSON string, so the
/// escapes are found without following the strings.
fn repair_lone_surrogates(line: &str) -> Option<String> {
    let bytes = line.as_bytes();
    let unit_at = |i: usize| -> Option<u16> {
        if bytes.get(i) != Some(&b'\\') || bytes.get(i + 1) != Some(&b'u') {
            return None;
        }
        let hex = line.get(i + 2..i + 6)?;
        hex.bytes()
            .all(|b| b.is_ascii_hexdigit())
            .then(|| u16::from_str_radix(hex, 16).ok())?
    };
    let high = |u: u16| (0xD800..0xDC00).contains(&u);
    let low = |u: u16| (0xDC00..0xE000).contains(&u);
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            i += 1;
            continue;
        }
        let Some(unit) = unit_at(i) else {
            // Another escape: skip the escaped character too (`\\` is one).
            i += 2;
            continue;
        };
        if high(unit) && unit_at(i + 6).is_some_and(low) {
            i += 12;
            continue;
        }
        if high(unit) || low(unit) {
            let repaired = out.get_or_insert_with(String::new);
            repaired.push_str(&line[copied..i]);
            repaired.push_str("\\ufffd");
            copied = i + 6;
        }
        i += 6;
    }
    out.map(|mut repaired| {
        repaired.push_str(&line[copied..]);
        repaired
    })
}

/// The message types a direction knows, for [`classify`]'s error messages.
pub trait Tagged: Sized {
    /// The `type` names of this direction's messages.
    const TYPES: &'static [&'static str];

    /// The message of type `kind` that stands for one serde_json cannot decode (`why`),
    /// if this direction has one.
    fn undecodable(kind: &str, why: &str) -> Option<Self> {
        let _ = (kind, why);
        None
    }

    /// The direction's most frequent message read from `line` by a quicker route than the
    /// tagged enum's, which buffers the whole object before it looks at its `type`; `None`
    /// leaves the line to the usual route. Where it gives a message, it is the one the
    /// usual route gives.
    fn quick(line: &str) -> Option<Self> {
        let _ = line;
        None
    }
}

impl Tagged for ToBot {
    const TYPES: &'static [&'static str] = &["hello", "turn", "end"];
}

/// The move recorded for a `move` message that cannot be decoded: a string, which no game
/// accepts as a move, so the turn is adjudicated as the illegal move it is.
pub const UNDECODABLE_MOVE_PREFIX: &str = "<undecodable move:";

impl Tagged for FromBot {
    const TYPES: &'static [&'static str] = &["ready", "move", "error"];

    /// A `move`, read as a plain struct. Whatever it does not take the same way as the
    /// tagged enum (an escaped `type`, a key twice, another type) fails here and goes the
    /// usual route.
    fn quick(line: &str) -> Option<Self> {
        #[derive(Deserialize)]
        struct MoveLine<'a> {
            #[serde(rename = "type")]
            kind: &'a str,
            #[serde(rename = "move")]
            mv: Value,
        }
        match serde_json::from_str::<MoveLine>(line) {
            Ok(MoveLine { kind: "move", mv }) => Some(FromBot::Move { mv }),
            _ => None,
        }
    }

    /// A `move` that cannot be decoded is an illegal move saying why; an `error` is still
    /// the bot's exception.
    fn undecodable(kind: &str, why: &str) -> Option<Self> {
        match kind {
            "move" => Some(FromBot::Move {
                mv: Value::String(format!("{UNDECODABLE_MOVE_PREFIX} {why}>")),
            }),
            "error" => Some(FromBot::Error {
                message: Value::String(format!("<an error message that cannot be decoded: {why}>")),
            }),
            _ => None,
        }
    }
}

/// One message as a protocol line, newline included.
pub fn encode<T: Serialize>(message: &T) -> String {
    // Serializing these types cannot fail: every map key is a string.
    let mut line = serde_json::to_string(message).unwrap_or_else(|_| "{}".into());
    line.push('\n');
    line
}

/// What [`read_line_bounded`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineRead {
    /// A line is in the buffer (newline and a trailing `\r` removed).
    Line,
    /// A line longer than the bound: consumed and discarded; its length in bytes.
    Overlong(usize),
    /// End of input, nothing pending.
    Eof,
}

/// Reads one line into `line`, keeping at most `max` bytes in memory: a longer line is
/// consumed to its end and reported as [`LineRead::Overlong`], so a bot cannot make the
/// harness buffer without limit. A last line without a newline still counts as a line.
pub fn read_line_bounded<R: BufRead>(
    reader: &mut R,
    line: &mut Vec<u8>,
    max: usize,
) -> io::Result<LineRead> {
    line.clear();
    let mut total = 0usize;
    let mut over = false;
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if buf.is_empty() {
            return Ok(match (total, over) {
                (0, _) => LineRead::Eof,
                (n, true) => LineRead::Overlong(n),
                (n, false) => end_line(line, n, max),
            });
        }
        let newline = buf.iter().position(|&b| b == b'\n');
        let chunk = &buf[..newline.unwrap_or(buf.len())];
        total = total.saturating_add(chunk.len());
        if !over {
            // One byte over the limit is held: it may be the `\r` of a `\r\n`.
            if line.len() + chunk.len() > max.saturating_add(1) {
                over = true;
                *line = Vec::new();
            } else {
                line.extend_from_slice(chunk);
            }
        }
        let used = chunk.len() + usize::from(newline.is_some());
        reader.consume(used);
        if newline.is_some() {
            if over {
                return Ok(LineRead::Overlong(total));
            }
            return Ok(end_line(line, total, max));
        }
    }
}

/// A complete line of `total` bytes: its `\r` removed, then held to the limit.
fn end_line(line: &mut Vec<u8>, total: usize, max: usize) -> LineRead {
    if line.last() == Some(&b'\r') {
        line.pop();
    }
    if line.len() > max {
        *line = Vec::new();
        return LineRead::Overlong(total);
    }
    LineRead::Line
}

/// The last `max` bytes of `text` (a traceback's end says most), marked when cut.
pub(crate) fn truncate_front(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut start = text.len() - max;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("[{} bytes cut] ...{}", start, &text[start..])
}

/// At most `max` bytes of `text`, cut at a character boundary, marked when cut.
pub(crate) fn truncate(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}... [{} bytes cut]", &text[..end], text.len() - end)
}

fn short(value: &Value) -> String {
    truncate(&value.to_string(), 80)
}

#[cfg(test)]
mod tests;
