//! A tournament's results as counts, kept game by game as the journal is written or read:
//! everything the tables need that is not a row per game. A league of 100,000 games is
//! tabled from a few entries per pairing, per ending and per pair instead of a summary
//! per game; what does list every game (games.csv, a team's feedback) reads the journal
//! again, one game at a time.

use super::openings::{DistinctPairs, PairCounter};
use crate::record::{GameSummary, Shared};
use crate::stats::league::Counts;
use std::collections::BTreeMap;

/// Results so far, counted.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    /// Games counted.
    pub games: usize,
    /// Per ordered pairing: the standings, Elo and the head-to-head tables.
    pub counts: Counts,
    /// Per way a game ended (its reason).
    pub endings: BTreeMap<Shared, EndingCounts>,
    /// The games some bot lost by its own failure or an illegal move, in the order
    /// counted: few in a league of working bots, each listed in the marks and the report.
    pub failed: Vec<GameSummary>,
    /// What the machine's load did to the games, counted.
    pub machine: MachineTotals,
    pairs: PairCounter,
}

/// What the machine's load did to a run's games (`clocks::runqueue`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MachineTotals {
    /// Games played again because the machine's load left a play without a result.
    pub games_replayed: usize,
    /// Plays dropped so, in all.
    pub replays: usize,
    /// Moves that ran past the limit in wall time while their bot waited for a CPU, and
    /// were timed without the wait.
    pub waited_moves: usize,
}

impl MachineTotals {
    /// One line for a run's summary and report: what the machine's load did, said even
    /// when it did nothing.
    pub fn line(&self) -> String {
        let games = |n: usize| if n == 1 { "game" } else { "games" };
        let moves = if self.waited_moves == 1 {
            "move"
        } else {
            "moves"
        };
        let mut line = format!(
            "machine load: {} {} replayed",
            self.games_replayed,
            games(self.games_replayed)
        );
        if self.replays > self.games_replayed {
            line.push_str(&format!(" ({} plays dropped)", self.replays));
        }
        line.push_str(&format!(
            "; {} {moves} ran late waiting for a CPU and {} timed without the wait",
            self.waited_moves,
            if self.waited_moves == 1 {
                "was"
            } else {
                "were"
            }
        ));
        line
    }
}

/// The games that ended one way.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EndingCounts {
    /// Wins of each role (move order).
    pub wins: [u32; 2],
    /// Games without a winner, both bots' failures included.
    pub ties: u32,
    /// How many games lasted each number of rounds.
    pub rounds: BTreeMap<u32, u32>,
}

impl Tally {
    /// The tally of `games`, each added once.
    pub fn of<'a>(games: impl IntoIterator<Item = &'a GameSummary>) -> Tally {
        let mut tally = Tally::default();
        for game in games {
            tally.add(game);
        }
        tally
    }

    /// Counts one more game (each game once).
    pub fn add(&mut self, game: &GameSummary) {
        self.games += 1;
        self.counts.add(game);
        let ending = self.endings.entry(game.reason.clone()).or_default();
        match game.winner {
            Some(w) if w < 2 => ending.wins[w] += 1,
            _ => ending.ties += 1,
        }
        *ending.rounds.entry(game.rounds).or_default() += 1;
        self.pairs.add(game);
        if game.machine.replays > 0 {
            self.machine.games_replayed += 1;
            self.machine.replays += game.machine.replays as usize;
        }
        self.machine.waited_moves += game.machine.waited as usize;
        if is_failure(game) {
            self.failed.push(game.clone());
        }
    }

    /// Complete pairs so far, and how many were distinct games.
    pub fn distinct(&self) -> DistinctPairs {
        self.pairs.count()
    }
}

/// Whether some bot lost `game` by its own failure, or by an illegal move where that
/// loses: the games a team's failures are listed from.
pub(crate) fn is_failure(game: &GameSummary) -> bool {
    !game.faults().is_empty() || (game.winner.is_some() && game.reason.contains("illegal"))
}
