//! Options that confine bot programs: resource limits and the sandbox (docs/SECURITY.md).

use crate::bots::sandbox;
use crate::bots::spec::{Confinement, Limits, SandboxMode};
use crate::error::Error;

#[derive(clap::Args, Clone, Debug, Default)]
pub struct ConfineArgs {
    /// Address-space limit of each bot process in MiB: allocations beyond it fail (the
    /// bot loses by `memory` when that can be told, else `crash`).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub memory_mb: Option<u64>,
    /// CPU seconds each bot process may use in a whole game (the bot loses by `cpu`).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub cpu_s: Option<u64>,
    /// The largest file a bot may write, in MiB (the bot loses by `file_size`).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub file_mb: Option<u64>,
    /// Bot isolation: `none`, or `user` (each bot under its own uid, in a private
    /// folder, without network; needs root).
    #[arg(long, value_enum, default_value = "none")]
    pub sandbox: SandboxMode,
    /// Seconds a submission's build (a C# project's `dotnet build`) may take before it is
    /// killed and the bot loses by `spawn_failed` (default 300).
    #[arg(long, value_name = "S", value_parser = clap::value_parser!(u64).range(1..))]
    pub build_limit_s: Option<u64>,
}

impl ConfineArgs {
    pub fn confinement(&self) -> Confinement {
        Confinement {
            limits: Limits {
                memory_mb: self.memory_mb,
                cpu_s: self.cpu_s,
                file_mb: self.file_mb,
                procs: None,
            },
            sandbox: self.sandbox,
            build_s: self.build_limit_s,
        }
    }
}

/// A usage error when a bot's confinement cannot be had here (`--sandbox user` without
/// root).
pub fn check(name: &str, confine: &Confinement) -> Result<(), Error> {
    match sandbox::unavailable(confine.sandbox) {
        Some(why) => Err(Error::usage(format!("bot {name}: {why}"))),
        None => Ok(()),
    }
}

/// `arbiter confine JAIL`: never returns when the jail is built; else says which step
/// failed and exits with the status the referee reads as a failed start.
pub fn enter(jail: &str) -> i32 {
    use crate::bots::confine::jail;
    let failed = match serde_json::from_str::<jail::Jail>(jail) {
        Ok(plan) => jail::enter(&plan).0,
        Err(e) => format!("the jail's description: {e}"),
    };
    eprintln!("arbiter confine: {failed}");
    jail::SETUP_FAILED
}
