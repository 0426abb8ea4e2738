//! Sharded tournaments: `--shard K/N` plays a part of the schedule, `arbiter merge` makes
//! the parts one folder equal to one uninterrupted run, and refuses parts that do not fit.

use crate::common::*;
use std::path::Path;

/// In-process built-in bots: deterministic from the games' seeds, so two runs of the same
/// schedule play the same games.
const BOTS: [&str; 4] = [
    "builtin:random",
    "builtin:greedy",
    "r2=builtin:random",
    "g2=builtin:greedy",
];

fn league(out: &Path, extra: &[&str]) -> (i32, String, String) {
    let mut cmd = arbiter();
    cmd.args([
        "league", "--game", "asalto", "--pairs", "2", "-j", "2", "-q",
    ])
    .arg("--out")
    .arg(out)
    .args(extra)
    .args(BOTS);
    run(&mut cmd)
}

fn shard(out: &Path, k: u32, n: u32, extra: &[&str]) {
    let spec = format!("{k}/{n}");
    let mut args = vec!["--shard", spec.as_str()];
    args.extend_from_slice(extra);
    let (code, stdout, stderr) = league(out, &args);
    assert_eq!(code, 0, "shard {spec}:\n{stdout}\n{stderr}");
}

fn merge(out: &Path, dirs: &[&Path], extra: &[&str]) -> (i32, String, String) {
    let mut cmd = arbiter();
    cmd.arg("merge")
        .arg("--out")
        .arg(out)
        .args(extra)
        .args(dirs);
    run(&mut cmd)
}

/// games.csv without the columns of measured times (the moves' and the games' own),
/// which no two runs share.
fn games_without_times(dir: &Path) -> Vec<Vec<(String, String)>> {
    csv_rows(&dir.join("games.csv"))
        .into_iter()
        .map(|row| {
            row.into_iter()
                .filter(|(k, _)| {
                    !k.ends_with("_max_ms") && !k.ends_with("_mean_ms") && k != "duration_s"
                })
                .collect()
        })
        .collect()
}

fn header(dir: &Path) -> serde_json::Value {
    let text = read(&dir.join("games.jsonl"));
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

fn game_lines(dir: &Path) -> Vec<String> {
    read(&dir.join("games.jsonl"))
        .lines()
        .skip(1)
        .map(str::to_string)
        .collect()
}

/// Three shards of a seed-5 league, in `root/s1`..`root/s3`.
fn three_shards(root: &Path) -> [std::path::PathBuf; 3] {
    let dirs = [1, 2, 3].map(|k| root.join(format!("s{k}")));
    for (k, dir) in dirs.iter().enumerate() {
        shard(dir, k as u32 + 1, 3, &["--seed", "5"]);
    }
    dirs
}

#[test]
fn three_shards_merged_equal_one_uninterrupted_run() {
    let dir = tempfile::tempdir().unwrap();
    let shards = three_shards(dir.path());
    let whole = dir.path().join("whole");
    let (code, stdout, stderr) = league(&whole, &["--seed", "5"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");

    let counts: Vec<usize> = shards.iter().map(|s| game_lines(s).len()).collect();
    assert_eq!(counts.iter().sum::<usize>(), 24, "shard sizes {counts:?}");
    for (k, s) in shards.iter().enumerate() {
        let h = header(s);
        assert_eq!(
            h["shard"],
            serde_json::json!({"index": k + 1, "count": 3}),
            "the header names the shard: {h}"
        );
        assert_eq!(
            h["plan"],
            header(&whole)["plan"],
            "every shard has the whole plan"
        );
    }

    let merged = dir.path().join("merged");
    let dirs: Vec<&Path> = shards.iter().map(|s| s.as_path()).collect();
    let (code, stdout, stderr) = merge(&merged, &dirs, &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stdout.contains("merged 24 of 24 games from 3 of 3 shards"),
        "{stdout}"
    );

    for file in ["standings.csv", "pairwise.csv", "points_matrix.csv"] {
        assert_eq!(
            read(&merged.join(file)),
            read(&whole.join(file)),
            "{file}: merged shards and one run differ"
        );
    }
    assert_eq!(
        games_without_times(&merged),
        games_without_times(&whole),
        "games.csv: merged shards and one run differ"
    );
    // The report comes with the merge, and reads as the one run's.
    assert!(stdout.contains("index.html"), "{stdout}");
    for file in ["report/report.md", "report/report.tex"] {
        // report.tex's labels are named after each run's own folder.
        assert_eq!(
            read(&merged.join(file)).replace("arbiter-merged-", "arbiter-whole-"),
            read(&whole.join(file)),
            "{file}: merged shards and one run differ"
        );
    }
    // The merged journal: the plan without a shard, then the shards' own game lines, in
    // id order.
    let h = header(&merged);
    assert_eq!(h["plan"], header(&whole)["plan"]);
    assert!(h.get("shard").is_none(), "a merged journal is whole: {h}");
    let lines = game_lines(&merged);
    let ids: Vec<u64> = lines
        .iter()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["game"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(
        ids,
        (0..24).collect::<Vec<_>>(),
        "merged journal in id order"
    );
    let mut from_shards: Vec<String> = shards.iter().flat_map(|s| game_lines(s)).collect();
    let mut merged_sorted = lines.clone();
    from_shards.sort();
    merged_sorted.sort();
    assert_eq!(merged_sorted, from_shards, "the shards' records, unchanged");

    // An ordinary tournament folder: `table` rebuilds the same tables, and a run with the
    // same settings finds nothing left to play.
    let before = read(&merged.join("standings.csv"));
    let (code, stdout, stderr) = run(arbiter().arg("table").arg(&merged));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert_eq!(read(&merged.join("standings.csv")), before);
    let (code, stdout, stderr) = league(&merged, &["--seed", "5"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stdout.contains("24 of 24 games in") && stdout.contains("this run played 0"),
        "a resume of the merged folder plays nothing:\n{stdout}"
    );
}

#[test]
fn a_sharded_gauntlet_merges_to_the_unsharded_one() {
    let dir = tempfile::tempdir().unwrap();
    let gauntlet = |out: &Path, extra: &[&str]| {
        let mut cmd = arbiter();
        cmd.args([
            "gauntlet", "--game", "asalto", "--pairs", "3", "-q", "--seed", "2",
        ])
        .args([
            "--candidate",
            "builtin:greedy",
            "--baseline",
            "builtin:random",
        ])
        .args(["r2=builtin:random"])
        .arg("--out")
        .arg(out)
        .args(extra);
        let (code, stdout, stderr) = run(&mut cmd);
        assert_eq!(code, 0, "{stdout}\n{stderr}");
    };
    let (a, b, whole, merged) = (
        dir.path().join("a"),
        dir.path().join("b"),
        dir.path().join("whole"),
        dir.path().join("merged"),
    );
    gauntlet(&a, &["--shard", "1/2"]);
    gauntlet(&b, &["--shard", "2/2"]);
    gauntlet(&whole, &[]);
    // The folders may be given in any order.
    let (code, stdout, stderr) = merge(&merged, &[&b, &a], &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert_eq!(
        read(&merged.join("standings.csv")),
        read(&whole.join("standings.csv"))
    );
    assert_eq!(games_without_times(&merged), games_without_times(&whole));
}

/// Runs a merge that must be refused: exit 2, every `expected` part in the message, and
/// no journal written.
fn refused(out: &Path, dirs: &[&Path], expected: &[&str]) {
    let (code, stdout, stderr) = merge(out, dirs, &[]);
    assert_eq!(code, 2, "stdout:\n{stdout}\nstderr:\n{stderr}");
    for part in expected {
        assert!(stderr.contains(part), "`{part}` in:\n{stderr}");
    }
    assert!(
        !out.join("games.jsonl").exists(),
        "a refused merge wrote a journal"
    );
}

#[test]
fn merge_refuses_shards_that_do_not_fit_together_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let [s1, s2, s3] = three_shards(dir.path());
    let out = dir.path().join("out");

    // Another seed: another plan, named with both folders.
    let other = dir.path().join("other");
    shard(&other, 3, 3, &["--seed", "6"]);
    refused(
        &out,
        &[&s1, &s2, &other],
        &[
            "other settings",
            &format!("seed 5 in {}, 6 in {}", s1.display(), other.display()),
        ],
    );

    // The same shard twice.
    refused(
        &out,
        &[&s1, &s2, &s2],
        &[&format!(
            "{} and {} are both shard 2/3",
            s2.display(),
            s2.display()
        )],
    );

    // A shard of another count.
    let halves = dir.path().join("half");
    shard(&halves, 2, 2, &["--seed", "5"]);
    refused(&out, &[&s1, &halves], &["is shard 2/2"]);

    // A missing shard.
    refused(&out, &[&s1, &s3], &["missing shard: 2/3", "add --partial"]);

    // A game missing from a shard: its last line removed.
    let journal = s2.join("games.jsonl");
    let whole_text = read(&journal);
    let mut lines: Vec<&str> = whole_text.lines().collect();
    let last = lines.pop().unwrap();
    let last_id = serde_json::from_str::<serde_json::Value>(last).unwrap()["game"]
        .as_u64()
        .unwrap();
    std::fs::write(&journal, lines.join("\n") + "\n").unwrap();
    refused(
        &out,
        &[&s1, &s2, &s3],
        &[&format!(
            "missing 1 game of the shards given (unfinished shards): {last_id}"
        )],
    );

    // A game of shard 1 copied into shard 2's journal: in two folders, and not shard 2's.
    let stray = game_lines(&s1).remove(0);
    let stray_id = serde_json::from_str::<serde_json::Value>(&stray).unwrap()["game"]
        .as_u64()
        .unwrap();
    std::fs::write(&journal, format!("{whole_text}{stray}\n")).unwrap();
    refused(
        &out,
        &[&s1, &s2, &s3],
        &[&format!(
            "game {stray_id} is in both {} and {}",
            s1.display(),
            s2.display()
        )],
    );
    refused(
        &out,
        &[&s2, &s3],
        &[&format!(
            "game {stray_id} belongs to shard 1/3, not to this folder's shard 2/3"
        )],
    );
    std::fs::write(&journal, &whole_text).unwrap();

    // A folder of a whole run is no shard.
    let whole = dir.path().join("whole");
    let (code, _, stderr) = league(&whole, &["--seed", "5"]);
    assert_eq!(code, 0, "{stderr}");
    refused(&out, &[&s1, &whole], &["not one shard"]);

    // A folder without a journal.
    refused(
        &out,
        &[&s1, &dir.path().join("nowhere")],
        &["cannot read", "nowhere"],
    );

    // The merged folder must not hold a journal: the whole run's is left as it was.
    let before = read(&whole.join("games.jsonl"));
    let (code, _, stderr) = merge(&whole, &[&s1, &s2, &s3], &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("already holds a journal"), "{stderr}");
    assert_eq!(read(&whole.join("games.jsonl")), before);
}

#[test]
fn a_partial_merge_says_what_is_missing_and_a_resume_plays_only_that() {
    let dir = tempfile::tempdir().unwrap();
    let [s1, _, s3] = three_shards(dir.path());
    let merged = dir.path().join("merged");
    let (code, stdout, stderr) = merge(&merged, &[&s1, &s3], &["--partial"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stderr.contains("missing shard: 2/3"), "{stderr}");
    let held = game_lines(&s1).len() + game_lines(&s3).len();
    assert!(
        stdout.contains(&format!("merged {held} of 24 games from 2 of 3 shards")),
        "{stdout}"
    );
    assert_eq!(game_lines(&merged).len(), held);

    // The missing shard is played by resuming the merged folder as a whole run.
    let (code, stdout, stderr) = league(&merged, &["--seed", "5"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stdout.contains(&format!("this run played {}", 24 - held)),
        "{stdout}"
    );
    let whole = dir.path().join("whole");
    let (code, _, stderr) = league(&whole, &["--seed", "5"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(
        read(&merged.join("standings.csv")),
        read(&whole.join("standings.csv"))
    );
}

#[test]
fn a_shard_folder_resumes_only_as_the_same_shard() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("s1");
    shard(&out, 1, 3, &[]);
    let (code, _, stderr) = league(&out, &["--shard", "2/3"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("holds shard 1/3 of the schedule, and this run asks for shard 2/3"),
        "{stderr}"
    );
    let (code, _, stderr) = league(&out, &[]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr
            .contains("holds shard 1/3 of the schedule, and this run asks for the whole schedule"),
        "{stderr}"
    );
    // The same shard again finds its games played.
    let (code, stdout, stderr) = league(&out, &["--shard", "1/3"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("this run played 0"), "{stdout}");
    // Its tables are the shard's, and `table` says so.
    let (code, _, stderr) = run(arbiter().arg("table").arg(&out));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("holds shard 1/3 of the schedule: these tables count its games only"),
        "{stderr}"
    );
}

#[test]
fn bad_shard_arguments_are_refused_with_what_was_expected() {
    let dir = tempfile::tempdir().unwrap();
    for (arg, says) in [
        ("0/3", "counted from 1, so K must be between 1 and 3"),
        ("4/3", "only 3 shards, so K must be between 1 and 3"),
        ("1/0", "N, the number of shards, must be at least 1"),
        ("x", "expected K/N"),
    ] {
        let (code, _, stderr) = league(&dir.path().join("out"), &["--shard", arg]);
        assert_eq!(code, 2, "--shard {arg}: {stderr}");
        assert!(
            stderr.contains("--shard") && stderr.contains(says),
            "--shard {arg}: `{says}` in:\n{stderr}"
        );
    }
    assert!(
        !dir.path().join("out").exists(),
        "a refused shard wrote nothing"
    );
    let (code, _, stderr) = run(arbiter()
        .args([
            "sprt",
            "--game",
            "asalto",
            "--candidate",
            "builtin:greedy",
            "--baseline",
            "builtin:random",
            "--elo0",
            "0",
            "--elo1",
            "10",
            "--shard",
            "1/2",
            "--out",
        ])
        .arg(dir.path().join("sprt")));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("an SPRT is sequential"),
        "sprt --shard is refused with the reason:\n{stderr}"
    );
}

#[test]
fn run_shards_go_to_shard_folders_of_the_tournament_and_merge_to_the_whole_run() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("tournaments.toml"),
        "[tournaments.t]\ngame = \"asalto\"\npairs = 2\nseed = 3\njobs = 2\nbots = [\n  \
         { spec = \"builtin:random\" },\n  { spec = \"builtin:greedy\" },\n  \
         { name = \"r2\", spec = \"builtin:random\" },\n]\n",
    )
    .unwrap();
    let run_t = |extra: &[&str]| {
        let mut cmd = arbiter();
        cmd.current_dir(dir.path())
            .args(["run", "t", "-q"])
            .args(extra);
        let (code, stdout, stderr) = run(&mut cmd);
        assert_eq!(code, 0, "run t {extra:?}:\n{stdout}\n{stderr}");
    };
    run_t(&["--shard", "1/2"]);
    run_t(&["--shard", "2/2"]);
    run_t(&[]);
    let results = dir.path().join("results/t");
    let (s1, s2) = (results.join("shard-1"), results.join("shard-2"));
    assert!(
        s1.join("games.jsonl").exists() && s2.join("games.jsonl").exists(),
        "each shard in its own folder of results/t"
    );
    let merged = dir.path().join("merged");
    let (code, stdout, stderr) = merge(&merged, &[&s1, &s2], &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert_eq!(
        read(&merged.join("standings.csv")),
        read(&results.join("standings.csv"))
    );
}
