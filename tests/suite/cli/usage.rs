//! Usage errors and bad schemas files: the exit code and the one-line message.

use super::*;

#[test]
fn bad_schemas_file() {
    let schemas = Temp::file("bad_schemas_file", b"hello");
    let plan = Temp::file(
        "bad_schemas_file",
        br#"{"format_version":"1.2","planned_values":{}}"#,
    );
    let out = render(&["--schemas", schemas.arg(), plan.arg()]);
    assert_input_error(&out, schemas.arg(), &["terraform providers schema -json"]);
}

#[test]
fn schemas_without_provider_schemas_are_refused() {
    // A plan given as `--schemas` would otherwise be ignored without a word.
    let plan = "tests/fixtures/equivalence/basic_list/plan.json";
    let out = render(&["--schemas", plan, plan]);
    assert_input_error(&out, plan, &["is a plan, not provider schemas"]);
    let other = Temp::file("schemas_without_member", br#"{"format_version":"1.0"}"#);
    let out = render(&["--schemas", other.arg(), plan]);
    assert_input_error(&out, other.arg(), &["has no `provider_schemas`"]);
    let out = run(
        &[
            "render",
            "--fail-on",
            "changes",
            "--schemas",
            other.arg(),
            plan,
        ],
        None,
    );
    assert_input_error(&out, other.arg(), &["has no `provider_schemas`"]);
}

#[test]
fn missing_schemas_file() {
    let schemas = Temp::missing("missing_schemas_file");
    let plan = Temp::file(
        "missing_schemas_file",
        br#"{"format_version":"1.2","planned_values":{}}"#,
    );
    let out = render(&["--schemas", schemas.arg(), plan.arg()]);
    assert_input_error(&out, schemas.arg(), &["cannot read"]);
}

/// Usage errors come from clap: multi-line (usage + hint) by design, exit 2, stdout empty.
fn assert_usage_error(out: &Run, phrases: &[&str]) {
    assert_no_panic(out);
    assert_eq!(out.code(), 2, "exit code; stderr:\n{}", out.stderr);
    assert_eq!(out.stdout, "", "stdout must be empty on a usage error");
    assert!(out.stderr.starts_with("error: "), "stderr:\n{}", out.stderr);
    for phrase in phrases {
        assert!(
            out.stderr.contains(phrase),
            "stderr should contain {phrase:?}, got:\n{}",
            out.stderr
        );
    }
}

#[test]
fn unknown_flag() {
    let plan = Temp::file(
        "unknown_flag",
        br#"{"format_version":"1.2","planned_values":{}}"#,
    );
    let out = render(&["--bogus", plan.arg()]);
    assert_usage_error(&out, &["--bogus"]);
}

#[test]
fn bad_mode() {
    let plan = Temp::file(
        "bad_mode",
        br#"{"format_version":"1.2","planned_values":{}}"#,
    );
    let out = render(&["--mode", "bogus", plan.arg()]);
    assert_usage_error(&out, &["bogus", "--mode", "refresh-only"]);
}

#[test]
fn render_without_plans() {
    let out = render(&[]);
    assert_usage_error(&out, &["<PLAN>"]);
}

// ---------------------------------------------------------------------------
// Standard input
// ---------------------------------------------------------------------------
