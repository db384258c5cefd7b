//! Markdown renderer, templates: the Handlebars registry (built-in templates from
//! `templates/`, user overrides, the escaping helpers of `helpers.rs`) and template errors
//! that name the file, line and column.
//!
//! Handlebars runs in strict mode (a misspelt field is an error, not an empty string) and
//! its HTML escaping is replaced: a plain `{{value}}` is escaped for inline Markdown by
//! [`escape::inline`], and helpers escape for the other contexts. Helper output is written
//! as is, so the helpers are the only way plan text reaches the comment unescaped-by-us.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::OnceLock;

use handlebars::{Handlebars, RenderError, RenderErrorReason};

use super::escape;
use crate::render::error::{RenderError as TemplateError, Result};

mod helpers;

use helpers::register_helpers;

/// The name of the main template.
pub(crate) const MAIN: &str = "comment";

/// The built-in partials never copied in. The plan part, with everything it includes
/// copied in, is big and nested, and handlebars compiles such a template in time that
/// grows faster than its size (about as long as two renders of a 10k plan's comment).
/// The others are called only when there is something to show (the caller guards the
/// call with the partial's own condition), so copying them in would only make the
/// templates longer to compile for every comment, while calling them costs a copy of the
/// context only for the comments that have them.
const NOT_INLINED: [&str; 14] = [
    "plan",
    "applied",
    "overview",
    "plan_failed",
    "diagnostics",
    "policy",
    "rego",
    "danger",
    "checks",
    "map",
    "invocations",
    "drift",
    "deferred",
    "group",
];

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
    /// the templates costs as much as a render. Whether partials are copied in is decided
    /// by the first use; both forms render the same text.
    compiled: OnceLock<std::result::Result<Handlebars<'static>, Failure>>,
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
    pub(crate) fn set(&mut self, source: Source) {
        self.sources.insert(source.name.clone(), source);
        self.compiled = OnceLock::new();
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
        self.compiled = OnceLock::new();
    }

    /// Checks the templates (the first syntax error, with its place); the built-in ones
    /// need no check.
    pub(crate) fn check(&self) -> Result<()> {
        if self.sources.values().all(|s| self.is_built_in(s)) {
            return Ok(());
        }
        self.registry_for(0).map(|_| ())
    }

    /// Is `source` the built-in template of its name, unchanged?
    fn is_built_in(&self, source: &Source) -> bool {
        BUILT_IN
            .iter()
            .any(|(name, text)| *name == source.name && *text == source.text)
    }

    /// `text` with each line that is only `{{> NAME}}` replaced by the built-in partial
    /// NAME (itself inlined), where NAME is built-in and its text ends with a newline (so
    /// that its last line stays standalone, as in its own file); lines that are only a
    /// comment are dropped.
    fn inline_partials(&self, text: &str, depth: usize) -> String {
        let mut out = String::with_capacity(text.len());
        for line in text.split_inclusive('\n') {
            if is_comment_line(line) {
                // Renders as nothing; dropped, it costs nothing to compile.
                continue;
            }
            let partial = line
                .strip_suffix('\n')
                .and_then(|l| l.strip_prefix("{{> "))
                .and_then(|l| l.strip_suffix("}}"))
                .filter(|name| !NOT_INLINED.contains(name))
                .and_then(|name| self.sources.get(name))
                .filter(|p| depth < 8 && self.is_built_in(p) && p.text.ends_with('\n'));
            match partial {
                Some(p) => out.push_str(&self.inline_partials(&p.text, depth + 1)),
                None => out.push_str(line),
            }
        }
        out
    }

    /// The Handlebars registry for a comment of `entries` entries, or the first syntax error
    /// with its place: compiled on first use, with partials copied in when `entries`
    /// reaches [`TemplateSet::set_inline_from`]; later uses get it as compiled then. A
    /// thread asking while another compiles waits for it.
    pub(crate) fn registry_for(&self, entries: usize) -> Result<Renderer<'_>> {
        let inline = self.inline_from != usize::MAX && entries >= self.inline_from;
        let compiled = self.compiled.get_or_init(|| self.compile(inline));
        match compiled {
            Ok(hb) => Ok(Renderer { hb, set: self }),
            Err(failure) => Err(failure.error()),
        }
    }

    /// Compiles the registry now, as for a comment of many entries, unless it is compiled
    /// already: the pipeline calls this beside a big plan's parse, which hides its cost.
    /// An error is kept and reported by the first use, as ever.
    pub(crate) fn compile_ahead(&self) {
        let _ = self.registry_for(self.inline_from);
    }

    fn compile(&self, inline: bool) -> std::result::Result<Handlebars<'static>, Failure> {
        let mut hb = Handlebars::new();
        hb.set_strict_mode(true);
        hb.set_prevent_indent(true);
        hb.register_escape_fn(escape::inline);
        register_helpers(&mut hb);
        let texts: BTreeMap<&str, String> = self
            .sources
            .values()
            .map(|source| {
                let text = if inline && self.is_built_in(source) {
                    self.inline_partials(&source.text, 0)
                } else {
                    source.text.clone()
                };
                (source.name.as_str(), text)
            })
            .collect();
        // Built-in partials copied everywhere they are called need no registry entry of
        // their own (handlebars' compile time grows faster than a template's length). A
        // user's template may call any partial: then every template is registered.
        let all_built_in = self.sources.values().all(|s| self.is_built_in(s));
        let called = (inline && all_built_in).then(|| called_from(MAIN, &texts));
        for (name, text) in &texts {
            if called.as_ref().is_some_and(|called| !called.contains(name)) {
                continue;
            }
            let source = &self.sources[*name];
            hb.register_template_string(name, text).map_err(|e| {
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

/// The templates `main` calls, directly or through others (and `main`).
fn called_from<'t>(main: &'t str, texts: &'t BTreeMap<&str, String>) -> BTreeSet<&'t str> {
    let mut called = BTreeSet::from([main]);
    let mut pending = vec![main];
    while let Some(name) = pending.pop() {
        let Some(text) = texts.get(name) else {
            continue;
        };
        for callee in partial_calls(text) {
            if let Some((callee, _)) = texts.get_key_value(callee) {
                if called.insert(callee) {
                    pending.push(callee);
                }
            }
        }
    }
    called
}

/// The names in `text`'s partial calls: `{{> NAME`, `{{#> NAME` (block form), with or
/// without `~`.
fn partial_calls(text: &str) -> impl Iterator<Item = &str> {
    text.match_indices("{{").filter_map(move |(at, _)| {
        let rest = text[at + 2..].trim_start_matches('~');
        let rest = rest.strip_prefix('#').unwrap_or(rest);
        let rest = rest.strip_prefix('>')?.trim_start();
        let end = rest
            .find(|c: char| c.is_whitespace() || c == '}' || c == '~')
            .unwrap_or(rest.len());
        Some(&rest[..end])
    })
}

/// Is `line` a comment on a line of its own (`{{!-- … --}}` and a newline), which
/// renders as nothing?
fn is_comment_line(line: &str) -> bool {
    line.strip_suffix('\n')
        .and_then(|l| l.strip_prefix("{{!--"))
        .and_then(|l| l.strip_suffix("--}}"))
        .is_some_and(|inner| !inner.contains("--}}"))
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
        set.registry_for(0)?.render(&data)
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

    fn registered(set: &TemplateSet) -> BTreeSet<String> {
        let hb = set.compiled.get().unwrap().as_ref().unwrap();
        hb.get_templates().keys().cloned().collect()
    }

    #[test]
    fn partial_calls_in_every_form() {
        let text = "{{> a}} x {{~> b~}} {{#> c}}{{/c}} {{> d x=1}} {{>e}} {{!-- {{ --}} {{f}}";
        let calls: Vec<&str> = partial_calls(text).collect();
        assert_eq!(calls, ["a", "b", "c", "d", "e"]);
    }

    #[test]
    fn comment_lines_only_when_alone() {
        assert!(is_comment_line("{{!-- note --}}\n"));
        assert!(
            !is_comment_line("{{!-- note --}}"),
            "no newline: not standalone"
        );
        assert!(!is_comment_line("{{!-- a --}} {{x}} {{!-- b --}}\n"));
        assert!(!is_comment_line("x {{!-- note --}}\n"));
    }

    #[test]
    fn compiled_ahead_as_for_many_entries_and_kept() {
        let ahead = TemplateSet::default();
        ahead.compile_ahead();
        let copied_in = registered(&ahead);
        assert!(copied_in.len() < BUILT_IN.len(), "{copied_in:?}");
        // A later use for a small comment gets the registry compiled ahead.
        ahead.registry_for(1).unwrap();
        assert_eq!(registered(&ahead), copied_in);
        // Never copied in when the set says never.
        let mut never = TemplateSet::default();
        never.set_inline_from(usize::MAX);
        never.compile_ahead();
        assert_eq!(registered(&never).len(), BUILT_IN.len());
    }

    #[test]
    fn copied_in_partials_are_not_registered_again() {
        let mut set = TemplateSet::default();
        set.set_inline_from(0);
        set.registry_for(0).unwrap();
        // The partials never copied in stay registered; check_cell is called within a line.
        let mut expected = BTreeSet::from(["check_cell", "comment"].map(String::from));
        expected.extend(NOT_INLINED.map(String::from));
        assert_eq!(registered(&set), expected);
        // Partials as written: every template registered.
        let plain = TemplateSet::default();
        plain.registry_for(0).unwrap();
        assert_eq!(registered(&plain).len(), BUILT_IN.len());
        // A user's template may call any partial: every one stays registered.
        set.set(Source {
            name: "footer".into(),
            origin: "footer.hbs".into(),
            text: "{{> danger}}\n".into(),
        });
        set.registry_for(0).unwrap();
        assert_eq!(registered(&set).len(), BUILT_IN.len());
    }

    #[test]
    fn the_first_use_decides_how_the_registry_is_compiled() {
        let small = TemplateSet::default();
        small.registry_for(0).unwrap();
        // A later render of many entries keeps the registry compiled first.
        small.registry_for(10_000).unwrap();
        assert_eq!(registered(&small).len(), BUILT_IN.len());
        let big = TemplateSet::default();
        big.registry_for(10_000).unwrap();
        assert_eq!(registered(&big).len(), 2 + NOT_INLINED.len());
        let mut never = TemplateSet::default();
        never.set_inline_from(usize::MAX);
        never.registry_for(10_000).unwrap();
        assert_eq!(registered(&never).len(), BUILT_IN.len());
    }

    #[test]
    fn a_syntax_error_is_reported_on_every_use() {
        let mut set = TemplateSet::default();
        set.set(Source {
            name: MAIN.into(),
            origin: "broken.hbs".into(),
            text: "ok\n{{#if x}}".into(),
        });
        let first = set.registry_for(0).map(|_| ()).unwrap_err().to_string();
        let second = set.registry_for(1000).map(|_| ()).unwrap_err().to_string();
        assert!(first.starts_with("broken.hbs:2:"), "{first}");
        assert_eq!(first, second);
    }
}
