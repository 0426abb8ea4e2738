//! Playing a schedule's games on a dedicated pool of workers, the bots of each worker's
//! next games started while it plays one.

use super::live::{self, Board, Tracker};
use super::schedule::Fixture;
use super::{GameSummary, Replayed, Tournament, journal};
use crate::bots::MACHINE_LOAD;
use crate::bots::spec::BotSpec;
use crate::clocks::runqueue::{MAX_REPLAYS, REPLAY_PAUSE};
use crate::engines::Builtins;
use crate::error::Error;
use crate::record::GameRecord;
use crate::referee::{CANCELLED, Handshake, MatchConfig, play_started, start_game};
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

/// The environment variable that sets how many games ahead each worker starts the bots
/// of, whatever `-j` is (`0`: none, each game's bots are started when it comes; at most
/// `MAX_AHEAD`): for measuring what starting ahead gains, and a way back should it ever
/// be in the way.
pub const PRESTART_VAR: &str = "ARBITER_PRESTART";

/// Games ahead per worker unless [`PRESTART_VAR`] says otherwise, when the games in play
/// leave a core idle (fewer workers than cores). A course bot's game can be shorter than
/// the start-up of its two interpreters in their jails, so the next game's bots may still
/// be starting when the game in play ends; but starting two games ahead was no faster in
/// benches/league.rs (the start-ups then take the cores from each other and from the
/// games in play), and keeps more bots waiting.
pub const DEFAULT_AHEAD: usize = 1;

/// The most games ahead per worker [`PRESTART_VAR`] may ask for.
pub(crate) const MAX_AHEAD: usize = 8;

/// How many games ahead a worker starts the bots of while it plays one: none when every
/// entrant is an engine in this process (it starts at once), else [`PRESTART_VAR`]'s
/// number; by default [`DEFAULT_AHEAD`] while a core is left over from the games in play,
/// and none when every core has a game.
///
/// Why none then: with a game on every core there is no idle core for the start-ups to
/// use; they run beside the games in play, and each game then cost more CPU. In
/// benches/league.rs at -j 2 on 2 cores, course Python bots: 97-99 ms of CPU a game
/// started ahead against 92-95 ms not, 19.0-19.4 games/s against 19.5-20.3 (three runs);
/// `arbiter bot` subprocesses, 500 games: 4.20-4.35 s against 4.04-4.13 s. At -j 1 the
/// idle core pays: 4.70-4.74 s against 5.24-5.33 s.
fn games_ahead(tournament: &Tournament) -> usize {
    let programs = tournament
        .entrants
        .iter()
        .any(|e| !matches!(e.spec, BotSpec::Builtin(_)));
    if !programs {
        return 0;
    }
    let asked = std::env::var(PRESTART_VAR)
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok());
    match asked {
        Some(n) => n.min(MAX_AHEAD),
        None if tournament.jobs < crate::clocks::placement::cores() => DEFAULT_AHEAD,
        None => 0,
    }
}

/// Plays the fixtures `next_fixture(0)`, `next_fixture(1)`, .. in that order on
/// `tournament.jobs` threads of a dedicated pool, until it returns `None` or `stop` is
/// set, and hands each finished game to `consume` on the calling thread as it ends (with
/// its replay, made on the worker, when `replays` asks: [`Finished::of`]).
/// Games cancelled by `stop` are dropped. An error from `consume` stops the run.
///
/// Each game gets fresh bots, started and handshaken before its first turn as ever; but
/// while a worker plays a game, the bots of the worker's next games (a few, when a core is
/// left over from the games in play: see [`games_ahead`]) are already being started, each
/// game on a thread of its own, so that the start-up of bot programs (an interpreter, a
/// jail) overlaps play instead of leaving the cores idle between games. The number ahead
/// is bounded: a started bot idles after `ready` until its game comes, so what starting
/// ahead takes from the games in play is at most that many start-ups per worker at a
/// time. A worker plays its games in the order it
/// claimed them. Bots started ahead for a game that is never played (a stop, an SPRT
/// verdict, an error) are killed and reaped like any bot, before the run returns.
pub(crate) fn play_pool<G: Builtins>(
    game: &G,
    tournament: &Tournament,
    next_fixture: &(dyn Fn(usize) -> Option<Fixture> + Sync),
    stop: &Arc<AtomicBool>,
    version: u32,
    replays: bool,
    consume: &mut dyn FnMut(Fixture, Finished) -> Result<(), Error>,
) -> Result<(), Error> {
    let jobs = tournament.jobs.max(1);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .thread_name(|i| format!("arbiter-game-{i}"))
        .build()
        .map_err(|e| Error::usage(format!("cannot start {jobs} game threads: {e}")))?;
    let next = AtomicUsize::new(0);
    let depth = games_ahead(tournament);
    // Bounded: when the writer falls behind, the workers wait instead of piling up
    // finished games in memory (a long league would otherwise hold most of its games).
    let (tx, rx) = mpsc::sync_channel::<Result<(Fixture, Finished), Error>>(jobs);
    let mut failure = None;
    // The games in play, followed for the terminal and the live file when the run shows
    // them.
    let tracker = Tracker::<G>::new();
    let over = AtomicBool::new(false);
    let live = tournament.live.as_deref().map(|board| (&tracker, board));
    std::thread::scope(|scope| {
        let next = &next;
        let keeper = live.map(|(tracker, board)| {
            let over = &over;
            scope.spawn(move || live::keep(game, tournament, tracker, board, over))
        });
        scope.spawn(move || {
            pool.scope(|s| {
                for _ in 0..jobs {
                    let tx = tx.clone();
                    s.spawn(move |_| {
                        let claim = || {
                            if stop.load(Ordering::SeqCst) {
                                return None;
                            }
                            next_fixture(next.fetch_add(1, Ordering::SeqCst))
                        };
                        let seat = |fixture: Fixture| {
                            let seated = seat_fixture(game, tournament, &fixture, stop);
                            (fixture, seated)
                        };
                        std::thread::scope(|threads| {
                            // This worker's next games, in the order claimed.
                            let mut ahead: VecDeque<Ahead<'_, G>> = VecDeque::new();
                            while !stop.load(Ordering::SeqCst) {
                                let current = match ahead.pop_front() {
                                    Some(upcoming) => upcoming,
                                    None => match claim() {
                                        Some(fixture) => Ahead::Later(fixture),
                                        None => break,
                                    },
                                };
                                // Topped up before the current game is seated, so that even
                                // the first game's start-up overlaps the next ones'.
                                while ahead.len() < depth
                                    && let Some(upcoming) = claim()
                                {
                                    let thread = std::thread::Builder::new()
                                        .name("arbiter-prestart".into())
                                        .spawn_scoped(threads, move || seat(upcoming));
                                    ahead.push_back(match thread {
                                        Ok(handle) => Ahead::Starting(handle),
                                        Err(_) => Ahead::Later(upcoming),
                                    });
                                }
                                let (fixture, seated) = current.seated(seat);
                                let result = seated
                                    .map(|s| play_seated(game, tournament, &fixture, s, live));
                                let result = result.and_then(|record| {
                                    replay_machine_late(record, stop, REPLAY_PAUSE, || {
                                        seat_fixture(game, tournament, &fixture, stop).map(|s| {
                                            play_seated(game, tournament, &fixture, s, live)
                                        })
                                    })
                                });
                                // A game that ends after a stop may owe its end to the stop
                                // (its bots were killed): it is no result, and a resume
                                // plays it again.
                                let cancelled = stop.load(Ordering::SeqCst)
                                    || matches!(&result, Ok(r) if r.reason == CANCELLED);
                                if cancelled {
                                    break;
                                }
                                let finished = result.map(|r| {
                                    let finished =
                                        Finished::of(game, &fixture, r, version, replays);
                                    (fixture, finished)
                                });
                                if tx.send(finished).is_err() {
                                    break;
                                }
                                if let Some(chores) = &tournament.chores {
                                    chores.do_waiting();
                                }
                            }
                            // Games started ahead and never played: their bots are killed
                            // and reaped here, as their seats are dropped, before the run
                            // returns.
                            ahead.into_iter().for_each(Ahead::abandon);
                        });
                    });
                }
            });
        });
        for message in rx {
            let outcome = message.and_then(|(fixture, record)| consume(fixture, record));
            if let Err(e) = outcome {
                stop.store(true, Ordering::SeqCst);
                failure.get_or_insert(e);
            }
        }
        over.store(true, Ordering::SeqCst);
        if let Some(keeper) = keeper {
            let _ = keeper.join();
        }
    });
    failure.map_or(Ok(()), Err)
}

/// A worker's next game, claimed while it plays one.
enum Ahead<'scope, G: Builtins> {
    /// Its bots being started on a thread of their own.
    Starting(std::thread::ScopedJoinHandle<'scope, (Fixture, Result<Seated<G>, Error>)>),
    /// Not started yet: it is started when it comes (the worker's current game when
    /// none was ahead, or one for which no thread could be made).
    Later(Fixture),
}

impl<G: Builtins> Ahead<'_, G> {
    /// The game, seated: waits for the thread starting it, or starts it now.
    fn seated(
        self,
        seat: impl FnOnce(Fixture) -> (Fixture, Result<Seated<G>, Error>),
    ) -> (Fixture, Result<Seated<G>, Error>) {
        match self {
            Ahead::Starting(handle) => handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Ahead::Later(fixture) => seat(fixture),
        }
    }

    /// Gives up a game that will not be played: waits for the thread starting it and
    /// drops its seats, which kills and reaps its bots.
    fn abandon(self) {
        if let Ahead::Starting(handle) = self {
            let started = handle
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            drop(started);
        }
    }
}

/// A fixture's game with its bots seated and started, ready for its first turn.
struct Seated<G: Builtins> {
    seats: [Box<dyn crate::bots::Player<G>>; 2],
    config: MatchConfig,
    handshake: Handshake<G>,
}

/// Seats the bots of `fixture` and starts them ([`start_game`]).
fn seat_fixture<G: Builtins>(
    game: &G,
    tournament: &Tournament,
    fixture: &Fixture,
    stop: &Arc<AtomicBool>,
) -> Result<Seated<G>, Error> {
    let seat = |i: usize| {
        let entrant = &tournament.entrants[i];
        crate::bots::open_player_in(
            &entrant.spec,
            game,
            entrant.cwd.as_deref(),
            &entrant.env,
            entrant.confine,
        )
        .map_err(|e| Error::usage(format!("bot {}: {e}", entrant.name)))
    };
    let opening = tournament
        .openings
        .for_pair(game, tournament.seed, fixture.start)?;
    let mut first = seat(fixture.first)?;
    let mut second = seat(fixture.second)?;
    let config = MatchConfig {
        move_limit: tournament.move_limit,
        init_limit: tournament.init_limit,
        seed: fixture.seed,
        start: fixture.start,
        opening,
        cancel: Some(stop.clone()),
        // A league's spare CPUs start the next games' bots.
        two_cpus: false,
    };
    let handshake = start_game(game, [first.as_mut(), second.as_mut()], &config);
    Ok(Seated {
        seats: [first, second],
        config,
        handshake,
    })
}

/// Plays a seated game from its first turn.
fn play_seated<G: Builtins>(
    game: &G,
    tournament: &Tournament,
    fixture: &Fixture,
    seated: Seated<G>,
    live: Option<(&Tracker<G>, &Board)>,
) -> GameRecord {
    let Seated {
        seats: [mut first, mut second],
        config,
        handshake,
    } = seated;
    let names = [
        tournament.entrants[fixture.first].name.as_str(),
        tournament.entrants[fixture.second].name.as_str(),
    ];
    let Some((tracker, board)) = live else {
        return play_started(
            game,
            [first.as_mut(), second.as_mut()],
            names,
            &config,
            handshake,
            &mut |_| {},
        );
    };
    tracker.begin(fixture.id, names);
    let record = play_started(
        game,
        [first.as_mut(), second.as_mut()],
        names,
        &config,
        handshake,
        &mut |event| tracker.event(game, fixture.id, &event),
    );
    tracker.end(fixture.id);
    if record.reason != CANCELLED && record.reason != MACHINE_LOAD {
        let seconds = record.duration_ms.unwrap_or_default() / 1000.0;
        board.game_ended(fixture.id, seconds);
    }
    record
}

/// `record`, or, when the machine's load left it without a result (a bot kept from
/// running until its stretched deadline: `clocks::runqueue`), the game played again by
/// `again`, up to [`MAX_REPLAYS`] times, `pause` apart; the record that counts keeps why
/// each earlier play was dropped. Still without a result after that, the run stops with
/// [`Error::Overloaded`]: its journal resumes once the machine is quieter.
fn replay_machine_late(
    record: GameRecord,
    stop: &AtomicBool,
    pause: std::time::Duration,
    mut again: impl FnMut() -> Result<GameRecord, Error>,
) -> Result<GameRecord, Error> {
    let mut record = record;
    let mut replayed = Vec::new();
    while record.reason == MACHINE_LOAD && !stop.load(Ordering::SeqCst) {
        // The bot kept from running: the mover of the last turn (a start's detail names
        // its role itself).
        let who = record
            .moves
            .iter()
            .rev()
            .find(|m| m.reason.as_deref() == Some(MACHINE_LOAD))
            .and_then(|m| record.players.get(&m.side))
            .map(|name| format!("{name}: "))
            .unwrap_or_default();
        let why = format!(
            "{who}{}",
            record
                .detail
                .as_deref()
                .unwrap_or("kept from running by the machine")
        );
        if replayed.len() >= MAX_REPLAYS {
            return Err(Error::Overloaded(format!(
                "the machine is too busy for fair clocks: a game of {} was left without a \
                 result {} times in a row ({why}); the games played so far are kept: run \
                 the same command again once the machine is quieter to go on",
                record
                    .players
                    .values()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(" and "),
                MAX_REPLAYS + 1
            )));
        }
        replayed.push(why);
        std::thread::sleep(pause);
        record = again()?;
    }
    record.machine.replayed = replayed;
    Ok(record)
}

/// A finished game as the writer takes it: its journal line and its summary, both made
/// on the worker that played it (and the record dropped there), so that the one writer
/// thread, which every game passes through, does as little as it can per game.
pub(crate) struct Finished {
    pub line: String,
    pub summary: GameSummary,
    /// The summary's line of the run's listing ([`journal::listed_line`]).
    pub listed: String,
    pub replay: Option<Replayed>,
}

impl Finished {
    /// The game as a journal in format `version` keeps it: its line, and the summary of
    /// the record as that journal gives it back (times rounded as the format keeps them)
    /// with its line of the listing, so the tables a run writes are the ones
    /// `arbiter table` rebuilds; replayed from
    /// that same record when `replays` asks, as a report of the journal would replay it.
    pub(super) fn of<G: Builtins>(
        game: &G,
        fixture: &Fixture,
        mut record: GameRecord,
        version: u32,
        replays: bool,
    ) -> Finished {
        journal::keep(version, &mut record);
        let summary = GameSummary::of(fixture.id, &record);
        let line = journal::line(version, fixture.id, &record);
        let replay = replays.then(|| Replayed {
            // Found by it in the report's index of its replays.
            key: journal::key_of(version, line.trim_end().as_bytes()).map(|(_, key)| key),
            ..Replayed::of(game, &game.roles(), fixture.id, &record)
        });
        Finished {
            line,
            listed: journal::listed_line(&summary),
            summary,
            replay,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{MachineLoad, MoveRecord};
    use std::collections::BTreeMap;

    const ZERO: std::time::Duration = std::time::Duration::ZERO;

    fn record(reason: &str) -> GameRecord {
        GameRecord {
            game: "asalto".into(),
            roles: vec!["rebel".into(), "officer".into()],
            players: BTreeMap::from([
                ("rebel".to_string(), "Team01".to_string()),
                ("officer".to_string(), "Team02".to_string()),
            ]),
            winner: None,
            reason: reason.into(),
            detail: Some("no reply after 4000 ms, 3500 ms of which ...".into()),
            rounds: 1,
            plies: 1,
            illegal: BTreeMap::new(),
            seed: 1,
            start: 0,
            start_board: serde_json::Value::Null,
            opening: serde_json::Value::Null,
            moves: vec![MoveRecord {
                ply: 0,
                side: "officer".into(),
                reply: serde_json::Value::Null,
                verdict: "failed".into(),
                reason: Some(reason.into()),
                time_ms: 500.0,
            }],
            final_board: serde_json::Value::Null,
            logs: BTreeMap::new(),
            machine: MachineLoad::default(),
            duration_ms: Some(500.0),
        }
    }

    #[test]
    fn a_game_the_load_left_without_a_result_is_played_again_and_keeps_why() {
        let mut plays = vec![record("round_limit"), record(MACHINE_LOAD)];
        let got = replay_machine_late(record(MACHINE_LOAD), &AtomicBool::new(false), ZERO, || {
            Ok(plays.pop().unwrap())
        })
        .unwrap();
        assert_eq!(got.reason, "round_limit");
        assert_eq!(got.machine.replayed.len(), 2, "{:?}", got.machine);
        // Named by the bot that was kept from running: the officer's.
        assert!(
            got.machine.replayed[0].starts_with("Team02: no reply after 4000 ms"),
            "{:?}",
            got.machine.replayed
        );
        assert!(plays.is_empty());
    }

    #[test]
    fn a_game_without_a_result_four_times_stops_the_run_as_overloaded() {
        let mut played = 0;
        let got = replay_machine_late(record(MACHINE_LOAD), &AtomicBool::new(false), ZERO, || {
            played += 1;
            Ok(record(MACHINE_LOAD))
        });
        assert_eq!(played, MAX_REPLAYS);
        let Err(e) = got else { panic!("no error") };
        assert_eq!(e.exit_code(), crate::error::exit::OVERLOADED);
        assert!(e.to_string().contains("too busy for fair clocks"), "{e}");
    }

    #[test]
    fn a_stopped_run_plays_nothing_again() {
        let got = replay_machine_late(record(MACHINE_LOAD), &AtomicBool::new(true), ZERO, || {
            panic!("played again after a stop")
        })
        .unwrap();
        assert_eq!(got.reason, MACHINE_LOAD);
    }
}
