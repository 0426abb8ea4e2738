//! arbiter: a referee, tournament runner and benchmarking harness for two-player game bots.
//!
//! One module per concern, on floors: a module uses only the modules below it (the
//! README's "Layout" table, checked by `tests/integration/layout.rs`). `cli` composes;
//! `tournament` and `graders` play through the `referee`, which reaches bots through
//! `bots` and knows a game only through `games`; `report` reads what a tournament wrote.
//! See docs/PROTOCOL.md for the bot protocol.

#![warn(unreachable_pub)]

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
