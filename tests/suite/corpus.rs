//! Optional tests against the reference corpus in `../shared` (not part of the
//! repository). Each test is ignored where `../shared` is absent (build.rs sets the
//! `planmark_shared` cfg), so `cargo test` counts it as not run.
//!
//! The Terraform HEAD fixtures (`equivalence-tests/head/`) are BUSL-1.1: they
//! are read from `../shared` here and must never be copied into the repository.

use crate::support;

use std::path::{Path, PathBuf};
use support::*;

const EQUIVALENCE: &str = "corpus/terraform-testdata/equivalence-tests";

/// `../shared`: these tests are ignored where it is absent (build.rs decides), so here it
/// must be present.
fn shared() -> PathBuf {
    shared_dir()
        .expect("../shared was present when the tests were built but is gone; run `touch build.rs`")
}

fn head_outputs(shared: &Path) -> PathBuf {
    shared.join(EQUIVALENCE).join("head/outputs")
}

/// The 50 HEAD cases; `expected` = their `plan` capture stripped by the same
/// rule as the repository fixtures.
fn head_cases(shared: &Path, with_schemas: bool) -> Vec<GoldenCase> {
    case_dirs(&head_outputs(shared))
        .into_iter()
        .map(|(name, dir)| {
            let expected = strip_non_renderer(&read_text(&dir.join("plan")))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            GoldenCase {
                name,
                plan: dir.join("plan.json"),
                schemas: with_schemas.then(|| dir.join("schemas.json")),
                expected,
            }
        })
        .collect()
}

/// (a) The newest Terraform's text, byte for byte. No `--mode`:
/// `drift_refresh_only` / `moved_with_refresh_only` (refresh-only) and
/// `fully_populated_complex_destroy` (destroy) must be inferred.
#[test]
#[cfg_attr(
    not(planmark_shared),
    ignore = "needs ../shared (Terraform's corpus); see tests/README.md"
)]
fn head_with_schemas_is_byte_identical() {
    let shared = shared();
    let cases = head_cases(&shared, true);
    assert_eq!(cases.len(), 50, "expected the 50 HEAD equivalence cases");
    if let Err(report) = exact_suite("Terraform HEAD --schemas", &cases) {
        panic!("\n{report}");
    }
}

/// (b) The same 50 without schemas: headers identical, ≥ 90 % of lines.
#[test]
#[cfg_attr(
    not(planmark_shared),
    ignore = "needs ../shared (Terraform's corpus); see tests/README.md"
)]
fn head_without_schemas_keeps_headers_and_most_lines() {
    let shared = shared();
    let cases = head_cases(&shared, false);
    if let Err(report) = fuzzy_suite("Terraform HEAD, no --schemas", &cases, 0.90) {
        panic!("\n{report}");
    }
}

/// (c) Blessed fixtures (planmark's own output, stored because the copyable
/// 1.5 text predates the 1.8 list diff) must equal Terraform HEAD's text.
#[test]
#[cfg_attr(
    not(planmark_shared),
    ignore = "needs ../shared (Terraform's corpus); see tests/README.md"
)]
fn blessed_fixtures_equal_head() {
    let shared = shared();
    let root = fixtures_dir().join("equivalence");
    let mut failures = String::new();
    for name in read_name_list(&root.join("BLESSED")) {
        let stored = root.join(&name).join("expected.txt");
        if !stored.is_file() {
            eprintln!("note: {name} is not blessed yet (no expected.txt)");
            continue;
        }
        let head = head_outputs(&shared).join(&name).join("plan");
        let want = strip_non_renderer(&read_text(&head)).expect("strip HEAD capture");
        let have = read_text(&stored);
        if want != have {
            failures.push_str(&format!("\n--- {name}\n{}", compact_diff(&want, &have, 30)));
        }
    }
    assert!(
        failures.is_empty(),
        "blessed expected.txt differs from Terraform HEAD (-head / +stored) {MARKER_LEGEND}\n{failures}"
    );
}

/// The repository fixtures are what ORIGIN.md says they are: the MPL files
/// byte for byte (`expected.txt` = stripped `plan`), and the real plans.
#[test]
#[cfg_attr(
    not(planmark_shared),
    ignore = "needs ../shared (Terraform's corpus); see tests/README.md"
)]
fn fixtures_match_their_shared_sources() {
    let shared = shared();
    let mpl = shared.join(EQUIVALENCE).join("mpl-2023-08/outputs");
    let root = fixtures_dir().join("equivalence");
    let blessed = read_name_list(&root.join("BLESSED"));
    let source_names: Vec<String> = case_dirs(&mpl).into_iter().map(|(n, _)| n).collect();
    let fixture_names: Vec<String> = case_dirs(&root).into_iter().map(|(n, _)| n).collect();
    assert_eq!(fixture_names, source_names, "fixture cases != MPL cases");
    for name in &source_names {
        let (src, dst) = (mpl.join(name), root.join(name));
        for f in ["plan.json", "schemas.json"] {
            assert!(
                same_bytes(&src.join(f), &dst.join(f)),
                "{name}/{f} differs from its source"
            );
        }
        if !blessed.contains(name) {
            let want = strip_non_renderer(&read_text(&src.join("plan"))).unwrap();
            assert_eq!(
                read_text(&dst.join("expected.txt")),
                want,
                "{name}/expected.txt"
            );
        }
    }
    let real = shared.join("corpus/real-plans/plans");
    for (name, src) in case_dirs(&real) {
        for f in ["plan.json", "plan.txt", "schemas.json"] {
            let dst = fixtures_dir().join("real-plans").join(&name).join(f);
            assert!(
                same_bytes(&src.join(f), &dst),
                "real-plans/{name}/{f} differs from its source"
            );
        }
    }
}

/// The stripping rule holds on all 100 captures (HEAD and MPL), not only on
/// the ones stored in the repository.
#[test]
#[cfg_attr(
    not(planmark_shared),
    ignore = "needs ../shared (Terraform's corpus); see tests/README.md"
)]
fn strip_rule_holds_on_every_capture() {
    let shared = shared();
    let rule = horizontal_rule();
    for set in ["head/outputs", "mpl-2023-08/outputs"] {
        for (name, dir) in case_dirs(&shared.join(EQUIVALENCE).join(set)) {
            let raw = read_text(&dir.join("plan"));
            let text = strip_non_renderer(&raw).unwrap_or_else(|e| panic!("{set}/{name}: {e}"));
            assert!(text.starts_with('\n'), "{set}/{name}");
            assert!(
                text.ends_with('\n') && !text.ends_with("\n\n"),
                "{set}/{name}"
            );
            assert!(!text.contains("Refreshing state...") && !text.contains("Saved the plan"));
            // Only hook lines were cut at the top, and at the end exactly
            // "\n" + rule + "\n\nSaved the plan to: …", or nothing.
            let start = raw.find(&text).unwrap_or_else(|| panic!("{set}/{name}"));
            assert!(raw[..start]
                .lines()
                .all(|l| l.contains(": Refreshing state...")));
            let cut = &raw[start + text.len()..];
            let footer = format!("\n{rule}\n\nSaved the plan to: ");
            assert!(cut.is_empty() || cut.starts_with(&footer), "{set}/{name}");
        }
    }
}

fn same_bytes(a: &Path, b: &Path) -> bool {
    matches!((std::fs::read(a), std::fs::read(b)), (Ok(x), Ok(y)) if x == y)
}

/// Rebuilds `tests/fixtures/{equivalence,real-plans}` from `../shared`. Only the
/// MPL-2.0 set and the real plans are copied (licence rule); the cases in
/// `BLESSED` get no `expected.txt` from the 1.5 text.
/// Run: `cargo test --test suite -- --ignored corpus::import_fixtures_from_shared`.
#[test]
#[ignore = "writes tests/fixtures from ../shared; run it explicitly"]
fn import_fixtures_from_shared() {
    let shared = shared_dir().expect("../shared is needed to import fixtures");
    let mpl = shared.join(EQUIVALENCE).join("mpl-2023-08/outputs");
    let root = fixtures_dir().join("equivalence");
    let blessed = read_name_list(&root.join("BLESSED"));
    assert!(
        !blessed.is_empty(),
        "create tests/fixtures/equivalence/BLESSED first"
    );
    for (name, src) in case_dirs(&mpl) {
        let dst = root.join(&name);
        std::fs::create_dir_all(&dst).unwrap();
        for f in ["plan.json", "schemas.json"] {
            std::fs::copy(src.join(f), dst.join(f)).unwrap();
        }
        if !blessed.contains(&name) {
            let text = strip_non_renderer(&read_text(&src.join("plan"))).unwrap();
            std::fs::write(dst.join("expected.txt"), text).unwrap();
        }
    }
    for (name, src) in case_dirs(&shared.join("corpus/real-plans/plans")) {
        let dst = fixtures_dir().join("real-plans").join(&name);
        std::fs::create_dir_all(&dst).unwrap();
        for f in ["plan.json", "plan.txt", "schemas.json"] {
            std::fs::copy(src.join(f), dst.join(f)).unwrap();
        }
    }
}
