//! Tournaments: a schedule of games played in parallel, journaled as each ends, resumable.
//!
//! Workers on a dedicated pool play games in schedule order and send their records to
//! one writer (the calling thread), which appends them to the journal, counts the results
//! ([`tally::Tally`]: counts per pairing, never a row per game), and hands out its
//! progress and results so far through [`LeagueEvent`]s:
//! whoever runs it (the CLI) shows them and writes the tables; a tournament never writes
//! a table or a report itself.

pub mod chores;
pub(crate) mod compact;
mod entrant;
pub mod journal;
pub(crate) mod kept;
pub mod live;
pub mod merge;
pub mod openings;
mod pool;
pub mod preflight;
pub(crate) mod schedule;
pub mod setup;
pub mod shard;
pub mod sprt;
pub mod tally;
pub mod versions;

use crate::bots::spec::{BotSpec, SandboxMode};
use crate::engines::Builtins;
use crate::error::Error;
use crate::record::GameSummary;
use crate::replay::Replayed;
use crate::stats::league::{self, LeagueTable, Scoring};
pub use entrant::Entrant;
use journal::{Journal, Plan, PlanBot, PlanSprt};
use openings::{DistinctPairs, Openings};
pub(crate) use pool::play_pool;
pub use pool::{DEFAULT_AHEAD, PRESTART_VAR};
use schedule::{Fixture, PendingGame};
use shard::Shard;
use sprt::SprtStatus;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};
use tally::Tally;

/// How the entrants are paired.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Every pair of bots.
    RoundRobin,
    /// The first bot against each of the others.
    Gauntlet,
    /// The first bot against the second, pair after pair, until a sequential test decides.
    Sprt,
}

impl Format {
    fn name(self) -> &'static str {
        match self {
            Format::RoundRobin => "round_robin",
            Format::Gauntlet => "gauntlet",
            Format::Sprt => "sprt",
        }
    }
}

/// A tournament's settings: who plays, how often, under which limits, where results go.
#[derive(Clone, Debug)]
pub struct Tournament {
    /// How the entrants are paired.
    pub format: Format,
    /// The bots in order: the first is the candidate of a gauntlet or an SPRT.
    pub entrants: Vec<Entrant>,
    /// Role-swapped pairs of games per pairing.
    pub pairs: u32,
    /// The tournament seed: every game's seed is derived from it and the game's id.
    pub seed: u64,
    /// Longest a bot may take over one reply.
    pub move_limit: Duration,
    /// Longest a bot may take to start and answer the handshake.
    pub init_limit: Duration,
    /// Games at once.
    pub jobs: usize,
    /// The results folder (`results/<tournament>/`), where the journal is kept.
    pub out: PathBuf,
    /// Start afresh even when `out` holds a journal (kept as `games.jsonl.old`).
    pub force_new: bool,
    /// `league --update`: a journal of other bots is rewritten for these (games of
    /// unchanged bots kept, the others moved to the league's history), then resumed.
    pub update: bool,
    /// Where each pair starts.
    pub openings: Openings,
    /// Play only this shard of the schedule (`None`: all of it).
    pub shard: Option<Shard>,
    /// Entries of its submissions folders that are not bots, kept in the plan.
    pub left_out: Vec<journal::LeftOut>,
    /// Entries of its submissions folders that hold a bot's files byte for byte, kept in
    /// the plan: each names its student, whose team is the bot's.
    pub merged: Vec<journal::Merged>,
    /// Resubmissions that failed `--check` in an update, each bot playing on as its
    /// version that passed ([`kept`]): recorded among the league's versions.
    pub refused: Vec<versions::Refused>,
    /// Each game replayed for the report's game browser on the worker that played it,
    /// while its record is in memory, when the run begins the journal (a resumed one has
    /// games this run did not replay): [`LeagueEvent::GameFinished`] carries it.
    pub replays: bool,
    /// Work the game threads do between games, handed to them by whoever runs the
    /// tournament (the report's blocks of replays); what is left when the last game ends
    /// is done before the run returns.
    pub chores: Option<std::sync::Arc<chores::Chores>>,
    /// The run's live state (games in play, ETA), kept up to date by its pool and written
    /// to `live::LIVE_FILE` beside the journal; none for a run that shows nothing.
    pub live: Option<std::sync::Arc<live::Board>>,
}

/// How often a run hands out its results so far while games finish ([`LeagueEvent::Results`]):
/// tables are cheap for a course league and costly for a huge one.
pub(crate) const RESULTS_EVERY: Duration = Duration::from_secs(1);

/// What a run tells whoever shows its progress and keeps its tables on disk; an error
/// returned for an event ends the run.
pub enum LeagueEvent<'a> {
    /// The journal is open and counted; no game of this run has been played yet.
    Started {
        /// Games in the schedule (the shard's, when one is played).
        total: usize,
        /// Of those, games the journal already held.
        already_done: usize,
        /// What was done about a damaged last line of the journal.
        repair: Option<journal::Repair>,
        /// What `league --update` did to the journal.
        updated: Option<&'a journal::Updated>,
    },
    /// A game was played and journaled.
    GameFinished {
        /// The game just journaled.
        summary: &'a GameSummary,
        /// Games in the journal now, earlier runs' included.
        done: usize,
        /// Games in the schedule (the shard's, when one is played).
        total: usize,
        /// The bot with the best score rate so far, and its points.
        leader: Option<(&'a str, f64)>,
        /// The game replayed, when the tournament asks for replays.
        replay: Option<&'a Replayed>,
    },
    /// The SPRT after a pair it newly counted.
    PairCounted(&'a SprtStatus),
    /// A league's or a gauntlet's results so far, counted: once at the start and at most
    /// once every `RESULTS_EVERY` while games finish (the run's end is the summary's).
    /// Its games are in the journal, not held.
    Counted {
        /// The run's plan, as the journal holds it.
        plan: &'a Plan,
        /// The journal's games, counted per pairing.
        tally: &'a Tally,
    },
    /// Every game journaled so far by an SPRT run, with the test after each counted pair:
    /// once at the start, at most once every `RESULTS_EVERY` while games finish, and
    /// always at the end, when the journal is synced.
    Results {
        /// The run's plan, as the journal holds it.
        plan: &'a Plan,
        /// Every game journaled so far, in journal order.
        games: &'a [GameSummary],
        /// The test's status after each counted pair, oldest first.
        sprt: Option<&'a [SprtStatus]>,
    },
}

/// The end of a run.
pub struct RunSummary {
    /// The standings over the journal's games: Elo with mean 0, and marks.
    pub table: LeagueTable,
    /// Role names in move order.
    pub roles: Vec<String>,
    /// Games this run played.
    pub played: usize,
    /// Games in the journal now.
    pub finished: usize,
    /// Games in the schedule (the shard's, when one is played).
    pub total: usize,
    /// Stopped by the stop flag before every game was played.
    pub interrupted: bool,
    /// Pairs that were not a replay of an earlier pair.
    pub distinct: DistinctPairs,
    /// The plan the journal holds.
    pub plan: Plan,
    /// Every game of the journal counted, and listed for the tables that list each game:
    /// what the tables are made of, without reading the journal again.
    pub tally: Tally,
    /// The games' short lines on disk, read back in schedule order for the per-game tables.
    pub listing: journal::Listing,
}

impl Tournament {
    /// The whole schedule, every shard's games, its seeds as `plan` says.
    fn fixtures(&self, plan: &Plan) -> Result<Vec<Fixture>, Error> {
        Ok(match self.format {
            Format::RoundRobin => {
                let names: Vec<String> = self.entrants.iter().map(|e| e.name.clone()).collect();
                schedule::round_robin_of(&names, self.pairs, self.seed, seeds_of(plan)?)
            }
            Format::Gauntlet | Format::Sprt => {
                schedule::gauntlet(self.entrants.len(), self.pairs, self.seed)
            }
        })
    }

    /// Whether the pairs' starts are dealt in turn from a list: an opening book, Hinger's
    /// start boards or Battle's armies (`rules` as the game records them).
    fn deals_starts(&self, rules: &serde_json::Map<String, serde_json::Value>) -> bool {
        matches!(self.openings, Openings::Book { .. })
            || rules.contains_key("boards")
            || rules.contains_key("armies")
    }

    /// The plan: the schedule and every setting that can change a result.
    fn plan<G: Builtins>(
        &self,
        game: &G,
        rules: serde_json::Map<String, serde_json::Value>,
        sprt: Option<PlanSprt>,
    ) -> Result<Plan, Error> {
        let points = game.league_points();
        let bots = self
            .entrants
            .iter()
            .map(|e| {
                let program = !matches!(e.spec, BotSpec::Builtin(_));
                let limits = e.confine.limits;
                Ok(PlanBot {
                    name: e.name.clone(),
                    spec: e.spec_text.clone(),
                    python: setup::interpreter(&e.spec),
                    dir: e.cwd.as_ref().map(|d| d.to_string_lossy().into_owned()),
                    env: e.env.clone(),
                    memory_mb: limits.memory_mb,
                    cpu_s: limits.cpu_s,
                    file_mb: limits.file_mb,
                    // The level the machine gave, not the mode asked for: a resume on a
                    // machine that confines less is refused like any changed setting.
                    sandbox: match program {
                        false => None,
                        true => {
                            Some(setup::sandbox_level(e.confine.sandbox).map_err(Error::usage)?)
                        }
                    },
                    digest: setup::digest(&e.spec, e.cwd.as_deref())?,
                    non_scoring: e.non_scoring,
                    file: e.file.clone(),
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        let deals = self.deals_starts(&rules);
        Ok(Plan {
            format: self.format.name().into(),
            game: game.name().into(),
            roles: game.roles().iter().map(|r| r.to_string()).collect(),
            bots,
            pairs: self.pairs,
            seed: self.seed,
            rules,
            points_win: points.win,
            points_tie: points.tie,
            limit_ms: Some(self.move_limit.as_millis() as u64),
            init_limit_ms: Some(self.init_limit.as_millis() as u64),
            openings: self.openings.plan(),
            sprt,
            left_out: self.left_out.clone(),
            merged: self.merged.clone(),
            seeds: match self.format {
                // Starts dealt from a list (an opening book, Hinger's boards, Battle's
                // armies) go to the pairs in turn: their seeds stay by place.
                Format::RoundRobin if !deals => schedule::Seeds::ByPairing.name().map(String::from),
                _ => None,
            },
        })
    }
}

/// Plays every game of `tournament` not yet in its journal. `rules` names the game
/// settings that change the rules (they are part of the journal's identity). `stop`
/// ends the run early: no new game starts, running games are cancelled and not journaled.
/// The tables as the run ends are the caller's to write, from the summary.
pub fn run<G: Builtins>(
    game: &G,
    rules: serde_json::Map<String, serde_json::Value>,
    tournament: &Tournament,
    stop: &Arc<AtomicBool>,
    on_event: &mut dyn FnMut(LeagueEvent<'_>) -> Result<(), Error>,
) -> Result<RunSummary, Error> {
    let Opened {
        plan,
        fixtures,
        mut journal,
        summaries,
        pending,
        repair,
        updated,
    } = open(game, rules, tournament, None)?;
    let total = fixtures.len();
    // Only the games still to play are kept, each in 24 bytes: a long league holds one
    // per game until it ends.
    drop(fixtures);
    let games: Vec<PendingGame> = pending.iter().map(PendingGame::of).collect();
    // Not shadowed but dropped: a shadowed name would hold its fixtures, 40 bytes a game,
    // until the run ends.
    drop(pending);
    let pending = games;
    // The results are counted, never held; what lists every game reads them back from
    // the listing, a short line a game on the disk.
    let tally = Tally::of(&summaries);
    let mut listing = journal::ListingWriter::new(&tournament.out, total)?;
    for summary in &summaries {
        listing.add(summary)?;
    }
    drop(summaries);
    on_event(LeagueEvent::Started {
        total,
        already_done: tally.games,
        repair,
        updated: updated.as_ref(),
    })?;
    on_event(LeagueEvent::Counted {
        plan: &plan,
        tally: &tally,
    })?;

    let scoring = Scoring {
        win: plan.points_win,
        tie: plan.points_tie,
    };
    let names: Vec<String> = tournament.entrants.iter().map(|e| e.name.clone()).collect();
    // Points and games kept as games arrive, for the live leader: recounting every game
    // after each one would make a long league quadratic.
    let mut points = vec![0.0; names.len()];
    let mut games = vec![0u32; names.len()];
    for row in league::standings_of(&names, &tally.counts, scoring) {
        if let Some(i) = names.iter().position(|n| *n == row.bot) {
            points[i] = row.points;
            games[i] = row.games;
        }
    }
    let mut tally = tally;
    let mut played = 0;
    let mut last_results = Instant::now();
    let next_fixture = |i: usize| pending.get(i).map(PendingGame::fixture);
    play_pool(
        game,
        tournament,
        &next_fixture,
        stop,
        journal.version(),
        // A journal begun earlier is replayed whole by the report: its earlier games were
        // not replayed here.
        tournament.replays && tally.games == 0,
        &mut |fixture, game| {
            journal.append_line(&game.line)?;
            journal.remember(&game.line, &game.summary)?;
            let summary = &game.summary;
            tally.add(summary);
            listing.add_line(summary.id, &game.listed)?;
            played += 1;
            let finished = tally.games;
            for seat in 0..2 {
                let earned = match summary.winner {
                    None => scoring.tie,
                    Some(w) if w == seat => scoring.win,
                    Some(_) => 0.0,
                };
                let bot = [fixture.first, fixture.second][seat];
                points[bot] += earned;
                games[bot] += 1;
            }
            // The best score rate, ties broken by name as in the standings.
            let rate = |i: usize| league::score_rate(points[i], games[i]);
            let leader = (0..names.len())
                .max_by(|&a, &b| {
                    rate(a)
                        .total_cmp(&rate(b))
                        .then_with(|| names[b].cmp(&names[a]))
                })
                .map(|i| (names[i].as_str(), points[i]));
            on_event(LeagueEvent::GameFinished {
                summary,
                done: finished,
                total,
                leader,
                replay: game.replay.as_ref(),
            })?;
            if last_results.elapsed() >= RESULTS_EVERY {
                on_event(LeagueEvent::Counted {
                    plan: &plan,
                    tally: &tally,
                })?;
                last_results = Instant::now();
            }
            Ok(())
        },
    )?;
    if let Some(chores) = &tournament.chores {
        chores.do_waiting();
    }
    journal.sync()?;
    journal.write_known()?;
    // No last `Counted`: the caller writes the tables of the whole run from the summary's
    // tally and listing (`report::write_counted`), and would overwrite them at once.
    let bots: Vec<String> = plan.bots.iter().map(|b| b.name.clone()).collect();
    let mut table = league::table_of(&bots, &tally.counts, scoring, None);
    league::set_marks(&mut table.rows, &plan.non_scoring());
    Ok(RunSummary {
        table,
        roles: plan.roles.clone(),
        played,
        finished: tally.games,
        total,
        interrupted: tally.games < total,
        distinct: tally.distinct(),
        plan,
        tally,
        listing: listing.finish()?,
    })
}

/// A tournament's journal opened for a run, with what it already holds.
pub(crate) struct Opened {
    pub plan: Plan,
    pub fixtures: Vec<Fixture>,
    pub journal: Journal,
    /// The games already played, checked against the schedule.
    pub summaries: Vec<GameSummary>,
    /// The fixtures still to play, in schedule order.
    pub pending: Vec<Fixture>,
    pub repair: Option<journal::Repair>,
    /// What `--update` did to the journal before it was opened.
    pub updated: Option<journal::Updated>,
}

/// Checks the setup, opens (or resumes) the journal under the tournament's plan and sorts
/// the schedule into played and pending games.
pub(crate) fn open<G: Builtins>(
    game: &G,
    rules: serde_json::Map<String, serde_json::Value>,
    tournament: &Tournament,
    sprt: Option<PlanSprt>,
) -> Result<Opened, Error> {
    setup::check(&tournament.entrants)?;
    // No bot reads another entrant's files, nor the results: the folder, and the live
    // journal by name, for a folder that holds bots too.
    setup::enter(&tournament.entrants);
    for result in [
        tournament.out.clone(),
        tournament.out.join(journal::JOURNAL_FILE),
        tournament.out.join(journal::LOCK_FILE),
    ] {
        crate::jail::entrants::results(&result);
    }
    let plan = planned(game, rules, tournament, sprt)?;
    let schedule = tournament.fixtures(&plan)?;
    // The shard's games; the whole schedule is not copied when it is all played here.
    let seeds = seeds_of(&plan)?;
    let selected = tournament.shard.map(|shard| shard.select(&schedule, seeds));
    let (journal, loaded, updated) = match tournament.update && !tournament.force_new {
        true => Journal::open_updating(
            &tournament.out,
            &plan,
            &schedule,
            tournament.shard,
            // A shard's games are a part of the league: how a version stood in the whole
            // league is found when the shards are merged.
            &mut |old, summaries, changes| {
                let summaries = Some(summaries).filter(|_| tournament.shard.is_none());
                versions::record(&tournament.out, old, &plan, summaries, changes)
            },
        )?,
        false => {
            let (journal, loaded) = Journal::open_shard(
                &tournament.out,
                &plan,
                tournament.shard,
                tournament.force_new,
            )?;
            (journal, loaded, None)
        }
    };
    if tournament
        .entrants
        .iter()
        .any(|e| e.confine.sandbox == SandboxMode::User)
    {
        setup::keep_results_private(&tournament.out)?;
    }
    // A league whose pairings keep their games keeps its course bots' versions, which an
    // update may need to play on (a resubmission that fails the check).
    if tournament.format == Format::RoundRobin && plan.seeds.is_some() {
        kept::keep(&tournament.out, &plan, &tournament.entrants)?;
    }
    if !tournament.refused.is_empty() {
        versions::record_refused(&tournament.out, &plan, &tournament.refused)?;
    }
    let journal_path = tournament.out.join(journal::JOURNAL_FILE);
    let mut summaries = Vec::with_capacity(loaded.games.len());
    let mut done = HashSet::new();
    let shard_of_game = tournament
        .shard
        .map(|s| (s, shard::shards_of(&schedule, s.count, seeds)));
    for summary in loaded.games {
        check_against_schedule(&journal_path, &summary, &schedule, &tournament.entrants)?;
        if let Some((shard, shards)) = &shard_of_game {
            let belongs = shards[summary.id as usize];
            if belongs != shard.index {
                return Err(Error::usage(format!(
                    "{}: game {} belongs to shard {belongs}/{}, not to this folder's shard \
                     {shard}; use another output folder",
                    journal_path.display(),
                    summary.id,
                    shard.count
                )));
            }
        }
        done.insert(summary.id);
        summaries.push(summary);
    }
    let fixtures = selected.unwrap_or(schedule);
    let mut pending = Vec::with_capacity(fixtures.len() - done.len().min(fixtures.len()));
    pending.extend(fixtures.iter().filter(|f| !done.contains(&f.id)).copied());
    Ok(Opened {
        plan,
        fixtures,
        journal,
        summaries,
        pending,
        repair: loaded.repair,
        updated,
    })
}

/// What [`run`] would refuse of `tournament` before its first game (its bots' programs,
/// its size, a journal in its folder written under another plan), found without writing
/// any file. `check`: the bots are about to be checked (`--check`), and those that fail
/// will be left out of the plan, as the journal's plan may have left some out: the bots it
/// left out for failing the check are taken as failing it again, and what is refused after
/// the check (another bot failing) is refused when the journal is opened.
pub fn check_start<G: Builtins>(
    game: &G,
    rules: serde_json::Map<String, serde_json::Value>,
    tournament: &Tournament,
    sprt: Option<PlanSprt>,
    check: bool,
) -> Result<(), Error> {
    setup::check(&tournament.entrants)?;
    // Known before the plan: a bot's digest leaves out the other entrants' files.
    setup::enter(&tournament.entrants);
    let mut plan = planned(game, rules, tournament, sprt)?;
    let journal_path = tournament.out.join(journal::JOURNAL_FILE);
    if check && let Some(old) = journal::read_plan(&journal_path) {
        // Bots the plan left out for failing the check are taken to fail it again (the
        // check runs only after this); an entry left out for anything else is a bot now.
        for left in old.left_out {
            if !left.reason.starts_with(journal::FAILED_THE_CHECK) {
                continue;
            }
            if let Some(at) = plan.bots.iter().position(|b| b.name == left.name) {
                plan.bots.remove(at);
                plan.left_out.push(left);
            }
        }
    }
    Journal::check_open(
        &tournament.out,
        &plan,
        tournament.shard,
        tournament.force_new,
        tournament.update,
    )
}

/// The plan of `tournament`, once what no plan can describe is refused: an SPRT in shards,
/// a schedule too large.
fn planned<G: Builtins>(
    game: &G,
    rules: serde_json::Map<String, serde_json::Value>,
    tournament: &Tournament,
    sprt: Option<PlanSprt>,
) -> Result<Plan, Error> {
    if tournament.shard.is_some() && tournament.format == Format::Sprt {
        return Err(Error::usage(
            "an SPRT is sequential (each pair decides whether the next is played), so it \
             cannot be split into shards: run it on one machine",
        ));
    }
    let what = match tournament.format {
        Format::Sprt => "--max-pairs (max_pairs)",
        _ => "--pairs (pairs)",
    };
    schedule::check_size(
        tournament.format != Format::RoundRobin,
        tournament.entrants.len(),
        tournament.pairs,
        what,
    )
    .map_err(Error::usage)?;
    let mut plan = tournament.plan(game, rules, sprt)?;
    // A round robin journalled before its seeds came by pairing resumes with its own.
    if plan.seeds.is_some()
        && !tournament.force_new
        && let Some(old) = journal::read_plan(&tournament.out.join(journal::JOURNAL_FILE))
        && old.format == plan.format
        && old.seeds.is_none()
    {
        plan.seeds = None;
    }
    Ok(plan)
}

/// The whole schedule a plan describes, or why there is none.
pub(crate) fn schedule_of(plan: &Plan) -> Result<Vec<Fixture>, String> {
    let bots = plan.bots.len();
    schedule::check_size(
        plan.format != "round_robin",
        bots,
        plan.pairs,
        "the plan's pairs",
    )?;
    match plan.format.as_str() {
        "round_robin" => {
            let names: Vec<String> = plan.bots.iter().map(|b| b.name.clone()).collect();
            let seeds = schedule::Seeds::of(plan.seeds.as_deref())?;
            Ok(schedule::round_robin_of(
                &names, plan.pairs, plan.seed, seeds,
            ))
        }
        "gauntlet" | "sprt" => Ok(schedule::gauntlet(bots, plan.pairs, plan.seed)),
        other => Err(format!(
            "format `{other}`: expected round_robin, gauntlet or sprt"
        )),
    }
}

/// The seeds of `plan`'s games, or why its `seeds` is not one arbiter knows.
fn seeds_of(plan: &Plan) -> Result<schedule::Seeds, Error> {
    schedule::Seeds::of(plan.seeds.as_deref()).map_err(Error::usage)
}

/// A journal line must be the game the schedule says it is.
fn check_against_schedule(
    path: &Path,
    summary: &GameSummary,
    fixtures: &[Fixture],
    entrants: &[Entrant],
) -> Result<(), Error> {
    let expected = fixtures.get(summary.id as usize).map(|f| {
        [
            entrants[f.first].name.as_str(),
            entrants[f.second].name.as_str(),
        ]
    });
    if expected != Some([summary.players[0].as_str(), summary.players[1].as_str()]) {
        return Err(Error::usage(format!(
            "{}: game {} ({} vs {}) is not in this tournament's schedule; use another output folder",
            path.display(),
            summary.id,
            summary.players[0],
            summary.players[1]
        )));
    }
    Ok(())
}
