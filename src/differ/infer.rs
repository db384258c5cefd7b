//! Differ: a best-effort schema inferred from the values, used when no provider schema
//! was given (`--schemas` absent, or the provider/type missing from it).
//!
//! Heuristics (also in docs/supported-versions.md, "Without provider schemas"):
//! - the plan's `configuration` tells blocks from attributes where the resource is
//!   configured: a block's expressions are objects of expressions (or arrays of them),
//!   an attribute's are `{constant_value|references}`;
//! - otherwise an array of objects is a nested attribute list (`name = [ { ... }, ]`);
//! - an object whose values are all one primitive type is a `map` (tags, labels: keys
//!   quoted); one whose values are all objects is a nested map; any other object is a
//!   nested object (`name = { attr = ... }`);
//! - an array of primitives is a `list` of that type (sets cannot be told apart);
//! - a string, number or bool is that primitive; mixed types are `dynamic`;
//! - an attribute that is null (or only unknown) everywhere is a `string`.

use std::collections::{BTreeMap, BTreeSet};

use crate::input::json::Value;
use crate::input::schema::{Attribute, Block, BlockType, CtyType, NestedType, NestingMode};

/// Infers a block schema from sample object values (before, after), the unknown mask and
/// the resource's configuration expressions, if known.
pub(crate) fn infer_block(
    samples: &[&Value<'_>],
    unknown: Option<&Value<'_>>,
    expressions: Option<&Value<'_>>,
) -> Block {
    let mut block = Block::default();
    for key in keys(samples.iter().copied().chain(unknown)) {
        let children = children(samples, key);
        let hint = expressions.and_then(|e| e.get(key));
        if let Some((mode, elements, nested_hints)) = block_hint(hint, &children) {
            let unknown_child = unknown.and_then(|u| u.get(key));
            let unknown_elements = match unknown_child {
                Some(Value::Array(items)) => merge_objects(&items.iter().collect::<Vec<_>>()),
                Some(v @ Value::Object(_)) => Some(v.clone()),
                _ => None,
            };
            block.block_types.insert(
                key.to_string(),
                BlockType {
                    nesting_mode: mode,
                    block: infer_block(&elements, unknown_elements.as_ref(), nested_hints.as_ref()),
                },
            );
        } else {
            block
                .attributes
                .insert(key.to_string(), infer_attribute(&children));
        }
    }
    block
}

fn keys<'v, 'a: 'v>(objects: impl Iterator<Item = &'v Value<'a>>) -> BTreeSet<&'v str> {
    let mut keys = BTreeSet::new();
    for object in objects {
        if let Value::Object(members) = object {
            keys.extend(members.iter().map(|(k, _)| k.as_ref()));
        }
    }
    keys
}

fn children<'v, 'a>(samples: &[&'v Value<'a>], key: &str) -> Vec<&'v Value<'a>> {
    samples
        .iter()
        .filter_map(|s| s.get(key))
        .filter(|v| !matches!(v, Value::Null))
        .collect()
}

/// Is `key` a nested block according to the configuration? Then its nesting mode, every
/// element object, and the merged expressions of its elements.
fn block_hint<'v, 'a>(
    hint: Option<&Value<'a>>,
    children: &[&'v Value<'a>],
) -> Option<(NestingMode, Vec<&'v Value<'a>>, Option<Value<'a>>)> {
    let nested_hints = match hint? {
        Value::Array(items) if items.iter().all(|i| matches!(i, Value::Object(_))) => {
            merge_objects(&items.iter().collect::<Vec<_>>())
        }
        obj @ Value::Object(_) if !is_attribute_expression(obj) => Some(obj.clone()),
        _ => return None,
    };
    let mut elements = Vec::new();
    let mut single = false;
    for child in children {
        match child {
            Value::Array(items) if items.iter().all(|i| matches!(i, Value::Object(_))) => {
                elements.extend(items.iter())
            }
            obj @ Value::Object(_) => {
                single = true;
                elements.push(*obj);
            }
            _ => return None,
        }
    }
    let mode = if single {
        NestingMode::Single
    } else {
        NestingMode::List
    };
    Some((mode, elements, nested_hints))
}

/// An attribute's configuration is `{"constant_value": ...}` and/or `{"references": [...]}`.
fn is_attribute_expression(value: &Value<'_>) -> bool {
    match value {
        Value::Object(members) => members
            .iter()
            .all(|(k, _)| k == "constant_value" || k == "references"),
        _ => false,
    }
}

fn infer_attribute(children: &[&Value<'_>]) -> Attribute {
    let (type_, nested_type) = match infer_shape(children) {
        Shape::Type(t) => (Some(t), None),
        Shape::Nested(n) => (None, Some(n)),
    };
    Attribute {
        type_,
        nested_type,
        sensitive: false,
        write_only: false,
    }
}

enum Shape {
    Type(CtyType),
    Nested(NestedType),
}

fn nested(mode: NestingMode, objects: &[&Value<'_>]) -> Shape {
    let attributes: BTreeMap<String, Attribute> = keys(objects.iter().copied())
        .into_iter()
        .map(|key| (key.to_string(), infer_attribute(&children(objects, key))))
        .collect();
    Shape::Nested(NestedType {
        attributes,
        nesting_mode: mode,
    })
}

fn infer_shape(children: &[&Value<'_>]) -> Shape {
    let Some(kind) = uniform_kind(children) else {
        return Shape::Type(if children.is_empty() {
            CtyType::String
        } else {
            CtyType::Dynamic
        });
    };
    match kind {
        Kind::String => Shape::Type(CtyType::String),
        Kind::Number => Shape::Type(CtyType::Number),
        Kind::Bool => Shape::Type(CtyType::Bool),
        Kind::Array => {
            let items = flatten(children, |v| match v {
                Value::Array(items) => items.iter().collect(),
                _ => Vec::new(),
            });
            match uniform_kind(&items) {
                Some(Kind::Object) => nested(NestingMode::List, &items),
                Some(k) if k.is_primitive() => Shape::Type(CtyType::List(Box::new(k.cty()))),
                None if items.is_empty() => Shape::Type(CtyType::List(Box::new(CtyType::String))),
                _ => Shape::Type(CtyType::List(Box::new(CtyType::Dynamic))),
            }
        }
        Kind::Object => {
            let values = flatten(children, |v| match v {
                Value::Object(members) => members.iter().map(|(_, v)| v).collect(),
                _ => Vec::new(),
            });
            match uniform_kind(&values) {
                Some(k) if k.is_primitive() => Shape::Type(CtyType::Map(Box::new(k.cty()))),
                None if values.is_empty() => Shape::Type(CtyType::Map(Box::new(CtyType::String))),
                Some(Kind::Object) => nested(NestingMode::Map, &values),
                _ => nested(NestingMode::Single, children),
            }
        }
    }
}

fn flatten<'v, 'a>(
    children: &[&'v Value<'a>],
    items: impl Fn(&'v Value<'a>) -> Vec<&'v Value<'a>>,
) -> Vec<&'v Value<'a>> {
    children
        .iter()
        .flat_map(|v| items(v))
        .filter(|v| !matches!(v, Value::Null))
        .collect()
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    String,
    Number,
    Bool,
    Array,
    Object,
}

impl Kind {
    fn is_primitive(self) -> bool {
        matches!(self, Kind::String | Kind::Number | Kind::Bool)
    }

    fn cty(self) -> CtyType {
        match self {
            Kind::String => CtyType::String,
            Kind::Number => CtyType::Number,
            Kind::Bool => CtyType::Bool,
            Kind::Array | Kind::Object => CtyType::Dynamic,
        }
    }
}

/// The one kind shared by all (non-null) values, if any.
fn uniform_kind(values: &[&Value<'_>]) -> Option<Kind> {
    let mut kinds = values.iter().filter_map(|v| match v {
        Value::String(_) => Some(Kind::String),
        Value::Number(_) => Some(Kind::Number),
        Value::Bool(_) => Some(Kind::Bool),
        Value::Array(_) => Some(Kind::Array),
        Value::Object(_) => Some(Kind::Object),
        Value::Null => None,
    });
    let first = kinds.next()?;
    kinds.all(|k| k == first).then_some(first)
}

/// `value` with everything its sensitivity `mask` marks replaced by null, or `None` when
/// the mask marks nothing (as for most resources). Inference must not learn from what is
/// sensitive: a sensitive object's keys would become attribute names of the inferred
/// type, shown wherever that type is shown (under an unknown object beside it, say).
pub(crate) fn redacted<'a>(value: &Value<'a>, mask: &Value<'_>) -> Option<Value<'a>> {
    marks_any(mask).then(|| redact(value, mask))
}

fn marks_any(mask: &Value<'_>) -> bool {
    match mask {
        Value::Bool(marked) => *marked,
        Value::Array(items) => items.iter().any(marks_any),
        Value::Object(members) => members.iter().any(|(_, m)| marks_any(m)),
        _ => false,
    }
}

fn redact<'a>(value: &Value<'a>, mask: &Value<'_>) -> Value<'a> {
    let child = |v: &Value<'a>, m: Option<&Value<'_>>| match m {
        Some(m) => redact(v, m),
        None => v.clone(),
    };
    match (value, mask) {
        (_, Value::Bool(true)) => Value::Null,
        (Value::Object(members), Value::Object(_)) => Value::Object(
            members
                .iter()
                .map(|(k, v)| (k.clone(), child(v, mask.get(k))))
                .collect(),
        ),
        (Value::Array(items), Value::Array(masks)) => Value::Array(
            items
                .iter()
                .enumerate()
                .map(|(i, v)| child(v, masks.get(i)))
                .collect(),
        ),
        _ => value.clone(),
    }
}

/// Objects merged key-wise (first value wins), so nested blocks see every key.
pub(crate) fn merge_objects<'a>(objects: &[&Value<'a>]) -> Option<Value<'a>> {
    let mut merged: BTreeMap<std::borrow::Cow<'a, str>, Value<'a>> = BTreeMap::new();
    for object in objects {
        if let Value::Object(members) = object {
            for (k, v) in members {
                merged.entry(k.clone()).or_insert_with(|| v.clone());
            }
        }
    }
    (!merged.is_empty()).then(|| Value::Object(merged.into_iter().collect()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn infers_maps_lists_nested_attributes_and_primitives() {
        let before = Value::parse(
            r#"{"id":"x","n":1,"tags":{"a":"b"},"ports":[80,443],"rules":[{"from":1}],"obj":{"a":1,"b":"x"},"gone":null}"#,
        )
        .unwrap();
        let after = Value::parse(r#"{"id":"y","n":2,"tags":{},"ports":[],"rules":[]}"#).unwrap();
        let block = infer_block(&[&before, &after], None, None);
        assert_eq!(block.attributes["id"].type_, Some(CtyType::String));
        assert_eq!(block.attributes["n"].type_, Some(CtyType::Number));
        assert_eq!(
            block.attributes["tags"].type_,
            Some(CtyType::Map(Box::new(CtyType::String)))
        );
        assert_eq!(
            block.attributes["ports"].type_,
            Some(CtyType::List(Box::new(CtyType::Number)))
        );
        assert_eq!(block.attributes["gone"].type_, Some(CtyType::String));
        let rules = block.attributes["rules"].nested_type.as_ref().unwrap();
        assert_eq!(rules.nesting_mode, NestingMode::List);
        assert!(rules.attributes.contains_key("from"));
        let obj = block.attributes["obj"].nested_type.as_ref().unwrap();
        assert_eq!(obj.nesting_mode, NestingMode::Single);
    }

    #[test]
    fn learns_nothing_from_sensitive_values() {
        // A map of objects: the element type's attributes come from every element, but
        // not from one marked sensitive (its keys are as secret as its values).
        let after =
            Value::parse(r#"{"m":{"a":{"k":1},"s":{"SECRET":1}},"l":[{"SECRET2":1}]}"#).unwrap();
        let mask = Value::parse(r#"{"m":{"s":true},"l":[true]}"#).unwrap();
        let unknown = Value::parse(r#"{"m":{"s":{"SECRET3":true}}}"#).unwrap();
        let redacted_after = redacted(&after, &mask).unwrap();
        let redacted_unknown = redacted(&unknown, &mask).unwrap();
        let block = infer_block(&[&redacted_after], Some(&redacted_unknown), None);
        let debug = format!("{block:?}");
        assert!(!debug.contains("SECRET"), "{debug}");
        let m = block.attributes["m"].nested_type.as_ref().unwrap();
        assert!(m.attributes.contains_key("k"));
        // Nothing marked: nothing copied.
        assert!(redacted(&after, &Value::parse(r#"{"m":{"s":false}}"#).unwrap()).is_none());
        assert!(redacted(&after, &Value::Null).is_none());
    }

    #[test]
    fn configuration_marks_blocks() {
        let value = Value::parse(r#"{"ingress":[{"from":1}],"root":{"size":8}}"#).unwrap();
        let config = Value::parse(
            r#"{"ingress":[{"from":{"constant_value":1}}],"root":{"size":{"constant_value":8}}}"#,
        )
        .unwrap();
        let block = infer_block(&[&value], None, Some(&config));
        assert_eq!(block.block_types["ingress"].nesting_mode, NestingMode::List);
        assert_eq!(block.block_types["root"].nesting_mode, NestingMode::Single);
    }
}

/// Parts of attribute names that mark a secret (lower case). Only used on plans whose
/// masks may leave provider-declared sensitivity out (before Terraform 0.15.2) when no
/// schema says what the provider declared: hiding a harmless value is the lesser harm.
const SECRET_NAME_PARTS: [&str; 12] = [
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "private_key",
    "privatekey",
    "api_key",
    "apikey",
    "access_key",
    "credential",
    "connection_string",
];

/// Does the attribute name read like a secret (`password`, `client_secret`, `auth_token`)?
pub(crate) fn secret_name(name: &str) -> bool {
    let name = name.to_ascii_lowercase().replace('-', "_");
    SECRET_NAME_PARTS.iter().any(|part| name.contains(part))
}

/// Marks every attribute of `block` (nested blocks and nested attribute types too) whose
/// name reads like a secret as sensitive, as a provider's schema would.
pub(crate) fn mark_secret_names(block: &mut Block) {
    fn attributes(attrs: &mut BTreeMap<String, Attribute>) {
        for (name, attr) in attrs.iter_mut() {
            attr.sensitive |= secret_name(name);
            if let Some(nested) = &mut attr.nested_type {
                attributes(&mut nested.attributes);
            }
        }
    }
    attributes(&mut block.attributes);
    for block_type in block.block_types.values_mut() {
        mark_secret_names(&mut block_type.block);
    }
}

#[cfg(test)]
mod secret_name_tests {
    use super::secret_name;

    #[test]
    fn names_that_read_like_secrets() {
        for name in [
            "password",
            "admin_password",
            "client_secret",
            "auth_token",
            "private_key_pem",
            "API-Key",
            "primary_access_key",
            "credentials",
            "connection_string",
        ] {
            assert!(secret_name(name), "{name}");
        }
        for name in ["id", "name", "username", "public_key", "key_name", "tags"] {
            assert!(!secret_name(name), "{name}");
        }
    }
}
