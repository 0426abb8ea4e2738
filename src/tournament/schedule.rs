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

/// How a round robin's games get their seeds and starts (the plan's `seeds`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Seeds {
    /// From the game's place in the schedule (journals written before `league --update`):
    /// the same pairing gets other seeds in a league of other bots.
    ById,
    /// From the two bots' names and the pass: a pairing's games are the same games in any
    /// league that holds both bots, so a league can grow (`league --update`) and equal a
    /// league started afresh with its bots, game for game.
    ByPairing,
}

impl Seeds {
    /// The plan's name for it; none for [`Seeds::ById`], which older plans leave out.
    pub(crate) fn name(self) -> Option<&'static str> {
        match self {
            Seeds::ById => None,
            Seeds::ByPairing => Some(BY_PAIRING),
        }
    }

    /// The scheme a plan's `seeds` names.
    pub(crate) fn of(name: Option<&str>) -> Result<Seeds, String> {
        match name {
            None => Ok(Seeds::ById),
            Some(BY_PAIRING) => Ok(Seeds::ByPairing),
            Some(other) => Err(format!("seeds `{other}`: expected `{BY_PAIRING}` or none")),
        }
    }
}

/// The plan's name of [`Seeds::ByPairing`].
pub(crate) const BY_PAIRING: &str = "pairing";

/// FNV-1a over `parts`, each ended by a 0 byte: a stable number for names.
fn name_hash(parts: &[&str]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &b in part.as_bytes().iter().chain(std::iter::once(&0u8)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    h
}

/// The start of pass `pass` of the pairing of the bots named `a` and `b` (in either
/// order), under [`Seeds::ByPairing`]: the pass above the pairing's own number, so the
/// passes of one pairing never share a start.
pub(crate) fn pairing_start(a: &str, b: &str, pass: u32) -> u64 {
    let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
    (u64::from(pass) << 32) | (name_hash(&[lo, hi]) & 0xFFFF_FFFF)
}

/// The seed of the game of pass `pass` in which `first` moves first against `second`,
/// under [`Seeds::ByPairing`].
pub(crate) fn pairing_seed(seed: u64, first: &str, second: &str, pass: u32) -> u64 {
    game_seed(
        seed,
        name_hash(&[first, second]) ^ u64::from(pass).wrapping_mul(0xD6E8_FEB8_6659_FD93),
    )
}

/// [`round_robin`] of the bots named `names` with their seeds and starts by `seeds`: the
/// same games in the same order, ids dense from 0; by pairing, each game's seed and start
/// come from its bots' names and its pass.
pub(crate) fn round_robin_of(
    names: &[String],
    pairs: u32,
    seed: u64,
    seeds: Seeds,
) -> Vec<Fixture> {
    let mut fixtures = round_robin(names.len(), pairs, seed);
    if seeds == Seeds::ByPairing {
        let pairings = (names.len() * names.len().saturating_sub(1) / 2).max(1) as u64;
        for f in &mut fixtures {
            // Each pass holds every pairing twice (once each way), `pairings` starts.
            let pass = (f.start / pairings) as u32;
            f.start = pairing_start(&names[f.first], &names[f.second], pass);
            f.seed = pairing_seed(seed, &names[f.first], &names[f.second], pass);
        }
    }
    fixtures
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

/// A scheduled game in its fewest bytes.
pub(crate) struct PendingGame {
    id: u64,
    start: u64,
    seed: u64,
    first: u32,
    second: u32,
}

impl PendingGame {
    pub(crate) fn of(fixture: &Fixture) -> PendingGame {
        PendingGame {
            id: fixture.id,
            start: fixture.start,
            seed: fixture.seed,
            // A tournament has far fewer than 2^32 bots.
            first: fixture.first as u32,
            second: fixture.second as u32,
        }
    }

    pub(crate) fn fixture(&self) -> Fixture {
        Fixture {
            id: self.id,
            first: self.first as usize,
            second: self.second as usize,
            seed: self.seed,
            start: self.start,
        }
    }
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
            assert_role_swapped_pairs(&fixtures);
        }
    }

    /// Each start is played by exactly two games, the second the first with its roles
    /// swapped.
    fn assert_role_swapped_pairs(fixtures: &[Fixture]) {
        let mut by_start: BTreeMap<u64, Vec<(usize, usize)>> = BTreeMap::new();
        for f in fixtures {
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

    fn names(n: usize) -> Vec<String> {
        (0..n).map(|i| format!("Team{i:02}")).collect()
    }

    /// A pairing's games by pairing are the same games, seed and start, in a league of
    /// more bots or of the same bots in another order: what lets a league grow.
    #[test]
    fn by_pairing_a_pairings_games_are_the_same_in_any_league_that_holds_both_bots() {
        let key = |f: &Fixture, names: &[String]| {
            (
                names[f.first].clone(),
                names[f.second].clone(),
                f.seed,
                f.start,
            )
        };
        let four = names(4);
        let mut six = names(6);
        six.swap(0, 5);
        let small: std::collections::BTreeSet<_> = round_robin_of(&four, 2, 9, Seeds::ByPairing)
            .iter()
            .map(|f| key(f, &four))
            .collect();
        let large: std::collections::BTreeSet<_> = round_robin_of(&six, 3, 9, Seeds::ByPairing)
            .iter()
            .map(|f| key(f, &six))
            .collect();
        assert_eq!(small.len(), 4 * 3 * 2);
        assert!(small.is_subset(&large));
        // Still role-swapped pairs sharing a start, every seed its own.
        let fixtures = round_robin_of(&six, 3, 9, Seeds::ByPairing);
        assert_role_swapped_pairs(&fixtures);
        let seeds: std::collections::HashSet<u64> = fixtures.iter().map(|f| f.seed).collect();
        assert_eq!(seeds.len(), fixtures.len());
        // By id, the schedule is the one journals were written with before.
        assert_eq!(
            round_robin_of(&six, 2, 9, Seeds::ById),
            round_robin(6, 2, 9)
        );
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
