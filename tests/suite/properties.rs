//! Property tests over generated plans: random attribute trees with null, unknown and
//! sensitive parts in every combination, hostile strings in keys, values, names and
//! `replace_paths`, every action, outputs and (sensitive) variables.
//!
//! For each plan, through the library (no process per case):
//! - parsing, diffing and rendering never panic and never fail;
//! - the comment is well-formed as `render::check` defines it, has no live mention, issue
//!   link or autolink, and fits the size limit;
//! - no value the plan marks sensitive (each one a unique `SECRET-<n>-canary`) appears in
//!   the text, Markdown, HTML preview or JSON context;
//! - output is deterministic: rendering twice, or the same plan with every object's keys
//!   in reverse order, gives the same text, Markdown and context;
//! - numbers are printed exactly as written.
//!
//! 64 cases by default (`PROPTEST_CASES` overrides).

use std::collections::HashSet;

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{Config, FileFailurePersistence};

use planmark::marker::{marker_line, MarkerData};
use planmark::render::check::{check_markdown, live_references};
use planmark::render::markdown::budget::measure;
use planmark::render::markdown::{render_comment, Meta, NamedPlan, TemplateSet};

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

/// Numbers Terraform may write: beyond 64 bits, beyond f64, trailing zeros, negative zero.
const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "7",
    "-42",
    "1.50",
    "3.14159",
    "1e400",
    "-0.1e-400",
    "1E+30",
    "123456789012345678901234567890",
    "18446744073709551616",
    "-9223372036854775809",
];

/// Pieces of hostile strings: Markdown, HTML, mentions, commit SHAs, indented block
/// syntax, template syntax, invisible and bidirectional characters, line breaks.
const HOSTILE: &[&str] = &[
    "`",
    "```",
    "````",
    "~~~",
    "<script>alert(1)</script>",
    "<!--",
    "-->",
    "<!-- planmark:v1 {\"key\":\"x\"} -->",
    "<details>",
    "</details>",
    "<summary>",
    "</summary>",
    "</code>",
    "<b>",
    "<img src=x onerror=alert(1)>",
    "@user",
    "@org/team",
    "#123",
    "GH-1",
    "https://evil.example/x",
    "www.evil.example",
    "user@example.com",
    "{{x}}",
    "{{> footer}}",
    "{{{marker}}}",
    "\u{0}",
    "\u{1b}[31m",
    "\u{202E}",
    "\u{2066}",
    "\u{200B}",
    "\u{FEFF}",
    "\u{2028}",
    "\r\n",
    "\n",
    "\r",
    "\t",
    "| a | b |",
    "\\",
    "*_~^",
    "[x](javascript:alert(1))",
    "![i](https://evil.example/i.png)",
    "&amp;",
    "&#64;",
    "- item",
    "1. item",
    "> [!CAUTION]",
    "# heading",
    "---",
    "    indented",
    "  - item",
    "\t1. item",
    "Plan: 0 to add, 0 to change, 0 to destroy.",
    "a5c3785",
    "A5C3785ed8D6a35868bc169f07e40e889087fD2E",
    "=",
    "é",
    "日本語",
    "😀",
    "\u{1F1FA}\u{1F1F8}",
    "e\u{301}",
];

fn short_string() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        3 => select(HOSTILE).prop_map(String::from),
        2 => "[a-z0-9 ._-]{0,8}",
        1 => (1usize..12).prop_map(|n| "`".repeat(n)),
    ];
    prop_oneof![
        5 => vec(piece, 0..6).prop_map(|p| p.concat()),
        3 => "[a-z_][a-z0-9_]{0,10}",
        1 => "\\PC{0,16}",
        1 => any::<String>(),
    ]
}

/// A hostile string; now and then a very long one (thousands of backticks or mentions).
fn hostile_string() -> impl Strategy<Value = String> {
    let long = (
        select(&["`", "a", "@x ", "<!--", "é\u{200B}", "```\n", "#1 "][..]),
        500usize..20_000,
    )
        .prop_map(|(unit, n)| unit.repeat(n));
    prop_oneof![60 => short_string(), 1 => long]
        // Only canaries may contain the marker the leak check looks for.
        .prop_map(|s| s.replace("SECRET", "secret"))
}

#[derive(Debug, Clone)]
enum Leaf {
    Null,
    Bool(bool),
    Num(&'static str),
    Str(String),
}

fn leaf() -> impl Strategy<Value = Leaf> {
    prop_oneof![
        1 => Just(Leaf::Null),
        1 => any::<bool>().prop_map(Leaf::Bool),
        2 => select(NUMBERS).prop_map(Leaf::Num),
        5 => hostile_string().prop_map(Leaf::Str),
    ]
}

/// Which sides of a change hold an object member or list element.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Presence {
    Both,
    BeforeOnly,
    AfterOnly,
}

fn presence() -> impl Strategy<Value = Presence> {
    prop_oneof![
        6 => Just(Presence::Both),
        1 => Just(Presence::BeforeOnly),
        1 => Just(Presence::AfterOnly),
    ]
}

/// Sensitivity per side and unknown-after for one node.
#[derive(Debug, Clone, Copy)]
struct Flags {
    sensitive_before: bool,
    sensitive_after: bool,
    unknown: bool,
}

fn flags() -> impl Strategy<Value = Flags> {
    (
        prop::bool::weighted(0.12),
        prop::bool::weighted(0.12),
        prop::bool::weighted(0.08),
    )
        .prop_map(|(sensitive_before, sensitive_after, unknown)| Flags {
            sensitive_before,
            sensitive_after,
            unknown,
        })
}

/// One node of an attribute tree, describing both sides of a change at once.
#[derive(Debug, Clone)]
enum Spec {
    Leaf(Leaf, Leaf, Flags),
    Obj(Vec<(String, Presence, Spec)>, Flags),
    Arr(Vec<(Presence, Spec)>, Flags),
}

/// Keeps the first member of each key (generated keys may repeat).
fn unique_keys<T>(members: Vec<(String, Presence, T)>) -> Vec<(String, Presence, T)> {
    let mut seen = HashSet::new();
    members
        .into_iter()
        .filter(|(k, _, _)| seen.insert(k.clone()))
        .collect()
}

fn spec() -> impl Strategy<Value = Spec> {
    let leaf_spec = (leaf(), leaf(), flags()).prop_map(|(b, a, f)| Spec::Leaf(b, a, f));
    leaf_spec.prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            (
                vec((short_string(), presence(), inner.clone()), 0..5),
                flags()
            )
                .prop_map(|(m, f)| Spec::Obj(unique_keys(m), f)),
            (vec((presence(), inner), 0..5), flags()).prop_map(|(items, f)| Spec::Arr(items, f)),
        ]
    })
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Side {
    Before,
    After,
}

/// What projecting a [`Spec`] onto one side found: canaries planted, numbers shown.
#[derive(Default)]
struct Planted {
    canaries: Vec<String>,
    numbers: Vec<&'static str>,
}

impl Planted {
    fn canary(&mut self) -> String {
        let canary = format!("SECRET-{}-canary", self.canaries.len());
        self.canaries.push(canary.clone());
        canary
    }
}

/// One side of `spec`: (value, sensitivity mask, unknown mask). Everything under a
/// sensitive mask, object keys included, is replaced by a fresh canary.
fn project(spec: &Spec, side: Side, hidden: bool, planted: &mut Planted) -> (Json, Json, Json) {
    let f = match spec {
        Spec::Leaf(_, _, f) | Spec::Obj(_, f) | Spec::Arr(_, f) => *f,
    };
    let sensitive = match side {
        Side::Before => f.sensitive_before,
        Side::After => f.sensitive_after,
    };
    let hidden_here = hidden || sensitive;
    // Masks below a sensitive node are implied by it.
    let own_mask = |children: Json| {
        if sensitive {
            Json::Bool(true)
        } else if hidden {
            Json::Bool(false)
        } else {
            children
        }
    };
    if side == Side::After && f.unknown {
        return (Json::Null, Json::Bool(sensitive), Json::Bool(true));
    }
    match spec {
        Spec::Leaf(before, after, _) => {
            let leaf = if side == Side::Before { before } else { after };
            let value = match leaf {
                Leaf::Null => Json::Null,
                _ if hidden_here => Json::Str(planted.canary()),
                Leaf::Bool(b) => Json::Bool(*b),
                Leaf::Num(n) => {
                    planted.numbers.push(n);
                    Json::Num(n.to_string())
                }
                Leaf::Str(s) => Json::Str(s.clone()),
            };
            (value, Json::Bool(sensitive), Json::Bool(false))
        }
        Spec::Obj(members, _) => {
            let (mut values, mut sens, mut unknown) = (Vec::new(), Vec::new(), Vec::new());
            for (key, presence, child) in members {
                if !present(*presence, side) {
                    continue;
                }
                let key = if hidden_here {
                    planted.canary()
                } else {
                    key.clone()
                };
                let (v, s, u) = project(child, side, hidden_here, planted);
                values.push((key.clone(), v));
                if s != Json::Bool(false) {
                    sens.push((key.clone(), s));
                }
                if u != Json::Bool(false) {
                    unknown.push((key, u));
                }
            }
            (
                Json::Obj(values),
                own_mask(Json::Obj(sens)),
                Json::Obj(unknown),
            )
        }
        Spec::Arr(items, _) => {
            let (mut values, mut sens, mut unknown) = (Vec::new(), Vec::new(), Vec::new());
            for (presence, child) in items {
                if !present(*presence, side) {
                    continue;
                }
                let (v, s, u) = project(child, side, hidden_here, planted);
                values.push(v);
                sens.push(s);
                unknown.push(u);
            }
            (
                Json::Arr(values),
                own_mask(Json::Arr(sens)),
                Json::Arr(unknown),
            )
        }
    }
}

fn present(presence: Presence, side: Side) -> bool {
    match presence {
        Presence::Both => true,
        Presence::BeforeOnly => side == Side::Before,
        Presence::AfterOnly => side == Side::After,
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Action {
    Create,
    Update,
    Delete,
    DeleteThenCreate,
    CreateThenDelete,
    NoOp,
    Read,
}

impl Action {
    fn actions(self) -> Json {
        let names: &[&str] = match self {
            Action::Create => &["create"],
            Action::Update => &["update"],
            Action::Delete => &["delete"],
            Action::DeleteThenCreate => &["delete", "create"],
            Action::CreateThenDelete => &["create", "delete"],
            Action::NoOp => &["no-op"],
            Action::Read => &["read"],
        };
        Json::Arr(names.iter().map(|n| Json::str(n)).collect())
    }
}

/// One step of a replace path: an attribute of the resource, a key, an index.
#[derive(Debug, Clone)]
enum Step {
    Attribute(usize),
    Key(String),
    Index(u8),
}

#[derive(Debug, Clone)]
struct ResourceSpec {
    action: Action,
    name: String,
    index: Option<Result<u8, String>>,
    attributes: Vec<(String, Presence, Spec)>,
    replace_paths: Option<Vec<Vec<Step>>>,
    reason: Option<&'static str>,
    drift: bool,
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0usize..8).prop_map(Step::Attribute),
        short_string().prop_map(Step::Key),
        any::<u8>().prop_map(Step::Index),
    ]
}

fn resource() -> impl Strategy<Value = ResourceSpec> {
    let action = select(
        &[
            Action::Create,
            Action::Update,
            Action::Delete,
            Action::DeleteThenCreate,
            Action::CreateThenDelete,
            Action::NoOp,
            Action::Read,
        ][..],
    );
    let index = prop_oneof![
        2 => Just(None),
        1 => any::<u8>().prop_map(|i| Some(Ok(i))),
        1 => short_string().prop_map(|s| Some(Err(s))),
    ];
    let paths = proptest::option::of(vec(
        ((0usize..8).prop_map(Step::Attribute), vec(step(), 0..3)).prop_map(|(first, rest)| {
            let mut path = vec![first];
            path.extend(rest);
            path
        }),
        0..3,
    ));
    let reason = proptest::option::of(select(
        &[
            "replace_because_cannot_update",
            "replace_because_tainted",
            "replace_by_request",
            "delete_because_no_resource_config",
            "read_because_dependency_pending",
            "unheard_of_reason",
        ][..],
    ));
    (
        action,
        prop_oneof![3 => "[a-z][a-z0-9_]{0,8}", 1 => short_string()],
        index,
        vec((short_string(), presence(), spec()), 1..6),
        paths,
        reason,
        prop::bool::weighted(0.2),
    )
        .prop_map(
            |(action, name, index, attributes, replace_paths, reason, drift)| ResourceSpec {
                action,
                name,
                index,
                attributes: unique_keys(attributes),
                replace_paths,
                reason,
                drift,
            },
        )
}

#[derive(Debug, Clone)]
struct PlanSpec {
    version: &'static str,
    terraform_version: String,
    resources: Vec<ResourceSpec>,
    outputs: Vec<(String, Action, Spec)>,
    variables: Vec<(String, bool, Spec)>,
    max_chars: usize,
}

fn plan_spec() -> impl Strategy<Value = PlanSpec> {
    let output_action = select(&[Action::Create, Action::Update, Action::Delete, Action::NoOp][..]);
    (
        select(&["1.2", "1.0", "0.2"][..]),
        short_string(),
        vec(resource(), 0..6),
        vec((short_string(), output_action, spec()), 0..4),
        vec((short_string(), any::<bool>(), spec()), 0..3),
        select(&[2_000usize, 6_000, 65_536][..]),
    )
        .prop_map(
            |(version, terraform_version, resources, outputs, variables, max_chars)| {
                let mut seen = HashSet::new();
                let outputs = outputs
                    .into_iter()
                    .filter(|(name, _, _)| seen.insert(name.clone()))
                    .collect();
                let mut seen = HashSet::new();
                let variables = variables
                    .into_iter()
                    .filter(|(name, _, _)| seen.insert(name.clone()))
                    .collect();
                PlanSpec {
                    version,
                    terraform_version,
                    resources,
                    outputs,
                    variables,
                    max_chars,
                }
            },
        )
}

/// A built plan document and what was planted in it.
struct Built {
    doc: Json,
    canaries: Vec<String>,
    /// Numbers of created resources, which the text must show as written.
    created_numbers: Vec<&'static str>,
}

/// The change object for `spec` under `action` (masks and values per side).
fn change(action: Action, spec: &Spec, planted: &mut Planted) -> Vec<(&'static str, Json)> {
    let has_before = !matches!(action, Action::Create | Action::Read);
    let has_after = action != Action::Delete;
    let mut members = vec![("actions", action.actions())];
    let (before, before_sensitive) = if has_before {
        let (v, s, _) = project(spec, Side::Before, false, planted);
        (v, s)
    } else {
        (Json::Null, Json::Bool(false))
    };
    let (after, after_sensitive, after_unknown) = if !has_after {
        (Json::Null, Json::Bool(false), Json::obj(vec![]))
    } else if action == Action::NoOp {
        (before.clone(), before_sensitive.clone(), Json::obj(vec![]))
    } else {
        project(spec, Side::After, false, planted)
    };
    members.extend([
        ("before", before),
        ("after", after),
        ("after_unknown", after_unknown),
        ("before_sensitive", before_sensitive),
        ("after_sensitive", after_sensitive),
    ]);
    members
}

fn build(plan: &PlanSpec) -> Built {
    let mut planted = Planted::default();
    let mut created_numbers = Vec::new();
    let (mut changes, mut drift) = (Vec::new(), Vec::new());
    for (i, r) in plan.resources.iter().enumerate() {
        let (mode, type_) = if r.action == Action::Read {
            ("data", "null_data_source")
        } else {
            ("managed", "null_resource")
        };
        // A suffix keeps addresses unique whatever names were generated.
        let name = format!("{}{i}", r.name);
        let prefix = if mode == "data" { "data." } else { "" };
        let mut address = format!("{prefix}{type_}.{name}");
        let mut rc = vec![];
        match &r.index {
            Some(Ok(n)) => {
                address.push_str(&format!("[{n}]"));
                rc.push(("index", Json::Num(n.to_string())));
            }
            Some(Err(key)) => {
                address.push_str(&format!("[{}]", serde_json::to_string(key).unwrap()));
                rc.push(("index", Json::Str(key.clone())));
            }
            None => {}
        }
        let root = Spec::Obj(
            r.attributes.clone(),
            Flags {
                sensitive_before: false,
                sensitive_after: false,
                unknown: false,
            },
        );
        let numbers_before = planted.numbers.len();
        let mut members = change(r.action, &root, &mut planted);
        if r.action == Action::Create {
            created_numbers.extend_from_slice(&planted.numbers[numbers_before..]);
        }
        if let Some(paths) = &r.replace_paths {
            let names: Vec<&str> = r.attributes.iter().map(|(k, _, _)| k.as_str()).collect();
            let paths = paths
                .iter()
                .map(|path| {
                    Json::Arr(
                        path.iter()
                            .map(|step| match step {
                                Step::Attribute(i) => Json::str(names[i % names.len()]),
                                Step::Key(k) => Json::str(k),
                                Step::Index(i) => Json::Num(i.to_string()),
                            })
                            .collect(),
                    )
                })
                .collect();
            members.push(("replace_paths", Json::Arr(paths)));
        }
        rc.extend([
            ("address", Json::str(&address)),
            ("mode", Json::str(mode)),
            ("type", Json::str(type_)),
            ("name", Json::str(&name)),
            (
                "provider_name",
                Json::str("registry.terraform.io/hashicorp/null"),
            ),
            ("change", Json::obj(members)),
        ]);
        if let Some(reason) = r.reason {
            rc.push(("action_reason", Json::str(reason)));
        }
        let rc = Json::obj(rc);
        if r.drift && r.action == Action::Update {
            drift.push(rc.clone());
        }
        changes.push(rc);
    }
    let mut outputs = Vec::new();
    for (name, action, spec) in &plan.outputs {
        outputs.push((name.clone(), Json::obj(change(*action, spec, &mut planted))));
    }
    let (mut values, mut declarations) = (Vec::new(), Vec::new());
    for (name, sensitive, spec) in &plan.variables {
        let (value, _, _) = project(spec, Side::Before, *sensitive, &mut planted);
        values.push((name.clone(), Json::obj(vec![("value", value)])));
        let declaration = Json::obj(vec![("sensitive", Json::Bool(*sensitive))]);
        declarations.push((name.clone(), declaration));
    }
    let configuration = Json::obj(vec![(
        "root_module",
        Json::obj(vec![("variables", Json::Obj(declarations))]),
    )]);
    let doc = Json::obj(vec![
        ("format_version", Json::str(plan.version)),
        (
            "terraform_version",
            Json::Str(plan.terraform_version.clone()),
        ),
        ("variables", Json::Obj(values)),
        ("resource_changes", Json::Arr(changes)),
        ("resource_drift", Json::Arr(drift)),
        ("output_changes", Json::Obj(outputs)),
        ("configuration", configuration),
    ]);
    Built {
        doc,
        canaries: planted.canaries,
        created_numbers,
    }
}

// ---------------------------------------------------------------------------
// Rendering and properties
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
