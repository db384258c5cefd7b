//! Differ: schema blocks (resource bodies, nested blocks) and their attributes, including
//! nested attribute types (protocol 6) and write-only attributes.

use std::collections::BTreeMap;

use super::change::{Change, Mask};
use super::collections::{self, match_set};
use super::masked;
use super::typed::{diff_typed, object_attributes};
use crate::diff::{Action, Block as BlockDiff, BlockGroup, Diff, Node};
use crate::schema::{Attribute, Block, CtyType, NestingMode};

/// A diff for a block.
pub(crate) fn diff_block(change: Change<'_, '_>, block: &Block) -> Diff {
    if let Some(diff) = sensitive_block(&change, block) {
        return diff;
    }
    if let Some(diff) = masked::unknown(&change, Mask::Attributes(&block.attributes), |c| {
        diff_block(c, block)
    }) {
        return diff;
    }
    let mut change = change;
    // Decided per block but inherited downwards: once non-legacy, always non-legacy.
    change.non_legacy = change.non_legacy || has_non_legacy_features(block);

    let (mut attributes, mut action) = object_attributes(
        &change,
        block.attributes.iter().filter(|(_, a)| !a.write_only),
        diff_attribute,
    );

    let mut groups = Vec::new();
    // Block type names come sorted (`BTreeMap` order).
    let mut children = change.children();
    for (name, block_type) in &block.block_types {
        let child = children.relevant_key(name);
        let unknown = child.is_unknown();
        let both_null = child.before.is_none() && child.after.is_none();
        let (instances, group_action) = match block_type.nesting_mode {
            NestingMode::Single | NestingMode::Group => {
                let diff = diff_block(child.clone(), &block_type.block);
                let a = diff.action;
                (vec![(None, diff)], a)
            }
            NestingMode::List => {
                let (diffs, a) = by_index(&child, |c| diff_block(c, &block_type.block));
                (diffs.into_iter().map(|d| (None, d)).collect(), a)
            }
            NestingMode::Set => {
                let (diffs, a) = match_set(&child, |c| diff_block(c, &block_type.block));
                (diffs.into_iter().map(|d| (None, d)).collect(), a)
            }
            NestingMode::Map => by_key(&child, |c| diff_block(c, &block_type.block)),
        };
        if group_action == Action::NoOp && both_null && !unknown {
            continue;
        }
        action = action.fold(group_action);
        groups.push(BlockGroup {
            name: name.clone(),
            instances,
            replace: child.replace.matches(),
            before_sensitive: child.is_before_sensitive(),
            after_sensitive: child.is_after_sensitive(),
            unknown,
        });
    }

    // Write-only attributes follow the block's own action (an update shows as unchanged).
    for (name, attr) in &block.attributes {
        if attr.write_only {
            attributes.push((name.clone(), write_only(&change, action)));
        }
    }
    attributes.sort_by(|a, b| a.0.cmp(&b.0));

    Diff {
        action,
        replace: change.replace.matches(),
        node: Node::Block(BlockDiff {
            attributes,
            blocks: groups,
        }),
    }
}

fn write_only(change: &Change<'_, '_>, container_action: Action) -> Diff {
    Diff {
        action: if container_action == Action::Update {
            Action::NoOp
        } else {
            container_action
        },
        replace: change.replace.matches(),
        node: Node::WriteOnly {
            sensitive: change.is_before_sensitive() || change.is_after_sensitive(),
        },
    }
}

fn sensitive_block(change: &Change<'_, '_>, block: &Block) -> Option<Diff> {
    let (before_sensitive, after_sensitive) =
        (change.is_before_sensitive(), change.is_after_sensitive());
    if !before_sensitive && !after_sensitive {
        return None;
    }
    let inner_action = diff_block(change.without_sensitivity(), block).action;
    let action = if inner_action == Action::NoOp && before_sensitive != after_sensitive {
        Action::Update
    } else {
        inner_action
    };
    Some(Diff {
        action,
        replace: change.replace.matches(),
        node: Node::SensitiveBlock {
            before_sensitive,
            after_sensitive,
            inner_action,
        },
    })
}

/// Features the legacy plugin SDK could not produce; their presence means `""` and null
/// are really different values.
fn has_non_legacy_features(block: &Block) -> bool {
    let block_modes = block
        .block_types
        .values()
        .any(|b| matches!(b.nesting_mode, NestingMode::Map | NestingMode::Group));
    block_modes
        || block.attributes.values().any(|attr| {
            if attr.nested_type.is_some() {
                return true;
            }
            match &attr.type_ {
                None => false,
                Some(ty) if ty.has_dynamic() => true,
                Some(CtyType::Tuple(_) | CtyType::Object(_)) => true,
                Some(CtyType::List(e) | CtyType::Set(e) | CtyType::Map(e)) => match e.as_ref() {
                    CtyType::List(inner) | CtyType::Set(inner) | CtyType::Map(inner) => {
                        !inner.is_primitive()
                    }
                    _ => false,
                },
                Some(_) => false,
            }
        })
}

/// A diff for one attribute.
pub(crate) fn diff_attribute(mut change: Change<'_, '_>, attr: &Attribute) -> Diff {
    if attr.sensitive {
        fold_schema_sensitivity(&mut change);
    }
    match (&attr.nested_type, &attr.type_) {
        (Some(nested), _) => diff_nested(change, &nested.attributes, nested.nesting_mode),
        (None, Some(ty)) => diff_typed(change, ty),
        // An attribute with neither (a malformed schema): let the value decide.
        (None, None) => diff_typed(change, &CtyType::Dynamic),
    }
}

/// Marks a provider-declared sensitive attribute sensitive on each side where its object
/// exists (its value there known, null or unknown). Terraform 0.15.2 and later fold the
/// schema's `sensitive` into the plan's masks just so, which this repeats; Terraform
/// 0.12-0.15.1 left it out of the masks (their renderer read the schema), so without this
/// their plans would show provider secrets.
fn fold_schema_sensitivity(change: &mut Change<'_, '_>) {
    if change.before.is_some() || change.before_explicit {
        change.before_sensitive = Mask::True;
    }
    if change.after.is_some() || change.after_explicit || change.is_unknown() {
        change.after_sensitive = Mask::True;
    }
}

type Attributes = BTreeMap<String, Attribute>;

fn diff_nested(change: Change<'_, '_>, attrs: &Attributes, mode: NestingMode) -> Diff {
    if let Some(diff) = masked::sensitive(&change, |c| diff_nested(c, attrs, mode)) {
        return diff;
    }
    if let Some(diff) = masked::unknown(&change, Mask::Attributes(attrs), |c| {
        diff_nested(c, attrs, mode)
    }) {
        return diff;
    }
    let replace = change.replace.matches();
    // Elements of nested collections are single nested objects, each possibly itself
    // sensitive or unknown.
    let element = |c| diff_nested(c, attrs, NestingMode::Single);
    match mode {
        NestingMode::Single | NestingMode::Group => nested_object(&change, attrs),
        NestingMode::List => {
            let (elements, action) = by_index(&change, element);
            Diff {
                action,
                replace,
                node: Node::List {
                    elements,
                    context: false,
                },
            }
        }
        NestingMode::Set => {
            let (elements, action) = match_set(&change, element);
            Diff {
                action,
                replace,
                node: Node::Set {
                    elements,
                    nested: true,
                },
            }
        }
        NestingMode::Map => {
            let (entries, action) = by_key(&change, element);
            Diff {
                action,
                replace,
                node: Node::Map {
                    entries: entries
                        .into_iter()
                        .map(|(k, d)| (k.unwrap_or_default(), d))
                        .collect(),
                    nested: true,
                },
            }
        }
    }
}

fn nested_object(change: &Change<'_, '_>, attrs: &Attributes) -> Diff {
    let (mut attributes, action) = object_attributes(
        change,
        attrs.iter().filter(|(_, a)| !a.write_only),
        diff_attribute,
    );
    for (name, _) in attrs.iter().filter(|(_, a)| a.write_only) {
        attributes.push((name.clone(), write_only(&change.relevant_key(name), action)));
    }
    attributes.sort_by(|a, b| a.0.cmp(&b.0));
    Diff {
        action,
        replace: change.replace.matches(),
        node: Node::Object {
            attributes,
            nested: true,
        },
    }
}

/// Nested lists and list blocks pair elements by position, never by LCS.
fn by_index<'v, 'a>(
    change: &Change<'v, 'a>,
    mut element: impl FnMut(Change<'v, 'a>) -> Diff,
) -> (Vec<Diff>, Action) {
    let mut action = change.default_action();
    let count = change
        .before_array()
        .map_or(0, <[_]>::len)
        .max(change.after_array().map_or(0, <[_]>::len));
    let mut elements = Vec::with_capacity(count);
    for ix in 0..count {
        let mut child = change.index(ix, ix);
        if !child.relevant.matches_partial() {
            child = child.as_noop();
        }
        let diff = element(child);
        action = action.fold(diff.action);
        elements.push(diff);
    }
    (elements, action)
}

/// Nested maps and map blocks: one element per key present in either value.
fn by_key<'v, 'a>(
    change: &Change<'v, 'a>,
    mut element: impl FnMut(Change<'v, 'a>) -> Diff,
) -> (Vec<(Option<String>, Diff)>, Action) {
    let mut action = collections::collection_action(
        change.before_object().is_some(),
        change.after_object().is_some(),
    );
    let keys = change.explicit_keys();
    let mut entries = Vec::with_capacity(keys.len());
    let mut children = change.children();
    for key in keys {
        let diff = element(children.relevant_key(key));
        action = action.fold(diff.action);
        entries.push((Some(key.to_string()), diff));
    }
    (entries, action)
}

/// A resource-level change as Terraform computes it.
pub(crate) fn diff_root<'v, 'a>(change: Change<'v, 'a>, block: &Block, forget_only: bool) -> Diff {
    // A plain "forget" is shown as unchanged so it does not look like a deletion.
    let change = if forget_only {
        change.as_noop()
    } else {
        change
    };
    diff_block(change, block)
}
