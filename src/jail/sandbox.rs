//! Confining bot processes: resource limits, a private uid and folder, no network, and a
//! sweep that leaves no process of a bot behind. docs/SECURITY.md says what this enforces.
//!
//! Everything that changes the bot process itself happens in `confine_child`, which runs
//! in the forked child before `exec` (so the bot's program never runs unconfined). Only
//! raw system calls are made there: the child of a multithreaded process may not allocate.

use super::{Limits, SandboxMode};
use crate::jail::procfs::{ProcInfo, my_descendants, processes};
use rustix::process::{Pid, Resource, Rlimit, Signal, WaitOptions};
use std::collections::BTreeSet;
use std::fs::File;
use std::io;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The first uid (and gid) given to a sandboxed bot: slot `n` runs as `UID_BASE + n`.
pub const UID_BASE: u32 = 61_000;
/// How many sandboxed bots can run at once on one machine (across arbiter processes).
pub(crate) const UID_SLOTS: u32 = 2_000;
/// Processes a sandboxed bot may have at once (its uid's `RLIMIT_NPROC`) unless set.
pub(crate) const DEFAULT_SANDBOX_PROCS: u64 = 64;
/// The most a bot's folder may hold to be copied into its sandbox.
pub(crate) const MAX_COPY_BYTES: u64 = 256 << 20;
/// Locks that claim a uid slot across processes; root-only.
const LOCK_DIR: &str = "/run/arbiter-sandbox";
/// The environment variable that marks every process started for one bot.
pub const TOKEN_VAR: &str = "ARBITER_BOT_TOKEN";

/// What the forked child must do before `exec`, all plain data.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ChildPlan {
    pub limits: Limits,
    /// The uid/gid to drop to (sandbox only).
    pub uid: Option<u32>,
    /// Unshare the network namespace first (sandbox only, where the kernel allows it).
    pub no_network: bool,
}

/// Applies `plan` to the calling process: meant for `pre_exec`, after `fork`.
pub(crate) fn confine_child(plan: &ChildPlan) -> io::Result<()> {
    if plan.no_network {
        // SAFETY: NEWNET only; no file-descriptor table is unshared.
        unsafe { rustix::thread::unshare_unsafe(rustix::thread::UnshareFlags::NEWNET) }?;
    }
    let limit = |resource, soft: u64, hard: u64| {
        rustix::process::setrlimit(
            resource,
            Rlimit {
                current: Some(soft),
                maximum: Some(hard),
            },
        )
    };
    let l = plan.limits;
    if let Some(mb) = l.memory_mb {
        let bytes = mb.saturating_mul(1 << 20);
        limit(Resource::As, bytes, bytes)?;
    }
    if let Some(s) = l.cpu_s {
        // SIGXCPU at the soft limit, SIGKILL at the hard one for a bot that ignores it.
        limit(Resource::Cpu, s, s.saturating_add(1))?;
    }
    if let Some(mb) = l.file_mb {
        let bytes = mb.saturating_mul(1 << 20);
        limit(Resource::Fsize, bytes, bytes)?;
    }
    // No core dumps: a crashing bot must not write hundreds of MiB into its folder.
    limit(Resource::Core, 0, 0)?;
    if let Some(uid) = plan.uid {
        let procs = l.procs.unwrap_or(DEFAULT_SANDBOX_PROCS);
        limit(Resource::Nproc, procs, procs)?;
        let gid = rustix::process::Gid::from_raw(uid);
        let id = rustix::process::Uid::from_raw(uid);
        rustix::thread::set_thread_groups(&[])?;
        rustix::thread::set_thread_res_gid(gid, gid, gid)?;
        rustix::thread::set_thread_res_uid(id, id, id)?;
        rustix::thread::set_no_new_privs(true)?;
    }
    Ok(())
}

/// Whether this process runs as root (a sandbox needs it).
pub fn is_root() -> bool {
    rustix::process::geteuid().is_root()
}

/// The error for `--sandbox user` without root, or `None` when the mode can be used.
pub fn unavailable(mode: SandboxMode) -> Option<String> {
    (mode == SandboxMode::User && !is_root()).then(|| {
        "--sandbox user needs root: it runs each bot under its own uid, which only root can \
         switch to (run as root, or use --sandbox none)"
            .to_string()
    })
}

/// Whether a new network namespace can be made here (containers may forbid it); probed
/// once by starting `true` in one.
pub(crate) fn network_isolation_works() -> bool {
    static WORKS: OnceLock<bool> = OnceLock::new();
    *WORKS.get_or_init(|| {
        let plan = ChildPlan {
            limits: Limits::default(),
            uid: None,
            no_network: true,
        };
        let mut cmd = Command::new("true");
        cmd.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
        // SAFETY: confine_child makes raw system calls only.
        unsafe { cmd.pre_exec(move || confine_child(&plan)) };
        let works = cmd.status().is_ok_and(|s| s.success());
        if !works {
            eprintln!(
                "warning: cannot unshare a network namespace here: sandboxed bots keep network access"
            );
        }
        works
    })
}

/// A unique marker for the processes of one bot run.
pub(crate) fn new_token() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// The uids of the sandboxes alive, for [`kill_all_sandboxed`].
static LIVE_UIDS: std::sync::Mutex<BTreeSet<u32>> = std::sync::Mutex::new(BTreeSet::new());

fn live_uids() -> std::sync::MutexGuard<'static, BTreeSet<u32>> {
    LIVE_UIDS.lock().unwrap_or_else(|e| e.into_inner())
}

/// SIGKILLs every process of every sandbox alive (Ctrl-C handling; takes a lock and starts
/// processes, so not for a signal handler).
pub fn kill_all_sandboxed() {
    let uids: Vec<u32> = live_uids().iter().copied().collect();
    for uid in uids {
        kill_all_of_uid(uid);
    }
}

/// A claimed uid and the private folder of one sandboxed bot. Dropping it releases both
/// (after [`Sandbox::sweep`] killed every process of the uid).
pub struct Sandbox {
    /// The uid (and gid) the bot runs as: [`UID_BASE`] plus its slot.
    pub uid: u32,
    /// The bot's private folder (owned by `uid`, mode 0700): its working folder, HOME and TMPDIR.
    pub workdir: PathBuf,
    _lock: File,
}

impl Sandbox {
    /// Claims a free uid slot and makes the bot's folder, a copy of `source` (if any)
    /// owned by the uid, mode 0700.
    pub fn create(source: Option<&Path>) -> io::Result<Sandbox> {
        let (uid, lock) = claim_uid()?;
        let base = work_base()?;
        let workdir = base.join(format!("bot-{uid}-{}", new_token()));
        if workdir.exists() {
            std::fs::remove_dir_all(&workdir)?;
        }
        std::fs::create_dir(&workdir)?;
        let sandbox = Sandbox {
            uid,
            workdir,
            _lock: lock,
        };
        live_uids().insert(uid);
        if let Some(source) = source {
            let mut budget = MAX_COPY_BYTES;
            copy_tree(source, &sandbox.workdir, uid, &mut budget)?;
        }
        chown(&sandbox.workdir, uid)?;
        std::fs::set_permissions(&sandbox.workdir, std::fs::Permissions::from_mode(0o700))?;
        // Processes of a crashed earlier run that had this uid: gone before we start.
        sandbox.sweep();
        Ok(sandbox)
    }

    /// Copies the folder `from` into the bot's folder as `.arbiter-NAME` (NAME: its own
    /// name), owned by the uid like the rest, and returns the copy's path. The bot's own
    /// files are already there: a name taken by one of them is an error.
    pub fn carry_in(&self, from: &Path) -> io::Result<PathBuf> {
        let name = from.file_name().unwrap_or_default().to_string_lossy();
        let target = self.workdir.join(format!(".arbiter-{name}"));
        std::fs::create_dir(&target)?;
        let mut budget = MAX_COPY_BYTES;
        copy_tree(from, &target, self.uid, &mut budget)?;
        chown(&target, self.uid)?;
        std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o700))?;
        Ok(target)
    }

    /// SIGKILLs every process running as the sandbox's uid, until none is left (bounded
    /// by two seconds), and reaps those reparented to us.
    pub fn sweep(&self) {
        self.sweep_except(None);
    }

    /// [`Sandbox::sweep`], leaving the zombie `leader` (if given) to its owner to reap.
    pub fn sweep_except(&self, leader: Option<i32>) {
        let until = Instant::now() + Duration::from_secs(2);
        loop {
            let procs = processes();
            let alive: Vec<&ProcInfo> = procs
                .iter()
                .filter(|p| p.uid == Some(self.uid) && p.state != 'Z')
                .collect();
            reap_zombies(&procs, |p| p.uid == Some(self.uid) && Some(p.pid) != leader);
            if alive.is_empty() || Instant::now() >= until {
                return;
            }
            kill_all_of_uid(self.uid);
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        self.sweep();
        live_uids().remove(&self.uid);
        let _ = std::fs::remove_dir_all(&self.workdir);
    }
}

/// `kill(-1, SIGKILL)` from a helper process running as `uid`: it reaches every process
/// of that uid at once (a fork storm cannot outrun a scan), and nothing else.
fn kill_all_of_uid(uid: u32) {
    let mut cmd = Command::new("true");
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .env_clear();
    // SAFETY: raw system calls only.
    unsafe {
        cmd.pre_exec(move || {
            let id = rustix::process::Uid::from_raw(uid);
            let gid = rustix::process::Gid::from_raw(uid);
            rustix::thread::set_thread_groups(&[])?;
            rustix::thread::set_thread_res_gid(gid, gid, gid)?;
            rustix::thread::set_thread_res_uid(id, id, id)?;
            libc::kill(-1, libc::SIGKILL);
            Ok(())
        })
    };
    // `true` itself may fail to start when the uid is at its process limit: the kill
    // happened before exec anyway.
    let _ = cmd.status();
}

/// A uid no other bot of any arbiter process runs as, [`UID_BASE`] plus a free slot, and the
/// lock that holds it until dropped.
pub(crate) fn claim_uid() -> io::Result<(u32, File)> {
    std::fs::create_dir_all(LOCK_DIR)?;
    std::fs::set_permissions(LOCK_DIR, std::fs::Permissions::from_mode(0o700))?;
    // Start at a spot that depends on the process, so parallel runs rarely collide.
    let start = (std::process::id() * 7) % UID_SLOTS;
    for i in 0..UID_SLOTS {
        let slot = (start + i) % UID_SLOTS;
        let uid = UID_BASE + slot;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(Path::new(LOCK_DIR).join(format!("uid-{uid}.lock")))?;
        if rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive).is_ok() {
            return Ok((uid, file));
        }
    }
    Err(io::Error::other(format!(
        "all {UID_SLOTS} sandbox uids are in use"
    )))
}

/// `$TMPDIR/arbiter-sandbox`, root-owned, mode 0711: a bot can reach its own folder by
/// name but cannot list the others.
fn work_base() -> io::Result<PathBuf> {
    let base = std::env::temp_dir().join("arbiter-sandbox");
    match std::fs::create_dir(&base) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e),
    }
    let meta = std::fs::symlink_metadata(&base)?;
    if !meta.is_dir() || meta.uid() != 0 {
        return Err(io::Error::other(format!(
            "{} must be a folder owned by root",
            base.display()
        )));
    }
    std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o711))?;
    Ok(base)
}

fn chown(path: &Path, uid: u32) -> io::Result<()> {
    std::os::unix::fs::lchown(path, Some(uid), Some(uid))
}

/// Copies regular files and folders (not symlinks, devices or sockets) of `from` into
/// `to`, owned by `uid`, readable and writable by it alone.
fn copy_tree(from: &Path, to: &Path, uid: u32, budget: &mut u64) -> io::Result<()> {
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            std::fs::create_dir(&target)?;
            copy_tree(&entry.path(), &target, uid, budget)?;
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o700))?;
            chown(&target, uid)?;
        } else if kind.is_file() {
            let meta = entry.metadata()?;
            if meta.len() > *budget {
                return Err(io::Error::other(format!(
                    "the bot's folder {} holds more than {} MiB",
                    from.display(),
                    MAX_COPY_BYTES >> 20
                )));
            }
            *budget -= meta.len();
            std::fs::copy(entry.path(), &target)?;
            let exec = meta.mode() & 0o100;
            std::fs::set_permissions(&target, std::fs::Permissions::from_mode(0o600 | exec))?;
            chown(&target, uid)?;
        }
    }
    Ok(())
}

/// Whether process `pid` was started with `TOKEN_VAR=token` in its environment.
fn has_token(pid: i32, token: &str) -> bool {
    let wanted = format!("{TOKEN_VAR}={token}");
    environ_has(pid, |kv| kv == wanted.as_bytes())
}

/// Whether process `pid` carries some bot's token in its environment (while it lives).
pub fn has_any_token(pid: i32) -> bool {
    let prefix = format!("{TOKEN_VAR}=");
    environ_has(pid, |kv| kv.starts_with(prefix.as_bytes()))
}

/// Whether an entry of process `pid`'s environment matches `wanted`.
fn environ_has(pid: i32, wanted: impl Fn(&[u8]) -> bool) -> bool {
    let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else {
        return false;
    };
    environ.split(|&b| b == 0).any(wanted)
}

/// SIGKILLs, in one pass, every process of the bots this arbiter process started: in the
/// groups `groups`, carrying a token of this run (`new_token` begins with arbiter's
/// pid), and their descendants by parent pid. For when arbiter is about to exit: stop the
/// groups first, so that no parentage is lost to a leader's death while this runs.
pub fn kill_every_bot_process(groups: &[i32]) {
    let me = std::process::id() as i32;
    let prefix = format!("{TOKEN_VAR}={me}-");
    let procs = processes();
    let mut tree: BTreeSet<i32> = procs
        .iter()
        .filter(|p| {
            p.pid != me
                && p.state != 'Z'
                && (groups.contains(&p.pgrp)
                    || environ_has(p.pid, |kv| kv.starts_with(prefix.as_bytes())))
        })
        .map(|p| p.pid)
        .collect();
    add_descendants(&mut tree, &procs);
    for pid in tree.into_iter().filter_map(Pid::from_raw) {
        let _ = rustix::process::kill_process(pid, Signal::KILL);
    }
}

/// Adds to `tree` the descendants (by parent pid, among `procs`) of the processes in it,
/// never this process.
fn add_descendants(tree: &mut BTreeSet<i32>, procs: &[ProcInfo]) {
    let me = std::process::id() as i32;
    loop {
        let before = tree.len();
        for p in procs {
            if tree.contains(&p.ppid) && p.pid != me {
                tree.insert(p.pid);
            }
        }
        if tree.len() == before {
            break;
        }
    }
}

/// Reaps the zombies that are our children (reparented orphans) and match `which`.
fn reap_zombies(procs: &[ProcInfo], which: impl Fn(&ProcInfo) -> bool) {
    let me = std::process::id() as i32;
    for p in procs {
        if p.state == 'Z'
            && p.ppid == me
            && which(p)
            && let Some(pid) = Pid::from_raw(p.pid)
        {
            let _ = rustix::process::waitpid(Some(pid), WaitOptions::NOHANG);
        }
    }
}

/// Kills every descendant of a bot that is not in its process group (the group is killed
/// separately): processes carrying its token in their environment, the descendants of
/// the leader while it is unreaped (`leader`), and their descendants; then reaps the ones
/// reparented to us. The leader itself is left to its owner.
pub fn sweep_descendants(leader: Option<i32>, pgid: i32, token: &str) {
    let me = std::process::id() as i32;
    let until = Instant::now() + Duration::from_secs(2);
    let mut killed: BTreeSet<i32> = BTreeSet::new();
    loop {
        // Arbiter is the subreaper of its bots, so whatever a bot started is among
        // arbiter's descendants, and only they need be read: not every process on the
        // machine, at every bot's end.
        let procs = crate::jail::reaper::is_subreaper()
            .then(my_descendants)
            .flatten()
            .unwrap_or_else(processes);
        let mut tree: BTreeSet<i32> = BTreeSet::new();
        tree.extend(leader);
        for p in &procs {
            if p.pid != me && (p.pgrp == pgid || (p.state != 'Z' && has_token(p.pid, token))) {
                tree.insert(p.pid);
            }
        }
        add_descendants(&mut tree, &procs);
        let alive: Vec<i32> = procs
            .iter()
            .filter(|p| Some(p.pid) != leader && p.state != 'Z' && tree.contains(&p.pid))
            .map(|p| p.pid)
            .collect();
        killed.extend(alive.iter().copied());
        reap_zombies(&procs, |p| {
            Some(p.pid) != leader && (tree.contains(&p.pid) || killed.contains(&p.pid))
        });
        if alive.is_empty() || Instant::now() >= until {
            return;
        }
        for pid in alive {
            if let Some(pid) = Pid::from_raw(pid) {
                let _ = rustix::process::kill_process(pid, Signal::KILL);
            }
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}
