//! `arbiter league` and `gauntlet`: tournaments from the command line, checked, played
//! and shown with the standings at the end; `arbiter run` plays through here too.

use super::options::{MatchOptions, OpeningOptions, cli_entrant};
use super::progress::Progress;
pub(crate) use super::progress::{marks_line, report_distinct, warn_oversubscribed};
use super::signals::graceful_stop;
use super::submissions::{SubmissionOptions, cli_entrants};
use crate::engines::Builtins;
use crate::error::Error;
use crate::games::registry::{GameSettings, with_game};
use crate::report;
use crate::stats::elo::Anchor;
use crate::tournament::journal::{LeftOut, Merged};
use crate::tournament::openings::OpeningChoice;
use crate::tournament::shard::Shard;
use crate::tournament::{self, Entrant, Format, Tournament};
use std::collections::HashSet;
use std::path::PathBuf;

// Options of the tournament commands.
#[derive(clap::Args, Debug)]
pub(crate) struct LeagueOptions {
    #[command(flatten)]
    pub matches: MatchOptions,
    /// The output folder (journal and tables); rerun with the same folder to resume.
    #[arg(long)]
    pub out: PathBuf,
    /// Role-swapped pairs of games per pairing.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..))]
    pub pairs: u32,
    /// No line per finished game: progress and the final table only.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// Start afresh although the folder holds a journal (kept as games.jsonl.old).
    #[arg(long)]
    pub force_new: bool,
    /// A league only: grow the league in the folder, playing only the games of bots added or
    /// changed since
    /// (their files' digest) against every bot, keeping every other game; a bot left out
    /// is retired (its games leave the standings, kept in history.jsonl, and come back
    /// with it).
    #[arg(long, conflicts_with = "force_new")]
    pub update: bool,
    /// A bot kept out of the course marks (a reference bot): it plays and is ranked, but
    /// has no mark and does not set x_winner. Repeat for several.
    #[arg(long = "non-scoring", value_name = "NAME")]
    pub non_scoring: Vec<String>,
    #[command(flatten)]
    pub openings: OpeningOptions,
    /// Play only shard K of N of the schedule (K from 1), for a cluster: each shard
    /// writes its own folder; `arbiter merge` makes them one.
    #[arg(long, value_name = "K/N", help_heading = "Cluster")]
    pub shard: Option<Shard>,
    /// Fix this bot's Elo at ELO and read the others relative to it (Ordo's -A), instead
    /// of centring the ratings on their mean: ratings of runs sharing the bot compare.
    #[arg(long, value_name = "NAME=ELO", value_parser = super::options::parse_anchor, allow_hyphen_values = true)]
    pub anchor: Option<Anchor>,
    #[command(flatten)]
    pub live: super::watch::WatchOptions,
}

#[derive(clap::Args, Debug)]
pub(crate) struct LeagueArgs {
    #[command(flatten)]
    pub options: LeagueOptions,
    #[command(flatten)]
    pub submissions: SubmissionOptions,
    /// A class list (CSV, comma, `;` or tab separated, with a `team` or `group` column and any
    /// student columns: id, name, email):
    /// marks.csv then has a row per student, and a team of no entry gets 0, "no
    /// submission". Kept in the output folder as roster.csv.
    #[arg(long, value_name = "FILE")]
    pub roster: Option<PathBuf>,
    /// Accept a roster that lists a part of the class: teams of the league with no student
    /// of it play and are marked per team.
    #[arg(long, requires = "roster")]
    pub partial_roster: bool,
    /// The bots: `NAME=SPEC`, a SPEC (`builtin:NAME`, a `.py` file, a command line), a
    /// folder of submissions (every bot in it), or one team's folder (its bot).
    #[arg(required = true, num_args = 1..)]
    pub bots: Vec<String>,
}

#[derive(clap::Args, Debug)]
pub(crate) struct GauntletArgs {
    #[command(flatten)]
    pub options: LeagueOptions,
    /// The bot under test: `NAME=SPEC` or a SPEC.
    #[arg(long)]
    pub candidate: String,
    /// The bots it plays against.
    #[arg(long, required = true, num_args = 1..)]
    pub baseline: Vec<String>,
}

/// Started afresh without `--roster`, a league still marks by the roster kept in its
/// folder: said, so that a class list of another league is not applied unawares.
pub(crate) fn note_kept_roster(out: &std::path::Path) {
    let kept = out.join(report::marks::ROSTER_FILE);
    if kept.is_file() {
        note!(
            "note: {} (kept by an earlier run) still gives the marks: give --roster to replace \
             it, or remove it for a league without one",
            kept.display()
        );
    }
}

pub(crate) fn league(args: LeagueArgs) -> Result<i32, Error> {
    keeping_folder(&args.options.out, || league_in(&args))
}

/// Runs `work`, a tournament command writing into the folder `out`, and undoes what it
/// wrote there if it played no game (refused, or stopped before its first game): a new
/// folder goes (a roster's copy, unpacked zips would make it look like a league), and in
/// a folder of another league the zips it unpacked go, so that the folder is as it was.
pub(super) fn keeping_folder(
    out: &std::path::Path,
    work: impl FnOnce() -> Result<i32, Error>,
) -> Result<i32, Error> {
    let fresh = std::fs::symlink_metadata(out).is_err();
    let journal = out.join(crate::tournament::journal::JOURNAL_FILE);
    let stamp = |path: &std::path::Path| {
        std::fs::metadata(path)
            .ok()
            .map(|m| (m.len(), m.modified().ok()))
    };
    let journal_before = stamp(&journal);
    let unpacked = out.join(super::submissions::UNPACKED_DIR);
    let unpacked_before = entries_of(&unpacked);
    let result = work();
    if fresh && !journal.exists() {
        let _ = std::fs::remove_dir_all(out);
    } else if stamp(&journal) == journal_before {
        for name in entries_of(&unpacked).difference(&unpacked_before) {
            let _ = std::fs::remove_dir_all(unpacked.join(name));
        }
        if unpacked_before.is_empty() && entries_of(&unpacked).is_empty() {
            let _ = std::fs::remove_dir(&unpacked);
        }
    }
    result
}

/// The names in the folder `dir` (none when it is missing).
fn entries_of(dir: &std::path::Path) -> std::collections::BTreeSet<std::ffi::OsString> {
    std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.file_name()).collect())
        .unwrap_or_default()
}

fn league_in(args: &LeagueArgs) -> Result<i32, Error> {
    // A bad roster is known before any game; a good one is kept in the folder once it
    // matches the league's teams.
    let mut roster = match &args.roster {
        Some(path) => Some(crate::class::read_roster(path)?),
        None => None,
    };
    // The class list (names, ids, e-mails) is no bot's to read, wherever it lies.
    if let Some(path) = &args.roster {
        crate::jail::entrants::results(path);
    }
    if roster.is_none() && args.options.force_new {
        note_kept_roster(&args.options.out);
    }
    let mut entries = cli_entrants(
        &args.bots,
        args.options.matches.game.game,
        args.options.matches.play.python.as_deref(),
        &args.options.out,
        (
            args.submissions.strict,
            roster.as_ref().zip(args.roster.as_deref()),
        ),
        args.options.matches.play.confine.confinement(),
    )?;
    // Without --roster, the league marks by the class list kept in its folder: it must
    // match the league's teams as a given one must.
    let out = &args.options.out;
    let kept_path = out.join(report::marks::ROSTER_FILE);
    let mut kept = match &args.roster {
        Some(_) => None,
        None => report::marks::kept_roster(out)?,
    };
    let given = args.roster.as_deref().zip(roster.as_mut());
    let matching = given
        .map(|(path, roster)| (path, roster, args.partial_roster))
        .or(kept
            .as_mut()
            .map(|kept| (kept_path.as_path(), kept, crate::class::kept_partial(out))));
    if let Some((path, roster, partial)) = matching {
        let non_scoring = &args.options.non_scoring;
        let teams = crate::class::Teams {
            marked: entries
                .entrants
                .iter()
                .map(|e| e.name.as_str())
                .filter(|n| !non_scoring.iter().any(|s| s == n))
                .chain(entries.left_out.iter().map(|l| l.name.as_str()))
                .collect(),
            unmarked: non_scoring.iter().map(String::as_str).collect(),
            left_out: entries.left_out.iter().map(|l| l.name.as_str()).collect(),
            handed_in: &entries.handed_in,
        };
        let matched = report::marks::match_teams(roster, path, &teams, partial).map_err(|e| {
            match args.roster {
                Some(_) => e,
                None => Error::usage(kept_mismatch(
                    out,
                    path,
                    &e.to_string(),
                    "give --roster FILE (with --partial-roster if it lists a part of the class)",
                )),
            }
        })?;
        for line in &matched.notes {
            note!("{line}");
        }
        entries
            .left_out
            .retain(|l| !matched.dropped.contains(&l.name));
        for (old, new) in matched.renamed {
            for l in entries.left_out.iter_mut().filter(|l| l.name == old) {
                l.name = new.clone();
            }
        }
    }
    let roster = args
        .roster
        .clone()
        .zip(roster)
        .map(|(path, roster)| RosterCopy {
            path,
            roster,
            partial: args.partial_roster,
        });
    start(
        &args.options,
        Format::RoundRobin,
        (entries.entrants, entries.left_out, entries.merged),
        (args.submissions.check, roster),
    )
}

/// A class list the league marks by, kept in its folder (as roster.csv) once the league
/// is going to play: a league refused, or stopped before its first game, leaves the
/// folder's class list as it was.
pub(super) struct RosterCopy {
    /// The file the teacher gave.
    pub path: PathBuf,
    /// The roster as matched to the league's teams.
    pub roster: crate::class::Roster,
    /// Given with `--partial-roster` (`partial_roster`): a part of the class.
    pub partial: bool,
}

/// What a run does besides playing its games, as its command asked.
pub(super) struct Start<'a> {
    /// No line per finished game.
    pub quiet: bool,
    /// Check every bot first (`--check`), leaving out those that fail.
    pub check: bool,
    pub anchor: Option<&'a Anchor>,
    /// The class list to keep once the games are about to start.
    pub roster: Option<RosterCopy>,
    /// How this command keeps a bot out of the marks, said of the built-ins that count
    /// for a round robin's marks.
    pub leave_out: LeaveOut,
}

/// The refusal of a kept class list that does not match the league, from what the
/// matching said (the teams on each side).
/// `replace`: how this command is given another class list.
pub(super) fn kept_mismatch(
    dir: &std::path::Path,
    path: &std::path::Path,
    said: &str,
    replace: &str,
) -> String {
    let details = said.split_once('\n').map_or("", |(_, rest)| rest);
    format!(
        "{}: the class list kept in {} does not match the league's teams (nothing was \
         written):\n{details}\nto mark by another class list: {replace}; to mark per \
         team, remove {}",
        path.display(),
        dir.display(),
        path.display()
    )
}

pub(crate) fn gauntlet(args: GauntletArgs) -> Result<i32, Error> {
    let python = args.options.matches.play.python.as_deref();
    let confine = args.options.matches.play.confine.confinement();
    let mut entrants = vec![cli_entrant(&args.candidate, python, confine)?];
    for b in &args.baseline {
        entrants.push(cli_entrant(b, python, confine)?);
    }
    super::options::name_entrants(&mut entrants);
    start(
        &args.options,
        Format::Gauntlet,
        (entrants, Vec::new(), Vec::new()),
        (false, None),
    )
}

fn start(
    options: &LeagueOptions,
    format: Format,
    (mut entrants, left_out, merged): (Vec<Entrant>, Vec<LeftOut>, Vec<Merged>),
    (check, roster): (bool, Option<RosterCopy>),
) -> Result<i32, Error> {
    let m = &options.matches;
    let settings = m.game.settings()?;
    // A class whose entries were all left out has nothing to check or play: say why.
    if entrants.len() < 2 && !left_out.is_empty() {
        return Err(Error::usage(format!(
            "a tournament needs at least two bots: {} found, and {} entr{} of the folder left \
             out (listed above, each with why); no game was played",
            entrants.len(),
            left_out.len(),
            if left_out.len() == 1 { "y" } else { "ies" }
        )));
    }
    let names: Vec<&str> = entrants.iter().map(|e| e.name.as_str()).collect();
    for name in &options.non_scoring {
        report::check_bot_name(name, &names)?;
    }
    if let Some(anchor) = &options.anchor {
        report::check_anchor(anchor, &names)?;
    }
    for e in &mut entrants {
        e.non_scoring = options.non_scoring.contains(&e.name);
    }
    let mut tournament = m.tournament(
        format,
        entrants,
        options.pairs,
        options.out.clone(),
        options.force_new,
    );
    tournament.shard = options.shard;
    tournament.update = options.update;
    tournament.left_out = left_out;
    tournament.merged = merged;
    let choice = options.openings.choice();
    let random_by_default = format != Format::RoundRobin;
    let _page = super::watch::Beside::start(&options.live, &options.out, false)?;
    dispatch(
        &settings,
        tournament,
        (&choice, random_by_default),
        Start {
            quiet: options.quiet,
            check,
            anchor: options.anchor.as_ref(),
            roster,
            leave_out: LeaveOut::Flag,
        },
        &|e| e,
    )
}

/// Checks the bots against the game and the run against its folder (a journal of another
/// plan is refused before anything is written or any bot is checked), with `check` runs
/// each bot once, then plays. `openings`: what was asked, and whether random plies are
/// the default.
pub(super) fn dispatch(
    settings: &GameSettings,
    mut tournament: Tournament,
    openings: (&OpeningChoice, bool),
    start: Start<'_>,
    locate: &dyn Fn(Error) -> Error,
) -> Result<i32, Error> {
    let Start {
        quiet,
        check,
        anchor,
        roster,
        leave_out,
    } = start;
    with_game!(settings, tournament.seed, |game| {
        check_entrants(&game, &tournament.entrants).map_err(locate)?;
        tournament.openings = openings.0.resolve(&game, openings.1)?;
        tournament::check_start(&game, settings.rules(), &tournament, None, check)?;
        if tournament.format == Format::RoundRobin {
            note_scoring_builtins(&tournament.entrants, leave_out);
        }
        if check {
            let mut failed = super::submissions::preflight(&game, &tournament)?;
            if tournament.update {
                let said;
                (failed, said) = tournament::kept::play_on(&mut tournament, failed);
                said.iter().for_each(|line| note!("{line}"));
            }
            leave_out_failed(&mut tournament, failed);
            if tournament.entrants.len() < 2 {
                note!(
                    "fewer than two bots passed the check: no game was played and no folder \
                     was written; fix the bots the table names and run the league again"
                );
                return Ok(crate::error::exit::FAILED);
            }
        }
        warn_oversubscribed(tournament.jobs);
        // The run's report is made from what its game threads replay, its blocks written
        // by them between games.
        tournament.replays = true;
        tournament.chores = Some(Default::default());
        tournament.live = Some(crate::tournament::live::Board::new(tournament.jobs));
        play(
            &game,
            settings.rules(),
            &tournament,
            (quiet, anchor),
            roster,
        )
    })
}

/// A built-in bot that plays for marks ranks with the students and may take the best
/// mark from the best of them: said once, before any game, with how to leave it out.
fn note_scoring_builtins(entrants: &[Entrant], leave_out: LeaveOut) {
    let scoring: Vec<&Entrant> = entrants
        .iter()
        .filter(|e| !e.non_scoring && matches!(e.spec, crate::bots::spec::BotSpec::Builtin(_)))
        .collect();
    // A league of built-ins alone marks no team: nothing to warn of.
    let teams = entrants
        .iter()
        .any(|e| !matches!(e.spec, crate::bots::spec::BotSpec::Builtin(_)));
    if scoring.is_empty() || !teams {
        return;
    }
    let named: Vec<String> = scoring
        .iter()
        .map(|e| match e.name == e.spec_text {
            true => e.name.clone(),
            false => format!("{} ({})", e.name, e.spec_text),
        })
        .collect();
    let one = scoring.len() == 1;
    let how = match leave_out {
        LeaveOut::Flag => scoring
            .iter()
            .map(|e| format!("--non-scoring {}", e.name))
            .collect::<Vec<_>>()
            .join(" "),
        LeaveOut::Toml => format!(
            "`scoring = false` on {} in tournaments.toml",
            match one {
                true => "its bot",
                false => "their bots",
            }
        ),
    };
    note!(
        "note: {} {} for the marks: ranked with the teams, {} may take the top mark \
         (x_winner) the teams are marked against; to keep {} out of the marks, give {how}",
        match one {
            true => format!("the built-in bot {}", named[0]),
            false => format!("the built-in bots {}", named.join(", ")),
        },
        match one {
            true => "counts",
            false => "count",
        },
        match one {
            true => "it",
            false => "one",
        },
        match one {
            true => "it",
            false => "them",
        },
    );
}

/// How a command keeps a bot out of the marks, as said of the built-ins that count.
#[derive(Clone, Copy, Debug)]
pub(super) enum LeaveOut {
    /// `--non-scoring NAME` (league).
    Flag,
    /// `scoring = false` in tournaments.toml (`arbiter run`).
    Toml,
}

/// Leaves out of the games the bots that failed the check, each with its failure: it is
/// marked 0 with that reason, and the others play.
fn leave_out_failed(tournament: &mut Tournament, failed: Vec<(String, String)>) {
    if failed.is_empty() {
        return;
    }
    for (name, reason) in failed {
        let Some(at) = tournament.entrants.iter().position(|e| e.name == name) else {
            continue;
        };
        let entrant = tournament.entrants.remove(at);
        tournament.left_out.push(LeftOut {
            name,
            entry: entrant.spec_text,
            reason,
        });
    }
    // With fewer than two bots left no game is played and no folder written: the check's
    // table above is where the reasons are.
    let kept = match tournament.entrants.len() {
        0 | 1 => "the reasons in the check's table above",
        _ => "mark 0, the reason in marks.csv and the feedback",
    };
    note!(
        "left out of the games ({kept}): {}",
        tournament
            .left_out
            .iter()
            .filter(|l| l
                .reason
                .starts_with(crate::tournament::journal::FAILED_THE_CHECK))
            .map(|l| l.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
}

pub(crate) fn check_entrants<G: Builtins>(game: &G, entrants: &[Entrant]) -> Result<(), Error> {
    let mut names = HashSet::new();
    for e in entrants {
        if !names.insert(e.name.as_str()) {
            return Err(Error::usage(format!(
                "two bots are named `{}`: give them distinct names (NAME=SPEC)",
                e.name
            )));
        }
        if let crate::bots::spec::BotSpec::Builtin(name) = &e.spec
            && game.builtin(name, 0).is_none()
        {
            return Err(Error::usage(format!(
                "bot {}: no built-in {} bot named `{name}`: expected one of {}",
                e.name,
                game.name(),
                game.builtin_names().join(", ")
            )));
        }
    }
    if entrants.len() < 2 {
        return Err(Error::usage("a tournament needs at least two bots"));
    }
    for e in entrants {
        if !matches!(e.spec, crate::bots::spec::BotSpec::Builtin(_)) {
            super::confine::check(&e.name, &e.confine)?;
        }
    }
    Ok(())
}

fn play<G: Builtins>(
    game: &G,
    rules: serde_json::Map<String, serde_json::Value>,
    t: &Tournament,
    (quiet, anchor): (bool, Option<&Anchor>),
    mut roster: Option<RosterCopy>,
) -> Result<i32, Error> {
    let stop = graceful_stop();
    // The run's live state: the one `dispatch` gave it, or one of its own.
    let board = t
        .live
        .clone()
        .unwrap_or_else(|| crate::tournament::live::Board::new(t.jobs));
    let mut progress = Progress::new(quiet, anchor, board);
    // However the run ends, its live state says so, with nothing in play.
    let _ended = t.live.as_deref().map(|board| board.ending(&t.out));
    let report_dir = t.out.join(report::REPORT_DIR);
    // The game browser, made from the games as the workers replay them when this run
    // plays the journal from its first game; a resumed journal's earlier games are
    // replayed from it by the report instead.
    let mut browser = None;
    let summary = tournament::run(game, rules, t, &stop, &mut |event| {
        // The journal is open under the run's plan: the league plays, and marks by its
        // class list from now on.
        if matches!(event, tournament::LeagueEvent::Started { .. })
            && let Some(copy) = roster.take()
        {
            report::marks::keep_roster(&t.out, &copy.path, &copy.roster, copy.partial)?;
        }
        match &event {
            tournament::LeagueEvent::Started {
                already_done: 0, ..
            } if t.replays => {
                browser = Some(report::replay::Browser::new(
                    &report_dir,
                    game.view_kinds(),
                    t.chores.clone(),
                )?);
            }
            tournament::LeagueEvent::GameFinished {
                replay: Some(replay),
                ..
            } => {
                if let Some(browser) = &mut browser {
                    browser.push(replay);
                }
            }
            _ => {}
        }
        progress.show(&t.out, event)
    })?;
    progress.finish();
    let interrupted = summary.interrupted;
    let (finished, total, played) = (summary.finished, summary.total, summary.played);
    let distinct = summary.distinct;
    // The tables and the report are made from what the run counted and listed of every
    // game of the journal, which is not read again.
    let (text, index) = report::write_counted(
        &t.out,
        report::Counted {
            plan: &summary.plan,
            tally: &summary.tally,
            listing: summary.listing,
        },
        None,
        anchor,
        &report_dir,
        browser,
    )?;
    say!("{text}");
    if let Some(text) = report::left_out_text(&t.left_out) {
        say!("{text}");
    }
    let part = match t.shard {
        Some(shard) => format!(" (shard {shard} of the schedule)"),
        None => String::new(),
    };
    say!(
        "{finished} of {total} games{part} in {}; this run played {played}",
        t.out.display(),
    );
    if let Some(line) = super::confine::summary_line(&t.entrants) {
        say!("{line}");
    }
    if let Some(shard) = t.shard {
        say!(
            "when every shard is done: arbiter merge --out DIR SHARD_DIR... (this is shard {shard})"
        );
    }
    report_distinct(&distinct);
    say!("{}", summary.tally.machine.line());
    if t.format == Format::RoundRobin {
        say!("{}", marks_line(&t.out, finished, total, t.shard.is_some()));
    }
    say!("{}", super::report::written(&index));
    if interrupted {
        note!("interrupted: rerun the same command to resume");
        return Ok(crate::error::exit::INTERRUPTED);
    }
    Ok(crate::error::exit::DONE)
}
