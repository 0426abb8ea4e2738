//! SPRT-gated gauntlet: the candidate plays role-swapped pairs against one baseline until
//! the test accepts a hypothesis or runs out of pairs.

use super::schedule::{Fixture, game_seed};
use super::{Tournament, play_pool};
use crate::engines::Builtins;
use crate::error::Error;
use crate::record::GameRecord;
use crate::stats::sprt::{self, Model, Verdict};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

#[derive(Clone, Debug)]
pub struct SprtSettings {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub model: Model,
    pub max_pairs: u64,
}

/// The state of the test after each pair.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SprtStatus {
    pub verdict: Verdict,
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    pub elo0: f64,
    pub elo1: f64,
    pub model: Model,
    /// Pairs by candidate pair score 0, 0.5, 1, 1.5, 2.
    pub pentanomial: [u64; 5],
    pub pairs: u64,
    /// The candidate's logistic Elo against the baseline.
    pub elo: EloEstimate,
}

/// An Elo estimate with its 95% interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct EloEstimate {
    pub estimate: f64,
    pub low: f64,
    pub high: f64,
}

/// Plays pairs of `tournament` (entrant 0 the candidate, 1 the baseline); both games of
/// pair k share a seed. Pairs count in pair order whatever order they finish in, so a
/// run with deterministic bots is repeatable at any `-j`.
pub fn run<G: Builtins>(
    game: &G,
    tournament: &Tournament,
    settings: &SprtSettings,
    stop: &Arc<AtomicBool>,
    on_pair: &mut dyn FnMut(&SprtStatus),
) -> Result<SprtStatus, Error> {
    sprt::check_bounds(settings.model, settings.elo0, settings.elo1).map_err(Error::usage)?;
    // A bot the harness cannot start would lose every pair: no verdict from that.
    super::setup::check(&tournament.entrants)?;
    let (lower, upper) = sprt::bounds(settings.alpha, settings.beta);
    let mut status = SprtStatus {
        verdict: Verdict::Inconclusive,
        llr: 0.0,
        lower,
        upper,
        elo0: settings.elo0,
        elo1: settings.elo1,
        model: settings.model,
        pentanomial: [0; 5],
        pairs: 0,
        elo: EloEstimate::default(),
    };
    let seed = tournament.seed;
    let max_games = settings.max_pairs.saturating_mul(2);
    let next_fixture = |i: usize| {
        let id = i as u64;
        (id < max_games).then(|| {
            let pair_seed = game_seed(seed, id / 2);
            // Even games: the candidate moves first; odd games: the baseline does.
            let (first, second) = if id.is_multiple_of(2) { (0, 1) } else { (1, 0) };
            Fixture {
                id,
                first,
                second,
                seed: pair_seed,
                start: id / 2,
            }
        })
    };
    let mut finished: BTreeMap<u64, f64> = BTreeMap::new();
    let halt = stop.clone();
    play_pool(
        game,
        tournament,
        &next_fixture,
        stop,
        &mut |fixture, record: GameRecord| {
            if status.verdict != Verdict::Inconclusive {
                return Ok(());
            }
            finished.insert(fixture.id, candidate_score(&record, fixture.first == 0));
            // Count complete pairs in order.
            loop {
                let pair = status.pairs;
                let (Some(a), Some(b)) = (
                    finished.get(&(2 * pair)).copied(),
                    finished.get(&(2 * pair + 1)).copied(),
                ) else {
                    break;
                };
                finished.remove(&(2 * pair));
                finished.remove(&(2 * pair + 1));
                status.pentanomial[sprt::pair_index(a, b)] += 1;
                status.pairs += 1;
                status.llr = sprt::llr(
                    settings.model,
                    settings.elo0,
                    settings.elo1,
                    &status.pentanomial,
                )
                .ok_or_else(|| {
                    Error::usage(format!(
                        "the {:?} model cannot compute the LLR of H0 elo {} against H1 elo {} \
                         for pentanomial {:?}: no verdict is given",
                        settings.model, settings.elo0, settings.elo1, status.pentanomial
                    ))
                })?;
                let (estimate, low, high) = sprt::elo_estimate(&status.pentanomial);
                status.elo = EloEstimate {
                    estimate,
                    low,
                    high,
                };
                if status.llr >= upper {
                    status.verdict = Verdict::H1;
                } else if status.llr <= lower {
                    status.verdict = Verdict::H0;
                }
                on_pair(&status);
                if status.verdict != Verdict::Inconclusive {
                    // The answer is in: running games are cancelled, no new one starts.
                    halt.store(true, std::sync::atomic::Ordering::SeqCst);
                    break;
                }
            }
            Ok(())
        },
    )?;
    Ok(status)
}

/// The candidate's score in one game: 1, 0.5 or 0.
fn candidate_score(record: &GameRecord, candidate_first: bool) -> f64 {
    let candidate_role = record.roles.get(if candidate_first { 0 } else { 1 });
    match (&record.winner, candidate_role) {
        (None, _) => 0.5,
        (Some(w), Some(r)) if w == r => 1.0,
        _ => 0.0,
    }
}
