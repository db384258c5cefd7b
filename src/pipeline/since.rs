//! Pipeline stage, since the last plan: this comment's changes compared with the previous
//! comment's marker, as `verify` compares them ([`super::verify`]), for the line that opens
//! a comment replacing an earlier one.
//!
//! Contract: the marker is read only from the previous body's last line
//! ([`crate::marker::parse_marker`]), so a copy in plan text changes nothing; the previous
//! body is one the caller vouches for (`comment`: our own comment for the key; `render
//! --previous`: the file given). A marker of another key, another canonical form, without
//! per-change digests or unreadable is said to be so in one sentence, never compared into
//! a wrong list; gone changes are named only when an address's hash matches the marker's.

use serde_json::Value as Json;

use super::digest::Reviewed;
use super::verify::{compare_changes, Compared, Comparison, Difference};
use crate::differ::CANONICAL_VERSION;
use crate::marker::parse_marker;
use crate::render::markdown::{Since, SinceFound};

/// What moved between the comment `previous` (its body, marker last) and this one for
/// `key`, whose changes are `changes`.
pub(super) fn since(previous: &str, key: &str, changes: &Compared) -> Since {
    let Some(marker) = parse_marker(previous) else {
        return Since {
            commit: None,
            time: None,
            found: not_compared("the previous comment does not end with a planmark marker"),
        };
    };
    let text = |field: &str| marker.get(field).and_then(Json::as_str);
    // Our own fields, but shown: only what they can hold is kept.
    let commit = text("commit")
        .filter(|c| (7..=64).contains(&c.len()) && c.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(str::to_string);
    let time = text("time")
        .filter(|t| {
            t.len() <= 40
                && t.bytes()
                    .all(|b| b.is_ascii_digit() || b"-:.TZ+".contains(&b))
        })
        .map(str::to_string);
    let found = if text("key") != Some(key) {
        not_compared("the previous comment is for another key")
    } else {
        found(
            compare_changes(changes, &marker, previous),
            &changes.reviewed,
        )
    };
    Since {
        commit,
        time,
        found,
    }
}

fn not_compared(reason: &str) -> SinceFound {
    SinceFound::NotCompared(reason.to_string())
}

/// The comparison in the line's terms.
fn found(comparison: Comparison, reviewed: &Reviewed) -> SinceFound {
    let differences = match comparison {
        Comparison::Matches => return SinceFound::Unchanged,
        Comparison::NoHash => {
            return not_compared(
                "the previous comment records no hash of its changes: a failed plan's, an \
                 older planmark's, or the output of planmark render, which hashes nothing \
                 (give a body planmark comment posted, or its --dry-run output)",
            )
        }
        Comparison::OtherForm(version) => {
            let version = version.map_or("the first".to_string(), |v| format!("version {v}"));
            return SinceFound::NotCompared(format!(
                "the previous comment hashed its changes in another form, {version}, and this \
                 planmark reads version {CANONICAL_VERSION}"
            ));
        }
        Comparison::NeedsSchemas => {
            return not_compared(
                "the previous plan's changes were hashed with provider schemas, and none were \
                 given with --schemas",
            )
        }
        Comparison::Differs(differences) => differences,
    };
    let (mut new, mut changed, mut gone, mut gone_unnamed) = (vec![], vec![], vec![], 0);
    for difference in differences {
        match difference {
            Difference::New(label) => new.push(label),
            Difference::Changed(label) => changed.push(label),
            Difference::Gone(label) => gone.push(label),
            Difference::GoneUnnamed(n) => gone_unnamed += n,
            Difference::Unnamed { reviewed: had, .. } => {
                let had = had.map_or("more changes".to_string(), |n| format!("{n} changes"));
                return SinceFound::NotCompared(format!(
                    "the previous plan had {had}, too many for its comment to record each, and \
                     this one has {}",
                    reviewed.items.len()
                ));
            }
            Difference::Whole => {
                return not_compared(
                    "the changes differ as a whole, though none can be named alone",
                )
            }
        }
    }
    SinceFound::Moved {
        new,
        changed,
        gone,
        gone_unnamed,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::marker::{marker_line, MarkerData};

    /// A plan of no changes, as compared (no names known).
    fn no_changes() -> Compared {
        Compared {
            reviewed: Reviewed {
                items: Vec::new(),
                sha256: "a".repeat(64),
                schemas: false,
            },
            plain: None,
            known: Vec::new(),
            plan_names: Vec::new(),
            schemas_given: false,
        }
    }

    fn body(data: MarkerData, before: &str) -> String {
        format!("{before}\n{}\n", marker_line(&data))
    }

    #[test]
    fn unreadable_foreign_and_unhashed_markers_are_one_sentence() {
        let changes = no_changes();
        let found = |previous: &str| since(previous, "k", &changes).found;
        assert!(matches!(found("no marker\n"), SinceFound::NotCompared(r) if r.contains("marker")));
        let other = MarkerData {
            key: "other".into(),
            ..MarkerData::default()
        };
        assert!(
            matches!(found(&body(other, "x")), SinceFound::NotCompared(r) if r.contains("another key"))
        );
        let unhashed = MarkerData {
            key: "k".into(),
            commit: Some("0123456789abcdef".into()),
            time: "2026-11-22T10:00:00Z".into(),
            ..MarkerData::default()
        };
        let line = since(&body(unhashed, "x"), "k", &changes);
        assert!(matches!(line.found, SinceFound::NotCompared(r) if r.contains("no hash")));
        assert_eq!(line.commit.as_deref(), Some("0123456789abcdef"));
        assert_eq!(line.time.as_deref(), Some("2026-11-22T10:00:00Z"));
        // A commit or time that is not one is left out, not shown.
        let odd = MarkerData {
            key: "k".into(),
            commit: Some("`@mention`".into()),
            time: "<b>now</b>".into(),
            ..MarkerData::default()
        };
        let line = since(&body(odd, "x"), "k", &changes);
        assert_eq!((line.commit, line.time), (None, None));
    }

    #[test]
    fn other_forms_and_markers_without_digests_are_one_sentence() {
        let changes = no_changes();
        let found = |fields: String| {
            let body = format!(
                "x\n{}{{\"key\":\"k\",\"time\":\"t\"{fields}}} \x2d\x2d>\n",
                crate::marker::PREFIX
            );
            since(&body, "k", &changes).found
        };
        let hashed = |sha: &str, form: u64| {
            format!(",\"changes_sha256\":\"{sha}\",\"changes_form\":{form},\"changes_count\":500")
        };
        let same = "a".repeat(64);
        assert!(matches!(
            found(hashed(&same, CANONICAL_VERSION + 1)),
            SinceFound::NotCompared(r) if r.contains("another form")
        ));
        // Too many changes to list each: the whole hash still says whether any moved.
        assert_eq!(
            found(hashed(&same, CANONICAL_VERSION)),
            SinceFound::Unchanged
        );
        assert!(matches!(
            found(hashed("b", CANONICAL_VERSION)),
            SinceFound::NotCompared(r) if r.contains("too many")
        ));
    }
}
