//! Render stage, HTML preview: [`preview_page`] turns a generated comment into one
//! self-contained HTML5 page that looks like the comment on github.com (GitHub-like CSS,
//! alerts, `diff` colouring). The page loads nothing and runs nothing: raw HTML is sanitised
//! the way GitHub does it (allowlisted tags and attributes only, comments dropped, anything
//! else shown as escaped text), Markdown links keep only http(s)/mailto/relative targets,
//! images become placeholders, and a Content-Security-Policy forbids scripts and remote loads
//! should anything slip through. Pure; never panics.

use std::fmt::Write as _;

use pulldown_cmark::{BlockQuoteKind, CodeBlockKind, CowStr, Event, Parser, Tag, TagEnd};

use super::gfm::{allowed_tag, html_attrs, html_tokens, Token, OPTIONS};

/// Renders `markdown` as GitHub would show it, in a complete page titled `title`.
pub fn preview_page(markdown: &str, title: &str) -> String {
    // The title holds names from the command line: hostile like plan values.
    let title = escape(&super::markdown::escape::visible_text(title));
    let body = render_body(markdown);
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; \
         style-src 'unsafe-inline'; img-src data:\">\n<title>{title}</title>\n\
         <style>{CSS}</style>\n</head>\n<body>\n<div class=\"comment\">\n\
         <div class=\"comment-header\"><b>{title}</b></div>\n\
         <div class=\"markdown-body\">\n{body}</div>\n</div>\n</body>\n</html>\n"
    )
}

/// The comment's HTML: pulldown-cmark's, with raw HTML, code blocks, alerts, links and
/// images replaced by what GitHub would show.
fn render_body(markdown: &str) -> String {
    let mut events: Vec<Event<'_>> = Vec::new();
    let mut sanitiser = Sanitiser::default();
    // Code blocks and HTML blocks are gathered whole: a diff is coloured line by line, and a
    // tag or comment may span the lines of an HTML block.
    let mut code: Option<(String, String)> = None;
    let mut html_block: Option<String> = None;
    for mut event in Parser::new_ext(markdown, OPTIONS) {
        if let Event::Start(Tag::Link { dest_url, .. }) = &mut event {
            if !safe_url(dest_url) {
                *dest_url = CowStr::from("#");
            }
        }
        if let Some((lang, text)) = code.as_mut() {
            match event {
                Event::Text(t) => text.push_str(&t),
                Event::End(TagEnd::CodeBlock) => {
                    let block = code_block(lang, text);
                    events.push(Event::Html(block.into()));
                    code = None;
                }
                _ => {}
            }
            continue;
        }
        if let Some(raw) = html_block.as_mut() {
            match event {
                Event::Html(t) => raw.push_str(&t),
                Event::End(TagEnd::HtmlBlock) => {
                    events.push(Event::Html(sanitiser.clean(raw).into()));
                    html_block = None;
                }
                _ => {}
            }
            continue;
        }
        let mapped = match event {
            Event::Start(Tag::CodeBlock(kind)) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => {
                        info.split_whitespace().next().unwrap_or("").to_string()
                    }
                    CodeBlockKind::Indented => String::new(),
                };
                code = Some((lang, String::new()));
                continue;
            }
            Event::Start(Tag::HtmlBlock) => {
                html_block = Some(String::new());
                continue;
            }
            Event::Html(t) => Event::Html(sanitiser.clean(&t).into()),
            Event::InlineHtml(t) => Event::InlineHtml(sanitiser.clean(&t).into()),
            Event::Start(Tag::BlockQuote(Some(kind))) => Event::Html(alert_open(kind).into()),
            Event::End(TagEnd::BlockQuote(Some(_))) => Event::Html("</div>\n".into()),
            // An image would be a remote load: show its alt text instead.
            Event::Start(Tag::Image { .. }) => {
                Event::InlineHtml("<span class=\"image\">[image: ".into())
            }
            Event::End(TagEnd::Image) => Event::InlineHtml("]</span>".into()),
            other => other,
        };
        events.push(mapped);
    }
    let mut body = String::new();
    pulldown_cmark::html::push_html(&mut body, events.into_iter());
    body.push_str(&sanitiser.close_all());
    body
}

/// Re-emits raw HTML as GitHub's sanitiser would let it through.
#[derive(Default)]
struct Sanitiser {
    /// Raw tags opened and not yet closed, so that stray closing tags (a hostile
    /// `</div>`) cannot close the page's own elements.
    open: Vec<String>,
}

impl Sanitiser {
    fn clean(&mut self, raw: &str) -> String {
        let mut out = String::new();
        for (_, token) in html_tokens(raw) {
            match token {
                Token::Text(text) => out.push_str(&escape_keeping_entities(text, true)),
                // GitHub hides comments, the planmark marker among them.
                Token::Comment(_) => {}
                Token::Decl(decl) => out.push_str(&escape(decl)),
                Token::Tag(tag) if !allowed_tag(&tag.name) => out.push_str(&escape(tag.raw)),
                Token::Tag(tag) if tag.closing => {
                    if let Some(at) = self.open.iter().rposition(|t| *t == tag.name) {
                        for name in self.open.drain(at..).rev() {
                            let _ = write!(out, "</{name}>");
                        }
                    }
                }
                Token::Tag(tag) => {
                    out.push('<');
                    out.push_str(&tag.name);
                    push_attrs(&mut out, &tag.name, tag.attrs);
                    out.push('>');
                    if !matches!(tag.name.as_str(), "br" | "hr" | "img") {
                        self.open.push(tag.name);
                    }
                }
            }
        }
        out
    }

    fn close_all(&mut self) -> String {
        self.open
            .drain(..)
            .rev()
            .map(|name| format!("</{name}>"))
            .collect()
    }
}

/// Keeps the attributes GitHub keeps: `open` on details, safe `href` and a plain `name`
/// on links, `align` and `title` anywhere. Event handlers, `style`, `src` and the rest
/// are dropped. (GitHub prefixes a `name` with `user-content-` and scrolls `#name` links
/// to it; the preview keeps it as written, so the same links work.)
fn push_attrs(out: &mut String, tag: &str, attrs: &str) {
    for (name, value) in html_attrs(attrs) {
        match (name.as_str(), value) {
            ("open", _) if tag == "details" => out.push_str(" open"),
            ("align" | "title", Some(v)) => {
                let _ = write!(out, " {name}=\"{}\"", escape(&v));
            }
            ("href", Some(v)) if tag == "a" && safe_url(&v) => {
                let _ = write!(out, " href=\"{}\"", escape(&v));
            }
            ("name", Some(v))
                if tag == "a"
                    && v.chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_') =>
            {
                let _ = write!(out, " name=\"{v}\"");
            }
            _ => {}
        }
    }
}

/// http, https and mailto links and relative ones; `javascript:` and the like are not.
fn safe_url(url: &str) -> bool {
    // Browsers ignore whitespace and control characters inside a scheme.
    let url: String = url
        .chars()
        .filter(|c| !c.is_whitespace() && !c.is_control())
        .collect();
    match url.find([':', '/', '?', '#']) {
        Some(i) if url[i..].starts_with(':') => {
            matches!(
                url[..i].to_ascii_lowercase().as_str(),
                "http" | "https" | "mailto"
            )
        }
        _ => true,
    }
}

fn code_block(lang: &str, text: &str) -> String {
    if !lang.eq_ignore_ascii_case("diff") {
        let class = if lang.is_empty() {
            String::new()
        } else {
            format!(" class=\"language-{}\"", escape(lang))
        };
        return format!("<pre><code{class}>{}</code></pre>\n", escape(text));
    }
    // One span per line, coloured by its first character as GitHub's diff grammar does.
    let mut out = String::from("<pre class=\"diff\"><code>");
    for line in text.lines() {
        let class = match line.chars().next() {
            _ if line.starts_with("@@") => "diff-meta",
            Some('#') => "diff-meta",
            Some('+') => "diff-add",
            Some('-') => "diff-del",
            Some('!') => "diff-chg",
            _ => "diff-ctx",
        };
        let _ = writeln!(out, "<span class=\"{class}\">{}</span>", escape(line));
    }
    out.push_str("</code></pre>\n");
    out
}

fn alert_open(kind: BlockQuoteKind) -> String {
    let (slug, title, icon) = match kind {
        BlockQuoteKind::Note => ("note", "Note", ICON_INFO),
        BlockQuoteKind::Tip => ("tip", "Tip", ICON_TIP),
        BlockQuoteKind::Important => ("important", "Important", ICON_IMPORTANT),
        BlockQuoteKind::Warning => ("warning", "Warning", ICON_WARNING),
        BlockQuoteKind::Caution => ("caution", "Caution", ICON_CAUTION),
    };
    format!(
        "<div class=\"markdown-alert markdown-alert-{slug}\">\n<p class=\"markdown-alert-title\">\
         <svg viewBox=\"0 0 16 16\" width=\"16\" height=\"16\" aria-hidden=\"true\">\
         <path d=\"{icon}\"/></svg>{title}</p>\n"
    )
}

// Simple stroked icons in the spirit of GitHub's, drawn by the CSS (no fill).
const ICON_INFO: &str = "M8 1.5a6.5 6.5 0 1 1 0 13a6.5 6.5 0 1 1 0-13zM8 7.25v4M8 4.75v.01";
const ICON_TIP: &str =
    "M8 1.75a4.25 4.25 0 0 0-2.5 7.7V11h5V9.45A4.25 4.25 0 0 0 8 1.75zM6 13.75h4";
const ICON_IMPORTANT: &str = "M1.75 2.25h12.5v9H8.5L5 14.25v-3H1.75zM8 4.75v3M8 9.5v.01";
const ICON_WARNING: &str = "M8 1.75l6.75 12H1.25zM8 6v3.5M8 11.75v.01";
const ICON_CAUTION: &str =
    "M5.25 1.75h5.5l3.5 3.5v5.5l-3.5 3.5h-5.5l-3.5-3.5v-5.5zM8 4.75v4M8 11v.01";

/// Escapes text for HTML content and double-quoted attribute values.
fn escape(s: &str) -> String {
    escape_keeping_entities(s, false)
}

/// Escapes `s`; with `keep`, the entities it already uses (`&#64;` in raw HTML text) stay.
fn escape_keeping_entities(s: &str, keep: bool) -> String {
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.char_indices() {
        match c {
            '&' if keep && is_entity(&s[i + 1..]) => out.push('&'),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

fn is_entity(s: &str) -> bool {
    let n = s
        .bytes()
        .take_while(|b| b.is_ascii_alphanumeric() || *b == b'#')
        .count();
    n > 0 && s[n..].starts_with(';')
}

const CSS: &str = r#"
*{box-sizing:border-box}
body{margin:0;padding:24px 16px;background:#f6f8fa;color:#1f2328;font-size:14px;line-height:1.5;
font-family:-apple-system,BlinkMacSystemFont,"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif,"Apple Color Emoji","Segoe UI Emoji"}
.comment{max-width:900px;margin:0 auto;background:#fff;border:1px solid #d1d9e0;border-radius:6px}
.comment-header{padding:8px 16px;background:#f6f8fa;border-bottom:1px solid #d1d9e0;border-radius:6px 6px 0 0;color:#59636e}
.markdown-body{padding:16px;overflow-wrap:break-word}
.markdown-body>:first-child{margin-top:0}.markdown-body>:last-child{margin-bottom:0}
p,blockquote,ul,ol,dl,table,pre,details,.markdown-alert{margin:0 0 16px}
h1,h2,h3,h4,h5,h6{margin:24px 0 16px;font-weight:600;line-height:1.25}
h1,h2{padding-bottom:.3em;border-bottom:1px solid #d1d9e0b3}
h1{font-size:2em}h2{font-size:1.5em}h3{font-size:1.25em}h4{font-size:1em}h5{font-size:.875em}h6{font-size:.85em;color:#59636e}
a{color:#0969da;text-decoration:none}a:hover{text-decoration:underline}
ul,ol{padding-left:2em}li+li{margin-top:.25em}li>input[type=checkbox]{margin:0 .4em 0 -1.4em;vertical-align:middle}
blockquote{padding:0 1em;color:#59636e;border-left:.25em solid #d1d9e0}
hr{height:.25em;margin:24px 0;border:0;background:#d1d9e0}
sub,sup{font-size:75%;line-height:0;position:relative;vertical-align:baseline}sub{bottom:-.25em}sup{top:-.5em}
code,tt,kbd,samp,pre{font-family:ui-monospace,SFMono-Regular,"SF Mono",Menlo,Consolas,"Liberation Mono",monospace;font-size:85%}
code,tt{padding:.2em .4em;background:#818b981f;border-radius:6px;white-space:break-spaces}
pre{padding:16px;overflow:auto;line-height:1.45;background:#f6f8fa;border-radius:6px}
pre code{padding:0;background:transparent;font-size:100%;white-space:pre}
kbd{padding:3px 5px;border:1px solid #d1d9e0;border-radius:6px;box-shadow:inset 0 -1px 0 #d1d9e0b3;background:#f6f8fa}
table{display:block;width:max-content;max-width:100%;overflow:auto;border-collapse:collapse;border-spacing:0}
th,td{padding:6px 13px;border:1px solid #d1d9e0}th{font-weight:600}
tr{background:#fff;border-top:1px solid #d1d9e0b3}tr:nth-child(2n){background:#f6f8fa}
details{display:block}summary{display:list-item;cursor:pointer}details[open]>summary{margin-bottom:16px}
.image{color:#59636e;font-style:italic}
pre.diff span{display:inline-block;min-width:100%}
.diff-add{background:#dafbe1;color:#116329}.diff-del{background:#ffebe9;color:#82071e}
.diff-chg{background:#ffd8b5;color:#953800}.diff-meta{color:#59636e}
.markdown-alert{padding:8px 16px;border-left:.25em solid #d1d9e0}
.markdown-alert>:last-child{margin-bottom:0}
.markdown-alert-title{display:flex;align-items:center;gap:8px;font-weight:500;line-height:1;margin-bottom:8px}
.markdown-alert-title svg{fill:none;stroke:currentColor;stroke-width:1.5;stroke-linecap:round;stroke-linejoin:round}
.markdown-alert-note{border-left-color:#0969da}.markdown-alert-note .markdown-alert-title{color:#0969da}
.markdown-alert-tip{border-left-color:#1a7f37}.markdown-alert-tip .markdown-alert-title{color:#1a7f37}
.markdown-alert-important{border-left-color:#8250df}.markdown-alert-important .markdown-alert-title{color:#8250df}
.markdown-alert-warning{border-left-color:#9a6700}.markdown-alert-warning .markdown-alert-title{color:#9a6700}
.markdown-alert-caution{border-left-color:#d1242f}.markdown-alert-caution .markdown-alert-title{color:#d1242f}
"#;

#[cfg(test)]
mod tests {
    use super::*;

    fn body(md: &str) -> String {
        let page = preview_page(md, "t");
        page[page.find("<div class=\"markdown-body\">").unwrap()..].to_string()
    }

    #[test]
    fn page_is_complete_and_self_contained() {
        let page = preview_page("# Plan", "a <b> & \"c\"");
        assert!(page.starts_with("<!DOCTYPE html>") && page.ends_with("</html>\n"));
        assert!(page.contains("<title>a &lt;b&gt; &amp; &quot;c&quot;</title>"));
        assert!(page.contains("<h1>Plan</h1>"));
        assert!(!page.contains("<script") && !page.contains("://"));
    }

    #[test]
    fn raw_html_is_sanitised_like_github() {
        let out = body("<script>alert(1)</script>\n\nx <SCRIPT src=a></script> <iframe>\n");
        assert!(!out.to_lowercase().contains("<script") && !out.contains("<iframe"));
        assert!(out.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        let out = body("<a href=\"https://x.io/?a&amp;b\" onclick=\"e()\" style=\"x\">y</a>");
        assert!(
            out.contains("<a href=\"https://x.io/?a&amp;b\">y</a>"),
            "{out}"
        );
        assert!(!out.contains("onclick") && !out.contains("style="));
        for bad in [
            "<a href=\"java\tscript:x\">y</a>",
            "<a href=' JAVASCRIPT:x'>y</a>",
        ] {
            assert!(!body(bad).to_lowercase().contains("script:"), "{bad}");
        }
        assert!(body("[y](javascript:x)").contains("<a href=\"#\">y</a>"));
        let md = "<details open><summary>S <code>&#64;u</code></summary>\n\n*b*\n\n</details>\n";
        let out = body(md);
        assert!(out.contains("<details open><summary>S <code>&#64;u</code></summary>"));
        assert!(
            out.contains("<em>b</em>") && out.contains("</details>"),
            "{out}"
        );
    }

    #[test]
    fn stray_or_missing_closing_tags_stay_inside_the_comment() {
        let out = preview_page(
            "</div></div>\n\n<details><summary>x</summary>\n\n<b>y\n",
            "t",
        );
        assert_eq!(out.matches("<div").count(), out.matches("</div>").count());
        assert!(out.contains("</b></details>"), "{out}");
    }

    #[test]
    fn comments_and_images_are_not_shown_or_loaded() {
        let md =
            "a <!-- hidden --> b\n\n![alt](https://x.io/i.png)\n\n<img src=\"https://x.io\">\n\n\
                  <!-- planmark:v1 {\"v\":1} -->\n";
        let out = body(md);
        assert!(!out.contains("hidden") && !out.contains("planmark") && !out.contains("x.io"));
        assert!(
            out.contains("[image: alt]") && out.contains("<img>"),
            "{out}"
        );
    }

    #[test]
    fn diff_lines_get_classes() {
        let out =
            body("````diff\n+ a <b>\n- b\n! c\n@@ d\n# e\n  f\n```\n````\n\n```hcl\nx\n```\n");
        let lines = [
            "add\">+ a &lt;b&gt;<",
            "del\">- b<",
            "chg\">! c<",
            "meta\">@@ d<",
        ];
        for line in lines
            .iter()
            .chain(&["meta\"># e<", "ctx\">  f<", "ctx\">```<"])
        {
            assert!(
                out.contains(&format!("<span class=\"diff-{line}")),
                "{line} in {out}"
            );
        }
        assert!(out.contains("<pre class=\"diff\"><code><span"));
        assert!(out.contains("<pre><code class=\"language-hcl\">x\n</code></pre>"));
    }

    #[test]
    fn alerts_look_like_github_alerts() {
        for title in ["Note", "Tip", "Important", "Warning", "Caution"] {
            let (upper, lower) = (title.to_uppercase(), title.to_lowercase());
            let out = body(&format!("> [!{upper}]\n> text\n"));
            let class = format!("<div class=\"markdown-alert markdown-alert-{lower}\">");
            assert!(out.contains(&class) && out.contains(&format!("</svg>{title}</p>")));
            assert!(out.contains("<p>text</p>\n</div>") && !out.contains("blockquote"));
        }
    }

    #[test]
    fn html_tokens_and_attributes() {
        let tags: Vec<_> = html_tokens("a<b>c</B><x y='>'>< d<!-- e")
            .into_iter()
            .map(|(at, t)| {
                (
                    at,
                    matches!(t, Token::Tag(_)),
                    matches!(t, Token::Comment(_)),
                )
            })
            .collect();
        let want = [
            (0, false, false),
            (1, true, false),
            (4, false, false),
            (5, true, false),
        ];
        assert_eq!(tags[..4], want);
        assert_eq!(
            tags[4..],
            [(9, true, false), (18, false, false), (21, false, true)]
        );
        let attrs = html_attrs(" open HREF = \"a&amp;b\" x=y/");
        assert_eq!(attrs[0], ("open".into(), None));
        assert_eq!(attrs[1], ("href".into(), Some("a&b".into())));
        assert_eq!(attrs[2], ("x".into(), Some("y/".into())));
    }
}
