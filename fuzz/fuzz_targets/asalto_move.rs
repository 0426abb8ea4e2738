//! Asalto's move parser on any JSON reply in any reachable position: it never panics, a
//! move it accepts is one of the legal moves, and every legal move's wire form parses back
//! to itself.
#![no_main]

use arbiter::games::Game;
use arbiter::games::asalto::Asalto;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    let (&[plies], rest) = data.split_at(1.min(data.len())) else {
        return;
    };
    let game = Asalto::default();
    let mut state = game.initial();
    let mut legal = Vec::new();
    // Walk into the game, the moves picked by the input's bytes.
    for (i, &b) in rest.iter().take(plies as usize % 40).enumerate() {
        legal.clear();
        game.legal_moves(&state, &mut legal);
        if legal.is_empty() {
            break;
        }
        let mv = legal[(b as usize + i) % legal.len()].clone();
        if game.play(&mut state, &mv).is_some() {
            break;
        }
    }
    legal.clear();
    game.legal_moves(&state, &mut legal);
    let reply: Value = match serde_json::from_slice(rest) {
        Ok(v) => v,
        Err(_) => Value::String(String::from_utf8_lossy(rest).into_owned()),
    };
    if let Ok(mv) = game.parse_move(&state, &reply) {
        assert!(legal.contains(&mv), "accepted {reply} which is not legal");
    }
    for mv in &legal {
        let wire = game.move_to_wire(mv);
        assert_eq!(game.parse_move(&state, &wire).ok().as_ref(), Some(mv), "{wire}");
    }
});
