//! The record of one game: what the referee saw, in a form every later stage reads.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// A finished game. Role-keyed maps use the game's role names (`rebel`, `officer`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    /// The game's name (`asalto`).
    pub game: String,
    /// Role names in move order.
    pub roles: Vec<String>,
    /// Bot name per role.
    pub players: BTreeMap<String, String>,
    /// The winning role, `None` for a tie.
    pub winner: Option<String>,
    /// snake_case: a rule ending (`fortress_full`) or a bot failure (`timeout`, `crash`).
    pub reason: String,
    /// More about a failure ending (the timeout's limit, the exception's traceback tail).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// Rounds begun: a round is a turn of each side.
    pub rounds: u32,
    /// Turns taken, including lost ones.
    pub plies: u32,
    /// Illegal replies per role.
    pub illegal: BTreeMap<String, u32>,
    /// The game's seed: each bot is told a seed derived from it, distinct per seat.
    pub seed: u64,
    /// The start number (games whose leagues vary the start, like Hinger's boards).
    #[serde(default)]
    pub start: u64,
    /// The board the game started from, in the protocol's encoding.
    #[serde(default)]
    pub start_board: Value,
    /// The opening: for a game whose openings are moves, the moves the referee played
    /// from `start_board` before the bots were asked (`[]`: none; `moves` follow it); for
    /// a game whose openings are its start boards (Hinger), that board. `null` in records
    /// written before openings existed.
    #[serde(default)]
    pub opening: Value,
    /// Every turn after the opening, in the order played.
    pub moves: Vec<MoveRecord>,
    /// The board when the game ended, in the protocol's encoding.
    pub final_board: Value,
    /// Per role: the bot's stderr tail and skipped stdout chatter (bounded).
    #[serde(default)]
    pub logs: BTreeMap<String, BotLogRecord>,
    /// What the machine's load did to the game: nothing on a quiet machine (and in records
    /// written before it was kept).
    #[serde(default, skip_serializing_if = "MachineLoad::is_empty")]
    pub machine: MachineLoad,
    /// The game's wall time in milliseconds, kept to the microsecond: from its first turn
    /// (both bots started and handshaken, the opening played) to its last turn's verdict,
    /// so neither the bots' start-up nor their exit counts; 0 for a game that ended before
    /// its first turn (a failed start). `None` in records written before it was kept.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<f64>,
}

/// What the machine's load did to a game (`clocks::runqueue`): moves whose clock gave back
/// the time other programs kept their bot from running, and earlier plays of the game
/// that the load left without a result.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MachineLoad {
    /// Moves that ran past the limit in wall time but not in the bot's own time.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub waited: Vec<Waited>,
    /// Why each earlier play of the game was dropped before it was played again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replayed: Vec<String>,
}

impl MachineLoad {
    /// Whether the load left nothing to tell: no move was given time back, no play was dropped.
    pub fn is_empty(&self) -> bool {
        self.waited.is_empty() && self.replayed.is_empty()
    }
}

/// A move whose clock gave back time its bot waited for a CPU.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Waited {
    /// The move's ply, as in [`MoveRecord::ply`].
    pub ply: u32,
    /// The mover's role.
    pub side: String,
    /// The time given back, in milliseconds; the move's `time_ms` is what was left.
    pub waited_ms: f64,
}

/// One turn after the opening: what the mover replied and how the referee judged it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveRecord {
    /// Plies played before this turn, the opening's included (0 for the game's first ply).
    pub ply: u32,
    /// The mover's role.
    pub side: String,
    /// What the bot sent (`null` for a failure).
    pub reply: Value,
    /// `move`, a game-specific kind (`huff`), `illegal` or `failed`.
    pub verdict: String,
    /// The illegal-move or failure reason code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Time charged for the reply, in milliseconds: wall time less any CPU wait given back.
    pub time_ms: f64,
}

/// What one bot left besides its moves, each text kept to its last 64 KiB.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BotLogRecord {
    /// The name the bot gave for itself (the `ready` message's `name`), if it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub announced_name: Option<String>,
    /// The tail of the bot's stderr: a course bot's prints and tracebacks end up here.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub stderr: String,
    /// Stdout lines that were not protocol messages, skipped by the referee.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub chatter: String,
}

impl GameRecord {
    /// The winning bot's name, if any.
    pub fn winner_name(&self) -> Option<&str> {
        self.winner
            .as_ref()
            .and_then(|role| self.players.get(role))
            .map(String::as_str)
    }
}

/// The few numbers of a game that tables need, without its moves. A league keeps one per
/// game in memory, so the texts games have in common (names, roles, reasons, openings)
/// are [`Shared`]: held once however many games name them, each summary holding a thin
/// pointer.
#[derive(Clone, Debug, PartialEq)]
pub struct GameSummary {
    /// The scheduled id.
    pub id: u64,
    /// Bot names in move order.
    pub players: [Shared; 2],
    /// Role names in move order.
    pub roles: [Shared; 2],
    /// Index into `players` of the winner; `None` for a tie.
    pub winner: Option<usize>,
    /// The game's end reason, as in [`GameRecord::reason`].
    pub reason: Shared,
    /// Rounds begun, the opening's included.
    pub rounds: u32,
    /// Illegal replies per seat: the course's count, blocked turns included.
    pub illegal: [u32; 2],
    /// Of those, the turns on which the seat had no legal move at all.
    pub blocked: [u32; 2],
    /// Per seat, over its turns.
    pub max_ms: [f64; 2],
    /// Per seat, the mean time of its moves in milliseconds (0 for a seat never asked).
    pub mean_ms: [f64; 2],
    /// The game's seed, as in [`GameRecord::seed`].
    pub seed: u64,
    /// Why the game ended that way, in one short line ([`short_detail`]); empty for a
    /// game that ended by the rules alone.
    pub detail: Shared,
    /// The pair: shared by the two games of a role-swapped pair (the record's `start`).
    pub pair: u64,
    /// The opening as compact JSON (`[]` for the standard start).
    pub opening: Shared,
    /// A digest of the start, the opening and every reply: two games with the same one
    /// were played move for move alike.
    pub replay: [u8; 12],
    /// What the machine's load did to the game, counted.
    pub machine: MachineCounts,
    /// The game's wall time in milliseconds ([`GameRecord::duration_ms`]); `None` for a
    /// game journaled before it was kept.
    pub duration_ms: Option<f64>,
}

/// What the machine's load did to one game ([`MachineLoad`]), counted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MachineCounts {
    /// Earlier plays dropped before the game was played again.
    pub replays: u32,
    /// Moves timed without the time their bot waited for a CPU.
    pub waited: u32,
}

/// A text many game summaries hold: an `Arc<String>` rather than an `Arc<str>` because
/// its pointer is half the size (8 bytes), which counts in a league of 100,000 games.
pub type Shared = Arc<String>;

/// `text` as a [`Shared`] text, the same one as every earlier call's for that text: the
/// few distinct names, roles and reasons of a league are held once, not once per game.
pub fn shared(text: &str) -> Shared {
    static TEXTS: std::sync::OnceLock<std::sync::Mutex<std::collections::HashSet<Shared>>> =
        std::sync::OnceLock::new();
    let mut texts = TEXTS
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let text = text.to_string();
    if let Some(known) = texts.get(&text) {
        return known.clone();
    }
    let new = Arc::new(text);
    texts.insert(new.clone());
    new
}

/// A text of one game or one pair (an opening, a failure's detail) as a [`Shared`] text
/// of its own: [`shared`] keeps every text it is given for as long as the program runs,
/// which for texts that differ from pair to pair would grow with the league. The empty
/// text and the standard start, which most games have, are shared.
pub fn own(text: String) -> Shared {
    match text.as_str() {
        "" | "[]" => shared(&text),
        _ => Arc::new(text),
    }
}

/// How a bot's own failure ended a game, for the per-bot counts of the standings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// No reply within the move or start-up limit.
    Timeout,
    /// An exception, a crash, a protocol error, a failed start or a broken resource limit.
    Error,
}

impl Fault {
    /// The fault behind a game's end reason, if the reason is a bot failure.
    pub fn of_reason(reason: &str) -> Option<Fault> {
        match reason {
            "timeout" => Some(Fault::Timeout),
            "crash" | "exception" | "spawn_failed" | "protocol_error" | "memory" | "cpu"
            | "file_size" | BOTH_FAILED => Some(Fault::Error),
            _ => None,
        }
    }
}

impl GameSummary {
    /// The summary of `record`, the game scheduled as `id`.
    pub fn of(id: u64, record: &GameRecord) -> GameSummary {
        let role = |i: usize| record.roles.get(i).map_or("", String::as_str);
        let roles = [role(0), role(1)];
        let name = |r: &str| shared(record.players.get(r).map_or("", String::as_str));
        let mut max_ms = [0.0f64; 2];
        let mut sum_ms = [0.0f64; 2];
        let mut asked = [0u32; 2];
        let mut blocked = [0u32; 2];
        for mv in &record.moves {
            if let Some(seat) = roles.iter().position(|r| *r == mv.side) {
                if mv.reason.as_deref() == Some(NO_LEGAL_MOVE) {
                    blocked[seat] += 1;
                }
                max_ms[seat] = max_ms[seat].max(mv.time_ms);
                sum_ms[seat] += mv.time_ms;
                asked[seat] += 1;
            }
        }
        let mean_ms = [0, 1].map(|i| {
            if asked[i] == 0 {
                0.0
            } else {
                sum_ms[i] / asked[i] as f64
            }
        });
        GameSummary {
            id,
            players: [name(roles[0]), name(roles[1])],
            winner: record
                .winner
                .as_ref()
                .and_then(|w| roles.iter().position(|r| r == w)),
            illegal: [0, 1].map(|i| record.illegal.get(roles[i]).copied().unwrap_or(0)),
            blocked,
            roles: roles.map(shared),
            reason: shared(&record.reason),
            rounds: record.rounds,
            max_ms,
            mean_ms,
            seed: record.seed,
            detail: own(short_detail(record)),
            pair: record.start,
            opening: match &record.opening {
                Value::Null => shared("[]"),
                opening => own(opening.to_string()),
            },
            replay: replay_digest(record),
            machine: MachineCounts {
                replays: record.machine.replayed.len() as u32,
                waited: record.machine.waited.len() as u32,
            },
            duration_ms: record.duration_ms,
        }
    }

    /// The illegal replies of `seat` that the rules refused: its course count without its
    /// blocked turns.
    pub fn refused(&self, seat: usize) -> u32 {
        self.illegal[seat].saturating_sub(self.blocked[seat])
    }

    /// Whether both bots failed (at the start): a loss for each, which scores no points
    /// and says nothing about which is the stronger.
    pub fn both_lost(&self) -> bool {
        self.winner.is_none() && self.reason.as_str() == BOTH_FAILED
    }

    /// The seats whose own failure ended the game: the loser's, or both after
    /// `both_failed`.
    pub fn faults(&self) -> Vec<(usize, Fault)> {
        let Some(fault) = Fault::of_reason(&self.reason) else {
            return Vec::new();
        };
        match self.winner {
            Some(w) => vec![(1 - w, fault)],
            None => vec![(0, fault), (1, fault)],
        }
    }
}

/// The reason code of an illegal reply from a side that had no legal move: a blocked turn,
/// counted apart from real illegal moves in the outputs (the course counts both alike).
pub const NO_LEGAL_MOVE: &str = "no_legal_move";

/// The reason of a game both bots lost by failing at once.
pub const BOTH_FAILED: &str = "both_failed";

/// The detail of a game both bots lost: a first line naming each failure in one short
/// line (`rebel exception: SyntaxError: ... (Team03.py, line 3); officer spawn_failed:
/// ...`), then each failure as the referee saw it.
pub fn both_failed_detail(failures: [(&str, &str, &str); 2]) -> String {
    let short = |detail: &str| {
        exception_line(detail).unwrap_or_else(|| headline(detail).replace("; ", ", "))
    };
    let [(r1, k1, d1), (r2, k2, d2)] = failures;
    format!(
        "{r1} {k1}: {}; {r2} {k2}: {}\n\n{r1}: {d1}\n\n{r2}: {d2}",
        short(d1),
        short(d2)
    )
}

/// One side's failure in a `both_failed` game's short detail: its code and its line.
pub fn both_failed_part<'a>(detail: &'a str, role: &str) -> Option<(&'a str, &'a str)> {
    let first = detail.lines().next()?;
    let prefix = format!("{role} ");
    first
        .split("; ")
        .find_map(|part| part.strip_prefix(prefix.as_str()))
        .and_then(|rest| rest.split_once(": "))
}

/// A digest of what makes a game the game it was: its start, its opening and the replies
/// of each turn, in order (not the times, seeds or bot logs).
fn replay_digest(record: &GameRecord) -> [u8; 12] {
    use sha2::{Digest, Sha256};
    let replies: Vec<(&str, &Value, &str)> = record
        .moves
        .iter()
        .map(|m| (m.side.as_str(), &m.reply, m.verdict.as_str()))
        .collect();
    // The JSON text of `[start_board, opening, replies]`, written straight from the
    // record: building it as a `Value` first would copy every reply (most of a league's
    // cost per game with fast bots).
    let text = serde_json::to_vec(&(&record.start_board, &record.opening, &replies))
        .expect("JSON values always serialize");
    let hash = Sha256::digest(&text);
    let mut digest = [0; 12];
    digest.copy_from_slice(&hash[..12]);
    digest
}

/// The longest [`short_detail`], in characters: it must fit a table cell and a line.
pub(crate) const DETAIL_CHARS: usize = 160;

/// Why a game ended as it did, in one short line: for an exception, its type and message
/// with the file and line of the bot's frame that raised it; for a failed start, a
/// timeout or a crash, the first line of what the referee saw; for a game lost by an
/// illegal move, the move and why it is illegal. Empty when the rules alone ended it.
pub fn short_detail(record: &GameRecord) -> String {
    let line = match &record.detail {
        // Its first line names both failures, one short line each.
        Some(detail) if record.reason == BOTH_FAILED => {
            detail.lines().next().unwrap_or_default().to_string()
        }
        Some(detail) => exception_line(detail).unwrap_or_else(|| headline(detail)),
        None => match record.moves.last() {
            Some(last) if last.verdict == "illegal" && record.reason.starts_with("illegal") => {
                format!(
                    "{} played {}: {}",
                    last.side,
                    last.reply,
                    last.reason.as_deref().unwrap_or("illegal")
                )
            }
            _ => String::new(),
        },
    };
    shorten(&line)
}

/// The line that says what a failure's `detail` is about, when it is no exception: its
/// first line, and when that line only announces what follows (it ends with `:`), the
/// line it announces beside it: the last of a stderr tail (where a program's last word
/// is), else the first after it (javac's first error).
pub fn headline(detail: &str) -> String {
    let mut lines = detail.lines().map(str::trim).filter(|l| !l.is_empty());
    let first = lines.next().unwrap_or_default();
    let Some(announcing) = first.strip_suffix(':') else {
        return first.to_string();
    };
    let announced = match first.ends_with("stderr tail:") {
        true => lines.next_back(),
        false => lines.next(),
    };
    match announced {
        Some(line) => format!("{first} {line}"),
        None => announcing.to_string(),
    }
}

/// Python exceptions that mean a bot's code could not be loaded at all.
const LOAD_ERRORS: [&str; 5] = [
    "ImportError",
    "ModuleNotFoundError",
    "SyntaxError",
    "IndentationError",
    "TabError",
];

/// A bot's failure in a teacher's and a student's words: `reason` is the record's code
/// (`exception`, `timeout`, ...), `detail` its one line (a game's detail, a check's
/// error). The one wording of failures in marks, feedback and the report's problems.
pub fn failure_words(reason: &str, detail: &str) -> String {
    let loads = LOAD_ERRORS.iter().any(|e| detail.starts_with(e));
    let what = match reason {
        "spawn_failed" => "could not start",
        "exception" if loads => "could not start",
        "exception" => "raised an exception",
        "timeout" => "ran out of time",
        "crash" => "crashed",
        "protocol_error" => "broke the protocol",
        "memory" => "went over the memory limit",
        "cpu" => "used up its CPU time",
        "file_size" => "wrote a file over the size limit",
        "bad_output" => "left no valid answer",
        BOTH_FAILED => "failed, and so did its opponent",
        other if other.contains("illegal") => "played an illegal move",
        other => other,
    };
    if detail.is_empty() {
        what.to_string()
    } else {
        format!("{what}: {detail}")
    }
}

/// `Type: message (file, line N)` when `detail` is a Python traceback or a Java stack
/// trace; `None` for anything else.
pub fn exception_line(detail: &str) -> Option<String> {
    if detail.contains("Traceback (most recent call last)") {
        Some(python_exception_line(detail))
    } else if detail.contains("\n\tat ") {
        Some(java_exception_line(detail))
    } else {
        None
    }
}

/// `Type: message (file.py, line N)` from a Python traceback, naming the innermost frame
/// that is the bot's own file (not the adapter's `<string>` nor the import machinery).
fn python_exception_line(traceback: &str) -> String {
    let lines: Vec<&str> = traceback.lines().collect();
    let message = lines
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    let frame = lines.iter().rev().find_map(|l| {
        let rest = l.trim().strip_prefix("File \"")?;
        let (file, after) = rest.split_once('"')?;
        if file.starts_with('<') {
            return None;
        }
        let line = after
            .trim_start_matches(", line ")
            .split(|c: char| !c.is_ascii_digit())
            .next()
            .filter(|n| !n.is_empty())?;
        let name = std::path::Path::new(file)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| file.to_string());
        Some(format!("{name}, line {line}"))
    });
    match frame {
        Some(frame) => format!("{message} ({frame})"),
        None => message.to_string(),
    }
}

/// `Type: message (File.java, line N)` from a Java stack trace, naming the top frame
/// that is neither the JDK's nor the driver's.
fn java_exception_line(trace: &str) -> String {
    let message = trace.lines().next().unwrap_or_default().trim();
    let frame = trace.lines().find_map(|l| {
        let frame = l.trim().strip_prefix("at ")?;
        if frame.starts_with("java.") || frame.contains('/') || frame.starts_with("ArbiterDriver") {
            return None;
        }
        let (file, line) = frame
            .rsplit_once('(')?
            .1
            .strip_suffix(')')?
            .split_once(':')?;
        Some(format!("{file}, line {line}"))
    });
    match frame {
        Some(frame) => format!("{message} ({frame})"),
        None => message.to_string(),
    }
}

/// A line cut to [`DETAIL_CHARS`] keeping what identifies the failure: each long path
/// first loses its middle folders (`/usr/.../python3`, `'/tmp/.../nothere.py'`), keeping
/// the file's name; a line still too long loses its middle, keeping its start (what
/// failed) and its end (the error's last words).
fn shorten(line: &str) -> String {
    if line.chars().count() <= DETAIL_CHARS {
        return line.to_string();
    }
    // The longest paths first, and only as many as the line needs.
    let mut words: Vec<String> = line.split(' ').map(str::to_string).collect();
    let mut order: Vec<usize> = (0..words.len()).collect();
    order.sort_by_key(|&i| std::cmp::Reverse(words[i].chars().count()));
    let mut length = line.chars().count();
    for i in order {
        if length <= DETAIL_CHARS {
            break;
        }
        if let Some(shorter) = shorter_path(&words[i]) {
            length -= words[i].chars().count() - shorter.chars().count();
            words[i] = shorter;
        }
    }
    let line = words.join(" ");
    let chars: Vec<char> = line.chars().collect();
    if chars.len() <= DETAIL_CHARS {
        return line;
    }
    let head = (DETAIL_CHARS - 3) / 2;
    let tail = DETAIL_CHARS - 3 - head;
    let mut cut: String = chars[..head].iter().collect();
    cut.push_str("...");
    cut.extend(&chars[chars.len() - tail..]);
    cut
}

/// A word holding a path of more than two folders, with its middle folders as `...`.
fn shorter_path(word: &str) -> Option<String> {
    let start = word.find('/')?;
    let end = word.rfind('/')?;
    let parts: Vec<&str> = word[start..end].split('/').collect();
    // `/usr/local/bin` splits into "", "usr", "local", "bin": keep the first folder.
    let first = parts.iter().position(|p| !p.is_empty())?;
    if parts.len() <= first + 2 {
        return None;
    }
    Some(format!(
        "{}/{}/...{}",
        &word[..start],
        parts[first],
        &word[end..]
    ))
}

#[cfg(test)]
mod tests;
