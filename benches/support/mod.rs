//! What several benchmarks share: the release binary they run as a subprocess.

use std::path::PathBuf;
use std::process::Command;

/// The release `arbiter` binary, built if needed with the `arbiter-jail` that builds its
/// bots' jails; or `$BENCH_ARBITER`, another build of it (an earlier commit's, say), for
/// the figures a bench takes of the command line.
pub fn arbiter_binary() -> PathBuf {
    if let Some(other) = std::env::var_os("BENCH_ARBITER").filter(|p| !p.is_empty()) {
        let other = PathBuf::from(other);
        assert!(
            other.is_file(),
            "BENCH_ARBITER: {} is missing",
            other.display()
        );
        return other;
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let status = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--release", "--quiet", "--bins"])
        .current_dir(&root)
        .status()
        .expect("cargo runs");
    assert!(status.success(), "cargo build --release --bins failed");
    let bin = target.join("release").join("arbiter");
    assert!(bin.is_file(), "{} is missing", bin.display());
    bin
}
