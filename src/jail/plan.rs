//! What one jail is, as the referee describes it to the program that builds it: the
//! description (read from JSON), and how a step that fails says so. Every step of the jail
//! ([`super::inside`], [`super::beside`], [`super::caps`], [`super::filter`]) reads it.

use super::Level;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// What one confined start needs, handed to `arbiter confine` as JSON.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Jail {
    pub level: Level,
    /// The bot's private folder: its HOME and /tmp, and its working folder unless `cwd`
    /// says otherwise.
    pub private: PathBuf,
    /// Its working folder: the private folder, or its own folder read where it is.
    pub cwd: PathBuf,
    /// An empty folder the new root is mounted on (namespaces only).
    pub root: PathBuf,
    /// Folders and files the bot may read (and execute): the system's, its runtime's.
    pub read_only: Vec<PathBuf>,
    /// Files and folders inside those that the bot must not read: other entrants' entries.
    pub hidden: Vec<PathBuf>,
    /// Resource limits, applied just before `exec`.
    pub memory_mb: Option<u64>,
    pub cpu_s: Option<u64>,
    pub file_mb: Option<u64>,
    /// Processes and threads the bot may have at once (`RLIMIT_NPROC`, over those its uid
    /// has already where the count is not the namespace's own).
    #[serde(default)]
    pub tasks: Option<u64>,
    /// What the bot may write into its private folder altogether, in MiB (the helper
    /// watches it: [`super::beside`]).
    #[serde(default)]
    pub disk_mb: Option<u64>,
    /// The uid and gid the bot runs as when the caller is root (it must not be root).
    pub run_as: Option<u32>,
    pub program: String,
    pub args: Vec<String>,
    /// The bot's cgroup (namespaces only): the namespace's first process is born in it,
    /// and with it everything the bot starts. `None`: the referee moved this process in.
    #[serde(default)]
    pub cgroup: Option<PathBuf>,
    /// The CPUs the bot may run on: the referee's, whatever CPU the thread that started
    /// this helper was placed on. Empty: where the helper was started.
    #[serde(default)]
    pub cpus: Vec<usize>,
    /// The build of the arbiter that described the jail ([`super::helper::BUILD`]).
    #[serde(default)]
    pub build: String,
}

/// A step that failed, and why: `arbiter confine` prints it and exits with
/// [`SETUP_FAILED`], which the referee reports as `spawn_failed` with this text.
#[derive(Debug)]
pub(crate) struct StepFailed(pub String);

/// The exit status of `arbiter confine` when the jail could not be made.
pub(crate) const SETUP_FAILED: i32 = 125;
