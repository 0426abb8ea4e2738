//! Course-style Java Gomoku players (a top-level class that is a `GomokuPlayer`), compiled
//! with `javac` in the course's environment and run through the driver in
//! bots/java/ArbiterDriver.java, which speaks the protocol on the player's behalf.
//!
//! The course environment (`GomokuBoard`, `GomokuPlayer`, `Move`, `SequencePlayer`,
//! `RandomPlayer`, from docs/rules/gomoku.md) and the driver are embedded in arbiter.
//! A player's file is compiled alone, with its own folder and then the environment as
//! source paths: javac pulls in exactly the classes the player uses, the player's own
//! before ours (arbiter adds the files of helpers javac cannot find by name), and a broken
//! unrelated file in the folder plays no part. The class files
//! go to a cache folder named after a hash of everything javac could read, under
//! `$ARBITER_JAVA_CACHE` or the system's temporary folder. Compilation happens at the
//! player's first start; parallel games of one league wait for one compilation, and a
//! compile error is remembered for the rest of the run (each game is then a
//! `spawn_failed` with javac's message).
//!
//! A Java player is then an ordinary bot program: the same spawn path, limits and sandbox
//! as every other (its class files travel into the sandbox as a private copy), with JVM
//! flags derived from the memory limit so that the JVM fits in its address space.

mod cds;
mod compile;
mod discovery;
mod driver;
mod environment;
#[cfg(test)]
mod tests;

pub(crate) use compile::trusted_cache_root;
pub use compile::{compile, compile_confined, compile_with};
pub(crate) use compile::{compile_into_place, run_javac};
pub(crate) use discovery::is_course_class;
pub use discovery::{default_name, player_class};
pub use driver::{JavaPlayer, min_memory_mb};
pub(crate) use driver::{jvm_command, memory_flags};
pub(crate) use environment::JAVA_OPTS_VAR;
pub use environment::{DEFAULT_JAVA, DEFAULT_JAVAC, ENVIRONMENT};
pub(crate) use environment::{java_program, javac_program};
