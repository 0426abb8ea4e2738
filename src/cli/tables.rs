//! `arbiter table` and `arbiter merge`: a tournament folder's tables and report made again
//! from its journal, or from the journals of its shards.

use crate::error::Error;
use crate::report;
use crate::tournament;
use std::path::PathBuf;

#[derive(clap::Args, Debug)]
pub(crate) struct MergeArgs {
    /// The merged folder (it must not hold a journal).
    #[arg(long)]
    pub out: PathBuf,
    /// Merge what is there although shards or games are missing, and say what.
    #[arg(long)]
    pub partial: bool,
    /// The shards' output folders.
    #[arg(required = true, num_args = 1.., value_name = "SHARD_DIR")]
    pub shards: Vec<PathBuf>,
}

#[derive(clap::Args, Debug)]
pub(crate) struct TableArgs {
    /// A tournament's output folder.
    pub dir: PathBuf,
    /// Marks leaving out these bots instead of the ones the tournament was run with.
    /// Repeat for several.
    #[arg(long = "non-scoring", value_name = "NAME")]
    pub non_scoring: Vec<String>,
    /// A class list (CSV with a `team` or `group` column) for marks.csv, kept in the folder as
    /// roster.csv (replacing the one there).
    #[arg(long, value_name = "FILE")]
    pub roster: Option<PathBuf>,
    /// Accept a roster that lists a part of the class: teams with no student of it are
    /// marked per team. Without --roster: of the roster kept in the folder (a league given
    /// --partial-roster says so in the folder itself).
    #[arg(long)]
    pub partial_roster: bool,
    /// Fix this bot's Elo at ELO and read the others relative to it (Ordo's -A), instead
    /// of centring the ratings on their mean.
    #[arg(long, value_name = "NAME=ELO", value_parser = super::options::parse_anchor, allow_hyphen_values = true)]
    pub anchor: Option<crate::stats::elo::Anchor>,
    /// Also write the marks as this platform's grade import takes them, a row per student
    /// of the roster (--roster, or the one kept in the folder): DIR/grades-PLATFORM.csv
    /// (Blackboard: tab-separated, .txt).
    #[arg(long, value_name = "PLATFORM")]
    pub grades: Option<report::grades::Platform>,
    /// With --grades: the assignment's name on the platform (an assignment column of the
    /// roster export with that name gives its id). Default: the folder's name.
    #[arg(long, value_name = "NAME", requires = "grades")]
    pub assignment: Option<String>,
    /// With --grades: the file to write instead of DIR/grades-PLATFORM.csv.
    #[arg(long, value_name = "FILE", requires = "grades")]
    pub out: Option<PathBuf>,
    /// With --grades: the mark of a student whose team handed nothing in.
    #[arg(long, value_name = "MARK", default_value_t = 0.0, requires = "grades")]
    pub no_submission_mark: f64,
    /// With --grades: write the marks of a league that has not played all its games, in a
    /// file named as not final (grades-PLATFORM-NOT-FINAL.csv).
    #[arg(long, requires = "grades")]
    pub partial: bool,
    /// Start marks.csv (and the grade file) with a UTF-8 byte-order mark, so that Excel
    /// on Windows shows accented names right (`Müller`, not `MÃ¼ller`); LibreOffice, the
    /// platforms' imports, Python's csv (with encoding utf-8-sig) and pandas read it as
    /// before.
    #[arg(long)]
    pub bom: bool,
    /// The separator of marks.csv's cells (and of a Moodle grade file's): `semicolon` for
    /// an Excel set to a language whose decimal mark is a comma. Canvas's import takes
    /// commas and Blackboard's tabs, whatever this says.
    #[arg(long, value_name = "SEPARATOR")]
    pub delimiter: Option<report::sheet::Delimiter>,
}

pub(crate) fn merge(args: MergeArgs) -> Result<i32, Error> {
    let merged = tournament::merge::merge(&args.shards, &args.out, args.partial)?;
    // The merged folder's tables and report are made from its journal, as `arbiter table`
    // makes them.
    let rebuilt =
        report::rebuild_tables(&args.out, None, None, &args.out.join(report::REPORT_DIR))?;
    drop(rebuilt.loaded);
    let index = rebuilt.index;
    say!("{}", rebuilt.text);
    say!(
        "merged {} of {} games from {} of {} shards into {}",
        merged.games,
        merged.total,
        merged.count as usize - merged.missing_shards.len(),
        merged.count,
        args.out.display()
    );
    say!("{}", super::report::written(&index));
    let missing = merged.missing();
    if !missing.is_empty() {
        for line in missing {
            note!("partial: {line}");
        }
        note!(
            "partial: a run resumed on {} with the same settings plays what is missing",
            args.out.display()
        );
    }
    Ok(crate::error::exit::DONE)
}

pub(crate) fn table(args: TableArgs) -> Result<i32, Error> {
    let listed = (!args.non_scoring.is_empty()).then_some(args.non_scoring.as_slice());
    // A folder without a readable journal is refused by the rebuild, saying why; with
    // --roster, before the class list is read.
    let journal = match &args.roster {
        Some(_) => report::journal_of(&args.dir)?,
        None => args.dir.join(crate::tournament::journal::JOURNAL_FILE),
    };
    let plan = crate::tournament::journal::read_plan(&journal);
    // What the rebuild would refuse is refused before the class list is replaced.
    if let Some(plan) = &plan {
        let names: Vec<&str> = plan.bots.iter().map(|b| b.name.as_str()).collect();
        for name in &args.non_scoring {
            report::check_bot_name(name, &names)?;
        }
        if let Some(anchor) = &args.anchor {
            report::check_anchor(anchor, &names)?;
        }
    }
    // A grade file the roster cannot give is refused before anything is written.
    if let Some(platform) = args.grades {
        let roster = match &args.roster {
            Some(path) => Some(crate::class::read_roster(path)?),
            None => report::marks::kept_roster(&args.dir)?,
        };
        report::grades::check_roster(platform, roster.as_ref(), &args.dir)?;
        if !args.partial {
            let loaded = crate::tournament::journal::load(&report::journal_of(&args.dir)?)?;
            let bots = loaded.plan.bots.len() as u64;
            let total = bots * bots.saturating_sub(1) * u64::from(loaded.plan.pairs);
            report::grades::check_final(loaded.games.len() as u64 >= total, &args.dir)?;
        }
    }
    let non_scoring = |plan: &crate::tournament::journal::Plan| match args.non_scoring.is_empty() {
        true => plan.non_scoring(),
        false => args.non_scoring.clone(),
    };
    if let Some(path) = &args.roster {
        // Only a round robin gives marks: a roster anywhere else would do nothing.
        if let Some(format) = plan
            .as_ref()
            .map(|p| &p.format)
            .filter(|f| *f != "round_robin")
        {
            return Err(Error::usage(format!(
                "--roster: {} holds a {format}, and only a round robin (a league) gives marks",
                args.dir.display()
            )));
        }
        let mut roster = crate::class::read_roster(path)?;
        // Without a plan (a header this arbiter cannot read) the rebuild refuses, and the
        // folder's class list stays as it was.
        if let Some(plan) = &plan {
            let matched = match_plan(
                &mut roster,
                path,
                plan,
                &non_scoring(plan),
                args.partial_roster,
            )?;
            for line in &matched.notes {
                note!("{line}");
            }
            report::marks::keep_roster(&args.dir, path, &roster, args.partial_roster)?;
        }
    } else if let Some(plan) = plan.as_ref().filter(|p| p.format == "round_robin") {
        check_kept_roster(&args.dir, plan, &non_scoring(plan), args.partial_roster)?;
    }
    let report::Rebuilt {
        loaded,
        text,
        index,
        counted,
    } = report::rebuild_tables(
        &args.dir,
        listed,
        args.anchor.as_ref(),
        &args.dir.join(report::REPORT_DIR),
    )?;
    super::report::note_repair(loaded.repair);
    if loaded.version < 3 {
        let lacks = if loaded.version < 2 {
            "the limits, interpreter, confinement, bot digests and openings"
        } else {
            "the openings (its games started from the standard start)"
        };
        note!(
            "note: journal format {}: its plan lacks {lacks}; tables are rebuilt, but a run \
             will not resume it",
            loaded.version
        );
    }
    if let Some(shard) = loaded.shard {
        note!(
            "note: {} holds shard {shard} of the schedule: these tables count its games only; \
             `arbiter merge` makes the whole tables from every shard",
            args.dir.display()
        );
    }
    say!("{text}");
    say!("tables written to {}", args.dir.display());
    if loaded.plan.format == "round_robin" {
        let bots = loaded.plan.bots.len();
        let total = bots * bots.saturating_sub(1) * loaded.plan.pairs as usize;
        say!(
            "{}",
            super::league::marks_line(&args.dir, counted, total, loaded.shard.is_some())
        );
    }
    say!("{}", super::report::written(&index));
    let sheet = report::sheet::Sheet {
        bom: args.bom,
        delimiter: args.delimiter,
    };
    let marks = args.dir.join(report::marks::MARKS_FILE);
    if loaded.plan.format == "round_robin" && marks.exists() {
        // Written a moment ago by the rebuild, with commas.
        report::sheet::restyle_file(&marks, b',', sheet)?;
    }
    if let Some(platform) = args.grades {
        if let Some(kept) = args
            .delimiter
            .filter(|d| report::grades::separator(platform, Some(*d)) != d.byte())
        {
            note!(
                "note: --delimiter {}: {}'s import takes its own separator, which the grade \
                 file keeps; marks.csv has yours",
                kept.name(),
                report::grades::title(platform)
            );
        }
        let assignment = args.assignment.clone().unwrap_or_else(|| {
            std::path::absolute(&args.dir)
                .ok()
                .and_then(|d| d.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_else(|| "arbiter league".into())
        });
        let written = report::grades::write(
            &args.dir,
            &report::grades::GradeFile {
                platform,
                assignment,
                out: args.out.clone(),
                no_submission_mark: args.no_submission_mark,
                partial: args.partial,
                sheet,
            },
        )?;
        say!("grades: {}", written.display());
    }
    Ok(crate::error::exit::DONE)
}

/// Matches `roster` (read from `path`) to the teams of the league whose journal's plan is
/// `plan`, as the league matched it ([`crate::class::match_teams`]), with `non_scoring`
/// the bots kept out of the marks.
fn match_plan(
    roster: &mut crate::class::Roster,
    path: &std::path::Path,
    plan: &crate::tournament::journal::Plan,
    non_scoring: &[String],
    partial: bool,
) -> Result<crate::class::Matched, Error> {
    let entry = |spec: &str| spec.rsplit('/').next().unwrap_or(spec).to_string();
    let handed_in: Vec<(String, String)> = plan
        .bots
        .iter()
        .map(|b| (b.name.clone(), entry(&b.spec)))
        .chain(
            plan.left_out
                .iter()
                .map(|l| (l.name.clone(), entry(&l.entry))),
        )
        // A student whose entry repeated a bot's is that bot's team's.
        .chain(
            plan.merged
                .iter()
                .map(|m| (m.name.clone(), entry(&m.entry))),
        )
        .collect();
    let teams = crate::class::Teams {
        marked: plan
            .bots
            .iter()
            .map(|b| b.name.as_str())
            .filter(|n| !non_scoring.iter().any(|s| s == n))
            .chain(plan.left_out.iter().map(|l| l.name.as_str()))
            .collect(),
        unmarked: non_scoring.iter().map(String::as_str).collect(),
        // The journal's plan names its entries: none is renamed now.
        left_out: Vec::new(),
        handed_in: &handed_in,
    };
    crate::class::match_teams(roster, path, &teams, partial)
}

/// Refuses the class list kept in the folder `dir` (roster.csv) when it no longer matches
/// the teams of the league in its journal (`plan`): a roster copied there by hand, or by
/// an arbiter that kept a refused league's roster, would give marks to the wrong students.
/// `partial`: it lists a part of the class, as the folder may say itself.
fn check_kept_roster(
    dir: &std::path::Path,
    plan: &crate::tournament::journal::Plan,
    non_scoring: &[String],
    partial: bool,
) -> Result<(), Error> {
    let Some(mut kept) = report::marks::kept_roster(dir)? else {
        return Ok(());
    };
    let path = dir.join(report::marks::ROSTER_FILE);
    let partial = partial || crate::class::kept_partial(dir);
    match match_plan(&mut kept, &path, plan, non_scoring, partial) {
        Ok(_) => Ok(()),
        Err(e) => Err(Error::usage(super::league::kept_mismatch(
            dir,
            &path,
            &e.to_string(),
            &format!(
                "arbiter table {} --roster FILE (with --partial-roster if it lists a part of \
                 the class; or this roster.csv with --partial-roster alone)",
                dir.display()
            ),
        ))),
    }
}
