//! Unit tests of the journal: formats, resume, repair, the folder lock.

use super::format::*;
use super::reader::*;
use super::*;
use crate::error::Error;
use crate::record::GameRecord;
use crate::tournament::shard::Shard;

fn plan() -> Plan {
    let bot = |name: &str| PlanBot {
        name: name.into(),
        spec: format!("builtin:{name}"),
        ..PlanBot::default()
    };
    Plan {
        format: "round_robin".into(),
        game: "gomoku".into(),
        roles: vec!["white".into(), "black".into()],
        bots: vec![bot("random"), bot("greedy")],
        pairs: 1,
        seed: 1,
        rules: serde_json::Map::new(),
        points_win: 2.0,
        points_tie: 1.0,
        limit_ms: Some(200),
        init_limit_ms: Some(30_000),
        openings: None,
        sprt: None,
        left_out: Vec::new(),
        merged: Vec::new(),
        seeds: None,
    }
}

fn record() -> GameRecord {
    serde_json::from_value(serde_json::json!({
        "game": "gomoku", "roles": ["white", "black"],
        "players": {"white": "random", "black": "greedy"},
        "winner": "black", "reason": "five_in_row", "rounds": 5, "plies": 10,
        "illegal": {"white": 0, "black": 0}, "seed": 7, "moves": [], "final_board": null
    }))
    .unwrap()
}

#[test]
fn every_changed_setting_is_named_with_its_old_and_new_value() {
    let old = plan();
    let mut new = plan();
    new.limit_ms = Some(5000);
    new.bots[1].python = Some("python3.12".into());
    new.bots[1].digest = Some("ab".into());
    new.rules.insert("density".into(), 0.5.into());
    let text = plan_difference(&old, &new).to_string();
    for part in [
        "limit_ms 200 there, 5000 now",
        "bot greedy python unset there, python3.12 now",
        "bot greedy digest unset there, ab now",
        "rules {} there, {\"density\":0.5} now",
    ] {
        assert!(text.contains(part), "`{part}` in: {text}");
    }
    assert_eq!(text.matches(';').count(), 3, "{text}");
}

#[test]
fn bots_whose_files_changed_alike_are_named_together() {
    let mut old = plan();
    let mut new = plan();
    for bot in old.bots.iter_mut() {
        bot.digest = Some("9ac8".into());
    }
    for bot in new.bots.iter_mut() {
        bot.digest = Some("790d".into());
    }
    let text = plan_difference(&old, &new).to_string();
    assert!(
        text.starts_with("bots random, greedy digest 9ac8 there, 790d now (one change:"),
        "{text}"
    );
    assert_eq!(text.matches("9ac8").count(), 1, "{text}");
    // One bot's own edit beside them is its own.
    new.bots[1].digest = Some("ffff".into());
    let text = plan_difference(&old, &new).to_string();
    assert!(
        text.contains("bot random digest 9ac8 there, 790d now")
            && text.contains("bot greedy digest 9ac8 there, ffff now"),
        "{text}"
    );
}

#[test]
fn a_torn_line_is_dropped_and_the_next_game_starts_on_a_line_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let (mut journal, _) = Journal::open(dir.path(), &plan(), false).unwrap();
    journal.append(0, &record()).unwrap();
    drop(journal);
    let path = dir.path().join(JOURNAL_FILE);
    let whole = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{whole}{{\"game\":1,\"rec")).unwrap();
    let before = std::fs::read(&path).unwrap();
    // Reading reports the damage and changes nothing.
    let loaded = load(&path).unwrap();
    assert_eq!(
        (loaded.games.len(), loaded.repair),
        (1, Some(Repair::Dropped))
    );
    assert_eq!(std::fs::read(&path).unwrap(), before);
    let (mut journal, loaded) = Journal::open(dir.path(), &plan(), false).unwrap();
    assert_eq!(loaded.repair, Some(Repair::Dropped));
    journal.append(1, &record()).unwrap();
    drop(journal);
    let loaded = load(&path).unwrap();
    assert_eq!((loaded.games.len(), loaded.repair), (2, None));
}

#[test]
fn a_second_open_of_a_folder_is_refused_while_the_first_holds_it() {
    let dir = tempfile::tempdir().unwrap();
    let (journal, _) = Journal::open(dir.path(), &plan(), false).unwrap();
    let err = Journal::open(dir.path(), &plan(), false).err().unwrap();
    assert!(
        err.to_string().contains("another arbiter run is using"),
        "{err}"
    );
    // The refusal left the first run's lock in place, against other processes too.
    let try_lock =
        "import fcntl, sys; fcntl.lockf(open(sys.argv[1], 'a'), fcntl.LOCK_EX | fcntl.LOCK_NB)";
    let other = std::process::Command::new("python3")
        .args(["-c", try_lock])
        .arg(dir.path().join(LOCK_FILE))
        .stderr(std::process::Stdio::null())
        .status()
        .expect("python3 runs");
    assert!(!other.success(), "another process took the lock");
    drop(journal);
    assert!(Journal::open(dir.path(), &plan(), false).is_ok());
}

#[test]
fn a_shard_journal_resumes_only_as_its_own_shard() {
    let dir = tempfile::tempdir().unwrap();
    let first = Some(Shard::new(1, 3).unwrap());
    let (mut journal, _) = Journal::open_shard(dir.path(), &plan(), first, false).unwrap();
    journal.append(0, &record()).unwrap();
    drop(journal);
    let loaded = load(&dir.path().join(JOURNAL_FILE)).unwrap();
    assert_eq!(loaded.shard, first);
    assert_eq!(
        loaded.plan,
        plan(),
        "the shard is beside the plan, not in it"
    );
    let second = Some(Shard::new(2, 3).unwrap());
    for (asked, named) in [(second, "shard 2/3"), (None, "the whole schedule")] {
        let err = Journal::open_shard(dir.path(), &plan(), asked, false)
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.contains("holds shard 1/3 of the schedule") && err.contains(named),
            "{err}"
        );
    }
    let (_, loaded) = Journal::open_shard(dir.path(), &plan(), first, false).unwrap();
    assert_eq!(loaded.games.len(), 1);
}

#[test]
fn a_journal_without_games_is_started_afresh_under_new_settings() {
    let dir = tempfile::tempdir().unwrap();
    drop(Journal::open(dir.path(), &plan(), false).unwrap());
    let mut new = plan();
    new.limit_ms = Some(5000);
    let (_, loaded) = Journal::open(dir.path(), &new, false).unwrap();
    assert!(loaded.games.is_empty());
    assert_eq!(load(&dir.path().join(JOURNAL_FILE)).unwrap().plan, new);
}

#[test]
fn every_record_is_read_whole_once_in_journal_order_without_the_torn_tail() {
    let dir = tempfile::tempdir().unwrap();
    let (mut journal, _) = Journal::open(dir.path(), &plan(), false).unwrap();
    let mut second = record();
    second.winner = None;
    second.reason = "board_full".into();
    journal.append(3, &record()).unwrap();
    journal.append(1, &second).unwrap();
    journal.append(3, &second).unwrap();
    drop(journal);
    let path = dir.path().join(JOURNAL_FILE);
    let whole = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, format!("{whole}{{\"game\":2,\"rec")).unwrap();
    let mut seen = Vec::new();
    let read_plan = for_each_record(&path, |id, r| {
        seen.push((id, r));
        Ok(())
    })
    .unwrap();
    assert_eq!(read_plan, plan());
    assert_eq!(seen, vec![(3, record()), (1, second)]);
    // The visitor's own error stops the reading and is returned.
    let err = for_each_record(&path, |_, _| Err(Error::usage("stop".to_string())));
    assert!(err.unwrap_err().to_string().contains("stop"));
}

#[test]
fn the_listing_kept_while_counting_gives_back_every_summary_in_schedule_order() {
    let dir = tempfile::tempdir().unwrap();
    let (mut journal, _) = Journal::open(dir.path(), &plan(), false).unwrap();
    // Out of schedule order, with times, a detail and an opening to read back exactly.
    for id in [3u64, 0, 2, 1] {
        let mut game = record();
        game.seed = id;
        game.start = id / 2;
        game.opening = serde_json::json!([[id, 1]]);
        game.detail =
            (id == 2).then(|| "Traceback (most recent call last):\nValueError: \"x\"".into());
        game.moves = serde_json::from_value(serde_json::json!([
            {"ply": 0, "side": "white", "reply": [1, 2], "verdict": "move", "time_ms": 0.1234 + id as f64},
            {"ply": 1, "side": "black", "reply": null, "verdict": "illegal", "reason": "no_legal_move", "time_ms": 1e-3},
        ]))
        .unwrap();
        journal.append(id, &game).unwrap();
    }
    drop(journal);
    let path = dir.path().join(JOURNAL_FILE);
    let mut counted = Vec::new();
    let (loaded, listing) = load_counting(&path, &mut |g| counted.push(g.clone())).unwrap();
    assert!(loaded.games.is_empty());
    let mut whole = load(&path).unwrap().games;
    assert_eq!(
        counted, whole,
        "counted in journal order, as load reads them"
    );
    whole.sort_by_key(|g| g.id);
    let mut listed = Vec::new();
    listing
        .for_each(&mut |g| {
            listed.push(g.clone());
            Ok(())
        })
        .unwrap();
    assert_eq!(listing.len(), 4);
    for (listed, whole) in listed.iter().zip(&whole) {
        let mut expected = whole.clone();
        expected.replay = [0; 12];
        assert_eq!(listed, &expected);
    }
    assert_eq!(listed.len(), whole.len());
}

#[test]
fn a_difference_names_the_settings_it_holds_the_plans_and_the_bots() {
    let old = plan();
    let mut new = plan();
    new.bots[1].non_scoring = true;
    let difference = plan_difference(&old, &new);
    assert!(difference.changes("non_scoring"), "{difference}");
    assert!(!difference.changes("limit_ms"), "{difference}");
    new.limit_ms = Some(5000);
    let difference = plan_difference(&old, &new);
    assert!(difference.changes("limit_ms") && difference.changes("non_scoring"));
    assert!(plan_difference(&old, &old).to_string().is_empty());
}

/// A command checks its plan against the folder's journal before it writes any file of
/// the folder: what opening would refuse, the check refuses, and it writes nothing.
#[test]
fn the_check_before_opening_refuses_what_opening_refuses_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let fresh = dir.path().join("fresh");
    Journal::check_open(&fresh, &plan(), None, false, false).unwrap();
    assert!(!fresh.exists(), "no folder made");
    let (mut journal, _) = Journal::open(dir.path(), &plan(), false).unwrap();
    let mut other = plan();
    other.limit_ms = Some(5000);
    // A journal with no game yet is started afresh under any plan.
    Journal::check_open(dir.path(), &other, None, false, false).unwrap();
    journal.append(0, &record()).unwrap();
    drop(journal);
    let path = dir.path().join(JOURNAL_FILE);
    let before = std::fs::read(&path).unwrap();
    let checked = Journal::check_open(dir.path(), &other, None, false, false)
        .err()
        .unwrap()
        .to_string();
    let opened = Journal::open(dir.path(), &other, false)
        .err()
        .unwrap()
        .to_string();
    assert_eq!(checked, opened);
    assert!(checked.contains("other settings"), "{checked}");
    let shard = Some(Shard::new(1, 2).unwrap());
    assert!(Journal::check_open(dir.path(), &plan(), shard, false, false).is_err());
    Journal::check_open(dir.path(), &plan(), None, false, false).unwrap();
    Journal::check_open(dir.path(), &other, None, true, false).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert!(!dir.path().join(REPLACED_FILE).exists());
}

#[test]
fn a_resume_keeps_the_entries_merged_and_the_files_it_finds_new_and_a_shard_stays_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let shard = Some(Shard::new(1, 3).unwrap());
    let (mut journal, _) = Journal::open_shard(dir.path(), &plan(), shard, false).unwrap();
    journal.append(0, &record()).unwrap();
    drop(journal);
    // The same league as a later arbiter plans it: what only describes the bots is new.
    let mut described = plan();
    described.merged.push(Merged {
        name: "random".into(),
        entry: "class/Bob_assignsubmission_file_".into(),
    });
    described.bots[0].file = Some("Team01.py".into());
    let (_, loaded) = Journal::open_shard(dir.path(), &described, shard, false).unwrap();
    assert_eq!(loaded.games.len(), 1);
    let kept = load(&dir.path().join(JOURNAL_FILE)).unwrap();
    assert_eq!(kept.plan, described);
    assert_eq!(kept.shard, shard);
    assert_eq!(kept.games.len(), 1);
}
