//! Differential play of course Java players: scripted players (a move onto a stone, off the
//! board, `null`, an exception, a throwing constructor, at chosen moves) and players that
//! simulate on a `GomokuBoard` of their own play each game twice: through arbiter (javac,
//! the driver, the referee and the Rust rules) and through a referee in the course's
//! manner on arbiter's `GomokuBoard`, all in one JVM (tests/data/gomoku/java/
//! CourseReferee.java). The winner and the stones placed agree. Skipped without a JDK.

use crate::adapters_java::have_jdk;
use arbiter::bots::Player;
use arbiter::bots::java::{self, JavaPlayer};
use arbiter::games::gomoku::Gomoku;
use arbiter::record::GameRecord;
use arbiter::referee::{MatchConfig, play_game};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The games, white's file then black's (in tests/data/gomoku/java/players/).
const GAMES: [(&str, &str); 22] = [
    ("Seq", "Seq"),
    ("Seq", "Backward"),
    ("Backward", "Seq"),
    ("Simulator", "Seq"),
    ("Seq", "Simulator"),
    ("Simulator", "Simulator"),
    ("Simulator", "Backward"),
    ("Backward", "Simulator"),
    ("Columns", "Seq"),
    ("Simulator", "Columns"),
    ("Pattern", "Pattern"),
    ("Seq", "Pattern"),
    ("Pattern", "Simulator"),
    ("OccupiedAt3", "Seq"),
    ("Seq", "OccupiedAt3"),
    ("OffBoardAt2", "Simulator"),
    ("Simulator", "NegativeAt4"),
    ("NullAt5", "Seq"),
    ("Seq", "ThrowsAt3"),
    ("Pattern", "ThrowsAt3"),
    ("ThrowsInConstructor", "Seq"),
    ("Seq", "ThrowsInConstructor"),
];

fn here() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/gomoku/java")
}

fn player_file(stem: &str) -> PathBuf {
    here().join("players").join(format!("{stem}.java"))
}

/// Winner (`white`, `black` or `draw`) and stones placed, per game, from the course-style
/// referee: the players and the environment compiled together, every game in one JVM.
fn course_results(classes: &BTreeMap<&str, String>) -> Vec<(String, u32)> {
    let dir = tempfile::tempdir().unwrap();
    let env = dir.path().join("env");
    let out = dir.path().join("out");
    std::fs::create_dir_all(&env).unwrap();
    for (name, source) in java::ENVIRONMENT {
        std::fs::write(env.join(format!("{name}.java")), source).unwrap();
    }
    let sourcepath = std::env::join_paths([here().join("players"), env]).unwrap();
    let mut javac = Command::new("javac");
    javac
        .arg("-d")
        .arg(&out)
        .arg("-sourcepath")
        .arg(&sourcepath)
        .arg(here().join("CourseReferee.java"));
    for stem in classes.keys() {
        javac.arg(player_file(stem));
    }
    let compiled = javac.output().unwrap();
    assert!(
        compiled.status.success(),
        "{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let games: Vec<String> = GAMES
        .iter()
        .map(|(w, b)| format!("{}:{}", classes[w], classes[b]))
        .collect();
    let ran = Command::new("java")
        .arg("-Djava.awt.headless=true")
        .arg("-cp")
        .arg(&out)
        .arg("CourseReferee")
        .args(&games)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&ran.stdout);
    assert!(
        ran.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&ran.stderr)
    );
    let results: Vec<(String, u32)> = stdout
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            (fields[2].to_string(), fields[3].parse().unwrap())
        })
        .collect();
    assert_eq!(results.len(), GAMES.len(), "{stdout}");
    results
}

/// One game through arbiter, both players Java.
fn through_arbiter(white: &str, black: &str) -> GameRecord {
    let mut w = JavaPlayer::new(&player_file(white), None, &BTreeMap::new());
    let mut b = JavaPlayer::new(&player_file(black), None, &BTreeMap::new());
    let players: [&mut dyn Player<Gomoku>; 2] = [&mut w, &mut b];
    let config = MatchConfig {
        move_limit: Duration::from_secs(10),
        init_limit: Duration::from_secs(30),
        seed: 1,
        ..MatchConfig::default()
    };
    play_game(&Gomoku, players, [white, black], &config, &mut |_| {})
}

fn stones(record: &GameRecord) -> u32 {
    let rows = record.final_board.as_array().expect("rows");
    rows.iter()
        .map(|row| row.as_str().unwrap().chars().filter(|c| *c != '.').count() as u32)
        .sum()
}

#[test]
fn java_players_get_the_same_winner_and_stones_through_arbiter_as_on_the_course_board() {
    if !have_jdk("java_players_get_the_same_winner...") {
        return;
    }
    let mut classes: BTreeMap<&str, String> = BTreeMap::new();
    for (w, b) in GAMES {
        for stem in [w, b] {
            let class = java::player_class(&player_file(stem)).expect("one player class");
            classes.insert(stem, class);
        }
    }
    // Found by what it is, not by its file's name.
    assert_eq!(classes["Backward"], "BackwardPlayer");
    let course = course_results(&classes);
    // Two games at a time: each starts two JVMs.
    let records: Vec<GameRecord> = GAMES
        .chunks(2)
        .flat_map(|pair| {
            std::thread::scope(|s| {
                let handles: Vec<_> = pair
                    .iter()
                    .map(|&(w, b)| s.spawn(move || through_arbiter(w, b)))
                    .collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap())
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    let mut reasons = std::collections::BTreeSet::new();
    for (((white, black), (winner, placed)), record) in GAMES.iter().zip(&course).zip(&records) {
        let ours = record.winner.clone().unwrap_or_else(|| "draw".into());
        assert_eq!(
            (ours.as_str(), stones(record)),
            (winner.as_str(), *placed),
            "{white} (white) vs {black} (black): arbiter says {} by {} after {} stones, the \
             course board {winner} after {placed}: {record:?}",
            ours,
            record.reason,
            stones(record)
        );
        reasons.insert(record.reason.clone());
    }
    // The games cover wins, early draws, illegal moves and every kind of failure.
    for reason in ["five_in_row", "no_window_left", "illegal_move", "exception"] {
        assert!(
            reasons.contains(reason),
            "no game ended by {reason}: {reasons:?}"
        );
    }
}
