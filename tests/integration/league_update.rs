//! A league that grows with its class (`league --update`): a bot added plays only its own
//! games, a changed bot replays only its own, a bot left out is retired and comes back as
//! it was, and the league left equals one started afresh with today's bots, game for game.
//! Without `--update` a league of other bots is refused saying which, and what would change
//! the games themselves is refused with it; nothing refused changes a file.

use crate::common::{arbiter, copy_tree, course_random_bot, read, run};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// A course Asalto bot (the example team's random player) whose choices a seed of its own
/// fixes, as a student's deterministic bot: the same game from the same start.
/// In a folder of its own, as a team's submission: a `.py` bot's digest covers the `.py`
/// files of its folder.
fn course_bot(dir: &Path, team: &str, seed: u32) -> PathBuf {
    let folder = dir.join(team);
    std::fs::create_dir_all(&folder).unwrap();
    let file = folder.join(format!("{team}.py"));
    std::fs::write(&file, seeded(seed)).unwrap();
    file
}

/// The example team's random player with its generator seeded.
fn seeded(seed: u32) -> String {
    let source =
        course_random_bot().replacen("random.Random()", &format!("random.Random({seed})"), 1);
    assert!(
        source.contains(&format!("random.Random({seed})")),
        "the example bot's generator"
    );
    source
}

/// `arbiter league` into `out` with the settings every league here shares, then `extra`.
fn league(out: &Path, bots: &[String], extra: &[&str]) -> (i32, String, String) {
    run(arbiter()
        .args(["league", "-q", "--seed", "11", "--round-limit", "40"])
        .args(["--limit-ms", "5000", "--pairs", "1", "--out"])
        .arg(out)
        .args(extra)
        .args(bots))
}

/// What decides each game of a folder's games.csv, times left out (they differ run to
/// run): pair, roles' bots, winner, reason, rounds, illegal moves and seed.
fn games_of(out: &Path) -> BTreeSet<Vec<String>> {
    let text = read(&out.join("games.csv"));
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let wanted = [
        "pair",
        "rebel",
        "officer",
        "winner",
        "reason",
        "rounds",
        "rebel_illegal",
        "officer_illegal",
        "seed",
    ];
    let at: Vec<usize> = wanted
        .iter()
        .map(|w| header.iter().position(|h| h == w).expect(w))
        .collect();
    lines
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            at.iter().map(|&i| cells[i].to_string()).collect()
        })
        .collect()
}

/// The standings by bot: games, wins, losses, ties, points, mark, Elo and its interval.
fn standings_of(out: &Path) -> BTreeMap<String, Vec<String>> {
    crate::common::csv_rows(&out.join("standings.csv"))
        .into_iter()
        .map(|r| {
            let cells = [
                "games", "wins", "losses", "ties", "points", "mark", "elo", "elo_low", "elo_high",
            ]
            .iter()
            .map(|c| r[*c].clone())
            .collect();
            (r["bot"].clone(), cells)
        })
        .collect()
}

fn journal_lines(out: &Path) -> Vec<String> {
    read(&out.join("games.jsonl"))
        .lines()
        .skip(1)
        .map(str::to_string)
        .collect()
}

/// The journal's game lines that name none of `bots`, sorted (a run journals its games
/// as they end).
fn lines_without(out: &Path, bots: &[&str]) -> Vec<String> {
    let mut lines: Vec<String> = journal_lines(out)
        .into_iter()
        .filter(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            let players = v["record"]["players"].to_string();
            !bots.iter().any(|b| players.contains(&format!("\"{b}\"")))
        })
        .collect();
    lines.sort();
    lines
}

/// `games_of` and `standings_of` of `out` are those of a league started afresh with `bots`.
fn same_as_a_fresh_league(dir: &Path, out: &Path, bots: &[String], what: &str) {
    let fresh = dir.join(format!("fresh-{what}"));
    let (code, stdout, stderr) = league(&fresh, bots, &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert_eq!(games_of(out), games_of(&fresh), "{what}: the games");
    assert_eq!(
        standings_of(out),
        standings_of(&fresh),
        "{what}: the standings"
    );
    assert_eq!(
        read(&out.join("marks.csv")),
        read(&fresh.join("marks.csv")),
        "{what}: the marks"
    );
}

fn history_lines(out: &Path) -> Vec<serde_json::Value> {
    match std::fs::read_to_string(out.join("history.jsonl")) {
        Ok(text) => text
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect(),
        Err(_) => Vec::new(),
    }
}

#[test]
fn a_league_grows_by_the_games_of_bots_added_or_changed_and_equals_a_fresh_league() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    std::fs::create_dir_all(&class).unwrap();
    let bot = |team: &str, seed: u32| course_bot(&class, team, seed).display().to_string();
    let mut bots = vec![
        bot("Team01", 1),
        "rnd=builtin:random".to_string(),
        "grd=builtin:greedy".to_string(),
        bot("Team02", 2),
    ];
    let out = dir.path().join("league");
    let (code, stdout, stderr) = league(&out, &bots, &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert_eq!(journal_lines(&out).len(), 12);

    // A late team: its 2 x 4 games only, every earlier game kept and counted.
    bots.push(bot("Team03", 3));
    let (code, stdout, stderr) = league(&out, &bots, &["--update"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stdout.contains("20 of 20 games") && stdout.contains("this run played 8"),
        "{stdout}"
    );
    assert!(
        stderr.contains("update: added Team03; 12 games kept, 0 games moved into the league's history; 8 games to play"),
        "{stderr}"
    );
    same_as_a_fresh_league(dir.path(), &out, &bots, "a bot added");

    // Team02 hands in a new version: its games are played again, the others' kept byte
    // for byte, and its earlier games go into the league's history.
    let others = lines_without(&out, &["Team02"]);
    assert_eq!(others.len(), 12);
    course_bot(&class, "Team02", 5);
    let (code, stdout, stderr) = league(&out, &bots, &["--update"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("this run played 8"), "{stdout}");
    assert!(
        stderr.contains("update: changed Team02; 12 games kept, 8 games moved"),
        "{stderr}"
    );
    assert_eq!(
        lines_without(&out, &["Team02"]),
        others,
        "the other games, byte for byte"
    );
    let history = history_lines(&out);
    assert_eq!(history.len(), 8);
    assert!(
        history.iter().all(|h| h["bots"]
            .as_array()
            .unwrap()
            .iter()
            .any(|b| b["name"] == "Team02")),
        "{history:?}"
    );
    same_as_a_fresh_league(dir.path(), &out, &bots, "a bot changed");
    // Its versions: the first as it stood when replaced, the second in today's standings;
    // its feedback compares them on the opponents both played.
    let versions = crate::common::csv_rows(&out.join("versions.csv"));
    let team02: Vec<_> = versions.iter().filter(|r| r["team"] == "Team02").collect();
    assert_eq!(team02.len(), 2, "{versions:?}");
    assert_eq!(
        (
            team02[0]["version"].as_str(),
            team02[0]["status"].as_str(),
            team02[0]["games"].as_str()
        ),
        ("1", "changed", "8")
    );
    assert_eq!(team02[0]["first_seen"], "start");
    assert!(!team02[0]["left"].is_empty() && !team02[0]["elo"].is_empty());
    assert_eq!(
        (
            team02[1]["version"].as_str(),
            team02[1]["status"].as_str(),
            team02[1]["games"].as_str()
        ),
        ("2", "current", "8")
    );
    assert_ne!(team02[0]["digest"], team02[1]["digest"]);
    assert_eq!(
        versions.iter().filter(|r| r["status"] == "current").count(),
        5,
        "one current version a bot"
    );
    let feedback = read(&out.join("feedback/Team02.md"));
    assert!(
        feedback.contains("## Your earlier version")
            && feedback.contains("Your current version (v2, first played ")
            && feedback.contains("Against the opponents both played (Team01, Team03, grd, rnd): "),
        "{feedback}"
    );
    assert!(!read(&out.join("feedback/Team01.md")).contains("earlier version"));
    let report = read(&out.join("report/report.md"));
    assert!(report.contains("## Versions"), "{report}");

    // A team that left: retired, its games out of the standings and into the history.
    let without: Vec<String> = bots
        .iter()
        .filter(|b| !b.starts_with("rnd="))
        .cloned()
        .collect();
    let (code, stdout, stderr) = league(&out, &without, &["--update"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("this run played 0"), "{stdout}");
    assert!(stderr.contains("update: missing rnd (retired"), "{stderr}");
    assert!(!standings_of(&out).contains_key("rnd"));
    let rnd = |out: &Path| -> Vec<String> {
        crate::common::csv_rows(&out.join("versions.csv"))
            .into_iter()
            .filter(|r| r["team"] == "rnd")
            .map(|r| format!("{} {} {}", r["version"], r["status"], r["games"]))
            .collect()
    };
    assert_eq!(rnd(&out), ["1 retired 8"]);
    assert_eq!(history_lines(&out).len(), 16);
    same_as_a_fresh_league(dir.path(), &out, &without, "a bot retired");

    // And back as it was: its games come back from the history, none is played again.
    let (code, stdout, stderr) = league(&out, &bots, &["--update"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("this run played 0"), "{stdout}");
    assert!(
        stderr.contains("8 games taken back from it (rnd back as before)"),
        "{stderr}"
    );
    assert_eq!(history_lines(&out).len(), 8, "Team02's first version stays");
    assert_eq!(rnd(&out), ["1 current 8"]);
    same_as_a_fresh_league(dir.path(), &out, &bots, "a bot brought back");
}

#[test]
fn a_league_of_other_bots_is_refused_naming_them_and_an_update_never_changes_the_games_settings() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    std::fs::create_dir_all(&class).unwrap();
    let bot = |team: &str, seed: u32| course_bot(&class, team, seed).display().to_string();
    let bots = vec![
        bot("Team01", 1),
        bot("Team02", 2),
        "rnd=builtin:random".to_string(),
    ];
    let out = dir.path().join("league");
    let (code, stdout, stderr) = league(&out, &bots, &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let journal = read(&out.join("games.jsonl"));
    let unchanged = |what: &str| {
        assert_eq!(
            read(&out.join("games.jsonl")),
            journal,
            "{what}: the journal"
        );
        assert!(!out.join("history.jsonl").exists(), "{what}: no history");
    };

    // One added, one changed, one missing: said by name, with what --update would do.
    course_bot(&class, "Team02", 7);
    let now = vec![bots[0].clone(), bots[1].clone(), bot("Team04", 4)];
    let (code, stdout, stderr) = league(&out, &now, &[]);
    assert_eq!(code, 2, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("Its bots differ: added Team04; changed Team02; missing rnd")
            && stderr.contains(
                "Rerun with --update to play only the games of the bots added or changed"
            ),
        "{stderr}"
    );
    unchanged("without --update");

    // What would change the games themselves is refused with --update too, naming it.
    let (code, _, stderr) = run(arbiter()
        .args(["league", "-q", "--seed", "11", "--round-limit", "40"])
        .args(["--limit-ms", "4000", "--pairs", "1", "--update", "--out"])
        .arg(&out)
        .args(&now));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("other settings of the games themselves: limit_ms 5000 there, 4000 now"),
        "{stderr}"
    );
    unchanged("another move limit");
    let (code, _, stderr) = run(arbiter()
        .args(["league", "-q", "--seed", "11", "--round-limit", "40"])
        .args([
            "--limit-ms",
            "5000",
            "--pairs",
            "1",
            "--update",
            "--random-plies",
            "2",
        ])
        .arg("--out")
        .arg(&out)
        .args(&now));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("openings"), "{stderr}");
    unchanged("other openings");

    // A shard's update of a whole league's folder: refused before anything is written.
    let (code, _, stderr) = league(&out, &now, &["--update", "--shard", "1/2"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("holds the whole schedule, and this run asks for shard 1/2"),
        "{stderr}"
    );
    unchanged("a shard");

    // A journal written before leagues could grow is refused, saying how to go on.
    let old = journal.replacen(",\"seeds\":\"pairing\"", "", 1);
    assert_ne!(old, journal, "the plan names its seeds");
    std::fs::write(out.join("games.jsonl"), &old).unwrap();
    let (code, _, stderr) = league(&out, &now, &["--update"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("was written before leagues could grow") && stderr.contains("--force-new"),
        "{stderr}"
    );
    assert_eq!(read(&out.join("games.jsonl")), old);
    assert!(!out.join("history.jsonl").exists());
}

#[test]
fn an_update_stopped_by_ctrl_c_or_killed_part_way_is_finished_by_the_same_command() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("class");
    std::fs::create_dir_all(&class).unwrap();
    let mut bots = vec![
        course_bot(&class, "Team01", 1).display().to_string(),
        "rnd=builtin:random".to_string(),
        "grd=builtin:greedy".to_string(),
    ];
    let out = dir.path().join("league");
    let (code, stdout, stderr) = league(&out, &bots, &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    // A late team whose every move takes a while, one game at a time.
    let slow = seeded(9).replacen("import random\n", "import random\nimport time\n", 1);
    let slow = slow.replacen(
        "class Player",
        "class _Slow(random.Random):\n    def choice(self, xs):\n        time.sleep(0.02)\n        \
         return super().choice(xs)\n\n\nclass Player",
        1,
    );
    let slow = slow.replacen("random.Random(9)", "_Slow(9)", 1);
    assert!(slow.contains("_Slow(9)"), "the slow bot's generator");
    std::fs::create_dir_all(class.join("Team09")).unwrap();
    std::fs::write(class.join("Team09/Team09.py"), slow).unwrap();
    bots.push(class.join("Team09/Team09.py").display().to_string());
    // Stopped part-way (Ctrl-C, then a kill -9 during the next update), then the same
    // command: it finishes, losing no game.
    let interrupted = |bots: &[String], signal: rustix::process::Signal, what: &str| {
        let child = arbiter()
            .args(["league", "-q", "--seed", "11", "--round-limit", "40"])
            .args([
                "--limit-ms",
                "5000",
                "--pairs",
                "1",
                "-j",
                "1",
                "--update",
                "--out",
            ])
            .arg(&out)
            .args(bots)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let waited = Instant::now();
        // Once the rewritten journal holds the 6 games kept and a new game (the journal
        // before the update holds 6 or 12).
        while !(7..12).contains(&journal_lines(&out).len())
            && waited.elapsed() < Duration::from_secs(120)
        {
            std::thread::sleep(Duration::from_millis(20));
        }
        // A second update of the folder meanwhile is refused by its lock, and changes nothing.
        let (code, _, stderr) = league(&out, bots, &["--update"]);
        assert_eq!(code, 2, "{what}: {stderr}");
        assert!(
            stderr.contains("another arbiter run is using"),
            "{what}: {stderr}"
        );
        rustix::process::kill_process(rustix::process::Pid::from_child(&child), signal).unwrap();
        let status = child.wait_with_output().unwrap().status;
        if signal == rustix::process::Signal::INT {
            assert_eq!(
                status.code(),
                Some(130),
                "{what}: stopped as Ctrl-C stops a league"
            );
        }
        let done = journal_lines(&out).len();
        assert!(
            (7..12).contains(&done),
            "{what}: stopped part-way, {done} games"
        );
        let (code, stdout, stderr) = league(&out, bots, &["--update"]);
        assert_eq!(code, 0, "{stdout}\n{stderr}");
        assert!(
            stdout.contains(&format!("this run played {}", 12 - done)),
            "{what}: {stdout}"
        );
        assert_eq!(journal_lines(&out).len(), 12);
        same_as_a_fresh_league(dir.path(), &out, bots, what);
    };
    interrupted(
        &bots,
        rustix::process::Signal::INT,
        "an update stopped by Ctrl-C",
    );
    // Team09 resubmits, and the update replaying its games is killed.
    let resubmitted = std::fs::read_to_string(class.join("Team09/Team09.py"))
        .unwrap()
        .replacen("_Slow(9)", "_Slow(10)", 1);
    std::fs::write(class.join("Team09/Team09.py"), resubmitted).unwrap();
    interrupted(&bots, rustix::process::Signal::KILL, "an update killed");
}

#[test]
fn a_class_league_takes_a_late_team_and_a_resubmission_from_the_next_download_with_its_roster() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let week1 = dir.path().join("week1");
    copy_tree(&root.join("bots/submissions"), &week1);
    let roster = root.join("bots/roster.csv");
    let out = dir.path().join("class");
    let class = |download: &Path, extra: &[&str]| {
        run(arbiter()
            .args(["league", "-q", "--limit-ms", "5000", "--round-limit", "40"])
            .arg("--roster")
            .arg(&roster)
            .arg("--out")
            .arg(&out)
            .args(extra)
            .arg(download)
            .args(["builtin:greedy", "--non-scoring", "greedy"]))
    };
    let (code, stdout, stderr) = class(&week1, &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let marks = crate::common::csv_rows(&out.join("marks.csv"));
    assert!(
        marks
            .iter()
            .any(|r| r["team"] == "Team15" && r["status"] == "no submission"),
        "{marks:?}"
    );
    // The next download: the late Team15 hands in a file beside Team11's, and Team12
    // resubmits; the other teams' files are as they were, in a folder of another name.
    let week2 = dir.path().join("week2");
    copy_tree(&week1, &week2);
    std::fs::write(week2.join("Team15.py"), seeded(15)).unwrap();
    let team12 = week2.join("team12/Team12.py");
    let edited = format!("{}\n# resubmitted\n", read(&team12));
    std::fs::write(&team12, edited).unwrap();
    let (code, stdout, stderr) = class(&week2, &["--update"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    // 6 bots now: Team15's 10 games and Team12's 10 again (2 of them together); the 12
    // games of the others kept.
    assert!(
        stderr.contains("update: added Team15; changed Team12; 12 games kept, 8 games moved"),
        "{stderr}"
    );
    assert!(
        stdout.contains("30 of 30 games") && stdout.contains("this run played 18"),
        "{stdout}"
    );
    let marks = crate::common::csv_rows(&out.join("marks.csv"));
    let of = |id: &str| marks.iter().find(|r| r["id"] == id).unwrap().clone();
    assert_eq!(of("s1006")["team"], "Team15");
    assert_eq!(of("s1006")["status"], "played");
    assert_eq!(of("s1006")["games"], "10");
    assert_eq!(
        of("s1002")["games"],
        "10",
        "Team12's new version played every opponent"
    );
    let versions = crate::common::csv_rows(&out.join("versions.csv"));
    let team12: Vec<&str> = versions
        .iter()
        .filter(|r| r["team"] == "Team12")
        .map(|r| r["status"].as_str())
        .collect();
    assert_eq!(team12, ["changed", "current"]);
    assert!(read(&out.join("feedback/Team12.md")).contains("## Your earlier version"));
}

#[test]
fn a_resubmission_that_fails_the_check_keeps_the_version_that_passed_playing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("league");
    let week = |n: u32| dir.path().join(format!("week{n}"));
    let bots = |n: u32, teams: &[&str]| -> Vec<String> {
        teams
            .iter()
            .map(|t| {
                week(n)
                    .join(t)
                    .join(format!("{t}.py"))
                    .display()
                    .to_string()
            })
            .collect()
    };
    for (team, seed) in [("T1", 1), ("T2", 2), ("T3", 3)] {
        course_bot(&week(1), team, seed);
    }
    let (code, stdout, stderr) = league(&out, &bots(1, &["T1", "T2", "T3"]), &["--check"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    // The next download: T2's resubmission does not even compile, and a late T4 hands in.
    copy_tree(&week(1), &week(2));
    std::fs::write(week(2).join("T2/T2.py"), "def broken(:\n").unwrap();
    course_bot(&week(2), "T4", 4);
    let today = bots(2, &["T1", "T2", "T3", "T4"]);
    let (code, stdout, stderr) = league(&out, &today, &["--check", "--update"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("T2: its resubmission")
            && stderr.contains("fails the check (could not start: SyntaxError")
            && stderr.contains("plays on"),
        "the note says the version that passed plays on: {stderr}"
    );
    // Only T4's games are played: T2's earlier version plays T4 and keeps its games.
    assert!(stdout.contains("this run played 6\n"), "{stdout}");
    assert!(history_lines(&out).is_empty(), "no game left the standings");
    // As a fresh league of T1, T2 as it passed, T3 and T4.
    let mut passed = today.clone();
    passed[1] = format!("T2={}", bots(1, &["T2"])[0]);
    same_as_a_fresh_league(dir.path(), &out, &passed, "kept");
    let versions = crate::common::csv_rows(&out.join("versions.csv"));
    let t2: Vec<(&str, &str)> = versions
        .iter()
        .filter(|r| r["team"] == "T2")
        .map(|r| (r["status"].as_str(), r["reason"].as_str()))
        .collect();
    assert_eq!(t2.len(), 2, "{versions:?}");
    assert_eq!(t2[0], ("current", ""));
    assert_eq!(t2[1].0, "refused");
    assert!(t2[1].1.contains("SyntaxError"), "{t2:?}");
    let feedback = read(&out.join("feedback/T2.md"));
    assert!(
        feedback.contains("## Your resubmission")
            && feedback.contains("did not play: it failed the check (could not start: SyntaxError")
            && feedback.contains("Your version that passed (v1"),
        "{feedback}"
    );
    // The same command again plays nothing and records the refusal once.
    let (code, stdout, stderr) = league(&out, &today, &["--check", "--update"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("this run played 0\n"), "{stdout}");
    assert_eq!(crate::common::csv_rows(&out.join("versions.csv")), versions);
    // A fixed resubmission replaces the version that played.
    copy_tree(&week(2), &week(3));
    std::fs::write(week(3).join("T2/T2.py"), seeded(22)).unwrap();
    let (code, stdout, stderr) = league(
        &out,
        &bots(3, &["T1", "T2", "T3", "T4"]),
        &["--check", "--update"],
    );
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("this run played 6\n"), "{stdout}");
    let statuses: Vec<String> = crate::common::csv_rows(&out.join("versions.csv"))
        .iter()
        .filter(|r| r["team"] == "T2")
        .map(|r| r["status"].clone())
        .collect();
    assert_eq!(statuses, ["changed", "refused", "current"]);
    let feedback = read(&out.join("feedback/T2.md"));
    assert!(
        !feedback.contains("## Your resubmission") && feedback.contains("## Your earlier version"),
        "{feedback}"
    );
}

#[test]
fn a_sharded_league_grows_shard_by_shard_and_merges_into_the_league_one_folder_would_hold() {
    let dir = tempfile::tempdir().unwrap();
    let at = |name: &str| dir.path().join(name);
    let teams = |week: &str, names: &[&str]| -> Vec<String> {
        names
            .iter()
            .map(|t| format!("{t}={}", at(week).join(t).join(format!("{t}.py")).display()))
            .collect()
    };
    for (team, seed) in [("T1", 1), ("T2", 2), ("T3", 3), ("T4", 4)] {
        course_bot(&at("week1"), team, seed);
    }
    copy_tree(&at("week1"), &at("week2"));
    std::fs::write(at("week2").join("T2/T2.py"), seeded(22)).unwrap();
    course_bot(&at("week2"), "T5", 5);
    let week1 = teams("week1", &["T1", "T2", "T3", "T4"]);
    let week2 = teams("week2", &["T1", "T2", "T3", "T4", "T5"]);
    let merge = |into: &str| {
        let (code, stdout, stderr) = run(arbiter()
            .arg("merge")
            .arg(at("s1"))
            .arg(at("s2"))
            .arg("--out")
            .arg(at(into)));
        assert_eq!(code, 0, "{stdout}\n{stderr}");
    };
    for k in ["1/2", "2/2"] {
        let out = at(&format!("s{}", &k[..1]));
        let (code, stdout, stderr) = league(&out, &week1, &["--shard", k]);
        assert_eq!(code, 0, "{stdout}\n{stderr}");
    }
    merge("merged1");
    // Each shard updated on its own plays only its part of T5's games and T2's new ones.
    let mut played = 0;
    for k in ["1/2", "2/2"] {
        let out = at(&format!("s{}", &k[..1]));
        let before = lines_without(&out, &["T2"]);
        let (code, stdout, stderr) = league(&out, &week2, &["--shard", k, "--update"]);
        assert_eq!(code, 0, "{stdout}\n{stderr}");
        assert!(stderr.contains("update: added T5; changed T2"), "{stderr}");
        let runs = stdout
            .split("this run played ")
            .nth(1)
            .and_then(|s| s.split_whitespace().next())
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or_else(|| panic!("{stdout}"));
        played += runs;
        // The shard's games of unchanged bots are kept byte for byte, but for their ids
        // in today's schedule.
        let unnumbered = |lines: Vec<String>| -> BTreeSet<String> {
            lines
                .iter()
                .map(|l| l.split_once(",\"record\"").unwrap().1.to_string())
                .collect()
        };
        assert_eq!(
            unnumbered(lines_without(&out, &["T2", "T5"])),
            unnumbered(before),
            "shard {k}"
        );
    }
    // T5's 8 games and T2's 6 against the others: nothing else, in the two shards.
    assert_eq!(played, 14);
    merge("merged2");
    // The same weeks in one folder.
    let one = at("one");
    let (code, stdout, stderr) = league(&one, &week1, &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let (code, stdout, stderr) = league(&one, &week2, &["--update"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let merged = at("merged2");
    same_as_a_fresh_league(dir.path(), &merged, &week2, "merged");
    assert_eq!(standings_of(&merged), standings_of(&one));
    // Each game of the history with its bots, as what decides it (its moves' times differ
    // from run to run).
    let sorted = |path: PathBuf| {
        let mut lines: Vec<String> = read(&path)
            .lines()
            .map(|l| {
                let mut line: serde_json::Value = serde_json::from_str(l).unwrap();
                let game: serde_json::Value =
                    serde_json::from_str(line["game"].as_str().unwrap()).unwrap();
                line["game"] = serde_json::json!([game["game"], game["record"]]);
                line.to_string()
            })
            .collect();
        lines.sort();
        lines
    };
    assert_eq!(
        sorted(merged.join("history.jsonl")),
        sorted(one.join("history.jsonl")),
        "the history: T2's earlier version's games"
    );
    // The versions as one folder has them, but for when each was seen and left; T2's
    // first version with its standing in the whole league when it was replaced.
    let versions = |dir: &Path| -> Vec<Vec<String>> {
        crate::common::csv_rows(&dir.join("versions.csv"))
            .into_iter()
            .map(|mut r| {
                r.remove("first_seen");
                r.remove("left");
                r.into_values().collect()
            })
            .collect()
    };
    assert_eq!(versions(&merged), versions(&one));
    let t2: Vec<_> = crate::common::csv_rows(&merged.join("versions.csv"))
        .into_iter()
        .filter(|r| r["team"] == "T2")
        .collect();
    assert_eq!(t2[0]["status"], "changed");
    assert_eq!(t2[0]["games"], "6", "{t2:?}");
    assert!(!t2[0]["elo"].is_empty());
    assert!(read(&merged.join("feedback/T2.md")).contains("## Your earlier version"));
}

#[test]
fn a_built_in_bot_given_another_engine_is_a_new_version_of_its_team() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("league");
    let bots = |b2: &str| -> Vec<String> {
        [
            "b1=builtin:greedy",
            &format!("b2=builtin:{b2}"),
            "b3=builtin:random",
        ]
        .map(String::from)
        .to_vec()
    };
    let (code, stdout, stderr) = league(&out, &bots("random"), &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let (code, stdout, stderr) = league(&out, &bots("greedy"), &["--update"]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let b2: Vec<(String, String)> = crate::common::csv_rows(&out.join("versions.csv"))
        .into_iter()
        .filter(|r| r["team"] == "b2")
        .map(|r| (r["digest"].clone(), r["status"].clone()))
        .collect();
    assert_eq!(
        b2,
        [
            ("builtin:random".to_string(), "changed".to_string()),
            ("builtin:greedy".to_string(), "current".to_string())
        ]
    );
}

/// Every file under `dir` but the run's lock ([`crate::common::folder_files`]).
fn folder_files(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut files = crate::common::folder_files(dir);
    files.remove(Path::new("games.lock"));
    files
}

/// Every file of the league in `out` is what `arbiter table` writes from its journal,
/// history and versions alone, in a copy of the same name without the caches.
fn same_as_rebuilt_without_caches(out: &Path, what: &str) {
    let copy = tempfile::tempdir().unwrap();
    let rebuilt = copy.path().join(out.file_name().unwrap());
    std::fs::create_dir(&rebuilt).unwrap();
    for file in ["games.jsonl", "history.jsonl", "versions.jsonl"] {
        if out.join(file).exists() {
            std::fs::copy(out.join(file), rebuilt.join(file)).unwrap();
        }
    }
    let (code, _, stderr) = run(arbiter().arg("table").arg(&rebuilt));
    assert_eq!(code, 0, "{what}: arbiter table: {stderr}");
    let (ran, rebuilt) = (folder_files(out), folder_files(&rebuilt));
    crate::common::assert_same_files(
        &ran,
        &rebuilt,
        &format!("{what} and the one made without the caches"),
    );
}

#[test]
fn the_caches_of_summaries_and_replays_change_no_byte_of_an_update_or_a_rerun_and_a_damaged_one_is_made_again()
 {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("grown");
    // Nine bots, 72 games: two blocks of replays, the second one partial.
    let bots = |c: &str| {
        ["a", "b", "d", "e", "f", "g", "h", "i"]
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let kind = ["random", "greedy"][i % 2];
                format!("{name}=builtin:{kind}")
            })
            .chain([format!("c=builtin:{c}")])
            .collect::<Vec<_>>()
    };
    let (code, _, stderr) = league(&out, &bots("random"), &[]);
    assert_eq!(code, 0, "{stderr}");
    for cache in [".games.known", "report/.replays.known"] {
        assert!(out.join(cache).is_file(), "the run keeps {cache}");
    }
    same_as_rebuilt_without_caches(&out, "a league");
    // An update replays only the changed bot's games, through both caches.
    let (code, stdout, stderr) = league(&out, &bots("greedy"), &["--update"]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    same_as_rebuilt_without_caches(&out, "the league updated");
    // Run again with nothing to play: every block is left as it is.
    let block = out.join("report/replays/000000.js");
    let written = std::fs::metadata(&block).unwrap().modified().unwrap();
    let (code, stdout, stderr) = league(&out, &bots("greedy"), &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    assert!(stdout.contains("this run played 0\n"), "{stdout}");
    assert_eq!(
        std::fs::metadata(&block).unwrap().modified().unwrap(),
        written,
        "a block of the same games is not written again"
    );
    same_as_rebuilt_without_caches(&out, "the league run again");
    // Damaged caches and a damaged block: ignored, made again, the same outputs.
    let known = out.join(".games.known");
    let text = std::fs::read(&known).unwrap();
    std::fs::write(&known, &text[..text.len() / 2]).unwrap();
    let index = out.join("report/.replays.known");
    let text = std::fs::read_to_string(&index).unwrap();
    std::fs::write(&index, text.replacen("\"a\"", "\"b\"", 1)).unwrap();
    std::fs::write(&block, "arbiterReplayBlock(0,[],\"\");\n").unwrap();
    let (code, stdout, stderr) = league(&out, &bots("greedy"), &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    same_as_rebuilt_without_caches(&out, "the league with its caches damaged");
    // A cache whose digest still holds but whose block was changed since: the block's
    // games are replayed again.
    std::fs::write(&block, "arbiterReplayBlock(0,[],\"\");\n").unwrap();
    let (code, stdout, stderr) = league(&out, &bots("greedy"), &[]);
    assert_eq!(code, 0, "{stdout}{stderr}");
    same_as_rebuilt_without_caches(&out, "the league with a block changed");
}

#[test]
fn a_kept_version_holds_its_teams_own_files_and_nothing_else_of_the_class_folder() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let class = dir.path().join("class");
    copy_tree(&root.join("bots/submissions"), &class);
    // Strays beside the single-file team: nobody's helper, the teacher's notes and list.
    std::fs::write(class.join("utils.py"), "SECRET = 1\n").unwrap();
    std::fs::write(class.join("notes.txt"), "marks\n").unwrap();
    std::fs::copy(root.join("bots/roster.csv"), class.join("roster.csv")).unwrap();
    let out = dir.path().join("league");
    let (code, stdout, stderr) = run(arbiter()
        .args(["league", "-q", "--round-limit", "10", "--out"])
        .arg(&out)
        .arg(&class)
        .arg("builtin:greedy"));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    // Each version's copy, as TEAM/FOLDER/FILE (its digest's folder left out).
    let mut kept: Vec<String> = crate::common::folder_files(&out.join("versions"))
        .into_keys()
        .map(|p| {
            let parts: Vec<String> = p
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            assert_eq!(parts.len(), 4, "{}", p.display());
            format!("{}/{}/{}", parts[0], parts[2], parts[3])
        })
        .collect();
    kept.sort();
    assert_eq!(
        kept,
        [
            "Team11/class/Team11.py",
            "Team12/team12/Team12.py",
            "Team12/team12/utils.py",
            "Team13/team13/Team13.py",
            "Team13/team13/utils.py",
            "Team14/Team14/Team14.py",
            "Team14/Team14/moves.py",
        ]
    );
}
