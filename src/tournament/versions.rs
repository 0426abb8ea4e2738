//! The versions of each team's bot in a league that grew (`league --update`):
//! `versions.jsonl` beside the journal, one line per event of a version (first played,
//! replaced, retired), with how a version stood when it left the standings. Written by an
//! update before it rewrites the journal; read by the report (versions.csv, the report's
//! Versions section, a team's feedback).

use crate::error::Error;
use crate::record::GameSummary;
use crate::tournament::journal::{BotChanges, Plan};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// Which program a plan entry is, as its versions are told apart: its files' digest, or
/// for a bot of no files (a built-in) its spec.
pub fn version_of(bot: &crate::tournament::journal::PlanBot) -> Option<String> {
    Some(bot.digest.clone().unwrap_or_else(|| bot.spec.clone()))
}

/// The versions of each team's bot a league has had, beside its journal: when each was
/// first played and, for one no longer in the standings, when it left them and how it
/// stood then.
pub const VERSIONS_FILE: &str = "versions.jsonl";

/// One event of a bot's version in a league, as `league --update` keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VersionLine {
    /// The bot (the team).
    pub bot: String,
    /// Its files' digest; none for a built-in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// `seen` (first played from then), `changed` (replaced by another version),
    /// `retired` (left out of the league) or `refused` (a resubmission that failed
    /// `--check`, never played: the version before it plays on).
    pub event: String,
    /// When, in seconds since 1970 (UTC); none for a version there from the league's start,
    /// which an update found.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<u64>,
    /// How it stood when it left the standings: its games, points, Elo and Elo's 95%
    /// interval in the league as it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub standing: Option<VersionStanding>,
    /// Why a `refused` version was refused: its failure in the check's words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// A resubmission refused by `league --check --update`: the bot, the digest of the files
/// that failed and why. Its bot plays on as the version that passed ([`super::kept`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    /// The bot (the team).
    pub bot: String,
    /// The digest of the files that failed.
    pub digest: Option<String>,
    /// Its failure, in the check's words.
    pub reason: String,
}

/// A version's standing when it left the league's standings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VersionStanding {
    /// Games it played.
    pub games: u32,
    /// League points it scored in them.
    pub points: f64,
    /// Its Elo (the league's mean 0).
    pub elo: f64,
    /// The 95% interval of its Elo, low end.
    pub elo_low: f64,
    /// The 95% interval of its Elo, high end.
    pub elo_high: f64,
}

impl VersionStanding {
    /// A bot's row of the standings, as a version keeps it.
    pub fn of(row: &crate::stats::league::Standing) -> VersionStanding {
        VersionStanding {
            games: row.games,
            points: row.points,
            elo: row.elo,
            elo_low: row.elo_low,
            elo_high: row.elo_high,
        }
    }
}

/// The version events of the league in `dir`, oldest first; none before its first update.
pub fn versions_of(dir: &Path) -> Result<Vec<VersionLine>, Error> {
    crate::tournament::journal::json_lines(
        &dir.join(VERSIONS_FILE),
        "a line of a league's versions: a bot, its digest and an event, as `league --update` \
         writes",
    )
}

/// Appends to the versions of the league in `dir` what an update from `old` to `plan`
/// (`changes`) makes of them: how each version that leaves the standings stood in the
/// league of `summaries` (the journal's games as they were; none for a shard's, a part of
/// the league, whose merge finds it: [`standings_at_departure`]), and when each new one was
/// first played; and for a bot of `old` the versions do not know yet (a league's first
/// update), that it was there from the start. Written whole; an update cut short and made
/// again repeats events, which the readers take once.
pub(crate) fn record(
    dir: &Path,
    old: &Plan,
    plan: &Plan,
    summaries: Option<&[GameSummary]>,
    changes: &BotChanges,
) -> Result<(), Error> {
    let was = |name: &str| old.bots.iter().find(|b| b.name == name);
    let now = |name: &str| plan.bots.iter().find(|b| b.name == name);
    // The versions: how each version that leaves the standings stood, and when each new
    // one was first played. Written before the journal: a crash after it and before the
    // journal leaves events an update made again repeats, which the readers take once.
    let versions_path = dir.join(VERSIONS_FILE);
    let known = versions_of(dir)?;
    let at = seconds_now();
    let names: Vec<String> = old.bots.iter().map(|b| b.name.clone()).collect();
    let table = summaries.map(|games| table_of(old, &names, games));
    let mut events = from_the_start(old, &known);
    for (event, names) in [("changed", &changes.changed), ("retired", &changes.missing)] {
        for name in names {
            let Some(bot) = was(name) else { continue };
            let standing = table
                .as_ref()
                .and_then(|t| t.rows.iter().find(|r| r.bot == *name))
                .map(VersionStanding::of);
            events.push(VersionLine {
                bot: name.clone(),
                digest: version_of(bot),
                event: event.into(),
                at: Some(at),
                standing,
                reason: None,
            });
        }
    }
    for name in changes.added.iter().chain(&changes.changed) {
        let Some(bot) = now(name) else { continue };
        events.push(VersionLine {
            bot: name.clone(),
            digest: version_of(bot),
            event: "seen".into(),
            at: Some(at),
            standing: None,
            reason: None,
        });
    }
    append(&versions_path, &events)
}

/// The standings of the bots `names` of `plan` in the league of `games`.
fn table_of<'a>(
    plan: &Plan,
    names: &[String],
    games: impl IntoIterator<Item = &'a GameSummary>,
) -> crate::stats::league::LeagueTable {
    let tally = crate::tournament::tally::Tally::of(games);
    let scoring = crate::stats::league::Scoring {
        win: plan.points_win,
        tie: plan.points_tie,
    };
    crate::stats::league::table_of(names, &tally.counts, scoring, None)
}

/// Seconds since 1970, now.
fn seconds_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A `seen` event from the league's start for each bot of `plan` the versions (`known`)
/// do not know yet: the versions a league had before its first update.
fn from_the_start(plan: &Plan, known: &[VersionLine]) -> Vec<VersionLine> {
    plan.bots
        .iter()
        .filter(|bot| {
            !known
                .iter()
                .any(|v| v.bot == bot.name && v.digest == version_of(bot) && v.event != "refused")
        })
        .map(|bot| VersionLine {
            bot: bot.name.clone(),
            digest: version_of(bot),
            event: "seen".into(),
            at: None,
            standing: None,
            reason: None,
        })
        .collect()
}

/// `events` appended to the versions file at `path`, written whole.
fn append(path: &Path, events: &[VersionLine]) -> Result<(), Error> {
    if events.is_empty() {
        return Ok(());
    }
    let mut text = std::fs::read(path).unwrap_or_default();
    for event in events {
        serde_json::to_writer(&mut text, event).expect("a version line always serializes");
        text.push(b'\n');
    }
    crate::untrusted::file::write_atomic(path, &text)
}

/// Records in the versions of the league in `dir` (whose bots are `plan`'s) each
/// resubmission `refused` by the check, once: the version before it plays on.
pub(crate) fn record_refused(dir: &Path, plan: &Plan, refused: &[Refused]) -> Result<(), Error> {
    let known = versions_of(dir)?;
    let mut events = from_the_start(plan, &known);
    for r in refused {
        let again = known
            .iter()
            .any(|v| v.bot == r.bot && v.digest == r.digest && v.event == "refused");
        if !again {
            events.push(VersionLine {
                bot: r.bot.clone(),
                digest: r.digest.clone(),
                event: "refused".into(),
                at: Some(seconds_now()),
                standing: None,
                reason: Some(r.reason.clone()),
            });
        }
    }
    append(&dir.join(VERSIONS_FILE), &events)
}

/// A version of a bot: its name and digest.
type Version = (String, Option<String>);

/// The versions of the shards of one league, made one (`arbiter merge`): each event once
/// (an update of every shard makes the same events, each at its own time: the earliest is
/// kept), oldest first; and each version that left the standings with no standing (a
/// shard saw a part of the league) gets how it stood in the league as it was just before
/// it left: the games between the versions current then, of the merged journal (`games`,
/// its bots as `plan` has them) and of the merged `history`.
pub(crate) fn merged(
    shards: Vec<VersionLine>,
    plan: &Plan,
    games: &[GameSummary],
    history: &[crate::tournament::journal::HistoryGame],
) -> Vec<VersionLine> {
    let mut events: Vec<VersionLine> = Vec::new();
    for event in shards {
        let same = |e: &&mut VersionLine| {
            e.bot == event.bot && e.digest == event.digest && e.event == event.event
        };
        match events.iter_mut().find(same) {
            Some(known) => known.at = known.at.min(event.at),
            None => events.push(event),
        }
    }
    // Stable: events of one time keep the first shard's order.
    events.sort_by_key(|e| e.at);
    let when = |bot: &str, digest: &Option<String>, kinds: &[&str]| {
        events
            .iter()
            .filter(|e| e.bot == bot && e.digest == *digest && kinds.contains(&e.event.as_str()))
            .map(|e| e.at)
            .min()
    };
    let digest_now = |name: &str| plan.bots.iter().find(|b| b.name == name).map(version_of);
    // Every game with its two bots' versions.
    let mut played: Vec<([Version; 2], &GameSummary)> = games
        .iter()
        .filter_map(|g| {
            let a = digest_now(&g.players[0])?;
            let b = digest_now(&g.players[1])?;
            Some((
                [(g.players[0].to_string(), a), (g.players[1].to_string(), b)],
                g,
            ))
        })
        .collect();
    played.extend(history.iter().map(|(bots, g)| {
        (
            [
                (bots[0].name.clone(), version_of(&bots[0])),
                (bots[1].name.clone(), version_of(&bots[1])),
            ],
            g,
        )
    }));
    let mut filled = events.clone();
    for event in filled.iter_mut() {
        if event.standing.is_some() || !matches!(event.event.as_str(), "changed" | "retired") {
            continue;
        }
        let Some(left) = event.at else { continue };
        // Current just before it left: first played before then, and not gone by then.
        let current = |bot: &str, digest: &Option<String>| {
            when(bot, digest, &["seen"]).is_some_and(|seen| seen.is_none_or(|s| s < left))
                && when(bot, digest, &["changed", "retired"])
                    .flatten()
                    .is_none_or(|gone| gone >= left)
        };
        let league: Vec<&GameSummary> = played
            .iter()
            .filter(|(bots, _)| bots.iter().all(|(bot, digest)| current(bot, digest)))
            .map(|(_, g)| *g)
            .collect();
        let mut names: Vec<String> = league
            .iter()
            .flat_map(|g| g.players.iter().map(|p| p.to_string()))
            .collect();
        names.sort();
        names.dedup();
        let table = table_of(plan, &names, league.iter().copied());
        event.standing = table
            .rows
            .iter()
            .find(|r| r.bot == event.bot)
            .map(VersionStanding::of);
    }
    filled
}

/// Writes `events` as the versions of the league in `dir`, whole.
pub(crate) fn write(dir: &Path, events: &[VersionLine]) -> Result<(), Error> {
    let path = dir.join(VERSIONS_FILE);
    let _ = std::fs::remove_file(&path);
    append(&path, events)
}
