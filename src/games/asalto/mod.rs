//! Asalto, as the course league plays it (shared/rules/asalto.md).
//! Placeholder: the engine lands with the rules-engine work.

use super::{Game, Outcome, ReasonCode, Side};
use serde_json::{Map, Value};

/// The Asalto rules with a configurable round limit (the course plays 1000).
#[derive(Clone, Debug)]
pub struct Asalto {
    pub round_limit: u32,
}

impl Default for Asalto {
    fn default() -> Self {
        Asalto { round_limit: 1000 }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct State;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Move;

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Illegal {
    #[error("not a move")]
    WrongShape,
}

impl ReasonCode for Illegal {
    fn code(&self) -> &'static str {
        "wrong_shape"
    }
}

impl Game for Asalto {
    type State = State;
    type Move = Move;
    type Illegal = Illegal;
    fn name(&self) -> &'static str {
        "asalto"
    }
    fn roles(&self) -> [&'static str; 2] {
        ["rebel", "officer"]
    }
    fn initial(&self) -> State {
        todo!()
    }
    fn parse_board(&self, _: &str, _: Side) -> Result<State, super::BoardError> {
        todo!()
    }
    fn side_to_move(&self, _: &State) -> Side {
        todo!()
    }
    fn legal_moves(&self, _: &State, _: &mut Vec<Move>) {
        todo!()
    }
    fn parse_move(&self, _: &State, _: &Value) -> Result<Move, Illegal> {
        todo!()
    }
    fn move_to_wire(&self, _: &Move) -> Value {
        todo!()
    }
    fn play(&self, _: &mut State, _: &Move) -> Option<Outcome> {
        todo!()
    }
    fn play_illegal(&self, _: &mut State, _: &Illegal) -> Option<Outcome> {
        todo!()
    }
    fn play_pass(&self, _: &mut State) -> Option<Outcome> {
        todo!()
    }
    fn encode_board(&self, _: &State) -> Value {
        todo!()
    }
    fn turn_fields(&self, _: &State) -> Map<String, Value> {
        todo!()
    }
    fn render(&self, _: &State) -> String {
        todo!()
    }
}
