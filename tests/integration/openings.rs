//! Openings: random plies and books, shared by the two games of a pair, recorded, counted
//! for the round limit; distinct pairs; `arbiter openings`; sprt as a resumable tournament.

use crate::common::*;
use arbiter::games::Game;
use arbiter::games::asalto::Asalto;
use arbiter::games::gomoku::Gomoku;
use arbiter::games::openings::play_opening;
use arbiter::record::GameRecord;
use serde_json::Value;
use std::collections::{BTreeMap, HashSet};
use std::path::Path;
use std::time::{Duration, Instant};

fn records(dir: &Path) -> Vec<(u64, GameRecord)> {
    journal_records(dir)
}

/// Two deterministic course bots, quick to play: the first and the last legal move of the
/// course's move lists. Each game between them is fixed by its opening alone.
fn deterministic_course_bots(dir: &Path) -> [String; 2] {
    let rules = Path::new(env!("CARGO_MANIFEST_DIR")).join("bots/league/asalto_rules.py");
    std::fs::copy(rules, dir.join("asalto_rules.py")).unwrap();
    let bot = "from asalto_rules import officer_moves, rebel_steps


class Player:
    def play_rebel(self, board):
        moves = rebel_steps(board)
        return moves[PICK] if moves else None

    def play_officer(self, board):
        moves = officer_moves(board)
        return moves[PICK] if moves else None
";
    [("First", "0"), ("Last", "-1")].map(|(name, pick)| {
        let file = dir.join(format!("{name}.py"));
        std::fs::write(&file, bot.replace("PICK", pick)).unwrap();
        file.to_string_lossy().into_owned()
    })
}

/// Each pair's two games: one opening, the roles swapped.
fn openings_by_pair(dir: &Path, roles: [&str; 2]) -> BTreeMap<String, String> {
    let mut by_pair: BTreeMap<String, Vec<BTreeMap<String, String>>> = BTreeMap::new();
    for row in csv_rows(&dir.join("games.csv")) {
        by_pair.entry(row["pair"].clone()).or_default().push(row);
    }
    by_pair
        .into_iter()
        .map(|(pair, games)| {
            assert_eq!(games.len(), 2, "pair {pair}: {games:?}");
            assert_eq!(games[0]["opening"], games[1]["opening"], "pair {pair}");
            assert_eq!(
                (&games[0][roles[0]], &games[0][roles[1]]),
                (&games[1][roles[1]], &games[1][roles[0]]),
                "pair {pair} swaps the roles"
            );
            (pair, games[0]["opening"].clone())
        })
        .collect()
}

fn sprt_course(out: &Path, extra: &[&str]) -> (i32, String, String) {
    let [candidate, baseline] = deterministic_course_bots(out.parent().unwrap());
    run(arbiter()
        .args(["sprt", "--game", "asalto", "--out"])
        .arg(out)
        .arg("--candidate")
        .arg(candidate)
        .arg("--baseline")
        .arg(baseline)
        .args([
            "--elo0", "0", "--elo1", "20", "--alpha", "0.001", "--beta", "0.001",
        ])
        .args(["--limit-ms", "10000", "-j", "2"])
        // First-move bots can shuffle to the course's 1000 rounds; a tenth is enough.
        .args(["--round-limit", "100"])
        .args(extra))
}

#[test]
fn sprt_between_deterministic_course_bots_plays_distinct_legal_openings_by_default() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sprt");
    let (code, stdout, stderr) = sprt_course(&out, &["--max-pairs", "20"]);
    assert!([0, 1, 3].contains(&code), "{stdout}\n{stderr}");
    let openings = openings_by_pair(&out, ["rebel", "officer"]);
    assert_eq!(openings.len(), 20, "{stdout}");
    let distinct: HashSet<&String> = openings.values().collect();
    assert!(distinct.len() >= 19, "{openings:?}");
    let game = Asalto::default();
    for line in openings.values() {
        let moves: Vec<Value> = serde_json::from_str(line).unwrap();
        assert_eq!(moves.len(), 5, "Asalto's default is 5 random plies");
        let mut state = game.initial();
        play_opening(&game, &mut state, &moves).unwrap_or_else(|e| panic!("{line}: {e}"));
    }
    assert!(stdout.contains("distinct pairs: "), "{stdout}");
    let sprt = csv_rows(&out.join("sprt.csv"));
    assert_eq!(sprt.len(), 20);
    assert_eq!(sprt[19]["pair"], "19");
    let counts: u64 = ["pairs_0", "pairs_0.5", "pairs_1", "pairs_1.5", "pairs_2"]
        .iter()
        .map(|c| sprt[19][*c].parse::<u64>().unwrap())
        .sum();
    assert_eq!(counts, 20);
    for file in ["standings.csv", "pairwise.csv", "points_matrix.csv"] {
        assert!(out.join(file).exists(), "{file}");
    }
}

#[test]
fn sprt_from_the_standard_start_between_deterministic_bots_warns_of_replayed_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sprt");
    let (code, stdout, stderr) = sprt_course(&out, &["--max-pairs", "3", "--random-plies", "0"]);
    assert!([0, 1, 3].contains(&code), "{stdout}\n{stderr}");
    assert!(stdout.contains("distinct pairs: 1 of 3"), "{stdout}");
    assert!(
        stderr.contains("warning: 2 of 3 pairs replayed")
            && stderr.contains("--random-plies N")
            && stderr.contains("--openings FILE"),
        "{stderr}"
    );
    assert!(
        openings_by_pair(&out, ["rebel", "officer"])
            .values()
            .all(|o| o == "[]")
    );
}

#[test]
fn openings_command_prints_distinct_legal_openings_still_in_play() {
    fn check<G: Game>(game: &G, name: &str, plies: &str) {
        let (code, stdout, stderr) = run(arbiter().args([
            "openings", name, "--plies", plies, "--count", "200", "--seed", "4",
        ]));
        assert_eq!(code, 0, "{stderr}");
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 200);
        let mut positions = HashSet::new();
        for line in lines {
            let moves: Vec<Value> = serde_json::from_str(line).unwrap();
            assert_eq!(moves.len().to_string(), plies);
            let mut state = game.initial();
            play_opening(game, &mut state, &moves).unwrap_or_else(|e| panic!("{line}: {e}"));
            positions.insert(format!("{:?}", game.encode_board(&state)));
        }
        assert_eq!(positions.len(), 200, "transpositions count once");
    }
    check(&Asalto::default(), "asalto", "4");
    check(&Gomoku, "gomoku", "4");
    let (code, _, stderr) =
        run(arbiter().args(["openings", "hinger", "--plies", "2", "--count", "3"]));
    assert_eq!(code, 2);
    assert!(stderr.contains("start boards"), "{stderr}");
}

#[test]
fn a_league_with_a_book_plays_its_first_lines_in_order_from_pair_to_pair() {
    let dir = tempfile::tempdir().unwrap();
    let book = dir.path().join("book.txt");
    let lines = ["[[3,3],[2,3]]", "[[1,1]]", "[[4,4],[4,5],[0,0]]", "[[7,7]]"];
    std::fs::write(
        &book,
        format!(
            "# a test book\n{}\n\n{}\n{}\n{}\n",
            lines[0], lines[1], lines[2], lines[3]
        ),
    )
    .unwrap();
    let out = dir.path().join("league");
    let (code, stdout, stderr) = run(arbiter()
        .args(["league", "--game", "gomoku", "--pairs", "3", "--openings"])
        .arg(&book)
        .arg("--out")
        .arg(&out)
        .args(["builtin:greedy", "builtin:random"]));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let openings = openings_by_pair(&out, ["white", "black"]);
    assert_eq!(
        openings.values().collect::<Vec<_>>(),
        lines[..3].iter().collect::<Vec<_>>()
    );
    for (_, record) in records(&out) {
        let opening = record.opening.as_array().unwrap();
        // The bots' first reply is the ply after the book's.
        assert_eq!(record.moves[0].ply as usize, opening.len());
        assert_eq!(record.plies as usize, opening.len() + record.moves.len());
    }
    assert!(stdout.contains("distinct pairs: 3 of 3"), "{stdout}");
}

#[test]
fn a_bad_book_is_refused_before_any_game_naming_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "[[3,3]]\n# fine so far\n[[1,1],[1,1]]\n",
            ":3:",
            "ply 2: [1,1] is not a legal",
        ),
        ("# only a comment\n\n", "", "holds no opening"),
        (
            "[[3,3]]\nnot json\n",
            ":2:",
            "expected a JSON array of moves",
        ),
    ];
    for (i, (text, line, why)) in cases.iter().enumerate() {
        let book = dir.path().join(format!("book{i}.txt"));
        std::fs::write(&book, text).unwrap();
        let out = dir.path().join(format!("out{i}"));
        let (code, _, stderr) = run(arbiter()
            .args(["league", "--game", "gomoku", "--openings"])
            .arg(&book)
            .arg("--out")
            .arg(&out)
            .args(["builtin:greedy", "builtin:random"]));
        assert_eq!(code, 2, "{stderr}");
        let named = format!("book{i}.txt{line}");
        assert!(
            stderr.contains(&named) && stderr.contains(why),
            "expected `{named}` and `{why}` in:\n{stderr}"
        );
        assert!(!out.join("games.jsonl").exists(), "no game was played");
    }
}

#[test]
fn a_league_without_opening_flags_starts_every_game_from_the_standard_start() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("league");
    let (code, stdout, stderr) = run(arbiter()
        .args(["league", "--game", "asalto", "--pairs", "2", "--out"])
        .arg(&out)
        .args(["builtin:greedy", "builtin:random", "r2=builtin:random"]));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let start =
        serde_json::to_value(Asalto::default().encode_board(&Asalto::default().initial())).unwrap();
    let all = records(&out);
    assert_eq!(all.len(), 12);
    for (_, record) in &all {
        assert_eq!(record.opening, Value::Array(vec![]));
        assert_eq!(record.start_board, start);
        assert_eq!(record.moves[0].ply, 0);
    }
    assert!(
        csv_rows(&out.join("games.csv"))
            .iter()
            .all(|r| r["opening"] == "[]")
    );
    let plan: Value =
        serde_json::from_str(read(&out.join("games.jsonl")).lines().next().unwrap()).unwrap();
    assert_eq!(plan["arbiter_journal"], 4);
    assert!(plan["plan"].get("openings").is_none(), "{plan}");
}

#[test]
fn opening_plies_count_toward_the_round_limit() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("g");
    let (code, stdout, stderr) = run(arbiter()
        .args([
            "gauntlet",
            "--game",
            "asalto",
            "--round-limit",
            "3",
            "--out",
        ])
        .arg(&out)
        .args([
            "--candidate",
            "builtin:random",
            "--baseline",
            "builtin:greedy",
        ]));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    for (_, record) in records(&out) {
        // 5 book plies of 6: one turn is left to the bots.
        assert_eq!(record.opening.as_array().unwrap().len(), 5);
        if record.reason == "round_limit" {
            assert_eq!(record.plies, 6);
            assert_eq!(record.moves.len(), 1);
            assert_eq!(record.rounds, 3);
        }
    }
    let plan: Value =
        serde_json::from_str(read(&out.join("games.jsonl")).lines().next().unwrap()).unwrap();
    assert_eq!(
        plan["plan"]["openings"]["random_plies"], 5,
        "gauntlet defaults to random plies"
    );
}

#[test]
fn a_resume_with_other_openings_is_refused_naming_them() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("l");
    let league = |extra: &[&str]| {
        run(arbiter()
            .args(["league", "--game", "gomoku", "--out"])
            .arg(&out)
            .args(extra)
            .args(["builtin:greedy", "builtin:random"]))
    };
    let (code, _, stderr) = league(&["--random-plies", "2"]);
    assert_eq!(code, 0, "{stderr}");
    let (code, _, stderr) = league(&["--random-plies", "3"]);
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("openings {\"random_plies\":2} there, {\"random_plies\":3} now"),
        "{stderr}"
    );
    let (code, _, stderr) = league(&["--random-plies", "2"]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn sprt_killed_with_sigkill_resumes_to_the_same_games_and_llr() {
    let dir = tempfile::tempdir().unwrap();
    let sprt = |out: &Path| {
        let mut cmd = arbiter();
        cmd.args(["sprt", "--game", "gomoku", "--out"])
            .arg(out)
            .args(["--candidate", &format!("a={}", served("greedy"))])
            .args(["--baseline", &format!("b={}", served("random"))])
            .args(["--elo0", "-400", "--elo1", "-390", "--model", "logistic"])
            .args([
                "--max-pairs",
                "8",
                "-j",
                "1",
                "--limit-ms",
                "5000",
                "--seed",
                "9",
                "--json",
            ]);
        cmd
    };
    let whole = dir.path().join("whole");
    let (code, stdout_whole, stderr) = run(&mut sprt(&whole));
    assert!([0, 1, 3].contains(&code), "{stderr}");

    let killed = dir.path().join("killed");
    let mut child = sprt(&killed)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let lines = std::fs::read_to_string(killed.join("games.jsonl"))
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if lines >= 6 || Instant::now() > deadline {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let (code, stdout_killed, stderr) = run(&mut sprt(&killed));
    assert!([0, 1, 3].contains(&code), "{stderr}");
    assert!(stderr.contains("resumed"), "{stderr}");
    let last = |s: &str| -> Value { serde_json::from_str(s.lines().last().unwrap()).unwrap() };
    assert_eq!(last(&stdout_killed), last(&stdout_whole));
    assert_eq!(
        read(&killed.join("sprt.csv")),
        read(&whole.join("sprt.csv"))
    );
    let strip = |p: &Path| {
        let mut rows = csv_rows(&p.join("games.csv"));
        for r in &mut rows {
            r.retain(|k, _| !k.ends_with("_ms") && k != "duration_s");
        }
        rows
    };
    assert_eq!(
        strip(&killed),
        strip(&whole),
        "the same games, move times and durations aside"
    );
}

#[test]
fn table_reads_a_journal_in_format_2_and_a_run_will_not_resume_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("f2");
    std::fs::create_dir(&out).unwrap();
    let header = r#"{"arbiter_journal":2,"plan":{"format":"round_robin","game":"gomoku","roles":["white","black"],"bots":[{"name":"greedy","spec":"builtin:greedy"},{"name":"random","spec":"builtin:random"}],"pairs":1,"seed":1,"rules":{},"points_win":2.0,"points_tie":1.0,"limit_ms":10000,"init_limit_ms":30000}}"#;
    let game = |id: u64, white: &str, black: &str| {
        format!(
            r#"{{"game":{id},"record":{{"game":"gomoku","roles":["white","black"],"players":{{"white":"{white}","black":"{black}"}},"winner":"white","reason":"five_in_row","rounds":9,"plies":17,"illegal":{{"white":0,"black":0}},"seed":3,"start":0,"start_board":null,"moves":[],"final_board":null}}}}"#
        )
    };
    std::fs::write(
        out.join("games.jsonl"),
        format!(
            "{header}\n{}\n{}\n",
            game(0, "greedy", "random"),
            game(1, "random", "greedy")
        ),
    )
    .unwrap();
    let (code, stdout, stderr) = run(arbiter().arg("table").arg(&out));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("journal format 2"), "{stderr}");
    assert!(stdout.contains("greedy"), "{stdout}");
    let games = csv_rows(&out.join("games.csv"));
    assert_eq!(games.len(), 2);
    assert!(
        games
            .iter()
            .all(|g| g["opening"] == "[]" && g["pair"] == "0"),
        "{games:?}"
    );
    let (code, _, stderr) = run(arbiter()
        .args(["league", "--game", "gomoku", "--out"])
        .arg(&out)
        .args(["greedy=builtin:greedy", "random=builtin:random"]));
    assert_eq!(code, 2, "{stderr}");
    assert!(
        stderr.contains("journal format 2") && stderr.contains("openings"),
        "{stderr}"
    );
}

#[test]
fn hinger_refuses_move_openings_and_its_start_boards_are_its_openings() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("h");
    let (code, _, stderr) = run(arbiter()
        .args([
            "gauntlet",
            "--game",
            "hinger",
            "--random-plies",
            "2",
            "--out",
        ])
        .arg(&out)
        .args([
            "--candidate",
            "builtin:greedy",
            "--baseline",
            "builtin:random",
        ]));
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("start boards"), "{stderr}");
    // One sentence, as the message's source lines join.
    assert!(
        stderr.contains("random starts): --random-plies and --openings (random_plies and openings in tournaments.toml) do not apply"),
        "{stderr}"
    );
    let (code, stdout, stderr) = run(arbiter()
        .args(["gauntlet", "--game", "hinger", "--pairs", "2", "--out"])
        .arg(&out)
        .args([
            "--candidate",
            "builtin:greedy",
            "--baseline",
            "builtin:random",
        ]));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.contains("distinct pairs: "), "{stdout}");
    let mut boards = BTreeMap::new();
    for row in csv_rows(&out.join("games.csv")) {
        boards
            .entry(row["pair"].clone())
            .or_insert_with(Vec::new)
            .push(row["opening"].clone());
    }
    assert_eq!(boards.len(), 2);
    for games in boards.values() {
        assert_eq!(
            games[0], games[1],
            "both games of a pair start from one board"
        );
        assert!(games[0].starts_with("[["), "the start board: {}", games[0]);
    }
}

#[test]
fn the_shipped_books_are_valid_and_every_line_reaches_a_different_position() {
    fn check<G: Game>(game: &G, file: &str) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("bots/openings")
            .join(file);
        let book = arbiter::games::openings::parse_book(game, &read(&path))
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(book.len(), 1000, "{file}");
        let positions: HashSet<String> = book
            .iter()
            .map(|line| {
                let mut state = game.initial();
                play_opening(game, &mut state, line).unwrap();
                format!("{:?}", game.encode_board(&state))
            })
            .collect();
        assert_eq!(positions.len(), 1000, "{file}");
    }
    check(&Asalto::default(), "asalto.txt");
    check(&Gomoku, "gomoku.txt");
}
