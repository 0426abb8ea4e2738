//! Unit tests of the Battle solver checker.

use super::reference::*;
use super::*;
use crate::bots::Failure;

fn case(text: &str) -> Case {
    let state = State::parse(text).unwrap();
    Case {
        line: 1,
        text: text.into(),
        reference: reference(&state),
        state,
    }
}

fn answered(text: &str) -> Solved {
    Solved {
        answer: Ok(text.into()),
        time: Duration::ZERO,
        output: String::new(),
    }
}

fn fault(c: &Case, ab: bool, answer: &str) -> Option<&'static str> {
    judge(c, ab, &answered(answer)).fault.map(Fault::code)
}

#[test]
fn reference_reproduces_the_rules_page_example() {
    let r = case("3,1,4,2;3,5;A;").reference;
    assert_eq!(r.answer(false), "A(1,0),B(0,1),A(0,0);3;8;");
    assert_eq!(r.answer(true), "A(1,0),B(0,1),A(0,0);3;8;");
}

#[test]
fn reference_prunes_where_a_cut_is_possible() {
    let r = case("4,1,3,2,2,3;3,2,4,1;A;").reference;
    assert!(r.ab_nodes < r.full_nodes, "{r:?}");
    let single = case("5,2;4,3;A;").reference;
    // One unit each: one child per node, nothing to cut.
    assert_eq!(single.ab_nodes, single.full_nodes);
    assert_eq!(single.plan, "A(0,0),B(0,0),A(0,0)");
    assert_eq!(single.value, 2);
}

#[test]
fn a_lost_start_scores_minus_the_winners_health() {
    // B one-shots A's only unit whatever A does.
    let r = case("1,1;5,1;B;").reference;
    assert_eq!(r.value, 5);
    let r = case("1,1;5,1;A;").reference;
    assert_eq!(r.value, -4);
}

#[test]
fn the_reference_answer_passes_both_flags() {
    for text in ["3,1,4,2;3,5;B;", "2,2;2,2;B;", "1,9,1,9;9,1,9,1;A;"] {
        let c = case(text);
        for ab in [false, true] {
            let v = judge(&c, ab, &answered(&c.reference.answer(ab)));
            assert_eq!(v.fault, None, "{text} ab={ab}: {}", v.reason);
        }
    }
}

#[test]
fn each_kind_of_wrong_answer_gets_its_fault() {
    let c = case("3,1,4,2;3,5;A;");
    assert_eq!(
        fault(&c, false, "A(1,0),B(0,1),A(0,0);3;"),
        Some("bad_format")
    );
    assert_eq!(fault(&c, false, "A(1,0) B(0,1);3;8;"), Some("bad_format"));
    assert_eq!(
        fault(&c, false, "A(1,0),A(0,1),A(0,0);3;8;"),
        Some("illegal_plan")
    );
    assert_eq!(fault(&c, false, "A(1,0),B(0,1);3;8;"), Some("illegal_plan"));
    assert_eq!(
        fault(&c, false, "A(1,0),B(0,1),A(0,0),B(0,0);3;8;"),
        Some("illegal_plan")
    );
    assert_eq!(
        fault(&c, false, "A(1,0),B(0,1),A(0,0);4;8;"),
        Some("wrong_score")
    );
    // A legal plan ending with 4 (B hits the weak unit), but the value is 3.
    assert_eq!(
        fault(&c, false, "A(1,0),B(0,0),A(1,0);3;8;"),
        Some("plan_score")
    );
    assert_eq!(
        fault(&c, false, "A(1,0),B(0,1),A(0,0);3;7;"),
        Some("node_count")
    );
    let big = case("4,1,3,2,2,3;3,2,4,1;A;");
    let r = &big.reference;
    let unpruned = format!("{};{};{};", r.plan, r.value, r.full_nodes);
    assert_eq!(fault(&big, true, &unpruned), Some("no_pruning"));
    assert_eq!(fault(&big, false, &unpruned), None);
}

#[test]
fn a_run_failure_is_its_fault_with_the_solvers_output() {
    let c = case("3,1,4,2;3,5;A;");
    let solved = Solved {
        answer: Err(Failure::new(
            FailureKind::Timeout,
            "still running after 100 ms (killed)",
        )),
        time: Duration::from_millis(100),
        output: "thinking\n".into(),
    };
    let v = judge(&c, true, &solved);
    assert_eq!(v.fault, Some(Fault::Timeout));
    assert!(v.reason.contains("thinking"), "{}", v.reason);
}

#[test]
fn case_files_name_the_line_of_a_bad_case() {
    let path = Path::new("cases.txt");
    let cases = read_cases(
        path,
        "# comment\n\n3,1,4,2;3,5;A; 3 # example\n2,2;2,2;B;\n",
    )
    .unwrap();
    assert_eq!(cases.iter().map(|c| c.line).collect::<Vec<_>>(), vec![3, 4]);
    let err = read_cases(path, "3,1,4,2;3,5;A; 4\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("cases.txt:1") && err.contains("exact minimax value is 3"),
        "{err}"
    );
    let err = read_cases(path, "\n3,1,4;3,5;A;\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("cases.txt:2") && err.contains("even count"),
        "{err}"
    );
    assert!(read_cases(path, "# nothing\n").is_err());
}
