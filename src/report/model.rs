//! What a report says, computed once from a tournament's plan and games: the standings,
//! the head-to-head results, the results by role, the game lengths by ending and, for a
//! sequential test, its history. The CSV tables, report.md, report.tex, the plots and
//! index.html all render this one model, so they never disagree.

use crate::error::Error;
use crate::record::{GameSummary, Shared};
use crate::stats::elo::{Anchor, PairStats};
use crate::stats::league::{self, Counts, LeagueTable, Pairing, Scoring};
use crate::tournament::journal::{self, Plan};
use crate::tournament::openings::DistinctPairs;
use crate::tournament::sprt::SprtStatus;
use crate::tournament::tally::{EndingCounts, Tally};
use std::collections::BTreeMap;

/// A tournament's results, ready to render.
pub(crate) struct Report<'a> {
    pub plan: &'a Plan,
    /// Journaled games the report counts: for an SPRT, the games of the pairs the test
    /// counted.
    pub games: usize,
    /// Those games one at a time, in schedule order, for what lists every game (games.csv,
    /// a team's feedback).
    pub source: GameSource<'a>,
    /// The games some bot lost by its own failure or an illegal move, in schedule order.
    pub failed: Vec<GameSummary>,
    /// Journaled games of an SPRT that its test did not count (finished after the deciding
    /// pair, or beyond a pair still missing): in the journal, in no table.
    pub uncounted: usize,
    /// The bot whose Elo is fixed, when one is; else Elo has mean 0.
    pub anchor: Option<Anchor>,
    /// Bot names in the plan's order (the points matrix's rows and columns).
    pub bots: Vec<String>,
    /// The bots the marks leave out.
    pub non_scoring: Vec<String>,
    /// The class list kept in the tournament's folder: its teams with no bot are listed
    /// too, mark 0.
    pub roster: Option<crate::class::Roster>,
    /// Written for the class to read (`arbiter report --public`): teams by name, their
    /// results and marks, and nothing of a student's (a platform's names and ids in an
    /// entry), of a path of the teacher's (a bot's spec) or of any team's error text.
    pub public: bool,
    pub table: LeagueTable,
    pub pairings: Vec<Pairing>,
    /// `points[i][j]`: the points bot i scored against bot j.
    pub points: Vec<Vec<f64>>,
    /// `met[i][j]`: the games bots i and j played against each other.
    pub met: Vec<Vec<u32>>,
    /// One entry per role, in move order.
    pub roles: Vec<RoleResults>,
    /// One entry per way a game ended, the most frequent first.
    pub endings: Vec<Ending>,
    pub distinct: DistinctPairs,
    /// What the machine's load did to the games.
    pub machine: crate::tournament::tally::MachineTotals,
    /// The sequential test, for an SPRT's folder.
    pub sprt: Option<SprtReport>,
    /// Each team's versions, in a league that grew (`league --update`); set by whoever
    /// knows the folder.
    pub versions: Vec<Version>,
}

/// How the games went for whoever played one role.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct RoleResults {
    pub role: String,
    pub games: u32,
    /// Games this role won.
    pub wins: u32,
    pub ties: u32,
}

/// The games that ended one way, and how long they lasted.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Ending {
    pub reason: String,
    /// Wins of each role (move order) by this ending.
    pub wins: [u32; 2],
    pub ties: u32,
    /// Every game's rounds, ascending.
    pub rounds: Vec<u32>,
}

impl Ending {
    pub(crate) fn games(&self) -> usize {
        self.rounds.len()
    }

    pub(crate) fn min(&self) -> u32 {
        self.rounds.first().copied().unwrap_or(0)
    }

    pub(crate) fn max(&self) -> u32 {
        self.rounds.last().copied().unwrap_or(0)
    }

    /// The middle value; the mean of the two middle ones for an even count.
    pub(crate) fn median(&self) -> f64 {
        let n = self.rounds.len();
        match n {
            0 => 0.0,
            _ if n % 2 == 1 => self.rounds[n / 2] as f64,
            _ => (self.rounds[n / 2 - 1] + self.rounds[n / 2]) as f64 / 2.0,
        }
    }

    pub(crate) fn mean(&self) -> f64 {
        if self.rounds.is_empty() {
            0.0
        } else {
            self.rounds.iter().map(|&r| r as f64).sum::<f64>() / self.rounds.len() as f64
        }
    }
}

/// A sequential test: its settings, and the test after each counted pair.
#[derive(Clone, Debug)]
pub(crate) struct SprtReport {
    pub candidate: String,
    pub baseline: String,
    pub alpha: f64,
    pub beta: f64,
    /// The most pairs the test could play.
    pub max_pairs: u32,
    pub history: Vec<SprtStatus>,
}

impl SprtReport {
    /// The test as it stands: after its last counted pair.
    pub(crate) fn last(&self) -> Option<&SprtStatus> {
        self.history.last()
    }
}

impl<'a> Report<'a> {
    /// The report of `all_games` played under `plan`, the marks leaving out `non_scoring`, Elo
    /// relative to `anchor` (else mean 0); `sprt_history` is the test after each pair, for
    /// an SPRT.
    ///
    /// An SPRT's tables count exactly the pairs its test counted: one pair count in the
    /// verdict, the standings and the distinct-pairs line. Games that finished while the
    /// run was stopping stay in the journal only.
    pub(crate) fn new(
        plan: &'a Plan,
        all_games: &'a [GameSummary],
        non_scoring: &[String],
        sprt_history: Option<Vec<SprtStatus>>,
        anchor: Option<&Anchor>,
    ) -> Report<'a> {
        let counted_pairs = sprt_history
            .as_ref()
            .map(|history| history.last().map_or(0, |s| s.pairs));
        let mut sorted: Vec<&GameSummary> = all_games
            .iter()
            .filter(|g| {
                counted_pairs.is_none_or(|pairs| crate::tournament::sprt::counted(g, pairs))
            })
            .collect();
        sorted.sort_by_key(|g| g.id);
        let uncounted = all_games.len() - sorted.len();
        let tally = Tally::of(sorted.iter().copied());
        Report::of_tally(
            plan,
            &tally,
            GameSource::Held(sorted),
            non_scoring,
            (sprt_history, uncounted),
            anchor,
        )
    }

    /// The report of the games counted in `tally` under `plan`, each game read again from
    /// `source` where a table lists every game; `sprt` is the test after each pair (for an
    /// SPRT) and the journaled games it did not count.
    pub(crate) fn of_tally(
        plan: &'a Plan,
        tally: &Tally,
        source: GameSource<'a>,
        non_scoring: &[String],
        (sprt_history, uncounted): (Option<Vec<SprtStatus>>, usize),
        anchor: Option<&Anchor>,
    ) -> Report<'a> {
        let scoring = Scoring {
            win: plan.points_win,
            tie: plan.points_tie,
        };
        let bots: Vec<String> = plan.bots.iter().map(|b| b.name.clone()).collect();
        let counts = &tally.counts;
        let mut table = league::table_of(&bots, counts, scoring, anchor);
        league::set_marks(&mut table.rows, non_scoring);
        let pairings = league::pairings_of(&bots, counts, scoring);
        let points = league::head_to_head_of(&bots, counts, scoring);
        let mut met = vec![vec![0u32; bots.len()]; bots.len()];
        let index = |name: &str| bots.iter().position(|b| b == name);
        for p in &pairings {
            if let (Some(i), Some(j)) = (index(&p.bot), index(&p.opponent)) {
                met[i][j] = p.stats.games;
            }
        }
        let sprt = sprt_history.map(|history| SprtReport {
            candidate: bots.first().cloned().unwrap_or_default(),
            baseline: bots.get(1).cloned().unwrap_or_default(),
            alpha: plan.sprt.as_ref().map_or(0.0, |s| s.alpha),
            beta: plan.sprt.as_ref().map_or(0.0, |s| s.beta),
            max_pairs: plan.pairs,
            history,
        });
        let distinct = tally.distinct();
        let mut failed = tally.failed.clone();
        failed.sort_by_key(|g| g.id);
        Report {
            plan,
            roles: role_results(&plan.roles, &tally.counts, tally.games),
            endings: endings(&tally.endings),
            distinct,
            machine: tally.machine,
            games: tally.games,
            source,
            failed,
            uncounted,
            anchor: anchor.cloned(),
            bots,
            non_scoring: non_scoring.to_vec(),
            roster: None,
            public: false,
            table,
            pairings,
            points,
            met,
            sprt,
            versions: Vec::new(),
        }
    }

    /// Whether the course marks mean anything here: in a league only. In a gauntlet or an
    /// SPRT the candidate plays every game and the others only against it, so 20 x_i /
    /// x_winner compares nothing.
    pub(crate) fn marks(&self) -> bool {
        self.plan.format == "round_robin"
    }

    /// A gauntlet's candidate against each baseline, by the baselines' rank (empty for other
    /// formats): the candidate's side of each head-to-head.
    pub(crate) fn head_to_head(&self) -> Vec<&Pairing> {
        if self.plan.format != "gauntlet" {
            return Vec::new();
        }
        let Some(candidate) = self.bots.first() else {
            return Vec::new();
        };
        self.ranked()
            .into_iter()
            .map(|i| &self.bots[i])
            .filter(|baseline| *baseline != candidate)
            .filter_map(|baseline| {
                self.pairings
                    .iter()
                    .find(|p| &p.bot == candidate && &p.opponent == baseline)
            })
            .collect()
    }

    /// The bots' indices (plan order) in the standings' order: by rank, bots of one
    /// rank by name, and any bot the standings lack after them by name. Every table and
    /// plot that lists the bots lists them so, not in the order of the download.
    pub(crate) fn ranked(&self) -> Vec<usize> {
        let mut order: Vec<usize> = self
            .table
            .rows
            .iter()
            .filter_map(|s| self.bots.iter().position(|b| *b == s.bot))
            .collect();
        let mut rest: Vec<usize> = (0..self.bots.len())
            .filter(|i| !order.contains(i))
            .collect();
        rest.sort_by(|&a, &b| self.bots[a].cmp(&self.bots[b]));
        order.extend(rest);
        order
    }

    /// The likelihood of superiority of bot i over bot j (plan order), from their games
    /// against each other; `None` where they did not meet.
    pub(crate) fn los(&self, i: usize, j: usize) -> Option<f64> {
        let (bot, opponent) = (self.bots.get(i)?, self.bots.get(j)?);
        self.pairings
            .iter()
            .find(|p| &p.bot == bot && &p.opponent == opponent && p.stats.games > 0)
            .map(|p| p.stats.los)
    }

    /// How Elo is placed, in words: `mean 0`, or the anchor.
    pub(crate) fn elo_reference(&self) -> String {
        match &self.anchor {
            Some(a) => format!(
                "{} anchored at {} (--anchor)",
                a.bot,
                super::numbers::num(a.elo)
            ),
            None => "mean 0".into(),
        }
    }

    /// The role names in move order (two, whatever the plan holds).
    pub(crate) fn role_names(&self) -> [String; 2] {
        let role = |i: usize| {
            self.plan
                .roles
                .get(i)
                .cloned()
                .unwrap_or_else(|| format!("role {}", i + 1))
        };
        [role(0), role(1)]
    }
}

/// Why a head-to-head's Elo difference says nothing, in words; `None` when it does.
pub(crate) fn too_few_to_tell(stats: &PairStats) -> Option<String> {
    if stats.tells() {
        return None;
    }
    let decisive = stats.wins + stats.losses;
    let why = if decisive < crate::stats::elo::MIN_DECISIVE {
        format!(
            "{decisive} decisive game{}",
            if decisive == 1 { "" } else { "s" }
        )
    } else if stats.score <= 0.0 || stats.score >= 1.0 {
        "a score of 0% or 100% has no finite Elo".into()
    } else {
        format!(
            "the interval is ±{} Elo wide",
            super::numbers::fixed(stats.elo_error, 0, false)
        )
    };
    Some(format!(
        "too few games to tell ({why}); rerun with about --pairs {} to play on",
        pairs_to_tell(stats)
    ))
}

/// About how many role-swapped pairs against one opponent would tell: enough decisive
/// games at the rate seen so far, and an interval narrowed to ±[`MAX_HALF_WIDTH`] (it
/// narrows with the square root of the games). A sweep (0% or 100%) has no width to
/// narrow: at least twice the pairs then.
///
/// [`MAX_HALF_WIDTH`]: crate::stats::elo::MAX_HALF_WIDTH
pub(crate) fn pairs_to_tell(stats: &PairStats) -> u64 {
    use crate::stats::elo::{MAX_HALF_WIDTH, MIN_DECISIVE};
    let games = f64::from(stats.games.max(1));
    let decisive = f64::from((stats.wins + stats.losses).max(1));
    let mut needed = games * f64::from(MIN_DECISIVE) / decisive;
    if stats.score <= 0.0 || stats.score >= 1.0 {
        needed = needed.max(2.0 * games);
    } else if stats.elo_error.is_finite() && stats.elo_error > MAX_HALF_WIDTH {
        needed = needed.max(games * (stats.elo_error / MAX_HALF_WIDTH).powi(2));
    }
    let pairs = (needed / 2.0).ceil() as u64;
    // Always more than were played: a hint to play on.
    pairs.max(u64::from(stats.games).div_ceil(2) + 1)
}

fn role_results(roles: &[String], counts: &Counts, games: usize) -> Vec<RoleResults> {
    (0..2)
        .map(|seat| {
            let mut result = RoleResults {
                role: roles.get(seat).cloned().unwrap_or_default(),
                games: games as u32,
                wins: 0,
                ties: 0,
            };
            for (_, c) in counts.iter() {
                result.wins += c.wins[seat];
                result.ties += c.ties;
            }
            result
        })
        .collect()
}

fn endings(counted: &BTreeMap<Shared, EndingCounts>) -> Vec<Ending> {
    let mut endings: Vec<Ending> = counted
        .iter()
        .map(|(reason, c)| Ending {
            reason: reason.to_string(),
            wins: c.wins,
            ties: c.ties,
            // Ascending, as the map holds them.
            rounds: c
                .rounds
                .iter()
                .flat_map(|(&rounds, &n)| std::iter::repeat_n(rounds, n as usize))
                .collect(),
        })
        .collect();
    // The most frequent first; equal counts by name, as the map gave them.
    endings.sort_by_key(|e| std::cmp::Reverse(e.games()));
    endings
}

/// Where a report reads its games one at a time, for the tables that list every game.
pub(crate) enum GameSource<'a> {
    /// Held in memory, in schedule order (an SPRT's counted games; tests).
    Held(Vec<&'a GameSummary>),
    /// Kept on disk while the journal was read.
    Journal(journal::Listing),
    /// Not at hand: the tables a run keeps up to date while it plays leave out what lists
    /// every game; its end writes them.
    Unlisted,
}

impl GameSource<'_> {
    /// Whether the games can be listed.
    pub(crate) fn listed(&self) -> bool {
        !matches!(self, GameSource::Unlisted)
    }

    /// Hands every game to `visit`, in schedule order; an error from `visit` or from
    /// reading the journal stops it.
    pub(crate) fn for_each(
        &self,
        visit: &mut dyn FnMut(&GameSummary) -> Result<(), Error>,
    ) -> Result<(), Error> {
        match self {
            GameSource::Held(games) => games.iter().try_for_each(|g| visit(g)),
            GameSource::Journal(listing) => listing.for_each(visit),
            GameSource::Unlisted => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::shared;

    fn game(id: u64, winner: Option<usize>, reason: &str, rounds: u32) -> GameSummary {
        GameSummary {
            id,
            players: [shared("a"), shared("b")],
            roles: [shared("white"), shared("black")],
            winner,
            reason: shared(reason),
            rounds,
            illegal: [0, 0],
            blocked: [0, 0],
            max_ms: [0.0; 2],
            mean_ms: [0.0; 2],
            seed: id,
            detail: shared(""),
            pair: id / 2,
            opening: shared("[]"),
            replay: [id as u8; 12],
            machine: Default::default(),
            duration_ms: None,
        }
    }

    #[test]
    fn endings_count_wins_per_role_and_their_lengths_most_frequent_first() {
        let games = [
            game(2, Some(1), "five_in_row", 9),
            game(0, Some(0), "five_in_row", 5),
            game(1, None, "board_full", 32),
            game(3, Some(0), "five_in_row", 6),
        ];
        let tally = Tally::of(&games);
        let endings = endings(&tally.endings);
        assert_eq!(endings.len(), 2);
        let five = &endings[0];
        assert_eq!(five.reason, "five_in_row");
        assert_eq!((five.wins, five.ties), ([2, 1], 0));
        assert_eq!((five.min(), five.median(), five.max()), (5, 6.0, 9));
        assert!((five.mean() - 20.0 / 3.0).abs() < 1e-9);
        assert_eq!((endings[1].ties, endings[1].median()), (1, 32.0));
        let roles = role_results(
            &["white".into(), "black".into()],
            &tally.counts,
            tally.games,
        );
        assert_eq!((roles[0].wins, roles[1].wins, roles[0].ties), (2, 1, 1));
    }
}

/// One version of a team's bot.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Version {
    pub bot: String,
    /// 1 for the team's first version, and so on.
    pub number: usize,
    /// Its files' digest (the first 12 hex digits); a built-in's spec.
    pub digest: String,
    pub full_digest: Option<String>,
    /// When it was first played (`YYYY-MM-DD HH:MM` UTC); none: from the league's start.
    pub first_seen: Option<u64>,
    /// `current`, `changed` (replaced by a later version), `retired` or `refused` (a
    /// resubmission that failed `--check`: never played; `first_seen` is when).
    pub status: String,
    /// Why a `refused` version was refused.
    pub reason: Option<String>,
    /// When it left the standings.
    pub left: Option<u64>,
    /// Its games, points and Elo: in today's standings for a current version, as it stood
    /// when it left them otherwise.
    pub standing: Option<crate::tournament::versions::VersionStanding>,
}
