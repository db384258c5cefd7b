//! Publish stage, target: which repository and pull request to comment on, from flags or
//! the GitHub Actions environment (`GITHUB_REPOSITORY`, the event payload, or — for `push`
//! events — the open pull request whose head is the pushed commit, else the pull request
//! merged as it, for an apply on merge).

use http::Method;
use serde_json::Value as Json;

use super::client::{GitHub, Repeat};
use super::PublishError;

/// Where the comment goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Target {
    /// Repository owner.
    pub(crate) owner: String,
    /// Repository name.
    pub(crate) repo: String,
    /// Pull request number.
    pub(crate) number: u64,
}

impl Target {
    /// The API path of the pull request's issue followed by `rest` (`/comments`, say).
    pub(crate) fn issue(&self, rest: &str) -> String {
        let Target {
            owner,
            repo,
            number,
        } = self;
        format!("/repos/{owner}/{repo}/issues/{number}{rest}")
    }

    /// The API path of the repository's comment `id`.
    pub(crate) fn comment(&self, id: u64) -> String {
        format!("/repos/{}/{}/issues/comments/{id}", self.owner, self.repo)
    }
}

/// What is known before asking the API.
#[derive(Debug, Clone, Default)]
pub(crate) struct TargetHints {
    /// `--repo OWNER/NAME` or `GITHUB_REPOSITORY`.
    pub(crate) repository: Option<String>,
    /// `--pr N`.
    pub(crate) number: Option<u64>,
    /// `GITHUB_EVENT_NAME`.
    pub(crate) event_name: Option<String>,
    /// The parsed `GITHUB_EVENT_PATH` payload.
    pub(crate) event: Option<Json>,
    /// `GITHUB_SHA`.
    pub(crate) sha: Option<String>,
    /// `GITHUB_REF_NAME` (the pushed branch).
    pub(crate) ref_name: Option<String>,
}

/// `OWNER/NAME` → (owner, name).
pub(crate) fn split_repository(repository: &str) -> Result<(String, String), PublishError> {
    // Dots alone would walk up the URL path (`/repos/../…`).
    let valid = |part: &str| {
        !part.is_empty()
            && !part.chars().all(|c| c == '.')
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    match repository.split_once('/') {
        Some((owner, repo)) if valid(owner) && valid(repo) => {
            Ok((owner.to_string(), repo.to_string()))
        }
        _ => Err(PublishError::Config(format!(
            "repository `{repository}` is not OWNER/NAME; pass --repo OWNER/NAME"
        ))),
    }
}

/// The pull request number an event payload names, if it is about a pull request.
pub(crate) fn event_pull_request(event_name: Option<&str>, event: &Json) -> Option<u64> {
    match event_name {
        Some("pull_request" | "pull_request_target" | "pull_request_review") => event
            .pointer("/pull_request/number")
            .or_else(|| event.get("number"))
            .and_then(Json::as_u64),
        // A comment event is about a pull request only when the issue is one.
        Some("issue_comment") => {
            let issue = event.get("issue")?;
            issue.get("pull_request")?;
            issue.get("number").and_then(Json::as_u64)
        }
        _ => event.pointer("/pull_request/number").and_then(Json::as_u64),
    }
}

/// Resolves the target: flags first, then the event, then (push) the API.
pub(crate) async fn resolve(
    hints: &TargetHints,
    github: Option<&GitHub>,
) -> Result<Target, PublishError> {
    let repository = hints.repository.as_deref().ok_or_else(|| {
        PublishError::Config(
            "no repository: pass --repo OWNER/NAME (GITHUB_REPOSITORY is not set)".into(),
        )
    })?;
    let (owner, repo) = split_repository(repository)?;
    let from_event = hints
        .event
        .as_ref()
        .and_then(|e| event_pull_request(hints.event_name.as_deref(), e));
    let number = match (hints.number, from_event) {
        (Some(n), _) | (None, Some(n)) => n,
        (None, None) => match (hints.event_name.as_deref(), &hints.sha, github) {
            (Some("push"), Some(sha), Some(github)) => {
                pull_for_commit(github, &owner, &repo, sha, hints.ref_name.as_deref()).await?
            }
            _ => {
                return Err(PublishError::Config(format!(
                    "no pull request: pass --pr N (the {} event does not name one)",
                    hints.event_name.as_deref().unwrap_or("current")
                )))
            }
        },
    };
    Ok(Target {
        owner,
        repo,
        number,
    })
}

/// The pull request of a pushed commit `sha`, from the pull requests GitHub associates
/// with it: an open one (preferring one from `branch`, the pushed branch), else the one
/// merged as `sha` (a push to the default branch on merge), else a merged one that
/// contains it.
async fn pull_for_commit(
    github: &GitHub,
    owner: &str,
    repo: &str,
    sha: &str,
    branch: Option<&str>,
) -> Result<u64, PublishError> {
    let path = format!("/repos/{owner}/{repo}/commits/{sha}/pulls");
    let response = github.rest(Method::GET, &path, None, Repeat::Safe).await?;
    if !response.ok() {
        return Err(response.refusal("finding the pull request for the commit"));
    }
    let pulls = response.json();
    let pulls = pulls.as_array().map(Vec::as_slice).unwrap_or_default();
    choose_pull(pulls, sha, branch).ok_or_else(|| {
        PublishError::Config(format!(
            "no open pull request has commit {sha} as its head, and none was merged as it; \
             pass --pr N"
        ))
    })
}

/// The pull request [`pull_for_commit`] picks among `pulls`.
fn choose_pull(pulls: &[Json], sha: &str, branch: Option<&str>) -> Option<u64> {
    let text = |p: &Json, at: &str| p.pointer(at).and_then(Json::as_str).map(str::to_string);
    let open: Vec<&Json> = pulls
        .iter()
        .filter(|p| text(p, "/state").as_deref() == Some("open"))
        .collect();
    let on_branch = |p: &&&Json| branch.is_some() && text(p, "/head/ref").as_deref() == branch;
    let merged = |p: &&Json| p.get("merged_at").is_some_and(|m| !m.is_null());
    let merged_as = |p: &&Json| merged(p) && text(p, "/merge_commit_sha").as_deref() == Some(sha);
    open.iter()
        .find(on_branch)
        .or(open.first())
        .copied()
        .or_else(|| pulls.iter().find(merged_as))
        .or_else(|| pulls.iter().find(merged))
        .and_then(|p| p.get("number"))
        .and_then(Json::as_u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn pull_requests_from_events() {
        let pr = json!({"number": 7, "pull_request": {"number": 7}});
        assert_eq!(event_pull_request(Some("pull_request"), &pr), Some(7));
        assert_eq!(
            event_pull_request(Some("pull_request_target"), &pr),
            Some(7)
        );
        let on_pr = json!({"issue": {"number": 9, "pull_request": {"url": "x"}}});
        assert_eq!(event_pull_request(Some("issue_comment"), &on_pr), Some(9));
        let on_issue = json!({"issue": {"number": 9}});
        assert_eq!(event_pull_request(Some("issue_comment"), &on_issue), None);
        assert_eq!(
            event_pull_request(Some("push"), &json!({"after": "abc"})),
            None
        );
    }

    #[test]
    fn pushed_commits_find_their_open_or_merged_pull_request() {
        let sha = "abc";
        let open =
            |n: u64, head: &str| json!({"number": n, "state": "open", "head": {"ref": head}});
        let merged = |n: u64, merge_sha: &str| {
            json!({"number": n, "state": "closed", "merged_at": "2026-11-22T10:00:00Z",
                   "merge_commit_sha": merge_sha, "head": {"ref": "f"}})
        };
        let closed =
            json!({"number": 9, "state": "closed", "merged_at": null, "head": {"ref": "f"}});
        // A push to a pull request's branch: its open pull request, by branch first.
        let pulls = [open(1, "a"), open(2, "b"), merged(3, sha)];
        assert_eq!(choose_pull(&pulls, sha, Some("b")), Some(2));
        assert_eq!(choose_pull(&pulls, sha, Some("main")), Some(1));
        // A push to the default branch on merge: the pull request merged as the commit,
        // else one merged that contains it; never one closed unmerged.
        let pulls = [closed.clone(), merged(4, "other"), merged(5, sha)];
        assert_eq!(choose_pull(&pulls, sha, Some("main")), Some(5));
        assert_eq!(choose_pull(&pulls[..2], sha, Some("main")), Some(4));
        assert_eq!(choose_pull(&[closed], sha, None), None);
    }

    #[test]
    fn repositories_must_be_owner_slash_name() {
        assert_eq!(split_repository("o/r").unwrap(), ("o".into(), "r".into()));
        assert!(split_repository("o").is_err());
        assert!(split_repository("o/r/x").is_err());
        assert!(split_repository("../r").is_err());
        assert!(split_repository("o/my.repo-1_x").is_ok());
    }
}
