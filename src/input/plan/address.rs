//! Plan model: instance addresses of drift entries written by Terraform 0.15.4–1.0.8,
//! which have no `address` (nor `index`): rebuilt from the entry's other members.
//!
//! Contract: [`rebuild`] gives an entry without `address` the one its `module_address`,
//! `mode`, `type`, `name` (and `index` when present) spell; [`resolve_keys`] then settles
//! the instance key a rebuilt address could not know from the plan's planned changes, and
//! writes [`UNKNOWN_KEY`] where they cannot tell it either, so that text and comment both
//! show that the key is unknown rather than guess one.

use std::borrow::Cow;

use super::model::ResourceChange;

/// Written in place of an instance key the plan does not give (`aws_instance.web[?]`).
pub(crate) const UNKNOWN_KEY: &str = "[?]";

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
