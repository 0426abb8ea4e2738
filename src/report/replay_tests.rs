//! Tests of the report's replays: written block by block, stale blocks removed.

use super::*;
use crate::replay::files::BLOCK_CALLBACK;
use crate::report::replays_known::section;
use crate::tournament::journal::read_plan;
use serde_json::Value;

/// The block files in `folder`, by their names alone.
fn block_files(folder: &Path) -> usize {
    std::fs::read_dir(folder).map_or(0, |entries| {
        entries
            .filter_map(Result::ok)
            .filter(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.strip_suffix(".js")
                    .is_some_and(|n| n.len() == 6 && n.bytes().all(|b| b.is_ascii_digit()))
            })
            .count()
    })
}

/// A report of a long journal never holds every game's replay: block files are
/// written while the journal is still being read, and the games read whose block is
/// not yet on the disk stay within a few blocks however many games there are.
#[test]
fn replays_are_written_block_by_block_while_the_journal_is_read() {
    let journal = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/report/league")
        .join(crate::tournament::journal::JOURNAL_FILE);
    let mut records = Vec::new();
    let plan = for_each_record(&journal, |_, record| {
        records.push(record);
        Ok(())
    })
    .expect("the fixed journal reads");
    let bound = (tasks_in_flight() + 2) * GAMES_PER_BLOCK;
    let games = 4 * bound + 5;
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join(REPLAYS_DIR);
    let (html, most_held) = section_reading(&plan, dir.path(), true, |visit| {
        let mut most_held = 0;
        for i in 0..games {
            let held = i - block_files(&folder) * GAMES_PER_BLOCK;
            most_held = most_held.max(held);
            visit(i as u64, records[i % records.len()].clone())?;
        }
        Ok(most_held)
    })
    .expect("the section is made");
    assert!(
        most_held <= bound,
        "{most_held} games read were not yet written to their block (at most {bound} \
         expected of {games})"
    );
    assert_eq!(block_files(&folder), games.div_ceil(GAMES_PER_BLOCK));
    // Every game is listed, in order, and the page holds no replay itself.
    let html = html.to_html();
    let start = html.find("id=\"arb-games-index\">").expect("the index") + 21;
    let end = start + html[start..].find("</script>").expect("its end");
    let index: Value = serde_json::from_str(&html[start..end]).expect("JSON");
    let ids: Vec<u64> = index["games"]
        .as_array()
        .expect("games")
        .iter()
        .map(|row| row[0].as_u64().expect("an id"))
        .collect();
    assert_eq!(ids, (0..games as u64).collect::<Vec<_>>());
    assert_eq!(index["blocks"], json!(games.div_ceil(GAMES_PER_BLOCK)));
    // The last block holds the last five games, under their ids.
    let last = std::fs::read_to_string(folder.join(block_file(games / GAMES_PER_BLOCK)))
        .expect("the last block");
    let first = games / GAMES_PER_BLOCK * GAMES_PER_BLOCK;
    let ids: Vec<String> = (first..games).map(|i| i.to_string()).collect();
    assert!(
        last.starts_with(&format!(
            "{BLOCK_CALLBACK}({},[{}],[\"",
            games / GAMES_PER_BLOCK,
            ids.join(",")
        )),
        "{}",
        &last[..last.len().min(200)]
    );
}

/// A report rewritten over an older one leaves no block of the older one past its own
/// (the page would never load it, but the folder would hold games of another journal),
/// nor a temporary file of a write cut short; other files are left alone.
#[test]
fn a_rewritten_report_removes_the_blocks_it_no_longer_has() {
    let journal = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/report/league")
        .join(crate::tournament::journal::JOURNAL_FILE);
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join(REPLAYS_DIR);
    std::fs::create_dir_all(&folder).unwrap();
    for stale in ["000001.js", "000123.js", ".000000.js.tmp"] {
        std::fs::write(folder.join(stale), "stale").unwrap();
    }
    std::fs::write(folder.join("notes.txt"), "mine").unwrap();
    let plan = read_plan(&journal).expect("a plan");
    section(&plan, &journal, dir.path()).expect("the section is made");
    let mut names: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["000000.js", "notes.txt"]);
    let block = std::fs::read_to_string(folder.join("000000.js")).unwrap();
    assert!(block.starts_with(&format!("{BLOCK_CALLBACK}(0,[")));
}
