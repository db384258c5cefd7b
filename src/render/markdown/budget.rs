//! Markdown renderer, size budget: chooses how much of each entry to show so the comment
//! fits the limit, degrading by importance and never cutting text.
//!
//! Stages, in order, until one fits: every diff in full; diffs without unchanged context;
//! destroys/replacements keep (compact) diffs while everything else is listed by address;
//! a greedy fill (every address when all fit, dangerous diffs in the room left; else
//! dangerous diffs first, then addresses, the rest only counted); counts only. Sizes are lower-bounded from the diff texts before rendering, so
//! a huge plan skips straight to the stages that can fit instead of rendering megabytes.

use super::catalog::{entry_label, entry_text, Catalog, Detail, Item};
use super::context::Truncation;
pub use super::length::{diagnostics_room, measure};
use super::phrases::thousands;
use super::phrases::Kind;
use super::source::Plans;
use crate::render::error::Result;

/// A choice of detail per catalog entry, with the notice that explains it.
pub struct Plan {
    /// Detail per entry.
    pub details: Vec<Detail>,
    /// What was left out (`None` when nothing was).
    pub truncation: Option<Truncation>,
    /// The estimated cost of what the plan shows beyond the counts-only form (greedy fills
    /// only; the caller compares it with the real cost to aim the next fill).
    pub estimated: usize,
}

/// Characters kept free below the limit: GitHub counts characters its own way, so leave
/// room rather than land exactly on it.
pub fn effective_limit(max_chars: usize) -> usize {
    max_chars - max_chars / 50
}

/// Per-entry sizes, each computed on first use (a huge plan that cannot fit in full stops
/// measuring as soon as the running total passes the limit).
pub struct Sizes<'a> {
    plans: &'a Plans<'a>,
    catalog: &'a Catalog,
    /// Per entry, [`UNMEASURED`] or the length (4 bytes each: a huge plan has as many
    /// entries as changes).
    full: Vec<u32>,
    compact: Vec<u32>,
}

/// An entry not measured yet; lengths are stored saturated below it (one that long is far
/// beyond any comment's limit either way).
const UNMEASURED: u32 = u32::MAX;

impl<'a> Sizes<'a> {
    /// Sizes of `catalog`'s entries.
    pub fn new(plans: &'a Plans<'a>, catalog: &'a Catalog) -> Self {
        let n = catalog.entries.len();
        Sizes {
            plans,
            catalog,
            full: vec![UNMEASURED; n],
            compact: vec![UNMEASURED; n],
        }
    }

    /// Diff text length of entry `i` in full.
    pub fn full(&mut self, i: usize) -> Result<usize> {
        self.measured(i, false)
    }

    /// Diff text length of entry `i` without unchanged context.
    pub fn compact(&mut self, i: usize) -> Result<usize> {
        self.measured(i, true)
    }

    /// Diff text length of entry `i`, measured on first use.
    fn measured(&mut self, i: usize, compact: bool) -> Result<usize> {
        let known = if compact { &self.compact } else { &self.full };
        if known[i] != UNMEASURED {
            return Ok(known[i] as usize);
        }
        let text = entry_text(self.plans, &self.catalog.entries[i], compact)?;
        let n = measure(&text.text);
        let known = if compact {
            &mut self.compact
        } else {
            &mut self.full
        };
        known[i] = u32::try_from(n).map_or(UNMEASURED - 1, |n| n.min(UNMEASURED - 1));
        Ok(n)
    }

    /// Length of the address an entry is listed under.
    pub fn label(&self, i: usize) -> usize {
        measure(entry_label(self.plans, &self.catalog.entries[i]))
    }

    /// Estimated cost of entry `i` listed by address: the line (`- 🟢 create `address``),
    /// and the reason where one is likely (destroys, replacements and reads usually give
    /// one; moves and imports name the other address). Only aims the greedy fill: close
    /// estimates let it fill the comment in one render, the render itself decides.
    pub fn listed(&self, i: usize) -> usize {
        let entry = &self.catalog.entries[i];
        let label = self.label(i);
        let moved_or_imported = match entry.item {
            Item::Resource(r) => {
                let summary = &self.plans.summaries(entry.plan)[r];
                summary.moved || summary.importing
            }
            _ => false,
        };
        let reason = match entry.kind {
            _ if matches!(entry.item, Item::Deferred(_) | Item::Invocation(_)) => LIKELY_REASON,
            Kind::Delete | Kind::Replace | Kind::Read => LIKELY_REASON,
            _ => 0,
        };
        let other_address = if moved_or_imported { label + 16 } else { 0 };
        label + LISTED_LINE + reason + other_address
    }
}

/// A listed line's characters besides the address: bullet, icon, kind, code span, newline.
const LISTED_LINE: usize = 16;
/// A likely reason's characters (` — `replace_triggered_by` changed`).
const LIKELY_REASON: usize = 40;

/// Estimated cost of an entry shown with a diff of `diff` characters: the `<details>`
/// wrapper, the summary line (icon, kind, the address, a likely reason), the fence. Only
/// aims the greedy fill, as [`Sizes::listed`] does.
fn detailed_cost(diff: usize, label: usize) -> usize {
    diff + label + 120 + LIKELY_REASON
}

/// Dangerous diffs in a row that did not fit after which the greedy fill stops trying.
const MAX_MISFITS: usize = 64;

/// The uniform stages, most detailed first: (name, detail for dangerous, for the rest).
pub const UNIFORM: [(&str, Detail, Detail); 3] = [
    ("full", Detail::Full, Detail::Full),
    ("compact", Detail::Compact, Detail::Compact),
    ("lists", Detail::Compact, Detail::Listed),
];

/// A uniform stage's plan if its lower-bound size can fit in `budget`, else `None`.
pub fn uniform(
    stage: usize,
    sizes: &mut Sizes<'_>,
    budget: usize,
    max_chars: usize,
) -> Result<Option<Plan>> {
    let (name, dangerous, rest) = UNIFORM[stage];
    let catalog = sizes.catalog;
    let mut details = Vec::with_capacity(catalog.entries.len());
    let mut bound = 0usize;
    for i in 0..catalog.entries.len() {
        let detail = if catalog.dangerous(i) {
            dangerous
        } else {
            rest
        };
        bound += match detail {
            Detail::Full => sizes.full(i)?,
            Detail::Compact => sizes.compact(i)?,
            _ => sizes.label(i),
        };
        if bound > budget {
            return Ok(None);
        }
        details.push(detail);
    }
    let truncation = match name {
        "full" => None,
        "compact" => Some(notice(
            "compact",
            "Unchanged attributes and context lines are hidden in the diffs below".to_string(),
            max_chars,
        )),
        _ => Some(notice(
            "lists",
            "Destroys and replacements keep their diffs; other changes are listed by address only"
                .to_string(),
            max_chars,
        )),
    };
    Ok(Some(Plan {
        details,
        truncation,
        estimated: 0,
    }))
}

/// Greedy fill within `budget` characters for entries. When every entry's address line
/// fits, each is named first (a reviewer must see every address that changes) and the
/// room left upgrades dangerous ones to compact diffs; otherwise dangerous ones get a
/// compact diff while it fits, then every entry an address line while it fits, and the
/// rest is counted.
pub fn partial(sizes: &mut Sizes<'_>, budget: usize, max_chars: usize) -> Result<Plan> {
    let catalog = sizes.catalog;
    let n = catalog.entries.len();
    let all_listed: usize = (0..n).map(|i| sizes.listed(i)).sum();
    let names_first = all_listed <= budget;
    let (mut details, mut left) = if names_first {
        (vec![Detail::Listed; n], budget - all_listed)
    } else {
        (vec![Detail::Omitted; n], budget)
    };
    // Diffs for dangerous entries first, in priority order. Measuring a diff means
    // rendering it: stop once no diff can fit, or after a long run of misfits (a plan of
    // ten thousand replacements would otherwise render every one to place none).
    let mut misfits = 0;
    for (i, detail) in details.iter_mut().enumerate() {
        if !catalog.dangerous(i) {
            continue;
        }
        if left < detailed_cost(0, 0) || misfits >= MAX_MISFITS {
            break;
        }
        // An entry already named gives back its address line when it gets a diff.
        let refund = if names_first { sizes.listed(i) } else { 0 };
        let cost = detailed_cost(sizes.compact(i)?, sizes.label(i)).saturating_sub(refund);
        if cost <= left {
            left -= cost;
            *detail = Detail::Compact;
            misfits = 0;
        } else {
            misfits += 1;
        }
    }
    // Then an address line for everything else, while it fits.
    for (i, detail) in details.iter_mut().enumerate() {
        if *detail != Detail::Omitted {
            continue;
        }
        let cost = sizes.listed(i);
        if cost > left {
            break;
        }
        left -= cost;
        *detail = Detail::Listed;
    }
    let listed = details.iter().filter(|d| **d == Detail::Listed).count();
    let omitted = details.iter().filter(|d| **d == Detail::Omitted).count();
    let listed = format!(
        "{} listed by address only",
        count(listed, "change is", "changes are")
    );
    let text = if omitted == 0 {
        listed
    } else {
        format!("{listed} and {} not shown", thousands(omitted))
    };
    Ok(Plan {
        details,
        truncation: Some(notice("partial", text, max_chars)),
        estimated: budget - left,
    })
}

/// Counts only.
pub fn counts_only(catalog: &Catalog, max_chars: usize) -> Plan {
    Plan {
        details: vec![Detail::Omitted; catalog.entries.len()],
        truncation: Some(notice(
            "counts-only",
            "Only the counts are shown".to_string(),
            max_chars,
        )),
        estimated: 0,
    }
}

fn count(n: usize, singular: &str, plural: &str) -> String {
    format!(
        "{} {}",
        thousands(n),
        if n == 1 { singular } else { plural }
    )
}

fn notice(stage: &str, what: String, max_chars: usize) -> Truncation {
    Truncation {
        stage: stage.to_string(),
        notice: format!(
            "This plan is too large to show in full within the {}-character limit. {what}. For everything, see the plan in the job log or run planmark render --format text on the plan JSON.",
            thousands(max_chars)
        ),
        max_chars,
    }
}
