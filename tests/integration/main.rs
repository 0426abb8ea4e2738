//! Integration tests: the `arbiter` binary as its users run it.

mod adapters_hinger;
mod adapters_java;
mod autograde;
mod battle;
mod bots_asalto;
mod bots_common;
mod bots_console;
mod bots_course;
mod bots_process;
mod cdp;
mod class_download;
mod clocks;
mod common;
mod confinement;
mod differential;
mod differential_java;
mod games;
mod golden;
mod grade_book;
mod grade_files;
mod handed_out;
mod hostile_files;
mod hostile_submissions;
mod hostile_text;
mod jail_holds;
mod journal;
mod layout;
mod league;
mod league_honesty;
mod league_update;
mod openings;
mod outputs;
mod own_submission;
mod paper;
mod play;
mod prestart;
mod ratings;
mod readme;
mod replay;
mod replay_page;
mod report;
mod resume;
mod shard;
mod sprt;
mod submissions;
mod suite;
mod two_cpus;
mod visibility;
mod watch;
mod wording;
mod zoo;
mod zoo_java;
mod zoo_promises;

/// Python bots in these tests run on the system's Python, `/usr/bin/python3` (which
/// tests/install provides, numpy included): the one they get where arbiter runs as nobody,
/// and now as root too. A version manager's `python3` on PATH (a pyenv shim, then its
/// interpreter with its own site-packages) takes 60-120 ms of CPU to start a bot where the
/// system's takes 16 ms, and the tests start thousands of bots, in this process and in the
/// arbiter processes it starts, which inherit the environment. So `ARBITER_PYTHON` names
/// it (for `.py` bots given no interpreter), and `python3` on PATH is it (for commands that
/// name `python3`, as the README's and the zoo's do): a folder holding only a `python3`
/// link to it comes first on PATH. Where `ARBITER_PYTHON` is set already, nothing changes.
#[used]
#[unsafe(link_section = ".init_array")]
static SYSTEM_PYTHON: extern "C" fn() = system_python;

extern "C" fn system_python() {
    use std::path::Path;
    let system = Path::new("/usr/bin/python3");
    if std::env::var_os(arbiter::bots::python::PYTHON_VAR).is_some() || !system.is_file() {
        return;
    }
    let folder = Path::new(env!("CARGO_TARGET_TMPDIR")).join("system-python");
    let link = folder.join("python3");
    if std::fs::read_link(&link).ok().as_deref() != Some(system) {
        // Made aside and renamed into place: tests start at once in many processes.
        let aside = folder.join(format!(".python3.{}", std::process::id()));
        let made = std::fs::create_dir_all(&folder)
            .and_then(|()| std::os::unix::fs::symlink(system, &aside))
            .and_then(|()| std::fs::rename(&aside, &link));
        if made.is_err() {
            let _ = std::fs::remove_file(&aside);
        }
    }
    let mut path = vec![folder];
    path.extend(
        std::env::var_os("PATH")
            .iter()
            .flat_map(std::env::split_paths),
    );
    // SAFETY: run from .init_array, before main: no other thread reads the environment.
    unsafe {
        std::env::set_var(arbiter::bots::python::PYTHON_VAR, system);
        if let Ok(path) = std::env::join_paths(path) {
            std::env::set_var("PATH", path);
        }
    }
}
