//! Plan model: a resource change read again for diffing, in one pass of the value parser.
//!
//! The parse has read and checked every change with serde already (so types are right
//! and no member is repeated); reading it again the same way would scan its values once
//! for serde and once more for the value parser, which the 10,000-change plans' text
//! cannot afford (docs/performance.md). Here the change's object and its `change` member
//! are walked member by member ([`Value::walk_prefix`]), each member's value parsed where
//! it is kept (the two objects themselves are never built).

use std::borrow::Cow;

use super::actions::ResourceAction;
use super::model::{Change, Importing, ResourceChange};
use super::parsed::ParsedChange;
use crate::input::json::{Member, ParseError, Value};

/// A resource change read again to be diffed.
#[derive(Debug)]
pub(crate) struct ReadChange<'a> {
    /// Its members. The value members (`before`, `after`, the masks, `replace_paths`) may
    /// be unset: `values` holds them.
    pub(crate) change: ResourceChange<'a>,
    /// Its values, parsed.
    pub(crate) values: ParsedChange<'a>,
}

/// The change whose object starts `text` (after whitespace; what follows it is ignored),
/// or `Ok(None)` if that is not an object with an `address`. Members of another type
/// than the format's read as absent: the parse has refused those already.
pub(super) fn read(text: &str) -> Result<Option<ReadChange<'_>>, ParseError> {
    let mut address = None;
    let mut change = ResourceChange::default();
    let mut values = ParsedChange::default();
    // Walked, not built: its values are taken out as they are read.
    let object = Value::walk_prefix(text, |key, member| {
        match key {
            "address" => address = string(member.value()?),
            "previous_address" => change.previous_address = string(member.value()?),
            "module_address" => change.module_address = string(member.value()?),
            "mode" => change.mode = string(member.value()?).unwrap_or_default(),
            "type" => change.type_ = string(member.value()?).unwrap_or_default(),
            "name" => change.name = string(member.value()?).unwrap_or_default(),
            "index" => change.index = json_text(member.value()?),
            "index_unknown" => change.index_unknown = member.value()?.is_true(),
            "deposed" => change.deposed = string(member.value()?),
            "provider_name" => {
                change.provider_name = string(member.value()?).unwrap_or_default();
            }
            "action_reason" => change.action_reason = string(member.value()?),
            "change" => {
                member.members(|key, member| {
                    read_change(key, member, &mut change.change, &mut values)
                })?;
            }
            _ => {}
        }
        Ok(())
    })?;
    if !object {
        return Ok(None);
    }
    Ok(address.map(|address| {
        change.address = address;
        ReadChange { change, values }
    }))
}

/// One member of the `change` member: a value into `values`, the rest into `change`.
fn read_change<'a>(
    key: &str,
    member: Member<'_, 'a>,
    change: &mut Change<'a>,
    values: &mut ParsedChange<'a>,
) -> Result<(), ParseError> {
    match key {
        "actions" => change.action = action(&member.value()?),
        "before" => values.before = member.value()?,
        "after" => values.after = member.value()?,
        "after_unknown" => values.after_unknown = member.value()?,
        "before_sensitive" => values.before_sensitive = member.value()?,
        "after_sensitive" => values.after_sensitive = member.value()?,
        "replace_paths" => values.replace_paths = member.value()?,
        "importing" => change.importing = importing(member.value()?),
        "generated_config" => change.generated_config = string(member.value()?),
        _ => {}
    }
    Ok(())
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
    let again = serde_json::from_str::<String>(&text).and_then(|key| serde_json::to_string(&key));
    again.map_or(text, Cow::Owned)
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
    let mut importing = Importing::default();
    for (key, value) in members {
        match &*key {
            "id" => importing.id = string(value),
            "unknown" => importing.unknown = value.is_true(),
            _ => {}
        }
    }
    Some(importing)
}
