//! League arithmetic: points, the course mark, head-to-head scores.

pub mod league;
