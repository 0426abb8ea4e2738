//! A game of two bot programs on two CPUs (`arbiter::referee::pair`, as `arbiter play` plays
//! one: see also `play::arbiter_play_runs_each_bot_on_a_cpu_of_its_own_unless_spread`): the
//! same game as on one CPU, each bot on a CPU of its own, and a bot on the second CPU that
//! stalls loses by timeout without holding the referee.

use crate::bots_common::*;
use arbiter::bots::process::ProcessPlayer;
use arbiter::bots::spec::CommandSpec;
use arbiter::bots::{BotLog, EndInfo, Failure, Player, Setup, TurnReply};
use arbiter::clocks::placement::Placement;
use arbiter::record::GameRecord;
use arbiter::referee::{MatchConfig, play_game};
use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// The CPUs this process may use, as a bot that is not placed may.
fn own_cpus() -> Vec<usize> {
    let set = rustix::thread::sched_getaffinity(None).expect("affinity");
    (0..rustix::thread::CpuSet::MAX_CPU)
        .filter(|&c| set.is_set(c))
        .collect()
}

/// The CPU sets a bot said it may run on, one line `cpus [..]` a move, from its stderr.
fn cpu_sets(stderr: &str) -> BTreeSet<String> {
    stderr
        .lines()
        .filter_map(|line| line.strip_prefix("cpus "))
        .map(str::to_string)
        .collect()
}

/// Each bot's CPUs, the same at every move it reported.
fn bot_cpus(record: &GameRecord) -> [String; 2] {
    ["rebel", "officer"].map(|role| {
        let sets = cpu_sets(&record.logs[role].stderr);
        assert_eq!(sets.len(), 1, "{role} moved between CPUs: {sets:?}");
        sets.into_iter().next().unwrap()
    })
}

/// A raw-protocol Python bot that plays `[[3,2],[2,2]]` after `pause` seconds from its
/// `stall_from`th move on (never, by default), and says where it may run at each move.
fn where_bot(stall_from: u32, pause: f64) -> (tempfile::TempDir, CommandSpec) {
    py_bot(&format!(
        "import os, sys, time\n\
         lines = os.fdopen(0, 'rb')\n\
         lines.readline()\n\
         os.write(1, b'{{\"type\":\"ready\"}}\\n')\n\
         n = 0\n\
         while True:\n\
         \x20   line = lines.readline()\n\
         \x20   if not line or b'\"end\"' in line:\n\
         \x20       break\n\
         \x20   n += 1\n\
         \x20   sys.stderr.write('cpus %s\\n' % sorted(os.sched_getaffinity(0)))\n\
         \x20   sys.stderr.flush()\n\
         \x20   if n >= {stall_from}:\n\
         \x20       time.sleep({pause})\n\
         \x20   os.write(1, b'{{\"type\":\"move\",\"move\":[[3,2],[2,2]]}}\\n')\n"
    ))
}

/// A process player that is placed as in any game and remembers its process group.
struct Seat {
    inner: ProcessPlayer,
    pgid: Option<i32>,
}

impl Player<Shapes> for Seat {
    fn start(&mut self, game: &Shapes, setup: &Setup) -> Result<Option<String>, Failure> {
        let started = Player::<Shapes>::start(&mut self.inner, game, setup);
        self.pgid = self.inner.process_group();
        started
    }
    fn turn(&mut self, game: &Shapes, state: &ShapesState) -> TurnReply<Vec<(u8, u8)>> {
        Player::<Shapes>::turn(&mut self.inner, game, state)
    }
    fn place(&mut self, placement: &Placement) -> bool {
        Player::<Shapes>::place(&mut self.inner, placement)
    }
    fn finish(&mut self, end: &EndInfo) -> BotLog {
        Player::<Shapes>::finish(&mut self.inner, end)
    }
}

/// A game of two `where_bot`s on two CPUs or one; checks that no process is left.
fn played(two_cpus: bool, officer: (u32, f64), move_ms: u64) -> GameRecord {
    let (_a_dir, a) = where_bot(u32::MAX, 0.0);
    let (_b_dir, b) = where_bot(officer.0, officer.1);
    let seat = |command| Seat {
        inner: ProcessPlayer::new(command),
        pgid: None,
    };
    let (mut a, mut b) = (seat(a), seat(b));
    let config = MatchConfig {
        move_limit: Duration::from_millis(move_ms),
        init_limit: Duration::from_secs(20),
        seed: 5,
        two_cpus,
        ..MatchConfig::default()
    };
    let record = play_game(
        &Shapes { plies: 30 },
        [&mut a, &mut b],
        ["first", "second"],
        &config,
        &mut |_| {},
    );
    for pgid in [a.pgid, b.pgid].into_iter().flatten() {
        assert_group_gone(pgid);
    }
    record
}

/// The same game on two CPUs and on one: the same moves, verdicts and end; on two, the
/// bots named two CPUs, on one, one.
#[test]
fn a_game_on_two_cpus_is_the_same_game_as_on_one() {
    // SAFETY: set before any thread of this test starts; nextest runs each test in a
    // process of its own. The CPU claims are then this test's own.
    let claims = tempfile::tempdir().unwrap();
    unsafe { std::env::set_var("TMPDIR", claims.path()) };
    let all = own_cpus();
    let two = played(true, (u32::MAX, 0.0), 5000);
    let one = played(false, (u32::MAX, 0.0), 5000);
    let summary = |r: &GameRecord| {
        (
            r.winner.clone(),
            r.reason.clone(),
            r.plies,
            r.moves
                .iter()
                .map(|m| (m.side.clone(), m.reply.clone(), m.verdict.clone()))
                .collect::<Vec<_>>(),
        )
    };
    assert_eq!(summary(&two), summary(&one));
    assert_eq!(two.plies, 30);
    let [a, b] = bot_cpus(&one);
    assert_eq!(a, b, "on one CPU");
    let [a, b] = bot_cpus(&two);
    if all.len() >= 2 {
        assert_ne!(a, b, "on two CPUs");
    }
}

/// The bot on the second CPU stalls well past the limit: it loses by timeout, the game
/// ends at once, and nothing of it is left.
#[test]
fn a_stalling_bot_on_the_second_cpu_loses_by_timeout() {
    let claims = tempfile::tempdir().unwrap();
    // SAFETY: as above.
    unsafe { std::env::set_var("TMPDIR", claims.path()) };
    let started = Instant::now();
    let record = played(true, (3, 30.0), 500);
    let took = started.elapsed();
    assert_eq!(record.reason, "timeout", "{:?}", record.detail);
    assert_eq!(record.winner.as_deref(), Some("rebel"));
    // Its third move: plies 0 to 4 played, the sixth timed out.
    assert_eq!(record.plies, 6);
    // And it stalled on the second CPU.
    let [a, b] = bot_cpus(&record);
    if own_cpus().len() >= 2 {
        assert_ne!(a, b, "the game was not played on two CPUs");
    }
    assert!(
        took < Duration::from_secs(20),
        "the game took {took:?} for a 500 ms limit"
    );
}
