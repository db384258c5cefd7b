//! Differ: values whose cty type is known (attributes of a schema), and outputs.
//!
//! Implements, in our own terms, the rules of Terraform's structured renderer: the
//! legacy-SDK empty-string rule, sensitive and unknown values, and the collection kinds
//! (list with LCS pairing, set with equality matching, map, object, tuple). A `dynamic`
//! value goes to the JSON differ ([`json`]), a string to [`strings`]; neither calls back.

use super::change::{Change, Mask, Matcher};
use super::collections::{by_index, by_key, match_set, multiline_strings_share_a_line, pair_slice};
use super::masked::{sensitive, unknown};
use super::strings::scalar_text;
use super::{json, sequence, strings};
use crate::diff::{Action, Diff, Node};
use crate::input::json::Value;
use crate::input::schema::CtyType;

/// An output change: sensitivity and unknown-ness first, then the JSON shape. An old value
/// that becomes unknown is diffed as a `dynamic` one (with the legacy empty-string rule).
pub(crate) fn diff_output(change: Change<'_, '_>) -> Diff {
    if let Some(diff) = sensitive(&change, diff_output) {
        return diff;
    }
    if let Some(diff) = unknown(&change, Mask::Absent, |c| diff_typed(c, &CtyType::Dynamic)) {
        return diff;
    }
    json::transform(change)
}

/// A diff for a value of type `ty`.
pub(crate) fn diff_typed(mut change: Change<'_, '_>, ty: &CtyType) -> Diff {
    if !change.non_legacy {
        // The legacy SDK cannot tell "" from null and returns either; treat them alike.
        if change.before.and_then(Value::as_str) == Some("") {
            change.before = None;
        }
        if change.after.and_then(Value::as_str) == Some("") {
            change.after = None;
        }
    }
    if let Some(diff) = sensitive(&change, |c| diff_typed(c, ty)) {
        return diff;
    }
    if let Some(diff) = unknown(&change, Mask::Absent, |c| diff_typed(c, ty)) {
        return diff;
    }
    match ty {
        CtyType::Dynamic => json::transform(change),
        CtyType::String => strings::diff_string(&change, json::transform),
        CtyType::Number | CtyType::Bool => primitive(&change),
        CtyType::Object(attrs) => object(&change, attrs),
        CtyType::Map(element) => map(&change, element),
        CtyType::List(element) => list(&change, element),
        CtyType::Tuple(elements) => tuple(&change, elements),
        CtyType::Set(element) => set(&change, |c| diff_typed(c, element)),
    }
}

/// A number, bool or null leaf.
pub(crate) fn primitive(change: &Change<'_, '_>) -> Diff {
    Diff {
        action: change.leaf_action(),
        replace: change.replace.matches(),
        node: Node::Primitive {
            before: change.before.map(scalar_text),
            after: change.after.map(scalar_text),
        },
    }
}

fn object(change: &Change<'_, '_>, attrs: &std::collections::BTreeMap<String, CtyType>) -> Diff {
    let (attributes, action) = object_attributes(change, attrs.iter(), |c, ty| diff_typed(c, ty));
    Diff {
        action,
        replace: change.replace.matches(),
        node: Node::Object {
            attributes,
            nested: false,
        },
    }
}

/// Diffs the attributes of an object or block. Attributes are implicit (never "explicit
/// null"), and those null on both sides are left out entirely: not shown, not counted.
pub(crate) fn object_attributes<'v, 'a, 's, T>(
    change: &Change<'v, 'a>,
    attrs: impl Iterator<Item = (&'s String, T)>,
    mut diff: impl FnMut(Change<'v, 'a>, T) -> Diff,
) -> (Vec<(String, Diff)>, Action) {
    let mut action = change.default_action();
    let mut attributes = Vec::with_capacity(attrs.size_hint().1.unwrap_or(0));
    // Schema attributes come sorted by name (`BTreeMap` order).
    let mut children = change.children();
    for (name, attr) in attrs {
        let mut child = children.relevant_key(name);
        child.before_explicit = false;
        child.after_explicit = false;
        let both_null = child.before.is_none() && child.after.is_none();
        let child_diff = diff(child, attr);
        if child_diff.action == Action::NoOp && both_null {
            continue;
        }
        action = action.fold(child_diff.action);
        attributes.push((name.clone(), child_diff));
    }
    // Attributes null on both sides are left out: do not keep room for them in the tree.
    attributes.shrink_to_fit();
    (attributes, action)
}

fn map(change: &Change<'_, '_>, element: &CtyType) -> Diff {
    let (entries, action) = by_key(change, change.all_keys(), |c| diff_typed(c, element));
    Diff {
        action,
        replace: change.replace.matches(),
        node: Node::Map {
            entries,
            nested: false,
        },
    }
}

fn list(change: &Change<'_, '_>, element: &CtyType) -> Diff {
    let is_object = matches!(element, CtyType::Object(_));
    let tofu = change.pairing == sequence::Pairing::OpenTofu;
    let (elements, action) = pair_slice(
        change,
        |b, a| is_object || (tofu && multiline_strings_share_a_line(b, a)),
        |mut child| {
            // Every element of a relevant list is relevant.
            child.relevant = Matcher::always();
            diff_typed(child, element)
        },
    );
    Diff {
        action,
        replace: change.replace.matches(),
        node: Node::List {
            elements,
            context: true,
        },
    }
}

fn tuple(change: &Change<'_, '_>, types: &[CtyType]) -> Diff {
    let (elements, action) = by_index(change, types.len(), |ix, c| diff_typed(c, &types[ix]));
    Diff {
        action,
        replace: change.replace.matches(),
        node: Node::List {
            elements,
            context: true,
        },
    }
}

fn set<'v, 'a>(change: &Change<'v, 'a>, element: impl FnMut(Change<'v, 'a>) -> Diff) -> Diff {
    let (elements, action) = match_set(change, element);
    Diff {
        action,
        replace: change.replace.matches(),
        node: Node::Set {
            elements,
            nested: false,
        },
    }
}
