//! The diff's resource changes as renderers read them ([`ResourceChanges`]): each
//! change's summary up front and its diff on demand, from the differ (diffed when asked)
//! or from a whole [`PlanDiff`] (diffed already).

use std::borrow::Cow;

use super::{Action, PlanDiff, PlanHead, ResourceDiff, ResourceSummary};
use crate::input::error::Result;

/// A plan's resource changes as a renderer reads them: every change's summary, address
/// and type up front, any change's diff on demand. `Diffed` holds a whole
/// [`PlanDiff`]'s; the differ's lazy implementation diffs only what is asked, so a
/// renderer that shows a few hundred changes of a huge plan diffs only those. Shared
/// between threads: a renderer that needs every diff asks for them on every core
/// (`crate::concurrency::map_ordered`).
pub trait ResourceChanges: Sync {
    /// One summary per change, in plan order.
    fn summaries(&self) -> &[ResourceSummary];
    /// The address of change `i`.
    fn address(&self, i: usize) -> &str;
    /// The resource type of change `i`.
    fn type_name(&self, i: usize) -> &str;
    /// The diff of change `i` (computed again on each call where it is not stored: a
    /// caller asking twice keeps it).
    fn diff(&self, i: usize) -> Result<Cow<'_, ResourceDiff>>;
    /// Change `i` as a renderer shows it without its diff (address, kind, reason): every
    /// member but the body, which may be left empty (an unchanged block) when computing it
    /// costs more than reading the rest; by default, the diff.
    fn header(&self, i: usize) -> Result<Cow<'_, ResourceDiff>> {
        self.diff(i)
    }
    /// No change's body changes anything and none moves (Terraform then hides drift in a
    /// normal plan). Stops at the first change that says otherwise.
    fn bodies_quiet(&self) -> Result<bool> {
        for (i, summary) in self.summaries().iter().enumerate() {
            if summary.moved || self.diff(i)?.body.action != Action::NoOp {
                return Ok(false);
            }
        }
        Ok(true)
    }
}

/// A plan's two lists of resource changes, as renderers read them: the
/// differ's lazy ones (`crate::differ::Lazy`) or a whole
/// [`PlanDiff`]'s ([`DiffedPlan`]).
#[derive(Clone, Copy)]
pub struct Changes<'a> {
    /// The planned changes.
    pub resources: &'a dyn ResourceChanges,
    /// The drift shown (already filtered by mode and relevance).
    pub drift: &'a dyn ResourceChanges,
}

/// A whole [`PlanDiff`] as renderers read it: its head and its two lists, already
/// diffed.
pub struct DiffedPlan<'a> {
    /// Everything but the resource changes and drift, which every renderer reads whole.
    pub head: &'a PlanHead,
    /// Its resource changes.
    pub(crate) resources: Diffed<'a>,
    /// Its drift.
    pub(crate) drift: Diffed<'a>,
}

impl<'a> DiffedPlan<'a> {
    /// Wraps `plan`, whose lists are diffed already, so renderers read it as they read a
    /// lazy one.
    pub fn new(plan: &'a PlanDiff) -> Self {
        DiffedPlan {
            head: &plan.head,
            resources: Diffed::of(&plan.resources),
            drift: Diffed::of(&plan.drift),
        }
    }

    /// The resource changes and drift as renderers take them.
    pub fn changes(&self) -> Changes<'_> {
        Changes {
            resources: &self.resources,
            drift: &self.drift,
        }
    }
}

/// A whole [`PlanDiff`]'s resource changes (or its drift), already diffed.
pub(crate) struct Diffed<'a> {
    resources: &'a [ResourceDiff],
    summaries: Vec<ResourceSummary>,
}

impl<'a> Diffed<'a> {
    /// `resources` with their summaries.
    fn of(resources: &'a [ResourceDiff]) -> Self {
        Diffed {
            resources,
            summaries: resources.iter().map(ResourceSummary::of).collect(),
        }
    }
}

impl ResourceChanges for Diffed<'_> {
    fn summaries(&self) -> &[ResourceSummary] {
        &self.summaries
    }

    fn address(&self, i: usize) -> &str {
        &self.resources[i].address
    }

    fn type_name(&self, i: usize) -> &str {
        &self.resources[i].type_
    }

    fn diff(&self, i: usize) -> Result<Cow<'_, ResourceDiff>> {
        Ok(Cow::Borrowed(&self.resources[i]))
    }
}
