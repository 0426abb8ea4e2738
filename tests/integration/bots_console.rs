//! Console bots (one process per move) against scripted programs: every way such a
//! program can misbehave is adjudicated with the right failure and leaves no process
//! behind; a good one's board becomes the legal move that gives it.

use crate::bots_common::{assert_no_process_with, end, setup, sh_bot};
use crate::common::{arbiter, run, shell_quote};
use arbiter::bots::console::ConsolePlayer;
use arbiter::bots::{FailureKind, Player, Reply};
use arbiter::games::advance::{Advance, Move};
use arbiter::games::{Game, Side};
use std::time::{Duration, Instant};

/// The start with the white Zombie of (7,1) stepped to (6,1).
const AFTER_ZOMBIE: &str = "mjdsgscjm\nbzzzzzzzb\n.........\n.........\n.........\n\
                            .........\n.Z.......\nB.ZZZZZZB\nMJCSGSDJM\n";

/// Seats the script `body` (run as `sh bot.sh white|black IN OUT`) as white and plays
/// one turn from the start.
fn one_turn(body: &str, move_ms: u64) -> (Reply<Move>, Duration, Option<String>) {
    let (_dir, command) = sh_bot(body);
    let mut player = ConsolePlayer::new(command);
    let game = Advance;
    let name = Player::<Advance>::start(&mut player, &game, &setup(Side::First, move_ms, 5000))
        .expect("a console bot starts");
    let turn = Player::<Advance>::turn(&mut player, &game, &game.initial());
    Player::<Advance>::finish(&mut player, &end());
    (turn.reply, turn.elapsed, name)
}

fn failure(reply: &Reply<Move>) -> (FailureKind, String) {
    match reply {
        Reply::Failed(f) => (f.kind, f.detail.clone()),
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[test]
fn a_good_board_becomes_its_move_and_the_name_is_asked() {
    let body = format!(
        "if [ \"$1\" = name ]; then echo '  Fancy Bot  '; exit 0; fi\n\
         [ \"$1\" = white ] || exit 9\nprintf '{}' > \"$3\"\n",
        AFTER_ZOMBIE.replace('\n', "\\n")
    );
    let (reply, _, name) = one_turn(&body, 5000);
    assert_eq!(name.as_deref(), Some("Fancy Bot"));
    let Reply::Checked(mv) = reply else {
        panic!("expected a checked move, got {reply:?}")
    };
    assert_eq!(
        Advance.move_to_wire(&mv),
        serde_json::json!([[7, 1], [6, 1]])
    );
}

#[test]
fn crlf_and_a_missing_last_newline_are_tolerated() {
    let crlf = AFTER_ZOMBIE.trim_end().replace('\n', "\\r\\n");
    let (reply, _, name) = one_turn(&format!("printf '{crlf}' > \"$3\"\n"), 5000);
    assert!(matches!(reply, Reply::Checked(_)), "{reply:?}");
    assert_eq!(name, None, "no name printed: the bot stays unnamed");
}

#[test]
fn no_output_file_is_bad_output() {
    let (reply, _, _) = one_turn("exit 0\n", 5000);
    let (kind, detail) = failure(&reply);
    assert_eq!(kind, FailureKind::BadOutput);
    assert!(detail.contains("without writing"), "{detail}");
}

#[test]
fn garbage_output_is_bad_output_naming_the_line() {
    let (reply, _, _) = one_turn("cp \"$2\" \"$3\"; sed -i '3s/.*/...x...../' \"$3\"\n", 5000);
    let (kind, detail) = failure(&reply);
    assert_eq!(kind, FailureKind::BadOutput);
    assert!(
        detail.contains("line 3") && detail.contains("`x`"),
        "{detail}"
    );
    let (reply, _, _) = one_turn("echo hello > \"$3\"\n", 5000);
    assert_eq!(failure(&reply).0, FailureKind::BadOutput);
}

#[test]
fn an_illegal_board_and_an_unchanged_board_are_illegal_moves() {
    // A Zombie two squares ahead onto an empty square: no legal move gives that.
    let jump = AFTER_ZOMBIE.replace(".Z.......\n", ".........\n").replacen(
        ".........\n.........\nB.ZZ",
        ".Z.......\n.........\nB.ZZ",
        1,
    );
    for body in [
        format!("printf '{}' > \"$3\"\n", jump.replace('\n', "\\n")),
        "cp \"$2\" \"$3\"\n".to_string(),
    ] {
        let (reply, _, _) = one_turn(&body, 5000);
        let Reply::Wire(board) = &reply else {
            panic!("expected the board as the reply, got {reply:?}")
        };
        let why = Advance
            .parse_move(&Advance.initial(), board)
            .expect_err("illegal");
        assert_eq!(arbiter::games::ReasonCode::code(&why), "illegal");
    }
}

#[test]
fn a_crash_is_a_crash_with_its_status() {
    let (reply, _, _) = one_turn("echo doomed >&2; exit 3\n", 5000);
    let (kind, detail) = failure(&reply);
    assert_eq!(kind, FailureKind::Crash);
    assert!(
        detail.contains("exit status 3") && detail.contains("doomed"),
        "{detail}"
    );
}

#[test]
fn a_hang_is_a_timeout_and_is_killed() {
    let started = Instant::now();
    // It gives its name at once (a start that hung would wait out the start's 5 s).
    let (reply, elapsed, _) = one_turn("[ \"$1\" = name ] && exit 0\nsleep 3002\n", 500);
    assert_eq!(failure(&reply).0, FailureKind::Timeout);
    assert!(elapsed >= Duration::from_millis(500));
    assert!(started.elapsed() < Duration::from_secs(20));
    assert_no_process_with("3002");
}

#[test]
fn a_grandchild_left_behind_is_swept_and_the_move_counts() {
    let body = format!(
        "(sleep 3003 &)\nsh -c 'sleep 3004' &\nprintf '{}' > \"$3\"\n",
        AFTER_ZOMBIE.replace('\n', "\\n")
    );
    let (reply, _, _) = one_turn(&body, 5000);
    assert!(matches!(reply, Reply::Checked(_)), "{reply:?}");
    assert_no_process_with("3003");
    assert_no_process_with("3004");
}

#[test]
fn a_console_bot_plays_whole_games_through_the_cli() {
    let dir = tempfile::tempdir().expect("temp dir");
    let record = dir.path().join("game.json");
    let bot = format!(
        "console:{} console-bot grade5 --seed 3",
        shell_quote(crate::common::arbiter_exe())
    );
    let (code, out, err) = run(arbiter().args([
        "play",
        "--game",
        "advance",
        "--white",
        &bot,
        "--black",
        "builtin:grade4",
        "--limit-ms",
        "5000",
        "--record",
        &record.to_string_lossy(),
    ]));
    assert_eq!(code, 0, "{out}{err}");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(record["players"]["white"], "arbiter-grade5");
    let moves = record["moves"].as_array().expect("moves");
    assert!(moves.len() > 2);
    // The derived move is recorded, not the board.
    assert!(moves[0]["reply"][0].is_array(), "{}", moves[0]);
    assert_eq!(moves[0]["verdict"], "move");
}

#[test]
fn a_console_bot_writing_its_input_back_loses_by_an_illegal_move() {
    let dir = tempfile::tempdir().expect("temp dir");
    let script = dir.path().join("lazy.sh");
    std::fs::write(&script, "cp \"$2\" \"$3\"\n").unwrap();
    let record = dir.path().join("game.json");
    let (code, out, err) = run(arbiter().args([
        "play",
        "--game",
        "advance",
        "--white",
        "builtin:grade4",
        "--black",
        &format!("console:sh {}", script.display()),
        "--record",
        &record.to_string_lossy(),
    ]));
    assert_eq!(code, 0, "{out}{err}");
    let record: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap();
    assert_eq!(record["winner"], "white");
    assert_eq!(record["reason"], "illegal_move");
    let last = record["moves"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(last["reason"], "illegal");
}

#[test]
fn console_bots_and_builtins_mix_in_a_league_and_its_tables() {
    let dir = tempfile::tempdir().expect("temp dir");
    let out = dir.path().join("advance");
    let console = format!(
        "console:{} console-bot grade4",
        shell_quote(crate::common::arbiter_exe())
    );
    let (code, stdout, err) = run(arbiter().args([
        "league",
        "--game",
        "advance",
        "--pairs",
        "1",
        "-j",
        "2",
        "--limit-ms",
        "5000",
        "--out",
        &out.to_string_lossy(),
        &console,
        "builtin:grade5",
    ]));
    assert_eq!(code, 0, "{stdout}{err}");
    let journal = std::fs::read_to_string(out.join("games.jsonl")).expect("a journal");
    let games: Vec<serde_json::Value> = journal
        .lines()
        .skip(1) // the header
        .map(|l| serde_json::from_str(l).expect("a journal line"))
        .collect();
    assert_eq!(games.len(), 2, "one role-swapped pair");
    for g in &games {
        let reason = g["record"]["reason"].as_str().unwrap_or_default();
        assert!(
            ["no_legal_move", "material", "material_tie"].contains(&reason),
            "a console bot plays to a rule ending: {}",
            g["record"]["reason"]
        );
    }
    let standings = std::fs::read_to_string(out.join("standings.csv")).expect("standings");
    assert!(
        standings.contains("arbiter-grade4") && standings.contains("grade5"),
        "{standings}"
    );
    let (code, _, err) = run(arbiter().args(["table", &out.to_string_lossy()]));
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_csharp_project_folder_is_built_with_dotnet_or_refused_clearly() {
    use arbiter::bots::spec::BotSpec;
    let dir = tempfile::tempdir().expect("temp dir");
    let empty = BotSpec::parse(&format!("console:{}", dir.path().display()));
    assert!(
        empty.is_err_and(|e| e.to_string().contains("no *.csproj")),
        "a folder without a project is refused"
    );
    std::fs::write(dir.path().join("Bot.csproj"), "<Project/>").unwrap();
    let spec = BotSpec::parse(&format!("console:{}", dir.path().display())).unwrap();
    assert_eq!(spec, BotSpec::ConsoleProject(dir.path().to_path_buf()));
    let on_path = std::env::var_os("PATH")
        .is_some_and(|p| std::env::split_paths(&p).any(|d| d.join("dotnet").is_file()));
    if !on_path {
        let err = arbiter::bots::open_player(&spec, &Advance)
            .err()
            .expect("no dotnet: no player");
        assert!(
            err.contains("dotnet") && err.contains("Bot.csproj"),
            "{err}"
        );
    }
}

#[test]
fn under_the_sandbox_the_move_files_follow_the_bot_into_its_folder() {
    if !arbiter::jail::sandbox::is_root() {
        eprintln!("skipped: --sandbox user needs root");
        return;
    }
    let body = format!(
        "[ \"$(id -u)\" != 0 ] || exit 7\nprintf '{}' > \"$3\"\n",
        AFTER_ZOMBIE.replace('\n', "\\n")
    );
    let (dir, mut command) = sh_bot(&body);
    command.cwd = Some(dir.path().to_path_buf());
    command.confine.sandbox = arbiter::bots::spec::SandboxMode::User;
    let mut player = ConsolePlayer::new(command);
    let game = Advance;
    Player::<Advance>::start(&mut player, &game, &setup(Side::First, 5000, 5000)).expect("starts");
    let turn = Player::<Advance>::turn(&mut player, &game, &game.initial());
    Player::<Advance>::finish(&mut player, &end());
    assert!(matches!(turn.reply, Reply::Checked(_)), "{:?}", turn.reply);
}

/// The levels a console bot is started at: the default, and level 2 forced.
const LEVELS: [&[&str]; 2] = [&[], &["--sandbox", "landlock"]];

/// A console bot in Python that names itself `name` and plays by writing its board back
/// (an illegal move, so the game ends at its first move).
fn named_python_bot(name: &str) -> String {
    format!(
        "#!/usr/bin/python3\nimport shutil, sys\nif sys.argv[1:] == ['name']:\n    \
         print('{name}')\nelse:\n    shutil.copyfile(sys.argv[2], sys.argv[3])\n"
    )
}

/// `arbiter play` of Advance, `white` against grade4, as the tests' ordinary user in
/// `dir`: the record, or the output when there is none.
fn play_in(dir: &std::path::Path, white: &str, level: &[&str]) -> serde_json::Value {
    let record = dir.join("game.json");
    let _ = std::fs::remove_file(&record);
    let mut args = crate::common::advance_against_grade4(white, &record, level);
    args.extend(["--limit-ms", "10000"].map(String::from));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let (code, out, err) = run(crate::common::arbiter_cmd(&args, &[]).current_dir(dir));
    assert_eq!(code, 0, "{white} at {level:?}: {out}{err}");
    serde_json::from_str(&std::fs::read_to_string(&record).unwrap()).unwrap()
}

#[test]
fn a_console_bot_run_by_an_interpreters_absolute_path_starts_at_both_levels() {
    let python = std::path::Path::new("/usr/bin/python3");
    if !crate::common::tool_here(
        "a_console_bot_run_by_an_interpreters_absolute_path_starts_at_both_levels",
        python.is_file(),
        "/usr/bin/python3",
        "apt-get install -y python3",
    ) {
        return;
    }
    for level in LEVELS {
        let dir = crate::common::test_dir();
        std::fs::write(dir.path().join("x.py"), named_python_bot("by-abs-path")).unwrap();
        crate::common::give_to_arbiter(dir.path());
        for white in ["console:/usr/bin/python3 x.py", "console:python3 x.py"] {
            let record = play_in(dir.path(), white, level);
            assert_eq!(
                record["players"]["white"], "by-abs-path",
                "{white}: {record}"
            );
            assert_eq!(record["reason"], "illegal_move", "{white}: {record}");
            assert_eq!(record["winner"], "black", "{white}: {record}");
        }
    }
}

#[test]
fn a_program_whose_name_holds_control_characters_is_started_as_named() {
    for level in LEVELS {
        let dir = crate::common::test_dir();
        // ESC, BEL, a tab and a right-to-left override in the file's name.
        let name = "b\x1b[31m\x07\tot\u{202e}.py";
        let file = dir.path().join(name);
        std::fs::write(&file, named_python_bot("control-named")).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        crate::common::give_to_arbiter(dir.path());
        for white in [
            format!("console:./{name}"),
            format!("console:{}", file.display()),
            format!("console:python3 {name}"),
        ] {
            let record = play_in(dir.path(), &white, level);
            assert_eq!(
                record["players"]["white"], "control-named",
                "{white:?} at {level:?}: {record}"
            );
            assert_eq!(record["reason"], "illegal_move", "{white:?}: {record}");
        }
    }
}

#[test]
fn a_class_folder_of_console_programs_named_by_a_relative_path_starts_them_all() {
    for level in LEVELS {
        let dir = crate::common::test_dir();
        let class = dir.path().join("class");
        std::fs::create_dir(&class).unwrap();
        for team in ["Team01", "Te\x1bam02"] {
            let file = class.join(team);
            std::fs::write(&file, named_python_bot(&team.replace('\x1b', ""))).unwrap();
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        crate::common::give_to_arbiter(dir.path());
        let mut args = vec![
            "league", "--game", "advance", "--pairs", "1", "--out", "out",
        ];
        args.extend(level.iter().copied());
        args.push("class");
        let (code, out, err) = run(crate::common::arbiter_cmd(&args, &[]).current_dir(dir.path()));
        assert_eq!(code, 0, "{level:?}: {out}{err}");
        let games = crate::common::csv_rows(&dir.path().join("out/games.csv"));
        assert_eq!(games.len(), 2, "{games:?}");
        for g in &games {
            // The first to move writes its board back: an illegal move, not a failed start.
            assert_eq!(g["reason"], "illegal_move", "{level:?}: {g:?}");
        }
    }
}
