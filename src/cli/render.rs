//! Command line, `planmark render`: reads the plans (and schemas, templates), runs
//! plan → differ → renderer, and writes the chosen format.

use std::io::Write;
use std::path::Path;

use super::gates::LoadedLog;
use super::{read_input, read_input_at_most, CommonArgs, Format, PlanArg, RenderArgs};
use crate::concurrency;
use crate::diff::{Changes, PlanHead, ResourceChanges};
use crate::differ::Differ;
use crate::error::{Error, Result};
use crate::plan::{parse_plan, Plan};
use crate::policy::Violation;
use crate::render::html::preview_page;
use crate::render::markdown::marker::{marker_line, plan_sha256, MarkerData};
use crate::render::markdown::{
    render_comment_with, Comment, Extras, Meta, NamedPlan, Source, TemplateSet,
};
use crate::render::text::write_plan;
use crate::schema::ProviderSchemas;

/// A plan read and parsed, its head (drift, outputs, checks) diffed, its resource changes
/// ready to diff on demand (a renderer diffs only what it shows; the text streams them).
pub(super) struct Loaded<'l> {
    pub arg: PlanArg,
    pub head: PlanHead,
    pub resources: Box<dyn ResourceChanges + Sync + 'l>,
    /// The drift shown, each diff made on demand like the resource changes'.
    pub drift: Box<dyn ResourceChanges + Sync + 'l>,
    /// The input's SHA-256 for the marker (empty when not asked for).
    pub sha256: String,
}

impl Loaded<'_> {
    /// The resource changes and drift, as renderers read them.
    pub(super) fn changes(&self) -> Changes<'_> {
        Changes {
            resources: &*self.resources,
            drift: &*self.drift,
        }
    }
}

/// The plan in `bytes` (read from `path`, named in errors) and, when `hash` asks for it,
/// its SHA-256 for the marker, computed beside the parse (docs/performance.md).
fn parse_and_hash<'b>(path: &str, bytes: &'b [u8], hash: bool) -> (Result<Plan<'b>>, String) {
    match hash {
        true => {
            let (sha256, plan) =
                concurrency::beside(|| plan_sha256(bytes), || parse_plan(path, bytes));
            (plan, sha256)
        }
        false => (parse_plan(path, bytes), String::new()),
    }
}

/// Plans among several that could not be read: (name, the error), for the comment and
/// the exit code.
pub(super) type Unreadable = Vec<(String, Error)>;

/// Reads the schemas and every plan, parses them (bad input fails here, before any
/// output) and runs `run` on them; checks the templates first when they will be used, so
/// a broken template fails fast. `hash`: compute each input's SHA-256 for the marker.
///
/// A file of several documents (Terragrunt's `run-all show -json`) gives one plan per
/// document. When several plans are given and some of them cannot be read, `run` gets
/// the others and the unreadable ones (by name, with their errors); its result is then
/// replaced by the errors (exit 2), after its output. A single plan that cannot be read,
/// or none readable, fails before any output, as ever.
pub(super) fn with_loaded<T>(
    args: &CommonArgs,
    mode: Option<crate::diff::PlanMode>,
    templates: Option<&TemplateSet>,
    hash: bool,
    run: impl FnOnce(&[Loaded<'_>], &[(String, String)]) -> Result<T>,
) -> Result<T> {
    let schemas = load_schemas(args)?;
    if let Some(templates) = templates {
        templates.check()?;
    }
    let mut inputs = Vec::with_capacity(args.plans.len());
    for raw in &args.plans {
        let arg = PlanArg::parse(raw);
        if arg.path == "-" && std::io::IsTerminal::is_terminal(&std::io::stdin()) {
            // Otherwise a `-` typed at a terminal waits for input with no word of why.
            eprintln!(
                "planmark: reading the plan from standard input (end it with Ctrl-D, or pass the plan's path instead of -)"
            );
        }
        let bytes = read_input_at_most(&arg.path, args.max_input_size)?;
        inputs.push((arg, bytes));
    }
    // Each plan read: its argument, the plan, its hash.
    let mut plans = Vec::with_capacity(inputs.len());
    let mut unreadable: Unreadable = Vec::new();
    for (arg, bytes) in &inputs {
        let err = match parse_and_hash(&arg.path, bytes, hash) {
            (Ok(plan), sha256) => {
                plans.push((arg.clone(), plan, sha256));
                continue;
            }
            (Err(err), _) => err,
        };
        let Some(documents) = crate::plan::documents::split(bytes) else {
            unreadable.push((arg.name.clone(), err));
            continue;
        };
        for (n, document) in documents.iter().enumerate() {
            let doc_arg = document_arg(arg, n + 1, document.label);
            let place = format!("{}: document {} ({})", arg.path, n + 1, doc_arg.name);
            match parse_and_hash(&place, document.bytes, hash) {
                (Ok(plan), sha256) => plans.push((doc_arg, plan, sha256)),
                (Err(err), _) => unreadable.push((doc_arg.name, err)),
            }
        }
    }
    // One plan, or none readable: its error, before any output.
    if !unreadable.is_empty() && plans.is_empty() {
        return Err(unreadable.swap_remove(0).1);
    }
    let mut hashes = Vec::with_capacity(plans.len());
    let (plan_args, plans): (Vec<PlanArg>, Vec<_>) = plans
        .into_iter()
        .map(|(arg, plan, sha256)| {
            hashes.push(sha256);
            (arg, plan)
        })
        .unzip();
    let differs: Vec<Differ> = plan_args
        .iter()
        .zip(&plans)
        .map(|(arg, plan)| {
            Differ::new(&arg.path, plan, schemas.as_ref()).with_tool(args.tool.tool())
        })
        .collect();
    let mut loaded = Vec::with_capacity(differs.len());
    for ((arg, sha256), differ) in plan_args.iter().zip(hashes).zip(&differs) {
        let head = differ.head(mode)?;
        if head.provider_sensitivity_unknown {
            warn_provider_sensitivity(&arg.path, head.terraform_version.as_deref());
        }
        let drift = Box::new(differ.drift(head.mode)?);
        loaded.push(Loaded {
            arg: arg.clone(),
            head,
            resources: Box::new(differ.lazy()),
            drift,
            sha256,
        });
    }
    let shown: Vec<(String, String)> = unreadable
        .iter()
        .map(|(name, err)| (name.clone(), err.to_string()))
        .collect();
    let result = run(&loaded, &shown);
    match unreadable.is_empty() {
        true => result,
        // After the output (and the comment posted): exit 2 naming each one.
        false => Err(Error::Unreadable(
            unreadable.into_iter().map(|(_, e)| e).collect(),
        )),
    }
}

/// Says on standard error that a plan's provider-declared secrets cannot be recognised
/// (the comment says it too, see `PlanHead::provider_sensitivity_unknown`).
fn warn_provider_sensitivity(path: &str, version: Option<&str>) {
    let made_by = match version {
        Some(v) => format!("Terraform {}", crate::error::one_line(v)),
        None => "an old Terraform (format 0.x, no version recorded)".to_string(),
    };
    eprintln!(
        "planmark: warning: {}: made by {made_by}, before 0.15.2, whose plans leave provider-declared \
         sensitive attributes unmarked; without --schemas they cannot be recognised and only \
         attributes named like secrets are hidden: pass --schemas FILE (`terraform providers \
         schema -json`; the action's `schemas: auto`)",
        crate::error::one_line(path)
    );
}

/// The argument of document `n` of `arg`'s file: named by its module directory when the
/// line says it, else by its order (`NAME.N`).
fn document_arg(arg: &PlanArg, n: usize, label: Option<&str>) -> PlanArg {
    let name = match label {
        Some(dir) => dir.to_string(),
        None => format!("{}.{n}", arg.name),
    };
    PlanArg {
        name,
        path: arg.path.clone(),
        named: arg.named,
    }
}

fn load_schemas(args: &CommonArgs) -> Result<Option<ProviderSchemas>> {
    let Some(path) = &args.schemas else {
        return Ok(None);
    };
    let display = path.display().to_string();
    let bytes = read_input_at_most(&display, args.max_input_size)?;
    Ok(Some(ProviderSchemas::parse(&display, &bytes)?))
}

pub(super) fn render(args: RenderArgs, out: &mut dyn Write) -> Result<()> {
    let common = &args.common;
    let comment_format = !matches!(args.format, Format::Text);
    let templates = template_set(common)?;
    let mode = args.plan_mode().plan_mode();
    let templates_used = comment_format.then_some(&templates);
    with_loaded(
        common,
        mode,
        templates_used,
        comment_format,
        |loaded, unreadable| {
            let log = super::gates::load_log(&common.log)?;
            let violations = violations(common, loaded);
            match args.format {
                Format::Text => {
                    let log = log.as_ref().map(|l| &l.log);
                    write_text(loaded, !unreadable.is_empty(), log, common, out)?
                }
                format => {
                    let extras = extras(common, log.as_ref(), &violations, unreadable);
                    let marked = Marked {
                        args: common,
                        loaded,
                        log: log.as_ref(),
                        extras: &extras,
                        templates: &templates,
                    };
                    let (meta, comment) = marked.render(common.max_chars)?;
                    let text = match format {
                        Format::Html => {
                            let title = format!("planmark — {}", meta.key);
                            preview_page(&comment.markdown, &title)
                        }
                        Format::Json => {
                            let mut json = serde_json::to_string_pretty(&comment.context)
                                .map_err(|e| Error::Write(std::io::Error::other(e)))?;
                            json.push('\n');
                            json
                        }
                        _ => comment.markdown,
                    };
                    out.write_all(text.as_bytes()).map_err(Error::Write)?;
                }
            }
            out.flush().map_err(Error::Write)?;
            policy_result(violations)
        },
    )
}

/// Terraform's text, streamed: each plan (under a `## NAME` heading when there are
/// several, counting the `unreadable` ones) is diffed a chunk at a time and written as it goes, so a huge plan's diff
/// trees and text are never all in memory; then the log's diagnostics.
fn write_text(
    loaded: &[Loaded<'_>],
    unreadable: bool,
    log: Option<&crate::log::PlanLog>,
    common: &CommonArgs,
    out: &mut dyn Write,
) -> Result<()> {
    let write =
        |out: &mut dyn Write, text: &str| out.write_all(text.as_bytes()).map_err(Error::Write);
    for (i, l) in loaded.iter().enumerate() {
        // Headed when several plans were given, some perhaps unreadable (on stderr).
        if loaded.len() > 1 || unreadable {
            let gap = if i > 0 { "\n" } else { "" };
            // A name from the command line stays on its heading's line.
            let name = crate::error::one_line(&l.arg.name);
            write(out, &format!("{gap}## {name}\n"))?;
        }
        write_plan(&l.head, l.changes(), out)?;
    }
    if let Some(log) = log {
        if common.log.failed.is_some() {
            let tool = common.tool.tool().unwrap_or_default();
            write(out, &format!("{} could not make the plan.\n", tool.name()))?;
        }
        write(out, &super::gates::log_text(log))?;
    }
    Ok(())
}

/// The policy gates' violations by the plans (none without gates).
pub(super) fn violations(args: &CommonArgs, loaded: &[Loaded<'_>]) -> Vec<Violation> {
    let policy = args.policy.policy();
    if policy.is_empty() {
        return Vec::new();
    }
    let plans: Vec<crate::policy::Gated<'_>> = loaded
        .iter()
        .map(|l| (l.arg.name.as_str(), &l.head, l.changes()))
        .collect();
    crate::policy::evaluate(&policy, &plans)
}

/// Exit code 3 (after the output is written) when the plans break a gate.
pub(super) fn policy_result(violations: Vec<Violation>) -> Result<()> {
    if violations.is_empty() {
        return Ok(());
    }
    Err(Error::Policy(
        violations.iter().map(ToString::to_string).collect(),
    ))
}

/// What the comment shows besides the plans: the log, the violations, a failed plan.
pub(super) fn extras<'a>(
    args: &'a CommonArgs,
    log: Option<&'a LoadedLog>,
    violations: &'a [Violation],
    unreadable: &'a [(String, String)],
) -> Extras<'a> {
    Extras {
        failed: args
            .log
            .failed
            .is_some()
            .then(|| log.map(|l| l.arg.name.as_str()))
            .flatten(),
        log: log.map(|l| &l.log),
        violations,
        unreadable,
    }
}

/// The plans as the renderer takes them.
pub(super) fn named<'a>(loaded: &'a [Loaded<'_>]) -> Vec<NamedPlan<'a>> {
    loaded
        .iter()
        .map(|l| NamedPlan {
            name: &l.arg.name,
            head: &l.head,
            changes: l.changes(),
        })
        .collect()
}

/// Default key: the names given, else the paths, joined with `+`.
fn default_key(loaded: &[Loaded<'_>]) -> String {
    loaded
        .iter()
        .map(|l| {
            if l.arg.named {
                l.arg.name.clone()
            } else {
                l.arg.path.clone()
            }
        })
        .fold(Vec::<String>::new(), |mut keys, key| {
            // The documents of one file are one key.
            if keys.last() != Some(&key) {
                keys.push(key);
            }
            keys
        })
        .join("+")
}

/// What a comment is rendered from ([`Marked::render`]).
pub(super) struct Marked<'m, 'l> {
    pub args: &'m CommonArgs,
    pub loaded: &'m [Loaded<'l>],
    pub log: Option<&'m LoadedLog>,
    pub extras: &'m Extras<'m>,
    pub templates: &'m TemplateSet,
}

impl Marked<'_, '_> {
    /// The comment within `max_chars`, and its metadata.
    pub(super) fn render(&self, max_chars: usize) -> Result<(Meta, Comment)> {
        let meta = meta(self.args, self.loaded, self.log);
        let plans = named(self.loaded);
        let comment = render_comment_with(&plans, &meta, self.extras, self.templates, max_chars)?;
        Ok((meta, comment))
    }
}

/// The comment's metadata; its marker identifies the plans by their hashes.
fn meta(args: &CommonArgs, loaded: &[Loaded<'_>], log: Option<&LoadedLog>) -> Meta {
    let run = super::run_info(&|name| std::env::var(name).ok());
    // A failed plan's comment has the key its plan's comment would have (`NAME=`, else the
    // path), so that each run updates the other's comment in place.
    let failed = log.filter(|_| args.log.failed.is_some());
    let key = args.key.clone().unwrap_or_else(|| match failed {
        Some(log) if log.arg.named => log.arg.name.clone(),
        Some(log) => log.arg.path.clone(),
        None => default_key(loaded),
    });
    let plan_sha256 = match (loaded, failed) {
        (_, Some(log)) => log.sha256.clone(),
        ([one], None) => one.sha256.clone(),
        (many, None) => {
            let lines: String = many
                .iter()
                .map(|l| format!("{}={}\n", l.arg.name, l.sha256))
                .collect();
            plan_sha256(serde_json::to_string(&lines).unwrap_or_default().as_bytes())
        }
    };
    let marker = marker_line(&MarkerData {
        key: key.clone(),
        plan_sha256,
        commit: run.commit.clone(),
        run_id: run.run_id,
        run_attempt: run.run_attempt,
        time: run.time.clone(),
    });
    Meta {
        title: args.title.clone(),
        key,
        commit: run.commit,
        run_url: run.run_url,
        time: run.time,
        marker,
        tool: args.tool.tool(),
    }
}

fn read_text(path: &Path) -> Result<String> {
    let display = path.display().to_string();
    let bytes = read_input(&display)?;
    String::from_utf8(bytes).map_err(|_| Error::input(&display, "is not UTF-8 text"))
}

/// Built-in templates with `--templates DIR` and `--template FILE` applied.
pub(super) fn template_set(args: &CommonArgs) -> Result<TemplateSet> {
    let mut set = TemplateSet::default();
    if let Some(dir) = &args.templates {
        let entries = std::fs::read_dir(dir).map_err(|source| Error::Read {
            path: dir.display().to_string(),
            source,
        })?;
        let mut paths: Vec<_> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "hbs"))
            .collect();
        paths.sort();
        for path in paths {
            let name = path
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            set.set(Source {
                name,
                origin: path.display().to_string(),
                text: read_text(&path)?,
            });
        }
    }
    if let Some(path) = &args.template {
        set.set(Source {
            name: crate::render::markdown::templates::MAIN.to_string(),
            origin: path.display().to_string(),
            text: read_text(path)?,
        });
    }
    Ok(set)
}
