//! Differ: a plan's action invocations (Terraform 1.14+) → [`InvocationDiff`]s, each
//! action's `config` block diffed as a new value (as Terraform renders it: every
//! attribute shown, unknown and sensitive parts as such) against the action's schema, or
//! a schema inferred from the values when there is none.

use super::change::Matcher;
use super::resource::{diff_resource_values, value_error};
use crate::diff::{InvocationDiff, InvocationTrigger};
use crate::input::error::Result;
use crate::input::json::{ParseError, Value};
use crate::input::plan::{ActionInvocation, ParsedChange, Plan};
use crate::input::schema::ProviderSchemas;
use serde_json::value::RawValue;

/// Every invocation of `plan` (read from `path`, named in errors), in plan order.
pub(super) fn diff_invocations(
    path: &str,
    plan: &Plan<'_>,
    schemas: Option<&ProviderSchemas>,
) -> Result<Vec<InvocationDiff>> {
    plan.action_invocations
        .iter()
        .map(|invocation| diff_invocation(path, invocation, schemas))
        .collect()
}

fn parse<'a>(raw: Option<&'a RawValue>) -> std::result::Result<Value<'a>, ParseError> {
    match raw {
        Some(raw) => Value::parse(raw.get()),
        None => Ok(Value::Null),
    }
}

fn diff_invocation(
    path: &str,
    invocation: &ActionInvocation<'_>,
    schemas: Option<&ProviderSchemas>,
) -> Result<InvocationDiff> {
    let address = &invocation.address;
    // A JSON null says no more than an absent member: no config to show.
    let config_values = invocation.config_values.filter(|raw| raw.get() != "null");
    let config = match config_values {
        None => None,
        Some(values) => {
            // The config is new: nothing before it, nothing forcing a replacement.
            let read = (|| {
                Ok::<_, ParseError>(ParsedChange {
                    after: parse(Some(values))?,
                    after_unknown: parse(invocation.config_unknown)?,
                    after_sensitive: parse(invocation.config_sensitive)?,
                    ..ParsedChange::default()
                })
            })();
            let values = read.map_err(|e| value_error(path, address, e))?;
            let schema = schemas
                .and_then(|s| s.resource(&invocation.provider_name, "action", &invocation.type_));
            Some(diff_resource_values(
                &values,
                schema,
                None,
                Matcher::always(),
                false,
                // Action invocations are Terraform's alone (1.14+); a new config pairs nothing.
                super::sequence::Pairing::Terraform,
                // Action invocations exist from Terraform 1.14, which marks provider
                // sensitivity in the masks itself.
                false,
            ))
        }
    };
    let trigger = match (
        &invocation.invoke_action_trigger,
        &invocation.lifecycle_action_trigger,
    ) {
        (Some(cli), _) => InvocationTrigger::Cli {
            calling_resource: cli
                .calling_resource_address
                .as_deref()
                .filter(|a| !a.is_empty())
                .map(str::to_string),
        },
        (None, Some(event)) => InvocationTrigger::Lifecycle {
            resource: event.triggering_resource_address.to_string(),
            event: event.action_trigger_event.to_string(),
            block_index: event.action_trigger_block_index,
            list_index: event.actions_list_index,
        },
        (None, None) => InvocationTrigger::Unknown,
    };
    Ok(InvocationDiff {
        address: address.to_string(),
        type_: invocation.type_.to_string(),
        name: invocation.name.to_string(),
        provider: invocation.provider_name.to_string(),
        trigger,
        config,
    })
}
