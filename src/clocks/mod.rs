//! The clocks: what a move is charged, fair to both bots.
//!
//! A move's deadline ([`deadline`]) moves by what follows. The waiting bot is frozen
//! ([`freeze`]), a pause of the whole run charges no one ([`pause`]), a game's processes
//! share one CPU ([`placement`]), and a move that other programs kept from running is given
//! that wait back ([`runqueue`]).

pub mod deadline;
pub mod freeze;
pub mod pause;
pub mod placement;
pub mod runqueue;
