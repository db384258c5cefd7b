//! Pipeline stage, what reviewers saw: each change of the loaded plans as the comment
//! renders it (Terraform's text, compacted: `render::text::change_text`), hashed, for the
//! marker's `changes_sha256` and for `planmark verify`.
//!
//! Contract: the hashes depend only on the changes as rendered — not on the JSON's bytes,
//! key order, timestamp, Terraform version, drift, no-op resources or unchanged context —
//! and never on a sensitive value (the diff tree holds none: a sensitive change renders
//! as `(sensitive value)`). Each resource change is diffed and rendered on every core
//! ([`concurrency::map_ordered`]); the overall hash is independent of the changes' order.
//! What is compared and why: README, "What verify compares".

use sha2::{Digest, Sha256};

use super::load::Loaded;
use crate::concurrency::{self, PART};
use crate::diff::{Action, InvocationTrigger, ResourceChanges};
use crate::input::error::Result;
use crate::marker::{encode_digests, max_digests, ChangeDigest};
use crate::render::text::{change_text, invocation_text, output_change_text};

/// Names this way of hashing in the overall hash: a later one never matches it by chance.
const SCHEME: &[u8] = b"planmark changes v1\n";

/// One change: what it is called (the plan's name first when there are several; kept
/// only when asked for, by `verify`) and the SHA-256 of that name and of its rendered
/// change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// The address shown, e.g. `aws_s3_bucket.logs` or `prod: output.url` (empty when
    /// not kept).
    pub label: String,
    /// SHA-256 of the label.
    pub address: [u8; 32],
    /// SHA-256 of the rendered change.
    pub change: [u8; 32],
}

impl Item {
    /// Change `address` of plan `scope` (empty for the only plan) rendered as `text`.
    fn new(scope: &Scope<'_>, address: &str, text: &str) -> Item {
        let prefix = scope.name.map(|n| [n, ": "]).unwrap_or_default();
        let mut hash = Sha256::new();
        prefix.iter().for_each(|p| hash.update(p));
        hash.update(address);
        Item {
            address: hash.finalize().into(),
            change: Sha256::digest(text.as_bytes()).into(),
            label: match scope.labels {
                true => prefix.concat() + address,
                false => String::new(),
            },
        }
    }

    /// What the marker keeps of it.
    pub fn digest(&self) -> ChangeDigest {
        ChangeDigest {
            address: short(&self.address),
            change: short(&self.change),
        }
    }
}

/// Whose changes are hashed: a plan's name when there are several (an address is then
/// `NAME: ADDRESS`), and whether to keep the labels.
#[derive(Clone, Copy)]
struct Scope<'s> {
    name: Option<&'s str>,
    labels: bool,
}

impl<'s> Scope<'s> {
    fn of(loaded: &'s [Loaded<'_>], plan: &'s Loaded<'_>, labels: bool) -> Self {
        Scope {
            name: (loaded.len() > 1).then_some(plan.arg.name.as_str()),
            labels,
        }
    }
}

/// The first bytes of a hash, as the marker keeps them.
pub(super) fn short(hash: &[u8; 32]) -> [u8; 3] {
    [hash[0], hash[1], hash[2]]
}

/// The loaded plans' changes as reviewers saw them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reviewed {
    /// Each change, in plan order.
    pub items: Vec<Item>,
    /// SHA-256 (hex) of every change, in no particular order.
    pub sha256: String,
}

impl Reviewed {
    /// The marker's fields in a comment of `max_chars`: the hash, the count, and the
    /// digests when few enough.
    pub fn marker_fields(
        &self,
        max_chars: usize,
    ) -> (Option<String>, Option<usize>, Option<String>) {
        let digests = (self.items.len() <= max_digests(max_chars)).then(|| {
            let digests: Vec<ChangeDigest> = self.items.iter().map(Item::digest).collect();
            encode_digests(&digests)
        });
        (Some(self.sha256.clone()), Some(self.items.len()), digests)
    }

    /// Stands in for the hashes of `count` changes while they are computed: its marker
    /// fields are as long as the real ones.
    pub(super) fn placeholder(count: usize) -> Reviewed {
        let item = Item {
            label: String::new(),
            address: [0; 32],
            change: [0; 32],
        };
        Reviewed {
            items: vec![item; count],
            sha256: "0".repeat(64),
        }
    }
}

/// How many changes [`reviewed`] hashes, without diffing anything.
pub(super) fn count(loaded: &[Loaded<'_>]) -> usize {
    loaded
        .iter()
        .map(|l| {
            let shown = l.resources.summaries().iter().filter(|s| s.is_shown());
            let outputs = l
                .head
                .outputs
                .iter()
                .filter(|o| o.diff.action != Action::NoOp);
            shown.count() + outputs.count() + l.head.invocations.len()
        })
        .sum()
}

/// The changes of the loaded plans, hashed: each shown resource change (diffed and
/// rendered on every core), each output change and each action invoked; with their
/// labels when `labels` asks (to name them).
pub(super) fn reviewed(loaded: &[Loaded<'_>], labels: bool) -> Result<Reviewed> {
    let mut items = Vec::with_capacity(count(loaded));
    let mut text = String::new();
    for l in loaded {
        let scope = Scope::of(loaded, l, labels);
        resources(scope, &*l.resources, &mut items)?;
        for output in l.head.outputs.iter() {
            if output.diff.action != Action::NoOp {
                output_change_text(output, &mut text);
                let address = format!("output.{}", output.name);
                items.push(Item::new(&scope, &address, &text));
            }
        }
        let mut seen: Vec<&str> = Vec::new();
        for invocation in &l.head.invocations {
            // One action invoked twice (by two triggers) is two changes.
            let n = seen.iter().filter(|a| **a == invocation.address).count();
            seen.push(&invocation.address);
            let address = match n {
                0 => format!("{} (invoked)", invocation.address),
                n => format!("{} (invoked, #{})", invocation.address, n + 1),
            };
            let text = format!(
                "{}\n{}",
                trigger(&invocation.trigger),
                invocation_text(invocation).text
            );
            items.push(Item::new(&scope, &address, &text));
        }
    }
    let mut sorted: Vec<(&[u8; 32], &[u8; 32])> =
        items.iter().map(|i| (&i.address, &i.change)).collect();
    sorted.sort_unstable();
    let mut all = Sha256::new();
    all.update(SCHEME);
    for (address, change) in sorted {
        all.update(address);
        all.update(change);
    }
    let sha256 = all.finalize().iter().map(|b| format!("{b:02x}")).collect();
    Ok(Reviewed { items, sha256 })
}

/// What invokes an action, in words that are the same in every plan of the change.
fn trigger(trigger: &InvocationTrigger) -> String {
    match trigger {
        InvocationTrigger::Cli { calling_resource } => {
            format!("command line {}", calling_resource.as_deref().unwrap_or(""))
        }
        InvocationTrigger::Lifecycle {
            resource,
            event,
            block_index,
            list_index,
        } => format!("{resource} {event} {block_index} {list_index}"),
        InvocationTrigger::Unknown => "unknown".to_string(),
    }
}

/// The shown resource changes of one plan, hashed a part at a time on every core.
fn resources(scope: Scope<'_>, list: &dyn ResourceChanges, items: &mut Vec<Item>) -> Result<()> {
    let shown: Vec<usize> = (0..list.summaries().len())
        .filter(|&i| list.summaries()[i].is_shown())
        .collect();
    let parts: Vec<&[usize]> = shown.chunks(PART).collect();
    let hash_part = |part: &&[usize]| -> Result<Vec<Item>> {
        let mut text = String::with_capacity(4096);
        let mut made = Vec::with_capacity(part.len());
        for &i in *part {
            let r = list.diff(i)?;
            change_text(&r, &mut text);
            let item = match r.deposed.as_deref() {
                Some(key) if !key.is_empty() => {
                    let address = format!("{} (deposed object {key})", r.address);
                    Item::new(&scope, &address, &text)
                }
                _ => Item::new(&scope, &r.address, &text),
            };
            made.push(item);
        }
        Ok(made)
    };
    concurrency::map_ordered(&parts, hash_part, |made| {
        items.extend(made);
        Ok(())
    })
}

/// Every address the loaded plans know, labelled as [`reviewed`] labels changes: each
/// resource change (no-op ones too, and deposed objects), each change outside Terraform,
/// each output and action invoked. `verify` names a reviewed change that is no longer in
/// the plan by looking its address's hash up here.
pub(super) fn known_addresses(loaded: &[Loaded<'_>], reviewed: &Reviewed) -> Vec<Item> {
    let mut known: Vec<Item> = reviewed.items.clone();
    for l in loaded {
        let scope = Scope::of(loaded, l, true);
        for list in [&*l.resources, &*l.drift] {
            for i in 0..list.summaries().len() {
                known.push(Item::new(&scope, list.address(i), ""));
            }
        }
        for output in &l.head.outputs {
            known.push(Item::new(&scope, &format!("output.{}", output.name), ""));
        }
    }
    known
}

#[cfg(test)]
mod tests;
