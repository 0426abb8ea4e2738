//! Reading bots' replies: helpers every game's move parser shares.

use serde_json::Value;

/// A JSON value shortened for a message: a bot's reply can be arbitrarily large.
pub fn excerpt(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() <= 40 {
        text
    } else {
        let cut: String = text.chars().take(37).collect();
        format!("{cut}...")
    }
}

/// What kind of JSON value `v` is, for messages.
pub fn kind_of(v: &Value) -> &'static str {
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
pub fn is_integer(v: &Value) -> bool {
    match v {
        Value::Number(n) if n.is_u64() || n.is_i64() => true,
        // Only an integer literal beyond 64 bits reaches here as a whole float this large.
        Value::Number(n) => n
            .as_f64()
            .is_some_and(|f| f.is_finite() && f.fract() == 0.0 && f.abs() >= 9.0e18),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

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
