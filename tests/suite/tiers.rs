//! The suite's two tiers (tests/README.md, "Tiers"): plain `cargo test` runs the fast one
//! and reports the slow tests as ignored; `tests/slow-tier`, which `.ci/run` runs, picks the
//! slow ones by name. A slow test no filter of that script names would never run in CI, and
//! another ignored test (one whose tool or `../shared` is missing, or an importer run only by
//! hand) a filter names would run there and fail or rewrite fixtures: both fail here.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The start of the reason every slow test is ignored with.
const SLOW: &str = "slow tier";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The filters of `tests/slow-tier`: the lines of its `filters=(` … `)` array.
fn filters() -> Vec<String> {
    let script = std::fs::read_to_string(root().join("tests/slow-tier")).expect("tests/slow-tier");
    let mut lines = script.lines().map(str::trim);
    assert!(
        lines.any(|l| l == "filters=("),
        "tests/slow-tier has no `filters=(` line"
    );
    let filters: Vec<String> = lines
        .take_while(|l| *l != ")")
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(String::from)
        .collect();
    assert!(!filters.is_empty(), "tests/slow-tier names no filter");
    filters
}

/// The `.rs` files under `dir`, with the module path each one is (`action/mod.rs` is
/// `action`, `action/runner.rs` is `action::runner`).
fn sources(dir: &Path, module: &str, out: &mut Vec<(String, PathBuf)>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    let join = |name: &str| match module {
        "" => name.to_string(),
        _ => format!("{module}::{name}"),
    };
    for path in entries {
        let stem = path.file_stem().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            sources(&path, &join(&stem), out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let name = match stem.as_str() {
                "mod" | "main" => module.to_string(),
                _ => join(&stem),
            };
            out.push((name, path));
        }
    }
}

/// Every test of the suite's sources that carries an `ignore` (plain or under `cfg_attr`),
/// with its reason: the attribute's string, and the next `fn` is the test.
fn ignored_in_sources() -> Vec<(String, String)> {
    let mut files = Vec::new();
    sources(&root().join("tests/suite"), "", &mut files);
    let mut found = Vec::new();
    for (module, path) in files {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut reason: Option<String> = None;
        for line in text.lines().map(str::trim) {
            let attribute = line
                .strip_prefix("#[ignore = \"")
                .or_else(|| line.strip_prefix("ignore = \""));
            if let Some(rest) = attribute {
                reason = Some(rest.split('"').next().unwrap_or("").to_string());
                continue;
            }
            let Some(r) = reason.as_ref() else { continue };
            let signature = line
                .strip_prefix("async fn ")
                .or_else(|| line.strip_prefix("fn "));
            if let Some(signature) = signature {
                let name = signature.split(['(', '<']).next().unwrap().trim();
                let full = match module.as_str() {
                    "" => name.to_string(),
                    _ => format!("{module}::{name}"),
                };
                found.push((full, r.clone()));
                reason = None;
            }
        }
    }
    found.sort();
    found
}

/// The tests the harness itself reports as ignored on this machine.
fn ignored_by_the_harness() -> Vec<String> {
    let out = Command::new(std::env::current_exe().unwrap())
        .args(["--list", "--ignored"])
        .output()
        .expect("run the suite's --list");
    assert!(out.status.success(), "--list failed: {out:?}");
    let mut names: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_suffix(": test"))
        .map(String::from)
        .collect();
    names.sort();
    names
}

/// The slow tier's script runs every slow test and no other ignored test.
#[test]
fn the_slow_tier_runs_every_slow_test_and_nothing_else_ignored() {
    let filters = filters();
    let ignored = ignored_in_sources();
    let chosen = |name: &str| filters.iter().any(|f| name.contains(f.as_str()));
    let mut wrong = Vec::new();
    for (name, reason) in &ignored {
        let slow = reason.starts_with(SLOW);
        if slow && !chosen(name) {
            wrong.push(format!(
                "{name}: slow, but no filter of tests/slow-tier names it"
            ));
        }
        if !slow && chosen(name) {
            wrong.push(format!(
                "{name}: ignored for \"{reason}\", but tests/slow-tier would run it"
            ));
        }
    }
    for filter in &filters {
        if !ignored
            .iter()
            .any(|(n, r)| r.starts_with(SLOW) && n.contains(filter.as_str()))
        {
            wrong.push(format!("filter {filter}: names no slow test"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The reading of the sources above finds what the harness ignores: every slow test (they
/// are ignored everywhere), and every test the harness ignores on this machine has a
/// reason the sources give.
#[test]
fn the_sources_name_the_ignored_tests_the_harness_lists() {
    let ignored = ignored_in_sources();
    let listed = ignored_by_the_harness();
    let slow: Vec<&String> = ignored
        .iter()
        .filter(|(_, r)| r.starts_with(SLOW))
        .map(|(n, _)| n)
        .collect();
    assert!(!slow.is_empty(), "no test is in the slow tier");
    let mut wrong = Vec::new();
    for name in &slow {
        if !listed.contains(name) {
            wrong.push(format!(
                "{name}: read as slow, but the harness does not ignore it"
            ));
        }
    }
    for name in &listed {
        if !ignored.iter().any(|(n, _)| n == name) {
            wrong.push(format!(
                "{name}: ignored by the harness, but no reason was read"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
