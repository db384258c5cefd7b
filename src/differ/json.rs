//! Differ: values typed by their JSON shape (outputs, `dynamic` attributes, the inside of
//! JSON strings). Objects render as objects, arrays as lists with context, and a change of
//! JSON type as a type change.

use super::change::Change;
use super::collections::{by_key, multiline_strings_share_a_line, pair_slice};
use super::masked;
use super::sequence;
use super::strings::{self, scalar_text};
use crate::diff::{Action, Diff, Node};
use crate::input::json::Value;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Null,
    Bool,
    Number,
    String,
    Object,
    Array,
}

fn kind(value: Option<&Value<'_>>) -> Kind {
    match value {
        None | Some(Value::Null) => Kind::Null,
        Some(Value::Bool(_)) => Kind::Bool,
        Some(Value::Number(_)) => Kind::Number,
        Some(Value::String(_)) => Kind::String,
        Some(Value::Object(_)) => Kind::Object,
        Some(Value::Array(_)) => Kind::Array,
    }
}

/// The JSON differ (also of a `dynamic` attribute, whose sensitivity and unknown-ness the
/// caller handled). Replacement is never marked inside JSON.
pub(crate) fn transform(change: Change<'_, '_>) -> Diff {
    if let Some(mut diff) = masked::sensitive(&change, transform) {
        diff.replace = false;
        return diff;
    }
    if change.is_unknown() {
        let (action, before) = match change.before {
            None => (Action::Create, None),
            Some(_) => (
                Action::Update,
                Some(Box::new(transform(change.as_delete()))),
            ),
        };
        return Diff {
            action,
            replace: false,
            node: Node::Unknown { before },
        };
    }
    let before_kind = kind(change.before);
    let after_kind = kind(change.after);
    let deleted = after_kind == Kind::Null && !change.after_explicit;
    let created = before_kind == Kind::Null && !change.before_explicit;
    if before_kind == after_kind || created || deleted {
        let target = if before_kind == Kind::Null {
            after_kind
        } else {
            before_kind
        };
        return by_kind(change, target);
    }
    let before = by_kind(change.as_delete(), before_kind);
    let after = by_kind(change.as_create(), after_kind);
    Diff {
        action: Action::Update,
        replace: false,
        node: Node::TypeChange {
            before: Box::new(before),
            after: Box::new(after),
        },
    }
}

fn by_kind(change: Change<'_, '_>, kind: Kind) -> Diff {
    match kind {
        Kind::Object => object(&change),
        Kind::Array => array(&change),
        Kind::Null | Kind::Bool | Kind::Number | Kind::String => primitive(&change, kind),
    }
}

fn primitive(change: &Change<'_, '_>, kind: Kind) -> Diff {
    let before_missing = change.before.is_none() && !change.before_explicit;
    let after_missing = change.after.is_none() && !change.after_explicit;
    // Sensitivity plays no part here: the JSON differ compares values only.
    let action = match (before_missing, after_missing) {
        (true, false) => Action::Create,
        (false, true) => Action::Delete,
        _ if change.before == change.after => Action::NoOp,
        _ => Action::Update,
    };
    let node = if kind == Kind::String {
        let before = change.before.and_then(Value::as_str);
        let after = change.after.and_then(Value::as_str);
        strings::string_node(before, after, action, change.pairing, transform)
    } else {
        Node::Primitive {
            before: change.before.map(scalar_text),
            after: change.after.map(scalar_text),
        }
    };
    Diff {
        action,
        replace: false,
        node,
    }
}

fn object(change: &Change<'_, '_>) -> Diff {
    let (attributes, action) = by_key(change, change.all_keys(), transform);
    Diff {
        action,
        replace: false,
        node: Node::Object {
            attributes,
            nested: false,
        },
    }
}

fn array(change: &Change<'_, '_>) -> Diff {
    let (elements, action) = pair_slice(
        change,
        |b, a| {
            (matches!(b, Value::Object(_)) && matches!(a, Value::Object(_)))
                || (change.pairing == sequence::Pairing::OpenTofu
                    && multiline_strings_share_a_line(b, a))
        },
        transform,
    );
    Diff {
        action,
        replace: false,
        node: Node::List {
            elements,
            context: true,
        },
    }
}
