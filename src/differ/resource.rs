//! Differ, one change: a resource's or an output's parsed values → its [`Diff`] tree.

use super::change::{Change, Matcher};
use super::{block, infer, sequence, typed, undescribed};

use crate::diff::Diff;
use crate::input::error::InputError;
use crate::input::json::Value;
use crate::input::plan::ParsedChange;
use crate::input::schema::Block;

/// Computes the diff tree of a resource change.
///
/// `schema` is the resource's provider schema block; without it one is inferred from the
/// values and the resource's configuration `expressions` (which tell blocks apart).
/// `relevant` follows the attribute paths that matter (drift shows only those; a planned
/// change, every one). `forget_only` marks a `["forget"]` action, which Terraform shows as
/// unchanged. `hide_secret_names`: hide the attributes whose names read like secrets where
/// no schema describes them (plans whose masks may lack what providers declare sensitive,
/// see [`crate::input::plan::Plan::masks_omit_provider_sensitivity`]).
pub(crate) fn diff_resource_values<'v, 'a>(
    values: &'v ParsedChange<'a>,
    schema: Option<&Block>,
    expressions: Option<&Value<'_>>,
    relevant: Matcher<'v, 'a>,
    forget_only: bool,
    pairing: sequence::Pairing,
    hide_secret_names: bool,
) -> Diff {
    let mut change = Change::new(
        &values.before,
        &values.after,
        &values.after_unknown,
        &values.before_sensitive,
        &values.after_sensitive,
        Matcher::from_value(&values.replace_paths, false),
        relevant,
    );
    change.pairing = pairing;
    // What is sensitive is left out of what a schema is inferred (or completed) from.
    let redacted = undescribed::Redacted::new(values);
    let (objects, unknown) = redacted.parts();
    match schema {
        // What the schema does not declare is shown as without a schema, never left out
        // (a schema older than the provider that made the plan).
        Some(block) => match undescribed::complete(block, &objects, unknown, hide_secret_names) {
            Some(completed) => block::diff_root(change, &completed, forget_only),
            None => block::diff_root(change, block, forget_only),
        },
        None => {
            let mut inferred = infer::infer_block(&objects, Some(unknown), expressions);
            if hide_secret_names {
                infer::mark_secret_names(&mut inferred);
            }
            block::diff_root(change, &inferred, forget_only)
        }
    }
}

/// Computes the diff of an output change (sensitivity masks are booleans there), pairing
/// list elements as `pairing` says.
pub(crate) fn diff_output_paired(values: &ParsedChange<'_>, pairing: sequence::Pairing) -> Diff {
    let mut change = Change::new(
        &values.before,
        &values.after,
        &values.after_unknown,
        &values.before_sensitive,
        &values.after_sensitive,
        Matcher::default(),
        Matcher::always(),
    );
    change.pairing = pairing;
    typed::diff_output(change)
}

/// The input error for a change whose values do not parse.
pub(super) fn value_error(
    path: &str,
    address: &str,
    err: crate::input::json::ParseError,
) -> InputError {
    InputError::input(
        path,
        format!(
            "the values of `{address}` cannot be read ({} at byte {}); regenerate the plan JSON",
            err.reason, err.offset
        ),
    )
}
