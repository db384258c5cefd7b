//! Markdown renderer, the plans rendered: each plan's head and resource changes, with the
//! resource diffs the comment asks for computed once and kept. A huge plan's changes are
//! read through the differ lazily, so only the entries the size budget measures or the
//! comment shows are ever diffed (a few hundred at most, whatever the plan's size).

use std::cell::RefCell;
use std::collections::HashMap;
use std::ops::Deref;
use std::rc::Rc;

use crate::diff::{PlanDiff, ResourceChanges, ResourceDiff, ResourceSummary};
use crate::error::Result;

/// A plan with its name.
#[derive(Clone, Copy)]
pub struct NamedPlan<'a> {
    /// Display name.
    pub name: &'a str,
    /// Everything but the resource changes (its `resources` are not read).
    pub diff: &'a PlanDiff,
    /// The resource changes.
    pub resources: &'a dyn ResourceChanges,
}

/// The plans of one comment, with the resource diffs computed so far.
pub struct Plans<'a> {
    named: &'a [NamedPlan<'a>],
    /// Diffs computed on demand, by (plan, resource change).
    kept: RefCell<HashMap<(usize, usize), Rc<ResourceDiff>>>,
}

/// A resource change's diff: the plan's own, or one computed and kept.
pub enum Body<'a> {
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
        }
    }

    /// The plans in argument order.
    pub fn named(&self) -> &'a [NamedPlan<'a>] {
        self.named
    }

    /// Plan `p`'s head (drift, outputs, checks…).
    pub fn head(&self, p: usize) -> &'a PlanDiff {
        self.named[p].diff
    }

    /// Plan `p`'s resource change summaries.
    pub fn summaries(&self, p: usize) -> &'a [ResourceSummary] {
        self.named[p].resources.summaries()
    }

    /// The address of plan `p`'s resource change `i`.
    pub fn address(&self, p: usize, i: usize) -> &'a str {
        self.named[p].resources.address(i)
    }

    /// The diff of plan `p`'s resource change `i`, computed on first use.
    pub fn resource(&self, p: usize, i: usize) -> Result<Body<'a>> {
        if let Some(kept) = self.kept.borrow().get(&(p, i)) {
            return Ok(Body::Kept(Rc::clone(kept)));
        }
        match self.named[p].resources.diff(i)? {
            std::borrow::Cow::Borrowed(r) => Ok(Body::Borrowed(r)),
            std::borrow::Cow::Owned(r) => {
                let r = Rc::new(r);
                self.kept.borrow_mut().insert((p, i), Rc::clone(&r));
                Ok(Body::Kept(r))
            }
        }
    }
}
