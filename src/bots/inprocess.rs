//! A built-in engine seated as a player, without a process or a pipe.

use super::{BotLog, EndInfo, Failure, FailureKind, Player, Reply, Setup, TurnReply};
use crate::engines::Engine;
use crate::games::Game;
use std::time::{Duration, Instant};

/// Makes an engine for a seat's seed (known only when the game starts).
pub(crate) type EngineFactory<G> = Box<dyn Fn(u64) -> Option<Box<dyn Engine<G>>> + Send>;

/// Seats an engine; it spends `budget_fraction` of the move limit per move.
pub struct InProcess<G: Game> {
    name: String,
    engine: Option<Box<dyn Engine<G>>>,
    factory: Option<EngineFactory<G>>,
    budget_fraction: f64,
    budget: Duration,
}

/// Built-in engines spend at most this share of the move limit by default.
pub(crate) const DEFAULT_BUDGET_FRACTION: f64 = 0.4;

impl<G: Game> InProcess<G> {
    /// Seats an engine that already exists (its seed chosen by the caller).
    pub fn new(name: impl Into<String>, engine: Box<dyn Engine<G>>) -> Self {
        InProcess {
            name: name.into(),
            engine: Some(engine),
            factory: None,
            budget_fraction: DEFAULT_BUDGET_FRACTION,
            budget: Duration::ZERO,
        }
    }

    /// Seats an engine made in `start` from the seat's seed, so games replay from their seed.
    pub fn seeded(name: impl Into<String>, factory: EngineFactory<G>) -> Self {
        InProcess {
            name: name.into(),
            engine: None,
            factory: Some(factory),
            budget_fraction: DEFAULT_BUDGET_FRACTION,
            budget: Duration::ZERO,
        }
    }

    /// The engine spending `fraction` of the move limit per move, clamped to 0..=1.
    pub fn with_budget_fraction(mut self, fraction: f64) -> Self {
        self.budget_fraction = fraction.clamp(0.0, 1.0);
        self
    }
}

impl<G: Game> Player<G> for InProcess<G> {
    fn start(&mut self, _game: &G, setup: &Setup) -> Result<Option<String>, Failure> {
        self.budget = setup.move_limit.mul_f64(self.budget_fraction);
        if let Some(factory) = &self.factory {
            self.engine = factory(setup.seed);
        }
        if self.engine.is_none() {
            return Err(Failure::new(
                FailureKind::Spawn,
                format!("built-in engine `{}` is not available", self.name),
            ));
        }
        Ok(Some(self.name.clone()))
    }

    fn turn(&mut self, game: &G, state: &G::State) -> TurnReply<G::Move> {
        let started = Instant::now();
        let choice = self
            .engine
            .as_mut()
            .and_then(|engine| engine.choose(game, state, self.budget));
        let reply = match choice {
            Some(mv) => Reply::Checked(mv),
            // No legal move (the referee asks such a side too): any answer is illegal,
            // and `null` is the one `arbiter bot` sends as well.
            None => Reply::Wire(serde_json::Value::Null),
        };
        TurnReply {
            reply,
            elapsed: started.elapsed(),
            waited: Duration::ZERO,
        }
    }

    fn finish(&mut self, _end: &EndInfo) -> BotLog {
        BotLog {
            name: Some(self.name.clone()),
            ..BotLog::default()
        }
    }

    fn in_process(&self) -> bool {
        true
    }
}
