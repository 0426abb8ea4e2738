//! Options that confine bot programs: resource limits and the sandbox (docs/SECURITY.md).

use crate::bots::spec::{Confinement, Limits, SandboxMode};
use crate::error::Error;
use crate::jail::sandbox;

#[derive(clap::Args, Clone, Debug, Default)]
pub(crate) struct ConfineArgs {
    /// Address-space limit of each bot process in MiB: allocations beyond it fail (the
    /// bot loses by `memory` when that can be told, else `crash`).
    #[arg(help_heading = "Limits and confinement", long, value_parser = clap::value_parser!(u64).range(1..))]
    pub memory_mb: Option<u64>,
    /// CPU seconds each bot process may use in a whole game (the bot loses by `cpu`).
    #[arg(help_heading = "Limits and confinement", long, value_parser = clap::value_parser!(u64).range(1..))]
    pub cpu_s: Option<u64>,
    /// The largest file a bot may write, in MiB (the bot loses by `file_size`).
    #[arg(help_heading = "Limits and confinement", long, value_parser = clap::value_parser!(u64).range(1..))]
    pub file_mb: Option<u64>,
    /// How bot programs are confined: `auto` (the default: namespaces where user
    /// namespaces work, else Landlock and seccomp; `arbiter doctor` says which),
    /// `namespaces`, `landlock`, `none` (bots run as you, unconfined: only for bots you
    /// trust), or `user` (as root: each bot under its own uid).
    #[arg(
        help_heading = "Limits and confinement",
        long,
        value_enum,
        default_value = "auto"
    )]
    pub sandbox: SandboxMode,
    /// Seconds a submission's build (a C# project's `dotnet build`) may take before it is
    /// killed and the bot loses by `spawn_failed` (default 300).
    #[arg(help_heading = "Limits and confinement", long, value_name = "S", value_parser = clap::value_parser!(u64).range(1..))]
    pub build_limit_s: Option<u64>,
    /// Let bots run on any CPU. By default a game's bot processes share one CPU with its
    /// referee while the game is played: one of them works at a time, and handing a move
    /// over within a CPU is faster than waking another. Spread, a bot's threads may use
    /// every core, and moves take longer to hand over.
    #[arg(help_heading = "Limits and confinement", long)]
    pub spread_bots: bool,
}

impl ConfineArgs {
    pub(crate) fn confinement(&self) -> Confinement {
        Confinement {
            limits: Limits {
                memory_mb: self.memory_mb,
                cpu_s: self.cpu_s,
                file_mb: self.file_mb,
                procs: None,
            },
            sandbox: self.sandbox,
            build_s: self.build_limit_s,
            spread: self.spread_bots,
        }
    }
}

/// A usage error when a bot's confinement cannot be had here (`--sandbox user` without
/// root).
pub(crate) fn check(name: &str, confine: &Confinement) -> Result<(), Error> {
    if let Some(why) = sandbox::unavailable(confine.sandbox) {
        return Err(Error::usage(format!("bot {name}: {why}")));
    }
    crate::jail::level_for(confine.sandbox)
        .map(|_| ())
        .map_err(|why| Error::usage(format!("bot {name}: {why}")))
}

/// `confinement: LEVEL` for a run's summary: how its bot programs were confined, and what
/// the level does not give; `None` for a run of built-ins only.
pub(crate) fn summary_line(entrants: &[crate::tournament::Entrant]) -> Option<String> {
    use crate::bots::spec::BotSpec;
    let mut levels: Vec<String> = Vec::new();
    let mut caveats: Vec<&str> = Vec::new();
    let mut caps: Vec<String> = Vec::new();
    for e in entrants
        .iter()
        .filter(|e| !matches!(e.spec, BotSpec::Builtin(_)))
    {
        let name = match crate::jail::level_for(e.confine.sandbox) {
            Ok(Some(level)) => {
                caveats.extend(level.caveat());
                let described = crate::jail::caps::describe(&e.confine.effective_limits());
                if !caps.contains(&described) {
                    caps.push(described);
                }
                level.name().to_string()
            }
            Ok(None) if e.confine.sandbox == crate::bots::spec::SandboxMode::None => {
                "none (bots ran as you, unconfined)".to_string()
            }
            Ok(None) => e.confine.sandbox.name().to_string(),
            Err(_) => continue,
        };
        if !levels.contains(&name) {
            levels.push(name);
        }
    }
    if levels.is_empty() {
        return None;
    }
    caveats.dedup();
    let caveat = caveats
        .first()
        .map(|c| format!(" ({c})"))
        .unwrap_or_default();
    let caps = match caps.as_slice() {
        [] => String::new(),
        [one] => format!("; caps per bot: {one}"),
        _ => "; caps per bot: as each bot's limits say".to_string(),
    };
    Some(format!("confinement: {}{caveat}{caps}", levels.join(", ")))
}
