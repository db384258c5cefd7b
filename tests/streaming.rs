//! The streaming path (`Differ` chunks diffed on several threads, text written as it
//! goes, as `planmark render --format text` does) against the whole-plan path
//! (`diff_plan` + `render_plan`): same text, same order, same first error.

mod support;

use planmark::diff::PlanDiff;
use planmark::differ::{diff_plan, Differ};
use planmark::plan::parse_plan;
use planmark::render::text::{render_plan, shows, write_plan};
use planmark::schema::ProviderSchemas;
use support::*;

/// The text as the CLI streams it.
fn streamed(
    plan_json: &[u8],
    schemas: Option<&ProviderSchemas>,
) -> planmark::error::Result<String> {
    let plan = parse_plan("plan.json", plan_json)?;
    let differ = Differ::new("plan.json", &plan, schemas);
    let head = differ.head(None)?;
    let summaries = differ.summaries(!head.drift.is_empty())?;
    let mut out = Vec::new();
    write_plan(
        &head,
        &summaries,
        differ.resources(|i| shows(&summaries[i])),
        &mut out,
    )?;
    Ok(String::from_utf8(out).expect("UTF-8 text"))
}

fn whole(plan_json: &[u8], schemas: Option<&ProviderSchemas>) -> planmark::error::Result<PlanDiff> {
    let plan = parse_plan("plan.json", plan_json)?;
    diff_plan("plan.json", &plan, schemas, None)
}

#[test]
fn streamed_text_is_the_whole_plan_text_for_every_fixture() {
    let mut checked = 0;
    for root in ["equivalence", "real-plans"] {
        for (name, dir) in case_dirs(&fixtures_dir().join(root)) {
            let plan = std::fs::read(dir.join("plan.json")).expect("plan.json");
            let schemas = std::fs::read(dir.join("schemas.json"))
                .ok()
                .map(|bytes| ProviderSchemas::parse("schemas.json", &bytes).expect("schemas"));
            for schemas in [schemas.as_ref(), None] {
                let expected = render_plan(&whole(&plan, schemas).expect("diffs"));
                let actual = streamed(&plan, schemas).expect("streams");
                assert_eq!(
                    actual,
                    expected,
                    "{root}/{name} (schemas: {})",
                    schemas.is_some()
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "only {checked} fixtures checked");
}

/// A plan of `n` identical replacements of `null_resource.r[i]`, but for unreadable
/// values in those listed in `broken`.
fn many_replacements(n: usize, broken: &[usize]) -> String {
    let changes: Vec<String> = (0..n)
        .map(|i| {
            // Nesting deeper than the value parser's limit makes values unreadable.
            let port = if broken.contains(&i) {
                format!("{}{}", "[".repeat(300), "]".repeat(300))
            } else {
                "8080".to_string()
            };
            format!(
                r#"{{"address":"null_resource.r[{i}]","mode":"managed","type":"null_resource","name":"r","index":{i},"provider_name":"registry.terraform.io/hashicorp/null","change":{{"actions":["delete","create"],"before":{{"id":"1","triggers":{{"image":"api:1.0","port":{port}}}}},"after":{{"triggers":{{"image":"api:1.1","port":{port}}}}},"after_unknown":{{"id":true,"triggers":{{}}}},"before_sensitive":{{"triggers":{{}}}},"after_sensitive":{{"triggers":{{}}}},"replace_paths":[["triggers"]]}},"action_reason":"replace_because_cannot_update"}}"#
            )
        })
        .collect();
    format!(
        r#"{{"format_version":"1.0","terraform_version":"1.0.3","resource_changes":[{}]}}"#,
        changes.join(",")
    )
}

#[test]
fn chunks_diffed_on_several_threads_keep_plan_order() {
    // More than two chunks, each split across threads.
    let n = 5_000;
    let plan = many_replacements(n, &[]);
    let diff = whole(plan.as_bytes(), None).expect("diffs");
    assert_eq!(diff.resources.len(), n);
    let first = serde_json::to_string(&diff.resources[0].body).unwrap();
    for (i, r) in diff.resources.iter().enumerate() {
        assert_eq!(r.address, format!("null_resource.r[{i}]"));
        assert_eq!(
            serde_json::to_string(&r.body).unwrap(),
            first,
            "{}",
            r.address
        );
    }
    let text = streamed(plan.as_bytes(), None).expect("streams");
    assert_eq!(text, render_plan(&diff));
    assert!(text.ends_with("Plan: 5000 to add, 0 to change, 5000 to destroy.\n"));
}

#[test]
fn the_first_unreadable_resource_in_plan_order_is_reported() {
    // Both in the second chunk (2048..4096), in the halves of different threads (on a
    // machine with two cores or more), and in a third chunk: the first in the plan wins.
    let plan = many_replacements(5_000, &[4_500, 3_500, 3_001]);
    for err in [
        whole(plan.as_bytes(), None).map(|_| ()).unwrap_err(),
        streamed(plan.as_bytes(), None).map(|_| ()).unwrap_err(),
    ] {
        let message = err.to_string();
        assert!(
            message.contains("`null_resource.r[3001]`"),
            "expected the first broken resource: {message}"
        );
    }
}
