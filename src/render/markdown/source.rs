//! Markdown renderer, the plans rendered: each plan's head, resource changes and drift,
//! with the diffs the comment asks for computed once and kept. A huge plan's changes and
//! drift are read through the differ lazily, so only the entries the size budget measures
//! or the comment shows are ever diffed (a few hundred at most, whatever the plan's size).

use std::cell::{OnceCell, RefCell};
use std::collections::HashMap;
use std::ops::Deref;
use std::rc::Rc;

use crate::diff::address::natural_ranks;
use crate::diff::{Changes, PlanHead, ResourceChanges, ResourceDiff, ResourceSummary};
use crate::input::plan::ChangeList;
use crate::render::error::Result;
use crate::render::links::{Links, SourceLink};

use super::findings::{Group, PlanAddresses};

/// A plan with its name.
#[derive(Clone, Copy)]
pub struct NamedPlan<'a> {
    /// The name the comment shows for the plan (`NAME=`, or the file's stem).
    pub name: &'a str,
    /// Everything but the resource changes and drift.
    pub head: &'a PlanHead,
    /// The resource changes and drift.
    pub changes: Changes<'a>,
    /// Where its changes are declared, to link them (`None`: no links).
    pub links: Option<&'a Links>,
}

/// The plans of one comment, with the resource diffs computed so far.
pub struct Plans<'a> {
    named: &'a [NamedPlan<'a>],
    /// Diffs computed on demand, by (plan, list, entry).
    kept: RefCell<HashMap<Key, Rc<ResourceDiff>>>,
    /// Headers (bodies left empty) read on demand, by (plan, list, entry).
    headers: RefCell<HashMap<Key, Rc<ResourceDiff>>>,
    /// Per plan, each list's natural order (changes, drift), found on first use.
    ranks: Vec<[OnceCell<Vec<u32>>; 2]>,
    /// Per plan, its addresses and its Rego failures and warnings grouped, on first use
    /// (the comment is built several times while it is fitted; a policy may say thousands
    /// of things).
    findings: Vec<OnceCell<Findings>>,
}

/// A plan's addresses, and its Rego failures and warnings grouped by them.
pub(crate) struct Findings {
    /// Every address of the plan's changes and drift.
    pub(crate) addresses: PlanAddresses,
    /// The failures' groups, then the warnings'.
    pub(crate) groups: [Vec<Group>; 2],
}

/// A resource change's diff: the plan's own, or one computed and kept.
pub(crate) enum Body<'a> {
    /// Held by the plan.
    Borrowed(&'a ResourceDiff),
    /// Computed for the comment.
    Kept(Rc<ResourceDiff>),
}

impl Deref for Body<'_> {
    type Target = ResourceDiff;

    fn deref(&self) -> &ResourceDiff {
        match self {
            Body::Borrowed(r) => r,
            Body::Kept(r) => r,
        }
    }
}

impl<'a> Plans<'a> {
    /// The plans, none of their resources diffed yet.
    pub fn new(named: &'a [NamedPlan<'a>]) -> Self {
        Plans {
            named,
            kept: RefCell::default(),
            headers: RefCell::default(),
            ranks: named.iter().map(|_| Default::default()).collect(),
            findings: named.iter().map(|_| Default::default()).collect(),
        }
    }

    /// Plan `p`'s addresses (its changes and drift) and its Rego failures and warnings
    /// grouped by `group`, on first use.
    pub(crate) fn findings(
        &self,
        p: usize,
        group: impl FnOnce(&PlanAddresses) -> [Vec<Group>; 2],
    ) -> &Findings {
        self.findings[p].get_or_init(|| {
            let changes =
                (0..self.summaries(p).len()).map(|i| self.address(p, ChangeList::Changes, i));
            let drift =
                (0..self.drift_summaries(p).len()).map(|i| self.address(p, ChangeList::Drift, i));
            let addresses = PlanAddresses::new(changes.chain(drift));
            let groups = group(&addresses);
            Findings { addresses, groups }
        })
    }

    /// The plans in argument order.
    pub(crate) fn named(&self) -> &'a [NamedPlan<'a>] {
        self.named
    }

    /// Plan `p`'s head (drift, outputs, checks…).
    pub(crate) fn head(&self, p: usize) -> &'a PlanHead {
        self.named[p].head
    }

    /// The block declaring resource `r` of plan `p`, when links are made.
    pub(crate) fn source(&self, p: usize, r: &ResourceDiff) -> Option<SourceLink> {
        self.named[p].links?.resource(r)
    }

    /// Plan `p`'s list `list`.
    fn list(&self, p: usize, list: ChangeList) -> &'a dyn ResourceChanges {
        let changes = self.named[p].changes;
        match list {
            ChangeList::Changes => changes.resources,
            ChangeList::Drift => changes.drift,
        }
    }

    /// Plan `p`'s resource change summaries.
    pub(crate) fn summaries(&self, p: usize) -> &'a [ResourceSummary] {
        self.list(p, ChangeList::Changes).summaries()
    }

    /// Plan `p`'s shown drift's summaries.
    pub(crate) fn drift_summaries(&self, p: usize) -> &'a [ResourceSummary] {
        self.list(p, ChangeList::Drift).summaries()
    }

    /// The address of entry `i` of plan `p`'s `list`.
    pub(crate) fn address(&self, p: usize, list: ChangeList, i: usize) -> &'a str {
        self.list(p, list).address(i)
    }

    /// The resource type of entry `i` of plan `p`'s `list`.
    pub(crate) fn type_name(&self, p: usize, list: ChangeList, i: usize) -> &'a str {
        self.list(p, list).type_name(i)
    }

    /// Each entry's position in the natural order of plan `p`'s `list` (the order the
    /// comment lists them in: [`natural_ranks`]).
    pub(crate) fn ranks(&self, p: usize, list: ChangeList) -> &[u32] {
        let slot = usize::from(list == ChangeList::Drift);
        self.ranks[p][slot].get_or_init(|| natural_ranks(self.list(p, list)))
    }

    /// The diff of entry `i` of plan `p`'s `list`, computed on first use.
    pub(crate) fn resource(&self, p: usize, list: ChangeList, i: usize) -> Result<Body<'a>> {
        if let Some(kept) = self.kept.borrow().get(&(p, list, i)) {
            return Ok(Body::Kept(Rc::clone(kept)));
        }
        let diff = self.list(p, list).diff(i)?;
        Ok(keep(&self.kept, (p, list, i), diff))
    }

    /// Entry `i` of plan `p`'s `list` for what is shown of it without its diff (its body
    /// may be empty: see [`ResourceChanges::header`]); its diff when that is known.
    pub(crate) fn header(&self, p: usize, list: ChangeList, i: usize) -> Result<Body<'a>> {
        for known in [&self.kept, &self.headers] {
            if let Some(kept) = known.borrow().get(&(p, list, i)) {
                return Ok(Body::Kept(Rc::clone(kept)));
            }
        }
        let header = self.list(p, list).header(i)?;
        Ok(keep(&self.headers, (p, list, i), header))
    }
}

type Key = (usize, ChangeList, usize);

/// `made`, kept in `known` under `key` when it was made (not borrowed from the plan).
fn keep<'a>(
    known: &RefCell<HashMap<Key, Rc<ResourceDiff>>>,
    key: Key,
    made: std::borrow::Cow<'a, ResourceDiff>,
) -> Body<'a> {
    match made {
        std::borrow::Cow::Borrowed(r) => Body::Borrowed(r),
        std::borrow::Cow::Owned(r) => {
            let r = Rc::new(r);
            known.borrow_mut().insert(key, Rc::clone(&r));
            Body::Kept(r)
        }
    }
}
