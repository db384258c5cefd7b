use super::*;

fn parse(text: &str) -> Option<Engine> {
    let mut engine = Engine::new();
    if engine.add_policy("p.rego".into(), text.into()).is_ok() {
        return Some(engine);
    }
    engine.set_rego_v0(true);
    engine.add_policy("p.rego".into(), text.into()).ok()?;
    Some(engine)
}

fn body(literals: &str) -> String {
    let policy = format!("package main\ndeny contains \"x\" if {{ {literals} }}");
    let (text, _) = rewrite(&policy, parse);
    text.strip_prefix("package main\ndeny contains \"x\" if { ")
        .and_then(|t| t.strip_suffix(" }"))
        .unwrap_or(&text)
        .to_string()
}

#[test]
fn call_operands_move_out_of_the_negation() {
    assert_eq!(
        body(r#"not endswith(input.foo, "-dev")"#),
        r#"__planmark_0 := input.foo; not endswith(__planmark_0, "-dev")"#
    );
    assert_eq!(
        body("not count(input.foo) > 1"),
        "__planmark_0 := count(input.foo); not __planmark_0 > 1"
    );
    assert_eq!(
        body(r#"not [input.foo] == [lower(input.a)]"#),
        "__planmark_0 := input.foo; __planmark_1 := lower(input.a); not [__planmark_0] == [__planmark_1]"
    );
    assert_eq!(
        body(r#"not "a" in input.foo"#),
        r#"__planmark_0 := input.foo; not "a" in __planmark_0"#
    );
}

#[test]
fn compared_references_stay_but_their_indices_move() {
    for unchanged in [
        r#"not input.foo == "x""#,
        "not input.foo",
        "not input.a.b == input.c",
        "not [x | x := input.foo[_]] == [1]",
        r#"not endswith(input.foo[_], "x")"#,
    ] {
        assert_eq!(body(unchanged), unchanged);
    }
    assert_eq!(
        body("not data.h[input.foo]"),
        "__planmark_0 := input.foo; not data.h[__planmark_0]"
    );
}

#[test]
fn with_modifiers_go_with_the_moved_terms() {
    assert_eq!(
        body(r#"not endswith(input.foo, "x") with input.foo as "a""#),
        r#"__planmark_0 := input.foo with input.foo as "a"; not endswith(__planmark_0, "x") with input.foo as "a""#
    );
}

#[test]
fn a_body_of_one_literal_gets_braces() {
    let policy = "package main\ndeny contains \"x\" if not endswith(input.foo, \"-dev\")\n";
    let (text, _) = rewrite(policy, parse);
    assert_eq!(
        text,
        "package main\ndeny contains \"x\" if { __planmark_0 := input.foo; not endswith(__planmark_0, \"-dev\") }\n"
    );
}

#[test]
fn negations_inside_moved_terms_are_rewritten_too() {
    let out = body("not count([x | x := input.a[_]; not startswith(x, input.p)]) > 0");
    assert_eq!(
        out,
        "__planmark_0 := count([x | x := input.a[_]; __planmark_1 := input.p; not startswith(x, __planmark_1)]); not __planmark_0 > 0"
    );
}

#[test]
fn places_map_back_to_the_policy() {
    let policy =
        "package main\ndeny contains \"x\" if { not endswith(lower(input.foo), \"-dev\") }";
    let (text, map) = rewrite(policy, parse);
    let at = |needle: &str, text: &str| {
        let offset = text.find(needle).unwrap();
        line_column(text, offset)
    };
    // `lower(` in its moved copy and `"-dev"` after the replaced argument.
    let moved = at("lower(", &text);
    assert_eq!(map.original(moved.0, moved.1), at("lower(", policy));
    let dev = at("\"-dev\"", &text);
    assert_eq!(map.original(dev.0, dev.1), at("\"-dev\"", policy));
    let untouched = PlaceMap::default();
    assert_eq!(untouched.original(3, 4), (3, 4));
}

#[test]
fn a_literal_ending_in_a_string_keeps_its_quote() {
    let policy = "package main\ndeny contains \"x\" if not lower(input.foo) == \"a\"\n";
    let (text, _) = rewrite(policy, parse);
    assert_eq!(
        text,
        "package main\ndeny contains \"x\" if { __planmark_0 := lower(input.foo); not __planmark_0 == \"a\" }\n"
    );
}

#[test]
fn a_tab_is_four_columns_as_regorus_counts() {
    let text = "a\n\tb := 1";
    assert_eq!(offset_of(text, 2, 5), 3);
    assert_eq!(line_column(text, 3), (2, 5));
}

fn rewritten(policy: &str) -> String {
    rewrite(&format!("package main\n{policy}"), parse)
        .0
        .strip_prefix("package main\n")
        .unwrap()
        .to_string()
}

#[test]
fn head_terms_that_may_be_undefined_move_into_the_body() {
    assert_eq!(
        rewritten("deny contains f(x) if { some x in xs\n  x > 1 # note\n}"),
        "deny contains __planmark_0 if { some x in __planmark_iterable(xs)\n  x > 1; __planmark_0 := f(x) # note\n}"
    );
    assert_eq!(
        rewritten("deny contains {\"msg\": m, \"r\": rc.address} if some rc in rcs"),
        "deny contains __planmark_0 if { some rc in __planmark_iterable(rcs); __planmark_0 := {\"msg\": m, \"r\": rc.address} }"
    );
    assert_eq!(
        rewritten("tags[rc.address] := rc.tags if { some rc in rcs }"),
        "tags[__planmark_0] := __planmark_1 if { some rc in __planmark_iterable(rcs); __planmark_0 := rc.address; __planmark_1 := rc.tags }"
    );
    assert_eq!(
        rewritten("deny[sprintf(\"%s\", [x])] { x := xs[_] }"),
        "deny[__planmark_0] { x := xs[_]; __planmark_0 := sprintf(\"%s\", [x]) }"
    );
}

#[test]
fn head_terms_that_are_always_defined_stay() {
    for unchanged in [
        "deny contains msg if { msg := \"x\" }",
        "deny contains [a, \"b\"] if { a := 1 }",
        "deny contains f(1)",
        "x := f(1) if { true }",
        "deny[msg] { msg := \"x\" }",
        "m[k] := v if { some k, v in {\"a\": 1} }",
    ] {
        assert_eq!(rewritten(unchanged), unchanged);
    }
}

#[test]
fn a_moved_head_waits_for_the_body_negations() {
    assert_eq!(
        rewritten("deny contains lower(x) if not endswith(input.x, \"y\")"),
        "deny contains __planmark_0 if { __planmark_1 := input.x; not endswith(__planmark_1, \"y\"); __planmark_0 := lower(x) }"
    );
}

#[test]
fn some_in_iterates_only_over_collections() {
    assert_eq!(
        rewritten("deny contains k if { some k, v in input.a; v }"),
        "deny contains k if { some k, v in __planmark_iterable(input.a); v }"
    );
    assert_eq!(
        rewritten("deny contains k if { some k in [x | some x in object.get(input, \"a\", null)] }"),
        "deny contains k if { some k in [x | some x in __planmark_iterable(object.get(input, \"a\", null))] }"
    );
}
