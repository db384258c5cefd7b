//! Fuzz target bodies, shared by the cargo-fuzz binaries (`fuzz/fuzz_targets/*.rs`, nightly)
//! and the bounded stable run over the seeds and their mutations
//! (`tests/suite/fuzz_corpus.rs`).
//!
//! Each target takes arbitrary bytes and panics only when an invariant breaks:
//! - [`plan_render`]: bytes → plan → diff → Terraform text, comment, HTML preview and
//!   template context. Bad input must come back as a one-line error; a plan that parses
//!   must render to well-formed Markdown with nothing live in it, within the size limit.
//! - [`schema_parse`]: bytes → provider schemas; schemas that parse are then used to diff
//!   and render a fixed plan whose values need not match them.

// Each cargo-fuzz binary uses one of the targets.
#![allow(dead_code)]

use planmark::differ::diff_plan;

use planmark::input::plan::parse_plan;
use planmark::input::schema::ProviderSchemas;
use planmark::marker::{marker_line, MarkerData};
use planmark::render::html::preview_page;
use planmark::render::markdown::budget::measure;
use planmark::render::markdown::{render_comment, Meta, NamedPlan, TemplateSet, MIN_MAX_CHARS};
use planmark::render::text::render_plan;

// The Markdown checks are test support, not library API: the suite (a test build) has them
// as `support::check`, a cargo-fuzz build compiles the same file in.
#[cfg(test)]
use crate::support::check;
#[cfg(not(test))]
#[path = "../tests/suite/support/check.rs"]
mod check;
use check::{check_markdown, live_references};

/// A plan with one resource of each common shape, diffed against fuzzed schemas.
const SCHEMA_PLAN: &str = r#"{"format_version":"1.2","resource_changes":[
 {"address":"null_resource.a","mode":"managed","type":"null_resource","name":"a",
  "provider_name":"registry.terraform.io/hashicorp/null",
  "change":{"actions":["update"],
   "before":{"id":"1","triggers":{"a":"b","c":"d"},"list":[1,2,3],"set":["x","y"],
             "block":[{"k":"v","n":[1]}],"obj":{"k":"v","o":{"p":true}},"json":"{\"a\":1}",
             "text":"a\nb\n"},
   "after":{"id":"1","triggers":{"a":"B"},"list":[1,3,4],"set":["y","z"],
            "block":[{"k":"w","n":[2]},{"k":"x","n":[]}],"obj":{"k":"w","o":null},
            "json":"{\"a\":2}","text":"a\nc\n"},
   "after_unknown":{"block":[{"n":[true]},{}]},
   "before_sensitive":{"triggers":{"c":true}},"after_sensitive":{"obj":{"o":true}},
   "replace_paths":[["list",1],["block",0,"k"]]}},
 {"address":"data.null_data_source.d","mode":"data","type":"null_data_source","name":"d",
  "provider_name":"registry.terraform.io/hashicorp/null",
  "change":{"actions":["read"],"before":null,"after":{"inputs":{"a":"b"},"outputs":null},
   "after_unknown":{"outputs":true},"before_sensitive":false,"after_sensitive":{}}}]}"#;

/// Bytes → plan → every output format, checking the invariants; bad input must be a
/// one-line error.
pub fn plan_render(data: &[u8]) {
    let plan = match parse_plan("fuzz.json", data) {
        Ok(plan) => plan,
        Err(err) => return assert_one_line(&err),
    };
    match diff_plan("fuzz.json", &plan, None, None) {
        Ok(diff) => render_all(&diff, max_chars_for(data)),
        Err(err) => assert_one_line(&err),
    }
}

/// Bytes → provider schemas; any that parse are used on [`SCHEMA_PLAN`].
pub fn schema_parse(data: &[u8]) {
    let schemas = match ProviderSchemas::parse("schemas.json", data) {
        Ok(schemas) => schemas,
        Err(err) => return assert_one_line(&err),
    };
    let plan = parse_plan("plan.json", SCHEMA_PLAN.as_bytes()).expect("the fixed plan parses");
    match diff_plan("plan.json", &plan, Some(&schemas), None) {
        Ok(diff) => render_all(&diff, max_chars_for(data)),
        Err(err) => assert_one_line(&err),
    }
}

/// A size limit chosen from the input, so the fuzzer also reaches the shortened forms.
fn max_chars_for(data: &[u8]) -> usize {
    let seed = data.iter().fold(data.len(), |h, &b| {
        h.wrapping_mul(31).wrapping_add(b as usize)
    });
    match seed % 4 {
        0 => MIN_MAX_CHARS,
        1 => 4_000,
        _ => planmark::render::markdown::GITHUB_MAX_CHARS,
    }
}

fn render_all(diff: &planmark::diff::PlanDiff, max_chars: usize) {
    let text = render_plan(diff);
    assert!(
        text.ends_with('\n') || text.is_empty(),
        "text ends mid-line"
    );
    let meta = meta();
    let lists = planmark::diff::DiffedPlan::new(diff);
    let plans = [NamedPlan {
        name: "fuzz",
        head: lists.head,
        changes: lists.changes(),
        links: None,
    }];
    let comment = render_comment(&plans, &meta, &TemplateSet::default(), max_chars)
        .unwrap_or_else(|e| panic!("built-in templates failed to render: {e}"));
    let md = &comment.markdown;
    let problems = check_markdown(md);
    assert!(
        problems.is_empty(),
        "malformed Markdown: {problems:?}\n{md}"
    );
    let live = live_references(md);
    assert!(live.is_empty(), "live references {live:?}\n{md}");
    let size = measure(md);
    assert!(size <= max_chars, "{size} > {max_chars} characters");
    let html = preview_page(md, "fuzz");
    assert!(
        !html.to_ascii_lowercase().contains("<script"),
        "live script"
    );
    serde_json::to_string(&comment.context).expect("the context serialises");
}

fn meta() -> Meta {
    let time = "2026-01-01T00:00:00Z".to_string();
    Meta {
        title: None,
        key: "fuzz".to_string(),
        commit: None,
        run_url: None,
        time: time.clone(),
        marker: marker_line(&MarkerData {
            key: "fuzz".to_string(),
            plan_sha256: "0".repeat(64),
            time,
            ..MarkerData::default()
        }),
        tool: None,
        // Every plan's change map, so that hostile names reach its labels too.
        map: planmark::render::markdown::MapMode::Always,
        no_group: false,
        since: None,
    }
}

/// Errors are printed as one line after `planmark: error: `.
fn assert_one_line(err: &dyn std::fmt::Display) {
    let message = err.to_string();
    assert!(
        !message.contains(['\n', '\r']),
        "error message is not one line: {message:?}"
    );
}
