//! OpenTofu's own wording and list pairing, byte for byte against OpenTofu's equivalence
//! tests (MPL-2.0).
//!
//! - `tests/fixtures/opentofu/<case>/`: the 49 cases copied from
//!   `../shared/corpus/opentofu-testdata/equivalence/` (see `ORIGIN.md` there); the
//!   repository-only tests use them.
//! - The `shared_*` tests read the same cases from `../shared` and skip with a note when it
//!   is absent.
//!
//! OpenTofu is told by its providers (`registry.opentofu.org`). `variables_and_outputs`
//! has no resource and no provider, so nothing in it says OpenTofu: it is listed in
//! `NEEDS_TOOL_FLAG` and rendered with `--tool tofu`, as the action does when it runs tofu;
//! without the flag it gets Terraform's wording (checked below).

use crate::support;

use std::path::{Path, PathBuf};
use support::*;

const SHARED_CASES: &str = "corpus/opentofu-testdata/equivalence";

fn fixtures() -> PathBuf {
    fixtures_dir().join("opentofu")
}

fn needs_tool_flag() -> Vec<String> {
    read_name_list(&fixtures().join("NEEDS_TOOL_FLAG"))
}

/// Cases of `root`; `expected` is read by `expected`.
fn cases(root: &Path, expected: impl Fn(&Path) -> String) -> Vec<GoldenCase> {
    case_dirs(root)
        .into_iter()
        .map(|(name, dir)| GoldenCase {
            expected: expected(&dir),
            plan: dir.join("plan.json"),
            schemas: Some(dir.join("schemas.json")),
            name,
        })
        .collect()
}

fn fixture_cases() -> Vec<GoldenCase> {
    cases(&fixtures(), |dir| read_text(&dir.join("expected.txt")))
}

/// OpenTofu's `plan` capture stripped by the rule of the Terraform fixtures.
fn shared_cases(shared: &Path) -> Vec<GoldenCase> {
    cases(&shared.join(SHARED_CASES), |dir| {
        strip_non_renderer(&read_text(&dir.join("expected.txt")))
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
    })
}

/// `../shared`: the tests that read it are ignored where it is absent (build.rs decides),
/// so here it must be present.
fn shared() -> PathBuf {
    shared_dir()
        .expect("../shared was present when the tests were built but is gone; run `touch build.rs`")
}

/// Every case, byte for byte: detected by its providers, or `--tool tofu` for the case
/// naming none.
fn check_all(title: &str, cases: &[GoldenCase]) {
    assert_eq!(cases.len(), 49, "expected OpenTofu's 49 equivalence cases");
    let flagged = needs_tool_flag();
    let result = exact_suite_with(title, cases, |case| {
        if flagged.contains(&case.name) {
            &["--tool", "tofu"]
        } else {
            &[]
        }
    });
    if let Err(report) = result {
        panic!("\n{report}");
    }
}

#[test]
fn opentofu_fixtures_are_byte_identical() {
    check_all("OpenTofu fixtures --schemas", &fixture_cases());
}

/// Detection alone: all but the cases without a provider, which read as Terraform's.
#[test]
fn opentofu_is_detected_from_its_providers() {
    let flagged = needs_tool_flag();
    assert_eq!(flagged, ["variables_and_outputs"]);
    let cases = fixture_cases();
    let (unflagged, flagged_cases): (Vec<GoldenCase>, Vec<GoldenCase>) =
        cases.into_iter().partition(|c| !flagged.contains(&c.name));
    assert_eq!(unflagged.len(), 48);
    if let Err(report) = exact_suite("OpenTofu fixtures, detected", &unflagged) {
        panic!("\n{report}");
    }
    for case in &flagged_cases {
        let plan = read_text(&case.plan);
        assert!(
            !plan.contains("registry.opentofu.org"),
            "{}: names a provider, so it needs no flag",
            case.name
        );
        let run = run_render(&case.plan, case.schemas.as_deref());
        assert!(run.ok(), "{}: {}", case.name, run.describe_failure());
        let want = case.expected.replace("OpenTofu", "Terraform");
        assert_eq!(run.stdout_text(), want, "{}", case.name);
    }
}

/// `--tool terraform` overrides detection: Terraform's words and its 1.8 list pairing.
#[test]
fn tool_flag_overrides_detection() {
    let dir = fixtures().join("basic_list_update");
    let run = run_render_with(
        &dir.join("plan.json"),
        Some(&dir.join("schemas.json")),
        &["--tool", "terraform"],
    );
    assert!(run.ok(), "{}", run.describe_failure());
    let text = run.stdout_text();
    assert!(text.contains("\nTerraform will perform the following actions:\n"));
    assert!(text.contains("\n  ~ update in-place\n"));
    assert!(text.contains(
        "~ \"3EC6EB1F-E372-46C3-A069-00D6E82EC1E1\" -> \"D01290F6-2D3A-45FA-B006-DAA80F6D31F6\","
    ));
    let tofu = read_text(&dir.join("expected.txt"));
    assert!(tofu.contains("\n          - \"3EC6EB1F-E372-46C3-A069-00D6E82EC1E1\",\n"));
    assert!(tofu.contains("\n  ~ update in-place (current -> planned)\n"));
}

/// The comment names OpenTofu too (title of a refresh-only plan, drift, footer).
#[test]
fn the_comment_says_opentofu() {
    let dir = fixtures().join("drift_refresh_only");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_planmark"));
    cmd.args(["render", "--format", "json"])
        .arg(dir.join("plan.json"));
    let out = cmd.output().expect("run planmark");
    assert!(out.status.success());
    let context: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON context");
    assert_eq!(context["tool"], "OpenTofu");
    assert_eq!(context["plans"][0]["tool"], "OpenTofu");
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_planmark"));
    cmd.arg("render").arg(dir.join("plan.json"));
    let out = cmd.output().expect("run planmark");
    let markdown = String::from_utf8(out.stdout).unwrap();
    assert!(
        markdown.contains("Refresh only: 1 object changed outside of OpenTofu"),
        "{markdown}"
    );
    assert!(markdown.contains("Drift: 1 object changed outside of OpenTofu"));
    assert!(markdown.contains(" · OpenTofu · plan format 1.2</sub>"));
    assert!(!markdown.contains("Terraform"), "{markdown}");
}

/// Wordings the equivalence tests do not reach (`fixtures/opentofu-wording`, hand-made).
#[test]
fn opentofu_wording_of_forget_taint_no_changes_failure_and_ephemeral() {
    let root = fixtures_dir().join("opentofu-wording");
    let cases: Vec<GoldenCase> = case_dirs(&root)
        .into_iter()
        .map(|(name, dir)| GoldenCase {
            expected: read_text(&dir.join("expected.txt")),
            plan: dir.join("plan.json"),
            schemas: None,
            name,
        })
        .collect();
    let names: Vec<&str> = cases.iter().map(|c| c.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "enabled_false",
            "ephemeral",
            "errored",
            "forget",
            "no_changes",
            "tainted"
        ]
    );
    if let Err(report) = exact_suite_with("OpenTofu wording", &cases, |_| &["--tool", "tofu"]) {
        panic!("\n{report}");
    }
}

/// Without a plan (`--failed LOG`), `--tool tofu` alone names OpenTofu.
#[test]
fn a_failed_plan_names_opentofu_with_the_tool_flag() {
    let log = fixtures_dir().join("logs/failed-plain.txt");
    let run = |format: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_planmark"))
            .args(["render", "--format", format, "--tool", "tofu", "--failed"])
            .arg(&log)
            .output()
            .expect("run planmark");
        String::from_utf8(out.stdout).unwrap()
    };
    let text = run("text");
    assert!(
        text.starts_with("OpenTofu could not make the plan.\n"),
        "{text}"
    );
    let markdown = run("markdown");
    assert!(
        markdown.contains("> **OpenTofu could not make the plan"),
        "{markdown}"
    );
    assert!(!markdown.contains("Terraform could not"), "{markdown}");
}

#[test]
#[cfg_attr(
    not(planmark_shared),
    ignore = "needs ../shared (Terraform's corpus); see tests/README.md"
)]
fn shared_opentofu_cases_are_byte_identical() {
    let shared = shared();
    check_all(
        "OpenTofu equivalence (../shared) --schemas",
        &shared_cases(&shared),
    );
}

/// The fixtures are the shared cases: inputs byte for byte, `expected.txt` the stripped
/// capture.
#[test]
#[cfg_attr(
    not(planmark_shared),
    ignore = "needs ../shared (Terraform's corpus); see tests/README.md"
)]
fn shared_opentofu_fixtures_match_their_sources() {
    let shared = shared();
    let source = shared.join(SHARED_CASES);
    let names = |root: &Path| -> Vec<String> { case_dirs(root).into_iter().map(|c| c.0).collect() };
    assert_eq!(names(&fixtures()), names(&source));
    for case in shared_cases(&shared) {
        let dst = fixtures().join(&case.name);
        for f in ["plan.json", "schemas.json"] {
            let (a, b) = (
                std::fs::read(source.join(&case.name).join(f)),
                std::fs::read(dst.join(f)),
            );
            assert!(
                matches!((a, b), (Ok(x), Ok(y)) if x == y),
                "{}/{f} differs from its source",
                case.name
            );
        }
        assert_eq!(
            read_text(&dst.join("expected.txt")),
            case.expected,
            "{}",
            case.name
        );
    }
}

/// Rebuilds `tests/fixtures/opentofu` from `../shared`.
/// Run: `cargo test --test suite -- --ignored opentofu::import_opentofu_fixtures`.
#[test]
#[ignore = "writes tests/fixtures/opentofu from ../shared; run it explicitly"]
fn import_opentofu_fixtures() {
    let shared = shared_dir().expect("../shared is needed to import fixtures");
    for case in shared_cases(&shared) {
        let dst = fixtures().join(&case.name);
        std::fs::create_dir_all(&dst).unwrap();
        std::fs::copy(&case.plan, dst.join("plan.json")).unwrap();
        std::fs::copy(case.schemas.as_ref().unwrap(), dst.join("schemas.json")).unwrap();
        std::fs::write(dst.join("expected.txt"), &case.expected).unwrap();
    }
}
