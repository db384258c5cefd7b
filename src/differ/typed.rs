//! Differ: values whose cty type is known (attributes of a schema).
//!
//! Implements, in our own terms, the rules of Terraform's structured renderer: the
//! legacy-SDK empty-string rule, sensitive and unknown values, and the collection kinds
//! (list with LCS pairing, set with equality matching, map, object, tuple).

use super::change::{Change, Mask};
use super::{json, sequence, strings};
use crate::diff::{Action, Diff, Node};
use crate::schema::CtyType;
use crate::value::{FastBuildHasher, Value};

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
        CtyType::Dynamic => json::diff_dynamic(change),
        CtyType::String => strings::diff_string(&change),
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

/// How a scalar prints: numbers verbatim; anything unexpected as compact JSON-ish text.
pub(crate) fn scalar_text(value: &Value<'_>) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => crate::diff::quote::go_quote(s),
        Value::Array(_) | Value::Object(_) => "(complex value)".to_string(),
    }
}

/// Wraps a sensitive value: computes the hidden action, never keeps the value.
pub(crate) fn sensitive<'v, 'a>(
    change: &Change<'v, 'a>,
    inner: impl FnOnce(Change<'v, 'a>) -> Diff,
) -> Option<Diff> {
    let (before_sensitive, after_sensitive) =
        (change.is_before_sensitive(), change.is_after_sensitive());
    if !before_sensitive && !after_sensitive {
        return None;
    }
    let inner_action = inner(change.without_sensitivity()).action;
    Some(Diff {
        action: sensitive_action(change, inner_action, before_sensitive, after_sensitive),
        replace: change.replace.matches(),
        node: Node::Sensitive {
            before_sensitive,
            after_sensitive,
            inner_action,
        },
    })
}

/// A change of sensitivity alone is an update, unless both sides are simply absent.
pub(crate) fn sensitive_action(
    change: &Change<'_, '_>,
    inner: Action,
    before_sensitive: bool,
    after_sensitive: bool,
) -> Action {
    let null_noop = change.before.is_none()
        && !change.before_explicit
        && change.after.is_none()
        && !change.after_explicit;
    if inner == Action::NoOp && before_sensitive != after_sensitive && !null_noop {
        Action::Update
    } else {
        inner
    }
}

/// Wraps a value that will be known after apply. With an old value, that value is shown
/// as deleted (its `children` masked unknown so they read `old -> (known after apply)`).
pub(crate) fn unknown<'v, 'a>(
    change: &Change<'v, 'a>,
    children: Mask<'v, 'a>,
    before_diff: impl FnOnce(Change<'v, 'a>) -> Diff,
) -> Option<Diff> {
    if !change.is_unknown() {
        return None;
    }
    let mut current = change.clone();
    current.after_explicit = true;
    let before = if current.before.is_some() {
        let mut before = current.as_delete();
        before.unknown = children;
        Some(Box::new(before_diff(before)))
    } else {
        None
    };
    Some(Diff {
        action: current.leaf_action(),
        replace: current.replace.matches(),
        node: Node::Unknown { before },
    })
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
    let mut action = collection_action(
        change.before_object().is_some(),
        change.after_object().is_some(),
    );
    let keys = change.all_keys();
    let mut entries = Vec::with_capacity(keys.len());
    let mut children = change.children();
    for key in keys {
        let diff = diff_typed(children.relevant_key(key), element);
        action = action.fold(diff.action);
        entries.push((key.to_string(), diff));
    }
    Diff {
        action,
        replace: change.replace.matches(),
        node: Node::Map {
            entries,
            nested: false,
        },
    }
}

/// The starting action of a slice or map walk, from whether each side is a collection.
pub(crate) fn collection_action(before: bool, after: bool) -> Action {
    match (before, after) {
        (true, false) => Action::Delete,
        (false, true) => Action::Create,
        _ => Action::NoOp,
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
            child.relevant = super::change::Matcher::always();
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

/// Pairs the elements of a list-like change as Terraform does (see [`sequence`]) and
/// diffs each pair. `pairable` says whether a changed before/after pair is one update.
pub(crate) fn pair_slice<'v, 'a>(
    change: &Change<'v, 'a>,
    mut pairable: impl FnMut(&Value<'a>, &Value<'a>) -> bool,
    mut element: impl FnMut(Change<'v, 'a>) -> Diff,
) -> (Vec<Diff>, Action) {
    let before = change.before_array();
    let after = change.after_array();
    let mut action = collection_action(before.is_some(), after.is_some());
    let (before, after) = (before.unwrap_or(&[]), after.unwrap_or(&[]));
    let steps = if std::ptr::eq(before, after) {
        // The very same elements (an unchanged JSON string): every element pairs with
        // itself, which is what the general path finds after hashing them all.
        (0..before.len())
            .map(|ix| sequence::Step::Both(ix, ix))
            .collect()
    } else {
        // With one side empty the pairing cannot depend on the values: skip hashing them.
        let (before_ids, after_ids) = if before.is_empty() || after.is_empty() {
            (vec![0; before.len()], vec![0; after.len()])
        } else {
            class_ids(before, after)
        };
        sequence::pair_elements(&before_ids, &after_ids, change.pairing, |b, a| {
            pairable(&before[b], &after[a])
        })
    };
    let mut elements = Vec::with_capacity(steps.len());
    for step in steps {
        let (b, a) = match step {
            sequence::Step::Both(b, a) => (b, a),
            sequence::Step::Deleted(b) => (b, after.len()),
            sequence::Step::Created(a) => (before.len(), a),
        };
        let diff = element(change.index(b, a));
        action = action.fold(diff.action);
        elements.push(diff);
    }
    (elements, action)
}

/// OpenTofu also pairs two list strings when either is multi-line and they share a line
/// (shown as one heredoc update instead of a delete and a create).
pub(crate) fn multiline_strings_share_a_line(before: &Value<'_>, after: &Value<'_>) -> bool {
    let (Some(b), Some(a)) = (before.as_str(), after.as_str()) else {
        return false;
    };
    if !b.contains('\n') && !a.contains('\n') {
        return false;
    }
    let after_lines: std::collections::HashSet<&str> = a.split('\n').collect();
    b.split('\n').any(|line| after_lines.contains(line))
}

/// Gives deep-equal values the same id, across both slices, in linear expected time.
pub(crate) fn class_ids(before: &[Value<'_>], after: &[Value<'_>]) -> (Vec<u32>, Vec<u32>) {
    use std::collections::HashMap;
    let mut classes: HashMap<u64, Vec<(usize, bool, u32)>, FastBuildHasher> =
        HashMap::with_capacity_and_hasher(before.len() + after.len(), FastBuildHasher::default());
    let mut next = 0u32;
    let mut assign = |value: &Value<'_>, ix: usize, is_before: bool| -> u32 {
        let bucket = classes.entry(value.structural_hash()).or_default();
        for &(rep_ix, rep_before, id) in bucket.iter() {
            let rep = if rep_before {
                &before[rep_ix]
            } else {
                &after[rep_ix]
            };
            if rep == value {
                return id;
            }
        }
        let id = next;
        next += 1;
        bucket.push((ix, is_before, id));
        id
    };
    let before_ids = before
        .iter()
        .enumerate()
        .map(|(i, v)| assign(v, i, true))
        .collect();
    let after_ids = after
        .iter()
        .enumerate()
        .map(|(i, v)| assign(v, i, false))
        .collect();
    (before_ids, after_ids)
}

fn tuple(change: &Change<'_, '_>, types: &[CtyType]) -> Diff {
    let mut action = change.default_action();
    let mut elements = Vec::with_capacity(types.len());
    for (ix, ty) in types.iter().enumerate() {
        let mut child = change.index(ix, ix);
        if !child.relevant.matches_partial() {
            child = child.as_noop();
        }
        let diff = diff_typed(child, ty);
        action = action.fold(diff.action);
        elements.push(diff);
    }
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

/// Matches set elements: each old element pairs with the first unmatched new element that
/// is equal, equally sensitive and known. Output: old elements in order (matched ones
/// unchanged, others deleted), then unmatched new elements as creates.
pub(crate) fn match_set<'v, 'a>(
    change: &Change<'v, 'a>,
    mut element: impl FnMut(Change<'v, 'a>) -> Diff,
) -> (Vec<Diff>, Action) {
    let mut action = change.default_action();
    let before = change.before_array().unwrap_or(&[]);
    let after = change.after_array().unwrap_or(&[]);
    // With one side empty nothing can match: skip hashing the values.
    let (before_ids, after_ids) = if before.is_empty() || after.is_empty() {
        (Vec::new(), Vec::new())
    } else {
        class_ids(before, after)
    };
    // Candidates per class, in order; a queue per class keeps matching linear.
    let mut by_class: std::collections::HashMap<
        u32,
        std::collections::VecDeque<usize>,
        FastBuildHasher,
    > = std::collections::HashMap::default();
    for (a, id) in after_ids.iter().enumerate() {
        by_class.entry(*id).or_default().push_back(a);
    }
    let mut matched_after = vec![false; after.len()];
    let mut pairs: Vec<Option<usize>> = vec![None; before.len()];
    for (b, id) in before_ids.iter().enumerate() {
        let Some(queue) = by_class.get_mut(id) else {
            continue;
        };
        // Sensitivity or unknown-ness can disqualify a candidate; skip those, keep order.
        let position = queue.iter().position(|&a| {
            let child = change.index(b, a);
            child.is_before_sensitive() == child.is_after_sensitive() && !child.is_unknown()
        });
        if let Some(pos) = position {
            let a = queue.remove(pos).unwrap_or_default();
            matched_after[a] = true;
            pairs[b] = Some(a);
        }
    }
    let matched = pairs.iter().filter(|p| p.is_some()).count();
    let mut elements = Vec::with_capacity(before.len() + after.len() - matched);
    let all_relevant = |mut c: Change<'v, 'a>| {
        c.relevant = super::change::Matcher::always();
        c
    };
    for (b, pair) in pairs.iter().enumerate() {
        let a = pair.unwrap_or(after.len());
        let diff = element(all_relevant(change.index(b, a)));
        action = action.fold(diff.action);
        elements.push(diff);
    }
    for (a, matched) in matched_after.iter().enumerate() {
        if !matched {
            let diff = element(all_relevant(change.index(before.len(), a)));
            action = action.fold(diff.action);
            elements.push(diff);
        }
    }
    (elements, action)
}
