//! Differ, a change's canonical form: the bytes `planmark verify` compares, made from the
//! plan's data (address, actions, before, after, what is unknown) with every sensitive
//! value replaced by a mask, never from how a renderer lays the change out.
//!
//! Contract: two plans of one change give the same bytes whatever their JSON's key order,
//! whitespace or unchanged context, and whatever planmark's renderers do; a sensitive
//! value never reaches the bytes (the plan's masks decide, and for plans older than
//! Terraform 0.15.2, whose masks lack what providers declare, the provider schemas when
//! the caller uses them, else the attributes named like secrets, as the differ hides
//! them). The form is versioned ([`VERSION`]) and described in docs/apply-and-verify.md,
//! "What verify compares".

use std::collections::BTreeMap;

use super::infer;
use super::plan::Differ;
use crate::input::error::Result;
use crate::input::json::Value;
use crate::input::plan::{ChangeList, ParsedChange, ResourceAction};
use crate::input::schema::{Attribute, Block, NestingMode};

/// The canonical form's version, which the comment's marker records: a planmark that
/// changes the form changes this, so an older marker is never misread as a changed plan.
pub(crate) const VERSION: u64 = 2;

/// Written where a value is sensitive (not JSON, so no value can equal it).
const SENSITIVE: &[u8] = b"(sensitive)";
/// Written where a value is known only after apply.
const UNKNOWN: &[u8] = b"(known after apply)";

/// Where a value sits in a schema, for the sensitivity old plans take from it.
#[derive(Clone, Copy)]
enum Place<'b> {
    /// No schema describes it: only the plan's masks count.
    Free,
    /// An object whose members are these attributes (and nested blocks).
    Object(&'b BTreeMap<String, Attribute>, Option<&'b Block>),
    /// Instances of a nested block or attribute type, repeated per `NestingMode`.
    Nested(
        NestingMode,
        &'b BTreeMap<String, Attribute>,
        Option<&'b Block>,
    ),
}

impl<'b> Place<'b> {
    fn block(block: &'b Block) -> Self {
        Place::Object(&block.attributes, Some(block))
    }

    /// The place of member `key` of an object here; `true` when the schema declares it
    /// sensitive.
    fn member(self, key: &str) -> (Place<'b>, bool) {
        match self {
            Place::Object(attributes, block) => {
                if let Some(attribute) = attributes.get(key) {
                    let place = match &attribute.nested_type {
                        Some(n) => Place::Nested(n.nesting_mode, &n.attributes, None),
                        None => Place::Free,
                    };
                    return (place, attribute.sensitive);
                }
                match block.and_then(|b| b.block_types.get(key)) {
                    Some(t) => (
                        Place::Nested(t.nesting_mode, &t.block.attributes, Some(&t.block)),
                        false,
                    ),
                    None => (Place::Free, false),
                }
            }
            // A map of instances: each member is one instance.
            Place::Nested(NestingMode::Map, attributes, block) => {
                (Place::Object(attributes, block), false)
            }
            Place::Nested(NestingMode::Single | NestingMode::Group, attributes, block) => {
                Place::Object(attributes, block).member(key)
            }
            _ => (Place::Free, false),
        }
    }

    /// The place of an element of an array here.
    fn element(self) -> Place<'b> {
        match self {
            Place::Nested(NestingMode::List | NestingMode::Set, attributes, block) => {
                Place::Object(attributes, block)
            }
            _ => Place::Free,
        }
    }
}

static NULL: Value<'static> = Value::Null;
static TRUE: Value<'static> = Value::Bool(true);

/// Written where a sensitive value differs from the one before it: whether a secret
/// changes is what the diff shows of it, and so what reviewers approved.
const SENSITIVE_CHANGED: &[u8] = b"(sensitive, changed)";

/// What is known of a value besides itself: its masks (`Null` where they mark nothing)
/// and, on the `after` side, the value before it (to tell whether a secret changes).
#[derive(Clone, Copy)]
struct Around<'m, 'a> {
    sensitive: &'m Value<'a>,
    unknown: &'m Value<'a>,
    before: Option<&'m Value<'a>>,
}

impl<'m, 'a> Around<'m, 'a> {
    /// The masks of member `key`, `declared` sensitive by the schema or not.
    fn member(self, key: &str, declared: bool) -> Self {
        let get = |v: &'m Value<'a>| v.get(key).unwrap_or(&NULL);
        Around {
            sensitive: if declared { &TRUE } else { get(self.sensitive) },
            unknown: get(self.unknown),
            before: self.before.map(get),
        }
    }

    /// The masks of element `i`.
    fn element(self, i: usize) -> Self {
        let at = |v: &'m Value<'a>| match v {
            Value::Array(items) => items.get(i).unwrap_or(&NULL),
            _ => &NULL,
        };
        Around {
            sensitive: at(self.sensitive),
            unknown: at(self.unknown),
            before: self.before.map(at),
        }
    }
}

/// One value with its masks, written canonically.
struct Writer<'o> {
    out: &'o mut Vec<u8>,
}

impl Writer<'_> {
    fn raw(&mut self, bytes: &[u8]) {
        self.out.extend_from_slice(bytes);
    }

    fn string(&mut self, s: &str) {
        // serde_json's escaping: one spelling for every string.
        let _ = serde_json::to_writer(&mut *self.out, s);
    }

    /// `value`, with what is `around` it, at `place` in the schema.
    fn value(&mut self, value: &Value<'_>, around: Around<'_, '_>, place: Place<'_>) {
        if matches!(around.sensitive, Value::Bool(true)) {
            return match around.before {
                Some(before) if before != value => self.raw(SENSITIVE_CHANGED),
                _ => self.raw(SENSITIVE),
            };
        }
        if matches!(around.unknown, Value::Bool(true)) {
            return self.raw(UNKNOWN);
        }
        match value {
            Value::Null => match around.unknown {
                // Unknown parts of a value Terraform left out entirely.
                Value::Object(_) => self.object(&[], around, place),
                Value::Array(_) => self.array(&[], around, place),
                _ => self.raw(b"null"),
            },
            Value::Bool(b) => self.raw(if *b { b"true" } else { b"false" }),
            Value::Number(n) => self.raw(n.as_bytes()),
            Value::String(s) => self.string(s),
            Value::Array(items) => self.array(items, around, place),
            Value::Object(members) => self.object(members, around, place),
        }
    }

    fn array(&mut self, items: &[Value<'_>], around: Around<'_, '_>, place: Place<'_>) {
        let len = match around.unknown {
            Value::Array(u) => items.len().max(u.len()),
            _ => items.len(),
        };
        self.raw(b"[");
        for i in 0..len {
            if i > 0 {
                self.raw(b",");
            }
            let item = items.get(i).unwrap_or(&NULL);
            self.value(item, around.element(i), place.element());
        }
        self.raw(b"]");
    }

    fn object(
        &mut self,
        members: &[(std::borrow::Cow<'_, str>, Value<'_>)],
        around: Around<'_, '_>,
        place: Place<'_>,
    ) {
        // Members the value has, and those only the unknown mask names (Terraform leaves
        // unknown attributes out of `after`), merged in bytewise key order (both lists
        // are sorted, as `Value` keeps objects).
        let only_unknown: &[(std::borrow::Cow<'_, str>, Value<'_>)] = match around.unknown {
            Value::Object(u) => u,
            _ => &[],
        };
        let (mut i, mut j) = (0, 0);
        self.raw(b"{");
        let mut first = true;
        loop {
            let (key, value) = match (members.get(i), only_unknown.get(j)) {
                (Some((ka, va)), Some((kb, _))) if ka <= kb => {
                    j += usize::from(ka == kb);
                    i += 1;
                    (ka.as_ref(), va)
                }
                (_, Some((kb, _))) => {
                    j += 1;
                    (kb.as_ref(), &NULL)
                }
                (Some((ka, va)), None) => {
                    i += 1;
                    (ka.as_ref(), va)
                }
                (None, None) => break,
            };
            if !first {
                self.raw(b",");
            }
            first = false;
            self.string(key);
            self.raw(b":");
            let (child, declared) = place.member(key);
            self.value(value, around.member(key, declared), child);
        }
        self.raw(b"}");
    }
}

/// A value's surroundings on the `before` side (nothing is unknown there).
fn before_side<'m, 'a>(sensitive: &'m Value<'a>) -> Around<'m, 'a> {
    Around {
        sensitive,
        unknown: &NULL,
        before: None,
    }
}

/// A value's surroundings on the `after` side.
fn after_side<'m, 'a>(
    sensitive: &'m Value<'a>,
    unknown: &'m Value<'a>,
    before: &'m Value<'a>,
) -> Around<'m, 'a> {
    Around {
        sensitive,
        unknown,
        before: Some(before),
    }
}

/// The name of an action list, as the canonical form writes it.
fn action_name(action: ResourceAction) -> String {
    serde_json::to_string(&action).unwrap_or_default()
}

/// The canonical forms of a plan's changes, as a trait so that the pipeline can hold them
/// beside a plan's other lists whatever the differ's lifetimes.
pub(crate) trait CanonicalForms: Sync {
    /// Whether the canonical forms of this plan's changes read the provider schemas: a
    /// plan older than Terraform 0.15.2 given schemas (its masks lack what they declare).
    fn reads_schemas(&self) -> bool;
    /// Resource change `i`'s canonical form, appended to `out`. `schemas`: take what
    /// providers declare sensitive from the schemas (only plans older than 0.15.2 need
    /// it, see [`CanonicalForms::reads_schemas`]); without, such a plan's attributes
    /// named like secrets are masked, as its diff hides them. Gives what the change is
    /// called: its address, and `(deposed object KEY)` after it for a deposed object.
    fn resource(&self, i: usize, schemas: bool, out: &mut Vec<u8>) -> Result<String>;
    /// The canonical forms of the plan's output changes, in name order (the order of
    /// [`crate::diff::PlanHead::outputs`]); outputs declared sensitive are masked whatever
    /// their masks say.
    fn outputs(&self) -> Result<Vec<Vec<u8>>>;
    /// The canonical form of the plan's `n`th action invocation, appended to `out`.
    fn invocation(&self, n: usize, out: &mut Vec<u8>) -> Result<()>;
}

impl<'p> CanonicalForms for Differ<'p, '_> {
    fn reads_schemas(&self) -> bool {
        self.old_masks && self.schemas.is_some()
    }

    fn resource(&self, i: usize, schemas: bool, out: &mut Vec<u8>) -> Result<String> {
        let read = self.read_entry(ChangeList::Changes, i)?;
        let (rc, v) = (&read.change, &read.values);
        let inferred;
        let place = match self.old_masks {
            false => Place::Free,
            true => {
                let schema = self
                    .schemas
                    .filter(|_| schemas)
                    .and_then(|s| s.resource(&rc.provider_name, &rc.mode, &rc.type_));
                match schema {
                    Some(block) => Place::block(block),
                    None => {
                        let before = infer::redacted(&v.before, &v.before_sensitive);
                        let after = infer::redacted(&v.after, &v.after_sensitive);
                        let mut block = infer::infer_block(
                            &[
                                before.as_ref().unwrap_or(&v.before),
                                after.as_ref().unwrap_or(&v.after),
                            ],
                            Some(&v.after_unknown),
                            self.expressions(rc),
                        );
                        infer::mark_secret_names(&mut block);
                        inferred = block;
                        Place::block(&inferred)
                    }
                }
            }
        };
        let mut w = Writer { out };
        w.raw(b"resource ");
        w.string(&rc.address);
        w.raw(b"\ndeposed ");
        w.string(rc.deposed.as_deref().unwrap_or_default());
        w.raw(b"\nprevious ");
        w.string(rc.previous_address.as_deref().unwrap_or_default());
        w.raw(b"\nactions ");
        w.raw(action_name(rc.change.action).as_bytes());
        w.raw(b"\nimporting ");
        match &rc.change.importing {
            Some(i) => w.string(i.id.as_deref().unwrap_or_default()),
            None => w.raw(b"null"),
        }
        w.raw(b"\nbefore ");
        w.value(&v.before, before_side(&v.before_sensitive), place);
        w.raw(b"\nafter ");
        let after = after_side(&v.after_sensitive, &v.after_unknown, &v.before);
        w.value(&v.after, after, place);
        w.raw(b"\n");
        Ok(match rc.deposed.as_deref() {
            Some(key) if !key.is_empty() => format!("{} (deposed object {key})", rc.address),
            _ => rc.address.to_string(),
        })
    }

    fn outputs(&self) -> Result<Vec<Vec<u8>>> {
        let outputs = self.output_values()?;
        let canonical = |(name, v, action): &(&str, ParsedChange<'_>, ResourceAction)| {
            let mut out = Vec::new();
            let mut w = Writer { out: &mut out };
            w.raw(b"output ");
            w.string(name);
            w.raw(b"\nactions ");
            w.raw(action_name(*action).as_bytes());
            w.raw(b"\nbefore ");
            w.value(&v.before, before_side(&v.before_sensitive), Place::Free);
            w.raw(b"\nafter ");
            let after = after_side(&v.after_sensitive, &v.after_unknown, &v.before);
            w.value(&v.after, after, Place::Free);
            w.raw(b"\n");
            out
        };
        Ok(outputs.iter().map(canonical).collect())
    }

    fn invocation(&self, n: usize, out: &mut Vec<u8>) -> Result<()> {
        let Some(invocation) = self.plan.action_invocations.get(n) else {
            return Ok(());
        };
        let parse = |raw: Option<&'p serde_json::value::RawValue>| {
            raw.map_or(Ok(Value::Null), |r| Value::parse(r.get()))
                .map_err(|e| super::resource::value_error(self.path, &invocation.address, e))
        };
        let config = parse(invocation.config_values)?;
        let sensitive = parse(invocation.config_sensitive)?;
        let unknown = parse(invocation.config_unknown)?;
        let mut w = Writer { out };
        w.raw(b"action ");
        w.string(&invocation.address);
        w.raw(b"\nprovider ");
        w.string(&invocation.provider_name);
        w.raw(b"\ntrigger ");
        match (
            &invocation.lifecycle_action_trigger,
            &invocation.invoke_action_trigger,
        ) {
            (Some(t), _) => {
                w.string(&t.triggering_resource_address);
                w.raw(b" ");
                w.string(&t.action_trigger_event);
                w.raw(
                    format!(" {} {}", t.action_trigger_block_index, t.actions_list_index)
                        .as_bytes(),
                );
            }
            (None, Some(t)) => {
                w.raw(b"command line ");
                w.string(t.calling_resource_address.as_deref().unwrap_or_default());
            }
            (None, None) => w.raw(b"unknown"),
        }
        w.raw(b"\nconfig ");
        let around = Around {
            sensitive: &sensitive,
            unknown: &unknown,
            before: None,
        };
        w.value(&config, around, Place::Free);
        w.raw(b"\n");
        Ok(())
    }
}

#[cfg(test)]
mod tests;
