//! What the outputs say, read as a newcomer reads them: tables in the standings' order
//! (not the download's), `1 point`, a team named `Team03` titled as it is, one rounding of
//! a percentage in a plot and its table, no `0 of 0` pairs before a pair is complete, and
//! a quoted `~` in a path named as the mistake it is.

use crate::common::{arbiter, read, run};
use std::path::Path;

/// A league of teams named as a course names them, in download order, the best last.
fn league(out: &Path) {
    let (code, _, stderr) = run(arbiter()
        .args(["league", "--game", "gomoku", "-q", "--pairs", "4"])
        .args(["--limit-ms", "2000", "--out"])
        .arg(out)
        .args([
            "Team01=builtin:random",
            "Team02=builtin:random",
            "Team03=builtin:greedy",
        ]));
    assert_eq!(code, 0, "{stderr}");
}

/// The rows of the Markdown table whose header line starts with `header`.
fn md_rows<'a>(md: &'a str, header: &str) -> Vec<Vec<&'a str>> {
    let start = md.find(header).unwrap_or_else(|| panic!("{header}:\n{md}"));
    md[start..]
        .lines()
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.trim_matches('|').split(" | ").map(str::trim).collect())
        .collect()
}

#[test]
fn tables_and_the_points_matrix_follow_the_standings_and_say_team03_and_1_point() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("league");
    league(&out);
    let md = read(&out.join("report/report.md"));
    let ranked: Vec<&str> = md_rows(&md, "| # | bot |")
        .iter()
        .map(|row| row[1])
        .collect();
    assert_eq!(ranked[0], "Team03", "the greedy team wins: {md}");
    // The matrix's columns and rows, the bots table and points_matrix.csv: by rank.
    let header = md
        .lines()
        .find(|l| l.starts_with("|  | "))
        .expect("the points matrix");
    let columns: Vec<&str> = header
        .trim_matches('|')
        .split(" | ")
        .skip(1)
        .map(str::trim)
        .collect();
    assert_eq!(columns, ranked, "{md}");
    let rows: Vec<&str> = md_rows(&md, "|  | ").iter().map(|r| r[0]).collect();
    assert_eq!(rows, ranked);
    let bots: Vec<&str> = md_rows(&md, "| bot | spec |")
        .iter()
        .map(|r| r[0])
        .collect();
    assert_eq!(bots, ranked);
    let csv = read(&out.join("points_matrix.csv"));
    assert_eq!(
        csv.lines().next().unwrap(),
        format!("bot,{}", ranked.join(","))
    );
    let titles: Vec<&str> = md
        .lines()
        .filter_map(|l| l.strip_prefix("## Team"))
        .collect();
    assert_eq!(
        titles,
        ["s", "03", "02", "01"],
        "the Teams table, then each by rank"
    );
    for file in ["report/report.md", "report/report.tex", "report/index.html"] {
        let text = read(&out.join(file));
        assert!(
            !text.contains("Team Team0"),
            "{file}: a prefix on a name that has it"
        );
        assert!(
            !text.contains(" 1 points") && !text.contains(" 1 games"),
            "{file}: a plural of one"
        );
    }
    assert!(md.contains("(a win 2 points, a tie 1 point)"), "{md}");
}

#[test]
fn a_plot_and_its_table_round_a_percentage_alike() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("league");
    // 8 games a role per bot: an odd number of wins is a half percent (1/8 = 12.5%).
    league(&out);
    let md = read(&out.join("report/report.md"));
    let table: Vec<String> = md_rows(&md, "| bot | wins as")
        .iter()
        .flat_map(|row| row[1..].to_vec())
        .map(|cell| {
            let open = cell.find('(').unwrap();
            cell[open + 1..cell.len() - 1].to_string()
        })
        .collect();
    let svg = read(&out.join("report/plots/roles.svg"));
    let plot: Vec<String> = svg
        .split('>')
        .filter_map(|t| t.split('<').next())
        .map(str::trim)
        .filter(|t| t.contains("% of "))
        .map(|t| t.split(' ').next().unwrap().to_string())
        .collect();
    assert_eq!(plot.len(), 6, "a label per bot and role: {plot:?}");
    assert_eq!(plot, table, "the plot's labels beside the table's cells");
}

#[test]
fn a_league_cut_short_before_any_pair_is_complete_says_no_pair_is_complete_not_0_of_0() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("league");
    league(&out);
    // The journal as a league stopped after its first 3 games leaves it: each pairing
    // has played its first game only (the second, roles swapped, comes after them all).
    // Games are journalled as they end, not in order: keep games 0 to 2 by their number.
    let journal = read(&out.join("games.jsonl"));
    let (head, games) = journal.split_once('\n').unwrap();
    let first_three = games.lines().filter(|line| {
        let game: serde_json::Value = serde_json::from_str(line).unwrap();
        game["game"].as_u64().is_some_and(|n| n < 3)
    });
    let cut: Vec<&str> = std::iter::once(head).chain(first_three).collect();
    assert_eq!(cut.len(), 4, "{journal}");
    let short = dir.path().join("short");
    std::fs::create_dir(&short).unwrap();
    std::fs::write(short.join("games.jsonl"), cut.join("\n") + "\n").unwrap();
    let (code, _, stderr) = run(arbiter().arg("report").arg(&short));
    assert_eq!(code, 0, "{stderr}");
    let md = read(&short.join("report/report.md"));
    assert!(
        md.contains("3 games played; no role-swapped pair has both its games yet."),
        "{md}"
    );
    assert!(!md.contains("0 of 0"), "{md}");
}

#[test]
fn a_quoted_tilde_path_that_does_not_exist_is_named_as_a_tilde_not_expanded() {
    let missing = "~/no-such-arbiter-folder-5c1/submissions";
    let (code, _, stderr) = run(arbiter()
        .args(["league", "--game", "gomoku", "--out"])
        .arg(tempfile::tempdir().unwrap().path().join("out"))
        .args([missing, "builtin:random"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(
            "`~` is not expanded when quoted: write $HOME/no-such-arbiter-folder-5c1/submissions"
        ),
        "{stderr}"
    );
    let (code, _, stderr) = run(arbiter().args(["report", "~/no-such-arbiter-folder-5c1"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("`~` is not expanded when quoted"),
        "{stderr}"
    );
}
