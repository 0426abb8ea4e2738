//! What a running tournament shows of itself while it plays: the games in play (their
//! bots, the board as it stands, whose move and for how long), the games done of all, and
//! an ETA. Kept in memory for the terminal ([`Board::snapshot`]) and written a few times a
//! second to [`LIVE_FILE`] in the tournament's folder, which `arbiter watch` reads: beside
//! the journal, the one file of a running run it reads.
//!
//! The workers note each turn in a [`Tracker`] (a lock and a copy of the position, no
//! drawing); one thread of the pool ([`keep`]) draws the boards and writes the file at most
//! every [`EVERY`], and only when something moved: a game's moves never wait on it.

use super::Tournament;
use crate::error::Error;
use crate::games::view::BoardView;
use crate::games::{Game, Side};
use crate::referee::Event;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant, SystemTime};

/// The live state's file in a tournament's folder.
pub const LIVE_FILE: &str = "live.json";

/// The live state's format, its `live` field.
pub const LIVE_FORMAT: u32 = 1;

/// How often the live state is drawn and written, at most.
pub const EVERY: Duration = Duration::from_millis(250);

/// A running tournament's state for whoever shows it: the terminal reads it in memory,
/// the page from [`LIVE_FILE`].
#[derive(Clone, Debug, Serialize)]
pub struct LiveState {
    /// [`LIVE_FORMAT`].
    pub live: u32,
    /// False once the run has ended (finished, stopped or failed): its tables are final
    /// for what it played.
    pub running: bool,
    /// When this state was written, in milliseconds since the Unix epoch: a reader adds
    /// the time since to the games' clocks.
    pub updated_ms: u64,
    /// Games in the schedule (the shard's, when one is played).
    pub total: usize,
    /// Of those, games in the journal.
    pub done: usize,
    /// Games this run played (the others were in the journal before it).
    pub played: usize,
    /// Games played at once.
    pub jobs: usize,
    /// Seconds until the games left are done, when the run has seen a game end.
    pub eta_s: Option<f64>,
    /// The mean wall time of a game this run played, in seconds.
    pub mean_game_s: Option<f64>,
    /// The cell kinds the boards use, with their colours.
    pub kinds: Vec<crate::games::view::CellKind>,
    /// The games in play, by id.
    pub games: Vec<InPlay>,
}

/// A game in play.
#[derive(Clone, Debug, Serialize)]
pub struct InPlay {
    /// Its id in the schedule (a journal line's `id` once it ends).
    pub id: u64,
    /// Its bots, the first-moving role's first.
    pub bots: [String; 2],
    /// The roles they play, in the same order.
    pub roles: [&'static str; 2],
    /// Plies played so far (the opening's included).
    pub ply: u32,
    /// The seat to move (0 or 1), before the first turn and while the game goes on.
    pub to_move: Option<usize>,
    /// Seconds since its first turn was asked for.
    pub game_s: f64,
    /// Seconds the move being made has taken so far.
    pub move_s: f64,
    /// The board as it stands; none before the bots are ready.
    pub board: Option<BoardView>,
}

impl LiveState {
    /// The state before a run: nothing done, nothing in play.
    fn empty(jobs: usize) -> LiveState {
        LiveState {
            live: LIVE_FORMAT,
            running: true,
            updated_ms: now_ms(),
            total: 0,
            done: 0,
            played: 0,
            jobs,
            eta_s: None,
            mean_game_s: None,
            kinds: Vec::new(),
            games: Vec::new(),
        }
    }
}

/// Milliseconds since the Unix epoch.
fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// Seconds until `left` games not begun and the games `in_play` (each `game_s` old) are
/// done, `jobs` at a time, when a game takes `mean` seconds. A game older than the mean is
/// counted as lasting as long again as it has (a long game is likely to go on), so the
/// estimate grows while it does instead of standing at zero; and the ETA is never less
/// than the longest game in play still needs.
pub fn eta(left: usize, in_play: &[f64], mean: f64, jobs: usize) -> f64 {
    let needs = |age: f64| {
        if age < mean {
            mean - age
        } else {
            age.max(1e-3)
        }
    };
    let running: Vec<f64> = in_play.iter().map(|&age| needs(age)).collect();
    let longest = running.iter().copied().fold(0.0, f64::max);
    let work = left as f64 * mean + running.iter().sum::<f64>();
    (work / jobs.max(1) as f64).max(longest)
}

/// The live state of one run, shared by its pool (which writes it) and whoever shows the
/// run (the terminal, the run's end).
#[derive(Debug)]
pub struct Board {
    state: Mutex<Counted>,
}

/// The state, with what the ETA is made of.
#[derive(Debug)]
struct Counted {
    state: LiveState,
    /// The run has opened its journal ([`Board::counts`]): a run refused before (another
    /// run holds the folder, a plan that differs) leaves the folder's live file alone.
    opened: bool,
    /// Wall seconds of the games this run played, summed.
    seconds: f64,
}

impl Board {
    /// A board for a run of `jobs` games at once.
    pub fn new(jobs: usize) -> Arc<Board> {
        Arc::new(Board {
            state: Mutex::new(Counted {
                state: LiveState::empty(jobs),
                opened: false,
                seconds: 0.0,
            }),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Counted> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The run's schedule: `total` games, `done` of them in the journal already.
    pub fn counts(&self, total: usize, done: usize) {
        let mut counted = self.lock();
        counted.state.total = total;
        counted.state.done = done;
        counted.opened = true;
    }

    /// Game `id`, which this run played, ended `seconds` after its first turn (its
    /// record's duration): one more game of the schedule is done, and it is no longer in
    /// play.
    pub fn game_ended(&self, id: u64, seconds: f64) {
        let mut counted = self.lock();
        counted.state.games.retain(|g| g.id != id);
        counted.state.done += 1;
        counted.state.played += 1;
        counted.seconds += seconds;
    }

    /// The state as it stands, its clocks and ETA as of now.
    pub fn snapshot(&self) -> LiveState {
        let counted = self.lock();
        let mut state = counted.state.clone();
        let since = now_ms().saturating_sub(state.updated_ms) as f64 / 1000.0;
        if state.running {
            for game in &mut state.games {
                game.game_s += since;
                game.move_s += since;
            }
        }
        state.updated_ms = now_ms();
        state.mean_game_s = (state.played > 0).then(|| counted.seconds / state.played as f64);
        let left = state
            .total
            .saturating_sub(state.done)
            .saturating_sub(state.games.len());
        state.eta_s = state.mean_game_s.map(|mean| {
            let ages: Vec<f64> = state.games.iter().map(|g| g.game_s).collect();
            eta(left, &ages, mean, state.jobs)
        });
        if !state.running {
            state.eta_s = None;
        }
        state
    }

    /// The games in play as drawn now.
    fn set_games(&self, games: Vec<InPlay>, kinds: &[crate::games::view::CellKind]) {
        let mut counted = self.lock();
        counted.state.games = games;
        counted.state.updated_ms = now_ms();
        if counted.state.kinds.is_empty() {
            counted.state.kinds = kinds.to_vec();
        }
    }

    /// The run has ended: nothing is in play any more.
    pub fn end(&self) {
        let mut counted = self.lock();
        counted.state.running = false;
        counted.state.games.clear();
        counted.state.updated_ms = now_ms();
    }

    /// A guard that ends the board and writes it to `dir` when dropped: however a run
    /// ends, its live file then says it has.
    pub fn ending<'a>(&'a self, dir: &'a Path) -> Ending<'a> {
        Ending { board: self, dir }
    }

    /// Writes the state as of now to [`LIVE_FILE`] in `dir`.
    pub fn write(&self, dir: &Path) -> Result<(), Error> {
        let state = self.snapshot();
        let text = serde_json::to_vec(&state).map_err(|e| Error::usage(e.to_string()))?;
        crate::untrusted::file::write_atomic(&dir.join(LIVE_FILE), &text)
    }
}

/// Ends a [`Board`] when dropped ([`Board::ending`]).
pub struct Ending<'a> {
    board: &'a Board,
    dir: &'a Path,
}

impl Drop for Ending<'_> {
    fn drop(&mut self) {
        self.board.end();
        // Only a run that opened the journal: a refused one would overwrite the live file
        // of the run that holds the folder.
        if self.board.lock().opened {
            let _ = self.board.write(self.dir);
        }
    }
}

/// The games in play of one pool, as its workers play them: each turn is a lock and a
/// copy of the position.
pub(crate) struct Tracker<G: Game> {
    games: Mutex<BTreeMap<u64, Playing<G>>>,
    /// Something moved since the board was last drawn.
    moved: AtomicBool,
}

struct Playing<G: Game> {
    bots: [String; 2],
    /// When its first turn was asked for; before that, when it was seated.
    started: Instant,
    /// When the move being made was asked for.
    move_started: Instant,
    ply: u32,
    to_move: Option<Side>,
    state: Option<G::State>,
}

impl<G: Game> Tracker<G> {
    pub(crate) fn new() -> Tracker<G> {
        Tracker {
            games: Mutex::new(BTreeMap::new()),
            moved: AtomicBool::new(true),
        }
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<u64, Playing<G>>> {
        self.games.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Game `id` of `bots` is about to play its first turn.
    pub(crate) fn begin(&self, id: u64, bots: [&str; 2]) {
        let now = Instant::now();
        self.lock().insert(
            id,
            Playing {
                bots: bots.map(String::from),
                started: now,
                move_started: now,
                ply: 0,
                to_move: None,
                state: None,
            },
        );
        self.moved.store(true, Ordering::Relaxed);
    }

    /// What game `id`'s referee reports.
    pub(crate) fn event(&self, game: &G, id: u64, event: &Event<'_, G>) {
        let (state, ply) = match event {
            Event::Started { state } => (*state, None),
            Event::Turn { record, state } => (*state, Some(record.ply + 1)),
            Event::Finished { .. } => return,
        };
        let mut games = self.lock();
        if let Some(playing) = games.get_mut(&id) {
            match &mut playing.state {
                Some(kept) => kept.clone_from(state),
                None => playing.state = Some(state.clone()),
            }
            if let Some(ply) = ply {
                playing.ply = ply;
            } else {
                playing.started = Instant::now();
            }
            playing.to_move = Some(game.side_to_move(state));
            playing.move_started = Instant::now();
        }
        drop(games);
        self.moved.store(true, Ordering::Relaxed);
    }

    /// Game `id` is over (or was given up).
    pub(crate) fn end(&self, id: u64) {
        self.lock().remove(&id);
        self.moved.store(true, Ordering::Relaxed);
    }

    /// The games in play, drawn: copied under the lock, drawn outside it, so that no
    /// worker's turn waits on the drawing.
    fn drawn(&self, game: &G) -> Vec<InPlay> {
        let roles = game.roles();
        let copied: Vec<(InPlay, Option<G::State>)> = self
            .lock()
            .iter()
            .map(|(&id, playing)| {
                let game = InPlay {
                    id,
                    bots: playing.bots.clone(),
                    roles,
                    ply: playing.ply,
                    to_move: playing.to_move.map(Side::index),
                    game_s: playing.started.elapsed().as_secs_f64(),
                    move_s: playing.move_started.elapsed().as_secs_f64(),
                    board: None,
                };
                (game, playing.state.clone())
            })
            .collect();
        copied
            .into_iter()
            .map(|(mut in_play, state)| {
                in_play.board = state.as_ref().map(|s| game.view(s));
                in_play
            })
            .collect()
    }
}

/// Keeps `board` (and the live file in the tournament's folder) up to date with the
/// games `tracker` follows until `over` is set: at most every [`EVERY`], and only when a
/// game moved. A file that cannot be written is left (the run goes on; the page then
/// shows less).
pub(crate) fn keep<G: Game>(
    game: &G,
    tournament: &Tournament,
    tracker: &Tracker<G>,
    board: &Board,
    over: &AtomicBool,
) {
    let kinds = game.view_kinds();
    let mut file_ok = true;
    loop {
        let last = over.load(Ordering::SeqCst);
        if tracker.moved.swap(false, Ordering::Relaxed) || last {
            board.set_games(tracker.drawn(game), kinds);
            if file_ok && board.write(&tournament.out).is_err() {
                file_ok = false;
            }
        }
        if last {
            return;
        }
        park_until(over, EVERY);
    }
}

/// Sleeps `pause`, or less when `over` is set meanwhile (checked every few milliseconds).
fn park_until(over: &AtomicBool, pause: Duration) {
    let until = Instant::now() + pause;
    while !over.load(Ordering::SeqCst) {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        std::thread::sleep(left.min(Duration::from_millis(20)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_eta_counts_the_games_in_play_and_grows_while_a_long_one_goes_on() {
        // 10 games left, none in play, 2 at a time, 4 s a game: 20 s.
        assert_eq!(eta(10, &[], 4.0, 2), 20.0);
        // A game in play for 1 s of its 4 needs 3 more.
        assert_eq!(eta(0, &[1.0], 4.0, 2), 3.0);
        // A game in play for 60 s of a usual 4 is counted as needing 60 more: the ETA
        // does not stand at zero under a long game, and grows as it goes on.
        assert_eq!(eta(0, &[60.0], 4.0, 2), 60.0);
        assert!(eta(0, &[90.0], 4.0, 2) > eta(0, &[60.0], 4.0, 2));
        // Resumed work: only what is left counts, however many games were done before.
        assert_eq!(eta(1, &[], 4.0, 1), 4.0);
    }

    #[test]
    fn a_boards_clocks_move_with_time_between_writes() {
        let board = Board::new(1);
        board.counts(3, 0);
        board.game_ended(0, 2.0);
        board.set_games(
            vec![InPlay {
                id: 1,
                bots: ["a".into(), "b".into()],
                roles: ["rebel", "officer"],
                ply: 4,
                to_move: Some(0),
                game_s: 1.0,
                move_s: 0.5,
                board: None,
            }],
            &[],
        );
        std::thread::sleep(Duration::from_millis(120));
        let state = board.snapshot();
        assert!(state.games[0].move_s >= 0.6, "{:?}", state.games[0]);
        assert_eq!(state.mean_game_s, Some(2.0));
        // One game left beside the one in play: 2 s, plus the 0.9 s the one in play needs.
        let eta = state.eta_s.expect("an ETA once a game ended");
        assert!(eta > 2.0 && eta < 3.0, "{eta}");
        board.end();
        let ended = board.snapshot();
        assert!(!ended.running && ended.games.is_empty() && ended.eta_s.is_none());
    }
}
