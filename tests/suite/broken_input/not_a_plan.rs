//! Inputs that are not a plan: empty, not JSON, truncated, an array, a state file, schemas,
//! a log, a binary plan, the setup-terraform wrapper's output.

use super::*;

#[test]
fn empty_file() {
    check_bad_plan("empty_file", b"", &["is empty", "terraform show -json"]);
}

#[test]
fn whitespace_only_file() {
    check_bad_plan(
        "whitespace_only_file",
        b"  \n\t\r\n  \n",
        &["is empty", "terraform show -json"],
    );
}

#[test]
fn not_json() {
    check_bad_plan("not_json", b"hello", &["not valid JSON"]);
}

#[test]
fn truncated_json() {
    let plan = std::fs::read(crate_dir().join(BASIC_LIST).join("plan.json")).unwrap();
    for cut in [40, plan.len() / 2, plan.len() - 2] {
        check_bad_plan(
            "truncated_json",
            &plan[..cut],
            &["truncated", "terraform show -json"],
        );
    }
}

#[test]
fn json_array() {
    check_bad_plan("json_array", b"[1,2]", &["array", "not a plan"]);
}

#[test]
fn json_array_holding_a_version_is_refused() {
    check_bad_plan(
        "json_array_holding_a_version",
        br#"["1.2"]"#,
        &["array", "not a plan"],
    );
}

/// A TOML file (a table header starts with `[` too) is not JSON, not a JSON array: the
/// message says where the JSON breaks, as for any other text that is not JSON.
#[test]
fn toml_is_not_json_though_it_starts_with_a_bracket() {
    for (name, toml, place) in [
        (
            "toml_package",
            "[package]\nname = \"x\"\n",
            "line 1 column 2",
        ),
        ("toml_bin", "\n  [[bin]]\nname = \"x\"\n", "line 2 column 5"),
    ] {
        let file = Temp::file(name, toml.as_bytes());
        for run in [run(&["render", file.arg()], None), render(&[file.arg()])] {
            assert_input_error(&run, file.arg(), &[]);
            assert_eq!(
                run.stderr,
                format!(
                    "planmark: error: {}: is not valid JSON: expected value at {place}\n",
                    file.arg()
                )
            );
        }
    }
}

#[test]
fn json_string() {
    check_bad_plan(
        "json_string",
        br#""x""#,
        &["not a plan object", "terraform show -json"],
    );
}

#[test]
fn json_null_and_number() {
    check_bad_plan("json_null", b"null", &["not a plan object"]);
    check_bad_plan("json_number", b"42", &["not a plan object"]);
}

#[test]
fn trailing_data_after_plan() {
    check_bad_plan(
        "trailing_data_after_plan",
        br#"{"format_version":"1.2"} {}"#,
        &["trailing data"],
    );
}

#[test]
fn terraform_state_file() {
    check_bad_plan(
        "terraform_state_file",
        br#"{"version":4,"terraform_version":"1.5.0","serial":1,"lineage":"abc","outputs":{},"resources":[]}"#,
        &["is a Terraform state file", "terraform show -json"],
    );
}

#[test]
fn show_json_of_state() {
    check_bad_plan(
        "show_json_of_state",
        br#"{"format_version":"1.0","terraform_version":"1.5.0","values":{"root_module":{}}}"#,
        &["is Terraform state JSON", "terraform show -json"],
    );
}

#[test]
fn provider_schemas_are_not_a_plan() {
    for (test, bytes) in [
        (
            "examples_schemas",
            std::fs::read(crate_dir().join("examples/schemas.json")).unwrap(),
        ),
        (
            "empty_schemas",
            br#"{"format_version":"1.0","provider_schemas":{}}"#.to_vec(),
        ),
    ] {
        check_bad_plan(test, &bytes, &["is provider schemas", "`--schemas`"]);
    }
    // Whatever the gates: a non-plan never reaches them.
    let out = run(
        &["render", "--fail-on", "changes", "examples/schemas.json"],
        None,
    );
    assert_input_error(&out, "examples/schemas.json", &["is provider schemas"]);
}

#[test]
fn empty_show_json_asks_for_the_plan_file() {
    // `terraform show -json` with no plan argument and no state prints this.
    for body in [
        r#"{"format_version":"0.2"}"#,
        r#"{"format_version":"1.0","terraform_version":"1.9.0"}"#,
    ] {
        check_bad_plan(
            "empty_show_json",
            body.as_bytes(),
            &["did you forget the plan file?"],
        );
    }
}

#[test]
fn plan_json_log_is_not_a_plan() {
    let log = std::fs::read(crate_dir().join("tests/fixtures/logs/warnings.jsonl")).unwrap();
    check_bad_plan(
        "plan_json_log",
        &log,
        &["`terraform plan -json` log", "`--log`"],
    );
    let first = log.split(|&b| b == b'\n').next().unwrap();
    check_bad_plan("plan_json_log_line", first, &["`--log`"]);
}

#[test]
fn unknown_object_with_a_version_is_not_a_plan() {
    check_bad_plan(
        "unknown_object",
        br#"{"format_version":"1.2","something":{}}"#,
        &["none of the members every plan has"],
    );
}

#[test]
fn every_plan_shape_is_a_plan() {
    // A no-changes plan, an errored plan, a plan whose only plan member is one of those
    // every plan of its format has.
    for body in [
        r#"{"format_version":"1.2","terraform_version":"1.9.0","planned_values":{"root_module":{}},"configuration":{},"errored":false,"applyable":false,"complete":true}"#,
        r#"{"format_version":"1.2","errored":true}"#,
        r#"{"format_version":"0.1","planned_values":{}}"#,
        r#"{"format_version":"0.1","configuration":{"root_module":{}}}"#,
        r#"{"format_version":"1.2","prior_state":{}}"#,
    ] {
        let file = Temp::file("plan_shape", body.as_bytes());
        let out = render(&[file.arg()]);
        assert_success(&out);
    }
}

#[test]
fn binary_zip_plan() {
    check_bad_plan(
        "binary_zip_plan",
        b"PK\x03\x04\x14\x00\x00\x00\x08\x00tfplan\x00\x01\x02\xff",
        &["binary plan", "terraform show -json"],
    );
}

// ---------------------------------------------------------------------------
// format_version
// ---------------------------------------------------------------------------

/// `json` as setup-terraform's wrapper prints it: the command echoed first, the
/// workflow commands it issues after.
fn wrapped(json: &str, command_line: bool) -> String {
    let head = match command_line {
        true => "[command]/home/runner/work/_temp/abc/terraform-bin show -json tfplan\n",
        false => "",
    };
    format!(
        "{head}{json}\n::debug::Terraform exited with code 0.\n::debug::stdout: {json}\n::debug::stderr: \n::debug::exitcode: 0\n"
    )
}

#[test]
fn setup_terraform_wrapper_output_names_the_fix() {
    let plan = plan_creating("{}");
    for command_line in [true, false] {
        check_bad_plan(
            "wrapper_output",
            wrapped(&plan, command_line).as_bytes(),
            &["setup-terraform", "`terraform_wrapper: false`"],
        );
    }
    let schemas =
        std::fs::read_to_string(crate_dir().join(BASIC_LIST).join("schemas.json")).unwrap();
    let file = Temp::file("wrapper_schemas", wrapped(&schemas, true).as_bytes());
    let out = render(&["--schemas", file.arg(), &format!("{BASIC_LIST}/plan.json")]);
    assert_input_error(&out, file.arg(), &["`terraform_wrapper: false`"]);
}

/// Issue 35: an apply's log is `--applied`'s, not `--log`'s; a log that could be either
/// names both flags.
#[test]
fn apply_json_log_is_told_from_a_plan_log() {
    for case in ["apply-succeeds", "apply-fails-part-way"] {
        let log =
            std::fs::read(crate_dir().join(format!("tests/fixtures/apply/{case}/apply.jsonl")))
                .unwrap();
        let out = check_bad_plan(
            &format!("apply_json_log_{case}"),
            &log,
            &["`terraform apply -json` log", "give it with `--applied`"],
        );
        assert!(!out.stderr.contains("--log"), "{}", out.stderr);
    }
    // A failed run's log: no line tells a plan from an apply.
    let log = std::fs::read(crate_dir().join("tests/fixtures/logs/failed.jsonl")).unwrap();
    check_bad_plan(
        "either_json_log",
        &log,
        &[
            "`terraform plan -json` or `apply -json` log",
            "`--log`",
            "`--applied`",
        ],
    );
}

/// Issue 35: Terraform's human text (real `terraform show` output, an apply's, a failed
/// plan's) is called that, with the command whose output planmark reads.
#[test]
fn terraform_text_output_is_named() {
    let fixtures = crate_dir().join("tests/fixtures");
    for case in ["create_first", "nothing_to_do", "outputs_only", "teardown"] {
        let text = std::fs::read(fixtures.join(format!("real-plans/{case}/plan.txt"))).unwrap();
        check_bad_plan(
            &format!("text_plan_{case}"),
            &text,
            &[
                "is Terraform's text output (`terraform plan` or `terraform show` without `-json`)",
                "`terraform show -json tfplan > plan.json`",
            ],
        );
    }
    for case in ["apply-succeeds", "apply-fails-part-way"] {
        let text = std::fs::read(fixtures.join(format!("apply/{case}/apply.txt"))).unwrap();
        check_bad_plan(
            &format!("text_apply_{case}"),
            &text,
            &[
                "is Terraform's text output of an apply",
                "`terraform show -json",
                "`--applied`",
            ],
        );
    }
    for case in ["failed-plain.txt", "failed-color.txt"] {
        let text = std::fs::read(fixtures.join(format!("logs/{case}"))).unwrap();
        check_bad_plan(
            &format!("text_failed_{case}"),
            &text,
            &[
                "is Terraform's text output (errors or warnings)",
                "`--failed`",
            ],
        );
    }
}
