//! Rego builtins as OPA has them (issue 36): every `fixtures/policy/<behaviour>/` with an
//! `oracle.txt` (what the real OPA engine said, written by `record_oracle.py` beside the
//! cases) must get the same report from planmark: the same rules, passes and messages,
//! byte for byte; where OPA failed a rule (`error main.RULE`), planmark must fail on it. `policy_rego` checks the same cases' exit codes and standard error.
//!
//! `time.now_ns()` is the run's clock: with `SOURCE_DATE_EPOCH` set, every rule of every
//! plan reads that time.

use std::path::Path;

use clap::Parser;
use planmark::cli::{Cli, Command};
use planmark::pipeline::{self, Format, RunInfo};
use planmark::policy::rego::{Finding, Level, PolicyReport};

use crate::support::bin::command;
use crate::support::case_dirs;

const CASES: &str = "tests/fixtures/policy";
const PLAN: &str = "tests/fixtures/policy/rego-plan.json";

/// The report as `record_oracle.py` writes OPA's: messages as JSON strings.
fn report(report: &PolicyReport) -> String {
    let line = |f: &Finding| {
        let level = match f.level {
            Level::Failure => "failure",
            Level::Warning => "warning",
        };
        let message = serde_json::to_string(&f.message).unwrap();
        format!("{level} {}.{}: {message}\n", f.namespace, f.rule)
    };
    let mut text = format!("rules {}, passed {}\n", report.rules, report.passed);
    text.extend(report.failures.iter().chain(&report.warnings).map(line));
    text
}

/// planmark's report on the shared plan with the case's policies, or its error; with
/// `--policy-strict`, as the oracle (OPA through its bindings) evaluates with strict
/// builtin errors.
fn planmark(case: &Path) -> Result<String, String> {
    let policy = case.join("policy").display().to_string();
    let args = [
        "planmark",
        "render",
        "--format",
        "text",
        "--policy-strict",
        "--policy",
        &policy,
        PLAN,
    ];
    let cli = Cli::try_parse_from(args).expect("the arguments parse");
    let Command::Render(render) = cli.command else {
        unreachable!("a render command")
    };
    let options = render.common.options(None, RunInfo::default());
    match pipeline::render(&options, Format::Text, &mut Vec::new()) {
        Ok(verdicts) => Ok(verdicts.rego.iter().map(|(_, r)| report(r)).collect()),
        Err(err) => Err(err.to_string()),
    }
}

#[test]
fn reports_are_the_oracles() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(CASES);
    let mut failures = Vec::new();
    let mut count = 0;
    for (name, case) in case_dirs(&root) {
        let Ok(expected) = std::fs::read_to_string(case.join("oracle.txt")) else {
            continue;
        };
        count += 1;
        // OPA (with strict builtin errors, as the bindings run it) failed these rules:
        // planmark must fail too, naming one.
        let errors: Vec<&str> = expected
            .lines()
            .filter_map(|l| l.strip_prefix("error "))
            .collect();
        match planmark(&case) {
            Err(err) if errors.iter().any(|rule| err.contains(rule)) => {}
            Ok(actual) if errors.is_empty() && actual == expected => {}
            Ok(_) if !errors.is_empty() => failures.push(format!(
                "{name}: OPA failed on {errors:?}, planmark did not"
            )),
            Ok(actual) => failures.push(format!(
                "{name}: planmark's report differs from OPA's\n--- OPA\n{expected}--- planmark\n{actual}"
            )),
            Err(err) => failures.push(format!("{name}: planmark failed where OPA did not: {err}")),
        }
    }
    assert!(
        count >= 5,
        "only {count} cases with an oracle.txt under {CASES}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Two rules and two plans read one clock: the run's time.
#[test]
fn time_now_is_the_run_clock() {
    let dir = crate::support::temp::TempDir::new("rego-clock");
    let policy = dir.path().join("clock.rego");
    std::fs::write(
        &policy,
        "package main\n\
         warn_a contains sprintf(\"%d\", [time.now_ns()])\n\
         warn_b contains sprintf(\"%d\", [time.now_ns()])\n",
    )
    .unwrap();
    let mut cmd = command(&[
        "render",
        "--format",
        "text",
        "--policy",
        &policy.display().to_string(),
        &format!("a={PLAN}"),
        &format!("b={PLAN}"),
    ]);
    cmd.env("SOURCE_DATE_EPOCH", "1700000000");
    let out = cmd.output().expect("planmark runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let stamps: Vec<&str> = stderr
        .lines()
        .filter(|l| l.starts_with("planmark: policy warning"))
        .collect();
    assert_eq!(stamps.len(), 4, "{stderr}");
    for line in stamps {
        assert!(line.contains("1700000000000000000"), "{line}");
    }
}
