//! The course environment a Java player is written against (`GomokuBoard`, `GomokuPlayer`,
//! `Move`, `SequencePlayer`, `RandomPlayer`), embedded in arbiter with the protocol driver,
//! and the JDK programs that compile and run players.

/// The course's board: constants and the methods a player may simulate with.
pub(crate) const GOMOKU_BOARD: &str = include_str!("../../../bots/java/GomokuBoard.java");
/// The course's abstract player class.
pub(crate) const GOMOKU_PLAYER: &str = include_str!("../../../bots/java/GomokuPlayer.java");
/// The course's move class.
pub(crate) const MOVE: &str = include_str!("../../../bots/java/Move.java");
/// The course's example player: the first empty cell, row by row.
pub(crate) const SEQUENCE_PLAYER: &str = include_str!("../../../bots/java/SequencePlayer.java");
/// The course's example player: a random empty cell.
pub(crate) const RANDOM_PLAYER: &str = include_str!("../../../bots/java/RandomPlayer.java");
/// The protocol driver: `java ArbiterDriver CLASS_NAME`.
pub(crate) const DRIVER: &str = include_str!("../../../bots/java/ArbiterDriver.java");

/// The course environment, class name and source (default package).
pub const ENVIRONMENT: [(&str, &str); 5] = [
    ("GomokuBoard", GOMOKU_BOARD),
    ("GomokuPlayer", GOMOKU_PLAYER),
    ("Move", MOVE),
    ("SequencePlayer", SEQUENCE_PLAYER),
    ("RandomPlayer", RANDOM_PLAYER),
];
/// The environment's classes that are players (they extend `GomokuPlayer`).
pub(super) const ENVIRONMENT_PLAYERS: [&str; 2] = ["SequencePlayer", "RandomPlayer"];

/// The compiler used unless `ARBITER_JAVAC` names another.
pub const DEFAULT_JAVAC: &str = "javac";
/// The runtime used unless `ARBITER_JAVA` names another.
pub const DEFAULT_JAVA: &str = "java";
/// Extra JVM options (whitespace-separated), placed after arbiter's so that they win.
pub(crate) const JAVA_OPTS_VAR: &str = "ARBITER_JAVA_OPTS";

pub(crate) fn javac_program() -> String {
    std::env::var("ARBITER_JAVAC").unwrap_or_else(|_| DEFAULT_JAVAC.to_string())
}

pub(crate) fn java_program() -> String {
    std::env::var("ARBITER_JAVA").unwrap_or_else(|_| DEFAULT_JAVA.to_string())
}

/// A source of the course environment, moved into the player's package when it declares one.
pub(super) fn in_package(source: &str, package: Option<&str>) -> String {
    match package {
        Some(p) => format!("package {p};\n{source}"),
        None => source.to_string(),
    }
}
