//! What a running tournament shows: a line per finished game, a progress bar on a terminal
//! or periodic lines otherwise; and the tables it keeps up to date on disk.

use crate::error::Error;
use crate::report;
use crate::tournament::LeagueEvent;
use crate::tournament::journal::Repair;
use crate::tournament::live::{Board, LiveState};
use std::io::IsTerminal;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// A line per finished game (unless quiet), under a progress bar on a terminal, with plain
/// periodic lines otherwise.
pub(super) struct Progress<'a> {
    quiet: bool,
    /// The bot whose Elo the tables fix, if any.
    anchor: Option<&'a crate::stats::elo::Anchor>,
    bar: Option<indicatif::ProgressBar>,
    last_line: Instant,
    /// The run's live state: its games in play, their clocks, and the ETA that counts
    /// them.
    board: Arc<Board>,
    /// The leader as the last finished game left it, for the bar's message.
    lead: Arc<Mutex<String>>,
    /// The thread that redraws the bar's message as time passes, and its stop.
    ticker: Option<(std::thread::JoinHandle<()>, Arc<AtomicBool>)>,
}

/// How often the bar's message (the ETA, the games in play) is redrawn between games.
const TICK: Duration = Duration::from_millis(500);

/// The games in play, at most a few, in one line: `#12 T1-T2 ply 34, 12 s`.
pub(super) fn in_play_text(state: &LiveState) -> String {
    const SHOWN: usize = 3;
    let mut parts: Vec<String> = state
        .games
        .iter()
        .take(SHOWN)
        .map(|g| {
            format!(
                "#{} {}-{} ply {}, {:.0} s",
                g.id, g.bots[0], g.bots[1], g.ply, g.game_s
            )
        })
        .collect();
    if state.games.len() > SHOWN {
        parts.push(format!("{} more", state.games.len() - SHOWN));
    }
    match parts.is_empty() {
        true => String::new(),
        false => format!("in play: {}", parts.join("; ")),
    }
}

/// The ETA as the terminal writes it: `ETA 85 s`, or `ETA ?` before any game ended.
fn eta_text(eta: Option<f64>) -> String {
    eta.map_or_else(|| "ETA ?".to_string(), |s| format!("ETA {s:.0} s"))
}

/// The bar's message: the ETA, the leader and the games in play.
fn bar_message(state: &LiveState, lead: &str) -> String {
    let mut parts = vec![eta_text(state.eta_s)];
    if !lead.is_empty() {
        parts.push(lead.to_string());
    }
    let playing = in_play_text(state);
    if !playing.is_empty() {
        parts.push(playing);
    }
    crate::untrusted::text::terminal(&parts.join(", ")).into_owned()
}

impl<'a> Progress<'a> {
    pub(super) fn new(
        quiet: bool,
        anchor: Option<&'a crate::stats::elo::Anchor>,
        board: Arc<Board>,
    ) -> Self {
        Progress {
            quiet,
            anchor,
            bar: None,
            last_line: Instant::now(),
            board,
            lead: Arc::default(),
            ticker: None,
        }
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
                updated,
            } => {
                if let Some(updated) = updated {
                    note!("{}", update_line(updated, total, already_done));
                }
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
                self.board.counts(total, already_done);
                if std::io::stdout().is_terminal() {
                    let bar = indicatif::ProgressBar::new(total as u64);
                    bar.set_style(
                        indicatif::ProgressStyle::with_template(
                            "{bar:30} {pos}/{len} games, {elapsed} elapsed, {msg}",
                        )
                        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
                    );
                    bar.set_position(already_done as u64);
                    self.ticker = Some(tick(bar.clone(), self.board.clone(), self.lead.clone()));
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
                *self.lead.lock().unwrap_or_else(|e| e.into_inner()) = lead.clone();
                let state = self.board.snapshot();
                if let Some(bar) = &self.bar {
                    bar.set_position(done as u64);
                    bar.set_message(bar_message(&state, &lead));
                } else if self.last_line.elapsed() >= Duration::from_secs(5) || done == total {
                    let playing = in_play_text(&state);
                    let mut line =
                        format!("{done}/{total} games, {}, {lead}", eta_text(state.eta_s));
                    if !playing.is_empty() && done < total {
                        line.push_str(&format!(", {playing}"));
                    }
                    say!("{}", crate::untrusted::text::terminal(&line));
                    self.last_line = Instant::now();
                }
            }
        }
        Ok(())
    }

    pub(super) fn finish(&mut self) {
        if let Some((thread, stop)) = self.ticker.take() {
            stop.store(true, Ordering::SeqCst);
            let _ = thread.join();
        }
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress<'_> {
    fn drop(&mut self) {
        self.finish();
    }
}

/// Redraws `bar`'s message from `board` every [`TICK`] until stopped: the ETA and the
/// games' clocks move while no game ends.
fn tick(
    bar: indicatif::ProgressBar,
    board: Arc<Board>,
    lead: Arc<Mutex<String>>,
) -> (std::thread::JoinHandle<()>, Arc<AtomicBool>) {
    let stop = Arc::new(AtomicBool::new(false));
    let stopped = stop.clone();
    let thread = std::thread::spawn(move || {
        while !stopped.load(Ordering::SeqCst) {
            let lead = lead.lock().unwrap_or_else(|e| e.into_inner()).clone();
            bar.set_message(bar_message(&board.snapshot(), &lead));
            let until = Instant::now() + TICK;
            while Instant::now() < until && !stopped.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(20));
            }
        }
    });
    (thread, stop)
}

/// Where the marks are, and whether they are final: a league stopped part-way or a shard
/// has marks.csv say `complete` = no.
pub(crate) fn marks_line(
    out: &std::path::Path,
    finished: usize,
    total: usize,
    shard: bool,
) -> String {
    let marks = out.join(report::marks::MARKS_FILE);
    let feedback = out.join(report::marks::FEEDBACK_DIR);
    if finished < total || shard {
        format!(
            "marks NOT FINAL ({finished} of {total} games played; complete = no in {}): \
             finish the league (rerun the same command{}) before handing back {} or {}/",
            marks.display(),
            if shard { ", then arbiter merge" } else { "" },
            marks.display(),
            feedback.display()
        )
    } else {
        format!(
            "marks for the grade book: {}; feedback per team: {}/",
            marks.display(),
            feedback.display()
        )
    }
}

/// `distinct pairs: K of N`, and the warning when some pair was a replay.
pub(crate) fn report_distinct(distinct: &crate::tournament::openings::DistinctPairs) {
    let (line, warning) = distinct.report();
    say!("{line}");
    if let Some(warning) = warning {
        note!("{warning}");
    }
}

/// Moves are timed by the wall clock: more games than free cores steal time from bots,
/// whether the games themselves are too many (`-j` above the cores) or the machine is
/// busy with other work as the run starts. Said once, before any game.
pub(crate) fn warn_oversubscribed(jobs: usize) {
    let cores = crate::clocks::placement::cores();
    let busy = other_load();
    if jobs as f64 + busy > cores as f64 + 0.5 {
        let load = if busy >= 0.5 {
            format!(", with the machine already busy (other work worth {busy:.1} cores)")
        } else {
            String::new()
        };
        note!(
            "warning: {jobs} games at once on {cores} cores{load}: moves are timed by the \
             wall clock, so a bot may run out of time for the machine's sake, not its own; \
             run fewer games at once (-j) or on a quiet machine"
        );
    }
}

/// The work the machine has besides this process as the run starts, in cores: the
/// processes running or runnable now (/proc/stat's `procs_running`, less this one), or
/// the last minute's load average where that is more.
fn other_load() -> f64 {
    let running = std::fs::read_to_string("/proc/stat")
        .ok()
        .and_then(|stat| {
            stat.lines()
                .find_map(|l| l.strip_prefix("procs_running "))
                .and_then(|n| n.trim().parse::<f64>().ok())
        })
        .map_or(0.0, |n| (n - 1.0).max(0.0));
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next()?.parse::<f64>().ok())
        .unwrap_or(0.0);
    running.max(load)
}

/// What `league --update` did, in one line: the bots by name, the games kept, moved into
/// the league's history and taken back from it, and the games left to play.
pub(super) fn update_line(
    updated: &crate::tournament::journal::Updated,
    total: usize,
    done: usize,
) -> String {
    let mut line = match updated.changes.is_empty() {
        true => "update: the same bots, named by other paths (their files unchanged)".to_string(),
        false => format!("update: {}", updated.changes.said()),
    };
    if !updated.changes.missing.is_empty() {
        line.push_str(" (retired: their games leave the standings and stay in history.jsonl)");
    }
    let games = |n: usize| match n {
        1 => "1 game".to_string(),
        n => format!("{n} games"),
    };
    line.push_str(&format!(
        "; {} kept, {} moved into the league's history",
        games(updated.kept),
        games(updated.retired)
    ));
    if updated.restored > 0 {
        line.push_str(&format!(
            ", {} taken back from it ({} back as before)",
            games(updated.restored),
            updated.returned.join(", ")
        ));
    }
    line.push_str(&format!("; {} to play", games(total.saturating_sub(done))));
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_terminal_shows_the_games_in_play_with_their_ply_and_age_and_the_eta() {
        let game = |id: u64, ply: u32, age: f64| crate::tournament::live::InPlay {
            id,
            bots: ["T1".into(), format!("T{}", id + 1)],
            roles: ["rebel", "officer"],
            ply,
            to_move: Some(0),
            game_s: age,
            move_s: 0.1,
            board: None,
        };
        let board = Board::new(2);
        let mut state = board.snapshot();
        assert_eq!(in_play_text(&state), "");
        assert_eq!(
            bar_message(&state, "leader: T1 (3 points)"),
            "ETA ?, leader: T1 (3 points)"
        );
        state.games = (1..=5).map(|i| game(i, 10 * i as u32, i as f64)).collect();
        state.eta_s = Some(41.6);
        assert_eq!(
            in_play_text(&state),
            "in play: #1 T1-T2 ply 10, 1 s; #2 T1-T3 ply 20, 2 s; #3 T1-T4 ply 30, 3 s; 2 more"
        );
        assert!(bar_message(&state, "").starts_with("ETA 42 s, in play: #1 T1-T2"));
    }
}
