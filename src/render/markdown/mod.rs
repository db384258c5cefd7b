//! Render stage, Markdown: one or more plans (each a [`crate::diff::PlanHead`] head and
//! its [`crate::diff::ResourceChanges`]) → the pull-request comment, through Handlebars
//! templates, within a size limit. Only the resource changes the size budget measures or
//! the comment shows are diffed ([`source`]).
//!
//! Contract: the output is well-formed GitHub Markdown (every fence closed, every
//! `<details>` balanced), no plan string reaches it unescaped, no sensitive value is in it
//! (the diff tree never holds one), and it is at most `max_chars` UTF-16 code units minus
//! headroom whenever the templates allow. Past the limit the comment degrades by importance
//! (see [`budget`]) and says so; text is never cut. No I/O: the caller supplies the time,
//! commit and run link in [`Meta`].

pub mod budget;
pub mod catalog;
pub mod context;
pub mod diff_lines;
pub mod escape;
pub mod invocations;
pub mod length;
pub mod mermaid;
pub mod phrases;
pub mod problems;
pub mod source;
pub mod templates;

use crate::render::error::Result;
use budget::{effective_limit, measure, Sizes};
use catalog::Catalog;
pub use context::{Context, MapMode, Meta};
pub use problems::Extras;
pub use source::NamedPlan;
use source::Plans;
pub use templates::{Source, TemplateSet};

/// GitHub's limit on a comment body, in characters.
pub const GITHUB_MAX_CHARS: usize = 65_536;
/// The smallest `max_chars` accepted: enough for the counts-only form.
pub const MIN_MAX_CHARS: usize = 2_000;

/// A rendered comment and the context it was rendered from.
#[derive(Debug, Clone)]
pub struct Comment {
    /// The Markdown.
    pub markdown: String,
    /// The context the templates saw.
    pub context: Context,
}

/// Renders the comment for `plans` within `max_chars` (at least [`MIN_MAX_CHARS`]).
pub fn render_comment(
    plans: &[NamedPlan<'_>],
    meta: &Meta,
    templates: &TemplateSet,
    max_chars: usize,
) -> Result<Comment> {
    render_comment_with(plans, meta, &Extras::default(), templates, max_chars)
}

/// [`render_comment`] with a log's diagnostics, policy violations, or (`extras.failed`, no
/// plans) the comment for a plan Terraform could not make.
pub fn render_comment_with(
    plans: &[NamedPlan<'_>],
    meta: &Meta,
    extras: &Extras<'_>,
    templates: &TemplateSet,
    max_chars: usize,
) -> Result<Comment> {
    let max_chars = max_chars.max(MIN_MAX_CHARS);
    let plans = Plans::new(plans);
    let catalog = Catalog::new(&plans)?;
    fit(&plans, &catalog, templates, meta, extras, max_chars)
}

/// Renders the fullest comment within `max_chars` (see [`budget`]).
fn fit(
    plans: &Plans<'_>,
    catalog: &Catalog,
    templates: &TemplateSet,
    meta: &Meta,
    extras: &Extras<'_>,
    max_chars: usize,
) -> Result<Comment> {
    let limit = effective_limit(max_chars);
    let mut sizes = Sizes::new(plans, catalog);
    let attempt = |plan: budget::Plan, maps: &[Option<context::ChangeMap>]| -> Result<Comment> {
        let context = context::build(
            plans,
            meta,
            catalog,
            &plan.details,
            plan.truncation,
            (extras, max_chars),
            maps,
        )?;
        // Compiled on first use (see `TemplateSet::registry_for`).
        let markdown = templates
            .registry_for(catalog.entries.len())?
            .render(&context)?;
        let markdown = crate::marker::end_with_marker(markdown, &context.marker);
        Ok(Comment { markdown, context })
    };

    for stage in 0..budget::UNIFORM.len() {
        // The change maps are optional: drawn only when every diff can be shown in full,
        // and left out before any diff is shortened. A plan whose diffs cannot fit in full
        // (a huge one) never groups its changes for a map.
        let mut tries = vec![Vec::new()];
        if stage == 0 && budget::uniform(stage, &mut sizes, limit, max_chars)?.is_some() {
            let maps = context::change_maps(plans, meta.map);
            if maps.iter().any(Option::is_some) {
                tries.insert(0, maps);
            }
        }
        for maps in &tries {
            if let Some(plan) = budget::uniform(stage, &mut sizes, limit, max_chars)? {
                let comment = attempt(plan, maps)?;
                if measure(&comment.markdown) <= limit {
                    return Ok(comment);
                }
            }
        }
    }
    // Greedy fills: the base is what the comment costs with every entry only counted.
    let floor = attempt(budget::counts_only(catalog, max_chars), &[])?;
    let base = measure(&floor.markdown);
    if base <= limit {
        // The per-entry costs are estimates: each fill's real cost (its size above the
        // counts-only form) against its estimate aims the next one, so that a fill close
        // to the limit usually takes two renders; keep the fullest comment that fits.
        let available = limit - base;
        let mut room = available;
        let mut best: Option<Comment> = None;
        for _ in 0..4 {
            let plan = budget::partial(&mut sizes, room, max_chars)?;
            let estimated = plan.estimated;
            let comment = attempt(plan, &[])?;
            let size = measure(&comment.markdown);
            let real = size.saturating_sub(base).max(1);
            let fits = size <= limit;
            if fits {
                let slack = limit - size;
                let full = best.as_ref().is_none_or(|b| measure(&b.markdown) < size);
                if full {
                    best = Some(comment);
                }
                if slack < limit / 10 || estimated < room / 2 {
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
        return Ok(best.unwrap_or(floor));
    }
    Ok(minimal(floor, max_chars))
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
    let limit = effective_limit(max_chars) - context.marker.len() - 200;
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
