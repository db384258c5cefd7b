//! Pipeline stage, what reviewers approved: each change of the loaded plans in its
//! canonical form (the plan's data with sensitive values masked, see
//! [`crate::differ::CanonicalForms`]), hashed, for the marker's `changes_sha256` and for
//! `planmark verify`.
//!
//! Contract: the hashes depend only on the plan's changes — not on the JSON's bytes, key
//! order, timestamp, drift, no-op resources, nor on how planmark renders the comment
//! (templates, `--max-chars`, `--map`, grouping, schemas for plans that carry their own
//! sensitivity) — and never on a sensitive value. Each resource change is read on every
//! core ([`concurrency::map_ordered`]); the overall hash is independent of the changes'
//! order. What is compared and why: docs/apply-and-verify.md, "What verify compares".

use sha2::{Digest, Sha256};

use super::load::LoadedPlan;
use crate::concurrency::{self, PART};
use crate::diff::Action;
use crate::differ::CANONICAL_VERSION;
use crate::input::error::Result;
use crate::marker::{encode_digests, max_digests, ChangeDigest, MarkerChanges};

/// Names this way of hashing in the overall hash: another one never matches it by chance.
const SCHEME: &[u8] = b"planmark changes v2\n";

/// One change: what it is called (the plan's name first when there are several; kept
/// only when asked for, by `verify`) and the SHA-256 of that name and of its canonical
/// form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Item {
    /// The address shown, e.g. `aws_s3_bucket.logs` or `prod: output.url` (empty when
    /// not kept).
    pub(crate) label: String,
    /// SHA-256 of the label.
    pub(crate) address: [u8; 32],
    /// SHA-256 of the change's canonical form.
    pub(crate) change: [u8; 32],
}

impl Item {
    /// Change `address` of plan `scope` (none for the only plan) whose canonical form is
    /// `canonical`.
    fn new(scope: &Scope<'_>, address: &str, canonical: &[u8]) -> Item {
        let prefix = scope.name.map(|n| [n, ": "]).unwrap_or_default();
        Item {
            address: address_hash(scope.name, address),
            change: Sha256::digest(canonical).into(),
            label: match scope.labels {
                true => prefix.concat() + address,
                false => String::new(),
            },
        }
    }

    /// What the marker keeps of it.
    pub(crate) fn digest(&self) -> ChangeDigest {
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
    fn of(loaded: &'s [LoadedPlan<'_>], plan: &'s LoadedPlan<'_>, labels: bool) -> Self {
        Scope {
            name: (loaded.len() > 1).then_some(plan.arg.name.as_str()),
            labels,
        }
    }
}

/// SHA-256 of an address as the marker's digests hash it: `NAME: ADDRESS` when the
/// comment has several plans, else the address alone.
pub(super) fn address_hash(plan: Option<&str>, address: &str) -> [u8; 32] {
    let mut hash = Sha256::new();
    if let Some(name) = plan {
        hash.update(name);
        hash.update(": ");
    }
    hash.update(address);
    hash.finalize().into()
}

/// The first bytes of a hash, as the marker keeps them.
pub(super) fn short(hash: &[u8; 32]) -> [u8; 3] {
    [hash[0], hash[1], hash[2]]
}

/// The loaded plans' changes as reviewers saw them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Reviewed {
    /// Each change, in plan order.
    pub(crate) items: Vec<Item>,
    /// SHA-256 (hex) of every change, in no particular order.
    pub(crate) sha256: String,
    /// Whether the canonical forms read the provider schemas (a plan older than Terraform
    /// 0.15.2 given them): `verify` then needs them too.
    pub(crate) schemas: bool,
}

impl Reviewed {
    /// The marker's fields in a comment of `max_chars`: the hash, the count, the form's
    /// version, and the digests when few enough.
    pub(crate) fn marker_fields(&self, max_chars: usize) -> MarkerChanges {
        let digests = (self.items.len() <= max_digests(max_chars)).then(|| {
            let digests: Vec<ChangeDigest> = self.items.iter().map(Item::digest).collect();
            encode_digests(&digests)
        });
        MarkerChanges {
            changes_sha256: self.sha256.clone(),
            changes_count: self.items.len(),
            changes_form: CANONICAL_VERSION,
            changes_schemas: self.schemas.then_some(true),
            changes: digests,
        }
    }

    /// Stands in for the hashes of `count` changes while they are computed: its marker
    /// fields are as long as the real ones.
    pub(super) fn placeholder(count: usize, schemas: bool) -> Reviewed {
        let item = Item {
            label: String::new(),
            address: [0; 32],
            change: [0; 32],
        };
        Reviewed {
            items: vec![item; count],
            sha256: "0".repeat(64),
            schemas,
        }
    }
}

/// Whether hashing the loaded plans' changes with `schemas` reads them (see
/// [`Reviewed::schemas`]).
pub(super) fn reads_schemas(loaded: &[LoadedPlan<'_>]) -> bool {
    loaded.iter().any(|l| l.canonical.reads_schemas())
}

/// How many changes [`reviewed`] hashes, without diffing anything.
pub(super) fn count(loaded: &[LoadedPlan<'_>]) -> usize {
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

/// The changes of the loaded plans, hashed: each shown resource change (read on every
/// core), each output change and each action invoked; with their labels when `labels`
/// asks (to name them). `schemas`: let plans older than 0.15.2 take sensitivity from the
/// provider schemas given (see [`CanonicalForms::resource`]).
pub(super) fn reviewed(loaded: &[LoadedPlan<'_>], labels: bool, schemas: bool) -> Result<Reviewed> {
    let mut items = Vec::with_capacity(count(loaded));
    for l in loaded {
        let scope = Scope::of(loaded, l, labels);
        resources(scope, l, schemas, &mut items)?;
        let outputs = l.canonical.outputs()?;
        for (output, canonical) in l.head.outputs.iter().zip(&outputs) {
            if output.diff.action != Action::NoOp {
                let address = format!("output.{}", output.name);
                items.push(Item::new(&scope, &address, canonical));
            }
        }
        let mut seen: Vec<&str> = Vec::new();
        let mut canonical = Vec::new();
        for (n, invocation) in l.head.invocations.iter().enumerate() {
            // One action invoked twice (by two triggers) is two changes.
            let k = seen.iter().filter(|a| **a == invocation.address).count();
            seen.push(&invocation.address);
            let address = match k {
                0 => format!("{} (invoked)", invocation.address),
                k => format!("{} (invoked, #{})", invocation.address, k + 1),
            };
            canonical.clear();
            l.canonical.invocation(n, &mut canonical)?;
            items.push(Item::new(&scope, &address, &canonical));
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
    let schemas = schemas && reads_schemas(loaded);
    Ok(Reviewed {
        items,
        sha256,
        schemas,
    })
}

/// The shown resource changes of one plan, hashed a part at a time on every core.
fn resources(
    scope: Scope<'_>,
    plan: &LoadedPlan<'_>,
    schemas: bool,
    items: &mut Vec<Item>,
) -> Result<()> {
    let list = &*plan.resources;
    let shown: Vec<usize> = (0..list.summaries().len())
        .filter(|&i| list.summaries()[i].is_shown())
        .collect();
    let parts: Vec<&[usize]> = shown.chunks(PART).collect();
    let hash_part = |part: &&[usize]| -> Result<Vec<Item>> {
        let mut canonical = Vec::with_capacity(4096);
        let mut made = Vec::with_capacity(part.len());
        for &i in *part {
            canonical.clear();
            let label = plan.canonical.resource(i, schemas, &mut canonical)?;
            made.push(Item::new(&scope, &label, &canonical));
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
pub(super) fn known_addresses(loaded: &[LoadedPlan<'_>], reviewed: &Reviewed) -> Vec<Item> {
    let mut known: Vec<Item> = reviewed.items.clone();
    for l in loaded {
        let scope = Scope::of(loaded, l, true);
        for list in [&*l.resources, &*l.drift] {
            for i in 0..list.summaries().len() {
                known.push(Item::new(&scope, list.address(i), b""));
            }
        }
        for output in &l.head.outputs {
            known.push(Item::new(&scope, &format!("output.{}", output.name), b""));
        }
    }
    known
}

#[cfg(test)]
mod tests;
