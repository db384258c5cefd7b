//! Huge numbers rendered as written, and deep nesting reported, never a stack overflow.

use super::*;

#[test]
fn numbers_beyond_64_bits_and_f64_render_as_written() {
    let plan = plan_creating(
        r#"{"big":123456789012345678901234567890,"huge":1e400,"tiny":-0.1e-400,"price":1.50}"#,
    );
    let file = Temp::file("numbers_as_written", plan.as_bytes());
    let text = render(&[file.arg()]);
    assert_success(&text);
    let comment = run(&["render", file.arg()], None);
    assert_success(&comment);
    for line in [
        "      + big   = 123456789012345678901234567890\n",
        "      + huge  = 1e400\n",
        "      + price = 1.50\n",
        "      + tiny  = -0.1e-400\n",
    ] {
        assert!(text.stdout.contains(line), "{line:?} in:\n{}", text.stdout);
        // The comment's diff moves the `+` to the first column.
        let attribute = line.trim().trim_start_matches("+ ");
        assert!(
            comment.stdout.contains(attribute),
            "{line:?} in:\n{}",
            comment.stdout
        );
    }
}

#[test]
fn deep_array_nesting_in_after() {
    let plan = plan_creating(&format!(r#"{{"deep":{}}}"#, nested_arrays(100_000)));
    check_bad_plan(
        "deep_arrays_in_after",
        plan.as_bytes(),
        &["null_resource.a", "too deep"],
    );
}

#[test]
fn deep_object_nesting_in_after() {
    let plan = plan_creating(&format!(r#"{{"deep":{}}}"#, nested_objects(100_000)));
    check_bad_plan(
        "deep_objects_in_after",
        plan.as_bytes(),
        &["null_resource.a", "too deep"],
    );
}

#[test]
fn deep_nesting_in_an_output_change() {
    let plan = format!(
        r#"{{"format_version":"1.2","output_changes":{{"o":{{"actions":["create"],"before":null,"after":{}}}}}}}"#,
        nested_arrays(100_000)
    );
    check_bad_plan("deep_output", plan.as_bytes(), &["too deep"]);
}

#[test]
fn deep_array_nesting_of_the_whole_document() {
    check_bad_plan(
        "deep_array_document",
        nested_arrays(100_000).as_bytes(),
        &["is a JSON array"],
    );
}

#[test]
fn deep_object_nesting_of_the_whole_document() {
    // The first problem found is that it has no format_version; nothing recurses on it.
    check_bad_plan(
        "deep_object_document",
        nested_objects(100_000).as_bytes(),
        &["has no format_version"],
    );
}

#[test]
fn deep_nesting_in_an_unknown_member_is_skipped() {
    // Unknown properties are ignored, and skipping one does not recurse: no crash, and
    // the plan renders.
    let plan = format!(
        r#"{{"format_version":"1.2","something_new":{}}}"#,
        nested_objects(100_000)
    );
    let file = Temp::file("deep_unknown_member", plan.as_bytes());
    let out = render(&[file.arg()]);
    assert_success(&out);
    assert!(out.stdout.contains("No changes."), "{}", out.stdout);
}

/// A plan of over 1 MiB (the members it does not use only checked): `planned_values` and
/// `prior_state` padded around one change.
fn big_plan() -> String {
    let pad = "p".repeat(1 << 20);
    let small = plan_creating(r#"{"k":"v"}"#);
    small
        .replacen(
            r#""resource_changes""#,
            &format!(r#""planned_values":{{"pad":"{pad}","l":[1,2]}},"resource_changes""#),
            1,
        )
        .replacen(
            r#"]}"#,
            r#"],"prior_state":{"values":{"x":[true,null]}},"configuration":{}}"#,
            1,
        )
}

#[test]
fn big_plans_broken_where_only_the_syntax_is_read_fail_as_small_ones_do() {
    let plan = big_plan();
    let file = Temp::file("big_plan", plan.as_bytes());
    let out = render(&[file.arg()]);
    assert_success(&out);
    assert!(out.stdout.contains("null_resource.a"), "{}", out.stdout);
    for (name, from, to) in [
        ("big_planned_values", r#""l":[1,2]"#, r#""l":[1,,2]"#),
        ("big_prior_state", "[true,null]", "[tru,null]"),
        ("big_change_value", r#"{"k":"v"}"#, r#"{"k":"v\x"}"#),
        (
            "big_after_unknown",
            r#""after_unknown":{}"#,
            r#""after_unknown":{]"#,
        ),
    ] {
        let broken = plan.replacen(from, to, 1);
        assert_ne!(broken, plan, "{name}");
        check_bad_plan(name, broken.as_bytes(), &["is not valid JSON"]);
    }
    // Deep nesting where only the syntax is checked is no crash either.
    let deep = plan.replacen("[true,null]", &format!("[{}]", nested_objects(100_000)), 1);
    let file = Temp::file("big_deep_prior_state", deep.as_bytes());
    assert_success(&render(&[file.arg()]));
}

#[test]
fn deep_nesting_in_a_schema_type() {
    let plan = Temp::file("deep_schema_type_plan", plan_creating("{}").as_bytes());
    let deep_type = "[\"list\",".repeat(100_000) + "\"string\"" + &"]".repeat(100_000);
    let schemas = format!(
        r#"{{"format_version":"1.0","provider_schemas":{{"p":{{"resource_schemas":{{"t":{{"block":{{"attributes":{{"a":{{"type":{deep_type}}}}}}}}}}}}}}}}}"#
    );
    let schemas = Temp::file("deep_schema_type", schemas.as_bytes());
    let out = render(&["--schemas", schemas.arg(), plan.arg()]);
    assert_input_error(
        &out,
        schemas.arg(),
        &["not a provider schema document", "recursion limit exceeded"],
    );
}

// ---------------------------------------------------------------------------
// Output captured through hashicorp/setup-terraform's wrapper
// ---------------------------------------------------------------------------
