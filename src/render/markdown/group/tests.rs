//! Markdown renderer, look-alike changes: what groups and, as much, what must not.

use super::*;

/// Does entry `i` lead a group others joined?
fn leads(g: &Grouping, i: usize) -> bool {
    let group = g.of.get(i).and_then(|n| g.groups.get(*n as usize));
    group.is_some_and(|group| group.leader == i && group.members > 0)
}

const WEB0: &str = "  # aws_instance.web[0] will be updated in-place\n  ~ resource \"aws_instance\" \"web\" {\n      ~ tags = {\n          ~ \"Env\"  = \"dev\" -> \"prod\"\n        }\n    }";

fn web(i: usize, env: &str) -> String {
    WEB0.replace("web[0]", &format!("web[{i}]"))
        .replace("\"prod\"", env)
}

fn add(g: &mut Grouping, i: usize, kind: Kind, text: &str, address: &str) {
    g.add(i, 0, kind, address, text);
}

/// A replacement of `address` as Terraform 1.0.3 shows it, its id `id` and its trigger
/// line `trigger` (which forces it when `forces`).
fn replaced(address: &str, id: &str, trigger: &str) -> String {
    format!(
        "  # {address} must be replaced\n-/+ resource \"null_resource\" \"web\" {{\n      ~ id       = \"{id}\" -> (known after apply)\n      ~ triggers = {{ # forces replacement\n          ~ \"env\"  = \"dev\" -> \"prod\"\n          {trigger}\n        }}\n    }}"
    )
}

/// A creation of `address` whose `name` trigger is `name`.
fn created(address: &str, name: &str) -> String {
    format!(
        "  # {address} will be created\n  + resource \"null_resource\" \"app\" {{\n      + id       = (known after apply)\n      + triggers = {{\n          + \"env\"  = \"prod\"\n          + \"name\" = \"{name}\"\n        }}\n    }}"
    )
}

/// [`differences`] of `a` and `b` (texts and keys), none known before.
fn diffs(a: &str, ka: &[&str], b: &str, kb: &[&str], near: bool) -> Option<Differences> {
    differences((a, ka), (b, kb), &[], near)
}

/// Do changes `a` and `b` (texts and addresses) of `kind` group?
fn alike(kind: Kind, a: (&str, &str), b: (&str, &str)) -> bool {
    let mut g = Grouping::new(2);
    add(&mut g, 0, kind, a.0, a.1);
    add(&mut g, 1, kind, b.0, b.1);
    g.leader_of(1) == Some(0)
}

#[test]
fn identical_diffs_group_under_the_first() {
    let mut g = Grouping::new(3);
    for i in 0..3 {
        let text = web(i, "\"prod\"");
        add(
            &mut g,
            i,
            Kind::Update,
            &text,
            &format!("aws_instance.web[{i}]"),
        );
    }
    assert!(leads(&g, 0));
    assert_eq!(g.leader_of(1), Some(0));
    assert_eq!(g.leader_of(2), Some(0));
    assert_eq!(g.leader_of(0), None);
}

#[test]
fn near_identical_updates_group_with_their_differing_line() {
    let mut g = Grouping::new(2);
    add(
        &mut g,
        0,
        Kind::Update,
        &web(0, "\"prod\""),
        "aws_instance.web[0]",
    );
    add(
        &mut g,
        1,
        Kind::Update,
        &web(1, "\"qa\""),
        "aws_instance.web[1]",
    );
    assert_eq!(g.leader_of(1), Some(0));
    assert_eq!(g.groups[0].differences, vec![(3, Aside::Value)]);
    assert_eq!(column_name(&web(1, "\"qa\""), 3), "tags.\"Env\"");
    assert_eq!(value_on(&web(1, "\"qa\""), 3), "\"dev\" -> \"qa\"");
}

#[test]
fn other_kinds_modules_and_shapes_stay_apart() {
    let mut g = Grouping::new(4);
    add(
        &mut g,
        0,
        Kind::Create,
        &web(0, "\"a\""),
        "aws_instance.web[0]",
    );
    // A create with another value is not near-identical: creates group only when alike.
    add(
        &mut g,
        1,
        Kind::Create,
        &web(1, "\"b\""),
        "aws_instance.web[1]",
    );
    let other_module =
        web(2, "\"a\"").replace("aws_instance.web[2]", "module.m.aws_instance.web[2]");
    add(
        &mut g,
        2,
        Kind::Create,
        &other_module,
        "module.m.aws_instance.web[2]",
    );
    // A value that opens a block is a different shape, not a different value.
    let opened = web(3, "{");
    add(&mut g, 3, Kind::Update, &opened, "aws_instance.web[3]");
    assert!((0..4).all(|i| g.leader_of(i).is_none()));
}

#[test]
fn replacements_with_their_own_ids_known_after_apply_group() {
    let a = replaced("null_resource.web[0]", "6707945976803104646", "");
    let b = replaced("null_resource.web[1]", "998154309981535233", "");
    assert!(alike(
        Kind::Replace,
        (&a, "null_resource.web[0]"),
        (&b, "null_resource.web[1]")
    ));
    let lead = normalized(&a, "null_resource.web[0]").unwrap();
    let other = normalized(&b, "null_resource.web[1]").unwrap();
    let found = diffs(&lead, &["0"], &other, &["1"], false);
    assert_eq!(found, Some(vec![(2, Aside::Unknown)]));
    assert_eq!(column_name(&lead, 2), "id");
}

#[test]
fn values_differing_only_by_each_own_key_group() {
    let pairs = [
        (
            ("null_resource.app[\"a\"]", "app-a"),
            ("null_resource.app[\"b\"]", "app-b"),
        ),
        (
            ("null_resource.app[2]", "web-2"),
            ("null_resource.app[10]", "web-10"),
        ),
        (
            ("null_resource.app[0]", "web0"),
            ("null_resource.app[1]", "web1"),
        ),
        (
            (
                "module.svc[\"api\"].null_resource.app",
                "svc-api.example.com",
            ),
            (
                "module.svc[\"auth\"].null_resource.app",
                "svc-auth.example.com",
            ),
        ),
        // Both keys, each in its place.
        (
            ("module.m[\"x\"].null_resource.app[0]", "x-0"),
            ("module.m[\"y\"].null_resource.app[1]", "y-1"),
        ),
    ];
    for ((a, va), (b, vb)) in pairs {
        let (ta, tb) = (created(a, va), created(b, vb));
        assert!(alike(Kind::Create, (&ta, a), (&tb, b)), "{va} / {vb}");
    }
    // Replacements too, on a line that is not known after apply.
    let a = replaced(
        "null_resource.web[0]",
        "1",
        "~ \"name\" = \"web-0\" -> \"w-0\"",
    );
    let b = replaced(
        "null_resource.web[1]",
        "2",
        "~ \"name\" = \"web-1\" -> \"w-1\"",
    );
    let lead = normalized(&a, "null_resource.web[0]").unwrap();
    let other = normalized(&b, "null_resource.web[1]").unwrap();
    let found = diffs(&lead, &["0"], &other, &["1"], false);
    assert_eq!(found, Some(vec![(2, Aside::Unknown), (5, Aside::OwnKey)]));
}

#[test]
fn what_differs_otherwise_does_not_group() {
    let apart = [
        // Another value altogether.
        (
            ("null_resource.app[0]", "web-0"),
            ("null_resource.app[1]", "db-1"),
        ),
        // A key's digits inside a number are a coincidence, not the key.
        (
            ("null_resource.app[1]", "10"),
            ("null_resource.app[0]", "00"),
        ),
        (
            ("null_resource.app[1]", "10"),
            ("null_resource.app[2]", "20"),
        ),
        (
            ("null_resource.app[1]", "10"),
            ("null_resource.app[0]", "0"),
        ),
        // So are a key's letters inside a word.
        (
            ("null_resource.app[\"a\"]", "app"),
            ("null_resource.app[\"b\"]", "bpp"),
        ),
        // The other's key, not its own.
        (
            ("null_resource.app[0]", "web-1"),
            ("null_resource.app[1]", "web-0"),
        ),
        // One module key for another.
        (
            ("module.m[\"x\"].null_resource.app[0]", "0"),
            ("module.m[\"y\"].null_resource.app[1]", "y"),
        ),
    ];
    for ((a, va), (b, vb)) in apart {
        let (ta, tb) = (created(a, va), created(b, vb));
        assert!(!alike(Kind::Create, (&ta, a), (&tb, b)), "{va} / {vb}");
    }
    // A value the same for both groups however it reads against each key.
    let (ta, tb) = (
        created("null_resource.app[1]", "web-1"),
        created("null_resource.app[2]", "web-1"),
    );
    assert!(alike(
        Kind::Create,
        (&ta, "null_resource.app[1]"),
        (&tb, "null_resource.app[2]")
    ));
}

#[test]
fn another_forces_replacement_reason_or_module_does_not_group() {
    let a = replaced("null_resource.web[0]", "1", "");
    let b = replaced("null_resource.web[1]", "2", "").replace(" # forces replacement", "");
    assert!(!alike(
        Kind::Replace,
        (&a, "null_resource.web[0]"),
        (&b, "null_resource.web[1]")
    ));
    // A value known after apply that forces replacement for one and not the other.
    let forced = |address: &str, id: &str, reason: &str| {
        replaced(address, id, "").replace(
            "(known after apply)\n",
            &format!("(known after apply){reason}\n"),
        )
    };
    let a = forced("null_resource.web[0]", "1", " # forces replacement");
    let b = forced("null_resource.web[1]", "2", "");
    assert!(!alike(
        Kind::Replace,
        (&a, "null_resource.web[0]"),
        (&b, "null_resource.web[1]")
    ));
    let b = forced("null_resource.web[1]", "2", " # forces replacement");
    assert!(alike(
        Kind::Replace,
        (&a, "null_resource.web[0]"),
        (&b, "null_resource.web[1]")
    ));
    // The same change in another module.
    let m = "module.m.null_resource.web[1]";
    let b = replaced(m, "2", "");
    assert!(!alike(
        Kind::Replace,
        (
            &replaced("null_resource.web[0]", "1", ""),
            "null_resource.web[0]"
        ),
        (&b, m)
    ));
}

#[test]
fn destroys_group_with_a_table_of_their_ids() {
    let destroyed = |address: &str, id: &str, name: &str| {
        format!("  # {address} will be destroyed\n  - resource \"null_resource\" \"legacy\" {{\n      - id       = \"{id}\" -> null\n      - triggers = {{\n          - \"name\" = \"{name}\"\n        }} -> null\n    }}")
    };
    let (a, b) = (
        "module.svc[\"api\"].null_resource.legacy",
        "module.svc[\"web\"].null_resource.legacy",
    );
    let ta = destroyed(a, "6548952184923362174", "legacy-api");
    let tb = destroyed(b, "538084184750713526", "legacy-web");
    let lead = normalized(&ta, a).unwrap();
    let other = normalized(&tb, b).unwrap();
    let found = diffs(&lead, &["api"], &other, &["web"], near(Kind::Delete));
    assert_eq!(found, Some(vec![(2, Aside::Value), (4, Aside::OwnKey)]));
    assert!(alike(Kind::Delete, (&ta, a), (&tb, b)));
    // Creates get no table: their values must be alike.
    assert!(!near(Kind::Create) && !near(Kind::Replace));
}

#[test]
fn a_value_naming_the_address_differs_by_the_key_and_says_so() {
    let a = web(0, "\"aws_instance.web[0]\"");
    let b = web(1, "\"aws_instance.web[1]\"");
    let (a, b) = (
        normalized(&a, "aws_instance.web[0]").unwrap(),
        normalized(&b, "aws_instance.web[1]").unwrap(),
    );
    assert_ne!(a, b);
    let found = diffs(&a, &["0"], &b, &["1"], false);
    assert_eq!(found, Some(vec![(3, Aside::OwnKey)]));
}

#[test]
fn too_many_differing_lines_do_not_group() {
    let lines = |v: &str| {
        (0..=MAX_COLUMNS)
            .map(|k| format!("      ~ a{k} = {v}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let found = diffs(&lines("1"), &[], &lines("2"), &[], true);
    assert_eq!(found, None);
}

#[test]
fn keys_are_replaced_where_they_stand_apart() {
    assert_eq!(
        keyed("\"web-1\"", &["1"]).as_deref(),
        Some("\"web-\u{0}\u{e000}\"")
    );
    assert_eq!(keyed("\"10\"", &["1"]), None);
    assert_eq!(keyed("\"app\"", &["a"]), None);
    // The longer key first: `10` is not `1` then `0`.
    assert_eq!(keyed("10", &["1", "10"]).as_deref(), Some("\u{0}\u{e001}"));
    assert_eq!(keyed("", &[""]), None);
}

#[test]
fn plan_text_that_reads_like_a_value_known_after_apply_is_not_set_aside() {
    // A string ending like Terraform's words still ends with its quote.
    let a = created("null_resource.app[0]", "x -> (known after apply)");
    let b = created("null_resource.app[1]", "y -> (known after apply)");
    assert!(!alike(
        Kind::Create,
        (&a, "null_resource.app[0]"),
        (&b, "null_resource.app[1]")
    ));
    // A heredoc's lines are the string's own, shown as they are: never set aside, even
    // when they read like attribute lines (nor, for updates, tabled).
    let heredoc = |address: &str, id: &str| {
        format!("  # {address} will be updated in-place\n  ~ resource \"t\" \"app\" {{\n      ~ script = <<-EOT\n          + x = \"{id}\" -> (known after apply)\n          + EOT\n        EOT\n      ~ v = 1 -> 2\n    }}")
    };
    for kind in [Kind::Update, Kind::Replace] {
        let (a, b) = (heredoc("t.app[0]", "1"), heredoc("t.app[1]", "2"));
        assert!(!alike(kind, (&a, "t.app[0]"), (&b, "t.app[1]")), "{kind:?}");
    }
    // After the body the diff's own lines are read again.
    let (a, b) = (heredoc("t.app[0]", "1"), heredoc("t.app[1]", "1"));
    let (a, b) = (a.replace("1 -> 2", "1 -> 3"), b.replace("1 -> 2", "1 -> 4"));
    let lead = normalized(&a, "t.app[0]").unwrap();
    let other = normalized(&b, "t.app[1]").unwrap();
    assert_eq!(
        diffs(&lead, &["0"], &other, &["1"], true),
        Some(vec![(6, Aside::Value)])
    );
}
