//! The README runs as written: every `cargo run --release -- ...` command of its shell
//! blocks is run (with 25 ms moves) in a copy of the repository's files, and every
//! link in the repository's Markdown resolves inside the repository.

use crate::common::{copy_tree, run};
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The commands of the README's ```sh blocks, continuation lines joined, comments dropped.
fn readme_commands() -> Vec<String> {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let mut commands = Vec::new();
    let mut in_block = false;
    let mut pending = String::new();
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with("```") {
            in_block = trimmed == "```sh";
            continue;
        }
        if !in_block || trimmed.starts_with('#') || trimmed.is_empty() {
            continue;
        }
        let (body, continued) = match trimmed.strip_suffix('\\') {
            Some(body) => (body, true),
            None => (trimmed, false),
        };
        pending.push_str(body);
        pending.push(' ');
        if !continued {
            // A trailing comment is the reader's, not the shell's.
            let command = match pending.find("  #") {
                Some(i) => pending[..i].trim().to_string(),
                None => pending.trim().to_string(),
            };
            commands.push(command);
            pending.clear();
        }
    }
    commands
}

/// `args` with `flag`'s value set to `value`, added after the subcommand if absent.
fn set_flag(args: &mut Vec<String>, flag: &str, value: &str) {
    match args.iter().position(|a| a == flag) {
        Some(i) => args[i + 1] = value.to_string(),
        None => {
            args.insert(1, value.to_string());
            args.insert(1, flag.to_string());
        }
    }
}

/// `arbiter watch ...` as the README gives it: its first line is the page's URL, and the
/// page and its state answer; then it is stopped as a user stops it (Ctrl-C).
fn watch_serves(binary: &str, args: &[String], dir: &Path) -> Result<(), String> {
    use std::io::{BufRead, Read, Write};
    let mut child = Command::new(binary)
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .map_err(|e| e.to_string())?;
    let mut first = String::new();
    let read = std::io::BufReader::new(child.stdout.take().unwrap()).read_line(&mut first);
    let outcome = (|| {
        read.map_err(|e| e.to_string())?;
        let address = first
            .trim()
            .strip_prefix("http://")
            .and_then(|a| a.strip_suffix('/'))
            .ok_or(format!("the first line is no URL: {first:?}"))?
            .to_string();
        for path in ["/", "/api/state"] {
            let mut stream = std::net::TcpStream::connect(&address).map_err(|e| e.to_string())?;
            write!(
                stream,
                "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
            .map_err(|e| e.to_string())?;
            let mut answer = String::new();
            stream
                .read_to_string(&mut answer)
                .map_err(|e| e.to_string())?;
            if !answer.starts_with("HTTP/1.1 200") {
                return Err(format!("GET {path}: {answer}"));
            }
        }
        Ok(())
    })();
    let pid = rustix::process::Pid::from_child(&child);
    let _ = rustix::process::kill_process(pid, rustix::process::Signal::INT);
    let status = child.wait().map_err(|e| e.to_string())?;
    outcome?;
    match status.code() {
        Some(130) => Ok(()),
        other => Err(format!("Ctrl-C ended it with {other:?}")),
    }
}

#[test]
fn every_readme_command_runs_as_written() {
    let commands = readme_commands();
    let prefix = "cargo run --release -- ";
    let runnable: Vec<&String> = commands.iter().filter(|c| c.starts_with(prefix)).collect();
    assert!(
        runnable.len() >= 10,
        "too few commands found: {commands:#?}"
    );
    let test_command = ci_command();
    for c in &commands {
        assert!(
            c.starts_with(prefix) || *c == test_command,
            "a README command the test does not know how to run: {c}"
        );
    }

    let dir = tempfile::tempdir().unwrap();
    let clone = dir.path();
    copy_tree(&root().join("bots"), &clone.join("bots"));
    copy_tree(
        &root().join("tests/data/advance"),
        &clone.join("tests/data/advance"),
    );
    std::fs::create_dir_all(clone.join("results")).unwrap();
    // The tournaments of tournaments.toml, with short moves and games.
    let toml = std::fs::read_to_string(root().join("tournaments.toml")).unwrap();
    let fast: Vec<String> = toml
        .lines()
        .map(|l| {
            if l.trim_start().starts_with("limit_ms") {
                "limit_ms = 25".to_string()
            } else if l.trim() == "game = \"asalto\"" {
                // As for the commands: 40 of the course's 1000 rounds.
                "game = \"asalto\"\nround_limit = 40".to_string()
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(clone.join("tournaments.toml"), fast.join("\n")).unwrap();
    let binary = crate::common::arbiter_exe();

    let mut failures = Vec::new();
    for command in runnable {
        let words = shlex::split(&command[prefix.len()..])
            .unwrap_or_else(|| panic!("README command does not parse: {command}"));
        let mut args: Vec<String> = words
            .into_iter()
            .map(|w| w.replace("./target/release/arbiter", binary))
            .collect();
        let sub = args[0].clone();
        if ["play", "league", "gauntlet", "sprt"].contains(&sub.as_str()) {
            set_flag(&mut args, "--limit-ms", "25");
        }
        if sub == "sprt" {
            set_flag(&mut args, "--max-pairs", "2");
        }
        // Asalto's course bots can draw out the 1000 rounds of the course, move by move
        // in Python; 40 of them show the same command working.
        let asalto = args
            .iter()
            .position(|a| a == "--game")
            .is_none_or(|i| args[i + 1] == "asalto");
        if ["play", "league", "gauntlet", "sprt", "autograde"].contains(&sub.as_str()) && asalto {
            set_flag(&mut args, "--round-limit", "40");
        }
        if sub == "perft"
            && args
                .get(2)
                .is_some_and(|d| d.parse::<u32>().is_ok_and(|d| d > 4))
        {
            args[2] = "4".into();
        }
        let started = std::time::Instant::now();
        if sub == "watch" {
            // A server runs until Ctrl-C: its URL first, then its page and state.
            if let Err(e) = watch_serves(binary, &args, clone) {
                failures.push(format!("{command}\n  ran: {args:?}\n  {e}"));
            }
            eprintln!("{:6.2} s  {command}", started.elapsed().as_secs_f64());
            continue;
        }
        let (code, stdout, stderr) = run(Command::new(binary).args(&args).current_dir(clone));
        eprintln!("{:6.2} s  {command}", started.elapsed().as_secs_f64());
        let fine = match sub.as_str() {
            "sprt" => [0, 1, 3].contains(&code),
            // A class table of example solvers, some wrong on purpose: exit 1.
            "solve" => [0, 1].contains(&code),
            _ => code == 0,
        };
        if !fine {
            failures.push(format!(
                "{command}\n  ran: {args:?}\n  exit {code}\n  stdout: {}\n  stderr: {stderr}",
                stdout.lines().rev().take(5).collect::<Vec<_>>().join(" | ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "README commands failed:\n{}",
        failures.join("\n")
    );
    // The first command a newcomer runs plays every bot of the default tournament: none
    // fails for the project's sake (a helper module that confinement hides, a bot that
    // cannot start), whatever the games' outcomes.
    let standings = crate::common::csv_rows(&clone.join("results/default/standings.csv"));
    assert_eq!(standings.len(), 5, "{standings:?}");
    for row in &standings {
        assert_eq!(
            (
                row["errors"].as_str(),
                row["illegal_moves"].as_str(),
                row["left_out"].as_str()
            ),
            ("0", "0", ""),
            "the default tournament's {} failed: {row:?}",
            row["bot"]
        );
    }
    // The README's Hinger league plays games that last: a start holding a hinger is won by
    // the first move, as most starts of a sparse board are. (Its bots' moves at the test's
    // 25 ms may run out of time; the starts are the README's, drawn from its seed.)
    let hinger = crate::common::csv_rows(&clone.join("results/hinger/games.csv"));
    let decided_at_once = hinger
        .iter()
        .filter(|g| {
            let grid: Vec<Vec<u32>> = serde_json::from_str(&g["opening"]).unwrap();
            let start =
                arbiter::games::hinger::State::from_grid(&grid, arbiter::games::Side::First)
                    .unwrap();
            !start.hinger_cells().is_empty()
        })
        .count();
    assert!(
        hinger.len() >= 10 && decided_at_once * 5 <= hinger.len(),
        "{decided_at_once} of {} Hinger games start with a hinger: {hinger:?}",
        hinger.len()
    );
    // The teacher's walkthrough leaves what it says: marks per student of the example
    // roster (a team that handed nothing in included) and a feedback file per team, from
    // the command line and from tournaments.toml alike; the reference bot has no mark.
    for folder in ["results/class", "results/course"] {
        let path = clone.join(folder).join("marks.csv");
        // "Marks into your platform" leaves the class's marks laid out for Excel.
        let marks = match folder {
            "results/class" => crate::common::spreadsheet_rows(&path, b';'),
            _ => crate::common::csv_rows(&path),
        };
        // By the team's name: the grade files' commands leave results/class with a
        // platform's roster, whose columns are its own.
        let status = |team: &str| {
            let rows: Vec<&String> = marks
                .iter()
                .filter(|r| r["team"] == team)
                .map(|r| &r["status"])
                .collect();
            assert!(!rows.is_empty(), "{folder}: {team} in {marks:?}");
            rows[0].clone()
        };
        assert_eq!(status("Team15"), "no submission", "{folder}");
        assert_eq!(status("Team12"), "played", "{folder}");
        assert_eq!(marks.iter().filter(|r| r["team"] == "Team12").count(), 2);
        assert!(
            marks.iter().all(|r| r["team"] != "greedy"),
            "{folder}: {marks:?}"
        );
        for team in ["Team11", "Team12", "Team13", "Team14", "Team15"] {
            let file = clone
                .join(folder)
                .join("feedback")
                .join(format!("{team}.md"));
            assert!(file.is_file(), "{}", file.display());
        }
    }
    // "Week by week": the league grew by greedy's games, then retired Team02, whose games
    // are the history's.
    let weekly = clone.join("results/weekly");
    let lines = |file: &str| {
        std::fs::read_to_string(weekly.join(file))
            .unwrap_or_else(|e| panic!("results/weekly/{file}: {e}"))
            .lines()
            .count()
    };
    assert_eq!(
        lines("games.jsonl"),
        1 + 6,
        "Team01, random and greedy's games"
    );
    assert_eq!(lines("history.jsonl"), 6, "Team02's games");
    let versions = crate::common::csv_rows(&weekly.join("versions.csv"));
    let status = |team: &str| {
        versions
            .iter()
            .find(|r| r["team"] == team)
            .map(|r| r["status"].clone())
    };
    assert_eq!(status("Team02").as_deref(), Some("retired"), "{versions:?}");
    assert_eq!(status("greedy").as_deref(), Some("current"), "{versions:?}");
    // The grade files of "Marks into your platform": each platform's header and a row
    // per student of the example class.
    for (file, header) in [
        (
            "grades-canvas.csv",
            "Student,ID,SIS User ID,SIS Login ID,Section,Asalto league (4321)",
        ),
        (
            "grades-moodle.csv",
            "ID number,First name,Last name,Asalto league,Feedback for Asalto league",
        ),
        (
            "grades-blackboard.txt",
            "Last Name\tFirst Name\tUsername\tAsalto league [Total Pts: 20] |1234567",
        ),
    ] {
        let path = clone.join("results/class").join(file);
        let rows = crate::common::csv_rows(&path);
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().next(), Some(header), "{file}");
        // Canvas's Points Possible row, then the six students.
        let students = if file.contains("canvas") { 7 } else { 6 };
        let delimited = match file.ends_with(".txt") {
            true => text.lines().count() - 1,
            false => rows.len(),
        };
        assert_eq!(delimited, students, "{file}: {text}");
    }
}

/// Markdown files of the repository (not build output).
fn markdown_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if entry.file_type().unwrap().is_dir() {
            if !name.starts_with('.') && name != "target" && name != "results" {
                markdown_files(&path, out);
            }
        } else if name.ends_with(".md") {
            out.push(path);
        }
    }
}

#[test]
fn every_markdown_link_resolves_inside_the_repository() {
    let root = root().canonicalize().unwrap();
    let mut files = Vec::new();
    markdown_files(&root, &mut files);
    assert!(files.len() >= 5, "{files:?}");
    let mut broken = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        for (i, _) in text.match_indices("](") {
            let rest = &text[i + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = rest[..end].split('#').next().unwrap_or_default();
            if target.is_empty() || target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            let resolved = file.parent().unwrap().join(target);
            let inside = resolved.canonicalize().is_ok_and(|p| p.starts_with(&root));
            if !inside {
                broken.push(format!("{}: {target}", file.display()));
            }
        }
    }
    assert!(
        broken.is_empty(),
        "links that leave the repository or lead nowhere:\n{}",
        broken.join("\n")
    );
}

#[test]
fn nothing_in_the_repository_cites_files_outside_it() {
    let root = root();
    let mut offenders = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type().unwrap().is_dir() {
                if !name.starts_with('.') && name != "target" && name != "results" {
                    stack.push(path);
                }
                continue;
            }
            let Ok(text) = std::fs::read_to_string(&path) else {
                continue;
            };
            // Spelled in two halves so that this file does not cite it either.
            let outside = ["shared", "/rules/"].concat();
            if text.contains(&outside) {
                offenders.push(path.display().to_string());
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "files citing the team's folder outside the repository: {offenders:?}"
    );
}

/// The command `.ci/run` ends with: its last line that is not a comment.
fn ci_command() -> String {
    let ci = std::fs::read_to_string(root().join(".ci/run")).unwrap();
    ci.lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty() && !l.starts_with('#'))
        .expect(".ci/run runs a command")
        .to_string()
}

#[test]
fn ci_runs_exactly_the_readme_test_command() {
    use std::os::unix::fs::PermissionsExt;
    let tests: Vec<String> = readme_commands()
        .into_iter()
        .filter(|c| !c.starts_with("cargo run "))
        .collect();
    assert_eq!(
        tests,
        [ci_command()],
        "the README's one test command is what CI runs"
    );
    // The scripts it calls are in the repository, ready to run.
    let scripts: Vec<&str> = tests[0]
        .split_whitespace()
        .filter(|w| w.starts_with("tests/"))
        .collect();
    assert!(!scripts.is_empty(), "{tests:?} installs nothing");
    for script in scripts {
        let mode = std::fs::metadata(root().join(script))
            .unwrap_or_else(|e| panic!("{script}: {e}"))
            .permissions()
            .mode();
        assert!(mode & 0o111 != 0, "{script} is executable");
    }
}

#[test]
fn the_readme_s_table_of_exit_codes_is_the_one_arbiter_exits_with() {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    let rows: Vec<(i32, String)> = text
        .lines()
        .skip_while(|l| !l.starts_with("| code | name | when |"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            (
                cells[1].parse().expect("a code is a number"),
                cells[2].trim_matches('`').to_string(),
            )
        })
        .collect();
    let codes: Vec<(i32, String)> = arbiter::error::exit::CODES
        .iter()
        .map(|&(code, name)| (code, name.to_string()))
        .collect();
    assert_eq!(rows, codes, "README's exit codes against src/error.rs");
}

#[test]
fn a_closed_stdout_ends_a_printing_command_quietly_with_exit_0() {
    use std::io::Read;
    use std::process::Stdio;
    for args in [
        &["openings", "asalto", "--plies", "8", "--count", "5000"][..],
        &["perft", "gomoku", "2"][..],
        &["--help"][..],
    ] {
        let mut child = crate::common::arbiter()
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        // The reader takes nothing and closes the pipe, as `| head -0` does.
        drop(child.stdout.take());
        let mut stderr = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(0), "arbiter {args:?}: {stderr}");
        assert!(
            !stderr.contains("panicked")
                && !stderr.contains("Broken pipe")
                && !stderr.contains("arbiter:"),
            "arbiter {args:?} said: {stderr}"
        );
    }
}
