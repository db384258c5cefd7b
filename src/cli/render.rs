//! Command line, `planmark render`: reads the plans (and schemas, templates), runs
//! plan → differ → renderer, and writes the chosen format.

use std::io::Write;
use std::path::Path;

use super::gates::LoadedLog;
use super::{read_input, read_input_at_most, CommonArgs, Format, PlanArg, RenderArgs};
use crate::diff::{PlanDiff, ResourceChanges};
use crate::differ::Differ;
use crate::error::{Error, Result};
use crate::plan::parse_plan;
use crate::policy::Violation;
use crate::render::html::preview_page;
use crate::render::markdown::marker::{marker_line, plan_sha256, MarkerData};
use crate::render::markdown::{render_comment_with, Extras, Meta, NamedPlan, Source, TemplateSet};
use crate::render::text::write_plan;
use crate::schema::ProviderSchemas;

/// A plan read and parsed, its head (drift, outputs, checks) diffed, its resource changes
/// ready to diff on demand (a renderer diffs only what it shows; the text streams them).
pub(super) struct Loaded<'l> {
    pub arg: PlanArg,
    pub head: PlanDiff,
    pub resources: Box<dyn ResourceChanges + Sync + 'l>,
    /// The input's SHA-256 (empty when not asked for).
    pub sha256: String,
}

/// Reads the schemas and every plan, parses them (bad input fails here, before any
/// output) and runs `run` on them; checks the templates first when they will be used, so
/// a broken template fails fast. `hash`: compute each input's SHA-256 for the marker.
pub(super) fn with_loaded<T>(
    args: &CommonArgs,
    mode: Option<crate::diff::PlanMode>,
    templates: Option<&TemplateSet>,
    hash: bool,
    run: impl FnOnce(&[Loaded<'_>]) -> Result<T>,
) -> Result<T> {
    let schemas = load_schemas(args)?;
    if let Some(templates) = templates {
        templates.check()?;
    }
    let mut inputs = Vec::with_capacity(args.plans.len());
    for raw in &args.plans {
        let arg = PlanArg::parse(raw);
        let bytes = read_input_at_most(&arg.path, args.max_input_size)?;
        inputs.push((arg, bytes));
    }
    let input_bytes = inputs.iter().map(|(_, bytes)| bytes.len()).sum();
    std::thread::scope(|scope| {
        // The templates compile on another core while the plans are parsed.
        if let Some(templates) = templates.filter(|t| !t.is_compiled()) {
            let _ = std::thread::Builder::new()
                .spawn_scoped(scope, move || templates.prepare(input_bytes));
        }
        let mut plans = Vec::with_capacity(inputs.len());
        let mut hashes = Vec::with_capacity(inputs.len());
        for (arg, bytes) in &inputs {
            // The marker's hash reads the whole input: on another core, beside the parse.
            let sha256 = hash.then(|| scope.spawn(|| plan_sha256(bytes)));
            let plan = parse_plan(&arg.path, bytes);
            let sha256 = sha256.map(|thread| {
                thread
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic))
            });
            plans.push(plan?);
            hashes.push(sha256.unwrap_or_default());
        }
        let differs: Vec<Differ> = inputs
            .iter()
            .zip(&plans)
            .map(|((arg, _), plan)| Differ::new(&arg.path, plan, schemas.as_ref()))
            .collect();
        let mut loaded = Vec::with_capacity(differs.len());
        for (((arg, _), differ), sha256) in inputs.iter().zip(&differs).zip(hashes) {
            loaded.push(Loaded {
                arg: arg.clone(),
                head: differ.head(mode)?,
                resources: Box::new(differ.lazy()),
                sha256,
            });
        }
        run(&loaded)
    })
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
    let mode = args.mode.plan_mode();
    let templates_used = comment_format.then_some(&templates);
    with_loaded(common, mode, templates_used, comment_format, |loaded| {
        let log = super::gates::load_log(&common.log)?;
        let violations = violations(common, loaded);
        match args.format {
            Format::Text => write_text(loaded, log.as_ref().map(|l| &l.log), common, out)?,
            format => {
                let meta = meta(common, loaded, log.as_ref());
                let plans = named(loaded);
                let extras = extras(common, log.as_ref(), &violations);
                let comment =
                    render_comment_with(&plans, &meta, &extras, &templates, common.max_chars)?;
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
    })
}

/// Terraform's text, streamed: each plan (under a `## NAME` heading when there are
/// several) is diffed a chunk at a time and written as it goes, so a huge plan's diff
/// trees and text are never all in memory; then the log's diagnostics.
fn write_text(
    loaded: &[Loaded<'_>],
    log: Option<&crate::log::PlanLog>,
    common: &CommonArgs,
    out: &mut dyn Write,
) -> Result<()> {
    let write =
        |out: &mut dyn Write, text: &str| out.write_all(text.as_bytes()).map_err(Error::Write);
    for (i, l) in loaded.iter().enumerate() {
        if loaded.len() > 1 {
            let gap = if i > 0 { "\n" } else { "" };
            write(out, &format!("{gap}## {}\n", l.arg.name))?;
        }
        write_plan(&l.head, &*l.resources, out)?;
    }
    if let Some(log) = log {
        if common.log.failed.is_some() {
            write(out, "Terraform could not make the plan.\n")?;
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
        .map(|l| {
            (
                l.arg.name.as_str(),
                &l.head,
                &*l.resources as &dyn ResourceChanges,
            )
        })
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
    }
}

/// The plans as the renderer takes them.
pub(super) fn named<'a>(loaded: &'a [Loaded<'_>]) -> Vec<NamedPlan<'a>> {
    loaded
        .iter()
        .map(|l| NamedPlan {
            name: &l.arg.name,
            diff: &l.head,
            resources: &*l.resources,
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
        .collect::<Vec<_>>()
        .join("+")
}

pub(super) fn meta(args: &CommonArgs, loaded: &[Loaded<'_>], log: Option<&LoadedLog>) -> Meta {
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
