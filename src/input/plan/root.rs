//! Plan model, the root object: the whole `terraform show -json` plan, its lists of resource
//! changes kept as small entries ([`ChangeEntry`]) and read again when asked.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use serde::Deserialize;
use serde_json::value::RawValue;

use super::actions::ResourceAction;
use super::address::UNKNOWN_KEY;
use super::entries::{ChangeEntry, ChangeList};
use super::model::*;
use super::reread::ReadChange;
use crate::input::json::{ParseError, Value};

/// The whole plan document.
#[derive(Debug, Deserialize)]
pub struct Plan<'a> {
    /// `"1.2"` etc.; checked by the loader before this struct is built.
    #[serde(borrow, default, deserialize_with = "borrowed_option")]
    pub(crate) format_version: Option<Cow<'a, str>>,
    /// Version of Terraform (or OpenTofu) that made the plan.
    #[serde(borrow, default, deserialize_with = "borrowed_option")]
    pub(crate) terraform_version: Option<Cow<'a, str>>,
    /// Root module input variables (values only; sensitivity is in `configuration`).
    /// Nothing reads them; parsed so that a plan whose `variables` is not an object of
    /// objects is refused as before.
    #[allow(dead_code)]
    #[serde(borrow, default, deserialize_with = "null_as_default")]
    pub(crate) variables: BTreeMap<Str<'a>, Variable<'a>>,
    /// Planned changes, in Terraform's order (sorted by address, then deposed key), each
    /// read in full again when diffed ([`Plan::read_change`]).
    #[serde(borrow, default, deserialize_with = "null_as_default")]
    pub(crate) resource_changes: Vec<ChangeEntry<'a>>,
    /// Changes detected outside Terraform, kept as small as `resource_changes` and read in
    /// full again when diffed ([`Plan::read_change`]): a plan may drift as much as
    /// it changes.
    #[serde(borrow, default, deserialize_with = "null_as_default")]
    pub(crate) resource_drift: Vec<ChangeEntry<'a>>,
    /// Which drifted attributes contributed to the plan.
    #[serde(borrow, default, deserialize_with = "null_as_default")]
    pub(crate) relevant_attributes: Vec<RelevantAttribute<'a>>,
    /// Root module output changes, sorted by name.
    #[serde(borrow, default, deserialize_with = "null_as_default")]
    pub(crate) output_changes: BTreeMap<Str<'a>, Change<'a>>,
    /// Check results (format 1.1+; `condition_results` in 1.2 was short-lived and ignored).
    #[serde(borrow, default, deserialize_with = "null_as_default")]
    pub(crate) checks: Vec<CheckResult<'a>>,
    /// Changes deferred to a later plan/apply cycle (1.9+).
    #[serde(borrow, default, deserialize_with = "null_as_default")]
    pub(crate) deferred_changes: Vec<DeferredChange<'a>>,
    /// Actions the apply will invoke (1.14+, format 1.2), in Terraform's order.
    #[serde(borrow, default, deserialize_with = "null_as_default")]
    pub(crate) action_invocations: Vec<ActionInvocation<'a>>,
    /// The configuration, kept raw: only variable sensitivity is read from it.
    #[serde(borrow, default)]
    pub(crate) configuration: Option<&'a RawValue>,
    /// Planning failed part-way (1.6+).
    #[serde(default, deserialize_with = "null_as_default")]
    pub(crate) errored: bool,
    /// Whether applying the plan would do anything (1.8+).
    #[serde(default)]
    pub(crate) applyable: Option<bool>,
    /// Whether the plan is complete (1.8+).
    #[serde(default)]
    pub(crate) complete: Option<bool>,
    /// When the plan was made (1.5+).
    #[serde(borrow, default, deserialize_with = "borrowed_option")]
    pub(crate) timestamp: Option<Cow<'a, str>>,
    /// The JSON text this plan was read from (set by [`super::parse_plan`]).
    #[serde(skip)]
    pub text: &'a str,
}

impl Plan<'_> {
    /// Whether the plan's sensitivity masks may leave out what providers declare sensitive
    /// in their schemas: Terraform folds that in only from 0.15.2 on (its changelog: "Fix JSON plan
    /// output to add sensitivity data for provider-specified sensitive attribute values"). See
    /// [`masks_omit_provider_sensitivity`].
    pub(crate) fn masks_omit_provider_sensitivity(&self) -> bool {
        masks_omit_provider_sensitivity(
            self.terraform_version.as_deref(),
            self.format_version.as_deref(),
        )
    }
}

impl<'a> Plan<'a> {
    /// The entries of `list`.
    pub(crate) fn entries(&self, list: ChangeList) -> &[ChangeEntry<'a>] {
        match list {
            ChangeList::Changes => &self.resource_changes,
            ChangeList::Drift => &self.resource_drift,
        }
    }

    /// Entry `i` of `list` read again from the plan text, its values parsed; `None` when
    /// the plan was not read by [`super::parse_plan`] (which keeps its text) or `i` is out
    /// of range, an error when a value cannot be parsed.
    pub(crate) fn read_change(
        &self,
        list: ChangeList,
        i: usize,
    ) -> Option<Result<ReadChange<'a>, ParseError>> {
        self.entries(list).get(i)?.read(self.text)
    }

    /// The resource changes whose `actions` list planmark does not know (`["invalid"]`,
    /// or one a newer Terraform writes): each address with its list as JSON text (`[]`
    /// when it had none; `null` when its names cannot be read again).
    pub(crate) fn unknown_actions(&self) -> Vec<(String, String)> {
        self.resource_changes
            .iter()
            .filter(|e| e.action == ResourceAction::Unsupported)
            .map(|e| {
                let names = e.action_names(self.text);
                let names = serde_json::to_string(&names).unwrap_or_default();
                (e.address.to_string(), names)
            })
            .collect()
    }

    /// Entry `i` of `list`'s members read again without parsing its values (left as
    /// text), much faster than [`Plan::read_change`]: what is shown of a change without its
    /// diff. Its members are those that read gives. `None` as there.
    pub(crate) fn read_members(&self, list: ChangeList, i: usize) -> Option<ResourceChange<'a>> {
        self.entries(list).get(i)?.read_members(self.text)
    }
}

/// Settles the instance keys of drift entries rebuilt without one: the planned change of
/// the same resource names the instance when the resource has exactly one; otherwise the
/// key is [`UNKNOWN_KEY`].
pub(super) fn resolve_keys(plan: &mut Plan<'_>) {
    if !plan.resource_drift.iter().any(|e| e.key_unknown()) {
        return;
    }
    let planned: Vec<&str> = plan.resource_changes.iter().map(|e| &*e.address).collect();
    for entry in plan.resource_drift.iter_mut().filter(|e| e.key_unknown()) {
        let base = &*entry.address;
        let mut instances = planned.iter().filter(|a| {
            a.strip_prefix(base)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('['))
        });
        let address = match (instances.next(), instances.next()) {
            (Some(only), None) => only.to_string(),
            _ => format!("{base}{UNKNOWN_KEY}"),
        };
        entry.set_address(address);
    }
}

/// Names of root module outputs declared `sensitive = true` in the configuration (plans
/// before Terraform 0.14 carry no other sign of it).
pub(crate) fn sensitive_outputs(plan: &Plan<'_>) -> BTreeSet<String> {
    let config = plan.configuration.and_then(|c| Value::parse(c.get()).ok());
    let outputs = config
        .as_ref()
        .and_then(|c| c.get("root_module")?.get("outputs"));
    let Some(Value::Object(decls)) = outputs else {
        return BTreeSet::new();
    };
    decls
        .iter()
        .filter(|(_, decl)| decl.get("sensitive").is_some_and(Value::is_true))
        .map(|(name, _)| name.to_string())
        .collect()
}
