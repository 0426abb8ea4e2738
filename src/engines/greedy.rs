//! A one-ply bot: plays every legal move and keeps the one the heuristic likes best.
//!
//! It sees a game-ending move as a win or a loss, everything else through
//! [`Heuristic::evaluate`]; equally good moves are split by its seeded generator, so it is
//! reproducible yet not the same in every game.

use super::{Engine, Heuristic, clamped_eval, outcome_score};
use crate::games::Game;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::time::Duration;

/// The one-ply bot for any game with a [`Heuristic`]: the best move by its evaluation, ties drawn
/// from its seed.
pub struct Greedy<G: Game> {
    rng: ChaCha8Rng,
    moves: Vec<G::Move>,
    best: Vec<usize>,
}

impl<G: Game> Greedy<G> {
    /// A greedy bot whose ties are drawn from `seed`.
    pub fn new(seed: u64) -> Self {
        Greedy {
            rng: ChaCha8Rng::seed_from_u64(seed),
            moves: Vec::new(),
            best: Vec::new(),
        }
    }
}

impl<G: Heuristic> Engine<G> for Greedy<G> {
    fn choose(&mut self, game: &G, state: &G::State, _budget: Duration) -> Option<G::Move> {
        self.moves.clear();
        self.best.clear();
        game.legal_moves(state, &mut self.moves);
        let me = game.side_to_move(state);
        let mut best_score = i32::MIN;
        for (i, mv) in self.moves.iter().enumerate() {
            let mut next = state.clone();
            let score = match game.play(&mut next, mv) {
                Some(outcome) => outcome_score(&outcome, me, 1),
                None => clamped_eval(game, &next, me),
            };
            if score > best_score {
                best_score = score;
                self.best.clear();
            }
            if score == best_score {
                self.best.push(i);
            }
        }
        if self.best.is_empty() {
            return None;
        }
        let pick = self.best[self.rng.random_range(0..self.best.len())];
        Some(self.moves.swap_remove(pick))
    }
}
