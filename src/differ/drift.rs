//! Differ: a plan's `resource_changes`, and the drifted resources of its `resource_drift`
//! that Terraform shows, each as a [`ResourceChanges`] ([`Lazy`]) whose diffs are made
//! when asked: a plan may drift as much as it changes (a refresh-only plan after an
//! out-of-band change to everything), and holding every resource's diff tree until the
//! render ends would cost such a plan several times its input's size.
//!
//! Which entries are shown: all of them in a refresh-only plan; otherwise those whose diff,
//! limited to the attributes the plan's `relevant_attributes` name, still changes
//! something. Finding those diffs each entry once (on every core) and keeps its index only.

use std::borrow::Cow;
use std::collections::HashMap;

use super::change::Matcher;
use super::Differ;
use crate::diff::{Action, PlanMode, ResourceChanges, ResourceDiff, ResourceSummary};
use crate::input::error::Result;
use crate::input::json::Value;
use crate::input::plan::{ChangeEntry, ChangeList};

/// A list of a plan's changes (its resource changes or the drift shown) as renderers read
/// it: the shown entries' summaries up front, each diff computed when asked (and not kept:
/// callers that ask twice keep what they need).
pub struct Lazy<'d, 'p, 'a> {
    differ: &'d Differ<'p, 'a>,
    list: ChangeList,
    /// The attributes that matter, or `None` when all do (planned changes, refresh-only
    /// drift).
    relevant: Option<Relevant<'p, 'a>>,
    /// The shown entries' indexes in the list, ascending (`None`: every entry).
    shown: Option<Vec<usize>>,
    summaries: Vec<ResourceSummary>,
}

/// A plan's `relevant_attributes`, by resource.
struct Relevant<'p, 'a> {
    /// Each entry's attribute path, parsed (entries whose path cannot be read are left
    /// out: they name nothing).
    paths: Vec<(&'p str, Value<'a>)>,
    /// Entries with no resource (they apply to every one), in document order.
    global: Vec<usize>,
    /// Entries by resource address, in document order, so that each drifted resource
    /// finds its own without scanning them all.
    by_resource: HashMap<&'p str, Vec<usize>>,
}

impl<'p, 'a> Relevant<'p, 'a> {
    fn new(plan: &'p crate::input::plan::Plan<'a>) -> Self {
        let paths: Vec<(&'p str, Value<'a>)> = plan
            .relevant_attributes
            .iter()
            .filter_map(|r| {
                let attr = r.attribute.and_then(|raw| Value::parse(raw.get()).ok())?;
                Some((r.resource.as_ref(), attr))
            })
            .collect();
        let mut global = Vec::new();
        let mut by_resource: HashMap<&str, Vec<usize>> = HashMap::new();
        for (ix, (resource, _)) in paths.iter().enumerate() {
            if resource.is_empty() {
                global.push(ix);
            } else {
                by_resource.entry(resource).or_default().push(ix);
            }
        }
        Relevant {
            paths,
            global,
            by_resource,
        }
    }

    /// The paths that matter for the resource at `address`, in document order.
    fn of(&self, address: &str) -> Vec<&Value<'a>> {
        let own = self.by_resource.get(address).map_or(&[][..], Vec::as_slice);
        merge_sorted(&self.global, own)
            .map(|ix| &self.paths[ix].1)
            .collect()
    }
}

impl<'p, 'a> Differ<'p, 'a> {
    /// The resource changes, all of them.
    pub fn lazy(&self) -> Lazy<'_, 'p, 'a> {
        let entries = &self.plan.resource_changes;
        Lazy {
            differ: self,
            list: ChangeList::Changes,
            relevant: None,
            shown: None,
            summaries: entries.iter().map(summary).collect(),
        }
    }

    /// The drift Terraform shows for a plan in `mode` (the head's, given or inferred).
    /// Outside refresh-only mode each drifted resource is diffed once here to learn
    /// whether it is shown (a value that cannot be read fails here).
    pub fn drift(&self, mode: PlanMode) -> Result<Lazy<'_, 'p, 'a>> {
        let entries = &self.plan.resource_drift;
        let mut drift = Lazy {
            differ: self,
            list: ChangeList::Drift,
            relevant: None,
            shown: None,
            summaries: Vec::new(),
        };
        let shown = if mode == PlanMode::RefreshOnly {
            (0..entries.len()).collect()
        } else {
            drift.relevant = Some(Relevant::new(self.plan));
            let mut shown = Vec::new();
            // With no relevant attribute every attribute reads as unchanged, so the
            // entry's computed action is no-op and it drops out: only drift that matters
            // is shown.
            let indexes: Vec<usize> = (0..entries.len()).collect();
            let parts: Vec<&[usize]> = indexes.chunks(crate::concurrency::PART).collect();
            let keep_part = |part: &&[usize]| -> Result<Vec<usize>> {
                let mut keep = Vec::new();
                for &k in *part {
                    if drift.diff_entry(k)?.body.action != Action::NoOp {
                        keep.push(k);
                    }
                }
                Ok(keep)
            };
            crate::concurrency::map_ordered(&parts, keep_part, |keep| {
                shown.extend(keep);
                Ok(())
            })?;
            shown
        };
        drift.summaries = shown.iter().map(|&k| summary(&entries[k])).collect();
        drift.shown = Some(shown);
        Ok(drift)
    }
}

impl Lazy<'_, '_, '_> {
    /// Entry `k` of the list, diffed with the attributes that matter.
    fn diff_entry(&self, k: usize) -> Result<ResourceDiff> {
        let relevant = match &self.relevant {
            None => Matcher::always(),
            // A path and its descendants matter.
            Some(relevant) => Matcher::paths(relevant.of(&self.entry(k).address), true),
        };
        self.differ.diff_entry(self.list, k, relevant)
    }

    fn entry(&self, k: usize) -> &ChangeEntry<'_> {
        &self.differ.plan.entries(self.list)[k]
    }

    /// The index in the list of shown entry `i`.
    fn shown(&self, i: usize) -> usize {
        self.shown.as_ref().map_or(i, |shown| shown[i])
    }
}

impl ResourceChanges for Lazy<'_, '_, '_> {
    fn summaries(&self) -> &[ResourceSummary] {
        &self.summaries
    }

    fn address(&self, i: usize) -> &str {
        &self.entry(self.shown(i)).address
    }

    fn type_name(&self, i: usize) -> &str {
        &self.entry(self.shown(i)).type_
    }

    fn diff(&self, i: usize) -> Result<Cow<'_, ResourceDiff>> {
        self.diff_entry(self.shown(i)).map(Cow::Owned)
    }

    fn header(&self, i: usize) -> Result<Cow<'_, ResourceDiff>> {
        let header = self.differ.header_entry(self.list, self.shown(i));
        header.map(Cow::Owned)
    }
}

/// What a plan's summary needs of a resource change entry (read without diffing it).
fn summary(entry: &ChangeEntry<'_>) -> ResourceSummary {
    ResourceSummary {
        action: entry.action,
        data_source: entry.data_source,
        moved: entry.moved,
        importing: entry.importing,
    }
}

/// The two indexes (ascending, disjoint) merged in ascending order.
fn merge_sorted<'i>(xs: &'i [usize], ys: &'i [usize]) -> impl Iterator<Item = usize> + 'i {
    let (mut i, mut j) = (0, 0);
    std::iter::from_fn(move || match (xs.get(i), ys.get(j)) {
        (Some(&x), Some(&y)) if x < y => {
            i += 1;
            Some(x)
        }
        (_, Some(&y)) => {
            j += 1;
            Some(y)
        }
        (Some(&x), None) => {
            i += 1;
            Some(x)
        }
        (None, None) => None,
    })
}

#[cfg(test)]
mod tests {
    use super::merge_sorted;

    #[test]
    fn merge_sorted_interleaves() {
        let merged: Vec<usize> = merge_sorted(&[0, 3, 4], &[1, 2, 5]).collect();
        assert_eq!(merged, [0, 1, 2, 3, 4, 5]);
        assert_eq!(merge_sorted(&[], &[7]).collect::<Vec<_>>(), [7]);
        assert_eq!(merge_sorted(&[7], &[]).collect::<Vec<_>>(), [7]);
    }
}
