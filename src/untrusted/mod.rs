//! What came from a bot or a submission, handled as hostile: files read back from a folder
//! a bot could write (no link, FIFO or device followed or opened; bounded reads), archives
//! unpacked within limits, and text made safe for where it is shown (a terminal, a CSV cell);
//! and the harness's own outputs: written whole or not at all (`file::write_atomic`), their
//! packed parts deflated (`deflate`).
//!
//! It sits on the lowest floor so that every room that touches a bot's files or text (bots,
//! tournament, report, cli) goes through the same door.

pub mod archive;
pub mod deflate;
pub mod file;
pub mod text;
