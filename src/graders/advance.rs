//! The Advance functionality grader: a bot is run on each position of a course-layout
//! suite (`L/white|black/tests/N.txt` with `.../answers/N.txt`, L in 4..7), its move is
//! judged by the level's rule, and the course's gated mark is computed; a bot that passes
//! every case then plays games against `builtin:grade7` for the game bonus.
//!
//! Rules per level (docs/rules/advance.md): 4 and 7, the answer's board; 5, any move that
//! wins at once; 6, any move of maximal material difference when the answer is one of
//! them (otherwise the answer's board). Where a level's rule and the answer disagree, the
//! answer decides.

use crate::bots::spec::BotSpec;
use crate::bots::{EndInfo, FailureKind, Player, Reply, Setup, open_player_in, spec::Confinement};
use crate::clocks::runqueue::again_while_late;
use crate::engines::advance::{level6_moves, wins_at_once};
use crate::games::advance::{Advance, Move, State, move_to_board, parse_board};
use crate::games::{Game, Side};
use crate::referee::{MatchConfig, play_game};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The levels of a suite, each a folder of its own (`L/`).
pub const LEVELS: [u8; 4] = [4, 5, 6, 7];
/// The sides a case may give the bot, each a folder of a level (`L/white`, `L/black`).
pub const COLOURS: [&str; 2] = ["white", "black"];

/// One position of a suite.
#[derive(Clone, Debug)]
pub struct Case {
    /// The level, 4 to 7: which rule judges the move.
    pub level: u8,
    /// The side the bot plays: `white` or `black`.
    pub colour: &'static str,
    /// The case's file name without `.txt`.
    pub id: String,
    /// The board the bot is given (`tests/N.txt`).
    pub position: State,
    /// The course's board after the expected move (`answers/N.txt`).
    pub answer: State,
}

/// How a case went: `None` passed, else why it failed.
#[derive(Clone, Debug)]
pub struct Verdict {
    /// The case's level, 4 to 7.
    pub level: u8,
    /// The side the bot played: `white` or `black`.
    pub colour: &'static str,
    /// The case's file name without `.txt`.
    pub id: String,
    /// Why the bot's move failed the case; `None` when it passed.
    pub failure: Option<String>,
}

/// A suite as read: its cases, and the level folders it lacks.
#[derive(Clone, Debug, Default)]
pub struct Suite {
    /// Every case found, by level, then colour, then file number.
    pub cases: Vec<Case>,
    /// `(level, colour)` with no `tests` folder.
    pub missing: Vec<(u8, &'static str)>,
}

/// Reads the suite in `dir`; a case whose test or answer is missing or not a board is an
/// error naming the file and line.
pub fn read_suite(dir: &Path) -> Result<Suite, crate::error::Error> {
    use crate::error::Error;
    if !dir.is_dir() {
        return Err(Error::usage(format!(
            "suite folder `{}` does not exist",
            dir.display()
        )));
    }
    let mut suite = Suite::default();
    for level in LEVELS {
        for colour in COLOURS {
            let side = if colour == "white" {
                Side::First
            } else {
                Side::Second
            };
            let tests = dir.join(level.to_string()).join(colour).join("tests");
            let Ok(entries) = std::fs::read_dir(&tests) else {
                suite.missing.push((level, colour));
                continue;
            };
            let mut files: Vec<PathBuf> = entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "txt"))
                .collect();
            // Numeric names in numeric order (2 before 10).
            files.sort_by_key(|p| {
                let stem = p
                    .file_stem()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned();
                (stem.parse::<u64>().unwrap_or(u64::MAX), stem)
            });
            for test in files {
                let name = test.file_name().unwrap_or_default().to_owned();
                let answer = tests.with_file_name("answers").join(&name);
                let read = |path: &Path, side: Side| -> Result<State, Error> {
                    let text =
                        std::fs::read_to_string(path).map_err(|source| Error::Unreadable {
                            path: path.to_path_buf(),
                            source,
                        })?;
                    parse_board(&text, side).map_err(|e| Error::Input {
                        path: path.to_path_buf(),
                        line: e.line,
                        message: e.message,
                    })
                };
                suite.cases.push(Case {
                    level,
                    colour,
                    id: test
                        .file_stem()
                        .unwrap_or_default()
                        .to_string_lossy()
                        .into_owned(),
                    position: read(&test, side)?,
                    answer: read(&answer, side.other())?,
                });
            }
        }
    }
    Ok(suite)
}

fn wire(mv: &Move) -> String {
    Advance.move_to_wire(mv).to_string()
}

fn board_of(state: &State, mv: &Move) -> State {
    state.with_move(mv)
}

/// Judges the move `mv` the bot played in `case`: `None` when it passes.
pub(crate) fn judge(case: &Case, mv: &Move) -> Option<String> {
    let state = &case.position;
    let after = board_of(state, mv);
    let matches_answer = after.rows() == case.answer.rows();
    let expected = match move_to_board(state, &case.answer) {
        Some(a) => format!("the answer {}", wire(&a)),
        None => "the answer's board (which no legal move gives)".into(),
    };
    let me = state.to_move();
    match case.level {
        5 if move_to_board(state, &case.answer).is_some_and(|a| wins_at_once(state, &a)) => {
            (!wins_at_once(state, mv)).then(|| {
                format!(
                    "played {}, which does not win at once; expected a winning move such as {expected}",
                    wire(mv)
                )
            })
        }
        6 => {
            let (best, top) = level6_moves(state);
            let answer_is_best = move_to_board(state, &case.answer).is_some_and(|a| best.contains(&a));
            if answer_is_best {
                let got = after.material_difference(me);
                (!best.contains(mv)).then(|| {
                    format!(
                        "played {} (material difference {got:+}); expected a move of {top:+}, such as {expected}",
                        wire(mv)
                    )
                })
            } else {
                (!matches_answer)
                    .then(|| format!("played {}; expected {expected}", wire(mv)))
            }
        }
        _ => (!matches_answer).then(|| format!("played {}; expected {expected}", wire(mv))),
    }
}

/// Runs the bot `spec` on one case: its move judged, or why it gave none. A run the
/// machine's load left without a move (`clocks::runqueue`) is run again, a second later, up
/// to [`crate::clocks::runqueue::MAX_REPLAYS`] times: the load must not fail a case.
pub fn run_case(
    case: &Case,
    spec: &BotSpec,
    limit: Duration,
    confine: Confinement,
    seed: u64,
) -> Verdict {
    again_while_late(
        || run_case_once(case, spec, limit, confine, seed),
        |(_, machine_late)| *machine_late,
    )
    .0
}

/// One run of [`run_case`], and whether the machine's load left it without a move.
fn run_case_once(
    case: &Case,
    spec: &BotSpec,
    limit: Duration,
    confine: Confinement,
    seed: u64,
) -> (Verdict, bool) {
    let game = Advance;
    let verdict = |failure| Verdict {
        level: case.level,
        colour: case.colour,
        id: case.id.clone(),
        failure,
    };
    let mut player: Box<dyn Player<Advance>> =
        match open_player_in(spec, &game, None, &BTreeMap::new(), confine) {
            Ok(p) => p,
            Err(e) => {
                return (
                    verdict(Some(format!("the bot cannot be seated: {e}"))),
                    false,
                );
            }
        };
    let setup = Setup {
        side: case.position.to_move(),
        move_limit: limit,
        init_limit: limit.max(Duration::from_secs(5)),
        seed,
    };
    if let Err(f) = player.start(&game, &setup) {
        player.finish(&EndInfo {
            result: "loss",
            reason: f.kind.code().into(),
        });
        let failure = format!("{}: {}", f.kind.code(), first_line(&f.detail));
        return (verdict(Some(failure)), f.kind == FailureKind::MachineLoad);
    }
    let turn = player.turn(&game, &case.position);
    let machine_late =
        matches!(&turn.reply, Reply::Failed(f) if f.kind == FailureKind::MachineLoad);
    let failure = match turn.reply {
        _ if turn.elapsed > limit => {
            Some(format!("timeout: no move within {} ms", limit.as_millis()))
        }
        Reply::Checked(mv) => judge(case, &mv),
        Reply::Wire(value) => match game.parse_move(&case.position, &value) {
            Ok(mv) => judge(case, &mv),
            Err(why) => Some(format!("illegal: {why}")),
        },
        Reply::Failed(f) => Some(format!("{}: {}", f.kind.code(), first_line(&f.detail))),
    };
    player.finish(&EndInfo {
        result: "tie",
        reason: "suite".into(),
    });
    (verdict(failure), machine_late)
}

fn first_line(text: &str) -> String {
    crate::record::headline(text).chars().take(200).collect()
}

/// Passed and total cases per level and colour.
pub(crate) type Tally = BTreeMap<u8, BTreeMap<&'static str, [usize; 2]>>;

pub(crate) fn tally(verdicts: &[Verdict]) -> Tally {
    let mut t = Tally::new();
    for v in verdicts {
        let cell = t
            .entry(v.level)
            .or_default()
            .entry(v.colour)
            .or_insert([0, 0]);
        cell[0] += usize::from(v.failure.is_none());
        cell[1] += 1;
    }
    t
}

/// The share of the mark each level carries on the course's scale (percent): level 4
/// 50, level 5 15, levels 6 and 7 10 each.
fn weight(level: u8) -> f64 {
    match level {
        4 => 50.0,
        5 => 15.0,
        _ => 10.0,
    }
}

/// The course's gated functionality mark (percent, before the game bonus): each level
/// counts its share times the fraction of its cases passed, and only while every level
/// before it was passed completely; a level with no cases (missing) counts nothing and
/// stops the gate.
pub(crate) fn functionality_mark(tally: &Tally) -> f64 {
    let mut mark = 0.0;
    for level in LEVELS {
        let (passed, total) = tally.get(&level).map_or((0, 0), |by_colour| {
            by_colour
                .values()
                .fold((0, 0), |(p, t), c| (p + c[0], t + c[1]))
        });
        if total == 0 {
            break;
        }
        mark += weight(level) * passed as f64 / total as f64;
        if passed < total {
            break;
        }
    }
    mark
}

/// The game bonus (percent): each win beyond 30% of the games adds 50% / games (0.5%
/// each for the course's 100 games), at most 15%.
pub(crate) fn game_bonus(games: usize, won: usize) -> f64 {
    if games == 0 {
        return 0.0;
    }
    let threshold = 0.3 * games as f64;
    let beyond = (won as f64 - threshold).max(0.0).floor();
    (beyond * 50.0 / games as f64).min(15.0)
}

/// Whether the bot passed everything (no level missing): the games are played then.
pub(crate) fn all_passed(suite: &Suite, verdicts: &[Verdict]) -> bool {
    suite.missing.is_empty() && !verdicts.is_empty() && verdicts.iter().all(|v| v.failure.is_none())
}

/// Game `i` of the bonus games: the bot's side, and the seed.
pub(crate) fn bonus_game(
    spec: &BotSpec,
    name: &str,
    i: usize,
    limit: Duration,
    confine: Confinement,
    seed: u64,
) -> Result<bool, String> {
    let game = Advance;
    let bot_side = if i.is_multiple_of(2) {
        Side::First
    } else {
        Side::Second
    };
    let mut bot = open_player_in(spec, &game, None, &BTreeMap::new(), confine)?;
    let reference = BotSpec::Builtin("grade7".into());
    let mut grade7 = open_player_in(&reference, &game, None, &BTreeMap::new(), confine)?;
    let config = MatchConfig {
        move_limit: limit,
        init_limit: limit.max(Duration::from_secs(5)),
        seed: seed.wrapping_add(i as u64),
        ..MatchConfig::default()
    };
    let (players, names): ([&mut dyn Player<Advance>; 2], _) = match bot_side {
        Side::First => ([bot.as_mut(), grade7.as_mut()], [name, "grade7"]),
        Side::Second => ([grade7.as_mut(), bot.as_mut()], ["grade7", name]),
    };
    let record = play_game(&game, players, names, &config, &mut |_| {});
    Ok(record.winner.as_deref() == Some(game.role_name(bot_side)))
}

/// The `--json` summary line.
#[derive(Serialize)]
pub(crate) struct Summary {
    pub levels: BTreeMap<String, BTreeMap<String, [usize; 2]>>,
    pub passed: usize,
    pub total: usize,
    pub games: GamesPlayed,
    pub mark: f64,
}

#[derive(Serialize)]
pub(crate) struct GamesPlayed {
    pub played: usize,
    pub won: usize,
}

pub(crate) fn summary(tally: &Tally, played: usize, won: usize) -> Summary {
    let levels = tally
        .iter()
        .map(|(l, by)| {
            let colours = by.iter().map(|(c, v)| (c.to_string(), *v)).collect();
            (l.to_string(), colours)
        })
        .collect();
    let (passed, total) = tally
        .values()
        .flat_map(|by| by.values())
        .fold((0, 0), |(p, t), c| (p + c[0], t + c[1]));
    let mark = functionality_mark(tally) + game_bonus(played, won);
    Summary {
        levels,
        passed,
        total,
        games: GamesPlayed { played, won },
        mark: (mark * 100.0).round() / 100.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A tally of `passed` out of 50 per level (25 per colour, white first).
    fn course(passed: [usize; 4]) -> Tally {
        let mut t = Tally::new();
        for (level, p) in LEVELS.into_iter().zip(passed) {
            let white = p.min(25);
            let by = t.entry(level).or_default();
            by.insert("white", [white, 25]);
            by.insert("black", [p - white, 25]);
        }
        t
    }

    #[test]
    fn the_gated_mark_by_hand() {
        // Level 4 not complete: its percentage, whatever follows.
        assert_eq!(functionality_mark(&course([49, 50, 50, 50])), 49.0);
        assert_eq!(functionality_mark(&course([0, 50, 50, 50])), 0.0);
        // Level 4 complete, level 5 partly: 50 + 0.3 per case.
        assert!((functionality_mark(&course([50, 10, 50, 50])) - 53.0).abs() < 1e-9);
        // Levels 4 and 5 complete, 6 partly: 65 + 0.2 per case; 7 is gated off.
        assert!((functionality_mark(&course([50, 50, 49, 50])) - 74.8).abs() < 1e-9);
        assert!((functionality_mark(&course([50, 50, 50, 20])) - 79.0).abs() < 1e-9);
        assert_eq!(functionality_mark(&course([50, 50, 50, 50])), 85.0);
        // A missing level stops the gate.
        let mut missing = course([50, 50, 50, 50]);
        missing.remove(&5);
        assert_eq!(functionality_mark(&missing), 50.0);
    }

    #[test]
    fn the_game_bonus_by_hand() {
        assert_eq!(game_bonus(100, 30), 0.0);
        assert_eq!(game_bonus(100, 31), 0.5);
        assert_eq!(game_bonus(100, 50), 10.0);
        assert_eq!(game_bonus(100, 61), 15.0, "capped at 100% overall");
        assert_eq!(game_bonus(0, 0), 0.0);
        let s = summary(&course([50, 50, 50, 50]), 100, 40);
        assert_eq!((s.passed, s.total, s.mark), (200, 200, 90.0));
    }
}
