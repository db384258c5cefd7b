//! Pipeline stage, verify: the names a reviewed comment shows, which name the reviewed
//! changes that are gone (the marker holds only their hashes).
//!
//! Contract: [`shown`] gives every string the comment shows as code — Markdown code spans,
//! `<code>` elements (their character references decoded) and the addresses heading each
//! change in a diff's code block — as candidates only: a name is used only when its hash
//! is one the marker records, so nothing the comment says can name a change wrongly.

use std::collections::BTreeSet;

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

/// At most this many candidates are read from one comment (a comment is at most 65,536
/// characters, so this is never reached by one planmark wrote).
const MOST: usize = 20_000;

/// The strings `body` shows as code, each once.
pub(super) fn shown(body: &str) -> Vec<String> {
    let mut found = BTreeSet::new();
    let mut html = String::new();
    let mut in_code_block = false;
    for event in Parser::new(body) {
        match event {
            Event::Code(text) => {
                found.insert(text.to_string());
            }
            Event::Html(text) | Event::InlineHtml(text) => html.push_str(&text),
            Event::Start(Tag::CodeBlock(_)) => in_code_block = true,
            Event::End(TagEnd::CodeBlock) => in_code_block = false,
            Event::Text(text) if in_code_block => {
                for line in text.lines() {
                    diff_heading(line, &mut found);
                }
            }
            _ => {}
        }
        if found.len() >= MOST {
            break;
        }
    }
    code_elements(&html, &mut found);
    found.into_iter().take(MOST).collect()
}

/// Whether `name` could be a plan's name (which labels its changes when a comment has
/// several plans): short, and not an address.
pub(super) fn may_be_plan_name(name: &str) -> bool {
    name.len() <= 200 && !name.contains('.')
}

/// A diff's heading line (`  # ADDRESS will be destroyed`): each prefix of what follows
/// `# ` that ends before a space, as the address may hold spaces itself.
fn diff_heading(line: &str, found: &mut BTreeSet<String>) {
    let Some(rest) = line.trim_start().strip_prefix("# ") else {
        return;
    };
    for (at, _) in rest.match_indices(' ').take(12) {
        found.insert(rest[..at].to_string());
    }
}

/// The text of each `<code>…</code>` in `html`, character references decoded.
fn code_elements(html: &str, found: &mut BTreeSet<String>) {
    let mut rest = html;
    while let Some(start) = rest.find("<code>") {
        rest = &rest[start + "<code>".len()..];
        let Some(end) = rest.find("</code>") else {
            break;
        };
        found.insert(decode_references(&rest[..end]));
        rest = &rest[end..];
    }
}

/// `text` with HTML character references (`&amp;`, `&#35;`, `&#x5F;`) decoded; anything
/// else is left as it is.
fn decode_references(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let decoded = rest.find(';').filter(|&end| end <= 10).and_then(|end| {
            let name = &rest[1..end];
            let c = match name {
                "amp" => Some('&'),
                "lt" => Some('<'),
                "gt" => Some('>'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                _ => {
                    let number = name.strip_prefix('#')?;
                    let code = match number.strip_prefix(['x', 'X']) {
                        Some(hex) => u32::from_str_radix(hex, 16).ok()?,
                        None => number.parse().ok()?,
                    };
                    char::from_u32(code)
                }
            }?;
            Some((c, end))
        });
        match decoded {
            Some((c, end)) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_code_elements_and_diff_headings() {
        let body = "### `prod` — Plan\n\n\
            <details><summary>🔴 <b>destroy</b> <code>aws_x.y[&quot;a&#35;b&quot;]</code></summary>\n\n\
            ```diff\n  # null_resource.db[\"k v\"] will be destroyed\n- resource \"x\" {}\n```\n\n\
            </details>\n\n- `module.m.aws_s3_bucket.logs`\n";
        let shown = shown(body);
        for want in [
            "prod",
            "aws_x.y[\"a#b\"]",
            "null_resource.db[\"k",
            "null_resource.db[\"k v\"]",
            "module.m.aws_s3_bucket.logs",
        ] {
            assert!(shown.iter().any(|s| s == want), "{want} not in {shown:?}");
        }
    }

    #[test]
    fn broken_references_stay_as_written() {
        assert_eq!(
            decode_references("a&b &#xZZ; &#65;&amp"),
            "a&b &#xZZ; A&amp"
        );
    }
}
