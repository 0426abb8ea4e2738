//! What a running tournament shows: a line per finished game, a progress bar on a terminal
//! or periodic lines otherwise; and the tables it keeps up to date on disk.

use crate::error::Error;
use crate::report;
use crate::tournament::LeagueEvent;
use crate::tournament::journal::Repair;
use std::io::IsTerminal;
use std::path::Path;
use std::time::{Duration, Instant};

/// A line per finished game (unless quiet), under a progress bar on a terminal, with plain
/// periodic lines otherwise.
pub(super) struct Progress<'a> {
    quiet: bool,
    /// The bot whose Elo the tables fix, if any.
    anchor: Option<&'a crate::stats::elo::Anchor>,
    bar: Option<indicatif::ProgressBar>,
    last_line: Instant,
    started: Instant,
    first_done: usize,
    /// When the last games finished, most recent last: the ETA follows the games of the
    /// moment (later games that run to the round limit take longer than early failures).
    recent: std::collections::VecDeque<Instant>,
}

/// Finished games the ETA's rate is taken over.
const ETA_WINDOW: usize = 20;

impl<'a> Progress<'a> {
    pub(super) fn new(quiet: bool, anchor: Option<&'a crate::stats::elo::Anchor>) -> Self {
        Progress {
            quiet,
            anchor,
            bar: None,
            last_line: Instant::now(),
            started: Instant::now(),
            first_done: 0,
            recent: std::collections::VecDeque::new(),
        }
    }

    /// Seconds until the `left` games still to play are done: at the rate of the last
    /// [`ETA_WINDOW`] games once there are enough, else of every game this run played.
    fn eta(&self, played: usize, left: usize) -> f64 {
        let rate = match (self.recent.front(), self.recent.back()) {
            (Some(first), Some(last)) if self.recent.len() >= 4 => {
                let span = last.duration_since(*first).as_secs_f64();
                // Games ending at once (one per core) make no span: fall back.
                (span > 0.0).then(|| (self.recent.len() - 1) as f64 / span)
            }
            _ => None,
        };
        let rate = rate.unwrap_or_else(|| {
            played.max(1) as f64 / self.started.elapsed().as_secs_f64().max(1e-3)
        });
        left as f64 / rate
    }

    /// Shows `event` of the run writing into `out`, and keeps the run's tables there up
    /// to date.
    pub(super) fn show(&mut self, out: &Path, event: LeagueEvent<'_>) -> Result<(), Error> {
        match event {
            LeagueEvent::Results { plan, games, sprt } => {
                report::write_tables_with(out, plan, games, sprt, self.anchor)?;
                if let Some(history) = sprt {
                    report::write_sprt_csv(out, history)?;
                }
            }
            LeagueEvent::Counted { plan, tally } => {
                report::write_counted_tables(out, plan, tally, self.anchor)?;
            }
            LeagueEvent::PairCounted(_) => {}
            LeagueEvent::Started {
                total,
                already_done,
                repair,
            } => {
                match repair {
                    Some(Repair::Dropped) => note!(
                        "the journal's last line was torn (an earlier run was killed mid-write): dropped, that game is played again"
                    ),
                    Some(Repair::Completed) => note!(
                        "the journal's last line had lost its newline (an earlier run was killed mid-write): the game is whole, the newline was added"
                    ),
                    None => {}
                }
                if already_done > 0 {
                    note!("resuming: {already_done} of {total} games already played");
                }
                self.first_done = already_done;
                self.started = Instant::now();
                if std::io::stdout().is_terminal() {
                    let bar = indicatif::ProgressBar::new(total as u64);
                    bar.set_style(
                        indicatif::ProgressStyle::with_template(
                            "{bar:30} {pos}/{len} games, {elapsed} elapsed, {msg}",
                        )
                        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                    );
                    bar.set_position(already_done as u64);
                    self.bar = Some(bar);
                } else {
                    say!("{already_done}/{total} games");
                }
            }
            LeagueEvent::GameFinished {
                summary,
                done,
                total,
                leader,
                ..
            } => {
                if !self.quiet {
                    let line = format!(
                        "game {} ({done}/{total}): {}",
                        summary.id,
                        report::game_line(summary)
                    );
                    match &self.bar {
                        Some(bar) => bar.println(crate::untrusted::text::terminal(&line)),
                        None => say!("{line}"),
                    }
                }
                let lead = leader
                    .map(|(bot, points)| format!("leader: {bot} ({points} points)"))
                    .unwrap_or_default();
                self.recent.push_back(Instant::now());
                if self.recent.len() > ETA_WINDOW {
                    self.recent.pop_front();
                }
                if let Some(bar) = &self.bar {
                    bar.set_position(done as u64);
                    let eta = self.eta(done - self.first_done, total - done);
                    let message = format!("ETA {eta:.0} s, {lead}");
                    bar.set_message(crate::untrusted::text::terminal(&message).into_owned());
                } else if self.last_line.elapsed() >= Duration::from_secs(5) || done == total {
                    let eta = self.eta(done - self.first_done, total - done);
                    say!("{done}/{total} games, ETA {eta:.0} s, {lead}");
                    self.last_line = Instant::now();
                }
            }
        }
        Ok(())
    }

    pub(super) fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eta_follows_the_last_games_not_the_runs_average() {
        let now = Instant::now();
        let ago = |s: f64| now.checked_sub(Duration::from_secs_f64(s)).unwrap();
        let mut progress = Progress::new(true, None);
        // 100 games in 30 s: early failures, fast; the last 20 came one a second.
        progress.started = ago(30.0);
        assert!(
            (progress.eta(100, 50) - 15.0).abs() < 0.1,
            "the run's rate at first"
        );
        progress.recent = (0..20).rev().map(|k| ago(k as f64)).collect();
        let eta = progress.eta(100, 50);
        assert!((eta - 50.0).abs() < 0.5, "{eta}: 50 games at one a second");
    }
}
