//! Unit-level tests of the differ/renderer rules: small hand-made plans with the exact
//! text Terraform prints for them (see the renderer spec, sections 3-7 and 11).
//!
//! Plans are built as raw JSON text (never through `serde_json::Value`) so that number
//! literals such as `1e400` reach the parser verbatim.

const PROVIDER: &str = "registry.terraform.io/hashicorp/test";

/// One resource change: `change` is the JSON of the `change` object, `extra` holds
/// additional resource-change members (without a leading comma), e.g.
/// `"action_reason":"replace_because_tainted"`.
struct Rc<'a> {
    address: &'a str,
    mode: &'a str,
    extra: &'a str,
    change: &'a str,
}

impl<'a> Rc<'a> {
    fn new(change: &'a str) -> Self {
        Rc {
            address: "test_instance.example",
            mode: "managed",
            extra: "",
            change,
        }
    }
    fn extra(mut self, extra: &'a str) -> Self {
        self.extra = extra;
        self
    }
    fn address(mut self, address: &'a str) -> Self {
        self.address = address;
        self
    }
    fn data(mut self) -> Self {
        self.mode = "data";
        self.address = "data.test_instance.example";
        self
    }
}

fn full_text(rc: Rc<'_>, block: &str) -> String {
    let extra = if rc.extra.is_empty() {
        String::new()
    } else {
        format!(",{}", rc.extra)
    };
    let plan = format!(
        r#"{{"format_version":"1.2","resource_changes":[{{"address":"{addr}","mode":"{mode}","type":"test_instance","name":"example","provider_name":"{PROVIDER}"{extra},"change":{change}}}]}}"#,
        addr = rc.address.replace('"', "\\\""),
        mode = rc.mode,
        change = rc.change,
    );
    let schemas = format!(
        r#"{{"format_version":"1.0","provider_schemas":{{"{PROVIDER}":{{"resource_schemas":{{"test_instance":{{"version":0,"block":{block}}}}},"data_source_schemas":{{"test_instance":{{"version":0,"block":{block}}}}}}}}}}}"#
    );
    let plan = planmark::plan::parse_plan("test.json", plan.as_bytes()).unwrap();
    let schemas =
        planmark::schema::ProviderSchemas::parse("schemas.json", schemas.as_bytes()).unwrap();
    let diff = planmark::differ::diff_plan("test.json", &plan, Some(&schemas), None).unwrap();
    planmark::render::text::render_plan(&diff)
}

/// The resource block only: from its first comment line to its closing `    }` (or the
/// header line itself when the body is `{}`).
fn block_of(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("  # ") || l.starts_with(" # "))
        .unwrap_or_else(|| panic!("no resource comment line in:\n{text}"));
    let mut out = Vec::new();
    for l in &lines[start..] {
        out.push(*l);
        let is_header = !l.trim_start().starts_with('#')
            && (l.contains("resource \"") || l.contains("data \""));
        if *l == "    }" || (is_header && l.ends_with("{}")) {
            break;
        }
    }
    out.join("\n")
}

fn render_rc(rc: Rc<'_>, block: &str) -> String {
    block_of(&full_text(rc, block))
}

fn render(change: &str, block: &str) -> String {
    render_rc(Rc::new(change), block)
}

fn lines(ls: &[&str]) -> String {
    ls.join("\n")
}

#[track_caller]
fn assert_lines(actual: &str, expected: &[&str]) {
    let expected = lines(expected);
    assert_eq!(
        actual, expected,
        "\n--- actual ---\n{actual}\n--- expected ---\n{expected}\n"
    );
}

#[track_caller]
fn assert_contains(actual: &str, chunk: &[&str]) {
    let chunk = lines(chunk);
    assert!(
        actual.contains(&chunk),
        "\n--- actual ---\n{actual}\n--- expected to contain ---\n{chunk}\n"
    );
}

const BASIC: &str = r#"{"attributes":{"id":{"type":"string","computed":true},"ami":{"type":"string","optional":true}}}"#;
const EMPTY: &str = r#"{"attributes":{}}"#;
const ID: &str = "i-02ae66f368e8518a9";

// ---------------------------------------------------------------- headers and actions

#[test]
fn case01_create_unknown_id() {
    let out = render(
        r#"{"actions":["create"],"before":null,"after":{"id":null,"ami":null},"after_unknown":{"id":true},"before_sensitive":false,"after_sensitive":{}}"#,
        BASIC,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example will be created",
            "  + resource \"test_instance\" \"example\" {",
            "      + id = (known after apply)",
            "    }",
        ],
    );
}

#[test]
fn case02_create_string_null_is_quoted() {
    let schema = r#"{"attributes":{"string":{"type":"string","optional":true}}}"#;
    let out = render(
        r#"{"actions":["create"],"before":null,"after":{"string":"null"},"after_unknown":{},"before_sensitive":false,"after_sensitive":{}}"#,
        schema,
    );
    assert_contains(&out, &["      + string = \"null\""]);
}

#[test]
fn case04_delete() {
    let out = render(
        r#"{"actions":["delete"],"before":{"id":"i-02ae66f368e8518a9","ami":null},"after":null,"after_unknown":{},"before_sensitive":{},"after_sensitive":false}"#,
        BASIC,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example will be destroyed",
            "  - resource \"test_instance\" \"example\" {",
            "      - id = \"i-02ae66f368e8518a9\" -> null",
            "    }",
        ],
    );
}

#[test]
fn case05_delete_deposed() {
    let out = render_rc(
        Rc::new(r#"{"actions":["delete"],"before":{"id":"i-02ae66f368e8518a9","ami":null},"after":null,"after_unknown":{},"before_sensitive":{},"after_sensitive":false}"#)
            .extra(r#""deposed":"byebye""#),
        BASIC,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example (deposed object byebye) will be destroyed",
            "  # (left over from a partially-failed replacement of this instance)",
            "  - resource \"test_instance\" \"example\" {",
            "      - id = \"i-02ae66f368e8518a9\" -> null",
            "    }",
        ],
    );
}

#[test]
fn case06_delete_legacy_empty_string_counts_for_padding() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true},"intentionally_long":{"type":"string","optional":true}}}"#;
    let out = render(
        r#"{"actions":["delete"],"before":{"id":"i-02ae66f368e8518a9","intentionally_long":""},"after":null,"after_unknown":{},"before_sensitive":{},"after_sensitive":false}"#,
        schema,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example will be destroyed",
            "  - resource \"test_instance\" \"example\" {",
            "      - id                 = \"i-02ae66f368e8518a9\" -> null",
            "        # (1 unchanged attribute hidden)",
            "    }",
        ],
    );
}

#[test]
fn case07_forget() {
    let out = render(
        r#"{"actions":["forget"],"before":{"id":"i-02ae66f368e8518a9","ami":"ami-BEFORE"},"after":null,"after_unknown":{},"before_sensitive":{},"after_sensitive":false}"#,
        BASIC,
    );
    assert_lines(
        &out,
        &[
            " # test_instance.example will no longer be managed by Terraform, but will not be destroyed",
            " # (destroy = false is set in the configuration)",
            " . resource \"test_instance\" \"example\" {",
            "        id  = \"i-02ae66f368e8518a9\"",
            "        # (1 unchanged attribute hidden)",
            "    }",
        ],
    );
}

#[test]
fn case08_forget_deposed() {
    let out = render_rc(
        Rc::new(r#"{"actions":["forget"],"before":{"id":"i-02ae66f368e8518a9","ami":"ami-BEFORE"},"after":null,"after_unknown":{},"before_sensitive":{},"after_sensitive":false}"#)
            .extra(r#""deposed":"adios""#),
        BASIC,
    );
    assert_contains(
        &out,
        &[
            " # test_instance.example (deposed object adios) will be removed from Terraform state, but will not be destroyed",
            " # (left over from a partially-failed replacement of this instance)",
            " # (destroy = false is set in the configuration)",
            " . resource \"test_instance\" \"example\" {",
        ],
    );
}

#[test]
fn case09_create_then_forget() {
    let out = render(
        r#"{"actions":["create","forget"],"before":{"id":"i-02ae66f368e8518a9","ami":"ami-BEFORE"},"after":{"id":"i-02999999999999999","ami":"ami-AFTER"},"after_unknown":{},"before_sensitive":{},"after_sensitive":{},"replace_paths":[["ami"]]}"#,
        BASIC,
    );
    assert_lines(
        &out,
        &[
            " # test_instance.example must be replaced, but the existing object will not be destroyed",
            " # (destroy = false is set in the configuration)",
            " +/. resource \"test_instance\" \"example\" {",
            "      ~ ami = \"ami-BEFORE\" -> \"ami-AFTER\" # forces replacement",
            "      ~ id  = \"i-02ae66f368e8518a9\" -> \"i-02999999999999999\"",
            "    }",
        ],
    );
}

#[test]
fn case10_update_shows_id_with_padding() {
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","ami":"ami-BEFORE"},"after":{"id":"i-02ae66f368e8518a9","ami":"ami-AFTER"},"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#,
        BASIC,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example will be updated in-place",
            "  ~ resource \"test_instance\" \"example\" {",
            "      ~ ami = \"ami-BEFORE\" -> \"ami-AFTER\"",
            "        id  = \"i-02ae66f368e8518a9\"",
            "    }",
        ],
    );
}

#[test]
fn case11_non_identifier_attribute_name_quoted() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true},"saml:aud":{"type":"string","optional":true},"zeta":{"type":"string","optional":true}}}"#;
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","saml:aud":"https://example.com/saml","zeta":"z"},"after":{"id":"i-02ae66f368e8518a9","saml:aud":"https://saml.example.com","zeta":"z"},"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#,
        schema,
    );
    // Attributes are sorted by raw name: "id" < "saml:aud" < "zeta".
    assert_lines(
        &out,
        &[
            "  # test_instance.example will be updated in-place",
            "  ~ resource \"test_instance\" \"example\" {",
            "        id         = \"i-02ae66f368e8518a9\"",
            "      ~ \"saml:aud\" = \"https://example.com/saml\" -> \"https://saml.example.com\"",
            "        # (1 unchanged attribute hidden)",
            "    }",
        ],
    );
}

#[test]
fn case12_replace_primitive_forces_replacement() {
    let out = render_rc(
        Rc::new(r#"{"actions":["delete","create"],"before":{"id":"i-02ae66f368e8518a9","ami":"ami-BEFORE"},"after":{"id":null,"ami":"ami-AFTER"},"after_unknown":{"id":true},"before_sensitive":{},"after_sensitive":{},"replace_paths":[["ami"]]}"#)
            .extra(r#""action_reason":"replace_because_cannot_update""#),
        BASIC,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example must be replaced",
            "-/+ resource \"test_instance\" \"example\" {",
            "      ~ ami = \"ami-BEFORE\" -> \"ami-AFTER\" # forces replacement",
            "      ~ id  = \"i-02ae66f368e8518a9\" -> (known after apply)",
            "    }",
        ],
    );
}

const LISTS: &str = r#"{"attributes":{"id":{"type":"string","computed":true},"list_field":{"type":["list","string"],"optional":true},"set_field":{"type":["set","string"],"optional":true},"map_field":{"type":["map","string"],"optional":true},"list_num":{"type":["list","number"],"optional":true}}}"#;

#[test]
fn case12_replace_list_forces_replacement() {
    let out = render(
        r#"{"actions":["delete","create"],"before":{"id":"i-02ae66f368e8518a9","list_field":["a"]},"after":{"id":"i-02ae66f368e8518a9","list_field":["a","b"]},"after_unknown":{},"before_sensitive":{},"after_sensitive":{},"replace_paths":[["list_field"]]}"#,
        LISTS,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example must be replaced",
            "-/+ resource \"test_instance\" \"example\" {",
            "        id         = \"i-02ae66f368e8518a9\"",
            "      ~ list_field = [ # forces replacement",
            "            \"a\",",
            "          + \"b\",",
            "        ]",
            "    }",
        ],
    );
}

#[test]
fn case34_replace_map_forces_replacement() {
    let out = render(
        r#"{"actions":["delete","create"],"before":{"id":"i-02ae66f368e8518a9","map_field":{"a":"aaaa"}},"after":{"id":"i-02ae66f368e8518a9","map_field":{"a":"aaaa","b":"bbbb"}},"after_unknown":{},"before_sensitive":{},"after_sensitive":{},"replace_paths":[["map_field"]]}"#,
        LISTS,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example must be replaced",
            "-/+ resource \"test_instance\" \"example\" {",
            "        id        = \"i-02ae66f368e8518a9\"",
            "      ~ map_field = { # forces replacement",
            "          + \"b\" = \"bbbb\"",
            "            # (1 unchanged element hidden)",
            "        }",
            "    }",
        ],
    );
}

#[test]
fn case13_null_both_sides_dropped_empty_string_counted() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true},"ami":{"type":"string","optional":true},"unchanged":{"type":"string","optional":true},"empty":{"type":"string","optional":true}}}"#;
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","ami":"ami-BEFORE","unchanged":null,"empty":""},"after":{"id":"i-02ae66f368e8518a9","ami":"ami-AFTER","unchanged":null,"empty":null},"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#,
        schema,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example will be updated in-place",
            "  ~ resource \"test_instance\" \"example\" {",
            "      ~ ami   = \"ami-BEFORE\" -> \"ami-AFTER\"",
            "        id    = \"i-02ae66f368e8518a9\"",
            "        # (1 unchanged attribute hidden)",
            "    }",
        ],
    );
}

#[test]
fn case14_non_legacy_schema_keeps_empty_strings() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true},"from_null":{"type":"string","optional":true},"to_null":{"type":"string","optional":true},"dyn":{"type":"dynamic","optional":true}}}"#;
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","from_null":null,"to_null":"","dyn":null},"after":{"id":"i-02ae66f368e8518a9","from_null":"","to_null":null,"dyn":null},"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#,
        schema,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example will be updated in-place",
            "  ~ resource \"test_instance\" \"example\" {",
            "      + from_null = \"\"",
            "        id        = \"i-02ae66f368e8518a9\"",
            "      - to_null   = \"\" -> null",
            "    }",
        ],
    );
}

#[test]
fn legacy_empty_to_value_is_a_create() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true},"forced":{"type":"string","optional":true}}}"#;
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","forced":""},"after":{"id":"i-02ae66f368e8518a9","forced":"x"},"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#,
        schema,
    );
    assert_contains(&out, &["      + forced = \"x\""]);
}

// ---------------------------------------------------------------- strings

const STRINGS: &str = r#"{"attributes":{"id":{"type":"string","computed":true},"more_lines":{"type":"string","optional":true},"json_field":{"type":"string","optional":true}}}"#;

#[test]
fn case15_multiline_update() {
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","more_lines":"original\nlong\nmulti-line\nstring\nfield"},"after":{"id":"i-02ae66f368e8518a9","more_lines":"original\nextremely long\nmulti-line\nstring\nfield"},"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#,
        STRINGS,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example will be updated in-place",
            "  ~ resource \"test_instance\" \"example\" {",
            "        id         = \"i-02ae66f368e8518a9\"",
            "      ~ more_lines = <<-EOT",
            "            original",
            "          - long",
            "          + extremely long",
            "            multi-line",
            "            string",
            "            field",
            "        EOT",
            "    }",
        ],
    );
}

#[test]
fn case16_multiline_create() {
    let out = render(
        r#"{"actions":["create"],"before":null,"after":{"id":null,"more_lines":"original\nnew line\n","json_field":null},"after_unknown":{"id":true},"before_sensitive":false,"after_sensitive":{}}"#,
        STRINGS,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example will be created",
            "  + resource \"test_instance\" \"example\" {",
            "      + id         = (known after apply)",
            "      + more_lines = <<-EOT",
            "            original",
            "            new line",
            "        EOT",
            "    }",
        ],
    );
}

#[test]
fn case17_multiline_forces_replacement() {
    let out = render(
        r#"{"actions":["delete","create"],"before":{"id":"i-02ae66f368e8518a9","more_lines":"original\n"},"after":{"id":"i-02ae66f368e8518a9","more_lines":"original\nnew line"},"after_unknown":{},"before_sensitive":{},"after_sensitive":{},"replace_paths":[["more_lines"]]}"#,
        STRINGS,
    );
    assert_contains(
        &out,
        &[
            "      ~ more_lines = <<-EOT # forces replacement",
            "            original",
            "          + new line",
            "        EOT",
        ],
    );
}

#[test]
fn case24_json_create() {
    let out = render(
        r#"{"actions":["create"],"before":null,"after":{"id":null,"more_lines":null,"json_field":"{\"list\":[\"a\"],\"obj\":{\"key\":\"val\"},\"str\":\"value\"}"},"after_unknown":{"id":true},"before_sensitive":false,"after_sensitive":{}}"#,
        STRINGS,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example will be created",
            "  + resource \"test_instance\" \"example\" {",
            "      + id         = (known after apply)",
            "      + json_field = jsonencode(",
            "            {",
            "              + list = [",
            "                  + \"a\",",
            "                ]",
            "              + obj  = {",
            "                  + key = \"val\"",
            "                }",
            "              + str  = \"value\"",
            "            }",
            "        )",
            "    }",
        ],
    );
}

#[test]
fn case25_json_whitespace_only_change() {
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","json_field":"{\"aaa\":\"value\",\"bbb\":\"another\"}"},"after":{"id":"i-02ae66f368e8518a9","json_field":"{\"aaa\": \"value\", \"bbb\": \"another\"}"},"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#,
        STRINGS,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example will be updated in-place",
            "  ~ resource \"test_instance\" \"example\" {",
            "        id         = \"i-02ae66f368e8518a9\"",
            "      ~ json_field = jsonencode( # whitespace changes",
            "            {",
            "                aaa = \"value\"",
            "                bbb = \"another\"",
            "            }",
            "        )",
            "    }",
        ],
    );
}

#[test]
fn json_explicit_null_to_number() {
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","json_field":"{\"a\":null,\"b\":true}"},"after":{"id":"i-02ae66f368e8518a9","json_field":"{\"a\":1,\"b\":true}"},"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#,
        STRINGS,
    );
    assert_contains(
        &out,
        &[
            "      ~ json_field = jsonencode(",
            "          ~ {",
            "              ~ a = null -> 1",
            "                # (1 unchanged attribute hidden)",
            "            }",
            "        )",
        ],
    );
}

#[test]
fn numbers_verbatim() {
    let schema = r#"{"attributes":{"big":{"type":"number","optional":true},"huge":{"type":"number","optional":true},"frac":{"type":"number","optional":true}}}"#;
    let out = render(
        r#"{"actions":["create"],"before":null,"after":{"big":9223372036854773256,"huge":1e400,"frac":1.23456789},"after_unknown":{},"before_sensitive":false,"after_sensitive":{}}"#,
        schema,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example will be created",
            "  + resource \"test_instance\" \"example\" {",
            "      + big  = 9223372036854773256",
            "      + frac = 1.23456789",
            "      + huge = 1e400",
            "    }",
        ],
    );
}

// ---------------------------------------------------------------- sensitivity

const SENS: &str = r#"{"attributes":{"id":{"type":"string","computed":true},"ami":{"type":"string","optional":true},"password":{"type":"string","optional":true},"conn_info":{"type":["object",{"user":"string","password":"string"}],"optional":true}}}"#;

#[test]
fn case18_sensitive_create() {
    let out = render(
        r#"{"actions":["create"],"before":null,"after":{"id":null,"ami":null,"password":"top-secret","conn_info":{"user":"admin","password":"inner-secret"}},"after_unknown":{"id":true},"before_sensitive":false,"after_sensitive":{"password":true,"conn_info":{"password":true}}}"#,
        SENS,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example will be created",
            "  + resource \"test_instance\" \"example\" {",
            "      + conn_info = {",
            "          + password = (sensitive value)",
            "          + user     = \"admin\"",
            "        }",
            "      + id        = (known after apply)",
            "      + password  = (sensitive value)",
            "    }",
        ],
    );
}

#[test]
fn case19_unchanged_sensitive_hidden() {
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","ami":"ami-BEFORE","password":"top-secret","conn_info":null},"after":{"id":"i-02ae66f368e8518a9","ami":"ami-AFTER","password":"top-secret","conn_info":null},"after_unknown":{},"before_sensitive":{"password":true},"after_sensitive":{"password":true}}"#,
        SENS,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example will be updated in-place",
            "  ~ resource \"test_instance\" \"example\" {",
            "      ~ ami      = \"ami-BEFORE\" -> \"ami-AFTER\"",
            "        id       = \"i-02ae66f368e8518a9\"",
            "        # (1 unchanged attribute hidden)",
            "    }",
        ],
    );
}

#[test]
fn case40_sensitivity_warning_attribute() {
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","ami":"ami-SAME"},"after":{"id":"i-02ae66f368e8518a9","ami":"ami-SAME"},"after_unknown":{},"before_sensitive":{"ami":true},"after_sensitive":{}}"#,
        BASIC,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example will be updated in-place",
            "  ~ resource \"test_instance\" \"example\" {",
            "      # Warning: this attribute value will no longer be marked as sensitive",
            "      # after applying this change. The value is unchanged.",
            "      ~ ami = (sensitive value)",
            "        id  = \"i-02ae66f368e8518a9\"",
            "    }",
        ],
    );
}

#[test]
fn case40_sensitivity_warning_becoming_sensitive_changed_value() {
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","ami":"ami-BEFORE"},"after":{"id":"i-02ae66f368e8518a9","ami":"ami-AFTER"},"after_unknown":{},"before_sensitive":{},"after_sensitive":{"ami":true}}"#,
        BASIC,
    );
    assert_contains(
        &out,
        &[
            "      # Warning: this attribute value will be marked as sensitive and will not",
            "      # display in UI output after applying this change.",
            "      ~ ami = (sensitive value)",
        ],
    );
}

#[test]
fn case40_sensitivity_warning_block() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true}},"block_types":{"nested_block":{"nesting_mode":"list","block":{"attributes":{"value":{"type":"string","optional":true}}}}}}"#;
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","nested_block":[{"value":"v"}]},"after":{"id":"i-02ae66f368e8518a9","nested_block":[{"value":"v"}]},"after_unknown":{},"before_sensitive":{"nested_block":[true]},"after_sensitive":{"nested_block":[{}]}}"#,
        schema,
    );
    assert_contains(
        &out,
        &[
            "      # Warning: this block will no longer be marked as sensitive",
            "      # after applying this change.",
            "      ~ nested_block {",
            "          # At least one attribute in this block is (or was) sensitive,",
            "          # so its contents will not be displayed.",
            "        }",
        ],
    );
}

// ---------------------------------------------------------------- replace reasons, read

#[test]
fn case20_tainted_replace() {
    let out = render_rc(
        Rc::new(r#"{"actions":["delete","create"],"before":{"id":"i-02ae66f368e8518a9","ami":"ami-SAME"},"after":{"id":null,"ami":"ami-SAME"},"after_unknown":{"id":true},"before_sensitive":{},"after_sensitive":{}}"#)
            .extra(r#""action_reason":"replace_because_tainted""#),
        BASIC,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example is tainted, so must be replaced",
            "-/+ resource \"test_instance\" \"example\" {",
            "      ~ id  = \"i-02ae66f368e8518a9\" -> (known after apply)",
            "        # (1 unchanged attribute hidden)",
            "    }",
        ],
    );
}

#[test]
fn case21_replace_by_request_create_before_destroy() {
    let out = render_rc(
        Rc::new(r#"{"actions":["create","delete"],"before":{},"after":{},"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#)
            .extra(r#""action_reason":"replace_by_request""#),
        EMPTY,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example will be replaced, as requested",
            "+/- resource \"test_instance\" \"example\" {}",
        ],
    );
}

#[test]
fn case21_replace_by_triggers() {
    let out = render_rc(
        Rc::new(r#"{"actions":["delete","create"],"before":{},"after":{},"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#)
            .extra(r#""action_reason":"replace_by_triggers""#),
        EMPTY,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example will be replaced due to changes in replace_triggered_by",
            "-/+ resource \"test_instance\" \"example\" {}",
        ],
    );
}

#[test]
fn case22_read_with_unknown_config() {
    let schema = r#"{"attributes":{"name":{"type":"string","optional":true}}}"#;
    let out = render_rc(
        Rc::new(r#"{"actions":["read"],"before":{"name":"name"},"after":{"name":"name"},"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#)
            .data()
            .extra(r#""action_reason":"read_because_config_unknown""#),
        schema,
    );
    assert_lines(
        &out,
        &[
            "  # data.test_instance.example will be read during apply",
            "  # (config refers to values not yet known)",
            " <= data \"test_instance\" \"example\" {",
            "        name = \"name\"",
            "    }",
        ],
    );
}

#[test]
fn case23_identifying_attributes_shown() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true},"ami":{"type":"string","optional":true},"name":{"type":"string","optional":true},"tags":{"type":["map","string"],"optional":true},"foo":{"type":"string","optional":true},"bar":{"type":"string","optional":true}}}"#;
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","ami":"ami-BEFORE","name":"alice","tags":{"name":"bob"},"foo":"f","bar":"b"},"after":{"id":"i-02ae66f368e8518a9","ami":"ami-AFTER","name":"alice","tags":{"name":"bob"},"foo":"f","bar":"b"},"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#,
        schema,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example will be updated in-place",
            "  ~ resource \"test_instance\" \"example\" {",
            "      ~ ami  = \"ami-BEFORE\" -> \"ami-AFTER\"",
            "        id   = \"i-02ae66f368e8518a9\"",
            "        name = \"alice\"",
            "        tags = {",
            "            \"name\" = \"bob\"",
            "        }",
            "        # (2 unchanged attributes hidden)",
            "    }",
        ],
    );
}

// ---------------------------------------------------------------- collections

fn update_lists(before: &str, after: &str, after_unknown: &str) -> String {
    let change = format!(
        r#"{{"actions":["update"],"before":{{"id":"{ID}",{before}}},"after":{{"id":"{ID}",{after}}},"after_unknown":{{{after_unknown}}},"before_sensitive":{{}},"after_sensitive":{{}}}}"#
    );
    render(&change, LISTS)
}

fn wrap_update(body: &[&str]) -> Vec<String> {
    let mut v = vec![
        "  # test_instance.example will be updated in-place".to_string(),
        "  ~ resource \"test_instance\" \"example\" {".to_string(),
    ];
    v.extend(body.iter().map(|s| s.to_string()));
    v.push("    }".to_string());
    v
}

#[track_caller]
fn assert_update_body(actual: &str, body: &[&str]) {
    let v = wrap_update(body);
    let refs: Vec<&str> = v.iter().map(String::as_str).collect();
    assert_lines(actual, &refs);
}

#[test]
fn case29_list_insertion_with_context() {
    let out = update_lists(
        r#""list_field":["aaaa","bbbb","dddd","eeee","ffff"]"#,
        r#""list_field":["aaaa","bbbb","cccc","dddd","eeee","ffff"]"#,
        "",
    );
    assert_update_body(
        &out,
        &[
            "        id         = \"i-02ae66f368e8518a9\"",
            "      ~ list_field = [",
            "            # (1 unchanged element hidden)",
            "            \"bbbb\",",
            "          + \"cccc\",",
            "            \"dddd\",",
            "            # (2 unchanged elements hidden)",
            "        ]",
        ],
    );
}

#[test]
fn case30_list_deletion_with_context() {
    let out = update_lists(
        r#""list_field":["aaaa","bbbb","cccc","dddd","eeee"]"#,
        r#""list_field":["bbbb","dddd","eeee"]"#,
        "",
    );
    assert_update_body(
        &out,
        &[
            "        id         = \"i-02ae66f368e8518a9\"",
            "      ~ list_field = [",
            "          - \"aaaa\",",
            "            \"bbbb\",",
            "          - \"cccc\",",
            "            \"dddd\",",
            "            # (1 unchanged element hidden)",
            "        ]",
        ],
    );
}

#[test]
fn case32_list_element_becomes_unknown() {
    let out = update_lists(
        r#""list_field":["aaaa","bbbb","cccc"]"#,
        r#""list_field":["aaaa",null,"cccc"]"#,
        r#""list_field":[false,true,false]"#,
    );
    assert_update_body(
        &out,
        &[
            "        id         = \"i-02ae66f368e8518a9\"",
            "      ~ list_field = [",
            "            \"aaaa\",",
            "          ~ \"bbbb\" -> (known after apply),",
            "            \"cccc\",",
            "        ]",
        ],
    );
}

#[test]
fn list_explicit_null_element_update() {
    let out = update_lists(r#""list_num":[null]"#, r#""list_num":[1]"#, "");
    assert_update_body(
        &out,
        &[
            "        id       = \"i-02ae66f368e8518a9\"",
            "      ~ list_num = [",
            "          ~ null -> 1,",
            "        ]",
        ],
    );
}

#[test]
fn case33_set_insertion() {
    let out = update_lists(
        r#""set_field":["aaaa","cccc"]"#,
        r#""set_field":["aaaa","bbbb","cccc"]"#,
        "",
    );
    assert_update_body(
        &out,
        &[
            "        id        = \"i-02ae66f368e8518a9\"",
            "      ~ set_field = [",
            "          + \"bbbb\",",
            "            # (2 unchanged elements hidden)",
            "        ]",
        ],
    );
}

#[test]
fn case33_set_becomes_unknown() {
    let out = update_lists(
        r#""set_field":["aaaa","bbbb"]"#,
        r#""set_field":null"#,
        r#""set_field":true"#,
    );
    assert_update_body(
        &out,
        &[
            "        id        = \"i-02ae66f368e8518a9\"",
            "      ~ set_field = [",
            "          - \"aaaa\",",
            "          - \"bbbb\",",
            "        ] -> (known after apply)",
        ],
    );
}

#[test]
fn case34_map_key_deletion() {
    let out = update_lists(
        r#""map_field":{"a":"aaaa","b":"bbbb","c":"cccc"}"#,
        r#""map_field":{"b":"bbbb"}"#,
        "",
    );
    assert_update_body(
        &out,
        &[
            "        id        = \"i-02ae66f368e8518a9\"",
            "      ~ map_field = {",
            "          - \"a\" = \"aaaa\" -> null",
            "          - \"c\" = \"cccc\" -> null",
            "            # (1 unchanged element hidden)",
            "        }",
        ],
    );
}

// ---------------------------------------------------------------- nested attributes and blocks

#[test]
fn case35_nested_list_attribute_and_single_block_creation() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true},"disks":{"nested_type":{"nesting_mode":"list","attributes":{"mount_point":{"type":"string","optional":true},"size":{"type":"string","optional":true}}},"optional":true}},"block_types":{"root_block_device":{"nesting_mode":"single","block":{"attributes":{"volume_type":{"type":"string","optional":true}}}}}}"#;
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","disks":[],"root_block_device":null},"after":{"id":"i-02ae66f368e8518a9","disks":[{"mount_point":"/var/diska","size":"50GB"}],"root_block_device":{"volume_type":null}},"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#,
        schema,
    );
    assert_update_body(
        &out,
        &[
            "      ~ disks = [",
            "          + {",
            "              + mount_point = \"/var/diska\"",
            "              + size        = \"50GB\"",
            "            },",
            "        ]",
            "        id    = \"i-02ae66f368e8518a9\"",
            "",
            "      + root_block_device {}",
        ],
    );
}

#[test]
fn case37_nested_single_attribute_and_block_deleted() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true},"disk":{"nested_type":{"nesting_mode":"single","attributes":{"mount_point":{"type":"string","optional":true},"size":{"type":"string","optional":true}}},"optional":true}},"block_types":{"root_block_device":{"nesting_mode":"list","block":{"attributes":{"volume_type":{"type":"string","optional":true}}}}}}"#;
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","disk":{"mount_point":"/var/diska","size":"50GB"},"root_block_device":[{"volume_type":"gp2"}]},"after":{"id":"i-02ae66f368e8518a9","disk":null,"root_block_device":[]},"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#,
        schema,
    );
    assert_update_body(
        &out,
        &[
            "      - disk = {",
            "          - mount_point = \"/var/diska\" -> null",
            "          - size        = \"50GB\" -> null",
            "        } -> null",
            "        id   = \"i-02ae66f368e8518a9\"",
            "",
            "      - root_block_device {",
            "          - volume_type = \"gp2\" -> null",
            "        }",
        ],
    );
}

#[test]
fn case38_unknown_list_block() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true}},"block_types":{"root_block_device":{"nesting_mode":"list","block":{"attributes":{"volume_type":{"type":"string","optional":true},"new_field":{"type":"string","optional":true}}}}}}"#;
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","root_block_device":[{"volume_type":"gp2","new_field":"new_value"}]},"after":{"id":"i-02ae66f368e8518a9","root_block_device":null},"after_unknown":{"root_block_device":true},"before_sensitive":{},"after_sensitive":{}}"#,
        schema,
    );
    assert_contains(
        &out,
        &[
            "      ~ root_block_device (known after apply)",
            "      - root_block_device {",
            "          - new_field   = \"new_value\" -> null",
            "          - volume_type = \"gp2\" -> null",
            "        }",
        ],
    );
}

// ---------------------------------------------------------------- write-only

const WO: &str = r#"{"attributes":{"id":{"type":"string","computed":true},"ami":{"type":"string","optional":true},"write_only":{"type":"string","optional":true,"write_only":true}}}"#;

#[test]
fn case41_write_only_on_create() {
    let out = render(
        r#"{"actions":["create"],"before":null,"after":{"id":null,"ami":null,"write_only":null},"after_unknown":{"id":true},"before_sensitive":false,"after_sensitive":{}}"#,
        WO,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example will be created",
            "  + resource \"test_instance\" \"example\" {",
            "      + id         = (known after apply)",
            "      + write_only = (write-only attribute)",
            "    }",
        ],
    );
}

#[test]
fn case41_write_only_on_update_hidden() {
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","ami":"ami-BEFORE","write_only":null},"after":{"id":"i-02ae66f368e8518a9","ami":"ami-AFTER","write_only":null},"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#,
        WO,
    );
    assert_update_body(
        &out,
        &[
            "      ~ ami        = \"ami-BEFORE\" -> \"ami-AFTER\"",
            "        id         = \"i-02ae66f368e8518a9\"",
            "        # (1 unchanged attribute hidden)",
        ],
    );
}

// ---------------------------------------------------------------- moved / import

const THREE: &str = r#"{"attributes":{"id":{"type":"string","computed":true},"ami":{"type":"string","optional":true},"foo":{"type":"string","optional":true}}}"#;

#[test]
fn case42_moved_only() {
    let out = render_rc(
        Rc::new(r#"{"actions":["no-op"],"before":{"id":"12345","ami":"a","foo":"b"},"after":{"id":"12345","ami":"a","foo":"b"},"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#)
            .extra(r#""previous_address":"test_instance.previous""#),
        THREE,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.previous has moved to test_instance.example",
            "    resource \"test_instance\" \"example\" {",
            "        id  = \"12345\"",
            "        # (2 unchanged attributes hidden)",
            "    }",
        ],
    );
}

#[test]
fn case43_moved_and_updated() {
    let out = render_rc(
        Rc::new(r#"{"actions":["update"],"before":{"id":"12345","ami":"a","foo":"b"},"after":{"id":"12345","ami":"c","foo":"b"},"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#)
            .extra(r#""previous_address":"test_instance.previous""#),
        THREE,
    );
    assert_contains(
        &out,
        &[
            "  # test_instance.example will be updated in-place",
            "  # (moved from test_instance.previous)",
            "  ~ resource \"test_instance\" \"example\" {",
        ],
    );
}

#[test]
fn case44_import_only() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true},"value":{"type":"string","optional":true}}}"#;
    let text = full_text(
        Rc::new(
            r#"{"actions":["no-op"],"before":{"id":"1D5F","value":"Hello, World!"},"after":{"id":"1D5F","value":"Hello, World!"},"after_unknown":{},"before_sensitive":{},"after_sensitive":{},"importing":{"id":"1D5F"}}"#,
        ),
        schema,
    );
    assert_lines(
        &block_of(&text),
        &[
            "  # test_instance.example will be imported",
            "    resource \"test_instance\" \"example\" {",
            "        id    = \"1D5F\"",
            "        value = \"Hello, World!\"",
            "    }",
        ],
    );
    assert!(
        text.lines()
            .any(|l| l == "Plan: 1 to import, 0 to add, 0 to change, 0 to destroy."),
        "{text}"
    );
    assert!(!text.contains("Resource actions are indicated"), "{text}");
}

#[test]
fn case45_import_and_replace() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true},"value":{"type":"string","optional":true}}}"#;
    let text = full_text(
        Rc::new(
            r#"{"actions":["create","delete"],"before":{"id":"1D5F","value":"Hello, World!"},"after":{"id":"1D5F","value":"Goodbye"},"after_unknown":{},"before_sensitive":{},"after_sensitive":{},"importing":{"id":"1D5F"},"replace_paths":[["value"]]}"#,
        ),
        schema,
    );
    assert_contains(
        &text,
        &[
            "  # test_instance.example must be replaced",
            "  # (imported from \"1D5F\")",
            "  # Warning: this will destroy the imported resource",
            "+/- resource \"test_instance\" \"example\" {",
        ],
    );
    assert!(
        text.lines()
            .any(|l| l == "Plan: 1 to import, 1 to add, 0 to change, 1 to destroy."),
        "{text}"
    );
    assert!(
        text.contains("+/- create replacement and then destroy"),
        "{text}"
    );
}

// ---------------------------------------------------------------- delete reasons

fn delete_reason(address: &str, extra: &str) -> String {
    render_rc(
        Rc::new(r#"{"actions":["delete"],"before":{},"after":null,"after_unknown":{},"before_sensitive":{},"after_sensitive":false}"#)
            .address(address)
            .extra(extra),
        EMPTY,
    )
}

#[test]
fn case46_delete_because_each_key() {
    let out = delete_reason(
        "test_instance.example[\"boop\"]",
        r#""index":"boop","action_reason":"delete_because_each_key""#,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example[\"boop\"] will be destroyed",
            "  # (because key [\"boop\"] is not in for_each map)",
            "  - resource \"test_instance\" \"example\" {}",
        ],
    );
}

#[test]
fn case46_delete_because_count_index() {
    let out = delete_reason(
        "test_instance.example[1]",
        r#""index":1,"action_reason":"delete_because_count_index""#,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example[1] will be destroyed",
            "  # (because index [1] is out of range for count)",
            "  - resource \"test_instance\" \"example\" {}",
        ],
    );
}

#[test]
fn case46_delete_because_no_resource_config() {
    let out = delete_reason(
        "module.foo.test_instance.example",
        r#""module_address":"module.foo","action_reason":"delete_because_no_resource_config""#,
    );
    assert_lines(
        &out,
        &[
            "  # module.foo.test_instance.example will be destroyed",
            "  # (because test_instance.example is not in configuration)",
            "  - resource \"test_instance\" \"example\" {}",
        ],
    );
}

#[test]
fn case46_delete_because_no_module() {
    let out = delete_reason(
        "module.foo.test_instance.example",
        r#""module_address":"module.foo","action_reason":"delete_because_no_module""#,
    );
    assert_lines(
        &out,
        &[
            "  # module.foo.test_instance.example will be destroyed",
            "  # (because module.foo is not in configuration)",
            "  - resource \"test_instance\" \"example\" {}",
        ],
    );
}

#[test]
fn case46_delete_because_no_move_target() {
    let out = delete_reason(
        "test_instance.example",
        r#""previous_address":"test_instance.old","action_reason":"delete_because_no_move_target""#,
    );
    assert_contains(
        &out,
        &[
            "  # test_instance.example will be destroyed",
            "  # (because test_instance.old was moved to test_instance.example, which is not in configuration)",
        ],
    );
    assert!(
        out.ends_with("  - resource \"test_instance\" \"example\" {}"),
        "{out}"
    );
}

#[test]
fn case46_delete_because_wrong_repetition() {
    let cases = [
        (
            "test_instance.example",
            r#""action_reason":"delete_because_wrong_repetition""#,
            "  # (because resource uses count or for_each)",
        ),
        (
            "test_instance.example[0]",
            r#""index":0,"action_reason":"delete_because_wrong_repetition""#,
            "  # (because resource does not use count)",
        ),
        (
            "test_instance.example[\"a\"]",
            r#""index":"a","action_reason":"delete_because_wrong_repetition""#,
            "  # (because resource does not use for_each)",
        ),
    ];
    for (address, extra, reason) in cases {
        let out = delete_reason(address, extra);
        let header = format!("  # {address} will be destroyed");
        assert_lines(
            &out,
            &[
                header.as_str(),
                reason,
                "  - resource \"test_instance\" \"example\" {}",
            ],
        );
    }
}

// ---------------------------------------------------------------- more rules

#[test]
fn case03_object_with_non_identifier_key() {
    let schema = r#"{"attributes":{"object":{"type":["object",{"quoted:key":"string","unquoted":"string"}],"optional":true}}}"#;
    let out = render(
        r#"{"actions":["create"],"before":null,"after":{"object":{"quoted:key":"some-value","unquoted":"value"}},"after_unknown":{},"before_sensitive":false,"after_sensitive":{}}"#,
        schema,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example will be created",
            "  + resource \"test_instance\" \"example\" {",
            "      + object = {",
            "          + \"quoted:key\" = \"some-value\"",
            "          + unquoted     = \"value\"",
            "        }",
            "    }",
        ],
    );
}

fn update_strings(before: &str, after: &str) -> String {
    let change = format!(
        r#"{{"actions":["update"],"before":{{"id":"{ID}",{before}}},"after":{{"id":"{ID}",{after}}},"after_unknown":{{}},"before_sensitive":{{}},"after_sensitive":{{}}}}"#
    );
    render(&change, STRINGS)
}

#[test]
fn case26_json_array_element_removed() {
    let out = update_strings(
        r#""json_field":"[\"first\",\"second\",\"third\"]""#,
        r#""json_field":"[\"first\",\"second\"]""#,
    );
    assert_update_body(
        &out,
        &[
            "        id         = \"i-02ae66f368e8518a9\"",
            "      ~ json_field = jsonencode(",
            "          ~ [",
            "                # (1 unchanged element hidden)",
            "                \"second\",",
            "              - \"third\",",
            "            ]",
            "        )",
        ],
    );
}

#[test]
fn case28_json_object_to_array() {
    let out = update_strings(
        r#""json_field":"{\"a\":\"aaa\"}""#,
        r#""json_field":"[\"aaa\"]""#,
    );
    assert_update_body(
        &out,
        &[
            "        id         = \"i-02ae66f368e8518a9\"",
            "      ~ json_field = jsonencode(",
            "          ~ {",
            "              - a = \"aaa\"",
            "            } -> [",
            "              + \"aaa\",",
            "            ]",
            "        )",
        ],
    );
}

#[test]
fn case49_not_json_string_is_quoted() {
    let out = render(
        r#"{"actions":["create"],"before":null,"after":{"id":"x","json_field":"[\"hello\"] and some more"},"after_unknown":{},"before_sensitive":false,"after_sensitive":{}}"#,
        STRINGS,
    );
    assert_contains(
        &out,
        &["      + json_field = \"[\\\"hello\\\"] and some more\""],
    );
}

#[test]
fn single_line_to_multi_line_uses_heredoc_diff() {
    let out = update_strings(
        r#""more_lines":"hello world""#,
        r#""more_lines":"hello\nworld""#,
    );
    assert_update_body(
        &out,
        &[
            "        id         = \"i-02ae66f368e8518a9\"",
            "      ~ more_lines = <<-EOT",
            "          - hello world",
            "          + hello",
            "          + world",
            "        EOT",
        ],
    );
}

#[test]
fn multiline_delete_ends_with_eot_null() {
    let out = render(
        r#"{"actions":["delete"],"before":{"id":"i-02ae66f368e8518a9","more_lines":"original\nnew line","json_field":null},"after":null,"after_unknown":{},"before_sensitive":{},"after_sensitive":false}"#,
        STRINGS,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example will be destroyed",
            "  - resource \"test_instance\" \"example\" {",
            "      - id         = \"i-02ae66f368e8518a9\" -> null",
            "      - more_lines = <<-EOT",
            "            original",
            "            new line",
            "        EOT -> null",
            "    }",
        ],
    );
}

#[test]
fn case31_equal_length_list_pairs_by_index() {
    let out = update_lists(
        r#""list_field":["a","b","c"]"#,
        r#""list_field":["a","x","y"]"#,
        "",
    );
    assert_update_body(
        &out,
        &[
            "        id         = \"i-02ae66f368e8518a9\"",
            "      ~ list_field = [",
            "            \"a\",",
            "          ~ \"b\" -> \"x\",",
            "          ~ \"c\" -> \"y\",",
            "        ]",
        ],
    );
}

#[test]
fn empty_list_deleted_and_created() {
    let out = update_lists(
        r#""list_field":[],"set_field":null"#,
        r#""list_field":null,"set_field":[]"#,
        "",
    );
    assert_update_body(
        &out,
        &[
            "        id         = \"i-02ae66f368e8518a9\"",
            "      - list_field = [] -> null",
            "      + set_field  = []",
        ],
    );
}

#[test]
fn whole_map_deleted_no_element_null_suffix() {
    let out = update_lists(r#""map_field":{"a":"aaaa"}"#, r#""map_field":null"#, "");
    assert_update_body(
        &out,
        &[
            "        id        = \"i-02ae66f368e8518a9\"",
            "      - map_field = {",
            "          - \"a\" = \"aaaa\"",
            "        } -> null",
        ],
    );
}

#[test]
fn sensitive_list_element_on_create() {
    let out = render(
        r#"{"actions":["create"],"before":null,"after":{"id":"x","list_field":["a","secret-value"]},"after_unknown":{},"before_sensitive":false,"after_sensitive":{"list_field":[false,true]}}"#,
        LISTS,
    );
    assert_contains(
        &out,
        &[
            "      + list_field = [",
            "          + \"a\",",
            "          + (sensitive value),",
            "        ]",
        ],
    );
    assert!(!out.contains("secret-value"), "{out}");
}

#[test]
fn replace_on_unknown_value_suffix_at_end() {
    let out = render(
        r#"{"actions":["delete","create"],"before":{"id":"i-02ae66f368e8518a9","ami":"ami-BEFORE"},"after":{"id":"i-02ae66f368e8518a9","ami":null},"after_unknown":{"ami":true},"before_sensitive":{},"after_sensitive":{},"replace_paths":[["ami"]]}"#,
        BASIC,
    );
    assert_contains(
        &out,
        &["      ~ ami = \"ami-BEFORE\" -> (known after apply) # forces replacement"],
    );
}

#[test]
fn replace_path_empty_marks_resource_block() {
    let out = render(
        r#"{"actions":["delete","create"],"before":{"id":"i-02ae66f368e8518a9","ami":"ami-SAME"},"after":{"id":"i-02ae66f368e8518a9","ami":"ami-SAME"},"after_unknown":{},"before_sensitive":{},"after_sensitive":{},"replace_paths":[[]]}"#,
        BASIC,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example must be replaced",
            "-/+ resource \"test_instance\" \"example\" { # forces replacement",
            "        id  = \"i-02ae66f368e8518a9\"",
            "        # (1 unchanged attribute hidden)",
            "    }",
        ],
    );
}

#[test]
fn case36_nested_set_replacement_pushed_to_elements() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true},"disks":{"nested_type":{"nesting_mode":"set","attributes":{"mount_point":{"type":"string","optional":true},"size":{"type":"string","optional":true}}},"optional":true}}}"#;
    let out = render(
        r#"{"actions":["delete","create"],"before":{"id":"i-02ae66f368e8518a9","disks":[{"mount_point":"/a","size":"1"}]},"after":{"id":"i-02ae66f368e8518a9","disks":[{"mount_point":"/b","size":"1"}]},"after_unknown":{},"before_sensitive":{},"after_sensitive":{},"replace_paths":[["disks"]]}"#,
        schema,
    );
    assert!(out.contains("\n      ~ disks = [\n"), "{out}");
    assert!(
        out.contains("\n          - { # forces replacement\n"),
        "{out}"
    );
    assert!(
        out.contains("\n          + { # forces replacement\n"),
        "{out}"
    );
    assert!(!out.contains("[ # forces replacement"), "{out}");
}

#[test]
fn case36_set_block_replacement_pushed_to_blocks() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true}},"block_types":{"root_block_device":{"nesting_mode":"set","block":{"attributes":{"volume_type":{"type":"string","optional":true}}}}}}"#;
    let out = render(
        r#"{"actions":["delete","create"],"before":{"id":"i-02ae66f368e8518a9","root_block_device":[{"volume_type":"gp2"}]},"after":{"id":"i-02ae66f368e8518a9","root_block_device":[{"volume_type":"gp3"}]},"after_unknown":{},"before_sensitive":{},"after_sensitive":{},"replace_paths":[["root_block_device"]]}"#,
        schema,
    );
    assert_contains(
        &out,
        &[
            "      - root_block_device { # forces replacement",
            "          - volume_type = \"gp2\" -> null",
            "        }",
            "      + root_block_device { # forces replacement",
            "          + volume_type = \"gp3\"",
            "        }",
        ],
    );
}

#[test]
fn nested_map_attribute_no_padding_and_commas() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true},"disks":{"nested_type":{"nesting_mode":"map","attributes":{"mount_point":{"type":"string","optional":true}}},"optional":true}}}"#;
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","disks":{"a":{"mount_point":"/a"}}},"after":{"id":"i-02ae66f368e8518a9","disks":{"a":{"mount_point":"/a"},"disk_b":{"mount_point":"/b"}}},"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#,
        schema,
    );
    assert_update_body(
        &out,
        &[
            "      ~ disks = {",
            "          + \"disk_b\" = {",
            "              + mount_point = \"/b\"",
            "            },",
            "            # (1 unchanged element hidden)",
            "        }",
            "        id    = \"i-02ae66f368e8518a9\"",
        ],
    );
}

#[test]
fn case39_map_blocks() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true}},"block_types":{"root_block_device":{"nesting_mode":"map","block":{"attributes":{"volume_type":{"type":"string","optional":true}}}}}}"#;
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","root_block_device":{"a":{"volume_type":"gp2"}}},"after":{"id":"i-02ae66f368e8518a9","root_block_device":{"a":{"volume_type":"gp2"},"b":{"volume_type":"gp3"}}},"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#,
        schema,
    );
    assert_update_body(
        &out,
        &[
            "        id = \"i-02ae66f368e8518a9\"",
            "",
            "      + root_block_device \"b\" {",
            "          + volume_type = \"gp3\"",
            "        }",
            "",
            "        # (1 unchanged block hidden)",
        ],
    );
}

fn outputs_text(output_changes: &str) -> String {
    let plan = format!(r#"{{"format_version":"1.2","output_changes":{output_changes}}}"#);
    let plan = planmark::plan::parse_plan("test.json", plan.as_bytes()).unwrap();
    let diff = planmark::differ::diff_plan("test.json", &plan, None, None).unwrap();
    planmark::render::text::render_plan(&diff)
}

#[test]
fn case48_output_create() {
    let text = outputs_text(
        r#"{"foo":{"actions":["create"],"before":null,"after":"bar","after_unknown":false,"before_sensitive":false,"after_sensitive":false}}"#,
    );
    assert!(text.lines().any(|l| l == "Changes to Outputs:"), "{text}");
    assert!(text.lines().any(|l| l == "  + foo = \"bar\""), "{text}");
}

#[test]
fn case48_several_outputs() {
    let text = outputs_text(
        r#"{"a":{"actions":["update"],"before":1,"after":2,"after_unknown":false,"before_sensitive":false,"after_sensitive":false},"b":{"actions":["update"],"before":"x","after":"y","after_unknown":false,"before_sensitive":true,"after_sensitive":true},"c":{"actions":["update"],"before":false,"after":true,"after_unknown":false,"before_sensitive":false,"after_sensitive":false}}"#,
    );
    assert!(
        text.contains("  ~ a = 1 -> 2\n  ~ b = (sensitive value)\n  ~ c = false -> true\n"),
        "{text}"
    );
}

#[test]
fn map_key_padding_counts_hidden_keys() {
    let out = update_lists(
        r#""map_field":{"a":"1","longkey":"2"}"#,
        r#""map_field":{"a":"x","longkey":"2"}"#,
        "",
    );
    assert_contains(
        &out,
        &[
            "      ~ map_field = {",
            "          ~ \"a\"       = \"1\" -> \"x\"",
            "            # (1 unchanged element hidden)",
            "        }",
        ],
    );
}

#[test]
fn nested_list_attribute_pairs_by_index_without_context() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true},"disks":{"nested_type":{"nesting_mode":"list","attributes":{"mount_point":{"type":"string","optional":true}}},"optional":true}}}"#;
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","disks":[{"mount_point":"/a"},{"mount_point":"/b"},{"mount_point":"/c"}]},"after":{"id":"i-02ae66f368e8518a9","disks":[{"mount_point":"/a"},{"mount_point":"/x"},{"mount_point":"/c"}]},"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#,
        schema,
    );
    assert_update_body(
        &out,
        &[
            "      ~ disks = [",
            "          ~ {",
            "              ~ mount_point = \"/b\" -> \"/x\"",
            "            },",
            "            # (2 unchanged elements hidden)",
            "        ]",
            "        id    = \"i-02ae66f368e8518a9\"",
        ],
    );
}

#[test]
fn unknown_single_block_on_update() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true}},"block_types":{"root_block_device":{"nesting_mode":"single","block":{"attributes":{"volume_type":{"type":"string","optional":true}}}}}}"#;
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","root_block_device":{"volume_type":"gp2"}},"after":{"id":"i-02ae66f368e8518a9","root_block_device":null},"after_unknown":{"root_block_device":true},"before_sensitive":{},"after_sensitive":{}}"#,
        schema,
    );
    assert_contains(
        &out,
        &[
            "      ~ root_block_device {",
            "          ~ volume_type = \"gp2\" -> (known after apply)",
            "        } -> (known after apply)",
        ],
    );
}

#[test]
fn unknown_list_block_on_create() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true}},"block_types":{"root_block_device":{"nesting_mode":"list","block":{"attributes":{"volume_type":{"type":"string","optional":true}}}}}}"#;
    let out = render(
        r#"{"actions":["create"],"before":null,"after":{"id":null,"root_block_device":null},"after_unknown":{"id":true,"root_block_device":true},"before_sensitive":false,"after_sensitive":{}}"#,
        schema,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example will be created",
            "  + resource \"test_instance\" \"example\" {",
            "      + id = (known after apply)",
            "",
            "      + root_block_device (known after apply)",
            "    }",
        ],
    );
}

#[test]
fn sensitive_block_on_create() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true}},"block_types":{"nested_block":{"nesting_mode":"list","block":{"attributes":{"value":{"type":"string","optional":true}}}}}}"#;
    let out = render(
        r#"{"actions":["create"],"before":null,"after":{"id":"x","nested_block":[{"value":"hidden-thing"}]},"after_unknown":{},"before_sensitive":false,"after_sensitive":{"nested_block":[true]}}"#,
        schema,
    );
    assert_contains(
        &out,
        &[
            "      + nested_block {",
            "          # At least one attribute in this block is (or was) sensitive,",
            "          # so its contents will not be displayed.",
            "        }",
        ],
    );
    assert!(!out.contains("hidden-thing"), "{out}");
}

/// Terraform builds a block's write-only attributes from the *block's* change (its own
/// sensitivity and replace flags), not the attribute's entry, so a top-level write-only
/// attribute reads `(write-only attribute)` even when its mask entry is sensitive; only
/// nested objects consult the attribute's own entry (see case 41 nested test).
#[test]
fn sensitive_write_only_on_create() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true},"password":{"type":"string","optional":true,"sensitive":true,"write_only":true}}}"#;
    let out = render(
        r#"{"actions":["create"],"before":null,"after":{"id":null,"password":null},"after_unknown":{"id":true},"before_sensitive":false,"after_sensitive":{"password":true}}"#,
        schema,
    );
    assert_contains(&out, &["      + password = (write-only attribute)"]);
}

#[test]
fn heredoc_blank_line_keeps_indentation() {
    let out = render(
        r#"{"actions":["create"],"before":null,"after":{"id":"x","more_lines":"a\n\nb","json_field":null},"after_unknown":{},"before_sensitive":false,"after_sensitive":{}}"#,
        STRINGS,
    );
    assert_contains(
        &out,
        &[
            "      + more_lines = <<-EOT",
            "            a",
            "            ",
            "            b",
            "        EOT",
        ],
    );
}

#[test]
fn hidden_blocks_counter_plural() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true},"ami":{"type":"string","optional":true}},"block_types":{"ebs":{"nesting_mode":"list","block":{"attributes":{"size":{"type":"number","optional":true}}}}}}"#;
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","ami":"ami-BEFORE","ebs":[{"size":1},{"size":2}]},"after":{"id":"i-02ae66f368e8518a9","ami":"ami-AFTER","ebs":[{"size":1},{"size":2}]},"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#,
        schema,
    );
    assert_update_body(
        &out,
        &[
            "      ~ ami = \"ami-BEFORE\" -> \"ami-AFTER\"",
            "        id  = \"i-02ae66f368e8518a9\"",
            "",
            "        # (2 unchanged blocks hidden)",
        ],
    );
}

#[test]
fn case41_sensitive_write_only_in_nested_object() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true},"conn":{"nested_type":{"nesting_mode":"single","attributes":{"user":{"type":"string","optional":true},"write_only_set_password":{"type":"string","optional":true,"sensitive":true,"write_only":true}}},"optional":true}}}"#;
    let out = render(
        r#"{"actions":["create"],"before":null,"after":{"id":null,"conn":{"user":"admin","write_only_set_password":null}},"after_unknown":{"id":true},"before_sensitive":false,"after_sensitive":{"conn":{"write_only_set_password":true}}}"#,
        schema,
    );
    assert_contains(
        &out,
        &[
            "      + conn = {",
            "          + user                    = \"admin\"",
            "          + write_only_set_password = (sensitive, write-only attribute)",
            "        }",
        ],
    );
}

#[test]
fn write_only_on_delete_gets_null_suffix() {
    let out = render(
        r#"{"actions":["delete"],"before":{"id":"i-02ae66f368e8518a9","ami":null,"write_only":null},"after":null,"after_unknown":{},"before_sensitive":{},"after_sensitive":false}"#,
        WO,
    );
    assert_lines(
        &out,
        &[
            "  # test_instance.example will be destroyed",
            "  - resource \"test_instance\" \"example\" {",
            "      - id         = \"i-02ae66f368e8518a9\" -> null",
            "      - write_only = (write-only attribute) -> null",
            "    }",
        ],
    );
}

#[test]
fn plain_object_attribute_removed_has_no_null_suffix() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true},"obj":{"type":["object",{"a":"string","b":"string","c":"string"}],"optional":true}}}"#;
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","obj":{"a":"1","b":"2","c":"3"}},"after":{"id":"i-02ae66f368e8518a9","obj":{"a":null,"b":"2","c":"4"}},"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#,
        schema,
    );
    assert_update_body(
        &out,
        &[
            "        id  = \"i-02ae66f368e8518a9\"",
            "      ~ obj = {",
            "          - a = \"1\"",
            "          ~ c = \"3\" -> \"4\"",
            "            # (1 unchanged attribute hidden)",
            "        }",
        ],
    );
}

#[test]
fn nested_list_attribute_deleted() {
    let schema = r#"{"attributes":{"id":{"type":"string","computed":true},"disks":{"nested_type":{"nesting_mode":"list","attributes":{"mount_point":{"type":"string","optional":true}}},"optional":true}}}"#;
    let out = render(
        r#"{"actions":["update"],"before":{"id":"i-02ae66f368e8518a9","disks":[{"mount_point":"/a"}]},"after":{"id":"i-02ae66f368e8518a9","disks":null},"after_unknown":{},"before_sensitive":{},"after_sensitive":{}}"#,
        schema,
    );
    assert_update_body(
        &out,
        &[
            "      - disks = [",
            "          - {",
            "              - mount_point = \"/a\" -> null",
            "            },",
            "        ] -> null",
            "        id    = \"i-02ae66f368e8518a9\"",
        ],
    );
}

#[test]
fn sensitive_map_value_on_create() {
    let out = render(
        r#"{"actions":["create"],"before":null,"after":{"id":"x","map_field":{"a":"y","dinner":"pizza-secret"}},"after_unknown":{},"before_sensitive":false,"after_sensitive":{"map_field":{"dinner":true}}}"#,
        LISTS,
    );
    assert_contains(
        &out,
        &[
            "      + map_field = {",
            "          + \"a\"      = \"y\"",
            "          + \"dinner\" = (sensitive value)",
            "        }",
        ],
    );
    assert!(!out.contains("pizza-secret"), "{out}");
}
