//! Render stage, GitHub's Markdown: the parser options GitHub uses for comments, the HTML
//! tags its sanitiser keeps, and raw HTML read roughly as a browser reads it. The HTML
//! preview follows these rules, and so do the tests' Markdown checks, which compile this file
//! in as it is (`tests/suite/support/check.rs`): it must use nothing but `pulldown_cmark`.

use pulldown_cmark::Options;

/// The extensions GitHub enables for comments (alerts come with `ENABLE_GFM`).
pub(crate) const OPTIONS: Options = Options::ENABLE_TABLES
    .union(Options::ENABLE_STRIKETHROUGH)
    .union(Options::ENABLE_TASKLISTS)
    .union(Options::ENABLE_GFM)
    .union(Options::ENABLE_FOOTNOTES);

/// Tags GitHub's sanitiser keeps; everything else is stripped from the comment.
const ALLOWED_TAGS: &str =
    "h1 h2 h3 h4 h5 h6 br b i strong em a pre code img tt div ins del sup sub \
    p ol ul table thead tbody tfoot blockquote dl dt dd kbd q samp var hr ruby rt rp li tr td th \
    s strike summary details";

/// Whether GitHub keeps the (lower-case) tag `name` in a comment.
pub(crate) fn allowed_tag(name: &str) -> bool {
    ALLOWED_TAGS.split_ascii_whitespace().any(|t| t == name)
}

/// Decodes the entities that matter for reading raw HTML: `&lt; &gt; &amp; &quot; &apos;
/// &nbsp;` and numeric ones (browsers accept those without the `;`). Others stay as written.
pub(crate) fn decode_entities(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(p) = rest.find('&') {
        out.push_str(&rest[..p]);
        rest = &rest[p + 1..];
        match entity(rest) {
            Some((ch, len)) => {
                out.push(ch);
                rest = &rest[len..];
            }
            None => out.push('&'),
        }
    }
    out.push_str(rest);
    out
}

/// The character and length of the entity at the start of `s` (just after its `&`).
fn entity(s: &str) -> Option<(char, usize)> {
    if let Some(num) = s.strip_prefix('#') {
        let hex = num.starts_with(['x', 'X']);
        let digits = &num[usize::from(hex)..];
        let radix = if hex { 16 } else { 10 };
        let n = digits.chars().take_while(|c| c.is_digit(radix)).count();
        if n == 0 || n > 8 {
            return None;
        }
        let value = u32::from_str_radix(&digits[..n], radix).ok()?;
        let semi = usize::from(digits[n..].starts_with(';'));
        return char::from_u32(value).map(|c| (c, 1 + usize::from(hex) + n + semi));
    }
    let end = s.bytes().take(8).position(|b| b == b';')?;
    let ch = match &s[..end] {
        "lt" => '<',
        "gt" => '>',
        "amp" => '&',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => '\u{a0}',
        _ => return None,
    };
    Some((ch, end + 1))
}

/// One piece of raw HTML, roughly as an HTML parser would split it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token<'a> {
    Text(&'a str),
    /// `<!-- … -->`, or to the end of the input when unterminated.
    Comment(&'a str),
    /// `<!DOCTYPE …>`, `<![CDATA[…`, `<?…?>`.
    Decl(&'a str),
    Tag(HtmlTag<'a>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HtmlTag<'a> {
    /// Lower-cased.
    pub(crate) name: String,
    pub(crate) closing: bool,
    /// Everything between the name and `>`, parsed by [`html_attrs`].
    pub(crate) attrs: &'a str,
    /// The whole tag as written.
    pub(crate) raw: &'a str,
}

/// Splits raw HTML into tags, comments and text, with each token's byte offset. A `<` that
/// starts no well-formed tag stays text.
pub(crate) fn html_tokens(html: &str) -> Vec<(usize, Token<'_>)> {
    let mut out = Vec::new();
    let (mut i, mut text_start) = (0, 0);
    while let Some(p) = html[i..].find('<') {
        i += p;
        match markup_at(&html[i..]) {
            Some((len, token)) => {
                if text_start < i {
                    out.push((text_start, Token::Text(&html[text_start..i])));
                }
                out.push((i, token));
                i += len;
                text_start = i;
            }
            None => i += 1,
        }
    }
    if text_start < html.len() {
        out.push((text_start, Token::Text(&html[text_start..])));
    }
    out
}

fn markup_at(s: &str) -> Option<(usize, Token<'_>)> {
    if let Some(rest) = s.strip_prefix("<!--") {
        let len = rest.find("-->").map_or(s.len(), |e| 4 + e + 3);
        return Some((len, Token::Comment(&s[..len])));
    }
    let b = s.as_bytes();
    if matches!(b.get(1), Some(b'!' | b'?')) {
        let len = s.find('>').map_or(s.len(), |e| e + 1);
        return Some((len, Token::Decl(&s[..len])));
    }
    let closing = b.get(1) == Some(&b'/');
    let name_start = if closing { 2 } else { 1 };
    if !b.get(name_start).is_some_and(u8::is_ascii_alphabetic) {
        return None;
    }
    let name_end = name_start
        + b[name_start..]
            .iter()
            .take_while(|c| c.is_ascii_alphanumeric() || **c == b'-')
            .count();
    if !matches!(
        b.get(name_end),
        Some(b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'/' | b'>')
    ) {
        return None;
    }
    let mut quote = None;
    for (k, &c) in b.iter().enumerate().skip(name_end) {
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, b'"' | b'\'') => quote = Some(c),
            (None, b'>') => {
                let tag = HtmlTag {
                    name: s[name_start..name_end].to_ascii_lowercase(),
                    closing,
                    attrs: &s[name_end..k],
                    raw: &s[..=k],
                };
                return Some((k + 1, Token::Tag(tag)));
            }
            (None, _) => {}
        }
    }
    None
}

/// Parses `attrs` of an [`HtmlTag`] into lower-cased names and entity-decoded values.
pub(crate) fn html_attrs(attrs: &str) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    let mut rest = attrs;
    loop {
        rest = rest.trim_start_matches(|c: char| c.is_ascii_whitespace() || c == '/');
        if rest.is_empty() {
            return out;
        }
        let n = rest
            .find(|c: char| c.is_ascii_whitespace() || c == '/' || c == '=')
            .unwrap_or(rest.len());
        let name = rest[..n].to_ascii_lowercase();
        rest = rest[n..].trim_start();
        let Some(value) = rest.strip_prefix('=').map(str::trim_start) else {
            out.push((name, None));
            continue;
        };
        let (raw, after) = match value.chars().next() {
            Some(q @ ('"' | '\'')) => {
                let end = value[1..].find(q).map_or(value.len(), |e| e + 1);
                (&value[1..end], value.get(end + 1..).unwrap_or(""))
            }
            _ => value.split_at(
                value
                    .find(|c: char| c.is_ascii_whitespace())
                    .unwrap_or(value.len()),
            ),
        };
        out.push((name, Some(decode_entities(raw))));
        rest = after;
    }
}
