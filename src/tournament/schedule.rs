//! Who plays whom, in which role, with which seed: deterministic from the tournament seed.

use serde::{Deserialize, Serialize};

/// One scheduled game: indices into the tournament's bot list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fixture {
    /// The scheduled id, dense from 0.
    pub id: u64,
    /// The bot in the first role (the one that moves first).
    pub first: usize,
    pub second: usize,
    pub seed: u64,
    /// The start number (see `Game::start_position`): shared by the two games of a
    /// role-swapped pair, distinct across pairs.
    pub start: u64,
}

/// A seed for game `id` of a tournament seeded `seed` (splitmix64 of the pair).
pub(crate) fn game_seed(seed: u64, id: u64) -> u64 {
    let mut z = seed
        ^ id.wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(0x6A09_E667_F3BC_C909);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The most games one schedule may hold. A schedule is built whole (about 40 bytes a
/// game), and its size comes from a number a user or a file chose: a run of more games
/// is refused before anything is built. A 30-team league of 1000 pairs is 870,000 games.
pub(crate) const MAX_GAMES: u64 = 1_000_000;

/// The games of a round robin (`gauntlet` false) or a gauntlet of `bots` with `pairs`
/// pairs, or why there would be too many; `what` names where `pairs` came from.
pub(crate) fn check_size(
    gauntlet: bool,
    bots: usize,
    pairs: u32,
    what: &str,
) -> Result<u64, String> {
    let bots = bots as u64;
    let pairings = if gauntlet {
        bots.saturating_sub(1)
    } else {
        bots * bots.saturating_sub(1) / 2
    };
    let games = 2 * u64::from(pairs) * pairings;
    if games > MAX_GAMES {
        return Err(format!(
            "{what} {pairs} makes {games} games for {bots} bots; a run holds at most \
             {MAX_GAMES} games"
        ));
    }
    Ok(games)
}

/// Round-robin: every pair of bots plays `pairs` role-swapped pairs of games.
///
/// Games are ordered by the circle method, one round of pairings after another, so
/// that a league stopped half-way has given every bot about the same number of games
/// and the same share of each role.
pub(crate) fn round_robin(bots: usize, pairs: u32, seed: u64) -> Vec<Fixture> {
    let rounds = circle_rounds(bots);
    let pairings = (bots * bots.saturating_sub(1) / 2) as u64;
    // Sized at once: a growing list of 100,000 games leaves freed copies of itself behind.
    let mut order = Vec::with_capacity(2 * pairs as usize * pairings as usize);
    for pass in 0..pairs {
        for swap in [false, true] {
            let mut pairing = 0;
            for (r, round) in rounds.iter().enumerate() {
                for &(a, b) in round {
                    // Alternate orientation by round so roles stay balanced mid-league.
                    let flip = swap ^ (r % 2 == 1) ^ (pass % 2 == 1);
                    let start = pass as u64 * pairings + pairing;
                    order.push(if flip { (b, a, start) } else { (a, b, start) });
                    pairing += 1;
                }
            }
        }
    }
    number(order, seed)
}

/// The candidate (index 0) against every baseline (indices 1..), `pairs` role-swapped
/// pairs each, baselines interleaved.
pub(crate) fn gauntlet(bots: usize, pairs: u32, seed: u64) -> Vec<Fixture> {
    let mut order = Vec::with_capacity(2 * pairs as usize * bots.saturating_sub(1));
    for pass in 0..pairs {
        for swap in [false, true] {
            for baseline in 1..bots {
                let start = pass as u64 * (bots as u64 - 1) + baseline as u64 - 1;
                order.push(if swap {
                    (baseline, 0, start)
                } else {
                    (0, baseline, start)
                });
            }
        }
    }
    number(order, seed)
}

fn number(order: Vec<(usize, usize, u64)>, seed: u64) -> Vec<Fixture> {
    order
        .into_iter()
        .enumerate()
        .map(|(i, (first, second, start))| {
            let id = i as u64;
            Fixture {
                id,
                first,
                second,
                seed: game_seed(seed, id),
                start,
            }
        })
        .collect()
}

/// The rounds of the circle method: each bot meets each other bot once; with an odd
/// count one bot rests each round.
fn circle_rounds(n: usize) -> Vec<Vec<(usize, usize)>> {
    if n < 2 {
        return Vec::new();
    }
    let slots = n + n % 2; // a resting slot when n is odd
    let mut ring: Vec<usize> = (0..slots).collect();
    let mut rounds = Vec::with_capacity(slots - 1);
    for _ in 0..slots - 1 {
        let mut round = Vec::with_capacity(slots / 2);
        for i in 0..slots / 2 {
            let (a, b) = (ring[i], ring[slots - 1 - i]);
            if a < n && b < n {
                round.push((a.min(b), a.max(b)));
            }
        }
        rounds.push(round);
        ring[1..].rotate_right(1);
    }
    rounds
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn role_counts(fixtures: &[Fixture]) -> BTreeMap<(usize, usize), u32> {
        let mut counts = BTreeMap::new();
        for f in fixtures {
            *counts.entry((f.first, f.second)).or_default() += 1;
        }
        counts
    }

    #[test]
    fn every_ordered_pair_plays_k_times_in_each_role() {
        for n in 2..=9 {
            for k in 1..=3 {
                let fixtures = round_robin(n, k, 7);
                assert_eq!(fixtures.len(), n * (n - 1) * k as usize, "n={n} k={k}");
                let counts = role_counts(&fixtures);
                for a in 0..n {
                    for b in 0..n {
                        let expected = if a == b { 0 } else { k };
                        assert_eq!(
                            counts.get(&(a, b)).copied().unwrap_or(0),
                            expected,
                            "n={n} k={k} {a}->{b}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn first_half_of_a_league_meets_everyone_once() {
        let fixtures = round_robin(6, 1, 1);
        let mut met = BTreeMap::new();
        for f in &fixtures[..15] {
            *met.entry((f.first.min(f.second), f.first.max(f.second)))
                .or_insert(0) += 1;
        }
        assert_eq!(met.len(), 15);
        assert!(met.values().all(|&c| c == 1));
    }

    /// A run keeps its pending games without their seeds and derives them again.
    #[test]
    fn every_seed_is_derived_from_the_tournament_seed_and_the_game_id() {
        for fixtures in [round_robin(5, 3, 42), gauntlet(4, 3, 42)] {
            for f in fixtures {
                assert_eq!(f.seed, game_seed(42, f.id), "{f:?}");
            }
        }
    }

    #[test]
    fn schedule_is_deterministic_and_seeds_differ() {
        assert_eq!(round_robin(5, 2, 3), round_robin(5, 2, 3));
        let seeds: std::collections::HashSet<u64> =
            round_robin(5, 2, 3).iter().map(|f| f.seed).collect();
        assert_eq!(seeds.len(), 40);
        assert_ne!(round_robin(5, 1, 3)[0].seed, round_robin(5, 1, 4)[0].seed);
    }

    #[test]
    fn each_start_is_played_twice_with_the_roles_swapped() {
        for fixtures in [round_robin(5, 2, 9), gauntlet(4, 3, 9)] {
            let mut by_start: BTreeMap<u64, Vec<(usize, usize)>> = BTreeMap::new();
            for f in &fixtures {
                by_start
                    .entry(f.start)
                    .or_default()
                    .push((f.first, f.second));
            }
            assert_eq!(by_start.len() * 2, fixtures.len());
            for games in by_start.values() {
                assert_eq!(games.len(), 2);
                assert_eq!(games[0], (games[1].1, games[1].0));
            }
        }
    }

    #[test]
    fn gauntlet_plays_only_the_candidate() {
        let fixtures = gauntlet(4, 2, 0);
        assert_eq!(fixtures.len(), 3 * 2 * 2);
        assert!(fixtures.iter().all(|f| (f.first == 0) != (f.second == 0)));
        let counts = role_counts(&fixtures);
        for b in 1..4 {
            assert_eq!(counts[&(0, b)], 2);
            assert_eq!(counts[&(b, 0)], 2);
        }
    }
}
