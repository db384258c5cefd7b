//! Rego policies (`--policy`): every `fixtures/policy/<behaviour>/` with an `args.txt` is
//! run as `planmark render --format text ARGS` (its exit code and standard error) and
//! through the pipeline in-process (each plan's report: rules, passed, findings), and both
//! are compared with `expected.txt` beside it. In `args.txt`, `{case}` is the case's folder
//! and `{plan}` the plan shared by the cases (`fixtures/policy/rego-plan.json`).
//!
//! Every case also checks what holds for all: standard output is Terraform's text exactly
//! as without `--policy` (nothing on it after an error), and every line of standard error
//! is planmark's own (no workflow command, whatever a policy says).

use std::path::Path;

use clap::Parser;
use planmark::cli::{Cli, Command};
use planmark::input::text::one_line;
use planmark::pipeline::{self, Format, RunInfo};
use planmark::policy::rego::{Finding, Level, PolicyReport};

use crate::support::bin::{assert_no_panic, command, run, Run};
use crate::support::{case_dirs, golden};

const CASES: &str = "tests/fixtures/policy";
const PLAN: &str = "tests/fixtures/policy/rego-plan.json";

/// The case's arguments after `render --format text`.
fn arguments(case: &Path) -> Vec<String> {
    let name = case.file_name().unwrap().to_string_lossy();
    let text = std::fs::read_to_string(case.join("args.txt")).unwrap();
    text.split_whitespace()
        .map(|arg| {
            arg.replace("{case}", &format!("{CASES}/{name}"))
                .replace("{plan}", PLAN)
        })
        .collect()
}

/// `failure main.deny [aws_s3_bucket.x]: "message"`, one line whatever the message holds.
fn finding(f: &Finding) -> String {
    let level = match f.level {
        Level::Failure => "failure",
        Level::Warning => "warning",
    };
    let resource = f
        .resource
        .as_ref()
        .map(|r| format!(" [{}]", one_line(r)))
        .unwrap_or_default();
    format!(
        "{level} {}.{}{resource}: {:?}",
        f.namespace, f.rule, f.message
    )
}

fn report(report: &PolicyReport) -> String {
    let mut text = format!("rules {}, passed {}\n", report.rules, report.passed);
    for f in report.failures.iter().chain(&report.warnings) {
        text.push_str(&finding(f));
        text.push('\n');
    }
    for e in &report.exceptions {
        text.push_str(&format!(
            "exception {}.{}: {:?}\n",
            e.namespace, e.rule, e.message
        ));
    }
    for s in &report.skipped {
        text.push_str(&format!(
            "skipped {}.{}: {:?}\n",
            s.namespace, s.rule, s.what
        ));
    }
    for e in &report.builtin_errors {
        text.push_str(&format!(
            "builtin error {}.{}: {:?} at {:?}: {:?}\n",
            e.namespace, e.rule, e.builtin, e.location, e.message
        ));
    }
    text
}

/// The reports (or the error) of the pipeline run in-process with `args`.
fn in_process(args: &[String]) -> String {
    let all = ["planmark", "render", "--format", "text"]
        .into_iter()
        .map(String::from)
        .chain(args.iter().cloned());
    let cli = Cli::try_parse_from(all).expect("the case's arguments parse");
    let Command::Render(render) = cli.command else {
        unreachable!("a render command")
    };
    let options = render.common.options(None, RunInfo::default());
    match pipeline::render(&options, Format::Text, &mut Vec::new()) {
        Ok(verdicts) => verdicts.rego.iter().map(|(_, r)| report(r)).collect(),
        Err(err) => format!("error: {}\n", one_line(&err.to_string())),
    }
}

/// Standard output as without any `--policy`, standard error planmark's own lines.
fn check_streams(name: &str, args: &[String], out: &Run) {
    assert_no_panic(out);
    for line in out.stderr.lines() {
        assert!(
            line.starts_with("planmark: "),
            "{name}: a stderr line not planmark's: {line:?}"
        );
    }
    if out.code() == 2 {
        assert_eq!(out.stdout, "", "{name}: no output after an error");
        return;
    }
    let plans: Vec<&str> = args
        .iter()
        .map(String::as_str)
        .filter(|a| a.ends_with(".json"))
        .collect();
    let plain = run(
        &[&["render", "--format", "text"], &plans[..]].concat(),
        None,
    );
    assert_eq!(
        out.stdout, plain.stdout,
        "{name}: text differs with --policy"
    );
}

#[test]
fn each_behaviour_reports_as_expected() {
    let mut failures = Vec::new();
    let mut count = 0;
    for (name, case) in case_dirs(Path::new(env!("CARGO_MANIFEST_DIR")).join(CASES).as_path()) {
        if !case.join("args.txt").is_file() {
            continue;
        }
        count += 1;
        let args = arguments(&case);
        let all: Vec<&str> = ["render", "--format", "text"]
            .into_iter()
            .chain(args.iter().map(String::as_str))
            .collect();
        let out = run(&all, None);
        check_streams(&name, &args, &out);
        let actual = format!(
            "$ planmark {}\nexit {}\nstderr:\n{}report:\n{}",
            all.join(" "),
            out.code(),
            out.stderr,
            in_process(&args)
        );
        if let Err(e) = golden::check(&case.join("expected.txt"), &actual) {
            failures.push(e);
        }
    }
    assert!(count >= 15, "only {count} cases found under {CASES}");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// `comment` judges like `render`: the comment is out (here, the dry run's body) before
/// the failures exit 3; `--policy-warn-only` turns them into warnings and exit 0.
#[test]
fn comment_exits_3_after_the_dry_run_unless_warn_only() {
    let policy = format!("{CASES}/deny-in-rego-v1-syntax/policy");
    let comment = |extra: &[&str]| {
        let mut cmd = command(
            &[
                &["comment", "--dry-run", "--repo", "o/r", "--pr", "1"],
                extra,
                &["--policy", &policy, PLAN],
            ]
            .concat(),
        );
        let out = cmd.env_remove("GITHUB_TOKEN").output().unwrap();
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stdout, stderr) = comment(&[]);
    assert_eq!(code, Some(3), "{stderr}");
    assert!(
        stdout.contains("planmark: would create or update the comment"),
        "{stdout}"
    );
    assert_eq!(stderr.lines().count(), 2, "{stderr}");
    assert!(
        stderr
            .lines()
            .all(|l| l.starts_with("planmark: policy: ") && l.ends_with(" (main.deny)")),
        "{stderr}"
    );
    let (code, stdout, stderr) = comment(&["--policy-warn-only"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(
        stdout.contains("planmark: would create or update the comment"),
        "{stdout}"
    );
    assert!(
        stderr
            .lines()
            .all(|l| l.starts_with("planmark: policy warning: ")
                && l.ends_with("(main.deny) [--policy-warn-only]")),
        "{stderr}"
    );
}

/// Each plan is its own `input`; with several, each line names its plan.
#[test]
fn several_plans_are_judged_each_by_its_own_json() {
    let policy = format!("{CASES}/deny-in-rego-v1-syntax/policy");
    let other =
        "tests/fixtures/policy/replacements_count_as_destroyed/create_before_destroy/plan.json";
    let out = run(
        &[
            "render",
            "--policy",
            &policy,
            &format!("risky={PLAN}"),
            &format!("calm={other}"),
        ],
        None,
    );
    assert_eq!(out.code(), 3, "{}", out.stderr);
    assert!(
        out.stderr
            .lines()
            .all(|l| l.starts_with("planmark: policy: risky: ")),
        "{}",
        out.stderr
    );
}

/// The policy flags without `--policy` are a usage error; bad durations are refused.
#[test]
fn policy_settings_need_a_policy() {
    for args in [
        &["--policy-namespace", "main"][..],
        &["--policy-warn-only"][..],
        &["--policy-strict"][..],
        &["--policy", "x.rego", "--policy-timeout", "0"][..],
        &["--policy", "x.rego", "--policy-timeout", "soon"][..],
    ] {
        let out = run(&[&["render"], args, &[PLAN]].concat(), None);
        assert_eq!(out.code(), 2, "{args:?}: {}", out.stderr);
        assert!(out.stderr.contains("--policy"), "{args:?}: {}", out.stderr);
    }
}

/// Issue 35: a rule that formats sensitive values into its messages shows
/// `(sensitive value)` instead, in the comment and on standard error, in new plans (masks,
/// outputs, variables) and old ones (the schema's sensitive attributes, with `--schemas`).
#[test]
fn sensitive_values_never_reach_a_finding() {
    let new = "tests/fixtures/real-plans/secrets/plan.json";
    let old = "tests/fixtures/old-sensitivity/terraform_0_14";
    let cases = [
        (
            vec![
                "--policy".to_string(),
                format!("{CASES}/secrets-in-messages-are-masked/policy"),
                new.to_string(),
            ],
            vec!["key-111", "key-222"],
            vec!["https://api2.example.com"],
        ),
        (
            vec![
                "--schemas".to_string(),
                format!("{old}/schemas.json"),
                "--policy".to_string(),
                format!("{CASES}/old-plan-secrets-masked-with-schemas/policy"),
                format!("{old}/plan.json"),
            ],
            vec!["new-db-pw-2b", "sp-secret-new-6f", "license-secret-7g"],
            vec!["for admin"],
        ),
    ];
    for (args, secrets, kept) in cases {
        for format in ["markdown", "text", "json"] {
            let mut all = vec!["render", "--format", format];
            all.extend(args.iter().map(String::as_str));
            let out = run(&all, None);
            assert_no_panic(&out);
            assert_eq!(out.code(), 3, "{args:?} {format}: {}", out.stderr);
            for secret in &secrets {
                assert!(!out.stdout.contains(secret), "{secret} in {format} output");
                assert!(
                    !out.stderr.contains(secret),
                    "{secret} on stderr:\n{}",
                    out.stderr
                );
            }
            assert!(out.stderr.contains("(sensitive value)"), "{}", out.stderr);
            for public in &kept {
                assert!(
                    out.stderr.contains(public),
                    "{public} kept:\n{}",
                    out.stderr
                );
            }
            if format == "markdown" {
                assert!(out.stdout.contains("(sensitive value)"), "{}", out.stdout);
            }
        }
    }
}
