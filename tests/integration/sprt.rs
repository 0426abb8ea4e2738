//! `arbiter sprt` as a CI gate: verdicts and exit codes against clearly weaker and
//! clearly stronger baselines.

use crate::common::*;

fn sprt(candidate: &str, baseline: &str, extra: &[&str]) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = arbiter();
    cmd.args(["sprt", "--out"]).arg(dir.path().join("sprt"));
    cmd.args([
        "--game",
        "asalto",
        "--candidate",
        candidate,
        "--baseline",
        baseline,
    ]);
    cmd.args([
        "--elo0", "0", "--elo1", "50", "--model", "logistic", "--seed", "3", "--json",
    ])
    .args(extra);
    run(&mut cmd)
}

fn final_json(stdout: &str) -> serde_json::Value {
    let line = stdout.lines().last().unwrap_or_default();
    serde_json::from_str(line).unwrap_or_else(|e| panic!("last line is not JSON ({e}):\n{stdout}"))
}

#[test]
fn a_stronger_candidate_is_accepted_with_exit_0() {
    let (code, stdout, stderr) = sprt("builtin:greedy", "builtin:random", &[]);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let v = final_json(&stdout);
    assert_eq!(v["verdict"], "H1");
    let llr = v["llr"].as_f64().unwrap();
    assert!(llr >= v["upper"].as_f64().unwrap(), "{v}");
    assert!((v["upper"].as_f64().unwrap() - 2.944).abs() < 1e-3);
    let penta: Vec<u64> = v["pentanomial"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_u64().unwrap())
        .collect();
    assert_eq!(penta.iter().sum::<u64>(), v["pairs"].as_u64().unwrap());
    assert!(v["elo"]["estimate"].as_f64().unwrap() > 0.0, "{v}");
    assert!(
        stderr.contains("LLR"),
        "progress goes to stderr as it runs:\n{stderr}"
    );
}

#[test]
fn a_weaker_candidate_is_rejected_with_exit_1() {
    let (code, stdout, stderr) = sprt("builtin:random", "builtin:greedy", &[]);
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    let v = final_json(&stdout);
    assert_eq!(v["verdict"], "H0");
    assert!(v["llr"].as_f64().unwrap() <= v["lower"].as_f64().unwrap());
    assert!(v["elo"]["estimate"].as_f64().unwrap() < 0.0, "{v}");
}

#[test]
fn running_out_of_pairs_is_inconclusive_with_exit_3() {
    let (code, stdout, stderr) = sprt(
        "a=builtin:random",
        "b=builtin:random",
        &["--max-pairs", "3"],
    );
    assert_eq!(code, 3, "{stdout}\n{stderr}");
    let v = final_json(&stdout);
    assert_eq!(v["verdict"], "inconclusive");
    assert_eq!(v["pairs"], 3);
    assert_eq!(v["model"], "logistic");
    for key in [
        "llr",
        "lower",
        "upper",
        "elo0",
        "elo1",
        "pentanomial",
        "elo",
    ] {
        assert!(!v[key].is_null(), "{key} missing in {v}");
    }
}

#[test]
fn the_same_seed_gives_the_same_test() {
    let a = sprt("a=builtin:random", "b=builtin:greedy", &["-j", "2"]);
    let b = sprt("a=builtin:random", "b=builtin:greedy", &["-j", "1"]);
    let strip = |s: &str| {
        let mut v = final_json(s);
        v.as_object_mut().unwrap().remove("elapsed");
        // How many games were still in flight when the bound was crossed depends on -j and
        // timing; they are counted nowhere, so the test is the same.
        v.as_object_mut().unwrap().remove("uncounted_games");
        v
    };
    assert_eq!(
        strip(&a.1),
        strip(&b.1),
        "pairs count in pair order at any -j"
    );
}

#[test]
fn usage_errors_exit_2() {
    let (code, _, stderr) = run(arbiter().args([
        "sprt",
        "--candidate",
        "builtin:greedy",
        "--baseline",
        "builtin:random",
        "--elo0",
        "5",
        "--elo1",
        "0",
    ]));
    assert_eq!(code, 2);
    assert!(stderr.contains("--elo1"), "{stderr}");
    let (code, _, stderr) = run(arbiter().args([
        "sprt",
        "--candidate",
        "builtin:greedy",
        "--baseline",
        "builtin:nosuch",
        "--elo0",
        "0",
        "--elo1",
        "5",
    ]));
    assert_eq!(code, 2);
    assert!(stderr.contains("nosuch"), "{stderr}");
}

#[test]
fn wide_normalized_bounds_are_refused_and_the_logistic_model_decides_them() {
    // Gomoku's greedy bot beats the random bot in every game of this seed.
    let dir = tempfile::tempdir().unwrap();
    let wide = |model: &str| {
        run(arbiter().args([
            "sprt",
            "--out",
            dir.path().join(model).to_str().unwrap(),
            "--game",
            "gomoku",
            "--candidate",
            "builtin:greedy",
            "--baseline",
            "builtin:random",
            "--seed",
            "1",
            "--elo0",
            "0",
            "--elo1",
            "300",
            "--model",
            model,
            "--max-pairs",
            "50",
            "--json",
        ]))
    };
    let (code, stdout, stderr) = wide("normalized");
    assert_eq!(code, 2, "{stdout}\n{stderr}");
    assert!(
        stderr.contains("--elo1 300")
            && stderr.contains("231.6")
            && stderr.contains("--model logistic"),
        "{stderr}"
    );
    let (code, stdout, stderr) = wide("logistic");
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let v = final_json(&stdout);
    assert_eq!(v["verdict"], "H1");
    // Every pair won: the interval's top is above the estimate (unbounded: null in JSON).
    let penta = v["pentanomial"].as_array().unwrap();
    assert_eq!(penta[4].as_u64(), v["pairs"].as_u64(), "{v}");
    let estimate = v["elo"]["estimate"].as_f64().unwrap();
    assert!(v["elo"]["low"].as_f64().unwrap() < estimate, "{v}");
    match v["elo"]["high"].as_f64() {
        Some(high) => assert!(high > estimate, "{v}"),
        None => assert!(v["elo"]["high"].is_null(), "{v}"),
    }
    assert!(stderr.contains("+inf]"), "{stderr}");
}

/// An SPRT of greedy against random in a folder of its own, with two games at once (so
/// pairs are still in flight when the bound is crossed), in the human summary.
fn sprt_in(out: &std::path::Path) -> (i32, String, String) {
    run(arbiter()
        .args(["sprt", "--game", "asalto", "--out"])
        .arg(out)
        .args([
            "--candidate",
            "builtin:greedy",
            "--baseline",
            "builtin:random",
            "--elo0",
            "0",
            "--elo1",
            "50",
            "--model",
            "logistic",
            "-j",
            "2",
        ]))
}

/// The number after `word` in `text`: `decided after 23 pairs` gives 23.
fn number_after(text: &str, word: &str) -> u64 {
    let at = text
        .find(word)
        .unwrap_or_else(|| panic!("no `{word}` in:\n{text}"));
    text[at + word.len()..]
        .trim_start()
        .split(|c: char| !c.is_ascii_digit())
        .next()
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no number after `{word}` in:\n{text}"))
}

#[test]
fn sprt_verdict_standings_distinct_line_csv_and_report_count_the_same_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sprt");
    let (code, stdout, stderr) = sprt_in(&out);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let pairs = number_after(&stdout, "decided after");
    assert_eq!(
        number_after(&stdout, "distinct pairs:"),
        pairs,
        "distinct pairs counted over the test's pairs:\n{stdout}"
    );
    assert!(stdout.contains(&format!("of {pairs}\n")), "{stdout}");
    for row in csv_rows(&out.join("standings.csv")) {
        assert_eq!(row["games"], (2 * pairs).to_string(), "{row:?}");
    }
    assert_eq!(csv_rows(&out.join("games.csv")).len() as u64, 2 * pairs);
    let sprt = csv_rows(&out.join("sprt.csv"));
    assert_eq!(sprt.len() as u64, pairs);
    let report = read(&out.join("report/report.md"));
    assert!(
        report.contains(&format!("| pairs | {pairs} of at most")),
        "{report}"
    );
    assert!(
        report.contains(&format!("{} games played", 2 * pairs)),
        "{report}"
    );
    // Games journaled past the deciding pair are said to be left out, in numbers that add up.
    let journaled = journal_records(&out).len() as u64;
    if journaled > 2 * pairs {
        let more = number_after(&stdout, "pairs;");
        assert_eq!(more, journaled - 2 * pairs, "{stdout}");
        assert!(stdout.contains("left out of the tables"), "{stdout}");
    }
}

#[test]
fn sprt_prints_its_last_progress_line_once_with_a_pentanomial_legend_and_the_hypotheses() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = sprt_in(&dir.path().join("sprt"));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let last = stdout
        .lines()
        .find(|l| l.starts_with("pairs "))
        .unwrap_or_else(|| panic!("no progress line on stdout:\n{stdout}"));
    let both = format!("{stdout}\n{stderr}");
    assert_eq!(both.matches(last).count(), 1, "printed once:\n{both}");
    for words in [
        "0 (lost both)",
        "0.5 (a loss and a draw)",
        "1 (a win and a loss, or two draws)",
        "1.5 (a win and a draw)",
        "2 (won both)",
        "H0: elo <= 0",
        "H1: elo >= 50",
        "alpha 0.05",
        "beta 0.05",
    ] {
        assert!(stdout.contains(words), "`{words}` missing:\n{stdout}");
    }
    let report = read(&dir.path().join("sprt/report/report.md"));
    assert!(report.contains("Pentanomial: the five counts"), "{report}");
}

#[test]
fn sprt_and_its_tables_never_write_a_negative_zero() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sprt");
    // Equal bots: estimates near zero, where a -0.0 would show.
    let (code, stdout, stderr) = run(arbiter()
        .args(["sprt", "--game", "gomoku", "--out"])
        .arg(&out)
        .args([
            "--candidate",
            "a=builtin:random",
            "--baseline",
            "b=builtin:random",
            "--elo0",
            "-10",
            "--elo1",
            "10",
            "--max-pairs",
            "8",
        ]));
    assert_eq!(code, 3, "{stdout}\n{stderr}");
    for (what, text) in [
        ("stdout", stdout),
        ("stderr", stderr),
        ("sprt.csv", read(&out.join("sprt.csv"))),
        ("standings.csv", read(&out.join("standings.csv"))),
        ("pairwise.csv", read(&out.join("pairwise.csv"))),
        ("report.md", read(&out.join("report/report.md"))),
    ] {
        assert_eq!(
            negative_zeros(&text),
            Vec::<String>::new(),
            "{what}:\n{text}"
        );
    }
}

#[test]
fn sprt_standings_have_no_course_mark_column() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sprt");
    let (code, stdout, stderr) = sprt_in(&out);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    let header = read(&out.join("standings.csv"));
    let header = header.lines().next().unwrap();
    assert!(!header.split(',').any(|c| c == "mark"), "{header}");
    let report = read(&out.join("report/report.md"));
    let standings = report
        .lines()
        .find(|l| l.starts_with("| # |"))
        .unwrap_or_else(|| panic!("{report}"));
    assert!(!standings.contains("mark"), "{standings}");
}

#[test]
fn an_inconclusive_sprt_goes_on_with_more_max_pairs_keeping_every_pair_played() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sprt");
    let sprt_to = |max: &str| {
        let mut cmd = arbiter();
        cmd.args(["sprt", "--game", "asalto", "--out"])
            .arg(&out)
            .args([
                "--candidate",
                "a=builtin:random",
                "--baseline",
                "b=builtin:random",
                "--elo0",
                "0",
                "--elo1",
                "50",
                "--model",
                "logistic",
                "--json",
                "--max-pairs",
                max,
            ]);
        run(&mut cmd)
    };
    let (code, stdout, stderr) = sprt_to("2");
    assert_eq!(code, 3, "{stdout}\n{stderr}");
    let journal = read(&out.join("games.jsonl"));
    let played: Vec<&str> = journal.lines().skip(1).collect();
    assert_eq!(played.len(), 4);
    let (code, stdout, stderr) = sprt_to("4");
    assert_eq!(code, 3, "{stdout}\n{stderr}");
    let v = final_json(&stdout);
    assert_eq!(v["pairs"], 4, "{v}");
    assert!(stderr.contains("4 games were already played"), "{stderr}");
    let journal = read(&out.join("games.jsonl"));
    let now: Vec<&str> = journal.lines().skip(1).collect();
    assert_eq!(now.len(), 8);
    assert_eq!(
        now[..4],
        played[..],
        "the pairs played are kept as they were"
    );
    let (code, _, stderr) = sprt_to("3");
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("--max-pairs 4 or more"), "{stderr}");
}

#[test]
fn an_inconclusive_sprt_says_which_way_it_leans_and_the_command_that_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("sprt");
    let (code, stdout, stderr) = run(arbiter()
        .args(["sprt", "--game", "asalto", "--out"])
        .arg(&out)
        .args([
            "--candidate",
            "a=builtin:random",
            "--baseline",
            "b=builtin:random",
            "--elo0",
            "0",
            "--elo1",
            "50",
            "--model",
            "logistic",
            "--max-pairs",
            "2",
        ]));
    assert_eq!(code, 3, "{stdout}\n{stderr}");
    let line = stdout
        .lines()
        .find(|l| l.contains("to go on, rerun with more pairs"))
        .unwrap_or_else(|| panic!("no way on:\n{stdout}"));
    assert!(
        line.starts_with("the LLR ") && line.contains(" leans ") && line.contains("a "),
        "{line}"
    );
    // The command printed is this one with more pairs, and it goes on from the 2 played.
    let command = line.split("are kept): ").nth(1).expect("a command");
    let words = shlex::split(command).expect("a shell command");
    assert_eq!(words[0], "arbiter", "{command}");
    assert!(command.ends_with("--max-pairs 4"), "{command}");
    assert_eq!(
        words.iter().filter(|w| *w == "--max-pairs").count(),
        1,
        "{command}"
    );
    let (code, stdout, stderr) = run(arbiter().args(&words[1..]));
    assert!(code == 3 || code == 0 || code == 1, "{stdout}\n{stderr}");
    assert!(stderr.contains("4 games were already played"), "{stderr}");
    let md = read(&out.join("report/report.md"));
    assert!(
        md.contains("leans") && md.contains("rerun the test's command with --max-pairs"),
        "{md}"
    );
}
