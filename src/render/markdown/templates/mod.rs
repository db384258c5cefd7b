//! Markdown renderer, templates: the Handlebars registry (built-in templates from
//! `templates/`, user overrides, the escaping helpers of `helpers.rs`) and template errors
//! that name the file, line and column.
//!
//! Handlebars runs in strict mode (a misspelt field is an error, not an empty string) and
//! its HTML escaping is replaced: a plain `{{value}}` is escaped for inline Markdown by
//! [`escape::inline`], and helpers escape for the other contexts. Helper output is written
//! as is, so the helpers are the only way plan text reaches the comment unescaped-by-us.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use handlebars::{Handlebars, RenderError, RenderErrorReason};

use super::escape;
use crate::render::error::{RenderError as TemplateError, Result};

mod helpers;

use helpers::register_helpers;

/// The name of the main template.
pub(crate) const MAIN: &str = "comment";

/// The built-in templates: (name, source). The first is the main template.
pub(crate) const BUILT_IN: &[(&str, &str)] = &[
    ("comment", include_str!("../../../../templates/comment.hbs")),
    ("since", include_str!("../../../../templates/since.hbs")),
    (
        "overview",
        include_str!("../../../../templates/overview.hbs"),
    ),
    (
        "check_cell",
        include_str!("../../../../templates/check_cell.hbs"),
    ),
    ("plan", include_str!("../../../../templates/plan.hbs")),
    (
        "unreadable",
        include_str!("../../../../templates/unreadable.hbs"),
    ),
    ("failed", include_str!("../../../../templates/failed.hbs")),
    (
        "truncation",
        include_str!("../../../../templates/truncation.hbs"),
    ),
    ("danger", include_str!("../../../../templates/danger.hbs")),
    ("checks", include_str!("../../../../templates/checks.hbs")),
    ("actions", include_str!("../../../../templates/actions.hbs")),
    ("map", include_str!("../../../../templates/map.hbs")),
    ("changes", include_str!("../../../../templates/changes.hbs")),
    ("group", include_str!("../../../../templates/group.hbs")),
    (
        "invocations",
        include_str!("../../../../templates/invocations.hbs"),
    ),
    ("drift", include_str!("../../../../templates/drift.hbs")),
    ("outputs", include_str!("../../../../templates/outputs.hbs")),
    (
        "deferred",
        include_str!("../../../../templates/deferred.hbs"),
    ),
    ("footer", include_str!("../../../../templates/footer.hbs")),
    (
        "plan_failed",
        include_str!("../../../../templates/plan_failed.hbs"),
    ),
    ("policy", include_str!("../../../../templates/policy.hbs")),
    ("rego", include_str!("../../../../templates/rego.hbs")),
    (
        "diagnostics",
        include_str!("../../../../templates/diagnostics.hbs"),
    ),
    ("applied", include_str!("../../../../templates/applied.hbs")),
];

/// A template source and where it came from (for error messages).
#[derive(Debug, Clone)]
pub(crate) struct Source {
    /// Template name (the file stem).
    pub(crate) name: String,
    /// Where it came from: a path, or `built-in templates/NAME.hbs`.
    pub(crate) origin: String,
    /// The text.
    pub(crate) text: String,
}

/// The template set to render with: built-ins, then user overrides by name.
#[derive(Debug, Clone)]
pub struct TemplateSet {
    sources: BTreeMap<String, Source>,
    /// The registry (or the first syntax error), compiled on first use and kept: a comment
    /// is rendered several times (size budget, publisher, step summary), and compiling
    /// the templates costs as much as a render.
    compiled: OnceLock<std::result::Result<Handlebars<'static>, Failure>>,
}

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
        }
    }
}

impl TemplateSet {
    /// Replaces (or adds) a template.
    pub(crate) fn set(&mut self, source: Source) {
        self.sources.insert(source.name.clone(), source);
        self.compiled = OnceLock::new();
    }

    /// Checks the templates (the first syntax error, with its place); the built-in ones
    /// need no check.
    pub(crate) fn check(&self) -> Result<()> {
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

    /// The Handlebars registry (compiled on first use), or the first syntax error with its
    /// place.
    pub(crate) fn registry(&self) -> Result<Renderer<'_>> {
        // A thread asking while another compiles waits for it.
        match self.compiled.get_or_init(|| self.compile()) {
            Ok(hb) => Ok(Renderer { hb, set: self }),
            Err(failure) => Err(failure.error()),
        }
    }

    fn compile(&self) -> std::result::Result<Handlebars<'static>, Failure> {
        let mut hb = Handlebars::new();
        hb.set_strict_mode(true);
        hb.set_prevent_indent(true);
        hb.register_escape_fn(escape::inline);
        register_helpers(&mut hb);
        for (name, source) in &self.sources {
            hb.register_template_string(name, &source.text)
                .map_err(|e| {
                    let (line, column) = e.pos().unwrap_or((0, 0));
                    Failure {
                        origin: source.origin.clone(),
                        line,
                        column,
                        reason: e.reason().to_string(),
                    }
                })?;
        }
        Ok(hb)
    }
}

/// A template that does not compile: kept with the registry, so every use reports it.
#[derive(Debug, Clone)]
struct Failure {
    origin: String,
    line: usize,
    column: usize,
    reason: String,
}

impl Failure {
    fn error(&self) -> TemplateError {
        template_error(&self.origin, self.line, self.column, &self.reason)
    }
}

/// A ready registry.
pub(crate) struct Renderer<'s> {
    hb: &'s Handlebars<'static>,
    set: &'s TemplateSet,
}

impl Renderer<'_> {
    /// Renders the main template with `data`.
    pub(crate) fn render<T: serde::Serialize>(&self, data: &T) -> Result<String> {
        self.hb
            .render(MAIN, data)
            .map_err(|e| self.render_error(&e))
    }

    fn render_error(&self, e: &RenderError) -> TemplateError {
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

fn template_error(origin: &str, line: usize, column: usize, reason: &str) -> TemplateError {
    let reason = reason.lines().next().unwrap_or("").trim().to_string();
    TemplateError::Template {
        origin: origin.to_string(),
        line,
        column,
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value as Json};

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
        let out = render("{{x}}", json!({"x": "@team {{y}} <b> *c*"})).unwrap();
        assert_eq!(
            out,
            "@&#8203;team &#123;&#123;y&#125;&#125; &lt;b&gt; \\*c\\*"
        );
        let out = render("{{escape_html x}}", json!({"x": "<b> *c*"})).unwrap();
        assert_eq!(out, "&#60;b&#62; &#42;c&#42;");
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

    #[test]
    fn helpers_write_their_own_escaping_once() {
        let data = json!({"n": 1234, "s": "a|b", "list": [1, 2]});
        let out = render("{{num n}} {{plural list \"file\"}} {{cell_code s}}", data).unwrap();
        assert_eq!(out, "1,234 2 files `a\\|b`");
        let out = render("{{fence \"x\" \"hcl\"}}|{{phrase s}}", json!({"s": "<b>"})).unwrap();
        assert_eq!(out, "```hcl\nx\n```|&lt;b&gt;");
        let err = render("{{num s}}", json!({"s": "x"}))
            .unwrap_err()
            .to_string();
        assert!(err.contains(": `num` expects a number; "), "{err}");
        let err = render("{{code}}", json!({})).unwrap_err().to_string();
        assert!(err.starts_with("test.hbs:1:"), "{err}");
    }

    #[test]
    fn a_syntax_error_is_reported_on_every_use() {
        let mut set = TemplateSet::default();
        set.set(Source {
            name: MAIN.into(),
            origin: "broken.hbs".into(),
            text: "ok\n{{#if x}}".into(),
        });
        let first = set.registry().map(|_| ()).unwrap_err().to_string();
        let second = set.registry().map(|_| ()).unwrap_err().to_string();
        assert!(first.starts_with("broken.hbs:2:"), "{first}");
        assert_eq!(first, second);
    }
}
