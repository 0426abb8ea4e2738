//! The build's identity, which the two programs of a build share: `arbiter` writes it in
//! each jail's description, and the `arbiter-jail` beside it builds the jail only when its
//! own is the same. A hash of the sources and the locked dependencies: `cargo run` relinks
//! `arbiter` alone, and the `arbiter-jail` an earlier build left may no longer read what
//! this one writes.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=Cargo.lock");
    let mut files = Vec::new();
    sources(Path::new("src"), &mut files);
    files.push(PathBuf::from("Cargo.lock"));
    files.sort();
    let mut hasher = DefaultHasher::new();
    for file in files {
        file.hash(&mut hasher);
        std::fs::read(&file).unwrap_or_default().hash(&mut hasher);
    }
    println!("cargo:rustc-env=ARBITER_BUILD={:016x}", hasher.finish());
}
