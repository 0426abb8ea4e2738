//! The journal's lines: the header that names the plan (and the shard), a game line in each
//! format, and what differs between two plans.

use crate::record::GameRecord;
use crate::tournament::compact;
use crate::tournament::shard::Shard;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The format a new journal is written in.
pub(crate) const FORMAT_VERSION: u32 = 4;
/// The oldest format a run resumes, writing its further games in that format.
pub(super) const OLDEST_RESUMABLE: u32 = 3;
/// The oldest format [`load`](super::load) reads.
pub(super) const OLDEST_READABLE: u32 = 1;

/// Everything that decides a tournament's results: a journal written under one plan is
/// never resumed under another.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// `round_robin`, `gauntlet` or `sprt`.
    pub format: String,
    /// The game's name (`asalto`).
    pub game: String,
    /// Role names in move order.
    pub roles: Vec<String>,
    /// Every entrant in order, with what identifies its program (spec, digest, limits).
    pub bots: Vec<PlanBot>,
    /// Role-swapped pairs per pairing (for `sprt`, its `--max-pairs`).
    pub pairs: u32,
    /// The tournament seed.
    pub seed: u64,
    /// Game settings that change the rules (Asalto: the round limit).
    #[serde(default)]
    pub rules: serde_json::Map<String, serde_json::Value>,
    /// League points for a win and a tie.
    pub points_win: f64,
    /// League points for a tie.
    pub points_tie: f64,
    /// The move and start-up limits in milliseconds (absent in format 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub limit_ms: Option<u64>,
    /// The start-up limit in milliseconds (absent in format 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub init_limit_ms: Option<u64>,
    /// How the pairs' openings are chosen; absent for the standard start (and before
    /// format 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub openings: Option<PlanOpenings>,
    /// The test of an `sprt` run (format 3 on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sprt: Option<PlanSprt>,
    /// Entries of a submissions folder that are not bots: they play no game, but every
    /// table gives each its row (no games, mark 0, the reason). Absent when there are none
    /// (and in journals written before they were kept).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<LeftOut>,
    /// Entries of a submissions folder that hold a bot's submission byte for byte (both
    /// students of a team handed it in): each student's entry names the bot's team. Absent
    /// when there are none (and in journals written before they were kept); like
    /// `left_out`, it follows the folder and changes no game.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub merged: Vec<Merged>,
    /// How a round robin's games get their seeds and starts: `pairing` (from the two
    /// bots' names and the pass, so a league can grow with `league --update`); absent for
    /// gauntlets and SPRTs, and in round robins written before, whose seeds come from each
    /// game's place in the schedule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seeds: Option<String>,
}

/// An entry of a submissions folder merged into a bot's: it holds the same files.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Merged {
    /// The bot it plays as.
    pub name: String,
    /// The entry, as the folder was written and the entry's name.
    pub entry: String,
}

/// An entry of a submissions folder left out of the games, and why.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftOut {
    /// The team's name, as a bot of that entry would have had.
    pub name: String,
    /// The entry, as the folder was written and the entry's name (`subs/Team07.zip`).
    pub entry: String,
    /// Why it plays no game, in words for the tables and the feedback.
    pub reason: String,
}

/// The openings setting: random plies, or a book by its content and order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlanOpenings {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub random_plies: Option<u32>,
    /// SHA-256 of the book's lines as read (blank lines and comments left out).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub book_sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub book_lines: Option<usize>,
    /// `sequential` or `random`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<String>,
}

/// The settings of a sequential test: they decide when it stops and its verdict.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanSprt {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    /// `normalized` or `logistic`.
    pub model: String,
}

/// One bot as the plan knows it. Every field but `name` and `spec` is absent in format 1
/// and left out when it does not apply (a built-in bot has no files, folder or limits).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlanBot {
    pub name: String,
    /// The specification as written.
    pub spec: String,
    /// The interpreter of a course-style `.py` bot.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub python: Option<String>,
    /// The working folder given for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mb: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_s: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_mb: Option<u64>,
    /// How a bot program was confined: `namespaces`, `landlock`, `none` or `user` (older
    /// journals: `none` or `user`; absent for a built-in).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
    /// SHA-256 over the files the bot is made of (see `tournament::setup`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// Kept out of the course marks (a reference bot): it plays and is ranked, but has no
    /// mark and does not set x_winner. Absent (false) in format 1 and for scoring bots.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub non_scoring: bool,
    /// The bot's file within the folder or zip its spec names (`Team05.py` in a student's
    /// `Full Name_ID_assignsubmission_file_` folder): the file that played, which feedback
    /// and the report name. It describes the spec and changes no game: a journal without it
    /// (older ones) resumes as well, and takes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
}

impl PlanBot {
    /// The file that played, as the outputs name it ([`played`]).
    pub fn played(&self) -> String {
        played(&self.spec, self.file.as_deref())
    }
}

/// The file that played for a bot of spec `spec` whose file within it is `file`: the path
/// of a file in a folder (`class/Bob Jones_1_assignsubmission_file_/Team05.py`), a zip's
/// name and the file in it (`class/Team05.zip: Team05/Team05.py`), or the spec itself.
pub fn played(spec: &str, file: Option<&str>) -> String {
    match file {
        None => spec.to_string(),
        Some(file) if spec.to_lowercase().ends_with(".zip") => format!("{spec}: {file}"),
        Some(file) => format!("{}/{file}", spec.trim_end_matches('/')),
    }
}

impl Plan {
    /// The bots kept out of the course marks.
    pub fn non_scoring(&self) -> Vec<String> {
        self.bots
            .iter()
            .filter(|b| b.non_scoring)
            .map(|b| b.name.clone())
            .collect()
    }
}

#[derive(Serialize, Deserialize)]
pub(super) struct Header {
    pub(super) arbiter_journal: u32,
    pub(super) plan: Plan,
    /// The one shard of the schedule this folder plays; absent for the whole schedule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(super) shard: Option<Shard>,
}

/// The journal line of game `id` in format `version`, its newline included.
pub(crate) fn line(version: u32, id: u64, record: &GameRecord) -> String {
    let mut line = encode_game(version, id, record);
    line.push('\n');
    line
}

#[derive(Serialize)]
struct EntryOut<'a> {
    game: u64,
    record: &'a GameRecord,
}

#[derive(Deserialize)]
struct EntryIn {
    game: u64,
    record: GameRecord,
}

/// Makes `record` what a reader of a journal in format `version` gets back: in format 4,
/// its times to the microsecond.
pub(crate) fn keep(version: u32, record: &mut GameRecord) {
    if version >= 4 {
        compact::keep_times(record);
    }
}

/// The line of game `id` in journal format `version` (without its newline): format 4's
/// compact line, or the whole record as JSON for formats 1 to 3.
pub fn encode_game(version: u32, id: u64, record: &GameRecord) -> String {
    if version >= 4 {
        compact::encode(id, record)
    } else {
        serde_json::to_string(&EntryOut { game: id, record }).expect("a record always serializes")
    }
}

/// Reads one game line of a journal in format `version`: the one decoding of games, used
/// by [`load`](super::load), [`for_each_record`](super::for_each_record) and a resume alike.
pub(crate) fn decode_game(version: u32, line: &[u8]) -> Result<(u64, GameRecord), String> {
    if version >= 4 {
        compact::decode(line)
    } else {
        serde_json::from_slice::<EntryIn>(line)
            .map(|entry| (entry.game, entry.record))
            .map_err(|e| e.to_string())
    }
}

/// The settings that differ between two plans: each by name, and all said as
/// `name OLD OLD_LABEL, NEW NEW_LABEL`, joined by `; ` (its `Display`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct PlanDifference {
    /// The settings that differ, the plan's own or a bot's, by their names in the journal
    /// (`limit_ms`, `non_scoring`); the list of bots and their digests are said only.
    settings: Vec<String>,
    said: Vec<String>,
}

impl PlanDifference {
    /// Whether the setting `name` differs, the plan's own or any bot's.
    pub(crate) fn changes(&self, name: &str) -> bool {
        self.settings.iter().any(|s| s == name)
    }
}

impl std::fmt::Display for PlanDifference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.said.join("; "))
    }
}

/// Every setting that differs, as `name old there, new now`.
pub(super) fn plan_difference(old: &Plan, new: &Plan) -> PlanDifference {
    plan_difference_between(old, new, "there", "now")
}

/// Every setting that differs, as `name OLD OLD_LABEL, NEW NEW_LABEL`.
pub(crate) fn plan_difference_between(
    old: &Plan,
    new: &Plan,
    old_label: &str,
    new_label: &str,
) -> PlanDifference {
    use serde_json::Value;
    let show = |v: Option<&Value>| match v {
        None | Some(Value::Null) => "unset".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    };
    let fields = |v: Value| match v {
        Value::Object(map) => map,
        _ => serde_json::Map::new(),
    };
    let mut diffs = Vec::new();
    let mut settings = Vec::new();
    let mut compare = |prefix: &str,
                       old: serde_json::Map<String, Value>,
                       new: serde_json::Map<String, Value>| {
        let mut keys: Vec<&String> = new.keys().collect();
        keys.extend(old.keys().filter(|k| !new.contains_key(*k)));
        for key in keys {
            // What was left out follows the folder: it is no setting of the games.
            if key == "bots" || key == "left_out" || key == "merged" || old.get(key) == new.get(key)
            {
                continue;
            }
            settings.push(key.clone());
            diffs.push(format!(
                "{prefix}{key} {} {old_label}, {} {new_label}",
                show(old.get(key)),
                show(new.get(key))
            ));
        }
    };
    let to_value = |p: &Plan| serde_json::to_value(p).expect("a plan always serializes");
    compare("", fields(to_value(old)), fields(to_value(new)));
    let names = |p: &Plan| p.bots.iter().map(|b| b.name.clone()).collect::<Vec<_>>();
    if names(old) != names(new) {
        let list = |p: &Plan| {
            p.bots
                .iter()
                .map(|b| format!("{}={}", b.name, b.spec))
                .collect::<Vec<_>>()
                .join(" ")
        };
        diffs.push(format!(
            "bots [{}] {old_label}, [{}] {new_label}",
            list(old),
            list(new)
        ));
    } else {
        // Bots whose files changed alike (loose files of one folder: each one's digest
        // covers the folder's files) are named together, not each as if it were edited.
        let mut digests: Vec<(Vec<&str>, Option<Value>, Option<Value>)> = Vec::new();
        for (a, b) in old.bots.iter().zip(&new.bots) {
            let value = |bot: &PlanBot| fields(serde_json::to_value(bot).expect("serializes"));
            let (mut was, mut is) = (value(a), value(b));
            let (d_was, d_is) = (was.remove("digest"), is.remove("digest"));
            compare(&format!("bot {} ", a.name), was, is);
            if d_was == d_is {
                continue;
            }
            match digests
                .iter_mut()
                .find(|(_, w, i)| *w == d_was && *i == d_is)
            {
                Some((names, _, _)) => names.push(&a.name),
                None => digests.push((vec![&a.name], d_was, d_is)),
            }
        }
        for (names, was, is) in digests {
            let change = format!(
                "digest {} {old_label}, {} {new_label}",
                show(was.as_ref()),
                show(is.as_ref())
            );
            diffs.push(match names.as_slice() {
                [one] => format!("bot {one} {change}"),
                many => format!(
                    "bots {} {change} (one change: their files share a folder, and each \
                     one's digest covers that folder's files)",
                    many.join(", ")
                ),
            });
        }
    }
    PlanDifference {
        settings,
        said: diffs,
    }
}
