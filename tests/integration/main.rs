//! Integration tests: the `arbiter` binary as its users run it.

mod bots_asalto;
mod bots_common;
mod bots_course;
mod bots_process;
mod common;
mod league;
mod sprt;
mod zoo;
