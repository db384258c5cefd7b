//! Differ: strings, which Terraform shows three ways: quoted on one line, as a heredoc
//! when multi-line, or as `jsonencode(...)` with a structural diff when they hold JSON;
//! and how any scalar prints. Contract: the structural diff comes from the [`JsonDiffer`]
//! the caller passes in, so this module calls no differ above it.

use std::borrow::Cow;

use super::change::{Change, Mask, Matcher};
use super::sequence::{self, Pairing};
use crate::diff::{Action, Diff, HeredocLine, Node};
use crate::input::json::Value;

/// The JSON differ, for a string that holds JSON. It calls [`string_node`] for the strings
/// inside, so the caller passes it in rather than this module importing it.
pub(crate) type JsonDiffer = fn(Change<'_, '_>) -> Diff;

/// A diff for a string-typed value.
pub(crate) fn diff_string(change: &Change<'_, '_>, json: JsonDiffer) -> Diff {
    let action = change.leaf_action();
    let before = change.before.map(|v| text_of(v));
    let after = change.after.map(|v| text_of(v));
    Diff {
        action,
        replace: change.replace.matches(),
        node: string_node(
            before.as_deref(),
            after.as_deref(),
            action,
            change.pairing,
            json,
        ),
    }
}

/// A string value's text; non-strings (from odd plans) use their JSON-ish form.
fn text_of<'v>(value: &'v Value<'_>) -> Cow<'v, str> {
    match value {
        Value::String(s) => Cow::Borrowed(s),
        other => Cow::Owned(scalar_text(other)),
    }
}

/// How a scalar prints: strings Go-quoted, numbers and bools verbatim; anything unexpected
/// as a placeholder.
pub(crate) fn scalar_text(value: &Value<'_>) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => crate::diff::quote::go_quote(s),
        Value::Array(_) | Value::Object(_) => "(complex value)".to_string(),
    }
}

/// How one side of a string change reads.
enum Reading<'s> {
    Null,
    Json(Value<'s>),
    Multiline(&'s str),
    Simple(&'s str),
}

fn read(text: Option<&str>) -> Reading<'_> {
    let Some(text) = text else {
        return Reading::Null;
    };
    if text.starts_with(['{', '[']) {
        if let Ok(value) = Value::parse(text) {
            return Reading::Json(value);
        }
    }
    if text.contains('\n') {
        return Reading::Multiline(text.trim());
    }
    Reading::Simple(text)
}

/// Builds the node for a string change with the given action.
pub(crate) fn string_node(
    before: Option<&str>,
    after: Option<&str>,
    action: Action,
    pairing: Pairing,
    json: JsonDiffer,
) -> Node {
    let text = || Node::Text {
        before: before.map(str::to_string),
        after: after.map(str::to_string),
    };
    match action {
        Action::Create | Action::NoOp => match read(after) {
            Reading::Json(value) => {
                // Unchanged: the same decoded value on both sides.
                let before_json = (action == Action::NoOp).then_some(&value);
                json_node(before_json, Some(&value), action, pairing, json)
            }
            Reading::Multiline(s) => unchanged_heredoc(s),
            Reading::Null | Reading::Simple(_) => text(),
        },
        Action::Delete => match read(before) {
            Reading::Json(value) => json_node(Some(&value), None, action, pairing, json),
            Reading::Multiline(s) => unchanged_heredoc(s),
            Reading::Null | Reading::Simple(_) => text(),
        },
        Action::Update => match (read(before), read(after)) {
            (Reading::Json(b), Reading::Json(a)) => {
                json_node(Some(&b), Some(&a), action, pairing, json)
            }
            (Reading::Json(_), _) | (_, Reading::Json(_)) => Node::TypeChange {
                before: Box::new(Diff {
                    action: Action::Delete,
                    replace: false,
                    node: string_node(before, None, Action::Delete, pairing, json),
                }),
                after: Box::new(Diff {
                    action: Action::Create,
                    replace: false,
                    node: string_node(None, after, Action::Create, pairing, json),
                }),
            },
            (Reading::Null | Reading::Simple(_), Reading::Null | Reading::Simple(_)) => text(),
            (b, a) => Node::Heredoc {
                lines: diff_lines(&lines_of(&b), &lines_of(&a), pairing),
            },
        },
    }
}

fn lines_of<'s>(reading: &Reading<'s>) -> Vec<&'s str> {
    match reading {
        Reading::Null => vec!["null"],
        Reading::Multiline(s) | Reading::Simple(s) => s.split('\n').collect(),
        Reading::Json(_) => Vec::new(),
    }
}

fn unchanged_heredoc(text: &str) -> Node {
    Node::Heredoc {
        lines: text
            .split('\n')
            .map(|line| HeredocLine {
                action: Action::NoOp,
                text: line.to_string(),
            })
            .collect(),
    }
}

/// Line-by-line diff with the tool's list pairing; a changed pair is `-` then `+`.
fn diff_lines(before: &[&str], after: &[&str], pairing: Pairing) -> Vec<HeredocLine> {
    let mut ids = std::collections::HashMap::new();
    let mut id_of = |line: &str| {
        let next = ids.len() as u32;
        *ids.entry(line.to_string()).or_insert(next)
    };
    let before_ids: Vec<u32> = before.iter().map(|l| id_of(l)).collect();
    let after_ids: Vec<u32> = after.iter().map(|l| id_of(l)).collect();
    let line = |action, text: &str| HeredocLine {
        action,
        text: text.to_string(),
    };
    let mut out = Vec::new();
    for step in sequence::pair_elements(&before_ids, &after_ids, pairing, |_, _| false) {
        match step {
            sequence::Step::Created(a) => out.push(line(Action::Create, after[a])),
            sequence::Step::Deleted(b) => out.push(line(Action::Delete, before[b])),
            sequence::Step::Both(b, a) if before[b] == after[a] => {
                out.push(line(Action::NoOp, before[b]))
            }
            sequence::Step::Both(b, a) => {
                out.push(line(Action::Delete, before[b]));
                out.push(line(Action::Create, after[a]));
            }
        }
    }
    out
}

/// `jsonencode(...)`: the structural diff of the decoded JSON values.
fn json_node(
    before: Option<&Value<'_>>,
    after: Option<&Value<'_>>,
    action: Action,
    pairing: Pairing,
    json: JsonDiffer,
) -> Node {
    let change = Change {
        before,
        after,
        before_explicit: action != Action::Create,
        after_explicit: action != Action::Delete,
        unknown: Mask::Absent,
        before_sensitive: Mask::Absent,
        after_sensitive: Mask::Absent,
        replace: Matcher::default(),
        relevant: Matcher::always(),
        non_legacy: false,
        pairing,
    };
    let inner = json(change);
    let whitespace_only = inner.action == Action::NoOp && action == Action::Update;
    Node::Json {
        inner: Box::new(inner),
        whitespace_only,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_strings_in_terraform_order() {
        assert!(matches!(read(Some("[\"a\"]")), Reading::Json(_)));
        assert!(matches!(
            read(Some("[\"hello\"] and some more")),
            Reading::Simple(_)
        ));
        assert!(matches!(
            read(Some("{not json\nat all")),
            Reading::Multiline(_)
        ));
        assert!(matches!(read(Some(" {\"a\":1}")), Reading::Simple(_)));
        assert!(matches!(read(None), Reading::Null));
    }

    #[test]
    fn heredoc_update_pairs_lines_by_index_when_not_reordered() {
        let lines = diff_lines(&["a", "b", "c"], &["a", "x", "c"], Pairing::Terraform);
        let shown: Vec<_> = lines.iter().map(|l| (l.action, l.text.as_str())).collect();
        assert_eq!(
            shown,
            [
                (Action::NoOp, "a"),
                (Action::Delete, "b"),
                (Action::Create, "x"),
                (Action::NoOp, "c")
            ]
        );
    }
}
