//! Differ: a collection's elements paired before and after. Contract: lists pair as the
//! tool does (see [`sequence`]), sets by equality, and each pair is diffed by the caller's
//! closure; the result is the element diffs in display order with the folded action.

use super::change::{Change, Matcher};
use super::sequence;
use crate::diff::{Action, Diff};
use crate::input::json::{FastBuildHasher, Value};

/// The starting action of a slice or map walk, from whether each side is a collection.
pub(crate) fn collection_action(before: bool, after: bool) -> Action {
    match (before, after) {
        (true, false) => Action::Delete,
        (false, true) => Action::Create,
        _ => Action::NoOp,
    }
}

/// The first `count` elements of a change paired by position (nested lists, list blocks,
/// tuples: never by LCS), each diffed by `element` given its index; those no relevant
/// path reaches are seen as unchanged.
pub(crate) fn by_index<'v, 'a>(
    change: &Change<'v, 'a>,
    count: usize,
    mut element: impl FnMut(usize, Change<'v, 'a>) -> Diff,
) -> (Vec<Diff>, Action) {
    let mut action = change.default_action();
    let mut elements = Vec::with_capacity(count);
    for ix in 0..count {
        let mut child = change.index(ix, ix);
        if !child.relevant.matches_partial() {
            child = child.as_noop();
        }
        let diff = element(ix, child);
        action = action.fold(diff.action);
        elements.push(diff);
    }
    (elements, action)
}

/// The members of a map-like change at `keys` (ascending), each diffed by `element`.
pub(crate) fn by_key<'v, 'a>(
    change: &Change<'v, 'a>,
    keys: Vec<&'v str>,
    mut element: impl FnMut(Change<'v, 'a>) -> Diff,
) -> (Vec<(String, Diff)>, Action) {
    let mut action = collection_action(
        change.before_object().is_some(),
        change.after_object().is_some(),
    );
    let mut entries = Vec::with_capacity(keys.len());
    let mut children = change.children();
    for key in keys {
        let diff = element(children.relevant_key(key));
        action = action.fold(diff.action);
        entries.push((key.to_string(), diff));
    }
    (entries, action)
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
fn class_ids(before: &[Value<'_>], after: &[Value<'_>]) -> (Vec<u32>, Vec<u32>) {
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
        c.relevant = Matcher::always();
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
