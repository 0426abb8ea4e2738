//! Standings with the course mark m_i = 20 x_i / x_winner and Elo, and head-to-head results.
//!
//! Bots are ranked by score rate, points per game: in a complete round robin every bot
//! plays as many games, so that is the order of points x_i; in a gauntlet (the candidate
//! plays every game, each baseline only its own) or an unfinished league, points alone
//! would favour whoever played more.

use super::elo::{self, PairStats};
use crate::record::{Fault, GameSummary};

/// Points per game: a loss scores 0.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scoring {
    pub win: f64,
    pub tie: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Standing {
    /// 1-based; bots with equal points share a rank (1, 2, 2, 4).
    pub rank: usize,
    pub bot: String,
    pub games: u32,
    pub wins: u32,
    pub losses: u32,
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
    pub elo_low: f64,
    pub elo_high: f64,
}

/// The league table and the fitted role advantage.
#[derive(Clone, Debug, PartialEq)]
pub struct LeagueTable {
    /// Best first.
    pub rows: Vec<Standing>,
    /// Elo advantage of the first role (Asalto: the rebels), with its 95% half-width.
    pub role_advantage: f64,
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
    let mut rows = standings(bots, games, scoring);
    let index = |name: &str| bots.iter().position(|b| b == name);
    let rated: Vec<elo::Game> = games
        .iter()
        // Both bots failing says nothing about which is the stronger.
        .filter(|g| !g.both_lost())
        .filter_map(|g| {
            let score = match g.winner {
                None => 0.5,
                Some(0) => 1.0,
                Some(_) => 0.0,
            };
            Some(elo::Game {
                first: index(&g.players[0])?,
                second: index(&g.players[1])?,
                score,
            })
        })
        .collect();
    let anchor = anchor.and_then(|a| Some((index(&a.bot)?, a.elo)));
    let ratings = elo::fit_anchored(bots.len(), &rated, anchor);
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

/// Standings of `bots` over `games` by score rate alone, best first (ties by name).
pub fn standings(bots: &[String], games: &[GameSummary], scoring: Scoring) -> Vec<Standing> {
    let mut rows: Vec<Standing> = bots
        .iter()
        .map(|bot| Standing {
            rank: 0,
            bot: bot.clone(),
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
        })
        .collect();
    let index = |name: &str| bots.iter().position(|b| b == name);
    for game in games {
        for seat in 0..2 {
            let Some(i) = index(&game.players[seat]) else {
                continue;
            };
            let row = &mut rows[i];
            row.games += 1;
            row.by_role[seat].0 += 1;
            match game.winner {
                None if game.both_lost() => row.losses += 1,
                None => {
                    row.ties += 1;
                    row.points += scoring.tie;
                }
                Some(w) if w == seat => {
                    row.wins += 1;
                    row.by_role[seat].1 += 1;
                    row.points += scoring.win;
                }
                Some(_) => row.losses += 1,
            }
            row.illegal_moves += game.refused(seat);
            row.blocked_turns += game.blocked[seat];
        }
        for (seat, fault) in game.faults() {
            if let Some(i) = index(&game.players[seat]) {
                match fault {
                    Fault::Timeout => rows[i].timeouts += 1,
                    Fault::Error => rows[i].errors += 1,
                }
            }
        }
    }
    for row in &mut rows {
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
pub fn head_to_head(bots: &[String], games: &[GameSummary], scoring: Scoring) -> Vec<Vec<f64>> {
    let n = bots.len();
    let mut matrix = vec![vec![0.0; n]; n];
    let index = |name: &str| bots.iter().position(|b| b == name);
    for game in games {
        let (Some(a), Some(b)) = (index(&game.players[0]), index(&game.players[1])) else {
            continue;
        };
        match game.winner {
            None if game.both_lost() => {}
            None => {
                matrix[a][b] += scoring.tie;
                matrix[b][a] += scoring.tie;
            }
            Some(0) => matrix[a][b] += scoring.win,
            Some(_) => matrix[b][a] += scoring.win,
        }
    }
    matrix
}

/// One row of the head-to-head table: `bot` against `opponent`.
#[derive(Clone, Debug, PartialEq)]
pub struct Pairing {
    pub bot: String,
    pub opponent: String,
    /// League points `bot` scored against `opponent`.
    pub points: f64,
    pub stats: PairStats,
}

/// Every ordered pair of bots that met, in bot order.
pub fn pairings(bots: &[String], games: &[GameSummary], scoring: Scoring) -> Vec<Pairing> {
    let n = bots.len();
    let points = head_to_head(bots, games, scoring);
    let mut wtl = vec![vec![(0u32, 0u32, 0u32); n]; n];
    let index = |name: &str| bots.iter().position(|b| b == name);
    for game in games {
        let (Some(a), Some(b)) = (index(&game.players[0]), index(&game.players[1])) else {
            continue;
        };
        match game.winner {
            None if game.both_lost() => {}
            None => {
                wtl[a][b].1 += 1;
                wtl[b][a].1 += 1;
            }
            Some(0) => {
                wtl[a][b].0 += 1;
                wtl[b][a].2 += 1;
            }
            Some(_) => {
                wtl[b][a].0 += 1;
                wtl[a][b].2 += 1;
            }
        }
    }
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
mod tests {
    use super::*;
    use crate::record::shared;

    fn game(id: u64, first: &str, second: &str, winner: Option<usize>) -> GameSummary {
        GameSummary {
            id,
            players: [shared(first), shared(second)],
            roles: [shared("rebel"), shared("officer")],
            winner,
            reason: shared("test"),
            rounds: 1,
            illegal: [0, 0],
            blocked: [0, 0],
            max_ms: [0.0; 2],
            mean_ms: [0.0; 2],
            seed: 0,
            detail: shared(""),
            pair: id / 2,
            opening: shared("[]"),
            replay: {
                let mut replay = [0; 12];
                replay[..8].copy_from_slice(&id.to_le_bytes());
                replay
            },
        }
    }

    const COURSE: Scoring = Scoring { win: 1.0, tie: 0.0 };

    #[test]
    fn hand_computed_league_with_a_tie() {
        // Three bots, each pair twice (roles swapped):
        //   a beats b twice; a-c: a wins as rebel, tie as officer; b-c: c wins both.
        // Points: a = 3, c = 2, b = 0 (a tie scores 0). Marks: 20, 20*2/3, 0.
        let bots: Vec<String> = ["a", "b", "c"].map(String::from).to_vec();
        let games = vec![
            game(0, "a", "b", Some(0)),
            game(1, "b", "a", Some(1)),
            game(2, "a", "c", Some(0)),
            game(3, "c", "a", None),
            game(4, "b", "c", Some(1)),
            game(5, "c", "b", Some(0)),
        ];
        let table = standings(&bots, &games, COURSE);
        let summary: Vec<(usize, &str, u32, u32, u32, f64)> = table
            .iter()
            .map(|s| (s.rank, s.bot.as_str(), s.wins, s.losses, s.ties, s.points))
            .collect();
        assert_eq!(
            summary,
            vec![
                (1, "a", 3, 0, 1, 3.0),
                (2, "c", 2, 1, 1, 2.0),
                (3, "b", 0, 4, 0, 0.0)
            ]
        );
        let marks: Vec<Option<f64>> = table.iter().map(|s| s.mark).collect();
        assert_eq!(marks, vec![Some(20.0), Some(20.0 * 2.0 / 3.0), Some(0.0)]);
        // a: as rebel (first role) games 0 and 2, both won; as officer games 1 (won) and 3 (tie).
        assert_eq!(table[0].by_role, [(2, 2), (2, 1)]);
        let h2h = head_to_head(&bots, &games, COURSE);
        assert_eq!(
            h2h,
            vec![
                vec![0.0, 2.0, 1.0],
                vec![0.0, 0.0, 0.0],
                vec![0.0, 2.0, 0.0]
            ]
        );
    }

    #[test]
    fn everybody_at_zero_gets_mark_zero_and_shares_first_place() {
        let bots: Vec<String> = ["x", "y"].map(String::from).to_vec();
        let games = vec![game(0, "x", "y", None), game(1, "y", "x", None)];
        let table = standings(&bots, &games, COURSE);
        assert!(
            table
                .iter()
                .all(|s| s.mark == Some(0.0) && s.points == 0.0 && s.rank == 1 && s.ties == 2)
        );
    }

    #[test]
    fn gomoku_style_scoring_counts_draws() {
        let bots: Vec<String> = ["x", "y"].map(String::from).to_vec();
        let games = vec![game(0, "x", "y", None), game(1, "y", "x", Some(1))];
        let table = standings(&bots, &games, Scoring { win: 2.0, tie: 1.0 });
        assert_eq!(
            (table[0].bot.as_str(), table[0].points, table[0].mark),
            ("x", 3.0, Some(20.0))
        );
        assert_eq!((table[1].bot.as_str(), table[1].points), ("y", 1.0));
        assert!((table[1].mark.unwrap() - 20.0 / 3.0).abs() < 1e-12);
    }

    #[test]
    fn a_non_scoring_baseline_that_wins_leaves_the_best_student_at_twenty() {
        // The baseline beats both students; s1 beats s2 once.
        let bots: Vec<String> = ["base", "s1", "s2"].map(String::from).to_vec();
        let games = vec![
            game(0, "base", "s1", Some(0)),
            game(1, "s1", "base", Some(1)),
            game(2, "base", "s2", Some(0)),
            game(3, "s2", "base", Some(1)),
            game(4, "s1", "s2", Some(0)),
            game(5, "s2", "s1", None),
        ];
        let mut rows = standings(&bots, &games, COURSE);
        assert_eq!(rows[1].mark, Some(20.0 / 4.0), "with the baseline scoring");
        set_marks(&mut rows, &["base".to_string()]);
        let marks: Vec<(&str, usize, Option<f64>)> = rows
            .iter()
            .map(|s| (s.bot.as_str(), s.rank, s.mark))
            .collect();
        assert_eq!(
            marks,
            vec![
                ("base", 1, None),
                ("s1", 2, Some(20.0)),
                ("s2", 3, Some(0.0))
            ]
        );
    }

    #[test]
    fn failures_and_illegal_moves_are_counted_per_bot() {
        let bots: Vec<String> = ["a", "b"].map(String::from).to_vec();
        let mut timeout = game(0, "a", "b", Some(1));
        timeout.reason = shared("timeout");
        timeout.illegal = [2, 1];
        let mut crash = game(1, "b", "a", Some(1));
        crash.reason = shared("crash");
        let mut both = game(2, "a", "b", None);
        both.reason = shared("both_failed");
        let rule_win = game(3, "b", "a", Some(0));
        let rows = standings(&bots, &[timeout, crash, both, rule_win], COURSE);
        let counts: Vec<(&str, u32, u32, u32)> = rows
            .iter()
            .map(|s| (s.bot.as_str(), s.illegal_moves, s.timeouts, s.errors))
            .collect();
        assert_eq!(counts, vec![("b", 1, 0, 2), ("a", 2, 1, 1)]);
    }

    #[test]
    fn a_gauntlet_ranks_by_score_rate_not_by_raw_points() {
        // The candidate plays 4 games and wins 2 (2 points, rate 0.5); baseline b plays 2
        // and wins both of its games against the candidate (2 points, rate 1); baseline c
        // loses both (0 points).
        let bots: Vec<String> = ["cand", "b", "c"].map(String::from).to_vec();
        let games = vec![
            game(0, "cand", "b", Some(1)),
            game(1, "b", "cand", Some(0)),
            game(2, "cand", "c", Some(0)),
            game(3, "c", "cand", Some(1)),
        ];
        let table = standings(&bots, &games, COURSE);
        type Row<'a> = (usize, &'a str, u32, f64, f64, Option<f64>);
        let rows: Vec<Row> = table
            .iter()
            .map(|s| (s.rank, s.bot.as_str(), s.games, s.points, s.rate, s.mark))
            .collect();
        assert_eq!(
            rows,
            vec![
                (1, "b", 2, 2.0, 1.0, Some(20.0)),
                (2, "cand", 4, 2.0, 0.5, Some(20.0)),
                (3, "c", 2, 0.0, 0.0, Some(0.0))
            ]
        );
    }
}
