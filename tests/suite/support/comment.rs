//! Helpers for the comment tests: render a plan file to Markdown through the library with
//! fixed metadata, and check the result the way GitHub would read it.

use std::path::{Path, PathBuf};

use crate::support::check::{check_markdown, live_references};
use planmark::diff::{DiffedPlan, PlanDiff};
use planmark::input::schema::ProviderSchemas;
use planmark::marker::{marker_line, MarkerData};
use planmark::render::markdown::{
    escape, render_comment, Comment, MapMode, Meta, NamedPlan, TemplateSet, GITHUB_MAX_CHARS,
};

/// Fixed metadata so golden files do not change with time or environment.
pub fn meta(key: &str) -> Meta {
    Meta {
        title: None,
        key: key.to_string(),
        commit: Some("0123456789abcdef0123456789abcdef01234567".to_string()),
        run_url: Some("https://github.com/octo/infra/actions/runs/42".to_string()),
        time: "2026-11-22T10:00:00Z".to_string(),
        marker: marker_line(&MarkerData {
            key: key.to_string(),
            plan_sha256: "0".repeat(64),
            time: "2026-11-22T10:00:00Z".to_string(),
            ..MarkerData::default()
        }),
        tool: None,
        map: Default::default(),
        no_group: false,
        since: None,
    }
}

/// Reads and diffs a plan (with `schemas.json` beside it when present).
pub fn load(plan: &Path) -> Result<PlanDiff, String> {
    let bytes = std::fs::read(plan).map_err(|e| e.to_string())?;
    let path = plan.display().to_string();
    let parsed = planmark::input::plan::parse_plan(&path, &bytes).map_err(|e| e.to_string())?;
    let schemas_path = plan.with_file_name("schemas.json");
    let schemas = match std::fs::read(&schemas_path) {
        Ok(s) => ProviderSchemas::parse(&schemas_path.display().to_string(), &s).ok(),
        Err(_) => None,
    };
    planmark::differ::diff_plan(&path, &parsed, schemas.as_ref(), None).map_err(|e| e.to_string())
}

/// Renders named plans with the built-in templates.
pub fn render(plans: &[(&str, &PlanDiff)], max_chars: usize) -> Comment {
    render_map(plans, max_chars, MapMode::Auto)
}

/// [`render`] with `--map` set to `map`.
pub fn render_map(plans: &[(&str, &PlanDiff)], max_chars: usize, map: MapMode) -> Comment {
    let key = plans.iter().map(|(n, _)| *n).collect::<Vec<_>>().join("+");
    let meta = Meta { map, ..meta(&key) };
    with_named(plans, |named| {
        render_comment(named, &meta, &TemplateSet::default(), max_chars)
    })
    .unwrap_or_else(|e| panic!("render failed: {e}"))
}

/// Calls `render` with `plans` as the renderer takes them (each named, with its head and
/// changes), which borrow from lists that live only for the call.
pub fn with_named<R>(plans: &[(&str, &PlanDiff)], render: impl FnOnce(&[NamedPlan<'_>]) -> R) -> R {
    let lists: Vec<DiffedPlan<'_>> = plans
        .iter()
        .map(|(_, diff)| DiffedPlan::new(diff))
        .collect();
    let named: Vec<NamedPlan<'_>> = plans
        .iter()
        .zip(&lists)
        .map(|((name, _), lists)| NamedPlan {
            name,
            head: lists.head,
            changes: lists.changes(),
            links: None,
        })
        .collect();
    render(&named)
}

/// Renders one plan file within GitHub's limit.
pub fn render_file(plan: &Path) -> Result<(PlanDiff, Comment), String> {
    let diff = load(plan)?;
    let comment = render(&[("plan", &diff)], GITHUB_MAX_CHARS);
    Ok((diff, comment))
}

/// Everything that must hold for any comment: well-formed, nothing live outside code,
/// within the limit, and every changed resource named unless the notice says otherwise.
pub fn assert_sound(label: &str, plans: &[&PlanDiff], comment: &Comment, max_chars: usize) {
    let md = &comment.markdown;
    let problems = check_markdown(md);
    assert!(
        problems.is_empty(),
        "{label}: malformed Markdown: {problems:?}\n{md}"
    );
    let live = live_references(md);
    assert!(live.is_empty(), "{label}: live references {live:?}\n{md}");
    let size = md.encode_utf16().count();
    assert!(
        size <= max_chars,
        "{label}: {size} > {max_chars} characters"
    );
    if comment.context.truncated {
        assert!(
            md.contains("[!NOTE]"),
            "{label}: truncated without a notice"
        );
        return;
    }
    for plan in plans {
        for r in plan.resources.iter().filter(|r| shown(r)) {
            let named = md.contains(&escape::html_code(&r.address))
                || md.contains(&escape::code_span(&r.address));
            assert!(named, "{label}: {} is not named\n{md}", r.address);
        }
    }
}

fn shown(r: &planmark::diff::ResourceDiff) -> bool {
    planmark::diff::ResourceSummary::of(r).is_shown()
}

/// Every `*.json` file under `dir`, sorted.
pub fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "json") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// A plan with `n` resources: a few destroys and replacements among many creates.
pub fn big_plan(n: usize) -> Vec<u8> {
    let mut rc = Vec::with_capacity(n);
    for i in 0..n {
        let (actions, before, reason) = match i % 500 {
            0 => (
                r#"["delete"]"#,
                r#"{"id":"x","triggers":{"k":"v"}}"#,
                r#","action_reason":"delete_because_no_resource_config""#,
            ),
            1 => (
                r#"["delete","create"]"#,
                r#"{"id":"x","triggers":{"k":"old"}}"#,
                r#","action_reason":"replace_because_tainted""#,
            ),
            _ => (r#"["create"]"#, "null", ""),
        };
        let after = if actions == r#"["delete"]"# {
            "null"
        } else {
            r#"{"id":null,"triggers":{"k":"new","pad":"0123456789012345678901234567890123456789"}}"#
        };
        rc.push(format!(
            r#"{{"address":"module.m{m}.null_resource.r[{i}]","module_address":"module.m{m}","mode":"managed","type":"null_resource","name":"r","index":{i},"provider_name":"registry.terraform.io/hashicorp/null"{reason},"change":{{"actions":{actions},"before":{before},"after":{after},"after_unknown":{{"id":true}},"before_sensitive":{{}},"after_sensitive":{{}}}}}}"#,
            m = i % 7
        ));
    }
    format!(
        r#"{{"format_version":"1.2","terraform_version":"1.9.5","resource_changes":[{}]}}"#,
        rc.join(",")
    )
    .into_bytes()
}
