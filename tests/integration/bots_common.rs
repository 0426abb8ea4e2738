//! Shared helpers for the bot-layer tests: a tiny game, scripted bots, survivor checks.

#![allow(dead_code)]

use arbiter::bots::process::ProcessPlayer;
use arbiter::bots::spec::CommandSpec;
use arbiter::bots::{BotLog, EndInfo, Failure, Player, Setup, TurnReply};
use arbiter::games::{BoardError, Game, Outcome, ReasonCode, Side};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A stand-in game with Asalto's wire shapes: roles `rebel`/`officer`, a board of 7
/// strings, and a move that is any list of two or more in-range `[row, col]` points.
/// Nothing else matters: it ends in a tie after `plies` turns.
#[derive(Clone, Debug)]
pub struct Shapes {
    pub plies: u32,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ShapesState {
    pub ply: u32,
    pub illegal: [u32; 2],
}

#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("not a list of points")]
pub struct WrongShape;

impl ReasonCode for WrongShape {
    fn code(&self) -> &'static str {
        "wrong_shape"
    }
}

impl Shapes {
    fn after_turn(&self, state: &mut ShapesState) -> Option<Outcome> {
        state.ply += 1;
        (state.ply >= self.plies).then(|| Outcome::tie("round_limit"))
    }
}

impl Game for Shapes {
    type State = ShapesState;
    type Move = Vec<(u8, u8)>;
    type Illegal = WrongShape;

    fn name(&self) -> &'static str {
        "shapes"
    }
    fn roles(&self) -> [&'static str; 2] {
        ["rebel", "officer"]
    }
    fn initial(&self) -> ShapesState {
        ShapesState {
            ply: 0,
            illegal: [0, 0],
        }
    }
    fn parse_board(&self, _text: &str, side: Side) -> Result<ShapesState, BoardError> {
        Ok(ShapesState {
            ply: side.index() as u32,
            illegal: [0, 0],
        })
    }
    fn side_to_move(&self, state: &ShapesState) -> Side {
        if state.ply.is_multiple_of(2) {
            Side::First
        } else {
            Side::Second
        }
    }
    fn legal_moves(&self, _state: &ShapesState, out: &mut Vec<Self::Move>) {
        out.push(vec![(3, 2), (2, 2)]);
    }
    fn parse_move(&self, _state: &ShapesState, reply: &Value) -> Result<Self::Move, WrongShape> {
        let points = reply.as_array().ok_or(WrongShape)?;
        if points.len() < 2 {
            return Err(WrongShape);
        }
        points
            .iter()
            .map(|p| match p.as_array().map(Vec::as_slice) {
                Some([r, c]) => match (r.as_u64(), c.as_u64()) {
                    (Some(r), Some(c)) if r < 7 && c < 7 => Ok((r as u8, c as u8)),
                    _ => Err(WrongShape),
                },
                _ => Err(WrongShape),
            })
            .collect()
    }
    fn move_to_wire(&self, mv: &Self::Move) -> Value {
        json!(mv.iter().map(|&(r, c)| [r, c]).collect::<Vec<_>>())
    }
    fn play(&self, state: &mut ShapesState, _mv: &Self::Move) -> Option<Outcome> {
        self.after_turn(state)
    }
    fn play_illegal(&self, state: &mut ShapesState, _why: &WrongShape) -> Option<Outcome> {
        let side = self.side_to_move(state).index();
        state.illegal[side] += 1;
        self.after_turn(state)
    }
    fn encode_board(&self, _state: &ShapesState) -> Value {
        json!([
            "  ...  ", "  O.O  ", "RR...RR", "RRRRRRR", "RRRRRRR", "  RRR  ", "  RRR  "
        ])
    }
    fn turn_fields(&self, state: &ShapesState) -> Map<String, Value> {
        let mut fields = Map::new();
        fields.insert("ply".into(), json!(state.ply));
        fields.insert(
            "illegal".into(),
            json!({"rebel": state.illegal[0], "officer": state.illegal[1]}),
        );
        fields
    }
    fn render(&self, state: &ShapesState) -> String {
        format!("ply {}", state.ply)
    }
}

pub fn setup(side: Side, move_ms: u64, init_ms: u64) -> Setup {
    Setup {
        side,
        move_limit: Duration::from_millis(move_ms),
        init_limit: Duration::from_millis(init_ms),
        seed: 7,
    }
}

pub fn end() -> EndInfo {
    EndInfo {
        result: "tie",
        reason: "round_limit".into(),
    }
}

/// A shell-script bot in a fresh temporary folder (kept alive by the returned guard).
pub fn sh_bot(body: &str) -> (tempfile::TempDir, CommandSpec) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bot.sh");
    std::fs::write(&path, body).expect("write bot");
    let command = CommandSpec::new("sh").arg(path.to_string_lossy().into_owned());
    (dir, command)
}

/// A raw-protocol Python bot in a fresh temporary folder.
pub fn py_bot(body: &str) -> (tempfile::TempDir, CommandSpec) {
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("bot.py");
    std::fs::write(&path, body).expect("write bot");
    let command = CommandSpec::new("python3")
        .arg("-u")
        .arg(path.to_string_lossy().into_owned());
    (dir, command)
}

/// The repository's bots/python folder.
pub fn python_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("bots/python")
}

/// Every process whose process group is `pgid`, zombies included.
pub fn group_members(pgid: i32) -> Vec<i32> {
    let mut found = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // Fields after the parenthesised command name: state ppid pgrp ...
        let Some(rest) = stat.rfind(')').map(|i| &stat[i + 1..]) else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        if fields.get(2).and_then(|s| s.parse::<i32>().ok()) == Some(pgid) {
            found.push(pid);
        }
    }
    found
}

/// Every process whose command line contains `marker`, zombies included.
pub fn processes_with(marker: &str) -> Vec<i32> {
    let mut found = Vec::new();
    let me = std::process::id() as i32;
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return found;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        if pid == me {
            continue;
        }
        let Ok(cmdline) = std::fs::read(format!("/proc/{pid}/cmdline")) else {
            continue;
        };
        if String::from_utf8_lossy(&cmdline).contains(marker) {
            found.push(pid);
        }
    }
    found
}

/// The processes of group `pgid` still alive, or dead but left unreaped by this process.
/// A killed grandchild is reparented to init, whose reaping is out of our hands (and can
/// lag under load): as a zombie it is dead, so it does not count.
pub fn survivors(pgid: i32) -> Vec<String> {
    let me = std::process::id().to_string();
    group_members(pgid)
        .into_iter()
        .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/stat")).ok())
        .filter(|stat| {
            let rest = stat.rfind(')').map_or("", |i| &stat[i + 1..]);
            let fields: Vec<&str> = rest.split_whitespace().collect();
            let zombie = fields.first() == Some(&"Z");
            let ours = fields.get(1) == Some(&me.as_str());
            !zombie || ours
        })
        .collect()
}

/// Asserts that nothing of the group is left (give the kernel a moment to tear it down).
pub fn assert_group_gone(pgid: i32) {
    for _ in 0..50 {
        if survivors(pgid).is_empty() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("processes of group {pgid} survived: {:?}", survivors(pgid));
}

/// Asserts that no live process's command line contains `marker` (waiting a moment for
/// the kernel to tear a killed group down).
pub fn assert_no_process_with(marker: &str) {
    let live = || -> Vec<String> {
        processes_with(marker)
            .into_iter()
            .filter_map(|pid| std::fs::read_to_string(format!("/proc/{pid}/stat")).ok())
            .filter(|stat| !stat.contains(") Z "))
            .collect()
    };
    for _ in 0..50 {
        if live().is_empty() {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("processes naming {marker} survived: {:?}", live());
}

/// A process player that remembers its process group, for survivor checks after a game.
pub struct Watched {
    pub inner: ProcessPlayer,
    pub pgid: Arc<Mutex<Option<i32>>>,
}

impl Watched {
    pub fn new(command: CommandSpec) -> (Self, Arc<Mutex<Option<i32>>>) {
        let pgid = Arc::new(Mutex::new(None));
        (
            Watched {
                inner: ProcessPlayer::new(command),
                pgid: pgid.clone(),
            },
            pgid,
        )
    }
}

impl<G: Game> Player<G> for Watched {
    fn start(&mut self, game: &G, setup: &Setup) -> Result<Option<String>, Failure> {
        let result = Player::<G>::start(&mut self.inner, game, setup);
        *self.pgid.lock().unwrap() = self.inner.process_group();
        result
    }
    fn turn(&mut self, game: &G, state: &G::State) -> TurnReply<G::Move> {
        Player::<G>::turn(&mut self.inner, game, state)
    }
    fn finish(&mut self, end: &EndInfo) -> BotLog {
        Player::<G>::finish(&mut self.inner, end)
    }
}
