//! Graders: a bot or program judged on a fixed set of cases by a course's rules, rather
//! than by games against other bots. They sit beside `tournament`, run untrusted programs
//! through `bots` and print through `report`.
//!
//! - [`advance`]: the Advance position suite (levels 4 to 7) and the course's gated mark.
//! - [`battle`]: the Battle solver checker (`arbiter solve battle`): run a solver per
//!   case, replay its plan, compare its score and node counts with the exact search.

pub mod advance;
pub mod battle;
