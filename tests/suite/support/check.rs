//! Test support, Markdown checks: [`check_markdown`] parses a generated comment as GitHub
//! does (CommonMark + GFM, through pulldown-cmark) and lists what would break its layout:
//! unclosed code fences, unbalanced `<details>`/`<summary>`, table rows wider than their
//! header, HTML comments other than the single `<!-- planmark:v1 {json} -->` marker on the
//! last line, and raw HTML tags GitHub strips. An empty list means well-formed.
//! [`live_references`] lists text GitHub would turn into a mention, issue or commit link, or
//! autolink. Both are pure and never panic.
//! The GitHub tag allowlist and entity decoding come from the library's `src/render/gfm.rs`,
//! compiled in here as it is (the HTML preview follows the same rules), so that the library
//! exports nothing only for tests. A cargo-fuzz build of `fuzz/targets.rs` includes this file
//! the same way.

use std::fmt;
use std::ops::Range;

use pulldown_cmark::{CodeBlockKind, Event, Parser, Tag, TagEnd};

// The preview's attribute parser is not needed here.
#[allow(dead_code)]
#[path = "../../../src/render/gfm.rs"]
mod gfm;

pub(crate) use gfm::decode_entities;
use gfm::{allowed_tag, html_tokens, HtmlTag, Token, OPTIONS};

/// One problem found in generated Markdown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// 1-based line in the checked Markdown.
    pub line: usize,
    pub message: String,
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

/// Lists the structural problems of `markdown`, ordered by line; empty means well-formed.
pub fn check_markdown(markdown: &str) -> Vec<Problem> {
    let lines = LineIndex::new(markdown);
    let mut c = Checker {
        lines: &lines,
        src: markdown,
        problems: Vec::new(),
        open: Vec::new(),
        markers: 0,
    };
    // (range of the fenced block, end of its last content line)
    let mut fence: Option<(Range<usize>, Option<usize>)> = None;
    let (mut in_head, mut header_cells) = (false, 0);
    for (event, range) in Parser::new_ext(markdown, OPTIONS).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(CodeBlockKind::Fenced(_))) => fence = Some((range, None)),
            Event::Text(_) => {
                if let Some((_, last)) = fence.as_mut() {
                    *last = Some(range.end);
                }
            }
            Event::End(TagEnd::CodeBlock) => {
                if let Some((block, last)) = fence.take() {
                    c.check_fence(block, last);
                }
            }
            Event::Start(Tag::TableHead) => (in_head, header_cells) = (true, 0),
            Event::Start(Tag::TableCell) if in_head => header_cells += 1,
            Event::End(TagEnd::TableHead) => in_head = false,
            // pulldown-cmark silently drops cells beyond the header's, so count them in the source.
            Event::Start(Tag::TableRow) => {
                let cells = count_cells(&markdown[range.clone()]);
                if cells > header_cells {
                    let message = format!("table row has {cells} cells, header has {header_cells}");
                    c.report(range.start, message);
                }
            }
            // An HTML block runs to the next blank line, swallowing any Markdown on the way.
            Event::Html(html)
                if ["```", "~~~"]
                    .iter()
                    .any(|f| html.trim_start().starts_with(f)) =>
            {
                let message = "code fence inside an HTML block (blank line missing before it?)";
                c.report(range.start, message.into());
            }
            Event::Html(html) | Event::InlineHtml(html) => c.check_html(&html, range.start),
            _ => {}
        }
    }
    for (name, line) in std::mem::take(&mut c.open) {
        c.problems.push(Problem {
            line,
            message: format!("unclosed <{name}>"),
        });
    }
    c.problems.sort_by_key(|p| p.line);
    c.problems
}

struct Checker<'a> {
    lines: &'a LineIndex,
    src: &'a str,
    problems: Vec<Problem>,
    /// Open `<details>`/`<summary>` tags with the line they were opened on.
    open: Vec<(&'static str, usize)>,
    markers: usize,
}

impl Checker<'_> {
    fn report(&mut self, offset: usize, message: String) {
        let line = self.lines.line(offset);
        self.problems.push(Problem { line, message });
    }

    /// pulldown-cmark runs an unclosed fence to the end of its container without saying so.
    /// Text events never include the closing fence, so the block is closed exactly when what
    /// follows its last content line (minus container prefixes) is a long-enough fence run.
    fn check_fence(&mut self, block: Range<usize>, last_text_end: Option<usize>) {
        let slice = &self.src[block.clone()];
        let opening = slice.lines().next().unwrap_or("").trim_start();
        let ch = opening.chars().next().unwrap_or('`');
        let len = opening.chars().take_while(|&c| c == ch).count();
        let content_end = last_text_end
            .unwrap_or_else(|| slice.find('\n').map_or(block.end, |n| block.start + n + 1));
        let tail = self.src[content_end.min(block.end)..block.end]
            .trim_matches(|c: char| c.is_whitespace() || c == '>');
        let closed = tail.chars().count() >= len && tail.chars().all(|c| c == ch);
        if !closed {
            let line = self.lines.line(block.start);
            self.report(
                block.start,
                format!("unclosed code fence opened on line {line}"),
            );
        }
    }

    fn check_html(&mut self, html: &str, start: usize) {
        for (offset, token) in html_tokens(html) {
            let at = start + offset.min(html.len());
            match token {
                Token::Comment(comment) => self.check_comment(comment, at),
                Token::Decl(decl) => {
                    self.report(at, format!("disallowed HTML `{}`", preview(decl)))
                }
                Token::Tag(tag) => self.check_tag(&tag, at),
                Token::Text(_) => {}
            }
        }
    }

    fn check_comment(&mut self, comment: &str, at: usize) {
        let Some(json) = comment
            .strip_prefix("<!-- planmark:v1 ")
            .and_then(|c| c.strip_suffix(" -->"))
        else {
            return self.report(at, "HTML comment outside the planmark marker".into());
        };
        self.markers += 1;
        let line = self.lines.line(at);
        let own_line = self
            .src
            .lines()
            .nth(line - 1)
            .is_some_and(|l| l.trim() == comment);
        // `--` or `>` could end the comment early in some parsers and leak the JSON.
        let parses = serde_json::from_str::<serde_json::Value>(json).is_ok_and(|v| v.is_object());
        if self.markers > 1 {
            self.report(at, "more than one planmark marker".into());
        } else if !own_line {
            self.report(
                at,
                "the planmark marker must be on a line of its own".into(),
            );
        } else if !self.src[at..].lines().skip(1).all(|l| l.trim().is_empty()) {
            // Only the last line counts as the marker (see `marker::parse_marker`).
            self.report(
                at,
                "the planmark marker must be the comment's last line".into(),
            );
        } else if json.contains("--") || json.contains('>') || !parses {
            self.report(
                at,
                "malformed planmark marker: its JSON must be an object without `--` or `>`".into(),
            );
        }
    }

    fn check_tag(&mut self, tag: &HtmlTag<'_>, at: usize) {
        let slash = if tag.closing { "/" } else { "" };
        if !allowed_tag(&tag.name) {
            return self.report(at, format!("disallowed HTML tag <{slash}{}>", tag.name));
        }
        let line = self.lines.line(at);
        let top = self.open.last().copied();
        match (tag.name.as_str(), tag.closing) {
            ("details", false) => self.open.push(("details", line)),
            ("summary", false) => {
                if top.map(|t| t.0) != Some("details") {
                    self.report(at, "<summary> outside <details>".into());
                }
                self.open.push(("summary", line));
            }
            ("summary", true) => match top {
                Some(("summary", opened)) => {
                    self.open.pop();
                    if opened != line {
                        self.report(
                            at,
                            format!(
                                "<summary> opened on line {opened} must close on the same line"
                            ),
                        );
                    }
                }
                _ => self.report(at, "stray </summary>".into()),
            },
            ("details", true) => match top {
                Some(("details", _)) => drop(self.open.pop()),
                Some(("summary", opened)) => {
                    self.report(at, format!("</details> before </summary> of line {opened}"));
                    self.open.pop();
                    if self.open.last().is_some_and(|t| t.0 == "details") {
                        self.open.pop();
                    }
                }
                _ => self.report(at, "stray </details>".into()),
            },
            _ => {}
        }
    }
}

/// Counts the cells of a table row the way GFM splits them: on every pipe not escaped with
/// `\`, even inside code spans, ignoring one leading and one trailing pipe.
fn count_cells(row: &str) -> usize {
    let b = row.trim_end_matches(['\n', '\r']).as_bytes();
    let (mut i, mut cells) = (0, 0);
    loop {
        if b.get(i) == Some(&b'|') {
            i += 1;
        }
        while matches!(b.get(i), Some(b' ' | b'\t')) {
            i += 1;
        }
        if i >= b.len() {
            return cells;
        }
        cells += 1;
        while i < b.len() && b[i] != b'|' {
            i += if b[i] == b'\\' && b.get(i + 1) == Some(&b'|') {
                2
            } else {
                1
            };
        }
    }
}

fn preview(s: &str) -> String {
    s.chars().take(30).collect()
}

/// Text that GitHub would turn into a mention, issue/PR link, commit link or autolink
/// outside code: returns the offending snippets.
pub fn live_references(markdown: &str) -> Vec<String> {
    let mut found = Vec::new();
    let (mut in_code_block, mut html_code) = (false, 0usize);
    // pulldown-cmark splits text at entities and escapes, so scan merged runs of Text.
    let mut text = String::new();
    for event in Parser::new_ext(markdown, OPTIONS) {
        if let Event::Text(t) = &event {
            if !in_code_block && html_code == 0 {
                text.push_str(t);
            }
            continue;
        }
        scan_references(&std::mem::take(&mut text), &mut found);
        match event {
            Event::Start(Tag::CodeBlock(_)) => in_code_block = true,
            Event::End(TagEnd::CodeBlock) => in_code_block = false,
            Event::Html(html) | Event::InlineHtml(html) => {
                for (_, token) in html_tokens(&html) {
                    match token {
                        // GitHub links nothing inside <code> or <pre>.
                        Token::Tag(tag) if tag.name == "code" || tag.name == "pre" => {
                            html_code = if tag.closing {
                                html_code.saturating_sub(1)
                            } else {
                                html_code + 1
                            };
                        }
                        Token::Text(t) if html_code == 0 => {
                            scan_references(&decode_entities(t), &mut found)
                        }
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    scan_references(&text, &mut found);
    found
}

fn scan_references(text: &str, found: &mut Vec<String>) {
    let chars: Vec<char> = text.chars().collect();
    let at = |i: usize| chars.get(i).copied().unwrap_or(' ');
    let starts = |i: usize, pat: &str| {
        pat.chars()
            .enumerate()
            .all(|(k, p)| at(i + k).eq_ignore_ascii_case(&p))
    };
    for i in 0..chars.len() {
        let prev = if i == 0 { ' ' } else { chars[i - 1] };
        let start = match chars[i] {
            // A zero-width character after `@` breaks the mention: that is how the escaper works.
            '@' if at(i + 1).is_ascii_alphanumeric() => Some(i),
            '#' if at(i + 1).is_ascii_digit() && !(prev.is_alphanumeric() || prev == '&') => {
                Some(i)
            }
            // `owner/repo#1` links to another repository's issue.
            '#' if at(i + 1).is_ascii_digit() => repo_before(&chars[..i]),
            'g' | 'G'
                if starts(i, "gh-") && at(i + 3).is_ascii_digit() && !prev.is_alphanumeric() =>
            {
                Some(i)
            }
            ':' if starts(i, "://") => Some(
                (0..i)
                    .rev()
                    .take_while(|&k| chars[k].is_ascii_alphanumeric())
                    .last()
                    .unwrap_or(i),
            ),
            'w' | 'W'
                if starts(i, "www.") && !(prev.is_alphanumeric() || prev == '/' || prev == '.') =>
            {
                Some(i)
            }
            // A commit SHA: 7 to 40 hex digits, in any case, on their own.
            c if c.is_ascii_hexdigit() && !prev.is_ascii_alphanumeric() => {
                let run = chars[i..]
                    .iter()
                    .take_while(|c| c.is_ascii_hexdigit())
                    .count();
                let after = at(i + run);
                ((7..=40).contains(&run) && !after.is_ascii_alphanumeric()).then_some(i)
            }
            _ => None,
        };
        if let Some(s) = start {
            let snippet = chars[s..]
                .iter()
                .take_while(|c| !c.is_whitespace())
                .take(40)
                .collect();
            found.push(snippet);
        }
    }
}

/// Where `owner/repo` starts when `before` ends with one (GitHub's names: letters, digits,
/// `-`, `_` and `.`).
fn repo_before(before: &[char]) -> Option<usize> {
    let name = |c: &char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
    let repo = before.iter().rev().take_while(|c| name(c)).count();
    let slash = before.len().checked_sub(repo + 1)?;
    if repo == 0 || before[slash] != '/' {
        return None;
    }
    let owner = before[..slash].iter().rev().take_while(|c| name(c)).count();
    (owner > 0).then_some(slash - owner)
}

/// Maps byte offsets to 1-based line numbers.
struct LineIndex(Vec<usize>);

impl LineIndex {
    fn new(s: &str) -> Self {
        LineIndex(
            std::iter::once(0)
                .chain(s.match_indices('\n').map(|(i, _)| i + 1))
                .collect(),
        )
    }

    fn line(&self, offset: usize) -> usize {
        self.0.partition_point(|&start| start <= offset).max(1)
    }
}
