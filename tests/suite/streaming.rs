//! The lazy paths the CLI takes against the whole-plan path (`diff_plan`, then
//! `render_plan` or the comment over every diff): the streamed text (`Differ` parts
//! diffed on several threads, written as it goes) has the same text, order and first
//! error; the comment (only the changes it shows diffed) is the same comment, and diffs a
//! bounded number of changes however big the plan. A plan big enough to be read element
//! by element renders as the same plan read whole.

use crate::support;

use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use planmark::diff::{
    Changes, DiffedPlan, PlanDiff, ResourceChanges, ResourceDiff, ResourceSummary,
};
use planmark::differ::{diff_plan, Differ};
use planmark::input::plan::parse_plan;
use planmark::input::schema::ProviderSchemas;
use planmark::render::markdown::{render_comment, Meta, NamedPlan, TemplateSet, GITHUB_MAX_CHARS};
use planmark::render::text::{render_plan, write_plan};
use support::*;

/// The text as the CLI streams it.
fn streamed(
    plan_json: &[u8],
    schemas: Option<&ProviderSchemas>,
) -> planmark::render::error::Result<String> {
    let plan = parse_plan("plan.json", plan_json)?;
    let differ = Differ::new("plan.json", &plan, schemas);
    let head = differ.head(None)?;
    let (resources, drift) = (differ.lazy(), differ.drift(head.mode)?);
    let changes = Changes {
        resources: &resources,
        drift: &drift,
    };
    let mut out = Vec::new();
    write_plan(&head, changes, &mut out)?;
    Ok(String::from_utf8(out).expect("UTF-8 text"))
}

/// The error of the whole-plan path and of the streamed text, in that order; both must fail.
fn both_errors(plan: &str) -> [String; 2] {
    [
        whole(plan.as_bytes(), None)
            .map(|_| ())
            .unwrap_err()
            .to_string(),
        streamed(plan.as_bytes(), None)
            .map(|_| ())
            .unwrap_err()
            .to_string(),
    ]
}

fn whole(
    plan_json: &[u8],
    schemas: Option<&ProviderSchemas>,
) -> planmark::input::error::Result<PlanDiff> {
    let plan = parse_plan("plan.json", plan_json)?;
    diff_plan("plan.json", &plan, schemas, None)
}

#[test]
fn streamed_text_is_the_whole_plan_text_for_every_fixture() {
    let mut checked = 0;
    for root in ["equivalence", "real-plans", "rules"] {
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

/// Resource `i`'s port: unreadable for those listed in `broken` (nesting deeper than the
/// value parser's limit).
fn port(i: usize, broken: &[usize]) -> String {
    if broken.contains(&i) {
        format!("{}{}", "[".repeat(300), "]".repeat(300))
    } else {
        "8080".to_string()
    }
}

/// A plan of `n` identical replacements of `null_resource.r[i]`, but for unreadable
/// values in those listed in `broken`.
fn many_replacements(n: usize, broken: &[usize]) -> String {
    let changes: Vec<String> = (0..n)
        .map(|i| {
            let port = port(i, broken);
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
    // Many parts of 256, spread over the worker threads.
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
    // 3,001 and 4,500 are in parts (of 256) of one worker, 3,100 in a part of another (on
    // a machine with two cores or more), 3,500 in a later part. The first in the plan wins,
    // on the whole-plan path and in the streamed text alike.
    let plan = many_replacements(5_000, &[4_500, 3_500, 3_100, 3_001]);
    for message in both_errors(&plan) {
        assert!(
            message.contains("`null_resource.r[3001]`"),
            "expected the first broken resource: {message}"
        );
    }
}

/// A plan's resource changes that counts the diffs asked of it.
struct Counting<'r> {
    inner: &'r dyn ResourceChanges,
    asked: AtomicUsize,
}

impl ResourceChanges for Counting<'_> {
    fn summaries(&self) -> &[ResourceSummary] {
        self.inner.summaries()
    }

    fn address(&self, i: usize) -> &str {
        self.inner.address(i)
    }

    fn type_name(&self, i: usize) -> &str {
        self.inner.type_name(i)
    }

    fn diff(&self, i: usize) -> planmark::input::error::Result<Cow<'_, ResourceDiff>> {
        self.asked.fetch_add(1, Relaxed);
        self.inner.diff(i)
    }

    // Not counted: a header is read, not diffed.
    fn header(&self, i: usize) -> planmark::input::error::Result<Cow<'_, ResourceDiff>> {
        self.inner.header(i)
    }
}

/// The comment as the CLI renders it (only what it shows diffed), and how many diffs it
/// asked for.
fn lazy_comment(
    plan_json: &[u8],
    schemas: Option<&ProviderSchemas>,
    max_chars: usize,
) -> planmark::render::error::Result<(String, usize)> {
    lazy_comment_grouped(plan_json, schemas, max_chars, true)
}

/// [`lazy_comment`], look-alike changes grouped or (`--no-group`) not.
fn lazy_comment_grouped(
    plan_json: &[u8],
    schemas: Option<&ProviderSchemas>,
    max_chars: usize,
    grouped: bool,
) -> planmark::render::error::Result<(String, usize)> {
    let plan = parse_plan("plan.json", plan_json)?;
    let differ = Differ::new("plan.json", &plan, schemas);
    let head = differ.head(None)?;
    let (lazy, drift) = (differ.lazy(), differ.drift(head.mode)?);
    let counting = Counting {
        inner: &lazy,
        asked: AtomicUsize::new(0),
    };
    let counting_drift = Counting {
        inner: &drift,
        asked: AtomicUsize::new(0),
    };
    let plans = [NamedPlan {
        name: "plan",
        head: &head,
        changes: Changes {
            resources: &counting,
            drift: &counting_drift,
        },
        links: None,
    }];
    let meta = Meta {
        no_group: !grouped,
        ..support::comment::meta("plan")
    };
    let comment = render_comment(&plans, &meta, &TemplateSet::default(), max_chars)?;
    Ok((
        comment.markdown,
        counting.asked.load(Relaxed) + counting_drift.asked.load(Relaxed),
    ))
}

fn whole_comment(diff: &PlanDiff, max_chars: usize) -> String {
    whole_comment_grouped(diff, max_chars, true)
}

fn whole_comment_grouped(diff: &PlanDiff, max_chars: usize, grouped: bool) -> String {
    let lists = DiffedPlan::new(diff);
    let plans = [NamedPlan {
        name: "plan",
        head: lists.head,
        changes: lists.changes(),
        links: None,
    }];
    let meta = Meta {
        no_group: !grouped,
        ..support::comment::meta("plan")
    };
    render_comment(&plans, &meta, &TemplateSet::default(), max_chars)
        .expect("renders")
        .markdown
}

#[test]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
fn the_lazy_comment_is_the_whole_plan_comment_for_every_fixture() {
    let mut checked = 0;
    for root in ["equivalence", "real-plans", "comment"] {
        for (name, dir) in case_dirs(&fixtures_dir().join(root)) {
            let Ok(plan) = std::fs::read(dir.join("plan.json")) else {
                continue;
            };
            let schemas = std::fs::read(dir.join("schemas.json"))
                .ok()
                .map(|bytes| ProviderSchemas::parse("schemas.json", &bytes).expect("schemas"));
            let diff = whole(&plan, schemas.as_ref()).expect("diffs");
            // GitHub's limit, and a small one that takes the degraded stages.
            for max_chars in [GITHUB_MAX_CHARS, 3_000] {
                let (lazy, _) = lazy_comment(&plan, schemas.as_ref(), max_chars).expect("renders");
                assert_eq!(
                    lazy,
                    whole_comment(&diff, max_chars),
                    "{root}/{name} within {max_chars}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 100, "only {checked} fixtures checked");
}

#[test]
fn a_huge_plan_comment_diffs_only_what_it_measures_or_shows() {
    for n in [5_000, 20_000] {
        let plan = many_replacements(n, &[]);
        let (lazy, asked) = lazy_comment(plan.as_bytes(), None, GITHUB_MAX_CHARS).expect("renders");
        let diff = whole(plan.as_bytes(), None).expect("diffs");
        assert_eq!(lazy, whole_comment(&diff, GITHUB_MAX_CHARS));
        // The same bound whatever the plan's size: what fits in the limit, the greedy
        // fill's misfits, the banner, and the look-alikes compared to join a group (each
        // diffed; at most `MAX_JOINED`).
        assert!(
            asked < 600 + planmark::render::markdown::group::MAX_JOINED,
            "{n} replacements: {asked} diffs asked"
        );
    }
}

#[test]
fn an_unreadable_change_the_comment_shows_is_reported() {
    let plan = many_replacements(100, &[0]);
    let err = lazy_comment(plan.as_bytes(), None, GITHUB_MAX_CHARS).unwrap_err();
    assert!(err.to_string().contains("`null_resource.r[0]`"), "{err}");
}

/// `plan` made over a megabyte big by a member no renderer reads.
fn padded(plan: &[u8]) -> Vec<u8> {
    let open = plan.iter().position(|&b| b == b'{').expect("an object");
    let padding = format!(r#""padding":"{}","#, "p".repeat(1 << 20));
    [&plan[..=open], padding.as_bytes(), &plan[open + 1..]].concat()
}

#[test]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
fn a_big_plan_renders_as_the_same_plan_read_whole() {
    // A big plan renders as the same plan small.
    let mut checked = 0;
    for root in ["equivalence", "real-plans", "comment"] {
        for (name, dir) in case_dirs(&fixtures_dir().join(root)) {
            let Ok(plan) = std::fs::read(dir.join("plan.json")) else {
                continue;
            };
            if plan.len() >= 1 << 20 || !plan.starts_with(b"{") {
                continue;
            }
            let schemas = std::fs::read(dir.join("schemas.json"))
                .ok()
                .map(|bytes| ProviderSchemas::parse("schemas.json", &bytes).expect("schemas"));
            let big = padded(&plan);
            let text = |plan: &[u8]| streamed(plan, schemas.as_ref()).map_err(|e| e.to_string());
            assert_eq!(text(&big), text(&plan), "{root}/{name}");
            let comment = |plan: &[u8]| {
                let comment = lazy_comment(plan, schemas.as_ref(), GITHUB_MAX_CHARS);
                comment
                    .map(|(markdown, _)| markdown)
                    .map_err(|e| e.to_string())
            };
            assert_eq!(comment(&big), comment(&plan), "{root}/{name}");
            checked += 1;
        }
    }
    assert!(checked > 50, "only {checked} fixtures checked");
}

/// A plan whose `resource_drift` has `n` updates of `null_resource.d[i]` (unreadable
/// values in those listed in `broken`). `refresh_only`: no resource changes, so every
/// drifted resource is shown; otherwise one planned create, and `relevant_attributes`
/// naming every third resource's `triggers.image`, so only those are shown.
fn many_drifted(n: usize, broken: &[usize], refresh_only: bool) -> String {
    let drift: Vec<String> = (0..n)
        .map(|i| {
            let port = port(i, broken);
            format!(
                r#"{{"address":"null_resource.d[{i}]","mode":"managed","type":"null_resource","name":"d","index":{i},"provider_name":"registry.terraform.io/hashicorp/null","change":{{"actions":["update"],"before":{{"id":"{i}","note":"a","triggers":{{"image":"api:1.0","port":{port}}}}},"after":{{"id":"{i}","note":"b","triggers":{{"image":"api:1.1","port":{port}}}}},"after_unknown":{{}},"before_sensitive":{{"triggers":{{}}}},"after_sensitive":{{"triggers":{{}}}}}}}}"#
            )
        })
        .collect();
    let (changes, relevant) = if refresh_only {
        (String::new(), String::new())
    } else {
        let relevant: Vec<String> = (0..n)
            .step_by(3)
            .map(|i| {
                format!(r#"{{"resource":"null_resource.d[{i}]","attribute":["triggers","image"]}}"#)
            })
            .collect();
        (
            r#"{"address":"null_resource.new","mode":"managed","type":"null_resource","name":"new","provider_name":"registry.terraform.io/hashicorp/null","change":{"actions":["create"],"before":null,"after":{"triggers":null},"after_unknown":{"id":true},"before_sensitive":false,"after_sensitive":{}}}"#.to_string(),
            relevant.join(","),
        )
    };
    format!(
        r#"{{"format_version":"1.0","terraform_version":"1.0.3","resource_drift":[{}],"resource_changes":[{changes}],"relevant_attributes":[{relevant}]}}"#,
        drift.join(",")
    )
}

#[test]
fn huge_drift_streams_and_comments_as_the_whole_plan_does() {
    // Enough drift for the differ's worker threads, in both modes: refresh-only shows it
    // all; a normal plan diffs each drifted resource once to find the relevant ones.
    let n = 12_000;
    for refresh_only in [true, false] {
        let plan = many_drifted(n, &[], refresh_only);
        let diff = whole(plan.as_bytes(), None).expect("diffs");
        let shown = if refresh_only { n } else { n.div_ceil(3) };
        assert_eq!(diff.drift.len(), shown, "refresh-only: {refresh_only}");
        let step = if refresh_only { 1 } else { 3 };
        for (k, r) in diff.drift.iter().enumerate() {
            assert_eq!(r.address, format!("null_resource.d[{}]", k * step));
        }
        let text = streamed(plan.as_bytes(), None).expect("streams");
        assert_eq!(text, render_plan(&diff), "refresh-only: {refresh_only}");
        assert_eq!(
            text.matches(" has changed\n").count(),
            shown,
            "refresh-only: {refresh_only}"
        );
        // Only the relevant attribute is shown in a normal plan.
        assert_eq!(text.contains("\"a\" -> \"b\""), refresh_only);
        let (lazy, asked) = lazy_comment(plan.as_bytes(), None, GITHUB_MAX_CHARS).expect("renders");
        assert_eq!(lazy, whole_comment(&diff, GITHUB_MAX_CHARS));
        // What the comment measures or shows, not the whole drift nor what it lists (read
        // without its diff): the same bound whatever the plan's size.
        assert!(
            asked < 600 && shown > 2_500,
            "refresh-only {refresh_only}: {asked} diffs asked of {shown}"
        );
    }
}

#[test]
fn the_first_unreadable_drifted_resource_in_plan_order_is_reported() {
    // As for resource changes: in parts of several workers, the first in the plan wins.
    // A normal plan finds it while choosing the drift it shows; a refresh-only plan's
    // text when it gets there.
    let broken = [2_900, 2_100, 1_700, 1_201];
    for refresh_only in [true, false] {
        let plan = many_drifted(3_000, &broken, refresh_only);
        for message in both_errors(&plan) {
            assert!(
                message.contains("`null_resource.d[1201]`"),
                "refresh-only {refresh_only}: expected the first broken drift: {message}"
            );
        }
    }
}

/// A plan of `n` changes, change `i` of kind `kind(i)`: 0, a delete of a for_each instance
/// whose key has escapes (with a `blob` of that many characters); 1, a moved update; 2, an
/// import; 3, a deposed object's delete.
fn headed_changes(n: usize, blob: usize, kind: impl Fn(usize) -> usize) -> String {
    let deleted = format!(r#"{{"id":"1","blob":"{}"}}"#, "b".repeat(blob));
    let changes: Vec<String> = (0..n)
        .map(|i| {
            let (address, extra, actions, before, after) = match kind(i) {
                0 => (
                    format!(r#"null_resource.r[\"k\\u00e9\\\"{i}\"]"#),
                    format!(
                        r#""index":"k\u00e9\"{i}","action_reason":"delete_because_each_key","#
                    ),
                    r#"["delete"]"#,
                    deleted.as_str(),
                    "null",
                ),
                1 => (
                    format!("null_resource.m[{i}]"),
                    format!(r#""index":{i},"previous_address":"null_resource.old[{i}]","#),
                    r#"["update"]"#,
                    r#"{"id":"1","triggers":{"a":"1"}}"#,
                    r#"{"id":"1","triggers":{"a":"2"}}"#,
                ),
                2 => (
                    format!("null_resource.i[{i}]"),
                    format!(r#""index":{i},"#),
                    r#"["no-op"]"#,
                    r#"{"id":"1"}"#,
                    r#"{"id":"1"}"#,
                ),
                _ => (
                    format!("null_resource.d[{i}]"),
                    format!(r#""index":{i},"deposed":"dep{i}","#),
                    r#"["delete"]"#,
                    r#"{"id":"1"}"#,
                    "null",
                ),
            };
            let importing = if kind(i) == 2 {
                format!(r#","importing":{{"id":"imp-{i}"}}"#)
            } else {
                String::new()
            };
            format!(
                r#"{{"address":"{address}","mode":"managed","type":"null_resource","name":"r",{extra}"provider_name":"registry.terraform.io/hashicorp/null","change":{{"actions":{actions},"before":{before},"after":{after},"after_unknown":{{}},"before_sensitive":{{}},"after_sensitive":{{}}{importing}}}}}"#
            )
        })
        .collect();
    format!(
        r#"{{"format_version":"1.2","resource_changes":[{}]}}"#,
        changes.join(",")
    )
}

#[test]
fn listed_changes_read_without_their_diffs_are_listed_as_the_whole_plan_lists_them() {
    // What a listed line says comes from the change's members, read again without its
    // values: a for_each key with escapes (quoted in the reason), a move (the other
    // address), an import (its ID), a deposed object. Deletes alone too, and imports
    // alone (they come last).
    let mixed = headed_changes(300, 0, |i| i % 4);
    // Each delete's diff too big for the comment: after 64 misfits measured, the rest are
    // listed without being diffed.
    let deletes = headed_changes(100, 70_000, |_| 0);
    let imports = headed_changes(800, 0, |_| 2);
    let mut said = String::new();
    for plan in [mixed, deletes, imports] {
        let diff = whole(plan.as_bytes(), None).expect("diffs");
        for max_chars in [GITHUB_MAX_CHARS, 8_000] {
            // Not grouped: look-alike changes would fit the limit, and listing is the point.
            let (lazy, _) =
                lazy_comment_grouped(plan.as_bytes(), None, max_chars, false).expect("renders");
            let whole = whole_comment_grouped(&diff, max_chars, false);
            assert_eq!(lazy, whole, "within {max_chars}");
            // (Within 8,000 characters diffs in risk order may take all the room.)
            assert!(
                max_chars < GITHUB_MAX_CHARS || lazy.contains("listed by address only"),
                "within {max_chars}"
            );
            // Read whole (the escaped addresses' changes kept as read) or element by
            // element (every change read again from where it starts): the same comment.
            let big = padded(plan.as_bytes());
            let (big, _) = lazy_comment_grouped(&big, None, max_chars, false).expect("renders");
            assert_eq!(big, lazy, "within {max_chars}, read element by element");
            said.push_str(&lazy);
        }
    }
    let reasons = [
        r#"key `"ké\"0"` removed from for_each"#,
        r#"key `"ké\"99"` removed from for_each"#,
        "moved from `null_resource.old[1]`",
        "imported from `imp-2`",
        "deposed object left",
    ];
    for reason in reasons {
        assert!(said.contains(reason), "{reason}");
    }
}
