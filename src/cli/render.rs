//! Command line, `planmark render`: reads the plans (and schemas, templates), runs
//! plan → differ → renderer, and writes the chosen format.

use std::io::Write;
use std::path::Path;

use super::gates::LoadedLog;
use super::{read_input, read_input_at_most, CommonArgs, Format, PlanArg, RenderArgs};
use crate::diff::PlanDiff;
use crate::differ::Differ;
use crate::error::{Error, Result};
use crate::plan::parse_plan;
use crate::policy::Violation;
use crate::render::html::preview_page;
use crate::render::markdown::marker::{marker_line, plan_sha256, MarkerData};
use crate::render::markdown::{render_comment_with, Extras, Meta, NamedPlan, Source, TemplateSet};
use crate::render::text::{render_plan, shows, write_plan};
use crate::schema::ProviderSchemas;

/// A plan read, diffed and identified.
pub(super) struct Loaded {
    pub arg: PlanArg,
    pub diff: PlanDiff,
    pub sha256: String,
}

/// Reads the schemas and plans and diffs them; checks the templates when they will be
/// used (before reading plans, so a broken template fails fast).
pub(super) fn load(
    args: &CommonArgs,
    mode: Option<crate::diff::PlanMode>,
    templates: Option<&TemplateSet>,
) -> Result<Vec<Loaded>> {
    let schemas = load_schemas(args)?;
    if let Some(templates) = templates {
        templates.registry()?;
    }
    let mut loaded = Vec::with_capacity(args.plans.len());
    for raw in &args.plans {
        let arg = PlanArg::parse(raw);
        let bytes = read_input_at_most(&arg.path, args.max_input_size)?;
        // The marker's hash reads the whole input: on another core, beside the diff.
        let (diff, sha256) = std::thread::scope(|scope| {
            let sha256 = scope.spawn(|| plan_sha256(&bytes));
            let diff = parse_plan(&arg.path, &bytes).and_then(|plan| {
                crate::differ::diff_plan(&arg.path, &plan, schemas.as_ref(), mode)
            });
            let sha256 = sha256
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
            (diff, sha256)
        });
        loaded.push(Loaded {
            arg,
            diff: diff?,
            sha256,
        });
    }
    Ok(loaded)
}

fn load_schemas(args: &CommonArgs) -> Result<Option<ProviderSchemas>> {
    let Some(path) = &args.schemas else {
        return Ok(None);
    };
    let display = path.display().to_string();
    let bytes = read_input_at_most(&display, args.max_input_size)?;
    Ok(Some(ProviderSchemas::parse(&display, &bytes)?))
}

/// `--format text` without policy gates, streamed: every plan is read and checked first
/// (bad input fails before anything is written), then each is diffed a chunk at a time and
/// written as it goes, so a huge plan's diff trees and text are never all in memory.
fn stream_text(args: &RenderArgs, out: &mut dyn Write) -> Result<()> {
    let common = &args.common;
    let schemas = load_schemas(common)?;
    let mut inputs = Vec::with_capacity(common.plans.len());
    for raw in &common.plans {
        let arg = PlanArg::parse(raw);
        let bytes = read_input_at_most(&arg.path, common.max_input_size)?;
        inputs.push((arg, bytes));
    }
    let plans = inputs
        .iter()
        .map(|(arg, bytes)| parse_plan(&arg.path, bytes))
        .collect::<Result<Vec<_>>>()?;
    let log = super::gates::load_log(&common.log)?;
    let mut parts = Vec::with_capacity(plans.len());
    for ((arg, _), plan) in inputs.iter().zip(&plans) {
        let differ = Differ::new(&arg.path, plan, schemas.as_ref());
        let head = differ.head(args.mode.plan_mode())?;
        // Only drift makes the text ask whether the resources' bodies change anything.
        let summaries = differ.summaries(!head.drift.is_empty())?;
        parts.push((differ, head, summaries));
    }
    let write =
        |out: &mut dyn Write, text: &str| out.write_all(text.as_bytes()).map_err(Error::Write);
    for (i, ((arg, _), (differ, head, summaries))) in inputs.iter().zip(&parts).enumerate() {
        if parts.len() > 1 {
            write(
                out,
                &format!("{}## {}\n", if i > 0 { "\n" } else { "" }, arg.name),
            )?;
        }
        let resources = differ.resources(|ix| shows(&summaries[ix]));
        write_plan(head, summaries, resources, out)?;
    }
    if let Some(log) = &log {
        if common.log.failed.is_some() {
            write(out, "Terraform could not make the plan.\n")?;
        }
        write(out, &super::gates::log_text(&log.log))?;
    }
    out.flush().map_err(Error::Write)
}

pub(super) fn render(args: RenderArgs, out: &mut dyn Write) -> Result<()> {
    if matches!(args.format, Format::Text) && args.common.policy.policy().is_empty() {
        return stream_text(&args, out);
    }
    let templates = template_set(&args.common)?;
    let comment_format = !matches!(args.format, Format::Text);
    let loaded = load(
        &args.common,
        args.mode.plan_mode(),
        comment_format.then_some(&templates),
    )?;
    let args_common = &args.common;
    let log = super::gates::load_log(&args_common.log)?;
    let violations = violations(args_common, &loaded);
    let text = match args.format {
        Format::Text => {
            let mut text = text(&loaded);
            if let Some(log) = &log {
                if args_common.log.failed.is_some() {
                    text.push_str("Terraform could not make the plan.\n");
                }
                text.push_str(&super::gates::log_text(&log.log));
            }
            text
        }
        format => {
            let meta = meta(args_common, &loaded, log.as_ref());
            let plans = named(&loaded);
            let extras = extras(args_common, log.as_ref(), &violations);
            let comment =
                render_comment_with(&plans, &meta, &extras, &templates, args_common.max_chars)?;
            match format {
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
            }
        }
    };
    out.write_all(text.as_bytes()).map_err(Error::Write)?;
    out.flush().map_err(Error::Write)?;
    policy_result(violations)
}

/// The policy gates' violations by the plans (none without gates).
pub(super) fn violations(args: &CommonArgs, loaded: &[Loaded]) -> Vec<Violation> {
    let policy = args.policy.policy();
    if policy.is_empty() {
        return Vec::new();
    }
    let plans: Vec<(&str, &PlanDiff)> = loaded
        .iter()
        .map(|l| (l.arg.name.as_str(), &l.diff))
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
pub(super) fn named(loaded: &[Loaded]) -> Vec<NamedPlan<'_>> {
    loaded
        .iter()
        .map(|l| NamedPlan {
            name: &l.arg.name,
            diff: &l.diff,
        })
        .collect()
}

/// Terraform's text; several plans each under a `## NAME` heading.
fn text(loaded: &[Loaded]) -> String {
    let mut text = String::new();
    for (i, l) in loaded.iter().enumerate() {
        if loaded.len() > 1 {
            if i > 0 {
                text.push('\n');
            }
            text.push_str(&format!("## {}\n", l.arg.name));
        }
        text.push_str(&render_plan(&l.diff));
    }
    text
}

/// Default key: the names given, else the paths, joined with `+`.
fn default_key(loaded: &[Loaded]) -> String {
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

pub(super) fn meta(args: &CommonArgs, loaded: &[Loaded], log: Option<&LoadedLog>) -> Meta {
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
