//! Outputs kept from a build before the house's rooms moved (tests/data/golden/), that a
//! change of the code's layout must leave byte for byte as they were: every command's
//! `--help`, and the tables, report (with its SVG plots) and feedback of a league of
//! built-ins (whose games a seed decides whatever the machine's speed).

use crate::common::{arbiter, run};
use std::path::{Path, PathBuf};

fn golden() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/golden")
}

/// The first line where `got` and `want` part, for a readable failure.
fn first_difference(got: &str, want: &str) -> String {
    let (got, want): (Vec<&str>, Vec<&str>) = (got.lines().collect(), want.lines().collect());
    let at = (0..got.len().max(want.len()))
        .find(|&i| got.get(i) != want.get(i))
        .unwrap_or(got.len());
    format!(
        "line {}:\n  now: {:?}\n  was: {:?}",
        at + 1,
        got.get(at),
        want.get(at)
    )
}

fn assert_same(what: &str, got: &str, want: &str) {
    assert!(
        got == want,
        "{what} changed; {}",
        first_difference(got, want)
    );
}

/// The subcommands `arbiter --help` lists.
fn commands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_string)
        .collect()
}

#[test]
fn every_commands_help_is_as_it_was() {
    let (code, help, _) = run(arbiter().arg("--help"));
    assert_eq!(code, 0);
    let dir = golden().join("help");
    assert_same(
        "arbiter --help",
        &help,
        &std::fs::read_to_string(dir.join("arbiter.txt")).unwrap(),
    );
    let listed = commands(&help);
    let mut kept: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| {
            e.unwrap()
                .path()
                .file_stem()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name != "arbiter")
        .collect();
    kept.sort();
    let mut sorted = listed.clone();
    sorted.sort();
    assert_eq!(sorted, kept, "the commands against the kept helps");
    for command in listed {
        let (code, got, _) = run(arbiter().args([command.as_str(), "--help"]));
        assert_eq!(code, 0, "{command} --help");
        let want = std::fs::read_to_string(dir.join(format!("{command}.txt"))).unwrap();
        assert_same(&format!("arbiter {command} --help"), &got, &want);
    }
}

#[test]
fn a_league_of_built_ins_writes_its_tables_report_and_feedback_as_it_did() {
    let out = tempfile::tempdir().unwrap();
    let dir = out.path().join("hinger");
    let (code, stdout, stderr) = run(arbiter()
        .args([
            "league",
            "--game",
            "hinger",
            "--rows",
            "4",
            "--cols",
            "5",
            "--density",
            "0.6",
            "--pairs",
            "5",
            "--out",
        ])
        .arg(&dir)
        .args(["builtin:random", "builtin:greedy"]));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let kept = golden().join("hinger");
    let mut files = Vec::new();
    let mut folders = vec![kept.clone()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                folders.push(path);
            } else {
                files.push(path.strip_prefix(&kept).unwrap().to_path_buf());
            }
        }
    }
    files.sort();
    assert!(files.len() >= 10, "{files:?}");
    for file in files {
        let want = std::fs::read_to_string(kept.join(&file)).unwrap();
        let got = std::fs::read_to_string(dir.join(&file))
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        assert_same(&file.display().to_string(), &got, &want);
    }
}
