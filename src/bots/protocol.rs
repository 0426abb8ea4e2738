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
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Referee to bot.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ToBot {
    /// The first message: which game, which role, the limits and a seed for the bot's RNG.
    Hello {
        protocol: u32,
        game: String,
        role: String,
        time_limit_ms: u64,
        init_limit_ms: u64,
        seed: u64,
    },
    /// The bot's turn: the board in the game's wire encoding plus game-specific fields
    /// (Asalto: `ply`, `illegal`).
    Turn {
        role: String,
        board: Value,
        #[serde(flatten)]
        fields: Map<String, Value>,
    },
    /// The game is over: `result` is `win`, `loss` or `tie` from the bot's point of view.
    End { result: String, reason: String },
}

/// Bot to referee.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum FromBot {
    /// The answer to `hello`.
    Ready {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
    },
    /// The answer to `turn`: any JSON value; the game decides whether it is a legal move.
    Move {
        #[serde(rename = "move")]
        mv: Value,
    },
    /// The bot gives up with an exception (a loss).
    Error {
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
pub fn truncate_front(text: &str, max: usize) -> String {
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
pub fn truncate(text: &str, max: usize) -> String {
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
mod tests {
    use super::*;
    use serde_json::json;

    fn from_bot(line: &str) -> Incoming<FromBot> {
        classify(line)
    }

    #[test]
    fn hello_encodes_exactly() {
        let hello = ToBot::Hello {
            protocol: PROTOCOL_VERSION,
            game: "asalto".into(),
            role: "rebel".into(),
            time_limit_ms: 10000,
            init_limit_ms: 30000,
            seed: 7,
        };
        let line = encode(&hello);
        assert_eq!(
            line,
            "{\"type\":\"hello\",\"protocol\":1,\"game\":\"asalto\",\"role\":\"rebel\",\
             \"time_limit_ms\":10000,\"init_limit_ms\":30000,\"seed\":7}\n"
        );
        assert_eq!(classify::<ToBot>(&line), Incoming::Message(hello));
    }

    #[test]
    fn turn_encodes_exactly_with_game_fields_flattened() {
        let mut fields = Map::new();
        fields.insert("ply".into(), json!(0));
        fields.insert("illegal".into(), json!({"rebel": 0, "officer": 1}));
        let turn = ToBot::Turn {
            role: "rebel".into(),
            board: json!(["  ...  ", "  O.O  "]),
            fields,
        };
        let line = encode(&turn);
        assert_eq!(
            line,
            "{\"type\":\"turn\",\"role\":\"rebel\",\"board\":[\"  ...  \",\"  O.O  \"],\
             \"illegal\":{\"officer\":1,\"rebel\":0},\"ply\":0}\n"
        );
        assert_eq!(classify::<ToBot>(&line), Incoming::Message(turn));
    }

    #[test]
    fn end_encodes_exactly() {
        let end = ToBot::End {
            result: "win".into(),
            reason: "fortress_full".into(),
        };
        let line = encode(&end);
        assert_eq!(
            line,
            "{\"type\":\"end\",\"result\":\"win\",\"reason\":\"fortress_full\"}\n"
        );
        assert_eq!(classify::<ToBot>(&line), Incoming::Message(end));
    }

    #[test]
    fn ready_with_and_without_a_name() {
        assert_eq!(
            from_bot(r#"{"type":"ready","name":"Team05"}"#),
            Incoming::Message(FromBot::Ready {
                name: Some("Team05".into())
            })
        );
        assert_eq!(
            from_bot(r#"{"type":"ready"}"#),
            Incoming::Message(FromBot::Ready { name: None })
        );
        assert_eq!(
            encode(&FromBot::Ready { name: None }),
            "{\"type\":\"ready\"}\n"
        );
        assert_eq!(
            encode(&FromBot::Ready {
                name: Some("x".into())
            }),
            "{\"type\":\"ready\",\"name\":\"x\"}\n"
        );
    }

    #[test]
    fn move_carries_any_json() {
        for mv in [
            json!([[3, 3], [2, 3]]),
            json!(null),
            json!("e2e4"),
            json!(3.5),
        ] {
            let line = json!({"type": "move", "move": mv}).to_string();
            assert_eq!(
                from_bot(&line),
                Incoming::Message(FromBot::Move { mv: mv.clone() })
            );
        }
        assert_eq!(
            encode(&FromBot::Move {
                mv: json!([[3, 3], [2, 3]])
            }),
            "{\"type\":\"move\",\"move\":[[3,3],[2,3]]}\n"
        );
    }

    #[test]
    fn error_message_is_kept_as_text() {
        let Incoming::Message(FromBot::Error { message }) =
            from_bot(r#"{"type":"error","message":"Traceback: boom"}"#)
        else {
            panic!("expected an error message")
        };
        assert_eq!(FromBot::error_text(&message), "Traceback: boom");
        let Incoming::Message(FromBot::Error { message }) = from_bot(r#"{"type":"error"}"#) else {
            panic!("expected an error message")
        };
        assert_eq!(FromBot::error_text(&message), "");
        assert_eq!(
            encode(&FromBot::Error {
                message: json!("boom")
            }),
            "{\"type\":\"error\",\"message\":\"boom\"}\n"
        );
    }

    #[test]
    fn the_quick_route_reads_a_move_as_the_tagged_enum_does() {
        let lines = [
            r#"{"type":"move","move":[[4,0],[3,0]]}"#,
            r#"{"move":[[4,0],[3,0]],"type":"move"}"#,
            r#"{ "type" : "move" , "move" : [ [4, 0] , [3,0] ] , "eval": {"a": [1]} }"#,
            r#"{"type":"move","move":null}"#,
            r#"{"type":"move","move":"e2\u0065"}"#,
            r#"{"type":"move","move":[1e300]}"#,
            r#"{"type":"move","move":123456789012345678901234567890}"#,
            r#"{"type":"move","move":-0.0,"move2":1}"#,
        ];
        for line in lines {
            let quick = FromBot::quick(line);
            assert!(quick.is_some(), "{line}");
            assert_eq!(quick, serde_json::from_str::<FromBot>(line).ok(), "{line}");
            assert_eq!(from_bot(line), Incoming::Message(quick.unwrap()), "{line}");
        }
        // Left to the usual route, which reads some of them otherwise.
        for line in [
            r#"{"type":"move","move":1,"move":2}"#,
            r#"{"type":"move","type":"move","move":1}"#,
            r#"{"type":"mov\u0065","move":1}"#,
            r#"{"type":"error","move":1}"#,
            r#"{"type":"ready"}"#,
            r#"{"type":"move"}"#,
            r#"{"type":"move","move":"\ud800"}"#,
            r#"{"type":"move","move":[1e400]}"#,
            r#"{"type":"move","move":1} x"#,
        ] {
            assert_eq!(FromBot::quick(line), None, "{line}");
        }
        assert_eq!(
            from_bot(r#"{"type":"mov\u0065","move":1}"#),
            Incoming::Message(FromBot::Move { mv: json!(1) })
        );
        assert_eq!(
            from_bot(r#"{"type":"move","move":1,"move":2}"#),
            Incoming::Message(FromBot::Move { mv: json!(2) })
        );
    }

    #[test]
    fn unknown_fields_are_ignored() {
        assert_eq!(
            from_bot(r#"{"type":"move","move":[[1,2],[1,3]],"eval":0.5}"#),
            Incoming::Message(FromBot::Move {
                mv: json!([[1, 2], [1, 3]])
            })
        );
    }

    #[test]
    fn objects_that_are_not_messages_are_violations() {
        for line in [
            r#"{}"#,
            r#"{"move":[[1,2],[1,3]]}"#,
            r#"{"type":"moov","move":1}"#,
            r#"{"type":7}"#,
            r#"{"type":"move"}"#,
            r#"{"type":"ready","name":5}"#,
            r#"{"type":"hello"}"#,
        ] {
            assert!(
                matches!(from_bot(line), Incoming::Violation(_)),
                "{line} should be a violation"
            );
        }
    }

    #[test]
    fn anything_else_is_chatter() {
        for line in [
            "",
            "   ",
            "thinking...",
            "[[3,3],[2,3]]",
            "42",
            "\"move\"",
            "null",
            "{\"type\":\"move\"",
            "{\"type\":\"move\",\"move\":1} trailing",
            "\u{fffd}\u{fffd}",
        ] {
            assert_eq!(
                from_bot(line),
                Incoming::Chatter,
                "{line:?} should be chatter"
            );
        }
    }

    #[test]
    fn lone_surrogates_are_read_as_replacement_characters() {
        assert_eq!(
            from_bot(r#"{"type":"move","move":"\ud800"}"#),
            Incoming::Message(FromBot::Move {
                mv: json!("\u{fffd}")
            })
        );
        let Incoming::Message(FromBot::Error { message }) = from_bot(
            r#"{"type":"error","message":"Traceback: bad name \udcff\\udcff \ud83d\ude00"}"#,
        ) else {
            panic!("expected an error message")
        };
        assert_eq!(
            message,
            json!("Traceback: bad name \u{fffd}\\udcff \u{1f600}")
        );
        assert_eq!(
            repair_lone_surrogates(r#"{"a":"\ud83d\ude00 \\ud800"}"#),
            None
        );
        assert_eq!(
            repair_lone_surrogates(r#"["\udc00\ud800","\ud800x"]"#).as_deref(),
            Some(r#"["\ufffd\ufffd","\ufffdx"]"#)
        );
    }

    #[test]
    fn json_that_serde_json_cannot_hold_is_said_not_skipped() {
        let huge = format!(
            r#"{{"type":"move","move":[[{},2],[2,2]]}}"#,
            "1".repeat(400)
        );
        let deep = format!(
            r#"{{"type":"move","move":{}1{}}}"#,
            "[".repeat(200),
            "]".repeat(200)
        );
        for line in [huge, deep] {
            let Incoming::Message(FromBot::Move { mv }) = from_bot(&line) else {
                panic!("expected a move for {line:.60}")
            };
            assert!(
                mv.as_str().unwrap().starts_with(UNDECODABLE_MOVE_PREFIX),
                "{mv}"
            );
        }
        let error = format!(r#"{{"type":"error","message":[{}]}}"#, "9".repeat(400));
        assert!(matches!(
            from_bot(&error),
            Incoming::Message(FromBot::Error { .. })
        ));
        let ready = format!(r#"{{"type":"ready","name":{}}}"#, "9".repeat(400));
        assert!(matches!(from_bot(&ready), Incoming::Violation(_)));
        let untyped = format!(r#"{{"move":{}}}"#, "9".repeat(400));
        assert!(matches!(from_bot(&untyped), Incoming::Violation(_)));
        // Still chatter: what is not JSON at all.
        assert_eq!(
            from_bot(&format!("{{\"type\":\"move\",\"move\":{}", "9".repeat(400))),
            Incoming::Chatter
        );
    }

    #[test]
    fn surrounding_whitespace_and_crlf_are_tolerated() {
        assert_eq!(
            from_bot("  {\"type\":\"ready\"}\r"),
            Incoming::Message(FromBot::Ready { name: None })
        );
    }

    #[test]
    fn truncation_respects_character_boundaries() {
        assert_eq!(truncate("abc", 5), "abc");
        let cut = truncate("ééé", 3);
        assert!(cut.starts_with("é..."), "{cut}");
    }
    #[test]
    fn bounded_reader_splits_lines_and_discards_long_ones() {
        let mut input = Vec::new();
        input.extend_from_slice(b"short\r\n");
        input.extend(std::iter::repeat_n(b'x', 100));
        input.extend_from_slice(b"\nafter\nlast");
        let mut reader = io::BufReader::with_capacity(8, &input[..]);
        let mut line = Vec::new();
        let mut next = || {
            let r = read_line_bounded(&mut reader, &mut line, 10).unwrap();
            (r, String::from_utf8_lossy(&line).into_owned())
        };
        assert_eq!(next(), (LineRead::Line, "short".into()));
        assert_eq!(next().0, LineRead::Overlong(100));
        assert_eq!(next(), (LineRead::Line, "after".into()));
        assert_eq!(next(), (LineRead::Line, "last".into()));
        assert_eq!(next().0, LineRead::Eof);
        assert_eq!(next().0, LineRead::Eof);
    }

    #[test]
    fn a_line_of_exactly_the_bound_is_kept_before_lf_and_crlf() {
        let input = b"0123456789\n".to_vec();
        let mut line = Vec::new();
        let mut reader = &input[..];
        assert_eq!(
            read_line_bounded(&mut reader, &mut line, 10).unwrap(),
            LineRead::Line
        );
        assert_eq!(line, b"0123456789");
        let input = b"0123456789\r\n0123456789x\r\n".to_vec();
        let mut reader = &input[..];
        assert_eq!(
            read_line_bounded(&mut reader, &mut line, 10).unwrap(),
            LineRead::Line
        );
        assert_eq!(line, b"0123456789");
        assert_eq!(
            read_line_bounded(&mut reader, &mut line, 10).unwrap(),
            LineRead::Overlong(12)
        );
    }

    #[test]
    fn front_truncation_keeps_the_end() {
        assert_eq!(truncate_front("abc", 5), "abc");
        assert!(truncate_front("0123456789", 3).ends_with("789"));
    }
}
