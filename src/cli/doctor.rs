//! `arbiter doctor`: what this machine gives for confining bots, and the runtimes found.

use crate::jail;

pub(crate) fn run() -> i32 {
    let layers = jail::verify();
    let yes_no = |r: &Result<(), String>| match r {
        Ok(()) => "yes".to_string(),
        Err(e) => format!("no ({e})"),
    };
    say!("user namespaces: {}", yes_no(&layers.user_namespaces));
    say!(
        "Landlock: {}",
        match &layers.landlock {
            Ok(abi) => format!("yes (ABI {abi})"),
            Err(e) => format!("no ({e})"),
        }
    );
    say!("seccomp: {}", yes_no(&layers.seccomp));
    // After the trials: an `arbiter-jail` of another build is known by then.
    match (
        jail::helper_program(),
        jail::jail_program_of_another_build(),
    ) {
        (Some(program), Some(stale)) => say!(
            "jails are built by: {} ({} is of another build: `cargo build --release` builds both)",
            program.display(),
            stale.display()
        ),
        (Some(program), None) => say!("jails are built by: {}", program.display()),
        (None, _) => say!("jails are built by: nothing found (set ARBITER_EXE)"),
    }
    for program in ["python3", "java", "javac", "dotnet"] {
        let found = std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|d| d.join(program))
                .find(|p| p.is_file())
        });
        match found {
            Some(path) => say!("{program}: {}", path.display()),
            None => say!("{program}: not found"),
        }
    }
    match layers.level() {
        Some(level) => {
            say!(
                "bots are confined at level {} ({}){}",
                if level == jail::Level::Namespaces {
                    1
                } else {
                    2
                },
                level.name(),
                level.caveat().map(|c| format!(": {c}")).unwrap_or_default()
            );
            if level == jail::Level::Landlock
                && let Ok(abi) = &layers.landlock
                && *abi < 6
            {
                say!(
                    "Landlock ABI {abi} has no signal scope (ABI 6, Linux 6.12): bots can signal \
                     your other processes"
                );
            }
            say!(
                "each jailed bot is capped by default at {} (--memory-mb and --file-mb raise \
                 them): enough for a course bot that loads numpy and a model file of a few \
                 hundred MB, or a JVM, and no more, so that no bot can take the machine",
                jail::caps::describe(&crate::bots::spec::Confinement::default().effective_limits())
            );
            if let Some(file) = jail::kept_finding() {
                say!(
                    "the runs that follow on this boot take this finding from {} instead of trying again",
                    file.display()
                );
            }
            crate::error::exit::DONE
        }
        None => {
            say!(
                "bots cannot be confined here: {}; only --sandbox none runs them (as you)",
                layers.why_none()
            );
            crate::error::exit::FAILED
        }
    }
}
