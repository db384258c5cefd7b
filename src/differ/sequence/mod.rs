//! Stage: differ. Pairs up the elements of two sequences as the tool's plan renderer
//! does. Pure: no I/O, no global state, deterministic.
//!
//! Sequences are list attributes, JSON arrays and heredoc lines; the rendered diff
//! shows the same deletions, creations and in-place updates that `terraform show` (or
//! `tofu show`) would.
//!
//! Contract: elements arrive as equivalence-class ids (equal ids ⇔ deep-equal
//! values). The result is the ordered list of [`Step`]s the renderer would
//! produce, with every before index and every after index appearing exactly
//! once and in increasing order. Terraform gets there with an O(N·M) time and
//! memory LCS table; [`lcs`] reproduces the *same* LCS from Myers' frontiers,
//! and past its limits a cheap one that keeps the pairing valid but not
//! Terraform-identical.
//!
//! Terraform's algorithm, which everything here must agree with:
//! 1. Equal lengths and not a "reorder" (some before element occurs nowhere
//!    in after): pair by index.
//! 2. Otherwise build the classic LCS table `c[x][y]` over the prefixes
//!    `before[..=x]`, `after[..=y]` and backtrack from the bottom-right cell:
//!    on equal elements take the diagonal, else step back in `before` only if
//!    that keeps a strictly longer LCS than stepping back in `after` (ties
//!    step back in `after`).
//! 3. Walk both sequences against the LCS *values*, pairing a leftover
//!    before element with the current after element when the caller says
//!    they are pairable, deleting the rest, then creating leftover after
//!    elements.
//!
//! OpenTofu's renderer forked before Terraform 1.8: it skips step 1 and, in step
//! 3, also pairs a leftover after element with the before element at hand
//! ([`Pairing`]).

mod lcs;
#[cfg(test)]
mod reference;
#[cfg(test)]
mod tests;

use lcs::{terraform_lcs, IdSet, MAX_EDIT_DISTANCE, MAX_WORK};

/// One step of the pairing, in output order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Before index and after index shown as one element: unchanged (equal
    /// ids) or updated in place (pairable).
    Both(usize, usize),
    /// Before index shown as deleted.
    Deleted(usize),
    /// After index shown as created.
    Created(usize),
}

/// Whose list pairing to reproduce: the renderers of Terraform and OpenTofu forked
/// before Terraform 1.8 and pair list elements differently since.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Pairing {
    /// Terraform 1.8+: equal lengths and no reorder pair by index, else the LCS walk.
    #[default]
    Terraform,
    /// OpenTofu: always the LCS walk, and a leftover after element also pairs with the
    /// before element at hand when the caller says they are pairable.
    OpenTofu,
}

impl Pairing {
    /// The pairing of the tool that made the plan: the one place that choice is made.
    pub(crate) fn of(tool: crate::input::plan::Tool) -> Pairing {
        match tool {
            crate::input::plan::Tool::Terraform => Pairing::Terraform,
            crate::input::plan::Tool::OpenTofu => Pairing::OpenTofu,
        }
    }
}

/// Pairs `before` with `after` exactly as Terraform's (or, with
/// [`Pairing::OpenTofu`], OpenTofu's) plan renderer does.
///
/// `pairable(b, a)` decides whether a non-matching before/after pair is shown
/// as one in-place update instead of delete + create. It must be pure: it may
/// be called fewer times than Terraform calls its equivalent (cheap checks
/// run first), and never for out-of-range indices.
pub(crate) fn pair_elements(
    before: &[u32],
    after: &[u32],
    pairing: Pairing,
    pairable: impl FnMut(usize, usize) -> bool,
) -> Vec<Step> {
    if pairing == Pairing::Terraform && before.len() == after.len() && !is_reorder(before, after) {
        return (0..before.len()).map(|ix| Step::Both(ix, ix)).collect();
    }
    // One side empty: what the general path computes, without its tables.
    if before.is_empty() {
        return (0..after.len()).map(Step::Created).collect();
    }
    if after.is_empty() {
        return (0..before.len()).map(Step::Deleted).collect();
    }
    // Past the limits the pairing is merely valid; callers do not need to
    // know, the rendering stays correct, just not Terraform-identical.
    let (lcs, _exact) = terraform_lcs(before, after, MAX_EDIT_DISTANCE, MAX_WORK);
    walk(before, after, &lcs, pairing, pairable)
}

/// Terraform's notion of a reorder: every before element occurs somewhere in
/// after. Set membership, not multiset: duplicates are not counted.
fn is_reorder(before: &[u32], after: &[u32]) -> bool {
    let present = IdSet::new(after);
    before.iter().all(|&id| present.contains(id))
}

/// The final walk of both sequences against the LCS values, as `pairing`'s renderer
/// does it.
///
/// A leftover before element is shown as an update of the after element at hand when
/// `pairable` says so (and that after element is not the next LCS one), else as
/// deleted. OpenTofu also shows a leftover after element as an update of the before
/// element at hand when `pairable` says so, even when that before element is the next
/// LCS one. Its walk can then run past the end of `before`; an LCS step there shows its
/// after element as created, as OpenTofu does (its before side is out of range, so
/// absent). Terraform's walk never gets there: each of its LCS steps finds both sides
/// on the LCS element.
fn walk(
    before: &[u32],
    after: &[u32],
    lcs: &[u32],
    pairing: Pairing,
    mut pairable: impl FnMut(usize, usize) -> bool,
) -> Vec<Step> {
    let pair_leftover_after = pairing == Pairing::OpenTofu;
    // Terraform shows every LCS element as one step; OpenTofu may not (see above).
    let shared = if pair_leftover_after { 0 } else { lcs.len() };
    let mut steps = Vec::with_capacity(before.len() + after.len() - shared);
    let (mut b, mut a, mut k) = (0, 0, 0);
    while b < before.len() || a < after.len() || k < lcs.len() {
        let next = lcs.get(k).copied();
        while b < before.len() && Some(before[b]) != next {
            // The LCS check runs before the callback only to save calls; the
            // outcome is the same as the renderers' order for a pure callback.
            if a < after.len() && Some(after[a]) != next && pairable(b, a) {
                steps.push(Step::Both(b, a));
                a += 1;
            } else {
                steps.push(Step::Deleted(b));
            }
            b += 1;
        }
        while a < after.len() && Some(after[a]) != next {
            if pair_leftover_after && b < before.len() && pairable(b, a) {
                steps.push(Step::Both(b, a));
                b += 1;
            } else {
                steps.push(Step::Created(a));
            }
            a += 1;
        }
        if next.is_some() {
            // `a` is in range: the LCS element is still ahead in `after`.
            steps.push(if b < before.len() {
                Step::Both(b, a)
            } else {
                Step::Created(a)
            });
            b += 1;
            a += 1;
            k += 1;
        }
    }
    steps
}
