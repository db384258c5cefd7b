//! Plan model: Terraform 1.14's action invocations (`action_invocations`, plan format
//! 1.2), read as written; every member is optional, as the format's own `omitempty` makes
//! it.
//!
//! An invocation is either asked for on the command line (`terraform plan -invoke=…`,
//! `invoke_action_trigger`) or triggered by a resource's lifecycle event
//! (`lifecycle_action_trigger`); its config values stay raw text until the differ reads
//! them.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

/// One action Terraform will invoke when the plan is applied.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ActionInvocation<'a> {
    /// Absolute action address, e.g. `action.aws_lambda_invoke.notify` (or in a module).
    #[serde(borrow, default)]
    pub(crate) address: Cow<'a, str>,
    /// The action type.
    #[serde(borrow, rename = "type", default)]
    pub(crate) type_: Cow<'a, str>,
    /// The action name.
    #[serde(borrow, default)]
    pub(crate) name: Cow<'a, str>,
    /// The `config` block's values, unknown parts left out (absent when it has none).
    #[serde(borrow, default)]
    pub(crate) config_values: Option<&'a RawValue>,
    /// Mirror of the config marking sensitive parts with `true`.
    #[serde(borrow, default)]
    pub(crate) config_sensitive: Option<&'a RawValue>,
    /// Mirror of the config marking parts known only at apply with `true`.
    #[serde(borrow, default)]
    pub(crate) config_unknown: Option<&'a RawValue>,
    /// Provider source address, which tells which provider's action schema applies.
    #[serde(borrow, default)]
    pub(crate) provider_name: Cow<'a, str>,
    /// Set when a resource's lifecycle event triggers the action.
    #[serde(borrow, default)]
    pub(crate) lifecycle_action_trigger: Option<LifecycleTrigger<'a>>,
    /// Set when the command line asked for the action (`-invoke`).
    #[serde(borrow, default)]
    pub(crate) invoke_action_trigger: Option<InvokeTrigger<'a>>,
}

/// The resource event that triggers an action (an `action_trigger` block).
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct LifecycleTrigger<'a> {
    /// The resource instance whose change triggers it.
    #[serde(borrow, default)]
    pub(crate) triggering_resource_address: Cow<'a, str>,
    /// `before_create`, `after_update`, … (an open set).
    #[serde(borrow, default)]
    pub(crate) action_trigger_event: Cow<'a, str>,
    /// Which `action_trigger` block of the resource, in configuration order.
    #[serde(default)]
    pub(crate) action_trigger_block_index: u64,
    /// Which action of that block's `actions` list.
    #[serde(default)]
    pub(crate) actions_list_index: u64,
}

/// An action asked for on the command line.
#[derive(Debug, Clone, Default, Deserialize)]
pub(crate) struct InvokeTrigger<'a> {
    /// The resource instance the action is called for (its `caller`), when there is one.
    #[serde(borrow, default, deserialize_with = "super::model::borrowed_option")]
    pub(crate) calling_resource_address: Option<Cow<'a, str>>,
}
