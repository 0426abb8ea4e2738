//! `arbiter report`: the report of a tournament folder (report.md, report.tex, plots and
//! index.html), made from its journal alone.

use crate::error::Error;
use crate::report;
use std::path::{Path, PathBuf};

#[derive(clap::Args, Debug)]
pub struct ReportArgs {
    /// A tournament's output folder (of league, gauntlet, run or sprt).
    pub dir: PathBuf,
    /// Where to write the report (default: DIR/report).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn run(args: ReportArgs) -> Result<i32, Error> {
    let out = args
        .out
        .unwrap_or_else(|| args.dir.join(report::REPORT_DIR));
    let (index, repair) = report::write_report(&args.dir, &out)?;
    super::tables::note_repair(repair);
    say!("{}", written(&index));
    Ok(0)
}

/// The line that ends every command writing a report: where to open it.
pub(crate) fn written(index: &Path) -> String {
    format!("report: {}", index.display())
}
