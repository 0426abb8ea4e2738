fn main() {
    std::process::exit(arbiter::cli::main());
}
