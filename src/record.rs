//! The record of one game: what the referee saw, in a form every later stage reads.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// A finished game. Role-keyed maps use the game's role names (`rebel`, `officer`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The game's name (`asalto`).
    pub game: String,
    /// Role names in move order.
    pub roles: Vec<String>,
    /// Bot name per role.
    pub players: BTreeMap<String, String>,
    /// The winning role, `None` for a tie.
    pub winner: Option<String>,
    /// snake_case: a rule ending (`fortress_full`) or a bot failure (`timeout`, `crash`).
    pub reason: String,
    /// More about a failure ending (the timeout's limit, the exception's traceback tail).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Rounds begun: a round is a turn of each side.
    pub rounds: u32,
    /// Turns taken, including lost ones.
    pub plies: u32,
    /// Illegal replies per role.
    pub illegal: BTreeMap<String, u32>,
    pub seed: u64,
    /// The start number (games whose leagues vary the start, like Hinger's boards).
    #[serde(default)]
    pub start: u64,
    /// The board the game started from, in the protocol's encoding.
    #[serde(default)]
    pub start_board: Value,
    pub moves: Vec<MoveRecord>,
    /// The board when the game ended, in the protocol's encoding.
    pub final_board: Value,
    /// Per role: the bot's stderr tail and skipped stdout chatter (bounded).
    #[serde(default)]
    pub logs: BTreeMap<String, BotLogRecord>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveRecord {
    pub ply: u32,
    /// The mover's role.
    pub side: String,
    /// What the bot sent (`null` for a failure).
    pub reply: Value,
    /// `move`, a game-specific kind (`huff`), `illegal` or `failed`.
    pub verdict: String,
    /// The illegal-move or failure reason code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    pub time_ms: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BotLogRecord {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub announced_name: Option<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stderr: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub chatter: String,
}

impl GameRecord {
    /// The winning bot's name, if any.
    pub fn winner_name(&self) -> Option<&str> {
        self.winner
            .as_ref()
            .and_then(|role| self.players.get(role))
            .map(String::as_str)
    }
}

/// The few numbers of a game that tables need, without its moves.
#[derive(Clone, Debug, PartialEq)]
pub struct GameSummary {
    /// The scheduled id.
    pub id: u64,
    /// Bot names in move order.
    pub players: [String; 2],
    /// Role names in move order.
    pub roles: [String; 2],
    /// Index into `players` of the winner; `None` for a tie.
    pub winner: Option<usize>,
    pub reason: String,
    pub rounds: u32,
    pub illegal: [u32; 2],
    /// Per seat, over its turns.
    pub max_ms: [f64; 2],
    pub mean_ms: [f64; 2],
    pub seed: u64,
}

impl GameSummary {
    pub fn of(id: u64, record: &GameRecord) -> GameSummary {
        let role = |i: usize| record.roles.get(i).cloned().unwrap_or_default();
        let roles = [role(0), role(1)];
        let name = |r: &String| record.players.get(r).cloned().unwrap_or_default();
        let mut max_ms = [0.0f64; 2];
        let mut sum_ms = [0.0f64; 2];
        let mut asked = [0u32; 2];
        for mv in &record.moves {
            if let Some(seat) = roles.iter().position(|r| *r == mv.side) {
                max_ms[seat] = max_ms[seat].max(mv.time_ms);
                sum_ms[seat] += mv.time_ms;
                asked[seat] += 1;
            }
        }
        let mean_ms = [0, 1].map(|i| {
            if asked[i] == 0 {
                0.0
            } else {
                sum_ms[i] / asked[i] as f64
            }
        });
        GameSummary {
            id,
            players: [name(&roles[0]), name(&roles[1])],
            winner: record
                .winner
                .as_ref()
                .and_then(|w| roles.iter().position(|r| r == w)),
            illegal: [0, 1].map(|i| record.illegal.get(&roles[i]).copied().unwrap_or(0)),
            roles,
            reason: record.reason.clone(),
            rounds: record.rounds,
            max_ms,
            mean_ms,
            seed: record.seed,
        }
    }
}
