//! Command line, run metadata: what the comment's footer and marker say about where it was
//! made (commit, workflow run, time), read from the GitHub Actions environment. This is the
//! edge: the renderer itself reads no environment.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::render::markdown::marker::rfc3339;

/// Facts about the run, each optional.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunInfo {
    /// The commit planned: the PR head when the event has one, else `GITHUB_SHA`.
    pub commit: Option<String>,
    /// `$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID`.
    pub run_url: Option<String>,
    /// `GITHUB_RUN_ID`.
    pub run_id: Option<u64>,
    /// `GITHUB_RUN_ATTEMPT`.
    pub run_attempt: Option<u64>,
    /// Now (or `SOURCE_DATE_EPOCH`, for reproducible output), RFC 3339.
    pub time: String,
}

/// Reads the run facts through `var` (the process environment in production).
pub fn run_info(var: &dyn Fn(&str) -> Option<String>) -> RunInfo {
    let get = |name: &str| var(name).filter(|v| !v.trim().is_empty());
    let run_id = get("GITHUB_RUN_ID").and_then(|v| v.parse().ok());
    let run_url = match (get("GITHUB_SERVER_URL"), get("GITHUB_REPOSITORY"), run_id) {
        (Some(server), Some(repo), Some(id)) => Some(format!(
            "{}/{repo}/actions/runs/{id}",
            server.trim_end_matches('/')
        )),
        _ => None,
    };
    let commit = get("GITHUB_EVENT_PATH")
        .and_then(|path| std::fs::read(path).ok())
        .and_then(|bytes| pull_request_head(&bytes))
        .or_else(|| get("GITHUB_SHA"))
        .filter(|sha| sha.chars().all(|c| c.is_ascii_hexdigit()));
    let epoch = get("SOURCE_DATE_EPOCH")
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs())
        });
    RunInfo {
        commit,
        run_url,
        run_id,
        run_attempt: get("GITHUB_RUN_ATTEMPT").and_then(|v| v.parse().ok()),
        time: rfc3339(epoch),
    }
}

/// The head commit of the pull request in an event payload (`pull_request`,
/// `pull_request_target`); `GITHUB_SHA` is a merge commit there.
fn pull_request_head(event: &[u8]) -> Option<String> {
    let event: serde_json::Value = serde_json::from_slice(event).ok()?;
    event
        .pointer("/pull_request/head/sha")?
        .as_str()
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_actions_environment() {
        let env = |name: &str| -> Option<String> {
            match name {
                "GITHUB_SERVER_URL" => Some("https://github.com/".into()),
                "GITHUB_REPOSITORY" => Some("o/r".into()),
                "GITHUB_RUN_ID" => Some("42".into()),
                "GITHUB_RUN_ATTEMPT" => Some("2".into()),
                "GITHUB_SHA" => Some("abc123".into()),
                "SOURCE_DATE_EPOCH" => Some("0".into()),
                _ => None,
            }
        };
        let info = run_info(&env);
        assert_eq!(
            info.run_url.as_deref(),
            Some("https://github.com/o/r/actions/runs/42")
        );
        assert_eq!(info.commit.as_deref(), Some("abc123"));
        assert_eq!((info.run_id, info.run_attempt), (Some(42), Some(2)));
        assert_eq!(info.time, "1970-01-01T00:00:00Z");
    }

    #[test]
    fn pull_request_head_wins_over_the_merge_commit() {
        let event = br#"{"pull_request":{"number":5,"head":{"sha":"def456"}}}"#;
        assert_eq!(pull_request_head(event).as_deref(), Some("def456"));
        assert_eq!(pull_request_head(b"{}"), None);
    }
}
