//! Pipeline stage, verify: the plans about to be applied, hashed as a comment's marker
//! hashes the reviewed ones ([`super::digest`]), and compared with a marker read back.
//!
//! Contract: [`fresh`] reads files only (the comment is found by the caller, through
//! publish); [`compare`] says whether the changes are the reviewed ones, and when not,
//! names each change that differs — `new`, `gone` or `changed` — as far as the marker's
//! digests allow (it holds hashes only, never an address: a gone change is named from the
//! addresses the plans still know, or those the reviewed comment shows, whose hashes
//! match). A marker whose canonical form this planmark does not read is said to be so,
//! never taken for a different plan.

mod names;

use std::collections::{HashMap, HashSet};
use std::fmt;

use serde_json::Value as Json;

use super::digest::{address_hash, short, Item, Reviewed};
use super::error::{PipelineError, Result};
use super::load::{read, Purpose};
use super::options::Options;
use crate::differ::CANONICAL_VERSION;
use crate::marker::decode_digests;

/// The plans about to be applied, hashed.
pub struct Fresh {
    /// The comment key (`--key`, else the names or paths, as `comment` makes it).
    pub(crate) key: String,
    /// Their changes, hashed as a comment's marker hashes them.
    changes: Compared,
}

impl Fresh {
    /// How many changes the plans make (resources, outputs, actions invoked).
    pub(crate) fn count(&self) -> usize {
        self.changes.reviewed.items.len()
    }

    /// The marker's fields for these changes.
    #[cfg(test)]
    pub(super) fn marker_fields(&self, max_chars: usize) -> crate::marker::MarkerChanges {
        self.changes.reviewed.marker_fields(max_chars)
    }
}

/// Reads the plans in `options` and hashes their changes as `comment` does.
pub fn fresh(options: &Options) -> Result<Fresh> {
    let inputs = read(options, Purpose::Plans)?;
    let parsed = inputs.parse()?;
    let differs = parsed.differs(options);
    let loaded = parsed.load(options, &differs)?;
    let key = loaded.key();
    let fresh = loaded.compared().map(|changes| Fresh { key, changes });
    loaded.finish(fresh.map_err(PipelineError::from))
}

/// What [`compare`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Comparison {
    /// The changes are the reviewed ones.
    Matches,
    /// The marker records no hash of changes: a failed plan's comment, or one made before
    /// planmark recorded them.
    NoHash,
    /// The marker hashed another form of the changes than this planmark makes: the
    /// version it names (none: the first form, the changes as rendered).
    OtherForm(Option<u64>),
    /// The reviewed plan's hashes took sensitivity from provider schemas (a plan older
    /// than Terraform 0.15.2), and none were given.
    NeedsSchemas,
    /// The changes differ; at least one line says how.
    Differs(Vec<Difference>),
}

/// One way the changes differ from the reviewed ones. Labels are plan text: print them
/// through `input::text::one_line`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Difference {
    /// A change nobody reviewed.
    New(String),
    /// A change reviewed otherwise.
    Changed(String),
    /// A reviewed change no longer in the plan, named by the plans or by the reviewed
    /// comment.
    Gone(String),
    /// Reviewed changes no longer in the plan whose addresses neither the plans nor the
    /// reviewed comment show: how many.
    GoneUnnamed(usize),
    /// The reviewed plan had too many changes for the marker to list each.
    Unnamed {
        /// How many it had, when the marker says.
        reviewed: Option<u64>,
        /// How many this one has.
        now: usize,
    },
    /// The changes differ as a whole, but no single one can be named.
    Whole,
}

impl fmt::Display for Difference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Difference::New(label) => write!(f, "new: {label} (not in the reviewed plan)"),
            Difference::Changed(label) => {
                write!(f, "changed: {label} (not the change reviewed)")
            }
            Difference::Gone(label) => {
                write!(f, "gone: {label} (reviewed, no longer in the plan)")
            }
            Difference::GoneUnnamed(n) => {
                let changes = match n {
                    1 => "a reviewed change".to_string(),
                    n => format!("{n} reviewed changes"),
                };
                write!(
                    f,
                    "gone: {changes} no longer in the plan, at addresses neither the plan nor \
                     the reviewed comment shows"
                )
            }
            Difference::Unnamed { reviewed, now } => {
                let had = match reviewed {
                    Some(n) => format!("{n} changes"),
                    None => "more changes".to_string(),
                };
                write!(
                    f,
                    "the reviewed plan had {had}, too many for its comment to record each, \
                     and this one has {now}: the changes \
                     that differ cannot be named"
                )
            }
            Difference::Whole => write!(
                f,
                "changed: the changes as a whole, though none can be named alone"
            ),
        }
    }
}

/// Changes to compare with a marker: hashed with the schemas given and, when those changed
/// the hashes, without; every address the plans know; the plans' names.
pub(super) struct Compared {
    /// The changes hashed with the schemas given (when any).
    pub(super) reviewed: Reviewed,
    /// The changes hashed without schemas, when those given changed the hashes (a plan
    /// older than Terraform 0.15.2): for a marker made without them.
    pub(super) plain: Option<Reviewed>,
    /// Whether schemas were given.
    pub(super) schemas_given: bool,
    /// Every address the plans know (see [`super::digest::known_addresses`]).
    pub(super) known: Vec<Item>,
    /// The plans' names, which label their changes when there are several.
    pub(super) plan_names: Vec<String>,
}

/// Compares the plans' changes with those a comment's `marker` records; `body` is that
/// comment, whose addresses name the reviewed changes that are gone.
pub fn compare(fresh: &Fresh, marker: &Json, body: &str) -> Comparison {
    compare_changes(&fresh.changes, marker, body)
}

/// [`compare`] for changes however hashed (`comment` compares its own with the previous
/// comment's marker).
pub(super) fn compare_changes(fresh: &Compared, marker: &Json, body: &str) -> Comparison {
    let Some(sha256) = marker.get("changes_sha256").and_then(Json::as_str) else {
        return Comparison::NoHash;
    };
    match marker.get("changes_form").and_then(Json::as_u64) {
        Some(CANONICAL_VERSION) => {}
        other => return Comparison::OtherForm(other),
    }
    let with_schemas = marker.get("changes_schemas").and_then(Json::as_bool) == Some(true);
    let fresh_changes = match (with_schemas, &fresh.plain) {
        (true, _) if !fresh.schemas_given => return Comparison::NeedsSchemas,
        (false, Some(plain)) => plain,
        _ => &fresh.reviewed,
    };
    if sha256 == fresh_changes.sha256 {
        return Comparison::Matches;
    }
    let items = &fresh_changes.items;
    let digests = marker
        .get("changes")
        .and_then(Json::as_str)
        .and_then(decode_digests);
    let Some(digests) = digests else {
        return Comparison::Differs(vec![Difference::Unnamed {
            reviewed: marker.get("changes_count").and_then(Json::as_u64),
            now: items.len(),
        }]);
    };
    // What was reviewed at each address (one address may hold a current and a deposed
    // object, or be shared by chance among a hundred).
    let mut reviewed: HashMap<[u8; 3], Vec<[u8; 3]>> = HashMap::new();
    for d in &digests {
        reviewed.entry(d.address).or_default().push(d.change);
    }
    let mut differences = Vec::new();
    for item in items {
        match reviewed.get(&short(&item.address)) {
            None => differences.push(Difference::New(item.label.clone())),
            Some(changes) if !changes.contains(&short(&item.change)) => {
                differences.push(Difference::Changed(item.label.clone()));
            }
            Some(_) => {}
        }
    }
    let now: HashSet<[u8; 3]> = items.iter().map(|i| short(&i.address)).collect();
    let gone: Vec<[u8; 3]> = digests
        .iter()
        .map(|d| d.address)
        .filter(|a| !now.contains(a))
        .collect();
    if !gone.is_empty() {
        differences.extend(name_gone(fresh, &gone, body));
    }
    if differences.is_empty() {
        differences.push(Difference::Whole);
    }
    Comparison::Differs(differences)
}

/// The reviewed changes at the `gone` address hashes, named by the addresses the plans
/// know or, failing that, those the reviewed comment shows; the rest counted in one line.
fn name_gone(fresh: &Compared, gone: &[[u8; 3]], body: &str) -> Vec<Difference> {
    let mut known: HashMap<[u8; 3], String> = HashMap::new();
    for item in fresh.known.iter().rev() {
        known.insert(short(&item.address), item.label.clone());
    }
    let wanted: HashSet<[u8; 3]> = gone
        .iter()
        .filter(|a| !known.contains_key(*a))
        .copied()
        .collect();
    if !wanted.is_empty() {
        let shown = names::shown(body);
        // A plan's changes are `NAME: ADDRESS` when the comment had several plans.
        let mut scopes: Vec<Option<&str>> = vec![None];
        scopes.extend(fresh.plan_names.iter().map(|n| Some(n.as_str())));
        scopes.extend(
            shown
                .iter()
                .filter(|s| names::may_be_plan_name(s))
                .map(|s| Some(s.as_str())),
        );
        scopes.dedup();
        'search: for scope in scopes {
            for address in &shown {
                let hash = short(&address_hash(scope, address));
                if wanted.contains(&hash) && !known.contains_key(&hash) {
                    let label = match scope {
                        Some(name) => format!("{name}: {address}"),
                        None => address.clone(),
                    };
                    known.insert(hash, label);
                    if wanted.iter().all(|w| known.contains_key(w)) {
                        break 'search;
                    }
                }
            }
        }
    }
    let mut differences = Vec::new();
    let mut unnamed = 0;
    for address in gone {
        match known.get(address) {
            Some(label) => differences.push(Difference::Gone(label.clone())),
            None => unnamed += 1,
        }
    }
    if unnamed > 0 {
        differences.push(Difference::GoneUnnamed(unnamed));
    }
    differences
}
