//! The position of a Battle game: two armies of units (health, damage), the side to move,
//! and the course's state string `hA0,dA0,...;hB0,dB0,...;S;`.
//!
//! Side [`Side::First`] is always the state string's starting player (role `a` on the
//! wire); the string's letters `A` and `B` are kept so that a position prints back as the
//! course wrote it and plans can be read in the course's notation `P(i,j)`.

use crate::games::{BoardError, Side};

/// One unit: it is out of the game once its health is 0. Damage never changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Unit {
    /// Health left; at 0 the unit is out: it neither attacks nor can be attacked.
    pub health: u32,
    /// Health each attack by this unit takes from its target (at least 1; health stops at 0).
    pub damage: u32,
}

impl Unit {
    /// Whether the unit is still in the game (health above 0).
    pub fn alive(&self) -> bool {
        self.health > 0
    }
}

/// A course player's letter.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Letter {
    /// Player `A` of the course's state string and plans.
    A,
    /// Player `B` of the course's state string and plans.
    B,
}

impl Letter {
    /// The opponent's letter.
    pub fn other(self) -> Letter {
        match self {
            Letter::A => Letter::B,
            Letter::B => Letter::A,
        }
    }
    /// The letter as the course writes it: `'A'` or `'B'`.
    pub fn as_char(self) -> char {
        match self {
            Letter::A => 'A',
            Letter::B => 'B',
        }
    }
}

/// A Battle position.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    /// Indexed by [`Side::index`]: the starting player's army first.
    armies: [Vec<Unit>; 2],
    to_move: Side,
    ply: u32,
    /// The starting player's letter in the course's string.
    starter: Letter,
}

/// The largest health or damage a state string may give a unit: keeps every sum of
/// health (and the scores built from it) far inside `i32`.
pub(crate) const MAX_VALUE: u32 = 1_000_000;
/// The most units an army may have.
pub(crate) const MAX_UNITS: usize = 64;

impl State {
    /// A start position: `first` is the starting player's army, `starter` its letter.
    /// Every army needs a living unit, every unit a damage of at least 1 (a unit without
    /// damage could make a game endless).
    pub fn new(first: Vec<Unit>, second: Vec<Unit>, starter: Letter) -> Result<State, String> {
        for (army, letter) in [(&first, starter), (&second, starter.other())] {
            let l = letter.as_char();
            if army.is_empty() {
                return Err(format!("army {l} has no unit"));
            }
            if army.len() > MAX_UNITS {
                return Err(format!(
                    "army {l} has {} units, at most {MAX_UNITS}",
                    army.len()
                ));
            }
            if let Some(i) = army.iter().position(|u| u.damage == 0) {
                return Err(format!(
                    "unit {l}{i} has damage 0: every damage is at least 1"
                ));
            }
            if let Some(i) = army
                .iter()
                .position(|u| u.damage > MAX_VALUE || u.health > MAX_VALUE)
            {
                return Err(format!(
                    "unit {l}{i}: health and damage are at most {MAX_VALUE}"
                ));
            }
            if !army.iter().any(Unit::alive) {
                return Err(format!(
                    "army {l} has no living unit: the game would be over before it starts"
                ));
            }
        }
        Ok(State {
            armies: [first, second],
            to_move: Side::First,
            ply: 0,
            starter,
        })
    }

    /// Reads the course's state string `hA0,dA0,hA1,dA1,...;hB0,dB0,...;S;` (the final `;`
    /// may be left out; spaces around it are ignored).
    pub fn parse(text: &str) -> Result<State, String> {
        let text = text.trim();
        let body = text.strip_suffix(';').unwrap_or(text);
        let parts: Vec<&str> = body.split(';').collect();
        if parts.len() != 3 {
            return Err(format!(
                "`{}`: expected `ARMY_A;ARMY_B;S;` (three fields separated by `;`), got {} field(s)",
                excerpt(text),
                parts.len()
            ));
        }
        let starter = match parts[2] {
            "A" => Letter::A,
            "B" => Letter::B,
            other => {
                return Err(format!(
                    "`{}`: the starting player is `A` or `B`, not `{}`",
                    excerpt(text),
                    excerpt(other)
                ));
            }
        };
        let a = parse_army(parts[0], 'A')?;
        let b = parse_army(parts[1], 'B')?;
        let (first, second) = match starter {
            Letter::A => (a, b),
            Letter::B => (b, a),
        };
        State::new(first, second, starter)
    }

    /// The course's state string of this position, with the side to move as `S`.
    pub fn course_string(&self) -> String {
        let army = |units: &[Unit]| {
            units
                .iter()
                .map(|u| format!("{},{}", u.health, u.damage))
                .collect::<Vec<_>>()
                .join(",")
        };
        format!(
            "{};{};{};",
            army(self.army_of(Letter::A)),
            army(self.army_of(Letter::B)),
            self.letter(self.to_move).as_char()
        )
    }

    /// The units of `side`'s army, in the state string's order (plans index them from 0).
    pub fn army(&self, side: Side) -> &[Unit] {
        &self.armies[side.index()]
    }
    /// The units of course player `letter`'s army.
    pub fn army_of(&self, letter: Letter) -> &[Unit] {
        self.army(self.side_of(letter))
    }
    /// The side whose turn it is.
    pub fn to_move(&self) -> Side {
        self.to_move
    }
    /// Attacks played since the start position.
    pub fn ply(&self) -> u32 {
        self.ply
    }
    /// The course letter of the starting player, [`Side::First`].
    pub fn starter(&self) -> Letter {
        self.starter
    }
    /// The course letter of a side.
    pub fn letter(&self, side: Side) -> Letter {
        match side {
            Side::First => self.starter,
            Side::Second => self.starter.other(),
        }
    }
    /// The side of course player `letter` (the starter's is [`Side::First`]).
    pub fn side_of(&self, letter: Letter) -> Side {
        if letter == self.starter {
            Side::First
        } else {
            Side::Second
        }
    }
    /// The total remaining health of a side's army.
    pub fn total(&self, side: Side) -> u32 {
        self.army(side).iter().map(|u| u.health).sum()
    }
    /// The side with a living army when the other's is destroyed.
    pub fn winner(&self) -> Option<Side> {
        Side::BOTH
            .into_iter()
            .find(|s| self.total(s.other()) == 0 && self.total(*s) > 0)
    }
    /// Whether `attacker` of the side to move may attack `target` of the other side.
    pub fn can_attack(&self, attacker: usize, target: usize) -> bool {
        let own = self.army(self.to_move);
        let enemy = self.army(self.to_move.other());
        own.get(attacker).is_some_and(Unit::alive) && enemy.get(target).is_some_and(Unit::alive)
    }
    /// The side to move's `attacker` hits the enemy's `target` (both must be alive: see
    /// [`State::can_attack`]); the turn passes. Returns the mover when it has just won.
    pub fn attack(&mut self, attacker: usize, target: usize) -> Option<Side> {
        let mover = self.to_move;
        let damage = self.armies[mover.index()][attacker].damage;
        let unit = &mut self.armies[mover.other().index()][target];
        unit.health = unit.health.saturating_sub(damage);
        self.to_move = mover.other();
        self.ply += 1;
        (self.total(mover.other()) == 0).then_some(mover)
    }
    /// The course's score of a finished position: the starting player's remaining health
    /// if it won, minus the other army's remaining health otherwise. `None` while the game
    /// goes on.
    pub fn score(&self) -> Option<i64> {
        match self.winner()? {
            Side::First => Some(i64::from(self.total(Side::First))),
            Side::Second => Some(-i64::from(self.total(Side::Second))),
        }
    }
    /// Every legal attack of the side to move, attacker ascending, then target ascending.
    pub fn attacks(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let own = self.army(self.to_move);
        let enemy = self.army(self.to_move.other());
        let over = self.winner().is_some();
        own.iter()
            .enumerate()
            .filter(move |(_, u)| u.alive() && !over)
            .flat_map(move |(i, _)| {
                enemy
                    .iter()
                    .enumerate()
                    .filter(|(_, u)| u.alive())
                    .map(move |(j, _)| (i, j))
            })
    }
}

fn excerpt(text: &str) -> String {
    if text.chars().count() <= 60 {
        text.to_string()
    } else {
        format!("{}...", text.chars().take(57).collect::<String>())
    }
}

fn parse_army(text: &str, letter: char) -> Result<Vec<Unit>, String> {
    let numbers = text
        .split(',')
        .enumerate()
        .map(|(k, n)| {
            n.trim().parse::<u32>().map_err(|_| {
                format!(
                    "army {letter}: number {} is `{}`, expected a non-negative integer",
                    k + 1,
                    excerpt(n)
                )
            })
        })
        .collect::<Result<Vec<u32>, String>>()?;
    if numbers.len() % 2 != 0 {
        return Err(format!(
            "army {letter}: {} numbers, expected health,damage pairs (an even count)",
            numbers.len()
        ));
    }
    Ok(numbers
        .chunks(2)
        .map(|p| Unit {
            health: p[0],
            damage: p[1],
        })
        .collect())
}

/// A board file: one state string (blank lines and `#` comments aside), with `side` to
/// move (`Side::First` is the string's starting player).
pub(crate) fn parse_board(text: &str, side: Side) -> Result<State, BoardError> {
    let lines: Vec<(usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'))
        .collect();
    match lines.as_slice() {
        [(line, one)] => {
            let mut state = State::parse(one).map_err(|message| BoardError {
                line: *line,
                message,
            })?;
            state.to_move = side;
            Ok(state)
        }
        _ => Err(BoardError {
            line: 0,
            message: format!("expected one state string, found {} lines", lines.len()),
        }),
    }
}
