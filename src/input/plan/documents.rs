//! Plan model: a file holding several `terraform show -json` documents, one per line, as
//! Terragrunt's `run-all show -json` (`show --all -json`) writes one per module.
//!
//! Contract: [`split`] finds each line that carries a JSON document: an object starting
//! `{"` that runs to the end of the line, perhaps after a label such as Terragrunt's
//! `[live/prod/vpc] ` module prefix (its prefixed writer puts `[` + the module's path +
//! `] ` before every line, whatever the path holds). The label is any text before the
//! document: empty, without JSON punctuation, or holding a `[…]`; the document starts at
//! the first `{"` from which the rest of the line is one JSON value, so a label may hold
//! quotes, braces, commas or brackets. A `plan -json` log line (`{"@level"…`) is not a
//! document, and other lines (Terragrunt's own log lines when stderr was captured too)
//! are skipped; a line that is labelled like a document but holds no whole one
//! (truncated, or broken), or unlabelled and ending in `}`, is still a document, which
//! its parse then names as unreadable: no plan vanishes. It answers only for a file that
//! is not one document, so a single plan is read exactly as before; it is called only
//! once reading the file as one document has failed.

use std::borrow::Cow;

/// One document of a file holding several.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Document<'a> {
    /// The document's bytes (its line, without the label).
    pub(crate) bytes: &'a [u8],
    /// The module directory the line was labelled with (`[dir] {...}`), if any: all the
    /// text from the label's first `[` to its last `]`.
    pub(crate) label: Option<Cow<'a, str>>,
}

/// How every document starts: an object's first key.
const START: &[u8] = br#"{""#;

/// How many places a line's document may start at are tried: a label rarely holds `{"`
/// at all, and each try may read the rest of the line. A line with more is kept as a
/// document at its first place, which then cannot be read and is named.
const MAX_STARTS: usize = 32;

/// The documents of `bytes`, or `None` unless it is a stream of them: two or more, or one
/// among other lines or after a label (a stack of one module).
pub(crate) fn split(bytes: &[u8]) -> Option<Vec<Document<'_>>> {
    if super::is_wrapper_output(bytes) {
        return None;
    }
    let (mut documents, mut other_lines, mut labelled) = (Vec::new(), false, false);
    for line in bytes.split(|&b| b == b'\n') {
        let line = line.trim_ascii();
        if line.is_empty() {
            continue;
        }
        match document(line) {
            Some(document) => {
                labelled |= document.label.is_some();
                documents.push(document);
            }
            None => other_lines = true,
        }
    }
    let several = documents.len() > 1 || other_lines || labelled;
    (!documents.is_empty() && several).then_some(documents)
}

/// The document `line` carries, if it carries one.
fn document(line: &[u8]) -> Option<Document<'_>> {
    let at = start(line)?;
    // A `plan -json` log line, not a plan.
    if line.get(at + 2) == Some(&b'@') {
        return None;
    }
    Some(Document {
        bytes: &line[at..],
        label: label(&line[..at]),
    })
}

/// Where the document of `line` starts: the first `{"` after a label from which the rest
/// of the line is one JSON value, else (a broken document) the first `{"` after a label,
/// when the line is labelled `[…]` or ends as an object does (an unlabelled line that
/// does not may be the first line of one pretty-printed document).
fn start(line: &[u8]) -> Option<usize> {
    let mut first = None;
    let starts = memchr::memmem::find_iter(line, START).filter(|&at| is_label(&line[..at]));
    for (n, at) in starts.enumerate() {
        first.get_or_insert(at);
        if n == MAX_STARTS {
            break;
        }
        if serde_json::from_slice::<serde::de::IgnoredAny>(&line[at..]).is_ok() {
            return Some(at);
        }
    }
    first.filter(|&at| bracketed(&line[..at]).is_some() || line.ends_with(b"}"))
}

/// Whether `prefix` (what comes before a document on its line) can be a label: nothing,
/// text without JSON punctuation (`terraform: `), or text holding a `[…]` (Terragrunt's
/// module prefix, whose path may hold anything). A member of pretty-printed JSON
/// (`"tags": {"a": "b"}`) is none of them.
fn is_label(prefix: &[u8]) -> bool {
    let plain = !prefix
        .iter()
        .any(|b| matches!(b, b'{' | b'}' | b'"' | b','));
    plain || bracketed(prefix).is_some()
}

/// The text from the first `[` of `prefix` to its last `]`, if it has both in that order.
fn bracketed(prefix: &[u8]) -> Option<&[u8]> {
    let open = memchr::memchr(b'[', prefix)?;
    let close = memchr::memrchr(b']', prefix)?;
    (close > open).then(|| &prefix[open + 1..close])
}

/// The module directory of a label: all the text in its outermost `[...]`, kept whole
/// (a directory name may hold `]`, quotes, commas), unless it is blank.
fn label(prefix: &[u8]) -> Option<Cow<'_, str>> {
    let dir = bracketed(prefix)?;
    let dir = String::from_utf8_lossy(dir);
    (!dir.trim().is_empty()).then_some(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_document_per_line_with_or_without_labels_and_logs() {
        let text = b"time=x level=info msg=running in live/a\n\
            [live/a] {\"format_version\":\"1.2\",\"planned_values\":{}}\n\
            \n{\"format_version\":\"1.2\",\"errored\":false}\n";
        let documents = split(text).unwrap();
        assert_eq!(documents.len(), 2);
        assert_eq!(documents[0].label.as_deref(), Some("live/a"));
        assert!(documents[0].bytes.starts_with(START));
        assert!(documents[0].bytes.ends_with(b"{}}"));
        assert_eq!(documents[1].label, None);
    }

    #[test]
    fn a_label_may_hold_json_punctuation_and_brackets() {
        let doc = r#"{"format_version":"1.2","planned_values":{}}"#;
        for dir in [
            r#"live/prod,"db""#,
            "live/a]b",
            "x] {\"y",
            "{\"format_version\":\"1.2\"}",
            "[[a]]",
            "é ] [ ,{}",
        ] {
            let text = format!("[live/a] {doc}\n[{dir}] {doc}\n");
            let documents = split(text.as_bytes()).expect(dir);
            assert_eq!(documents.len(), 2, "{dir}");
            assert_eq!(documents[1].label.as_deref(), Some(dir));
            assert_eq!(documents[1].bytes, doc.as_bytes(), "{dir}");
        }
        // Terragrunt's newer log format, the label inside the line.
        let text = format!("12:00:00.000 STDOUT [a]\"b] terraform: {doc}\n[c] {doc}\n");
        let documents = split(text.as_bytes()).unwrap();
        assert_eq!(documents[0].label.as_deref(), Some("a]\"b"));
    }

    #[test]
    fn a_labelled_line_without_a_whole_document_is_still_one() {
        let doc = r#"{"format_version":"1.2","planned_values":{}}"#;
        for broken in [
            r#"[live/db] {"format_version":"1.2","planned_val"#,
            r#"[live/"db"] {"format_version":"1.2",}"#,
        ] {
            let text = format!("[live/a] {doc}\n{broken}\n");
            let documents = split(text.as_bytes()).expect(broken);
            assert_eq!(documents.len(), 2, "{broken}");
            assert!(documents[1].bytes.starts_with(b"{\"format_version\""));
        }
        // A stack of one module.
        let one = format!("[live/a] {doc}\n");
        let documents = split(one.as_bytes()).unwrap();
        assert_eq!(documents[0].label.as_deref(), Some("live/a"));
        // Log lines and pretty-printed members are not documents.
        let text = format!(
            "[live/a] {doc}\n[live/b] {{\"@level\":\"info\"}}\n  \"tags\": {{\"a\": \"b\"}}\n"
        );
        assert_eq!(split(text.as_bytes()).unwrap().len(), 1);
    }

    #[test]
    fn a_single_document_is_not_split() {
        for single in [
            &b"{\"format_version\":\"1.2\"} trailing"[..],
            b"{\"format_version\":\"1.2\",\n \"planned_values\":{}}",
            b"{\n  \"format_version\": \"1.2\"\n}\n",
            b"{\"format_version\":\"1.2\"}\n",
            b"{\n  \"format_version\": \"1.2\",\n  \"tags\": {\"a\": \"b\"}\n}\n",
            b"[command]/x/terraform-bin show -json\n{\"format_version\":\"1.2\"}\n::debug::exitcode: 0\n",
        ] {
            assert_eq!(split(single), None, "{}", String::from_utf8_lossy(single));
        }
    }
}
