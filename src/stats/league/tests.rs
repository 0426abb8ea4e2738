//! League points, marks and tables counted from game summaries: ties, role swaps, marks
//! relative to the winner, head-to-head and left-out bots.

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
        machine: Default::default(),
        duration_ms: None,
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

/// A league of `n` games between `bots` (and a name the plan does not know), with
/// wins, ties, failures of each kind, games both bots lost, illegal moves and blocked
/// turns, drawn from `seed`.
fn mixed_league(n: u64, seed: u64, bots: &[&str]) -> Vec<GameSummary> {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = |below: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % below
    };
    let mut names: Vec<&str> = bots.to_vec();
    names.push("stranger");
    let reasons = [
        "fortress_full",
        "timeout",
        "crash",
        "illegal_move",
        "round_limit",
    ];
    (0..n)
        .map(|id| {
            let first = names[next(names.len() as u64) as usize];
            let second = names[next(names.len() as u64) as usize];
            let mut g = game(id, first, second, None);
            g.reason = shared(reasons[next(reasons.len() as u64) as usize]);
            g.winner = match next(7) {
                0..=2 => Some(0),
                3..=4 => Some(1),
                _ => None,
            };
            if next(13) == 0 {
                g.winner = None;
                g.reason = shared(crate::record::BOTH_FAILED);
            }
            g.illegal = [next(4) as u32, next(3) as u32];
            g.blocked = [next(2) as u32 * g.illegal[0].min(1), 0];
            g
        })
        .collect()
}

/// The tables game by game, as they were computed before the counts.
mod per_game {
    use super::super::*;

    pub(super) fn standings(
        bots: &[String],
        games: &[GameSummary],
        scoring: Scoring,
    ) -> Vec<Standing> {
        let mut rows: Vec<Standing> = bots.iter().map(|bot| Standing::empty(bot)).collect();
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

    pub(super) fn table(
        bots: &[String],
        games: &[GameSummary],
        scoring: Scoring,
        anchor: Option<&elo::Anchor>,
    ) -> LeagueTable {
        let mut rows = standings(bots, games, scoring);
        let index = |name: &str| bots.iter().position(|b| b == name);
        let rated: Vec<elo::Game> = games
            .iter()
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

    pub(super) fn head_to_head(
        bots: &[String],
        games: &[GameSummary],
        scoring: Scoring,
    ) -> Vec<Vec<f64>> {
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

    pub(super) fn pairings(
        bots: &[String],
        games: &[GameSummary],
        scoring: Scoring,
    ) -> Vec<Pairing> {
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
}

#[test]
fn tables_from_counts_equal_the_tables_summed_game_by_game() {
    let names = ["ana", "bo", "cy", "dee"];
    let bots: Vec<String> = names.map(String::from).to_vec();
    for (seed, n) in [(1, 7), (2, 60), (3, 500), (4, 3000)] {
        let games = mixed_league(n, seed, &names);
        for scoring in [
            COURSE,
            Scoring { win: 2.0, tie: 1.0 },
            Scoring { win: 1.0, tie: 0.5 },
        ] {
            for anchor in [
                None,
                Some(elo::Anchor {
                    bot: "cy".into(),
                    elo: 1500.0,
                }),
            ] {
                // Exactly equal, to the last bit of every rating and interval.
                assert_eq!(
                    table(&bots, &games, scoring, anchor.as_ref()),
                    per_game::table(&bots, &games, scoring, anchor.as_ref()),
                    "seed {seed}, {n} games, {scoring:?}"
                );
            }
            assert_eq!(
                head_to_head(&bots, &games, scoring),
                per_game::head_to_head(&bots, &games, scoring)
            );
            assert_eq!(
                pairings(&bots, &games, scoring),
                per_game::pairings(&bots, &games, scoring)
            );
        }
    }
}

#[test]
fn counts_do_not_depend_on_the_order_games_arrive_in() {
    let names = ["ana", "bo", "cy"];
    let bots: Vec<String> = names.map(String::from).to_vec();
    let games = mixed_league(400, 9, &names);
    let mut reversed = games.clone();
    reversed.reverse();
    assert_eq!(Counts::of(&games), Counts::of(&reversed));
    assert_eq!(
        table(&bots, &games, COURSE, None),
        table(&bots, &reversed, COURSE, None)
    );
}
