//! What every command does when a signal would end arbiter (SIGINT, SIGTERM, SIGHUP), or
//! stop it (SIGTSTP: Ctrl-Z, whose pause no bot is charged, `clocks::pause`).
//!
//! Bots run in their own process groups, so a Ctrl-C at the terminal, or a signal sent to
//! arbiter alone, does not reach them: the handler, installed once for every command,
//! kills every bot before arbiter exits. A command that can stop cleanly (a league keeps
//! its journal) asks for [`graceful_stop`]: the first signal then only sets its flag (the
//! running games are cancelled: their bots are killed), a second one exits at once.

use crate::bots::process::kill_all_bots;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

/// The flag of the command that stops by itself on a signal, if it asked for one.
static GRACEFUL: OnceLock<Arc<AtomicBool>> = OnceLock::new();

/// The exit status after a signal, as a shell reports SIGINT's.
const EXIT_ON_SIGNAL: i32 = crate::error::exit::INTERRUPTED;

/// Installs the handlers (once, before any command runs, while arbiter has one thread);
/// for a command that plays bots, also the one that stops them with arbiter (Ctrl-Z).
pub(crate) fn install(plays_bots: bool) {
    if plays_bots {
        crate::clocks::pause::take_stops();
    }
    let result = ctrlc::set_handler(|| {
        // From the handler's own thread, not a signal context: taking locks is fine. The
        // flag is raised before the bots are killed: a game that ends by the kill must find
        // it raised, or it would be journaled as the bot's crash.
        let first = GRACEFUL
            .get()
            .is_some_and(|flag| !flag.swap(true, Ordering::SeqCst));
        kill_all_bots();
        if first {
            note!(
                "\nstopping: finished games are in the journal; rerun to resume (Ctrl-C again to quit now)"
            );
        } else {
            // Exiting at once, nothing is dropped: the bots' private folders go here.
            crate::jail::leftovers::remove_live();
            std::process::exit(EXIT_ON_SIGNAL);
        }
    });
    if let Err(e) = result {
        note!(
            "warning: cannot handle SIGINT, SIGTERM and SIGHUP ({e}): bots may outlive an interrupted arbiter"
        );
    }
}

/// The flag a signal sets instead of ending arbiter: the caller stops when it is set.
pub(crate) fn graceful_stop() -> Arc<AtomicBool> {
    GRACEFUL
        .get_or_init(|| Arc::new(AtomicBool::new(false)))
        .clone()
}
