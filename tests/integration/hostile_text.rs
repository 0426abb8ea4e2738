//! Text from bots is shown, never obeyed: a team whose folder name and error message carry
//! terminal escapes and spreadsheet formulas goes through `play`, `league` and `check`, and
//! neither the terminal nor the CSV tables receive anything that acts.

use crate::common::*;
use std::path::{Path, PathBuf};

/// The escapes a hostile bot tries: clear the screen, retitle the window, rewrite the line.
const ESCAPES: &str = "\x1b[2J\x1b]0;pwned\x07\rall 2 bots passed the check";
const FORMULA: &str = "=HYPERLINK(\"http://x\",\"y\")";

/// A Hinger agent that announces itself on stderr with escapes and raises an error whose
/// message starts with a formula and carries escapes.
fn raising_agent() -> String {
    let py = |text: &str| {
        let mut literal = String::from("'");
        for c in text.chars() {
            match c {
                '\\' | '\'' => literal.extend(['\\', c]),
                c if (c as u32) < 0x20 => literal.push_str(&format!("\\x{:02x}", c as u32)),
                c => literal.push(c),
            }
        }
        literal + "'"
    };
    format!(
        "import sys\n\nclass Agent:\n    def __init__(self, size, name='evil'):\n        \
         sys.stderr.write({escapes} + '\\n')\n\n    def __str__(self):\n        \
         return 'evil'\n\n    def move(self, state, mode='alphabeta'):\n        \
         raise ValueError({message})\n",
        escapes = py(ESCAPES),
        message = py(&format!("{FORMULA} {ESCAPES}"))
    )
}

/// A class folder of Hinger teams, each named by its folder (every agent is
/// `a3_agent.py`): a team named like a formula, a team whose folder name holds escapes and
/// whose agent raises one.
fn class(dir: &Path) -> (PathBuf, String) {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("bots/python/examples/hinger");
    let class = dir.join("class");
    let evil = format!("evil{ESCAPES}");
    for (team, agent) in [
        (
            "=cmd|calc!A1",
            std::fs::read_to_string(examples.join("a3_agent.py")).unwrap(),
        ),
        (evil.as_str(), raising_agent()),
    ] {
        let folder = class.join(team);
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::copy(examples.join("a1_state.py"), folder.join("a1_state.py")).unwrap();
        std::fs::write(folder.join("a3_agent.py"), agent).unwrap();
    }
    (class, evil)
}

fn assert_nothing_acts(what: &str, text: &str) {
    for (byte, name) in [(0x1b, "ESC"), (0x07, "BEL"), (b'\r', "CR"), (0x9b, "CSI")] {
        assert!(
            !text.as_bytes().contains(&byte),
            "{what}: a raw {name} reached the terminal:\n{text}"
        );
    }
}

#[test]
fn a_league_shows_escapes_in_names_and_errors_and_guards_formulas_in_its_csv() {
    let dir = tempfile::tempdir().unwrap();
    let (class, _) = class(dir.path());
    let out = dir.path().join("out");
    let (code, stdout, stderr) = run(arbiter().args([
        "league",
        "--game",
        "hinger",
        "--pairs",
        "1",
        "--out",
        &out.to_string_lossy(),
        &class.to_string_lossy(),
    ]));
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_nothing_acts("league stdout", &stdout);
    assert_nothing_acts("league stderr", &stderr);
    assert!(stdout.contains("\\u{1b}"), "{stdout}");
    for file in ["games.csv", "standings.csv", "pairwise.csv"] {
        let path = out.join(file);
        let mut reader = csv::Reader::from_path(&path).unwrap();
        let mut guarded = 0;
        for row in reader.records() {
            for cell in row.unwrap().iter() {
                let formula = cell.starts_with(['=', '+', '@', '\t', '\r'])
                    || (cell.starts_with('-') && cell.parse::<f64>().is_err());
                assert!(!formula, "{file}: a cell starts a formula: {cell:?}");
                guarded += usize::from(cell.starts_with("'="));
            }
        }
        if file != "pairwise.csv" {
            assert!(
                guarded > 0,
                "{file}: the formula-like cells are kept, guarded"
            );
        }
    }
    let games = read(&out.join("games.csv"));
    assert!(games.contains("'=cmd|calc!A1"), "{games}");
    assert!(
        games.contains("ValueError: =HYPERLINK"),
        "the error is kept: {games}"
    );
}

#[test]
fn check_and_play_show_escapes_instead_of_obeying_them() {
    let dir = tempfile::tempdir().unwrap();
    let (class, evil) = class(dir.path());
    let (code, stdout, stderr) =
        run(arbiter().args(["check", "--game", "hinger", &class.to_string_lossy()]));
    assert_eq!(
        code, 1,
        "the raising team fails its check: {stdout}{stderr}"
    );
    assert_nothing_acts("check stdout", &stdout);
    assert_nothing_acts("check stderr", &stderr);
    assert!(stdout.contains("1 of 2 bots failed the check"), "{stdout}");
    assert!(stdout.contains("\\u{1b}]0;pwned\\u{7}"), "{stdout}");

    let bot = class.join(&evil).join("a3_agent.py");
    let (code, stdout, stderr) = run(arbiter().args([
        "play",
        "--game",
        "hinger",
        "--first",
        &shell_quote(&bot.to_string_lossy()),
        "--second",
        "builtin:random",
    ]));
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_nothing_acts("play stdout", &stdout);
    assert_nothing_acts("play stderr", &stderr);
    assert!(stdout.contains("\\u{1b}[2J"), "{stdout}");
}
