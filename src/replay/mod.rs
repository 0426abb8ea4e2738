//! One game replayed from its record, and that replay as the report page's game browser
//! draws it: the game's line of a replays file (`encode_game`) and its row of the game
//! list ([`GameRow`]).
//!
//! A record is replayed exactly as the referee played it: from the plan's start position
//! for the record's start number, through the opening (played move by move the way the
//! referee plays it), then each reply by its verdict (a legal move is played, an illegal
//! reply gets the game's penalty, a failure ends the game). Every position is drawn with
//! [`Game::view`], so this module names no game. A replay that disagrees with the record
//! (a refused move, another verdict, another last board) is reported on that game instead
//! of a board.
//!
//! It sits below the tournament so that a run replays each game on the worker that played
//! it, while the record is still in memory ([`Replayed`]); the report gathers the replays
//! into the page, from a run or from a journal.

use crate::error::ReplayError;
use crate::games::openings::{OpeningKind, play_opening};
use crate::games::view::BoardView;
use crate::games::{Game, ReasonCode};
use crate::record::GameRecord;
use serde_json::Value;
use std::collections::HashMap;

mod encode;
pub(crate) mod files;
pub(crate) use encode::encode_game;

/// The verdict given to the plies of an opening in a replay: played by the referee before
/// the bots were asked.
pub const OPENING: &str = "opening";

/// The longest reply shown in a move list, in characters: a bot can send anything.
const REPLY_CHARS: usize = 120;

/// One turn of a replay.
#[derive(Clone, Debug, PartialEq)]
pub struct Ply {
    /// The mover's role.
    pub side: String,
    /// What was sent (for an opening ply, the opening's move).
    pub reply: Value,
    /// The record's verdict (`move`, `huff`, `illegal`, `failed`), or [`OPENING`].
    pub verdict: String,
    /// The illegal-move or failure reason.
    pub reason: Option<String>,
    /// The reply's time; `None` for an opening ply.
    pub time_ms: Option<f64>,
}

/// A [`Ply`] borrowed from the record it replays: a replay made for the page copies
/// nothing of a ply it only encodes.
#[derive(Clone, Copy, Debug)]
struct PlyOf<'r> {
    side: &'r str,
    reply: &'r Value,
    verdict: &'r str,
    reason: Option<&'r str>,
    time_ms: Option<f64>,
}

impl PlyOf<'_> {
    fn to_owned(self) -> Ply {
        Ply {
            side: self.side.to_string(),
            reply: self.reply.clone(),
            verdict: self.verdict.to_string(),
            reason: self.reason.map(str::to_string),
            time_ms: self.time_ms,
        }
    }
}

/// A replayed game: `views[0]` is the start, `views[i + 1]` the position after `plies[i]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Replay {
    /// The turns in order, the opening's plies first.
    pub plies: Vec<Ply>,
    /// The drawn positions, one more than `plies`.
    pub views: Vec<BoardView>,
}

/// Replays `record` under the rules of `game` (the game of the record's plan), checking
/// every step against the record.
pub fn replay<G: Game>(game: &G, record: &GameRecord) -> Result<Replay, ReplayError> {
    let mut out = Replay {
        plies: Vec::new(),
        views: Vec::new(),
    };
    replay_each(game, record, |ply, view| {
        out.plies.extend(ply.map(PlyOf::to_owned));
        out.views.push(view);
    })?;
    Ok(out)
}

/// [`replay`], handing each position to `step` as it is reached rather than keeping them
/// all (a long game's views take megabytes): first `(None, start)`, then for each ply
/// `(Some(ply), position after it)`. On an error, the steps handed so far are not the
/// whole game.
fn replay_each<'r, G: Game>(
    game: &G,
    record: &'r GameRecord,
    mut step: impl FnMut(Option<PlyOf<'r>>, BoardView),
) -> Result<(), ReplayError> {
    let fail = |ply: usize, message: String| ReplayError { ply, message };
    if record.game != game.name() {
        return Err(fail(
            0,
            format!("a {} record replayed as {}", record.game, game.name()),
        ));
    }
    let mut state = game.start_position(record.start);
    if !record.start_board.is_null() && game.encode_board(&state) != record.start_board {
        return Err(fail(
            0,
            format!(
                "the plan's start {} is {}, the record's {}",
                record.start,
                game.encode_board(&state),
                record.start_board
            ),
        ));
    }
    // The last position handed over, and the plies so far.
    let mut last = game.view(&state);
    step(None, last.clone());
    let mut plies = 0usize;
    if let (OpeningKind::Moves { .. }, Value::Array(opening)) = (game.openings(), &record.opening) {
        for wire in opening {
            let side = game.role_name(game.side_to_move(&state));
            // One move at a time, with the referee's own checks: an opening that failed
            // there (a `bad_opening` game) stops here at the same move.
            let played = play_opening(game, &mut state, std::slice::from_ref(wire));
            let view = game.view(&state);
            // A move the referee's checks refused after playing it (one that ends the
            // game) stays on the board, as it did in the game.
            if played.is_ok() || view != last {
                let ply = PlyOf {
                    side,
                    reply: wire,
                    verdict: OPENING,
                    reason: None,
                    time_ms: None,
                };
                plies += 1;
                last = view.clone();
                step(Some(ply), view);
            }
            if played.is_err() {
                break;
            }
        }
    }
    for (i, mv) in record.moves.iter().enumerate() {
        let at = plies;
        let mover = game.role_name(game.side_to_move(&state));
        if mv.side != mover {
            return Err(fail(
                at,
                format!("the record has {} moving, the rules {mover}", mv.side),
            ));
        }
        match mv.verdict.as_str() {
            "failed" => {
                if i + 1 != record.moves.len() {
                    return Err(fail(at, "a failure that does not end the game".into()));
                }
            }
            "illegal" => match game.parse_move(&state, &mv.reply) {
                Err(why) => {
                    let code = crate::referee::illegal_code(game, &state, &why);
                    game.play_illegal(&mut state, &why);
                    // Records written before blocked turns had their own code give the
                    // move's own reason there.
                    if let Some(reason) = &mv.reason
                        && reason != code
                        && reason != why.code()
                    {
                        return Err(fail(
                            at,
                            format!("{} is illegal for {code}, not {reason}", mv.reply),
                        ));
                    }
                }
                Ok(_) => {
                    return Err(fail(
                        at,
                        format!("the record calls {} illegal; the rules take it", mv.reply),
                    ));
                }
            },
            verdict => match game.parse_move(&state, &mv.reply) {
                Ok(checked) if game.move_kind(&checked) == verdict => {
                    game.play(&mut state, &checked);
                }
                Ok(checked) => {
                    return Err(fail(
                        at,
                        format!(
                            "the record calls {} a {verdict}, the rules a {}",
                            mv.reply,
                            game.move_kind(&checked)
                        ),
                    ));
                }
                Err(why) => {
                    return Err(fail(
                        at,
                        format!(
                            "the record plays {}, which the rules refuse: {why}",
                            mv.reply
                        ),
                    ));
                }
            },
        }
        let ply = PlyOf {
            side: &mv.side,
            reply: &mv.reply,
            verdict: &mv.verdict,
            reason: mv.reason.as_deref(),
            time_ms: Some(mv.time_ms),
        };
        plies += 1;
        step(Some(ply), game.view(&state));
    }
    let last = game.encode_board(&state);
    if last != record.final_board {
        return Err(fail(
            plies,
            format!(
                "the replay ends on {last}, the record on {}",
                record.final_board
            ),
        ));
    }
    Ok(())
}

/// Strings a page holds once and refers to by index.
#[derive(Default)]
pub(crate) struct Strings {
    pub(crate) strings: Vec<String>,
    index: HashMap<String, usize>,
}

/// Strings up to which a table is searched in order rather than hashed: a game's table
/// holds its roles, verdicts and a few captions, and each ply looks up three of them.
const SEARCHED_IN_ORDER: usize = 16;

impl Strings {
    pub(crate) fn id(&mut self, text: &str) -> usize {
        let known = if self.strings.len() <= SEARCHED_IN_ORDER {
            self.strings.iter().position(|s| s == text)
        } else {
            self.index.get(text).copied()
        };
        if let Some(i) = known {
            return i;
        }
        self.strings.push(text.to_string());
        self.index.insert(text.to_string(), self.strings.len() - 1);
        self.strings.len() - 1
    }
}

/// What the game list shows of one game, before its names are made indices.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRow {
    /// The game's scheduled id.
    pub id: u64,
    /// Bot names by seat; empty for a seat the record does not name.
    pub players: [String; 2],
    /// The winner's seat, -1 for a tie.
    pub winner: i64,
    /// The game's end reason, as in [`GameRecord::reason`].
    pub reason: String,
    /// Rounds begun, the opening's included.
    pub rounds: u32,
    /// Why the game ended that way, in one short line; empty for an ending by the rules alone.
    pub detail: String,
}

impl GameRow {
    /// The row of game `id`, `record`, its seats in the order of `roles`.
    pub fn of(roles: &[impl AsRef<str>], id: u64, record: &GameRecord) -> GameRow {
        let role = |i: usize| roles.get(i).map_or("", AsRef::as_ref);
        let player = |i: usize| record.players.get(role(i)).cloned().unwrap_or_default();
        GameRow {
            id,
            players: [player(0), player(1)],
            winner: record
                .winner
                .as_ref()
                .and_then(|w| roles.iter().position(|r| r.as_ref() == w))
                .map_or(-1, |i| i as i64),
            reason: record.reason.clone(),
            rounds: record.rounds,
            detail: crate::record::short_detail(record),
        }
    }
}

/// One game as the page's game browser takes it: its row of the list and its line of a
/// replays file (`encode_game`) packed as a block holds it (`files::pack_line`), made
/// together from its record.
#[derive(Clone, Debug, PartialEq)]
pub struct Replayed {
    /// The game's row of the game list.
    pub row: GameRow,
    /// The game's line of a replays file (JSON) deflated and in base64 (`files::pack_line`).
    pub packed: String,
    /// The key of the game's journal line (`tournament::journal::key_of`), when whoever
    /// made this had the line: the report's index of the replays it holds finds the
    /// game by it.
    pub key: Option<[u8; 16]>,
}

impl Replayed {
    /// Game `id`, `record`, played under `game`, whose roles are `roles` in seat order.
    pub fn of<G: Game>(
        game: &G,
        roles: &[impl AsRef<str>],
        id: u64,
        record: &GameRecord,
    ) -> Replayed {
        Replayed {
            row: GameRow::of(roles, id, record),
            packed: files::pack_line(&encode_game(game, record)),
            key: None,
        }
    }
}

/// `text` as a JSON string.
pub(crate) fn json_string(text: &str) -> String {
    serde_json::to_string(text).expect("a string always serializes")
}
