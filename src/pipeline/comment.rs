//! Pipeline stage, the comment: renders the loaded plans' pull-request comment with its
//! metadata and marker, within a size limit, and again within a smaller one when asked.
//!
//! Contract: the marker names the plans by their inputs' hashes (computed on other cores
//! while they are parsed), what reviewers approved by the hashes of the changes' canonical
//! forms ([`super::digest`], computed on other cores while the comment renders, when
//! [`super::Options::hash_changes`] asks), and the run by [`super::Options::run`]; every render of one
//! [`Rendered`] has the same metadata, so only its size differs.

use super::digest::{self, Reviewed};
use super::error::Result;
use super::load::{default_key, Loaded, LoadedPlan};
use super::since;
use super::verify::Compared;
use crate::concurrency;
use crate::input::hash::plan_sha256;
use crate::marker::{marker_line, MarkerData};
use crate::publish::labels::Verdict;
use crate::render::error::RenderError;
use crate::render::markdown::{
    render_comment_with, Comment, Extras, Meta, NamedPlan, SinceFound, MIN_MAX_CHARS,
};

/// The comment of loaded plans, rendered within [`super::Options::max_chars`], and what renders
/// it again within another limit ([`Rendered::render`], [`Rendered::fit`]).
pub struct Rendered<'r> {
    /// The comment within [`super::Options::max_chars`].
    pub comment: Comment,
    /// Its metadata: the key, the marker, the run.
    pub(crate) meta: Meta,
    loaded: &'r Loaded<'r>,
}

impl<'d> Loaded<'d> {
    /// The comment's key: `--key`, else the plans' (their names, else their paths). A
    /// failed plan's comment has the key its plan's comment would have (`NAME=`, else the
    /// path), so that each run updates the other's comment in place; so has an apply's
    /// (`NAME=`, else the reviewed plans' key, else the log's path).
    pub(crate) fn key(&self) -> String {
        let log = self.log.as_ref();
        let applied = log.filter(|l| l.applied.is_some());
        let failed = log.filter(|l| l.failed);
        let loaded = &self.plans;
        self.options
            .key
            .clone()
            .unwrap_or_else(|| match (failed, applied) {
                (Some(log), _) | (_, Some(log)) if log.arg.named => log.arg.name.clone(),
                (None, Some(_)) if !loaded.is_empty() => default_key(loaded),
                (Some(log), _) | (_, Some(log)) => log.arg.path.clone(),
                (None, None) => default_key(loaded),
            })
    }

    /// The comment within [`super::Options::max_chars`], opening with what moved since
    /// `previous`, the body of the comment it replaces (`None` for the first), when the
    /// changes are hashed.
    pub fn comment(&'d self, previous: Option<&str>) -> Result<Rendered<'d>> {
        let (options, log) = (self.options, self.log.as_ref());
        let hashed = options.hash_changes && log.is_none_or(|l| !l.failed);
        // An apply's comment says what was applied, not what moved.
        let previous = previous.filter(|_| hashed && log.is_none_or(|l| l.applied.is_none()));
        let max_chars = options.max_chars;
        let (meta, comment) = match (hashed, previous) {
            // What moved is in the comment: the hashes come first.
            (true, Some(previous)) => {
                let compared = self.compared()?;
                let mut meta = self.meta(Some(&compared.reviewed));
                meta.since = Some(since::since(previous, &meta.key, &compared));
                let comment = self.draw(&meta, max_chars)?;
                (meta, comment)
            }
            (false, _) => {
                let meta = self.meta(None);
                let comment = self.draw(&meta, max_chars)?;
                (meta, comment)
            }
            // The changes' hashes are made beside the comment, which meanwhile carries a
            // marker of the same length (so it fits the same), replaced once they are known.
            (true, None) => {
                let loaded = &self.plans;
                let schemas = digest::reads_schemas(loaded);
                let stand_in = Reviewed::placeholder(digest::count(loaded), schemas);
                let placeholder = self.meta(Some(&stand_in));
                let (reviewed, comment) = concurrency::beside(
                    || digest::reviewed(loaded, false, true),
                    || self.draw(&placeholder, max_chars),
                );
                let (reviewed, mut comment) = (reviewed?, comment?);
                let meta = self.meta(Some(&reviewed));
                swap_marker(&mut comment, &placeholder.marker, &meta.marker);
                (meta, comment)
            }
        };
        Ok(Rendered {
            comment,
            meta,
            loaded: self,
        })
    }

    /// The comment with `meta` within `max_chars`.
    fn draw(&self, meta: &Meta, max_chars: usize) -> Result<Comment, RenderError> {
        let log = self.log.as_ref();
        let extras = Extras {
            failed: log.filter(|l| l.failed).map(|l| l.arg.name.as_str()),
            log: log.map(|l| &l.log),
            violations: &self.violations,
            rego: &self.rego,
            rego_warn_only: self.options.rego.warn_only,
            unreadable: &self.shown,
            applied: log.and_then(|l| l.applied.as_ref()),
        };
        let named = named(&self.plans);
        render_comment_with(&named, meta, &extras, self.templates, max_chars)
    }
}

impl Rendered<'_> {
    /// The same comment within `max_chars`.
    pub fn render(&self, max_chars: usize) -> Result<Comment, RenderError> {
        self.loaded.draw(&self.meta, max_chars)
    }

    /// The comment within `max_chars`, or within smaller limits (by [`smaller`]) until
    /// `fits` accepts it; the smallest one if none does.
    pub(crate) fn fit(
        &self,
        mut max_chars: usize,
        fits: impl Fn(&Comment) -> bool,
    ) -> Result<Comment, RenderError> {
        loop {
            let comment = self.render(max_chars)?;
            match smaller(max_chars) {
                Some(next) if !fits(&comment) => max_chars = next,
                _ => return Ok(comment),
            }
        }
    }

    /// The changes are those of the comment this one replaces ("Since the last plan: no
    /// change to the plan"): only that line may differ from it.
    pub(crate) fn same_changes(&self) -> bool {
        matches!(&self.meta.since, Some(s) if s.found == SinceFound::Unchanged)
    }

    /// A plan has changes.
    pub(crate) fn has_changes(&self) -> bool {
        self.comment.context.plans.iter().any(|p| p.has_changes)
    }

    /// The comment says something new even without changes: a failed plan, plans that
    /// could not be read, or an apply's outcome.
    pub(crate) fn is_news(&self) -> bool {
        let context = &self.comment.context;
        self.has_changes()
            || context.failed.is_some()
            || !context.unreadable.is_empty()
            || context.applied.is_some()
    }

    /// `--applied`: whether the apply failed; `None` for a plan's comment.
    pub(crate) fn apply_failed(&self) -> Option<bool> {
        self.comment.context.applied.as_ref().map(|a| a.failed)
    }

    /// The label verdict: an apply's outcome; for plans, destroys (replacements included)
    /// win over changes; `None` when a plan failed, since then nobody knows what would
    /// change.
    pub(crate) fn verdict(&self) -> Option<Verdict> {
        let context = &self.comment.context;
        match self.apply_failed() {
            Some(true) => return Some(Verdict::ApplyFailed),
            Some(false) => return Some(Verdict::Applied),
            None => {}
        }
        if context.failed.is_some() || context.plans.iter().any(|p| p.errored) {
            return None;
        }
        Some(if context.plans.iter().any(|p| p.danger.count > 0) {
            Verdict::Destroy
        } else if self.has_changes() {
            Verdict::Changes
        } else {
            Verdict::NoChanges
        })
    }
}

/// The shrink policy, one for every size limit: after a comment rendered within
/// `max_chars` turned out too long (for GitHub, or for the step summary's bytes), the next
/// limit to try is three quarters of it, never below [`MIN_MAX_CHARS`]; `None` once the
/// limit is the smallest, whose comment (the counts only) is the last resort.
pub(crate) fn smaller(max_chars: usize) -> Option<usize> {
    (max_chars > MIN_MAX_CHARS).then(|| (max_chars * 3 / 4).max(MIN_MAX_CHARS))
}

/// `comment` with `real` for the marker `stand_in` of the same length: on its last line
/// (the only place it is, see [`crate::marker::end_with_marker`]) and in its context.
fn swap_marker(comment: &mut Comment, stand_in: &str, real: &str) {
    debug_assert_eq!(stand_in.len(), real.len());
    if let Some(at) = comment.markdown.rfind(stand_in) {
        comment
            .markdown
            .replace_range(at..at + stand_in.len(), real);
    }
    comment.context.marker = real.to_string();
}

/// The plans as the renderer takes them.
fn named<'a>(loaded: &'a [LoadedPlan<'_>]) -> Vec<NamedPlan<'a>> {
    loaded
        .iter()
        .map(|l| NamedPlan {
            name: &l.arg.name,
            head: &l.head,
            changes: l.changes(),
            links: l.links.as_ref(),
        })
        .collect()
}

impl Loaded<'_> {
    /// The loaded plans' changes hashed with their labels, to compare with a previous
    /// comment's marker.
    pub(super) fn compared(&self) -> crate::input::error::Result<Compared> {
        let loaded = &self.plans;
        let reviewed = digest::reviewed(loaded, true, true)?;
        let plain = match reviewed.schemas {
            true => Some(digest::reviewed(loaded, true, false)?),
            false => None,
        };
        let known = digest::known_addresses(loaded, &reviewed);
        Ok(Compared {
            reviewed,
            plain,
            known,
            plan_names: loaded.iter().map(|l| l.arg.name.clone()).collect(),
            schemas_given: self.options.schemas.is_some(),
        })
    }

    /// The comment's metadata; its marker identifies the plans by their hashes.
    fn meta(&self, reviewed: Option<&Reviewed>) -> Meta {
        let (options, loaded, log) = (self.options, &self.plans[..], self.log.as_ref());
        let run = options.run.clone();
        let applied = log.filter(|l| l.applied.is_some());
        let failed = log.filter(|l| l.failed);
        let key = self.key();
        // An apply without its plan is known by its log.
        let failed = failed.or(applied.filter(|_| loaded.is_empty()));
        let plan_sha256 = match (loaded, failed) {
            (_, Some(log)) => log.sha256.clone(),
            ([one], None) => one.sha256.clone(),
            (many, None) => {
                let lines: String = many
                    .iter()
                    .map(|l| format!("{}={}\n", l.arg.name, l.sha256))
                    .collect();
                plan_sha256(serde_json::to_string(&lines).unwrap_or_default().as_bytes())
            }
        };
        let changes = reviewed.map(|r| r.marker_fields(options.max_chars));
        let marker = marker_line(&MarkerData {
            key: key.clone(),
            plan_sha256,
            commit: run.commit.clone(),
            run_id: run.run_id,
            run_attempt: run.run_attempt,
            time: run.time.clone(),
            changes,
        });
        Meta {
            title: options.title.clone(),
            key,
            commit: run.commit,
            run_url: run.run_url,
            time: run.time,
            marker,
            tool: options.tool,
            map: options.map,
            no_group: options.no_group,
            since: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_shrink_by_a_quarter_down_to_the_smallest() {
        let mut limits = vec![65_536];
        while let Some(next) = smaller(*limits.last().unwrap()) {
            limits.push(next);
        }
        assert_eq!(limits[..3], [65_536, 49_152, 36_864]);
        assert_eq!(limits.last(), Some(&MIN_MAX_CHARS));
        assert!(limits.windows(2).all(|w| w[1] < w[0]));
        assert_eq!(smaller(MIN_MAX_CHARS), None);
        assert_eq!(smaller(2_100), Some(MIN_MAX_CHARS));
    }
}
