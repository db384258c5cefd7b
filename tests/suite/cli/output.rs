//! What `render` writes: several plans under headings, the first error after the first
//! plan, the exact text, a failed write.

use super::*;

#[test]
fn two_named_plans_each_under_a_heading() {
    let a = Temp::file(
        "two_named_plans_a",
        br#"{"format_version":"1.2","planned_values":{}}"#,
    );
    let b = Temp::file(
        "two_named_plans_b",
        plan_creating(r#"{"triggers":{"a":"b"}}"#).as_bytes(),
    );
    let alone_a = render(&[a.arg()]);
    let alone_b = render(&[b.arg()]);
    assert_success(&alone_a);
    assert_success(&alone_b);

    let out = render(&[&format!("a={}", a.arg()), &format!("b={}", b.arg())]);
    assert_success(&out);
    assert!(out.stdout.starts_with("## a\n"), "stdout:\n{}", out.stdout);
    let expected = format!("## a\n{}\n## b\n{}", alone_a.stdout, alone_b.stdout);
    assert_eq!(out.stdout, expected);
    assert!(out.stdout.contains("No changes."));
    assert!(out.stdout.contains("# null_resource.a will be created"));
}

#[test]
fn second_plan_error_names_the_second_file_after_the_first_plan() {
    let a = Temp::file(
        "second_plan_error_a",
        br#"{"format_version":"1.2","planned_values":{}}"#,
    );
    let b = Temp::file("second_plan_error_b", b"hello");
    let out = render(&[&format!("a={}", a.arg()), &format!("b={}", b.arg())]);
    assert_no_panic(&out);
    assert_eq!(out.code(), 2, "stderr:\n{}", out.stderr);
    assert_one_line(&out.stderr);
    assert!(
        out.stderr
            .starts_with(&format!("planmark: error: {}: ", b.arg())),
        "stderr:\n{}",
        out.stderr
    );
    // The readable plan is still shown, under its name.
    assert!(out.stdout.starts_with("## a\n"), "stdout:\n{}", out.stdout);
    assert!(
        out.stdout.contains("No changes."),
        "stdout:\n{}",
        out.stdout
    );
}

#[test]
fn basic_list_fixture_renders_exactly() {
    let out = render(&[
        "--schemas",
        &format!("{BASIC_LIST}/schemas.json"),
        &format!("{BASIC_LIST}/plan.json"),
    ]);
    assert_success(&out);
    let expected =
        std::fs::read_to_string(crate_dir().join(BASIC_LIST).join("expected.txt")).unwrap();
    assert_eq!(out.stdout, expected);
}

#[cfg(target_os = "linux")]
#[test]
fn write_failure_exits_1() {
    let full = std::path::Path::new("/dev/full");
    if !full.exists() {
        eprintln!("skipped: no /dev/full");
        return;
    }
    let sink = std::fs::OpenOptions::new().write(true).open(full).unwrap();
    let output = command(&["render", &format!("{BASIC_LIST}/plan.json")])
        .stdin(Stdio::null())
        .stdout(Stdio::from(sink))
        .stderr(Stdio::piped())
        .output()
        .expect("run planmark");
    let out = Run {
        status: output.status,
        stdout: String::new(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    assert_no_panic(&out);
    assert_eq!(out.code(), 1, "stderr:\n{}", out.stderr);
    assert_one_line(&out.stderr);
    assert!(
        out.stderr
            .starts_with("planmark: error: cannot write output"),
        "stderr:\n{}",
        out.stderr
    );
}

/// Issue 35: a change whose action list planmark does not know (`["invalid"]`, or a newer
/// Terraform's) is named in the comment's headline and on standard error, in every format,
/// and never counted as nothing.
#[test]
fn an_unknown_action_is_named_and_never_counted_as_nothing() {
    let real = crate_dir().join("tests/fixtures/real-plans/create_first/plan.json");
    let mut plan: serde_json::Value =
        serde_json::from_slice(&std::fs::read(real).unwrap()).unwrap();
    for (actions, name) in [
        (serde_json::json!(["invalid"]), "action invalid"),
        (
            serde_json::json!(["delete", "update"]),
            "action delete then update",
        ),
        (serde_json::json!(["<b>@x</b>"]), "action bxb"),
    ] {
        plan["resource_changes"][0]["change"]["actions"] = actions.clone();
        let file = Temp::file("unknown_action", plan.to_string().as_bytes());
        for format in ["markdown", "text", "json"] {
            let out = run(&["render", "--format", format, file.arg()], None);
            assert_no_panic(&out);
            assert_eq!(out.code(), 0, "{}", out.stderr);
            let warning = format!(
                "planmark: warning: {}: 1 resource change has an action list planmark does not \
                 know: null_resource.cert (actions {actions})",
                file.arg()
            );
            assert!(out.stderr.starts_with(&warning), "{format}: {}", out.stderr);
            assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
            if format == "text" {
                continue;
            }
            assert!(
                !out.stdout.contains("output changes only"),
                "{}",
                out.stdout
            );
            let headline = format!("1 change planmark does not know ({name})");
            assert!(out.stdout.contains(&headline), "{format}: {}", out.stdout);
            assert!(!out.stdout.contains("<b>@x"), "{}", out.stdout);
        }
    }
}

#[test]
fn output_flag_writes_what_stdout_would_show() {
    let plan = format!("{BASIC_LIST}/plan.json");
    let dir = Temp::dir("o-flag");
    let path = dir.path.join("plan.txt");
    let to_stdout = render(&[&plan]);
    assert_success(&to_stdout);
    let to_file = render(&["-o", path.to_str().unwrap(), &plan]);
    assert_success(&to_file);
    assert_eq!(to_file.stdout, "");
    assert_eq!(std::fs::read_to_string(&path).unwrap(), to_stdout.stdout);
    // Nothing else is left in the folder (the temporary name was renamed).
    assert_eq!(std::fs::read_dir(&dir.path).unwrap().count(), 1);
    let _ = std::fs::remove_dir_all(&dir.path);
}

#[test]
fn output_flag_keeps_the_old_file_when_the_render_fails() {
    let dir = Temp::dir("o-flag-fails");
    let path = dir.path.join("comment.md");
    std::fs::write(&path, "the previous comment").unwrap();
    let bad = Temp::file("o-flag-fails-plan", b"not json");
    let out = run(&["render", "-o", path.to_str().unwrap(), bad.arg()], None);
    assert_exit(&out, 2);
    assert_eq!(
        std::fs::read_to_string(&path).unwrap(),
        "the previous comment"
    );
    assert_eq!(
        std::fs::read_dir(&dir.path).unwrap().count(),
        1,
        "no temporary file left"
    );
    let _ = std::fs::remove_dir_all(&dir.path);
}

#[test]
fn output_flag_is_written_when_a_gate_fails() {
    let plan = format!("{BASIC_LIST}/plan.json");
    let dir = Temp::dir("o-flag-gate");
    let path = dir.path.join("comment.md");
    let out = run(
        &[
            "render",
            "--fail-on",
            "changes",
            "-o",
            path.to_str().unwrap(),
            &plan,
        ],
        None,
    );
    assert_exit(&out, 3);
    assert!(std::fs::read_to_string(&path).unwrap().starts_with("### "));
    let _ = std::fs::remove_dir_all(&dir.path);
}

#[test]
fn output_flag_naming_a_folder_or_a_missing_folder_is_bad_usage() {
    let plan = format!("{BASIC_LIST}/plan.json");
    let dir = Temp::dir("o-flag-usage");
    let out = run(&["render", "-o", dir.arg(), &plan], None);
    assert_input_error(&out, dir.arg(), &["-o names a folder"]);
    let missing = dir.path.join("no/such/folder/comment.md");
    let out = run(&["render", "-o", missing.to_str().unwrap(), &plan], None);
    assert_input_error(&out, missing.to_str().unwrap(), &["folder exists"]);
    let _ = std::fs::remove_dir_all(&dir.path);
}

#[test]
fn a_size_notice_with_nothing_shown_says_so_in_a_sentence() {
    // Three changes whose addresses are too long for even a listed line at 2,000.
    let key = "x".repeat(1500);
    let changes: Vec<String> = (0..3)
        .map(|i| {
            format!(
                r#"{{"address":"null_resource.a[\"{key}{i}\"]","mode":"managed","type":"null_resource","name":"a","index":"{key}{i}","provider_name":"registry.terraform.io/hashicorp/null","change":{{"actions":["create"],"before":null,"after":{{}},"after_unknown":{{"id":true}},"before_sensitive":false,"after_sensitive":{{}}}}}}"#
            )
        })
        .collect();
    let plan = format!(
        r#"{{"format_version":"1.2","terraform_version":"1.9.0","resource_changes":[{}]}}"#,
        changes.join(",")
    );
    let plan = Temp::file("long_addresses", plan.as_bytes());
    let out = run(&["render", "--max-chars", "2000", plan.arg()], None);
    assert_success(&out);
    assert!(
        out.stdout
            .contains("within the 2,000-character limit. 3 changes are not shown. For everything"),
        "{}",
        out.stdout
    );
}
