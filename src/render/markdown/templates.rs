//! Markdown renderer, templates: the Handlebars registry (built-in templates from
//! `templates/`, user overrides, escaping helpers) and template errors that name the file,
//! line and column.
//!
//! Handlebars runs in strict mode (a misspelt field is an error, not an empty string) and
//! its HTML escaping is replaced: a plain `{{value}}` is escaped for inline Markdown by
//! [`escape::inline`], and helpers escape for the other contexts. Helper output is written
//! as is, so the helpers are the only way plan text reaches the comment unescaped-by-us.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use handlebars::{
    Context as HbContext, Handlebars, Helper, HelperResult, Output, RenderContext, RenderError,
    RenderErrorReason,
};
use serde_json::Value as Json;

use super::escape;
use super::words::{self, icon};
use crate::error::{Error, Result};

/// The name of the main template.
pub const MAIN: &str = "comment";

/// The built-in partial never copied in: the plan part, with everything it includes
/// copied in, is big and nested, and handlebars compiles such a template in time that
/// grows faster than its size (about as long as two renders of a 10k plan's comment).
const NOT_INLINED: &str = "plan";

/// The built-in templates: (name, source). The first is the main template.
pub const BUILT_IN: &[(&str, &str)] = &[
    ("comment", include_str!("../../../templates/comment.hbs")),
    ("overview", include_str!("../../../templates/overview.hbs")),
    (
        "check_cell",
        include_str!("../../../templates/check_cell.hbs"),
    ),
    ("plan", include_str!("../../../templates/plan.hbs")),
    ("failed", include_str!("../../../templates/failed.hbs")),
    (
        "truncation",
        include_str!("../../../templates/truncation.hbs"),
    ),
    ("danger", include_str!("../../../templates/danger.hbs")),
    ("checks", include_str!("../../../templates/checks.hbs")),
    ("actions", include_str!("../../../templates/actions.hbs")),
    ("changes", include_str!("../../../templates/changes.hbs")),
    ("drift", include_str!("../../../templates/drift.hbs")),
    ("outputs", include_str!("../../../templates/outputs.hbs")),
    ("deferred", include_str!("../../../templates/deferred.hbs")),
    ("footer", include_str!("../../../templates/footer.hbs")),
    (
        "plan_failed",
        include_str!("../../../templates/plan_failed.hbs"),
    ),
    ("policy", include_str!("../../../templates/policy.hbs")),
    (
        "diagnostics",
        include_str!("../../../templates/diagnostics.hbs"),
    ),
];

/// A template source and where it came from (for error messages).
#[derive(Debug, Clone)]
pub struct Source {
    /// Template name (the file stem).
    pub name: String,
    /// Where it came from: a path, or `built-in templates/NAME.hbs`.
    pub origin: String,
    /// The text.
    pub text: String,
}

/// The template set to render with: built-ins, then user overrides by name.
#[derive(Debug, Clone)]
pub struct TemplateSet {
    sources: BTreeMap<String, Source>,
    /// The registries, as written and with partials copied in, each compiled on first use
    /// and kept: a comment is rendered several times (size budget, publisher, step
    /// summary), and compiling the templates costs as much as a render.
    compiled: [OnceLock<Handlebars<'static>>; 2],
    /// Comments with at least this many entries use the registry with partials copied in
    /// ([`TemplateSet::set_inline_from`]).
    inline_from: usize,
}

/// The default of [`TemplateSet::set_inline_from`]: below this many entries the context
/// copies cost less than compiling the copied-in templates.
const INLINE_FROM: usize = 200;

impl Default for TemplateSet {
    fn default() -> Self {
        let sources = BUILT_IN
            .iter()
            .map(|(name, text)| {
                let source = Source {
                    name: name.to_string(),
                    origin: format!("built-in templates/{name}.hbs"),
                    text: text.to_string(),
                };
                (name.to_string(), source)
            })
            .collect();
        TemplateSet {
            sources,
            compiled: Default::default(),
            inline_from: INLINE_FROM,
        }
    }
}

impl TemplateSet {
    /// Replaces (or adds) a template.
    pub fn set(&mut self, source: Source) {
        self.sources.insert(source.name.clone(), source);
        self.compiled = Default::default();
    }

    /// From how many entries (resource changes, drift, deferred changes, outputs) a
    /// comment is rendered with the built-in partials copied into the built-in templates
    /// that include them on a line of their own (never the plan part; default 200; 0:
    /// always, `usize::MAX`: never). Handlebars copies the whole current context for each
    /// partial it expands, about a dozen per plan, which costs more than a render on a
    /// comment listing hundreds of entries; compiling the copied-in templates costs about
    /// as much as a small comment's render. The copied-in text renders the same (tests
    /// check it). A template or partial the user replaced is never copied in or into, so
    /// errors in it keep their file and line.
    pub fn set_inline_from(&mut self, entries: usize) {
        self.inline_from = entries;
    }

    /// Checks the templates (the first syntax error, with its place); the built-in ones
    /// need no check.
    pub fn check(&self) -> Result<()> {
        if self.sources.values().all(|s| self.is_built_in(s)) {
            return Ok(());
        }
        self.registry().map(|_| ())
    }

    /// Is `source` the built-in template of its name, unchanged?
    fn is_built_in(&self, source: &Source) -> bool {
        BUILT_IN
            .iter()
            .any(|(name, text)| *name == source.name && *text == source.text)
    }

    /// `text` with each line that is only `{{> NAME}}` replaced by the built-in partial
    /// NAME (itself inlined), where NAME is built-in and its text ends with a newline (so
    /// that its last line stays standalone, as in its own file).
    fn inline_partials(&self, text: &str, depth: usize) -> String {
        let mut out = String::with_capacity(text.len());
        for line in text.split_inclusive('\n') {
            let partial = line
                .strip_suffix('\n')
                .and_then(|l| l.strip_prefix("{{> "))
                .and_then(|l| l.strip_suffix("}}"))
                .filter(|name| *name != NOT_INLINED)
                .and_then(|name| self.sources.get(name))
                .filter(|p| depth < 8 && self.is_built_in(p) && p.text.ends_with('\n'));
            match partial {
                Some(p) => out.push_str(&self.inline_partials(&p.text, depth + 1)),
                None => out.push_str(line),
            }
        }
        out
    }

    /// The Handlebars registry (compiled on first use), or the first syntax error with its
    /// place.
    pub fn registry(&self) -> Result<Renderer<'_>> {
        self.registry_for(0)
    }

    /// The registry for a comment of `entries` entries (see
    /// [`TemplateSet::set_inline_from`]).
    pub fn registry_for(&self, entries: usize) -> Result<Renderer<'_>> {
        let inline = entries >= self.inline_from;
        let slot = &self.compiled[usize::from(inline)];
        if let Some(hb) = slot.get() {
            return Ok(Renderer { hb, set: self });
        }
        let hb = self.compile(inline)?;
        // Another thread may have compiled the same templates meanwhile: either will do.
        let hb = slot.get_or_init(|| hb);
        Ok(Renderer { hb, set: self })
    }

    fn compile(&self, inline: bool) -> Result<Handlebars<'static>> {
        let mut hb = Handlebars::new();
        hb.set_strict_mode(true);
        hb.set_prevent_indent(true);
        hb.register_escape_fn(escape::inline);
        register_helpers(&mut hb);
        for source in self.sources.values() {
            // Partials stay registered on their own too, for the user's templates (and the
            // partial calls not copied in).
            let text = if inline && self.is_built_in(source) {
                self.inline_partials(&source.text, 0)
            } else {
                source.text.clone()
            };
            hb.register_template_string(&source.name, &text)
                .map_err(|e| {
                    let (line, column) = e.pos().unwrap_or((0, 0));
                    template_error(&source.origin, line, column, &e.reason().to_string())
                })?;
        }
        Ok(hb)
    }
}

/// A ready registry.
pub struct Renderer<'s> {
    hb: &'s Handlebars<'static>,
    set: &'s TemplateSet,
}

impl Renderer<'_> {
    /// Renders the main template with `data`.
    pub fn render<T: serde::Serialize>(&self, data: &T) -> Result<String> {
        self.hb
            .render(MAIN, data)
            .map_err(|e| self.render_error(&e))
    }

    fn render_error(&self, e: &RenderError) -> Error {
        let origin = e
            .template_name
            .as_ref()
            .and_then(|name| self.set.sources.get(name))
            .map_or_else(|| "template".to_string(), |s| s.origin.clone());
        let reason = match e.reason() {
            RenderErrorReason::MissingVariable(Some(path)) => {
                format!("`{path}` is not in the template context (see docs/template-context.md)")
            }
            other => other.to_string(),
        };
        template_error(
            &origin,
            e.line_no.unwrap_or(0),
            e.column_no.unwrap_or(0),
            &reason,
        )
    }
}

fn template_error(origin: &str, line: usize, column: usize, reason: &str) -> Error {
    let reason = reason.lines().next().unwrap_or("").trim().to_string();
    Error::Template {
        origin: origin.to_string(),
        line,
        column,
        reason,
    }
}

/// The first parameter as a string (numbers and booleans in their JSON form; null empty).
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

/// A helper writing `f(first parameter as text)`.
fn text_helper(
    f: fn(&str) -> String,
) -> impl Fn(
    &Helper<'_>,
    &Handlebars<'_>,
    &HbContext,
    &mut RenderContext<'_, '_>,
    &mut dyn Output,
) -> HelperResult
       + Send
       + Sync {
    move |h, _, _, _, out| {
        out.write(&f(&text_param(h, 0)?))?;
        Ok(())
    }
}

/// Renders a phrase (an array of `{text, is_code}` segments, or a plain string) with
/// `plain` for words and `code` for code segments.
fn phrase(value: &Json, plain: fn(&str) -> String, code: fn(&str) -> String) -> String {
    match value {
        Json::Array(segments) => segments
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
        Json::String(s) => plain(s),
        _ => String::new(),
    }
}

fn register_helpers(hb: &mut Handlebars<'static>) {
    hb.register_helper("code", Box::new(text_helper(escape::code_span)));
    hb.register_helper("cell_code", Box::new(text_helper(escape::cell_code_span)));
    hb.register_helper("html_code", Box::new(text_helper(escape::html_code)));
    hb.register_helper("escape", Box::new(text_helper(escape::inline)));
    hb.register_helper(
        "fence",
        Box::new(
            |h: &Helper<'_>,
             _: &Handlebars<'_>,
             _: &HbContext,
             _: &mut RenderContext<'_, '_>,
             out: &mut dyn Output|
             -> HelperResult {
                let lang = if h.param(1).is_some() {
                    text_param(h, 1)?
                } else {
                    String::new()
                };
                out.write(&escape::fence(&text_param(h, 0)?, &lang))?;
                Ok(())
            },
        ),
    );
    hb.register_helper(
        "phrase",
        Box::new(
            |h: &Helper<'_>,
             _: &Handlebars<'_>,
             _: &HbContext,
             _: &mut RenderContext<'_, '_>,
             out: &mut dyn Output|
             -> HelperResult {
                let value = h.param(0).map(|p| p.value().clone()).unwrap_or(Json::Null);
                out.write(&phrase(&value, escape::inline, escape::code_span))?;
                Ok(())
            },
        ),
    );
    hb.register_helper(
        "phrase_html",
        Box::new(
            |h: &Helper<'_>,
             _: &Handlebars<'_>,
             _: &HbContext,
             _: &mut RenderContext<'_, '_>,
             out: &mut dyn Output|
             -> HelperResult {
                let value = h.param(0).map(|p| p.value().clone()).unwrap_or(Json::Null);
                out.write(&phrase(&value, escape::inline, escape::html_code))?;
                Ok(())
            },
        ),
    );
    hb.register_helper(
        "num",
        Box::new(
            |h: &Helper<'_>,
             _: &Handlebars<'_>,
             _: &HbContext,
             _: &mut RenderContext<'_, '_>,
             out: &mut dyn Output|
             -> HelperResult {
                out.write(&words::thousands(count_param(h, 0)?))?;
                Ok(())
            },
        ),
    );
    hb.register_helper(
        "plural",
        Box::new(
            |h: &Helper<'_>,
             _: &Handlebars<'_>,
             _: &HbContext,
             _: &mut RenderContext<'_, '_>,
             out: &mut dyn Output|
             -> HelperResult {
                let n = count_param(h, 0)?;
                let singular = text_param(h, 1)?;
                let plural = if h.param(2).is_some() {
                    text_param(h, 2)?
                } else {
                    format!("{singular}s")
                };
                out.write(&escape::inline(&words::count_noun(n, &singular, &plural)))?;
                Ok(())
            },
        ),
    );
    hb.register_helper(
        "icon_of",
        Box::new(
            |h: &Helper<'_>,
             _: &Handlebars<'_>,
             _: &HbContext,
             _: &mut RenderContext<'_, '_>,
             out: &mut dyn Output|
             -> HelperResult {
                out.write(icon(&text_param(h, 0)?))?;
                Ok(())
            },
        ),
    );
    hb.register_helper(
        "link",
        Box::new(
            |h: &Helper<'_>,
             _: &Handlebars<'_>,
             _: &HbContext,
             _: &mut RenderContext<'_, '_>,
             out: &mut dyn Output|
             -> HelperResult {
                let text = escape::inline(&text_param(h, 0)?);
                match safe_url(&text_param(h, 1)?) {
                    Some(url) => out.write(&format!("[{text}](<{url}>)"))?,
                    None => out.write(&text)?,
                }
                Ok(())
            },
        ),
    );
}

/// An `http(s)` URL usable inside `<…>` link destinations, or `None`.
fn safe_url(url: &str) -> Option<String> {
    let scheme_ok = url.starts_with("https://") || url.starts_with("http://");
    let chars_ok = url
        .chars()
        .all(|c| c.is_ascii_graphic() && !matches!(c, '<' | '>' | '\\' | '"' | '`'));
    (scheme_ok && chars_ok).then(|| url.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn render(template: &str, data: Json) -> Result<String> {
        let mut set = TemplateSet::default();
        set.set(Source {
            name: MAIN.into(),
            origin: "test.hbs".into(),
            text: template.into(),
        });
        set.registry()?.render(&data)
    }

    #[test]
    fn plain_expressions_escape_for_markdown() {
        let out = render("{{x}}", json!({"x": "@team {{y}} <b>"})).unwrap();
        assert_eq!(out, "@&#8203;team &#123;&#123;y&#125;&#125; &#60;b&#62;");
    }

    #[test]
    fn strict_mode_names_the_file_line_and_column() {
        let err = render("ok\n{{nope}}", json!({})).unwrap_err().to_string();
        assert!(err.starts_with("test.hbs:2:"), "{err}");
        assert!(err.contains("nope"), "{err}");
        let err = render("{{#if x}}", json!({})).unwrap_err().to_string();
        assert!(err.starts_with("test.hbs:1:"), "{err}");
    }

    #[test]
    fn links_only_for_http_urls() {
        let out = render("{{link \"run\" u}}", json!({"u": "javascript:alert(1)"})).unwrap();
        assert_eq!(out, "run");
        let out = render("{{link \"run\" u}}", json!({"u": "https://x/y"})).unwrap();
        assert_eq!(out, "[run](<https://x/y>)");
    }
}
