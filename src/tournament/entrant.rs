//! A bot as a tournament takes it: its name, its spec as written and parsed, where and how
//! it runs.

use crate::bots::spec::{BotSpec, Confinement};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// A bot in a tournament.
#[derive(Clone, Debug)]
pub struct Entrant {
    /// Unique within the tournament.
    pub name: String,
    /// The specification as written (it identifies the bot in the journal).
    pub spec_text: String,
    /// The parsed specification: how the bot is reached.
    pub spec: BotSpec,
    /// Working directory and extra environment for a program or course bot.
    pub cwd: Option<PathBuf>,
    /// Extra environment variables for it, by name.
    pub env: BTreeMap<String, String>,
    /// Resource limits and isolation for a program or course bot.
    pub confine: Confinement,
    /// Kept out of the course marks (a reference bot a teacher adds to calibrate).
    pub non_scoring: bool,
    /// The bot's file within the folder or zip `spec_text` names ([`super::journal::PlanBot::file`]).
    pub file: Option<String>,
}
