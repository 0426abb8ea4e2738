//! `feedback/TEAM.md`: what a team is handed back, its mark and how it was computed, each
//! of its games and its own failures. It names other teams by their names alone and shows
//! none of their errors, and no path but its own files' names.

use super::marks::{TeamFailure, TeamResult};
use super::model::Report;
use super::numbers::{fixed, num};
use super::own_text::{GAMES_LISTED, OwnTexts, file_names_only};
use crate::error::Error;
use crate::record::GameSummary;
use std::io::Write;
use std::path::Path;

/// Writes `marks.csv` and `feedback/*.md` of a round robin's report into `dir`, reading
/// the roster kept there if any.
pub(crate) fn write_marks(
    dir: &Path,
    report: &Report,
    versions: &[super::model::Version],
) -> Result<(), Error> {
    if report.plan.format != "round_robin" {
        return Ok(());
    }
    let read;
    let roster = match &report.roster {
        Some(roster) => Some(roster),
        None => {
            read = super::marks::kept_roster(dir)?;
            read.as_ref()
        }
    };
    let teams = super::marks::with_roster_teams(super::marks::bot_results(report), roster, report);
    let complete = super::marks::complete(report);
    super::write_atomic(
        &dir.join(super::marks::MARKS_FILE),
        &super::marks::marks_csv(&teams, roster, complete),
    )?;
    // Without the games at hand (while a run plays), the feedback waits for the run's end.
    if !report.source.listed() {
        return Ok(());
    }
    let folder = dir.join(super::marks::FEEDBACK_DIR);
    std::fs::create_dir_all(&folder).map_err(|source| Error::Io {
        path: folder.clone(),
        source,
    })?;
    let journal = dir.join(crate::tournament::journal::JOURNAL_FILE);
    write_feedback(&folder, &teams, report, (&journal, versions))
}

/// The start of a team's feedback up to its table of games; whether the games and the
/// rest follow (a team that played), or the feedback is whole.
fn feedback_head(r: &TeamResult, report: &Report) -> (String, bool) {
    let mut out = format!("# {}\n\n", cell(&r.team));
    out.push_str(&late_line(r));
    if !super::marks::complete(report) {
        out.push_str(&format!(
            "**Unfinished league: {} games of its schedule were played when this was \
             written. This mark is not final.**\n\n",
            report.games
        ));
    }
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
        out.push_str(&what_to_do(r));
        return (out, false);
    }
    if let Some(reason) = &r.left_out {
        out.push_str(&format!(
            "**Mark: 0 of 20.** Your entry {} was left out of the league: {}.\n\n\
             No game was played.\n",
            code(&entry_name(&r.entry)),
            cell(&file_names_only(reason))
        ));
        let public = public_name(r, report);
        if !public.is_empty() {
            out.push('\n');
            out.push_str(public.trim_end());
            out.push('\n');
        }
        out.push_str(&what_to_do(r));
        return (out, false);
    }
    let total = report.table.rows.len();
    if r.marked {
        out.push_str(&format!(
            "**Mark: {} of 20**, rank {} of {total}.\n\n\
             The mark is m = 20 × x / x_winner: your points x = {}, the best points of the \
             league x_winner = {} (a win scores {}, a tie {}, a loss 0). You played {}.\n\n",
            fixed(r.mark, 2, false),
            r.rank.unwrap_or(0),
            num(r.points),
            num(best),
            num(report.plan.points_win),
            num(report.plan.points_tie),
            super::numbers::count(r.games as f64, "game", "games"),
        ));
    } else {
        out.push_str(&format!(
            "**No mark**: your bot played (rank {} of {total}, {} in {}) but was kept out \
             of the marks (non-scoring).\n\n",
            r.rank.unwrap_or(0),
            super::numbers::count(r.points, "point", "points"),
            super::numbers::count(r.games as f64, "game", "games"),
        ));
    }
    out.push_str(&format!("Your bot: {}.\n\n", played_file(r, report)));
    out.push_str(&public_name(r, report));
    out.push_str("## Games\n\n| game | opponent | your role | result | ending | detail |\n");
    out.push_str("|---:|---|---|---|---|---|\n");
    (out, true)
}

/// The row of game `g` in `team`'s table of games, if the team played it. Its detail is
/// the team's own failure in a few words (its error is under Failures, once), or that its
/// opponent failed, never the opponent's error.
fn feedback_row(team: &str, g: &GameSummary) -> Option<String> {
    let seat = g.players.iter().position(|p| p.as_str() == team)?;
    let result = match g.winner {
        Some(w) if w == seat => "won",
        Some(_) => "lost",
        None if g.both_lost() => "lost (both failed)",
        None => "tie",
    };
    let faults = g.faults();
    let failed = |s: usize| faults.iter().any(|(f, _)| *f == s);
    let own = super::marks::failures_of(team, std::slice::from_ref(g));
    let detail = match (own.first(), failed(1 - seat)) {
        (Some(f), true) => format!("your bot {}, and so did its opponent", f.what()),
        (Some(f), false) => format!("your bot {} (see Failures)", f.what()),
        (None, true) => {
            let words = crate::record::failure_words(&g.reason, &g.detail);
            format!(
                "your opponent {}",
                words.split(": ").next().unwrap_or_default()
            )
        }
        // An illegal move names the role and the move, no error text.
        (None, false) => file_names_only(&g.detail),
    };
    Some(format!(
        "| {} | {} | {} | {result} | {} | {} |\n",
        g.id,
        cell(&g.players[1 - seat]),
        cell(&g.roles[seat]),
        cell(&g.reason),
        cell(&detail)
    ))
}

/// The games `team` lost by its own failure, each in its feedback's words (`game`, its
/// role, its opponent, what happened with the error's first line, file names only): what
/// a team's live page lists.
pub(crate) fn failure_lines(
    team: &str,
    games: &[GameSummary],
) -> Vec<(u64, String, String, String)> {
    super::marks::failures_of(team, games)
        .into_iter()
        .map(|f| (f.game, f.role, f.opponent, file_names_only(&f.words)))
        .collect()
}

/// A team's feedback after its table of games: its failures, each distinct error once
/// with the games it cost, what each kind of failure means, and its illegal moves.
fn feedback_tail(r: &TeamResult, report: &Report, texts: &OwnTexts) -> String {
    let mut out = String::new();
    out.push_str("\n## Failures\n\n");
    if r.failures.is_empty() {
        out.push_str("None: your bot never crashed, raised, timed out or broke a limit.\n");
    } else {
        let mut folded: Vec<(String, Vec<&TeamFailure>)> = Vec::new();
        for f in &r.failures {
            let words = file_names_only(&f.words);
            match folded.iter_mut().find(|(w, _)| *w == words) {
                Some((_, games)) => games.push(f),
                None => folded.push((words, vec![f])),
            }
        }
        for (words, games) in &folded {
            let listed: Vec<String> = games
                .iter()
                .take(GAMES_LISTED)
                .map(|f| {
                    let (role, opponent) = (cell(&f.role), cell(&f.opponent));
                    format!("{} (as {role} against {opponent})", f.game)
                })
                .collect();
            let more = match games.len().saturating_sub(GAMES_LISTED) {
                0 => String::new(),
                n => format!(" and {n} more"),
            };
            let count = match games.len() {
                1 => "1 game".to_string(),
                n => format!("{n} games"),
            };
            out.push_str(&format!(
                "- {}. In {count}: {}{more}\n",
                cell(words),
                listed.join(", ")
            ));
        }
        out.push('\n');
        for line in explanations(r, report, texts.shows_errors()) {
            out.push_str(&line);
            out.push('\n');
        }
        out.push_str(&texts.section());
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
    out.push_str(&what_to_do(r));
    out
}

/// The feedback's last section: what the team can do about its mark, and nothing it
/// cannot (no rerun is promised, no command of the teacher's is named).
fn what_to_do(r: &TeamResult) -> String {
    let test = "Before you hand it in, you can test it on your own machine if you like: \
         play it with the course's own referee against the course's sample bots, or, if you \
         have arbiter installed, run `arbiter check` on your file.";
    let first = if r.missing {
        "Hand in your bot the way your course takes submissions."
    } else if r.left_out.is_some() {
        "Fix your entry and hand it in again the way your course takes submissions."
    } else if !r.failures.is_empty() || r.illegal > 0 {
        "Fix what failed and hand your bot in again the way your course takes submissions."
    } else {
        "Your bot lost no game by a failure of its own: a better mark is a matter of better \
         play. Any new version is handed in the way your course takes submissions."
    };
    format!("\n## What you can do\n\n{first} {test}\n")
}

/// Where the whole of an error is, when the feedback shows it.
const WHOLE: &str = " The whole error is under *Your bot's errors*.";

/// What each kind of failure among `r`'s means, once per kind, in the words of the failure
/// vocabulary; `whole` when the feedback shows the errors' whole texts.
fn explanations(r: &TeamResult, report: &Report, whole: bool) -> Vec<String> {
    let limit = |ms: Option<u64>| ms.map(|ms| format!(" of {ms} ms")).unwrap_or_default();
    let mut lines: Vec<String> = Vec::new();
    for f in &r.failures {
        let line = match f.what() {
            "could not start" => format!(
                "*Could not start*: your bot could not be loaded or started, so it lost each \
                 game without a move; the error is what loading it reported, with its file \
                 and line in brackets.{}",
                if whole { WHOLE } else { "" }
            ),
            "raised an exception" => format!(
                "*Raised an exception*: the file and line in brackets are where your code \
                 raised.{}",
                if whole { WHOLE } else { "" }
            ),
            "ran out of time" => format!(
                "*Ran out of time*: your bot did not answer within the move limit{} (or the \
                 start-up limit{}), and a move too late loses the game.",
                limit(report.plan.limit_ms),
                limit(report.plan.init_limit_ms)
            ),
            "crashed" => "*Crashed*: your bot's process ended without answering.".to_string(),
            "broke the protocol" | "left no valid answer" => "*Broke the protocol* or *left \
                 no valid answer*: your bot's answer was not a move in the form the game \
                 expects (printing to standard output is a common cause)."
                .to_string(),
            "went over the memory limit"
            | "used up its CPU time"
            | "wrote a file over the size limit" => "*A limit*: your bot went over a limit \
                 every bot of the league had (memory, CPU time or file size)."
                .to_string(),
            "played an illegal move" => {
                "*Played an illegal move*: a reply the rules refuse loses the game.".to_string()
            }
            _ => continue,
        };
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    lines
}

/// What the platform says of when the team's entry was handed in, as a line of its
/// feedback: that it was marked late (Canvas), or its attempt's date (Blackboard); nothing
/// for an entry on time or where the platform says nothing.
fn late_line(r: &TeamResult) -> String {
    match r.late().as_deref() {
        None | Some("no") => String::new(),
        Some("yes") => "Your submission was handed in late (the learning platform marks it \
                        late).\n\n"
            .to_string(),
        Some(date) => format!(
            "Your submission was handed in on {} (the learning platform's date of the \
             attempt played).\n\n",
            cell(date)
        ),
    }
}

/// A bot's entry (`SUBMISSIONS/Team01.zip`, a spec) by its last part alone.
/// For a team named after its student: the name its bot goes by in a report for the class
/// ([`super::public`]), which never names a student.
fn public_name(r: &TeamResult, report: &Report) -> String {
    match super::public::pseudonyms(report.plan).get(&r.team) {
        Some(public) => format!(
            "In a report of the league for the whole class, your bot is listed as {}, not by \
             your name.\n\n",
            code(public)
        ),
        None => String::new(),
    }
}

/// The file that played for `r`, as its team knows it: the file of its folder
/// (`Team05.py`, not the platform's `Full Name_ID_assignsubmission_file_` folder it came
/// in), the file in its zip (`Team05/Team05.py` in `Team05.zip`), else the entry handed in.
fn played_file(r: &TeamResult, report: &Report) -> String {
    let entry = entry_name(&r.entry);
    let file = report
        .plan
        .bots
        .iter()
        .find(|b| b.name == r.team)
        .and_then(|b| b.file.as_deref());
    match file {
        Some(file) if entry.to_lowercase().ends_with(".zip") => {
            format!("{} in {}", code(file), code(&entry))
        }
        Some(file) => code(file),
        None => code(&entry),
    }
}

fn entry_name(entry: &str) -> String {
    match entry.contains('/') {
        true => entry
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or_default()
            .to_string(),
        false => entry.to_string(),
    }
}

/// Text from a bot or a file, safe in Markdown and in one table cell: no HTML, link, image
/// or autolink, no control character ([`crate::untrusted::text::markdown`]).
fn cell(text: &str) -> String {
    crate::untrusted::text::markdown(text)
}

/// A name (a bot's entry, a spec) as code when it is plain, else as [`cell`] text: a code
/// span shows its content raw, so it holds only letters, digits and `._-+:/=,#%@ `, never a
/// backtick that would close it nor text a reader could mistake for markup.
fn code(text: &str) -> String {
    let plain = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || "._-+:/=,#%@ ".contains(c))
        && !text.starts_with(' ')
        && !text.ends_with(' ');
    match plain {
        true => format!("`{text}`"),
        false => cell(text),
    }
}

/// Writes `feedback/TEAM.md` of every team into `folder`, with one reading of the games
/// for all of them, and of the records of `journal` (when there is one) for the games a
/// team lost by its own failure: each file is written to a temporary sibling, then
/// renamed over the old one once whole.
pub(super) fn write_feedback(
    folder: &Path,
    teams: &[TeamResult],
    report: &Report,
    (journal, versions): (&Path, &[super::model::Version]),
) -> Result<(), Error> {
    struct Open<'t> {
        team: &'t TeamResult,
        path: std::path::PathBuf,
        tmp: std::path::PathBuf,
        file: std::io::BufWriter<std::fs::File>,
        texts: OwnTexts,
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
            texts: OwnTexts::default(),
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
    // The games each team lost by its own failure, and its role in each: only those
    // records are read for what the team's bot reported.
    let mut failed: std::collections::HashMap<u64, Vec<(usize, &str)>> = Default::default();
    for (i, o) in open.iter().enumerate() {
        for f in o.iter().flat_map(|o| &o.team.failures) {
            failed.entry(f.game).or_default().push((i, f.role.as_str()));
        }
    }
    if !failed.is_empty() && journal.is_file() {
        crate::tournament::journal::for_each_record(journal, |id, record| {
            for &(i, role) in failed.get(&id).into_iter().flatten() {
                if let Some(o) = open[i].as_mut() {
                    o.texts.add(id, &record, role);
                }
            }
            Ok(())
        })?;
    }
    // A league that grew: each team's comparison with its previous version.
    let dir = folder.parent().unwrap_or(Path::new("."));
    let history = match versions.is_empty() {
        true => Vec::new(),
        false => crate::tournament::journal::history_of(dir)?,
    };
    for mut o in open.into_iter().flatten() {
        if let Some(text) = super::versions::feedback(versions, &history, &o.team.team, report) {
            o.file.write_all(text.as_bytes()).map_err(io(&o.tmp))?;
        }
        o.file
            .write_all(feedback_tail(o.team, report, &o.texts).as_bytes())
            .map_err(io(&o.tmp))?;
        o.file
            .into_inner()
            .map_err(|e| io(&o.tmp)(e.into_error()))?;
        std::fs::rename(&o.tmp, &o.path).map_err(io(&o.path))?;
    }
    Ok(())
}

/// A team's name as a file name ([`crate::untrusted::text::file_name`]).
pub(super) fn file_safe(name: &str) -> String {
    crate::untrusted::text::file_name(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plain_entry_is_code_and_any_other_is_escaped_text() {
        assert_eq!(code("builtin:greedy"), "`builtin:greedy`");
        assert_eq!(code("Team01.py"), "`Team01.py`");
        let hostile = code("Team<img src=x onerror=alert(1)>`.py");
        assert_eq!(hostile, "Team&lt;img src=x onerror=alert(1)&gt;\\`.py");
        assert!(!cell("# x\n[a](b)").contains("]("));
    }
}
