//! The proptest strategies: value trees with null, unknown and sensitive masks, hostile
//! strings, resources and whole plans.

use super::*;

/// Numbers Terraform may write: beyond 64 bits, beyond f64, trailing zeros, negative zero.
pub(super) const NUMBERS: &[&str] = &[
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
pub(super) const HOSTILE: &[&str] = &[
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

pub(super) fn short_string() -> impl Strategy<Value = String> {
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
pub(super) fn hostile_string() -> impl Strategy<Value = String> {
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
pub(super) enum Leaf {
    Null,
    Bool(bool),
    Num(&'static str),
    Str(String),
}

pub(super) fn leaf() -> impl Strategy<Value = Leaf> {
    prop_oneof![
        1 => Just(Leaf::Null),
        1 => any::<bool>().prop_map(Leaf::Bool),
        2 => select(NUMBERS).prop_map(Leaf::Num),
        5 => hostile_string().prop_map(Leaf::Str),
    ]
}

/// Which sides of a change hold an object member or list element.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Presence {
    Both,
    BeforeOnly,
    AfterOnly,
}

pub(super) fn presence() -> impl Strategy<Value = Presence> {
    prop_oneof![
        6 => Just(Presence::Both),
        1 => Just(Presence::BeforeOnly),
        1 => Just(Presence::AfterOnly),
    ]
}

/// Sensitivity per side and unknown-after for one node.
#[derive(Debug, Clone, Copy)]
pub(super) struct Flags {
    pub(super) sensitive_before: bool,
    pub(super) sensitive_after: bool,
    pub(super) unknown: bool,
}

pub(super) fn flags() -> impl Strategy<Value = Flags> {
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
pub(super) enum Spec {
    Leaf(Leaf, Leaf, Flags),
    Obj(Vec<(String, Presence, Spec)>, Flags),
    Arr(Vec<(Presence, Spec)>, Flags),
}

/// Keeps the first member of each key (generated keys may repeat).
pub(super) fn unique_keys<T>(members: Vec<(String, Presence, T)>) -> Vec<(String, Presence, T)> {
    let mut seen = HashSet::new();
    members
        .into_iter()
        .filter(|(k, _, _)| seen.insert(k.clone()))
        .collect()
}

pub(super) fn spec() -> impl Strategy<Value = Spec> {
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
pub(super) enum Side {
    Before,
    After,
}

/// What projecting a [`Spec`] onto one side found: canaries planted, numbers shown.
#[derive(Default)]
pub(super) struct Planted {
    pub(super) canaries: Vec<String>,
    pub(super) numbers: Vec<&'static str>,
}

impl Planted {
    pub(super) fn canary(&mut self) -> String {
        let canary = format!("SECRET-{}-canary", self.canaries.len());
        self.canaries.push(canary.clone());
        canary
    }
}

/// One side of `spec`: (value, sensitivity mask, unknown mask). Everything under a
/// sensitive mask, object keys included, is replaced by a fresh canary.
pub(super) fn project(
    spec: &Spec,
    side: Side,
    hidden: bool,
    planted: &mut Planted,
) -> (Json, Json, Json) {
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

pub(super) fn present(presence: Presence, side: Side) -> bool {
    match presence {
        Presence::Both => true,
        Presence::BeforeOnly => side == Side::Before,
        Presence::AfterOnly => side == Side::After,
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Action {
    Create,
    Update,
    Delete,
    DeleteThenCreate,
    CreateThenDelete,
    NoOp,
    Read,
}

impl Action {
    pub(super) fn actions(self) -> Json {
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
pub(super) enum Step {
    Attribute(usize),
    Key(String),
    Index(u8),
}

#[derive(Debug, Clone)]
pub(super) struct ResourceSpec {
    pub(super) action: Action,
    pub(super) name: String,
    pub(super) index: Option<Result<u8, String>>,
    pub(super) attributes: Vec<(String, Presence, Spec)>,
    pub(super) replace_paths: Option<Vec<Vec<Step>>>,
    pub(super) reason: Option<&'static str>,
    pub(super) drift: bool,
}

pub(super) fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        (0usize..8).prop_map(Step::Attribute),
        short_string().prop_map(Step::Key),
        any::<u8>().prop_map(Step::Index),
    ]
}

pub(super) fn resource() -> impl Strategy<Value = ResourceSpec> {
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
pub(super) struct PlanSpec {
    pub(super) version: &'static str,
    pub(super) terraform_version: String,
    pub(super) resources: Vec<ResourceSpec>,
    pub(super) outputs: Vec<(String, Action, Spec)>,
    pub(super) variables: Vec<(String, bool, Spec)>,
    pub(super) max_chars: usize,
}

pub(super) fn plan_spec() -> impl Strategy<Value = PlanSpec> {
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
