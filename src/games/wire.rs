//! The JSON of the protocol's game-specific parts: the `turn` line every game sends, and
//! helpers every game's move parser shares to read bots' replies.

use serde_json::{Map, Value};

/// The `turn` line (newline included) for the side `role` to move on `board` with the game's
/// further `fields`, appended to `out`: `{"type":"turn","role":…,"board":…,` then the fields
/// in their map's (sorted) order. The bytes are those of `bots::protocol::ToBot::Turn`
/// encoded by serde, whose fields are flattened the same way.
pub(crate) fn write_turn(
    role: &str,
    board: &Value,
    fields: &Map<String, Value>,
    out: &mut Vec<u8>,
) {
    // Writing into a Vec cannot fail, and these values have string keys only.
    out.extend_from_slice(b"{\"type\":\"turn\",\"role\":");
    let _ = serde_json::to_writer(&mut *out, role);
    out.extend_from_slice(b",\"board\":");
    let _ = serde_json::to_writer(&mut *out, board);
    for (key, value) in fields {
        out.push(b',');
        let _ = serde_json::to_writer(&mut *out, key);
        out.push(b':');
        let _ = serde_json::to_writer(&mut *out, value);
    }
    out.extend_from_slice(b"}\n");
}

/// A JSON value shortened for a message: a bot's reply can be arbitrarily large.
pub(crate) fn excerpt(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() <= 40 {
        text
    } else {
        let cut: String = text.chars().take(37).collect();
        format!("{cut}...")
    }
}

/// What kind of JSON value `v` is, for messages.
pub(crate) fn kind_of(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Whether a JSON value counts as an integer coordinate (in range or not).
pub(crate) fn is_integer(v: &Value) -> bool {
    match v {
        Value::Number(n) if n.is_u64() || n.is_i64() => true,
        // Only an integer literal beyond 64 bits reaches here as a whole float this large.
        Value::Number(n) => n
            .as_f64()
            .is_some_and(|f| f.is_finite() && f.fract() == 0.0 && f.abs() >= 9.0e18),
        _ => false,
    }
}

/// Why a reply is not a `[row, col]` pair of integers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PairError {
    /// Not a two-item list: what it was instead.
    WrongShape(String),
    /// An item that is not an integer, shortened.
    NotIntegers(String),
}

/// The two items of a `[row, col]` reply, both integers (in range or not). Types are
/// checked over the whole reply before any range: a float anywhere is the more basic fault.
pub(crate) fn integer_pair(reply: &Value) -> Result<(&Value, &Value), PairError> {
    let (r, c) = match reply {
        Value::Array(pair) if pair.len() == 2 => (&pair[0], &pair[1]),
        Value::Array(list) => {
            return Err(PairError::WrongShape(format!(
                "expected [row, col], got a list of {}",
                list.len()
            )));
        }
        other => {
            return Err(PairError::WrongShape(format!(
                "expected [row, col], got {}",
                kind_of(other)
            )));
        }
    };
    match [r, c].into_iter().find(|v| !is_integer(v)) {
        Some(v) => Err(PairError::NotIntegers(excerpt(v))),
        None => Ok((r, c)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_turn_is_written_as_serde_encodes_the_protocols_turn() {
        use crate::bots::protocol::{ToBot, encode};
        let cases = [
            (
                "rebel",
                json!(["  ...  ", "R\"\\\u{1}é"]),
                json!({"ply": 3, "illegal": {"rebel": 1, "officer": 0}}),
            ),
            ("first", json!([[1, 0, 2], [3, -4]]), json!({})),
            (
                "b",
                json!("a string board"),
                json!({"z": null, "a": [1.5, true], "ü": "x"}),
            ),
        ];
        for (role, board, fields) in cases {
            let serde_json::Value::Object(fields) = fields else {
                unreachable!()
            };
            let mut out = Vec::new();
            write_turn(role, &board, &fields, &mut out);
            let want = encode(&ToBot::Turn {
                role: role.into(),
                board,
                fields,
            });
            assert_eq!(String::from_utf8(out).unwrap(), want);
        }
    }

    #[test]
    fn integers_are_told_from_floats_whatever_their_size() {
        assert!(is_integer(&json!(3)) && is_integer(&json!(-3)));
        assert!(is_integer(
            &serde_json::from_str::<Value>("100000000000000000000000").unwrap()
        ));
        assert!(!is_integer(&json!(2.0)) && !is_integer(&json!(2.5)) && !is_integer(&json!("2")));
    }

    #[test]
    fn excerpts_are_short() {
        assert_eq!(excerpt(&json!([1, 2])), "[1,2]");
        assert_eq!(excerpt(&json!("x".repeat(100))).chars().count(), 40);
    }
}
