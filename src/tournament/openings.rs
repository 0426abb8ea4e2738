//! The openings of a tournament: which start each role-swapped pair plays from, and how
//! many pairs were really distinct games.
//!
//! Both games of a pair share one opening (the fixture's `start` is the pair's index), so a
//! pair is the colour-swapped sample that pentanomial statistics assume.

use super::journal::PlanOpenings;
use crate::error::Error;
use crate::games::Game;
use crate::games::openings::{self, Opening, OpeningKind};
use crate::record::GameSummary;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Where each pair starts.
#[derive(Clone, Debug, PartialEq)]
pub enum Openings {
    /// The game's own start (Hinger: its start boards).
    Standard,
    /// `plies` random plies per pair, drawn from the tournament's seed and the pair.
    Random { plies: u32 },
    /// A book's lines, checked; pair i plays `lines[order[i % len]]`.
    Book {
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
    RandomPlies(u32),
    Book {
        file: PathBuf,
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
                        "{}'s openings are its start boards (--board, or random starts):                          --random-plies and --openings (random_plies and openings in                          tournaments.toml) do not apply",
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
    pub distinct: usize,
    pub pairs: usize,
}

impl DistinctPairs {
    pub fn of(games: &[GameSummary]) -> DistinctPairs {
        use sha2::{Digest, Sha256};
        // Pairs side by side, and each pair kept as a digest of its games: the count stays
        // small in memory for a league of any size.
        let mut sorted: Vec<&GameSummary> = games.iter().collect();
        sorted.sort_by_key(|g| (g.pair, g.id));
        let mut seen = HashSet::new();
        let mut pairs = 0;
        for games in sorted.chunk_by(|a, b| a.pair == b.pair) {
            if games.len() != 2 {
                continue;
            }
            pairs += 1;
            let mut key: Vec<(&str, &str, [u8; 12])> = games
                .iter()
                .map(|g| (g.players[0].as_str(), g.players[1].as_str(), g.replay))
                .collect();
            key.sort();
            let mut digest = Sha256::new();
            for (first, second, replay) in key {
                for part in [first.as_bytes(), b"\0", second.as_bytes(), b"\0", &replay] {
                    digest.update(part);
                }
            }
            let digest: [u8; 16] = digest.finalize()[..16].try_into().expect("16 of 32 bytes");
            seen.insert(digest);
        }
        DistinctPairs {
            distinct: seen.len(),
            pairs,
        }
    }

    /// `distinct pairs: K of N`, and when some pair was replayed, a warning that names the
    /// cure.
    pub fn report(&self) -> (String, Option<String>) {
        let line = format!("distinct pairs: {} of {}", self.distinct, self.pairs);
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
