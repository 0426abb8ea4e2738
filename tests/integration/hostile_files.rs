//! Crafted journals and numbers: every reader of a tournament folder (table, report, resume,
//! merge) refuses a line that claims more than a record can hold, and a schedule of billions
//! of games is refused before it is built, each in little memory and naming the file, the
//! line and why.

use crate::common::*;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::Path;

/// Address space arbiter may use in these tests: the issue's bound.
const CAP_BYTES: u64 = 300 << 20;

/// `arbiter ARGS` under an address-space cap: a reader that builds what a line claims
/// dies instead of finishing.
fn capped(args: &[&str]) -> (i32, String, String) {
    let mut cmd = arbiter();
    cmd.args(args);
    // SAFETY: setrlimit only, between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let limit = libc::rlimit {
                rlim_cur: CAP_BYTES,
                rlim_max: CAP_BYTES,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    };
    run(&mut cmd)
}

fn league(out: &Path, extra: &[&str]) -> (i32, String, String) {
    let out = out.to_string_lossy().into_owned();
    let mut args = vec!["league", "--game", "gomoku", "--pairs", "1", "--seed", "3"];
    args.extend_from_slice(extra);
    args.extend(["--out", &out, "builtin:random", "builtin:greedy"]);
    capped(&args)
}

fn put_varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn put_text(out: &mut Vec<u8>, text: &str) {
    put_varint(out, text.len() as u64);
    out.extend_from_slice(text.as_bytes());
}

/// A real game line of `journal` rewritten as an attacker would: `plies` turns in its
/// head, and `moves` moves of zeros packed in (an 80 KB line for ten million moves).
fn crafted_line(journal: &Path, plies: u64, moves: u64) -> String {
    use base64::Engine as _;
    let text = read(journal);
    let mut line: serde_json::Value =
        serde_json::from_str(text.lines().nth(1).expect("a game line")).unwrap();
    line["game"] = serde_json::json!(99);
    line["record"]["plies"] = serde_json::json!(plies);
    let mut raw = Vec::new();
    put_text(
        &mut raw,
        r#"{"start_board":null,"opening":[],"final_board":null,"logs":{}}"#,
    );
    put_varint(&mut raw, 1);
    put_text(&mut raw, "white");
    put_varint(&mut raw, 1);
    put_text(&mut raw, "0");
    put_varint(&mut raw, moves);
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(&raw).unwrap();
    let zeros = vec![0u8; 1 << 20];
    let mut left = moves * 6;
    while left > 0 {
        let n = left.min(zeros.len() as u64) as usize;
        z.write_all(&zeros[..n]).unwrap();
        left -= n as u64;
    }
    line["packed"] =
        serde_json::json!(base64::engine::general_purpose::STANDARD.encode(z.finish().unwrap()));
    line.to_string()
}

fn append(journal: &Path, line: &str) {
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(journal)
        .unwrap();
    writeln!(file, "{line}").unwrap();
}

#[test]
fn a_journal_line_claiming_ten_million_moves_is_refused_by_every_reader_in_little_memory() {
    // Ten million moves claimed in the head, ten million packed under a head of ten turns,
    // and more moves packed than the head's turns.
    for (plies, moves, why) in [
        (10_000_000, 10_000_000, "the record claims 10000000 turns"),
        (10, 10_000_000, "inflates past"),
        (
            2000,
            3000,
            "claims 3000 moves, more than the record's 2000 turns",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("league");
        let (code, stdout, stderr) = league(&out, &[]);
        assert_eq!(code, 0, "{stdout}{stderr}");
        let journal = out.join("games.jsonl");
        let line = crafted_line(&journal, plies, moves);
        assert!(line.len() < 200_000, "{} bytes", line.len());
        append(&journal, &line);
        let folder = out.to_string_lossy().into_owned();
        let where_ = format!("{}:4:", journal.display());
        for (what, result) in [
            ("table", capped(&["table", &folder])),
            ("report", capped(&["report", &folder])),
            ("resume", league(&out, &[])),
        ] {
            let (code, stdout, stderr) = result;
            assert_eq!(code, 2, "{what}: {stdout}{stderr}");
            assert!(
                stderr.contains(&where_) && stderr.contains(why),
                "{what} ({plies} turns, {moves} moves): {stderr}"
            );
        }
    }
}

#[test]
fn a_journal_line_of_no_end_is_refused_without_being_held() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("league");
    let (code, stdout, stderr) = league(&out, &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    let journal = out.join("games.jsonl");
    // 400 MB of one line, written sparse-free but quickly, without a newline.
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(&journal)
        .unwrap();
    let block = vec![b'x'; 1 << 20];
    for _ in 0..400 {
        file.write_all(&block).unwrap();
    }
    file.write_all(b"\n{}\n").unwrap();
    drop(file);
    let (code, stdout, stderr) = capped(&["table", &out.to_string_lossy()]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stderr.contains(":4:") && stderr.contains("longer than 64 MiB"),
        "{stderr}"
    );
}

#[test]
fn four_billion_pairs_are_refused_before_a_schedule_is_built() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("league");
    let (code, stdout, stderr) = capped(&[
        "league",
        "--game",
        "gomoku",
        "--pairs",
        "4294967295",
        "--out",
        &out.to_string_lossy(),
        "builtin:random",
        "builtin:greedy",
    ]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stderr.contains("--pairs (pairs) 4294967295 makes 8589934590 games")
            && stderr.contains("at most 1000000 games"),
        "{stderr}"
    );
    let (code, stdout, stderr) = capped(&[
        "sprt",
        "--game",
        "gomoku",
        "--max-pairs",
        "4294967295",
        "--elo0",
        "0",
        "--elo1",
        "10",
        "--out",
        &out.to_string_lossy(),
        "--candidate",
        "builtin:random",
        "--baseline",
        "builtin:greedy",
    ]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(stderr.contains("--max-pairs"), "{stderr}");
}

#[test]
fn a_shard_header_claiming_four_billion_pairs_is_refused_by_merge() {
    let dir = tempfile::tempdir().unwrap();
    let mut shards = Vec::new();
    for k in 1..=2 {
        let out = dir.path().join(format!("shard{k}"));
        let (code, stdout, stderr) = league(&out, &["--shard", &format!("{k}/2")]);
        assert_eq!(code, 0, "{stdout}{stderr}");
        let journal = out.join("games.jsonl");
        let text = read(&journal).replacen("\"pairs\":1,", "\"pairs\":4294967295,", 1);
        std::fs::write(&journal, text).unwrap();
        shards.push(out.to_string_lossy().into_owned());
    }
    let merged = dir.path().join("merged").to_string_lossy().into_owned();
    let (code, stdout, stderr) = capped(&["merge", "--out", &merged, &shards[0], &shards[1]]);
    assert_eq!(code, 2, "{stdout}{stderr}");
    assert!(
        stderr.contains("games.jsonl:1:") && stderr.contains("4294967295 makes"),
        "{stderr}"
    );
}
