//! Differ: schema blocks (resource bodies, nested blocks) and their attributes, including
//! nested attribute types (protocol 6) and write-only attributes.

use std::collections::BTreeMap;

use super::change::{Change, Mask};
use super::collections::{by_index, by_key, match_set};
use super::masked;
use super::typed::{diff_typed, object_attributes};
use crate::diff::{Action, Block as BlockDiff, BlockGroup, Diff, Node};
use crate::input::schema::{Attribute, Block, CtyType, NestingMode};

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
                let count = child.longest_array();
                let (diffs, a) = by_index(&child, count, |_, c| diff_block(c, &block_type.block));
                (diffs.into_iter().map(|d| (None, d)).collect(), a)
            }
            NestingMode::Set => {
                let (diffs, a) = match_set(&child, |c| diff_block(c, &block_type.block));
                (diffs.into_iter().map(|d| (None, d)).collect(), a)
            }
            NestingMode::Map => {
                let keys = child.explicit_keys();
                let (entries, a) = by_key(&child, keys, |c| diff_block(c, &block_type.block));
                (entries.into_iter().map(|(k, d)| (Some(k), d)).collect(), a)
            }
        };
        if group_action == Action::NoOp && both_null && !unknown {
            continue;
        }
        action = action.fold(group_action);
        let sensitive = (child.is_before_sensitive(), child.is_after_sensitive());
        let instances = instances
            .into_iter()
            .map(|(key, diff)| (key, hidden_by_group(diff, sensitive)))
            .collect();
        groups.push(BlockGroup {
            name: name.clone(),
            instances,
            replace: child.replace.matches(),
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
    let marks = (change.is_before_sensitive(), change.is_after_sensitive());
    if marks == (false, false) {
        return None;
    }
    let inner_action = diff_block(change.without_sensitivity(), block).action;
    Some(sensitive_block_diff(
        inner_action,
        change.replace.matches(),
        false,
        marks,
    ))
}

/// A block whose contents are hidden; an unchanged one whose sensitivity changes is an
/// update. `hides_replacement`: a change inside it forces replacement.
fn sensitive_block_diff(
    inner_action: Action,
    replace: bool,
    hides_replacement: bool,
    (before, after): (bool, bool),
) -> Diff {
    let action = if inner_action == Action::NoOp && before != after {
        Action::Update
    } else {
        inner_action
    };
    Diff {
        action,
        replace,
        node: Node::SensitiveBlock {
            before_sensitive: before,
            after_sensitive: after,
            inner_action,
            hides_replacement,
        },
    }
}

/// One block of a group marked sensitive as a whole (`(before, after)`), hidden where the
/// group is sensitive on the side its action shows. Only the group's own change carries
/// the mark (a mask of `true` does not reach list, set or map elements), so the group
/// decides for each of its blocks, as Terraform's renderer does; its marks win over a
/// block's own.
fn hidden_by_group(instance: Diff, (before, after): (bool, bool)) -> Diff {
    let hidden = match instance.action {
        Action::Create => after,
        Action::Delete => before,
        Action::Update | Action::NoOp => before || after,
    };
    if !hidden {
        return instance;
    }
    // The reason for a replacement still names the group when a hidden attribute forces it.
    let hides_replacement = !instance.replace && instance.forces_replacement();
    sensitive_block_diff(
        instance.action,
        instance.replace,
        hides_replacement,
        (before, after),
    )
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
            let count = change.longest_array();
            let (elements, action) = by_index(&change, count, |_, c| element(c));
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
            let (entries, action) = by_key(&change, change.explicit_keys(), element);
            Diff {
                action,
                replace,
                node: Node::Map {
                    entries,
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
    // Attribute names come sorted (`BTreeMap` order).
    let mut children = change.children();
    for (name, _) in attrs.iter().filter(|(_, a)| a.write_only) {
        attributes.push((
            name.clone(),
            write_only(&children.relevant_key(name), action),
        ));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::differ::change::Matcher;
    use crate::input::json::Value;

    /// A list of blocks marked sensitive as a whole after the change: each block is hidden
    /// in the tree itself, and the unchanged one (its mark changes) is an update.
    #[test]
    fn a_group_sensitive_as_a_whole_hides_each_block() {
        let schema: Block = serde_json::from_str(
            r#"{"attributes":{"id":{"type":"string"}},"block_types":{"rule":
                {"nesting_mode":"list","block":{"attributes":{"v":{"type":"string"}}}}}}"#,
        )
        .unwrap();
        let before = Value::parse(r#"{"id":"x","rule":[{"v":"a"}]}"#).unwrap();
        let after = Value::parse(r#"{"id":"x","rule":[{"v":"a"},{"v":"b"}]}"#).unwrap();
        let (unknown, unmarked) = (Value::parse("{}").unwrap(), Value::parse("{}").unwrap());
        let marked = Value::parse(r#"{"rule":true}"#).unwrap();
        let change = Change::new(
            &before,
            &after,
            &unknown,
            &unmarked,
            &marked,
            Matcher::default(),
            Matcher::always(),
        );
        let Node::Block(body) = diff_block(change, &schema).node else {
            panic!("a block");
        };
        let hidden: Vec<(Action, Action)> = body.blocks[0]
            .instances
            .iter()
            .map(|(_, d)| match d.node {
                Node::SensitiveBlock {
                    before_sensitive: false,
                    after_sensitive: true,
                    inner_action,
                    ..
                } => (d.action, inner_action),
                ref other => panic!("not hidden: {other:?}"),
            })
            .collect();
        assert_eq!(
            hidden,
            [
                (Action::Update, Action::NoOp),
                (Action::Create, Action::Create)
            ]
        );
    }
}
