//! Plan model: instance addresses of drift entries written by Terraform 0.15.4–1.0.8,
//! which have no `address` (nor `index`): rebuilt from the entry's other members.
//!
//! Contract: [`rebuild`] gives an entry without `address` the one its `module_address`,
//! `mode`, `type`, `name` (and `index` when present) spell; [`resolve_keys`] then settles
//! the instance key a rebuilt address could not know from the plan's planned changes, and
//! writes [`UNKNOWN_KEY`] where they cannot tell it either, so that text and comment both
//! show that the key is unknown rather than guess one.

use std::borrow::Cow;

use super::model::{Plan, ResourceChange};

/// Written in place of an instance key the plan does not give (`aws_instance.web[?]`).
pub const UNKNOWN_KEY: &str = "[?]";

/// Gives `change` its address if it has none; `true` when the address was rebuilt
/// without an instance key (which [`resolve_keys`] settles).
pub(super) fn rebuild(change: &mut ResourceChange<'_>) -> bool {
    if !change.address.is_empty() {
        return false;
    }
    let mut address = String::new();
    if let Some(module) = change.module_address.as_deref().filter(|m| !m.is_empty()) {
        address.push_str(module);
        address.push('.');
    }
    if change.mode == "data" {
        address.push_str("data.");
    }
    address.push_str(&change.type_);
    address.push('.');
    address.push_str(&change.name);
    if let Some(index) = &change.index {
        address.push('[');
        address.push_str(index);
        address.push(']');
    }
    change.address = Cow::Owned(address);
    change.index.is_none()
}

/// Settles the instance keys of drift entries rebuilt without one: the planned change of
/// the same resource names the instance when the resource has exactly one; otherwise the
/// key is [`UNKNOWN_KEY`].
pub(super) fn resolve_keys(plan: &mut Plan<'_>) {
    if !plan.resource_drift.iter().any(|e| e.key_unknown()) {
        return;
    }
    let planned: Vec<&str> = plan.resource_changes.iter().map(|e| &*e.address).collect();
    let mut settled = Vec::new();
    for (i, entry) in plan.resource_drift.iter().enumerate() {
        if !entry.key_unknown() {
            continue;
        }
        let base = &*entry.address;
        let mut instances = planned.iter().filter(|a| {
            a.strip_prefix(base)
                .is_some_and(|rest| rest.is_empty() || rest.starts_with('['))
        });
        let address = match (instances.next(), instances.next()) {
            (Some(only), None) => only.to_string(),
            _ => format!("{base}{UNKNOWN_KEY}"),
        };
        settled.push((i, address));
    }
    for (i, address) in settled {
        if let Some(entry) = plan.resource_drift.get_mut(i) {
            entry.set_address(address);
        }
    }
}
