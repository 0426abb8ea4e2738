//! Replays of journal records: every game of every kind, played by built-in bots (and by
//! bots that send illegal replies and fail), replays to the record's own last board, and
//! the views change where the record says a move was played.

use crate::common::*;
use arbiter::bots::{EndInfo, Failure, FailureKind, Player, Reply, Setup, TurnReply};
use arbiter::engines::Builtins;
use arbiter::games::Game;
use arbiter::games::asalto::Asalto;
use arbiter::games::gomoku::Gomoku;
use arbiter::record::GameRecord;
use arbiter::referee::{MatchConfig, play_game};
use arbiter::report::replay::{OPENING, Replay, for_each_replay, replay};
use arbiter::tournament::journal::{JOURNAL_FILE, for_each_record};
use std::path::{Path, PathBuf};

/// Plays a league of built-in bots into `dir/NAME` and returns the folder.
pub(crate) fn builtin_league(dir: &Path, game: &str, extra: &[&str], bots: &[&str]) -> PathBuf {
    let out = dir.join(game);
    let (code, _, stderr) = run(arbiter()
        .args(["league", "--game", game, "--limit-ms", "2000", "--out"])
        .arg(&out)
        .args(extra)
        .args(bots));
    assert_eq!(code, 0, "the {game} league failed: {stderr}");
    out
}

/// Every replay of a tournament folder, with its record, in journal order.
pub(crate) fn replays_of(dir: &Path) -> Vec<(u64, GameRecord, Replay)> {
    let journal = dir.join(JOURNAL_FILE);
    let plan = for_each_record(&journal, |_, _| Ok(())).expect("the journal reads");
    let mut out = Vec::new();
    for_each_replay(&plan, &journal, |id, record, replayed| {
        let replay = replayed.unwrap_or_else(|e| panic!("game {id} does not replay: {e}"));
        out.push((id, record.clone(), replay));
        Ok(())
    })
    .expect("every record is read");
    out
}

/// What must hold of any replay, checked against the record alone.
fn check_against_record(id: u64, record: &GameRecord, replay: &Replay) {
    let opening_plies = replay.plies.iter().filter(|p| p.verdict == OPENING).count();
    assert_eq!(
        replay.plies.len(),
        opening_plies + record.moves.len(),
        "game {id}: one ply per opening move and per recorded turn"
    );
    assert_eq!(
        replay.views.len(),
        replay.plies.len() + 1,
        "game {id}: a view before the first ply and after each"
    );
    for (i, ply) in replay.plies.iter().enumerate() {
        if ply.verdict == "move" || ply.verdict == OPENING {
            assert_ne!(
                replay.views[i].cells,
                replay.views[i + 1].cells,
                "game {id}: ply {} ({} {}) is a move, yet the board did not change",
                i + 1,
                ply.side,
                ply.reply
            );
        }
        if ply.verdict == "failed" {
            assert_eq!(
                replay.views[i],
                replay.views[i + 1],
                "game {id}: a failure changes nothing"
            );
        }
    }
}

#[test]
fn every_game_of_every_kind_replays_to_its_final_board() {
    let dir = tempfile::tempdir().unwrap();
    let leagues: [(&str, &[&str], &[&str]); 5] = [
        (
            "asalto",
            &["--pairs", "3", "--round-limit", "60"],
            &["builtin:random", "builtin:greedy"],
        ),
        (
            "gomoku",
            &["--pairs", "4"],
            &["builtin:random", "builtin:greedy"],
        ),
        (
            "hinger",
            &["--pairs", "4", "--rows", "4", "--cols", "5"],
            &["builtin:random", "builtin:greedy"],
        ),
        (
            "advance",
            &["--pairs", "2"],
            &["builtin:random", "builtin:greedy"],
        ),
        (
            "battle",
            &["--pairs", "4"],
            &["builtin:random", "builtin:greedy"],
        ),
    ];
    for (game, extra, bots) in leagues {
        let out = builtin_league(dir.path(), game, extra, bots);
        let replays = replays_of(&out);
        assert!(
            replays.len() >= 4,
            "{game}: only {} games were replayed",
            replays.len()
        );
        let mut kinds = std::collections::BTreeSet::new();
        for (id, record, replay) in &replays {
            check_against_record(*id, record, replay);
            for view in &replay.views {
                assert_eq!(
                    view.cells.len(),
                    view.rows * view.cols,
                    "{game} game {id}: a view is a whole grid"
                );
                kinds.extend(view.cells.iter().map(|c| c.kind));
            }
        }
        // Each game draws itself: none falls back to the text view of its rendering.
        assert!(
            !kinds.contains("text"),
            "{game} is drawn from its text rendering: {kinds:?}"
        );
    }
}

#[test]
fn a_record_that_does_not_match_its_moves_is_caught_at_the_ply_that_disagrees() {
    let dir = tempfile::tempdir().unwrap();
    let out = builtin_league(
        dir.path(),
        "gomoku",
        &["--pairs", "1"],
        &["builtin:random", "builtin:greedy"],
    );
    let (_, mut record, _) = replays_of(&out).remove(0);
    let game = Gomoku;
    assert!(replay(&game, &record).is_ok());

    let mut wrong_end = record.clone();
    wrong_end.final_board = game.encode_board(&game.initial());
    let err = replay(&game, &wrong_end).expect_err("another last board is caught");
    assert_eq!(err.ply, wrong_end.moves.len(), "{err}");

    // The third turn replays a cell already taken.
    let taken = record.moves[0].reply.clone();
    record.moves[2].reply = taken;
    let err = replay(&game, &record).expect_err("a refused move is caught");
    assert_eq!(err.ply, 2, "{err}");
    assert!(err.message.contains("refuse"), "{err}");
}

/// A reply a test bot sends instead of its engine's, when it gives one.
type Prefer<G> = fn(&G, &<G as Game>::State) -> Option<serde_json::Value>;

/// A built-in engine that sends `bad` instead of its move on the turns listed, and fails
/// (a timeout) on turn `fail_on`: bots misbehaving as the referee records them.
struct Unruly<G: Game> {
    inner: Box<dyn Player<G>>,
    bad_on: Vec<u32>,
    fail_on: Option<u32>,
    /// A reply sent instead of the engine's whenever it gives one.
    prefer: Option<Prefer<G>>,
    turns: u32,
}

impl<G: Game> Player<G> for Unruly<G> {
    fn start(&mut self, game: &G, setup: &Setup) -> Result<Option<String>, Failure> {
        self.inner.start(game, setup)
    }
    fn turn(&mut self, game: &G, state: &G::State) -> TurnReply<G::Move> {
        self.turns += 1;
        let mut turn = self.inner.turn(game, state);
        if self.fail_on == Some(self.turns) {
            turn.reply = Reply::Failed(Failure::new(FailureKind::Timeout, "too slow"));
        } else if self.bad_on.contains(&self.turns) {
            turn.reply = Reply::Wire(serde_json::json!([[9, 9], [9, 8]]));
        } else if let Some(reply) = self.prefer.and_then(|prefer| prefer(game, state)) {
            turn.reply = Reply::Wire(reply);
        }
        turn
    }
    fn finish(&mut self, end: &EndInfo) -> arbiter::bots::BotLog {
        self.inner.finish(end)
    }
}

fn unruly<G: Builtins>(game: &G, bad_on: &[u32], fail_on: Option<u32>) -> Unruly<G> {
    let engine = game.builtin("random", 5).expect("random exists");
    Unruly {
        inner: Box::new(arbiter::bots::inprocess::InProcess::new("random", engine)),
        bad_on: bad_on.to_vec(),
        fail_on,
        prefer: None,
        turns: 0,
    }
}

/// An officer's plain step while a capture is on the board: a huff.
fn huffing_step(game: &Asalto, state: &arbiter::games::asalto::State) -> Option<serde_json::Value> {
    use arbiter::games::asalto::board::{points, step};
    points(state.officers()).find_map(|from| {
        (0..8).find_map(|d| {
            let to = step(from, d)?;
            let wire = serde_json::json!([[from.row(), from.col()], [to.row(), to.col()]]);
            let mv = game.parse_move(state, &wire).ok()?;
            (game.move_kind(&mv) == "huff").then_some(wire)
        })
    })
}

/// An Asalto game whose rebel sends illegal replies on its turns 2 and 5, and whose
/// officer sends one on turn 3, huffs whenever it can (with `huff`), and fails (a timeout)
/// on turn `6 + seed`. Even seeds start with a one-move opening.
pub(crate) fn unruly_asalto_game(seed: u64, huff: bool) -> GameRecord {
    let game = Asalto { round_limit: 200 };
    let mut rebel = unruly(&game, &[2, 5], None);
    let mut officer = unruly(&game, &[3], Some(6 + seed as u32));
    if huff {
        officer.prefer = Some(huffing_step);
    }
    let config = MatchConfig {
        seed,
        opening: if seed.is_multiple_of(2) {
            vec![serde_json::json!([[3, 2], [2, 2]])]
        } else {
            Vec::new()
        },
        ..MatchConfig::default()
    };
    play_game(
        &game,
        [&mut rebel, &mut officer],
        ["rebel", "officer"],
        &config,
        &mut |_| {},
    )
}

#[test]
fn illegal_replies_huffs_and_failures_replay_as_the_referee_applied_them() {
    let game = Asalto { round_limit: 200 };
    let mut saw = std::collections::BTreeSet::new();
    for seed in 0..12u64 {
        let record = unruly_asalto_game(seed, seed % 3 == 0);
        let replayed = replay(&game, &record)
            .unwrap_or_else(|e| panic!("seed {seed}: the game does not replay: {e}"));
        check_against_record(seed, &record, &replayed);
        for (i, ply) in replayed.plies.iter().enumerate() {
            saw.insert(ply.verdict.clone());
            if ply.verdict == "huff" {
                assert_ne!(
                    replayed.views[i].cells,
                    replayed.views[i + 1].cells,
                    "a huff removes an officer"
                );
            }
            if ply.verdict == "illegal" {
                // Asalto: the turn is lost, the board stays, the count goes up.
                assert_eq!(replayed.views[i].cells, replayed.views[i + 1].cells);
                assert_ne!(replayed.views[i].caption, replayed.views[i + 1].caption);
            }
        }
    }
    for verdict in ["illegal", "failed", "huff", "move", OPENING] {
        assert!(
            saw.contains(verdict),
            "no {verdict} ply was replayed: {saw:?}"
        );
    }

    // Gomoku: an illegal reply ends the game, and the replay ends there too.
    let mut white = unruly(&Gomoku, &[3], None);
    let mut black = unruly(&Gomoku, &[], None);
    let record = play_game(
        &Gomoku,
        [&mut white, &mut black],
        ["white", "black"],
        &MatchConfig::default(),
        &mut |_| {},
    );
    let replayed = replay(&Gomoku, &record).expect("the game replays");
    assert_eq!(
        replayed.plies.last().map(|p| p.verdict.as_str()),
        Some("illegal")
    );
    assert_eq!(
        replayed.plies.len(),
        5,
        "white's third turn is the fifth ply"
    );
}
