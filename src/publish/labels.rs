//! Publish stage, labels: keeps one of our labels on the pull request — for a plan: no
//! changes, changes, destroy; for an apply: applied, apply failed — through the same client
//! and retry policy as the comment.
//!
//! Contract: only our five label names are ever added or removed; other labels are left
//! alone. Nothing is sent when the labels are already right. A label that is gone already
//! (404 on removal) counts as removed. Adding a label that the repository does not have
//! creates it (GitHub's behaviour).

use http::Method;
use serde::Deserialize;
use serde_json::json;

use super::client::{GitHub, Repeat, Response};
use super::target::Target;
use super::PublishError;

/// What the plans do, or what their apply did, as far as labels say; each verdict's label
/// is the one at its place in [`LabelNames`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    /// Nothing changes.
    NoChanges,
    /// Changes, nothing destroyed.
    Changes,
    /// Something is destroyed or replaced (wins over changes).
    Destroy,
    /// The apply succeeded.
    Applied,
    /// The apply failed.
    ApplyFailed,
}

/// The label names in [`Verdict`]'s order (`--label-no-changes`, `--label-changes`,
/// `--label-destroy`, `--label-applied`, `--label-apply-failed`).
pub(crate) type LabelNames = [String; 5];

/// The label changes to make.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct LabelChange {
    /// The label to add, when missing.
    pub(crate) add: Option<String>,
    /// Our stale labels present on the pull request.
    pub(crate) remove: Vec<String>,
}

/// What to change so that `current` carries exactly our label for `verdict` (GitHub
/// compares label names case-insensitively).
pub(crate) fn change(current: &[String], names: &LabelNames, verdict: Verdict) -> LabelChange {
    let has = |name: &str| current.iter().any(|c| c.eq_ignore_ascii_case(name));
    let wanted = &names[verdict as usize];
    let mut remove = Vec::new();
    for name in names {
        if !name.eq_ignore_ascii_case(wanted) {
            // Remove it under the name the pull request has it by.
            if let Some(present) = current.iter().find(|c| c.eq_ignore_ascii_case(name)) {
                if !remove.contains(present) {
                    remove.push(present.clone());
                }
            }
        }
    }
    LabelChange {
        add: (!has(wanted)).then(|| wanted.to_string()),
        remove,
    }
}

#[derive(Deserialize)]
struct Label {
    name: String,
}

/// The labels on the pull request, over all pages.
pub(crate) async fn current(github: &GitHub, target: &Target) -> Result<Vec<String>, PublishError> {
    let first = target.issue("/labels?per_page=100");
    let labels: Vec<Label> = github
        .get_all(first, "listing the pull request's labels", "labels")
        .await?;
    Ok(labels.into_iter().map(|l| l.name).collect())
}

/// GitHub's refusal of a label write: labels are the issue's, so a token refused
/// (403) lacks `issues: write`, whatever it may do to comments.
fn refused(response: &Response, what: &str) -> PublishError {
    match response.status {
        403 => PublishError::Denied {
            what: what.to_string(),
            status: 403,
            message: response.message(),
            hint: "the token may not label the pull request: give the job `permissions: issues: write`".to_string(),
        },
        _ => response.refusal(what),
    }
}

/// Percent-encodes a label name for a URL path segment (`:`, spaces, `/`, `?`, `#`, `%`
/// and every non-ASCII byte would otherwise change the path or be refused).
pub(crate) fn encode_segment(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for b in name.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Makes the pull request carry our label for `verdict`; returns one line per write made
/// (or, with `dry_run`, that would be made).
pub(crate) async fn sync(
    github: &GitHub,
    target: &Target,
    names: &LabelNames,
    verdict: Verdict,
    dry_run: bool,
) -> Result<Vec<String>, PublishError> {
    let present = current(github, target).await?;
    let change = change(&present, names, verdict);
    let issue = target.issue("/labels");
    let mut actions = Vec::new();
    if let Some(add) = &change.add {
        actions.push(format!("add the label {add}"));
        if !dry_run {
            // Adding is idempotent (a label already there stays once): safe to repeat.
            let payload = json!({ "labels": [add] });
            let response = github
                .rest(Method::POST, &issue, Some(&payload), Repeat::Safe)
                .await?;
            if !response.ok() {
                return Err(refused(&response, "adding a label"));
            }
        }
    }
    for name in &change.remove {
        actions.push(format!("remove the label {name}"));
        if dry_run {
            continue;
        }
        let path = format!("{issue}/{}", encode_segment(name));
        let response = github
            .rest(Method::DELETE, &path, None, Repeat::Safe)
            .await?;
        // Gone already (removed by someone else meanwhile) is as good as removed.
        if !response.ok() && response.status != 404 {
            return Err(refused(&response, "removing a label"));
        }
    }
    Ok(actions)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> LabelNames {
        [
            "no-changes",
            "changes",
            "destroy",
            "applied",
            "apply-failed",
        ]
        .map(|name| format!("planmark:{name}"))
    }

    #[test]
    fn only_our_stale_labels_go_and_the_wanted_one_comes() {
        let current = vec!["bug".to_string(), "PlanMark:Changes".to_string()];
        let change = change(&current, &names(), Verdict::Destroy);
        assert_eq!(change.add.as_deref(), Some("planmark:destroy"));
        assert_eq!(change.remove, ["PlanMark:Changes"]);
        let right = vec!["planmark:destroy".to_string(), "bug".to_string()];
        assert_eq!(
            super::change(&right, &names(), Verdict::Destroy),
            LabelChange::default()
        );
        // An apply's label replaces the plan's, and the other way round.
        let change = super::change(&right, &names(), Verdict::ApplyFailed);
        assert_eq!(change.add.as_deref(), Some("planmark:apply-failed"));
        assert_eq!(change.remove, ["planmark:destroy"]);
        let applied = vec!["planmark:applied".to_string()];
        let change = super::change(&applied, &names(), Verdict::Changes);
        assert_eq!(change.remove, ["planmark:applied"]);
    }

    #[test]
    fn names_are_encoded_for_the_path() {
        assert_eq!(
            encode_segment("planmark:no changes"),
            "planmark%3Ano%20changes"
        );
        assert_eq!(encode_segment("a/b?c#d%"), "a%2Fb%3Fc%23d%25");
        assert_eq!(encode_segment("é"), "%C3%A9");
    }
}
