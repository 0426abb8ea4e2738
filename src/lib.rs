//! arbiter: a referee, tournament runner and benchmarking harness for two-player game bots.
//!
//! One module per concern, on floors: a module uses only the modules below it (the
//! README's "Layout" table, checked by `tests/integration/layout.rs`). `cli` composes;
//! `tournament` and `graders` play through the `referee`, which reaches bots through
//! `bots` and knows a game only through `games`; `report` reads what a tournament wrote.
//! See docs/PROTOCOL.md for the bot protocol.
//!
//! ```text
//! cli (parses, then composes: a run plays, then its report is written)
//!  |-> config (tournaments.toml)
//!  |-> report (reads what a tournament wrote; never called by it) --> class
//!  |-> tournament -> replay -> referee -> games (pure rules + the game registry)
//!  |-> graders -------------------'  |
//!  |-> class (a course's download and roster -> teams and students)
//!  |     '-> bots (naming a bot, the protocol, adapters, processes)
//!  |           |-> clocks (what a move is charged: deadline, freezing, pauses, load)
//!  |           |     '-> jail
//!  |           |-> jail (every bot program and build starts here: command, caps, jail)
//!  |           '-> engines (built-in bots) -> games
//!  '-> stats (arithmetic) -> record (a game's record, as the journal keeps it)
//!       untrusted (files a bot wrote, archives, text) -> error (exit codes), beneath all
//! ```
//!
//! Where to look: a move's time is decided in [`clocks::deadline`] (its limit, pauses and
//! the machine's wait, [`clocks::runqueue`]); a Canvas, Blackboard or Moodle file name
//! becomes a team in `class::platform` and [`class::scan`]; what a bot may read is decided
//! in `jail::prepare` (its private copy) and [`jail::entrants`] (other teams' files and
//! the results it never sees), from what [`class::enter`] says is its own submission.

#![warn(unreachable_pub, missing_docs)]

pub mod bots;
pub mod class;
pub mod cli;
pub mod clocks;
pub mod config;
pub mod engines;
pub mod error;
pub mod games;
pub mod graders;
pub mod jail;
pub mod record;
pub mod referee;
pub mod replay;
pub mod report;
pub mod stats;
pub mod tournament;
pub mod untrusted;
pub mod watch;
