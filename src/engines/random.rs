//! The weakest built-in bot: a legal move drawn uniformly, reproducible from its seed.

use super::Engine;
use crate::games::Game;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Duration;

/// Plays a uniformly random legal move. The same seed and the same positions give the
/// same moves.
pub struct RandomMover<G: Game> {
    rng: ChaCha8Rng,
    moves: Vec<G::Move>,
}

impl<G: Game> RandomMover<G> {
    /// A random bot whose moves are drawn from `seed`.
    pub fn new(seed: u64) -> Self {
        RandomMover {
            rng: ChaCha8Rng::seed_from_u64(seed),
            moves: Vec::new(),
        }
    }
}

impl<G: Game> Engine<G> for RandomMover<G> {
    fn choose(&mut self, game: &G, state: &G::State, _budget: Duration) -> Option<G::Move> {
        self.moves.clear();
        game.legal_moves(state, &mut self.moves);
        if self.moves.is_empty() {
            return None;
        }
        let pick = self.rng.random_range(0..self.moves.len());
        Some(self.moves.swap_remove(pick))
    }
}
