//! Minimax Battle, the course's solver exercise played as a game (docs/rules/battle.md):
//! two armies of units (health, damage); the players alternate, each turn one living unit
//! of the mover hits one living enemy unit; the player who destroys the other army wins,
//! and the margin is the health it has left. Any illegal reply loses.
//!
//! - `state`: units, positions, the course's state string `hA0,dA0,...;hB0,...;S;`;
//! - [`parse`]: a bot's JSON reply to a checked move or a typed illegal reason.
//!
//! Role `a` is the state string's starting player and moves first; role `b` is the other.
//! The game value carries its start positions ([`Starts`]): given state strings dealt in
//! turn, or random armies drawn from the tournament seed and the start number.

pub mod parse;
pub(crate) mod state;
#[cfg(test)]
mod tests;

pub use parse::Move;
pub(crate) use parse::{Illegal, parse_move};
pub use state::{Letter, State, Unit};

use super::view::{BoardView, Cell, CellKind};
use super::{BoardError, Game, Outcome, Side};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Map, Value, json};
use std::ops::RangeInclusive;

/// The rules page's worked example: `3,1,4,2;3,5;A;`.
pub(crate) const EXAMPLE: &str = "3,1,4,2;3,5;A;";

/// How random armies are drawn: `units` per side, each health and damage uniform in its
/// range (inclusive).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RandomArmies {
    /// Units per army, 1 to 64.
    pub units: usize,
    /// The range each unit's starting health is drawn from (within 1 to 1,000,000).
    pub health: RangeInclusive<u32>,
    /// The range each unit's damage is drawn from (within 1 to 1,000,000).
    pub damage: RangeInclusive<u32>,
}

impl Default for RandomArmies {
    /// Three units a side, health 1..6, damage 1..3: small enough for an exact search.
    fn default() -> Self {
        RandomArmies {
            units: 3,
            health: 1..=6,
            damage: 1..=3,
        }
    }
}

impl RandomArmies {
    /// Checks the ranges: at least one unit, health and damage at least 1, `lo <= hi`.
    pub fn check(&self) -> Result<(), String> {
        if self.units == 0 || self.units > state::MAX_UNITS {
            return Err(format!(
                "an army has 1 to {} units, not {}",
                state::MAX_UNITS,
                self.units
            ));
        }
        for (what, r) in [("health", &self.health), ("damage", &self.damage)] {
            if *r.start() == 0 || r.start() > r.end() || *r.end() > state::MAX_VALUE {
                return Err(format!(
                    "a {what} range is LO..HI with 1 <= LO <= HI <= {}, not {}..{}",
                    state::MAX_VALUE,
                    r.start(),
                    r.end()
                ));
            }
        }
        Ok(())
    }

    /// The armies of one start, drawn from `seed` (the starting player is `A`).
    pub fn draw(&self, seed: u64) -> State {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut army = || {
            (0..self.units)
                .map(|_| Unit {
                    health: rng.random_range(self.health.clone()),
                    damage: rng.random_range(self.damage.clone()),
                })
                .collect::<Vec<_>>()
        };
        let (a, b) = (army(), army());
        State::new(a, b, Letter::A)
            .unwrap_or_else(|_| unreachable!("checked ranges give living armies with damage"))
    }
}

/// Where a game's first position comes from.
#[derive(Clone, Debug, PartialEq)]
pub enum Starts {
    /// Game number `start` starts from `states[start % states.len()]` (never empty).
    Given(Vec<State>),
    /// Game number `start` starts from armies drawn from `(seed, start)`.
    Random {
        /// How each start's armies are drawn.
        armies: RandomArmies,
        /// The tournament's seed; a start's own seed mixes it with the start number.
        seed: u64,
    },
}

/// The Battle rules with the start positions its games use.
#[derive(Clone, Debug, PartialEq)]
pub struct Battle {
    starts: Starts,
}

impl Default for Battle {
    /// The rules page's example.
    fn default() -> Self {
        Battle::from_strings(&[EXAMPLE]).unwrap_or_else(|_| unreachable!("a valid example"))
    }
}

impl Battle {
    /// Game number `start` from the state string `states[start % states.len()]`; an error
    /// names the string (counted from 0) and what is wrong with it.
    pub fn from_strings(states: &[&str]) -> Result<Battle, BoardError> {
        if states.is_empty() {
            return Err(BoardError {
                line: 0,
                message: "no start armies given".into(),
            });
        }
        let states = states
            .iter()
            .enumerate()
            .map(|(i, s)| {
                State::parse(s).map_err(|e| BoardError {
                    line: 0,
                    message: format!("armies {i}: {e}"),
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Battle {
            starts: Starts::Given(states),
        })
    }

    /// Game number `start` from random armies drawn from `seed` and `start` (the two games
    /// of a role-swapped pair share a start number and so their armies).
    pub fn random(armies: RandomArmies, seed: u64) -> Result<Battle, BoardError> {
        armies
            .check()
            .map_err(|message| BoardError { line: 0, message })?;
        Ok(Battle {
            starts: Starts::Random { armies, seed },
        })
    }

    /// Where this game's start positions come from.
    pub fn starts(&self) -> &Starts {
        &self.starts
    }
}

impl Game for Battle {
    type State = State;
    type Move = Move;
    type Illegal = Illegal;

    fn name(&self) -> &'static str {
        "battle"
    }
    fn roles(&self) -> [&'static str; 2] {
        ["a", "b"]
    }
    fn openings(&self) -> crate::games::openings::OpeningKind {
        // Its starts (given or random armies) are dealt per pair, like Hinger's boards.
        crate::games::openings::OpeningKind::StartBoards
    }
    fn initial(&self) -> State {
        self.start_position(0)
    }
    fn start_position(&self, start: u64) -> State {
        match &self.starts {
            Starts::Given(states) => {
                let i = (start % states.len().max(1) as u64) as usize;
                states[i].clone()
            }
            Starts::Random { armies, seed } => {
                armies.draw(crate::games::hinger::start_seed(*seed, start))
            }
        }
    }
    fn parse_board(&self, text: &str, side: Side) -> Result<State, BoardError> {
        state::parse_board(text, side)
    }
    fn side_to_move(&self, state: &State) -> Side {
        state.to_move()
    }
    fn legal_moves(&self, state: &State, out: &mut Vec<Move>) {
        out.extend(
            state
                .attacks()
                .map(|(attacker, target)| Move { attacker, target }),
        );
    }
    fn parse_move(&self, state: &State, reply: &Value) -> Result<Move, Illegal> {
        parse_move(state, reply)
    }
    fn move_to_wire(&self, mv: &Move) -> Value {
        json!({"attacker": mv.attacker, "target": mv.target})
    }
    fn play(&self, state: &mut State, mv: &Move) -> Option<Outcome> {
        state
            .attack(mv.attacker, mv.target)
            .map(|winner| Outcome::win(winner, "army_destroyed"))
    }
    fn play_illegal(&self, state: &mut State, _why: &Illegal) -> Option<Outcome> {
        Some(Outcome::win(state.to_move().other(), "illegal_move"))
    }
    /// Each army is `[[health, damage], ...]` by role; the remaining health of the final
    /// board is the winner's margin.
    fn encode_board(&self, state: &State) -> Value {
        let army = |side: Side| -> Value {
            state
                .army(side)
                .iter()
                .map(|u| json!([u.health, u.damage]))
                .collect()
        };
        json!({"a": army(Side::First), "b": army(Side::Second)})
    }
    fn turn_fields(&self, state: &State) -> Map<String, Value> {
        let mut fields = Map::new();
        fields.insert("ply".into(), json!(state.ply()));
        fields.insert("state".into(), json!(state.course_string()));
        fields
    }
    fn render(&self, state: &State) -> String {
        let mut out = String::new();
        for side in Side::BOTH {
            let units: Vec<String> = state
                .army(side)
                .iter()
                .map(|u| format!("{}/{}", u.health, u.damage))
                .collect();
            out.push_str(&format!(
                "{} ({}): {}  total {}\n",
                self.role_name(side),
                state.letter(side).as_char(),
                units.join(" "),
                state.total(side)
            ));
        }
        out.push_str(&format!(
            "{} to move, ply {}\n",
            self.role_name(state.to_move()),
            state.ply()
        ));
        out
    }
    /// Row 0 is role `a`'s army, row 1 role `b`'s; each unit is labelled `health/damage`.
    fn view(&self, state: &State) -> BoardView {
        let cols = Side::BOTH
            .iter()
            .map(|&s| state.army(s).len())
            .max()
            .unwrap_or(0);
        let mut cells = Vec::with_capacity(2 * cols);
        for (side, [alive, out]) in [
            (Side::First, ["a_unit", "a_out"]),
            (Side::Second, ["b_unit", "b_out"]),
        ] {
            let army = state.army(side);
            cells.extend((0..cols).map(|i| match army.get(i) {
                Some(u) => {
                    let kind = if u.alive() { alive } else { out };
                    Cell::new(kind, format!("{}/{}", u.health, u.damage))
                }
                None => Cell::off(),
            }));
        }
        let caption = format!(
            "{} to move; health left: a {}, b {}",
            self.role_name(state.to_move()),
            state.total(Side::First),
            state.total(Side::Second)
        );
        BoardView::new(cols, cells, caption)
    }
    fn view_kinds(&self) -> &'static [CellKind] {
        &[
            CellKind {
                name: "a_unit",
                fill: "#2e7d32",
                meaning: "a's unit (health/damage)",
            },
            CellKind {
                name: "a_out",
                fill: "#b9d8ba",
                meaning: "a's unit, out",
            },
            CellKind {
                name: "b_unit",
                fill: "#6a1b9a",
                meaning: "b's unit (health/damage)",
            },
            CellKind {
                name: "b_out",
                fill: "#d6bfe0",
                meaning: "b's unit, out",
            },
        ]
    }
}
