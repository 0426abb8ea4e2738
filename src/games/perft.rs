//! Perft: the number of legal move sequences of a given length, through the checked path
//! any game offers. A move that ends the game counts at the last depth and has no
//! continuations.

use super::Game;

/// The number of legal move sequences of `depth` moves from `state` (1 at depth 0); a move that
/// ends the game counts only at the last depth.
pub fn perft<G: Game>(game: &G, state: &G::State, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut moves = Vec::new();
    game.legal_moves(state, &mut moves);
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|mv| {
            let mut next = state.clone();
            match game.play(&mut next, mv) {
                Some(_) => 0,
                None => perft(game, &next, depth - 1),
            }
        })
        .sum()
}

/// Perft split by first move, as `(wire move, count)` pairs in generation order.
pub fn divide<G: Game>(game: &G, state: &G::State, depth: u32) -> Vec<(serde_json::Value, u64)> {
    let mut moves = Vec::new();
    game.legal_moves(state, &mut moves);
    moves
        .iter()
        .map(|mv| {
            let mut next = state.clone();
            let count = match game.play(&mut next, mv) {
                _ if depth <= 1 => 1,
                Some(_) => 0,
                None => perft(game, &next, depth - 1),
            };
            (game.move_to_wire(mv), count)
        })
        .collect()
}
