//! The openings of a tournament: which start each role-swapped pair plays from, and how
//! many pairs were really distinct games.
//!
//! Both games of a pair share one opening (the fixture's `start` is the pair's index), so a
//! pair is the colour-swapped sample that pentanomial statistics assume.

use super::journal::PlanOpenings;
use crate::error::Error;
use crate::games::Game;
use crate::games::openings::{self, Opening, OpeningKind};
use crate::record::{GameSummary, Shared};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Where each pair starts.
#[derive(Clone, Debug, PartialEq)]
pub enum Openings {
    /// The game's own start (Hinger: its start boards).
    Standard,
    /// `plies` random plies per pair, drawn from the tournament's seed and the pair.
    Random {
        /// Random plies played from the start before the bots are asked.
        plies: u32,
    },
    /// A book's lines, checked; pair i plays `lines[order[i % len]]`.
    Book {
        /// The book's openings in file order, each checked against the game.
        lines: Vec<Opening>,
        /// Shuffled by the seed rather than in the book's order.
        shuffled: bool,
        /// The file as given, for messages.
        file: String,
    },
}

/// The openings asked for, before the game is known.
#[derive(Clone, Debug, PartialEq)]
pub enum OpeningChoice {
    /// Nothing asked: the command's default.
    Default,
    /// This many random plies per pair (`--random-plies N`; 0 for the standard start).
    RandomPlies(u32),
    /// A book of openings (`--openings FILE`).
    Book {
        /// The book's path.
        file: PathBuf,
        /// Lines taken in an order shuffled by the seed (`--openings-order random`).
        shuffled: bool,
    },
}

impl OpeningChoice {
    /// The openings for `game`: `random_by_default` is true for gauntlet and sprt. A game
    /// whose openings are its start boards (Hinger) refuses move openings.
    pub fn resolve<G: Game>(&self, game: &G, random_by_default: bool) -> Result<Openings, Error> {
        let default_plies = match game.openings() {
            OpeningKind::Moves { default_plies } => default_plies,
            OpeningKind::StartBoards => {
                return match self {
                    OpeningChoice::Default => Ok(Openings::Standard),
                    _ => Err(Error::usage(format!(
                        "{}'s openings are its start boards (--board, or random starts): \
                         --random-plies and --openings (random_plies and openings in \
                         tournaments.toml) do not apply",
                        game.name()
                    ))),
                };
            }
        };
        Ok(match self {
            OpeningChoice::Default if random_by_default => Openings::Random {
                plies: default_plies,
            },
            OpeningChoice::Default | OpeningChoice::RandomPlies(0) => Openings::Standard,
            OpeningChoice::RandomPlies(n) => Openings::Random { plies: *n },
            OpeningChoice::Book { file, shuffled } => Openings::read_book(game, file, *shuffled)?,
        })
    }
}

impl Openings {
    /// Reads and checks every line of the book at `path` for `game`.
    pub fn read_book<G: Game>(game: &G, path: &Path, shuffled: bool) -> Result<Openings, Error> {
        let text = std::fs::read_to_string(path).map_err(|source| Error::Unreadable {
            path: path.to_path_buf(),
            source,
        })?;
        let lines = openings::parse_book(game, &text).map_err(|e| Error::Input {
            path: path.to_path_buf(),
            line: e.line,
            message: format!("{} opening book: {}", game.name(), e.message),
        })?;
        Ok(Openings::Book {
            lines,
            shuffled,
            file: path.to_string_lossy().into_owned(),
        })
    }

    /// What the journal's plan records: everything that decides the openings (a book by
    /// its content's digest, so an edited book is noticed on resume). `None` for the
    /// standard start, as in journals written before openings existed.
    pub fn plan(&self) -> Option<PlanOpenings> {
        match self {
            Openings::Standard => None,
            Openings::Random { plies } => Some(PlanOpenings {
                random_plies: Some(*plies),
                ..PlanOpenings::default()
            }),
            Openings::Book {
                lines, shuffled, ..
            } => {
                use sha2::{Digest, Sha256};
                let mut hasher = Sha256::new();
                for line in lines {
                    hasher.update(openings::to_line(line).as_bytes());
                    hasher.update(b"\n");
                }
                let digest = hasher.finalize();
                Some(PlanOpenings {
                    random_plies: None,
                    book_sha256: Some(digest.iter().map(|b| format!("{b:02x}")).collect()),
                    book_lines: Some(lines.len()),
                    order: Some(if *shuffled { "random" } else { "sequential" }.into()),
                })
            }
        }
    }

    /// The opening of pair `pair` in a tournament seeded `seed`.
    pub fn for_pair<G: Game>(&self, game: &G, seed: u64, pair: u64) -> Result<Opening, Error> {
        match self {
            Openings::Standard => Ok(Vec::new()),
            Openings::Random { plies } => openings::pair_opening(game, *plies, seed, pair)
                .ok_or_else(|| {
                    Error::usage(format!(
                        "no {plies}-ply {} opening that leaves the game in play was found: \
                         ask for fewer --random-plies",
                        game.name()
                    ))
                }),
            Openings::Book {
                lines, shuffled, ..
            } => {
                // The order is recomputed per game: cheap next to a game, and stateless.
                let order = openings::book_order(lines.len(), *shuffled, seed);
                Ok(lines[order[(pair % lines.len() as u64) as usize]].clone())
            }
        }
    }
}

/// Complete pairs, and how many of them are distinct: a pair that replays an earlier pair
/// move for move (same bots in the same roles, same opening, same replies) counts once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DistinctPairs {
    /// Of `pairs`, how many are distinct: pairs alike move for move count once.
    pub distinct: usize,
    /// Pairs whose two games are both in `games`.
    pub pairs: usize,
}

impl DistinctPairs {
    /// The pairs of `games`: a pair with one game so far is not counted.
    pub fn of(games: &[GameSummary]) -> DistinctPairs {
        let mut counter = PairCounter::default();
        for game in games {
            counter.add(game);
        }
        counter.count()
    }

    /// `distinct pairs: K of N`, and when some pair was replayed, a warning that names the
    /// cure. With no pair complete (a league stopped before any pairing played its second
    /// game, roles swapped) there is nothing to count, and the line says so, not `0 of 0`.
    pub fn report(&self) -> (String, Option<String>) {
        let line = if self.pairs == 0 {
            "distinct pairs: none to count: no role-swapped pair has both its games yet".into()
        } else {
            format!("distinct pairs: {} of {}", self.distinct, self.pairs)
        };
        let warning = (self.distinct < self.pairs).then(|| {
            format!(
                "warning: {} of {} pairs replayed an earlier pair move for move: the bots are \
                 deterministic on a repeated start, so those pairs are no new evidence; vary \
                 the starts with --random-plies N or --openings FILE (random_plies or openings \
                 in tournaments.toml)",
                self.pairs - self.distinct,
                self.pairs
            )
        });
        (line, warning)
    }
}

/// [`DistinctPairs`] counted game by game, in any order: a pair is held as its first
/// game until its second arrives, then as a digest of both (16 bytes), so that a league
/// of any size is counted without holding its games.
#[derive(Clone, Debug, Default)]
pub(crate) struct PairCounter {
    /// Pairs with one game so far: (players in move order, replay digest).
    halves: HashMap<u64, (Shared, Shared, [u8; 12])>,
    /// Pairs with both games: the digest of the two.
    whole: HashMap<u64, [u8; 16]>,
    /// Pairs that claim more than two games: no pair, as in [`DistinctPairs::of`].
    over: HashSet<u64>,
}

impl PairCounter {
    pub(crate) fn add(&mut self, game: &GameSummary) {
        let pair = game.pair;
        if self.over.contains(&pair) {
            return;
        }
        if self.whole.remove(&pair).is_some() {
            self.over.insert(pair);
            return;
        }
        let key = (
            game.players[0].clone(),
            game.players[1].clone(),
            game.replay,
        );
        let Some(first) = self.halves.remove(&pair) else {
            self.halves.insert(pair, key);
            return;
        };
        self.whole.insert(pair, pair_digest([first, key]));
    }

    /// Complete pairs so far, and how many are distinct.
    pub(crate) fn count(&self) -> DistinctPairs {
        let distinct: HashSet<&[u8; 16]> = self.whole.values().collect();
        DistinctPairs {
            distinct: distinct.len(),
            pairs: self.whole.len(),
        }
    }
}

/// What makes a pair the pair it was: its games' players and replays, in a fixed order.
fn pair_digest(mut games: [(Shared, Shared, [u8; 12]); 2]) -> [u8; 16] {
    use sha2::{Digest, Sha256};
    games.sort();
    let mut digest = Sha256::new();
    for (first, second, replay) in &games {
        for part in [first.as_bytes(), b"\0", second.as_bytes(), b"\0", replay] {
            digest.update(part);
        }
    }
    digest.finalize()[..16].try_into().expect("16 of 32 bytes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::shared;

    fn game(id: u64, pair: u64, players: [&str; 2], replay: u8) -> GameSummary {
        GameSummary {
            id,
            players: players.map(shared),
            roles: [shared("rebel"), shared("officer")],
            winner: None,
            reason: shared("round_limit"),
            rounds: 1,
            illegal: [0, 0],
            blocked: [0, 0],
            max_ms: [0.0; 2],
            mean_ms: [0.0; 2],
            seed: 0,
            detail: shared(""),
            pair,
            opening: shared("[]"),
            replay: [replay; 12],
            machine: Default::default(),
            duration_ms: None,
        }
    }

    /// The count as it was made before games were counted one by one: the games sorted
    /// side by side by pair.
    fn by_sorting(games: &[GameSummary]) -> DistinctPairs {
        let mut sorted: Vec<&GameSummary> = games.iter().collect();
        sorted.sort_by_key(|g| (g.pair, g.id));
        let mut seen = HashSet::new();
        let mut pairs = 0;
        for games in sorted.chunk_by(|a, b| a.pair == b.pair) {
            if games.len() != 2 {
                continue;
            }
            pairs += 1;
            let [a, b] = [games[0], games[1]];
            seen.insert(pair_digest([
                (a.players[0].clone(), a.players[1].clone(), a.replay),
                (b.players[0].clone(), b.players[1].clone(), b.replay),
            ]));
        }
        DistinctPairs {
            distinct: seen.len(),
            pairs,
        }
    }

    #[test]
    fn distinct_pairs_counted_game_by_game_in_any_order_equal_the_sorted_count() {
        let mut games = vec![
            // Pairs 0 and 1 replay each other; pair 2 differs; pair 3 has one game; pair
            // 4 claims three (no pair); pair 5 is pair 0 with the roles' games swapped.
            game(0, 0, ["a", "b"], 1),
            game(1, 0, ["b", "a"], 2),
            game(2, 1, ["a", "b"], 1),
            game(3, 1, ["b", "a"], 2),
            game(4, 2, ["a", "b"], 3),
            game(5, 2, ["b", "a"], 2),
            game(6, 3, ["a", "b"], 1),
            game(7, 4, ["a", "b"], 4),
            game(8, 4, ["b", "a"], 4),
            game(9, 4, ["b", "a"], 5),
            game(10, 5, ["b", "a"], 2),
            game(11, 5, ["a", "b"], 1),
        ];
        let expected = DistinctPairs {
            distinct: 2,
            pairs: 4,
        };
        assert_eq!(by_sorting(&games), expected);
        assert_eq!(DistinctPairs::of(&games), expected);
        games.reverse();
        assert_eq!(DistinctPairs::of(&games), expected);
        games.swap(0, 7);
        games.swap(3, 10);
        assert_eq!(DistinctPairs::of(&games), expected);
    }

    #[test]
    fn a_league_stopped_before_any_pair_is_complete_says_so_not_0_of_0() {
        // A round robin plays every pairing's first game before any pairing's second:
        // 41 games of a 12-team league (66 pairings) complete no pair.
        let games: Vec<GameSummary> = (0..41).map(|i| game(i, i, ["a", "b"], i as u8)).collect();
        let (line, warning) = DistinctPairs::of(&games).report();
        assert_eq!(
            line,
            "distinct pairs: none to count: no role-swapped pair has both its games yet"
        );
        assert!(warning.is_none());
        let (line, _) = DistinctPairs::of(&games[..0]).report();
        assert!(!line.contains("0 of 0"), "{line}");
    }
}
