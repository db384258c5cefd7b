//! `--applied LOG`: the apply's comment. Golden comments for the behaviours of
//! tests/fixtures/applied/<behaviour>/ (real Terraform 1.0.3 logs, copied from
//! tests/fixtures/apply/, and hostile ones), rendered by the binary as a user runs
//! `render --applied main=LOG [main=PLAN]`; sensitive outputs nowhere; bad logs exit 2 with
//! one line; the size limit. Against the fake GitHub: `publish.rs`.

mod publish;

use crate::support;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::support::check::{check_markdown, live_references};
use support::temp::TempDir;
use support::{fixtures_dir, golden};

/// The value of the fixtures' sensitive outputs, which must appear in no output.
const SECRET: &str = "tok-SECRET-4242";

fn behaviours() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(fixtures_dir().join("applied"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// The behaviour's log (`apply.jsonl` or `apply.txt`) and reviewed plan, if any.
fn inputs(dir: &Path) -> (PathBuf, Option<PathBuf>) {
    let log = ["apply.jsonl", "apply.txt"]
        .iter()
        .map(|f| dir.join(f))
        .find(|p| p.exists())
        .unwrap_or_else(|| panic!("{}: no apply.jsonl or apply.txt", dir.display()));
    let plan = Some(dir.join("plan.json")).filter(|p| p.exists());
    (log, plan)
}

/// `planmark ARGS` as a workflow run would (fixed time, run and commit), not in Actions.
fn planmark(args: &[&str]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_planmark"));
    cmd.args(args);
    for (name, _) in std::env::vars() {
        if name.starts_with("GITHUB_") || name.starts_with("RUNNER_") {
            cmd.env_remove(name);
        }
    }
    cmd.env("SOURCE_DATE_EPOCH", "1795341600")
        .env("GITHUB_SERVER_URL", "https://github.com")
        .env("GITHUB_REPOSITORY", "octo/infra")
        .env("GITHUB_RUN_ID", "42")
        .env("GITHUB_SHA", "0123456789abcdef0123456789abcdef01234567")
        .output()
        .unwrap()
}

/// `render --applied main=LOG [main=PLAN] EXTRA…`.
fn render(dir: &Path, extra: &[&str]) -> Output {
    let (log, plan) = inputs(dir);
    let log = format!("main={}", log.display());
    let plan = plan.map(|p| format!("main={}", p.display()));
    let mut args = vec!["render", "--applied", &log];
    args.extend(extra);
    args.extend(plan.as_deref());
    planmark(&args)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn assert_safe(label: &str, markdown: &str, max: usize) {
    assert!(
        check_markdown(markdown).is_empty(),
        "{label}: {:?}\n{markdown}",
        check_markdown(markdown)
    );
    assert!(
        live_references(markdown).is_empty(),
        "{label}: {:?}\n{markdown}",
        live_references(markdown)
    );
    assert!(markdown.encode_utf16().count() <= max, "{label}: too long");
    assert!(!markdown.contains(SECRET), "{label}: a sensitive value");
}

#[test]
fn every_behaviour_renders_its_golden_comment() {
    let mut failures = Vec::new();
    let dirs = behaviours();
    assert!(dirs.len() >= 9, "{dirs:?}");
    for dir in &dirs {
        let label = golden::shown(dir);
        let out = render(dir, &[]);
        let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
        assert_eq!(out.status.code(), Some(0), "{label}: {stderr}");
        assert!(stderr.is_empty(), "{label}: {stderr}");
        assert_safe(&label, &stdout, 65_536);
        assert!(
            stdout.starts_with("### Terraform apply: "),
            "{label}: the outcome comes first:\n{stdout}"
        );
        failures.extend(golden::check(&dir.join("comment.md"), &stdout).err());
        // The text: the reviewed plan as Terraform shows it, then the outcome (Terraform's
        // `Apply complete!` line, or what a failed apply did and where each resource
        // stands), then the diagnostics.
        let out = render(dir, &["--format", "text"]);
        let stdout = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{label}: {}", text(&out.stderr));
        assert!(!stdout.contains(SECRET), "{label}: a sensitive value");
        assert!(
            [
                "Apply complete! Resources: ",
                "Apply failed ",
                "Apply stopped "
            ]
            .iter()
            .any(|outcome| stdout.contains(outcome)),
            "{label}:\n{stdout}"
        );
        failures.extend(golden::check(&dir.join("text.txt"), &stdout).err());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn a_part_way_failure_says_what_changed_and_what_did_not() {
    for name in [
        "fails-part-way-json-with-plan",
        "fails-part-way-text-with-plan",
    ] {
        let out = render(&fixtures_dir().join("applied").join(name), &[]);
        let md = text(&out.stdout);
        for words in [
            "❌ apply failed",
            "**The apply failed part-way: some changes were made, others were not.**",
            "Changed before it stopped: 2 added, 0 changed, 2 destroyed.",
            "Not reached, so unchanged: 1.",
            "| ❌ | `null_resource.migrate` | 🟢 create | failed: local-exec provisioner error |",
            "| ⬜ | `null_resource.notify` | 🟢 create | not reached |",
            "<details><summary>📋 The reviewed plan</summary>",
        ] {
            assert!(md.contains(words), "{name}: no {words:?}:\n{md}");
        }
        // The reviewed plan comes after the apply's outcome and errors.
        assert!(md.find("📋").unwrap() > md.find("Terraform reported 1 error").unwrap());
    }
    let stopped = text(&render(&fixtures_dir().join("applied/stops-without-error"), &[]).stdout);
    for words in [
        "**The apply stopped part-way",
        "destroyed, not created again",
        "started, not finished",
        "the job may have been cancelled",
    ] {
        assert!(stopped.contains(words), "no {words:?}:\n{stopped}");
    }
}

#[test]
fn sensitive_outputs_appear_in_no_format() {
    for name in ["hostile-outputs", "succeeds-json-with-plan"] {
        let dir = fixtures_dir().join("applied").join(name);
        for format in ["markdown", "json", "html", "text"] {
            let out = render(&dir, &["--format", format]);
            assert_eq!(out.status.code(), Some(0), "{name} {format}");
            let all = format!("{}{}", text(&out.stdout), text(&out.stderr));
            assert!(!all.contains(SECRET), "{name} --format {format}:\n{all}");
        }
        let md = text(&render(&dir, &[]).stdout);
        assert!(md.contains("_hidden (sensitive)_"), "{md}");
    }
}

#[test]
fn hostile_logs_stay_in_their_places() {
    for name in ["hostile-failure", "hostile-outputs", "hostile-text"] {
        let dir = fixtures_dir().join("applied").join(name);
        let md = text(&render(&dir, &[]).stdout);
        // Outside code, no markup from the log: HTML only ours, no mention, one marker.
        let mut html = String::new();
        let mut prose = String::new();
        for event in pulldown_cmark::Parser::new_ext(&md, pulldown_cmark::Options::all()) {
            match event {
                pulldown_cmark::Event::Html(h) | pulldown_cmark::Event::InlineHtml(h) => {
                    html.push_str(&h)
                }
                pulldown_cmark::Event::Text(t) => prose.push_str(&t),
                _ => {}
            }
        }
        for raw in ["<img", "<script", "<b>", "onerror"] {
            assert!(!html.contains(raw), "{name}: {raw:?} as HTML in:\n{md}");
        }
        for mention in ["@octocat", "@team", "@user", "@z"] {
            assert!(!prose.contains(mention), "{name}: {mention:?} in:\n{md}");
        }
        assert_eq!(html.matches("planmark:v1").count(), 1, "{name}:\n{md}");
        let last = md.trim_end().lines().last().unwrap();
        assert!(last.starts_with("<!-- planmark:v1"), "{name}: {last}");
        // In Actions, no line of the log issues a workflow command.
        let (log, _) = inputs(&dir);
        let log = log.display().to_string();
        let out = Command::new(env!("CARGO_BIN_EXE_planmark"))
            .args(["render", "--applied", &log])
            .env("GITHUB_ACTIONS", "true")
            .output()
            .unwrap();
        let stdout = text(&out.stdout);
        let token = stdout
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("::stop-commands::"));
        assert!(token.is_some(), "{name}: not paused:\n{stdout}");
        assert!(text(&out.stderr).is_empty(), "{name}");
    }
    // A provisioner's output that looks like a resource line is not one.
    let md = text(&render(&fixtures_dir().join("applied/hostile-text"), &[]).stdout);
    assert!(!md.contains("null_resource.fake"), "{md}");
}

#[test]
fn a_huge_apply_fits_every_limit_failures_first() {
    let dir = TempDir::new("applied-huge");
    let log = dir.join("apply.jsonl");
    let resource = |a: &str| {
        serde_json::json!({"addr": a, "module": "", "resource": a, "implied_provider": "null",
            "resource_type": "null_resource", "resource_name": "x", "resource_key": null})
    };
    let mut lines = Vec::new();
    for i in 0..5_000 {
        let a = format!("null_resource.x[\"{i}\"]");
        let (kind, action) = if i % 100 == 99 {
            ("apply_errored", "create")
        } else {
            ("apply_complete", "create")
        };
        lines.push(serde_json::json!({"@level": "info", "type": "apply_start",
            "hook": {"resource": resource(&a), "action": action}}));
        lines.push(serde_json::json!({"@level": "info", "type": kind,
            "hook": {"resource": resource(&a), "action": action}}));
        if kind == "apply_errored" {
            lines.push(serde_json::json!({"@level": "error", "type": "diagnostic",
                "diagnostic": {"severity": "error", "summary": "boom ".repeat(100),
                    "detail": "the provider said no. ".repeat(100), "address": a}}));
        }
    }
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&log, body).unwrap();
    let log = format!("main={}", log.display());
    for max in [65_536, 10_000, 2_000] {
        let max_text = max.to_string();
        let out = planmark(&["render", "--applied", &log, "--max-chars", &max_text]);
        let md = text(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_safe(&format!("max {max}"), &md, max);
        assert!(md.contains("❌ apply failed"), "max {max}:\n{md}");
        assert!(
            md.contains("more not listed, to fit the size limit"),
            "max {max}"
        );
        // Failures are listed before what was applied.
        let first_row = md
            .lines()
            .find(|l| l.starts_with("| ") && l.contains("null_resource"));
        assert!(
            first_row.is_some_and(|r| r.contains("failed")),
            "max {max}:\n{md}"
        );
    }
}

#[test]
fn what_is_not_an_apply_log_exits_2_with_one_line() {
    let dir = TempDir::new("applied-bad");
    let empty = dir.join("empty.log");
    std::fs::write(&empty, "\n\n").unwrap();
    let binary = dir.join("tfplan");
    std::fs::write(&binary, b"PK\x03\x04\0\0garbage").unwrap();
    let plan_log = dir.join("plan.jsonl");
    std::fs::write(
        &plan_log,
        "{\"@level\":\"info\",\"type\":\"version\",\"terraform\":\"1.9.0\"}\n{\"@level\":\"info\",\"type\":\"change_summary\",\"changes\":{\"add\":1,\"change\":0,\"remove\":0,\"operation\":\"plan\"}}\n",
    )
    .unwrap();
    let plan_json = fixtures_dir().join("apply/apply-succeeds/plan.json");
    let plan_text = fixtures_dir().join("apply/apply-succeeds/plan.txt");
    let missing = dir.join("missing.log");
    for (path, words) in [
        (&empty, "is empty"),
        (&binary, "is a binary file"),
        (&plan_log, "has no apply messages (it is the log of a plan)"),
        (
            &plan_json,
            "is a plan (terraform show -json), not an apply log",
        ),
        (&plan_text, "has no apply messages"),
        (&missing, "cannot read"),
    ] {
        let path = path.display().to_string();
        for args in [
            vec!["render", "--applied", &path],
            vec!["comment", "--dry-run", "--applied", &path],
        ] {
            let command = args[0];
            let out = planmark(&args);
            let stderr = text(&out.stderr);
            assert_eq!(out.status.code(), Some(2), "{command} {path}: {stderr}");
            assert_eq!(stderr.lines().count(), 1, "{stderr}");
            assert!(
                stderr.starts_with(&format!("planmark: error: {path}: ")) && stderr.contains(words),
                "{command}: {stderr}"
            );
            assert!(
                text(&out.stdout).is_empty(),
                "{command} {path}: nothing written"
            );
        }
    }
}

#[test]
fn the_command_line_takes_applied_with_or_without_a_plan() {
    let dir = fixtures_dir().join("applied/warnings-json-log-only");
    let log = dir.join("apply.jsonl").display().to_string();
    // Without a name, the key is the log's path.
    let out = planmark(&["render", "--format", "json", "--applied", &log]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let context: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(context["key"], serde_json::json!(log));
    assert_eq!(context["applied"]["outcome"], "applied");
    assert_eq!(context["applied"]["reviewed_plan"], false);
    assert_eq!(context["diagnostics"]["warnings"], 2);
    // A plan's key is kept: NAME=, else the plan's path.
    let plan = fixtures_dir().join("applied/succeeds-json-with-plan/plan.json");
    let plan = plan.display().to_string();
    let with_plan = fixtures_dir().join("applied/succeeds-json-with-plan/apply.jsonl");
    let out = planmark(&[
        "render",
        "--format",
        "json",
        "--applied",
        &with_plan.display().to_string(),
        &plan,
    ]);
    let context: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(context["key"], serde_json::json!(plan));
    assert_eq!(context["applied"]["reviewed_plan"], true);
    // --applied conflicts with --failed and --log; no PLAN needs --failed or --applied.
    for args in [
        vec!["render", "--applied", &log, "--failed", &log],
        vec!["render", "--applied", &log, "--log", &log],
        vec!["render"],
    ] {
        let out = planmark(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
    // Text: the outcome, then the diagnostics.
    let out = planmark(&["render", "--format", "text", "--applied", &log]);
    assert!(text(&out.stdout)
        .starts_with("Apply complete! Resources: 1 added, 0 changed, 0 destroyed.\n\nWarning: "));
}
