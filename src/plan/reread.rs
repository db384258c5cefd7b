//! Plan model: a resource change read again for diffing, in one pass of the value parser.
//!
//! The parse has read and checked every change with serde already (so types are right
//! and no member is repeated); reading it again the same way would scan its values once
//! for serde and once more for the value parser, which cost a third of a diff. Here the
//! change's object is parsed once into a [`Value`] tree, its values are moved out of it
//! parsed, and its other members are taken as they are.

use std::borrow::Cow;

use super::actions::ResourceAction;
use super::model::{Change, Importing, ResourceChange};
use super::values::ParsedChange;
use crate::value::Value;

/// A resource change read again to be diffed.
#[derive(Debug)]
pub struct ReadChange<'a> {
    /// Its members. The value members (`before`, `after`, the masks, `replace_paths`) may
    /// be unset: `values` holds them.
    pub change: ResourceChange<'a>,
    /// Its values, parsed.
    pub values: ParsedChange<'a>,
}

/// The change an object of `resource_changes` holds (`None` if it is not an object with
/// an `address`). Members of another type than the format's read as absent: the parse has
/// refused those already.
pub(super) fn from_object(object: Value<'_>) -> Option<ReadChange<'_>> {
    let Value::Object(members) = object else {
        return None;
    };
    let mut address = None;
    let mut change = ResourceChange {
        address: Cow::Borrowed(""),
        previous_address: None,
        module_address: None,
        mode: Cow::Borrowed(""),
        type_: Cow::Borrowed(""),
        name: Cow::Borrowed(""),
        index: None,
        index_unknown: false,
        deposed: None,
        provider_name: Cow::Borrowed(""),
        action_reason: None,
        change: empty_change(),
    };
    let mut values = ParsedChange::default();
    for (key, value) in members {
        match &*key {
            "address" => address = string(value),
            "previous_address" => change.previous_address = string(value),
            "module_address" => change.module_address = string(value),
            "mode" => change.mode = string(value).unwrap_or_default(),
            "type" => change.type_ = string(value).unwrap_or_default(),
            "name" => change.name = string(value).unwrap_or_default(),
            "index" => change.index = json_text(value),
            "index_unknown" => change.index_unknown = value.is_true(),
            "deposed" => change.deposed = string(value),
            "provider_name" => change.provider_name = string(value).unwrap_or_default(),
            "action_reason" => change.action_reason = string(value),
            "change" => read_change(value, &mut change.change, &mut values),
            _ => {}
        }
    }
    change.address = address?;
    Some(ReadChange { change, values })
}

/// The `change` member: its values into `values`, the rest into `change`.
fn read_change<'a>(value: Value<'a>, change: &mut Change<'a>, values: &mut ParsedChange<'a>) {
    let Value::Object(members) = value else {
        return;
    };
    for (key, value) in members {
        match &*key {
            "actions" => change.action = action(&value),
            "before" => values.before = value,
            "after" => values.after = value,
            "after_unknown" => values.after_unknown = value,
            "before_sensitive" => values.before_sensitive = value,
            "after_sensitive" => values.after_sensitive = value,
            "replace_paths" => values.replace_paths = value,
            "importing" => change.importing = importing(value),
            "generated_config" => change.generated_config = string(value),
            _ => {}
        }
    }
}

fn empty_change<'a>() -> Change<'a> {
    Change {
        action: ResourceAction::Unsupported,
        before: None,
        after: None,
        after_unknown: None,
        before_sensitive: None,
        after_sensitive: None,
        replace_paths: None,
        importing: None,
        generated_config: None,
    }
}

fn string(value: Value<'_>) -> Option<Cow<'_, str>> {
    match value {
        Value::String(s) => Some(s),
        _ => None,
    }
}

/// An instance key as JSON text: a number as written, a string encoded again.
fn json_text(value: Value<'_>) -> Option<Cow<'_, str>> {
    match value {
        Value::Number(n) => Some(n),
        Value::String(s) => serde_json::to_string(&*s).ok().map(Cow::Owned),
        _ => None,
    }
}

/// An instance key's JSON text as read (serde's `index`) written as [`json_text`] writes
/// it: a string decoded and encoded again (its escapes as serde writes them).
pub(super) fn key_text(text: Cow<'_, str>) -> Cow<'_, str> {
    if !text.starts_with('"') {
        return text;
    }
    match serde_json::from_str::<String>(&text) {
        Ok(key) => serde_json::to_string(&key).map_or(text, Cow::Owned),
        Err(_) => text,
    }
}

fn action(value: &Value<'_>) -> ResourceAction {
    match value {
        Value::Array(names) => {
            let name = |i: usize| names.get(i).and_then(Value::as_str);
            ResourceAction::from_parts(names.len(), name(0), name(1))
        }
        _ => ResourceAction::Unsupported,
    }
}

fn importing(value: Value<'_>) -> Option<Importing<'_>> {
    let Value::Object(members) = value else {
        return None;
    };
    let mut importing = Importing {
        id: None,
        unknown: false,
    };
    for (key, value) in members {
        match &*key {
            "id" => importing.id = string(value),
            "unknown" => importing.unknown = value.is_true(),
            _ => {}
        }
    }
    Some(importing)
}
