//! Markdown renderer, catalog: every entry a comment can show (resource changes, drift,
//! deferred changes, output changes) across all plans, in the order of importance the
//! size budget degrades by, with how much detail each gets.

use crate::diff::address::natural_cmp;
use crate::diff::{Action, PlanMode, ResourceSummary};
use crate::render::error::Result;
use crate::render::text::{
    deferred_text, invocation_text, outputs_text, plan_is_empty, resource_text, MarkedText,
};

use super::phrases::Kind;
use super::source::Plans;
use crate::input::plan::ChangeList;

/// How much of an entry the comment shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Detail {
    /// Its full Terraform diff.
    Full,
    /// Its diff without unchanged context.
    Compact,
    /// Its address in the group of look-alike changes led by this entry, whose diff is
    /// shown (resource changes only; see [`super::group`]).
    Grouped(usize),
    /// Its address (or name) in a list.
    Listed,
    /// Only counted.
    Omitted,
}

/// What an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Item {
    /// The plan's resource change `i`.
    Resource(usize),
    /// The plan's shown drift entry `i`.
    Drift(usize),
    /// `plan.deferred[i]`.
    Deferred(usize),
    /// `plan.invocations[i]`: an action the apply will invoke.
    Invocation(usize),
    /// The plan's output changes, as one entry.
    Outputs,
}

/// One entry of one plan.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Entry {
    /// Index of the plan.
    pub(crate) plan: usize,
    /// Which entry.
    pub(crate) item: Item,
    /// Its kind (for resources; drift/deferred/outputs use their own section).
    pub(crate) kind: Kind,
}

/// All entries in priority order.
#[derive(Debug, Default)]
pub(crate) struct Catalog {
    /// Entries, most important first.
    pub(crate) entries: Vec<Entry>,
    /// Per plan: is its drift shown? (Terraform hides drift when a plan changes nothing.)
    pub(crate) drift_shown: Vec<bool>,
}

/// Section priorities after the resource kinds: actions to invoke (they run on apply as
/// surely as a change), drift, deferred, outputs.
fn rank(entry: &Entry) -> (u8, u8) {
    match entry.item {
        Item::Resource(_) => (0, entry.kind.risk() as u8),
        Item::Invocation(_) => (1, 0),
        Item::Drift(_) => (2, 0),
        Item::Deferred(_) => (3, 0),
        Item::Outputs => (4, 0),
    }
}

/// Drift is shown when it can matter: always for refresh-only plans, otherwise when the
/// plan has something to say (as Terraform decides). Only a plan with drift asks whether
/// its resource changes' bodies change anything.
fn drift_shown(plans: &Plans<'_>, p: usize) -> Result<bool> {
    let plan = plans.head(p);
    if plans.drift_summaries(p).is_empty() || plan.mode == PlanMode::RefreshOnly {
        return Ok(true);
    }
    Ok(!plan_is_empty(plan, plans.named()[p].changes.resources)?)
}

impl Catalog {
    /// Lists every entry of `plans`, ordered by section and risk, then plan, then natural
    /// address order.
    pub(crate) fn new(plans: &Plans<'_>) -> Result<Catalog> {
        // Sized for every entry up front: growing by doubling would leave a huge plan's
        // catalog copied several times over in the allocator's memory.
        let most: usize = (0..plans.named().len())
            .map(|p| {
                let head = plans.head(p);
                plans.summaries(p).len()
                    + plans.drift_summaries(p).len()
                    + head.deferred.len()
                    + head.invocations.len()
                    + 1
            })
            .sum();
        let mut entries = Vec::with_capacity(most);
        let mut drift = Vec::with_capacity(plans.named().len());
        for p in 0..plans.named().len() {
            let plan = plans.head(p);
            let mut push = |item, kind| {
                entries.push(Entry {
                    plan: p,
                    item,
                    kind,
                })
            };
            for (i, r) in plans.summaries(p).iter().enumerate() {
                if r.is_shown() {
                    push(Item::Resource(i), Kind::of_summary(r));
                }
            }
            for i in 0..plan.invocations.len() {
                push(Item::Invocation(i), Kind::Create);
            }
            let shown = drift_shown(plans, p)?;
            drift.push(shown);
            if shown {
                for (i, r) in plans.drift_summaries(p).iter().enumerate() {
                    if r.is_shown() {
                        push(Item::Drift(i), Kind::of_summary(r));
                    }
                }
            }
            // Deferred changes are shown by the text's rule (`ResourceSummary::is_shown`).
            for (i, d) in plan.deferred.iter().enumerate() {
                if ResourceSummary::of(&d.resource).is_shown() {
                    push(Item::Deferred(i), Kind::of(&d.resource));
                }
            }
            if plan.outputs.iter().any(|o| o.diff.action != Action::NoOp) {
                push(Item::Outputs, Kind::Update);
            }
        }
        // Natural address order within each rank (`web[2]` before `web[10]`), plan order
        // among equal addresses (the sort is stable; actions to invoke keep plan order).
        entries.sort_by(|a, b| {
            (rank(a), a.plan)
                .cmp(&(rank(b), b.plan))
                .then_with(|| match (a.item, b.item) {
                    (Item::Invocation(i), Item::Invocation(j)) => i.cmp(&j),
                    _ => natural_cmp(entry_label(plans, a), entry_label(plans, b)),
                })
        });
        Ok(Catalog {
            entries,
            drift_shown: drift,
        })
    }

    /// Is entry `i` a destroy or replacement (kept in full longest)?
    pub(crate) fn dangerous(&self, i: usize) -> bool {
        let entry = &self.entries[i];
        matches!(entry.item, Item::Resource(_)) && entry.kind.is_dangerous()
    }
}

/// Terraform's text for an entry, with symbol marks.
pub(crate) fn entry_text(plans: &Plans<'_>, entry: &Entry, compact: bool) -> Result<MarkedText> {
    let plan = plans.head(entry.plan);
    Ok(match entry.item {
        Item::Resource(i) => resource_text(
            &*plans.resource(entry.plan, ChangeList::Changes, i)?,
            plan.tool,
            false,
            compact,
        ),
        Item::Drift(i) => resource_text(
            &*plans.resource(entry.plan, ChangeList::Drift, i)?,
            plan.tool,
            true,
            compact,
        ),
        Item::Deferred(i) => deferred_text(&plan.deferred[i], compact),
        // A config shows every attribute: there is no unchanged context to hide.
        Item::Invocation(i) => invocation_text(&plan.invocations[i]),
        Item::Outputs => outputs_text(plan, compact),
    })
}

/// The address (or label) an entry is listed under.
pub(crate) fn entry_label<'p>(plans: &Plans<'p>, entry: &Entry) -> &'p str {
    let plan = plans.head(entry.plan);
    match entry.item {
        Item::Resource(i) => plans.address(entry.plan, ChangeList::Changes, i),
        Item::Drift(i) => plans.address(entry.plan, ChangeList::Drift, i),
        Item::Deferred(i) => &plan.deferred[i].resource.address,
        Item::Invocation(i) => &plan.invocations[i].address,
        Item::Outputs => "outputs",
    }
}
