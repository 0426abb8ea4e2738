//! The generalized SPRT on pentanomial pair outcomes, as fishtest and fastchess run it.
//!
//! A pair is two games with the roles swapped and a shared seed; the candidate's pair
//! score is 0, 0.5, 1, 1.5 or 2 (a tie counting 0.5). Under each hypothesis the
//! distribution of pair scores is the maximum-likelihood one (closest to the observed one)
//! whose expected score, or normalized t-value, the hypothesis names; the log-likelihood
//! ratio of the two is LLR = N * sum_j p_j ln(p1_j / p0_j). Zero counts are regularized
//! to 1e-3. Bounds: ln(beta / (1 - alpha)) and ln((1 - beta) / alpha).

use super::elo::{elo_of_score, expected_score, z95};

/// What the five pentanomial counts are, for every place that prints them.
pub const PENTANOMIAL_LEGEND: &str = "the five counts are pairs by the candidate's score over \
     the pair's two games: 0 (lost both), 0.5 (a loss and a draw), 1 (a win and a loss, or two \
     draws), 1.5 (a win and a draw), 2 (won both)";

/// 800 / ln(10): normalized Elo per unit of t-value (fishtest's `nelo_divided_by_nt`).
pub(crate) const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// How the test's Elo bounds `elo0` and `elo1` are read (`--model`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    /// Elo bounds in normalized Elo (scaled by the pair-score spread).
    Normalized,
    /// Elo bounds in logistic Elo.
    Logistic,
}

/// The largest |Elo| a normalized-model bound may have: fishtest's fixed-point search for
/// the distribution of a given t-value starts from the uniform pair-score distribution
/// (mean 1/2, sigma sqrt(1/8)), where a t-value of 2 sqrt(2) / 3 or more leaves the secular
/// equation without a root. That is 2/3 of [`NELO_PER_T`], about 231.6 normalized Elo.
pub(crate) fn normalized_limit() -> f64 {
    2.0 / 3.0 * NELO_PER_T
}

/// Whether `model` can test H0 `elo0` against H1 `elo1`; the error says the range it can.
pub fn check_bounds(model: Model, elo0: f64, elo1: f64) -> Result<(), String> {
    match model {
        Model::Normalized => {
            let limit = normalized_limit();
            for (name, elo) in [("--elo0", elo0), ("--elo1", elo1)] {
                if elo.abs() >= limit {
                    return Err(format!(
                        "{name} {elo}: the normalized model can test bounds strictly between \
                         -{limit:.1} and +{limit:.1} normalized Elo; use smaller bounds, or \
                         --model logistic"
                    ));
                }
            }
        }
        Model::Logistic => {
            for (name, elo) in [("--elo0", elo0), ("--elo1", elo1)] {
                let s = expected_score(elo);
                if !(s > 0.0 && s < 1.0) {
                    return Err(format!(
                        "{name} {elo}: the logistic model needs an expected score strictly \
                         between 0 and 1, which this Elo does not give in floating point"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// ln(beta / (1 - alpha)) and ln((1 - beta) / alpha).
pub fn bounds(alpha: f64, beta: f64) -> (f64, f64) {
    ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
}

/// The observed distribution over pair scores 0, 0.25, .., 1 (normalized), zeros
/// regularized, with its total count.
fn distribution(counts: &[u64; 5]) -> (f64, [(f64, f64); 5]) {
    let regularized = counts.map(|c| if c == 0 { 1e-3 } else { c as f64 });
    let total: f64 = regularized.iter().sum();
    let mut pdf = [(0.0, 0.0); 5];
    for (i, c) in regularized.iter().enumerate() {
        pdf[i] = (i as f64 / 4.0, c / total);
    }
    (total, pdf)
}

fn mean_var(pdf: &[(f64, f64); 5]) -> (f64, f64) {
    let mean: f64 = pdf.iter().map(|(a, p)| a * p).sum();
    let var: f64 = pdf.iter().map(|(a, p)| p * (a - mean).powi(2)).sum();
    (mean, var)
}

/// The root x of sum_i p_i a_i / (1 + x a_i) = 0 between the poles, by bisection (the
/// function falls monotonically there).
fn secular(pdf: &[(f64, f64); 5]) -> Option<f64> {
    let low_a = pdf.iter().map(|(a, _)| *a).fold(f64::INFINITY, f64::min);
    let high_a = pdf
        .iter()
        .map(|(a, _)| *a)
        .fold(f64::NEG_INFINITY, f64::max);
    if low_a * high_a >= 0.0 {
        return None;
    }
    let f = |x: f64| pdf.iter().map(|(a, p)| p * a / (1.0 + x * a)).sum::<f64>();
    let (mut lo, mut hi) = (-1.0 / high_a + 1e-9, -1.0 / low_a - 1e-9);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        let value = f(mid);
        if value == 0.0 || hi - lo < 1e-15 {
            return Some(mid);
        }
        if value > 0.0 { lo = mid } else { hi = mid }
    }
    Some(0.5 * (lo + hi))
}

/// fishtest's MLE_expected: the distribution with expectation `s` closest to `pdf`.
fn mle_expected(pdf: &[(f64, f64); 5], s: f64) -> Option<[f64; 5]> {
    let shifted = pdf.map(|(a, p)| (a - s, p));
    let x = secular(&shifted)?;
    Some(pdf.map(|(a, p)| p / (1.0 + x * (a - s))))
}

/// fishtest's MLE_t_value: the distribution with t-value (mu - 0.5) / sigma = t closest to
/// `pdf`, by fixed-point iteration from the uniform distribution.
fn mle_t_value(pdf: &[(f64, f64); 5], t: f64) -> Option<[f64; 5]> {
    let mut mle = [0.2; 5];
    for _ in 0..10 {
        let previous = mle;
        let current: [(f64, f64); 5] = std::array::from_fn(|i| (pdf[i].0, mle[i]));
        let (mu, var) = mean_var(&current);
        let sigma = var.sqrt();
        let shifted = pdf.map(|(a, p)| {
            (
                a - 0.5 - t * sigma * (1.0 + ((mu - a) / sigma).powi(2)) / 2.0,
                p,
            )
        });
        let x = secular(&shifted)?;
        mle = std::array::from_fn(|i| pdf[i].1 / (1.0 + x * shifted[i].0));
        if previous
            .iter()
            .zip(&mle)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max)
            < 1e-9
        {
            break;
        }
    }
    Some(mle)
}

/// The log-likelihood ratio of H1 (`elo1`) against H0 (`elo0`) for pentanomial counts
/// `[LL, LD+DL, LW+DD+WL, DW+WD, WW]` from the candidate's side (0 before any pair).
/// `None` when the model cannot compute it for these bounds (see [`check_bounds`]): never
/// a made-up 0.
pub fn llr(model: Model, elo0: f64, elo1: f64, counts: &[u64; 5]) -> Option<f64> {
    if counts.iter().sum::<u64>() == 0 {
        return Some(0.0);
    }
    let (total, pdf) = distribution(counts);
    let (p0, p1) = match model {
        Model::Logistic => (
            mle_expected(&pdf, expected_score(elo0)),
            mle_expected(&pdf, expected_score(elo1)),
        ),
        Model::Normalized => {
            // Pair scores spread by sqrt(2) more than game scores.
            let t = |nelo: f64| nelo / NELO_PER_T * std::f64::consts::SQRT_2;
            (mle_t_value(&pdf, t(elo0)), mle_t_value(&pdf, t(elo1)))
        }
    };
    let (p0, p1) = (p0?, p1?);
    let llr = total
        * pdf
            .iter()
            .zip(p0.iter().zip(&p1))
            .map(|((_, p), (a, b))| p * (b.ln() - a.ln()))
            .sum::<f64>();
    llr.is_finite().then_some(llr)
}

/// The candidate's logistic Elo from pentanomial counts, with its 95% interval. An end of
/// the interval the data cannot bound (a score interval reaching 0 or 1, as for a
/// candidate that won every game) is infinite; the interval is never cut at the estimate.
pub fn elo_estimate(counts: &[u64; 5]) -> (f64, f64, f64) {
    let pairs: u64 = counts.iter().sum();
    if pairs == 0 {
        return (0.0, 0.0, 0.0);
    }
    let n = pairs as f64;
    let clamp = |s: f64| s.clamp(0.25 / n, 1.0 - 0.25 / n);
    let (_, pdf) = distribution(counts);
    let (mean, _) = mean_var(&pdf);
    // The spread comes from the counts with half a pair added to each empty outcome: a
    // unanimous run has no observed spread, yet its Elo is far from known.
    let total = n + counts.iter().filter(|&&c| c == 0).count() as f64 * 0.5;
    let smoothed: [(f64, f64); 5] = std::array::from_fn(|i| {
        let c = if counts[i] == 0 {
            0.5
        } else {
            counts[i] as f64
        };
        (i as f64 / 4.0, c / total)
    });
    let (smoothed_mean, var) = mean_var(&smoothed);
    let half = z95() * (var / n).sqrt();
    let end = |s: f64| {
        if s <= 0.0 {
            f64::NEG_INFINITY
        } else if s >= 1.0 {
            f64::INFINITY
        } else {
            elo_of_score(s)
        }
    };
    (
        elo_of_score(clamp(mean)),
        end(smoothed_mean - half),
        end(smoothed_mean + half),
    )
}

/// The index in the pentanomial counts of a pair whose two game scores are given.
pub fn pair_index(first_game: f64, second_game: f64) -> usize {
    ((2.0 * (first_game + second_game)).round() as usize).min(4)
}

/// Where the test stands: a hypothesis accepted once the LLR crosses its bound, or not yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Verdict {
    /// The LLR reached the upper bound: the candidate is better by at least `elo1`.
    H1,
    /// The LLR reached the lower bound: the candidate is not better by more than `elo0`.
    H0,
    /// The LLR is still between the bounds (the pairs ran out, the run was stopped, or it goes on).
    #[serde(rename = "inconclusive")]
    Inconclusive,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bounds_for_alpha_beta_005() {
        let (lower, upper) = bounds(0.05, 0.05);
        assert!(
            (lower + 2.944).abs() < 5e-4 && (upper - 2.944).abs() < 5e-4,
            "{lower} {upper}"
        );
    }

    // Reference values from fishtest's LLRcalc formulas (MLE_expected / MLE_t_value, zero
    // counts regularized to 1e-3), evaluated independently in Python with a bisection
    // root finder: tests/data/sprt_reference.py prints them.
    #[test]
    fn logistic_llr_matches_the_reference() {
        let cases: [([u64; 5], f64, f64, f64); 4] = [
            ([10, 20, 40, 20, 10], 0.0, 5.0, -0.034_506_851),
            ([5, 15, 40, 25, 15], 0.0, 10.0, 1.314_924_312),
            ([0, 3, 10, 30, 57], 0.0, 50.0, 13.358_883_954),
            ([57, 30, 10, 3, 0], 0.0, 50.0, -15.422_898_178),
        ];
        for (counts, e0, e1, expected) in cases {
            let got = llr(Model::Logistic, e0, e1, &counts).unwrap();
            assert!(
                (got - expected).abs() < 1e-6,
                "{counts:?} {e0} {e1}: {got} vs {expected}"
            );
        }
    }

    #[test]
    fn normalized_llr_matches_the_reference() {
        let cases: [([u64; 5], f64, f64, f64); 4] = [
            ([10, 20, 40, 20, 10], 0.0, 5.0, -0.020_709_467),
            ([5, 15, 40, 25, 15], 0.0, 10.0, 1.034_366_392),
            ([0, 3, 10, 30, 57], 0.0, 50.0, 15.091_438_415),
            ([57, 30, 10, 3, 0], 0.0, 50.0, -18.930_249_060),
        ];
        for (counts, e0, e1, expected) in cases {
            let got = llr(Model::Normalized, e0, e1, &counts).unwrap();
            assert!(
                (got - expected).abs() < 1e-6,
                "{counts:?} {e0} {e1}: {got} vs {expected}"
            );
        }
    }

    /// For small Elo differences the exact LLR is close to the Brownian approximation
    /// N (s1 - s0)(2s - s0 - s1) / (2 var) (fishtest's LLR_alt2): an independent check.
    #[test]
    fn logistic_llr_is_close_to_the_brownian_approximation() {
        let counts = [30u64, 90, 160, 110, 40];
        let (n, pdf) = distribution(&counts);
        let (s, var) = mean_var(&pdf);
        let (s0, s1) = (expected_score(0.0), expected_score(5.0));
        let approx = n * (s1 - s0) * (2.0 * s - s0 - s1) / (2.0 * var);
        let exact = llr(Model::Logistic, 0.0, 5.0, &counts).unwrap();
        assert!(
            (exact - approx).abs() < 0.01 * approx.abs().max(1.0),
            "{exact} vs {approx}"
        );
    }

    #[test]
    fn llr_grows_with_evidence_and_flips_with_the_side() {
        let small = llr(Model::Logistic, 0.0, 10.0, &[2, 4, 8, 6, 4]).unwrap();
        let large = llr(Model::Logistic, 0.0, 10.0, &[20, 40, 80, 60, 40]).unwrap();
        assert!(large > small && small > 0.0);
        assert!(llr(Model::Logistic, 0.0, 10.0, &[40, 60, 80, 40, 20]).unwrap() < 0.0);
        assert_eq!(llr(Model::Logistic, 0.0, 10.0, &[0; 5]), Some(0.0));
    }

    #[test]
    fn pair_indices() {
        assert_eq!(pair_index(0.0, 0.0), 0);
        assert_eq!(pair_index(0.5, 0.0), 1);
        assert_eq!(pair_index(1.0, 0.0), 2);
        assert_eq!(pair_index(0.5, 0.5), 2);
        assert_eq!(pair_index(1.0, 0.5), 3);
        assert_eq!(pair_index(1.0, 1.0), 4);
    }

    #[test]
    fn elo_estimate_is_finite_and_ordered() {
        for counts in [[3, 5, 9, 5, 3], [1, 6, 20, 9, 2], [40, 60, 80, 40, 20]] {
            let (e, lo, hi) = elo_estimate(&counts);
            assert!(
                e.is_finite() && lo.is_finite() && hi.is_finite(),
                "{counts:?}"
            );
            assert!(lo < e && e < hi, "{counts:?}: {lo} {e} {hi}");
        }
        let (e, _, _) = elo_estimate(&[3, 5, 9, 5, 3]);
        assert!(e.abs() < 1e-9);
    }

    #[test]
    fn an_all_win_interval_reaches_above_the_estimate() {
        for pairs in [1, 17, 1000] {
            // One pair bounds nothing; many bound the far end.
            let bounded = pairs > 1;
            let (e, lo, hi) = elo_estimate(&[0, 0, 0, 0, pairs]);
            assert!(
                e > 0.0 && lo.is_finite() == bounded,
                "{pairs}: {lo} {e} {hi}"
            );
            assert!(
                lo < e && hi > e,
                "{pairs}: the interval [{lo}, {hi}] must hold {e} inside"
            );
            let (e, lo, hi) = elo_estimate(&[pairs, 0, 0, 0, 0]);
            assert!(
                lo < e && hi > e && hi.is_finite() == bounded,
                "all lost, {pairs}: [{lo}, {hi}] {e}"
            );
        }
    }

    #[test]
    fn wide_normalized_bounds_are_refused_with_the_range_and_never_give_a_silent_zero() {
        let limit = normalized_limit();
        assert!((limit - 231.6).abs() < 0.1, "{limit}");
        let err = check_bounds(Model::Normalized, 0.0, 300.0).unwrap_err();
        assert!(
            err.contains("--elo1 300") && err.contains("231.6") && err.contains("logistic"),
            "{err}"
        );
        assert!(check_bounds(Model::Normalized, -240.0, 0.0).is_err());
        assert!(check_bounds(Model::Logistic, 0.0, 300.0).is_ok());
        assert!(check_bounds(Model::Logistic, 0.0, 1e6).is_err());
        // Beyond the range the computation has no answer, and says so.
        assert_eq!(llr(Model::Normalized, 0.0, 300.0, &[0, 0, 0, 0, 5]), None);
        // Inside it, every outcome gives a number, and a run that wins everything decides.
        let within = limit - 0.5;
        for counts in [
            [0, 0, 0, 0, 1],
            [0, 0, 0, 0, 50],
            [50, 0, 0, 0, 0],
            [0, 0, 100, 0, 0],
            [5, 5, 5, 5, 5],
            [0, 1, 0, 3, 40],
        ] {
            for (e0, e1) in [(0.0, within), (-within, 0.0), (-within, within), (0.0, 5.0)] {
                let value = llr(Model::Normalized, e0, e1, &counts);
                assert!(
                    value.is_some_and(f64::is_finite),
                    "{counts:?} {e0} {e1}: {value:?}"
                );
            }
        }
        let (_, upper) = bounds(0.05, 0.05);
        assert!(llr(Model::Normalized, 0.0, 200.0, &[0, 0, 0, 0, 20]).unwrap() > upper);
        assert!(llr(Model::Logistic, 0.0, 300.0, &[0, 0, 0, 0, 20]).unwrap() > upper);
    }
}
