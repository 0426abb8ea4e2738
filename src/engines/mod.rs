//! Built-in bots: searchers that run in-process for speed, one set per game.
//!
//! They are reachable everywhere a bot can be named as `builtin:NAME`, and as a protocol
//! subprocess through `arbiter bot NAME`.
//!
//! The engines are written once, over any game that also implements [`Heuristic`]:
//! [`RandomMover`] (uniform over legal moves), [`Greedy`] (one ply, scored by the
//! heuristic) and [`AlphaBeta`] (iterative deepening negamax with a transposition table).
//! A game only supplies its evaluation, a position hash and move-ordering hints.

pub mod advance;
pub(crate) mod alphabeta;
pub(crate) mod asalto;
pub mod battle;
pub(crate) mod gomoku;
pub(crate) mod greedy;
pub(crate) mod hinger;
pub(crate) mod random;
#[cfg(test)]
mod testgame;

pub use alphabeta::{AlphaBeta, Limits};
pub use greedy::Greedy;
pub use random::RandomMover;

use crate::games::{Game, Outcome, Side};
use std::time::Duration;

/// A built-in bot: picks a move for the side to move.
pub trait Engine<G: Game>: Send {
    /// A legal move for the side to move, found within `budget` (the engine keeps under
    /// it); `None` only when the side to move has no legal move. The referee asks such a
    /// side all the same (Asalto), so its seat then answers `null`, an illegal move by
    /// construction, rather than fail: in process and as `arbiter bot` alike.
    fn choose(&mut self, game: &G, state: &G::State, budget: Duration) -> Option<G::Move>;
}

/// The built-in bots every game with a heuristic has, weakest first.
pub(crate) const STANDARD_BUILTINS: &[&str] = &["random", "greedy", "alphabeta"];

/// Every game with a heuristic gets the three standard built-in bots, and whatever bots
/// of its own [`Heuristic::own_builtin`] adds.
impl<G: Heuristic> Builtins for G {
    fn builtin_names(&self) -> &'static [&'static str] {
        self.builtin_roster()
    }
    fn builtin(&self, name: &str, seed: u64) -> Option<Box<dyn Engine<Self>>> {
        if !self.builtin_roster().contains(&name) {
            return None;
        }
        match name {
            "random" => Some(Box::new(RandomMover::<G>::new(seed))),
            "greedy" => Some(Box::new(Greedy::<G>::new(seed))),
            "alphabeta" => Some(Box::new(AlphaBeta::<G>::new(seed))),
            _ => self.own_builtin(name, seed),
        }
    }
}

/// A game with built-in bots.
pub trait Builtins: Game {
    /// The names accepted by [`Builtins::builtin`], weakest first.
    fn builtin_names(&self) -> &'static [&'static str];
    /// A fresh engine, deterministic for a given seed (alpha-beta: for a given seed and
    /// node budget; its time budget makes it depend on the machine's speed).
    fn builtin(&self, name: &str, seed: u64) -> Option<Box<dyn Engine<Self>>>;
}

/// The score of a won game at the root. Wins further away score less, so that the
/// searchers prefer the quickest win and the slowest loss.
pub(crate) const WIN: i32 = 1_000_000;
/// Scores at or beyond this magnitude are decided games, not evaluations.
pub(crate) const WIN_THRESHOLD: i32 = WIN - 10_000;
/// The largest evaluation a heuristic may return; larger values are clamped so that they
/// can never be mistaken for decided games.
pub(crate) const MAX_EVAL: i32 = WIN_THRESHOLD - 1;

/// Whether a position at `ply` of a game that ends at `last_ply` is near enough its end for
/// a search to reach it: a [`Heuristic::hash`] mixes the counts that decide the game there
/// (the ply, Asalto's illegal-move counters) into the positions where they can. Farther
/// from the end no line of [`AlphaBeta`] (at most `MAX_PLY` plies, quiescence included)
/// reaches it, so the same pieces at another ply are the same position for the search, and
/// its table still finds the positions a game repeats.
pub(crate) fn near_the_end(ply: u32, last_ply: u64) -> bool {
    u64::from(ply) + u64::from(alphabeta::MAX_PLY) >= last_ply
}

/// What the generic engines need to know about a game beyond its rules.
pub trait Heuristic: Game {
    /// How good `state` is for `perspective`: positive is good, zero is even. Kept well
    /// inside `±MAX_EVAL`; the game's end is never evaluated here (the engines score
    /// finished games themselves from [`Game::play`]'s outcome).
    fn evaluate(&self, state: &Self::State, perspective: Side) -> i32;
    /// A hash of everything that decides the future of the game from `state`, the side to
    /// move included. Collisions cost search quality, never legality.
    fn hash(&self, state: &Self::State) -> u64;
    /// Move ordering: moves with higher keys are searched first (captures first, say).
    fn order_key(&self, _state: &Self::State, _mv: &Self::Move) -> i32 {
        0
    }
    /// A move that changes the material balance sharply (a capture): the quiescence
    /// search follows these past the nominal depth, so the evaluation is not taken in
    /// the middle of an exchange.
    fn is_tactical(&self, _state: &Self::State, _mv: &Self::Move) -> bool {
        false
    }
    /// Every built-in bot name of the game, weakest first: the standard three, plus the
    /// game's own (Advance's course grades).
    fn builtin_roster(&self) -> &'static [&'static str] {
        STANDARD_BUILTINS
    }
    /// A built-in bot of the game's own, by a name of [`Heuristic::builtin_roster`] that
    /// is not a standard one.
    fn own_builtin(&self, _name: &str, _seed: u64) -> Option<Box<dyn Engine<Self>>> {
        None
    }
}

/// The score of a finished game for `perspective`, `ply` plies below the root.
pub(crate) fn outcome_score(outcome: &Outcome, perspective: Side, ply: u32) -> i32 {
    let ply = ply.min(9_000) as i32;
    match outcome.winner {
        None => 0,
        Some(w) if w == perspective => WIN - ply,
        Some(_) => -(WIN - ply),
    }
}

/// The heuristic's value, kept out of the range of decided games.
pub(crate) fn clamped_eval<G: Heuristic>(game: &G, state: &G::State, perspective: Side) -> i32 {
    game.evaluate(state, perspective).clamp(-MAX_EVAL, MAX_EVAL)
}

/// One game between two engines with `strong` seated as `strong_side`, through the
/// referee: `Some(true)` when it won, `Some(false)` when it lost, `None` for a tie.
#[cfg(test)]
pub(crate) fn duel<G: Game>(
    game: &G,
    strong: Box<dyn Engine<G>>,
    weak: Box<dyn Engine<G>>,
    strong_side: crate::games::Side,
    seed: u64,
) -> Option<bool> {
    use crate::bots::{Player, inprocess::InProcess};
    use crate::referee::{MatchConfig, play_game};
    let mut a = InProcess::new("strong", strong);
    let mut b = InProcess::new("weak", weak);
    let players: [&mut dyn Player<G>; 2] = match strong_side {
        crate::games::Side::First => [&mut a, &mut b],
        crate::games::Side::Second => [&mut b, &mut a],
    };
    let config = MatchConfig {
        seed,
        ..MatchConfig::default()
    };
    let record = play_game(game, players, ["x", "y"], &config, &mut |_| {});
    record.winner.map(|w| w == game.role_name(strong_side))
}

/// A game that starts every game from one given position, with its rules and heuristic
/// otherwise unchanged: referee tests from positions play does not reach quickly.
#[cfg(test)]
#[derive(Clone)]
pub(crate) struct StartAt<G: Game>(pub G, pub G::State);

#[cfg(test)]
impl<G: Game> Game for StartAt<G> {
    type State = G::State;
    type Move = G::Move;
    type Illegal = G::Illegal;
    fn name(&self) -> &'static str {
        self.0.name()
    }
    fn roles(&self) -> [&'static str; 2] {
        self.0.roles()
    }
    fn initial(&self) -> G::State {
        self.1.clone()
    }
    fn parse_board(&self, text: &str, side: Side) -> Result<G::State, crate::games::BoardError> {
        self.0.parse_board(text, side)
    }
    fn side_to_move(&self, state: &G::State) -> Side {
        self.0.side_to_move(state)
    }
    fn legal_moves(&self, state: &G::State, out: &mut Vec<G::Move>) {
        self.0.legal_moves(state, out)
    }
    fn parse_move(
        &self,
        state: &G::State,
        reply: &serde_json::Value,
    ) -> Result<G::Move, G::Illegal> {
        self.0.parse_move(state, reply)
    }
    fn move_to_wire(&self, mv: &G::Move) -> serde_json::Value {
        self.0.move_to_wire(mv)
    }
    fn play(&self, state: &mut G::State, mv: &G::Move) -> Option<Outcome> {
        self.0.play(state, mv)
    }
    fn play_illegal(&self, state: &mut G::State, why: &G::Illegal) -> Option<Outcome> {
        self.0.play_illegal(state, why)
    }
    fn start_outcome(&self, state: &G::State) -> Option<Outcome> {
        self.0.start_outcome(state)
    }
    fn encode_board(&self, state: &G::State) -> serde_json::Value {
        self.0.encode_board(state)
    }
    fn turn_fields(&self, state: &G::State) -> serde_json::Map<String, serde_json::Value> {
        self.0.turn_fields(state)
    }
    fn move_kind(&self, mv: &G::Move) -> &'static str {
        self.0.move_kind(mv)
    }
    fn render(&self, state: &G::State) -> String {
        self.0.render(state)
    }
    fn view(&self, state: &G::State) -> crate::games::view::BoardView {
        self.0.view(state)
    }
    fn view_kinds(&self) -> &'static [crate::games::view::CellKind] {
        self.0.view_kinds()
    }
}

#[cfg(test)]
impl<G: Heuristic> Heuristic for StartAt<G> {
    fn evaluate(&self, state: &G::State, perspective: Side) -> i32 {
        self.0.evaluate(state, perspective)
    }
    fn hash(&self, state: &G::State) -> u64 {
        self.0.hash(state)
    }
    fn order_key(&self, state: &G::State, mv: &G::Move) -> i32 {
        self.0.order_key(state, mv)
    }
    fn is_tactical(&self, state: &G::State, mv: &G::Move) -> bool {
        self.0.is_tactical(state, mv)
    }
}

/// A bot that sends the same raw reply every turn.
#[cfg(test)]
pub(crate) struct Scripted(pub serde_json::Value);

#[cfg(test)]
impl<G: Game> crate::bots::Player<G> for Scripted {
    fn start(
        &mut self,
        _game: &G,
        _setup: &crate::bots::Setup,
    ) -> Result<Option<String>, crate::bots::Failure> {
        Ok(None)
    }
    fn turn(&mut self, _game: &G, _state: &G::State) -> crate::bots::TurnReply<G::Move> {
        crate::bots::TurnReply {
            reply: crate::bots::Reply::Wire(self.0.clone()),
            elapsed: Duration::ZERO,
            waited: Duration::ZERO,
        }
    }
    fn finish(&mut self, _end: &crate::bots::EndInfo) -> crate::bots::BotLog {
        crate::bots::BotLog::default()
    }
}

/// Seats the built-in greedy bot against a bot that always sends `bad`, in both seats,
/// and checks that the bad reply loses the game at once with the illegal-move reason
/// `expected` (the games where an illegal reply costs the game).
#[cfg(test)]
pub(crate) fn assert_illegal_reply_loses<G: Builtins>(
    game: &G,
    bad: serde_json::Value,
    expected: &str,
) {
    use crate::bots::{Player, inprocess::InProcess};
    use crate::games::Side;
    use crate::referee::{MatchConfig, play_game};
    for bad_side in Side::BOTH {
        let mut good = InProcess::new("greedy", game.builtin("greedy", 3).expect("greedy exists"));
        let mut scripted = Scripted(bad.clone());
        let players: [&mut dyn Player<G>; 2] = match bad_side {
            Side::First => [&mut scripted, &mut good],
            Side::Second => [&mut good, &mut scripted],
        };
        let record = play_game(
            game,
            players,
            ["a", "b"],
            &MatchConfig::default(),
            &mut |_| {},
        );
        assert_eq!(record.reason, "illegal_move");
        assert_eq!(
            record.winner.as_deref(),
            Some(game.role_name(bad_side.other()))
        );
        let last = record.moves.last().expect("a turn");
        assert_eq!(last.verdict, "illegal");
        assert_eq!(last.reason.as_deref(), Some(expected));
    }
}

/// Every standard built-in is found by name, an unknown name is not, and each plays a
/// legal move from `state` whose wire form parses back to it.
#[cfg(test)]
pub(crate) fn assert_builtins_play_legal_moves<G: Builtins>(game: &G, state: &G::State) {
    assert!(game.builtin("nonsense", 0).is_none());
    let mut legal = Vec::new();
    game.legal_moves(state, &mut legal);
    for name in game.builtin_names() {
        let mut engine = game.builtin(name, 5).expect("a builtin");
        let mv = engine
            .choose(game, state, Duration::from_millis(50))
            .expect("a move");
        assert!(legal.contains(&mv), "{name} played {mv:?}");
        assert_eq!(
            game.parse_move(state, &game.move_to_wire(&mv)).ok(),
            Some(mv),
            "{name}"
        );
    }
}
