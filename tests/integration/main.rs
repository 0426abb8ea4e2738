//! Integration tests: the `arbiter` binary as its users run it.

mod adapters_hinger;
mod adapters_java;
mod battle;
mod bots_asalto;
mod bots_common;
mod bots_console;
mod bots_course;
mod bots_process;
mod common;
mod differential;
mod differential_java;
mod games;
mod league;
mod openings;
mod outputs;
mod play;
mod readme;
mod replay;
mod replay_page;
mod resume;
mod sprt;
mod submissions;
mod suite;
mod zoo;
mod zoo_java;
mod zoo_promises;
