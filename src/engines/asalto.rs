//! Built-in Asalto bots: random, greedy, alphabeta. Placeholder.

use super::{Builtins, Engine};
use crate::games::asalto::Asalto;

impl Builtins for Asalto {
    fn builtin_names(&self) -> &'static [&'static str] {
        &["random", "greedy", "alphabeta"]
    }
    fn builtin(&self, _name: &str, _seed: u64) -> Option<Box<dyn Engine<Self>>> {
        None
    }
}
