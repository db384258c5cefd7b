//! End-to-end tests of the `planmark` binary: flags and schemas, stdin, help text, several
//! plans, a golden render, write failures. Broken plan inputs have their own catalogue in
//! `tests/suite/broken_input.rs`; the helpers are in `tests/suite/support/bin.rs`.

use crate::support::bin;

use std::process::Stdio;

use bin::*;

const BASIC_LIST: &str = "tests/fixtures/equivalence/basic_list";

// ---------------------------------------------------------------------------
// Flags and schemas
// ---------------------------------------------------------------------------

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

#[test]
fn stdin_plan_renders() {
    let plan = plan_creating(r#"{"triggers":{"a":"b"}}"#);
    let out = run(&["render", "--format", "text", "-"], Some(plan.as_bytes()));
    assert_success(&out);
    assert!(
        out.stdout.contains("# null_resource.a will be created"),
        "stdout:\n{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("Plan: 1 to add, 0 to change, 0 to destroy."),
        "stdout:\n{}",
        out.stdout
    );
}

#[test]
fn stdin_matches_file_rendering() {
    let expected = render(&[
        "--schemas",
        &format!("{BASIC_LIST}/schemas.json"),
        &format!("{BASIC_LIST}/plan.json"),
    ]);
    assert_success(&expected);
    let plan = std::fs::read(crate_dir().join(BASIC_LIST).join("plan.json")).unwrap();
    let out = run(
        &[
            "render",
            "--format",
            "text",
            "--schemas",
            &format!("{BASIC_LIST}/schemas.json"),
            "-",
        ],
        Some(&plan),
    );
    assert_success(&out);
    assert_eq!(out.stdout, expected.stdout);
}

#[test]
fn empty_stdin_names_standard_input() {
    let out = run(&["render", "-"], Some(b""));
    assert_input_error(&out, "-", &["is empty"]);
}

// ---------------------------------------------------------------------------
// Help
// ---------------------------------------------------------------------------

#[test]
fn help_documents_exit_codes() {
    let out = run(&["--help"], None);
    assert_success(&out);
    assert!(out.stdout.contains("Exit codes"), "stdout:\n{}", out.stdout);
    assert!(out.stdout.contains("render"), "stdout:\n{}", out.stdout);
}

#[test]
fn render_help_documents_exit_codes() {
    let out = run(&["render", "--help"], None);
    assert_success(&out);
    for phrase in ["Exit codes", "--schemas", "--plan-mode", "PLAN"] {
        assert!(
            out.stdout.contains(phrase),
            "no {phrase:?} in:\n{}",
            out.stdout
        );
    }
}

// ---------------------------------------------------------------------------
// Several plans, golden render, write failures
// ---------------------------------------------------------------------------

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

/// The `--fail-on drift` lines of a run's stderr.
fn drift_violations(out: &Run) -> Vec<&str> {
    let drift = |line: &&str| line.ends_with(" changed outside of Terraform (--fail-on drift)");
    out.stderr.lines().filter(drift).collect()
}

#[test]
fn fail_on_drift_names_the_drift_shown() {
    // Drift relevant to a normal plan, and all drift of a refresh-only one, break the gate
    // (exit 3, after the output); drift no attribute of the plan depends on, and a drifted
    // resource that only moved, do not.
    let cases = [
        (
            "drift_relevant_attributes",
            Some("tfcoremock_simple_resource.base"),
        ),
        (
            "drift_refresh_only",
            Some("tfcoremock_simple_resource.drift"),
        ),
        ("drift_simple", None),
        ("moved_with_refresh_only", None),
    ];
    for (case, drifted) in cases {
        let plan = format!("tests/fixtures/equivalence/{case}/plan.json");
        let out = render(&["--fail-on", "drift", &plan]);
        assert_no_panic(&out);
        assert!(!out.stdout.is_empty(), "{case}: the text comes first");
        match drifted {
            Some(address) => {
                assert_eq!(out.code(), 3, "{case}: stderr:\n{}", out.stderr);
                let expected = format!(
                    "planmark: policy: {address} changed outside of Terraform (--fail-on drift)"
                );
                assert_eq!(drift_violations(&out), [expected.as_str()], "{case}");
            }
            None => assert_success(&out),
        }
    }
}

#[test]
fn fail_on_drift_names_every_drifted_resource_of_a_big_plan() {
    // Big enough to be diffed on every core:
    // every drifted resource is named, in plan order, and shown in the text.
    let n = 3_000;
    let drift: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"address":"null_resource.d[{i}]","mode":"managed","type":"null_resource","name":"d","index":{i},"provider_name":"registry.terraform.io/hashicorp/null","change":{{"actions":["update"],"before":{{"id":"{i}","triggers":{{"image":"api:1.0","pad":"{pad}"}}}},"after":{{"id":"{i}","triggers":{{"image":"api:1.1","pad":"{pad}"}}}},"after_unknown":{{}},"before_sensitive":{{}},"after_sensitive":{{}}}}}}"#,
                pad = "p".repeat(400)
            )
        })
        .collect();
    let plan = format!(
        r#"{{"format_version":"1.2","resource_drift":[{}],"resource_changes":[]}}"#,
        drift.join(",")
    );
    assert!(plan.len() > 1 << 20);
    let file = Temp::file("fail_on_drift_big", plan.as_bytes());
    let out = render(&["--fail-on", "drift", file.arg()]);
    assert_no_panic(&out);
    assert_eq!(out.code(), 3, "stderr:\n{}", out.stderr);
    let named: Vec<String> = (0..n)
        .map(|i| format!("planmark: policy: null_resource.d[{i}] changed outside of Terraform (--fail-on drift)"))
        .collect();
    assert_eq!(drift_violations(&out), named);
    assert_eq!(out.stdout.matches(" has changed\n").count(), n);
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

/// A plan whose value holds lines that are Actions workflow commands.
const WORKFLOW_COMMANDS_PLAN: &str = r#"{"format_version":"1.2","resource_changes":[{"address":"null_resource.x","mode":"managed","type":"null_resource","name":"x","provider_name":"registry.terraform.io/hashicorp/null","change":{"actions":["create"],"before":null,"after":{"triggers":{"a":"one\n::add-mask::x\n::error::pwn\n"},"name":"::warning::w"},"after_unknown":{"id":true},"before_sensitive":false,"after_sensitive":{}}}]}"#;

/// Runs `planmark render --format FORMAT -` on the plan above with `GITHUB_ACTIONS=true`.
fn render_in_actions(format: &str, stdout: Stdio) -> std::process::Output {
    let mut child = command(&["render", "--format", format, "-"])
        .env("GITHUB_ACTIONS", "true")
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(WORKFLOW_COMMANDS_PLAN.as_bytes()).unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

#[test]
fn in_actions_plan_strings_cannot_issue_workflow_commands() {
    let mut tokens = Vec::new();
    for format in ["text", "markdown", "json", "html"] {
        let out = render_in_actions(format, Stdio::piped());
        assert!(out.status.success(), "{out:?}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = stdout.lines().collect();
        let token = lines[0]
            .strip_prefix("::stop-commands::")
            .unwrap_or_else(|| panic!("--format {format}: not paused first:\n{stdout}"));
        assert!(
            token.len() >= 32 && token.bytes().all(|b| b.is_ascii_hexdigit()),
            "{token}"
        );
        assert_eq!(
            lines.last(),
            Some(&format!("::{token}::").as_str()),
            "{stdout}"
        );
        // The runner trims leading whitespace before it looks for `::`.
        let commands: Vec<&&str> = lines[1..lines.len() - 1]
            .iter()
            .filter(|l| l.trim_start().starts_with("::"))
            .collect();
        if format == "text" {
            assert!(commands.len() >= 2, "the test plan's lines: {stdout}");
        }
        assert!(
            commands.iter().all(|l| !l.contains(token)),
            "a plan line resumes commands: {commands:?}"
        );
        assert!(String::from_utf8_lossy(&out.stderr).is_empty());
        tokens.push(token.to_string());
    }
    tokens.sort();
    tokens.dedup();
    assert_eq!(tokens.len(), 4, "every run draws a new token");
}

#[test]
fn output_redirected_to_a_file_is_not_wrapped() {
    let path = temp_path("actions-file", "out.md");
    let file = std::fs::File::create(&path).unwrap();
    let out = render_in_actions("markdown", Stdio::from(file));
    assert!(out.status.success(), "{out:?}");
    let written = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(written.starts_with("### "), "{written}");
    assert!(!written.contains("::stop-commands::"), "{written}");
}

#[test]
fn command_line_names_are_shown_like_plan_values() {
    let plan = "examples/plan.json";
    let key = "prod\u{202E}ved\n<script>x</script>\u{200B}";
    let html = run(&["render", "--format", "html", "--key", key, plan], None);
    assert_success(&html);
    let title = html
        .stdout
        .lines()
        .find(|l| l.starts_with("<title>"))
        .unwrap();
    assert_eq!(
        title,
        "<title>planmark — prod&lt;U+202E&gt;ved &lt;script&gt;x&lt;/script&gt;&lt;U+200B&gt;</title>"
    );
    assert!(!html.stdout.contains('\u{202E}') && !html.stdout.contains('\u{200B}'));

    // Names of several plans head their text; each stays on its line.
    let first = format!("a\u{202E}\n::error::pwn={plan}");
    let second = format!("b={plan}");
    let text = run(&["render", "--format", "text", &first, &second], None);
    assert_success(&text);
    assert!(
        text.stdout.starts_with("## a\\u{202E}\\n::error::pwn\n"),
        "{}",
        text.stdout
    );
    assert!(!text.stdout.lines().any(|l| l.starts_with("::")));
}

// ---------------------------------------------------------------------------
// Policy: replacements destroy
// ---------------------------------------------------------------------------

const REPLACEMENTS: &str = "tests/fixtures/policy/replacements_count_as_destroyed";

#[test]
fn replacements_count_as_destroyed_in_every_gate() {
    for case in ["create_before_destroy", "destroy_before_create"] {
        let dir = format!("{REPLACEMENTS}/{case}");
        let plan = format!("{dir}/plan.json");
        let expected =
            std::fs::read_to_string(crate_dir().join(&dir).join("expected-stderr.txt")).unwrap();
        for format in ["text", "markdown"] {
            let out = run(
                &[
                    "render",
                    "--format",
                    format,
                    "--fail-on",
                    "destroy",
                    "--max-destroy",
                    "0",
                    "--protect",
                    "null_*",
                    &plan,
                ],
                None,
            );
            assert_no_panic(&out);
            assert_eq!(out.code(), 3, "{case} {format}: stderr:\n{}", out.stderr);
            assert_eq!(out.stderr, expected, "{case} {format}");
            assert!(
                out.stdout.contains("1 to destroy"),
                "{case}: {}",
                out.stdout
            );
            if format == "markdown" {
                // The comment names the violation at its top.
                assert!(
                    out.stdout
                        .contains("is replaced, destroying its old object (`--fail-on destroy`)"),
                    "{case}: {}",
                    out.stdout
                );
            }
        }
        // The narrow rule: destroyed and not replaced.
        let out = render(&["--fail-on", "delete-only", &plan]);
        assert_success(&out);
    }
}

#[test]
fn delete_only_still_fails_a_plain_destroy() {
    let plan = "tests/fixtures/real-plans/removals/plan.json";
    let out = render(&["--fail-on", "delete-only", plan]);
    assert_eq!(out.code(), 3, "stderr:\n{}", out.stderr);
    assert!(
        out.stderr.contains(
            "planmark: policy: null_resource.legacy is destroyed (--fail-on delete-only)\n"
        ),
        "{}",
        out.stderr
    );
}

// ---------------------------------------------------------------------------
// Help that fits its command, flags with one meaning
// ---------------------------------------------------------------------------

fn help(args: &[&str]) -> String {
    let mut all = args.to_vec();
    all.push("--help");
    let out = run(&all, None);
    assert_success(&out);
    // Words only: clap wraps the text at its own width.
    out.stdout.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn render_help_is_about_rendering() {
    let text = help(&["render"]);
    for phrase in [
        "--plan-mode <MODE>",
        "Usage: planmark render [OPTIONS] <PLAN>...",
        "<PLAN>...",
    ] {
        assert!(text.contains(phrase), "no {phrase:?} in:\n{text}");
    }
    assert!(!text.contains("[PLAN]"), "a plan is required:\n{text}");
    let lower = text.to_lowercase();
    // Whole words: "postcondition" is fine.
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).collect();
    for word in ["post", "posts", "posting", "posted"] {
        assert!(
            !words.contains(&word),
            "render --help says {word:?}:\n{text}"
        );
    }
    for word in [
        "comment",
        "--key",
        "token",
        "github unreachable",
        "--mode <",
    ] {
        assert!(
            !lower.contains(word),
            "render --help mentions {word:?}:\n{text}"
        );
    }
    let max_chars = &text[text.find("--max-chars").unwrap()..];
    assert!(
        max_chars[..max_chars.find("[default").unwrap()].contains("at least 2000"),
        "--max-chars states its minimum:\n{text}"
    );
}

#[test]
fn comment_help_has_its_own_modes_and_a_required_plan() {
    let text = help(&["comment"]);
    for phrase in [
        "--comment-mode <MODE>",
        "--plan-mode <MODE>",
        "Usage: planmark comment [OPTIONS] <PLAN>...",
        "post (or update, under the same key) a comment",
        "GitHub unreachable",
        "at least 2000",
    ] {
        assert!(text.contains(phrase), "no {phrase:?} in:\n{text}");
    }
    assert!(!text.contains("[PLAN]"), "{text}");
    assert!(
        !text.contains("--mode <"),
        "the old spelling is hidden:\n{text}"
    );
}

#[test]
fn templates_export_help_lists_only_its_own_exit_codes() {
    let text = help(&["templates", "export"]);
    assert!(text.contains("Exit codes"), "{text}");
    for word in ["GitHub", "policy", "format_version", "3  "] {
        assert!(
            !text.contains(word),
            "templates export --help mentions {word:?}:\n{text}"
        );
    }
}

#[test]
fn old_mode_spellings_still_work_with_a_hint() {
    let plan = "tests/fixtures/equivalence/drift_refresh_only/plan.json";
    let new = render(&["--plan-mode", "normal", plan]);
    assert_success(&new);
    let old = render(&["--mode", "normal", plan]);
    assert_eq!(old.code(), 0, "{}", old.stderr);
    assert_eq!(old.stdout, new.stdout, "the same meaning");
    assert_eq!(
        old.stderr,
        "planmark: note: `render --mode` is now `--plan-mode`; the old spelling still works\n"
    );
    let both = render(&["--mode", "normal", "--plan-mode", "normal", plan]);
    assert_eq!(both.code(), 2, "{}", both.stderr);

    // `comment --mode` was the comment mode.
    let out = command(&[
        "comment",
        "--dry-run",
        "--repo",
        "octo/infra",
        "--pr",
        "7",
        "--mode",
        "new",
        "examples/plan.json",
    ])
    .env_remove("GITHUB_TOKEN")
    .env_remove("GITHUB_EVENT_PATH")
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "planmark: note: `comment --mode` is now `--comment-mode`; the old spelling still works\n"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .starts_with("planmark: would create a comment (no token"),
        "{out:?}"
    );
}

// ---------------------------------------------------------------------------
// Messages that name what was given
// ---------------------------------------------------------------------------

#[test]
fn binary_plan_hint_names_the_file_given() {
    let file = Temp::file("binary_plan_hint", b"PK\x03\x04\x14\x00binary plan");
    let out = render(&[file.arg()]);
    let hint = format!("`terraform show -json {} > plan.json`", file.arg());
    assert_input_error(&out, file.arg(), &["is a binary plan file", &hint]);
    assert!(!out.stderr.contains("tfplan"), "{}", out.stderr);
    // A path that needs quoting is quoted for the shell.
    let spaced = temp_path("binary plan hint", "my plan");
    std::fs::write(&spaced, b"PK\x03\x04binary").unwrap();
    let spaced = Temp { path: spaced };
    let out = render(&[spaced.arg()]);
    let hint = format!("`terraform show -json '{}' > plan.json`", spaced.arg());
    assert_input_error(&out, spaced.arg(), &[&hint]);
}

#[test]
fn comment_refuses_pull_request_zero() {
    let out = run(
        &[
            "comment",
            "--dry-run",
            "--repo",
            "octo/infra",
            "--pr",
            "0",
            "examples/plan.json",
        ],
        None,
    );
    assert_no_panic(&out);
    assert_eq!(out.code(), 2, "stderr:\n{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert_one_line(&out.stderr);
    assert!(
        out.stderr
            .starts_with("planmark: error: --pr 0: pull request numbers start at 1"),
        "{}",
        out.stderr
    );
}

/// A plan with no changes (Terraform 1.0.3, null provider).
const NO_CHANGES: &str = "tests/fixtures/real-plans/nothing_to_do/plan.json";

#[test]
fn tokenless_dry_run_honours_on_no_changes() {
    let dry_run = |extra: &[&str], plan: &str| {
        let mut args = vec!["comment", "--dry-run", "--repo", "octo/infra", "--pr", "7"];
        args.extend_from_slice(extra);
        args.push(plan);
        let out = command(&args)
            .env_remove("GITHUB_TOKEN")
            .env_remove("GITHUB_EVENT_PATH")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        stdout.lines().next().unwrap_or_default().to_string()
    };
    let first = dry_run(&["--on-no-changes", "skip"], NO_CHANGES);
    assert_eq!(
        first,
        "planmark: would post nothing new, as the plan has no changes (--on-no-changes skip); a comment of ours would still be updated (no token: existing comments not checked)"
    );
    let first = dry_run(&["--on-no-changes", "delete"], NO_CHANGES);
    assert_eq!(
        first,
        "planmark: would delete our comment if there is one, as the plan has no changes (--on-no-changes delete; no token: existing comments not checked)"
    );
    let first = dry_run(&["--on-no-changes", "update"], NO_CHANGES);
    assert_eq!(
        first,
        "planmark: would create or update the comment (no token: existing comments not checked)"
    );
    // With changes the choice does not apply; the comment mode does.
    let first = dry_run(&["--on-no-changes", "delete"], "examples/plan.json");
    assert_eq!(
        first,
        "planmark: would create or update the comment (no token: existing comments not checked)"
    );
    let first = dry_run(&["--comment-mode", "recreate"], "examples/plan.json");
    assert_eq!(
        first,
        "planmark: would delete our comments and create a comment (no token: existing comments not checked)"
    );
}

#[test]
fn stdin_from_a_pipe_prints_no_hint() {
    let plan = plan_creating(r#"{"triggers":{"a":"b"}}"#);
    let out = run(&["render", "-"], Some(plan.as_bytes()));
    assert_success(&out);
}

/// `render -` at a terminal says it is waiting for the plan; the plan typed (here written
/// to the terminal's other end, before the binary reads it) then renders as usual.
#[cfg(target_os = "linux")]
#[test]
fn stdin_at_a_terminal_says_it_is_reading_the_plan() {
    use std::io::Write;
    let pty = nix::pty::openpty(None, None).expect("openpty");
    let mut terminal = std::fs::File::from(pty.master);
    let plan = plan_creating(r#"{"triggers":{"a":"b"}}"#);
    // A line, then Ctrl-D at the start of a line: end of input in canonical mode. The
    // terminal keeps both until the binary reads, so nothing here can wait forever.
    terminal.write_all(plan.as_bytes()).unwrap();
    terminal.write_all(b"\n\x04").unwrap();
    let out = command(&["render", "--format", "text", "-"])
        .stdin(Stdio::from(pty.slave))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        stderr,
        "planmark: reading the plan from standard input (end it with Ctrl-D, or pass the plan's path instead of -)\n"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("# null_resource.a will be created"),
        "{stdout}"
    );
}
