//! Pipeline stage, verify: the plans about to be applied, hashed as a comment's marker
//! hashes the reviewed ones ([`super::digest`]), and compared with a marker read back.
//!
//! Contract: [`fresh`] reads files only (the comment is found by the caller, through
//! publish); [`compare`] says whether the changes are the reviewed ones, and when not,
//! names each change that differs — `new`, `gone` or `changed` — as far as the marker's
//! digests allow (it holds hashes only, never an address).

use std::collections::{HashMap, HashSet};
use std::fmt;

use serde_json::Value as Json;

use super::comment::default_key;
use super::digest::{self, short, Item, Reviewed};
use super::error::Result;
use super::load::with_loaded;
use super::options::Options;
use crate::marker::decode_digests;

/// The plans about to be applied, hashed.
pub struct Fresh {
    /// The comment key (`--key`, else the names or paths, as `comment` makes it).
    pub key: String,
    reviewed: Reviewed,
    /// Every address the plans know (see [`digest::known_addresses`]).
    known: Vec<Item>,
}

impl Fresh {
    /// How many changes the plans make (resources, outputs, actions invoked).
    pub fn count(&self) -> usize {
        self.reviewed.items.len()
    }

    /// The marker's fields for these changes.
    #[cfg(test)]
    pub(super) fn marker_fields(
        &self,
        max_chars: usize,
    ) -> (Option<String>, Option<usize>, Option<String>) {
        self.reviewed.marker_fields(max_chars)
    }
}

/// Reads and diffs the plans in `options` and hashes their changes as `comment` does.
pub fn fresh(options: &Options) -> Result<Fresh> {
    with_loaded(options, None, false, |loaded, _| {
        let reviewed = digest::reviewed(loaded, true)?;
        let known = digest::known_addresses(loaded, &reviewed);
        let key = options.key.clone().unwrap_or_else(|| default_key(loaded));
        Ok(Fresh {
            key,
            reviewed,
            known,
        })
    })
}

/// What [`compare`] found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Comparison {
    /// The changes are the reviewed ones.
    Matches,
    /// The marker records no hash of changes: a failed plan's comment, or one made before
    /// planmark recorded them.
    NoHash,
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
    /// A reviewed change no longer in the plan, at an address the plan still knows.
    Gone(String),
    /// A reviewed change to a resource the plan no longer knows at all.
    GoneUnnamed,
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
            Difference::GoneUnnamed => {
                write!(
                    f,
                    "gone: a reviewed change to a resource no longer in the plan"
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
                "changed: the changes as a whole, though none can be named alone (was the \
                 comment made by another version of planmark?)"
            ),
        }
    }
}

/// Compares the plans' changes with those a comment's `marker` records.
pub fn compare(fresh: &Fresh, marker: &Json) -> Comparison {
    let Some(sha256) = marker.get("changes_sha256").and_then(Json::as_str) else {
        return Comparison::NoHash;
    };
    if sha256 == fresh.reviewed.sha256 {
        return Comparison::Matches;
    }
    let items = &fresh.reviewed.items;
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
    let mut known: HashMap<[u8; 3], &str> = HashMap::new();
    for item in fresh.known.iter().rev() {
        known.insert(short(&item.address), &item.label);
    }
    for d in digests.iter().filter(|d| !now.contains(&d.address)) {
        differences.push(match known.get(&d.address) {
            Some(label) => Difference::Gone(label.to_string()),
            None => Difference::GoneUnnamed,
        });
    }
    if differences.is_empty() {
        differences.push(Difference::Whole);
    }
    Comparison::Differs(differences)
}
