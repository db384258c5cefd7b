//! Helpers shared by the test modules: paths, the golden-text harness (`equivalence`,
//! `corpus`, `opentofu`), and the submodules below.
//!
//! Everything here is plain std (plus `serde_json`, already a dependency of the
//! crate) so the harness adds nothing to `Cargo.toml`.

pub mod bin;
pub mod check;
pub mod comment;
pub mod fake_github;
pub mod golden;
pub mod publishing;
pub mod secrets;
pub mod temp;
pub mod tools;
pub mod workflow_commands;

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod capture;
mod lines;
mod normalise;
mod run;
mod suites;
pub use capture::*;
pub use lines::*;
pub use normalise::*;
pub use run::*;
pub use suites::*;

pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixtures_dir() -> PathBuf {
    manifest_dir().join("tests/fixtures")
}

/// `../shared` (reference material outside the repository), if present.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared"));
    dir.is_dir().then_some(dir)
}

/// Sorted `(name, path)` of the sub-directories of `root` (one per case).
pub fn case_dirs(root: &Path) -> Vec<(String, PathBuf)> {
    let entries =
        std::fs::read_dir(root).unwrap_or_else(|e| panic!("cannot read {}: {e}", root.display()));
    let mut cases: Vec<(String, PathBuf)> = entries
        .map(|e| e.expect("read_dir entry").path())
        .filter(|p| p.is_dir())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    cases.sort();
    cases
}

/// The sub-directories of `root` holding a `plan.json`, sorted; at least `at_least` of
/// them, so that a fixture folder moved away fails instead of testing nothing.
pub fn plan_cases(root: &Path, at_least: usize) -> Vec<PathBuf> {
    let dirs: Vec<PathBuf> = case_dirs(root)
        .into_iter()
        .map(|(_, path)| path)
        .filter(|p| p.join("plan.json").exists())
        .collect();
    assert!(
        dirs.len() >= at_least,
        "fixtures missing under {}",
        root.display()
    );
    dirs
}

pub fn read_text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Names listed in a list file such as `tests/fixtures/equivalence/BLESSED`:
/// one per line, `#` starts a comment, blank lines ignored.
pub fn read_name_list(path: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}
