//! Command line, run metadata: what the comment's footer and marker say about where it was
//! made (commit, workflow run, time), read from the GitHub Actions environment. This is the
//! edge: the renderer itself reads no environment.

use std::time::{SystemTime, UNIX_EPOCH};

use crate::pipeline::RunInfo;

/// Reads the run facts through `var` (the process environment in production): the
/// commit planned is the pull request's head when the event has one, else `GITHUB_SHA`;
/// the run's page is `$GITHUB_SERVER_URL/$GITHUB_REPOSITORY/actions/runs/$GITHUB_RUN_ID`;
/// the time is now, or `SOURCE_DATE_EPOCH` for reproducible output.
pub(crate) fn run_info(var: &dyn Fn(&str) -> Option<String>) -> RunInfo {
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

/// RFC 3339 UTC time for seconds since the Unix epoch.
pub(crate) fn rfc3339(epoch_seconds: u64) -> String {
    let days = epoch_seconds / 86_400;
    let rest = epoch_seconds % 86_400;
    let (year, month, day) = civil_from_days(days as i64);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}Z",
        rest / 3600,
        rest % 3600 / 60,
        rest % 60
    )
}

/// Gregorian date from days since 1970-01-01 (Howard Hinnant's civil-from-days).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
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

    #[test]
    fn dates() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
        assert_eq!(rfc3339(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(rfc3339(1_795_341_600), "2026-11-22T10:00:00Z");
    }
}
