//! Publisher, our comment's body against the new one: which run is newer, and whether the
//! comment already says what the new body does (then it is left as it is).

use serde_json::Value as Json;

use crate::marker;

/// Does `existing` come from a newer run than `ours`? Run ids (and attempts) order runs of
/// one repository; without them, the marker times do.
pub(super) fn is_newer(existing: &str, ours: &str) -> bool {
    let (Some(old), Some(new)) = (marker::parse_marker(existing), marker::parse_marker(ours))
    else {
        return false;
    };
    let run = |m: &Json| {
        Some((
            m.get("run_id")?.as_u64()?,
            m.get("run_attempt").and_then(Json::as_u64).unwrap_or(1),
        ))
    };
    match (run(&old), run(&new)) {
        (Some(old), Some(new)) => old > new,
        _ => {
            let time = |m: &Json| m.get("time").and_then(Json::as_str).map(str::to_string);
            matches!((time(&old), time(&new)), (Some(o), Some(n)) if o > n)
        }
    }
}

/// Whether `old` already says what `new` does: the same text (the marker's run and time,
/// and with `same_changes` what moved since an earlier plan, aside) and the same hashes of
/// the changes in the marker, which `verify` reads: a body cut to counts only reads alike
/// when values changed, and its marker must still be the new plan's.
pub(super) fn says_the_same(old: &str, new: &str, same_changes: bool) -> bool {
    let (old_text, new_text) = (marker::without_marker(old), marker::without_marker(new));
    let same_text = match same_changes {
        true => marker::without_since(&old_text) == marker::without_since(&new_text),
        false => old_text == new_text,
    };
    let hashes = |body: &str| {
        marker::parse_marker(body).map(|m| {
            let field = |name: &str| m.get(name).cloned();
            (field("changes_sha256"), field("changes_form"))
        })
    };
    same_text && hashes(old) == hashes(new)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marker(run: Option<(u64, u64)>, time: &str) -> String {
        let run = run
            .map(|(id, attempt)| format!(",\"run_id\":{id},\"run_attempt\":{attempt}"))
            .unwrap_or_default();
        format!("text\n<!-- planmark:v1 {{\"key\":\"k\"{run},\"time\":\"{time}\"}} -->\n")
    }

    #[test]
    fn newer_runs_win() {
        let t = "2026-01-01T00:00:00Z";
        assert!(is_newer(&marker(Some((9, 1)), t), &marker(Some((8, 1)), t)));
        assert!(is_newer(&marker(Some((9, 2)), t), &marker(Some((9, 1)), t)));
        assert!(!is_newer(
            &marker(Some((8, 1)), t),
            &marker(Some((9, 1)), t)
        ));
        assert!(is_newer(
            &marker(None, "2026-02-01T00:00:00Z"),
            &marker(None, t)
        ));
        assert!(!is_newer("no marker", &marker(None, t)));
    }

    #[test]
    fn a_body_alike_with_other_change_hashes_is_news() {
        let with = |sha: &str| {
            let data = marker::MarkerData {
                key: "k".into(),
                plan_sha256: "p".repeat(64),
                time: "2026-01-01T00:00:00Z".into(),
                changes: Some(marker::MarkerChanges {
                    changes_sha256: sha.repeat(64),
                    changes_count: 1,
                    changes_form: 2,
                    ..marker::MarkerChanges::default()
                }),
                ..marker::MarkerData::default()
            };
            format!("### counts only\n\n{}\n", marker::marker_line(&data))
        };
        assert!(says_the_same(&with("a"), &with("a"), false));
        assert!(says_the_same(&with("a"), &with("a"), true));
        assert!(!says_the_same(&with("a"), &with("b"), false));
        assert!(!says_the_same(&with("a"), &with("b"), true));
    }

    #[test]
    fn unchanged_ignores_the_marker() {
        use marker::without_marker;
        assert_eq!(
            without_marker(&marker(Some((1, 1)), "a")),
            without_marker(&marker(Some((2, 1)), "b"))
        );
    }
}
