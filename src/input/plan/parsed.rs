//! Plan model: turns a change's raw JSON members into parsed [`Value`]s on demand.

use super::model::Change;
use crate::input::json::{ParseError, Value};

/// The parsed values of one [`Change`]. Absent members are `Value::Null` (as in
/// `ParsedChange::default()`).
#[derive(Debug, Clone, Default)]
pub(crate) struct ParsedChange<'a> {
    /// Value before.
    pub(crate) before: Value<'a>,
    /// Value after (unknown parts null).
    pub(crate) after: Value<'a>,
    /// Unknown mask.
    pub(crate) after_unknown: Value<'a>,
    /// Sensitivity mask of `before`.
    pub(crate) before_sensitive: Value<'a>,
    /// Sensitivity mask of `after`.
    pub(crate) after_sensitive: Value<'a>,
    /// `replace_paths` as an array of arrays (or null).
    pub(crate) replace_paths: Value<'a>,
}

impl<'a> ParsedChange<'a> {
    /// Parses every value member of `change`.
    pub(crate) fn parse(change: &Change<'a>) -> Result<Self, ParseError> {
        fn parse<'a>(
            raw: Option<&'a serde_json::value::RawValue>,
        ) -> Result<Value<'a>, ParseError> {
            raw.map_or(Ok(Value::Null), |raw| Value::parse(raw.get()))
        }
        Ok(ParsedChange {
            before: parse(change.before)?,
            after: parse(change.after)?,
            after_unknown: parse(change.after_unknown)?,
            before_sensitive: parse(change.before_sensitive)?,
            after_sensitive: parse(change.after_sensitive)?,
            replace_paths: parse(change.replace_paths)?,
        })
    }
}
