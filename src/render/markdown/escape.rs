//! Markdown renderer, escaping: every string that comes from a plan is hostile, so each
//! output context has its own escaper and nothing is written raw.
//!
//! Contexts and what each guarantees:
//! - [`inline`]: Markdown text, readable raw (people read the body in notifications and
//!   `gh pr view`): markup characters get backslash escapes, `&`, `<`, `>` named
//!   references, and characters that are markup only where a block starts (`-`, `+`,
//!   `=`, `1.`, `1)`) are escaped only there. `inline_html`: text in Markdown *or* an
//!   HTML block (a `<summary>` line, link text), where a backslash would show: markup
//!   characters become numeric character references (which both CommonMark and HTML
//!   decode to the literal character and never treat as syntax). In both, leading spaces
//!   and tabs become references and a `-` or `1.` after them is escaped, so no text starts
//!   a block (indented code, list, rule, quote, heading, table, fence), and an `_` inside
//!   a word stays as it is (it cannot open or close emphasis). `@` and `#` get a zero-width space so GitHub cannot turn them into mentions
//!   or issue links, `://` and `www.` the same so nothing autolinks, runs of hex digits
//!   get one after every 6 so none reads as a commit SHA (7 to 40), and line breaks
//!   become `<br>`, so the text stays on its line. Text that could read like planmark's
//!   own lines is placed by the templates where it cannot stand alone (a diagnostic's
//!   detail is quoted under its summary; check messages follow their address).
//! - [`code_span`]: a Markdown code span whose backtick delimiter is longer than any run
//!   inside; `cell_code_span` also escapes `|` for GFM tables.
//! - [`html_code`]: `<code>…</code>` inside an HTML block (e.g. `<summary>`).
//! - `fence`: a fenced code block whose fence is longer than any backtick run inside.
//!
//! All of them make invisible characters (zero-width, bidirectional overrides, controls)
//! visible as `<U+200B>`, so a key cannot look like another or hide text.

use std::fmt::Write;

use crate::input::text::is_invisible;

/// Zero-width space as a character reference: breaks `@user`, `#123` and autolinks
/// without changing what a reader sees.
const ZWSP: &str = "&#8203;";

/// The most hex digits written in a row outside code: GitHub turns 7 to 40 of them (a
/// commit SHA, in any case, inside a word or not) into a link to that commit, so a longer
/// run gets a zero-width space after every 6.
const SHA_SAFE_RUN: usize = 6;

/// Writes `c`, visibly: controls (but tabs and line feeds) as Unicode control pictures,
/// invisible characters as `<U+XXXX>` (with the brackets escaped when `markup`: outside
/// code the text is parsed as HTML), anything else as it is.
fn push_visible(out: &mut String, c: char, markup: bool) {
    match c {
        '\t' | '\n' => out.push(c),
        '\u{0}'..='\u{1F}' => out.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{FFFD}')),
        '\u{7F}' => out.push('\u{2421}'),
        _ if matches!(c, '\u{80}'..='\u{9F}' | '\u{2028}' | '\u{2029}') || is_invisible(c) => {
            let (open, close) = if markup { ("&lt;", "&gt;") } else { ("<", ">") };
            let _ = write!(out, "{open}U+{:04X}{close}", c as u32);
        }
        _ => out.push(c),
    }
}

/// Where [`escaped`] writes: Markdown text, or text that may also land in an HTML block.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Place {
    /// Markdown inline text: markup characters get backslash escapes, which read well in
    /// the raw body (notifications, `gh pr view`, the API).
    Markdown,
    /// Markdown *or* an HTML block (a `<summary>` line, link text): markup characters
    /// become numeric character references, which both decode and never treat as syntax
    /// (a backslash would show in an HTML block).
    Anywhere,
}

/// Text safe in Markdown inline context, readable raw: markup characters are
/// backslash-escaped (`\*`, `\[`, `\|`), an `_` inside a word is left as it is (it can
/// neither open nor close emphasis), quotes, parentheses, `=`, `+` and `^` are left as
/// they are except where a block could start, `&`, `<` and `>` are named references
/// (safe in HTML too), `$` a numeric one (GitHub's math does not always honour `\$`), and
/// so are `{` and `}` (no `{{…}}` in a value reads as a template expression). The rules no escape can keep (mentions, `#123`, links, commit SHAs, block
/// starts, line breaks, invisible characters) are those of `inline_html`.
pub fn inline(text: &str) -> String {
    escaped(text, Place::Markdown)
}

/// Text safe in Markdown inline context and in HTML blocks (`<summary>` lines, link text):
/// markup characters as numeric character references, but an `_` inside a word (safe in
/// both) as it is.
pub(crate) fn inline_html(text: &str) -> String {
    escaped(text, Place::Anywhere)
}

/// Is the character at `i` inside a word: a letter or digit on each side?
fn in_word(chars: &[char], i: usize) -> bool {
    i > 0 && chars[i - 1].is_alphanumeric() && chars.get(i + 1).is_some_and(|c| c.is_alphanumeric())
}

/// Do the characters before `i` spell `word`, in any case?
fn after_word(chars: &[char], i: usize, word: &str) -> bool {
    let n = word.len();
    i >= n
        && chars[i - n..i]
            .iter()
            .zip(word.chars())
            .all(|(a, b)| a.eq_ignore_ascii_case(&b))
}

fn escaped(text: &str, place: Place) -> String {
    let markdown = place == Place::Markdown;
    let mut out = String::with_capacity(text.len() + 16);
    let chars: Vec<char> = text.chars().collect();
    // The text's first character after its leading spaces and tabs is where a block
    // could start: it is escaped there. Indentation that would make indented code (a tab,
    // or four spaces) is written as character references, which are text to a Markdown
    // parser (`&#32;&#32;&#32;&#32;x` is a paragraph); less is stripped by it.
    let start = chars.iter().take_while(|c| matches!(c, ' ' | '\t')).count();
    for &c in &chars[..start] {
        if start >= 4 || chars[..start].contains(&'\t') {
            let _ = write!(out, "&#{};", c as u32);
        } else {
            out.push(c);
        }
    }
    // A number at the start followed by `.` or `)` and a space would start an ordered
    // list item.
    let list_number = |i: usize, next: Option<char>| {
        i > start
            && i - start <= 9
            && chars[start..i].iter().all(char::is_ascii_digit)
            && next.is_none_or(char::is_whitespace)
    };
    // Hex digits in a row: GitHub links 7 to 40 of them to a commit.
    let mut hex_run = 0;
    for (i, &c) in chars.iter().enumerate().skip(start) {
        let next = chars.get(i + 1).copied();
        if c.is_ascii_hexdigit() {
            if hex_run == SHA_SAFE_RUN {
                out.push_str(ZWSP);
                hex_run = 0;
            }
            hex_run += 1;
        } else {
            hex_run = 0;
        }
        match c {
            '\r' if next == Some('\n') => {}
            '\n' | '\r' => out.push_str("<br>"),
            '@' => {
                out.push('@');
                out.push_str(ZWSP);
            }
            '#' => {
                out.push_str("&#35;");
                if next.is_some_and(|n| n.is_alphanumeric()) {
                    out.push_str(ZWSP);
                }
            }
            ':' if chars[i + 1..].starts_with(&['/', '/']) => {
                out.push(':');
                out.push_str(ZWSP);
            }
            '.' if after_word(&chars, i, "www") => {
                out.push_str(ZWSP);
                out.push('.');
            }
            '-' if after_word(&chars, i, "gh") => {
                out.push('-');
                out.push_str(ZWSP);
            }
            // Intraword: never emphasis, in Markdown or HTML.
            '_' if in_word(&chars, i) => out.push('_'),
            '&' if markdown => out.push_str("&amp;"),
            '<' if markdown => out.push_str("&lt;"),
            '>' if markdown => out.push_str("&gt;"),
            '$' if markdown => out.push_str("&#36;"),
            // Block starts: a list item (`-`, `+`), a setext underline (`=`), an ordered
            // list item (`1.`, `1)`).
            '-' | '+' | '=' if markdown && i == start => out.extend(['\\', c]),
            '.' | ')' if markdown && list_number(i, next) => out.extend(['\\', c]),
            // An image needs `![`: a `[` in the text is escaped, but the template may
            // follow the text with one.
            '!' if markdown && next.is_none() => out.push_str("\\!"),
            '"' | '\'' | '(' | ')' | '=' | '+' | '^' | '!' if markdown => out.push(c),
            '`' | '\\' | '*' | '_' | '[' | ']' | '|' | '~' if markdown => out.extend(['\\', c]),
            '&' | '<' | '>' | '"' | '\'' | '`' | '\\' | '*' | '_' | '[' | ']' | '(' | ')' | '{'
            | '}' | '|' | '~' | '!' | '$' | '=' | '+' | '^' => {
                let _ = write!(out, "&#{};", c as u32);
            }
            '-' if i == start => out.push_str("&#45;"),
            '.' if list_number(i, next) => out.push_str("&#46;"),
            _ => push_visible(&mut out, c, true),
        }
    }
    out
}

/// `text` as plain text on one line: line breaks and tabs as spaces, controls and
/// invisible characters made visible (`<U+202E>`), nothing else changed. For code spans,
/// and for names shown outside Markdown, such as the HTML preview's title, which the
/// caller still escapes.
pub(crate) fn visible_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\n' | '\r' | '\t' => out.push(' '),
            _ => push_visible(&mut out, c, false),
        }
    }
    out
}

/// `text`'s non-blank lines joined by spaces, for text the templates lay out as one line
/// outside a quote (`--title` in a heading, a diagnostic's summary in bold): a line break
/// there (`<br>`) would let the rest stand alone as if planmark wrote it.
pub fn one_line(text: &str) -> String {
    text.split(['\r', '\n'])
        .filter(|l| !l.trim().is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The longest run of `ch` in `text`.
fn longest_run(text: &str, ch: char) -> usize {
    let (mut best, mut run) = (0, 0);
    for c in text.chars() {
        if c == ch {
            run += 1;
            best = best.max(run);
        } else {
            run = 0;
        }
    }
    best
}

/// A code span around `content` (one line, invisible characters visible).
fn delimited_span(content: String) -> String {
    let ticks = "`".repeat(longest_run(&content, '`') + 1);
    // A space on both sides is stripped by the parser; add one when the content starts or
    // ends with a backtick (it would merge with the delimiter) or with a space.
    let pad = content.starts_with(['`', ' ']) || content.ends_with(['`', ' ']);
    let pad = if pad { " " } else { "" };
    if content.is_empty() {
        return "` `".to_string();
    }
    format!("{ticks}{pad}{content}{pad}{ticks}")
}

/// A Markdown code span holding `text` literally.
pub fn code_span(text: &str) -> String {
    delimited_span(visible_text(text))
}

/// A code span for a GFM table cell (`|` escaped, which GFM allows inside spans).
pub(crate) fn cell_code_span(text: &str) -> String {
    delimited_span(visible_text(text).replace('|', "\\|"))
}

/// `<code>text</code>` for HTML blocks such as `<summary>`: `&`, `<`, `>`, quotes escaped
/// and `@`/`#` as references (inside `<code>` GitHub neither mentions nor links, and the
/// references keep copy-paste exact).
pub fn html_code(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 30);
    out.push_str("<code>");
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '@' => out.push_str("&#64;"),
            '#' => out.push_str("&#35;"),
            '`' => out.push_str("&#96;"),
            '\n' | '\r' | '\t' => out.push(' '),
            _ => push_visible(&mut out, c, true),
        }
    }
    out.push_str("</code>");
    out
}

/// A fenced code block (` ```lang `) holding `text` literally; the fence is longer than
/// any backtick run inside, so nothing in `text` can close it.
pub(crate) fn fence(text: &str, lang: &str) -> String {
    let mut body = String::with_capacity(text.len() + 1);
    for c in text.chars() {
        push_visible(&mut body, c, false);
    }
    let ticks = "`".repeat((longest_run(&body, '`') + 1).max(3));
    let lang: String = lang.chars().filter(char::is_ascii_alphanumeric).collect();
    if !body.ends_with('\n') {
        body.push('\n');
    }
    format!("{ticks}{lang}\n{body}{ticks}")
}

/// A label for a quoted Mermaid node (`ID["label"]`): letters, digits, spaces and
/// `_ - . / = + ~ ( )` as they are, everything else as Mermaid's entity code (`#quot;`,
/// `#lt;`, `#gt;`, `#amp;`, else `#<decimal>;`, which Mermaid decodes to the character
/// and never reads as syntax): no quote can end the label, no backtick start a Markdown
/// string, no `<` open HTML, no line break or `;` start a statement. Invisible characters
/// are made visible first (`<U+200B>`, then encoded), as everywhere else.
pub(crate) fn mermaid_label(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(c, '\n' | '\t') {
            // A label has one line: shown as the control's picture, as other controls.
            shown.push(char::from_u32(0x2400 + c as u32).unwrap_or('\u{FFFD}'));
        } else {
            push_visible(&mut shown, c, false);
        }
    }
    let mut out = String::with_capacity(shown.len() + 8);
    for c in shown.chars() {
        match c {
            _ if c.is_ascii_alphanumeric() || " _-./=+~()".contains(c) => out.push(c),
            '"' => out.push_str("#quot;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '&' => out.push_str("#amp;"),
            _ => {
                let _ = write!(out, "#{};", c as u32);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_neutralises_mentions_links_and_markup() {
        let text = "@org/team #12 <script> `x` **b** [l](u) http://x www.y.z GH-1";
        let out = inline_html(text);
        assert!(!out.contains("@org"), "{out}");
        assert!(!out.contains("#12") && !out.contains("<script>") && !out.contains('`'));
        assert!(!out.contains("**") && !out.contains("](") && !out.contains("://"));
        assert!(!out.contains("www.") && !out.contains("GH-1"), "{out}");
        let out = inline(text);
        assert!(!out.contains("@org"), "{out}");
        assert!(!out.contains("#12") && !out.contains("<script>"), "{out}");
        assert!(out.contains("\\`x\\` \\*\\*b\\*\\* \\[l\\](u)"), "{out}");
        assert!(!out.contains("://") && !out.contains("www.") && !out.contains("GH-1"));
    }

    #[test]
    fn inline_keeps_plain_text_and_breaks_lines_safely() {
        for inline in [inline, inline_html] {
            assert_eq!(inline("plain text 123"), "plain text 123");
            assert_eq!(inline("a\nb"), "a<br>b");
            assert_eq!(inline(" then"), " then");
            assert_eq!(inline("    code"), "&#32;&#32;&#32;&#32;code");
        }
        assert_eq!(inline_html("- item"), "&#45; item");
        assert_eq!(inline_html("1. item"), "1&#46; item");
        assert_eq!(inline_html(" \t- item"), "&#32;&#9;&#45; item");
        assert_eq!(inline_html("  12. x\n    y"), "  12&#46; x<br>    y");
        assert_eq!(inline("- item"), "\\- item");
        assert_eq!(inline("1. item"), "1\\. item");
        assert_eq!(inline("2) item"), "2\\) item");
        assert_eq!(inline("+ item"), "\\+ item");
        assert_eq!(inline("==="), "\\===");
        assert_eq!(inline(" \t- item"), "&#32;&#9;\\- item");
        assert_eq!(inline("  12. x\n    y"), "  12\\. x<br>    y");
    }

    /// Issue 38: people read the raw body; a plain address or key outside code is written
    /// with backslash escapes where one is needed, never a numeric character reference.
    #[test]
    fn inline_writes_addresses_with_no_numeric_reference() {
        for (text, raw) in [
            ("null_resource.db", "null_resource.db"),
            (
                "module.app_1.aws_s3_bucket.logs[0]",
                "module.app_1.aws_s3_bucket.logs\\[0\\]",
            ),
            (
                "aws_eip.by_key[\"node1\"] (for_each)",
                "aws_eip.by_key\\[\"node1\"\\] (for_each)",
            ),
            (
                "_x_ *y* a|b ~z~ `c` \\ !",
                "\\_x\\_ \\*y\\* a\\|b \\~z\\~ \\`c\\` \\\\ \\!",
            ),
            ("a < b & c > d", "a &lt; b &amp; c &gt; d"),
            (
                "f(x) = y + 1^2, it's \"q\"!",
                "f(x) = y + 1^2, it's \"q\"\\!",
            ),
            ("wow! [", "wow! \\["),
        ] {
            let out = inline(text);
            assert_eq!(out, raw, "{text:?}");
            assert!(!out.contains("&#"), "{out}");
            let shown: String = crate::render::gfm::decode_entities(&out);
            let unescaped = shown
                .replace("\\\\", "\u{0}")
                .replace('\\', "")
                .replace('\u{0}', "\\");
            assert_eq!(unescaped, text, "reads the same");
        }
        // Where a backslash cannot do: math, mentions, issue links.
        assert_eq!(inline("$x$"), "&#36;x&#36;");
        assert_eq!(inline("{{x}}"), "&#123;&#123;x&#125;&#125;");
        assert_eq!(inline("#12"), "&#35;&#8203;12");
        // In an HTML block a backslash would show: references there, but `_` in a word.
        assert_eq!(inline_html("for_each [0]"), "for_each &#91;0&#93;");
        assert_eq!(inline_html("_x"), "&#95;x");
    }

    #[test]
    fn one_line_joins_lines() {
        assert_eq!(
            one_line("a\r\n\n  \nPlan: 1 to add\r### x"),
            "a Plan: 1 to add ### x"
        );
        assert_eq!(one_line("plain"), "plain");
    }

    #[test]
    fn code_spans_outgrow_backtick_runs() {
        assert_eq!(code_span("a"), "`a`");
        assert_eq!(code_span("a``b"), "```a``b```");
        assert_eq!(code_span("`x"), "`` `x ``");
        assert_eq!(cell_code_span("a|b"), "`a\\|b`");
        assert_eq!(code_span("a\u{200B}b"), "`a<U+200B>b`");
    }

    #[test]
    fn fences_outgrow_backtick_runs() {
        assert_eq!(fence("x", "diff"), "```diff\nx\n```");
        assert_eq!(fence("```\n````", "diff"), "`````diff\n```\n````\n`````");
        assert_eq!(fence("a\rb", "diff"), "```diff\na\u{240D}b\n```");
    }

    #[test]
    fn visible_text_shows_what_would_hide() {
        assert_eq!(
            visible_text("prod\u{202E}dev\n\u{1b}[31m\u{200B}x"),
            "prod<U+202E>dev \u{241B}[31m<U+200B>x"
        );
        assert_eq!(visible_text("plain <b> @x"), "plain <b> @x");
    }

    #[test]
    fn html_code_escapes_markup() {
        assert_eq!(
            html_code("a[\"</code><b>@x#1\"]"),
            "<code>a[&quot;&lt;/code&gt;&lt;b&gt;&#64;x&#35;1&quot;]</code>"
        );
    }
    #[test]
    fn mermaid_labels_keep_names_and_encode_everything_else() {
        assert_eq!(
            mermaid_label("module.app_1 (+2 ~1)"),
            "module.app_1 (+2 ~1)"
        );
        let out =
            mermaid_label("x\"]; click m0 \"javascript:alert(1)\" <img> `a` #1 @u &\n\u{200B}");
        assert!(
            out.chars()
                .all(|c| c.is_ascii_alphanumeric() || " _-./=+~()#;".contains(c)),
            "{out}"
        );
        assert!(out.contains("#quot;") && out.contains("#lt;img#gt;") && out.contains("#96;"));
        assert!(out.contains("#35;1") && out.contains("#64;u") && out.contains("#amp;"));
        // Line breaks and invisible characters are shown, then encoded.
        assert!(
            out.contains("#9226;") && out.contains("#lt;U+200B#gt;"),
            "{out}"
        );
    }
}
