//! What growing a league costs (`league --update`): a league of 30 built-ins has played
//! all its games, then one bot changes (its spec: `b08` from random to greedy) and the
//! league is updated. The update must play only that bot's games, 2 x 29 x pairs, and take
//! about the time those games take alone: the baseline is the same games as a gauntlet of
//! the changed bot against the 29 others (`--random-plies 0`, as the league's standard
//! start), into a fresh folder. The two run in turns (which goes first alternates), each
//! update on a fresh copy of the finished league. Goal (issue 57): within 1.2x. Beside
//! them, the finished league run again with nothing to play: the cost of writing its
//! tables and report, which an update pays as any run of the league does.
//!
//! Run: cargo bench --bench update. Knobs: `BENCH_RUNS` (default 7), `BENCH_PAIRS`
//! (default 1), `BENCH_ROUNDS` (Asalto's round limit, default 200), `BENCH_ARBITER`.

use std::path::Path;
use std::process::Command;
use std::time::Instant;

mod support;
use support::{Paired, median};

const BOTS: usize = 30;
const CHANGED: usize = 8;

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The league's bots, `b08` as `changed` says.
fn bots(changed: bool) -> Vec<String> {
    (0..BOTS)
        .map(|i| {
            let kind = match (i == CHANGED && changed, i % 2) {
                (true, _) => "greedy",
                (false, 0) => "random",
                (false, _) => "greedy",
            };
            format!("b{i:02}=builtin:{kind}")
        })
        .collect()
}

/// Runs `arbiter` with `args`, and returns its wall time and its stdout.
fn timed(bin: &Path, args: &[String]) -> (f64, String) {
    let started = Instant::now();
    let out = Command::new(bin).args(args).output().expect("arbiter runs");
    let wall = started.elapsed().as_secs_f64();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "arbiter {args:?}: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    (wall, stdout)
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

fn main() {
    let runs = env_number("BENCH_RUNS", 7).max(1) as usize;
    let pairs = env_number("BENCH_PAIRS", 1).max(1);
    let rounds = env_number("BENCH_ROUNDS", 200);
    let bin = support::arbiter_binary();
    let dir = tempfile::tempdir().expect("a temporary folder");
    let settings: Vec<String> = [
        "--quiet",
        "--round-limit",
        &rounds.to_string(),
        "--pairs",
        &pairs.to_string(),
        "--seed",
        "3",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let league = dir.path().join("league");
    let mut args: Vec<String> = vec!["league".into(), "--out".into()];
    args.push(league.display().to_string());
    args.extend(settings.iter().cloned());
    args.extend(bots(false));
    let (wall, _) = timed(&bin, &args);
    let games = BOTS * (BOTS - 1) * pairs as usize;
    let expected = 2 * (BOTS - 1) * pairs as usize;
    println!(
        "update bench: a league of {BOTS} built-ins ({games} games, --pairs {pairs}, round limit {rounds}) played in {wall:.2} s; one bot changed, {expected} games to play"
    );
    let (mut updates, mut alone, mut reruns) = (Vec::new(), Vec::new(), Vec::new());
    for run in 0..runs {
        let update = |run: usize| {
            let copy = dir.path().join(format!("update-{run}"));
            copy_tree(&league, &copy);
            let mut args: Vec<String> = vec!["league".into(), "--update".into(), "--out".into()];
            args.push(copy.display().to_string());
            args.extend(settings.iter().cloned());
            args.extend(bots(true));
            let (wall, stdout) = timed(&bin, &args);
            assert!(
                stdout.contains(&format!("this run played {expected}\n")),
                "the update plays the changed bot's games only: {stdout}"
            );
            wall
        };
        let gauntlet = |run: usize| {
            let out = dir.path().join(format!("alone-{run}"));
            let all = bots(true);
            let mut args: Vec<String> = vec!["gauntlet".into(), "--out".into()];
            args.push(out.display().to_string());
            args.extend(settings.iter().cloned());
            args.extend(["--random-plies".into(), "0".into(), "--candidate".into()]);
            args.push(all[CHANGED].clone());
            for (i, bot) in all.iter().enumerate() {
                if i != CHANGED {
                    args.extend(["--baseline".into(), bot.clone()]);
                }
            }
            let (wall, stdout) = timed(&bin, &args);
            assert!(
                stdout.contains(&format!("this run played {expected}\n")),
                "the gauntlet plays the same number of games: {stdout}"
            );
            wall
        };
        // The finished league run again, nothing to play: what writing its tables and
        // report costs, which any run of the league pays.
        let rerun = |run: usize| {
            let copy = dir.path().join(format!("rerun-{run}"));
            copy_tree(&league, &copy);
            let mut args: Vec<String> = vec!["league".into(), "--out".into()];
            args.push(copy.display().to_string());
            args.extend(settings.iter().cloned());
            args.extend(bots(false));
            let (wall, stdout) = timed(&bin, &args);
            assert!(stdout.contains("this run played 0\n"), "{stdout}");
            wall
        };
        if run % 2 == 0 {
            updates.push(update(run));
            alone.push(gauntlet(run));
            reruns.push(rerun(run));
        } else {
            reruns.push(rerun(run));
            alone.push(gauntlet(run));
            updates.push(update(run));
        }
    }
    let outputs = median(reruns.clone());
    let paired = Paired::new(&updates, &alone);
    println!(
        "  medians of {runs}: update {:.3} s, the same games alone {:.3} s: {:.3}x, {} (goal: at most 1.2x)",
        median(updates.clone()),
        median(alone.clone()),
        paired.arbiter / paired.baseline,
        paired.ratio_text()
    );
    let own: Vec<f64> = updates.iter().zip(&reruns).map(|(u, r)| u - r).collect();
    println!(
        "  the finished league run again with nothing to play (its tables and report of {games} games) {outputs:.3} s; the update beyond that {:.3} s, {:.3}x the games alone",
        median(own.clone()),
        median(own) / median(alone)
    );
}
