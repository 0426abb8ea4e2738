//! What a teacher hands back: `marks.csv` (a row per student of a roster, or per team) and
//! `feedback/TEAM.md` (a team's mark, games and failures), from the one report model, so
//! they say what the standings say. Every team is accounted for: one that played, one whose
//! entry was left out, and one of the roster that handed nothing in.

use super::model::Report;
use super::numbers::{fixed, num};
use crate::error::Error;
use crate::record::{GameSummary, both_failed_part, failure_words};
use std::io::Write;
use std::path::Path;

/// The roster's copy in a tournament folder: a rebuilt report finds it there.
pub const ROSTER_FILE: &str = "roster.csv";
/// The marks for the grade book, in a round robin's folder.
pub const MARKS_FILE: &str = "marks.csv";
/// One Markdown file per team.
pub const FEEDBACK_DIR: &str = "feedback";

/// A class list: which students make up which team.
#[derive(Clone, Debug, PartialEq)]
pub struct Roster {
    /// The student columns, as the file names them (the team column left out).
    pub columns: Vec<String>,
    /// Each student: their team and their cells of `columns`.
    pub students: Vec<(String, Vec<String>)>,
}

impl Roster {
    /// Reads a roster: a CSV file whose header names a `team` column (any case) and any
    /// other columns (id, name, email, ...), one row per student.
    pub fn read(path: &Path) -> Result<Roster, Error> {
        Roster::parse(path, &read_roster_file(path)?)
    }

    /// A roster from the bytes of the file `path`, which errors name.
    fn parse(path: &Path, bytes: &[u8]) -> Result<Roster, Error> {
        let bad = |line: u64, what: String| {
            Error::usage(format!("--roster {}:{line}: {what}", path.display()))
        };
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(bytes);
        let mut records = reader.records();
        let header = match records.next() {
            Some(Ok(header)) => header,
            Some(Err(e)) => return Err(bad(1, format!("not CSV: {e}"))),
            None => {
                return Err(bad(
                    1,
                    "the file is empty: expected a header such as team,id,name,email".into(),
                ));
            }
        };
        let header: Vec<String> = header
            .iter()
            .map(|c| c.trim().trim_start_matches('\u{feff}').to_string())
            .collect();
        let Some(team_at) = header.iter().position(|c| c.eq_ignore_ascii_case("team")) else {
            return Err(bad(
                1,
                format!(
                    "no `team` column among {}: expected a header such as team,id,name,email",
                    header.join(", ")
                ),
            ));
        };
        let columns = header
            .iter()
            .enumerate()
            .filter(|(i, _)| *i != team_at)
            .map(|(_, c)| c.clone())
            .collect();
        let mut students = Vec::new();
        for (i, record) in records.enumerate() {
            let line = i as u64 + 2;
            let record = record.map_err(|e| bad(line, format!("not CSV: {e}")))?;
            if record.iter().all(|c| c.trim().is_empty()) {
                continue;
            }
            if record.len() != header.len() {
                return Err(bad(
                    line,
                    format!(
                        "{} cells where the header has {}",
                        record.len(),
                        header.len()
                    ),
                ));
            }
            let team = record.get(team_at).unwrap_or_default().trim().to_string();
            if team.is_empty() {
                return Err(bad(
                    line,
                    "the team cell is empty: expected a team's name".into(),
                ));
            }
            let cells = record
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != team_at)
                .map(|(_, c)| c.trim().to_string())
                .collect();
            students.push((team, cells));
        }
        if students.is_empty() {
            return Err(bad(2, "no student: expected a row per student".into()));
        }
        Ok(Roster { columns, students })
    }
}

/// The bytes of a roster file, read without following a link or blocking, bounded.
fn read_roster_file(path: &Path) -> Result<Vec<u8>, Error> {
    crate::untrusted::file::read_regular_file(path, 16 << 20).map_err(|e| {
        Error::usage(format!(
            "--roster {}: cannot be read: {e}: expected a CSV file with a team column",
            path.display()
        ))
    })
}

/// A failure of one team's bot in one game.
#[derive(Clone, Debug, PartialEq)]
pub struct TeamFailure {
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

/// How one team fared, for its marks row, its feedback and the report's problems.
#[derive(Clone, Debug, PartialEq)]
pub struct TeamResult {
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
    /// A team of the roster with no entry in the folder.
    pub missing: bool,
    pub failures: Vec<TeamFailure>,
    /// Illegal replies the rules refused, and turns with no legal move at all.
    pub illegal: u32,
    pub blocked: u32,
}

impl TeamResult {
    /// One short line a teacher reads in the grade book.
    pub fn status(&self) -> String {
        if self.missing {
            return "no submission".to_string();
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
/// entry (reference bots kept out of the marks are no team).
pub fn team_results(report: &Report) -> Vec<TeamResult> {
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
                missing: false,
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
        missing: false,
        failures: Vec::new(),
        illegal: 0,
        blocked: 0,
    }));
    results
}

/// How a team's name is matched between the roster and the league: case and surrounding
/// spaces aside.
fn same_team(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

/// `results` and, after them, a result for every team of `roster` with none: mark 0, "no
/// submission".
pub fn with_roster_teams(mut results: Vec<TeamResult>, roster: Option<&Roster>) -> Vec<TeamResult> {
    for (team, _) in roster.map_or(&[][..], |r| &r.students) {
        if !results.iter().any(|r| same_team(&r.team, team)) {
            results.push(TeamResult {
                team: team.clone(),
                mark: 0.0,
                points: 0.0,
                games: 0,
                rank: None,
                entry: String::new(),
                left_out: None,
                missing: true,
                failures: Vec::new(),
                illegal: 0,
                blocked: 0,
            });
        }
    }
    results
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
/// points, games, status), then the teams of no student; without, one row per team.
/// `results` holds the roster's teams with no entry too ([`with_roster_teams`]).
pub fn marks_csv(results: &[TeamResult], roster: Option<&Roster>) -> Vec<u8> {
    let mut header: Vec<String> = roster.map(|r| r.columns.clone()).unwrap_or_default();
    header.extend(["team", "mark", "points", "games", "status"].map(String::from));
    let row_of = |cells: Vec<String>, r: &TeamResult, note: &str| {
        let mut row = cells;
        row.extend([
            r.team.clone(),
            fixed(r.mark, 2, false),
            num(r.points),
            r.games.to_string(),
            format!("{}{note}", r.status()),
        ]);
        row
    };
    let mut rows = Vec::new();
    match roster {
        None => rows.extend(results.iter().map(|r| row_of(Vec::new(), r, ""))),
        Some(roster) => {
            for (team, cells) in &roster.students {
                if let Some(r) = results.iter().find(|r| same_team(&r.team, team)) {
                    rows.push(row_of(cells.clone(), r, ""));
                }
            }
            let blank = vec![String::new(); roster.columns.len()];
            for r in results {
                if !roster.students.iter().any(|(t, _)| same_team(t, &r.team)) {
                    rows.push(row_of(blank.clone(), r, "; no student of the roster"));
                }
            }
        }
    }
    super::csv::csv_bytes(header, rows.into_iter())
}

/// `feedback/TEAM.md`: the team's mark and how it was computed, each of its games, its
/// failures with the first error line, and its illegal moves apart from blocked turns.
pub fn feedback_md(r: &TeamResult, report: &Report) -> Result<String, Error> {
    let (mut out, listed) = feedback_head(r, report);
    if listed {
        report.source.for_each(&mut |g| {
            if let Some(row) = feedback_row(&r.team, g) {
                out.push_str(&row);
            }
            Ok(())
        })?;
        out.push_str(&feedback_tail(r));
    }
    Ok(out)
}

/// The start of a team's feedback up to its table of games; whether the games and the
/// rest follow (a team that played), or the feedback is whole.
fn feedback_head(r: &TeamResult, report: &Report) -> (String, bool) {
    let mut out = format!("# {}\n\n", r.team);
    let best = report
        .table
        .rows
        .iter()
        .filter(|s| s.mark.is_some())
        .map(|s| s.points)
        .fold(0.0f64, f64::max);
    if r.missing {
        out.push_str(
            "**Mark: 0 of 20.** No submission was found for your team in the folder the \
             league was run on.\n",
        );
        return (out, false);
    }
    if let Some(reason) = &r.left_out {
        out.push_str(&format!(
            "**Mark: 0 of 20.** Your entry `{}` was left out of the league: {reason}.\n\n\
             No game was played. Fix the entry and ask for a rerun.\n",
            r.entry
        ));
        return (out, false);
    }
    let total = report.table.rows.len();
    out.push_str(&format!(
        "**Mark: {} of 20**, rank {} of {total}.\n\n\
         The mark is m = 20 × x / x_winner: your points x = {}, the best points of the \
         league x_winner = {} (a win scores {}, a tie {}, a loss 0). You played {} games.\n\n",
        fixed(r.mark, 2, false),
        r.rank.unwrap_or(0),
        num(r.points),
        num(best),
        num(report.plan.points_win),
        num(report.plan.points_tie),
        r.games,
    ));
    out.push_str(&format!("Your bot: `{}`.\n\n", r.entry));
    out.push_str("## Games\n\n| game | opponent | your role | result | ending | detail |\n");
    out.push_str("|---:|---|---|---|---|---|\n");
    (out, true)
}

/// The row of game `g` in `team`'s table of games, if the team played it.
fn feedback_row(team: &str, g: &GameSummary) -> Option<String> {
    let seat = g.players.iter().position(|p| p.as_str() == team)?;
    let result = match g.winner {
        Some(w) if w == seat => "won",
        Some(_) => "lost",
        None if g.both_lost() => "lost (both failed)",
        None => "tie",
    };
    Some(format!(
        "| {} | {} | {} | {result} | {} | {} |\n",
        g.id,
        cell(&g.players[1 - seat]),
        g.roles[seat],
        g.reason,
        cell(&g.detail)
    ))
}

/// A team's feedback after its table of games: its failures and illegal moves.
fn feedback_tail(r: &TeamResult) -> String {
    let mut out = String::new();
    out.push_str("\n## Failures\n\n");
    if r.failures.is_empty() {
        out.push_str("None: your bot never crashed, raised, timed out or broke a limit.\n");
    } else {
        for f in &r.failures {
            out.push_str(&format!(
                "- game {} (as {} against {}): {}\n",
                f.game,
                f.role,
                cell(&f.opponent),
                cell(&f.words)
            ));
        }
        out.push_str(
            "\nThe file and line in brackets are where your code raised; run the game again \
             with `arbiter play` to see the whole error.\n",
        );
    }
    out.push_str("\n## Illegal moves\n\n");
    out.push_str(&format!(
        "{} illegal moves (replies the rules refused) and {} blocked turns (turns on which \
         your side had no legal move at all, so any reply was illegal).",
        r.illegal, r.blocked
    ));
    if r.blocked > 0 {
        out.push_str(
            " The course counts both alike; a blocked turn is no bug of your bot but a \
             position it was driven into.",
        );
    }
    out.push('\n');
    out
}

/// Text from a bot or a file, safe in one Markdown table cell.
fn cell(text: &str) -> String {
    crate::untrusted::text::terminal(text)
        .replace('|', "\\|")
        .replace('\n', " ")
}

/// Checks the roster at `path` and keeps a copy in the tournament folder `dir` (made if
/// missing), where every later writing of the tables finds it.
pub fn keep_roster(dir: &Path, path: &Path) -> Result<Roster, Error> {
    let bytes = read_roster_file(path)?;
    let roster = Roster::parse(path, &bytes)?;
    let io = |source| Error::Io {
        path: dir.join(ROSTER_FILE),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    super::write_atomic(&dir.join(ROSTER_FILE), &bytes)?;
    Ok(roster)
}

/// Writes `marks.csv` and `feedback/*.md` of a round robin's report into `dir`, reading
/// the roster kept there if any.
pub fn write_marks(dir: &Path, report: &Report) -> Result<(), Error> {
    if report.plan.format != "round_robin" {
        return Ok(());
    }
    let roster_path = dir.join(ROSTER_FILE);
    let roster = match roster_path.exists() {
        true => Some(Roster::read(&roster_path)?),
        false => None,
    };
    let teams = with_roster_teams(team_results(report), roster.as_ref());
    super::write_atomic(&dir.join(MARKS_FILE), &marks_csv(&teams, roster.as_ref()))?;
    // Without the games at hand (while a run plays), the feedback waits for the run's end.
    if !report.source.listed() {
        return Ok(());
    }
    let folder = dir.join(FEEDBACK_DIR);
    std::fs::create_dir_all(&folder).map_err(|source| Error::Io {
        path: folder.clone(),
        source,
    })?;
    write_feedback(&folder, &teams, report)
}

/// Writes `feedback/TEAM.md` of every team into `folder`, with one reading of the games
/// for all of them: each file is written to a temporary sibling, then renamed over the old
/// one once whole.
fn write_feedback(folder: &Path, teams: &[TeamResult], report: &Report) -> Result<(), Error> {
    struct Open<'t> {
        team: &'t TeamResult,
        path: std::path::PathBuf,
        tmp: std::path::PathBuf,
        file: std::io::BufWriter<std::fs::File>,
    }
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io {
            path: path.clone(),
            source,
        }
    };
    let mut open: Vec<Option<Open>> = Vec::new();
    // Teams that played, by name; a name given twice (a roster's team that is also a
    // bot) writes one file.
    let mut by_name: std::collections::HashMap<&str, usize> = Default::default();
    let written: std::collections::HashSet<String> = teams
        .iter()
        .map(|r| format!("{}.md", file_safe(&r.team)))
        .collect();
    // The folder holds this league's teams only: a team's file left from another league
    // in the folder (one started afresh with --force-new) could be handed back.
    for entry in std::fs::read_dir(folder).map_err(io(folder))?.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".md") && !written.contains(&name) && entry.path().is_file() {
            std::fs::remove_file(entry.path()).map_err(io(&entry.path()))?;
        }
    }
    for r in teams {
        let path = folder.join(format!("{}.md", file_safe(&r.team)));
        let (head, listed) = feedback_head(r, report);
        if !listed {
            super::write_atomic(&path, head.as_bytes())?;
            continue;
        }
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // Two names made the same file name: the later team's file is the one kept, as
        // when each file was written in turn.
        if let Some(i) = open
            .iter()
            .position(|o| o.as_ref().is_some_and(|o| o.path == path))
        {
            open[i] = None;
            by_name.retain(|_, at| *at != i);
        }
        let tmp = path.with_file_name(format!(".{name}.tmp"));
        let mut file = std::io::BufWriter::new(std::fs::File::create(&tmp).map_err(io(&tmp))?);
        file.write_all(head.as_bytes()).map_err(io(&tmp))?;
        by_name.insert(r.team.as_str(), open.len());
        open.push(Some(Open {
            team: r,
            path,
            tmp,
            file,
        }));
    }
    if !open.is_empty() {
        report.source.for_each(&mut |g| {
            for (seat, player) in g.players.iter().enumerate() {
                // A bot playing itself has one row.
                if seat == 1 && g.players[0] == g.players[1] {
                    continue;
                }
                let Some(&i) = by_name.get(player.as_str()) else {
                    continue;
                };
                let Some(o) = open[i].as_mut() else {
                    continue;
                };
                if let Some(row) = feedback_row(&o.team.team, g) {
                    o.file.write_all(row.as_bytes()).map_err(io(&o.tmp))?;
                }
            }
            Ok(())
        })?;
    }
    for mut o in open.into_iter().flatten() {
        o.file
            .write_all(feedback_tail(o.team).as_bytes())
            .map_err(io(&o.tmp))?;
        o.file
            .into_inner()
            .map_err(|e| io(&o.tmp)(e.into_error()))?;
        std::fs::rename(&o.tmp, &o.path).map_err(io(&o.path))?;
    }
    Ok(())
}

/// A team's name as a file name: what could leave the folder or hide the file replaced.
fn file_safe(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| match c {
            '/' | '\\' | '\0' => '_',
            c if c.is_control() => '_',
            c => c,
        })
        .collect();
    match safe.trim_start_matches('.') {
        "" => "_".to_string(),
        rest => rest.to_string(),
    }
}
