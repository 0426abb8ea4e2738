//! arbiter: a referee, tournament runner and benchmarking harness for two-player game bots.
//!
//! Data flows one way: `cli` -> `referee` -> `games` (pure rules) and `bots` (how a bot is
//! reached). See docs/PROTOCOL.md for the bot protocol.

pub mod bots;
pub mod cli;
pub mod config;
pub mod engines;
pub mod error;
pub mod games;
pub mod graders;
pub mod record;
pub mod referee;
pub mod report;
pub mod stats;
pub mod tournament;
