//! Finding a course's bots in a folder of submissions, as the courses hand them in.

use super::*;
use crate::class::scan;

#[test]
fn wildcards_match_whole_names() {
    assert!(wildcard("Team*", "Team05.py"));
    assert!(wildcard("Team??.py", "Team05.py"));
    assert!(!wildcard("Team??.py", "Team5.py"));
    assert!(wildcard("*.zip", "a.b.zip"));
    assert!(!wildcard("*.zip", "a.zip.py"));
    assert!(wildcard("*", ""));
}

#[test]
fn advance_teams_are_a_csharp_project_or_one_executable_program() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let advance = dir.path().join("advance");
    let write = |path: &Path, mode: u32| {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
    };
    write(&advance.join("team01/Advance.csproj"), 0o644);
    write(&advance.join("team01/Program.cs"), 0o644);
    write(&advance.join("team02/bin/run"), 0o755);
    write(&advance.join("team03/one"), 0o755);
    write(&advance.join("team03/two"), 0o755);
    write(&advance.join("team04"), 0o755);
    write(&advance.join("notes.txt"), 0o644);
    let found = scan(&advance, GameKind::Advance, None, dir.path()).unwrap();
    let names: Vec<&str> = found.bots.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["team01", "team02", "team04"], "{found:?}");
    assert!(matches!(
        found.bots[0].spec(None),
        BotSpec::ConsoleProject(ref folder) if folder.ends_with("team01")
    ));
    assert!(
        matches!(found.bots[1].spec(None), BotSpec::Console(ref c) if c.program.ends_with("team02/bin/run"))
    );
    assert!(
        matches!(found.bots[2].spec(None), BotSpec::Console(ref c) if c.program.ends_with("team04"))
    );
    let reasons: Vec<(String, &str)> = found
        .skipped
        .iter()
        .map(|s| (file_name(&s.entry), s.reason.as_str()))
        .collect();
    assert_eq!(reasons.len(), 1, "{reasons:?}");
    assert!(
        reasons[0].0 == "team03" && reasons[0].1.starts_with("several candidates"),
        "{reasons:?}"
    );
    // Notes are no submission: no team, no mark.
    let ignored: Vec<String> = found.ignored.iter().map(|s| file_name(&s.entry)).collect();
    assert_eq!(ignored, ["notes.txt"]);
}

#[test]
fn hinger_and_gomoku_teams_are_found_by_their_course_files() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let hinger = dir.path().join("hinger");
    for file in ["a1_state.py", "a3_agent.py"] {
        let to = hinger.join("team07").join(file);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(root.join("bots/python/examples/hinger").join(file), to).unwrap();
    }
    std::fs::write(hinger.join("Team08.py"), "class Player:\n    pass\n").unwrap();
    let found = scan(&hinger, GameKind::Hinger, None, dir.path()).unwrap();
    assert_eq!(found.bots.len(), 1, "{found:?}");
    assert_eq!(found.bots[0].name, "team07");
    assert!(found.bots[0].file.ends_with("team07/a3_agent.py"));
    assert!(
        found.skipped[0].reason.starts_with("not a bot"),
        "{found:?}"
    );

    let gomoku = dir.path().join("gomoku");
    let examples = root.join("bots/java/examples");
    let team = gomoku.join("team09");
    std::fs::create_dir_all(&team).unwrap();
    for file in ["Player123456789.java", "Lines.java"] {
        std::fs::copy(examples.join(file), team.join(file)).unwrap();
    }
    std::fs::copy(
        examples.join("PlayerNull.java"),
        gomoku.join("PlayerNull.java"),
    )
    .unwrap();
    let found = scan(&gomoku, GameKind::Gomoku, None, dir.path()).unwrap();
    let names: Vec<&str> = found.bots.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["PlayerNull", "team09"], "{found:?}");
    assert!(found.bots[1].file.ends_with("Player123456789.java"));
    assert!(matches!(
        found.bots[1].spec(None),
        BotSpec::CourseJava { .. }
    ));
    assert!(found.skipped.is_empty(), "{found:?}");
}

#[test]
fn a_folder_holding_only_its_submission_goes_by_that_file_but_a_hinger_agent_does_not() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let asalto = dir.path().join("asalto");
    let team11 = root.join("bots/submissions/Team11.py");
    std::fs::create_dir_all(asalto.join("bob_1002_file_")).unwrap();
    std::fs::copy(&team11, asalto.join("bob_1002_file_/Team05.py")).unwrap();
    std::fs::create_dir_all(asalto.join("erin_1005_file_")).unwrap();
    std::fs::write(asalto.join("erin_1005_file_/notes.txt"), "no bot\n").unwrap();
    let found = scan(&asalto, GameKind::Asalto, None, dir.path()).unwrap();
    assert_eq!(found.bots.len(), 1, "{found:?}");
    assert_eq!(found.bots[0].name, "Team05");
    assert_eq!(found.skipped[0].name, "erin_1005_file_", "{found:?}");

    let hinger = dir.path().join("hinger");
    std::fs::create_dir_all(hinger.join("carol_1003_file_")).unwrap();
    std::fs::copy(
        root.join("bots/python/examples/hinger/a3_agent.py"),
        hinger.join("carol_1003_file_/a3_agent.py"),
    )
    .unwrap();
    let found = scan(&hinger, GameKind::Hinger, None, dir.path()).unwrap();
    let names: Vec<&str> = found.bots.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["carol_1003_file_"], "{found:?}");
}

#[test]
fn a_player_class_is_found_only_at_the_top_level() {
    assert!(defines_player("import x\nclass Player:\n  pass\n"));
    assert!(defines_player("class Player(object):\n  pass\n"));
    assert!(!defines_player("class PlayerHelper:\n  pass\n"));
    assert!(!defines_player("  class Player:\n"));
}

#[test]
fn a_player_bound_by_any_top_level_statement_is_seen() {
    for source in [
        "class  Player :\n    pass\n",
        "class Player():  # the bot\n    pass\n",
        "class MyBot:\n    pass\nPlayer = MyBot\n",
        "Player: type = MyBot\n",
        "from impl import Player\n",
        "from impl import Helper, Player as Player\n",
        "from impl import (\n    Helper,\n    Player,\n)\n",
        "import impl as Player\n",
        "def Player():\n    return MyBot()\n",
    ] {
        assert!(defines_player(source), "{source:?}");
    }
    for source in [
        "PlayerHelper = 1\n",
        "if Player == 1:\n    pass\n",
        "from impl import PlayerHelper\n",
        "import Player\n",
        "def make():\n    Player = 1\n",
        "# class Player:\n",
        "x = 1  # Player = 2\n",
    ] {
        assert!(!defines_player(source), "{source:?}");
    }
}

#[test]
fn one_submission_handed_in_by_two_students_is_one_bot() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("asalto");
    let team11 = root.join("bots/submissions/Team11.py");
    for student in ["ada_1001_file_", "alan_1002_file_"] {
        std::fs::create_dir_all(folder.join(student)).unwrap();
        std::fs::copy(&team11, folder.join(student).join("Team12.py")).unwrap();
        std::fs::write(folder.join(student).join("helper.py"), "X = 1\n").unwrap();
    }
    let found = scan(&folder, GameKind::Asalto, None, dir.path()).unwrap();
    let names: Vec<&str> = found.bots.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["Team12"], "{found:?}");
    assert!(found.bots[0].entry.ends_with("ada_1001_file_"));
    assert_eq!(found.same.len(), 1, "{found:?}");
    assert!(found.same[0].entry.ends_with("alan_1002_file_"));
    assert_eq!(found.same[0].name, "Team12");

    // A helper that differs makes them two different submissions of one team.
    std::fs::write(folder.join("alan_1002_file_/helper.py"), "X = 2\n").unwrap();
    let refused = scan(&folder, GameKind::Asalto, None, dir.path()).unwrap_err();
    let text = refused.to_string();
    assert!(
        text.contains("both named `Team12`")
            && text.contains("ada_1001_file_")
            && text.contains("alan_1002_file_"),
        "{text}"
    );
}

#[test]
fn names_that_differ_only_in_case_are_one_team() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("asalto");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::copy(
        root.join("bots/submissions/Team11.py"),
        folder.join("Team06.py"),
    )
    .unwrap();
    std::fs::write(folder.join("team06.py"), "class Player:\n    pass\n").unwrap();
    let text = scan(&folder, GameKind::Asalto, None, dir.path())
        .unwrap_err()
        .to_string();
    assert!(
        text.contains("`Team06` and `team06`, one name but for case"),
        "{text}"
    );
}

#[test]
fn a_folder_with_one_team_file_plays_it_whatever_binds_its_player() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("asalto");
    std::fs::create_dir_all(folder.join("Team31")).unwrap();
    std::fs::write(folder.join("Team31/impl.py"), "class Player:\n    pass\n").unwrap();
    std::fs::write(
        folder.join("Team31/Team31.py"),
        "globals().update(Player=__import__('impl').Player)\n",
    )
    .unwrap();
    let found = scan(&folder, GameKind::Asalto, None, dir.path()).unwrap();
    assert_eq!(found.bots.len(), 1, "{found:?}");
    assert!(found.bots[0].file.ends_with("Team31/Team31.py"));
}

/// A course bot of `team`, as its own file.
fn course_bot(team: &str) -> String {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(root.join("bots/submissions/Team11.py"))
        .unwrap()
        .replace("Team11", team)
}

fn put(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

#[test]
fn a_canvas_download_gives_every_team_its_bot_late_and_uploaded_again_included() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("canvas");
    put(
        &class.join("smithalice_10001_5551_Team01.py"),
        &course_bot("Team01"),
    );
    put(
        &class.join("jonesbob_late_10002_5552_Team02.py"),
        &course_bot("Team02"),
    );
    // Uploaded twice: Canvas numbers the second file, which is the one that plays; a
    // helper keeps its own name.
    put(
        &class.join("leecarol_10003_5553_Team03.py"),
        "class Player:\n    old = 1\n",
    );
    put(
        &class.join("leecarol_10003_5553_Team03-1.py"),
        &course_bot("Team03"),
    );
    put(&class.join("leecarol_10003_5554_helper_03.py"), "X = 3\n");
    put(
        &class.join("kimdave_10004_5555_Team04.py"),
        &course_bot("Team04"),
    );
    put(
        &class.join("nguyenerin_10005_5556_Team05.py"),
        &course_bot("Team05"),
    );
    let unpack = dir.path().join("unpacked");
    let found = scan(&class, GameKind::Asalto, None, &unpack).unwrap();
    let names: Vec<&str> = found.bots.iter().map(|b| b.name.as_str()).collect();
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        ["Team01", "Team02", "Team03", "Team04", "Team05"],
        "{found:?}"
    );
    assert!(
        found.skipped.is_empty() && found.ignored.is_empty(),
        "{found:?}"
    );
    // Team03 runs from a folder of its own files under their own names.
    let team03 = found.bots.iter().find(|b| b.name == "Team03").unwrap();
    assert_eq!(file_name(&team03.file), "Team03.py");
    assert_eq!(
        std::fs::read_to_string(&team03.file).unwrap(),
        course_bot("Team03")
    );
    assert!(team03.file.with_file_name("helper_03.py").is_file());
    assert!(file_name(&team03.entry).starts_with("leecarol_10003_"));
}

#[test]
fn a_blackboard_download_gives_every_team_its_bot_and_its_receipts_no_team() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("blackboard");
    for (user, team) in [
        ("asmith", "Team01"),
        ("bjones", "Team02"),
        ("clee", "Team03"),
    ] {
        let stem = format!("Asalto Bot_{user}_attempt_2026-03-01-10-30-00");
        put(&class.join(format!("{stem}_{team}.py")), &course_bot(team));
        put(
            &class.join(format!("{stem}.txt")),
            "Name: ...\nSubmission Field:\n",
        );
    }
    let found = scan(&class, GameKind::Asalto, None, &dir.path().join("u")).unwrap();
    let mut names: Vec<&str> = found.bots.iter().map(|b| b.name.as_str()).collect();
    names.sort();
    assert_eq!(names, ["Team01", "Team02", "Team03"], "{found:?}");
    assert!(found.skipped.is_empty(), "{found:?}");
    assert_eq!(found.ignored.len(), 3, "{found:?}");
    assert!(found.ignored.iter().all(|i| i.reason.contains("receipt")));
}

#[test]
fn what_is_no_submission_is_ignored_and_a_team_folder_is_one_bot() {
    let dir = tempfile::tempdir().unwrap();
    let class = dir.path().join("moodle");
    put(
        &class.join("Alice Smith_12345_assignsubmission_file_/Team01.py"),
        &course_bot("Team01"),
    );
    put(
        &class.join("Alice Smith_12345_assignsubmission_onlinetext_/onlinetext.html"),
        "<p>see my file</p>",
    );
    std::fs::create_dir_all(class.join("Bob Jones_12346_assignsubmission_file_")).unwrap();
    put(&class.join("README.md"), "# Download\n");
    let found = scan(&class, GameKind::Asalto, None, &dir.path().join("u")).unwrap();
    let names: Vec<&str> = found.bots.iter().map(|b| b.name.as_str()).collect();
    assert_eq!(names, ["Team01"], "{found:?}");
    assert!(found.skipped.is_empty(), "{found:?}");
    let ignored: Vec<String> = found.ignored.iter().map(|s| file_name(&s.entry)).collect();
    assert_eq!(
        ignored,
        [
            "Alice Smith_12345_assignsubmission_onlinetext_",
            "Bob Jones_12346_assignsubmission_file_",
            "README.md"
        ],
        "{found:?}"
    );

    // One team's folder given as it is: its helper and data are its own, not teams.
    let team = dir.path().join("TeamNP");
    put(&team.join("TeamNP.py"), &course_bot("TeamNP"));
    put(
        &team.join("greedy_helper.py"),
        "def best(moves):\n    return moves[0]\n",
    );
    put(&team.join("weights.npy"), "\u{93}NUMPY");
    let bot = team_folder(&team, GameKind::Asalto).expect("one team's folder");
    assert_eq!(bot.name, "TeamNP");
    assert!(bot.file.ends_with("TeamNP/TeamNP.py"));
    // A class folder is not one team's folder.
    assert_eq!(team_folder(&class, GameKind::Asalto), None);
}

#[test]
fn a_loose_file_named_after_a_loose_bot_is_its_helper_not_a_team() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("class");
    put(&folder.join("Team01.py"), &course_bot("Team01"));
    put(&folder.join("Team01_utils.py"), "X = 1\n");
    put(&folder.join("utils.py"), "X = 2\n");
    let found = scan(&folder, GameKind::Asalto, None, dir.path()).unwrap();
    let helper = found
        .ignored
        .iter()
        .find(|i| i.entry.ends_with("Team01_utils.py"))
        .unwrap_or_else(|| panic!("{found:?}"));
    assert_eq!(
        helper.reason,
        "a helper of Team01 (named after it), not a submission"
    );
    // A loose file of nobody's still keeps its row, with its reason.
    assert!(found.skipped.iter().any(|s| s.entry.ends_with("utils.py")));
}
