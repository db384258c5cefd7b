//! The PR comment over every plan we have: well-formed Markdown (checked by parsing it),
//! nothing live outside code, within the size limit, every change named.

use crate::support;

use std::path::{Path, PathBuf};

use support::comment::{assert_sound, big_plan, json_files, load, render, render_file, render_map};
use support::{case_dirs, fixtures_dir, golden};

use crate::log_comments::LOG_CASES;
use planmark::diff::PlanDiff;
use planmark::render::markdown::{MapMode, GITHUB_MAX_CHARS};

#[test]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
fn every_fixture_plan_makes_a_sound_comment() {
    let mut checked = 0;
    for dir in ["equivalence", "real-plans", "rules"] {
        for path in json_files(&fixtures_dir().join(dir)) {
            if path.file_name().is_some_and(|n| n != "plan.json") {
                continue;
            }
            let (diff, comment) = render_file(&path).unwrap_or_else(|e| panic!("{e}"));
            assert_sound(
                &path.display().to_string(),
                &[&diff],
                &comment,
                GITHUB_MAX_CHARS,
            );
            checked += 1;
        }
    }
    assert!(checked >= 50, "only {checked} fixture plans found");
}

#[test]
fn several_plans_make_one_sound_comment() {
    let root = fixtures_dir().join("real-plans");
    let a = load(&root.join("taint_and_request/plan.json")).unwrap();
    let b = load(&root.join("create_first/plan.json")).unwrap();
    let c = load(&root.join("nothing_to_do/plan.json")).unwrap();
    let comment = render(
        &[("prod", &a), ("staging", &b), ("dev", &c)],
        GITHUB_MAX_CHARS,
    );
    assert_sound("several", &[&a, &b, &c], &comment, GITHUB_MAX_CHARS);
}

// ---------------------------------------------------------------------------
// Golden comments for representative plans
// ---------------------------------------------------------------------------

/// The plans of the comment case in `dir`: `plan.json`, named `plan`, or for a comment on
/// several plans the `NAME=PATH` lines of `plans.txt` (paths inside `dir`), in order.
fn case_plans(dir: &Path) -> Vec<(String, PathBuf)> {
    let Ok(list) = std::fs::read_to_string(dir.join("plans.txt")) else {
        return vec![("plan".to_string(), dir.join("plan.json"))];
    };
    list.lines()
        .filter(|line| !line.is_empty())
        .map(|line| {
            let (name, path) = line
                .split_once('=')
                .unwrap_or_else(|| panic!("{}: {line:?} is not NAME=PATH", dir.display()));
            (name.to_string(), dir.join(path))
        })
        .collect()
}

/// The case's `--map` (`map.txt`: `auto`, `always` or `never`), `auto` without one.
fn case_map(dir: &Path) -> MapMode {
    match std::fs::read_to_string(dir.join("map.txt"))
        .as_deref()
        .map(str::trim)
    {
        Ok("always") => MapMode::Always,
        Ok("never") => MapMode::Never,
        Ok("auto") | Err(_) => MapMode::Auto,
        Ok(other) => panic!("{}: map.txt says {other:?}", dir.display()),
    }
}

/// Every `tests/fixtures/comment/<case>/` but the log cases (`log_comments`): the comment
/// on its plans must be sound and equal `expected.md` (`PLANMARK_BLESS=1` writes it).
#[test]
fn golden_comments() {
    let cases = case_dirs(&fixtures_dir().join("comment"));
    let mut checked = 0;
    let mut failures = Vec::new();
    for (name, dir) in &cases {
        if LOG_CASES.contains(&name.as_str()) {
            continue;
        }
        let plans = case_plans(dir);
        let diffs: Vec<PlanDiff> = plans
            .iter()
            .map(|(_, path)| load(path).unwrap_or_else(|e| panic!("{name}: {e}")))
            .collect();
        let named: Vec<(&str, &PlanDiff)> = plans
            .iter()
            .zip(&diffs)
            .map(|((plan, _), diff)| (plan.as_str(), diff))
            .collect();
        let comment = render_map(&named, GITHUB_MAX_CHARS, case_map(dir));
        let all: Vec<_> = diffs.iter().collect();
        assert_sound(name, &all, &comment, GITHUB_MAX_CHARS);
        failures.extend(golden::check(&dir.join("expected.md"), &comment.markdown).err());
        checked += 1;
    }
    assert!(checked >= 11, "only {checked} comment cases found");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

// ---------------------------------------------------------------------------
// Hostile values and sensitive data
// ---------------------------------------------------------------------------

fn hostile() -> planmark::diff::PlanDiff {
    load(&fixtures_dir().join("comment/hostile.json")).unwrap()
}

#[test]
fn hostile_values_cannot_break_or_steer_the_comment() {
    let diff = hostile();
    for max_chars in [GITHUB_MAX_CHARS, 8_000, 2_500] {
        let comment = render(&[("@org/team <b>", &diff)], max_chars);
        assert_sound(
            &format!("hostile@{max_chars}"),
            &[&diff],
            &comment,
            max_chars,
        );
        let md = &comment.markdown;
        // Template syntax in values is shown, never evaluated.
        if max_chars == GITHUB_MAX_CHARS {
            assert!(md.contains("{{x}}") && md.contains("{{> footer}}"), "{md}");
            // Zero-width and bidi characters are made visible.
            assert!(
                md.contains("<U+200B>") && md.contains("&lt;U+202E&gt;"),
                "{md}"
            );
        }
        // Only our own HTML: one marker comment at the very end.
        assert_eq!(
            md.matches("<!--").count() - md.matches("<!-- planmark:v1").count(),
            count_in_code(md, "<!--")
        );
        assert!(md.trim_end().ends_with("-->"));
    }
}

/// Occurrences of `needle` inside code blocks and spans (where they are inert).
fn count_in_code(md: &str, needle: &str) -> usize {
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};
    let mut in_block = false;
    let mut count = 0;
    for event in Parser::new(md) {
        match event {
            Event::Start(Tag::CodeBlock(_)) => in_block = true,
            Event::End(TagEnd::CodeBlock) => in_block = false,
            Event::Text(t) if in_block => count += t.matches(needle).count(),
            Event::Code(t) => count += t.matches(needle).count(),
            _ => {}
        }
    }
    count
}

#[test]
fn hostile_values_stay_inert_in_the_html_preview() {
    let diff = hostile();
    let comment = render(&[("plan", &diff)], GITHUB_MAX_CHARS);
    let html = planmark::render::html::preview_page(&comment.markdown, "t");
    assert!(
        !html.to_ascii_lowercase().contains("<script"),
        "live script in preview"
    );
    assert!(
        !html.contains("<!-- planmark"),
        "marker comment leaked into the preview"
    );
}

#[test]
fn sensitive_values_appear_in_no_format() {
    let diff = hostile();
    let comment = render(&[("plan", &diff)], GITHUB_MAX_CHARS);
    let json = serde_json::to_string(&comment.context).unwrap();
    let html = planmark::render::html::preview_page(&comment.markdown, "t");
    let text = planmark::render::text::render_plan(&diff);
    for secret in ["hunter2", "TOKEN-SECRET", "VARIABLE-SECRET"] {
        for (format, out) in [
            ("markdown", &comment.markdown),
            ("json", &json),
            ("html", &html),
            ("text", &text),
        ] {
            assert!(!out.contains(secret), "{secret} leaked into {format}");
        }
    }
    assert!(comment.markdown.contains("(sensitive value)"));
}

// ---------------------------------------------------------------------------
// Size limit
// ---------------------------------------------------------------------------

#[test]
fn a_ten_thousand_resource_plan_fits_with_a_notice() {
    let bytes = big_plan(10_000);
    let plan = planmark::input::plan::parse_plan("big.json", &bytes).unwrap();
    let diff = planmark::differ::diff_plan("big.json", &plan, None, None).unwrap();
    let comment = render(&[("big", &diff)], GITHUB_MAX_CHARS);
    assert_sound("big", &[&diff], &comment, GITHUB_MAX_CHARS);
    assert!(comment.context.truncated);
    let md = &comment.markdown;
    assert!(md.contains("[!NOTE]") && md.contains("too large"), "{md}");
    // Destroys and replacements keep their diffs before anything else is shown.
    let plan_ctx = &comment.context.plans[0];
    assert_eq!(plan_ctx.danger.count, 40);
    assert!(plan_ctx.changes.iter().all(|e| e.dangerous));
    // (Look-alike ones share one diff, naming each.)
    let diffs: usize = plan_ctx
        .changes
        .iter()
        .map(|e| e.group.as_ref().map_or(1, |g| g.count))
        .sum();
    assert_eq!(diffs, 40, "every destroy and replacement keeps its diff");
    assert_eq!(plan_ctx.counts.add, 9_980);
}

#[test]
fn shrinking_the_limit_degrades_in_order_never_cutting() {
    let bytes = big_plan(600);
    let plan = planmark::input::plan::parse_plan("mid.json", &bytes).unwrap();
    let diff = planmark::differ::diff_plan("mid.json", &plan, None, None).unwrap();
    let mut stages = Vec::new();
    for max_chars in [1_000_000, 300_000, 120_000, 40_000, 10_000, 3_000] {
        let comment = render(&[("mid", &diff)], max_chars);
        assert_sound(&format!("mid@{max_chars}"), &[&diff], &comment, max_chars);
        let stage = comment
            .context
            .truncation
            .as_ref()
            .map_or("full".to_string(), |t| t.stage.clone());
        stages.push(stage);
    }
    let order = ["full", "compact", "lists", "partial", "counts-only"];
    let ranks: Vec<usize> = stages
        .iter()
        .map(|s| order.iter().position(|o| o == s).unwrap())
        .collect();
    assert!(
        ranks.windows(2).all(|w| w[0] <= w[1]),
        "stages out of order: {stages:?}"
    );
    assert_eq!(stages.first().map(String::as_str), Some("full"));
    assert!(ranks.last() > Some(&2), "{stages:?}");
}

#[test]
fn inlined_partials_render_the_same_as_partials() {
    use planmark::diff::DiffedPlan;
    use planmark::render::markdown::{render_comment, NamedPlan, TemplateSet};

    let mut plain = TemplateSet::default();
    plain.set_inline_from(usize::MAX);
    let mut inlined = TemplateSet::default();
    inlined.set_inline_from(0);
    let root = fixtures_dir();
    let mut diffs = Vec::new();
    for dir in ["equivalence", "real-plans"] {
        for path in json_files(&root.join(dir)) {
            if path.file_name().is_some_and(|n| n == "plan.json") {
                diffs.push(load(&path).unwrap_or_else(|e| panic!("{e}")));
            }
        }
    }
    let lists: Vec<DiffedPlan<'_>> = diffs.iter().map(DiffedPlan::new).collect();
    let named: Vec<NamedPlan<'_>> = lists
        .iter()
        .map(|lists| NamedPlan {
            name: "plan",
            head: lists.head,
            changes: lists.changes(),
            links: None,
        })
        .collect();
    // Each plan alone, and the first few together (the overview and several plan parts).
    let groups = named.chunks(1).chain([&named[..4]]);
    let meta = support::comment::meta("plan");
    let mut checked = 0;
    for group in groups {
        for max_chars in [GITHUB_MAX_CHARS, 3_000] {
            let render = |set: &TemplateSet| {
                render_comment(group, &meta, set, max_chars)
                    .expect("renders")
                    .markdown
            };
            assert_eq!(render(&inlined), render(&plain), "{checked}");
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} comments compared");
}
