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

/// What a student puts in a Markdown file or a spreadsheet to make it act: an image that
/// calls a server, a script link, terminal escapes and a right-to-left override.
const MARKUP: &str =
    "![x](https://evil.example/t.png) [link](javascript:alert(1)) \x1b[31m\x07\u{202e}";
/// A team file name that is live HTML where it is rendered unescaped.
const HTML_NAME: &str = "Team02<img src=x onerror=alert(1)>";

/// A class of two Asalto teams: the example random bot, and a team whose file is named
/// [`HTML_NAME`] and whose bot raises an error whose message is [`MARKUP`] at its first move.
fn markup_class(dir: &Path) -> PathBuf {
    let class = dir.join("class");
    std::fs::create_dir_all(&class).unwrap();
    std::fs::write(class.join("Team01.py"), course_random_bot()).unwrap();
    let message: String = MARKUP
        .chars()
        .map(|c| match c {
            c if c.is_ascii_graphic() && c != '\\' && c != '\'' || c == ' ' => c.to_string(),
            c => format!("\\u{:04x}", c as u32),
        })
        .collect();
    let raising = format!(
        "{}\n\nclass Player(Player):\n    def play_rebel(self, board):\n        \
         raise ValueError('{message}')\n\n    def play_officer(self, board):\n        \
         raise ValueError('{message}')\n",
        course_random_bot()
    );
    std::fs::write(class.join(format!("{HTML_NAME}.py")), raising).unwrap();
    class
}

/// The Markdown `text` without its fenced code blocks, checking that each block is fenced
/// by more backticks than any run of them inside it and is closed.
fn rendered_outside_code_blocks(text: &str, what: &str) -> String {
    let mut out = String::new();
    let mut fence: Option<usize> = None;
    for line in text.lines() {
        let ticks = line.chars().take_while(|&c| c == '`').count();
        match fence {
            Some(open) if ticks >= open && line.trim() == "`".repeat(ticks) => fence = None,
            Some(open) => {
                let longest = line.split(|c| c != '`').map(str::len).max().unwrap_or(0);
                assert!(
                    longest < open,
                    "{what}: a block its text could close:\n{text}"
                );
            }
            None if ticks >= 3 => fence = Some(ticks),
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    assert!(fence.is_none(), "{what}: a block left open:\n{text}");
    out
}

/// Whether `c` is a control character (but a line's end) or a bidirectional mark,
/// override or isolate.
fn acts(c: char) -> bool {
    (c.is_control() && c != '\n')
        || matches!(c, '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[test]
fn a_team_named_like_html_raising_markup_gets_no_live_html_link_image_or_control_into_any_output() {
    let dir = tempfile::tempdir().unwrap();
    let class = markup_class(dir.path());
    let out = dir.path().join("out");
    let (code, stdout, stderr) = run(arbiter().args([
        "league",
        "--pairs",
        "1",
        "--out",
        &out.to_string_lossy(),
        &class.to_string_lossy(),
    ]));
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert_nothing_acts("league stdout", &stdout);
    let feedback = out.join("feedback");
    let mut markdown: Vec<PathBuf> = std::fs::read_dir(&feedback)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(markdown.len(), 2, "{markdown:?}");
    markdown.push(out.join("report/report.md"));
    for path in &markdown {
        let whole = read(path);
        let what = path.display();
        // A team's whole error is shown as written in a fenced code block, where nothing
        // renders: the block must be one its text cannot close, and the rest of the file
        // is what renders.
        let text = rendered_outside_code_blocks(&whole, &what.to_string());
        assert!(
            !whole.chars().any(acts),
            "{what}: a control character:\n{whole}"
        );
        assert!(
            !text.contains("<img") && !text.contains('<'),
            "{what}: HTML:\n{text}"
        );
        // The report's own plots are its only images; no text of a bot is a link.
        for (at, _) in text.match_indices("](") {
            assert!(
                text[at..].starts_with("](plots/"),
                "{what}: a link or an image: {}",
                &text[at.saturating_sub(40)..(at + 40).min(text.len())]
            );
        }
        assert!(!text.contains("://"), "{what}: an autolink:\n{text}");
        for (at, _) in text.match_indices("(javascript:") {
            assert!(
                text[..at].ends_with("]\\"),
                "{what}: a script link:\n{text}"
            );
        }
        assert!(
            !text.chars().any(acts),
            "{what}: a control character:\n{text}"
        );
        // Still recognisable: the name and the message as written, shown.
        assert!(
            text.contains("Team02&lt;img src=x onerror=alert(1)&gt;"),
            "{what}:\n{text}"
        );
    }
    let own = read(&feedback.join(format!("{HTML_NAME}.md")));
    assert!(
        own.contains(
            "![x]\\(https[:]//evil.example/t.png) [link]\\(javascript:alert(1)) \
             \\u{1b}[31m\\u{7}\\u{202e}"
        ),
        "{own}"
    );
    assert!(read(&out.join("report/report.md")).contains("[link]\\(javascript:alert(1))"));
    for file in [
        "games.csv",
        "marks.csv",
        "standings.csv",
        "pairwise.csv",
        "points_matrix.csv",
    ] {
        let path = out.join(file);
        let mut reader = csv::Reader::from_path(&path).unwrap();
        let mut cells: Vec<String> = reader.headers().unwrap().iter().map(String::from).collect();
        for row in reader.records() {
            cells.extend(row.unwrap().iter().map(String::from));
        }
        for cell in &cells {
            assert!(
                !cell.chars().any(acts),
                "{file}: a control character in {cell:?}"
            );
        }
        assert!(
            cells.iter().any(|c| c.contains(HTML_NAME)),
            "{file}: the team is there by its name: {cells:?}"
        );
    }
    for file in ["games.csv", "marks.csv"] {
        let text = read(&out.join(file));
        assert!(
            text.contains("[link](javascript:alert(1)) \\u{1b}[31m\\u{7}\\u{202e}"),
            "{file}: the message, its controls shown: {text}"
        );
    }
}
