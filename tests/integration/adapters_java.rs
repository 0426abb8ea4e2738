//! Course-style Java Gomoku players through `javac`, the course environment and the
//! embedded driver: the example player plays whole games against every built-in engine in
//! both colours, a player that does not compile is a spawn failure with javac's message, a
//! player that throws or returns null loses by `exception`, players of one flat course
//! folder play unchanged beside a broken file, the submission's own classes win over the
//! environment's, and no JVM outlives its game. Skipped (with a message) without a JDK.

use crate::bots_common as common;

use arbiter::bots::inprocess::InProcess;
use arbiter::bots::java::{self, JavaPlayer};
use arbiter::bots::spec::BotSpec;
use arbiter::bots::{BotLog, EndInfo, Failure, Player, Setup, TurnReply, open_player_in};
use arbiter::engines::Builtins;
use arbiter::games::gomoku::Gomoku;
use arbiter::record::GameRecord;
use arbiter::referee::{MatchConfig, play_game};
use common::*;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Whether a JDK is here; prints why a test is skipped when not, and fails where the
/// tools were installed (see [`crate::common::tool_here`]).
pub(crate) fn have_jdk(test: &str) -> bool {
    let ok = |program: &str| {
        std::process::Command::new(program)
            .arg("-version")
            .output()
            .is_ok_and(|o| o.status.success())
    };
    crate::common::tool_here(
        test,
        ok("javac") && ok("java"),
        "a JDK (`javac` and `java` on PATH, for Java bots)",
        "apt-get install -y openjdk-17-jdk-headless",
    )
}

fn example(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("bots/java/examples")
        .join(name)
}

/// A Java bot that remembers its process group, for survivor checks.
struct WatchedJava {
    inner: JavaPlayer,
    pgid: Arc<Mutex<Option<i32>>>,
}

impl WatchedJava {
    fn new(file: &Path) -> (Self, Arc<Mutex<Option<i32>>>) {
        let pgid = Arc::new(Mutex::new(None));
        let inner = JavaPlayer::new(file, None, &BTreeMap::new());
        (
            WatchedJava {
                inner,
                pgid: pgid.clone(),
            },
            pgid,
        )
    }
}

impl Player<Gomoku> for WatchedJava {
    fn start(&mut self, game: &Gomoku, setup: &Setup) -> Result<Option<String>, Failure> {
        let result = self.inner.start(game, setup);
        *self.pgid.lock().unwrap() = self.inner.process_group();
        result
    }
    fn turn(
        &mut self,
        game: &Gomoku,
        state: &<Gomoku as arbiter::games::Game>::State,
    ) -> TurnReply<<Gomoku as arbiter::games::Game>::Move> {
        self.inner.turn(game, state)
    }
    fn finish(&mut self, end: &EndInfo) -> BotLog {
        Player::<Gomoku>::finish(&mut self.inner, end)
    }
}

/// A built-in engine that spends a small share of the move limit.
fn builtin(name: &str) -> InProcess<Gomoku> {
    let engine = name.to_string();
    InProcess::seeded(name, Box::new(move |seed| Gomoku.builtin(&engine, seed)))
        .with_budget_fraction(0.02)
}

fn config(seed: u64) -> MatchConfig {
    MatchConfig {
        move_limit: Duration::from_secs(3),
        init_limit: Duration::from_secs(20),
        seed,
        ..MatchConfig::default()
    }
}

/// Plays `players` (white first) and checks afterwards that no Java process survived.
fn play(
    players: [&mut dyn Player<Gomoku>; 2],
    groups: &[Arc<Mutex<Option<i32>>>],
    seed: u64,
) -> GameRecord {
    let record = play_game(
        &Gomoku,
        players,
        ["white-bot", "black-bot"],
        &config(seed),
        &mut |_| {},
    );
    for pgid in groups {
        let pgid = pgid.lock().unwrap().expect("the JVM was started");
        assert_group_gone(pgid);
    }
    record
}

#[test]
fn the_example_bot_plays_whole_games_against_every_builtin_in_both_colours() {
    if !have_jdk("the_example_bot_plays_whole_games...") {
        return;
    }
    let file = example("Player123456789.java");
    for (i, name) in Gomoku.builtin_names().iter().enumerate() {
        for java_white in [true, false] {
            let (mut bot, pgid) = WatchedJava::new(&file);
            let mut engine = builtin(name);
            let players: [&mut dyn Player<Gomoku>; 2] = if java_white {
                [&mut bot, &mut engine]
            } else {
                [&mut engine, &mut bot]
            };
            let record = play(players, &[pgid], 10 + i as u64);
            let java_role = if java_white { "white" } else { "black" };
            let context = format!("vs {name}, Java {java_role}: {record:?}");
            assert!(
                ["five_in_row", "no_window_left", "board_full"].contains(&record.reason.as_str()),
                "{context}"
            );
            assert!(record.detail.is_none(), "{context}");
            assert!(
                record.moves.iter().all(|m| m.verdict == "move"),
                "{context}"
            );
            assert!(record.plies >= 9, "{context}");
            let log = &record.logs[java_role];
            assert_eq!(log.announced_name.as_deref(), Some("Player123456789"));
            // The bot's System.out went to its stderr log, never into the protocol.
            assert!(
                log.stderr.contains("thinking about move 1"),
                "{}",
                log.stderr
            );
            assert!(log.chatter.is_empty(), "{}", log.chatter);
        }
    }
}

#[test]
fn a_bot_that_throws_loses_by_exception_with_its_stack_trace() {
    if !have_jdk("a_bot_that_throws_loses_by_exception...") {
        return;
    }
    let (mut bot, pgid) = WatchedJava::new(&example("Player123456789.java"));
    let (mut naive, naive_pgid) = WatchedJava::new(&example("PlayerThrows.java"));
    let record = play([&mut bot, &mut naive], &[pgid, naive_pgid], 1);
    assert_eq!(record.reason, "exception", "{record:?}");
    assert_eq!(record.winner.as_deref(), Some("white"));
    // White's 1st, 2nd, 3rd turns are plies 0, 2, 4; black throws on ply 5.
    assert_eq!(record.plies, 6, "{record:?}");
    let detail = record.detail.unwrap_or_default();
    assert!(
        detail.contains("java.lang.IllegalStateException: deliberate failure on move 3"),
        "{detail}"
    );
    assert!(detail.contains("PlayerThrows.chooseMove"), "{detail}");
}

#[test]
fn a_bot_that_does_not_compile_fails_to_start_with_javacs_message() {
    if !have_jdk("a_bot_that_does_not_compile...") {
        return;
    }
    let spec = BotSpec::parse(&example("PlayerBroken.java").to_string_lossy()).unwrap();
    assert_eq!(arbiter::bots::default_name(&spec), "PlayerBroken");
    let mut broken =
        open_player_in(&spec, &Gomoku, None, &BTreeMap::new(), Default::default()).unwrap();
    let mut engine = builtin("random");
    let record = play([broken.as_mut(), &mut engine], &[], 2);
    assert_eq!(record.reason, "spawn_failed", "{record:?}");
    assert_eq!(record.winner.as_deref(), Some("black"));
    let detail = record.detail.unwrap_or_default();
    assert!(detail.contains("javac could not compile"), "{detail}");
    assert!(detail.contains("PlayerBroken.java"), "{detail}");
    assert!(detail.contains("';' expected"), "{detail}");
    // The failure is remembered: the next game does not compile again, and fails alike.
    let again = java::compile(&example("PlayerBroken.java")).unwrap_err();
    assert!(again.contains("';' expected"), "{again}");
}

#[test]
fn exceptions_and_null_moves_lose_by_exception() {
    if !have_jdk("exceptions_and_null_moves_lose_by_exception") {
        return;
    }
    // Seated through open_player_in, as the command line does.
    let spec = BotSpec::parse(&example("PlayerNull.java").to_string_lossy()).unwrap();
    let mut null =
        open_player_in(&spec, &Gomoku, None, &BTreeMap::new(), Default::default()).unwrap();
    let mut engine = builtin("greedy");
    let record = play([&mut engine, null.as_mut()], &[], 3);
    assert_eq!(record.reason, "exception", "{record:?}");
    assert_eq!(record.winner.as_deref(), Some("white"));
    assert_eq!(record.plies, 2);
    let detail = record.detail.unwrap_or_default();
    assert!(
        detail.contains("PlayerNull.chooseMove returned null"),
        "{detail}"
    );
    assert_eq!(
        record.logs["black"].announced_name.as_deref(),
        Some("PlayerNull")
    );
    drop(null);
    let compiled = java::compile(&example("PlayerNull.java")).unwrap();
    assert_no_process_with(&compiled.dir.to_string_lossy());
}

#[test]
fn each_bot_is_compiled_once_with_its_helpers_but_not_its_neighbours() {
    if !have_jdk("each_bot_is_compiled_once...") {
        return;
    }
    let file = example("Player123456789.java");
    let first = java::compile(&file).expect("compiles");
    let second = java::compile(&file).expect("compiles");
    assert_eq!(first, second);
    assert_eq!(first.class, "Player123456789");
    for class in [
        "ArbiterDriver",
        "GomokuPlayer",
        "Move",
        "Player123456789",
        "Lines",
    ] {
        assert!(
            first.dir.join(format!("{class}.class")).is_file(),
            "{class} in {}",
            first.dir.display()
        );
    }
    // The folder's other bots (one of which does not compile) are left out.
    for class in ["PlayerBroken", "PlayerThrows", "PlayerNull"] {
        assert!(
            !first.dir.join(format!("{class}.class")).exists(),
            "{class}"
        );
    }
}

/// A bot in a named package, in Windows-1252, next to its own copy of the course API,
/// compiled by four games at once: one compilation, one class folder, and the bot plays.
#[test]
fn a_packaged_bot_with_its_own_api_copy_compiles_once_for_parallel_games() {
    if !have_jdk("a_packaged_bot...") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    // Unique content, so that no cache from an earlier run is found.
    let stamp = format!("{}-{:?}", std::process::id(), std::time::SystemTime::now());
    let bot = format!(
        "// {stamp}\npackage league.bots;\n\nimport java.awt.Color;\n\n\
         public class Player42 extends GomokuPlayer {{\n\
         \x20   public Move chooseMove(Color[][] board, Color me) {{\n\
         \x20       for (int r = board.length - 1; r >= 0; r--)\n\
         \x20           for (int c = 0; c < board[r].length; c++)\n\
         \x20               if (board[r][c] == null) return new Move(r, c);\n\
         \x20       return null;\n    }}\n}}\n"
    );
    // A comment saved as Windows-1252 (not UTF-8): compiled all the same.
    let mut bytes = b"// Auteur: \xe9tudiant\n".to_vec();
    bytes.extend_from_slice(bot.as_bytes());
    std::fs::write(dir.path().join("Player42.java"), bytes).unwrap();
    // A student's copy of the API in the default package: not the player's package's
    // `GomokuPlayer`, so never compiled (the environment's, in league.bots, is).
    std::fs::write(
        dir.path().join("GomokuPlayer.java"),
        "public abstract class GomokuPlayer { broken on purpose }",
    )
    .unwrap();
    let file = dir.path().join("Player42.java");
    let compiled: Vec<_> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4).map(|_| s.spawn(|| java::compile(&file))).collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let first = compiled[0].clone().expect("compiles");
    assert!(compiled.iter().all(|c| c.as_ref() == Ok(&first)));
    assert_eq!(first.class, "league.bots.Player42");
    assert!(first.dir.join("league/bots/GomokuPlayer.class").is_file());
    let spec = BotSpec::parse(&file.to_string_lossy()).unwrap();
    let mut bot =
        open_player_in(&spec, &Gomoku, None, &BTreeMap::new(), Default::default()).unwrap();
    let mut engine = builtin("random");
    let record = play([bot.as_mut(), &mut engine], &[], 4);
    assert!(
        record.moves.iter().all(|m| m.verdict == "move"),
        "{record:?}"
    );
    assert_eq!(
        record.logs["white"].announced_name.as_deref(),
        Some("Player42")
    );
    drop(bot);
    assert_no_process_with(&first.dir.to_string_lossy());
    let _ = std::fs::remove_dir_all(&first.dir);
}

#[test]
fn a_missing_compiler_is_a_clear_spawn_failure() {
    // Needs no JDK.
    let err = java::compile_with(&example("Player123456789.java"), "/no/such/javac").unwrap_err();
    assert!(
        err.contains("cannot run the Java compiler `/no/such/javac`"),
        "{err}"
    );
    let err = java::compile(&example("NoSuchPlayer.java")).unwrap_err();
    assert!(err.contains("cannot read"), "{err}");
}

/// A flat folder as the course lays it out: a player looping with `GomokuBoard.ROWS`, one
/// simulating on `new GomokuBoard()`, one extending `SequencePlayer` in a file named
/// otherwise, one whose class is not named after its file, one with a helper class, and
/// one that does not compile. A league of them (sandboxed and limited, when root): every
/// game of the broken one is its `spawn_failed` with javac's message; every other game is
/// played to its end.
#[test]
fn course_players_play_unchanged_from_one_flat_folder_that_holds_a_broken_file() {
    if !have_jdk("course_players_play_unchanged_from_one_flat_folder...") {
        return;
    }
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let players = root.join("tests/data/gomoku/java/players");
    for (from, name) in [
        (players.join("Backward.java"), "Backward.java"),
        (players.join("Simulator.java"), "Simulator.java"),
        (example("Player123456789.java"), "Player123456789.java"),
        (example("Lines.java"), "Lines.java"),
    ] {
        std::fs::copy(from, dir.path().join(name)).unwrap();
    }
    std::fs::write(
        dir.path().join("Lazy.java"),
        "class LazySeq extends SequencePlayer {}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("Broken.java"),
        "public class Broken extends GomokuPlayer { this does not compile }\n",
    )
    .unwrap();
    let file = |name: &str| dir.path().join(name).to_string_lossy().into_owned();
    // Not inside the players' folder: a sandbox copies that folder while the league writes.
    let results = tempfile::tempdir().unwrap();
    let out = results.path().join("league");
    let mut cmd = crate::common::arbiter();
    cmd.args([
        "league",
        "--game",
        "gomoku",
        "--limit-ms",
        "10000",
        "--memory-mb",
        "1024",
    ])
    .args(["--cpu-s", "60", "--file-mb", "8", "--out"])
    .arg(&out);
    if arbiter::jail::sandbox::is_root() {
        cmd.args(["--sandbox", "user"]);
    }
    for name in [
        "Backward.java",
        "Simulator.java",
        "Player123456789.java",
        "Lazy.java",
        "Broken.java",
    ] {
        cmd.arg(file(name));
    }
    let (code, stdout, stderr) = crate::common::run(&mut cmd);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let games = crate::common::csv_rows(&out.join("games.csv"));
    assert_eq!(games.len(), 20);
    let journal = crate::common::journal_text(&out);
    for g in &games {
        let broken = g["white"] == "Broken" || g["black"] == "Broken";
        if broken {
            assert_eq!(g["reason"], "spawn_failed", "{g:?}\n{journal}");
            assert_ne!(g["winner"], "Broken", "{g:?}");
        } else {
            assert!(
                ["five_in_row", "no_window_left", "board_full"].contains(&g["reason"].as_str()),
                "{g:?}\n{journal}"
            );
        }
    }
    let names: std::collections::BTreeSet<&str> =
        games.iter().map(|g| g["white"].as_str()).collect();
    assert_eq!(
        names.into_iter().collect::<Vec<_>>(),
        [
            "BackwardPlayer",
            "Broken",
            "LazySeq",
            "Player123456789",
            "Simulator"
        ]
    );
    assert!(journal.contains("javac could not compile"), "{journal}");
    assert!(journal.contains("Broken.java"), "{journal}");
}

/// A class of the environment's name that the submission provides (here its own
/// `SequencePlayer`, playing the last empty cell) wins over arbiter's.
#[test]
fn a_submissions_own_environment_class_wins_over_arbiters() {
    if !have_jdk("a_submissions_own_environment_class_wins...") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let stamp = format!("{}-{:?}", std::process::id(), std::time::SystemTime::now());
    std::fs::write(
        dir.path().join("SequencePlayer.java"),
        format!(
            "// {stamp}\nimport java.awt.Color;\n\
             public class SequencePlayer extends GomokuPlayer {{\n\
             \x20   public Move chooseMove(Color[][] b, Color me) {{\n\
             \x20       for (int r = 7; r >= 0; r--) for (int c = 7; c >= 0; c--)\n\
             \x20           if (b[r][c] == null) return new Move(r, c);\n\
             \x20       return null;\n    }}\n}}\n"
        ),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("Mine.java"),
        "class Mine extends SequencePlayer {}\n",
    )
    .unwrap();
    let (mut mine, pgid) = WatchedJava::new(&dir.path().join("Mine.java"));
    let mut engine = builtin("random");
    let record = play([&mut mine, &mut engine], &[pgid], 5);
    assert_eq!(
        record.moves[0].reply,
        serde_json::json!([7, 7]),
        "{record:?}"
    );
    assert_eq!(record.logs["white"].announced_name.as_deref(), Some("Mine"));
}

/// A player in package `a.b` kept in `…/a/b/` finds its helper there (the source root is
/// the folder above `a`) and the environment in its package.
#[test]
fn a_packaged_player_in_its_package_folders_finds_its_helpers_and_the_environment() {
    if !have_jdk("a_packaged_player_in_its_package_folders...") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let package = dir.path().join("a/b");
    std::fs::create_dir_all(&package).unwrap();
    let stamp = format!("{}-{:?}", std::process::id(), std::time::SystemTime::now());
    std::fs::write(
        package.join("Base.java"),
        format!("// {stamp}\npackage a.b;\nabstract class Base extends SequencePlayer {{}}\n"),
    )
    .unwrap();
    std::fs::write(
        package.join("P.java"),
        "package a.b;\npublic class P extends Base {\n    int rows = GomokuBoard.ROWS;\n}\n",
    )
    .unwrap();
    let compiled = java::compile(&package.join("P.java")).expect("compiles");
    assert_eq!(compiled.class, "a.b.P");
    for class in ["P", "Base", "SequencePlayer", "GomokuBoard"] {
        assert!(
            compiled.dir.join(format!("a/b/{class}.class")).is_file(),
            "{class}"
        );
    }
    let (mut player, pgid) = WatchedJava::new(&package.join("P.java"));
    let mut engine = builtin("random");
    let record = play([&mut player, &mut engine], &[pgid], 6);
    assert_eq!(
        record.moves[0].reply,
        serde_json::json!([0, 0]),
        "{record:?}"
    );
}

/// A helper class declared in a file of another name (`class Cells` in `Helpers.java`),
/// which javac cannot find on its source path, is given to javac with the player; the
/// folder's other files are still left out.
#[test]
fn a_helper_declared_in_a_file_of_another_name_is_compiled_with_the_player() {
    if !have_jdk("a_helper_declared_in_a_file_of_another_name...") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let stamp = format!("{}-{:?}", std::process::id(), std::time::SystemTime::now());
    std::fs::write(
        dir.path().join("Helpers.java"),
        format!(
            "// {stamp}\nimport java.awt.Color;\nclass Cells {{\n\
             \x20   static Move last(Color[][] b) {{\n\
             \x20       for (int r = GomokuBoard.ROWS - 1; r >= 0; r--)\n\
             \x20           for (int c = GomokuBoard.COLS - 1; c >= 0; c--)\n\
             \x20               if (b[r][c] == null) return new Move(r, c);\n\
             \x20       return null;\n    }}\n}}\n"
        ),
    )
    .unwrap();
    std::fs::write(dir.path().join("Other.java"), "class Other { broken }\n").unwrap();
    std::fs::write(
        dir.path().join("UsesCells.java"),
        "import java.awt.Color;\npublic class UsesCells extends GomokuPlayer {\n\
         \x20   public Move chooseMove(Color[][] b, Color me) { return Cells.last(b); }\n}\n",
    )
    .unwrap();
    let file = dir.path().join("UsesCells.java");
    let compiled = java::compile(&file).expect("compiles");
    assert!(compiled.dir.join("Cells.class").is_file());
    assert!(!compiled.dir.join("Other.class").exists());
    let (mut player, pgid) = WatchedJava::new(&file);
    let mut engine = builtin("random");
    let record = play([&mut player, &mut engine], &[pgid], 7);
    assert_eq!(
        record.moves[0].reply,
        serde_json::json!([7, 7]),
        "{record:?}"
    );
}

#[test]
fn a_helper_linked_from_another_teams_folder_is_not_compiled_and_javac_s_failure_says_why() {
    if !have_jdk("a_helper_linked_from_another_teams_folder...") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (team, other) = (dir.path().join("team"), dir.path().join("other"));
    std::fs::create_dir_all(&team).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    // The other team's helper, with a marker that its classes would carry.
    let stamp = format!("{}-{:?}", std::process::id(), std::time::SystemTime::now());
    std::fs::write(
        other.join("Cells.java"),
        format!(
            "// {stamp}\nimport java.awt.Color;\nclass Cells {{\n\
             \x20   static final String MARK = \"OTHER_TEAMS_CELLS\";\n\
             \x20   static Move last(Color[][] b) {{ return new Move(0, 0); }}\n}}\n"
        ),
    )
    .unwrap();
    std::os::unix::fs::symlink(other.join("Cells.java"), team.join("Cells.java")).unwrap();
    let file = team.join("UsesCells.java");
    std::fs::write(
        &file,
        format!(
            "// {stamp}\nimport java.awt.Color;\npublic class UsesCells extends GomokuPlayer {{\n\
             \x20   public Move chooseMove(Color[][] b, Color me) {{ return Cells.last(b); }}\n}}\n"
        ),
    )
    .unwrap();
    let err = java::compile(&file).unwrap_err();
    assert!(err.contains("javac could not compile"), "{err}");
    assert!(
        err.contains("Cells.java is a link out of the player's folder: not followed"),
        "{err}"
    );
    assert!(!err.contains("OTHER_TEAMS_CELLS"), "{err}");
}

/// A player of its own in `dir`: `name`.java, a subclass of the course's sequence player.
fn plain_player(dir: &Path, name: &str) -> PathBuf {
    let file = dir.join(format!("{name}.java"));
    std::fs::write(
        &file,
        format!("public class {name} extends SequencePlayer {{}}\n"),
    )
    .unwrap();
    file
}

/// A Java cache folder of the test's own, for the compiles of this process.
fn own_java_cache() -> tempfile::TempDir {
    let cache = tempfile::tempdir().unwrap();
    // SAFETY: nextest runs each test in a process of its own, and no other thread of this
    // one reads the environment.
    unsafe { std::env::set_var("ARBITER_JAVA_CACHE", cache.path()) };
    cache
}

/// The first bytes of a dynamic class-data archive (HotSpot's `0xf00baba8`).
const ARCHIVE_MAGIC: [u8; 4] = [0xa8, 0xab, 0x0b, 0xf0];

/// The class-data archives in the Java cache folder `cache`.
fn archives(cache: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsa"))
        .collect();
    found.sort();
    found
}

/// The first compile with a JDK leaves an archive of javac's classes in the cache; later
/// compiles map it and leave it be; one overwritten is made again, and the compile it
/// could not serve still gives the player.
#[test]
fn javac_keeps_an_archive_of_its_classes_for_later_compiles_and_remakes_a_broken_one() {
    if !have_jdk("javac_keeps_an_archive_of_its_classes...") {
        return;
    }
    let cache = own_java_cache();
    let dir = tempfile::tempdir().unwrap();
    java::compile(&plain_player(dir.path(), "First")).expect("the first compiles");
    let made = archives(cache.path());
    assert_eq!(made.len(), 1, "{made:?}");
    let bytes = std::fs::read(&made[0]).unwrap();
    assert_eq!(bytes[..4], ARCHIVE_MAGIC, "a dynamic archive");
    let stamp = |p: &Path| std::fs::metadata(p).unwrap().modified().unwrap();
    let first = stamp(&made[0]);

    let second = java::compile(&plain_player(dir.path(), "Second")).expect("the second compiles");
    assert!(second.dir.join("Second.class").is_file());
    assert_eq!(archives(cache.path()), made);
    assert_eq!(stamp(&made[0]), first, "a good archive is kept as it is");

    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&made[0], std::fs::Permissions::from_mode(0o600)).unwrap();
    std::fs::write(&made[0], b"not an archive").unwrap();
    let third = java::compile(&plain_player(dir.path(), "Third")).expect("the third compiles");
    assert!(third.dir.join("Third.class").is_file());
    assert_eq!(archives(cache.path()), made);
    let again = std::fs::read(&made[0]).unwrap();
    assert_eq!(again[..4], ARCHIVE_MAGIC, "made again");
}

/// A JVM that will not start with the archive's options (one that does not know them)
/// costs the compile nothing: it is run again without them, and so is every later one.
#[test]
fn a_javac_refusing_the_archive_options_compiles_without_them() {
    if !have_jdk("a_javac_refusing_the_archive_options...") {
        return;
    }
    let cache = own_java_cache();
    let real = std::process::Command::new("sh")
        .args(["-c", "command -v javac"])
        .output()
        .unwrap();
    let real = String::from_utf8_lossy(&real.stdout).trim().to_string();
    let real = std::fs::canonicalize(&real).unwrap();
    // A JDK of its own: a release file, a class image, and a javac whose JVM refuses
    // any archive option as an unknown one.
    let jdk = tempfile::tempdir().unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(jdk.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    for d in ["bin", "lib"] {
        std::fs::create_dir(jdk.path().join(d)).unwrap();
    }
    std::fs::write(jdk.path().join("release"), "JAVA_VERSION=\"17.0.1\"\n").unwrap();
    std::fs::write(jdk.path().join("lib/modules"), "").unwrap();
    let log = jdk.path().join("refused.log");
    let javac = jdk.path().join("bin/javac");
    std::fs::write(
        &javac,
        format!(
            "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in *Archive*) \
             echo refused >> {log:?}; \
             echo 'Unrecognized VM option' >&2; \
             echo 'Error: Could not create the Java Virtual Machine.' >&2; exit 1;; esac; done\n\
             exec {real:?} \"$@\"\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&javac, std::fs::Permissions::from_mode(0o755)).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let javac = javac.to_string_lossy().into_owned();
    // Unconfined, so that the stand-in can log what it refused.
    let unconfined = arbiter::bots::spec::Confinement {
        sandbox: arbiter::bots::spec::SandboxMode::None,
        ..Default::default()
    };
    for name in ["Refused", "Later"] {
        let compiled = java::compile_confined(&plain_player(dir.path(), name), &javac, unconfined)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(compiled.dir.join(format!("{name}.class")).is_file());
    }
    // Refused once; the later compile did not ask again.
    let refused = std::fs::read_to_string(&log).unwrap_or_default();
    assert_eq!(refused.lines().count(), 1, "{refused}");
    assert!(archives(cache.path()).is_empty());
}
