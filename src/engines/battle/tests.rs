//! Battle's minimax against a brute-force search of small armies, and its node counts.

use super::*;
use crate::games::Game;
use crate::games::battle::{RandomArmies, Unit};

/// Plain minimax over the whole tree, without pruning: the value for the side to move.
/// Positions met again through another order of attacks are looked up, not searched again
/// (the value of a position does not depend on the path to it), which keeps thousands of
/// armies checkable in an unoptimised build.
fn brute(state: &State) -> i64 {
    fn search(state: &State, seen: &mut std::collections::HashMap<State, i64>) -> i64 {
        if let Some(value) = seen.get(state) {
            return *value;
        }
        let me = state.to_move();
        let value = state
            .attacks()
            .map(|(i, j)| {
                let mut next = state.clone();
                match next.attack(i, j) {
                    Some(_) => i64::from(next.total(me)),
                    None => -search(&next, seen),
                }
            })
            .max()
            .unwrap();
        seen.insert(state.clone(), value);
        value
    }
    search(state, &mut std::collections::HashMap::new())
}

#[test]
fn minimax_agrees_with_brute_force_on_thousands_of_small_armies() {
    let mut checked = 0;
    for (units, health, damage) in [(1, 1..=6, 1..=3), (2, 1..=3, 1..=3), (3, 1..=2, 1..=2)] {
        let armies = RandomArmies {
            units,
            health,
            damage,
        };
        let game = Battle::random(armies, 11).unwrap();
        for start in 0..1000 {
            let mut state = game.start_position(start);
            if start % 2 == 1 {
                // Also from the second player's turn.
                let mv = state.attacks().next().unwrap();
                if state.attack(mv.0, mv.1).is_some() {
                    continue;
                }
            }
            let mut solver = Solver::new();
            assert_eq!(
                solver.value(&state),
                Some(brute(&state)),
                "{}",
                state.course_string()
            );
            checked += 1;
        }
    }
    assert!(checked > 2500);
}

#[test]
fn minimax_builtin_plays_the_rules_page_plan() {
    let game = Battle::default();
    let mut state = game.initial();
    let mut engine = Minimax::new();
    let mut plan = Vec::new();
    while state.winner().is_none() {
        let mv = engine
            .choose(&game, &state, Duration::from_secs(5))
            .unwrap();
        plan.push((mv.attacker, mv.target));
        game.play(&mut state, &mv);
    }
    assert_eq!(plan, vec![(1, 0), (0, 1), (0, 0)]);
    assert_eq!(state.score(), Some(3));
}

#[test]
fn greedy_takes_a_winning_attack() {
    let game = Battle::from_strings(&["5,1,5,4;3,1,2,9;A;"]).unwrap();
    let state = game.initial();
    // Unit 1 (damage 4) kills the damage-9 unit; nothing wins at once.
    let mv = Greedy::new(1)
        .choose(&game, &state, Duration::from_secs(1))
        .unwrap();
    assert_eq!((mv.attacker, mv.target), (1, 1));
    let game = Battle::from_strings(&["5,1,5,4;0,1,2,9;A;"]).unwrap();
    let mv = Greedy::new(1)
        .choose(&game, &game.initial(), Duration::from_secs(1))
        .unwrap();
    assert_eq!(mv.target, 1);
    let _ = Unit {
        health: 1,
        damage: 1,
    };
}

#[test]
fn minimax_beats_random_from_a_won_start() {
    let game = Battle::from_strings(&["6,2,6,2;3,1,3,1;A;"]).unwrap();
    let won = crate::engines::duel(
        &game,
        Box::new(Minimax::new()),
        Box::new(RandomMover::<Battle>::new(3)),
        Side::First,
        1,
    );
    assert_eq!(won, Some(true));
}
