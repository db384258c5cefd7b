//! Property tests over generated plans: random attribute trees with null, unknown and
//! sensitive parts in every combination, hostile strings in keys, values, names and
//! `replace_paths`, every action, outputs and (sensitive) variables.
//!
//! For each plan, through the library (no process per case):
//! - parsing, diffing and rendering never panic and never fail;
//! - the comment is well-formed as `support::check` defines it, has no live mention, issue
//!   link or autolink, and fits the size limit;
//! - no value the plan marks sensitive (each one a unique `SECRET-<n>-canary`) appears in
//!   the text, Markdown, HTML preview or JSON context;
//! - output is deterministic: rendering twice, or the same plan with every object's keys
//!   in reverse order, gives the same text, Markdown and context;
//! - numbers are printed exactly as written.
//!
//! 64 cases by default (`PROPTEST_CASES` overrides).
//!
//! `documents.rs`: files of several labelled documents (Terragrunt's), every one read, and
//! `verify` of the whole file never matching a comment on a part of it.

use std::collections::HashSet;

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{Config, FileFailurePersistence};

use crate::support::check::{check_markdown, live_references};
use planmark::marker::{marker_line, MarkerData};
use planmark::render::markdown::budget::measure;
use planmark::render::markdown::{render_comment, Meta, NamedPlan, TemplateSet};

mod documents;
mod plan_builder;
mod strategies;
use plan_builder::*;
use strategies::*;

// ---------------------------------------------------------------------------
// JSON with numbers as written
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
enum Json {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    fn obj(members: Vec<(&str, Json)>) -> Json {
        Json::Obj(
            members
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect(),
        )
    }

    fn str(s: &str) -> Json {
        Json::Str(s.to_string())
    }

    /// JSON text; `reverse` writes every object's members in reverse order.
    fn write(&self, out: &mut String, reverse: bool) {
        let quote = |s: &str| serde_json::to_string(s).expect("strings serialise");
        match self {
            Json::Null => out.push_str("null"),
            Json::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Json::Num(n) => out.push_str(n),
            Json::Str(s) => out.push_str(&quote(s)),
            Json::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out, reverse);
                }
                out.push(']');
            }
            Json::Obj(members) => {
                out.push('{');
                let mut members: Vec<_> = members.iter().collect();
                if reverse {
                    members.reverse();
                }
                for (i, (k, v)) in members.into_iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&quote(k));
                    out.push(':');
                    v.write(out, reverse);
                }
                out.push('}');
            }
        }
    }

    fn text(&self, reverse: bool) -> String {
        let mut out = String::new();
        self.write(&mut out, reverse);
        out
    }
}

// ---------------------------------------------------------------------------
// Generated plans
// ---------------------------------------------------------------------------

/// Every format of one plan document.
struct Outputs {
    text: String,
    markdown: String,
    html: String,
    json: String,
}

fn meta() -> Meta {
    let time = "2026-01-01T00:00:00Z".to_string();
    Meta {
        title: None,
        key: "prop".to_string(),
        commit: None,
        run_url: None,
        time: time.clone(),
        marker: marker_line(&MarkerData {
            key: "prop".to_string(),
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

fn render_all(doc: &str, max_chars: usize) -> Result<Outputs, TestCaseError> {
    let plan = planmark::input::plan::parse_plan("prop.json", doc.as_bytes())
        .map_err(|e| TestCaseError::fail(format!("parse failed: {e}")))?;
    let diff = planmark::differ::diff_plan("prop.json", &plan, None, None)
        .map_err(|e| TestCaseError::fail(format!("diff failed: {e}")))?;
    let text = planmark::render::text::render_plan(&diff);
    let lists = planmark::diff::DiffedPlan::new(&diff);
    let plans = [NamedPlan {
        name: "prop",
        head: &diff.head,
        changes: lists.changes(),
        links: None,
    }];
    let comment = render_comment(&plans, &meta(), &TemplateSet::default(), max_chars)
        .map_err(|e| TestCaseError::fail(format!("render failed: {e}")))?;
    let html = planmark::render::html::preview_page(&comment.markdown, "prop");
    let json = serde_json::to_string(&comment.context).expect("context serialises");
    Ok(Outputs {
        text,
        markdown: comment.markdown,
        html,
        json,
    })
}

fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    Config {
        cases,
        // Past failures stay beside this file (`properties.proptest-regressions`): proptest's
        // default would look under `tests/proptest-regressions/`, as this crate has a main.rs.
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource(
            "proptest-regressions",
        ))),
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    #[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
    fn generated_plans_render_safely(spec in plan_spec()) {
        let built = build(&spec);
        let doc = built.doc.text(false);
        let out = render_all(&doc, spec.max_chars)?;

        let problems = check_markdown(&out.markdown);
        prop_assert!(problems.is_empty(), "malformed Markdown: {:?}\n{}", problems, out.markdown);
        let live = live_references(&out.markdown);
        prop_assert!(live.is_empty(), "live references {:?}\n{}", live, out.markdown);
        let size = measure(&out.markdown);
        prop_assert!(size <= spec.max_chars, "{} > {} characters", size, spec.max_chars);
        prop_assert!(!out.html.to_ascii_lowercase().contains("<script"), "live script in the preview");

        for (format, output) in [
            ("text", &out.text),
            ("markdown", &out.markdown),
            ("html", &out.html),
            ("json", &out.json),
        ] {
            // Every canary contains "SECRET" and no other generated string does, so this
            // also catches a canary cut short.
            if let Some(at) = output.find("SECRET") {
                let before: String = output[..at].chars().rev().take(40).collect();
                let after: String = output[at..].chars().take(40).collect();
                let before: String = before.chars().rev().collect();
                prop_assert!(false, "sensitive value in {}: …{}{}…", format, before, after);
            }
        }
        for number in &built.created_numbers {
            prop_assert!(out.text.contains(number), "{} not shown as written:\n{}", number, out.text);
        }

        let again = render_all(&doc, spec.max_chars)?;
        prop_assert_eq!(&again.text, &out.text);
        prop_assert_eq!(&again.markdown, &out.markdown);
        let reversed = render_all(&built.doc.text(true), spec.max_chars)?;
        prop_assert_eq!(&reversed.text, &out.text, "key order changed the text");
        prop_assert_eq!(&reversed.markdown, &out.markdown, "key order changed the comment");
        prop_assert_eq!(&reversed.json, &out.json, "key order changed the context");
    }
}

/// The generator really plants what the properties look for, so they cannot pass vacuously.
#[test]
fn generator_plants_canaries_numbers_and_hostile_strings() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let (mut canaries, mut numbers, mut hostile, mut sensitive_vars) = (0, 0, 0, 0);
    for _ in 0..64 {
        let spec = plan_spec().new_tree(&mut runner).unwrap().current();
        let built = build(&spec);
        let doc = built.doc.text(false);
        canaries += built.canaries.len();
        numbers += built.created_numbers.len();
        hostile += usize::from(doc.contains("```") || doc.contains("<script>"));
        sensitive_vars += spec.variables.iter().filter(|(_, s, _)| *s).count();
        for canary in &built.canaries {
            assert!(
                doc.contains(canary.as_str()),
                "{canary} not in the document"
            );
        }
    }
    assert!(canaries > 50, "only {canaries} canaries planted");
    assert!(numbers > 10, "only {numbers} numbers in created resources");
    assert!(hostile > 10, "only {hostile} plans with hostile strings");
    assert!(
        sensitive_vars > 5,
        "only {sensitive_vars} sensitive variables"
    );
}

#[test]
fn masks_follow_the_values() {
    let leaf = |s: &str, sensitive_after| {
        Spec::Leaf(
            Leaf::Str(s.into()),
            Leaf::Str(s.into()),
            Flags {
                sensitive_before: false,
                sensitive_after,
                unknown: false,
            },
        )
    };
    let none = Flags {
        sensitive_before: false,
        sensitive_after: false,
        unknown: false,
    };
    let spec = Spec::Obj(
        vec![
            ("a".into(), Presence::Both, leaf("x", true)),
            (
                "l".into(),
                Presence::Both,
                Spec::Arr(
                    vec![
                        (Presence::Both, leaf("y", false)),
                        (Presence::BeforeOnly, leaf("z", false)),
                        (Presence::Both, leaf("w", true)),
                    ],
                    none,
                ),
            ),
        ],
        none,
    );
    let mut planted = Planted::default();
    let (value, sensitive, unknown) = project(&spec, Side::After, false, &mut planted);
    assert_eq!(
        value.text(false),
        r#"{"a":"SECRET-0-canary","l":["y","SECRET-1-canary"]}"#
    );
    assert_eq!(sensitive.text(false), r#"{"a":true,"l":[false,true]}"#);
    assert_eq!(unknown.text(false), r#"{"l":[false,false]}"#);
}
