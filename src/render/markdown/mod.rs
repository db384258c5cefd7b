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

pub(crate) mod applied;
pub mod budget;
pub(crate) mod catalog;
pub mod context;
pub(crate) mod diff_lines;
pub mod escape;
pub(crate) mod findings;
mod fit;
pub mod group;
pub(crate) mod invocations;
pub(crate) mod length;
pub mod mermaid;
pub(crate) mod phrases;
pub(crate) mod problems;
pub mod source;
pub(crate) mod templates;

use crate::render::error::Result;
use catalog::Catalog;
pub(crate) use context::{Context, Since, SinceFound};
pub use context::{MapMode, Meta};
pub use problems::Extras;
pub use source::NamedPlan;
use source::Plans;
pub(crate) use templates::Source;
pub use templates::TemplateSet;

/// GitHub's limit on a comment body, in characters.
pub const GITHUB_MAX_CHARS: usize = 65_536;
/// The smallest `max_chars` accepted: enough for the counts-only form.
pub const MIN_MAX_CHARS: usize = 2_000;

/// A rendered comment and the context it was rendered from.
#[derive(Debug, Clone)]
pub struct Comment {
    /// The comment body, ready to post, the marker on its last line.
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
    fit::fit(&plans, &catalog, templates, meta, extras, max_chars)
}
