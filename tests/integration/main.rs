//! Integration tests: the `arbiter` binary as its users run it.

mod common;
mod league;
mod sprt;
