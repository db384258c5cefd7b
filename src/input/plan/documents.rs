//! Plan model: a file holding several `terraform show -json` documents, one per line, as
//! Terragrunt's `run-all show -json` (`show --all -json`) writes one per module.
//!
//! Contract: [`split`] finds each line that holds a JSON document (a line whose object
//! starts `{"`, not a `plan -json` log line `{"@level"…`, perhaps after a label such as
//! Terragrunt's `[live/prod/vpc] ` module prefix); other lines (Terragrunt's own log
//! lines when stderr was captured too) are skipped. It answers only for a file that is
//! not one document, so a single plan is read exactly as before; it is called only once
//! reading the file as one document has failed.

/// One document of a file holding several.
#[derive(Debug, PartialEq, Eq)]
pub struct Document<'a> {
    /// The document's bytes (its line, without the label).
    pub bytes: &'a [u8],
    /// The module directory the line was labelled with (`[dir] {...}`), if any.
    pub label: Option<&'a str>,
}

/// How every document starts: an object's first key.
const START: &[u8] = br#"{""#;

/// The documents of `bytes`, or `None` unless it is a stream of several (two or more, or
/// one among other lines).
pub fn split(bytes: &[u8]) -> Option<Vec<Document<'_>>> {
    if super::is_wrapper_output(bytes) {
        return None;
    }
    let (mut documents, mut other_lines) = (Vec::new(), false);
    for line in bytes.split(|&b| b == b'\n') {
        let line = line.trim_ascii();
        if line.is_empty() {
            continue;
        }
        match memchr::memmem::find(line, START) {
            // A whole object on its line: `{"`, not a log line's `{"@`, to `}`.
            Some(at)
                if is_label(&line[..at])
                    && line.get(at + 2) != Some(&b'@')
                    && line.ends_with(b"}") =>
            {
                documents.push(Document {
                    bytes: &line[at..],
                    label: label(&line[..at]),
                })
            }
            _ => other_lines = true,
        }
    }
    (documents.len() > 1 || (documents.len() == 1 && other_lines)).then_some(documents)
}

/// Whether `prefix` (what comes before a document on its line) is a label, not JSON.
fn is_label(prefix: &[u8]) -> bool {
    !prefix
        .iter()
        .any(|b| matches!(b, b'{' | b'}' | b'"' | b','))
}

/// The module directory of a label: the text in its last `[...]`.
fn label(prefix: &[u8]) -> Option<&str> {
    let prefix = std::str::from_utf8(prefix).ok()?;
    let open = prefix.rfind('[')?;
    let close = open + prefix[open..].find(']')?;
    Some(prefix[open + 1..close].trim()).filter(|dir| !dir.is_empty())
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
        assert_eq!(documents[0].label, Some("live/a"));
        assert!(documents[0].bytes.starts_with(START));
        assert!(documents[0].bytes.ends_with(b"{}}"));
        assert_eq!(documents[1].label, None);
    }

    #[test]
    fn a_single_document_is_not_split() {
        for single in [
            &b"{\"format_version\":\"1.2\"} trailing"[..],
            b"{\"format_version\":\"1.2\",\n \"planned_values\":{}}",
            b"{\n  \"format_version\": \"1.2\"\n}\n",
            b"{\"format_version\":\"1.2\"}\n",
            b"[command]/x/terraform-bin show -json\n{\"format_version\":\"1.2\"}\n::debug::exitcode: 0\n",
        ] {
            assert_eq!(split(single), None, "{}", String::from_utf8_lossy(single));
        }
    }
}
