//! Shards: a deterministic part of a tournament's schedule, so that a cluster scheduler
//! (a Slurm job array, a Kubernetes Indexed Job) can play one league on many machines.
//!
//! The schedule is cut by role-swapped pair: both games of a pair share one opening and
//! one start, so they always go to the same shard, and each shard therefore gives every
//! bot as many games in one role as in the other. With seeds by place in the schedule the
//! pairs are dealt to the shards in turn, pairing after pairing (all the pairs of the
//! first pairing, then the second's..): shards differ by at most one pair, and so do a
//! pairing's pairs from shard to shard. With seeds by pairing (a league that grows with
//! `league --update`) a pair goes to the shard its start hashes to, which no other bot
//! joining or leaving changes: each shard's folder is updated on its own, keeping its
//! games, and shards differ in size by chance (435 pairs of a class of 30 in 8 shards:
//! 46 to 69 pairs a shard).

use super::schedule::{Fixture, Seeds};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Shard `index` of `count`, counted from 1 (`--shard K/N`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Shard {
    /// Which shard, from 1 to `count` (K of `--shard K/N`).
    pub index: u32,
    /// How many shards the schedule is cut into (N).
    pub count: u32,
}

impl Shard {
    /// Shard `index` of `count`, or why not.
    pub fn new(index: u32, count: u32) -> Result<Shard, String> {
        if count == 0 {
            return Err(format!(
                "{index}/{count}: N, the number of shards, must be at least 1"
            ));
        }
        if index == 0 {
            return Err(format!(
                "{index}/{count}: shards are counted from 1, so K must be between 1 and {count}"
            ));
        }
        if index > count {
            return Err(format!(
                "{index}/{count}: there are only {count} shards, so K must be between 1 and {count}"
            ));
        }
        Ok(Shard { index, count })
    }

    /// This shard's part of `schedule` (a whole schedule, its seeds by `seeds`), in
    /// schedule order.
    pub(crate) fn select(&self, schedule: &[Fixture], seeds: Seeds) -> Vec<Fixture> {
        schedule
            .iter()
            .zip(shards_of(schedule, self.count, seeds))
            .filter(|(_, k)| *k == self.index)
            .map(|(f, _)| *f)
            .collect()
    }
}

/// The shard (from 1, of `count`) of each game of `schedule`, a whole schedule whose seeds
/// come by `seeds`.
pub(crate) fn shards_of(schedule: &[Fixture], count: u32, seeds: Seeds) -> Vec<u32> {
    use std::collections::HashMap;
    let count = count.max(1);
    if seeds == Seeds::ByPairing {
        // A pair's start comes from its bots' names and pass: mixed (SplitMix64's
        // finalizer), it picks the same shard in any league that holds the pair.
        let shard_of = |start: u64| {
            let mut z = start.wrapping_add(0x9E37_79B9_7F4A_7C15);
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            (z % u64::from(count)) as u32 + 1
        };
        return schedule.iter().map(|f| shard_of(f.start)).collect();
    }
    // Pairs are told apart by their start, pairings by their two bots.
    let pairing = |f: &Fixture| (f.first.min(f.second), f.first.max(f.second));
    let mut pairing_rank: HashMap<(usize, usize), usize> = HashMap::new();
    let mut pairs: Vec<(usize, u64)> = Vec::new();
    let mut seen_starts = std::collections::HashSet::new();
    for f in schedule {
        let next = pairing_rank.len();
        let rank = *pairing_rank.entry(pairing(f)).or_insert(next);
        if seen_starts.insert(f.start) {
            pairs.push((rank, f.start));
        }
    }
    // Pairing after pairing, each pairing's pairs in schedule order (the sort is stable).
    pairs.sort_by_key(|&(rank, _)| rank);
    let count = u64::from(count);
    let shard_of_start: HashMap<u64, u32> = pairs
        .iter()
        .enumerate()
        .map(|(i, &(_, start))| (start, (i as u64 % count) as u32 + 1))
        .collect();
    schedule.iter().map(|f| shard_of_start[&f.start]).collect()
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl std::str::FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Shard, String> {
        let expected = || {
            format!(
                "`{text}`: expected K/N, shard K of N counted from 1 (e.g. 2/5 for the second of five)"
            )
        };
        let (k, n) = text.split_once('/').ok_or_else(expected)?;
        let number = |s: &str| s.trim().parse::<u32>().map_err(|_| expected());
        Shard::new(number(k)?, number(n)?)
    }
}

/// Game ids written compactly: `0-3, 7, 9-10`.
pub(crate) fn id_ranges(ids: &[u64]) -> String {
    let mut sorted = ids.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let mut j = i;
        while j + 1 < sorted.len() && sorted[j + 1] == sorted[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            sorted[i].to_string()
        } else {
            format!("{}-{}", sorted[i], sorted[j])
        });
        i = j + 1;
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tournament::schedule;
    use proptest::prelude::*;
    use std::collections::BTreeMap;

    #[test]
    fn shard_text_is_read_as_k_of_n_with_clear_refusals() {
        assert_eq!("2/5".parse::<Shard>(), Ok(Shard { index: 2, count: 5 }));
        assert_eq!(Shard { index: 2, count: 5 }.to_string(), "2/5");
        for (text, says) in [
            ("0/3", "counted from 1"),
            ("4/3", "only 3 shards"),
            ("1/0", "at least 1"),
            ("x", "expected K/N"),
            ("1/", "expected K/N"),
            ("-1/3", "expected K/N"),
        ] {
            let err = text.parse::<Shard>().unwrap_err();
            assert!(err.contains(says), "{text}: `{says}` in: {err}");
        }
    }

    #[test]
    fn missing_ids_are_written_as_ranges() {
        assert_eq!(id_ranges(&[9, 0, 1, 2, 3, 7, 10]), "0-3, 7, 9-10");
        assert_eq!(id_ranges(&[]), "");
        assert_eq!(id_ranges(&[5, 5]), "5");
    }

    fn check_partition(fixtures: &[Fixture], count: u32) -> Result<(), TestCaseError> {
        let shards: Vec<Vec<Fixture>> = (1..=count)
            .map(|k| Shard::new(k, count).unwrap().select(fixtures, Seeds::ById))
            .collect();
        // Every game in exactly one shard.
        let mut seen = BTreeMap::new();
        for (k, shard) in shards.iter().enumerate() {
            for f in shard {
                prop_assert!(
                    seen.insert(f.id, k).is_none(),
                    "game {} in two shards",
                    f.id
                );
            }
        }
        prop_assert_eq!(seen.len(), fixtures.len(), "a game is in no shard");
        // A pair's two games in one shard.
        let mut shard_of_start = BTreeMap::new();
        for f in fixtures {
            let k = seen[&f.id];
            prop_assert_eq!(
                *shard_of_start.entry(f.start).or_insert(k),
                k,
                "the pair of start {} is split",
                f.start
            );
        }
        // Sizes within one pair of each other.
        let sizes: Vec<usize> = shards.iter().map(Vec::len).collect();
        let (min, max) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
        prop_assert!(max - min <= 2, "shard sizes {:?}", sizes);
        // In each shard every bot plays each role equally often, and a pairing's games
        // differ by at most one pair from shard to shard.
        let pairings: BTreeMap<(usize, usize), usize> =
            fixtures.iter().fold(BTreeMap::new(), |mut m, f| {
                *m.entry((f.first.min(f.second), f.first.max(f.second)))
                    .or_default() += 1;
                m
            });
        for shard in &shards {
            let mut roles: BTreeMap<usize, [i64; 2]> = BTreeMap::new();
            let mut per_pairing: BTreeMap<(usize, usize), usize> = BTreeMap::new();
            for f in shard {
                roles.entry(f.first).or_default()[0] += 1;
                roles.entry(f.second).or_default()[1] += 1;
                *per_pairing
                    .entry((f.first.min(f.second), f.first.max(f.second)))
                    .or_default() += 1;
            }
            for (bot, [first, second]) in roles {
                prop_assert_eq!(first, second, "bot {} in a shard", bot);
            }
            for (pairing, games) in &pairings {
                let here = per_pairing.get(pairing).copied().unwrap_or(0);
                let fair = *games as f64 / f64::from(count);
                prop_assert!(
                    (here as f64 - fair).abs() <= 2.0,
                    "pairing {:?}: {} of its {} games in one shard of {}",
                    pairing,
                    here,
                    games,
                    count
                );
            }
        }
        Ok(())
    }

    proptest! {
        #[test]
        fn every_game_is_in_exactly_one_balanced_shard(
            bots in 2usize..12,
            pairs in 1u32..5,
            count in 1u32..9,
            seed in any::<u64>(),
            gauntlet in any::<bool>(),
        ) {
            let fixtures = if gauntlet {
                schedule::gauntlet(bots, pairs, seed)
            } else {
                schedule::round_robin(bots, pairs, seed)
            };
            check_partition(&fixtures, count)?;
        }

        #[test]
        fn a_pair_seeded_by_pairing_keeps_its_shard_whoever_joins_or_leaves(
            bots in 2usize..10,
            pairs in 1u32..4,
            count in 1u32..6,
            seed in any::<u64>(),
        ) {
            let names = |n: usize| (0..n).map(|i| format!("Team{i:02}")).collect::<Vec<_>>();
            let shards = |names: &[String]| {
                let fixtures = schedule::round_robin_of(names, pairs, seed, Seeds::ByPairing);
                let of = shards_of(&fixtures, count, Seeds::ByPairing);
                fixtures
                    .iter()
                    .zip(of)
                    .map(|(f, k)| ((names[f.first].clone(), names[f.second].clone(), f.start), k))
                    .collect::<BTreeMap<_, _>>()
            };
            let league = shards(&names(bots));
            for (k, game) in league.values().zip(league.keys()) {
                prop_assert!((1..=count).contains(k), "{:?} in shard {}", game, k);
                // A pair's two games in one shard.
                let swapped = (game.1.clone(), game.0.clone(), game.2);
                prop_assert_eq!(league.get(&swapped), Some(k));
            }
            // A team joins, or the last leaves: every pair both leagues hold keeps its shard.
            for other in [shards(&names(bots + 1)), shards(&names(bots - 1))] {
                for (game, k) in &other {
                    if let Some(was) = league.get(game) {
                        prop_assert_eq!(was, k, "{:?} moved", game);
                    }
                }
            }
        }
    }

    #[test]
    fn shards_of_a_class_league_seeded_by_pairing_are_near_even() {
        let names: Vec<String> = (0..30).map(|i| format!("Team{i:02}")).collect();
        let fixtures = schedule::round_robin_of(&names, 1, 7, Seeds::ByPairing);
        for count in [2u32, 3, 4, 8] {
            let mut sizes = vec![0usize; count as usize];
            for k in shards_of(&fixtures, count, Seeds::ByPairing) {
                sizes[k as usize - 1] += 1;
            }
            let fair = fixtures.len() / count as usize;
            assert!(
                sizes.iter().all(|&n| n.abs_diff(fair) <= fair / 3),
                "{count} shards of {} games: {sizes:?}",
                fixtures.len()
            );
        }
    }
}
