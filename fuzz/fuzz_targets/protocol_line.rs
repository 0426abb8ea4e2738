//! The protocol decoder: bytes as a bot's stdout.
//!
//! - The referee's non-blocking line splitter (`pipe::LineBuffer`, fed in chunks) and the
//!   blocking bounded reader (`protocol::read_line_bounded`) cut the same lines and
//!   discard the same over-long ones, and neither holds more than the bound.
//! - `protocol::classify` never panics, and agrees with the slow path it short-cuts
//!   (JSON value first, then the message type).
#![no_main]

use arbiter::bots::pipe::{LineBuffer, Piece};
use arbiter::bots::protocol::{self, FromBot, Incoming, LineRead, Tagged, ToBot};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn slow<T: serde::de::DeserializeOwned + Tagged>(line: &str) -> Incoming<T> {
    let Ok(Value::Object(object)) = serde_json::from_str::<Value>(line.trim()) else {
        return Incoming::Chatter;
    };
    match object.get("type") {
        Some(Value::String(kind)) if T::TYPES.contains(&kind.as_str()) => {}
        _ => return Incoming::Violation(String::new()),
    }
    match serde_json::from_value::<T>(Value::Object(object)) {
        Ok(m) => Incoming::Message(m),
        Err(_) => Incoming::Violation(String::new()),
    }
}

fn same<T: PartialEq + std::fmt::Debug>(a: Incoming<T>, b: Incoming<T>, line: &str) {
    match (a, b) {
        (Incoming::Message(x), Incoming::Message(y)) => assert_eq!(x, y, "{line:?}"),
        (Incoming::Violation(_), Incoming::Violation(_)) | (Incoming::Chatter, Incoming::Chatter) => {}
        (x, y) => panic!("{line:?}: fast {x:?} but slow {y:?}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let (&[max, chunk], input) = data.split_at(2.min(data.len())) else {
        return;
    };
    let max = max as usize % 64 + 1;
    let chunk = chunk as usize % 17 + 1;

    let mut split = LineBuffer::new(max);
    let mut from_buffer = Vec::new();
    for part in input.chunks(chunk) {
        split.push(part);
        assert!(split.held() <= max + 2 * chunk + 1, "held {} > bound", split.held());
        while let Some(piece) = split.pop() {
            from_buffer.push(piece);
        }
    }
    split.push(&[]);
    loop {
        let piece = split.pop().expect("at end of input there is always a piece");
        if piece == Piece::Eof {
            break;
        }
        from_buffer.push(piece);
    }

    let mut reader = std::io::BufReader::with_capacity(chunk, input);
    let mut line = Vec::new();
    let mut from_reader = Vec::new();
    loop {
        match protocol::read_line_bounded(&mut reader, &mut line, max).expect("in memory") {
            LineRead::Line => {
                assert!(line.len() <= max);
                from_reader.push(Piece::Line(line.clone()));
            }
            LineRead::Overlong(n) => from_reader.push(Piece::Overlong(n)),
            LineRead::Eof => break,
        }
    }
    assert_eq!(from_buffer, from_reader);

    let text = String::from_utf8_lossy(input);
    same(protocol::classify::<FromBot>(&text), slow::<FromBot>(&text), &text);
    same(protocol::classify::<ToBot>(&text), slow::<ToBot>(&text), &text);
    if let Incoming::Message(m) = protocol::classify::<FromBot>(&text) {
        let again = protocol::encode(&m);
        assert_eq!(protocol::classify::<FromBot>(&again), Incoming::Message(m));
    }
});
