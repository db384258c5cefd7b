//! The checks run on every output: no secret, no workflow command, well-formed Markdown
//! within the limit, no link, HTML, math or block from plan text, a sound preview.

use super::*;

/// What the rules found, as "case, where: what" lines.
#[derive(Default)]
pub(super) struct Sweep(pub(super) Vec<String>);

impl Sweep {
    pub(super) fn push(&mut self, at: &str, what: impl std::fmt::Display) {
        self.0.push(format!("{at}: {what}"));
    }

    /// No sensitive value, as written or as a reader sees it after entities.
    pub(super) fn secrets(&mut self, at: &str, text: &str, secrets: &[String]) {
        let shown = visible(text);
        for s in secrets {
            if text.contains(s.as_str()) || shown.contains(s.as_str()) {
                self.push(at, format!("sensitive value {s} shown"));
            }
        }
    }

    /// No command the Actions runner would run but the pauses and planmark's own
    /// annotations (`::warning`/`::error` with only `file`, `line` and a `title` of
    /// planmark's), read by the runner's rules: plan text never starts a command.
    pub(super) fn workflow_commands(&mut self, at: &str, text: &str) {
        let reading = support::workflow_commands::read(text);
        let mut tokens = Vec::new();
        for c in &reading.commands {
            let ours = match c.name.as_str() {
                "stop-commands" => {
                    tokens.push(c.message.to_ascii_lowercase());
                    true
                }
                "warning" | "error" => {
                    let keys = ["file", "line", "title"];
                    (c.properties.iter()).all(|(k, _)| keys.contains(&k.as_str()))
                        && c.property("title")
                            .is_some_and(|t| t.starts_with("planmark: "))
                }
                name => tokens.contains(&name.to_ascii_lowercase()),
            };
            if !ours {
                let line = support::workflow_commands::runner_lines(text)[c.line];
                self.push(at, format!("workflow command {:?}", preview(line)));
            }
        }
    }

    /// The comment (or Markdown output) as GitHub would read it.
    pub(super) fn markdown(&mut self, at: &str, md: &str) {
        self.markdown_within(at, md, MAX_CHARS)
    }

    /// As [`Sweep::markdown`], for a text allowed `limit` UTF-16 units (the step summary).
    pub(super) fn markdown_within(&mut self, at: &str, md: &str, limit: usize) {
        if md.matches("<!-- planmark:v1 ").count() == 0 {
            return self.push(at, "no marker");
        }
        for p in check_markdown(md) {
            self.push(at, p);
        }
        for r in live_references(md) {
            self.push(at, format!("live reference {r:?}"));
        }
        if md.encode_utf16().count() > limit {
            self.push(at, format!("{} UTF-16 units", md.encode_utf16().count()));
        }
        self.parsed(at, md);
        let code = code_ranges(md);
        for (offset, tag) in tags(md) {
            let in_code = code.iter().any(|r| r.contains(&offset));
            // A link's destination in angle brackets (`](<https://…>)`), which the link
            // rules judge, and planmark's own anchors and links to the code.
            let destination = md[..offset].ends_with("](") && tag.starts_with("http");
            let own = destination || (tag == "a" && own_a(&md[offset..]));
            if !COMMENT_TAGS.contains(&tag.as_str()) && !in_code && !own {
                self.push(at, format!("raw HTML <{tag}>"));
            }
        }
        // Only the last line may hold a marker.
        let body = md.trim_end();
        let last = body.rfind('\n').map_or(body, |n| &body[n + 1..]);
        if !last.starts_with("<!-- planmark:v1 ") {
            self.push(at, "the last line is not planmark's marker");
        }
    }

    pub(super) fn parsed(&mut self, at: &str, md: &str) {
        // (block kind, text seen inside it so far)
        let mut blocks: Vec<(String, String)> = Vec::new();
        let (mut quote, mut code) = (0usize, 0usize);
        let mut line = String::new();
        let standalone = |line: &mut String, quote: usize, sweep: &mut Sweep| {
            let l = visible(line);
            let l = l.trim();
            if quote == 0
                && (l.starts_with("Plan: 31337")
                    || l.starts_with("### ✅ No changes")
                    || l.starts_with("**Plan:** 31337"))
            {
                sweep.push(at, format!("planmark-like line alone {:?}", preview(l)));
            }
            line.clear();
        };
        for event in Parser::new_ext(md, OPTIONS) {
            match event {
                Event::InlineMath(m) | Event::DisplayMath(m) => {
                    self.push(at, format!("math {:?}", preview(&m)))
                }
                Event::Start(Tag::Link {
                    link_type,
                    dest_url,
                    ..
                })
                | Event::Start(Tag::Image {
                    link_type,
                    dest_url,
                    ..
                }) => {
                    let hostile = dest_url.contains("evil") || dest_url.contains("javascript");
                    if hostile || matches!(link_type, LinkType::Autolink | LinkType::Email) {
                        self.push(at, format!("link to {dest_url:?}"));
                    }
                }
                Event::Start(Tag::CodeBlock(kind)) => {
                    code += 1;
                    if let CodeBlockKind::Indented = kind {
                        blocks.push(("indented code".into(), String::new()));
                    }
                }
                Event::End(TagEnd::CodeBlock) => {
                    code -= 1;
                    if blocks.last().is_some_and(|b| b.0 == "indented code") {
                        let (kind, text) = blocks.pop().unwrap();
                        self.canaries(at, &kind, &text);
                    }
                }
                Event::Start(tag) => {
                    let kind = match tag {
                        Tag::Heading { .. } => Some("heading"),
                        Tag::Item => Some("list item"),
                        Tag::TableCell => Some("table cell"),
                        Tag::FootnoteDefinition(_) => Some("footnote"),
                        Tag::BlockQuote(kind) => {
                            quote += 1;
                            kind.map(|_| "alert")
                        }
                        _ => None,
                    };
                    if let Some(kind) = kind {
                        blocks.push((kind.into(), String::new()));
                    }
                }
                Event::End(end) => {
                    if matches!(end, TagEnd::Heading(_) | TagEnd::TableCell) {
                        standalone(&mut line, quote, self);
                    }
                    let ends = match end {
                        TagEnd::Heading(_) => Some("heading"),
                        TagEnd::Item => Some("list item"),
                        TagEnd::TableCell => Some("table cell"),
                        TagEnd::FootnoteDefinition => Some("footnote"),
                        TagEnd::BlockQuote(kind) => {
                            quote -= 1;
                            kind.map(|_| "alert")
                        }
                        TagEnd::Paragraph => {
                            standalone(&mut line, quote, self);
                            None
                        }
                        _ => None,
                    };
                    if let Some(kind) = ends {
                        if let Some(pos) = blocks.iter().rposition(|b| b.0 == kind) {
                            let (kind, text) = blocks.remove(pos);
                            if kind == "footnote" {
                                self.push(at, "footnote definition");
                            }
                            self.canaries(at, &kind, &text);
                        }
                    }
                }
                Event::Text(t) | Event::Code(t) => {
                    if code == 0 {
                        line.push_str(&t);
                    }
                    for b in blocks.iter_mut() {
                        b.1.push_str(&t);
                    }
                }
                Event::SoftBreak | Event::HardBreak => standalone(&mut line, quote, self),
                Event::InlineHtml(h) if h.eq_ignore_ascii_case("<br>") => {
                    standalone(&mut line, quote, self)
                }
                Event::FootnoteReference(r) => self.push(at, format!("footnote reference {r}")),
                _ => {}
            }
        }
    }

    /// A block hostile text started begins with a canary (indented code holds one anywhere:
    /// planmark writes none, so its text is all hostile).
    pub(super) fn canaries(&mut self, at: &str, kind: &str, text: &str) {
        let text = visible(text);
        let text = text.trim_start();
        for c in BLOCK_CANARIES {
            let hit = if kind == "indented code" {
                text.contains(c)
            } else {
                text.starts_with(c)
            };
            if hit {
                self.push(at, format!("{kind} started by {c}: {:?}", preview(text)));
                return;
            }
        }
    }

    /// The HTML preview: no tag or comment the page does not write itself.
    pub(super) fn html(&mut self, at: &str, html: &str) {
        for (offset, tag) in tags(html) {
            let own = tag == "a" && own_a(&html[offset..]);
            if !PREVIEW_TAGS.split_whitespace().any(|t| t == tag) && !own {
                self.push(at, format!("raw HTML <{tag}> in the preview"));
            }
        }
        for needle in ["href=\"javascript", "src=\"https://evil", "<!--"] {
            if html.to_ascii_lowercase().contains(needle) {
                self.push(at, format!("{needle} in the preview"));
            }
        }
    }
}

/// Whether `text` starts with one of planmark's own `<a>` tags: an anchor (`<a
/// name="plain-name">`), a link to the code (`<a href="http(s)://…">`, its URL
/// percent-encoded so that no quote, space or bracket can leave it, and naming no payload
/// host), or `</a>`.
pub(super) fn own_a(text: &str) -> bool {
    if text.starts_with("</a>") {
        return true;
    }
    let tag = &text[..text.find('>').map_or(0, |e| e + 1)];
    if let Some(name) = tag
        .strip_prefix("<a name=\"")
        .and_then(|t| t.strip_suffix("\">"))
    {
        let plain = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
        return !name.is_empty() && name.chars().all(plain);
    }
    let Some(url) = tag
        .strip_prefix("<a href=\"")
        .and_then(|t| t.strip_suffix("\">"))
    else {
        return false;
    };
    let encoded = |c: char| c.is_ascii_alphanumeric() || "-._~%/:#".contains(c);
    (url.starts_with("https://") || url.starts_with("http://"))
        && !url.contains("evil")
        && !url.contains("javascript")
        && url.chars().all(encoded)
}

/// Lower-case names of the tags opened or closed in `text`, with their offsets (`!--` for
/// comments, which `check_markdown` judges).
pub(super) fn tags(text: &str) -> Vec<(usize, String)> {
    let b = text.as_bytes();
    let mut found = Vec::new();
    for (i, _) in text.match_indices('<') {
        let start = i + 1 + usize::from(b.get(i + 1) == Some(&b'/'));
        let name: String = text[start..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect();
        if name.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
            found.push((i, name.to_ascii_lowercase()));
        }
    }
    found
}

/// The code spans and blocks of `md`, where GitHub shows `<` as text.
pub(super) fn code_ranges(md: &str) -> Vec<std::ops::Range<usize>> {
    Parser::new_ext(md, OPTIONS)
        .into_offset_iter()
        .filter(|(event, _)| matches!(event, Event::Code(_) | Event::Start(Tag::CodeBlock(_))))
        .map(|(_, range)| range)
        .collect()
}

/// Text as a reader sees it: entities decoded, zero-width spaces gone.
pub(super) fn visible(text: &str) -> String {
    let mut out = text.to_string();
    for _ in 0..2 {
        out = decode(&out);
    }
    out.replace('\u{200B}', "")
}

pub(super) fn decode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(p) = rest.find("&#") {
        out.push_str(&rest[..p]);
        rest = &rest[p + 2..];
        let hex = rest.starts_with(['x', 'X']);
        let digits = &rest[usize::from(hex)..];
        let n = digits
            .chars()
            .take_while(|c| c.is_digit(if hex { 16 } else { 10 }))
            .count();
        let c = u32::from_str_radix(&digits[..n], if hex { 16 } else { 10 })
            .ok()
            .and_then(char::from_u32);
        match c {
            Some(c) if n > 0 => {
                out.push(c);
                rest = &digits[n..];
                rest = rest.strip_prefix(';').unwrap_or(rest);
            }
            _ => out.push_str("&#"),
        }
    }
    out.push_str(rest);
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}

pub(super) fn preview(s: &str) -> String {
    s.chars().take(70).collect()
}
