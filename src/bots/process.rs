//! Bots as subprocesses speaking the line protocol. Placeholder.

use super::spec::CommandSpec;
use super::{BotLog, EndInfo, Failure, FailureKind, Player, Reply, Setup, TurnReply};
use crate::games::Game;
use std::time::Duration;

pub struct ProcessPlayer {
    #[allow(dead_code)]
    command: CommandSpec,
}

impl ProcessPlayer {
    pub fn new(command: CommandSpec) -> Self {
        ProcessPlayer { command }
    }
}

impl<G: Game> Player<G> for ProcessPlayer {
    fn start(&mut self, _game: &G, _setup: &Setup) -> Result<Option<String>, Failure> {
        Err(Failure::new(FailureKind::Spawn, "not implemented"))
    }
    fn turn(&mut self, _game: &G, _state: &G::State) -> TurnReply<G::Move> {
        TurnReply {
            reply: Reply::Failed(Failure::new(FailureKind::Crash, "not implemented")),
            elapsed: Duration::ZERO,
        }
    }
    fn finish(&mut self, _end: &EndInfo) -> BotLog {
        BotLog::default()
    }
}

/// Kills every bot process group still running (Ctrl-C).
pub fn kill_all_live() {}
