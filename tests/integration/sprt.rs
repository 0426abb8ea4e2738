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
