//! Markdown renderer, fitting: renders the comment at the [`budget`]'s stages until one
//! fits the limit, then fills what room is left, most important first.
//!
//! Contract: the result is at most the effective limit whenever the templates allow (else
//! the one-line-per-plan last resort); a comment that had to leave something out uses
//! most of the limit (the greedy fill stops within 5 % of it, or when everything that can
//! be shown is).

use super::budget::{self, effective_limit, measure, Sizes};
use super::catalog::{Catalog, Detail};
use super::source::Plans;
use super::{context, escape, phrases, Comment, Extras, Meta, TemplateSet};
use crate::render::error::Result;

/// Renders the fullest comment within `max_chars` (see [`budget`]).
pub(super) fn fit(
    plans: &Plans<'_>,
    catalog: &Catalog,
    templates: &TemplateSet,
    meta: &Meta,
    extras: &Extras<'_>,
    max_chars: usize,
) -> Result<Comment> {
    let limit = effective_limit(max_chars);
    let mut sizes = Sizes::new(plans, catalog, !meta.no_group);
    let drawn = |plan: budget::Plan, maps: &[Option<context::ChangeMap>]| -> Result<Comment> {
        let context = context::build(plans, meta, catalog, &plan, extras, max_chars, maps)?;
        // Compiled on first use (see `TemplateSet::registry_for`).
        let markdown = templates
            .registry_for(catalog.entries.len())?
            .render(&context)?;
        let markdown = crate::marker::end_with_marker(markdown, &context.marker);
        Ok(Comment { markdown, context })
    };
    // The change maps are optional: drawn when every diff can be shown in full, and left
    // out before any diff is shortened; past that, kept when they fit beside what the
    // comment shows (they are small: a node per module and type), else the notice says
    // they were left out.
    let maps = match meta.map {
        context::MapMode::Never => Vec::new(),
        mode => context::change_maps(plans, mode),
    };
    let mapped = maps.iter().any(Option::is_some);
    let attempt = |mut plan: budget::Plan| {
        if mapped {
            match plan.truncation.as_mut() {
                Some(truncation) => budget::map_left_out(truncation),
                None => plan.truncation = Some(budget::map_only_left_out(max_chars)),
            }
        }
        drawn(plan, &[])
    };
    let with_maps = |plan: budget::Plan| drawn(plan, &maps);

    // Every diff in full, then without unchanged context (given back to as many as fit),
    // each first with the change maps.
    for detail in [Detail::Full, Detail::Compact] {
        let Some(plan) = budget::uniform(detail, &mut sizes, limit, max_chars)? else {
            continue;
        };
        if mapped {
            let comment = with_maps(plan.clone())?;
            let size = measure(&comment.markdown);
            if size <= limit {
                return restore_context(comment, &plan, &mut sizes, limit - size, with_maps);
            }
        }
        let comment = attempt(plan.clone())?;
        let size = measure(&comment.markdown);
        if size <= limit {
            return restore_context(comment, &plan, &mut sizes, limit - size, attempt);
        }
    }
    // Greedy fills on the counts-only form: first with the banner and check lists in full,
    // then, when even that is too long, with them shortened.
    let mut floor = None;
    for tight in [false, true] {
        let base_plan = budget::nothing_shown(plans, catalog, max_chars, tight, Vec::new());
        let empty = attempt(base_plan.clone())?;
        let base = measure(&empty.markdown);
        if base <= limit {
            // The maps stay when they take at most a quarter of the room the fill has.
            if mapped {
                let drawn = with_maps(base_plan.clone())?;
                let size = measure(&drawn.markdown);
                if size <= limit && (size - base.min(size)) * 4 <= limit - base {
                    return greedy(&mut sizes, drawn, &base_plan, limit, max_chars, &with_maps);
                }
            }
            return greedy(&mut sizes, empty, &base_plan, limit, max_chars, &attempt);
        }
        floor = Some(empty);
    }
    let floor = floor.expect("two forms tried");
    // Several plans whose sections do not all fit even so: keep the sections of as many
    // as fit, most at risk first; the overview table still has a row for each.
    let n = plans.named().len();
    if n > 1 {
        let order = budget::plan_order(plans, catalog);
        let keeping = |k: usize| {
            let mut collapsed = vec![true; n];
            for p in &order[..k] {
                collapsed[*p] = false;
            }
            budget::nothing_shown(plans, catalog, max_chars, true, collapsed)
        };
        let fitting = |k: usize| -> Result<Option<(Comment, budget::Plan)>> {
            let plan = keeping(k);
            let comment = attempt(plan.clone())?;
            Ok((measure(&comment.markdown) <= limit).then_some((comment, plan)))
        };
        // The most sections that fit (all of them did not): a binary search.
        if let Some(mut best) = fitting(0)? {
            let (mut lo, mut hi) = (0, n - 1);
            while lo < hi {
                let mid = (lo + hi).div_ceil(2);
                match fitting(mid)? {
                    Some(found) => (best, lo) = (found, mid),
                    None => hi = mid - 1,
                }
            }
            let (empty, plan) = best;
            return greedy(&mut sizes, empty, &plan, limit, max_chars, &attempt);
        }
    }
    Ok(minimal(floor, max_chars))
}

/// `comment`, rendered from `plan` with `slack` characters to spare, or the same with
/// unchanged context given back to the diffs that fit it (when `plan` hid it and the
/// result still fits).
fn restore_context(
    comment: Comment,
    plan: &budget::Plan,
    sizes: &mut Sizes<'_>,
    slack: usize,
    attempt: impl Fn(budget::Plan) -> Result<Comment>,
) -> Result<Comment> {
    let Some(fuller) = budget::restore_context(plan, sizes, slack)? else {
        return Ok(comment);
    };
    let limit = measure(&comment.markdown) + slack;
    let fuller = attempt(fuller)?;
    Ok(if measure(&fuller.markdown) <= limit {
        fuller
    } else {
        comment
    })
}

/// The fullest greedy fill within `limit` above `empty`, the comment with every entry
/// only counted, rendered from `base_plan`; that comment when none fits.
fn greedy(
    sizes: &mut Sizes<'_>,
    empty: Comment,
    base_plan: &budget::Plan,
    limit: usize,
    max_chars: usize,
    attempt: &impl Fn(budget::Plan) -> Result<Comment>,
) -> Result<Comment> {
    let base = measure(&empty.markdown);
    // The per-entry costs are estimates: each fill's real cost (its size above the base)
    // against its estimate aims the next one, so that a fill close to the limit usually
    // takes two renders; keep the fullest comment that fits.
    let available = limit - base;
    let mut room = available;
    let mut best: Option<Comment> = None;
    for _ in 0..4 {
        let plan = budget::partial(sizes, room, max_chars, base_plan)?;
        let estimated = plan.estimated;
        let comment = attempt(plan)?;
        let size = measure(&comment.markdown);
        let real = size.saturating_sub(base).max(1);
        let fits = size <= limit;
        if fits {
            let slack = limit - size;
            let full = best.as_ref().is_none_or(|b| measure(&b.markdown) < size);
            if full {
                best = Some(comment);
            }
            if slack < limit / 20 || estimated < room / 2 {
                // Close enough, or everything that can be shown already is.
                break;
            }
        }
        // Aim 3% below the limit with the observed estimate-to-real ratio.
        let aimed = (available as u128 * estimated.max(1) as u128 / real as u128) * 97 / 100;
        let aimed = usize::try_from(aimed).unwrap_or(usize::MAX);
        room = if fits {
            aimed.max(room + 1)
        } else {
            aimed.min(room.saturating_sub(room / 8 + 1))
        };
    }
    Ok(best.unwrap_or(empty))
}

/// Last resort when even the counts-only form is too long (custom templates, hundreds of
/// plans): the headline of each plan in plain lines, and the marker.
fn minimal(floor: Comment, max_chars: usize) -> Comment {
    let context = floor.context;
    let mut markdown = format!(
        "### {} planmark: the comment is too large to show\n\n> [!NOTE]\n> Even the counts-only form exceeds the {}-character limit; here is one line per plan.\n",
        context.status_icon,
        phrases::thousands(max_chars)
    );
    // The marker may be long (a long key, the changes' digests): never below nothing.
    let limit = effective_limit(max_chars).saturating_sub(context.marker.len() + 200);
    // An apply's outcome is the one thing its comment must say.
    if let Some(applied) = &context.applied {
        markdown.push_str(&format!(
            "\n- {} {} apply: {} ({})",
            phrases::icon(&applied.outcome),
            context.tool.name(),
            applied.outcome,
            applied.changed.text
        ));
    }
    for plan in &context.plans {
        let line = format!(
            "\n- {} {}: {}",
            plan.icon,
            escape::code_span(&plan.name),
            escape::inline(&plan.headline)
        );
        if measure(&markdown) + measure(&line) > limit {
            markdown.push_str("\n- …");
            break;
        }
        markdown.push_str(&line);
    }
    markdown.push_str("\n\n");
    markdown.push_str(&context.marker);
    markdown.push('\n');
    Comment { markdown, context }
}
