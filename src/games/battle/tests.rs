//! Minimax Battle's rules: armies, attacks, the end of a game and its wire moves.

use super::*;
use crate::games::ReasonCode;

fn game(state: &str) -> Battle {
    Battle::from_strings(&[state]).unwrap()
}

fn mv(attacker: usize, target: usize) -> Value {
    json!({"attacker": attacker, "target": target})
}

#[test]
fn rules_page_example_plays_to_a_win_with_margin_three() {
    let g = Battle::default();
    let mut s = g.initial();
    assert_eq!(g.side_to_move(&s), Side::First);
    for (a, t) in [(1, 0), (0, 1)] {
        let m = g.parse_move(&s, &mv(a, t)).unwrap();
        assert_eq!(g.play(&mut s, &m), None);
    }
    let m = g.parse_move(&s, &mv(0, 0)).unwrap();
    assert_eq!(
        g.play(&mut s, &m),
        Some(Outcome::win(Side::First, "army_destroyed"))
    );
    assert_eq!(s.total(Side::First), 3);
    assert_eq!(s.score(), Some(3));
    assert_eq!(
        g.encode_board(&s),
        json!({"a": [[3, 1], [0, 2]], "b": [[0, 5]]})
    );
}

#[test]
fn state_string_with_b_starting_makes_b_role_a() {
    let s = State::parse("3,1,4,2;3,5;B;").unwrap();
    assert_eq!(
        s.army(Side::First),
        &[Unit {
            health: 3,
            damage: 5
        }]
    );
    assert_eq!(s.letter(Side::First), Letter::B);
    assert_eq!(s.course_string(), "3,1,4,2;3,5;B;");
}

#[test]
fn health_exactly_at_damage_kills_and_overkill_stops_at_zero() {
    let g = game("2,2;2,2;A;");
    let mut s = g.initial();
    assert_eq!(
        g.play(
            &mut s,
            &Move {
                attacker: 0,
                target: 0
            }
        ),
        Some(Outcome::win(Side::First, "army_destroyed"))
    );
    let g = game("1,9;5,1,1,1;A;");
    let mut s = g.initial();
    assert_eq!(
        g.play(
            &mut s,
            &Move {
                attacker: 0,
                target: 0
            }
        ),
        None
    );
    assert_eq!(s.army(Side::Second)[0].health, 0);
}

#[test]
fn dead_units_neither_attack_nor_are_attacked() {
    let g = game("0,3,2,1;0,1,2,1;A;");
    let s = g.initial();
    let mut moves = Vec::new();
    g.legal_moves(&s, &mut moves);
    assert_eq!(
        moves,
        vec![Move {
            attacker: 1,
            target: 1
        }]
    );
    assert_eq!(
        g.parse_move(&s, &mv(0, 1)).unwrap_err().code(),
        "dead_attacker"
    );
    assert_eq!(
        g.parse_move(&s, &mv(1, 0)).unwrap_err().code(),
        "dead_target"
    );
}

#[test]
fn malformed_replies_get_their_reason() {
    let s = Battle::default().initial();
    let code = |v: Value| parse_move(&s, &v).unwrap_err().code();
    assert_eq!(code(json!([1, 0])), "wrong_shape");
    assert_eq!(code(json!({"attacker": 1})), "wrong_shape");
    assert_eq!(code(json!({"attacker": 1.5, "target": 0})), "not_integers");
    assert_eq!(code(json!({"attacker": 2, "target": 0})), "out_of_range");
    assert_eq!(code(json!({"attacker": 0, "target": -1})), "out_of_range");
}

#[test]
fn illegal_reply_loses() {
    let g = Battle::default();
    let mut s = g.initial();
    let why = g.parse_move(&s, &json!(null)).unwrap_err();
    assert_eq!(
        g.play_illegal(&mut s, &why),
        Some(Outcome::win(Side::Second, "illegal_move"))
    );
}

#[test]
fn bad_state_strings_say_what_is_wrong() {
    let err = |t: &str| State::parse(t).unwrap_err();
    assert!(
        err("3,1,4;3,5;A;").contains("even count"),
        "{}",
        err("3,1,4;3,5;A;")
    );
    assert!(err("3,1;3,5;C;").contains("`A` or `B`"));
    assert!(err("3,1;3,x;A;").contains("`x`"));
    assert!(err("3,1;3,5;").contains("three fields"));
    assert!(err("0,1;3,5;A;").contains("no living unit"));
    assert!(err("3,0;3,5;A;").contains("damage 0"));
}

#[test]
fn random_armies_are_reproducible_and_shared_by_a_start() {
    let armies = RandomArmies {
        units: 4,
        health: 2..=9,
        damage: 1..=3,
    };
    let g = Battle::random(armies, 7).unwrap();
    assert_eq!(g.start_position(3), g.start_position(3));
    assert_ne!(g.start_position(3), g.start_position(4));
    let s = g.start_position(5);
    for side in Side::BOTH {
        assert_eq!(s.army(side).len(), 4);
        assert!(
            s.army(side)
                .iter()
                .all(|u| (2..=9).contains(&u.health) && (1..=3).contains(&u.damage))
        );
    }
    assert!(
        Battle::random(
            RandomArmies {
                units: 2,
                health: 0..=3,
                damage: 1..=1
            },
            1
        )
        .is_err()
    );
}
