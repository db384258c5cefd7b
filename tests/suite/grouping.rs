//! Look-alike changes in the comment: changes whose diffs are the same but for the
//! instance key are shown once, "× N", with every address; updates differing in a few
//! values get a table of them; `--no-group` shows each on its own. Golden comments at
//! GitHub's limit in `tests/fixtures/group/<case>/expected.md` (plans generated here, see
//! that folder's README), each also rendered at 5,000 and 20,000 characters, sound, and
//! using at least 90 % of the limit whenever it had to leave something out.

use planmark::diff::PlanDiff;
use planmark::render::markdown::context::EntryContext;
use planmark::render::markdown::{render_comment, Comment, Meta, TemplateSet};
use serde_json::{json, Value};

use crate::budget_fill::{check_limits, diffed, generator, LIMITS};
use crate::support::comment::{assert_sound, meta, render, with_named};

/// `keys.len()` updates of `aws_instance.web[KEY]`, each `tags.Env` from `dev` to
/// `env(i)`, each with its own unchanged id and `Name` tag (hidden as context).
pub(crate) fn tag_updates(keys: &[Value], env: impl Fn(usize) -> String) -> Vec<Value> {
    keys.iter()
        .enumerate()
        .map(|(i, key)| {
            let address = match key {
                Value::String(s) => format!("aws_instance.web[{}]", Value::from(s.as_str())),
                other => format!("aws_instance.web[{other}]"),
            };
            let before = json!({"id": format!("i-{i:04x}c0ffee"), "ami": "ami-123",
                "tags": {"Env": "dev", "Name": format!("web-{i}")}});
            let mut after = before.clone();
            after["tags"]["Env"] = Value::from(env(i));
            json!({"address": address, "mode": "managed", "type": "aws_instance",
                "name": "web", "index": key,
                "provider_name": "registry.terraform.io/hashicorp/aws",
                "change": {"actions": ["update"], "before": before, "after": after,
                    "after_unknown": {}, "before_sensitive": {}, "after_sensitive": {}}})
        })
        .collect()
}

pub(crate) fn plan_of(changes: Vec<Value>) -> PlanDiff {
    let plan = json!({"format_version": "1.2", "terraform_version": "1.9.0",
        "resource_changes": changes});
    diffed("plan.json", plan.to_string().as_bytes())
}

pub(crate) fn numbered(n: usize) -> Vec<Value> {
    (0..n).map(Value::from).collect()
}

pub(crate) fn same(_: usize) -> String {
    "prod".to_string()
}

fn varied(i: usize) -> String {
    format!("prod-{}", i % 7)
}

/// The plan's one grouped entry.
fn the_group(comment: &Comment) -> &EntryContext {
    let changes = &comment.context.plans[0].changes;
    assert_eq!(changes.len(), 1, "{}", comment.markdown);
    &changes[0]
}

#[test]
fn forty_identical_tag_updates_show_one_diff_and_every_address() {
    let diff = plan_of(tag_updates(&numbered(40), same));
    let comments = check_limits(
        &["group", "identical_tag_updates_40"],
        &[("plan", &diff)],
        false,
    );
    for comment in &comments {
        let entry = the_group(comment);
        let group = entry.group.as_ref().expect("a group");
        assert_eq!(group.count, 40);
        let wanted: Vec<String> = (0..40).map(|i| format!("aws_instance.web[{i}]")).collect();
        assert_eq!(
            group.addresses, wanted,
            "natural order, the diff's own first"
        );
        assert!(group.columns.is_empty() && group.rows.is_empty());
        let diff = entry.diff.as_deref().unwrap();
        assert!(diff.contains("\"Env\"  = \"dev\" -> \"prod\""), "{diff}");
        // Each member's unchanged id is context the group's diff hides.
        assert!(!diff.contains("i-0000c0ffee"), "{diff}");
        assert!(comment.markdown.contains("<b>× 40</b>"));
        assert_eq!(comment.markdown.matches("```diff").count(), 1);
    }
}

#[test]
fn forty_similar_updates_show_one_diff_and_a_table_of_their_values() {
    let diff = plan_of(tag_updates(&numbered(40), varied));
    let comments = check_limits(
        &["group", "similar_tag_updates_40"],
        &[("plan", &diff)],
        false,
    );
    for comment in &comments {
        let entry = the_group(comment);
        let group = entry.group.as_ref().expect("a group");
        assert_eq!(group.columns, ["tags.\"Env\""]);
        assert_eq!(group.rows.len(), 40);
        for (i, row) in group.rows.iter().enumerate() {
            assert_eq!(row.address, format!("aws_instance.web[{i}]"));
            assert_eq!(row.values, [format!("\"dev\" -> \"{}\"", varied(i))]);
        }
        // The diff shows no one address's value where they differ.
        let diff = entry.diff.as_deref().unwrap();
        assert!(!diff.contains("prod-0"), "{diff}");
        assert!(comment
            .markdown
            .contains("| `aws_instance.web[39]` | `\"dev\" -> \"prod-4\"` |"));
    }
}

#[test]
fn look_alikes_among_hundreds_of_creates_fill_the_limit() {
    let options = generator::Options {
        seed: generator::DEFAULT_SEED,
        ..generator::Options::new(generator::Kind::Creates, 300)
    };
    let mut plan: Value = serde_json::from_str(&generator::plan(&options)).unwrap();
    let changes = plan["resource_changes"].as_array_mut().unwrap();
    changes.extend(tag_updates(&numbered(40), same));
    let mut similar = tag_updates(&numbered(40), varied);
    for change in &mut similar {
        let address = change["address"].as_str().unwrap().replace("web", "api");
        change["address"] = Value::from(address);
        change["name"] = Value::from("api");
    }
    changes.extend(similar);
    let diff = diffed("plan.json", plan.to_string().as_bytes());
    let comments = check_limits(
        &["group", "look_alikes_among_creates"],
        &[("plan", &diff)],
        true,
    );
    // At GitHub's limit every address is named and the updates come first, grouped.
    let plan = &comments[2].context.plans[0];
    let groups: Vec<usize> = plan
        .changes
        .iter()
        .filter_map(|e| e.group.as_ref().map(|g| g.count))
        .collect();
    assert_eq!(groups, [40, 40]);
    assert_eq!(plan.omitted_total, 0);
    let notice = &comments[2].context.truncation.as_ref().unwrap().notice;
    let grouped_and_own = 80 + plan.changes.len() - 2;
    assert!(
        notice.contains(&format!(
            "{grouped_and_own} changes are shown with their diffs"
        )),
        "{notice}"
    );
}

#[test]
fn hostile_keys_and_values_in_groups_render_sound_at_every_limit() {
    // The hostile sweep (`tests/fixtures/hostile-sweep/grouped-addresses/`) runs every
    // payload through every output; here, the groups themselves at each limit.
    let path = crate::support::fixtures_dir().join("hostile-sweep/grouped-addresses/plan.json");
    let diff = crate::support::comment::load(&path).unwrap();
    for max_chars in LIMITS {
        let comment = render(&[("plan", &diff)], max_chars);
        let label = format!("hostile groups@{max_chars}");
        assert_sound(&label, &[&diff], &comment, max_chars);
        let groups: Vec<_> = comment.context.plans[0]
            .changes
            .iter()
            .filter_map(|e| e.group.as_ref())
            .collect();
        if max_chars < LIMITS[2] {
            // Past the limit: every address, no diff for updates.
            continue;
        }
        // Keys with a line break name no header line of their own: those stay apart.
        assert!(
            groups.iter().any(|g| g.columns.is_empty() && g.count >= 5),
            "{label}"
        );
        assert!(groups.iter().any(|g| !g.rows.is_empty()), "{label}");
    }
}

#[test]
fn no_group_shows_every_change_on_its_own() {
    let plan = json!({"format_version": "1.2", "terraform_version": "1.9.0",
        "resource_changes": tag_updates(&numbered(40), same)});
    let plan = plan.to_string();
    let run = |format: &str, flags: &[&str]| {
        let mut args = vec!["render", "--format", format];
        args.extend(flags);
        args.push("-");
        let out = crate::support::bin::run(&args, Some(plan.as_bytes()));
        assert_eq!(out.code(), 0, "{}", out.stderr);
        out.stdout
    };
    let context = |flags: &[&str]| -> Value { serde_json::from_str(&run("json", flags)).unwrap() };
    let grouped = context(&[]);
    assert_eq!(grouped["plans"][0]["changes"][0]["group"]["count"], 40);
    let apart = context(&["--no-group"]);
    let changes = apart["plans"][0]["changes"].as_array().unwrap();
    assert_eq!(changes.len(), 40);
    assert!(changes.iter().all(|e| e.get("group").is_none()));
    // The text format has no groups either way.
    assert_eq!(run("text", &[]), run("text", &["--no-group"]));
}

#[test]
fn grouped_destroys_and_replacements_keep_the_banner_and_every_address() {
    // 30 look-alike replacements (grouped: the same diff, ids aside) beside 30 deletes
    // whose ids differ (grouped too, their ids in a table, their `Name` tags `web-N` set
    // aside as each one's own key); the warning banner is the one they get apart, and
    // every address stays in the comment.
    let mut changes = tag_updates(&numbered(30), same);
    for change in &mut changes {
        change["change"]["actions"] = json!(["delete"]);
        change["change"]["after"] = Value::Null;
    }
    let mut replaced = tag_updates(&numbered(30), same);
    for (i, change) in replaced.iter_mut().enumerate() {
        change["address"] = Value::from(format!("aws_instance.db[{i}]"));
        change["name"] = Value::from("db");
        change["change"]["actions"] = json!(["delete", "create"]);
        change["change"]["replace_paths"] = json!([["ami"]]);
        change["change"]["after"]["ami"] = Value::from("ami-456");
    }
    changes.extend(replaced);
    let diff = plan_of(changes);
    let banner = |comment: &Comment| {
        let danger = &comment.context.plans[0].danger;
        let items: Vec<String> = danger.items.iter().map(|e| e.address.clone()).collect();
        (
            danger.count,
            danger.destroy,
            danger.replace,
            items,
            danger.more,
        )
    };
    for max_chars in LIMITS {
        let comment = render(&[("plan", &diff)], max_chars);
        let label = format!("grouped destroys@{max_chars}");
        assert_sound(&label, &[&diff], &comment, max_chars);
        let meta = Meta {
            no_group: true,
            ..meta("plan")
        };
        let apart = with_named(&[("plan", &diff)], |named| {
            render_comment(named, &meta, &TemplateSet::default(), max_chars)
        })
        .unwrap();
        assert_eq!(banner(&comment), banner(&apart), "{label}");
        let groups: Vec<(usize, &str)> = comment.context.plans[0]
            .changes
            .iter()
            .filter_map(|e| e.group.as_ref().map(|g| (g.count, e.address.as_str())))
            .collect();
        if max_chars >= LIMITS[1] {
            let wanted = [(30, "aws_instance.web[0]"), (30, "aws_instance.db[0]")];
            assert_eq!(groups, wanted, "{label}");
            let deletes = comment.context.plans[0].changes[0].group.as_ref().unwrap();
            assert_eq!(deletes.per_address, ["id"], "{label}");
            assert_eq!(deletes.own_key, ["tags.\"Name\""], "{label}");
            assert_eq!(deletes.rows[29].values[0], "\"i-001dc0ffee\" -> null");
        }
        if max_chars == LIMITS[2] {
            for i in 0..30 {
                for name in ["web", "db"] {
                    let address = format!("aws_instance.{name}[{i}]");
                    assert!(comment.markdown.contains(&address), "{label}: {address}");
                }
            }
        }
    }
}

/// A real plan of `tests/fixtures/group/<case>/` (Terraform 1.0.3 and the null provider,
/// see that folder's README) rendered at every limit, sound, its golden `comment.md` the
/// one at GitHub's limit; the plans' entries with a group, as (address, count).
fn real_case(case: &str) -> (Comment, Vec<(String, usize)>) {
    let path = crate::support::fixtures_dir()
        .join("group")
        .join(case)
        .join("plan.json");
    let diff = crate::support::comment::load(&path).unwrap();
    let mut last = None;
    for max_chars in LIMITS {
        let comment = render(&[("plan", &diff)], max_chars);
        assert_sound(
            &format!("{case}@{max_chars}"),
            &[&diff],
            &comment,
            max_chars,
        );
        last = Some(comment);
    }
    let comment = last.unwrap();
    let golden = path.with_file_name("comment.md");
    crate::support::golden::check(&golden, &comment.markdown).unwrap_or_else(|e| panic!("{e}"));
    let groups = comment.context.plans[0]
        .changes
        .iter()
        .filter_map(|e| e.group.as_ref().map(|g| (e.address.clone(), g.count)))
        .collect();
    (comment, groups)
}

#[test]
fn forty_count_replacements_with_their_own_ids_show_once() {
    let (comment, groups) = real_case("count_replaced_by_trigger_40");
    assert_eq!(groups, [("null_resource.web[0]".to_string(), 40)]);
    let entry = the_group(&comment);
    let group = entry.group.as_ref().unwrap();
    let wanted: Vec<String> = (0..40).map(|i| format!("null_resource.web[{i}]")).collect();
    assert_eq!(group.addresses, wanted, "natural order");
    // The diff shown is the first's, and the words say what was set aside.
    assert_eq!(group.unknown, ["id"]);
    assert!(group.own_key.is_empty() && group.per_address.is_empty());
    let diff = entry.diff.as_deref().unwrap();
    assert!(diff.contains("\"env\"  = \"dev\" -> \"prod\""), "{diff}");
    assert!(
        diff.contains("\"6707945976803104646\" -> (known after apply)"),
        "{diff}"
    );
    let md = &comment.markdown;
    assert!(md.contains("<b>× 40</b>"), "{md}");
    assert_eq!(md.matches("```diff").count(), 1, "{md}");
    assert!(
        md.contains("The diff below is `null_resource.web[0]`'s"),
        "{md}"
    );
    assert!(md.contains("values known only after apply"), "{md}");
    // Their old ids are named in words, not tabled: the addresses are listed.
    assert!(group.columns.is_empty() && group.rows.is_empty());
    assert!(md.contains("- `null_resource.web[10]`\n"), "{md}");
    // The banner still names each replacement.
    assert_eq!(comment.context.plans[0].danger.count, 40);
}

#[test]
fn for_each_look_alikes_group_and_the_odd_one_stays_apart() {
    let (comment, groups) = real_case("for_each_replaced_and_created");
    let named = |a: &str, n| (a.to_string(), n);
    assert_eq!(
        groups,
        [
            named("null_resource.app[\"a\"]", 6),
            named("null_resource.worker[\"a\"]", 5)
        ]
    );
    let changes = &comment.context.plans[0].changes;
    // `worker["f"]` is `large`: another value, shown on its own.
    assert!(changes
        .iter()
        .any(|e| e.address == "null_resource.worker[\"f\"]" && e.group.is_none()));
    let created = changes[1].group.as_ref().unwrap();
    assert_eq!(created.own_key, ["triggers.\"host\"", "triggers.\"name\""]);
    assert_eq!(
        created.rows[4].values,
        ["\"e.example.com\"", "\"worker-e\""]
    );
    assert!(comment
        .markdown
        .contains("values naming each one's own key"));
}

#[test]
fn a_module_instantiated_five_times_shows_each_change_once() {
    let (comment, groups) = real_case("module_for_each_x5");
    let named = |a: &str| (a.to_string(), 5);
    assert_eq!(
        groups,
        [
            named("module.svc[\"api\"].null_resource.legacy"),
            named("module.svc[\"api\"].null_resource.this")
        ]
    );
    // The destroys' own ids differ otherwise: the table shows them, the diff says so.
    let destroyed = comment.context.plans[0].changes[0].group.as_ref().unwrap();
    assert_eq!(destroyed.per_address, ["id"]);
    assert_eq!(destroyed.own_key, ["triggers.\"name\""]);
    let diff = comment.context.plans[0].changes[0].diff.as_deref().unwrap();
    assert!(
        diff.contains("id       = (differs per address: see the table)"),
        "{diff}"
    );
    let danger = &comment.context.plans[0].danger;
    assert_eq!((danger.destroy, danger.replace), (5, 5));
}
