//! Openings: moves played from the standard start before the bots are asked, so that
//! repeated games between deterministic bots are not one game replayed.
//!
//! An opening is a list of moves in the wire notation (what `perft --divide` prints). Only
//! legal moves of kind `move` may appear (never a penalised one, such as an officer's
//! huff), no move may end the game, and the side to move after any of them must have a
//! move: a position handed to the bots is always still in play. Everything here is pure
//! and goes through [`Game`], so any game with a fixed start gets openings by implementing
//! the trait.

use super::Game;
use rand::SeedableRng;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use serde_json::Value;
use std::collections::HashSet;

/// One opening: moves in the wire notation, in play order.
pub type Opening = Vec<Value>;

/// How a game's starts vary between the pairs of a tournament.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpeningKind {
    /// Openings are moves from the one standard start; `default_plies` is the number of
    /// random plies `gauntlet` and `sprt` play when not told otherwise (the smallest
    /// number measured to give at least 95 distinct pairs in 100 between deterministic
    /// bots: README, "Openings").
    Moves {
        /// Random plies of an opening when `gauntlet` or `sprt` is not told how many.
        default_plies: u32,
    },
    /// The game's start positions are its openings (Hinger's start boards): move
    /// openings do not apply.
    StartBoards,
}

/// Why an opening cannot be played: `ply` is 1-based.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("ply {ply}: {message}")]
pub struct OpeningError {
    /// The opening's move at fault, counted from 1.
    pub ply: usize,
    /// Why that move cannot be in an opening, naming the move.
    pub message: String,
}

/// Plays `opening` on `state`, checking every move as described in the module docs.
pub fn play_opening<G: Game>(
    game: &G,
    state: &mut G::State,
    opening: &[Value],
) -> Result<(), OpeningError> {
    for (i, wire) in opening.iter().enumerate() {
        let bad = |message: String| OpeningError {
            ply: i + 1,
            message,
        };
        let mv = game.parse_move(state, wire).map_err(|why| {
            bad(format!(
                "{wire} is not a legal {} move here: {why}",
                game.role_name(game.side_to_move(state))
            ))
        })?;
        if game.move_kind(&mv) != "move" {
            return Err(bad(format!(
                "{wire} is a {}: an opening holds no penalised move",
                game.move_kind(&mv)
            )));
        }
        if let Some(outcome) = game.play(state, &mv) {
            return Err(bad(format!(
                "{wire} ends the game ({}): an opening must leave it in play",
                outcome.reason
            )));
        }
        if !has_move(game, state) {
            return Err(bad(format!(
                "after {wire} the {} has no move: an opening must leave it in play",
                game.role_name(game.side_to_move(state))
            )));
        }
    }
    Ok(())
}

fn has_move<G: Game>(game: &G, state: &G::State) -> bool {
    let mut moves = Vec::new();
    game.legal_moves(state, &mut moves);
    !moves.is_empty()
}

/// `plies` random moves from the standard start, each drawn uniformly among the moves
/// allowed in an opening; a draw that would end the game or leave the side to move
/// without a move is redrawn, and a dead end starts the opening over. `None` when no
/// such opening was found in many tries.
pub(crate) fn random_opening<G: Game>(
    game: &G,
    plies: u32,
    rng: &mut ChaCha8Rng,
) -> Option<Opening> {
    'attempt: for _ in 0..1000 {
        let mut state = game.initial();
        let mut line = Vec::with_capacity(plies as usize);
        for _ in 0..plies {
            let mut moves = Vec::new();
            game.legal_moves(&state, &mut moves);
            moves.retain(|m| game.move_kind(m) == "move");
            // Shuffled, then the first that keeps the game in play: uniform among those.
            moves.shuffle(rng);
            let next = moves.into_iter().find_map(|mv| {
                let mut after = state.clone();
                (game.play(&mut after, &mv).is_none() && has_move(game, &after))
                    .then_some((mv, after))
            });
            let Some((mv, after)) = next else {
                continue 'attempt;
            };
            line.push(game.move_to_wire(&mv));
            state = after;
        }
        return Some(line);
    }
    None
}

/// The random opening of pair `pair` of a tournament seeded `seed`: the same seed and
/// pair always give the same opening.
pub fn pair_opening<G: Game>(game: &G, plies: u32, seed: u64, pair: u64) -> Option<Opening> {
    let mut rng = ChaCha8Rng::seed_from_u64(pair_seed(seed, pair));
    random_opening(game, plies, &mut rng)
}

/// A seed for pair `pair`: splitmix64, with a constant of its own so that openings do
/// not follow the games' seeds.
fn pair_seed(seed: u64, pair: u64) -> u64 {
    let mut z = (seed ^ 0x6F70_656E_696E_6773)
        .wrapping_add(pair.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A position's identity: the board, the side to move and the turn fields.
fn position_key<G: Game>(game: &G, state: &G::State) -> String {
    serde_json::json!([
        game.encode_board(state),
        game.side_to_move(state).index(),
        game.turn_fields(state)
    ])
    .to_string()
}

/// `count` random openings of `plies` plies from `seed`, each reaching a position no
/// other reaches (transpositions count once). Errs when the game has fewer such positions
/// than asked, or they are too rare to find, saying how many were found.
pub fn distinct_openings<G: Game>(
    game: &G,
    plies: u32,
    count: usize,
    seed: u64,
) -> Result<Vec<Opening>, String> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut seen = HashSet::new();
    let mut openings = Vec::with_capacity(count);
    let tries = count.saturating_mul(50).saturating_add(1000);
    for _ in 0..tries {
        if openings.len() == count {
            break;
        }
        let Some(line) = random_opening(game, plies, &mut rng) else {
            break;
        };
        let mut state = game.initial();
        if play_opening(game, &mut state, &line).is_err() {
            continue;
        }
        if seen.insert(position_key(game, &state)) {
            openings.push(line);
        }
    }
    if openings.len() < count {
        return Err(format!(
            "only {} distinct {}-ply {} openings found in {tries} draws; ask for fewer, or more \
             plies",
            openings.len(),
            plies,
            game.name()
        ));
    }
    Ok(openings)
}

/// An opening book line that cannot be used: `line` is 1-based.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct BookError {
    /// The book's line at fault, counted from 1; 0 for a book that holds no opening at all.
    pub line: usize,
    /// What is wrong with that line.
    pub message: String,
}

/// Reads an opening book: one opening a line, a JSON array of wire moves; blank lines
/// and lines starting with `#` are skipped. Every line is played from the start and
/// checked; an empty book is refused.
pub fn parse_book<G: Game>(game: &G, text: &str) -> Result<Vec<Opening>, BookError> {
    let mut book = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let bad = |message: String| BookError {
            line: i + 1,
            message,
        };
        let opening: Opening = match serde_json::from_str::<Value>(line) {
            Ok(Value::Array(moves)) => moves,
            Ok(other) => {
                return Err(bad(format!(
                    "expected a JSON array of moves, found {other}"
                )));
            }
            Err(e) => return Err(bad(format!("expected a JSON array of moves: {e}"))),
        };
        let mut state = game.initial();
        play_opening(game, &mut state, &opening).map_err(|e| bad(e.to_string()))?;
        book.push(opening);
    }
    if book.is_empty() {
        return Err(BookError {
            line: 0,
            message: "the book holds no opening (only blank lines and # comments)".into(),
        });
    }
    Ok(book)
}

/// The order a tournament plays a book's lines in: `order[i % len]` for pair `i`.
pub fn book_order(len: usize, shuffled: bool, seed: u64) -> Vec<usize> {
    let mut order: Vec<usize> = (0..len).collect();
    if shuffled {
        order.shuffle(&mut ChaCha8Rng::seed_from_u64(pair_seed(seed, u64::MAX)));
    }
    order
}

/// An opening as one compact JSON line (the book format and the games.csv column).
pub fn to_line(opening: &[Value]) -> String {
    Value::Array(opening.to_vec()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::asalto::Asalto;
    use crate::games::gomoku::Gomoku;

    #[test]
    fn the_same_seed_and_pair_give_the_same_opening_and_pairs_differ() {
        let game = Asalto::default();
        let a = pair_opening(&game, 4, 7, 3).unwrap();
        assert_eq!(a.len(), 4);
        assert_eq!(pair_opening(&game, 4, 7, 3).unwrap(), a);
        let others: HashSet<String> = (0..20)
            .map(|p| to_line(&pair_opening(&game, 4, 7, p).unwrap()))
            .collect();
        assert!(others.len() > 15, "{others:?}");
    }

    #[test]
    fn random_openings_are_legal_and_leave_the_game_in_play() {
        for seed in 0..50 {
            for (plies, line) in [
                (6, pair_opening(&Asalto::default(), 6, seed, 0).unwrap()),
                (6, pair_opening(&Gomoku, 6, seed, 0).unwrap()),
            ] {
                assert_eq!(line.len(), plies);
            }
            let mut state = Asalto::default().initial();
            let line = pair_opening(&Asalto::default(), 6, seed, 1).unwrap();
            play_opening(&Asalto::default(), &mut state, &line).unwrap();
        }
    }

    #[test]
    fn distinct_openings_reach_distinct_positions() {
        let game = Gomoku;
        let book = distinct_openings(&game, 2, 200, 1).unwrap();
        let positions: HashSet<String> = book
            .iter()
            .map(|line| {
                let mut state = game.initial();
                play_opening(&game, &mut state, line).unwrap();
                position_key(&game, &state)
            })
            .collect();
        assert_eq!(positions.len(), 200);
        let err = distinct_openings(&game, 1, 100, 1).unwrap_err();
        assert!(err.contains("only 64 distinct"), "{err}");
    }

    #[test]
    fn a_book_line_with_an_illegal_move_is_refused_naming_line_and_ply() {
        let game = Gomoku;
        let text = "# two openings\n[[3,3],[2,3]]\n\n[[1,1],[1,1]]\n";
        let err = parse_book(&game, text).unwrap_err();
        assert_eq!(err.line, 4);
        assert!(
            err.message.starts_with("ply 2: [1,1] is not a legal"),
            "{err}"
        );
        assert_eq!(parse_book(&game, "# nothing\n\n").unwrap_err().line, 0);
        assert_eq!(
            parse_book(&game, "[[3,3]]\n").unwrap(),
            vec![vec![serde_json::json!([3, 3])]]
        );
        let err = parse_book(&game, "{\"a\":1}\n").unwrap_err();
        assert!(err.message.contains("expected a JSON array"), "{err}");
    }

    /// With deterministic bots a pair's games are fixed by its opening, so the distinct
    /// openings of 100 pairs are its distinct pairs: the documented defaults are the
    /// smallest plies giving at least 95 of 100.
    #[test]
    fn default_random_plies_are_the_fewest_giving_95_distinct_pairs_in_100() {
        fn distinct<G: Game>(game: &G, plies: u32) -> usize {
            (0..100)
                .map(|pair| to_line(&pair_opening(game, plies, 1, pair).unwrap()))
                .collect::<HashSet<_>>()
                .len()
        }
        fn check<G: Game>(game: &G) {
            let OpeningKind::Moves { default_plies } = game.openings() else {
                panic!("{} has move openings", game.name());
            };
            assert!(distinct(game, default_plies) >= 95, "{}", game.name());
            assert!(distinct(game, default_plies - 1) < 95, "{}", game.name());
        }
        check(&Asalto::default());
        check(&Gomoku);
    }

    #[test]
    fn a_shuffled_book_order_is_a_permutation_fixed_by_the_seed() {
        let order = book_order(10, true, 3);
        let mut sorted = order.clone();
        sorted.sort();
        assert_eq!(sorted, (0..10).collect::<Vec<_>>());
        assert_eq!(book_order(10, true, 3), order);
        assert_eq!(book_order(4, false, 3), vec![0, 1, 2, 3]);
    }
}
