//! The bot side of the protocol: a built-in engine served over stdin/stdout, for
//! `arbiter bot NAME`. It doubles as the reference implementation for bot authors
//! (docs/PROTOCOL.md): read `hello`, answer `ready`; answer every `turn` with one `move`;
//! stop at `end` or at end of input.
//!
//! The position is rebuilt from each `turn` message alone: the board's rows are joined
//! with newlines and read with [`Game::parse_board`]. Counters the board does not show
//! (ply, illegal moves) are lost, which the engines do not need.

use super::inprocess::DEFAULT_BUDGET_FRACTION;
use super::protocol::{self, FromBot, Incoming, LineRead, MAX_LINE_BYTES, PROTOCOL_VERSION, ToBot};
use crate::engines::{Builtins, Engine};
use crate::games::{Game, Side};
use serde_json::Value;
use std::borrow::Cow;
use std::io::{self, BufRead, Write};
use std::time::Duration;

/// Plays the built-in engine `engine_name` of `game` as a protocol bot until `end` or EOF.
///
/// Protocol trouble from the referee's side (an unknown engine, a hello for another game, a
/// board that does not parse) is answered with an `error` message, which ends the bot's
/// game as an exception; only I/O errors on `output` are returned.
pub fn serve<G: Builtins>(
    game: &G,
    engine_name: &str,
    mut input: impl BufRead,
    mut output: impl Write,
) -> io::Result<()> {
    let mut engine: Option<Box<dyn Engine<G>>> = None;
    let mut budget = Duration::from_secs(1);
    let mut line = Vec::new();
    // Kept between turns: the board's text and the reply are written into them again.
    let mut board = String::new();
    let mut reply = Vec::new();
    loop {
        match protocol::read_line_bounded(&mut input, &mut line, MAX_LINE_BYTES)? {
            LineRead::Eof => return Ok(()),
            LineRead::Overlong(_) => continue,
            LineRead::Line => {}
        }
        let text = String::from_utf8_lossy(&line);
        // Fast path for the message that comes every move: its rows borrowed from the
        // line where they are plain strings (every game but Hinger's), else as JSON.
        let turn = match serde_json::from_str::<RowsTurn>(&text) {
            Ok(turn) if turn.kind == "turn" => Some((turn.role, Board::Rows(turn.board))),
            _ => match serde_json::from_str::<TurnLine>(&text) {
                Ok(turn) if turn.kind == "turn" => {
                    Some((Cow::Owned(turn.role), Board::Json(turn.board)))
                }
                _ => None,
            },
        };
        if let Some((role, rows)) = turn {
            let Some(engine) = engine.as_mut() else {
                return send_error(&mut output, "a `turn` before `hello`".to_string());
            };
            let state = position(game, &role, &rows, &mut board);
            if play_turn(
                game,
                engine.as_mut(),
                budget,
                state,
                &mut reply,
                &mut output,
            )? {
                continue;
            }
            return Ok(());
        }
        let message = match protocol::classify::<ToBot>(&text) {
            Incoming::Message(m) => m,
            // Not for us: a later protocol version may send more; skip it.
            Incoming::Violation(_) | Incoming::Chatter => continue,
        };
        match message {
            ToBot::Hello {
                protocol: version,
                game: game_name,
                time_limit_ms,
                seed,
                ..
            } => {
                if version != PROTOCOL_VERSION {
                    return send_error(
                        &mut output,
                        format!("this bot speaks protocol {PROTOCOL_VERSION}, not {version}"),
                    );
                }
                if game_name != game.name() {
                    return send_error(
                        &mut output,
                        format!("this bot plays {}, not {game_name}", game.name()),
                    );
                }
                engine = game.builtin(engine_name, seed);
                if engine.is_none() {
                    return send_error(
                        &mut output,
                        format!(
                            "no built-in bot `{engine_name}` for {} (expected one of {})",
                            game.name(),
                            game.builtin_names().join(", ")
                        ),
                    );
                }
                budget = Duration::from_millis(time_limit_ms).mul_f64(DEFAULT_BUDGET_FRACTION);
                send(
                    &mut output,
                    &FromBot::Ready {
                        name: Some(engine_name.to_string()),
                    },
                )?;
            }
            ToBot::Turn {
                role, board: rows, ..
            } => {
                let Some(engine) = engine.as_mut() else {
                    return send_error(&mut output, "a `turn` before `hello`".to_string());
                };
                let state = position(game, &role, &Board::Json(rows), &mut board);
                if !play_turn(
                    game,
                    engine.as_mut(),
                    budget,
                    state,
                    &mut reply,
                    &mut output,
                )? {
                    return Ok(());
                }
            }
            ToBot::End { .. } => return Ok(()),
        }
    }
}

/// The fields of a `turn` this bot reads; the rest is ignored.
#[derive(serde::Deserialize)]
struct TurnLine {
    #[serde(rename = "type")]
    kind: String,
    role: String,
    board: Value,
}

/// [`TurnLine`] for a board of plain strings, borrowed from the line: no JSON values are
/// built. A line it cannot read so (escapes, another board) is read as a [`TurnLine`].
#[derive(serde::Deserialize)]
struct RowsTurn<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    role: Cow<'a, str>,
    #[serde(borrow)]
    board: Vec<&'a str>,
}

/// A `turn`'s board as it came.
enum Board<'a> {
    Rows(Vec<&'a str>),
    Json(Value),
}

impl Board<'_> {
    /// The board as the text of a board file, appended to `out`: the rows joined with
    /// newlines.
    fn text(&self, out: &mut String) -> Result<(), String> {
        match self {
            Board::Rows(rows) => {
                for (i, row) in rows.iter().enumerate() {
                    if i > 0 {
                        out.push('\n');
                    }
                    out.push_str(row);
                }
            }
            Board::Json(Value::String(s)) => out.push_str(s),
            Board::Json(Value::Array(rows)) => {
                let rows = rows
                    .iter()
                    .map(row_text)
                    .collect::<Option<Vec<_>>>()
                    .ok_or("the board is not a list of rows (strings, or lists of numbers)")?;
                out.push_str(&rows.join("\n"));
            }
            Board::Json(_) => return Err("the board is neither a string nor a list of rows".into()),
        }
        Ok(())
    }
}

/// Answers one turn, in the position it describes. A position that cannot be read is
/// answered with an `error`, which ends the game: `Ok(false)`.
fn play_turn<G: Game>(
    game: &G,
    engine: &mut dyn Engine<G>,
    budget: Duration,
    state: Result<G::State, String>,
    reply: &mut Vec<u8>,
    output: &mut impl Write,
) -> io::Result<bool> {
    let state = match state {
        Ok(state) => state,
        Err(why) => return send_error(output, why).map(|()| false),
    };
    // With no legal move the engine has nothing to choose: `null` answers the turn, and
    // the referee counts it as the illegal move any reply would be.
    let mv = engine
        .choose(game, &state, budget)
        .map_or(Value::Null, |mv| game.move_to_wire(&mv));
    // The bytes of `protocol::encode(&FromBot::Move { mv })`, in a buffer kept for the
    // next turn.
    reply.clear();
    reply.extend_from_slice(b"{\"type\":\"move\",\"move\":");
    serde_json::to_writer(&mut *reply, &mv)?;
    reply.extend_from_slice(b"}\n");
    output.write_all(reply)?;
    output.flush().map(|()| true)
}

/// The position a `turn` message describes; `text` holds the board's text after.
fn position<G: Game>(
    game: &G,
    role: &str,
    board: &Board,
    text: &mut String,
) -> Result<G::State, String> {
    let side: Side = game
        .side_named(role)
        .ok_or_else(|| format!("unknown role `{role}` for {}", game.name()))?;
    text.clear();
    board.text(text)?;
    game.parse_board(text, side)
        .map_err(|e| format!("cannot read the board: {e}"))
}

/// One row of a wire board as a line of the board-file format: a string as it is (Asalto,
/// Gomoku), a list of cells as its items separated by spaces (Hinger's counts).
fn row_text(row: &Value) -> Option<String> {
    match row {
        Value::String(s) => Some(s.clone()),
        Value::Array(cells) => cells
            .iter()
            .map(|cell| match cell {
                Value::Number(n) => Some(n.to_string()),
                Value::String(s) => Some(s.clone()),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
            .map(|cells| cells.join(" ")),
        _ => None,
    }
}

fn send(output: &mut impl Write, message: &FromBot) -> io::Result<()> {
    output.write_all(protocol::encode(message).as_bytes())?;
    output.flush()
}

fn send_error(output: &mut impl Write, message: String) -> io::Result<()> {
    send(
        output,
        &FromBot::Error {
            message: Value::String(message),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{BoardError, Outcome, ReasonCode};
    use serde_json::{Map, json};

    /// A game whose board is one line, `to-move:N`; its only engine plays `N`.
    #[derive(Clone)]
    struct Echo;

    #[derive(Clone, Debug, PartialEq, thiserror::Error)]
    #[error("never")]
    struct Never;
    impl ReasonCode for Never {
        fn code(&self) -> &'static str {
            "never"
        }
    }

    impl Game for Echo {
        type State = (Side, i64);
        type Move = i64;
        type Illegal = Never;
        fn name(&self) -> &'static str {
            "echo"
        }
        fn roles(&self) -> [&'static str; 2] {
            ["north", "south"]
        }
        fn initial(&self) -> Self::State {
            (Side::First, 0)
        }
        fn parse_board(&self, text: &str, side: Side) -> Result<Self::State, BoardError> {
            let n = text
                .lines()
                .last()
                .and_then(|l| l.strip_prefix("to-move:"))
                .and_then(|n| n.parse().ok())
                .ok_or(BoardError {
                    line: 1,
                    message: "expected to-move:N".into(),
                })?;
            Ok((side, n))
        }
        fn side_to_move(&self, s: &Self::State) -> Side {
            s.0
        }
        fn legal_moves(&self, s: &Self::State, out: &mut Vec<i64>) {
            out.push(s.1);
        }
        fn parse_move(&self, _: &Self::State, _: &Value) -> Result<i64, Never> {
            Err(Never)
        }
        fn move_to_wire(&self, mv: &i64) -> Value {
            json!(mv)
        }
        fn play(&self, _: &mut Self::State, _: &i64) -> Option<Outcome> {
            None
        }
        fn play_illegal(&self, _: &mut Self::State, _: &Never) -> Option<Outcome> {
            None
        }
        fn encode_board(&self, s: &Self::State) -> Value {
            json!([format!("to-move:{}", s.1)])
        }
        fn turn_fields(&self, _: &Self::State) -> Map<String, Value> {
            Map::new()
        }
        fn render(&self, _: &Self::State) -> String {
            String::new()
        }
    }

    struct Plays;
    impl Engine<Echo> for Plays {
        fn choose(&mut self, game: &Echo, s: &(Side, i64), _: Duration) -> Option<i64> {
            let mut out = Vec::new();
            game.legal_moves(s, &mut out);
            out.pop()
        }
    }

    impl Builtins for Echo {
        fn builtin_names(&self) -> &'static [&'static str] {
            &["plays"]
        }
        fn builtin(&self, name: &str, _seed: u64) -> Option<Box<dyn Engine<Self>>> {
            (name == "plays").then(|| Box::new(Plays) as Box<dyn Engine<Echo>>)
        }
    }

    fn run(engine: &str, input: &str) -> Vec<Value> {
        let mut out = Vec::new();
        serve(&Echo, engine, input.as_bytes(), &mut out).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    const HELLO: &str = r#"{"type":"hello","protocol":1,"game":"echo","role":"north","time_limit_ms":1000,"init_limit_ms":1000,"seed":1}"#;

    #[test]
    fn answers_hello_and_turns_until_end() {
        let input = format!(
            "{HELLO}\nsome noise\n{}\n{}\n{}\n{}\n",
            r#"{"type":"turn","role":"north","board":["to-move:5"],"ply":0}"#,
            r#"{"type":"turn","role":"north","board":"to-move:-2"}"#,
            r#"{"type":"end","result":"win","reason":"x"}"#,
            r#"{"type":"turn","role":"north","board":["to-move:9"]}"#,
        );
        assert_eq!(
            run("plays", &input),
            [
                json!({"type":"ready","name":"plays"}),
                json!({"type":"move","move":5}),
                json!({"type":"move","move":-2}),
            ]
        );
    }

    #[test]
    fn escaped_strings_are_read_as_well_as_plain_ones() {
        let input = format!(
            "{HELLO}\n{}\n{}\n",
            r#"{"type":"turn","role":"nor\u0074h","board":["to-move:4"]}"#,
            r#"{"type":"turn","role":"north","board":["x","to-move:\u0033"],"ply":1}"#,
        );
        assert_eq!(
            run("plays", &input)[1..],
            [
                json!({"type":"move","move":4}),
                json!({"type":"move","move":3})
            ]
        );
    }

    #[test]
    fn a_board_of_number_rows_is_read_as_space_separated_lines() {
        let input = format!(
            "{HELLO}\n{}\n",
            r#"{"type":"turn","role":"north","board":[[1,0],["to-move:7"]]}"#
        );
        assert_eq!(run("plays", &input)[1], json!({"type":"move","move":7}));
        assert_eq!(row_text(&json!([1, 0, 2])).as_deref(), Some("1 0 2"));
        assert_eq!(row_text(&json!([1, [0]])), None);
    }

    #[test]
    fn stops_quietly_at_end_of_input() {
        assert_eq!(
            run("plays", HELLO),
            [json!({"type":"ready","name":"plays"})]
        );
        assert!(run("plays", "").is_empty());
    }

    #[test]
    fn problems_are_error_messages() {
        let unknown = run("nope", HELLO);
        assert_eq!(unknown[0]["type"], "error");
        assert!(unknown[0]["message"].as_str().unwrap().contains("plays"));

        let other_game = run("plays", &HELLO.replace("\"echo\"", "\"asalto\""));
        assert_eq!(other_game[0]["type"], "error");

        let bad_board = run(
            "plays",
            &format!(
                "{HELLO}\n{}\n",
                r#"{"type":"turn","role":"north","board":[1,2]}"#
            ),
        );
        assert_eq!(bad_board[1]["type"], "error");

        let bad_role = run(
            "plays",
            &format!(
                "{HELLO}\n{}\n",
                r#"{"type":"turn","role":"east","board":["to-move:1"]}"#
            ),
        );
        assert_eq!(bad_role[1]["type"], "error");

        let early = run(
            "plays",
            r#"{"type":"turn","role":"north","board":["to-move:1"]}"#,
        );
        assert_eq!(early[0]["type"], "error");
    }
}
