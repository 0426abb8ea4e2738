//! The journal `games.jsonl`: the source of truth of a tournament run.
//!
//! Its first line names the plan (game, bots, pairs, seed); each further line is one
//! finished game, written whole with a single `write` and flushed as the game ends. A
//! crash can leave at most a torn last line, which resuming detects and drops. Lines are
//! not fsynced one by one: a finished game survives the harness being killed at any
//! moment; the journal is fsynced when a run ends, so a power loss can cost the games of
//! the last few seconds, which a resume then plays again.

use crate::error::Error;
use crate::record::{GameRecord, GameSummary};
use serde::{Deserialize, Serialize};
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

pub const JOURNAL_FILE: &str = "games.jsonl";
const FORMAT_VERSION: u32 = 1;

/// What decides the schedule: a journal written under one plan is never resumed under
/// another.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    /// `round_robin` or `gauntlet`.
    pub format: String,
    pub game: String,
    /// Role names in move order.
    pub roles: Vec<String>,
    pub bots: Vec<PlanBot>,
    pub pairs: u32,
    pub seed: u64,
    /// Game settings that change the rules (Asalto: the round limit).
    #[serde(default)]
    pub rules: serde_json::Map<String, serde_json::Value>,
    /// League points for a win and a tie.
    pub points_win: f64,
    pub points_tie: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlanBot {
    pub name: String,
    pub spec: String,
}

#[derive(Serialize, Deserialize)]
struct Header {
    arbiter_journal: u32,
    plan: Plan,
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

/// An open journal, appended to by one writer.
pub struct Journal {
    file: File,
    path: PathBuf,
}

/// What a journal held when it was opened.
pub struct Loaded {
    pub plan: Plan,
    /// Finished games in journal order, the first copy of each id.
    pub games: Vec<GameSummary>,
    /// A torn last line was found and cut off.
    pub dropped_torn_line: bool,
}

impl Journal {
    /// Opens `dir/games.jsonl` for `plan`: creates it, or resumes it when it was written
    /// under the same plan. Anything else is refused with the difference spelled out.
    pub fn open(dir: &Path, plan: &Plan) -> Result<(Journal, Loaded), Error> {
        std::fs::create_dir_all(dir).map_err(|source| Error::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let path = dir.join(JOURNAL_FILE);
        let io = |source| Error::Io {
            path: path.clone(),
            source,
        };
        let exists = path.metadata().map(|m| m.len() > 0).unwrap_or(false);
        let loaded = if exists {
            let loaded = load(&path)?;
            if loaded.plan != *plan {
                return Err(Error::usage(format!(
                    "{} was written for another tournament ({}); use another output folder, or \
                     delete it to start over",
                    path.display(),
                    plan_difference(&loaded.plan, plan)
                )));
            }
            loaded
        } else {
            let mut file = File::create(&path).map_err(io)?;
            let header = Header {
                arbiter_journal: FORMAT_VERSION,
                plan: plan.clone(),
            };
            let mut line = serde_json::to_string(&header).expect("a plan always serializes");
            line.push('\n');
            file.write_all(line.as_bytes()).map_err(io)?;
            file.sync_data().map_err(io)?;
            Loaded {
                plan: plan.clone(),
                games: Vec::new(),
                dropped_torn_line: false,
            }
        };
        let file = OpenOptions::new().append(true).open(&path).map_err(io)?;
        Ok((Journal { file, path }, loaded))
    }

    /// Appends one finished game as one line, in one write, and flushes it.
    pub fn append(&mut self, id: u64, record: &GameRecord) -> Result<(), Error> {
        let mut line = serde_json::to_string(&EntryOut { game: id, record })
            .expect("a record always serializes");
        line.push('\n');
        self.file
            .write_all(line.as_bytes())
            .and_then(|_| self.file.flush())
            .map_err(|source| Error::Io {
                path: self.path.clone(),
                source,
            })
    }

    /// Forces the journal to disk (at the end of a run).
    pub fn sync(&mut self) -> Result<(), Error> {
        self.file.sync_all().map_err(|source| Error::Io {
            path: self.path.clone(),
            source,
        })
    }
}

/// Reads a journal without changing it, except for cutting a torn last line.
pub fn load(path: &Path) -> Result<Loaded, Error> {
    let io = |source| Error::Io {
        path: path.to_path_buf(),
        source,
    };
    let file = File::open(path).map_err(io)?;
    let mut reader = BufReader::new(file);
    let mut line = String::new();
    let mut offset: u64 = 0;
    let mut plan: Option<Plan> = None;
    let mut games = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut number = 0usize;
    let mut dropped_torn_line = false;
    loop {
        line.clear();
        let read = reader.read_line(&mut line).map_err(io)?;
        if read == 0 {
            break;
        }
        number += 1;
        let complete = line.ends_with('\n');
        let bad = |message: String| Error::Input {
            path: path.to_path_buf(),
            line: number,
            message,
        };
        if plan.is_none() {
            let header: Header = serde_json::from_str(line.trim_end())
                .map_err(|e| bad(format!("not an arbiter journal header: {e}")))?;
            if header.arbiter_journal != FORMAT_VERSION {
                return Err(bad(format!(
                    "journal format {} is not supported",
                    header.arbiter_journal
                )));
            }
            plan = Some(header.plan);
        } else {
            match serde_json::from_str::<EntryIn>(line.trim_end()) {
                Ok(entry) => {
                    if seen.insert(entry.game) {
                        games.push(GameSummary::of(entry.game, &entry.record));
                    }
                }
                // A crash mid-write leaves a last line without its newline: drop it, the
                // game is played again.
                Err(_) if !complete => {
                    drop(reader);
                    let file = OpenOptions::new().write(true).open(path).map_err(io)?;
                    file.set_len(offset).map_err(io)?;
                    dropped_torn_line = true;
                    break;
                }
                Err(e) => return Err(bad(format!("not a game record: {e}"))),
            }
        }
        offset += read as u64;
    }
    let plan = plan.ok_or_else(|| Error::Input {
        path: path.to_path_buf(),
        line: 1,
        message: "empty journal".into(),
    })?;
    Ok(Loaded {
        plan,
        games,
        dropped_torn_line,
    })
}

fn plan_difference(old: &Plan, new: &Plan) -> String {
    let mut diffs = Vec::new();
    if old.game != new.game {
        diffs.push(format!("game {} there, {} now", old.game, new.game));
    }
    if old.format != new.format {
        diffs.push(format!("{} there, {} now", old.format, new.format));
    }
    if old.bots != new.bots {
        let names = |p: &Plan| {
            p.bots
                .iter()
                .map(|b| format!("{}={}", b.name, b.spec))
                .collect::<Vec<_>>()
                .join(" ")
        };
        diffs.push(format!("bots [{}] there, [{}] now", names(old), names(new)));
    }
    if old.pairs != new.pairs {
        diffs.push(format!("{} pairs there, {} now", old.pairs, new.pairs));
    }
    if old.seed != new.seed {
        diffs.push(format!("seed {} there, {} now", old.seed, new.seed));
    }
    if old.rules != new.rules {
        diffs.push(format!(
            "rules {} there, {} now",
            serde_json::Value::Object(old.rules.clone()),
            serde_json::Value::Object(new.rules.clone())
        ));
    }
    if diffs.is_empty() {
        diffs.push("scoring differs".into());
    }
    diffs.join("; ")
}
