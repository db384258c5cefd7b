//! Markdown renderer, size budget: chooses how much of each entry to show so the comment
//! fits the limit, degrading by importance and never cutting text.
//!
//! Stages, in order, until one fits: every diff in full; diffs without unchanged context
//! (then given back to as many as the room left allows, in risk order); a greedy fill
//! (every address when all fit, then diffs in risk order in the room left; else dangerous
//! diffs first, then addresses, the rest only counted); counts only. Sizes are
//! lower-bounded from the diff texts before rendering, so a huge plan skips straight to
//! the stages that can fit instead of rendering megabytes.

use super::catalog::{entry_label, entry_text, Catalog, Detail, Item};
use super::group::Grouping;
pub use super::length::measure;
use super::phrases::Kind;
use super::phrases::{count_noun, thousands};
use super::source::Plans;
use crate::render::error::Result;
use schemars::JsonSchema;
use serde::Serialize;

/// A choice of detail per catalog entry, with the notice that explains it.
#[derive(Clone, Default)]
pub(crate) struct Plan {
    /// Detail per entry.
    pub(crate) details: Vec<Detail>,
    /// What was left out (`None` when nothing was).
    pub(crate) truncation: Option<Truncation>,
    /// The estimated cost of what the plan shows beyond the counts-only form (greedy fills
    /// only; the caller compares it with the real cost to aim the next fill).
    pub(crate) estimated: usize,
    /// The warning banner and check lists are shortened too (when even the counts-only
    /// form with them in full is too long).
    pub(crate) tight: bool,
    /// Per plan: its section is left out, its row in the overview table kept (when even
    /// the shortened counts-only form of every plan is too long); empty when none is.
    pub(crate) collapsed: Vec<bool>,
}

/// What the size limit left out.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Truncation {
    /// `map` (every diff shown, the change map left out), `compact`, `partial` or
    /// `counts-only`.
    pub stage: String,
    /// What a reader is told.
    pub notice: String,
    /// The size limit in characters.
    pub max_chars: usize,
}

/// Characters kept free below the limit: GitHub counts characters its own way, so leave
/// room rather than land exactly on it.
pub fn effective_limit(max_chars: usize) -> usize {
    max_chars - max_chars / 50
}

/// Per-entry sizes, each computed on first use (a huge plan that cannot fit in full stops
/// measuring as soon as the running total passes the limit).
pub(crate) struct Sizes<'a> {
    plans: &'a Plans<'a>,
    catalog: &'a Catalog,
    /// Per entry, [`UNMEASURED`] or the length in full, then without unchanged context
    /// (4 bytes each: a huge plan has as many entries as changes).
    known: [Vec<u32>; 2],
    /// Look-alike changes found among the entries measured so far; `None` with grouping
    /// off (`--no-group`).
    grouping: Option<Grouping>,
}

/// An entry not measured yet; lengths are stored saturated below it (one that long is far
/// beyond any comment's limit either way).
const UNMEASURED: u32 = u32::MAX;

impl<'a> Sizes<'a> {
    /// Sizes of `catalog`'s entries, grouping look-alike changes when `group`.
    pub(crate) fn new(plans: &'a Plans<'a>, catalog: &'a Catalog, group: bool) -> Self {
        let n = catalog.entries.len();
        Sizes {
            plans,
            catalog,
            known: [vec![UNMEASURED; n], vec![UNMEASURED; n]],
            grouping: group.then(|| Grouping::new(n)),
        }
    }

    /// The entry whose group entry `i` joined (measuring it first), or `None` when it
    /// joined none or leads its own.
    pub(crate) fn leader_of(&mut self, i: usize) -> Result<Option<usize>> {
        if self.grouping.is_none() {
            return Ok(None);
        }
        self.compact(i)?;
        Ok(self.grouping.as_ref().and_then(|g| g.leader_of(i)))
    }

    /// Estimated cost of entry `i` named in its group's list of addresses (or a row of
    /// its table of values).
    pub(crate) fn grouped(&self, i: usize) -> usize {
        self.label(i) + GROUPED_LINE
    }

    /// Diff text length of entry `i` in full.
    pub(crate) fn full(&mut self, i: usize) -> Result<usize> {
        self.measured(i, false)
    }

    /// Diff text length of entry `i` without unchanged context.
    pub(crate) fn compact(&mut self, i: usize) -> Result<usize> {
        self.measured(i, true)
    }

    /// Diff text length of entry `i` (`compact`: without unchanged context), measured on
    /// first use.
    fn measured(&mut self, i: usize, compact: bool) -> Result<usize> {
        let known = self.known[usize::from(compact)][i];
        if known != UNMEASURED {
            return Ok(known as usize);
        }
        let entry = &self.catalog.entries[i];
        let text = entry_text(self.plans, entry, compact)?;
        let n = measure(&text.text);
        // Groups are found from the diffs as the comment shows them in a group.
        if let (true, Some(grouping), Item::Resource(_)) = (compact, &mut self.grouping, entry.item)
        {
            let address = entry_label(self.plans, entry);
            grouping.add(i, entry.plan, entry.kind, address, &text.text);
        }
        self.known[usize::from(compact)][i] =
            u32::try_from(n).map_or(UNMEASURED - 1, |n| n.min(UNMEASURED - 1));
        Ok(n)
    }

    /// Length of the address an entry is listed under.
    pub(crate) fn label(&self, i: usize) -> usize {
        measure(entry_label(self.plans, &self.catalog.entries[i]))
    }

    /// Estimated cost of entry `i` listed by address: the line (`- 🟢 create `address``),
    /// and the reason where one is likely (destroys, replacements and reads usually give
    /// one; moves and imports name the other address). Only aims the greedy fill: close
    /// estimates let it fill the comment in one render, the render itself decides.
    pub(crate) fn listed(&self, i: usize) -> usize {
        let entry = &self.catalog.entries[i];
        let label = self.label(i);
        let moved_or_imported = match entry.item {
            Item::Resource(r) => {
                let summary = &self.plans.summaries(entry.plan)[r];
                summary.moved || summary.importing
            }
            _ => false,
        };
        let likely = matches!(entry.item, Item::Deferred(_) | Item::Invocation(_))
            || matches!(entry.kind, Kind::Delete | Kind::Replace | Kind::Read);
        let reason = if likely { LIKELY_REASON } else { 0 };
        let other_address = if moved_or_imported { label + 16 } else { 0 };
        label + LISTED_LINE + reason + other_address
    }
}

/// A listed line's characters besides the address: bullet, icon, kind, code span, newline.
const LISTED_LINE: usize = 16;
/// A grouped address's characters besides the address: a list item or a table row with
/// a few short values.
const GROUPED_LINE: usize = 24;
/// A likely reason's characters (` — `replace_triggered_by` changed`).
const LIKELY_REASON: usize = 40;

/// Estimated cost of an entry shown with a diff of `diff` characters: the `<details>`
/// wrapper, the summary line (icon, kind, the address, a likely reason), the fence. Only
/// aims the greedy fill, as [`Sizes::listed`] does.
fn detailed_cost(diff: usize, label: usize) -> usize {
    diff + label + 120 + LIKELY_REASON
}

/// Dangerous diffs in a row that did not fit after which the greedy fill stops trying.
/// It bounds how many diffs a fill renders to place none, and it is part of what the
/// comment shows: without it a smaller diff further down could still take the room.
const MAX_MISFITS: usize = 64;

/// A uniform stage's plan, every diff shown with `detail` (`Full` or `Compact`), if its
/// lower-bound size can fit in `budget`, else `None`.
pub(crate) fn uniform(
    detail: Detail,
    sizes: &mut Sizes<'_>,
    budget: usize,
    max_chars: usize,
) -> Result<Option<Plan>> {
    let n = sizes.catalog.entries.len();
    let mut details = vec![detail; n];
    let mut bound = 0usize;
    for i in 0..n {
        let own = sizes.measured(i, detail == Detail::Compact)?;
        bound += match sizes.leader_of(i)? {
            Some(leader) => {
                // A group's diff hides unchanged context (its members' ids differ).
                if details[leader] == Detail::Full {
                    details[leader] = Detail::Compact;
                    bound = (bound + sizes.compact(leader)?).saturating_sub(sizes.full(leader)?);
                }
                details[i] = Detail::Grouped(leader);
                sizes.grouped(i)
            }
            None => own,
        };
        if bound > budget {
            return Ok(None);
        }
    }
    let truncation = (detail == Detail::Compact).then(|| {
        notice(
            "compact",
            "Unchanged attributes and context lines are hidden in the diffs below".to_string(),
            max_chars,
            sizes.plans,
        )
    });
    Ok(Some(Plan {
        details,
        truncation,
        ..Plan::default()
    }))
}

/// Greedy fill within `budget` characters for entries. When every entry's address line
/// fits, each is named first (a reviewer must see every address that changes) and the
/// room left gives entries compact diffs in risk order (catalog order: destroys and
/// replacements, updates, creates, then the rest); otherwise dangerous ones get a compact
/// diff while it fits, then every entry an address line while it fits, and the rest is
/// counted.
pub(crate) fn partial(
    sizes: &mut Sizes<'_>,
    budget: usize,
    max_chars: usize,
    base: &Plan,
) -> Result<Plan> {
    let catalog = sizes.catalog;
    let n = catalog.entries.len();
    let collapsed = |i: usize| base.collapsed.get(catalog.entries[i].plan) == Some(&true);
    let all_listed: usize = (0..n)
        .filter(|i| !collapsed(*i))
        .map(|i| sizes.listed(i))
        .sum();
    let names_first = all_listed <= budget;
    let (mut details, mut left) = if names_first {
        let listed = |i| {
            if collapsed(i) {
                Detail::Omitted
            } else {
                Detail::Listed
            }
        };
        ((0..n).map(listed).collect(), budget - all_listed)
    } else {
        (vec![Detail::Omitted; n], budget)
    };
    // Diffs in priority order. Measuring a diff means rendering it: stop once no diff can
    // fit, or after a long run of misfits (a plan of ten thousand replacements would
    // otherwise render every one to place none).
    let mut misfits = 0;
    for i in 0..n {
        if !names_first && !catalog.dangerous(i) {
            // Dangerous entries come first in the catalog: none is left.
            break;
        }
        if left < detailed_cost(0, 0) || misfits >= MAX_MISFITS {
            break;
        }
        if collapsed(i) {
            continue;
        }
        // An entry already named gives back its address line when it gets a diff.
        let refund = if names_first { sizes.listed(i) } else { 0 };
        // A look-alike of a diff shown is named in its group instead.
        if let Some(leader) = sizes.leader_of(i)? {
            if matches!(details[leader], Detail::Compact) {
                left = (left + refund).saturating_sub(sizes.grouped(i));
                details[i] = Detail::Grouped(leader);
                continue;
            }
        }
        let cost = detailed_cost(sizes.compact(i)?, sizes.label(i)).saturating_sub(refund);
        if cost <= left {
            left -= cost;
            details[i] = Detail::Compact;
            misfits = 0;
        } else {
            misfits += 1;
        }
    }
    // Then an address line for everything else, while it fits.
    for (i, detail) in details.iter_mut().enumerate() {
        if *detail != Detail::Omitted || collapsed(i) {
            continue;
        }
        let cost = sizes.listed(i);
        if cost > left {
            break;
        }
        left -= cost;
        *detail = Detail::Listed;
    }
    let text = shown_per_plan(sizes.plans, catalog, &details, &base.collapsed);
    Ok(Plan {
        truncation: Some(notice("partial", text, max_chars, sizes.plans)),
        details,
        estimated: budget - left,
        tight: base.tight,
        collapsed: base.collapsed.clone(),
    })
}

/// `plan`, a fitting comment's choice with unchanged context hidden in every diff, with
/// that context given back to as many diffs as `room` more characters allow, in risk
/// order; `None` when none can have it.
pub(crate) fn restore_context(
    plan: &Plan,
    sizes: &mut Sizes<'_>,
    room: usize,
) -> Result<Option<Plan>> {
    let mut details = plan.details.clone();
    let mut left = room;
    let (mut restored, mut diffs) = (0, 0);
    // A group's diff keeps unchanged context hidden: its members' differ.
    let leaders: std::collections::HashSet<usize> = details
        .iter()
        .filter_map(|d| match d {
            Detail::Grouped(leader) => Some(*leader),
            _ => None,
        })
        .collect();
    for (i, detail) in details.iter_mut().enumerate() {
        if *detail != Detail::Compact {
            continue;
        }
        diffs += 1;
        if leaders.contains(&i) {
            continue;
        }
        let extra = sizes.full(i)?.saturating_sub(sizes.compact(i)?);
        if extra <= left {
            left -= extra;
            *detail = Detail::Full;
            restored += 1;
        }
    }
    if restored == 0 {
        return Ok(None);
    }
    let hidden = diffs - restored;
    let truncation = (hidden > 0).then(|| {
        notice(
            "compact",
            format!(
                "Unchanged attributes and context lines are hidden in {} of the {} diffs below (the last ones)",
                thousands(hidden),
                thousands(diffs)
            ),
            plan.truncation.as_ref().map_or(0, |t| t.max_chars),
            sizes.plans,
        )
    });
    Ok(Some(Plan {
        details,
        truncation,
        estimated: room - left,
        ..Plan::default()
    }))
}

/// How many changes each plan shows with a diff, lists by address and leaves out:
/// `12 changes are shown with their diffs, 288 are listed by address only`, or with
/// several plans `prod: 3 diffs, 20 listed; dev: 5 listed, 2 not shown`.
fn shown_per_plan(
    plans: &Plans<'_>,
    catalog: &Catalog,
    details: &[Detail],
    collapsed: &[bool],
) -> String {
    let named = plans.named();
    // (diffs, listed, omitted) per plan
    let mut tally = vec![(0usize, 0usize, 0usize); named.len()];
    for (entry, detail) in catalog.entries.iter().zip(details) {
        let t = &mut tally[entry.plan];
        match detail {
            Detail::Full | Detail::Compact | Detail::Grouped(_) => t.0 += 1,
            Detail::Listed => t.1 += 1,
            Detail::Omitted => t.2 += 1,
        }
    }
    if let [(diffs, listed, omitted)] = tally[..] {
        let mut said = Vec::new();
        if diffs > 0 {
            said.push(count_noun(
                diffs,
                "change is shown with its diff",
                "changes are shown with their diffs",
            ));
        }
        if listed > 0 {
            let are = if diffs > 0 {
                ""
            } else if listed == 1 {
                " is"
            } else {
                " are"
            };
            said.push(format!("{}{are} listed by address only", thousands(listed)));
        }
        let mut text = said.join(", ");
        match (said.is_empty(), omitted) {
            (_, 0) => {}
            // Nothing shown nor listed: the sentence is about what is left out alone.
            (true, _) => text = count_noun(omitted, "change is not shown", "changes are not shown"),
            (false, _) => text.push_str(&format!(" and {} not shown", thousands(omitted))),
        }
        return text;
    }
    let is_collapsed = |p: usize| collapsed.get(p) == Some(&true);
    let parts: Vec<String> = named
        .iter()
        .zip(&tally)
        .enumerate()
        .filter(|(p, (_, t))| !is_collapsed(*p) && t.0 + t.1 + t.2 > 0)
        .map(|(_, plan)| plan)
        .map(|(plan, &(diffs, listed, omitted))| {
            let mut said = Vec::new();
            if diffs > 0 {
                said.push(count_noun(diffs, "diff", "diffs"));
            }
            if listed > 0 {
                said.push(format!("{} listed", thousands(listed)));
            }
            if omitted > 0 {
                said.push(format!("{} not shown", thousands(omitted)));
            }
            format!("{}: {}", plan.name, said.join(", "))
        })
        .collect();
    let mut text = collapsed_note(collapsed);
    if !parts.is_empty() {
        text.push_str(&format!(
            "Per plan, changes shown with their diffs, listed by address only, or not shown: {}",
            parts.join("; ")
        ));
    }
    text.trim_end_matches([' ', '.']).to_string()
}

/// `40 of the 110 plans are shown below, the others only in the table. `, or nothing.
fn collapsed_note(collapsed: &[bool]) -> String {
    let hidden = collapsed.iter().filter(|c| **c).count();
    if hidden == 0 {
        return String::new();
    }
    format!(
        "{} of the {} plans are shown below, the others only in the table. ",
        thousands(collapsed.len() - hidden),
        thousands(collapsed.len())
    )
}

/// The plans in the order their sections are kept when not all fit: those that failed,
/// then those with destroys or replacements, then those with other changes, then the
/// rest, each in argument order.
pub(crate) fn plan_order(plans: &Plans<'_>, catalog: &Catalog) -> Vec<usize> {
    let n = plans.named().len();
    // 0 failed, 1 dangerous, 2 changes, 3 nothing
    let mut risk: Vec<u8> = (0..n)
        .map(|p| if plans.head(p).errored { 0 } else { 3 })
        .collect();
    for (i, entry) in catalog.entries.iter().enumerate() {
        let r = if catalog.dangerous(i) { 1 } else { 2 };
        risk[entry.plan] = risk[entry.plan].min(r);
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by_key(|p| (risk[*p], *p));
    order
}

/// Every entry only counted: the base a greedy fill adds to, and the last form before
/// one line per plan (`tight`: with the warning banner and check lists shortened).
pub(crate) fn nothing_shown(
    plans: &Plans<'_>,
    catalog: &Catalog,
    max_chars: usize,
    tight: bool,
    collapsed: Vec<bool>,
) -> Plan {
    let what = format!("{}Only the counts are shown", collapsed_note(&collapsed));
    Plan {
        details: vec![Detail::Omitted; catalog.entries.len()],
        truncation: Some(notice("counts-only", what, max_chars, plans)),
        estimated: 0,
        tight,
        collapsed,
    }
}

/// `truncation`'s notice, saying the change map was left out too.
pub(crate) fn map_left_out(truncation: &mut Truncation) {
    let what = "The change map is left out. ";
    match truncation.notice.find("For everything") {
        Some(at) => truncation.notice.insert_str(at, what),
        None => truncation.notice.push_str(what.trim_end()),
    }
}

/// The notice of a comment that shows every diff in full but fits only without its change
/// map (stage `map`).
pub(crate) fn map_only_left_out(max_chars: usize) -> Truncation {
    Truncation {
        stage: "map".to_string(),
        notice: format!(
            "The change map is left out: with it the comment would pass the {}-character limit. Every change is shown.",
            thousands(max_chars)
        ),
        max_chars,
    }
}

fn notice(stage: &str, what: String, max_chars: usize, plans: &Plans<'_>) -> Truncation {
    let (these, them, json) = if plans.named().len() > 1 {
        ("These plans are", "the plans", "the plan JSON files")
    } else {
        ("This plan is", "the plan", "the plan JSON")
    };
    Truncation {
        stage: stage.to_string(),
        notice: format!(
            "{these} too large to show in full within the {}-character limit. {what}. For everything, see {them} in the job log or run planmark render --format text on {json}.",
            thousands(max_chars)
        ),
        max_chars,
    }
}
