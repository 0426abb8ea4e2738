//! The journal `games.jsonl`: the source of truth of a tournament run.
//!
//! Its first line names the plan: the schedule (game, bots, pairs, seed) and every
//! setting that can change a result (limits, interpreter, confinement, each bot's folder,
//! environment and a digest of its files), and beside the plan the shard of the schedule
//! the folder plays, when it plays only one (so the plans of all shards compare equal). Each further line is one finished game,
//! written whole with a single `write` and flushed as the game ends. A crash can leave at
//! most one damaged last line: a line that lost only its newline is completed, a torn one
//! is dropped (its game is played again), and the run says which. Lines are not fsynced
//! one by one: a finished game survives the harness being killed at any moment; the
//! journal is fsynced when a run ends, so a power loss can cost the games of the last few
//! seconds, which a resume then plays again.
//!
//! One run at a time: a run holds an OS lock (a POSIX record lock) on `games.lock` in the folder for
//! as long as it writes there. The kernel drops the lock when the run ends or is killed,
//! so a lock never outlives its run.
//!
//! A game line of format 4 (the one written now) is compact: the fields a reader looks for
//! in plain JSON, the moves, boards, logs and failure detail packed column-wise and
//! compressed (see `compact` for the encoding and for the one loss, times kept to the
//! microsecond). Every reader decodes game lines through `decode_game`.
//!
//! Older formats are still read by [`load`] (`arbiter table`) and [`for_each_record`]:
//! format 3 (each game line the whole record as JSON), format 1 (before the plan held the
//! limits, interpreter, confinement and digests) and format 2 (before it held the openings
//! and the SPRT settings; its games all started from the standard start). A format 3
//! journal is resumed in format 3: its further games are written as format 3 lines, so a
//! journal never mixes two formats. A run refuses to resume formats 1 and 2, since it
//! cannot tell whether those settings changed.

mod format;
mod known;
mod listed;
mod lock;
mod reader;
mod repair;
#[cfg(test)]
mod tests;
mod update;
mod writer;

pub(crate) use format::plan_difference_between;
pub use format::{LeftOut, Merged, Plan, encode_game, played};
pub(crate) use format::{PlanBot, PlanOpenings, PlanSprt, decode_game, keep, line};
pub use known::KNOWN_FILE;
pub(crate) use known::{Key, Known, key_of};
pub(crate) use listed::listed_line;
pub(crate) use lock::held_by_a_run;
pub use reader::{Listing, Loaded, for_each_record, load, load_counting, load_visiting, read_plan};
pub(crate) use reader::{ListingWriter, load_decoding};
pub use repair::Repair;
pub(crate) use update::json_lines;
pub use update::{BeforeJournal, BotChanges, HISTORY_FILE, HistoryGame, Updated, history_of};
pub use writer::Journal;

/// The journal's file name in a results folder.
pub const JOURNAL_FILE: &str = "games.jsonl";
/// Where `--force-new` keeps the journal it replaces.
pub(crate) const REPLACED_FILE: &str = "games.jsonl.old";
/// The file whose `flock` marks a run in progress.
pub(crate) const LOCK_FILE: &str = "games.lock";

/// How the reason of an entry left out for failing `--check` begins.
pub const FAILED_THE_CHECK: &str = "failed the check";
