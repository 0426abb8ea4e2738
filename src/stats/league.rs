//! Standings with the course mark m_i = 20 x_i / x_winner and Elo, and head-to-head results.
//!
//! Bots are ranked by score rate, points per game: in a complete round robin every bot
//! plays as many games, so that is the order of points x_i; in a gauntlet (the candidate
//! plays every game, each baseline only its own) or an unfinished league, points alone
//! would favour whoever played more.

use super::elo::{self, PairStats};
use crate::record::{Fault, GameSummary, Shared};
use std::collections::BTreeMap;

/// Points per game: a loss scores 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scoring {
    /// Points for a win.
    pub win: f64,
    /// Points for a tie.
    pub tie: f64,
}

/// One bot's row of the league table: its results, points, mark, failures and Elo.
#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    /// 1-based; bots with equal points share a rank (1, 2, 2, 4).
    pub rank: usize,
    /// The bot's name.
    pub bot: String,
    /// Games it played, in either role.
    pub games: u32,
    /// Games it won.
    pub wins: u32,
    /// Games it lost, games both bots lost by failing included.
    pub losses: u32,
    /// Games tied.
    pub ties: u32,
    /// x_i.
    pub points: f64,
    /// Points per game (0 before any game): what the ranking is by.
    pub rate: f64,
    /// m_i = 20 x_i / x_winner, x_winner being the best points of a scoring bot; 0 for
    /// everyone when no scoring bot scored; `None` for a bot kept out of the marks.
    pub mark: Option<f64>,
    /// Illegal replies over all its games, blocked turns left out.
    pub illegal_moves: u32,
    /// Turns on which it had no legal move at all, so that whatever it replied was illegal
    /// (the course counts them with the illegal moves).
    pub blocked_turns: u32,
    /// Games it lost by not replying in time.
    pub timeouts: u32,
    /// Games it lost by its own failure: an exception, a crash, a protocol error, a
    /// failed start or a broken resource limit.
    pub errors: u32,
    /// Per role, in move order: (games, wins).
    pub by_role: [(u32, u32); 2],
    /// Elo (mean 0 over the league, or relative to an anchor) with its 95% interval.
    pub elo: f64,
    /// Lower end of the 95% interval of `elo`.
    pub elo_low: f64,
    /// Upper end of the 95% interval of `elo`.
    pub elo_high: f64,
}

impl Standing {
    /// The row of `bot` before any game.
    pub fn empty(bot: &str) -> Standing {
        Standing {
            rank: 0,
            bot: bot.to_string(),
            games: 0,
            wins: 0,
            losses: 0,
            ties: 0,
            points: 0.0,
            rate: 0.0,
            mark: None,
            illegal_moves: 0,
            blocked_turns: 0,
            timeouts: 0,
            errors: 0,
            by_role: [(0, 0); 2],
            elo: 0.0,
            elo_low: 0.0,
            elo_high: 0.0,
        }
    }
}

/// The league table and the fitted role advantage.
#[derive(Clone, Debug, PartialEq)]
pub struct LeagueTable {
    /// Best first.
    pub rows: Vec<Standing>,
    /// Elo advantage of the first role (Asalto: the rebels), with its 95% half-width.
    pub role_advantage: f64,
    /// The 95% half-width of `role_advantage`.
    pub role_advantage_error: f64,
}

/// Standings of `bots` over `games`, best score rate first (ties by name), with Elo: mean
/// 0, or relative to `anchor` (ignored when it names no bot of `bots`).
pub fn table(
    bots: &[String],
    games: &[GameSummary],
    scoring: Scoring,
    anchor: Option<&elo::Anchor>,
) -> LeagueTable {
    table_of(bots, &Counts::of(games), scoring, anchor)
}

/// [`table`] from the games' counts.
pub fn table_of(
    bots: &[String],
    counts: &Counts,
    scoring: Scoring,
    anchor: Option<&elo::Anchor>,
) -> LeagueTable {
    let mut rows = standings_of(bots, counts, scoring);
    let index = |name: &str| bots.iter().position(|b| b == name);
    let mut cells: BTreeMap<(usize, usize), elo::Cell> = BTreeMap::new();
    for ((first, second), c) in counts.iter() {
        let (Some(i), Some(j)) = (index(first), index(second)) else {
            continue;
        };
        // Both bots failing says nothing about which is the stronger.
        let rated = c.games - c.both_lost;
        let cell = cells.entry((i, j)).or_insert(elo::Cell {
            first: i,
            second: j,
            games: 0.0,
            score: 0.0,
        });
        cell.games += f64::from(rated);
        cell.score += f64::from(c.wins[0]) + 0.5 * f64::from(c.ties);
    }
    let cells: Vec<elo::Cell> = cells.into_values().collect();
    let anchor = anchor.and_then(|a| Some((index(&a.bot)?, a.elo)));
    let ratings = elo::fit_cells(bots.len(), &cells, anchor);
    for row in &mut rows {
        if let Some(i) = index(&row.bot) {
            (row.elo, row.elo_low, row.elo_high) =
                (ratings.elo[i], ratings.low[i], ratings.high[i]);
        }
    }
    LeagueTable {
        rows,
        role_advantage: ratings.advantage,
        role_advantage_error: ratings.advantage_error,
    }
}

/// What the tables need of the games of one ordered pairing (the players in move order),
/// summed: every number a standing, a head-to-head cell or an Elo cell is made of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PairCounts {
    /// Games played by the pairing, in this order of seats.
    pub games: u32,
    /// Wins per seat.
    pub wins: [u32; 2],
    /// Ties, games both bots lost left out.
    pub ties: u32,
    /// Games both bots lost by failing (a loss for each, no tie).
    pub both_lost: u32,
    /// Illegal replies the rules refused, per seat (blocked turns left out).
    pub refused: [u32; 2],
    /// Turns with no legal move at all, per seat.
    pub blocked: [u32; 2],
    /// Games lost by a timeout, per seat.
    pub timeouts: [u32; 2],
    /// Games lost by any other failure of the bot's own, per seat.
    pub errors: [u32; 2],
}

/// Games summed per ordered pairing of bot names: the standings, Elo and head-to-head
/// tables depend on the games only through these sums, so a league of any size is
/// tabled from one entry per pairing.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Counts {
    pairings: BTreeMap<(Shared, Shared), PairCounts>,
}

impl Counts {
    /// The counts of `games`, each added once.
    pub fn of(games: &[GameSummary]) -> Counts {
        let mut counts = Counts::default();
        for game in games {
            counts.add(game);
        }
        counts
    }

    /// Counts one more game.
    pub fn add(&mut self, game: &GameSummary) {
        let key = (game.players[0].clone(), game.players[1].clone());
        let c = self.pairings.entry(key).or_default();
        c.games += 1;
        match game.winner {
            None if game.both_lost() => c.both_lost += 1,
            None => c.ties += 1,
            Some(w) => c.wins[w.min(1)] += 1,
        }
        for seat in 0..2 {
            c.refused[seat] += game.refused(seat);
            c.blocked[seat] += game.blocked[seat];
        }
        for (seat, fault) in game.faults() {
            match fault {
                Fault::Timeout => c.timeouts[seat] += 1,
                Fault::Error => c.errors[seat] += 1,
            }
        }
    }

    /// Every ordered pairing that played, by names.
    pub fn iter(&self) -> impl Iterator<Item = ((&str, &str), &PairCounts)> {
        self.pairings
            .iter()
            .map(|((a, b), c)| ((a.as_str(), b.as_str()), c))
    }

    /// Games counted.
    pub fn games(&self) -> usize {
        self.pairings.values().map(|c| c.games as usize).sum()
    }
}

/// Standings of `bots` over `games` by score rate alone, best first (ties by name).
pub fn standings(bots: &[String], games: &[GameSummary], scoring: Scoring) -> Vec<Standing> {
    standings_of(bots, &Counts::of(games), scoring)
}

/// [`standings`] from the games' counts.
///
/// Points are counts times the points of a result: the same numbers as summing game by
/// game, since league points are whole or half numbers, whose sums are exact.
pub fn standings_of(bots: &[String], counts: &Counts, scoring: Scoring) -> Vec<Standing> {
    let mut rows: Vec<Standing> = bots.iter().map(|bot| Standing::empty(bot)).collect();
    let index = |name: &str| bots.iter().position(|b| b == name);
    for ((first, second), c) in counts.iter() {
        for (seat, player) in [first, second].into_iter().enumerate() {
            let Some(i) = index(player) else {
                continue;
            };
            let row = &mut rows[i];
            row.games += c.games;
            row.by_role[seat].0 += c.games;
            row.by_role[seat].1 += c.wins[seat];
            row.wins += c.wins[seat];
            row.losses += c.wins[1 - seat] + c.both_lost;
            row.ties += c.ties;
            row.illegal_moves += c.refused[seat];
            row.blocked_turns += c.blocked[seat];
            row.timeouts += c.timeouts[seat];
            row.errors += c.errors[seat];
        }
    }
    for row in &mut rows {
        row.points = f64::from(row.wins) * scoring.win + f64::from(row.ties) * scoring.tie;
        row.rate = score_rate(row.points, row.games);
    }
    set_marks(&mut rows, &[]);
    rows.sort_by(|a, b| b.rate.total_cmp(&a.rate).then_with(|| a.bot.cmp(&b.bot)));
    for i in 0..rows.len() {
        rows[i].rank = if i > 0 && rows[i].rate == rows[i - 1].rate {
            rows[i - 1].rank
        } else {
            i + 1
        };
    }
    rows
}

/// Sets every mark m_i = 20 x_i / x_winner, where x_winner is the best points of a bot not
/// in `non_scoring` (reference bots a teacher adds to calibrate the league): they play and
/// are ranked, but have no mark and do not set anyone's.
pub fn set_marks(rows: &mut [Standing], non_scoring: &[String]) {
    let scoring = |row: &Standing| !non_scoring.contains(&row.bot);
    let best = rows
        .iter()
        .filter(|r| scoring(r))
        .map(|r| r.points)
        .fold(0.0f64, f64::max);
    for row in rows {
        row.mark = scoring(row).then(|| {
            if best > 0.0 {
                20.0 * row.points / best
            } else {
                0.0
            }
        });
    }
}

/// Points per game; 0 before any game.
pub fn score_rate(points: f64, games: u32) -> f64 {
    if games == 0 {
        0.0
    } else {
        points / games as f64
    }
}

/// `matrix[i][j]`: the points bot i scored against bot j.
#[cfg(test)]
pub(crate) fn head_to_head(
    bots: &[String],
    games: &[GameSummary],
    scoring: Scoring,
) -> Vec<Vec<f64>> {
    head_to_head_of(bots, &Counts::of(games), scoring)
}

/// `head_to_head` from the games' counts.
pub fn head_to_head_of(bots: &[String], counts: &Counts, scoring: Scoring) -> Vec<Vec<f64>> {
    let n = bots.len();
    let wtl = results_of(bots, counts);
    let mut matrix = vec![vec![0.0; n]; n];
    for i in 0..n {
        for j in 0..n {
            let (w, t, _) = wtl[i][j];
            matrix[i][j] = f64::from(w) * scoring.win + f64::from(t) * scoring.tie;
        }
    }
    matrix
}

/// `wtl[i][j]`: bot i's wins, ties and losses against bot j, whoever held which role;
/// games both lost left out.
fn results_of(bots: &[String], counts: &Counts) -> Vec<Vec<(u32, u32, u32)>> {
    let n = bots.len();
    let mut wtl = vec![vec![(0u32, 0u32, 0u32); n]; n];
    let index = |name: &str| bots.iter().position(|b| b == name);
    for ((first, second), c) in counts.iter() {
        let (Some(a), Some(b)) = (index(first), index(second)) else {
            continue;
        };
        wtl[a][b].0 += c.wins[0];
        wtl[a][b].1 += c.ties;
        wtl[a][b].2 += c.wins[1];
        wtl[b][a].0 += c.wins[1];
        wtl[b][a].1 += c.ties;
        wtl[b][a].2 += c.wins[0];
    }
    wtl
}

/// One row of the head-to-head table: `bot` against `opponent`.
#[derive(Clone, Debug, PartialEq)]
pub struct Pairing {
    /// The bot whose results the row gives.
    pub bot: String,
    /// The bot it played against, in either role.
    pub opponent: String,
    /// League points `bot` scored against `opponent`.
    pub points: f64,
    /// `bot`'s wins, ties and losses against `opponent`, with score, Elo difference and LOS.
    pub stats: PairStats,
}

/// Every ordered pair of bots that met, in bot order.
#[cfg(test)]
pub(crate) fn pairings(bots: &[String], games: &[GameSummary], scoring: Scoring) -> Vec<Pairing> {
    pairings_of(bots, &Counts::of(games), scoring)
}

/// `pairings` from the games' counts.
pub fn pairings_of(bots: &[String], counts: &Counts, scoring: Scoring) -> Vec<Pairing> {
    let n = bots.len();
    let points = head_to_head_of(bots, counts, scoring);
    let wtl = results_of(bots, counts);
    let mut out = Vec::new();
    for i in 0..n {
        for j in 0..n {
            let (w, t, l) = wtl[i][j];
            if i != j && w + t + l > 0 {
                out.push(Pairing {
                    bot: bots[i].clone(),
                    opponent: bots[j].clone(),
                    points: points[i][j],
                    stats: elo::pair_stats(w, t, l),
                });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests;
