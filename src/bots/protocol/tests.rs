//! Tests of the protocol's messages: their exact encodings, and how `classify` sorts incoming
//! lines (messages, violations, chatter, JSON that serde_json cannot hold).

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
    let Incoming::Message(FromBot::Error { message }) =
        from_bot(r#"{"type":"error","message":"Traceback: bad name \udcff\\udcff \ud83d\ude00"}"#)
    else {
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
