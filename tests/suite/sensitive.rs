//! No value a plan marks sensitive may appear in any rendered output.
//!
//! For every fixture plan, every string or number sitting at a position the plan marks
//! sensitive (attribute masks, sensitive outputs, root variables declared sensitive) is
//! collected and searched for in the text output, with and without schemas.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::secrets::leaves;

fn render(plan: &[u8], schemas: Option<&[u8]>) -> String {
    let parsed = planmark::input::plan::parse_plan("plan.json", plan).expect("fixture parses");
    let schemas = schemas
        .map(|s| planmark::input::schema::ProviderSchemas::parse("schemas.json", s).unwrap());
    let diff = planmark::differ::diff_plan("plan.json", &parsed, schemas.as_ref(), None).unwrap();
    planmark::render::text::render_plan(&diff)
}

/// Leaves of `value` under positions where `mask` is `true`.
fn sensitive_leaves(value: &Value, mask: &Value, out: &mut Vec<String>) {
    if mask == &Value::Bool(true) {
        leaves(value, out);
        return;
    }
    match (value, mask) {
        (Value::Object(v), Value::Object(m)) => {
            for (k, child_mask) in m {
                if let Some(child) = v.get(k) {
                    sensitive_leaves(child, child_mask, out);
                }
            }
        }
        (Value::Array(v), Value::Array(m)) => {
            for (child, child_mask) in v.iter().zip(m) {
                sensitive_leaves(child, child_mask, out);
            }
        }
        _ => {}
    }
}

fn secrets_of(plan: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let changes = plan["resource_changes"].as_array().into_iter().flatten();
    let drift = plan["resource_drift"].as_array().into_iter().flatten();
    for rc in changes.chain(drift) {
        let change = &rc["change"];
        sensitive_leaves(&change["before"], &change["before_sensitive"], &mut out);
        sensitive_leaves(&change["after"], &change["after_sensitive"], &mut out);
    }
    if let Some(outputs) = plan["output_changes"].as_object() {
        for change in outputs.values() {
            sensitive_leaves(&change["before"], &change["before_sensitive"], &mut out);
            sensitive_leaves(&change["after"], &change["after_sensitive"], &mut out);
        }
    }
    if let Some(vars) = plan["configuration"]["root_module"]["variables"].as_object() {
        for (name, decl) in vars {
            if decl["sensitive"] == Value::Bool(true) {
                leaves(&plan["variables"][name]["value"], &mut out);
            }
        }
    }
    // Very short values ("1", "a") would match by accident anywhere in the text.
    out.retain(|s| s.len() >= 4);
    out
}

fn fixture_dirs() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut dirs = Vec::new();
    for group in ["equivalence", "real-plans"] {
        let Ok(entries) = std::fs::read_dir(root.join(group)) else {
            continue;
        };
        for entry in entries.flatten() {
            if entry.path().join("plan.json").exists() {
                dirs.push(entry.path());
            }
        }
    }
    dirs.sort();
    dirs
}

#[test]
fn fixtures_never_show_sensitive_values() {
    let mut checked = 0;
    for dir in fixture_dirs() {
        let plan_bytes = std::fs::read(dir.join("plan.json")).unwrap();
        let plan: Value = serde_json::from_slice(&plan_bytes).unwrap();
        let secrets = secrets_of(&plan);
        if secrets.is_empty() {
            continue;
        }
        let schemas = std::fs::read(dir.join("schemas.json")).ok();
        for text in [
            render(&plan_bytes, schemas.as_deref()),
            render(&plan_bytes, None),
        ] {
            for secret in &secrets {
                assert!(
                    !text.contains(secret.as_str()),
                    "{}: sensitive value {secret:?} appears in the output",
                    dir.display()
                );
            }
        }
        checked += 1;
    }
    assert!(
        checked >= 1,
        "expected fixtures with sensitive values, found {checked}"
    );
}

#[test]
fn hostile_plan_keeps_every_secret_hidden() {
    let plan = r#"{
      "format_version": "1.2",
      "variables": {"db_password": {"value": "var-secret-9f2"}},
      "configuration": {"root_module": {"variables": {"db_password": {"sensitive": true}}}},
      "resource_changes": [{
        "address": "test_instance.example", "mode": "managed", "type": "test_instance",
        "name": "example", "provider_name": "registry.terraform.io/hashicorp/test",
        "change": {
          "actions": ["update"],
          "before": {"id": "i-1", "password": "old-secret-1a", "list": ["x", "list-secret-2b"],
                     "map": {"k": "map-secret-3c"}, "nested": {"inner": "nested-secret-4d"},
                     "json": "{\"token\":\"json-secret-5e\"}"},
          "after": {"id": "i-1", "password": "new-secret-6f", "list": ["x", "list-secret-7g"],
                    "map": {"k": "map-secret-8h"}, "nested": {"inner": "nested-secret-9i"},
                    "json": "{\"token\":\"json-secret-0j\"}"},
          "after_unknown": {},
          "before_sensitive": {"password": true, "list": [false, true], "map": {"k": true},
                               "nested": true, "json": true},
          "after_sensitive": {"password": true, "list": [false, true], "map": {"k": true},
                              "nested": true, "json": true}
        }
      }],
      "output_changes": {
        "token": {"actions": ["update"], "before": "out-secret-1k", "after": "out-secret-2l",
                  "after_unknown": false, "before_sensitive": true, "after_sensitive": true}
      }
    }"#;
    let value: Value = serde_json::from_str(plan).unwrap();
    let secrets = secrets_of(&value);
    assert_eq!(
        secrets.len(),
        13,
        "the test collects every planted secret: {secrets:?}"
    );
    let text = render(plan.as_bytes(), None);
    for secret in &secrets {
        assert!(!text.contains(secret.as_str()), "{secret} leaked:\n{text}");
    }
    assert!(text.contains("(sensitive value)"), "{text}");
}

/// Without a schema the differ infers one from the values: the keys of a sensitive object
/// must not become attribute names of a type shown elsewhere (found by tests/suite/properties.rs:
/// a map of objects, one element sensitive, another turning unknown, listed the sensitive
/// element's keys under the unknown one).
#[test]
fn keys_of_sensitive_objects_stay_hidden_without_a_schema() {
    let plan = r#"{
      "format_version": "1.2",
      "resource_changes": [{
        "address": "test_instance.example", "mode": "managed", "type": "test_instance",
        "name": "example", "provider_name": "registry.terraform.io/hashicorp/test",
        "change": {
          "actions": ["delete", "create"],
          "before": {"m": {"y": {"z": null}, "a": {}}, "l": [{"SECRET-key-before": 1}]},
          "after": {"m": {"y": {"SECRET-key-after": null}, "a": null}, "l": [{"k": 1}]},
          "after_unknown": {"m": {"a": true, "y": {"SECRET-key-unknown": true}}},
          "before_sensitive": {"l": [true]},
          "after_sensitive": {"m": {"y": true}}
        }
      }]
    }"#;
    let text = render(plan.as_bytes(), None);
    assert!(!text.contains("SECRET"), "a sensitive key leaked:\n{text}");
    assert!(text.contains("(sensitive value)"), "{text}");
    assert!(text.contains("+ z = (known after apply)"), "{text}");
}
