//! `arbiter report`: the report of a tournament folder (report.md, report.tex, plots and
//! index.html), made from its journal alone.

use crate::error::Error;
use crate::report;
use crate::tournament::journal::Repair;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub(crate) struct ReportArgs {
    /// A tournament's output folder (of league, gauntlet, run or sprt).
    pub dir: PathBuf,
    /// Where to write the report (default: DIR/report, with --public DIR/report-public).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// A report to publish or hand out to the class: teams by name, standings, marks,
    /// games and head to head, without students' names or ids, the teacher's paths or any
    /// team's error text (into DIR/report-public unless --out).
    #[arg(long)]
    pub public: bool,
    /// The prefix of report.tex's labels (tab:PREFIX-standings, fig:PREFIX-elo): a paper
    /// that inputs two runs' tables needs two prefixes (default: arbiter- and DIR's name).
    #[arg(long, value_name = "PREFIX")]
    pub label_prefix: Option<String>,
}

pub(crate) fn run(args: ReportArgs) -> Result<i32, Error> {
    let out = args.out.unwrap_or_else(|| {
        args.dir.join(match args.public {
            true => report::PUBLIC_REPORT_DIR,
            false => report::REPORT_DIR,
        })
    });
    let (index, repair) =
        report::write_report_for(&args.dir, &out, args.public, args.label_prefix.as_deref())?;
    note_repair(repair);
    say!("{}", written(&index));
    Ok(crate::error::exit::DONE)
}

/// The line that ends every command writing a report: where to open it.
pub(crate) fn written(index: &Path) -> String {
    format!("report: {}", index.display())
}

/// What a command that only reads a journal did with its damaged last line, said.
pub(crate) fn note_repair(repair: Option<Repair>) {
    match repair {
        Some(Repair::Dropped) => note!(
            "note: the journal's last line is torn (a run was killed mid-write): left out and \
             left as it is; the next run on this folder drops it and plays that game again"
        ),
        Some(Repair::Completed) => note!(
            "note: the journal's last line lacks its newline: counted, and left as it is; the \
             next run on this folder completes it"
        ),
        None => {}
    }
}
