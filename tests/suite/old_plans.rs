//! Plans from Terraform before 0.15.2, whose sensitivity masks leave out what providers
//! declare sensitive in their schemas (`tests/fixtures/old-sensitivity/<case>/`: hand-made
//! plans in the 0.12 and 0.14 shapes with a matching `schemas.json`).
//!
//! With schemas, every value of a schema-sensitive attribute (nested blocks and nested
//! attribute types too) and of an output the configuration declares sensitive stays out
//! of every format, and the text is `expected.txt`; without
//! them, the comment and standard error say that provider-declared secrets cannot be
//! recognised, attributes named like secrets are hidden, and the text is
//! `expected-no-schemas.txt`.

use crate::support::bin;

use std::path::{Path, PathBuf};

use crate::support::secrets::{leaves, secrets_in_block};
use bin::*;
use serde_json::Value;

const FORMATS: [&str; 4] = ["text", "markdown", "json", "html"];
const NOTICE: &str = "Provider-declared secrets cannot be recognised";

fn cases() -> Vec<PathBuf> {
    crate::support::plan_cases(&crate_dir().join("tests/fixtures/old-sensitivity"), 2)
}

fn read_json(path: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

fn rel(path: &Path) -> String {
    path.strip_prefix(crate_dir())
        .unwrap()
        .display()
        .to_string()
}

/// Every value in `plan` that `schemas` declares sensitive, found by the schema alone.
fn schema_secrets(plan: &Value, schemas: &Value) -> Vec<String> {
    let mut out = Vec::new();
    for rc in plan["resource_changes"].as_array().unwrap() {
        let provider = rc["provider_name"].as_str().unwrap();
        let short = provider.rsplit('/').next().unwrap();
        let schema = schemas["provider_schemas"]
            .as_object()
            .unwrap()
            .iter()
            .find(|(name, _)| name.as_str() == provider || name.rsplit('/').next() == Some(short))
            .map(|(_, p)| &p["resource_schemas"][rc["type"].as_str().unwrap()]["block"]);
        let Some(block) = schema else { continue };
        for side in ["before", "after"] {
            secrets_in_block(block, &rc["change"][side], &mut out);
        }
    }
    out.extend(declared_sensitive_outputs(plan));
    out
}

/// Values of outputs the configuration declares sensitive (Terraform before 0.14 wrote no
/// sensitivity for output changes).
fn declared_sensitive_outputs(plan: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let declared = &plan["configuration"]["root_module"]["outputs"];
    for (name, change) in plan["output_changes"].as_object().into_iter().flatten() {
        if declared[name]["sensitive"] == Value::Bool(true) {
            leaves(&change["before"], &mut out);
            leaves(&change["after"], &mut out);
        }
    }
    out
}

fn render(format: &str, dir: &Path, schemas: bool) -> Run {
    let plan = rel(&dir.join("plan.json"));
    let schemas_path = rel(&dir.join("schemas.json"));
    let mut args = vec!["render", "--format", format];
    if schemas {
        args.extend(["--schemas", &schemas_path]);
    }
    args.push(&plan);
    let run = run(&args, None);
    assert_eq!(run.code(), 0, "{}", run.stderr);
    run
}

#[test]
fn schemas_hide_provider_declared_secrets_in_every_format() {
    for dir in cases() {
        let secrets = schema_secrets(
            &read_json(&dir.join("plan.json")),
            &read_json(&dir.join("schemas.json")),
        );
        assert!(
            !secrets.is_empty(),
            "{}: the fixture must hold provider-sensitive values",
            dir.display()
        );
        for format in FORMATS {
            let run = render(format, &dir, true);
            for secret in &secrets {
                assert!(
                    !run.stdout.contains(secret.as_str()),
                    "{} --format {format}: provider-sensitive {secret:?} shown:\n{}",
                    dir.display(),
                    run.stdout
                );
            }
            assert!(
                !run.stdout.contains(NOTICE) && run.stderr.is_empty(),
                "{} --format {format}: with schemas there is nothing to warn about:\n{}",
                dir.display(),
                run.stderr
            );
        }
        let text = render("text", &dir, true).stdout;
        let expected = std::fs::read_to_string(dir.join("expected.txt")).unwrap();
        assert_eq!(text, expected, "{}", dir.display());
    }
}

#[test]
fn without_schemas_the_comment_and_stderr_say_so_and_secret_names_are_hidden() {
    for dir in cases() {
        let plan = read_json(&dir.join("plan.json"));
        // The values of attributes named like secrets, whatever the schema says.
        let mut named = Vec::new();
        for rc in plan["resource_changes"].as_array().unwrap() {
            for side in ["before", "after"] {
                collect_secret_named(&rc["change"][side], &mut named);
            }
        }
        named.extend(declared_sensitive_outputs(&plan));
        assert!(!named.is_empty(), "{}", dir.display());
        for format in FORMATS {
            let run = render(format, &dir, false);
            for secret in &named {
                assert!(
                    !run.stdout.contains(secret.as_str()),
                    "{} --format {format}: {secret:?} shown:\n{}",
                    dir.display(),
                    run.stdout
                );
            }
            let warning = run.stderr.trim_end();
            assert!(
                warning.lines().count() == 1
                    && warning.starts_with("planmark: warning: ")
                    && warning.contains("before 0.15.2")
                    && warning.contains("--schemas")
                    && warning.contains("schemas: auto"),
                "{} --format {format}: stderr {:?}",
                dir.display(),
                run.stderr
            );
        }
        let markdown = render("markdown", &dir, false).stdout;
        assert!(markdown.contains(NOTICE), "{markdown}");
        assert!(markdown.contains("`schemas: auto`"), "{markdown}");
        let json: Value = serde_json::from_str(&render("json", &dir, false).stdout).unwrap();
        assert_eq!(json["plans"][0]["provider_sensitivity_unknown"], true);
        let html = render("html", &dir, false).stdout;
        assert!(html.contains(NOTICE), "{html}");
        let text = render("text", &dir, false).stdout;
        let expected = std::fs::read_to_string(dir.join("expected-no-schemas.txt")).unwrap();
        assert_eq!(text, expected, "{}", dir.display());
    }
}

fn collect_secret_named(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(members) => {
            for (name, v) in members {
                let lower = name.to_ascii_lowercase();
                if ["password", "secret", "token", "private_key"]
                    .iter()
                    .any(|p| lower.contains(p))
                {
                    leaves(v, out);
                } else {
                    collect_secret_named(v, out);
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| collect_secret_named(i, out)),
        _ => {}
    }
}

#[test]
fn newer_plans_get_no_notice() {
    // Terraform 1.0.3 folds provider sensitivity into the masks itself.
    let plan = "tests/fixtures/real-plans/secrets/plan.json";
    let run = run(&["render", plan], None);
    assert_eq!(run.code(), 0, "{}", run.stderr);
    assert!(!run.stdout.contains(NOTICE), "{}", run.stdout);
    assert!(run.stderr.is_empty(), "{}", run.stderr);
}

#[test]
fn an_old_plan_is_told_by_its_version_or_else_its_format() {
    let plan = |version: Option<&str>, format: &str| {
        let version = version.map_or(String::new(), |v| format!(r#""terraform_version":"{v}","#));
        format!(
            r#"{{"format_version":"{format}",{version}"resource_changes":[{{"address":"a.b","mode":"managed","type":"a","name":"b","provider_name":"a","change":{{"actions":["create"],"before":null,"after":{{"db_password":"pw-value-1"}},"after_unknown":{{}}}}}}]}}"#
        )
    };
    for (version, format, old) in [
        (Some("0.14.11"), "0.1", true),
        (Some("0.15.0-beta2"), "0.2", true),
        (Some("0.15.0"), "0.2", true),
        // 0.15.2 added provider-declared sensitivity to the JSON masks (its changelog).
        (Some("0.15.1"), "0.1", true),
        (None, "0.2", true),
        (Some("0.15.2"), "0.2", false),
        (Some("1.0.3"), "0.2", false),
        (None, "1.2", false),
    ] {
        let run = run(
            &["render", "--format", "text", "-"],
            Some(plan(version, format).as_bytes()),
        );
        assert_eq!(run.code(), 0, "{}", run.stderr);
        assert_eq!(
            run.stderr.contains("before 0.15.2"),
            old,
            "{version:?} {format}: {}",
            run.stderr
        );
        assert_eq!(
            !run.stdout.contains("pw-value-1"),
            old,
            "{version:?} {format}:\n{}",
            run.stdout
        );
    }
}
