//! Integration tests: the `arbiter` binary as its users run it.

mod adapters_hinger;
mod adapters_java;
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
mod grade_book;
mod hostile_files;
mod hostile_submissions;
mod hostile_text;
mod jail_holds;
mod journal;
mod layout;
mod league;
mod openings;
mod outputs;
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
mod zoo;
mod zoo_java;
mod zoo_promises;

/// Python bots in these tests run on the system's Python, `/usr/bin/python3` (which
/// tests/install provides, numpy included), wherever `ARBITER_PYTHON` names none: the one
/// they get where arbiter runs as nobody, and now as root too. A version manager's
/// `python3` on PATH (a pyenv shim, then its interpreter with its own site-packages) takes
/// 60-120 ms of CPU to start a bot where the system's takes 16 ms, and the tests start
/// thousands of bots, in this process and in the arbiter processes it starts, which inherit
/// the variable.
#[used]
#[unsafe(link_section = ".init_array")]
static SYSTEM_PYTHON: extern "C" fn() = system_python;

extern "C" fn system_python() {
    let system = std::path::Path::new("/usr/bin/python3");
    if std::env::var_os(arbiter::bots::python::PYTHON_VAR).is_none() && system.is_file() {
        // SAFETY: run from .init_array, before main: no other thread reads the environment.
        unsafe { std::env::set_var(arbiter::bots::python::PYTHON_VAR, system) };
    }
}
