//! `arbiter-jail confine JAIL`: builds a bot's jail and starts the bot in it, as
//! `arbiter confine JAIL` does, in a program of its own: it holds the jail's code alone, so
//! it starts sooner than arbiter (each jailed bot starts through it).

fn main() {
    std::process::exit(arbiter::jail::helper::main());
}
