//! Comment marker, the format render and publish share: the hidden
//! `<!-- planmark:v1 {...} -->` line that lets the publisher find, order and compare its own
//! comments.
//!
//! Contract: the marker is the comment's **last line**, and only that line counts
//! ([`parse_marker`]): plan and log text shown as code can hold a perfect copy of a marker,
//! but the renderer always ends the body with its own (`end_with_marker`), so no value
//! can be the last line. The marker carries only our own fields, in JSON of printable
//! ASCII with `-`, `<` and `>` escaped too, so no value (a key, say) can end the HTML
//! comment early, open another, break the line or hide a bidi control in it. What the
//! reviewers saw is recorded as hashes only (`ChangeDigest`): plan text, addresses
//! included, never goes into the hidden line.

use serde::Serialize;

/// The marker's prefix; the publisher searches comments for it.
pub const PREFIX: &str = "<!-- planmark:v1 ";

/// How the line that opens a comment replacing an earlier one begins (what moved since
/// that one, which the built-in templates write first).
pub(crate) const SINCE: &str = "Since the last plan";

/// What the marker records.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MarkerData {
    /// The comment key: which of planmark's comments on the pull request this one is.
    pub key: String,
    /// Identity of the plan(s): SHA-256 of the plan file (several plans: of their
    /// `name=hash` lines).
    pub plan_sha256: String,
    /// The commit planned.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Workflow run id and attempt, when in GitHub Actions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_id: Option<u64>,
    /// The workflow run's attempt, which orders reruns of one run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub run_attempt: Option<u64>,
    /// Render time (RFC 3339, UTC).
    pub time: String,
    /// What `planmark verify` compares (none for a failed plan's comment).
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub changes: Option<MarkerChanges>,
}

/// The hashes of the changes reviewers approved, as the marker records them.
#[derive(Debug, Clone, Default, Serialize)]
pub struct MarkerChanges {
    /// SHA-256 (lowercase hex) of every change's canonical form.
    pub changes_sha256: String,
    /// How many changes that hash covers.
    pub(crate) changes_count: usize,
    /// The version of the canonical form hashed (`crate::differ::CANONICAL_VERSION`);
    /// markers without it hashed the changes as rendered, which `verify` no longer reads.
    pub(crate) changes_form: u64,
    /// Present (`true`) when the canonical forms took sensitivity from the provider
    /// schemas (a plan older than Terraform 0.15.2): `verify` needs them too.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) changes_schemas: Option<bool>,
    /// Each change's [`ChangeDigest`] ([`encode_digests`]), when there are at most
    /// [`max_digests`] of them, so that `verify` can name the ones that differ.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) changes: Option<String>,
}

/// Changes at most whose digests the marker lists in a comment of `max_chars`: 8
/// characters each, a twentieth of the limit at most (409 changes at GitHub's 65,536,
/// 12 at the smallest limit), so the marker leaves the room to what reviewers read.
pub(crate) fn max_digests(max_chars: usize) -> usize {
    max_chars / 20 / 8
}

/// One change as the marker records it: short hashes of its address and of its canonical
/// form, never the text itself. Three bytes each: enough to tell hundreds of changes
/// apart, and to name a differing change; the overall SHA-256 is what decides.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct ChangeDigest {
    /// The first bytes of the address's SHA-256.
    pub(crate) address: [u8; 3],
    /// The first bytes of the canonical form's SHA-256.
    pub(crate) change: [u8; 3],
}

const BASE64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The digests as the marker writes them: eight base64 characters each (no `-`, `<`
/// or `>`), one after the other.
pub(crate) fn encode_digests(digests: &[ChangeDigest]) -> String {
    let mut out = String::with_capacity(digests.len() * 8);
    for d in digests {
        for three in [d.address, d.change] {
            let n = u32::from_be_bytes([0, three[0], three[1], three[2]]);
            for shift in [18, 12, 6, 0] {
                out.push(char::from(BASE64[(n >> shift) as usize & 63]));
            }
        }
    }
    out
}

/// Reads back [`encode_digests`]; `None` for anything it did not write.
pub(crate) fn decode_digests(text: &str) -> Option<Vec<ChangeDigest>> {
    if !text.len().is_multiple_of(8) {
        return None;
    }
    let value = |c: u8| BASE64.iter().position(|&b| b == c).map(|v| v as u32);
    let three = |chunk: &[u8]| -> Option<[u8; 3]> {
        let n = chunk
            .iter()
            .try_fold(0u32, |n, &c| Some(n << 6 | value(c)?))?;
        let [_, a, b, c] = n.to_be_bytes();
        Some([a, b, c])
    };
    text.as_bytes()
        .chunks(8)
        .map(|chunk| {
            Some(ChangeDigest {
                address: three(&chunk[..4])?,
                change: three(&chunk[4..])?,
            })
        })
        .collect()
}

/// The marker line: one line of printable ASCII.
pub fn marker_line(data: &MarkerData) -> String {
    let json = serde_json::to_string(data).unwrap_or_else(|_| "{}".to_string());
    let mut safe = String::with_capacity(json.len() + 16);
    for c in json.chars() {
        match c {
            // Everything outside printable ASCII (line and paragraph separators, bidi
            // controls, DEL, any non-ASCII letter) is a `\u` escape too. serde_json writes
            // such characters only inside strings, where the escape decodes back to them.
            ' '..='~' if !matches!(c, '-' | '<' | '>') => safe.push(c),
            _ => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    safe.push_str(&format!("\\u{unit:04x}"));
                }
            }
        }
    }
    format!("{PREFIX}{safe} -->")
}

/// Reads back the marker planmark wrote: the body's last line (trailing whitespace, and
/// the `\r\n` GitHub may store, ignored), when the whole line is a marker whose JSON is
/// an object. A marker anywhere else in the body is a copy from plan or log text and is
/// never read.
pub fn parse_marker(body: &str) -> Option<serde_json::Value> {
    let last = body.trim_end().rsplit('\n').next()?;
    let json = last.strip_prefix(PREFIX)?.strip_suffix(" -->")?;
    // planmark escapes these; a line with them is not one it wrote.
    if json.contains("--") || json.contains(['<', '>']) {
        return None;
    }
    serde_json::from_str(json)
        .ok()
        .filter(serde_json::Value::is_object)
}

/// `markdown` ending with `marker` as its last line. Markdown that already does (the
/// built-in templates) is returned as it is; otherwise the marker is taken out wherever a
/// user template put it (a line that held only the marker goes too) and appended after a
/// blank line, also when the template left it out, so that no plan or log text is ever
/// the last line.
pub(crate) fn end_with_marker(markdown: String, marker: &str) -> String {
    let body = markdown.trim_end();
    if body.rsplit('\n').next() == Some(marker) {
        return markdown;
    }
    let kept: Vec<String> = body
        .lines()
        .filter(|l| l.trim_end() != marker)
        .map(|l| l.replace(marker, ""))
        .collect();
    let kept = kept.join("\n");
    match kept.trim_end() {
        "" => format!("{marker}\n"),
        kept => format!("{kept}\n\n{marker}\n"),
    }
}

/// The body without the marker planmark wrote (its last line), with `\n` line endings:
/// two bodies compare equal with it when only the marker, which changes every run,
/// differs. A copy of a marker anywhere else is content like any other.
pub(crate) fn without_marker(body: &str) -> String {
    let body = body.replace("\r\n", "\n");
    let trimmed = body.trim_end();
    match trimmed.rsplit_once('\n') {
        Some((rest, last)) if parse_marker(last).is_some() => rest.trim_end().to_string(),
        None if parse_marker(trimmed).is_some() => String::new(),
        _ => trimmed.to_string(),
    }
}

/// `body` without what it says about its predecessor: a first line that begins with
/// [`SINCE`], and the marks `· <i>WORDS since the last plan</i>` (or `_…_`) the built-in
/// templates put on the changes that moved. Two comments of the same changes compare
/// equal with it when only that differs (a re-run of one commit).
pub(crate) fn without_since(body: &str) -> String {
    let body = match body.split_once('\n') {
        Some((first, rest)) if first.starts_with(SINCE) => rest.trim_start_matches('\n'),
        None if body.starts_with(SINCE) => "",
        _ => body,
    };
    let mut out = String::with_capacity(body.len());
    for line in body.split_inclusive('\n') {
        out.push_str(&without_marks(line));
    }
    out
}

/// `line` without the marks of [`without_since`]: our words only (letters, digits,
/// spaces and commas) between the opening and the closing.
fn without_marks(line: &str) -> String {
    let mut line = line.to_string();
    for (open, close) in [
        (" · <i>", " since the last plan</i>"),
        (" · _", " since the last plan_"),
    ] {
        while let Some(end) = line.find(close) {
            let Some(start) = line[..end].rfind(open) else {
                break;
            };
            let words = &line[start + open.len()..end];
            if !words
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == ' ' || c == ',')
            {
                break;
            }
            line.replace_range(start..end + close.len(), "");
        }
    }
    line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_first_since_line_is_left_out() {
        assert_eq!(
            without_since("Since the last plan: x\n\n### a\n"),
            "### a\n"
        );
        assert_eq!(
            without_since("### a\nSince the last plan: x\n"),
            "### a\nSince the last plan: x\n"
        );
        assert_eq!(without_since("Since the last plan: x"), "");
        assert_eq!(
            without_since("<b>a</b> · <i>2 new, 1 changed since the last plan</i> — y\n- b · _new since the last plan_\n"),
            "<b>a</b> — y\n- b\n"
        );
        // Anything else stays.
        let other = "a · <i>`x` since the last plan</i>\n";
        assert_eq!(without_since(other), other);
    }

    #[test]
    fn marker_cannot_close_early() {
        let line = marker_line(&MarkerData {
            key: "a --> <!-- b".into(),
            time: "2026-11-22T10:00:00Z".into(),
            ..MarkerData::default()
        });
        let inner = &line[PREFIX.len()..line.len() - 4];
        assert!(!inner.contains("--") && !inner.contains('>') && !inner.contains('<'));
        let back = parse_marker(&format!("text\n{line}\n")).unwrap();
        assert_eq!(back["key"], "a --> <!-- b");
        assert_eq!(back["time"], "2026-11-22T10:00:00Z");
    }

    fn line(key: &str, run_id: Option<u64>) -> String {
        marker_line(&MarkerData {
            key: key.into(),
            run_id,
            time: "2026-11-22T10:00:00Z".into(),
            ..MarkerData::default()
        })
    }

    #[test]
    fn only_the_last_line_is_the_marker() {
        let (ours, copy) = (line("dev", Some(5)), line("prod", Some(u64::MAX)));
        let key = |body: &str| parse_marker(body).map(|m| m["key"].clone());
        // A copy before ours (in a code block, say) is never read.
        let body = format!("```\n{copy}\n```\n{ours}\n");
        assert_eq!(key(&body), Some("dev".into()));
        // Trailing whitespace and the `\r\n` line ends GitHub may store are ignored.
        assert_eq!(key(&format!("x\r\n{ours}\r\n \n\t")), Some("dev".into()));
        // A body whose last line is not a marker has none, whatever it holds before.
        assert_eq!(key(&format!("{ours}\nplan text\n")), None);
        assert_eq!(key(&format!("text\n {ours}\n")), None);
        assert_eq!(key(&format!("text\n{ours} x\n")), None);
        // Half a marker or JSON that is not an object is no marker.
        assert_eq!(key("x\n<!-- planmark:v1 {\"key\":\"dev\" -->"), None);
        assert_eq!(key("x\n<!-- planmark:v1 [1] -->"), None);
        assert_eq!(key("x\n<!-- planmark:v1 {\"key\":\"a-->\"} -->"), None);
        assert_eq!(key(&ours), Some("dev".into()));
    }

    #[test]
    fn the_marker_always_ends_the_body() {
        let marker = line("k", None);
        let ends = |md: &str| {
            let out = end_with_marker(md.to_string(), &marker);
            assert_eq!(out.matches(&marker).count(), 1, "{out}");
            assert_eq!(out.trim_end().rsplit('\n').next(), Some(marker.as_str()));
            out
        };
        // Already last (the built-in templates): unchanged, byte for byte.
        let built_in = format!("a\n<sub>x</sub>\n{marker}\n");
        assert_eq!(ends(&built_in), built_in);
        // Put first, in the middle or left out by a template: moved to the end.
        assert_eq!(
            ends(&format!("{marker}\nvalue\n")),
            format!("value\n\n{marker}\n")
        );
        assert_eq!(
            ends(&format!("a\n{marker}\r\nb")),
            format!("a\nb\n\n{marker}\n")
        );
        assert_eq!(ends("only text"), format!("only text\n\n{marker}\n"));
        assert_eq!(
            ends(&format!("_footer_ {marker}\nx")),
            format!("_footer_ \nx\n\n{marker}\n")
        );
        assert_eq!(ends("\n\n"), format!("{marker}\n"));
    }

    #[test]
    fn names_cannot_break_or_forge_the_marker() {
        let names = [
            "a\n<!-- planmark:v1 {\"key\":\"prod\"} -->",
            "cr\rlf\r\nnel\u{85}ls\u{2028}ps\u{2029}",
            "bidi \u{202E}dorp\u{202C} \u{2066}x\u{2069} \u{200B}\u{FEFF}",
            "ctrl \u{0}\u{1b}[31m\u{7f}",
            "a --> <!-- b -- > <",
            "emoji 🚀 and é",
            "::add-mask::x",
        ];
        for name in names {
            let marker = line(name, Some(1));
            assert!(marker.chars().all(|c| (' '..='~').contains(&c)), "{marker}");
            let inner = &marker[PREFIX.len()..marker.len() - " -->".len()];
            assert!(!inner.contains(['-', '<', '>']), "{marker}");
            let back = parse_marker(&format!("text\n{marker}\n")).expect(name);
            assert_eq!(back["key"], name);
        }
    }

    #[test]
    fn digests_take_a_twentieth_of_the_limit_at_most() {
        assert_eq!(max_digests(65_536), 409);
        assert_eq!(max_digests(2_000), 12);
        for max_chars in [2_000, 5_000, 65_536] {
            let digests = vec![ChangeDigest::default(); max_digests(max_chars)];
            assert!(encode_digests(&digests).len() * 20 <= max_chars);
        }
    }

    #[test]
    fn digests_read_back_and_stay_in_the_marker_alphabet() {
        let digests: Vec<ChangeDigest> = (0..=255u8)
            .map(|b| ChangeDigest {
                address: [b, 255 - b, b / 3],
                change: [b ^ 0x5a, 0, 255],
            })
            .collect();
        let text = encode_digests(&digests);
        assert_eq!(text.len(), digests.len() * 8);
        assert!(!text.contains(['-', '<', '>']));
        assert_eq!(decode_digests(&text), Some(digests));
        assert_eq!(decode_digests("abc"), None);
        assert_eq!(decode_digests("abcdefg-"), None);
        let line = marker_line(&MarkerData {
            key: "k".into(),
            changes: Some(MarkerChanges {
                changes: Some(text.clone()),
                ..MarkerChanges::default()
            }),
            ..MarkerData::default()
        });
        let back = parse_marker(&line).unwrap();
        assert_eq!(back["changes"].as_str(), Some(text.as_str()));
    }

    #[test]
    fn comparing_bodies_drops_only_our_marker() {
        let (a, b) = (line("k", Some(1)), line("k", Some(2)));
        assert_eq!(
            without_marker(&format!("x\n{a}\n")),
            without_marker(&format!("x\r\n{b}"))
        );
        // A copy elsewhere is content: bodies that differ there differ.
        assert_ne!(
            without_marker(&format!("{a}\ny\n{b}\n")),
            without_marker(&format!("{b}\ny\n{b}\n"))
        );
        assert_eq!(without_marker("no marker\n"), "no marker");
    }
}
