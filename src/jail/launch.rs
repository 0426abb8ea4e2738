//! The one door every bot program starts through: its limits, and its confinement (a jail
//! of the level this machine gives, or `--sandbox user`'s uid), its cgroup and its token,
//! arranged into the command a transport then starts with its own pipes.

use super::Prepared;
use super::cgroup::{self, BotCgroup};
use super::report::{self, JailReport};
use super::sandbox::{self, ChildPlan, Sandbox};
use super::{CommandSpec, SandboxMode};
use std::os::unix::process::CommandExt;
use std::process::Command;

/// The `PATH` of a bot under `--sandbox user`: system folders only.
const SANDBOX_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// A bot program ready to start, and what confines it (each removed or swept when dropped).
pub struct Launch {
    /// The command, in its own process group, with its limits set in the child.
    pub cmd: Command,
    /// In every process's environment ([`sandbox::TOKEN_VAR`]): finds escaped descendants.
    pub token: String,
    /// The uid and folder of a bot under `--sandbox user`.
    pub sandbox: Option<Sandbox>,
    /// The jail of a confined bot, and its private folder.
    pub jail: Option<Prepared>,
    /// The bot's cgroup, where one can be made.
    pub cgroup: Option<BotCgroup>,
    /// A jailed bot's report: whether its jail was built (see `JailReport::word`).
    pub report: Option<JailReport>,
}

fn absolute(path: &std::path::Path) -> std::path::PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Why a bot program could not be set up to start: the bot's `spawn_failed`, in these words.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The confinement asked for is not to be had here.
    #[error("{0}")]
    Unavailable(String),
    /// No jail level serves the sandbox mode asked for.
    #[error("{0}")]
    NoLevel(String),
    /// `--sandbox user`'s private folder could not be made.
    #[error("cannot prepare the bot's sandbox: {0}")]
    Sandbox(std::io::Error),
    /// A folder the command reads could not be copied into `--sandbox user`'s folder.
    #[error("cannot copy `{}` into the bot's sandbox: {source}", .from.display())]
    Carry {
        /// The folder the command reads.
        from: std::path::PathBuf,
        /// What the copy met.
        source: std::io::Error,
    },
    /// The bot's program cannot be found or read.
    #[error("cannot start `{program}`: {source}")]
    Program {
        /// The program as the command names it.
        program: String,
        /// What looking it up met.
        source: std::io::Error,
    },
    /// The jail's private folder, runtime or command could not be prepared.
    #[error("cannot prepare the bot's jail: {0}")]
    Jail(std::io::Error),
    /// The jail's report could not be made.
    #[error("cannot make the jail's report: {0}")]
    Report(std::io::Error),
}

/// Arranges `command`'s confinement; a failure is the bot's `spawn_failed`.
pub fn launch(command: &CommandSpec) -> Result<Launch, StartError> {
    let confine = command.confine;
    if let Some(why) = sandbox::unavailable(confine.sandbox) {
        return Err(StartError::Unavailable(why));
    }
    let token = sandbox::new_token();
    let mut program = command.program.clone();
    let mut args = command.args.clone();
    let mut cwd = command.cwd.clone();
    let mut jail = None;
    if confine.sandbox == SandboxMode::User {
        let source = command.cwd.as_deref().map(absolute);
        let sb = Sandbox::create(source.as_deref()).map_err(StartError::Sandbox)?;
        if let Some(source) = &source {
            // Paths into the bot's folder now point into its copy.
            let moved = |text: &mut String| super::repoint(text, source, &sb.workdir);
            moved(&mut program);
            args.iter_mut().for_each(moved);
        }
        // Folders the command needs besides the bot's own (a Java player's compiled
        // classes) are copied in too, and the arguments naming them follow.
        for from in &command.carried {
            let copy = sb.carry_in(from).map_err(|source| StartError::Carry {
                from: from.clone(),
                source,
            })?;
            for arg in args.iter_mut() {
                super::repoint(arg, from, &copy);
            }
        }
        cwd = Some(sb.workdir.clone());
        jail = Some(sb);
    }
    // Every bot program not under `--sandbox user` or `none` starts in a jail of the
    // level this machine gives (jail), which applies its limits itself.
    let level = super::level_for(confine.sandbox).map_err(StartError::NoLevel)?;
    let mut prepared = match level {
        Some(level) => Some(super::prepare(command, level).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound | std::io::ErrorKind::PermissionDenied => {
                StartError::Program {
                    program: command.program.clone(),
                    source: e,
                }
            }
            _ => StartError::Jail(e),
        })?),
        None => None,
    };
    let cgroup = BotCgroup::create();
    // A jail forks the bot's first process anyway (the pid namespace's first process at
    // level 1, the bot beside its helper at level 2): born in the cgroup, it spares the
    // move into it.
    let born_in_jail = match (&mut prepared, &cgroup) {
        (Some(prepared), Some(cgroup)) if cgroup::born_into_works() => {
            prepared.jail.cgroup = Some(cgroup.path().to_path_buf());
            true
        }
        _ => false,
    };
    if let Some(prepared) = &mut prepared {
        // Whatever CPU the thread starting it is placed on, the bot starts on every CPU
        // the referee has: its jail's helper moves itself there.
        let cpus = super::cpus::process_cpus();
        prepared.jail.cpus = (0..rustix::thread::CpuSet::MAX_CPU)
            .filter(|&cpu| cpus.is_set(cpu))
            .collect();
    }
    let mut cmd = match &prepared {
        Some(prepared) => prepared.command().map_err(StartError::Jail)?,
        None => {
            let mut cmd = Command::new(&program);
            cmd.args(&args);
            cmd
        }
    };
    if let Some(sb) = &jail {
        cmd.env_clear()
            .env("PATH", SANDBOX_PATH)
            .env("HOME", &sb.workdir)
            .env("TMPDIR", &sb.workdir)
            .env("LANG", "C.UTF-8");
    }
    cmd.envs(&command.env)
        .env(sandbox::TOKEN_VAR, &token)
        .process_group(0);
    if let Some(dir) = cwd.as_ref().filter(|_| prepared.is_none()) {
        cmd.current_dir(dir);
    }
    let join = cgroup
        .as_ref()
        .filter(|_| !born_in_jail)
        .map(BotCgroup::procs_fd);
    let report = match &prepared {
        Some(prepared) => Some(prepared.report().map_err(StartError::Report)?),
        None => None,
    };
    if let Some(report) = &report {
        cmd.env(report::VAR, report.name());
    }
    match (&prepared, join) {
        // The jail does the rest itself: with no code of ours between the helper's fork
        // and its exec, the helper is started by posix_spawn, a vfork (see super::report).
        (Some(_), None) => {}
        // SAFETY: join makes one raw system call.
        (Some(_), Some(procs)) => unsafe {
            cmd.pre_exec(move || {
                cgroup::join(procs);
                Ok(())
            });
        },
        (None, join) => {
            let plan = ChildPlan {
                limits: confine.limits,
                uid: jail.as_ref().map(|sb| sb.uid),
                no_network: jail.is_some() && sandbox::network_isolation_works(),
            };
            let cpus = *super::cpus::process_cpus();
            // SAFETY: join, unplace_child and confine_child make raw system calls only
            // (no allocation, no locks). The cgroup is joined first, while the child may
            // still write its files.
            unsafe {
                cmd.pre_exec(move || {
                    super::cpus::unplace_child(&cpus);
                    if let Some(procs) = join {
                        cgroup::join(procs);
                    }
                    sandbox::confine_child(&plan)
                })
            };
        }
    }
    Ok(Launch {
        cmd,
        token,
        sandbox: jail,
        jail: prepared,
        cgroup,
        report,
    })
}
