//! The catalogue of broken inputs, one test each, run through the real binary with
//! `render` (the comment) and `render --format text`: every one exits 2 with exactly one
//! stderr line `planmark: error: PATH: PROBLEM` and never a panic, backtrace or signal.
//! Also the inputs at the edge of acceptance (BOM, old versions, huge numbers) that must
//! render, and the size limit (a sparse 2 GiB file costs no disk).

use crate::support::bin;

use bin::*;

const BASIC_LIST: &str = "tests/fixtures/equivalence/basic_list";

fn nested_objects(depth: usize) -> String {
    let mut s = String::with_capacity(depth * 6 + 1);
    for _ in 0..depth {
        s.push_str(r#"{"a":"#);
    }
    s.push('1');
    s.extend(std::iter::repeat_n('}', depth));
    s
}

// ---------------------------------------------------------------------------
// Unreadable files and the size limit
// ---------------------------------------------------------------------------

#[test]
fn missing_file() {
    let file = Temp::missing("missing_file");
    let out = render(&[file.arg()]);
    assert_input_error(&out, file.arg(), &["cannot read", "No such file"]);
}

#[test]
fn directory_instead_of_file() {
    let dir = Temp::dir("directory_instead_of_file");
    let out = render(&[dir.arg()]);
    assert_input_error(&out, dir.arg(), &["is a directory"]);
}

#[test]
fn two_gigabyte_file_is_refused_by_size_before_reading() {
    let file = Temp::file("two_gigabyte_file", b"");
    // Sparse: instant, and no disk used. Its zeros are not JSON either, so the message
    // shows the size check came first.
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&file.path)
        .unwrap();
    f.set_len(2 << 30).unwrap();
    drop(f);
    let comment = run(&["render", file.arg()], None);
    assert_input_error(
        &comment,
        file.arg(),
        &["is 2 GiB; planmark reads at most 1 GiB", "--max-input-size"],
    );
    let text = render(&[file.arg()]);
    assert_eq!(text.stderr, comment.stderr);
}

#[test]
fn max_input_size_lowers_the_limit() {
    let plan = std::fs::read(crate_dir().join(BASIC_LIST).join("plan.json")).unwrap();
    let file = Temp::file("max_input_size_lowers_the_limit", &plan);
    let out = render(&["--max-input-size", "1K", file.arg()]);
    let size = format!(
        "is {:.1} KiB; planmark reads at most 1 KiB",
        plan.len() as f64 / 1024.0
    );
    assert_input_error(&out, file.arg(), &[&size]);
    let enough = format!("{}", plan.len());
    assert_success(&render(&["--max-input-size", &enough, file.arg()]));
}

#[test]
fn max_input_size_applies_to_schemas() {
    let schemas = format!("{BASIC_LIST}/schemas.json");
    let out = render(&[
        "--max-input-size",
        "100",
        "--schemas",
        &schemas,
        &format!("{BASIC_LIST}/plan.json"),
    ]);
    assert_input_error(&out, &schemas, &["planmark reads at most 100 bytes"]);
}

#[test]
fn standard_input_beyond_the_limit() {
    let plan = plan_creating(r#"{"triggers":{"a":"b"}}"#);
    let out = run(
        &["render", "--max-input-size", "64", "-"],
        Some(plan.as_bytes()),
    );
    assert_input_error(
        &out,
        "-",
        &["is more than 64 bytes, the most planmark reads"],
    );
}

#[test]
fn bad_max_input_size_is_a_usage_error() {
    let out = render(&["--max-input-size", "lots", "plan.json"]);
    assert_no_panic(&out);
    assert_eq!(out.code(), 2, "stderr:\n{}", out.stderr);
    assert!(
        out.stderr.contains("--max-input-size") && out.stderr.contains("1G, 500M"),
        "stderr:\n{}",
        out.stderr
    );
}

#[cfg(unix)]
#[test]
fn named_pipe_is_read_up_to_the_limit() {
    let fifo = temp_path("named_pipe", "fifo");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo unavailable");
        return;
    }
    let fifo = Temp { path: fifo };
    let plan = plan_creating(r#"{"triggers":{"a":"b"}}"#);
    for (limit, ok) in [("1M", true), ("64", false)] {
        let path = fifo.path.clone();
        let body = plan.clone();
        // Opening a FIFO for writing blocks until the reader opens it.
        let writer = std::thread::spawn(move || {
            use std::io::Write;
            let mut pipe = std::fs::OpenOptions::new().write(true).open(path).unwrap();
            let _ = pipe.write_all(body.as_bytes());
        });
        let out = render(&["--max-input-size", limit, fifo.arg()]);
        writer.join().unwrap();
        if ok {
            assert_success(&out);
            assert!(out.stdout.contains("# null_resource.a will be created"));
        } else {
            assert_input_error(&out, fifo.arg(), &["is more than 64 bytes"]);
        }
    }
}

// ---------------------------------------------------------------------------
// Not a plan
// ---------------------------------------------------------------------------

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

#[test]
fn invalid_utf8_names_the_byte_offset() {
    check_bad_plan(
        "invalid_utf8",
        b"{\"format_version\":\"1.2\",\xff\xfe\"x\":1}",
        &["not valid UTF-8 (invalid byte at offset 24)"],
    );
}

#[test]
fn utf8_bom_is_accepted() {
    // Windows PowerShell's `Out-File -Encoding utf8` writes one.
    let plan = std::fs::read(crate_dir().join(BASIC_LIST).join("plan.json")).unwrap();
    let plain = Temp::file("utf8_bom_plain", &plan);
    let with_bom = Temp::file("utf8_bom", &[b"\xEF\xBB\xBF".as_slice(), &plan].concat());
    let expected = render(&[plain.arg()]);
    assert_success(&expected);
    let out = render(&[with_bom.arg()]);
    assert_success(&out);
    assert_eq!(out.stdout, expected.stdout);
    let comment = run(&["render", with_bom.arg()], None);
    assert_success(&comment);
}

#[test]
fn utf8_bom_before_schemas_is_accepted() {
    let schemas = std::fs::read(crate_dir().join(BASIC_LIST).join("schemas.json")).unwrap();
    let file = Temp::file(
        "utf8_bom_schemas",
        &[b"\xEF\xBB\xBF".as_slice(), &schemas].concat(),
    );
    let out = render(&["--schemas", file.arg(), &format!("{BASIC_LIST}/plan.json")]);
    assert_success(&out);
    let expected =
        std::fs::read_to_string(crate_dir().join(BASIC_LIST).join("expected.txt")).unwrap();
    assert_eq!(out.stdout, expected);
}

#[test]
fn utf8_bom_counts_in_the_invalid_byte_offset() {
    check_bad_plan(
        "utf8_bom_invalid",
        b"\xEF\xBB\xBF{\"a\":\"\xff\"}",
        &["invalid byte at offset 9"],
    );
}

#[test]
fn utf8_bom_alone_is_empty() {
    check_bad_plan("utf8_bom_alone", b"\xEF\xBB\xBF\n", &["is empty"]);
}

/// `text` as UTF-16 with its byte-order mark, as Windows PowerShell's `>` writes it
/// (little-endian) or big-endian.
fn utf16(text: &[u8], little_endian: bool) -> Vec<u8> {
    let text = std::str::from_utf8(text).expect("UTF-8 fixture");
    "\u{FEFF}"
        .encode_utf16()
        .chain(text.encode_utf16())
        .flat_map(|u| match little_endian {
            true => u.to_le_bytes(),
            false => u.to_be_bytes(),
        })
        .collect()
}

#[test]
fn utf16_plans_render_as_their_utf8() {
    let plan = std::fs::read(crate_dir().join(BASIC_LIST).join("plan.json")).unwrap();
    let plain = Temp::file("utf16_plain", &plan);
    for little_endian in [true, false] {
        let file = Temp::file("utf16", &utf16(&plan, little_endian));
        for format in ["text", "markdown"] {
            // Named alike, the same plan (its hash too); the marker's time aside.
            let render = |path: &str| {
                let arg = format!("plan={path}");
                let out = run(&["render", "--format", format, &arg], None);
                assert_success(&out);
                out.stdout.replace(path, "PATH")
            };
            let cut = |s: String| {
                s.rsplit_once("\"time\"")
                    .map_or(s.clone(), |(a, _)| a.into())
            };
            assert_eq!(
                cut(render(file.arg())),
                cut(render(plain.arg())),
                "{format}"
            );
        }
    }
}

#[test]
fn utf16_schemas_and_logs_are_read() {
    let dir = crate_dir().join(BASIC_LIST);
    let schemas = std::fs::read(dir.join("schemas.json")).unwrap();
    let file = Temp::file("utf16_schemas", &utf16(&schemas, true));
    let out = render(&["--schemas", file.arg(), &format!("{BASIC_LIST}/plan.json")]);
    assert_success(&out);
    assert_eq!(
        out.stdout,
        std::fs::read_to_string(dir.join("expected.txt")).unwrap()
    );
    let log = std::fs::read(crate_dir().join("tests/fixtures/logs/warnings.jsonl")).unwrap();
    let plain = Temp::file("utf16_log_plain", &log);
    let file = Temp::file("utf16_log", &utf16(&log, true));
    let plan = format!("{BASIC_LIST}/plan.json");
    let expected = render(&["--log", plain.arg(), &plan]);
    let out = render(&["--log", file.arg(), &plan]);
    assert_success(&out);
    assert!(out.stdout.contains("Warning: "), "{}", out.stdout);
    assert_eq!(out.stdout, expected.stdout);
}

#[test]
fn broken_utf16_is_refused() {
    let mut odd = utf16(br#"{"format_version":"1.2"}"#, true);
    odd.pop();
    check_bad_plan("utf16_odd", &odd, &["UTF-16", "cut short"]);
}

// ---------------------------------------------------------------------------
// Values: numbers as written, nesting beyond any stack
// ---------------------------------------------------------------------------

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
