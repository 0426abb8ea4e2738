//! Pure game rules behind one trait: no I/O, no clocks.
//!
//! The referee, the bot layer and the tournament see a game only through [`Game`]. A game
//! decides everything rule-specific: what a reply on the wire means, what an illegal reply
//! costs (Asalto: the turn; Gomoku: the game), when the game ends and why.

pub mod advance;
pub mod asalto;
pub mod battle;
pub mod gomoku;
pub mod hinger;
pub mod openings;
pub mod perft;
pub mod registry;
pub mod view;
pub(crate) mod wire;

pub use registry::GameKind;

use serde_json::{Map, Value};
use std::fmt;

/// The two seats of a game, in move order: `First` moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    /// The seat that moves first: Asalto's rebels, white in Gomoku and Advance.
    First,
    /// The seat that moves second: Asalto's officers, black in Gomoku and Advance.
    Second,
}

impl Side {
    /// Both seats in move order, for loops over the two players.
    pub const BOTH: [Side; 2] = [Side::First, Side::Second];

    /// 0 for `First`, 1 for `Second`: the index of per-side arrays such as [`Game::roles`].
    pub fn index(self) -> usize {
        match self {
            Side::First => 0,
            Side::Second => 1,
        }
    }

    /// The opponent's seat.
    pub fn other(self) -> Side {
        match self {
            Side::First => Side::Second,
            Side::Second => Side::First,
        }
    }
}

/// How a finished game ended, as far as the rules are concerned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// `None` is a tie (a draw).
    pub winner: Option<Side>,
    /// snake_case reason, stable across versions: it lands in records and CSVs.
    pub reason: &'static str,
}

impl Outcome {
    /// A game won by `side`.
    pub fn win(side: Side, reason: &'static str) -> Self {
        Outcome {
            winner: Some(side),
            reason,
        }
    }
    /// A game nobody won.
    pub fn tie(reason: &'static str) -> Self {
        Outcome {
            winner: None,
            reason,
        }
    }
}

/// A board file that does not describe a position: `line` is 1-based (0: the file as a whole).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct BoardError {
    /// 1-based line of the fault, or 0 when it concerns the file as a whole.
    pub line: usize,
    /// What is wrong, for a person to read.
    pub message: String,
}

/// What a league awards per game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LeaguePoints {
    /// Points for a game won.
    pub win: f64,
    /// Points for a game tied (a loss always scores 0).
    pub tie: f64,
}

/// A stable snake_case code for a typed reason (illegal-move reasons in particular).
pub trait ReasonCode {
    /// The code for this reason, as records and CSVs hold it (`not_your_piece`).
    fn code(&self) -> &'static str;
}

/// One two-player game. Methods take `&self` so that a game value can carry its
/// configuration (a round limit, a start position).
pub trait Game: Clone + Send + Sync + 'static {
    /// A position, with everything the rules need to go on: the side to move, counters.
    type State: Clone + Send + Sync + fmt::Debug + PartialEq;
    /// A checked move: only [`Game::legal_moves`] and [`Game::parse_move`] make them.
    type Move: Clone + Send + Sync + fmt::Debug + PartialEq;
    /// Why a reply is not a legal move.
    type Illegal: std::error::Error + ReasonCode + Clone + Send + Sync + 'static;

    /// The game's name on the wire and on the command line (`asalto`).
    fn name(&self) -> &'static str;
    /// Role names in move order (`["rebel", "officer"]`).
    fn roles(&self) -> [&'static str; 2];
    /// The role name of `side` (`rebel` for [`Side::First`] in Asalto).
    fn role_name(&self, side: Side) -> &'static str {
        self.roles()[side.index()]
    }
    /// The side whose role is `name`, if any.
    fn side_named(&self, name: &str) -> Option<Side> {
        Side::BOTH.into_iter().find(|s| self.role_name(*s) == name)
    }

    /// The standard start position, with the first side to move.
    fn initial(&self) -> Self::State;
    /// The start position of a game with start number `start`, for games whose leagues
    /// vary the start (Hinger's boards). Both games of a role-swapped pair share their
    /// start number. Most games always start from [`Game::initial`].
    fn start_position(&self, start: u64) -> Self::State {
        let _ = start;
        self.initial()
    }
    /// A position from a board file's text (the format is the game's own; see `arbiter
    /// perft --help`), with `side` to move.
    fn parse_board(&self, text: &str, side: Side) -> Result<Self::State, BoardError>;
    /// The side whose turn it is in `state`.
    fn side_to_move(&self, state: &Self::State) -> Side;
    /// Every legal move of the side to move, appended to `out`.
    fn legal_moves(&self, state: &Self::State, out: &mut Vec<Self::Move>);

    /// Parses any JSON value a bot sent and checks it against the position.
    fn parse_move(&self, state: &Self::State, reply: &Value) -> Result<Self::Move, Self::Illegal>;
    /// The wire form of a checked move; `parse_move` of it gives the move back.
    fn move_to_wire(&self, mv: &Self::Move) -> Value;

    /// Plays a checked move. Returns the outcome when the game is over.
    fn play(&self, state: &mut Self::State, mv: &Self::Move) -> Option<Outcome>;
    /// The side to move replied with an illegal move: applies the game's policy. A side
    /// with no legal move is asked like any other, so its reply always lands here (Asalto:
    /// the turn is lost and counted).
    fn play_illegal(&self, state: &mut Self::State, why: &Self::Illegal) -> Option<Outcome>;
    /// Whether the side to move has a legal move at all (a blocked side has none, and
    /// whatever it replies is illegal).
    fn has_legal_move(&self, state: &Self::State) -> bool {
        let mut legal = Vec::new();
        self.legal_moves(state, &mut legal);
        !legal.is_empty()
    }
    /// The outcome of a start position that is over before anyone moves (a Hinger board
    /// without counters). The referee asks it once, before the first turn; after that
    /// [`Game::play`] and [`Game::play_illegal`] say when the game ends.
    fn start_outcome(&self, _state: &Self::State) -> Option<Outcome> {
        None
    }

    /// The board as sent in the protocol's `turn` message.
    fn encode_board(&self, state: &Self::State) -> Value;
    /// Further game-specific fields of a `turn` message (ply, counters).
    fn turn_fields(&self, state: &Self::State) -> Map<String, Value>;
    /// The protocol's `turn` line for `state` (newline included), appended to `out`: the
    /// role to move, [`Game::encode_board`] and [`Game::turn_fields`], as
    /// `wire::write_turn` writes them. A game may write the same bytes without building
    /// the JSON values first: the referee sends one every ply.
    fn write_turn(&self, state: &Self::State, out: &mut Vec<u8>) {
        wire::write_turn(
            self.role_name(self.side_to_move(state)),
            &self.encode_board(state),
            &self.turn_fields(state),
            out,
        );
    }
    /// A label for a checked move in records: `move` unless the game has special kinds
    /// (Asalto: `huff`).
    fn move_kind(&self, _mv: &Self::Move) -> &'static str {
        "move"
    }
    /// League points for a win and for a tie (a loss scores 0). The course leagues differ:
    /// Asalto scores a tie 0, Gomoku scores 2 / 1 / 0.
    fn league_points(&self) -> LeaguePoints {
        LeaguePoints { win: 1.0, tie: 0.0 }
    }
    /// How the game's starts vary between a tournament's pairs: by move openings from
    /// [`Game::initial`] (the default, for every game with a fixed start), or by its own
    /// start positions (Hinger's boards), which replace move openings.
    fn openings(&self) -> openings::OpeningKind {
        openings::OpeningKind::Moves { default_plies: 4 }
    }
    /// A human-readable board for `--show`.
    fn render(&self, state: &Self::State) -> String;

    /// The position as a game-neutral grid of cells, for the replay of the report page.
    /// Every game of arbiter draws its own; the default shows [`Game::render`]'s text.
    fn view(&self, state: &Self::State) -> view::BoardView {
        view::BoardView::from_text(&self.render(state))
    }
    /// The cell kinds [`Game::view`] uses, with their colours and meanings (the legend).
    fn view_kinds(&self) -> &'static [view::CellKind] {
        &[]
    }

    /// The position as a board file, the text [`Game::parse_board`] reads: what a console
    /// bot (run once per move) is handed. `None` for games without one.
    fn board_file(&self, _state: &Self::State) -> Option<String> {
        None
    }
    /// The legal move of `state` that leaves the board of `target` (a console bot's reply
    /// is the board after its move); `None` when no legal move does.
    fn move_to_reach(&self, state: &Self::State, target: &Self::State) -> Option<Self::Move> {
        let want = self.encode_board(target);
        let mut moves = Vec::new();
        self.legal_moves(state, &mut moves);
        moves.into_iter().find(|mv| {
            let mut next = state.clone();
            self.play(&mut next, mv);
            self.encode_board(&next) == want
        })
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Side::First => "first",
            Side::Second => "second",
        })
    }
}
