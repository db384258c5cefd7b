//! Terraform 1.14 action invocations, as a user runs planmark on them: the text
//! (`--format text`, byte for byte what Terraform prints), the comment (golden), the
//! template context, the `--fail-on changes` gate, a big plan read element by element,
//! and Terraform's own text from `../shared` (ignored where it is absent).
//!
//! Fixtures: `fixtures/actions/<behaviour>/{plan.json, schemas.json, expected.txt,
//! expected.md}` (see `fixtures/actions/ORIGIN.md`); `PLANMARK_BLESS=1` rewrites the
//! expected files from the binary's output.

use crate::support::bin;

use std::path::{Path, PathBuf};

use bin::*;

fn cases() -> Vec<(String, PathBuf)> {
    let root = crate_dir().join("tests/fixtures/actions");
    let mut cases: Vec<(String, PathBuf)> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", root.display()))
        .map(|e| e.expect("read_dir entry").path())
        .filter(|p| p.is_dir())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    cases.sort();
    assert!(cases.len() >= 2, "{cases:?}");
    cases
}

fn arg(path: &Path) -> String {
    path.to_str().expect("UTF-8 path").to_string()
}

/// `stdout` equals `dir/name` (or, with `PLANMARK_BLESS=1`, is written there).
fn golden(dir: &Path, name: &str, stdout: &str) -> Option<String> {
    let path = dir.join(name);
    if std::env::var_os("PLANMARK_BLESS").is_some() {
        std::fs::write(&path, stdout).unwrap();
        return None;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    (expected != stdout).then(|| {
        format!(
            "{}: output differs\n--- expected\n{expected}\n--- actual\n{stdout}",
            path.display()
        )
    })
}

fn render_case(dir: &Path, format: &str, extra: &[&str]) -> Run {
    let schemas = arg(&dir.join("schemas.json"));
    // Relative to the crate root, so the comment's marker key does not name this machine.
    let plan = format!(
        "tests/fixtures/actions/{}/plan.json",
        dir.file_name().unwrap().to_string_lossy()
    );
    let mut args = vec!["render", "--format", format, "--schemas", &schemas];
    args.extend_from_slice(extra);
    args.push(&plan);
    let mut cmd = command(&args);
    cmd.env("SOURCE_DATE_EPOCH", "1795341600")
        .env_remove("GITHUB_EVENT_PATH")
        .env_remove("GITHUB_SHA")
        .env_remove("GITHUB_RUN_ID");
    let output = cmd.output().expect("run planmark");
    Run {
        status: output.status,
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn text_is_what_terraform_prints() {
    let mut failures = Vec::new();
    for (_, dir) in cases() {
        let run = render_case(&dir, "text", &[]);
        assert_success(&run);
        failures.extend(golden(&dir, "expected.txt", &run.stdout));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn comment_lists_every_invocation_with_its_config() {
    let mut failures = Vec::new();
    for (_, dir) in cases() {
        let run = render_case(&dir, "markdown", &[]);
        assert_success(&run);
        let problems = crate::support::check::check_markdown(&run.stdout);
        assert!(problems.is_empty(), "{}: {problems:?}", dir.display());
        failures.extend(golden(&dir, "expected.md", &run.stdout));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn an_actions_only_plan_is_a_change_in_the_title_and_the_context() {
    let dir = crate_dir().join("tests/fixtures/actions/invoked_from_cli");
    let md = render_case(&dir, "markdown", &[]).stdout;
    let title = md.lines().next().unwrap_or_default();
    assert!(title.contains("Plan: 1 action to invoke"), "{title}");
    assert!(!md.contains("No changes"), "{md}");

    let run = render_case(&dir, "json", &[]);
    assert_success(&run);
    let context: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let plan = &context["plans"][0];
    assert_eq!(plan["has_changes"], true, "{plan}");
    assert_eq!(plan["status"], "changes", "{plan}");
    assert_eq!(plan["counts"]["invoke"], 1, "{plan}");
    assert_eq!(context["totals"]["invoke"], 1, "{context}");
    let invocations = &plan["invocations"];
    assert_eq!(invocations["count"], 1);
    let entry = &invocations["entries"][0];
    assert_eq!(entry["address"], "action.bufo_print.success");
    assert_eq!(entry["type"], "bufo_print");
    assert_eq!(entry["trigger"], "cli");
    assert_eq!(entry["reason_text"], "asked for on the command line");
    assert!(
        entry["diff"]
            .as_str()
            .is_some_and(|d| d.contains("name = \"bufo-the-builder\"")),
        "{entry}"
    );

    // Lifecycle triggers name their resource and event.
    let dir = crate_dir().join("tests/fixtures/actions/triggered_by_lifecycle");
    let run = render_case(&dir, "json", &[]);
    let context: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let entries = context["plans"][0]["invocations"]["entries"]
        .as_array()
        .unwrap()
        .clone();
    let first = entries
        .iter()
        .find(|e| e["address"] == "action.bufo_print.first")
        .unwrap();
    assert_eq!(first["trigger"], "lifecycle");
    assert_eq!(first["event"], "before_create");
    assert_eq!(first["resource"], "terraform_data.test");
    assert_eq!(
        first["reason_text"],
        "before terraform_data.test is created"
    );
    assert_eq!(context["plans"][0]["counts"]["invoke"], 5);
}

#[test]
fn fail_on_changes_sees_an_actions_only_plan() {
    let dir = crate_dir().join("tests/fixtures/actions/invoked_from_cli");
    let run = render_case(&dir, "text", &["--fail-on", "changes"]);
    assert_eq!(run.code(), 3, "stderr: {}", run.stderr);
    assert!(
        run.stderr
            .contains("the plan has changes (--fail-on changes)"),
        "{}",
        run.stderr
    );
    // The text is still printed in full before the gate fails.
    assert!(
        run.stdout.contains("Actions: 1 to invoke."),
        "{}",
        run.stdout
    );
}

/// The lifecycle case padded past the size from which a plan is read element by element
/// (1 MiB) with changes Terraform does not show, its invocations before the lists in one
/// copy and after them in another: the text is the small plan's.
#[test]
fn a_big_plan_reads_its_invocations_too() {
    let dir = crate_dir().join("tests/fixtures/actions/triggered_by_lifecycle");
    let expected = std::fs::read_to_string(dir.join("expected.txt")).unwrap();
    let text = std::fs::read_to_string(dir.join("plan.json")).unwrap();
    let mut plan: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&text).unwrap();
    let pad = |i: usize| {
        serde_json::json!({
            "address": format!("terraform_data.pad[{i}]"),
            "mode": "managed",
            "type": "terraform_data",
            "name": "pad",
            "index": i,
            "provider_name": "terraform.io/builtin/terraform",
            "change": {
                "actions": ["no-op"],
                "before": {"id": format!("{i:040}"), "input": null, "output": null, "triggers_replace": null},
                "after": {"id": format!("{i:040}"), "input": null, "output": null, "triggers_replace": null},
                "after_unknown": {},
                "before_sensitive": {},
                "after_sensitive": {}
            }
        })
    };
    let changes = plan["resource_changes"].as_array_mut().unwrap();
    changes.extend((0..6000).map(pad));
    let invocations = plan.remove("action_invocations").unwrap();
    for first in [true, false] {
        let mut doc = serde_json::Map::new();
        if first {
            doc.insert("action_invocations".into(), invocations.clone());
        }
        doc.extend(plan.clone());
        if !first {
            doc.insert("action_invocations".into(), invocations.clone());
        }
        let bytes = serde_json::to_vec(&doc).unwrap();
        assert!(bytes.len() > 1 << 20, "{} bytes", bytes.len());
        let file = Temp::file("big_actions", &bytes);
        let schemas = arg(&dir.join("schemas.json"));
        let run = render(&["--schemas", &schemas, file.arg()]);
        assert_success(&run);
        assert_eq!(run.stdout, expected, "invocations first: {first}");
    }
}

/// Terraform's own text for an invoked action (`cloud/action/plan.log` in `../shared`,
/// BUSL-1.1: read, never copied) against planmark's for the same action. The log was
/// recorded before Terraform added each block's `# <address>` line (hashicorp/terraform
/// PR 38861, which the newest Terraform prints and planmark follows), so that one line is
/// left out of planmark's text; the rest must be identical.
#[test]
#[cfg_attr(
    not(planmark_shared),
    ignore = "needs ../shared (Terraform's corpus); see tests/README.md"
)]
fn terraforms_cloud_log_prints_the_same_section() {
    let shared = crate_dir().join("../shared");
    let log = shared.join("corpus/terraform-testdata/cloud/action/plan.log");
    let log = std::fs::read_to_string(&log)
        .unwrap_or_else(|e| panic!("{}: {e} (../shared is present)", log.display()));
    // The action the log shows, with the `external` action's schema (from the shared
    // terraform-json sample) under the log's type name.
    let plan = br#"{"format_version":"1.2","terraform_version":"1.14.0","planned_values":{"root_module":{}},
      "action_invocations":[{"address":"action.test_action.test","type":"test_action","name":"test",
        "config_values":{"program":["curl","https://checkpoint-api.hashicorp.com/v1/check/terraform"],"query":null,"working_dir":null},
        "config_sensitive":{},"config_unknown":{},"provider_name":"registry.terraform.io/hashicorp/test",
        "invoke_action_trigger":{}}]}"#;
    let schemas =
        br#"{"format_version":"1.0","provider_schemas":{"registry.terraform.io/hashicorp/test":{
      "action_schemas":{"test_action":{"block":{"attributes":{
        "program":{"type":["list","string"],"required":true},
        "query":{"type":["map","string"],"optional":true},
        "working_dir":{"type":"string","optional":true}}}}}}}}"#;
    let plan = Temp::file("cloud_log_plan", plan);
    let schemas = Temp::file("cloud_log_schemas", schemas);
    let run = render(&["--schemas", schemas.arg(), plan.arg()]);
    assert_success(&run);
    let heading = "Terraform will invoke the following action(s):";
    let section = |text: &str| -> String {
        let start = text.find(heading).expect("the invoke section");
        text[start..].trim_end().to_string()
    };
    let ours: Vec<&str> = run
        .stdout
        .lines()
        .filter(|l| *l != "    # action.test_action.test")
        .collect();
    assert_eq!(section(&ours.join("\n")), section(&log));
    assert!(
        run.stdout
            .contains("\nPlan: 0 to add, 0 to change, 0 to destroy. Actions: 1 to invoke.\n"),
        "{}",
        run.stdout
    );
}

/// Hostile names and values in an invocation stay inert in the comment, and a sensitive
/// config value appears in no format.
#[test]
fn hostile_invocations_stay_inert_and_secrets_stay_hidden() {
    let hostile = "x`</summary></details>@admin #1 <img src=x>\n```\n# Heading\n::warning::boom";
    let plan = serde_json::json!({
        "format_version": "1.2",
        "action_invocations": [{
            "address": format!("action.t.{hostile}"),
            "type": hostile,
            "name": hostile,
            "config_values": {"note": hostile, "token": "SECRET_CANARY_42", hostile: "v"},
            "config_sensitive": {"token": true},
            "config_unknown": {},
            "provider_name": "registry.terraform.io/x/t",
            "lifecycle_action_trigger": {
                "triggering_resource_address": hostile,
                "action_trigger_event": hostile,
                "action_trigger_block_index": 0,
                "actions_list_index": 0
            }
        }]
    });
    let file = Temp::file("hostile_actions", plan.to_string().as_bytes());
    for format in ["text", "markdown", "json", "html"] {
        let run = run(&["render", "--format", format, file.arg()], None);
        assert_success(&run);
        assert!(
            !run.stdout.contains("SECRET_CANARY_42"),
            "{format}: {}",
            run.stdout
        );
        if format == "markdown" {
            let md = &run.stdout;
            let problems = crate::support::check::check_markdown(md);
            assert!(problems.is_empty(), "{problems:?}\n{md}");
            let live = crate::support::check::live_references(md);
            assert!(live.is_empty(), "{live:?}\n{md}");
            assert!(md.contains("Plan: 1 action to invoke"), "{md}");
            assert!(md.contains("(sensitive value)"), "{md}");
        }
    }
}
