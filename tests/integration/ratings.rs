//! Ratings a reader can use: a gauntlet's head-to-head line per baseline, Elo anchored on a
//! named bot (`--anchor NAME=ELO`), and the likelihood-of-superiority matrix of the report.

use crate::common::*;
use std::collections::BTreeMap;
use std::path::Path;

fn gauntlet(out: &Path, pairs: &str, extra: &[&str]) -> (i32, String, String) {
    run(arbiter()
        .args([
            "gauntlet", "--game", "gomoku", "-q", "--pairs", pairs, "--out",
        ])
        .arg(out)
        .args([
            "--candidate",
            "builtin:greedy",
            "--baseline",
            "builtin:random",
            "g2=builtin:greedy",
        ])
        .args(extra))
}

fn league(out: &Path, extra: &[&str]) -> (i32, String, String) {
    run(arbiter()
        .args(["league", "--game", "gomoku", "-q", "--pairs", "3", "--out"])
        .arg(out)
        .args(["builtin:greedy", "builtin:random", "g2=builtin:greedy"])
        .args(extra))
}

/// standings.csv's Elo and interval per bot.
fn elo_of(out: &Path) -> BTreeMap<String, (f64, f64, f64)> {
    csv_rows(&out.join("standings.csv"))
        .into_iter()
        .map(|r| {
            let x = |c: &str| r[c].parse::<f64>().unwrap();
            (r["bot"].clone(), (x("elo"), x("elo_low"), x("elo_high")))
        })
        .collect()
}

#[test]
fn a_gauntlet_prints_and_reports_one_head_to_head_line_per_baseline_with_los() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g");
    let (code, stdout, stderr) = gauntlet(&out, "6", &[]);
    assert_eq!(code, 0, "{stderr}");
    let lines: Vec<&str> = stdout
        .lines()
        .filter(|l| l.starts_with("greedy vs "))
        .collect();
    assert_eq!(lines.len(), 2, "one line per baseline:\n{stdout}");
    let pairwise = csv_rows(&out.join("pairwise.csv"));
    // The baselines by their rank in the standings, as every table lists bots.
    let ranked: Vec<String> = csv_rows(&out.join("standings.csv"))
        .into_iter()
        .map(|r| r["bot"].clone())
        .filter(|b| b != "greedy")
        .collect();
    assert_eq!(ranked.len(), 2, "{ranked:?}");
    for (line, baseline) in lines.iter().zip(ranked.iter().map(String::as_str)) {
        assert!(
            line.starts_with(&format!("greedy vs {baseline}: ")),
            "{line}"
        );
        let row = pairwise
            .iter()
            .find(|r| r["bot"] == "greedy" && r["opponent"] == baseline)
            .unwrap();
        let wdl = format!("{}-{}-{}", row["wins"], row["ties"], row["losses"]);
        assert!(line.contains(&wdl), "{line} lacks {wdl}");
        // pairwise.csv keeps 3 decimals: the line's percentage agrees to that rounding.
        let los: f64 = row["los"].parse().unwrap();
        let shown: f64 = line
            .split("LOS ")
            .nth(1)
            .unwrap()
            .split('%')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        assert!((shown - 100.0 * los).abs() <= 0.06, "{line} (los {los})");
        assert!(line.contains("Elo ") && line.contains('['), "{line}");
    }
    let report = read(&out.join("report/report.md"));
    assert!(report.contains("## Head to head"), "{report}");
    assert!(report.contains("| random | 12 |"), "{report}");
    assert!(report.contains("| g2 | 12 |"), "{report}");
}

#[test]
fn a_tiny_gauntlet_says_it_has_too_few_games_to_tell() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g");
    let (code, stdout, stderr) = gauntlet(&out, "1", &[]);
    assert_eq!(code, 0, "{stderr}");
    for line in stdout.lines().filter(|l| l.starts_with("greedy vs ")) {
        assert!(line.contains("too few games to tell"), "{line}");
    }
    assert!(
        read(&out.join("report/report.md")).contains("too few games to tell"),
        "the report says it too"
    );
    // The line says how many pairs would tell, and a rerun with them plays on.
    let hinted: u32 = stdout
        .lines()
        .filter_map(|l| l.split("rerun with about --pairs ").nth(1))
        .map(|rest| rest.split(' ').next().unwrap().parse().unwrap())
        .max()
        .expect("a line suggests --pairs N");
    assert!(hinted > 1, "{stdout}");
    let (code, stdout, stderr) = gauntlet(&out, &hinted.to_string(), &[]);
    assert_eq!(code, 0, "{stderr}");
    let games = read(&out.join("games.jsonl")).lines().count() - 1;
    assert_eq!(games as u32, 2 * 2 * hinted, "{stdout}");
}

#[test]
fn gauntlet_standings_have_no_course_mark_column() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g");
    let (code, stdout, stderr) = gauntlet(&out, "1", &[]);
    assert_eq!(code, 0, "{stderr}");
    let header = stdout.lines().find(|l| l.contains("pts/game")).unwrap();
    assert!(!header.contains("mark"), "{header}");
    let csv = read(&out.join("standings.csv"));
    assert!(
        !csv.lines().next().unwrap().split(',').any(|c| c == "mark"),
        "{csv}"
    );
    let report = read(&out.join("report/report.md"));
    assert!(
        !report.contains("| mark |") && !report.contains("Mark:"),
        "{report}"
    );
    // A league keeps its marks.
    let league_out = dir.path().join("l");
    let (code, stdout, _) = league(&league_out, &[]);
    assert_eq!(code, 0);
    assert!(stdout.contains("mark"), "{stdout}");
    assert!(
        read(&league_out.join("standings.csv"))
            .starts_with("rank,bot,games,wins,losses,ties,points,rate,mark,")
    );
}

#[test]
fn an_anchor_fixes_that_bot_at_its_elo_and_keeps_every_difference() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("l");
    let (code, stdout, stderr) = league(&out, &[]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("Elo: mean 0"), "{stdout}");
    let mean = elo_of(&out);
    let (code, stdout, stderr) = run(arbiter()
        .arg("table")
        .arg(&out)
        .args(["--anchor", "random=1000"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("random anchored at 1000"), "{stdout}");
    let anchored = elo_of(&out);
    assert_eq!(anchored["random"], (1000.0, 1000.0, 1000.0));
    for (a, b) in [("greedy", "random"), ("g2", "greedy"), ("g2", "random")] {
        let before = mean[a].0 - mean[b].0;
        let after = anchored[a].0 - anchored[b].0;
        // Each figure is rounded to 0.1.
        assert!(
            (before - after).abs() <= 0.11,
            "{a}-{b}: {before} then {after}"
        );
    }
    let report = read(&out.join("report/report.md"));
    assert!(
        report.contains("| Elo | random anchored at 1000 (--anchor) |"),
        "the settings say so:\n{report}"
    );
    // The same anchor given to the league itself writes the same ratings.
    let again = dir.path().join("again");
    let (code, _, stderr) = league(&again, &["--anchor", "random=1000"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(elo_of(&again), anchored);
    // A negative rating is a rating.
    let (code, _, stderr) = gauntlet(&dir.path().join("g"), "1", &["--anchor", "g2=-50"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(elo_of(&dir.path().join("g"))["g2"].0, -50.0);
}

#[test]
fn an_anchor_naming_no_bot_exits_2_naming_it_and_the_bots() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("l");
    let (code, stdout, stderr) = league(&out, &["--anchor", "stockfish=3000"]);
    assert_eq!(code, 2, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("stockfish") && stderr.contains("greedy, random, g2"),
        "{stderr}"
    );
    assert!(!out.join("games.jsonl").exists(), "no game was played");
    let (code, _, stderr) = gauntlet(&out, "1", &["--anchor", "nobody=0"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("`nobody`"), "{stderr}");
    let (code, _, _) = league(&out, &[]);
    assert_eq!(code, 0);
    let (code, _, stderr) = run(arbiter()
        .arg("table")
        .arg(&out)
        .args(["--anchor", "ghost=1"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("ghost") && stderr.contains("greedy"),
        "{stderr}"
    );
    let (code, _, stderr) = run(arbiter()
        .arg("table")
        .arg(&out)
        .args(["--anchor", "random"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("NAME=ELO"), "{stderr}");
}

#[test]
fn the_report_holds_a_likelihood_of_superiority_matrix_from_the_pairwise_results() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("l");
    let (code, _, stderr) = league(&out, &[]);
    assert_eq!(code, 0, "{stderr}");
    let report = read(&out.join("report/report.md"));
    let header = report
        .lines()
        .position(|l| l.starts_with("| LOS % |"))
        .unwrap_or_else(|| panic!("no LOS matrix:\n{report}"));
    let names: Vec<&str> = report
        .lines()
        .nth(header)
        .unwrap()
        .split('|')
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .skip(1)
        .collect();
    assert_eq!(names.len(), 3);
    let pairwise = csv_rows(&out.join("pairwise.csv"));
    for line in report.lines().skip(header + 2).take(3) {
        let cells: Vec<&str> = line
            .split('|')
            .map(str::trim)
            .filter(|c| !c.is_empty())
            .collect();
        let bot = cells[0];
        for (opponent, cell) in names.iter().zip(&cells[1..]) {
            if *opponent == bot {
                assert_eq!(*cell, "–");
                continue;
            }
            let row = pairwise
                .iter()
                .find(|r| r["bot"] == bot && r["opponent"] == *opponent)
                .unwrap();
            let los: f64 = row["los"].parse().unwrap();
            let shown: f64 = cell.parse().unwrap();
            assert!(
                (shown - 100.0 * los).abs() <= 0.06,
                "{bot} over {opponent}: {cell}, {los}"
            );
        }
    }
    assert!(read(&out.join("report/report.tex")).contains("\\input{tables/los}"));
    let los = read(&out.join("report/tables/los.tex"));
    assert!(
        los.contains("\\label{tab:arbiter-") && los.contains("-los}"),
        "{los}"
    );
    assert!(read(&out.join("report/index.html")).contains("Likelihood of superiority"));
}
