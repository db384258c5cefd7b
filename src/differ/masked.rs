//! Differ: masked values, sensitive or unknown. Contract: whatever the value's type, the
//! diff is one node that hides what is under it, with the action the hidden diff computes
//! (the caller passes that diff as a closure); a sensitive value is never kept.

use super::change::{Change, Mask};
use crate::diff::{Action, Diff, Node};

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
    // A change of sensitivity alone is an update, unless both sides are simply absent.
    let null_noop = change.before.is_none()
        && !change.before_explicit
        && change.after.is_none()
        && !change.after_explicit;
    let action = match inner_action {
        Action::NoOp if before_sensitive != after_sensitive && !null_noop => Action::Update,
        action => action,
    };
    Some(Diff {
        action,
        replace: change.replace.matches(),
        node: Node::Sensitive {
            before_sensitive,
            after_sensitive,
            inner_action,
        },
    })
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
