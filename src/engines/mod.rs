//! Built-in bots: searchers that run in-process for speed, one set per game.
//!
//! They are reachable everywhere a bot can be named as `builtin:NAME`, and as a protocol
//! subprocess through `arbiter bot NAME`.

pub mod asalto;

use crate::games::Game;
use std::time::Duration;

/// A built-in bot: picks a move for the side to move.
pub trait Engine<G: Game>: Send {
    /// A legal move for the side to move, found within `budget` (the engine keeps under
    /// it); `None` only when the side to move has no legal move.
    fn choose(&mut self, game: &G, state: &G::State, budget: Duration) -> Option<G::Move>;
}

/// A game with built-in bots.
pub trait Builtins: Game {
    /// The names accepted by [`Builtins::builtin`], weakest first.
    fn builtin_names(&self) -> &'static [&'static str];
    /// A fresh engine, deterministic for a given seed (alpha-beta: for a given seed and
    /// node budget; its time budget makes it depend on the machine's speed).
    fn builtin(&self, name: &str, seed: u64) -> Option<Box<dyn Engine<Self>>>;
}
