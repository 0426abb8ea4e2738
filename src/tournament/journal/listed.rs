//! A game's summary as one short JSON line: how a listing of a journal's games keeps
//! them on the disk (`reader::Listing`), and the folder's cache of summaries
//! (`known`).

use crate::record::{GameSummary, MachineCounts, own, shared};

/// The fields of a summary kept in a `Listing`, in order (all but the replay digest,
/// which only the count of distinct pairs reads, and which was counted): written with
/// borrowed strings (`S` = `&str`), read back owned (`S` = `String`).
pub(super) type Listed<S> = (
    u64,
    u64,
    [S; 2],
    [S; 2],
    Option<usize>,
    S,
    u32,
    [u32; 2],
    [u32; 2],
    [f64; 2],
    [f64; 2],
    u64,
    S,
    S,
    MachineCounts,
    Option<f64>,
);

/// A summary's fields as a `Listing` keeps them.
pub(super) fn listed_fields(g: &GameSummary) -> Listed<&str> {
    (
        g.id,
        g.pair,
        [g.players[0].as_str(), g.players[1].as_str()],
        [g.roles[0].as_str(), g.roles[1].as_str()],
        g.winner,
        g.reason.as_str(),
        g.rounds,
        g.illegal,
        g.blocked,
        g.max_ms,
        g.mean_ms,
        g.seed,
        g.detail.as_str(),
        g.opening.as_str(),
        g.machine,
        g.duration_ms,
    )
}

/// A game's line of a `Listing`.
pub(crate) fn listed_line(g: &GameSummary) -> String {
    let mut line = serde_json::to_string(&listed_fields(g)).expect("a summary always serializes");
    line.push('\n');
    line
}

pub(super) fn listed_summary(text: &[u8]) -> Result<GameSummary, String> {
    serde_json::from_slice(text)
        .map(listed_of)
        .map_err(|e| e.to_string())
}

/// The summary of the fields a `Listing` keeps, its replay digest all zero.
pub(super) fn listed_of(fields: Listed<String>) -> GameSummary {
    let (
        id,
        pair,
        players,
        roles,
        winner,
        reason,
        rounds,
        illegal,
        blocked,
        max_ms,
        mean_ms,
        seed,
        detail,
        opening,
        machine,
        duration_ms,
    ) = fields;
    GameSummary {
        id,
        players: players.map(|p| shared(&p)),
        roles: roles.map(|r| shared(&r)),
        winner,
        reason: shared(&reason),
        rounds,
        illegal,
        blocked,
        max_ms,
        mean_ms,
        seed,
        detail: own(detail),
        pair,
        opening: own(opening),
        // Not kept: see `Listed`.
        replay: [0; 12],
        machine,
        duration_ms,
    }
}
