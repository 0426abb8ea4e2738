//! SPRT-gated gauntlet: the candidate plays role-swapped pairs against one baseline until
//! the test accepts a hypothesis or runs out of pairs. A tournament like the others: a
//! folder with its journal and tables, plus sprt.csv, the test after each pair.

use super::journal::PlanSprt;
use super::openings::DistinctPairs;
use super::{LeagueEvent, Opened, RESULTS_EVERY, Tournament, play_pool};
use crate::engines::Builtins;
use crate::error::Error;
use crate::record::GameSummary;
use crate::stats::sprt::{self, Model, Verdict};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// The test an SPRT run makes: its two hypotheses, its error rates and its Elo model.
#[derive(Clone, Debug)]
pub struct SprtSettings {
    /// H0: the candidate is this many Elo stronger (or weaker, if negative).
    pub elo0: f64,
    /// H1: the candidate is this many Elo stronger; greater than `elo0`.
    pub elo1: f64,
    /// The chance of accepting H1 when H0 holds.
    pub alpha: f64,
    /// The chance of accepting H0 when H1 holds.
    pub beta: f64,
    /// How `elo0` and `elo1` are measured.
    pub model: Model,
}

/// The state of the test after each pair.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SprtStatus {
    /// The hypothesis accepted, or `Inconclusive` while the LLR is between the bounds.
    pub verdict: Verdict,
    /// The log-likelihood ratio of H1 against H0 over the pairs counted.
    pub llr: f64,
    /// H0 is accepted once `llr <= lower`: ln(beta / (1 - alpha)).
    pub lower: f64,
    /// H1 is accepted once `llr >= upper`: ln((1 - beta) / alpha).
    pub upper: f64,
    /// H0's Elo, from the settings.
    pub elo0: f64,
    /// H1's Elo, from the settings.
    pub elo1: f64,
    /// How `elo0` and `elo1` are measured, from the settings.
    pub model: Model,
    /// Pairs by candidate pair score 0, 0.5, 1, 1.5, 2.
    pub pentanomial: [u64; 5],
    /// Pairs counted, in pair order: the first `pairs` pairs of the schedule.
    pub pairs: u64,
    /// The candidate's logistic Elo against the baseline.
    pub elo: EloEstimate,
}

/// An Elo estimate with its 95% interval.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct EloEstimate {
    /// The estimate, always finite: the mean pair score is kept 0.25/n from 0 and 1.
    pub estimate: f64,
    /// Lower end of the 95% interval; infinite when the data cannot bound it.
    pub low: f64,
    /// Upper end of the 95% interval; infinite when the data cannot bound it.
    pub high: f64,
}

/// What the test leaves behind besides its status: the status after each counted pair
/// (sprt.csv), how many pairs were distinct games, and whether it stopped early.
pub struct SprtRun {
    /// The test after its last counted pair.
    pub status: SprtStatus,
    /// The test after each counted pair, in pair order (the rows of sprt.csv).
    pub history: Vec<SprtStatus>,
    /// Over the counted pairs only, as the verdict and the tables count them.
    pub distinct: DistinctPairs,
    /// What the machine's load did to the counted games.
    pub machine: super::tally::MachineTotals,
    /// Journaled games the test did not count: finished after the deciding pair while the
    /// run was stopping, or (stopped early) beyond a pair still missing.
    pub uncounted: usize,
    /// Games already in the journal when the run started.
    pub resumed: usize,
    /// The results folder the run journaled in.
    pub out: PathBuf,
}

/// Plays pairs of `tournament` (entrant 0 the candidate, 1 the baseline, format
/// [`super::Format::Sprt`], `pairs` the most pairs), journaled in `tournament.out` like
/// any tournament, so a rerun resumes. Pairs count in pair order whatever order they
/// finish in, and a resume recounts the journal the same way, so a run with deterministic
/// bots reaches the same pairs, LLR and verdict at any `-j` and across a kill.
pub fn run<G: Builtins>(
    game: &G,
    rules: serde_json::Map<String, serde_json::Value>,
    tournament: &Tournament,
    settings: &SprtSettings,
    stop: &Arc<AtomicBool>,
    on_event: &mut dyn FnMut(LeagueEvent<'_>) -> Result<(), Error>,
) -> Result<SprtRun, Error> {
    sprt::check_bounds(settings.model, settings.elo0, settings.elo1).map_err(Error::usage)?;
    let plan_sprt = PlanSprt {
        elo0: settings.elo0,
        elo1: settings.elo1,
        alpha: settings.alpha,
        beta: settings.beta,
        model: match settings.model {
            Model::Normalized => "normalized".into(),
            Model::Logistic => "logistic".into(),
        },
    };
    // A bot the harness cannot start would lose every pair: `open` refuses the run.
    let Opened {
        plan,
        mut journal,
        mut summaries,
        pending,
        ..
    } = super::open(game, rules, tournament, Some(plan_sprt))?;
    let mut counter = Counter::new(settings, &tournament.entrants[0].name);
    let resumed = summaries.len();
    for summary in &summaries {
        counter.add(summary);
    }
    counter.count()?;
    let out = tournament.out.clone();
    let halt = stop.clone();
    if counter.status.verdict == Verdict::Inconclusive {
        let next_fixture = |i: usize| pending.get(i).copied();
        let mut last_results = Instant::now();
        let version = journal.version();
        play_pool(
            game,
            tournament,
            &next_fixture,
            stop,
            version,
            false,
            &mut |_, game| {
                if counter.status.verdict != Verdict::Inconclusive {
                    return Ok(());
                }
                journal.append_line(&game.line)?;
                let summary = game.summary;
                counter.add(&summary);
                summaries.push(summary);
                let before = counter.history.len();
                counter.count()?;
                for status in &counter.history[before..] {
                    on_event(LeagueEvent::PairCounted(status))?;
                }
                if counter.status.verdict != Verdict::Inconclusive {
                    // The answer is in: running games are cancelled, no new one starts.
                    halt.store(true, Ordering::SeqCst);
                }
                if last_results.elapsed() >= RESULTS_EVERY {
                    on_event(LeagueEvent::Results {
                        plan: &plan,
                        games: &summaries,
                        sprt: Some(&counter.history),
                    })?;
                    last_results = Instant::now();
                }
                Ok(())
            },
        )?;
        journal.sync()?;
    }
    on_event(LeagueEvent::Results {
        plan: &plan,
        games: &summaries,
        sprt: Some(&counter.history),
    })?;
    let pairs = counter.status.pairs;
    let counted_games: Vec<GameSummary> = summaries
        .iter()
        .filter(|g| counted(g, pairs))
        .cloned()
        .collect();
    Ok(SprtRun {
        status: counter.status,
        history: counter.history,
        distinct: DistinctPairs::of(&counted_games),
        machine: super::tally::Tally::of(&counted_games).machine,
        uncounted: summaries.len() - counted_games.len(),
        resumed,
        out,
    })
}

/// Whether `game` belongs to the first `pairs` pairs, the ones the test counted: games 2k
/// and 2k+1 are pair k. The verdict, the tables and the report all count these games
/// only, so they agree on the number of pairs.
pub fn counted(game: &GameSummary, pairs: u64) -> bool {
    game.id < 2 * pairs
}

/// The test after each counted pair, recounted from a finished (or stopped) SPRT's plan and
/// journaled games exactly as the run counted them: what the report shows of a folder.
/// `None` when the plan is not an SPRT's.
pub fn recount(
    plan: &super::journal::Plan,
    games: &[GameSummary],
) -> Result<Option<Vec<SprtStatus>>, Error> {
    let Some(test) = &plan.sprt else {
        return Ok(None);
    };
    let model = match test.model.as_str() {
        "normalized" => Model::Normalized,
        "logistic" => Model::Logistic,
        other => {
            return Err(Error::usage(format!(
                "the journal's SPRT model `{other}`: expected normalized or logistic"
            )));
        }
    };
    let Some(candidate) = plan.bots.first() else {
        return Err(Error::usage("the journal's SPRT plan names no bot"));
    };
    let settings = SprtSettings {
        elo0: test.elo0,
        elo1: test.elo1,
        alpha: test.alpha,
        beta: test.beta,
        model,
    };
    let mut counter = Counter::new(&settings, &candidate.name);
    for summary in games {
        counter.add(summary);
    }
    counter.count()?;
    Ok(Some(counter.history))
}

/// Counts finished games into pairs, in pair order.
struct Counter {
    status: SprtStatus,
    settings: SprtSettings,
    /// Candidate scores of games not yet counted, by game id.
    scores: BTreeMap<u64, f64>,
    history: Vec<SprtStatus>,
    candidate: String,
}

impl Counter {
    fn new(settings: &SprtSettings, candidate: &str) -> Counter {
        let (lower, upper) = sprt::bounds(settings.alpha, settings.beta);
        Counter {
            status: SprtStatus {
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
            },
            settings: settings.clone(),
            scores: BTreeMap::new(),
            history: Vec::new(),
            candidate: candidate.to_string(),
        }
    }

    fn add(&mut self, summary: &GameSummary) {
        let score = match summary.winner {
            None => 0.5,
            Some(w) if *summary.players[w] == *self.candidate => 1.0,
            Some(_) => 0.0,
        };
        self.scores.insert(summary.id, score);
    }

    /// Counts every complete pair next in order, until one is missing or a verdict is in.
    fn count(&mut self) -> Result<(), Error> {
        let settings = &self.settings;
        while self.status.verdict == Verdict::Inconclusive {
            let pair = self.status.pairs;
            // Games 2k and 2k+1 are pair k (schedule::gauntlet with one baseline); in
            // game 2k the candidate moves first.
            let (Some(a), Some(b)) = (
                self.scores.get(&(2 * pair)).copied(),
                self.scores.get(&(2 * pair + 1)).copied(),
            ) else {
                break;
            };
            let status = &mut self.status;
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
            if status.llr >= status.upper {
                status.verdict = Verdict::H1;
            } else if status.llr <= status.lower {
                status.verdict = Verdict::H0;
            }
            self.history.push(status.clone());
        }
        Ok(())
    }
}
