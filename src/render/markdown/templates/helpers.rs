//! Markdown renderer, template helpers: the functions templates call to put plan text in
//! a context other than inline Markdown (code spans, table cells, HTML, fences, links) or
//! to say a number in words. Each escapes its output for its context, which is written
//! as is: the helpers are the only way plan text reaches the comment unescaped-by-us.

use handlebars::{
    Context as HbContext, Handlebars, Helper, HelperDef, HelperResult, Output, RenderContext,
    RenderError, RenderErrorReason,
};
use serde_json::Value as Json;

use crate::render::markdown::escape;
use crate::render::markdown::phrases::{self, icon};

/// Parameter `index` as a string (numbers and booleans in their JSON form; null empty).
fn text_param(h: &Helper<'_>, index: usize) -> std::result::Result<String, RenderError> {
    let value = h
        .param(index)
        .ok_or(RenderErrorReason::ParamNotFoundForIndex("helper", index))?
        .value();
    Ok(match value {
        Json::String(s) => s.clone(),
        Json::Null => String::new(),
        other => other.to_string(),
    })
}

/// Parameter `index` as text, or `None` when the call leaves it out.
fn optional_text_param(
    h: &Helper<'_>,
    index: usize,
) -> std::result::Result<Option<String>, RenderError> {
    h.param(index).map(|_| text_param(h, index)).transpose()
}

fn count_param(h: &Helper<'_>, index: usize) -> std::result::Result<usize, RenderError> {
    let value = h
        .param(index)
        .ok_or(RenderErrorReason::ParamNotFoundForIndex("helper", index))?
        .value();
    match value {
        Json::Number(n) => Ok(n.as_u64().unwrap_or(0) as usize),
        Json::Array(a) => Ok(a.len()),
        _ => Err(RenderErrorReason::Other(format!("`{}` expects a number", h.name())).into()),
    }
}

/// Renders the first parameter, a phrase (an array of `{text, is_code}` segments, or a
/// plain string), with `plain` for text segments and `code` for code segments.
fn phrase(h: &Helper<'_>, plain: fn(&str) -> String, code: fn(&str) -> String) -> String {
    match h.param(0).map(|p| p.value()) {
        Some(Json::Array(segments)) => segments
            .iter()
            .map(|s| {
                let text = s.get("text").and_then(Json::as_str).unwrap_or("");
                if s.get("is_code").and_then(Json::as_bool).unwrap_or(false) {
                    code(text)
                } else {
                    plain(text)
                }
            })
            .collect(),
        Some(Json::String(s)) => plain(s),
        _ => String::new(),
    }
}

/// A helper as a function of its call, its text written as is: the helpers escape for
/// their own context, and `handlebars_helper!` would pass its result through the
/// registry's escape function ([`escape::inline`]) a second time.
type HelperFn = fn(&Helper<'_>) -> std::result::Result<String, RenderError>;

/// Makes a [`HelperFn`] a handlebars helper.
struct Writes(HelperFn);

impl HelperDef for Writes {
    fn call<'reg: 'rc, 'rc>(
        &self,
        h: &Helper<'rc>,
        _: &'reg Handlebars<'reg>,
        _: &'rc HbContext,
        _: &mut RenderContext<'reg, 'rc>,
        out: &mut dyn Output,
    ) -> HelperResult {
        out.write(&(self.0)(h)?)?;
        Ok(())
    }
}

/// The helpers templates may call (listed in docs/template-context.md).
const HELPERS: &[(&str, HelperFn)] = &[
    ("code", |h| Ok(escape::code_span(&text_param(h, 0)?))),
    ("cell_code", |h| {
        Ok(escape::cell_code_span(&text_param(h, 0)?))
    }),
    ("html_code", |h| Ok(escape::html_code(&text_param(h, 0)?))),
    ("escape", |h| Ok(escape::inline(&text_param(h, 0)?))),
    ("escape_html", |h| {
        Ok(escape::inline_html(&text_param(h, 0)?))
    }),
    ("fence", |h| {
        let lang = optional_text_param(h, 1)?.unwrap_or_default();
        Ok(escape::fence(&text_param(h, 0)?, &lang))
    }),
    ("phrase", |h| {
        Ok(phrase(h, escape::inline, escape::code_span))
    }),
    // In `<summary>` lines, an HTML block: a backslash escape would show there.
    ("phrase_html", |h| {
        Ok(phrase(h, escape::inline_html, escape::html_code))
    }),
    ("num", |h| Ok(phrases::thousands(count_param(h, 0)?))),
    ("plural", |h| {
        let n = count_param(h, 0)?;
        let singular = text_param(h, 1)?;
        let plural = optional_text_param(h, 2)?.unwrap_or_else(|| format!("{singular}s"));
        // Counts are said in `<summary>` lines too (HTML blocks).
        Ok(escape::inline_html(&phrases::count_noun(
            n, &singular, &plural,
        )))
    }),
    ("icon_of", |h| Ok(icon(&text_param(h, 0)?).to_string())),
    ("anchor", |h| {
        Ok(anchor_name(&text_param(h, 0)?)
            .map(|name| format!("<a name=\"{name}\"></a>"))
            .unwrap_or_default())
    }),
    ("code_link", |h| {
        let code = escape::code_span(&text_param(h, 0)?);
        let target = text_param(h, 1)?;
        Ok(match target.strip_prefix('#').and_then(anchor_name) {
            Some(name) => format!("[{code}](#{name})"),
            None => code,
        })
    }),
    // A change's block in the pull request's files (`source`): the file and line as code,
    // linked. The URL is planmark's own, every path segment percent-encoded.
    ("source_link", |h| {
        Ok(source_link(h, escape::code_span, |code, url| {
            format!("[{code}](<{url}>)")
        }))
    }),
    ("source_html", |h| {
        Ok(source_link(h, escape::html_code, |code, url| {
            format!("<a href=\"{url}\">{code}</a>")
        }))
    }),
    ("link", |h| {
        // Link text keeps references: a backslash escape there is left to the link parser.
        let text = escape::inline_html(&text_param(h, 0)?);
        Ok(match safe_url(&text_param(h, 1)?) {
            Some(url) => format!("[{text}](<{url}>)"),
            None => text,
        })
    }),
];

pub(super) fn register_helpers(hb: &mut Handlebars<'static>) {
    for (name, helper) in HELPERS {
        hb.register_helper(name, Box::new(Writes(*helper)));
    }
}

/// `name` when it can stand as an anchor's name and a link's fragment as it is: 1 to 64
/// lower-case letters, digits and dashes (planmark's own anchors are such).
fn anchor_name(name: &str) -> Option<&str> {
    let plain = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
    (!name.is_empty() && name.len() <= 64 && name.chars().all(plain)).then_some(name)
}

/// The first parameter, a [`crate::render::links::SourceLink`] object, as `file:line` in
/// `code`, linked by `link` when its URL is safe; empty for anything else.
fn source_link(h: &Helper<'_>, code: fn(&str) -> String, link: fn(&str, &str) -> String) -> String {
    let Some(source) = h.param(0).map(|p| p.value()) else {
        return String::new();
    };
    let field = |name| source.get(name).and_then(Json::as_str);
    let line = source.get("line").and_then(Json::as_u64);
    match (field("file"), line, field("url").and_then(safe_url)) {
        (Some(file), Some(line), Some(url)) => link(&code(&format!("{file}:{line}")), &url),
        _ => String::new(),
    }
}

/// An `http(s)` URL usable inside `<…>` link destinations, or `None`.
fn safe_url(url: &str) -> Option<String> {
    let scheme_ok = url.starts_with("https://") || url.starts_with("http://");
    let chars_ok = url
        .chars()
        .all(|c| c.is_ascii_graphic() && !matches!(c, '<' | '>' | '\\' | '"' | '`'));
    (scheme_ok && chars_ok).then(|| url.to_string())
}
