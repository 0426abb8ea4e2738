//! `arbiter`: the command line, a thin main over the library's `cli` (src/cli/).

fn main() {
    std::process::exit(arbiter::cli::main());
}
