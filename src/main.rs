//! `arbiter`: the command line, a thin main over the library's `cli` (src/cli/).

fn main() {
    // At most two malloc arenas: glibc gives a thread that finds an arena busy one of its
    // own, each reserving 64 MiB of address space, so a run's threads (games, the live
    // state's keeper, the figures drawn at once) on a loaded machine could exhaust an
    // address-space limit (`ulimit -v`, a cluster's) that the run's memory never nears.
    // SAFETY: mallopt only sets the allocator's parameter, before any thread starts.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
    std::process::exit(arbiter::cli::main());
}
