//! A tournament folder never mixes settings or corrupts: resume refusals naming the
//! changed setting, set-up errors before any game, journal repair, the folder lock, and
//! journals written in the older format.

use crate::common::*;
use crate::league::{journal_ids, league_cmd};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

const BUILTINS: [&str; 2] = ["builtin:random", "builtin:greedy"];

fn example_py(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("bots/python/examples")
        .join(name)
}

#[test]
fn resume_is_refused_when_the_move_limit_changed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("limits");
    let (code, _, stderr) = run(&mut league_cmd(&out, &["--limit-ms", "200"], &BUILTINS));
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = run(&mut league_cmd(&out, &["--limit-ms", "5000"], &BUILTINS));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("limit_ms 200 there, 5000 now"), "{stderr}");
    assert!(
        stderr.contains("--force-new") && stderr.contains("output folder"),
        "{stderr}"
    );
    let (code, _, stderr) = run(&mut league_cmd(
        &out,
        &["--init-limit-ms", "999", "--limit-ms", "200"],
        &BUILTINS,
    ));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("init_limit_ms 30000 there, 999 now"),
        "{stderr}"
    );
    // Starting afresh keeps the old journal aside and plays everything again.
    let old = read(&out.join("games.jsonl"));
    let (code, stdout, stderr) = run(&mut league_cmd(
        &out,
        &["--limit-ms", "5000", "--force-new"],
        &BUILTINS,
    ));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("this run played 2"), "{stdout}");
    assert_eq!(read(&out.join("games.jsonl.old")), old);
    let (code, stdout, stderr) = run(&mut league_cmd(&out, &["--limit-ms", "5000"], &BUILTINS));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("this run played 0"), "{stdout}");
}

#[test]
fn starting_afresh_twice_keeps_both_journals_and_feedback_holds_only_the_new_league() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("afresh");
    let (code, _, stderr) = run(&mut league_cmd(
        &out,
        &[],
        &["a=builtin:random", "b=builtin:greedy"],
    ));
    assert_eq!(code, 0, "{stderr}");
    let first = read(&out.join("games.jsonl"));
    assert!(out.join("feedback/a.md").is_file());
    let (code, _, stderr) = run(&mut league_cmd(
        &out,
        &["--force-new"],
        &["c=builtin:random", "d=builtin:greedy"],
    ));
    assert_eq!(code, 0, "{stderr}");
    let second = read(&out.join("games.jsonl"));
    let (code, _, stderr) = run(&mut league_cmd(
        &out,
        &["--force-new", "--pairs", "2"],
        &["c=builtin:random", "d=builtin:greedy"],
    ));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(read(&out.join("games.jsonl.old")), first);
    assert_eq!(read(&out.join("games.jsonl.old.2")), second);
    let mut feedback: Vec<String> = std::fs::read_dir(out.join("feedback"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    feedback.sort();
    assert_eq!(
        feedback,
        ["c.md", "d.md"],
        "the first league's teams are gone"
    );
}

#[test]
fn a_league_started_afresh_without_a_roster_says_that_the_kept_one_still_applies() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("class");
    let roster = dir.path().join("class.csv");
    std::fs::write(&roster, "team,name\na,Ann\n").unwrap();
    let roster_text = roster.to_string_lossy().into_owned();
    let bots = ["a=builtin:random", "b=builtin:greedy"];
    // The roster names one team of two: a partial one, asked for.
    let partial = ["--roster", roster_text.as_str(), "--partial-roster"];
    let (code, _, stderr) = run(&mut league_cmd(&out, &partial, &bots));
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = run(&mut league_cmd(&out, &["--force-new"], &bots));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("roster.csv (kept by an earlier run) still gives the marks"),
        "{stderr}"
    );
    let (code, _, stderr) = run(&mut league_cmd(
        &out,
        &["--force-new", "--roster", &roster_text, "--partial-roster"],
        &bots,
    ));
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("kept by an earlier run"), "{stderr}");
}

#[test]
fn resume_is_refused_when_the_interpreter_changed() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("python");
    // Another name for the same interpreter is still another setting.
    let other = dir.path().join("mypython");
    let python3 = system_python3();
    std::os::unix::fs::symlink(python3, &other).unwrap();
    let bot = example_py("random_bot.py");
    let bots = [bot.to_str().unwrap(), "builtin:random"];
    let args = ["--round-limit", "20", "--python", "python3"];
    let (code, _, stderr) = run(&mut league_cmd(&out, &args, &bots));
    assert_eq!(code, 0, "{stderr}");
    let other = other.to_str().unwrap();
    let (code, _, stderr) = run(&mut league_cmd(
        &out,
        &["--round-limit", "20", "--python", other],
        &bots,
    ));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(&format!("bot random_bot python python3 there, {other} now")),
        "{stderr}"
    );
}

#[test]
fn a_missing_interpreter_stops_the_run_before_any_game() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("nopython");
    let bot = example_py("random_bot.py");
    let (code, _, stderr) = run(&mut league_cmd(
        &out,
        &["--python", "/no/such/python3"],
        &[bot.to_str().unwrap(), "builtin:random"],
    ));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("interpreter `/no/such/python3` is not found")
            && stderr.contains("no game was played"),
        "{stderr}"
    );
    assert!(!out.join("games.jsonl").exists(), "no forfeit is journaled");
}

#[test]
fn a_missing_working_folder_stops_the_run_before_any_game() {
    let dir = tempfile::tempdir().unwrap();
    let toml = format!(
        "[tournaments.t]\ngame = \"asalto\"\nbots = [\n  {{ spec = \"builtin:random\" }},\n  {{ name = \"p\", spec = {:?}, dir = \"no_such_folder\" }},\n]\n",
        served("random")
    );
    let (code, _, stderr) = crate::league::run_config(dir.path(), &toml, None);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("no_such_folder does not exist"), "{stderr}");
    assert!(!dir.path().join("results/t/games.jsonl").exists());
}

#[test]
fn an_edited_bot_file_is_noticed_on_resume() {
    let dir = tempfile::tempdir().unwrap();
    let bots_dir = dir.path().join("bots");
    std::fs::create_dir(&bots_dir).unwrap();
    let bot = bots_dir.join("Team01.py");
    std::fs::copy(example_py("random_bot.py"), &bot).unwrap();
    let out = dir.path().join("edited");
    let bots = [bot.to_str().unwrap(), "builtin:random"];
    let (code, _, stderr) = run(&mut league_cmd(&out, &["--round-limit", "20"], &bots));
    assert_eq!(code, 0, "{stderr}");
    // A helper module beside it is part of the bot too.
    std::fs::write(bots_dir.join("helper.py"), "DEPTH = 2\n").unwrap();
    let (code, _, stderr) = run(&mut league_cmd(&out, &["--round-limit", "20"], &bots));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("bot Team01 digest "), "{stderr}");
}

#[test]
fn a_float_setting_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("hinger");
    let cmd = || {
        let mut cmd = arbiter();
        cmd.args([
            "league",
            "--game",
            "hinger",
            "--rows",
            "3",
            "--cols",
            "4",
            "--density",
            "0.9941414234726625",
            "--out",
        ])
        .arg(&out)
        .args(BUILTINS);
        cmd
    };
    let (code, _, stderr) = run(&mut cmd());
    assert_eq!(code, 0, "{stderr}");
    let (code, stdout, stderr) = run(&mut cmd());
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("this run played 0"), "{stdout}");
    assert!(read(&out.join("games.jsonl")).contains("0.9941414234726625"));
}

/// A finished league of four games, and its journal's lines.
fn finished_league(out: &Path) -> Vec<String> {
    let (code, _, stderr) = run(&mut league_cmd(out, &["--pairs", "2"], &BUILTINS));
    assert_eq!(code, 0, "{stderr}");
    read(&out.join("games.jsonl"))
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn a_last_line_without_its_newline_is_completed_not_joined() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("newline");
    let lines = finished_league(&out);
    // Two whole games, the second without its newline: a crash between the two writes.
    let journal = out.join("games.jsonl");
    std::fs::write(
        &journal,
        format!("{}\n{}\n{}", lines[0], lines[1], lines[2]),
    )
    .unwrap();
    let (code, _, stderr) = run(&mut league_cmd(&out, &["--pairs", "2"], &BUILTINS));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("lost its newline") && stderr.contains("newline was added"),
        "{stderr}"
    );
    let text = read(&journal);
    assert!(text.ends_with('\n'));
    for line in text.lines().skip(1) {
        serde_json::from_str::<serde_json::Value>(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    }
    assert_eq!(
        journal_ids(&out).len(),
        4,
        "games 2 and 3 were played, 0 and 1 kept"
    );
    let (code, _, stderr) = run(arbiter().arg("table").arg(&out));
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn table_and_report_never_rewrite_the_journal_and_say_what_they_left_out() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("readonly");
    let lines = finished_league(&out);
    let journal = out.join("games.jsonl");
    let torn = format!(
        "{}\n{}\n{}",
        lines[0],
        lines[1],
        &lines[2][..lines[2].len() / 2]
    );
    std::fs::write(&journal, &torn).unwrap();
    let (code, _, stderr) = run(arbiter().arg("table").arg(&out));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("torn") && stderr.contains("left as it is"),
        "{stderr}"
    );
    assert_eq!(read(&journal), torn, "table left the journal byte for byte");
    assert_eq!(csv_rows(&out.join("games.csv")).len(), 1);
    // `report` reads it alike, and says so alike.
    let (code, _, stderr) = run(arbiter().arg("report").arg(&out));
    assert_eq!(code, 0, "{stderr}");
    assert!(
        stderr.contains("torn") && stderr.contains("left as it is"),
        "{stderr}"
    );
    assert_eq!(
        read(&journal),
        torn,
        "report left the journal byte for byte"
    );
}

#[test]
fn a_torn_header_starts_the_tournament_afresh() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("header");
    let lines = finished_league(&out);
    let journal = out.join("games.jsonl");
    std::fs::write(&journal, &lines[0][..lines[0].len() / 2]).unwrap();
    let (code, _, stderr) = run(arbiter().arg("table").arg(&out));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("games.jsonl:1:") && stderr.contains("header line is torn"),
        "{stderr}"
    );
    let (code, stdout, stderr) = run(&mut league_cmd(&out, &["--pairs", "2"], &BUILTINS));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("this run played 4"), "{stdout}");
}

#[test]
fn a_second_run_on_a_locked_folder_fails_at_once_and_a_killed_run_leaves_no_lock() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("locked");
    // A bot that never answers its hello holds the first run in its first game.
    let mut first = league_cmd(
        &out,
        &["--init-limit-ms", "30000", "-j", "1"],
        &["silent=sleep 30", "builtin:random"],
    )
    .stdout(std::process::Stdio::null())
    .stderr(std::process::Stdio::null())
    .spawn()
    .unwrap();
    let journal = out.join("games.jsonl");
    let waited = Instant::now();
    while !journal.exists() && waited.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert!(journal.exists(), "the first run started");
    let (code, _, stderr) = run(&mut league_cmd(&out, &[], &BUILTINS));
    let _ = first.kill();
    let _ = first.wait();
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("another arbiter run is using") && stderr.contains("games.lock"),
        "{stderr}"
    );
    // The killed run's lock went with it.
    let (code, _, stderr) = run(&mut league_cmd(&out, &["--force-new"], &BUILTINS));
    assert_eq!(code, 0, "{stderr}");
}

/// Writes the format-1 journal of tests/data into a fresh folder.
fn format1_folder(dir: &Path) -> PathBuf {
    let out = dir.join("format1");
    std::fs::create_dir(&out).unwrap();
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/journal");
    std::fs::copy(data.join("format1_gomoku.jsonl"), out.join("games.jsonl")).unwrap();
    out
}

#[test]
fn table_reads_a_journal_in_format_1() {
    let dir = tempfile::tempdir().unwrap();
    let out = format1_folder(dir.path());
    let (code, stdout, stderr) = run(arbiter().arg("table").arg(&out));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("greedy"), "{stdout}");
    // The standings the format-1 binary wrote, column for column.
    let expected = csv_rows(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/journal/format1_gomoku_standings.csv"),
    );
    let got = csv_rows(&out.join("standings.csv"));
    assert_eq!(got.len(), expected.len());
    for (g, e) in got.iter().zip(&expected) {
        for (column, value) in e {
            assert_eq!(g.get(column), Some(value), "{column}: {g:?} vs {e:?}");
        }
    }
}

#[test]
fn resuming_a_format_1_journal_is_refused_naming_what_it_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let out = format1_folder(dir.path());
    let mut cmd = arbiter();
    cmd.args(["league", "--game", "gomoku", "--limit-ms", "5000", "--out"])
        .arg(&out)
        .args(["random=builtin:random", "greedy=builtin:greedy"]);
    let (code, _, stderr) = run(&mut cmd);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("journal format 1")
            && stderr.contains("move limits")
            && stderr.contains("--force-new"),
        "{stderr}"
    );
    let (code, _, stderr) = run(cmd.arg("--force-new"));
    assert_eq!(code, 0, "{stderr}");
    assert!(out.join("games.jsonl.old").exists());
}

/// A tournaments.toml in `dir/cfg`, with a shell-script bot, a Java bot and a Python bot
/// under `dir/cfg/bots`, all named by paths relative to the file. The script runs arbiter
/// from the build folder, which no jail holds: it runs unconfined.
fn config_with_relative_bots(dir: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bots = dir.join("cfg/bots");
    std::fs::create_dir_all(&bots).unwrap();
    let script = bots.join("proto.sh");
    std::fs::write(
        &script,
        format!("#!/bin/sh\nexec {} \"$@\"\n", served("random")),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    for file in ["Player123456789.java", "Lines.java"] {
        std::fs::copy(root.join("bots/java/examples").join(file), bots.join(file)).unwrap();
    }
    std::fs::copy(example_py("random_bot.py"), bots.join("Team01.py")).unwrap();
    let config = dir.join("cfg/tournaments.toml");
    std::fs::write(
        &config,
        "[tournaments.gomoku]\ngame = \"gomoku\"\nlimit_ms = 5000\nbots = [\n  { name = \"sh\", spec = \"./bots/proto.sh --game gomoku\", sandbox = \"none\" },\n  { spec = \"bots/Player123456789.java\" },\n]\n\n[tournaments.asalto]\ngame = \"asalto\"\nround_limit = 20\nbots = [\n  { name = \"sh\", spec = \"./bots/proto.sh\", sandbox = \"none\" },\n  { spec = \"bots/Team01.py\" },\n]\n",
    )
    .unwrap();
    config
}

#[test]
fn config_paths_are_relative_to_the_file_for_shell_java_and_python_bots() {
    let dir = tempfile::tempdir().unwrap();
    let config = config_with_relative_bots(dir.path());
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    for name in ["asalto", "gomoku"] {
        let (code, _, stderr) = run(arbiter().current_dir(&elsewhere).args([
            "run",
            "--config",
            "../cfg/tournaments.toml",
            name,
        ]));
        assert_eq!(code, 0, "{name}: {stderr}");
        let games = csv_rows(&dir.path().join("cfg/results").join(name).join("games.csv"));
        assert_eq!(games.len(), 2, "{name}");
        for g in &games {
            assert!(
                !["spawn_failed", "crash", "protocol_error"].contains(&g["reason"].as_str()),
                "{name}: every bot started and played: {g:?}"
            );
        }
    }
    // Resumed from yet another folder, the plan is the same.
    let (code, stdout, stderr) = run(arbiter()
        .current_dir(dir.path())
        .arg("run")
        .arg("--config")
        .arg(&config)
        .arg("asalto"));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("this run played 0"), "{stdout}");
}

#[test]
fn config_keys_that_do_not_apply_are_refused_with_the_key_line_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let two = "{ spec = \"builtin:random\" }, { spec = \"builtin:greedy\" }";
    let py = example_py("random_bot.py");
    let cases = [
        (format!("[tournaments.t]\ngame = \"gomoku\"\nbots = [{two}]\nround_limit = 50\n"), ":4:", "`round_limit` is Asalto's round limit; gomoku has none"),
        (format!("[tournaments.t]\ngame = \"gomoku\"\nbots = [{two}]\nrows = 3\n"), ":4:", "`rows` shapes Hinger's random starts; gomoku has none"),
        (format!("[tournaments.t]\ngame = \"asalto\"\nbots = [{two}]\n\ndensity = 0.5\n"), ":5:", "`density` shapes Hinger's random starts; asalto has none"),
        (format!("[tournaments.t]\ngame = \"hinger\"\nbots = [{two}]\nboards = [\"b.txt\"]\ncols = 4\n"), ":5:", "which `boards` replace"),
        (format!("[tournaments.t]\ngame = \"hinger\"\nbots = [{two}]\nrandom_plies = 2\n"), ":4:", "`random_plies` chooses move openings; hinger's openings are its start boards"),
        (format!("[tournaments.t]\ngame = \"asalto\"\nbots = [{two}]\nopenings_order = \"random\"\n"), ":4:", "`openings_order` orders the lines of an `openings` book; there is none"),
        (format!("[tournaments.t]\ngame = \"asalto\"\nbots = [{two}]\nrandom_plies = 2\nopenings = \"book.txt\"\n"), ":4:", "`random_plies` and `openings` are two ways"),
        (format!("[tournaments.t]\ngame = \"gomoku\"\nbots = [{two}]\nopenings = \"book.txt\"\nopenings_order = \"backwards\"\n"), ":5:", "openings_order `backwards`: expected sequential or random"),
        ("[tournaments.t]\ngame = \"asalto\"\nbots = [\n  { spec = \"builtin:random\" },\n  { spec = \"builtin:greedy\", python = \"python3\" },\n]\n".to_string(), ":5:", "`python` does not apply to the built-in bot `builtin:greedy`"),
        ("[tournaments.t]\ngame = \"asalto\"\nbots = [\n  { spec = \"builtin:random\", dir = \"x\" },\n  { spec = \"builtin:greedy\" },\n]\n".to_string(), ":4:", "`dir` does not apply to the built-in bot"),
        ("[tournaments.t]\ngame = \"asalto\"\nbots = [\n  { spec = \"builtin:random\", env = { A = \"1\" } },\n  { spec = \"builtin:greedy\" },\n]\n".to_string(), ":4:", "`env` does not apply to the built-in bot"),
        ("[tournaments.t]\ngame = \"asalto\"\nbots = [\n  { spec = \"builtin:random\" },\n  { spec = \"builtin:greedy\", memory_mb = 100 },\n]\n".to_string(), ":5:", "`memory_mb` does not apply to the built-in bot"),
        (format!("[tournaments.t]\ngame = \"asalto\"\nbots = [\n  {{ spec = \"builtin:random\" }},\n  {{ spec = {:?}, python = \"python3\" }},\n]\n", served("greedy")), ":5:", "`python` is the interpreter of a course-style .py bot"),
    ];
    for (toml, line, why) in &cases {
        let (code, _, stderr) = crate::league::run_config(dir.path(), toml, None);
        assert_eq!(code, 2, "{toml}\n{stderr}");
        assert!(
            stderr.contains(&format!("tournaments.toml{line}")),
            "expected {line} in:\n{stderr}"
        );
        assert!(stderr.contains(why), "expected `{why}` in:\n{stderr}");
    }
    // The same keys where they apply are accepted.
    std::fs::write(dir.path().join("book.txt"), "[[[3,3],[2,3]]]\n").unwrap();
    let toml = format!(
        "[tournaments.t]\ngame = \"asalto\"\nround_limit = 20\nopenings = \"book.txt\"\nopenings_order = \"random\"\nbots = [\n  {{ spec = \"builtin:random\" }},\n  {{ spec = {:?}, python = \"python3\", memory_mb = 2000 }},\n]\n",
        py.to_str().unwrap()
    );
    let (code, _, stderr) = crate::league::run_config(dir.path(), &toml, None);
    assert_eq!(code, 0, "{stderr}");
}

/// The game lines of a journal (its header left out).
fn game_lines(dir: &Path) -> Vec<String> {
    read(&dir.join("games.jsonl"))
        .lines()
        .skip(1)
        .map(str::to_string)
        .collect()
}

#[test]
fn a_league_rerun_with_more_pairs_keeps_its_games_and_plays_the_new_ones_only() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("more");
    let (code, _, stderr) = run(&mut league_cmd(&out, &["--pairs", "1"], &BUILTINS));
    assert_eq!(code, 0, "{stderr}");
    let before = game_lines(&out);
    assert_eq!(before.len(), 2);
    let (code, stdout, stderr) = run(&mut league_cmd(&out, &["--pairs", "3"], &BUILTINS));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("this run played 4"), "{stdout}");
    let after = game_lines(&out);
    assert_eq!(after[..2], before[..], "the games played stay as they were");
    let mut ids = journal_ids(&out);
    ids.sort_unstable();
    assert_eq!(ids, [0, 1, 2, 3, 4, 5]);
    // The header now holds the raised count: the same command resumes, with nothing left.
    let (code, stdout, stderr) = run(&mut league_cmd(&out, &["--pairs", "3"], &BUILTINS));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("this run played 0"), "{stdout}");
    let standings = read(&out.join("standings.csv"));
    assert!(standings.contains(",6,"), "6 games each: {standings}");
    // Fewer pairs would leave played games out of the tables: refused, naming the count.
    let (code, _, stderr) = run(&mut league_cmd(&out, &["--pairs", "2"], &BUILTINS));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("pairs 3 there, 2 now") && stderr.contains("--pairs 3 or more"),
        "{stderr}"
    );
    assert_eq!(game_lines(&out).len(), 6, "a refused run changes nothing");
}

/// `$ARBITER_PYTHON` names the interpreter of the `.py` bots given none: the plan keeps it
/// (a resume under another is refused), `--python` wins over it, and one that is not there
/// stops the run before any game, naming the variable.
#[test]
fn arbiter_python_names_the_interpreter_of_bots_given_none() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("python");
    let other = dir.path().join("mypython");
    let python3 = system_python3();
    std::os::unix::fs::symlink(python3, &other).unwrap();
    let other = other.to_str().unwrap();
    let bot = example_py("random_bot.py");
    let bots = [bot.to_str().unwrap(), "builtin:random"];
    let args = ["--round-limit", "20"];
    let league = |python: &str, args: &[&str]| {
        let mut cmd = league_cmd(&out, args, &bots);
        cmd.env("ARBITER_PYTHON", python);
        run(&mut cmd)
    };
    let (code, _, stderr) = league(other, &args);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = league(python3, &args);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains(&format!(
            "bot random_bot python {other} there, {python3} now"
        )),
        "{stderr}"
    );
    let (code, _, stderr) = league(
        "/no/such/python3",
        &["--round-limit", "20", "--python", other],
    );
    assert_eq!(code, 0, "--python wins over ARBITER_PYTHON: {stderr}");
    let (code, _, stderr) = run(&mut {
        let mut cmd = league_cmd(&dir.path().join("none"), &args, &bots);
        cmd.env("ARBITER_PYTHON", "/no/such/python3");
        cmd
    });
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("interpreter `/no/such/python3` is not found")
            && stderr.contains("$ARBITER_PYTHON"),
        "{stderr}"
    );
}

/// The system's `python3` (not a version manager's shim).
fn system_python3() -> &'static str {
    ["/usr/bin/python3", "/usr/local/bin/python3"]
        .into_iter()
        .find(|p| Path::new(p).exists())
        .expect("a python3")
}
