//! Format versions accepted and refused, and fields of the wrong type.

use super::*;

#[test]
fn format_version_2_0_is_refused() {
    check_bad_plan(
        "format_version_2_0",
        br#"{"format_version":"2.0"}"#,
        &["format_version 2.0 is not supported", "upgrade planmark"],
    );
}

#[test]
fn format_version_3_1_with_a_new_shape_is_refused_by_version() {
    check_bad_plan(
        "format_version_3_1",
        br#"{"format_version":"3.1","resource_changes":{"a new":"shape"}}"#,
        &["format_version 3.1 is not supported", "upgrade planmark"],
    );
}

#[test]
fn format_versions_0_1_and_1_99_are_accepted() {
    for version in ["0.1", "1.99"] {
        let body = format!(r#"{{"format_version":"{version}","planned_values":{{}}}}"#);
        let file = Temp::file("format_version_accepted", body.as_bytes());
        let out = render(&[file.arg()]);
        assert_success(&out);
        assert!(
            out.stdout.contains("No changes."),
            "{version}:\n{}",
            out.stdout
        );
    }
}

#[test]
fn format_version_missing() {
    check_bad_plan(
        "format_version_missing",
        br#"{"resource_changes":[]}"#,
        &["has no format_version", "terraform show -json"],
    );
}

#[test]
fn format_version_not_a_version() {
    check_bad_plan(
        "format_version_not_a_version",
        br#"{"format_version":"abc"}"#,
        &["format_version \"abc\" is not a MAJOR.MINOR version"],
    );
}

// ---------------------------------------------------------------------------
// Missing and wrongly typed fields: the message names the field path
// ---------------------------------------------------------------------------

#[test]
fn format_version_is_a_number() {
    check_bad_plan(
        "format_version_is_a_number",
        br#"{"format_version":12}"#,
        &["field `format_version` has the wrong type"],
    );
}

#[test]
fn resource_changes_is_an_object() {
    check_bad_plan(
        "resource_changes_is_an_object",
        br#"{"format_version":"1.2","resource_changes":{}}"#,
        &["field `resource_changes` has the wrong type"],
    );
}

#[test]
fn resource_change_address_is_a_number() {
    check_bad_plan(
        "resource_change_address_is_a_number",
        br#"{"format_version":"1.2","resource_changes":[{"address":1}]}"#,
        &["field `resource_changes[0].address` has the wrong type"],
    );
}

#[test]
fn resource_change_without_change_names_the_terraform_that_writes_it() {
    let plan = plan_creating("{}");
    let start = plan.find(r#","change":"#).unwrap();
    let plan = format!("{}}}]}}", &plan[..start]);
    let out = check_bad_plan(
        "resource_change_without_change",
        plan.as_bytes(),
        &[
            "field `resource_changes[0]` has no `change`",
            "every Terraform since 0.12",
            "terraform show -json",
        ],
    );
    assert!(!out.stderr.contains("wrong type"), "{}", out.stderr);
}

#[test]
fn actions_is_a_string() {
    let plan = plan_creating("{}").replace(r#"["create"]"#, r#""create""#);
    check_bad_plan(
        "actions_is_a_string",
        plan.as_bytes(),
        &["field `resource_changes[0].change.actions` has the wrong type"],
    );
}

#[test]
fn wrongly_typed_field_does_not_quote_its_value() {
    // serde's message quotes the value it did not expect; a plan value (perhaps a secret)
    // must not reach the log, only its kind.
    let out = check_bad_plan(
        "wrong_type_quotes_no_value",
        br#"{"format_version":"1.2","errored":"hunter2-secret"}"#,
        &["field `errored` has the wrong type: invalid type: string, expected a boolean"],
    );
    assert!(!out.stderr.contains("hunter2"), "{}", out.stderr);
}

#[test]
fn hostile_key_in_a_field_path_stays_on_one_line() {
    // Found by fuzzing: the path of a wrongly typed field quotes map keys from the file,
    // and a line break there would start a new line in the Actions log, where
    // `::command::` lines are workflow commands.
    let plan =
        br#"{"format_version":"1.2","output_changes":{"o\n::warning::x\u001b[31m":{"actions":5}}}"#;
    check_bad_plan(
        "hostile_key_in_a_field_path",
        plan,
        &["`output_changes.o\\n::warning::x\\u{001B}[31m.actions`"],
    );
}

// ---------------------------------------------------------------------------
// Encodings
// ---------------------------------------------------------------------------
