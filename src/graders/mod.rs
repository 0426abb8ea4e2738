//! Graders: programs judged on fixed cases rather than played against each other.
//!
//! - [`battle`]: the Battle solver checker (`arbiter solve battle`): run a solver per
//!   case, replay its plan, compare its score and node counts with the exact search.

pub mod battle;
