//! The change map (issue 26): its Mermaid is valid, by a grammar check of the subset
//! planmark writes, on a multi-module plan, hostile module names, keys and types, and
//! large plans; it is capped, counted and the first thing left out for size; `--map`
//! reaches it from the command line.

use crate::support;

use std::collections::BTreeSet;

use planmark::diff::{DiffedPlan, PlanDiff};
use planmark::render::markdown::context::{change_maps, ChangeMap};
use planmark::render::markdown::mermaid::MAX_NODES;
use planmark::render::markdown::source::Plans;
use planmark::render::markdown::{budget, MapMode, NamedPlan, GITHUB_MAX_CHARS};
use support::comment::{assert_sound, big_plan, load, render_map};
use support::fixtures_dir;

/// The classes planmark defines, each once, before any node.
const CLASSES: [&str; 6] = ["module", "destroy", "replace", "update", "create", "other"];

/// Checks `text` against the subset of Mermaid planmark writes: `flowchart LR`, then one
/// `classDef` per class with a fixed-form style, then nodes `ID["LABEL"]:::CLASS` and
/// links `MODULE --> ID` between nodes already defined. Ids are `m`, `t` or `r` and a
/// number; a label holds only letters, digits, ` _-./=+~()` and entity codes. Returns
/// the number of nodes.
fn check_mermaid(text: &str) -> Result<usize, String> {
    let mut lines = text.lines();
    if lines.next() != Some("flowchart LR") {
        return Err("does not start with `flowchart LR`".into());
    }
    let mut classes = Vec::new();
    let mut ids = BTreeSet::new();
    for line in lines {
        let fail = |why: &str| Err(format!("{why}: {line:?}"));
        let Some(statement) = line.strip_prefix("  ") else {
            return fail("not indented");
        };
        if let Some(def) = statement.strip_prefix("classDef ") {
            let (name, style) = def.split_once(' ').unwrap_or((def, ""));
            if !ids.is_empty() || !CLASSES.contains(&name) || classes.contains(&name) {
                return fail("a class out of place or not planmark's");
            }
            if !fixed_style(style) {
                return fail("a style not of the fixed form");
            }
            classes.push(name);
        } else if let Some((from, to)) = statement.split_once(" --> ") {
            if !from.starts_with('m') || !ids.contains(from) || !ids.contains(to) {
                return fail("a link not from a module to a defined node");
            }
        } else {
            let Some((id, rest)) = statement.split_once("[\"") else {
                return fail("not a statement planmark writes");
            };
            let Some((label, class)) = rest.rsplit_once("\"]:::") else {
                return fail("a node without its class");
            };
            if !is_id(id) || !ids.insert(id.to_string()) {
                return fail("a node id not planmark's, or defined twice");
            }
            if !CLASSES.contains(&class) || !safe_label(label) {
                return fail("an unknown class or an unsafe label");
            }
        }
    }
    if classes.len() != CLASSES.len() {
        return Err(format!("classes defined: {classes:?}"));
    }
    Ok(ids.len())
}

fn is_id(id: &str) -> bool {
    let mut chars = id.chars();
    matches!(chars.next(), Some('m' | 't' | 'r'))
        && id.len() > 1
        && chars.all(|c| c.is_ascii_digit())
}

/// `fill:#RRGGBB,stroke:#RRGGBB,color:#RRGGBB`.
fn fixed_style(style: &str) -> bool {
    let parts: Vec<&str> = style.split(',').collect();
    parts.len() == 3
        && parts
            .iter()
            .zip(["fill:#", "stroke:#", "color:#"])
            .all(|(p, key)| {
                p.strip_prefix(key)
                    .is_some_and(|hex| hex.len() == 6 && hex.chars().all(|c| c.is_ascii_hexdigit()))
            })
}

/// Letters, digits, ` _-./=+~()` and entity codes (`#quot;`, `#lt;`, `#gt;`, `#amp;`,
/// `#123;`): nothing Mermaid reads as syntax inside a quoted label.
fn safe_label(label: &str) -> bool {
    let mut rest = label;
    while let Some(c) = rest.chars().next() {
        if c == '#' {
            let Some(end) = rest.find(';') else {
                return false;
            };
            let code = &rest[1..end];
            let named = ["quot", "lt", "gt", "amp"].contains(&code);
            if !(named || (!code.is_empty() && code.chars().all(|d| d.is_ascii_digit()))) {
                return false;
            }
            rest = &rest[end + 1..];
        } else if c.is_ascii_alphanumeric() || " _-./=+~()".contains(c) {
            rest = &rest[1..];
        } else {
            return false;
        }
    }
    true
}

/// The bodies of the comment's ```` ```mermaid ```` fences.
fn mermaid_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        match current.as_mut() {
            None if line == "```mermaid" => current = Some(String::new()),
            Some(block) if line == "```" => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    assert!(current.is_none(), "an unclosed mermaid fence:\n{markdown}");
    blocks
}

/// Each plan's change map under `mode`, without rendering the comment.
fn maps_of(diffs: &[&PlanDiff], mode: MapMode) -> Vec<Option<ChangeMap>> {
    let lists: Vec<DiffedPlan<'_>> = diffs.iter().map(|d| DiffedPlan::new(d)).collect();
    let named: Vec<NamedPlan<'_>> = lists
        .iter()
        .map(|l| NamedPlan {
            name: "plan",
            head: l.head,
            changes: l.changes(),
            links: None,
        })
        .collect();
    change_maps(&Plans::new(&named), mode)
}

fn parse(bytes: &[u8]) -> PlanDiff {
    let plan = planmark::input::plan::parse_plan("plan.json", bytes).expect("parses");
    planmark::differ::diff_plan("plan.json", &plan, None, None).expect("diffs")
}

#[test]
fn a_multi_module_plan_draws_a_valid_map_in_its_comment() {
    let diff = load(&fixtures_dir().join("comment/change-map-multi-module/plan.json")).unwrap();
    let comment = render_map(&[("plan", &diff)], GITHUB_MAX_CHARS, MapMode::Auto);
    assert_sound("multi-module", &[&diff], &comment, GITHUB_MAX_CHARS);
    let blocks = mermaid_blocks(&comment.markdown);
    assert_eq!(blocks.len(), 1);
    let map = comment.context.plans[0].map.as_ref().expect("a map");
    assert_eq!(blocks[0], map.mermaid);
    assert_eq!(check_mermaid(&map.mermaid), Ok(12));
    assert_eq!((map.modules, map.folded, map.groups.len()), (5, 0, 7));
    let db = &map.groups[3];
    assert_eq!(
        (db.module.as_str(), db.type_.as_str()),
        ("module.app.module.db", "aws_db_instance")
    );
    assert_eq!((db.count, db.actions[0].label.as_str()), (2, "replace"));
}

#[test]
fn hostile_module_names_keys_and_types_stay_inside_their_labels() {
    let cases = [
        fixtures_dir().join("hostile-sweep/map-labels/plan.json"),
        fixtures_dir().join("hostile-sweep/addresses/plan.json"),
        fixtures_dir().join("comment/hostile.json"),
    ];
    for path in cases {
        let diff = load(&path).unwrap();
        let label = path.display().to_string();
        let maps = maps_of(&[&diff], MapMode::Always);
        let map = maps[0]
            .as_ref()
            .unwrap_or_else(|| panic!("{label}: no map"));
        check_mermaid(&map.mermaid).unwrap_or_else(|e| panic!("{label}: {e}\n{}", map.mermaid));
        for max_chars in [GITHUB_MAX_CHARS, 20_000, 5_000] {
            let comment = render_map(&[("plan", &diff)], max_chars, MapMode::Always);
            assert_sound(&label, &[&diff], &comment, max_chars);
            for block in mermaid_blocks(&comment.markdown) {
                check_mermaid(&block).unwrap_or_else(|e| panic!("{label}: {e}"));
            }
        }
    }
}

/// A plan of `modules` modules with `types` resource types of `each` changes each.
fn wide_plan(modules: usize, types: usize, each: usize) -> Vec<u8> {
    let actions = [
        r#"["create"]"#,
        r#"["update"]"#,
        r#"["delete"]"#,
        r#"["delete","create"]"#,
    ];
    let mut changes = Vec::new();
    for m in 0..modules {
        for t in 0..types {
            for i in 0..each {
                let action = actions[(m + t + i) % 4];
                let before = if action == actions[0] {
                    "null"
                } else {
                    r#"{"id":"a"}"#
                };
                let after = if action == actions[2] {
                    "null"
                } else {
                    r#"{"id":"b"}"#
                };
                changes.push(format!(
                    r#"{{"address":"module.m{m}[{i}].t{t}.r","module_address":"module.m{m}[{i}]","mode":"managed","type":"t{t}","name":"r","provider_name":"p","change":{{"actions":{action},"before":{before},"after":{after},"after_unknown":{{}},"before_sensitive":{{}},"after_sensitive":{{}}}}}}"#
                ));
            }
        }
    }
    format!(
        r#"{{"format_version":"1.2","resource_changes":[{}]}}"#,
        changes.join(",")
    )
    .into_bytes()
}

#[test]
fn large_plans_get_a_capped_valid_map_that_counts_everything() {
    for (label, bytes, total) in [
        ("300 modules", wide_plan(300, 4, 2), 2_400),
        ("one wide module", wide_plan(1, 40, 3), 120),
        ("10k", big_plan(10_000), 10_000),
    ] {
        let diff = parse(&bytes);
        let maps = maps_of(&[&diff], MapMode::Auto);
        let Some(map) = maps[0].as_ref() else {
            assert_eq!(label, "one wide module", "{label}: no map");
            continue;
        };
        let nodes = check_mermaid(&map.mermaid).unwrap_or_else(|e| panic!("{label}: {e}"));
        assert!(nodes <= MAX_NODES, "{label}: {nodes} nodes");
        let drawn: usize = map.groups.iter().map(|g| g.count).sum();
        assert_eq!(drawn + map.folded, total, "{label}");
        assert!(
            map.mermaid.len() < 8_000,
            "{label}: {} bytes",
            map.mermaid.len()
        );
    }
    let diff = parse(&wide_plan(1, 40, 3));
    let map = maps_of(&[&diff], MapMode::Always)
        .remove(0)
        .expect("always");
    assert!(
        map.mermaid.contains("31 more types #215;93"),
        "{}",
        map.mermaid
    );
    assert_eq!(map.groups.len(), 9);
}

#[test]
fn the_map_follows_the_mode_and_is_the_first_thing_left_out() {
    let multi = load(&fixtures_dir().join("comment/change-map-multi-module/plan.json")).unwrap();
    let single = load(&fixtures_dir().join("comment/natural-address-order/plan.json")).unwrap();
    let has_map = |diff: &PlanDiff, mode| maps_of(&[diff], mode)[0].is_some();
    assert!(has_map(&multi, MapMode::Auto) && !has_map(&multi, MapMode::Never));
    assert!(!has_map(&single, MapMode::Auto) && has_map(&single, MapMode::Always));
    let empty = parse(br#"{"format_version":"1.2","resource_changes":[]}"#);
    assert!(!has_map(&empty, MapMode::Always));

    // A limit between the comment without and with its map: the map goes, nothing else,
    // and the notice says so.
    let with = render_map(&[("plan", &multi)], GITHUB_MAX_CHARS, MapMode::Auto);
    let without = render_map(&[("plan", &multi)], GITHUB_MAX_CHARS, MapMode::Never);
    let sizes = [
        with.markdown.chars().count(),
        without.markdown.chars().count(),
    ];
    let mut max_chars = (sizes[0] + sizes[1]) / 2;
    while budget::effective_limit(max_chars) < sizes[1] {
        max_chars += 1;
    }
    let squeezed = render_map(&[("plan", &multi)], max_chars, MapMode::Auto);
    assert!(squeezed.context.plans[0].map.is_none());
    let truncation = squeezed.context.truncation.as_ref().expect("a notice");
    assert_eq!(truncation.stage, "map");
    assert!(truncation.notice.starts_with("The change map is left out"));
    let notice = format!("\n> [!NOTE]\n> {}\n", truncation.notice);
    assert_eq!(squeezed.markdown.replacen(&notice, "", 1), without.markdown);
}

#[test]
fn the_map_flag_reaches_the_comment() {
    let plan = fixtures_dir().join("comment/natural-address-order/plan.json");
    let plan = plan.to_str().unwrap();
    for (flag, drawn) in [("auto", false), ("always", true), ("never", false)] {
        let out = support::bin::run(&["render", "--format", "json", "--map", flag, plan], None);
        assert_eq!(out.code(), 0, "{}", out.stderr);
        let context: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(!context["plans"][0]["map"].is_null(), drawn, "--map {flag}");
    }
    let out = support::bin::run(&["render", "--map", "sometimes", plan], None);
    assert_eq!(out.code(), 2);
}

#[test]
fn a_plan_over_the_limit_keeps_its_map_beside_the_names_or_says_it_is_left_out() {
    let diff = parse(&wide_plan(12, 4, 30));
    let mut kept = 0;
    for max_chars in [GITHUB_MAX_CHARS, 20_000, 5_000, 2_000] {
        let label = format!("wide plan at {max_chars}");
        let comment = render_map(&[("plan", &diff)], max_chars, MapMode::Auto);
        assert_sound(&label, &[&diff], &comment, max_chars);
        let notice = &comment.context.truncation.as_ref().expect(&label).notice;
        match &comment.context.plans[0].map {
            Some(map) => {
                kept += 1;
                assert_eq!(
                    mermaid_blocks(&comment.markdown),
                    std::slice::from_ref(&map.mermaid)
                );
                assert!(!notice.contains("map"), "{label}: {notice}");
            }
            None => {
                assert!(mermaid_blocks(&comment.markdown).is_empty(), "{label}");
                assert!(
                    notice.contains("The change map is left out."),
                    "{label}: {notice}"
                );
            }
        }
    }
    // The map fits beside the names at the larger limits, not at the smallest.
    assert!((1..4).contains(&kept), "{kept} comments kept the map");
}
