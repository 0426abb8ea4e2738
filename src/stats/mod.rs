//! League arithmetic: points, the course mark, head-to-head scores.

pub mod elo;
pub mod league;
pub mod sprt;
