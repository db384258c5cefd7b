//! The canonical form: the plan's data, in one spelling, with no secret in it.

use super::CanonicalForms;
use crate::differ::Differ;
use crate::input::plan::parse_plan;
use crate::input::schema::ProviderSchemas;

/// The canonical form of the plan `text`'s first resource change (and its name), with
/// `schemas` when given.
fn canonical(text: &str, schemas: Option<&str>) -> (String, String) {
    let plan = parse_plan("plan.json", text.as_bytes()).unwrap();
    let schemas = schemas.map(|s| ProviderSchemas::parse("schemas.json", s.as_bytes()).unwrap());
    let differ = Differ::new("plan.json", &plan, schemas.as_ref());
    let mut out = Vec::new();
    let name = CanonicalForms::resource(&differ, 0, true, &mut out).unwrap();
    (name, String::from_utf8(out).unwrap())
}

fn plan(version: &str, change: &str) -> String {
    format!(
        r#"{{"format_version":"1.2","terraform_version":"{version}","resource_changes":[
        {{"address":"aws_db_instance.main","mode":"managed","type":"aws_db_instance",
        "name":"main","provider_name":"registry.terraform.io/hashicorp/aws",
        "change":{change}}}]}}"#
    )
}

#[test]
fn key_order_and_spacing_do_not_matter() {
    let a = plan(
        "1.9.0",
        r#"{"actions":["update"],"before":{"b":1,"a":[1, 2]},"after":{"a":[1,2],"b":2},
        "after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#,
    );
    let b = plan(
        "1.9.0",
        r#"{"after_sensitive":{},"after":{"b":2,"a":[1,2]},"actions":["update"],
        "before_sensitive":{},"before":{"a":[1,2],"b":1},"after_unknown":{}}"#,
    );
    assert_eq!(canonical(&a, None), canonical(&b, None));
    let (name, form) = canonical(&a, None);
    assert_eq!(name, "aws_db_instance.main");
    assert!(form.contains("\nbefore {\"a\":[1,2],\"b\":1}\n"), "{form}");
    assert!(form.contains("\nafter {\"a\":[1,2],\"b\":2}\n"), "{form}");
}

#[test]
fn secrets_are_masked_and_only_their_change_is_kept() {
    let change = |new: &str| {
        plan(
            "1.9.0",
            &format!(
                r#"{{"actions":["update"],"before":{{"pw":"hunter2","n":[{{"k":"old-key"}}]}},
                "after":{{"pw":"{new}","n":[{{"k":"old-key"}}]}},"after_unknown":{{"id":true}},
                "before_sensitive":{{"pw":true,"n":[{{"k":true}}]}},
                "after_sensitive":{{"pw":true,"n":[{{"k":true}}]}}}}"#
            ),
        )
    };
    let (_, changed) = canonical(&change("correct horse"), None);
    for secret in ["hunter2", "correct horse", "old-key"] {
        assert!(!changed.contains(secret), "{changed}");
    }
    assert!(
        changed.contains(r#""pw":(sensitive, changed)"#),
        "{changed}"
    );
    assert!(changed.contains(r#""k":(sensitive)"#), "{changed}");
    // Unknown attributes Terraform leaves out of `after` are written too.
    assert!(changed.contains(r#""id":(known after apply)"#), "{changed}");
    // Another new secret is the same change; the old one kept is not.
    assert_eq!(canonical(&change("another"), None).1, changed);
    assert_ne!(canonical(&change("hunter2"), None).1, changed);
}

#[test]
fn old_plans_take_secrets_from_schemas_or_from_their_names() {
    // Terraform 0.14 left provider-declared secrets out of its masks.
    let old = plan(
        "0.14.11",
        r#"{"actions":["update"],"before":{"token":"t-old","conn":"c-old","size":1},
        "after":{"token":"t-new","conn":"c-new","size":2},"after_unknown":{}}"#,
    );
    let schemas = r#"{"format_version":"1.0","provider_schemas":{
        "registry.terraform.io/hashicorp/aws":{"resource_schemas":{"aws_db_instance":{
        "version":0,"block":{"attributes":{
        "token":{"type":"string"},"conn":{"type":"string","sensitive":true},
        "size":{"type":"number"}}}}}}}}"#;
    let (_, with_schemas) = canonical(&old, Some(schemas));
    assert!(!with_schemas.contains("c-old") && !with_schemas.contains("c-new"));
    assert!(with_schemas.contains("t-new"), "{with_schemas}");
    // Without schemas, names that read like secrets are masked, as the diff hides them.
    let (_, by_name) = canonical(&old, None);
    assert!(
        !by_name.contains("t-old") && !by_name.contains("t-new"),
        "{by_name}"
    );
    let plan = parse_plan("plan.json", old.as_bytes()).unwrap();
    let schemas = ProviderSchemas::parse("s.json", schemas.as_bytes()).unwrap();
    assert!(Differ::new("p", &plan, Some(&schemas)).reads_schemas());
    let new = super::tests::plan("1.9.0", r#"{"actions":["create"],"after":{}}"#);
    let new = parse_plan("plan.json", new.as_bytes()).unwrap();
    assert!(!Differ::new("p", &new, Some(&schemas)).reads_schemas());
}
