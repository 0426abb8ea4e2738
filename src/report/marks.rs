//! What a teacher hands back: `marks.csv` (a row per student of a roster, or per team) and
//! `feedback/TEAM.md` (a team's mark, games and failures), from the one report model, so
//! they say what the standings say. Every team is accounted for: one that played, one whose
//! entry was left out, and one of the roster that handed nothing in.

use super::model::Report;
use super::numbers::{fixed, num};
pub use crate::class::{ROSTER_FILE, Roster, keep_roster, match_teams};
use crate::error::Error;
use crate::record::{GameSummary, both_failed_part, failure_words};
use std::path::Path;

/// The marks for the grade book, in a round robin's folder.
pub(crate) const MARKS_FILE: &str = "marks.csv";
/// One Markdown file per team.
pub(crate) const FEEDBACK_DIR: &str = "feedback";

/// A failure of one team's bot in one game.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TeamFailure {
    pub game: u64,
    pub opponent: String,
    pub role: String,
    /// The record's code (`exception`, `timeout`, ...).
    pub reason: String,
    /// In words, with the first line of the error (its file and line).
    pub words: String,
    /// Its opponent failed at the same time (a double failure).
    pub double: bool,
}

impl TeamFailure {
    /// The failure in a few words (`could not start`, `ran out of time`), its error aside.
    pub(crate) fn what(&self) -> &str {
        self.words
            .split(": ")
            .next()
            .unwrap_or_default()
            .trim_end_matches(" (its opponent failed too)")
    }
}

/// How one team fared, for its marks row, its feedback and the report's problems.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct TeamResult {
    pub team: String,
    /// m_i; 0 for a team left out or with no entry.
    pub mark: f64,
    pub points: f64,
    pub games: u32,
    pub rank: Option<usize>,
    /// Where it came from: a bot's spec, a left-out entry.
    pub entry: String,
    /// Why its entry was left out, when it was.
    pub left_out: Option<String>,
    /// The entries that hold the same files as `entry`, its partners' (`SUBMISSIONS/ENTRY`).
    pub merged: Vec<String>,
    /// A team of the roster with no entry in the folder.
    pub missing: bool,
    /// Whether it has a mark: a roster's team that played as a bot kept out of the marks
    /// (`--non-scoring`) has none.
    pub marked: bool,
    pub failures: Vec<TeamFailure>,
    /// Illegal replies the rules refused, and turns with no legal move at all.
    pub illegal: u32,
    pub blocked: u32,
}

impl TeamResult {
    /// When its entry was handed in, as its platform's name for it says (`yes` or `no` for
    /// Canvas's late mark, Blackboard's attempt date); none where the platform says
    /// nothing.
    pub(crate) fn late(&self) -> Option<String> {
        crate::class::late_of(&self.entry)
    }

    /// When the entry of the `roster`'s student `i` was handed in: that of theirs among the
    /// team's entries (a partner's merged into it), else the team's.
    fn late_of_student(&self, roster: &Roster, i: usize) -> Option<String> {
        std::iter::once(&self.entry)
            .chain(&self.merged)
            .find(|entry| roster.named_by(i, entry))
            .map_or_else(|| self.late(), |entry| crate::class::late_of(entry))
    }

    /// One short line a teacher reads in the grade book.
    pub(crate) fn status(&self) -> String {
        if self.missing {
            return "no submission".to_string();
        }
        if !self.marked {
            return "played, kept out of the marks (non-scoring)".to_string();
        }
        if let Some(reason) = &self.left_out {
            return format!("left out: {reason}");
        }
        // A failure of its own says more than one shared with its opponent.
        let Some(first) = self
            .failures
            .iter()
            .find(|f| !f.double)
            .or(self.failures.first())
        else {
            return "played".to_string();
        };
        if self.failures.len() as u32 == self.games {
            return first.words.clone();
        }
        format!(
            "lost {} of {} games by its own failures; first: {}",
            self.failures.len(),
            self.games,
            first.words
        )
    }
}

/// The team results of a round robin's report: every scoring bot, then every left-out
/// entry (reference bots kept out of the marks are no team), then the teams of its roster
/// with none of those ([`with_roster_teams`]).
pub(crate) fn team_results(report: &Report) -> Vec<TeamResult> {
    with_roster_teams(bot_results(report), report.roster.as_ref(), report)
}

pub(super) fn bot_results(report: &Report) -> Vec<TeamResult> {
    let specs: std::collections::BTreeMap<&str, &str> = report
        .plan
        .bots
        .iter()
        .map(|b| (b.name.as_str(), b.spec.as_str()))
        .collect();
    let mut results: Vec<TeamResult> = report
        .table
        .rows
        .iter()
        .filter_map(|s| {
            let mark = s.mark?;
            Some(TeamResult {
                team: s.bot.clone(),
                mark,
                points: s.points,
                games: s.games,
                rank: Some(s.rank),
                entry: specs
                    .get(s.bot.as_str())
                    .copied()
                    .unwrap_or_default()
                    .into(),
                left_out: None,
                merged: merged_into(&s.bot, report),
                missing: false,
                marked: true,
                failures: failures_of(&s.bot, &report.failed),
                illegal: s.illegal_moves,
                blocked: s.blocked_turns,
            })
        })
        .collect();
    results.extend(report.plan.left_out.iter().map(|l| TeamResult {
        team: l.name.clone(),
        mark: 0.0,
        points: 0.0,
        games: 0,
        rank: None,
        entry: l.entry.clone(),
        left_out: Some(l.reason.clone()),
        merged: merged_into(&l.name, report),
        missing: false,
        marked: true,
        failures: Vec::new(),
        illegal: 0,
        blocked: 0,
    }));
    results
}

use crate::class::same_team;

/// The entries merged into the bot `bot`'s (they held its files), as the plan keeps them.
fn merged_into(bot: &str, report: &Report) -> Vec<String> {
    report
        .plan
        .merged
        .iter()
        .filter(|m| m.name == bot)
        .map(|m| m.entry.clone())
        .collect()
}

/// `results` and, after them, a result for every team of `roster` with none: a bot of
/// `report` kept out of the marks, which has no mark; else mark 0, "no submission".
pub(super) fn with_roster_teams(
    mut results: Vec<TeamResult>,
    roster: Option<&Roster>,
    report: &Report,
) -> Vec<TeamResult> {
    for (team, _) in roster.map_or(&[][..], |r| &r.students) {
        if results.iter().any(|r| same_team(&r.team, team)) {
            continue;
        }
        let played = report.table.rows.iter().find(|s| same_team(&s.bot, team));
        let spec = |bot: &str| {
            report
                .plan
                .bots
                .iter()
                .find(|b| b.name == bot)
                .map(|b| b.spec.clone())
                .unwrap_or_default()
        };
        results.push(match played {
            Some(s) => TeamResult {
                team: s.bot.clone(),
                mark: 0.0,
                points: s.points,
                games: s.games,
                rank: Some(s.rank),
                entry: spec(&s.bot),
                left_out: None,
                merged: merged_into(&s.bot, report),
                missing: false,
                marked: false,
                failures: failures_of(&s.bot, &report.failed),
                illegal: s.illegal_moves,
                blocked: s.blocked_turns,
            },
            None => TeamResult {
                team: team.clone(),
                mark: 0.0,
                points: 0.0,
                games: 0,
                rank: None,
                entry: String::new(),
                left_out: None,
                merged: Vec::new(),
                missing: true,
                marked: true,
                failures: Vec::new(),
                illegal: 0,
                blocked: 0,
            },
        });
    }
    results
}

/// Whether `report` counts every game of its league's schedule: else its marks are not
/// final (a run stopped part-way, a shard's folder).
pub(crate) fn complete(report: &Report) -> bool {
    let bots = report.plan.bots.len() as u64;
    report.games as u64 >= bots * bots.saturating_sub(1) * u64::from(report.plan.pairs)
}

/// The roster kept in the tournament folder `dir`, if any.
pub(crate) fn kept_roster(dir: &Path) -> Result<Option<Roster>, Error> {
    let path = dir.join(ROSTER_FILE);
    match path.exists() {
        true => Roster::read(&path).map(Some),
        false => Ok(None),
    }
}

/// The games `bot` lost by its own failure (or by an illegal move, where that loses),
/// in schedule order.
pub(super) fn failures_of(bot: &str, games: &[GameSummary]) -> Vec<TeamFailure> {
    let mut out = Vec::new();
    for g in games {
        let Some(seat) = g.players.iter().position(|p| p.as_str() == bot) else {
            continue;
        };
        let own = g.faults().iter().any(|(s, _)| *s == seat)
            || (g.winner == Some(1 - seat) && g.reason.contains("illegal"));
        if !own {
            continue;
        }
        // Of a double failure, its own part.
        let (reason, words) = match both_failed_part(&g.detail, &g.roles[seat]) {
            Some((kind, line)) if g.both_lost() => (
                kind.to_string(),
                format!("{} (its opponent failed too)", failure_words(kind, line)),
            ),
            _ => (g.reason.to_string(), failure_words(&g.reason, &g.detail)),
        };
        let double = g.both_lost();
        out.push(TeamFailure {
            game: g.id,
            opponent: g.players[1 - seat].to_string(),
            role: g.roles[seat].to_string(),
            reason,
            words,
            double,
        });
    }
    out
}

/// `marks.csv`: with a roster, one row per student (their columns, then team, mark,
/// points, games, status, complete, late), then the teams of no student; without, one row
/// per team. `late` is what the platform's name of the entry says (`yes`/`no`, an attempt
/// date), empty where it says nothing; it comes last, after the columns older folders
/// have. `results` holds the roster's teams with no entry too ([`with_roster_teams`]);
/// `complete` says whether the league played every game: `no` marks are not final.
pub(crate) fn marks_csv(
    results: &[TeamResult],
    roster: Option<&Roster>,
    complete: bool,
) -> Vec<u8> {
    let mut header: Vec<String> = roster.map(|r| r.columns.clone()).unwrap_or_default();
    header.extend(
        [
            "team", "mark", "points", "games", "status", "complete", "late",
        ]
        .map(String::from),
    );
    let row_of = |cells: Vec<String>, r: &TeamResult, note: &str, late: Option<String>| {
        let mut row = cells;
        row.extend([
            r.team.clone(),
            match r.marked {
                true => fixed(r.mark, 2, false),
                false => String::new(),
            },
            num(r.points),
            r.games.to_string(),
            format!("{}{note}", r.status()),
            match complete {
                true => "yes",
                false => "no",
            }
            .to_string(),
            late.unwrap_or_default(),
        ]);
        row
    };
    let mut rows = Vec::new();
    match roster {
        None => rows.extend(results.iter().map(|r| row_of(Vec::new(), r, "", r.late()))),
        Some(roster) => {
            for (i, (team, cells)) in roster.students.iter().enumerate() {
                if let Some(r) = results.iter().find(|r| same_team(&r.team, team)) {
                    rows.push(row_of(cells.clone(), r, "", r.late_of_student(roster, i)));
                }
            }
            let blank = vec![String::new(); roster.columns.len()];
            for r in results {
                if !roster.students.iter().any(|(t, _)| same_team(t, &r.team)) {
                    rows.push(row_of(
                        blank.clone(),
                        r,
                        "; no student of the roster",
                        r.late(),
                    ));
                }
            }
        }
    }
    super::csv::csv_bytes(header, rows.into_iter())
}
