//! The preflight check of a tournament's bots: each is started as it would be in a game
//! (same interpreter, limits and confinement), its start-up is timed, and it is asked for
//! one move as each role, so a bot that cannot run is known before the first game.
//!
//! As the first role the bot moves from the start position; as the second role, from the
//! start position after the first role's first legal move (in the game's own move order),
//! so every bot sees the same positions. Each role is a fresh process, since a bot learns
//! its role at the handshake.

use super::Entrant;
use crate::bots::{EndInfo, FailureKind, Reply, Setup, open_player_in};
use crate::engines::Builtins;
use crate::games::Side;
use std::time::{Duration, Instant};

/// How a bot fared, worst first in the order it was found, in the words of a game's
/// record: a check and a league call a failure alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// It started and made a legal first move as each role.
    Ok,
    /// It raised an exception: in loading its code (a Python import or syntax error), its
    /// constructor or its first move.
    Exception,
    /// It did not start or answer within the start-up or the move limit.
    Timeout,
    /// Its first move as one of the roles was illegal.
    IllegalFirstMove,
    /// It went over its memory limit.
    Memory,
    /// Any other failure, named by the referee's reason code (crash, protocol_error, cpu,
    /// file_size).
    Other(FailureKind),
}

impl Status {
    /// The status's word in the check table: `ok`, `illegal`, or the referee's reason code.
    pub fn label(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Exception => "exception",
            Status::Timeout => "timeout",
            Status::IllegalFirstMove => "illegal",
            Status::Memory => "memory",
            Status::Other(kind) => kind.code(),
        }
    }
}

/// One bot's line of the check table.
#[derive(Clone, Debug)]
pub struct CheckRow {
    /// The entrant's name.
    pub name: String,
    /// Its first failure, or `Ok`.
    pub status: Status,
    /// The slower of its two start-ups (handshake until `ready`), when one succeeded.
    pub startup: Option<Duration>,
    /// Its first move as each role, when it answered.
    pub moves: [Option<Duration>; 2],
    /// What went wrong, as the referee words it (empty when ok).
    pub error: String,
}

impl CheckRow {
    /// Whether the bot passed: it started and made a legal move as each role.
    pub fn ok(&self) -> bool {
        self.status == Status::Ok
    }
}

/// The status a failure gives, and the error shown for it: an exception as one line
/// (its type, message, file and line), anything else as the referee worded it.
fn verdict(kind: FailureKind, detail: String) -> (Status, String) {
    let error = crate::record::exception_line(&detail).unwrap_or(detail);
    (status_of(kind), error)
}

fn status_of(kind: FailureKind) -> Status {
    match kind {
        FailureKind::Exception => Status::Exception,
        FailureKind::Timeout => Status::Timeout,
        FailureKind::Memory => Status::Memory,
        other => Status::Other(other),
    }
}

/// Checks one bot under the tournament's limits.
pub(crate) fn check_one<G: Builtins>(
    game: &G,
    entrant: &Entrant,
    move_limit: Duration,
    init_limit: Duration,
) -> CheckRow {
    let mut row = CheckRow {
        name: entrant.name.clone(),
        status: Status::Ok,
        startup: None,
        moves: [None, None],
        error: String::new(),
    };
    for side in Side::BOTH {
        let mut state = game.start_position(0);
        if game.side_to_move(&state) != side {
            let mut moves = Vec::new();
            game.legal_moves(&state, &mut moves);
            if let Some(first) = moves.first() {
                game.play(&mut state, first);
            }
        }
        let mut player = match open_player_in(
            &entrant.spec,
            game,
            entrant.cwd.as_deref(),
            &entrant.env,
            entrant.confine,
        ) {
            Ok(p) => p,
            Err(e) => {
                row.status = Status::Other(FailureKind::Spawn);
                row.error = e;
                return row;
            }
        };
        let setup = Setup {
            side,
            move_limit,
            init_limit,
            seed: 1,
        };
        let started = Instant::now();
        let failure = match player.start(game, &setup) {
            Err(f) => Some(verdict(f.kind, f.detail)),
            Ok(_) => {
                let took = started.elapsed();
                row.startup = Some(row.startup.map_or(took, |t| t.max(took)));
                let reply = player.turn(game, &state);
                if !matches!(reply.reply, Reply::Failed(_)) {
                    row.moves[side.index()] = Some(reply.elapsed);
                }
                match reply.reply {
                    Reply::Failed(f) => Some(verdict(f.kind, f.detail)),
                    Reply::Checked(_) => None,
                    Reply::Wire(value) => game.parse_move(&state, &value).err().map(|why| {
                        (
                            Status::IllegalFirstMove,
                            format!("as {}: {value} is illegal: {why}", game.role_name(side)),
                        )
                    }),
                }
            }
        };
        let log = player.finish(&EndInfo {
            result: "tie",
            reason: "check".into(),
        });
        if let Some((status, detail)) = failure {
            row.status = status;
            row.error = if detail.trim().is_empty() {
                log.stderr
            } else {
                detail
            };
            return row;
        }
    }
    row
}

/// Checks every bot, `jobs` at once, in the entrants' order.
pub fn check_all<G: Builtins>(
    game: &G,
    entrants: &[Entrant],
    move_limit: Duration,
    init_limit: Duration,
    jobs: usize,
) -> Vec<CheckRow> {
    use rayon::prelude::*;
    super::setup::enter(entrants);
    // A pool of our own: blocking bot work stays off rayon's global pool.
    match rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .thread_name(|i| format!("arbiter-check-{i}"))
        .build()
    {
        Ok(pool) => pool.install(|| {
            entrants
                .par_iter()
                .map(|e| check_one(game, e, move_limit, init_limit))
                .collect()
        }),
        Err(_) => entrants
            .iter()
            .map(|e| check_one(game, e, move_limit, init_limit))
            .collect(),
    }
}
