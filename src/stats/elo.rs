//! Elo ratings fitted jointly over all games, with 95% confidence intervals.
//!
//! The model: P(first role wins) = 1 / (1 + 10^(-(R_first + A - R_second) / 400)), with one
//! role advantage A shared by all games (Asalto's rebels and officers are not equal), a
//! tie counting as half a win for each side. The ratings maximize the likelihood of every
//! game at once, so a bot that only met weak opponents is not flattered by its score.
//!
//! A prior keeps every rating finite: each bot gets one virtual tie against a virtual
//! opponent rated 0, and A one virtual tie at even odds. Over many games its pull vanishes.
//! Ratings are reported with mean 0, or with one bot anchored at a fixed rating (Ordo's
//! `-A`), so that ratings of runs sharing that bot can be compared.
//!
//! Intervals are Wald intervals from the observed information (the inverse Hessian of the
//! log-likelihood at the maximum), for the mean-0 ratings. They are exact to compute,
//! deterministic and cheap for any league size; the price is symmetry: with very few games
//! a bootstrap would show skewed intervals, but it would also need thousands of refits
//! and a random seed for numbers that go into a report.

use nalgebra::{DMatrix, DVector};
use statrs::distribution::{ContinuousCDF, Normal};

/// ln(10) / 400: the slope of the Elo logistic per rating point.
const K: f64 = std::f64::consts::LN_10 / 400.0;

/// Two-sided 95% normal quantile, from statrs.
pub(crate) fn z95() -> f64 {
    Normal::standard().inverse_cdf(0.975)
}

/// The expected score of a rating difference.
pub(crate) fn expected_score(diff: f64) -> f64 {
    1.0 / (1.0 + (-K * diff).exp())
}

/// The rating difference of an expected score in (0, 1).
pub(crate) fn elo_of_score(score: f64) -> f64 {
    -400.0 * (1.0 / score - 1.0).log10()
}

/// One game: seats by bot index, and the first seat's score (1, 0.5 or 0).
#[cfg(test)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Game {
    pub first: usize,
    pub second: usize,
    pub score: f64,
}

/// A bot whose rating is fixed: the others are read relative to it.
#[derive(Clone, Debug, PartialEq)]
pub struct Anchor {
    /// The anchored bot's name, as in the standings.
    pub bot: String,
    /// The rating it is held at (`--anchor NAME=ELO`).
    pub elo: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Ratings {
    /// Per bot, mean 0 (or relative to the anchor).
    pub elo: Vec<f64>,
    pub low: Vec<f64>,
    pub high: Vec<f64>,
    /// The fitted first-role advantage, in Elo.
    pub advantage: f64,
    /// Its 95% half-width.
    pub advantage_error: f64,
}

/// Games of one ordered pairing, summed: `first` held the first role in each.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Cell {
    pub first: usize,
    pub second: usize,
    /// Games rated.
    pub games: f64,
    /// The first seat's score over them (a tie counting half).
    pub score: f64,
}

/// Fits the ratings of `bots` bots over `games`, with mean 0.
#[cfg(test)]
pub(crate) fn fit(bots: usize, games: &[Game]) -> Ratings {
    fit_anchored(bots, games, None)
}

/// [`fit`], with `anchor` = (bot index, rating) fixing that bot's rating instead of the
/// mean: every rating moves by the same amount, so differences are those of [`fit`]. The
/// intervals are those of each rating's difference to the anchor's (the anchor's own has
/// width 0), since the anchor is now the reference point rather than the mean.
#[cfg(test)]
pub(crate) fn fit_anchored(bots: usize, games: &[Game], anchor: Option<(usize, f64)>) -> Ratings {
    let mut cells: std::collections::BTreeMap<(usize, usize), (f64, f64)> = Default::default();
    for g in games {
        let cell = cells.entry((g.first, g.second)).or_default();
        cell.0 += 1.0;
        cell.1 += g.score.clamp(0.0, 1.0);
    }
    let cells: Vec<Cell> = cells
        .into_iter()
        .map(|((first, second), (games, score))| Cell {
            first,
            second,
            games,
            score,
        })
        .collect();
    fit_cells(bots, &cells, anchor)
}

/// [`fit_anchored`] over games already summed per ordered pairing: the likelihood depends
/// on the games only through these sums, so a league of any size is fitted from one cell
/// per pairing. Cells naming a bot out of range, a bot against itself, or no game are left
/// out; `cells` must not name one ordered pairing twice.
pub(crate) fn fit_cells(bots: usize, cells: &[Cell], anchor: Option<(usize, f64)>) -> Ratings {
    let anchor = anchor.filter(|&(i, elo)| i < bots && elo.is_finite());
    if bots == 0 {
        return Ratings {
            elo: vec![],
            low: vec![],
            high: vec![],
            advantage: 0.0,
            advantage_error: 0.0,
        };
    }
    // In (first, second) order, as the sums of the likelihood and its derivatives run.
    let mut cells: Vec<Cell> = cells
        .iter()
        .filter(|c| c.first < bots && c.second < bots && c.first != c.second && c.games > 0.0)
        .copied()
        .collect();
    cells.sort_by_key(|c| (c.first, c.second));
    let n = bots + 1; // ratings, then A
    let a = bots;
    let mut theta = DVector::<f64>::zeros(n);

    let log_likelihood = |theta: &DVector<f64>| -> f64 {
        let mut ll = 0.0;
        for c in &cells {
            let p = expected_score(theta[c.first] + theta[a] - theta[c.second]);
            ll += c.score * p.ln() + (c.games - c.score) * (1.0 - p).ln();
        }
        for i in 0..n {
            let p = expected_score(theta[i]);
            ll += 0.5 * p.ln() + 0.5 * (1.0 - p).ln();
        }
        ll
    };
    // Gradient and negative Hessian, in Elo units.
    let derivatives = |theta: &DVector<f64>| -> (DVector<f64>, DMatrix<f64>) {
        let mut grad = DVector::<f64>::zeros(n);
        let mut info = DMatrix::<f64>::zeros(n, n);
        for c in &cells {
            let p = expected_score(theta[c.first] + theta[a] - theta[c.second]);
            let g = K * (c.score - c.games * p);
            let w = K * K * c.games * p * (1.0 - p);
            let x = [(c.first, 1.0), (c.second, -1.0), (a, 1.0)];
            for &(i, xi) in &x {
                grad[i] += g * xi;
                for &(j, xj) in &x {
                    info[(i, j)] += w * xi * xj;
                }
            }
        }
        for i in 0..n {
            let p = expected_score(theta[i]);
            grad[i] += K * (0.5 - p);
            info[(i, i)] += K * K * p * (1.0 - p);
        }
        (grad, info)
    };

    // Newton's method on a strictly concave likelihood, with step halving for safety.
    let mut ll = log_likelihood(&theta);
    for _ in 0..100 {
        let (grad, info) = derivatives(&theta);
        let Some(chol) = info.clone().cholesky() else {
            break;
        };
        let step = chol.solve(&grad);
        let mut scale = 1.0;
        let mut next = &theta + &step;
        let mut next_ll = log_likelihood(&next);
        while next_ll < ll - 1e-12 && scale > 1e-6 {
            scale /= 2.0;
            next = &theta + &step * scale;
            next_ll = log_likelihood(&next);
        }
        theta = next;
        ll = next_ll;
        if step.amax() * scale < 1e-9 {
            break;
        }
    }

    let (_, info) = derivatives(&theta);
    let covariance = info
        .cholesky()
        .map(|c| c.inverse())
        .unwrap_or_else(|| DMatrix::zeros(n, n));
    let mean = theta.rows(0, bots).sum() / bots as f64;
    // Var(R_i - mean R) = Var(R_i) - 2 Cov(R_i, mean) + Var(mean).
    let var_mean = covariance.view((0, 0), (bots, bots)).sum() / (bots * bots) as f64;
    // Var(R_i - R_a) = Var(R_i) - 2 Cov(R_i, R_a) + Var(R_a).
    let relative = |i: usize| -> (f64, f64) {
        match anchor {
            Some((a, at)) => (
                theta[i] - theta[a] + at,
                covariance[(i, i)] - 2.0 * covariance[(i, a)] + covariance[(a, a)],
            ),
            None => {
                let cov_mean = covariance.row(i).columns(0, bots).sum() / bots as f64;
                (
                    theta[i] - mean,
                    covariance[(i, i)] - 2.0 * cov_mean + var_mean,
                )
            }
        }
    };
    let z = z95();
    let mut ratings = Ratings {
        elo: Vec::with_capacity(bots),
        low: Vec::with_capacity(bots),
        high: Vec::with_capacity(bots),
        advantage: theta[a],
        advantage_error: z * covariance[(a, a)].max(0.0).sqrt(),
    };
    for i in 0..bots {
        let (r, var) = relative(i);
        let half = z * var.max(0.0).sqrt();
        ratings.elo.push(r);
        ratings.low.push(r - half);
        ratings.high.push(r + half);
    }
    ratings
}

/// Head-to-head numbers of one pair of bots, from the first bot's side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PairStats {
    /// Games the pair played.
    pub games: u32,
    /// Games the first bot won.
    pub wins: u32,
    /// Games tied.
    pub ties: u32,
    /// Games the first bot lost.
    pub losses: u32,
    /// Points per game in [0, 1], a tie counting half.
    pub score: f64,
    /// The Elo difference of that score.
    pub elo: f64,
    /// The 95% half-width of `elo`.
    pub elo_error: f64,
    /// Likelihood of superiority: P(the first bot is the stronger one).
    pub los: f64,
}

/// Score, Elo difference with its 95% error, and LOS from win/tie/loss counts.
///
/// A score of exactly 0 or 1 has no finite Elo: it is taken half a game away from the
/// edge (1/(2n)), so tables never carry infinities.
pub fn pair_stats(wins: u32, ties: u32, losses: u32) -> PairStats {
    let games = wins + ties + losses;
    let n = games as f64;
    if games == 0 {
        return PairStats {
            games,
            wins,
            ties,
            losses,
            score: 0.5,
            elo: 0.0,
            elo_error: 0.0,
            los: 0.5,
        };
    }
    let score = (wins as f64 + 0.5 * ties as f64) / n;
    let edge = 0.5 / n;
    let s = score.clamp(edge, 1.0 - edge);
    let var = (wins as f64 * (1.0 - score).powi(2)
        + ties as f64 * (0.5 - score).powi(2)
        + losses as f64 * score.powi(2))
        / n;
    // A unanimous result has no spread: use the clamped score's binomial spread instead.
    let var = if var > 0.0 { var } else { s * (1.0 - s) };
    let se = (var / n).sqrt();
    let slope = 400.0 / (std::f64::consts::LN_10 * s * (1.0 - s));
    PairStats {
        games,
        wins,
        ties,
        losses,
        score,
        elo: elo_of_score(s),
        elo_error: z95() * se * slope,
        los: los(wins, losses),
    }
}

/// Likelihood of superiority from wins and losses, draws carrying no information: the
/// chess-engine formula LOS = (1 + erf((W - L) / sqrt(2 (W + L)))) / 2; 0.5 with no
/// decisive game.
pub(crate) fn los(wins: u32, losses: u32) -> f64 {
    let decisive = (wins + losses) as f64;
    if decisive == 0.0 {
        return 0.5;
    }
    0.5 * (1.0
        + statrs::function::erf::erf((wins as f64 - losses as f64) / (2.0 * decisive).sqrt()))
}

/// Fewer decisive games than this leave a head-to-head Elo difference meaningless.
pub const MIN_DECISIVE: u32 = 10;
/// A 95% half-width wider than this (in Elo) says nothing useful about who is stronger.
pub const MAX_HALF_WIDTH: f64 = 200.0;

impl PairStats {
    /// Whether the Elo difference means anything: enough decisive games, a score short of
    /// 0% and 100% (whose Elo is infinite, only clamped for the tables) and an interval no
    /// wider than ±[`MAX_HALF_WIDTH`].
    pub fn tells(&self) -> bool {
        self.wins + self.losses >= MIN_DECISIVE
            && self.score > 0.0
            && self.score < 1.0
            && self.elo_error.is_finite()
            && self.elo_error <= MAX_HALF_WIDTH
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn games(first: usize, second: usize, wins: u32, ties: u32, losses: u32) -> Vec<Game> {
        let mut out = Vec::new();
        out.extend((0..wins).map(|_| Game {
            first,
            second,
            score: 1.0,
        }));
        out.extend((0..ties).map(|_| Game {
            first,
            second,
            score: 0.5,
        }));
        out.extend((0..losses).map(|_| Game {
            first,
            second,
            score: 0.0,
        }));
        out
    }

    #[test]
    fn a_75_percent_score_is_190_85_elo() {
        // 400 log10(0.75 / 0.25) = 190.85 (the logistic Elo definition). 3000 games in each
        // role make the prior's single virtual games negligible.
        let mut all = games(0, 1, 2250, 0, 750);
        all.extend(games(1, 0, 750, 0, 2250));
        let r = fit(2, &all);
        let diff = r.elo[0] - r.elo[1];
        assert!((diff - 190.85).abs() < 0.3, "diff {diff}");
        assert!(
            r.advantage.abs() < 0.01,
            "roles swapped symmetrically: A = {}",
            r.advantage
        );
        assert!((r.elo[0] + r.elo[1]).abs() < 1e-9, "mean 0");
    }

    #[test]
    fn the_role_advantage_is_fitted_separately() {
        // Equal bots, first role scores 75% whoever holds it: all of it is A.
        let mut all = games(0, 1, 750, 0, 250);
        all.extend(games(1, 0, 750, 0, 250));
        let r = fit(2, &all);
        assert!((r.advantage - 190.85).abs() < 2.0, "A {}", r.advantage);
        assert!((r.elo[0] - r.elo[1]).abs() < 1e-6);
    }

    #[test]
    fn more_games_shrink_the_interval() {
        let width = |n: u32| {
            let mut all = games(0, 1, 3 * n, n, 2 * n);
            all.extend(games(1, 0, 2 * n, n, 3 * n));
            let r = fit(2, &all);
            r.high[0] - r.low[0]
        };
        let (w10, w100, w1000) = (width(10), width(100), width(1000));
        assert!(w10 > w100 && w100 > w1000, "{w10} {w100} {w1000}");
        // Wald intervals shrink as 1/sqrt(n).
        assert!(
            (w100 / w1000 - 10f64.sqrt()).abs() < 0.2,
            "{}",
            w100 / w1000
        );
    }

    #[test]
    fn all_wins_and_all_losses_give_finite_ratings() {
        let mut all = games(0, 1, 10, 0, 0);
        all.extend(games(1, 0, 0, 0, 10));
        all.extend(games(0, 2, 10, 0, 0));
        all.extend(games(2, 1, 5, 0, 5));
        let r = fit(3, &all);
        for v in r
            .elo
            .iter()
            .chain(&r.low)
            .chain(&r.high)
            .chain([&r.advantage, &r.advantage_error])
        {
            assert!(v.is_finite(), "{r:?}");
        }
        assert!(r.elo[0] > r.elo[1] && r.elo[0] > r.elo[2]);
        assert!(r.low[0] < r.elo[0] && r.elo[0] < r.high[0]);
    }

    #[test]
    fn a_bot_without_games_sits_at_the_prior() {
        let r = fit(3, &games(0, 1, 5, 0, 5));
        assert!(r.elo.iter().all(|e| e.is_finite()));
        assert!(
            r.high[2] - r.low[2] > r.high[0] - r.low[0],
            "an unplayed bot is the least certain"
        );
    }

    #[test]
    fn pair_stats_match_hand_computation() {
        // 60 wins, 20 ties, 20 losses: score 0.7, Elo 400 log10(0.7/0.3) = 147.19.
        let p = pair_stats(60, 20, 20);
        assert!((p.score - 0.7).abs() < 1e-12);
        assert!((p.elo - 147.19).abs() < 0.01, "{}", p.elo);
        // LOS = Phi((60 - 20) / sqrt(80)) = Phi(4.472) ~ 0.999996.
        assert!((p.los - 0.999_996_1).abs() < 1e-6, "{}", p.los);
        // Variance per game: 0.6*0.09 + 0.2*0.04 + 0.2*0.49 = 0.16; se = 0.04;
        // slope 400 / (ln10 * 0.21) = 827.2; error = 1.96 * 0.04 * 827.2 = 64.85.
        assert!((p.elo_error - 64.85).abs() < 0.05, "{}", p.elo_error);
        let unanimous = pair_stats(10, 0, 0);
        assert!(
            unanimous.elo.is_finite() && unanimous.elo_error.is_finite() && unanimous.los > 0.99
        );
        let empty = pair_stats(0, 0, 0);
        assert_eq!((empty.elo, empty.los), (0.0, 0.5));
    }

    #[test]
    fn los_is_the_erf_formula_and_ignores_draws() {
        // 0.5 (1 + erf((7 - 3) / sqrt(20))) = 0.5 (1 + erf(0.894427)) = 0.897 048 (Python math.erf).
        assert!((los(7, 3) - 0.897_048).abs() < 1e-5, "{}", los(7, 3));
        assert_eq!(los(5, 5), 0.5);
        assert_eq!(los(0, 0), 0.5);
        assert!((los(3, 7) - (1.0 - los(7, 3))).abs() < 1e-12);
        assert_eq!(
            pair_stats(7, 50, 3).los,
            los(7, 3),
            "draws carry no information"
        );
    }

    #[test]
    fn a_head_to_head_tells_only_with_enough_decisive_games() {
        assert!(pair_stats(60, 20, 20).tells());
        assert!(!pair_stats(3, 1, 2).tells(), "too few decisive games");
        assert!(!pair_stats(30, 0, 0).tells(), "100% has no finite Elo");
        assert!(!pair_stats(0, 0, 30).tells(), "0% has no finite Elo");
        // 6-0-4: enough decisive games, but ±220 Elo.
        let wide = pair_stats(6, 0, 4);
        assert!(
            wide.elo_error > 200.0 && !wide.tells(),
            "{}",
            wide.elo_error
        );
    }

    #[test]
    fn an_anchor_fixes_one_rating_and_keeps_every_difference() {
        let mut all = games(0, 1, 30, 10, 20);
        all.extend(games(1, 2, 25, 5, 30));
        all.extend(games(2, 0, 10, 10, 40));
        let mean = fit(3, &all);
        let anchored = fit_anchored(3, &all, Some((1, 1500.0)));
        assert_eq!(anchored.elo[1], 1500.0);
        assert_eq!((anchored.low[1], anchored.high[1]), (1500.0, 1500.0));
        for i in 0..3 {
            for j in 0..3 {
                let (a, m) = (anchored.elo[i] - anchored.elo[j], mean.elo[i] - mean.elo[j]);
                assert!((a - m).abs() < 1e-9, "{i} {j}: {a} vs {m}");
            }
        }
        assert!(anchored.low[0] < anchored.elo[0] && anchored.elo[0] < anchored.high[0]);
        assert_eq!(anchored.advantage, mean.advantage);
        // An anchor out of range is no anchor.
        assert_eq!(fit_anchored(3, &all, Some((7, 1500.0))), mean);
    }
}
