//! Deterministic generator of realistic `terraform show -json` plans (format 1.2) and the
//! matching `terraform providers schema -json` documents, for benchmarks and scale tests.
//!
//! Shared by `examples/gen_plan.rs` (`cargo run --release --example gen_plan -- --help`)
//! and `benches/pipeline.rs`, both of which include this file with `#[path]`.
//!
//! Same options, same bytes: everything comes from a small hand-written PRNG (SplitMix64)
//! seeded with [`Options::seed`], and nothing iterates a hash map.
//!
//! What a plan holds (`Kind::Mixed`, the default): `resources` entries in
//! `resource_changes` spread over nested modules (`module.app["svc"].module.db.module.
//! backup[0]`, ...) with `count` indices and `for_each` keys, a mix of create, update,
//! replace (both orders, with `replace_paths` and `action_reason`), delete (also a deposed
//! object), read and no-op, a moved and an imported resource, drift with
//! `relevant_attributes`, checks, outputs, and the documents around them (`planned_values`,
//! `prior_state`, `configuration`, `variables`). Values have all schema attributes (nulls
//! included), tags maps, nested blocks, sets of objects, sensitive and unknown values,
//! multi-line strings, JSON-string attributes (one of them a policy document of up to a few
//! megabytes), a long list with scattered changes and a dynamic value nested `depth` deep.
//! The other kinds isolate one aspect: see [`Kind`].

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::fmt::Write as _;

// ---------------------------------------------------------------------------------------
// Options

/// Which plan to generate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Every action, every feature (see the module docs).
    Mixed,
    /// Every resource is created.
    Creates,
    /// Every resource is replaced.
    Replaces,
    /// A `list_len`-element list attribute and a list output, each with 20 scattered
    /// changes (plus `resources` ordinary resources).
    LongList,
    /// A policy document of about `json_bytes` bytes in a JSON string attribute, with a
    /// few small changes (plus `resources` ordinary resources).
    BigJson,
    /// Values, JSON strings, nested blocks, an output and modules nested `depth` deep
    /// (plus `resources` ordinary resources).
    Deep,
    /// A refresh-only plan: `resources` resources unchanged, every one with tags drifted
    /// (changed outside Terraform), so its `resource_drift` is as big as another kind's
    /// `resource_changes` and `resource_changes` is empty.
    Drift,
}

impl Kind {
    /// Parses a `--kind` value.
    pub fn parse(text: &str) -> Option<Kind> {
        Some(match text {
            "mixed" => Kind::Mixed,
            "creates" => Kind::Creates,
            "replaces" => Kind::Replaces,
            "long-list" => Kind::LongList,
            "big-json" => Kind::BigJson,
            "deep" => Kind::Deep,
            "drift" => Kind::Drift,
            _ => return None,
        })
    }

    /// The `--kind` spelling.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Mixed => "mixed",
            Kind::Creates => "creates",
            Kind::Replaces => "replaces",
            Kind::LongList => "long-list",
            Kind::BigJson => "big-json",
            Kind::Deep => "deep",
            Kind::Drift => "drift",
        }
    }
}

/// Generator settings.
#[derive(Debug, Clone)]
pub struct Options {
    /// Number of `resource_changes` entries made from the ordinary module layout (the
    /// special resources of the pathological kinds come on top).
    pub resources: usize,
    /// What to generate.
    pub kind: Kind,
    /// PRNG seed.
    pub seed: u64,
    /// Nesting depth of the deep values (`mixed` and `deep`); at most 120.
    pub depth: usize,
    /// Length of the long lists (`long-list`; `mixed` uses a shorter one).
    pub list_len: usize,
    /// Approximate size of the big policy document in bytes (`big-json`, and `mixed`).
    pub json_bytes: usize,
}

/// Default seed: any fixed value would do.
pub const DEFAULT_SEED: u64 = 0x7E55_A1A7_2024_0501;

impl Options {
    /// The defaults for `kind` with `resources` ordinary resources.
    pub fn new(kind: Kind, resources: usize) -> Options {
        let json_bytes = match kind {
            Kind::BigJson => 5 << 20,
            // A policy that grows with the plan, from 8 KiB to 4 MiB.
            _ => (resources * 200).clamp(8 << 10, 4 << 20),
        };
        let list_len = match kind {
            Kind::LongList => 10_000,
            _ => (resources / 2).clamp(64, 5_000),
        };
        Options {
            resources,
            kind,
            seed: DEFAULT_SEED,
            depth: 50,
            list_len,
            json_bytes,
        }
    }

    /// The default `--resources` of a kind: 1,000 for the whole-plan kinds, none for the
    /// pathological ones.
    pub fn default_resources(kind: Kind) -> usize {
        match kind {
            Kind::Mixed | Kind::Creates | Kind::Replaces | Kind::Drift => 1_000,
            Kind::LongList | Kind::BigJson | Kind::Deep => 0,
        }
    }
}

// ---------------------------------------------------------------------------------------
// PRNG

/// SplitMix64: tiny, fast, good enough for test data, identical on every platform.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + self.below(hi - lo + 1)
    }

    /// True with the given probability in percent.
    pub fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    /// One of `items`.
    pub fn pick<'t, T>(&mut self, items: &'t [T]) -> &'t T {
        &items[self.below(items.len())]
    }

    /// `len` lowercase hex digits.
    pub fn hex(&mut self, len: usize) -> String {
        let mut out = String::with_capacity(len);
        while out.len() < len {
            let _ = write!(out, "{:016x}", self.next_u64());
        }
        out.truncate(len);
        out
    }

    /// An independent generator (so one resource's draws never shift another's).
    pub fn fork(&mut self) -> Rng {
        Rng::new(self.next_u64())
    }
}

// ---------------------------------------------------------------------------------------
// JSON values

/// A JSON value under construction.
#[derive(Debug, Clone, PartialEq)]
pub enum J {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number, as written.
    Num(String),
    /// A string.
    Str(String),
    /// A string holding the compact JSON of the inner value (policies, container
    /// definitions), so changes can be made to the structure.
    JsonStr(Box<J>),
    /// An array.
    Arr(Vec<J>),
    /// An object, members in the order given (values: sorted; documents: Terraform's
    /// struct order).
    Obj(Vec<(String, J)>),
    /// A value known only after apply: omitted from objects, `null` in arrays.
    Unknown,
    /// Already serialized JSON.
    Raw(String),
}

fn num(n: i64) -> J {
    J::Num(n.to_string())
}

fn st(text: impl Into<String>) -> J {
    J::Str(text.into())
}

fn strs<S: AsRef<str>>(items: &[S]) -> J {
    J::Arr(items.iter().map(|s| st(s.as_ref())).collect())
}

/// An object with sorted keys, as Terraform writes values and maps.
fn obj(members: Vec<(&str, J)>) -> J {
    let mut members: Vec<(String, J)> = members
        .into_iter()
        .map(|(k, v)| (k.to_string(), v))
        .collect();
    members.sort_by(|a, b| a.0.cmp(&b.0));
    J::Obj(members)
}

/// An object with keys in the given order (Terraform's struct field order).
fn rec(members: Vec<(&str, J)>) -> J {
    J::Obj(
        members
            .into_iter()
            .map(|(k, v)| (k.to_string(), v))
            .collect(),
    )
}

impl J {
    fn is_null(&self) -> bool {
        matches!(self, J::Null)
    }

    fn get_mut(&mut self, key: &str) -> Option<&mut J> {
        match self {
            J::Obj(members) => members.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn get(&self, key: &str) -> Option<&J> {
        match self {
            J::Obj(members) => members.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    fn set(&mut self, key: &str, value: J) {
        if let J::Obj(members) = self {
            match members.iter_mut().find(|(k, _)| k == key) {
                Some(slot) => slot.1 = value,
                None => {
                    members.push((key.to_string(), value));
                    members.sort_by(|a, b| a.0.cmp(&b.0));
                }
            }
        }
    }

    fn has_unknown(&self) -> bool {
        match self {
            J::Unknown => true,
            J::Arr(items) => items.iter().any(J::has_unknown),
            J::Obj(members) => members.iter().any(|(_, v)| v.has_unknown()),
            _ => false,
        }
    }

    /// Compact JSON, escaped as Go's `encoding/json` does (`<`, `>`, `&` too).
    pub fn to_json(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match self {
            J::Null | J::Unknown => out.push_str("null"),
            J::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            J::Num(n) => out.push_str(n),
            J::Str(s) => write_str(s, out),
            J::JsonStr(inner) => write_str(&inner.to_json(), out),
            J::Arr(items) => {
                out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    item.write(out);
                }
                out.push(']');
            }
            J::Obj(members) => {
                out.push('{');
                let mut first = true;
                for (k, v) in members {
                    if matches!(v, J::Unknown) {
                        continue;
                    }
                    if !first {
                        out.push(',');
                    }
                    first = false;
                    write_str(k, out);
                    out.push(':');
                    v.write(out);
                }
                out.push('}');
            }
            J::Raw(raw) => out.push_str(raw),
        }
    }
}

fn write_str(s: &str, out: &mut String) {
    out.reserve(s.len() + 2);
    out.push('"');
    let mut plain = 0;
    for (i, c) in s.char_indices() {
        let escaped = match c {
            '"' => "\\\"",
            '\\' => "\\\\",
            '\n' => "\\n",
            '\r' => "\\r",
            '\t' => "\\t",
            '<' => "\\u003c",
            '>' => "\\u003e",
            '&' => "\\u0026",
            '\u{2028}' => "\\u2028",
            '\u{2029}' => "\\u2029",
            c if (c as u32) < 0x20 => "",
            _ => continue,
        };
        out.push_str(&s[plain..i]);
        if escaped.is_empty() {
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push_str(escaped);
        }
        plain = i + c.len_utf8();
    }
    out.push_str(&s[plain..]);
    out.push('"');
}

/// `after_unknown` below the root: wholly known values are `false` (and dropped from
/// objects), as Terraform 1.3+ writes them.
fn unknown_as_bool(value: &J) -> J {
    match value {
        J::Unknown => J::Bool(true),
        J::Arr(items) if value.has_unknown() => J::Arr(items.iter().map(unknown_as_bool).collect()),
        J::Obj(members) if value.has_unknown() => J::Obj(
            members
                .iter()
                .map(|(k, v)| (k.clone(), unknown_as_bool(v)))
                .filter(|(_, v)| *v != J::Bool(false))
                .collect(),
        ),
        _ => J::Bool(false),
    }
}

/// The root `after_unknown`: always an object for an object value.
fn root_unknown(value: &J) -> J {
    match value {
        J::Obj(members) => J::Obj(
            members
                .iter()
                .map(|(k, v)| (k.clone(), unknown_as_bool(v)))
                .filter(|(_, v)| *v != J::Bool(false))
                .collect(),
        ),
        J::Unknown => J::Bool(true),
        _ => J::Obj(Vec::new()),
    }
}

/// A sensitivity mask of an unmarked value: collections mirrored (lists element by
/// element, `false` for primitives), `false` members dropped from objects.
fn sensitive_as_bool(value: &J) -> J {
    match value {
        J::Arr(items) => J::Arr(items.iter().map(sensitive_as_bool).collect()),
        J::Obj(members) => J::Obj(
            members
                .iter()
                .map(|(k, v)| (k.clone(), sensitive_as_bool(v)))
                .filter(|(_, v)| *v != J::Bool(false))
                .collect(),
        ),
        _ => J::Bool(false),
    }
}

/// The root sensitivity mask: `sensitive` names the attributes marked sensitive.
fn root_sensitive(value: &J, sensitive: &[&str]) -> J {
    match value {
        J::Obj(members) => J::Obj(
            members
                .iter()
                .map(|(k, v)| {
                    let mask = if sensitive.contains(&k.as_str()) && !v.is_null() {
                        J::Bool(true)
                    } else {
                        sensitive_as_bool(v)
                    };
                    (k.clone(), mask)
                })
                .filter(|(_, v)| *v != J::Bool(false))
                .collect(),
        ),
        _ => J::Bool(false),
    }
}

// ---------------------------------------------------------------------------------------
// Schemas

/// A cty type.
#[derive(Debug, Clone)]
enum Ty {
    Str,
    Num,
    Bool,
    Dyn,
    List(Box<Ty>),
    Set(Box<Ty>),
    Map(Box<Ty>),
    Obj(Vec<(&'static str, Ty)>),
}

impl Ty {
    fn to_json(&self) -> J {
        match self {
            Ty::Str => st("string"),
            Ty::Num => st("number"),
            Ty::Bool => st("bool"),
            Ty::Dyn => st("dynamic"),
            Ty::List(t) => J::Arr(vec![st("list"), t.to_json()]),
            Ty::Set(t) => J::Arr(vec![st("set"), t.to_json()]),
            Ty::Map(t) => J::Arr(vec![st("map"), t.to_json()]),
            Ty::Obj(fields) => J::Arr(vec![
                st("object"),
                obj(fields.iter().map(|(n, t)| (*n, t.to_json())).collect()),
            ]),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Req {
    Required,
    Optional,
    Computed,
    OptionalComputed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Nesting {
    Single,
    List,
    Set,
    Map,
}

impl Nesting {
    fn name(self) -> &'static str {
        match self {
            Nesting::Single => "single",
            Nesting::List => "list",
            Nesting::Set => "set",
            Nesting::Map => "map",
        }
    }
}

#[derive(Debug, Clone)]
enum AttrKind {
    Ty(Ty),
    Nested(Nesting, Vec<Attr>),
}

#[derive(Debug, Clone)]
struct Attr {
    name: &'static str,
    kind: AttrKind,
    req: Req,
    sensitive: bool,
    force_new: bool,
}

#[derive(Debug, Clone)]
struct BlockType {
    name: &'static str,
    nesting: Nesting,
    max_items: Option<usize>,
    block: Block,
}

#[derive(Debug, Clone, Default)]
struct Block {
    attrs: Vec<Attr>,
    blocks: Vec<BlockType>,
}

fn a(name: &'static str, ty: Ty, req: Req) -> Attr {
    Attr {
        name,
        kind: AttrKind::Ty(ty),
        req,
        sensitive: false,
        force_new: false,
    }
}

/// A force-new attribute (a change replaces the resource).
fn af(name: &'static str, ty: Ty, req: Req) -> Attr {
    Attr {
        force_new: true,
        ..a(name, ty, req)
    }
}

fn secret(name: &'static str, req: Req) -> Attr {
    Attr {
        sensitive: true,
        ..a(name, Ty::Str, req)
    }
}

fn nested(name: &'static str, nesting: Nesting, attrs: Vec<Attr>, req: Req) -> Attr {
    Attr {
        name,
        kind: AttrKind::Nested(nesting, attrs),
        req,
        sensitive: false,
        force_new: false,
    }
}

fn bt(name: &'static str, nesting: Nesting, max_items: Option<usize>, block: Block) -> BlockType {
    BlockType {
        name,
        nesting,
        max_items,
        block,
    }
}

fn blk(attrs: Vec<Attr>, blocks: Vec<BlockType>) -> Block {
    Block { attrs, blocks }
}

fn list(t: Ty) -> Ty {
    Ty::List(Box::new(t))
}

fn set(t: Ty) -> Ty {
    Ty::Set(Box::new(t))
}

fn map(t: Ty) -> Ty {
    Ty::Map(Box::new(t))
}

use Req::{Computed as C, Optional as O, OptionalComputed as OC, Required as R};

const AWS: &str = "registry.terraform.io/hashicorp/aws";
const AWSCC: &str = "registry.terraform.io/hashicorp/awscc";
const KUBERNETES: &str = "registry.terraform.io/hashicorp/kubernetes";
const RANDOM: &str = "registry.terraform.io/hashicorp/random";

/// A resource or data source type.
#[derive(Debug, Clone)]
struct ResourceType {
    provider: &'static str,
    data: bool,
    name: &'static str,
    block: Block,
}

impl ResourceType {
    fn sensitive_attrs(&self) -> Vec<&'static str> {
        self.block
            .attrs
            .iter()
            .filter(|a| a.sensitive)
            .map(|a| a.name)
            .collect()
    }

    fn attr(&self, name: &str) -> Option<&Attr> {
        self.block.attrs.iter().find(|a| a.name == name)
    }
}

fn tags() -> Vec<Attr> {
    vec![a("tags", map(Ty::Str), O), a("tags_all", map(Ty::Str), OC)]
}

fn with(mut attrs: Vec<Attr>, more: Vec<Attr>) -> Vec<Attr> {
    attrs.extend(more);
    attrs.sort_by(|x, y| x.name.cmp(y.name));
    attrs
}

fn sg_rule() -> Ty {
    Ty::Obj(vec![
        ("cidr_blocks", list(Ty::Str)),
        ("description", Ty::Str),
        ("from_port", Ty::Num),
        ("ipv6_cidr_blocks", list(Ty::Str)),
        ("prefix_list_ids", list(Ty::Str)),
        ("protocol", Ty::Str),
        ("security_groups", set(Ty::Str)),
        ("self", Ty::Bool),
        ("to_port", Ty::Num),
    ])
}

/// WAF statements nest `steps` times (`statement` → `not_statement` → `statement` ...).
fn waf_statement(steps: usize) -> Block {
    let mut blocks = vec![bt(
        "ip_set_reference_statement",
        Nesting::List,
        Some(1),
        blk(vec![a("arn", Ty::Str, R)], vec![]),
    )];
    if steps > 0 {
        blocks.push(bt(
            "not_statement",
            Nesting::List,
            Some(1),
            blk(
                vec![],
                vec![bt(
                    "statement",
                    Nesting::List,
                    Some(1),
                    waf_statement(steps - 1),
                )],
            ),
        ));
    }
    blk(vec![], blocks)
}

/// Every type the generator uses. `waf_steps` sizes the recursive WAF schema.
fn catalog(waf_steps: usize) -> Vec<ResourceType> {
    let managed = |provider, name, block| ResourceType {
        provider,
        data: false,
        name,
        block,
    };
    vec![
        managed(
            AWS,
            "aws_instance",
            blk(
                with(
                    vec![
                        af("ami", Ty::Str, R),
                        a("arn", Ty::Str, C),
                        af("associate_public_ip_address", Ty::Bool, OC),
                        af("availability_zone", Ty::Str, OC),
                        a("cpu_core_count", Ty::Num, OC),
                        a("id", Ty::Str, C),
                        a("instance_state", Ty::Str, C),
                        a("instance_type", Ty::Str, R),
                        a("key_name", Ty::Str, OC),
                        a("monitoring", Ty::Bool, O),
                        a("private_ip", Ty::Str, OC),
                        a("public_ip", Ty::Str, C),
                        a("secondary_private_ips", set(Ty::Str), OC),
                        af("subnet_id", Ty::Str, OC),
                        af("user_data", Ty::Str, O),
                        a("vpc_security_group_ids", set(Ty::Str), OC),
                    ],
                    tags(),
                ),
                vec![
                    bt(
                        "credit_specification",
                        Nesting::List,
                        Some(1),
                        blk(vec![a("cpu_credits", Ty::Str, O)], vec![]),
                    ),
                    bt(
                        "ebs_block_device",
                        Nesting::Set,
                        None,
                        blk(
                            vec![
                                af("device_name", Ty::Str, R),
                                af("snapshot_id", Ty::Str, OC),
                                a("volume_id", Ty::Str, C),
                                af("volume_size", Ty::Num, OC),
                                af("volume_type", Ty::Str, OC),
                            ],
                            vec![],
                        ),
                    ),
                    bt(
                        "metadata_options",
                        Nesting::List,
                        Some(1),
                        blk(
                            vec![
                                a("http_endpoint", Ty::Str, OC),
                                a("http_put_response_hop_limit", Ty::Num, OC),
                                a("http_tokens", Ty::Str, OC),
                            ],
                            vec![],
                        ),
                    ),
                    bt(
                        "root_block_device",
                        Nesting::List,
                        Some(1),
                        blk(
                            vec![
                                a("delete_on_termination", Ty::Bool, O),
                                a("device_name", Ty::Str, C),
                                a("encrypted", Ty::Bool, OC),
                                a("iops", Ty::Num, OC),
                                a("tags", map(Ty::Str), O),
                                a("volume_id", Ty::Str, C),
                                a("volume_size", Ty::Num, OC),
                                a("volume_type", Ty::Str, OC),
                            ],
                            vec![],
                        ),
                    ),
                ],
            ),
        ),
        managed(
            AWS,
            "aws_security_group",
            blk(
                with(
                    vec![
                        a("arn", Ty::Str, C),
                        af("description", Ty::Str, O),
                        a("egress", set(sg_rule()), OC),
                        a("id", Ty::Str, C),
                        a("ingress", set(sg_rule()), OC),
                        af("name", Ty::Str, OC),
                        a("owner_id", Ty::Str, C),
                        a("revoke_rules_on_delete", Ty::Bool, O),
                        af("vpc_id", Ty::Str, OC),
                    ],
                    tags(),
                ),
                vec![],
            ),
        ),
        managed(
            AWS,
            "aws_iam_policy",
            blk(
                with(
                    vec![
                        a("arn", Ty::Str, C),
                        af("description", Ty::Str, O),
                        a("id", Ty::Str, C),
                        af("name", Ty::Str, OC),
                        a("path", Ty::Str, O),
                        a("policy", Ty::Str, R),
                        a("policy_id", Ty::Str, C),
                    ],
                    tags(),
                ),
                vec![],
            ),
        ),
        managed(
            AWS,
            "aws_s3_bucket",
            blk(
                with(
                    vec![
                        a("arn", Ty::Str, C),
                        af("bucket", Ty::Str, OC),
                        a("bucket_domain_name", Ty::Str, C),
                        a("force_destroy", Ty::Bool, O),
                        a("hosted_zone_id", Ty::Str, C),
                        a("id", Ty::Str, C),
                        a("region", Ty::Str, C),
                    ],
                    tags(),
                ),
                vec![
                    bt(
                        "lifecycle_rule",
                        Nesting::List,
                        None,
                        blk(
                            vec![
                                a("enabled", Ty::Bool, R),
                                a("id", Ty::Str, OC),
                                a("prefix", Ty::Str, O),
                                a("tags", map(Ty::Str), O),
                            ],
                            vec![
                                bt(
                                    "expiration",
                                    Nesting::List,
                                    Some(1),
                                    blk(vec![a("days", Ty::Num, O)], vec![]),
                                ),
                                bt(
                                    "transition",
                                    Nesting::Set,
                                    None,
                                    blk(
                                        vec![a("days", Ty::Num, O), a("storage_class", Ty::Str, R)],
                                        vec![],
                                    ),
                                ),
                            ],
                        ),
                    ),
                    bt(
                        "server_side_encryption_configuration",
                        Nesting::List,
                        Some(1),
                        blk(
                            vec![],
                            vec![bt(
                                "rule",
                                Nesting::List,
                                Some(1),
                                blk(
                                    vec![a("bucket_key_enabled", Ty::Bool, O)],
                                    vec![bt(
                                        "apply_server_side_encryption_by_default",
                                        Nesting::List,
                                        Some(1),
                                        blk(
                                            vec![
                                                a("kms_master_key_id", Ty::Str, O),
                                                a("sse_algorithm", Ty::Str, R),
                                            ],
                                            vec![],
                                        ),
                                    )],
                                ),
                            )],
                        ),
                    ),
                    bt(
                        "versioning",
                        Nesting::List,
                        Some(1),
                        blk(
                            vec![a("enabled", Ty::Bool, O), a("mfa_delete", Ty::Bool, O)],
                            vec![],
                        ),
                    ),
                ],
            ),
        ),
        managed(
            AWS,
            "aws_db_instance",
            blk(
                with(
                    vec![
                        a("address", Ty::Str, C),
                        a("allocated_storage", Ty::Num, OC),
                        a("arn", Ty::Str, C),
                        a("backup_retention_period", Ty::Num, OC),
                        a("endpoint", Ty::Str, C),
                        af("engine", Ty::Str, OC),
                        a("engine_version", Ty::Str, OC),
                        a("id", Ty::Str, C),
                        af("identifier", Ty::Str, OC),
                        a("instance_class", Ty::Str, R),
                        a("multi_az", Ty::Bool, OC),
                        a("parameter_group_name", Ty::Str, OC),
                        secret("password", O),
                        a("port", Ty::Num, OC),
                        a("publicly_accessible", Ty::Bool, O),
                        af("storage_encrypted", Ty::Bool, O),
                        af("username", Ty::Str, OC),
                        a("vpc_security_group_ids", set(Ty::Str), OC),
                    ],
                    tags(),
                ),
                vec![],
            ),
        ),
        managed(
            AWS,
            "aws_ecs_task_definition",
            blk(
                with(
                    vec![
                        a("arn", Ty::Str, C),
                        af("container_definitions", Ty::Str, R),
                        af("cpu", Ty::Str, O),
                        af("family", Ty::Str, R),
                        a("id", Ty::Str, C),
                        af("memory", Ty::Str, O),
                        af("network_mode", Ty::Str, OC),
                        af("requires_compatibilities", set(Ty::Str), O),
                        a("revision", Ty::Num, C),
                    ],
                    tags(),
                ),
                vec![bt(
                    "volume",
                    Nesting::Set,
                    None,
                    blk(
                        vec![af("host_path", Ty::Str, O), af("name", Ty::Str, R)],
                        vec![],
                    ),
                )],
            ),
        ),
        managed(
            AWS,
            "aws_wafv2_ip_set",
            blk(
                with(
                    vec![
                        a("addresses", list(Ty::Str), O),
                        a("arn", Ty::Str, C),
                        a("description", Ty::Str, O),
                        a("id", Ty::Str, C),
                        af("ip_address_version", Ty::Str, R),
                        a("lock_token", Ty::Str, C),
                        af("name", Ty::Str, R),
                        af("scope", Ty::Str, R),
                    ],
                    tags(),
                ),
                vec![],
            ),
        ),
        managed(
            AWS,
            "aws_wafv2_web_acl",
            blk(
                with(
                    vec![
                        a("arn", Ty::Str, C),
                        a("capacity", Ty::Num, C),
                        a("description", Ty::Str, O),
                        a("id", Ty::Str, C),
                        af("name", Ty::Str, R),
                        af("scope", Ty::Str, R),
                    ],
                    tags(),
                ),
                vec![bt(
                    "rule",
                    Nesting::Set,
                    None,
                    blk(
                        vec![a("name", Ty::Str, R), a("priority", Ty::Num, R)],
                        vec![bt(
                            "statement",
                            Nesting::List,
                            Some(1),
                            waf_statement(waf_steps),
                        )],
                    ),
                )],
            ),
        ),
        ResourceType {
            provider: AWS,
            data: true,
            name: "aws_ami",
            block: blk(
                vec![
                    a("architecture", Ty::Str, C),
                    a("arn", Ty::Str, C),
                    a("creation_date", Ty::Str, C),
                    a("id", Ty::Str, C),
                    a("image_id", Ty::Str, C),
                    a("most_recent", Ty::Bool, O),
                    a("name", Ty::Str, C),
                    a("owners", list(Ty::Str), O),
                    a("tags", map(Ty::Str), C),
                ],
                vec![bt(
                    "filter",
                    Nesting::Set,
                    None,
                    blk(
                        vec![a("name", Ty::Str, R), a("values", set(Ty::Str), R)],
                        vec![],
                    ),
                )],
            ),
        },
        managed(
            AWSCC,
            "awscc_ec2_vpc",
            blk(
                vec![
                    af("cidr_block", Ty::Str, OC),
                    a("default_security_group", Ty::Str, C),
                    a("enable_dns_hostnames", Ty::Bool, OC),
                    a("enable_dns_support", Ty::Bool, OC),
                    a("id", Ty::Str, C),
                    af("instance_tenancy", Ty::Str, OC),
                    a("ipv_6_cidr_blocks", list(Ty::Str), C),
                    nested(
                        "tags",
                        Nesting::List,
                        vec![a("key", Ty::Str, R), a("value", Ty::Str, R)],
                        O,
                    ),
                    a("vpc_id", Ty::Str, C),
                ],
                vec![],
            ),
        ),
        managed(
            KUBERNETES,
            "kubernetes_manifest",
            blk(
                vec![a("manifest", Ty::Dyn, R), a("object", Ty::Dyn, OC)],
                vec![],
            ),
        ),
        managed(
            RANDOM,
            "random_password",
            blk(
                vec![
                    secret("bcrypt_hash", C),
                    a("id", Ty::Str, C),
                    af("keepers", map(Ty::Str), O),
                    af("length", Ty::Num, R),
                    af("special", Ty::Bool, O),
                    secret("result", C),
                ],
                vec![],
            ),
        ),
    ]
}

fn schema_attr(attr: &Attr) -> J {
    let mut members = Vec::new();
    match &attr.kind {
        AttrKind::Ty(ty) => members.push(("type", ty.to_json())),
        AttrKind::Nested(nesting, attrs) => members.push((
            "nested_type",
            rec(vec![
                (
                    "attributes",
                    obj(attrs.iter().map(|a| (a.name, schema_attr(a))).collect()),
                ),
                ("nesting_mode", st(nesting.name())),
            ]),
        )),
    }
    members.push(("description_kind", st("plain")));
    match attr.req {
        Req::Required => members.push(("required", J::Bool(true))),
        Req::Optional => members.push(("optional", J::Bool(true))),
        Req::Computed => members.push(("computed", J::Bool(true))),
        Req::OptionalComputed => {
            members.push(("optional", J::Bool(true)));
            members.push(("computed", J::Bool(true)));
        }
    }
    if attr.sensitive {
        members.push(("sensitive", J::Bool(true)));
    }
    rec(members)
}

fn schema_block(block: &Block) -> J {
    let mut members = Vec::new();
    if !block.attrs.is_empty() {
        members.push((
            "attributes",
            obj(block
                .attrs
                .iter()
                .map(|a| (a.name, schema_attr(a)))
                .collect()),
        ));
    }
    if !block.blocks.is_empty() {
        members.push((
            "block_types",
            obj(block
                .blocks
                .iter()
                .map(|b| {
                    let mut m = vec![
                        ("nesting_mode", st(b.nesting.name())),
                        ("block", schema_block(&b.block)),
                    ];
                    if let Some(max) = b.max_items {
                        m.push(("max_items", num(max as i64)));
                    }
                    (b.name, rec(m))
                })
                .collect()),
        ));
    }
    members.push(("description_kind", st("plain")));
    rec(members)
}

/// WAF recursion steps for a depth: two block levels per step, at most 15 (30 block
/// levels): each step nests the schema JSON six levels deeper, and schema documents
/// deeper than 128 levels are refused by serde_json's default recursion limit.
fn waf_steps(opts: &Options) -> usize {
    match opts.kind {
        Kind::Deep => (opts.depth / 2).min(15),
        _ => 4,
    }
}

/// `terraform providers schema -json` for every type [`plan`] can use with `opts`.
pub fn schemas(opts: &Options) -> String {
    let types = catalog(waf_steps(opts));
    /// Resource and data source schemas of one provider.
    type Tables<'t> = (Vec<(&'t str, J)>, Vec<(&'t str, J)>);
    let mut providers: BTreeMap<&str, Tables<'_>> = BTreeMap::new();
    for t in &types {
        let entry = providers.entry(t.provider).or_default();
        let schema = rec(vec![
            ("version", num(i64::from(t.name == "aws_instance"))),
            ("block", schema_block(&t.block)),
        ]);
        if t.data {
            entry.1.push((t.name, schema));
        } else {
            entry.0.push((t.name, schema));
        }
    }
    let provider_schemas = obj(providers
        .into_iter()
        .map(|(name, (resources, data))| {
            let provider = rec(vec![
                ("version", num(0)),
                (
                    "block",
                    rec(vec![
                        (
                            "attributes",
                            obj(vec![(
                                "region",
                                rec(vec![
                                    ("type", st("string")),
                                    ("description_kind", st("plain")),
                                    ("optional", J::Bool(true)),
                                ]),
                            )]),
                        ),
                        ("description_kind", st("plain")),
                    ]),
                ),
            ]);
            let mut members = vec![("provider", provider)];
            if !resources.is_empty() {
                members.push(("resource_schemas", obj(resources)));
            }
            if !data.is_empty() {
                members.push(("data_source_schemas", obj(data)));
            }
            (name, rec(members))
        })
        .collect());
    let mut out = rec(vec![
        ("format_version", st("1.0")),
        ("provider_schemas", provider_schemas),
    ])
    .to_json();
    out.push('\n');
    out
}

// ---------------------------------------------------------------------------------------
// Addresses and layout

/// An instance key.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    Int(usize),
    Str(String),
}

impl Key {
    fn suffix(&self) -> String {
        match self {
            Key::Int(i) => format!("[{i}]"),
            Key::Str(s) => {
                let mut out = String::from("[\"");
                for c in s.chars() {
                    match c {
                        '"' => out.push_str("\\\""),
                        '\\' => out.push_str("\\\\"),
                        c => out.push(c),
                    }
                }
                out.push_str("\"]");
                out
            }
        }
    }

    fn json(&self) -> J {
        match self {
            Key::Int(i) => num(*i as i64),
            Key::Str(s) => st(s.clone()),
        }
    }

    fn slug(&self) -> String {
        match self {
            Key::Int(i) => i.to_string(),
            Key::Str(s) => s
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
                .collect(),
        }
    }
}

/// A module instance path: `(call name, key)` per level.
type ModulePath = Vec<(&'static str, Option<Key>)>;

fn module_address(path: &[(&'static str, Option<Key>)]) -> String {
    let mut out = String::new();
    for (i, (name, key)) in path.iter().enumerate() {
        if i > 0 {
            out.push('.');
        }
        out.push_str("module.");
        out.push_str(name);
        if let Some(key) = key {
            out.push_str(&key.suffix());
        }
    }
    out
}

/// How a resource block repeats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Repeat {
    Single,
    Count,
    ForEach,
}

/// One resource instance to generate.
#[derive(Debug, Clone)]
struct Instance {
    module: ModulePath,
    type_index: usize,
    name: &'static str,
    repeat: Repeat,
    key: Option<Key>,
    /// What the instance's value looks like beyond the generic fill.
    special: Special,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Special {
    None,
    /// The big policy document.
    BigPolicy,
    /// The long address list.
    LongList,
    /// Nested `depth` deep.
    Deep,
}

impl Instance {
    fn address(&self, types: &[ResourceType]) -> String {
        let t = &types[self.type_index];
        let mut out = module_address(&self.module);
        if !out.is_empty() {
            out.push('.');
        }
        if t.data {
            out.push_str("data.");
        }
        out.push_str(t.name);
        out.push('.');
        out.push_str(self.name);
        if let Some(key) = &self.key {
            out.push_str(&key.suffix());
        }
        out
    }

    /// A name for the cloud object (bucket names, identifiers, tags).
    fn slug(&self) -> String {
        let mut out = String::new();
        for (name, key) in &self.module {
            if let Some(key) = key {
                out.push_str(&key.slug());
            } else {
                out.push_str(name);
            }
            out.push('-');
        }
        out.push_str(&self.name.replace('_', "-"));
        if let Some(key) = &self.key {
            out.push('-');
            out.push_str(&key.slug());
        }
        out
    }
}

const SERVICES: &[&str] = &[
    "billing",
    "checkout",
    "search",
    "catalog",
    "identity",
    "payments",
    "ledger",
    "notify",
    "reports",
    "gateway",
    "inventory",
    "pricing",
    "profile",
    "shipping",
    "tracking",
    "media",
];
const TIERS: &[&str] = &["api", "worker", "web", "batch", "cron", "stream"];
const WORDS: &[&str] = &[
    "alpha", "bravo", "cedar", "delta", "ember", "falcon", "granite", "harbor", "iris", "juniper",
    "kestrel", "lumen", "maple", "nimbus", "onyx", "prairie", "quartz", "raven", "sierra",
    "tundra", "umber", "vertex", "willow", "xenon", "yarrow", "zephyr",
];
const INSTANCE_TYPES: &[&str] = &[
    "t3.micro",
    "t3.small",
    "t3.medium",
    "m5.large",
    "m5.xlarge",
    "c6i.large",
    "r6g.large",
];
const DB_CLASSES: &[&str] = &[
    "db.t3.micro",
    "db.t3.medium",
    "db.r6g.large",
    "db.m6g.xlarge",
];
const ACTIONS: &[&str] = &[
    "s3:GetObject",
    "s3:PutObject",
    "s3:ListBucket",
    "s3:DeleteObject",
    "kms:Decrypt",
    "kms:Encrypt",
    "kms:GenerateDataKey",
    "sqs:SendMessage",
    "sqs:ReceiveMessage",
    "dynamodb:GetItem",
    "dynamodb:PutItem",
    "dynamodb:Query",
    "logs:PutLogEvents",
    "logs:CreateLogStream",
    "ssm:GetParameter",
    "secretsmanager:GetSecretValue",
];

/// The key of the `n`th `module.app` instance: service-tier names, one odd one with
/// characters that need care in addresses.
fn app_key(n: usize) -> Key {
    if n == 3 {
        return Key::Str("edge.v2[beta]".to_string());
    }
    let service = SERVICES[n % SERVICES.len()];
    let tier = TIERS[(n / SERVICES.len()) % TIERS.len()];
    let round = n / (SERVICES.len() * TIERS.len());
    if round == 0 {
        Key::Str(format!("{service}-{tier}"))
    } else {
        Key::Str(format!("{service}-{tier}-{round}"))
    }
}

fn type_index(types: &[ResourceType], name: &str, data: bool) -> usize {
    types
        .iter()
        .position(|t| t.name == name && t.data == data)
        .expect("type in catalog")
}

/// The ordinary layout, in generation order: root resources, `module.network`, then one
/// bundle per `module.app` instance, each with its nested modules.
struct Layout<'t> {
    types: &'t [ResourceType],
    rng: Rng,
    app: usize,
    queue: std::collections::VecDeque<Instance>,
    started: bool,
}

impl<'t> Layout<'t> {
    fn new(types: &'t [ResourceType], rng: Rng) -> Self {
        Layout {
            types,
            rng,
            app: 0,
            queue: Default::default(),
            started: false,
        }
    }

    fn push(
        &mut self,
        module: &ModulePath,
        type_name: &str,
        data: bool,
        name: &'static str,
        repeat: Repeat,
        keys: Vec<Key>,
    ) {
        let type_index = type_index(self.types, type_name, data);
        let keys: Vec<Option<Key>> = match repeat {
            Repeat::Single => vec![None],
            _ => keys.into_iter().map(Some).collect(),
        };
        for key in keys {
            self.queue.push_back(Instance {
                module: module.clone(),
                type_index,
                name,
                repeat,
                key,
                special: Special::None,
            });
        }
    }

    fn root(&mut self) {
        let root: ModulePath = Vec::new();
        self.push(&root, "aws_ami", true, "ubuntu", Repeat::Single, vec![]);
        self.push(
            &root,
            "awscc_ec2_vpc",
            false,
            "main",
            Repeat::Single,
            vec![],
        );
        self.push(
            &root,
            "aws_s3_bucket",
            false,
            "logs",
            Repeat::Single,
            vec![],
        );
        self.push(
            &root,
            "random_password",
            false,
            "master",
            Repeat::Single,
            vec![],
        );
        let network: ModulePath = vec![("network", None)];
        let tiers = ["app", "db", "edge.v2[beta]", "web"]
            .iter()
            .map(|s| Key::Str(s.to_string()))
            .collect();
        self.push(
            &network,
            "aws_security_group",
            false,
            "tier",
            Repeat::ForEach,
            tiers,
        );
        self.push(
            &network,
            "aws_wafv2_web_acl",
            false,
            "main",
            Repeat::Single,
            vec![],
        );
    }

    fn bundle(&mut self) {
        let key = app_key(self.app);
        self.app += 1;
        let app: ModulePath = vec![("app", Some(key))];
        let nodes = if self.rng.chance(10) {
            self.rng.range(9, 12)
        } else {
            self.rng.range(1, 4)
        };
        let counts = |n: usize| (0..n).map(Key::Int).collect::<Vec<_>>();
        self.push(&app, "aws_ami", true, "base", Repeat::Single, vec![]);
        self.push(
            &app,
            "aws_instance",
            false,
            "node",
            Repeat::Count,
            counts(nodes),
        );
        self.push(
            &app,
            "aws_security_group",
            false,
            "this",
            Repeat::Single,
            vec![],
        );
        self.push(
            &app,
            "aws_iam_policy",
            false,
            "task",
            Repeat::Single,
            vec![],
        );
        self.push(
            &app,
            "aws_ecs_task_definition",
            false,
            "svc",
            Repeat::Single,
            vec![],
        );
        self.push(
            &app,
            "random_password",
            false,
            "token",
            Repeat::Single,
            vec![],
        );
        let mut db = app.clone();
        db.push(("db", None));
        self.push(
            &db,
            "aws_db_instance",
            false,
            "primary",
            Repeat::Single,
            vec![],
        );
        let replicas = self.rng.range(0, 2);
        self.push(
            &db,
            "aws_db_instance",
            false,
            "replica",
            Repeat::Count,
            counts(replicas),
        );
        let mut backup = db.clone();
        backup.push(("backup", Some(Key::Int(0))));
        self.push(
            &backup,
            "aws_s3_bucket",
            false,
            "archive",
            Repeat::Single,
            vec![],
        );
        let mut cdn = app.clone();
        cdn.push(("cdn", None));
        let origins = ["media", "static"]
            .iter()
            .map(|s| Key::Str(s.to_string()))
            .collect();
        self.push(
            &cdn,
            "aws_s3_bucket",
            false,
            "assets",
            Repeat::ForEach,
            origins,
        );
        if self.rng.chance(20) {
            self.push(
                &app,
                "kubernetes_manifest",
                false,
                "config",
                Repeat::Single,
                vec![],
            );
        }
    }

    fn next(&mut self) -> Instance {
        if !self.started {
            self.started = true;
            self.root();
        }
        loop {
            if let Some(instance) = self.queue.pop_front() {
                return instance;
            }
            self.bundle();
        }
    }
}

// ---------------------------------------------------------------------------------------
// Values

/// Sizes and names the value generator needs.
struct FillCtx<'i> {
    type_name: &'static str,
    slug: &'i str,
    special: Special,
    opts: &'i Options,
}

fn tags_for(rng: &mut Rng, slug: &str) -> J {
    let mut members = vec![
        ("Name", st(slug)),
        ("Environment", st(*rng.pick(&["prod", "staging", "dev"]))),
        ("Team", st(format!("team-{}", rng.pick(WORDS)))),
    ];
    if rng.chance(50) {
        members.push(("CostCenter", st(format!("cc-{}", rng.range(1000, 9999)))));
    }
    if rng.chance(20) {
        members.push(("Owner", st(format!("{}@example.com", rng.pick(WORDS)))));
    }
    obj(members)
}

fn cidr(n: usize) -> String {
    format!("10.{}.{}.0/24", (n >> 8) & 0xff, n & 0xff)
}

fn statement(rng: &mut Rng, i: usize) -> J {
    let actions: Vec<&str> = (0..rng.range(1, 4)).map(|_| *rng.pick(ACTIONS)).collect();
    let bucket = format!("arn:aws:s3:::{}-{}", rng.pick(WORDS), rng.hex(6));
    let mut members = vec![
        ("Sid", st(format!("S{i:06}"))),
        ("Effect", st(if rng.chance(90) { "Allow" } else { "Deny" })),
        ("Action", strs(&actions)),
        ("Resource", strs(&[bucket.clone(), format!("{bucket}/*")])),
    ];
    if rng.chance(40) {
        members.push((
            "Condition",
            obj(vec![(
                "StringEquals",
                obj(vec![(
                    "aws:PrincipalTag/team",
                    st(format!("team-{}", rng.pick(WORDS))),
                )]),
            )]),
        ));
    }
    obj(members)
}

/// A policy document of about `bytes` bytes (as compact JSON).
fn policy_doc(rng: &mut Rng, bytes: usize) -> J {
    let mut statements = Vec::new();
    let mut size = 40;
    while size < bytes || statements.is_empty() {
        let s = statement(rng, statements.len());
        size += s.to_json().len() + 1;
        statements.push(s);
    }
    obj(vec![
        ("Version", st("2012-10-17")),
        ("Statement", J::Arr(statements)),
    ])
}

fn container_definitions(rng: &mut Rng, slug: &str) -> J {
    let containers = (0..rng.range(1, 3))
        .map(|i| {
            obj(vec![
                ("name", st(format!("{slug}-{i}"))),
                (
                    "image",
                    st(format!(
                        "123456789012.dkr.ecr.us-east-1.amazonaws.com/{slug}:{}",
                        rng.hex(7)
                    )),
                ),
                ("cpu", num(256 * rng.range(1, 4) as i64)),
                ("memory", num(512 * rng.range(1, 8) as i64)),
                ("essential", J::Bool(i == 0)),
                (
                    "portMappings",
                    J::Arr(vec![obj(vec![
                        ("containerPort", num(8080 + i as i64)),
                        ("protocol", st("tcp")),
                    ])]),
                ),
                (
                    "environment",
                    J::Arr(
                        (0..rng.range(1, 4))
                            .map(|e| {
                                obj(vec![
                                    ("name", st(format!("VAR_{e}"))),
                                    ("value", st(rng.pick(WORDS).to_string())),
                                ])
                            })
                            .collect(),
                    ),
                ),
            ])
        })
        .collect();
    J::Arr(containers)
}

fn user_data(rng: &mut Rng, slug: &str) -> String {
    let mut out = String::from("#!/bin/bash\nset -euo pipefail\n");
    let _ = writeln!(out, "echo \"booting {slug}\" > /var/log/boot.log");
    for i in 0..rng.range(3, 8) {
        let _ = writeln!(
            out,
            "export {}_{}=\"{}\"",
            rng.pick(WORDS).to_uppercase(),
            i,
            rng.hex(12)
        );
    }
    out.push_str("systemctl enable --now app.service\n");
    out
}

/// A value nested `depth` deep: objects with a few siblings per level, then a leaf.
fn deep_object(rng: &mut Rng, depth: usize) -> J {
    let mut value = obj(vec![
        ("value", st(format!("leaf-{}", rng.hex(8)))),
        ("replicas", num(3)),
    ]);
    for level in (0..depth).rev() {
        value = obj(vec![
            (&format!("level_{level:03}"), value),
            ("name", st(format!("n{level}"))),
            ("enabled", J::Bool(level % 2 == 0)),
        ]);
    }
    value
}

/// A list of lists nested `depth` deep.
fn deep_list(depth: usize) -> J {
    let mut value = strs(&["bottom", "of", "the", "well"]);
    for level in 0..depth {
        value = J::Arr(vec![st(format!("l{level}")), value]);
    }
    value
}

fn manifest(rng: &mut Rng, slug: &str, depth: usize) -> J {
    let mut data = vec![("LOG_LEVEL", st("info")), ("FEATURE_FLAGS", st("a,b,c"))];
    let deep;
    if depth > 0 {
        deep = deep_object(rng, depth);
        data.push(("nested", deep));
    }
    obj(vec![
        ("apiVersion", st("v1")),
        ("kind", st("ConfigMap")),
        (
            "metadata",
            obj(vec![
                ("name", st(slug)),
                ("namespace", st("platform")),
                (
                    "labels",
                    obj(vec![("app.kubernetes.io/managed-by", st("terraform"))]),
                ),
            ]),
        ),
        ("data", obj(data)),
    ])
}

/// A value for attribute `name` that the generic fill would not make look real.
fn hook(rng: &mut Rng, attr: &Attr, ctx: &FillCtx<'_>) -> Option<J> {
    let slug = ctx.slug;
    let v = match (ctx.type_name, attr.name) {
        ("aws_wafv2_web_acl" | "aws_wafv2_ip_set", "id") => st(format!(
            "{}-{}-{}-{}",
            rng.hex(8),
            rng.hex(4),
            rng.hex(4),
            rng.hex(12)
        )),
        (_, "id") => st(match ctx.type_name {
            "aws_instance" => format!("i-{}", rng.hex(17)),
            "aws_security_group" => format!("sg-{}", rng.hex(17)),
            "aws_s3_bucket" => slug.to_string(),
            "aws_db_instance" => format!("db-{}", rng.hex(26).to_uppercase()),
            "aws_ami" => format!("ami-{}", rng.hex(17)),
            "awscc_ec2_vpc" => format!("vpc-{}", rng.hex(17)),
            "random_password" => "none".to_string(),
            _ => format!("arn:aws:iam::123456789012:policy/{slug}"),
        }),
        (_, "arn") => st(format!(
            "arn:aws:{}:us-east-1:123456789012:{}/{}",
            ctx.type_name.split('_').nth(1).unwrap_or("aws"),
            ctx.type_name,
            slug
        )),
        (_, "tags") if attr.req == Req::Computed || rng.chance(85) => match &attr.kind {
            AttrKind::Nested(..) => J::Arr(vec![
                obj(vec![("key", st("Name")), ("value", st(slug))]),
                obj(vec![("key", st("Team")), ("value", st(*rng.pick(WORDS)))]),
            ]),
            _ => tags_for(rng, slug),
        },
        (_, "tags") => J::Null,
        (_, "tags_all") => J::Null, // filled from `tags` afterwards
        (_, "policy") => J::JsonStr(Box::new(match ctx.special {
            Special::BigPolicy => policy_doc(rng, ctx.opts.json_bytes),
            Special::Deep => deep_policy(rng, ctx.opts.depth),
            _ => {
                let bytes = rng.range(300, 2_000);
                policy_doc(rng, bytes)
            }
        })),
        (_, "container_definitions") => J::JsonStr(Box::new(container_definitions(rng, slug))),
        (_, "user_data") if rng.chance(80) => st(user_data(rng, slug)),
        (_, "addresses") => {
            let len = if ctx.special == Special::LongList {
                ctx.opts.list_len
            } else {
                rng.range(2, 40)
            };
            let base = rng.below(1 << 12);
            J::Arr((0..len).map(|i| st(cidr(base + i))).collect())
        }
        (_, "manifest" | "object") => {
            let depth = if ctx.special == Special::Deep {
                ctx.opts.depth
            } else {
                0
            };
            manifest(rng, slug, depth)
        }
        (_, "ami" | "image_id") => st(format!("ami-{}", rng.hex(17))),
        (_, "instance_type") => st(*rng.pick(INSTANCE_TYPES)),
        (_, "instance_class") => st(*rng.pick(DB_CLASSES)),
        (_, "engine") => st("postgres"),
        (_, "engine_version") => st(*rng.pick(&["14.10", "15.4", "16.1"])),
        ("awscc_ec2_vpc", "cidr_block") => st(format!("10.{}.0.0/16", rng.below(256))),
        (_, "cidr_blocks") => strs(&[cidr(rng.below(1 << 16))]),
        (_, "from_port" | "to_port" | "port") => num(*rng.pick(&[22, 80, 443, 5432, 6379, 8080])),
        (_, "protocol") => st(*rng.pick(&["tcp", "udp", "-1"])),
        (_, "name" | "identifier" | "bucket" | "family") if attr.req != Req::Computed => st(slug),
        (_, "password" | "result" | "bcrypt_hash") => st(rng.hex(24)),
        (_, "length") => num(*rng.pick(&[16, 24, 32])),
        (_, "description") => st(format!(
            "Managed by Terraform for {slug} ({} {})",
            rng.pick(WORDS),
            rng.pick(WORDS)
        )),
        (_, "private_ip") => st(format!("10.0.{}.{}", rng.below(256), rng.range(4, 250))),
        (_, "public_ip") => st(format!(
            "54.{}.{}.{}",
            rng.below(256),
            rng.below(256),
            rng.below(256)
        )),
        (_, "vpc_security_group_ids" | "security_groups") => J::Arr(
            (0..rng.range(1, 3))
                .map(|_| st(format!("sg-{}", rng.hex(17))))
                .collect(),
        ),
        (_, "ip_address_version") => st("IPV4"),
        (_, "scope") => st("REGIONAL"),
        _ => return None,
    };
    Some(v)
}

fn fill_ty(rng: &mut Rng, ty: &Ty, ctx: &FillCtx<'_>) -> J {
    match ty {
        Ty::Str => st(format!("{}-{}", rng.pick(WORDS), rng.hex(4))),
        Ty::Num => num(rng.range(1, 1000) as i64),
        Ty::Bool => J::Bool(rng.chance(50)),
        Ty::Dyn => obj(vec![("kind", st(*rng.pick(WORDS)))]),
        Ty::List(t) | Ty::Set(t) => {
            let n = rng.range(0, 3);
            let mut items: Vec<J> = (0..n).map(|_| fill_ty(rng, t, ctx)).collect();
            if matches!(ty, Ty::Set(_)) {
                items.dedup();
            }
            J::Arr(items)
        }
        Ty::Map(t) => {
            let n = rng.range(1, 3);
            let mut members = Vec::new();
            for i in 0..n {
                members.push((format!("{}{}", rng.pick(WORDS), i), fill_ty(rng, t, ctx)));
            }
            members.sort_by(|a, b| a.0.cmp(&b.0));
            J::Obj(members)
        }
        Ty::Obj(fields) => {
            let mut members = Vec::new();
            for (name, t) in fields {
                let fake = Attr {
                    name,
                    kind: AttrKind::Ty(t.clone()),
                    req: Req::Optional,
                    sensitive: false,
                    force_new: false,
                };
                let v = match hook(rng, &fake, ctx) {
                    Some(v) => v,
                    None if rng.chance(75) => fill_ty(rng, t, ctx),
                    None => match t {
                        Ty::List(_) | Ty::Set(_) => J::Arr(Vec::new()),
                        _ => J::Null,
                    },
                };
                members.push((name.to_string(), v));
            }
            members.sort_by(|a, b| a.0.cmp(&b.0));
            J::Obj(members)
        }
    }
}

fn fill_attr(rng: &mut Rng, attr: &Attr, ctx: &FillCtx<'_>) -> J {
    if let Some(v) = hook(rng, attr, ctx) {
        return v;
    }
    let set = match attr.req {
        Req::Required | Req::Computed => true,
        Req::Optional => rng.chance(60),
        Req::OptionalComputed => rng.chance(90),
    };
    if !set {
        return J::Null;
    }
    match &attr.kind {
        AttrKind::Ty(ty) => fill_ty(rng, ty, ctx),
        AttrKind::Nested(nesting, attrs) => {
            let one = |rng: &mut Rng| {
                let mut members: Vec<(String, J)> = attrs
                    .iter()
                    .map(|a| (a.name.to_string(), fill_attr(rng, a, ctx)))
                    .collect();
                members.sort_by(|a, b| a.0.cmp(&b.0));
                J::Obj(members)
            };
            match nesting {
                Nesting::Single => one(rng),
                Nesting::List | Nesting::Set => {
                    J::Arr((0..rng.range(1, 3)).map(|_| one(rng)).collect())
                }
                Nesting::Map => {
                    let mut members = Vec::new();
                    for i in 0..rng.range(1, 2) {
                        members.push((format!("k{i}"), one(rng)));
                    }
                    J::Obj(members)
                }
            }
        }
    }
}

fn fill_block(rng: &mut Rng, block: &Block, ctx: &FillCtx<'_>) -> J {
    let mut members: Vec<(String, J)> = Vec::new();
    for attr in &block.attrs {
        members.push((attr.name.to_string(), fill_attr(rng, attr, ctx)));
    }
    for b in &block.blocks {
        let count = match (ctx.type_name, b.name) {
            // WAF statements: one level of negation per step while `depth` lasts.
            (_, "statement") => 1,
            (_, "not_statement") => usize::from(ctx.special == Special::Deep || rng.chance(30)),
            (_, "rule") if ctx.type_name == "aws_wafv2_web_acl" => rng.range(1, 3),
            _ => match b.max_items {
                Some(1) => usize::from(rng.chance(70)),
                _ => rng.range(0, 2),
            },
        };
        let value = match b.nesting {
            Nesting::Single => {
                if count > 0 {
                    fill_block(rng, &b.block, ctx)
                } else {
                    J::Null
                }
            }
            Nesting::List | Nesting::Set => {
                J::Arr((0..count).map(|_| fill_block(rng, &b.block, ctx)).collect())
            }
            Nesting::Map => J::Obj(
                (0..count)
                    .map(|i| (format!("k{i}"), fill_block(rng, &b.block, ctx)))
                    .collect(),
            ),
        };
        members.push((b.name.to_string(), value));
    }
    members.sort_by(|a, b| a.0.cmp(&b.0));
    let mut value = J::Obj(members);
    // Derived attributes.
    if let Some(J::Obj(tags)) = value.get("tags").cloned() {
        if value.get("tags_all").is_some() {
            let mut all = tags;
            all.push(("ManagedBy".to_string(), st("terraform")));
            all.sort_by(|a, b| a.0.cmp(&b.0));
            value.set("tags_all", J::Obj(all));
        }
    } else if value.get("tags_all").is_some() {
        value.set("tags_all", J::Obj(Vec::new()));
    }
    if ctx.type_name == "kubernetes_manifest" {
        if let Some(manifest) = value.get("manifest").cloned() {
            let mut object = manifest;
            if let Some(meta) = object.get_mut("metadata") {
                meta.set("uid", st(rng.hex(32)));
                meta.set("resourceVersion", st(rng.range(1000, 99999).to_string()));
            }
            value.set("object", object);
        }
    }
    value
}

/// Replaces computed values by unknowns (a create or replace): `Computed` always,
/// `OptionalComputed` sometimes (when not configured).
fn unknown_computed(rng: &mut Rng, value: &mut J, block: &Block) {
    for attr in &block.attrs {
        let make_unknown = match attr.req {
            Req::Computed => true,
            Req::OptionalComputed => rng.chance(30),
            _ => false,
        };
        if make_unknown && attr.name != "tags_all" {
            value.set(attr.name, J::Unknown);
        }
    }
    for b in &block.blocks {
        if let Some(J::Arr(items)) = value.get_mut(b.name) {
            for item in items {
                unknown_computed(rng, item, &b.block);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Changes to values

/// Changes one scalar-ish thing inside `value` (shape-driven).
fn mutate(rng: &mut Rng, value: &mut J) -> bool {
    match value {
        J::Null | J::Unknown | J::Raw(_) => false,
        J::Bool(b) => {
            *b = !*b;
            true
        }
        J::Num(n) => {
            let v: i64 = n.parse().unwrap_or(0);
            *n = (v + 1 + rng.below(100) as i64).to_string();
            true
        }
        J::Str(s) => {
            if s.contains('\n') {
                let mut lines: Vec<String> = s.lines().map(str::to_string).collect();
                let at = rng.below(lines.len());
                if rng.chance(50) {
                    lines[at] = format!("echo \"changed {}\"", rng.hex(6));
                } else {
                    lines.insert(at, format!("export EXTRA_{}=1", rng.hex(4).to_uppercase()));
                }
                *s = lines.join("\n") + "\n";
            } else if let Some((head, _)) = s.rsplit_once('-') {
                *s = format!("{head}-{}", rng.hex(4));
            } else {
                s.push_str("-v2");
            }
            true
        }
        J::JsonStr(inner) => {
            edit_document(rng, inner, 1);
            true
        }
        J::Arr(items) => {
            if items.is_empty() {
                return false;
            }
            if items.iter().all(|i| matches!(i, J::Str(_))) {
                edit_list(rng, items, 1, |rng, n| {
                    st(format!("added-{}-{n}", rng.hex(6)))
                });
                true
            } else {
                let at = rng.below(items.len());
                mutate(rng, &mut items[at])
            }
        }
        J::Obj(members) => {
            if members.is_empty() {
                members.push(("added".to_string(), st(rng.hex(6))));
                return true;
            }
            // Tags-like maps gain, lose or change a key; records change a member.
            let is_map = members.iter().all(|(_, v)| matches!(v, J::Str(_)));
            if is_map && rng.chance(40) {
                if rng.chance(50) && members.len() > 1 {
                    let at = rng.below(members.len());
                    members.remove(at);
                } else {
                    members.push((format!("Added{}", rng.hex(3)), st(rng.hex(8))));
                    members.sort_by(|a, b| a.0.cmp(&b.0));
                    members.dedup_by(|a, b| a.0 == b.0);
                }
                return true;
            }
            let candidates: Vec<usize> = (0..members.len())
                .filter(|&i| !matches!(members[i].1, J::Null | J::Unknown))
                .collect();
            if candidates.is_empty() {
                return false;
            }
            let at = *rng.pick(&candidates);
            mutate(rng, &mut members[at].1)
        }
    }
}

/// `edits` scattered changes to a list: replacements, insertions and deletions in turn.
fn edit_list(rng: &mut Rng, items: &mut Vec<J>, edits: usize, make: impl Fn(&mut Rng, usize) -> J) {
    for e in 0..edits {
        if items.is_empty() {
            items.push(make(rng, e));
            continue;
        }
        let at = rng.below(items.len());
        match e % 3 {
            0 => items[at] = make(rng, e),
            1 => items.insert(at, make(rng, e)),
            _ => {
                items.remove(at);
            }
        }
    }
}

/// Small changes to a JSON document: statements edited, added and removed.
fn edit_document(rng: &mut Rng, doc: &mut J, edits: usize) {
    if !matches!(doc, J::Arr(_)) && !matches!(doc.get("Statement"), Some(J::Arr(_))) {
        mutate(rng, doc);
        return;
    }
    let items = match doc {
        J::Arr(items) => items,
        J::Obj(members) => match members.iter_mut().find(|(k, _)| k == "Statement") {
            Some((_, J::Arr(items))) => items,
            _ => return,
        },
        _ => return,
    };
    let len = items.len();
    for e in 0..edits {
        if items.is_empty() {
            break;
        }
        let at = rng.below(items.len());
        match e % 4 {
            1 if len > 1 => {
                let s = statement(rng, 900_000 + e);
                items.insert(at, s);
            }
            3 if items.len() > 1 => {
                items.remove(at);
            }
            _ => {
                mutate(rng, &mut items[at]);
            }
        }
    }
}

/// How deeply `value` nests (a scalar is 0).
fn nesting(value: &J) -> usize {
    match value {
        J::Obj(members) => 1 + members.iter().map(|(_, v)| nesting(v)).max().unwrap_or(0),
        J::Arr(items) => 1 + items.iter().map(nesting).max().unwrap_or(0),
        J::JsonStr(inner) => nesting(inner),
        _ => 0,
    }
}

/// The deepest object inside `value` (looking into JSON strings too).
fn deepest(value: &mut J) -> &mut J {
    let next = match &*value {
        J::Obj(members) => members
            .iter()
            .enumerate()
            .filter(|(_, (_, v))| nesting(v) > 0)
            .max_by_key(|(i, (_, v))| (nesting(v), usize::MAX - i))
            .map(|(i, _)| i),
        J::Arr(items) => items
            .iter()
            .enumerate()
            .filter(|(_, v)| nesting(v) > 0)
            .max_by_key(|(i, v)| (nesting(v), usize::MAX - i))
            .map(|(i, _)| i),
        J::JsonStr(_) => Some(0),
        _ => None,
    };
    match (value, next) {
        (J::Obj(members), Some(ix)) => deepest(&mut members[ix].1),
        (J::Arr(items), Some(ix)) => deepest(&mut items[ix]),
        (J::JsonStr(inner), Some(_)) => deepest(inner),
        (value, _) => value,
    }
}

/// Is the member present and not null?
fn present(value: Option<&J>) -> bool {
    value.is_some_and(|v| !v.is_null())
}

// ---------------------------------------------------------------------------------------
// Resource changes

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Act {
    Create,
    Update,
    /// `true`: create before destroy.
    Replace(bool),
    Delete,
    Read,
    NoOp,
}

impl Act {
    fn actions(self) -> J {
        strs(match self {
            Act::Create => &["create"][..],
            Act::Update => &["update"],
            Act::Replace(false) => &["delete", "create"],
            Act::Replace(true) => &["create", "delete"],
            Act::Delete => &["delete"],
            Act::Read => &["read"],
            Act::NoOp => &["no-op"],
        })
    }
}

/// One generated resource instance, serialized.
struct Generated {
    address: String,
    /// `resource_changes` entry, if it has one.
    change: Option<String>,
    /// `planned_values` entry (module path, JSON).
    planned: Option<String>,
    /// `prior_state` entry.
    prior: Option<String>,
    /// `resource_drift` entry.
    drift: Option<String>,
    /// `relevant_attributes` entries.
    relevant: Vec<String>,
    /// Status for a check, if the instance has one.
    check: Option<(&'static str, String)>,
}

fn choose_action(rng: &mut Rng, kind: Kind, data: bool) -> Option<Act> {
    if data {
        return match kind {
            Kind::Creates | Kind::Replaces | Kind::Drift => None,
            _ if rng.chance(35) => Some(Act::Read),
            _ => None,
        };
    }
    Some(match kind {
        Kind::Creates => Act::Create,
        Kind::Replaces => Act::Replace(rng.chance(25)),
        Kind::Drift => Act::NoOp,
        _ => match rng.below(100) {
            0..=21 => Act::Create,
            22..=51 => Act::Update,
            52..=61 => Act::Replace(rng.chance(30)),
            62..=69 => Act::Delete,
            _ => Act::NoOp,
        },
    })
}

fn resource_json(
    instance: &Instance,
    t: &ResourceType,
    address: &str,
    values: J,
    sensitive: J,
) -> String {
    let mut members = vec![
        ("address", st(address)),
        ("mode", st(if t.data { "data" } else { "managed" })),
        ("type", st(t.name)),
        ("name", st(instance.name)),
    ];
    if let Some(key) = &instance.key {
        members.push(("index", key.json()));
    }
    members.push(("provider_name", st(t.provider)));
    members.push(("schema_version", num(i64::from(t.name == "aws_instance"))));
    members.push(("values", values));
    members.push(("sensitive_values", sensitive));
    rec(members).to_json()
}

#[allow(clippy::too_many_arguments)]
fn change_json(
    instance: &Instance,
    t: &ResourceType,
    address: &str,
    act: Act,
    before: &J,
    after: &J,
    before_sensitive: J,
    after_sensitive: J,
    replace_paths: Option<J>,
    reason: Option<&str>,
    extra: &[(&str, J)],
) -> String {
    let mut members = vec![("address", st(address))];
    for (k, v) in extra.iter().filter(|(k, _)| *k == "previous_address") {
        members.push((k, v.clone()));
    }
    if !instance.module.is_empty() {
        members.push(("module_address", st(module_address(&instance.module))));
    }
    members.push(("mode", st(if t.data { "data" } else { "managed" })));
    members.push(("type", st(t.name)));
    members.push(("name", st(instance.name)));
    if let Some(key) = &instance.key {
        members.push(("index", key.json()));
    }
    for (k, v) in extra.iter().filter(|(k, _)| *k == "deposed") {
        members.push((k, v.clone()));
    }
    members.push(("provider_name", st(t.provider)));
    let after_unknown = match after {
        J::Null => J::Obj(Vec::new()),
        v => root_unknown(v),
    };
    let mut change = vec![
        ("actions", act.actions()),
        ("before", before.clone()),
        ("after", after.clone()),
        ("after_unknown", after_unknown),
        ("before_sensitive", before_sensitive),
        ("after_sensitive", after_sensitive),
    ];
    if let Some(paths) = replace_paths {
        change.push(("replace_paths", paths));
    }
    for (k, v) in extra.iter().filter(|(k, _)| *k == "importing") {
        change.push((k, v.clone()));
    }
    members.push(("change", rec(change)));
    if let Some(reason) = reason {
        members.push(("action_reason", st(reason)));
    }
    rec(members).to_json()
}

fn generate(
    rng: &mut Rng,
    instance: &Instance,
    types: &[ResourceType],
    opts: &Options,
    act: Option<Act>,
) -> Generated {
    let t = &types[instance.type_index];
    let address = instance.address(types);
    let slug = instance.slug();
    let ctx = FillCtx {
        type_name: t.name,
        slug: &slug,
        special: instance.special,
        opts,
    };
    let sensitive_attrs = t.sensitive_attrs();
    let state = fill_block(rng, &t.block, &ctx);
    // Some user_data reads a sensitive variable.
    let mut sensitive_before = sensitive_attrs.clone();
    let mut sensitive_after = sensitive_attrs.clone();
    if t.name == "aws_instance" && rng.chance(5) {
        sensitive_after.push("user_data");
        if rng.chance(70) {
            sensitive_before.push("user_data");
        }
    }
    let mut out = Generated {
        address: address.clone(),
        change: None,
        planned: None,
        prior: None,
        drift: None,
        relevant: Vec::new(),
        check: None,
    };
    let Some(act) = act else {
        // A data source read during planning: in the states only.
        let sens = root_sensitive(&state, &sensitive_after);
        out.planned = Some(resource_json(
            instance,
            t,
            &address,
            state.clone(),
            sens.clone(),
        ));
        out.prior = Some(resource_json(instance, t, &address, state, sens));
        return out;
    };
    let mut extra: Vec<(&str, J)> = Vec::new();
    let mut replace_paths = None;
    let mut reason: Option<&str> = None;
    let (before, after) = match act {
        Act::Create => {
            let mut after = state.clone();
            unknown_computed(rng, &mut after, &t.block);
            // A list that mentions something not yet created.
            if let Some(J::Arr(ids)) = after.get_mut("vpc_security_group_ids") {
                if rng.chance(30) {
                    ids.push(J::Unknown);
                }
            }
            (J::Null, after)
        }
        Act::Read => {
            let mut after = state.clone();
            unknown_computed(rng, &mut after, &t.block);
            reason = Some(if rng.chance(50) {
                "read_because_config_unknown"
            } else {
                "read_because_dependency_pending"
            });
            (J::Null, after)
        }
        Act::Update | Act::NoOp => {
            let mut after = state.clone();
            if act == Act::Update {
                update(rng, &mut after, t, instance.special);
            }
            (state.clone(), after)
        }
        Act::Replace(_) => {
            let mut after = state.clone();
            let forcing: Vec<&str> = t
                .block
                .attrs
                .iter()
                .filter(|a| a.force_new && present(state.get(a.name)))
                .map(|a| a.name)
                .collect();
            let roll = rng.below(100);
            if !forcing.is_empty() && roll < 80 {
                let name = *rng.pick(&forcing);
                if let Some(v) = after.get_mut(name) {
                    mutate(rng, v);
                }
                replace_paths = Some(J::Arr(vec![strs(&[name])]));
                reason = Some("replace_because_cannot_update");
            } else if roll < 92 {
                reason = Some("replace_because_tainted");
            } else {
                reason = Some("replace_by_request");
            }
            if rng.chance(40) {
                update(rng, &mut after, t, instance.special);
            }
            unknown_computed(rng, &mut after, &t.block);
            (state.clone(), after)
        }
        Act::Delete => {
            reason = match instance.repeat {
                _ if rng.chance(50) => None,
                Repeat::Single => Some("delete_because_no_resource_config"),
                Repeat::Count => Some("delete_because_count_index"),
                Repeat::ForEach => Some("delete_because_each_key"),
            };
            (state.clone(), J::Null)
        }
    };
    // A few extras only the mixed plan has.
    if opts.kind == Kind::Mixed {
        if address == "aws_s3_bucket.logs" {
            extra.push(("previous_address", st("aws_s3_bucket.log")));
        }
        if address == IMPORTED && matches!(act, Act::Update | Act::NoOp) {
            extra.push(("importing", obj(vec![("id", st(slug.clone()))])));
        }
    }
    let before_sensitive = root_sensitive(&before, &sensitive_before);
    let after_sensitive = root_sensitive(&after, &sensitive_after);
    out.change = Some(change_json(
        instance,
        t,
        &address,
        act,
        &before,
        &after,
        before_sensitive.clone(),
        after_sensitive.clone(),
        replace_paths,
        reason,
        &extra,
    ));
    if !after.is_null() {
        out.planned = Some(resource_json(
            instance,
            t,
            &address,
            after.clone(),
            after_sensitive,
        ));
    }
    if !before.is_null() {
        out.prior = Some(resource_json(
            instance,
            t,
            &address,
            before.clone(),
            before_sensitive.clone(),
        ));
    }
    // Drift: tags changed outside Terraform on some existing resources (on every one
    // that has tags, in the drift plan, which has no changes: it is refresh-only).
    if opts.kind == Kind::Drift {
        out.change = None;
    }
    let has_tags = before.get("tags").is_some_and(|t| matches!(t, J::Obj(_)));
    let drifts = match opts.kind {
        Kind::Drift => has_tags,
        Kind::Mixed => matches!(act, Act::Update | Act::NoOp) && has_tags && rng.chance(4),
        _ => false,
    };
    if drifts {
        let mut drifted = before.clone();
        if let Some(J::Obj(tags)) = drifted.get_mut("tags") {
            tags.retain(|(k, _)| k != "Owner");
            tags.push(("Owner".to_string(), st("someone-else@example.com")));
            tags.sort_by(|a, b| a.0.cmp(&b.0));
        }
        out.drift = Some(change_json(
            instance,
            t,
            &address,
            Act::Update,
            &drifted,
            &before,
            root_sensitive(&drifted, &sensitive_before),
            before_sensitive,
            None,
            None,
            &[],
        ));
        if opts.kind == Kind::Mixed && rng.chance(60) {
            out.relevant.push(
                rec(vec![
                    ("resource", st(address.clone())),
                    ("attribute", strs(&["tags"])),
                ])
                .to_json(),
            );
        }
    }
    if t.name == "aws_db_instance" && instance.name == "primary" {
        let status = match act {
            Act::Create | Act::Replace(_) => "unknown",
            Act::Delete => "pass",
            _ if rng.chance(3) => "fail",
            _ => "pass",
        };
        out.check = Some((status, address.clone()));
    }
    out
}

/// An in-place update: a few attributes change, some computed ones become unknown.
fn update(rng: &mut Rng, value: &mut J, t: &ResourceType, special: Special) {
    match special {
        Special::LongList => {
            if let Some(J::Arr(items)) = value.get_mut("addresses") {
                edit_list(rng, items, 20, |rng, n| {
                    st(format!("192.168.{}.{}/32", n, rng.below(256)))
                });
            }
            return;
        }
        Special::BigPolicy => {
            if let Some(J::JsonStr(doc)) = value.get_mut("policy") {
                edit_document(rng, doc, 9);
            }
            return;
        }
        Special::Deep => {
            for (name, leaf) in [("manifest", "value"), ("policy", "value"), ("rule", "arn")] {
                if let Some(v) = value.get_mut(name) {
                    if nesting(v) > 0 {
                        deepest(v).set(leaf, st("changed-at-the-bottom"));
                    }
                }
            }
            if t.name == "kubernetes_manifest" {
                value.set("object", J::Unknown);
            }
            return;
        }
        Special::None => {}
    }
    let candidates: Vec<&str> = t
        .block
        .attrs
        .iter()
        .filter(|a| {
            !a.force_new
                && matches!(a.req, Req::Required | Req::Optional | Req::OptionalComputed)
                && a.name != "tags_all"
                && present(value.get(a.name))
        })
        .map(|a| a.name)
        .chain(t.block.blocks.iter().map(|b| b.name))
        .collect();
    let mut changed = false;
    for _ in 0..rng.range(1, 3) {
        if candidates.is_empty() {
            break;
        }
        let name = *rng.pick(&candidates);
        if let Some(v) = value.get_mut(name) {
            changed |= mutate(rng, v);
        }
        if name == "tags" {
            if let Some(J::Obj(mut all)) = value.get("tags").cloned() {
                all.push(("ManagedBy".to_string(), st("terraform")));
                all.sort_by(|a, b| a.0.cmp(&b.0));
                value.set("tags_all", J::Obj(all));
            }
        }
    }
    if !changed {
        value.set("tags", obj(vec![("Touched", st(rng.hex(6)))]));
    }
    if t.name == "kubernetes_manifest" {
        value.set("object", J::Unknown);
    } else if rng.chance(15) {
        let computed: Vec<&str> = t
            .block
            .attrs
            .iter()
            .filter(|a| a.req == Req::Computed && a.name != "id" && !a.sensitive)
            .map(|a| a.name)
            .collect();
        if !computed.is_empty() {
            let name = *rng.pick(&computed);
            value.set(name, J::Unknown);
        }
    }
}

// ---------------------------------------------------------------------------------------
// The document

/// Module tree of resource JSON strings, for `planned_values` and `prior_state`.
#[derive(Default)]
struct ModuleTree {
    resources: Vec<(String, String)>,
    children: BTreeMap<String, ModuleTree>,
}

impl ModuleTree {
    fn insert(&mut self, module: &[(&'static str, Option<Key>)], address: String, json: String) {
        let mut node = self;
        for depth in 1..=module.len() {
            node = node
                .children
                .entry(module_address(&module[..depth]))
                .or_default();
        }
        node.resources.push((address, json));
    }

    fn write(&mut self, address: Option<&str>, out: &mut String) {
        out.push('{');
        let mut first = true;
        if !self.resources.is_empty() {
            self.resources.sort_by(|a, b| a.0.cmp(&b.0));
            out.push_str("\"resources\":[");
            for (i, (_, json)) in self.resources.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(json);
            }
            out.push(']');
            first = false;
        }
        if let Some(address) = address {
            if !first {
                out.push(',');
            }
            out.push_str("\"address\":");
            write_str(address, out);
            first = false;
        }
        if !self.children.is_empty() {
            if !first {
                out.push(',');
            }
            out.push_str("\"child_modules\":[");
            for (i, (addr, child)) in self.children.iter_mut().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                child.write(Some(addr), out);
            }
            out.push(']');
        }
        out.push('}');
    }
}

/// Output changes and values.
struct Output {
    name: &'static str,
    change: J,
    planned: Option<J>,
    prior: Option<J>,
    sensitive: bool,
}

fn output(name: &'static str, before: J, after: J, sensitive: bool) -> Output {
    let unknown = after == J::Unknown;
    let actions = match (&before, &after) {
        (J::Null, J::Null) => "no-op",
        (J::Null, _) => "create",
        (_, J::Null) => "delete",
        (b, a) if b == a => "no-op",
        _ => "update",
    };
    let change = rec(vec![
        ("actions", strs(&[actions])),
        ("before", before.clone()),
        ("after", after.clone()),
        (
            "after_unknown",
            if unknown {
                J::Bool(true)
            } else {
                unknown_as_bool(&after)
            },
        ),
        ("before_sensitive", J::Bool(sensitive && !before.is_null())),
        ("after_sensitive", J::Bool(sensitive && !after.is_null())),
    ]);
    let typed = |v: &J| {
        let ty = match v {
            J::Str(_) => st("string"),
            J::Num(_) => st("number"),
            J::Bool(_) => st("bool"),
            J::Arr(items) => J::Arr(vec![
                st("tuple"),
                J::Arr(items.iter().map(|_| st("string")).collect()),
            ]),
            _ => J::Arr(vec![st("map"), st("string")]),
        };
        rec(vec![
            ("sensitive", J::Bool(sensitive)),
            ("type", ty),
            ("value", v.clone()),
        ])
    };
    Output {
        name,
        change,
        planned: (!after.is_null() && !unknown).then(|| typed(&after)),
        prior: (!before.is_null()).then(|| typed(&before)),
        sensitive,
    }
}

fn outputs(rng: &mut Rng, opts: &Options) -> Vec<Output> {
    let mut out = vec![
        output(
            "vpc_id",
            st(format!("vpc-{}", rng.hex(17))),
            st(format!("vpc-{}", rng.hex(17))),
            false,
        ),
        output("admin_password", st(rng.hex(16)), st(rng.hex(16)), true),
        output("load_balancer_dns", J::Null, J::Unknown, false),
        output(
            "service_urls",
            obj(vec![
                ("api", st("https://api.example.com")),
                ("web", st("https://www.example.com")),
            ]),
            obj(vec![
                ("api", st("https://api.example.com/v2")),
                ("web", st("https://www.example.com")),
            ]),
            false,
        ),
    ];
    match opts.kind {
        Kind::LongList => {
            let before: Vec<J> = (0..opts.list_len).map(|i| st(cidr(i))).collect();
            let mut after = before.clone();
            edit_list(rng, &mut after, 20, |rng, n| {
                st(format!("172.16.{n}.{}/32", rng.below(256)))
            });
            out.push(output(
                "blocked_cidrs",
                J::Arr(before),
                J::Arr(after),
                false,
            ));
        }
        Kind::Deep => {
            let before = deep_object(&mut Rng::new(opts.seed), opts.depth);
            let mut after = before.clone();
            deepest(&mut after).set("value", st("changed"));
            out.push(output("deep_settings", before, after, false));
        }
        _ => {}
    }
    out.sort_by(|a, b| a.name.cmp(b.name));
    out
}

fn expressions(block: &Block, rng: &mut Rng) -> J {
    let mut members: Vec<(&str, J)> = Vec::new();
    for attr in &block.attrs {
        if attr.req == Req::Computed {
            continue;
        }
        let e = if rng.chance(50) {
            obj(vec![(
                "references",
                strs(&[format!("var.{}", attr.name), "var".to_string()]),
            )])
        } else {
            match &attr.kind {
                AttrKind::Ty(Ty::Str) => obj(vec![("constant_value", st("configured"))]),
                _ => obj(vec![(
                    "references",
                    strs(&[format!("local.{}", attr.name), "local".to_string()]),
                )]),
            }
        };
        members.push((attr.name, e));
    }
    for b in &block.blocks {
        let inner = expressions(&b.block, rng);
        let e = match b.nesting {
            Nesting::Single => inner,
            _ => J::Arr(vec![inner]),
        };
        members.push((b.name, e));
    }
    obj(members)
}

/// Configuration modules: call name → (resources, calls).
#[derive(Default)]
struct ConfigModule {
    resources: BTreeMap<String, J>,
    calls: BTreeMap<&'static str, ConfigModule>,
    repeat: Option<Repeat>,
}

impl ConfigModule {
    fn add(&mut self, instance: &Instance, types: &[ResourceType], rng: &mut Rng) {
        let mut node = self;
        for (name, key) in &instance.module {
            node = node.calls.entry(name).or_default();
            node.repeat = Some(match key {
                None => Repeat::Single,
                Some(Key::Int(_)) => Repeat::Count,
                Some(Key::Str(_)) => Repeat::ForEach,
            });
        }
        let t = &types[instance.type_index];
        let address = format!(
            "{}{}.{}",
            if t.data { "data." } else { "" },
            t.name,
            instance.name
        );
        if node.resources.contains_key(&address) {
            return;
        }
        let provider_key = t.provider.rsplit('/').next().unwrap_or(t.provider);
        let mut members = vec![
            ("address", st(address.clone())),
            ("mode", st(if t.data { "data" } else { "managed" })),
            ("type", st(t.name)),
            ("name", st(instance.name)),
            ("provider_config_key", st(provider_key)),
            ("expressions", expressions(&t.block, rng)),
            ("schema_version", num(i64::from(t.name == "aws_instance"))),
        ];
        match instance.repeat {
            Repeat::Count => members.push((
                "count_expression",
                obj(vec![("references", strs(&["var.node_count", "var"]))]),
            )),
            Repeat::ForEach => members.push((
                "for_each_expression",
                obj(vec![("references", strs(&["local.tiers", "local"]))]),
            )),
            Repeat::Single => {}
        }
        node.resources.insert(address, rec(members));
    }

    fn to_json(&self, root: Option<&[Output]>) -> J {
        let mut members = Vec::new();
        if let Some(outputs) = root {
            members.push((
                "outputs",
                obj(outputs
                    .iter()
                    .map(|o| {
                        let mut m = vec![(
                            "expression",
                            obj(vec![(
                                "references",
                                strs(&[format!("local.{}", o.name), "local".to_string()]),
                            )]),
                        )];
                        if o.sensitive {
                            m.push(("sensitive", J::Bool(true)));
                        }
                        (o.name, rec(m))
                    })
                    .collect()),
            ));
        }
        if !self.resources.is_empty() {
            members.push((
                "resources",
                J::Arr(self.resources.values().cloned().collect()),
            ));
        }
        if !self.calls.is_empty() {
            members.push((
                "module_calls",
                obj(self
                    .calls
                    .iter()
                    .map(|(name, call)| {
                        let mut m = vec![
                            ("source", st(format!("./modules/{name}"))),
                            (
                                "expressions",
                                obj(vec![(
                                    "name",
                                    obj(vec![("references", strs(&["each.key", "each"]))]),
                                )]),
                            ),
                        ];
                        match call.repeat {
                            Some(Repeat::Count) => {
                                m.push(("count_expression", obj(vec![("constant_value", num(1))])))
                            }
                            Some(Repeat::ForEach) => m.push((
                                "for_each_expression",
                                obj(vec![("references", strs(&["var.services", "var"]))]),
                            )),
                            _ => {}
                        }
                        m.push(("module", call.to_json(None)));
                        (*name, rec(m))
                    })
                    .collect()),
            ));
        }
        if root.is_some() {
            members.push((
                "variables",
                obj(vec![
                    (
                        "db_password",
                        rec(vec![
                            ("description", st("Master password")),
                            ("sensitive", J::Bool(true)),
                        ]),
                    ),
                    ("environment", rec(vec![("default", st("prod"))])),
                ]),
            ));
        }
        rec(members)
    }
}

/// The special resources of the pathological kinds (and the extras of `mixed`).
fn specials(types: &[ResourceType], opts: &Options) -> Vec<Instance> {
    let mk = |module: ModulePath, type_name: &str, name: &'static str, special| Instance {
        module,
        type_index: type_index(types, type_name, false),
        name,
        repeat: Repeat::Single,
        key: None,
        special,
    };
    let network: ModulePath = vec![("network", None)];
    match opts.kind {
        Kind::Mixed if opts.resources > 0 => vec![
            mk(Vec::new(), "aws_iam_policy", "org", Special::BigPolicy),
            mk(network, "aws_wafv2_ip_set", "blocklist", Special::LongList),
            mk(Vec::new(), "kubernetes_manifest", "platform", Special::Deep),
        ],
        Kind::LongList => vec![mk(
            network,
            "aws_wafv2_ip_set",
            "blocklist",
            Special::LongList,
        )],
        Kind::BigJson => vec![mk(Vec::new(), "aws_iam_policy", "org", Special::BigPolicy)],
        Kind::Deep => {
            let levels = opts.depth.min(20);
            let chain: ModulePath = (0..levels)
                .map(|i| (LEVELS[i], (i % 3 == 1).then_some(Key::Int(0))))
                .collect();
            vec![
                mk(Vec::new(), "kubernetes_manifest", "deep", Special::Deep),
                mk(Vec::new(), "aws_iam_policy", "deep", Special::Deep),
                mk(Vec::new(), "aws_wafv2_web_acl", "deep", Special::Deep),
                mk(chain, "aws_s3_bucket", "bottom", Special::None),
            ]
        }
        _ => Vec::new(),
    }
}

const LEVELS: [&str; 20] = [
    "l00", "l01", "l02", "l03", "l04", "l05", "l06", "l07", "l08", "l09", "l10", "l11", "l12",
    "l13", "l14", "l15", "l16", "l17", "l18", "l19",
];

/// A deep policy: statements whose condition nests `depth` deep.
fn deep_policy(rng: &mut Rng, depth: usize) -> J {
    obj(vec![
        ("Version", st("2012-10-17")),
        (
            "Statement",
            J::Arr(vec![obj(vec![
                ("Sid", st("Deep")),
                ("Effect", st("Allow")),
                ("Action", strs(&["s3:GetObject"])),
                ("Resource", st("*")),
                ("Condition", deep_object(rng, depth)),
            ])]),
        ),
    ])
}

/// The mixed plan's resource being imported (and updated).
const IMPORTED: &str = "module.network.aws_security_group.tier[\"web\"]";

/// `terraform show -json` output for `opts` (one line, like Terraform's, plus a newline).
pub fn plan(opts: &Options) -> String {
    let types = catalog(waf_steps(opts));
    let mut rng = Rng::new(opts.seed);
    let mut layout = Layout::new(&types, rng.fork());
    let mut instances: Vec<(Instance, Option<Act>)> = Vec::new();
    let mut action_rng = rng.fork();
    for special in specials(&types, opts) {
        let act = match (opts.kind, special.special) {
            (Kind::Deep, Special::None) => Act::Create,
            _ => Act::Update,
        };
        instances.push((special, Some(act)));
    }
    let mut changes = 0;
    while changes < opts.resources {
        let instance = layout.next();
        let data = types[instance.type_index].data;
        let mut act = choose_action(&mut action_rng, opts.kind, data);
        if opts.kind == Kind::Mixed && instance.address(&types) == IMPORTED {
            act = Some(Act::Update);
        }
        if data && matches!(opts.kind, Kind::Creates | Kind::Replaces | Kind::Drift) {
            continue;
        }
        if act.is_some() {
            changes += 1;
        }
        instances.push((instance, act));
    }

    let mut value_rng = rng.fork();
    let mut resource_changes: Vec<(String, String)> = Vec::new();
    let mut drift: Vec<(String, String)> = Vec::new();
    let mut relevant: Vec<String> = Vec::new();
    let mut planned = ModuleTree::default();
    let mut prior = ModuleTree::default();
    let mut config = ConfigModule::default();
    let mut check_instances: Vec<(String, &'static str)> = Vec::new();
    let mut config_rng = rng.fork();
    for (instance, act) in &instances {
        let mut r = value_rng.fork();
        let generated = generate(&mut r, instance, &types, opts, *act);
        config.add(instance, &types, &mut config_rng);
        if let Some(change) = generated.change {
            resource_changes.push((generated.address.clone(), change));
        }
        if let Some(json) = generated.planned {
            planned.insert(&instance.module, generated.address.clone(), json);
        }
        if let Some(json) = generated.prior {
            prior.insert(&instance.module, generated.address.clone(), json);
        }
        if let Some(json) = generated.drift {
            drift.push((generated.address.clone(), json));
        }
        relevant.extend(generated.relevant);
        if let Some((status, address)) = generated.check {
            check_instances.push((address, status));
        }
    }
    // A deposed object left by create_before_destroy, in the mixed plan.
    if opts.kind == Kind::Mixed && opts.resources > 0 {
        let instance = Instance {
            module: Vec::new(),
            type_index: type_index(&types, "aws_s3_bucket", false),
            name: "logs",
            repeat: Repeat::Single,
            key: None,
            special: Special::None,
        };
        let t = &types[instance.type_index];
        let slug = instance.slug();
        let ctx = FillCtx {
            type_name: t.name,
            slug: &slug,
            special: Special::None,
            opts,
        };
        let before = fill_block(&mut value_rng, &t.block, &ctx);
        let sens = root_sensitive(&before, &[]);
        resource_changes.push((
            "aws_s3_bucket.logs".to_string(),
            change_json(
                &instance,
                t,
                "aws_s3_bucket.logs",
                Act::Delete,
                &before,
                &J::Null,
                sens,
                J::Bool(false),
                None,
                None,
                &[("deposed", st(value_rng.hex(8)))],
            ),
        ));
    }
    // Terraform sorts by address (deposed objects after the current one).
    resource_changes.sort_by(|a, b| a.0.cmp(&b.0));
    drift.sort_by(|a, b| a.0.cmp(&b.0));

    let outs = outputs(&mut rng, opts);
    let mut doc = String::with_capacity(
        resource_changes
            .iter()
            .map(|(_, j)| j.len() * 2 + 2)
            .sum::<usize>()
            + 4096,
    );
    doc.push_str("{\"format_version\":\"1.2\",\"terraform_version\":\"1.9.8\",");
    doc.push_str("\"variables\":");
    obj(vec![
        ("db_password", obj(vec![("value", st(rng.hex(20)))])),
        ("environment", obj(vec![("value", st("prod"))])),
    ])
    .write(&mut doc);
    doc.push_str(",\"planned_values\":{\"outputs\":");
    obj(outs
        .iter()
        .filter_map(|o| o.planned.clone().map(|p| (o.name, p)))
        .collect())
    .write(&mut doc);
    doc.push_str(",\"root_module\":");
    planned.write(None, &mut doc);
    doc.push('}');
    if !drift.is_empty() {
        doc.push_str(",\"resource_drift\":");
        join(&mut doc, drift.iter().map(|(_, j)| j.as_str()));
    }
    doc.push_str(",\"resource_changes\":");
    join(&mut doc, resource_changes.iter().map(|(_, j)| j.as_str()));
    doc.push_str(",\"output_changes\":");
    obj(outs.iter().map(|o| (o.name, o.change.clone())).collect()).write(&mut doc);
    doc.push_str(",\"prior_state\":{\"format_version\":\"1.0\",\"terraform_version\":\"1.9.8\",\"values\":{\"outputs\":");
    obj(outs
        .iter()
        .filter_map(|o| o.prior.clone().map(|p| (o.name, p)))
        .collect())
    .write(&mut doc);
    doc.push_str(",\"root_module\":");
    prior.write(None, &mut doc);
    doc.push_str("}}");
    doc.push_str(",\"configuration\":");
    let provider_config = obj(vec![
        (
            "aws",
            rec(vec![
                ("name", st("aws")),
                ("full_name", st(AWS)),
                ("version_constraint", st("~> 5.0")),
                (
                    "expressions",
                    obj(vec![(
                        "region",
                        obj(vec![("constant_value", st("us-east-1"))]),
                    )]),
                ),
            ]),
        ),
        (
            "awscc",
            rec(vec![("name", st("awscc")), ("full_name", st(AWSCC))]),
        ),
        (
            "kubernetes",
            rec(vec![
                ("name", st("kubernetes")),
                ("full_name", st(KUBERNETES)),
            ]),
        ),
        (
            "random",
            rec(vec![("name", st("random")), ("full_name", st(RANDOM))]),
        ),
    ]);
    rec(vec![
        ("provider_config", provider_config),
        ("root_module", config.to_json(Some(&outs))),
    ])
    .write(&mut doc);
    if !relevant.is_empty() {
        relevant.sort();
        doc.push_str(",\"relevant_attributes\":");
        join(&mut doc, relevant.iter().map(String::as_str));
    }
    doc.push_str(",\"checks\":");
    checks(&check_instances).write(&mut doc);
    doc.push_str(",\"timestamp\":\"2024-05-01T12:00:00Z\",\"applyable\":true,\"complete\":true,\"errored\":false}\n");
    doc
}

fn join<'s>(out: &mut String, items: impl Iterator<Item = &'s str>) {
    out.push('[');
    for (i, item) in items.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(item);
    }
    out.push(']');
}

fn checks(instances: &[(String, &'static str)]) -> J {
    let mut out = vec![rec(vec![
        (
            "address",
            rec(vec![
                ("kind", st("output_value")),
                ("name", st("vpc_id")),
                ("to_display", st("output.vpc_id")),
            ]),
        ),
        ("status", st("pass")),
        (
            "instances",
            J::Arr(vec![rec(vec![
                ("address", rec(vec![("to_display", st("output.vpc_id"))])),
                ("status", st("pass")),
            ])]),
        ),
    ])];
    if !instances.is_empty() {
        let status = if instances.iter().any(|(_, s)| *s == "fail") {
            "fail"
        } else if instances.iter().any(|(_, s)| *s == "unknown") {
            "unknown"
        } else {
            "pass"
        };
        let mut sorted = instances.to_vec();
        sorted.sort();
        out.push(rec(vec![
            (
                "address",
                rec(vec![
                    ("kind", st("resource")),
                    ("mode", st("managed")),
                    ("module", st("module.app.module.db")),
                    ("name", st("primary")),
                    (
                        "to_display",
                        st("module.app.module.db.aws_db_instance.primary"),
                    ),
                    ("type", st("aws_db_instance")),
                ]),
            ),
            ("status", st(status)),
            (
                "instances",
                J::Arr(
                    sorted
                        .iter()
                        .map(|(address, status)| {
                            let mut m = vec![
                                ("address", rec(vec![("to_display", st(address.clone()))])),
                                ("status", st(*status)),
                            ];
                            if *status == "fail" {
                                m.push((
                                    "problems",
                                    J::Arr(vec![obj(vec![(
                                        "message",
                                        st("Backups must be kept for at least 7 days."),
                                    )])]),
                                ));
                            }
                            rec(m)
                        })
                        .collect(),
                ),
            ),
        ]));
    }
    J::Arr(out)
}
