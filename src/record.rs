//! The record of one game: what the referee saw, in a form every later stage reads.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// A finished game. Role-keyed maps use the game's role names (`rebel`, `officer`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The game's name (`asalto`).
    pub game: String,
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
    /// What the bot sent (`null` for a pass or a failure).
    pub reply: Value,
    /// `move`, a game-specific kind (`huff`), `illegal`, `pass` or `failed`.
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
