//! The versions of each team's bot in a league that grew with `league --update`, from the
//! versions and history it keeps beside its journal: `versions.csv`, the report's Versions
//! section, and a team's feedback comparing its bot with its previous version on the same
//! opponents. A league never updated has one version of each bot, and none of these.

use super::model::Report;
use super::model::Version;
use super::numbers::{elo, num};
use super::section::{Section, Table, columns};
use crate::error::Error;
use crate::tournament::versions::{VersionLine, VersionStanding, version_of};
use std::path::Path;

/// The file a league that grew lists its versions in.
pub(crate) const VERSIONS_CSV: &str = "versions.csv";

/// The versions of every bot of the league in `dir` (whose report is `report`), team by
/// team in name order, each team's oldest first; none for a league never updated.
pub(crate) fn of(dir: &Path, report: &Report) -> Result<Vec<Version>, Error> {
    let events = crate::tournament::versions::versions_of(dir)?;
    if events.is_empty() || report.plan.format != "round_robin" {
        return Ok(Vec::new());
    }
    let mut versions: Vec<Version> = Vec::new();
    for event in &events {
        let at = versions
            .iter()
            .position(|v| v.bot == event.bot && v.full_digest == event.digest);
        let at = match at {
            Some(at) => at,
            None => {
                versions.push(new_version(event, &versions));
                versions.len() - 1
            }
        };
        let version = &mut versions[at];
        match event.event.as_str() {
            // Brought back as it was: current again.
            "seen" if version.status != "current" => {
                version.status = "current".into();
                version.left = None;
                version.reason = None;
            }
            "changed" | "retired" => {
                version.status = event.event.clone();
                version.left = event.at;
                version.standing = event.standing.clone();
            }
            // Failed the check: it never played, unless a later run of it passed.
            "refused" if version.status == "current" && version.standing.is_none() => {
                version.status = "refused".into();
                version.reason = event.reason.clone();
            }
            _ => {}
        }
    }
    // Today's versions stand as the standings say; a version the plan no longer holds is
    // not current, whatever the events say (an update cut short before its journal).
    for version in &mut versions {
        let bot = report
            .plan
            .bots
            .iter()
            .find(|b| b.name == version.bot && version_of(b) == version.full_digest);
        match bot {
            Some(_) => {
                version.status = "current".into();
                version.left = None;
                version.standing = report
                    .table
                    .rows
                    .iter()
                    .find(|r| r.bot == version.bot)
                    .map(VersionStanding::of);
            }
            None if version.status == "current" => version.status = "retired".into(),
            None => {}
        }
    }
    versions.sort_by_key(|v| (v.bot.to_lowercase(), v.number));
    Ok(versions)
}

fn new_version(event: &VersionLine, versions: &[Version]) -> Version {
    Version {
        bot: event.bot.clone(),
        number: versions.iter().filter(|v| v.bot == event.bot).count() + 1,
        // A digest is shown by its first 12 hex digits, a built-in by its spec.
        digest: match event.digest.as_deref() {
            None => "built-in".into(),
            Some(d) if d.len() == 64 && d.bytes().all(|b| b.is_ascii_hexdigit()) => {
                d.chars().take(12).collect()
            }
            Some(spec) => spec.to_string(),
        },
        full_digest: event.digest.clone(),
        first_seen: event.at,
        status: "current".into(),
        reason: None,
        left: None,
        standing: None,
    }
}

/// `YYYY-MM-DD HH:MM` (UTC) of `secs` since 1970.
pub(crate) fn utc(secs: u64) -> String {
    // Days to a civil date: H. Hinnant's `civil_from_days`.
    let days = (secs / 86_400) as i64;
    let (hour, minute) = ((secs % 86_400) / 3600, (secs % 3600) / 60);
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!("{year:04}-{month:02}-{day:02} {hour:02}:{minute:02}")
}

fn when(at: Option<u64>, none: &str) -> String {
    at.map_or(none.to_string(), utc)
}

fn per_game(points: f64, games: u32) -> String {
    match games {
        0 => String::new(),
        n => format!("{:.2}", points / f64::from(n)),
    }
}

/// versions.csv: a row per version of each team's bot.
pub(crate) fn csv(versions: &[Version]) -> Vec<u8> {
    let header = [
        "team",
        "version",
        "digest",
        "first_seen",
        "status",
        "left",
        "games",
        "points",
        "points_per_game",
        "elo",
        "elo_low",
        "elo_high",
        "reason",
    ]
    .map(String::from)
    .to_vec();
    let rows = versions.iter().map(|v| {
        let s = v.standing.as_ref();
        vec![
            v.bot.clone(),
            v.number.to_string(),
            v.full_digest.clone().unwrap_or_else(|| "built-in".into()),
            when(v.first_seen, "start"),
            v.status.clone(),
            when(v.left, ""),
            s.map_or(String::new(), |s| s.games.to_string()),
            s.map_or(String::new(), |s| num(s.points)),
            s.map_or(String::new(), |s| per_game(s.points, s.games)),
            s.map_or(String::new(), |s| format!("{:.1}", s.elo)),
            s.map_or(String::new(), |s| format!("{:.1}", s.elo_low)),
            s.map_or(String::new(), |s| format!("{:.1}", s.elo_high)),
            v.reason.clone().unwrap_or_default(),
        ]
    });
    let mut writer = ::csv::Writer::from_writer(Vec::new());
    // Writing into a Vec cannot fail.
    writer.write_record(&header).expect("in-memory csv");
    for row in rows {
        let cells = row
            .iter()
            .map(|c| crate::untrusted::text::csv_cell(c).into_owned());
        writer.write_record(cells).expect("in-memory csv");
    }
    writer.into_inner().expect("in-memory csv")
}

/// Writes versions.csv into `dir` when its league grew; else removes none and writes none.
pub(crate) fn write(dir: &Path, versions: &[Version]) -> Result<(), Error> {
    if versions.is_empty() {
        return Ok(());
    }
    super::write_atomic(&dir.join(VERSIONS_CSV), &csv(versions))
}

/// The report's Versions section: every team's versions, for a league that grew.
pub(crate) fn section(versions: &[Version]) -> Option<Section> {
    if versions.is_empty() {
        return None;
    }
    let rows = versions
        .iter()
        .map(|v| {
            let s = v.standing.as_ref();
            let status = match v.status.as_str() {
                "changed" => format!("replaced {}", when(v.left, "")),
                "retired" => format!("retired {}", when(v.left, "")),
                "refused" => "failed the check, never played".to_string(),
                other => other.to_string(),
            };
            vec![
                v.bot.clone(),
                v.number.to_string(),
                v.digest.clone(),
                when(v.first_seen, "from the start"),
                status,
                s.map_or("0".into(), |s| s.games.to_string()),
                s.map_or(String::new(), |s| per_game(s.points, s.games)),
                s.map_or(String::new(), |s| {
                    format!("{} [{}, {}]", elo(s.elo), elo(s.elo_low), elo(s.elo_high))
                }),
            ]
        })
        .collect();
    Some(Section {
        id: "versions".into(),
        title: "Versions".into(),
        text: vec![
            "The league grew with its class (league --update): each team's versions, the \
             games each played and how it stood, a current version in today's standings, an \
             earlier one when it left them (its Elo against the league as it was then)."
                .into(),
        ],
        tables: vec![Table {
            id: "versions".into(),
            caption: "Each team's versions".into(),
            columns: columns(
                &[
                    "Team",
                    "Version",
                    "Digest",
                    "First played",
                    "Status",
                    "Games",
                    "Points/game",
                    "Elo [95% CI]",
                ],
                5,
            ),
            rows,
        }],
        notes: Vec::new(),
        plot: None,
    })
}

/// The feedback's comparison of `team`'s current version with its previous one, on the
/// opponents both played: points per game of each, and Elo (the previous one's when it
/// was replaced). None for a team with one version.
pub(crate) fn feedback(
    versions: &[Version],
    history: &[crate::tournament::journal::HistoryGame],
    team: &str,
    report: &Report,
) -> Option<String> {
    let mine: Vec<&Version> = versions.iter().filter(|v| v.bot == team).collect();
    let refusal = refusal(&mine);
    let compared = comparison(&mine, history, team, report);
    match (refusal, compared) {
        (None, None) => None,
        (refusal, compared) => Some(refusal.unwrap_or_default() + &compared.unwrap_or_default()),
    }
}

/// What the feedback says of a team whose latest resubmission failed the check: why, and
/// that the version before it plays on. None when its latest version is not refused.
fn refusal(mine: &[&Version]) -> Option<String> {
    let refused = mine.iter().max_by_key(|v| v.number)?;
    if refused.status != "refused" {
        return None;
    }
    let playing = mine.iter().rev().find(|v| v.status == "current");
    let reason = refused.reason.as_deref().unwrap_or_default();
    let failed = crate::tournament::journal::FAILED_THE_CHECK;
    let why = reason
        .strip_prefix(failed)
        .map_or(reason, |r| r.trim_start_matches(": "));
    let mut out = String::from("\n## Your resubmission\n\n");
    out.push_str(&format!(
        "Your resubmission (v{}, files {}, checked {}) did not play: it failed the check \
         ({}).",
        refused.number,
        refused.digest,
        when(refused.first_seen, ""),
        crate::untrusted::text::markdown(why)
    ));
    match playing {
        Some(v) => out.push_str(&format!(
            " Your version that passed (v{}, files {}) plays on in the league; hand in a \
             version that passes the check to replace it.\n",
            v.number, v.digest
        )),
        None => out.push('\n'),
    }
    Some(out)
}

/// The comparison of a team's current version (of `mine`) with its previous one.
fn comparison(
    mine: &[&Version],
    history: &[crate::tournament::journal::HistoryGame],
    team: &str,
    report: &Report,
) -> Option<String> {
    let (Some(current), Some(previous)) = (
        mine.iter().rev().find(|v| v.status == "current"),
        mine.iter()
            .rev()
            .find(|v| v.status == "changed" && v.full_digest.is_some()),
    ) else {
        return None;
    };
    let me = report.bots.iter().position(|b| b == team)?;
    // The previous version's games, by opponent: points and games.
    let mut before: std::collections::BTreeMap<String, (f64, u32)> = Default::default();
    for (bots, game) in history {
        let Some(seat) =
            (0..2).find(|&s| bots[s].name == team && version_of(&bots[s]) == previous.full_digest)
        else {
            continue;
        };
        let earned = match game.winner {
            None => report.plan.points_tie,
            Some(w) if w == seat => report.plan.points_win,
            Some(_) => 0.0,
        };
        let entry = before.entry(bots[1 - seat].name.clone()).or_default();
        entry.0 += earned;
        entry.1 += 1;
    }
    let (mut was, mut is) = ((0.0, 0u32), (0.0, 0u32));
    let mut opponents = Vec::new();
    for (opponent, (points, games)) in &before {
        let Some(j) = report.bots.iter().position(|b| b == opponent) else {
            continue;
        };
        if report.met[me][j] == 0 {
            continue;
        }
        was = (was.0 + points, was.1 + games);
        is = (is.0 + report.points[me][j], is.1 + report.met[me][j]);
        opponents.push(crate::untrusted::text::markdown(opponent));
    }
    let mut out = String::from("\n## Your earlier version\n\n");
    out.push_str(&format!(
        "Your current version (v{}, first played {}) replaced v{} (replaced {}).",
        current.number,
        when(current.first_seen, "from the start"),
        previous.number,
        when(previous.left, "")
    ));
    if opponents.is_empty() {
        out.push_str(" No opponent of today's league played both.\n");
    } else {
        out.push_str(&format!(
            " Against the opponents both played ({}): {} points per game now, {} before.",
            opponents.join(", "),
            per_game(is.0, is.1),
            per_game(was.0, was.1)
        ));
        out.push('\n');
    }
    if let (Some(now), Some(then)) = (&current.standing, &previous.standing) {
        out.push_str(&format!(
            "\nElo now {} [{}, {}]; v{} had {} [{}, {}] when it was replaced (each against \
             the league as it was).\n",
            elo(now.elo),
            elo(now.elo_low),
            elo(now.elo_high),
            previous.number,
            elo(then.elo),
            elo(then.elo_low),
            elo(then.elo_high)
        ));
    }
    Some(out)
}
