//! Everything a person reads or a spreadsheet loads: CSV tables, terminal tables and the
//! report folder (report.md, report.tex, plots/*.svg, index.html).
//!
//! Every file is written to a temporary sibling and renamed over the old one, so a reader
//! (or a crash) never sees half a table. Every table and plot renders one
//! `model::Report`, computed from the journal alone.

pub(crate) mod autograde;
pub mod check;
pub(crate) mod csv;
mod feedback;
pub(crate) mod figures;
pub mod grades;
pub(crate) mod html;
pub(crate) mod latex;
pub(crate) mod markdown;
pub mod marks;
pub(crate) mod model;
pub(crate) mod numbers;
mod own_text;
pub(crate) mod plots;
pub(crate) mod public;
pub mod replay;
mod replays_known;
mod section;
pub mod sheet;
pub(crate) mod sprt_section;
pub(crate) mod tables;
mod teams;
pub(crate) mod terminal;
pub(crate) mod versions;

pub(crate) use csv::write_csv_tables;
pub use csv::write_sprt_csv;
pub(crate) use feedback::failure_lines;
pub use terminal::{game_line, left_out_text};

use crate::error::Error;
use crate::stats::elo::Anchor;
use crate::stats::league::LeagueTable;
use crate::tournament::journal::{self, Loaded};
use crate::tournament::tally::Tally;
use crate::untrusted::file::{write_atomic, write_atomic_with};
use model::{GameSource, Report};
use std::path::{Path, PathBuf};

/// The report's folder inside a tournament folder, unless told otherwise.
pub const REPORT_DIR: &str = "report";

/// The folder of the report for the class ([`write_public_report`]) inside a tournament
/// folder, unless told otherwise: beside the teacher's, which it leaves as it is.
pub const PUBLIC_REPORT_DIR: &str = "report-public";

/// What [`rebuild_tables`] leaves: the journal as loaded, what the terminal shows of the
/// results (the standings, and a gauntlet's head-to-head lines), and the report's page.
pub struct Rebuilt {
    /// The journal as read (its `games` empty where they were counted as read, not held).
    pub loaded: journal::Loaded,
    /// The results as the terminal shows them.
    pub text: String,
    /// The path of the report's index.html.
    pub index: PathBuf,
    /// The games the tables count.
    pub counted: usize,
}

/// Rebuilds every table of `dir` and its report (into `report_dir`) from its journal
/// alone, which it only reads, with one computation of the results; the marks leave out
/// `non_scoring` when given, else the journal's non-scoring bots; Elo is relative to
/// `anchor` when given, else mean 0. The report replays every game, as
/// [`write_report`]'s does.
pub fn rebuild_tables(
    dir: &Path,
    non_scoring: Option<&[String]>,
    anchor: Option<&Anchor>,
    report_dir: &Path,
) -> Result<Rebuilt, Error> {
    let journal_path = dir.join(journal::JOURNAL_FILE);
    // An SPRT's tables count the pairs its test counted, which a recount over its games
    // decides: those are held (at most twice its --max-pairs). Any other journal is
    // counted as it is read, and read again for the tables that list every game.
    let sprt = journal::read_plan(&journal_path).is_none_or(|plan| plan.sprt.is_some());
    if !sprt {
        let mut tally = Tally::default();
        let (loaded, listing) = journal::load_counting(&journal_path, &mut |g| tally.add(g))?;
        let (text, index) = write_counted(
            dir,
            Counted {
                plan: &loaded.plan,
                tally: &tally,
                listing,
            },
            non_scoring,
            anchor,
            report_dir,
            None,
        )?;
        return Ok(Rebuilt {
            loaded,
            text,
            index,
            counted: tally.games,
        });
    }
    let loaded = journal::load(&journal_path)?;
    let listed = left_out_of_marks(&loaded.plan, non_scoring, anchor)?;
    let model = model_of(&loaded, &listed, anchor, &journal_path)?;
    write_all_tables(dir, &model)?;
    let index = write_report_files(&model, &journal_path, report_dir)?;
    let text = terminal::results_text(&model);
    let counted = model.games;
    drop(model);
    Ok(Rebuilt {
        loaded,
        text,
        index,
        counted,
    })
}

/// The results of every game of a tournament folder's journal, counted: by a run as it
/// played them, or by a reading of the journal.
pub struct Counted<'a> {
    /// The journal's plan: the tournament's entrants and settings.
    pub plan: &'a journal::Plan,
    /// Every game's result, added up for the tables.
    pub tally: &'a Tally,
    /// The games listed, in schedule order.
    pub listing: journal::Listing,
}

/// Writes every table of the tournament folder `dir` and its report (into `report_dir`)
/// from the `counted` results of its journal, as [`rebuild_tables`] does, and returns the
/// results as the terminal shows them and the report's page. The report's game browser
/// is `browser` when it was handed every game of the journal in order (a run that
/// replayed the games it played from the journal's first), else made by replaying the
/// journal.
pub fn write_counted(
    dir: &Path,
    counted: Counted<'_>,
    non_scoring: Option<&[String]>,
    anchor: Option<&Anchor>,
    report_dir: &Path,
    browser: Option<replay::Browser>,
) -> Result<(String, PathBuf), Error> {
    let Counted {
        plan,
        tally,
        listing,
    } = counted;
    let listed = left_out_of_marks(plan, non_scoring, anchor)?;
    let mut model = Report::of_tally(
        plan,
        tally,
        GameSource::Journal(listing),
        &listed,
        (None, 0),
        anchor,
    );
    model.roster = marks::kept_roster(dir)?;
    model.versions = versions::of(dir, &model)?;
    // The tables (a file per team among them) are written beside the report, on a thread
    // of their own: they are apart, and the report's figures alone keep both cores busy
    // for only part of the time.
    let (tables, index) = beside(
        || write_all_tables(dir, &model),
        || {
            let games = || match browser {
                // Handed each game the run appended to a journal it started: the
                // journal's games when they are as many.
                Some(browser) if browser.games() == tally.games => browser.finish(plan),
                _ => {
                    let journal = dir.join(journal::JOURNAL_FILE);
                    Ok(replays_known::section_known(plan, &journal, report_dir, None)?.0)
                }
            };
            write_files(&model, report_dir, games, &latex::label_prefix(dir))
        },
    );
    tables?;
    Ok((terminal::results_text(&model), index?))
}

/// The bots the marks leave out under `plan`: `non_scoring` when given (each must be one
/// of the plan's bots), else the plan's non-scoring bots; `anchor`, when given, must name
/// one of the plan's bots too.
fn left_out_of_marks(
    plan: &journal::Plan,
    non_scoring: Option<&[String]>,
    anchor: Option<&Anchor>,
) -> Result<Vec<String>, Error> {
    let names: Vec<&str> = plan.bots.iter().map(|b| b.name.as_str()).collect();
    if let Some(anchor) = anchor {
        check_anchor(anchor, &names)?;
    }
    match non_scoring {
        Some(list) => {
            for name in list {
                check_bot_name(name, &names)?;
            }
            Ok(list.to_vec())
        }
        None => Ok(plan.non_scoring()),
    }
}

/// Writes every table of `report` into the tournament folder `dir`: the CSV tables, and
/// for a round robin marks.csv and the feedback per team.
pub(crate) fn write_all_tables(dir: &Path, report: &Report) -> Result<(), Error> {
    write_csv_tables(dir, report)?;
    // Read once for versions.csv and the feedback: a report made where the folder was
    // known has them already.
    let read;
    let versions = match report.versions.is_empty() {
        true => {
            read = versions::of(dir, report)?;
            &read
        }
        false => &report.versions,
    };
    versions::write(dir, versions)?;
    feedback::write_marks(dir, report, versions)
}

/// Writes every table of `dir` (`write_all_tables`) from `games` under `plan`, with the marks
/// leaving out the plan's non-scoring bots; of an SPRT (`sprt`: the test after each counted pair,
/// so that the tables count the pairs it counted) or with Elo relative to `anchor`.
pub fn write_tables_with(
    dir: &Path,
    plan: &journal::Plan,
    games: &[crate::record::GameSummary],
    sprt: Option<&[crate::tournament::sprt::SprtStatus]>,
    anchor: Option<&Anchor>,
) -> Result<LeagueTable, Error> {
    let report = Report::new(
        plan,
        games,
        &plan.non_scoring(),
        sprt.map(<[crate::tournament::sprt::SprtStatus]>::to_vec),
        anchor,
    );
    write_all_tables(dir, &report)?;
    Ok(report.table)
}

/// The tables of `dir` that a run keeps up to date while it plays, from its results so far
/// (`tally`) under `plan`: every table but those listing each game (games.csv and the
/// teams' feedback), which the run's end writes from the journal. The marks leave out
/// the plan's non-scoring bots; Elo is relative to `anchor` when given.
pub fn write_counted_tables(
    dir: &Path,
    plan: &journal::Plan,
    tally: &Tally,
    anchor: Option<&Anchor>,
) -> Result<LeagueTable, Error> {
    let report = Report::of_tally(
        plan,
        tally,
        GameSource::Unlisted,
        &plan.non_scoring(),
        (None, 0),
        anchor,
    );
    write_all_tables(dir, &report)?;
    Ok(report.table)
}

/// The anchor (`--anchor NAME=ELO`) must name one of the tournament's bots.
pub fn check_anchor(anchor: &Anchor, names: &[&str]) -> Result<(), Error> {
    if names.contains(&anchor.bot.as_str()) {
        Ok(())
    } else {
        Err(Error::usage(format!(
            "--anchor {}={}: no bot named `{}`; the bots are {}",
            anchor.bot,
            numbers::num(anchor.elo),
            anchor.bot,
            names.join(", ")
        )))
    }
}
/// A bot name the user gave (`--non-scoring NAME`) must be one of the tournament's.
pub fn check_bot_name(name: &str, names: &[&str]) -> Result<(), Error> {
    if names.contains(&name) {
        Ok(())
    } else {
        Err(Error::usage(format!(
            "--non-scoring {name}: no bot of that name; the bots are {}",
            names.join(", ")
        )))
    }
}

/// Writes the report of the tournament folder `dir` (read from its journal alone, once)
/// into `out`: report.md, report.tex, plots/*.svg, index.html and the replays of every
/// game beside it (`replay::REPLAYS_DIR`). Returns index.html's path.
pub fn write_report(dir: &Path, out: &Path) -> Result<(PathBuf, Option<journal::Repair>), Error> {
    write_report_for(dir, out, false, None)
}

/// The report of the tournament folder `dir` into `out`, for the class to read, to publish
/// or hand out when `public`: the same files, with the teams by name, the standings,
/// marks, games and head to head, and no student's name or id (which a download's entries
/// hold), no path of the teacher's (the bots' specs) and no team's error text (the
/// Problems section, the sections per team, the reasons of entries left out, the games'
/// details); only `out` is written. The LaTeX tables' and figures' labels are prefixed by
/// `labels` (default: [`latex::label_prefix`] of `dir`), which
/// [`latex::check_label_prefix`] takes.
pub fn write_report_for(
    dir: &Path,
    out: &Path,
    public: bool,
    labels: Option<&str>,
) -> Result<(PathBuf, Option<journal::Repair>), Error> {
    let journal = journal_of(dir)?;
    if let Some(labels) = labels {
        latex::check_label_prefix(labels).map_err(Error::usage)?;
    }
    // One reading of the journal gives the tables' games and the replays.
    let (loaded, games) = replays_known::load_and_section(&journal, out, public)?;
    let mut report = model_of(&loaded, &loaded.plan.non_scoring(), None, &journal)?;
    report.roster = marks::kept_roster(dir)?;
    report.public = public;
    if !public {
        report.versions = versions::of(dir, &report)?;
    }
    let labels = labels.map_or_else(|| latex::label_prefix(dir), str::to_string);
    Ok((
        write_files(&report, out, || Ok(games), &labels)?,
        loaded.repair,
    ))
}

/// The journal of the tournament folder `dir`, or an error that says what `dir` is not.
pub fn journal_of(dir: &Path) -> Result<PathBuf, Error> {
    if !dir.is_dir() {
        return Err(Error::usage(format!(
            "{}: no such folder{}: expected a tournament's output folder (the --out of \
             league, gauntlet, run or sprt)",
            dir.display(),
            crate::error::tilde_hint(dir)
        )));
    }
    let journal = dir.join(journal::JOURNAL_FILE);
    if !journal.is_file() {
        return Err(Error::usage(format!(
            "{} holds no {}: expected a tournament's output folder (the --out of league, \
             gauntlet, run or sprt), whose journal every table is made from",
            dir.display(),
            journal::JOURNAL_FILE
        )));
    }
    Ok(journal)
}

/// The report's model of a journal already loaded from `journal` (its SPRT recounted), the
/// marks leaving out `non_scoring`, Elo relative to `anchor` when given: what the CSV
/// tables and the report files render.
pub(crate) fn model_of<'a>(
    loaded: &'a Loaded,
    non_scoring: &[String],
    anchor: Option<&Anchor>,
    journal: &Path,
) -> Result<Report<'a>, Error> {
    let history = crate::tournament::sprt::recount(&loaded.plan, &loaded.games).map_err(|e| {
        Error::Input {
            path: journal.to_path_buf(),
            line: 1,
            message: e.to_string(),
        }
    })?;
    Ok(Report::new(
        &loaded.plan,
        &loaded.games,
        non_scoring,
        history,
        anchor,
    ))
}

/// Writes report.md, report.tex, plots/*.svg and index.html of `report` (the model of
/// `journal`) into `out`, with the replays of every game beside the page (made as
/// [`write_report`] makes them: [`replays_known::section`]). Returns index.html's path.
pub(crate) fn write_report_files(
    report: &Report,
    journal: &Path,
    out: &Path,
) -> Result<PathBuf, Error> {
    let labels = latex::label_prefix(journal.parent().unwrap_or(Path::new(".")));
    let games = || replays_known::section(report.plan, journal, out);
    write_files(report, out, games, &labels)
}

/// [`write_report_files`] with the game browser made by `games`, beside the figures
/// (the browser's blocks of replays may still be being written when it returns).
fn write_files(
    report: &Report,
    out: &Path,
    games: impl FnOnce() -> Result<replay::GamesHtml, Error> + Send,
    labels: &str,
) -> Result<PathBuf, Error> {
    let plots_dir = out.join("plots");
    std::fs::create_dir_all(&plots_dir).map_err(|source| Error::Io {
        path: plots_dir.clone(),
        source,
    })?;
    let plots = plots::all(report)?;
    // Each plot is drawn on a thread of its own (drawing them is most of a report's
    // time), while the game browser is made, the text files written and the page
    // rendered.
    let (games, (drawn, page)) = beside(games, || {
        rayon::join(
            || {
                use rayon::prelude::*;
                plots
                    .par_iter()
                    .map(|plot| figures::pdf_and_png(plot.file, &plot.svg))
                    .collect::<Vec<_>>()
            },
            || {
                // Made once for every text that lists them.
                let sections = tables::sections(report);
                write_texts(report, &sections, out, labels)?;
                html::render(report, &sections, &plots)
            },
        )
    });
    let (games, (before, after)) = (games?, page?);
    for (plot, drawn) in plots.iter().zip(drawn) {
        let (pdf, png) = drawn?;
        write_atomic(&plots_dir.join(plot.file), plot.svg.as_bytes())?;
        let stem = plot.file.trim_end_matches(".svg");
        write_atomic(&plots_dir.join(format!("{stem}.pdf")), &pdf)?;
        write_atomic(&plots_dir.join(format!("{stem}.png")), &png)?;
    }
    // The replays' blocks were written meanwhile, on other threads.
    games.wait()?;
    let index = out.join("index.html");
    write_atomic_with(&index, |out| {
        out.write_all(before.as_bytes())?;
        games.write(out)?;
        out.write_all(after.as_bytes())
    })?;
    Ok(index)
}

/// `apart` run on a thread of its own while this one runs `here`: both results. Not on
/// rayon's threads: the game browser's reading waits for the replays it hands rayon, which
/// a worker of a pool of one thread waiting itself would never run.
fn beside<A: Send, B>(apart: impl FnOnce() -> A + Send, here: impl FnOnce() -> B) -> (A, B) {
    std::thread::scope(|scope| {
        let apart = scope.spawn(apart);
        let here = here();
        match apart.join() {
            Ok(apart) => (apart, here),
            Err(panic) => std::panic::resume_unwind(panic),
        }
    })
}

/// Writes report.md, report.tex and its tables' files of `report` (its `sections`) into
/// `out`, the tables labelled `labels`.
fn write_texts(
    report: &Report,
    sections: &[tables::Section],
    out: &Path,
    labels: &str,
) -> Result<(), Error> {
    write_atomic(
        &out.join("report.md"),
        markdown::render(report, sections).as_bytes(),
    )?;
    write_atomic(
        &out.join("report.tex"),
        latex::render(report, sections, labels).as_bytes(),
    )?;
    let tables_dir = out.join(latex::TABLES_DIR);
    std::fs::create_dir_all(&tables_dir).map_err(|source| Error::Io {
        path: tables_dir.clone(),
        source,
    })?;
    let mut written = std::collections::HashSet::new();
    for (file, text) in latex::table_files(sections, labels) {
        write_atomic(&tables_dir.join(&file), text.as_bytes())?;
        written.insert(file);
    }
    if report.public {
        remove_other_tables(&tables_dir, &written)?;
    }
    Ok(())
}

/// Removes from a public report's `tables/` every `.tex` file it did not write: a folder
/// that held the teacher's report (`--out` onto it) keeps its Problems and per-team
/// tables otherwise, which quote the teams' errors.
fn remove_other_tables(
    tables_dir: &Path,
    written: &std::collections::HashSet<String>,
) -> Result<(), Error> {
    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |source| Error::Io {
            path: path.clone(),
            source,
        }
    };
    for entry in std::fs::read_dir(tables_dir).map_err(io(tables_dir))? {
        let entry = entry.map_err(io(tables_dir))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.ends_with(".tex") && !written.contains(&name) && entry.path().is_file() {
            std::fs::remove_file(entry.path()).map_err(io(&entry.path()))?;
        }
    }
    Ok(())
}
