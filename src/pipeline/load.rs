//! Pipeline stage, loading: reads the plans, schemas, log and templates (each input
//! within its size limit, UTF-16 turned to UTF-8), parses and diffs the plans' heads, and
//! hands them on as [`Loaded`] plans whose resource changes are diffed on demand.
//!
//! Contract: bad input fails here, before any output, with an [`InputError`] naming the
//! file; each marker hash is computed beside its plan's parse.

use std::io::Read;
use std::path::Path;

use super::error::{PipelineError, Result};
use super::options::{LogInput, LogKind, Options, PlanArg};
use crate::concurrency;
use crate::diff::undescribed::{self, Tally, Undescribed};
use crate::diff::{Changes, PlanHead, ResourceChanges};
use crate::differ::{CanonicalForms, Differ};
use crate::input::error::InputError;
use crate::input::hash::plan_sha256;
use crate::input::log::apply::{parse_apply_log, Action, ApplyLog};
use crate::input::log::{parse_log, PlanLog};
use crate::input::plan::{parse_plan, Plan};
use crate::input::schema::ProviderSchemas;
use crate::policy::{Gated, Policy, Violation};
use crate::render::markdown::{Source, TemplateSet};

/// A plan read and parsed, its head (drift, outputs, checks) diffed, its resource changes
/// ready to diff on demand (a renderer diffs only what it shows; the text streams them).
pub(super) struct Loaded<'l> {
    pub(crate) arg: PlanArg,
    pub(crate) head: PlanHead,
    pub(crate) resources: Box<dyn ResourceChanges + Sync + 'l>,
    /// The drift shown, each diff made on demand like the resource changes'.
    pub(crate) drift: Box<dyn ResourceChanges + Sync + 'l>,
    /// The input's SHA-256 for the marker (empty when not asked for).
    pub(crate) sha256: String,
    /// The plan's JSON document as it was read, the Rego policies' `input`.
    pub(crate) json: &'l [u8],
    /// Its changes' canonical forms, which the marker's hashes are made of.
    pub(crate) canonical: &'l (dyn CanonicalForms + 'l),
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

/// Plans of these sizes get their templates compiled beside their parse, on the core the
/// parse leaves idle, as for the many entries such a plan has
/// (`TemplateSet::compile_ahead`; docs/performance.md). Below, the plan's own entry count
/// decides how they are compiled, which costs more than the short parse hides; above, the
/// compile is a small part of the run, and the scratch memory it frees on the other
/// thread stays with that thread's allocator heap, adding a few MB to the peak that the
/// 100k plans' memory target bounds.
const COMPILE_BESIDE: std::ops::Range<usize> = (1 << 20)..(32 << 20);

/// The plan in `bytes` (read from `path`, named in errors) and, when `hash` asks for it,
/// its SHA-256 for the marker, computed beside the parse (docs/performance.md); the
/// `templates` are compiled beside the parse too when the plan is big.
fn parse_and_hash<'b>(
    path: &str,
    bytes: &'b [u8],
    hash: bool,
    templates: Option<&TemplateSet>,
) -> (std::result::Result<Plan<'b>, InputError>, String) {
    let templates = templates.filter(|_| COMPILE_BESIDE.contains(&bytes.len()));
    if !hash && templates.is_none() {
        return (parse_plan(path, bytes), String::new());
    }
    let beside = || {
        if let Some(templates) = templates {
            templates.compile_ahead();
        }
        match hash {
            true => plan_sha256(bytes),
            false => String::new(),
        }
    };
    let (sha256, plan) = concurrency::beside(beside, || parse_plan(path, bytes));
    (plan, sha256)
}

/// Plans among several that could not be read: (name, the error), for the comment and
/// the exit code.
pub(super) type Unreadable = Vec<(String, PipelineError)>;

/// Reads the schemas and every plan, parses them (bad input fails here, before any
/// output) and runs `run` on them; checks the templates first when they will be used, so
/// a broken template fails fast. `hash`: compute each input's SHA-256 for the marker.
///
/// A file of several documents (Terragrunt's `run-all show -json`) gives one plan per
/// document. When several plans are given and some of them cannot be read, `run` gets
/// the others and the unreadable ones (by name, with their errors); its result is then
/// replaced by [`PipelineError::Unreadable`], after its output. A single plan that cannot
/// be read, or none readable, fails before any output, as ever.
pub(super) fn with_loaded<T, E: From<PipelineError>>(
    options: &Options,
    templates: Option<&TemplateSet>,
    hash: bool,
    run: impl FnOnce(&[Loaded<'_>], &[(String, String)]) -> Result<T, E>,
) -> Result<T, E> {
    let schemas = load_schemas(options)?;
    if let Some(templates) = templates {
        templates.check().map_err(PipelineError::from)?;
    }
    let mut inputs = Vec::with_capacity(options.plans.len());
    for arg in &options.plans {
        let arg = arg.clone();
        if arg.path == "-" && std::io::IsTerminal::is_terminal(&std::io::stdin()) {
            // Otherwise a `-` typed at a terminal waits for input with no word of why.
            eprintln!(
                "planmark: reading the plan from standard input (end it with Ctrl-D, or pass the plan's path instead of -)"
            );
        }
        let bytes = read_input_at_most(&arg.path, options.max_input_size)?;
        inputs.push((arg, bytes));
    }
    // Each plan read: its argument, the plan, its hash.
    let mut plans = Vec::with_capacity(inputs.len());
    let mut unreadable: Unreadable = Vec::new();
    for (arg, bytes) in &inputs {
        let err = match parse_and_hash(&arg.path, bytes, hash, templates) {
            (Ok(plan), sha256) => {
                plans.push((arg.clone(), plan, sha256, bytes.as_slice()));
                continue;
            }
            (Err(err), _) => err,
        };
        let Some(documents) = crate::input::plan::documents::split(bytes) else {
            unreadable.push((arg.name.clone(), err.into()));
            continue;
        };
        for (n, document) in documents.iter().enumerate() {
            let doc_arg = document_arg(arg, n + 1, document.label.as_deref());
            let place = format!("{}: document {} ({})", arg.path, n + 1, doc_arg.name);
            match parse_and_hash(&place, document.bytes, hash, templates) {
                (Ok(plan), sha256) => plans.push((doc_arg, plan, sha256, document.bytes)),
                (Err(err), _) => unreadable.push((doc_arg.name, err.into())),
            }
        }
    }
    // One plan, or none readable: its error, before any output.
    if !unreadable.is_empty() && plans.is_empty() {
        return Err(unreadable.swap_remove(0).1.into());
    }
    let mut hashes = Vec::with_capacity(plans.len());
    let (plan_args, plans): (Vec<PlanArg>, Vec<_>) = plans
        .into_iter()
        .map(|(arg, plan, sha256, json)| {
            hashes.push((sha256, json));
            (arg, plan)
        })
        .unzip();
    let differs: Vec<Differ> = plan_args
        .iter()
        .zip(&plans)
        .map(|(arg, plan)| Differ::new(&arg.path, plan, schemas.as_ref()).with_tool(options.tool))
        .collect();
    let mut loaded = Vec::with_capacity(differs.len());
    for ((arg, (sha256, json)), differ) in plan_args.iter().zip(hashes).zip(&differs) {
        let head = differ
            .head(options.plan_mode)
            .map_err(PipelineError::from)?;
        if head.provider_sensitivity_unknown {
            warn_provider_sensitivity(&arg.path, head.terraform_version.as_deref());
        }
        if !head.unknown_actions.is_empty() {
            warn_unknown_actions(&arg.path, &head.unknown_actions);
        }
        if !head.undescribed.is_empty() {
            warn_undescribed(&arg.name, options.schemas.as_deref(), &head.undescribed);
        }
        let drift = Box::new(differ.drift(head.mode).map_err(PipelineError::from)?);
        loaded.push(Loaded {
            arg: arg.clone(),
            head,
            resources: Box::new(differ.lazy()),
            drift,
            sha256,
            json,
            canonical: differ,
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
        false => {
            Err(PipelineError::Unreadable(unreadable.into_iter().map(|(_, e)| e).collect()).into())
        }
    }
}

/// Says on standard error that a plan's provider-declared secrets cannot be recognised
/// (the comment says it too, see `PlanHead::provider_sensitivity_unknown`).
fn warn_provider_sensitivity(path: &str, version: Option<&str>) {
    let made_by = match version {
        Some(v) => format!("Terraform {}", crate::input::text::one_line(v)),
        None => "an old Terraform (format 0.x, no version recorded)".to_string(),
    };
    eprintln!(
        "planmark: warning: {}: made by {made_by}, before 0.15.2, whose plans leave provider-declared \
         sensitive attributes unmarked; without --schemas they cannot be recognised and only \
         attributes named like secrets are hidden: pass --schemas FILE (`terraform providers \
         schema -json`; the action's `schemas: auto`)",
        crate::input::text::one_line(path)
    );
}

/// Says on standard error which changes have an action list planmark does not know (the
/// comment's headline counts them too): never a change taken for nothing.
fn warn_unknown_actions(path: &str, unknown: &[(String, String)]) {
    const SHOWN: usize = 3;
    let one_line = crate::input::text::one_line;
    let mut named: Vec<String> = unknown
        .iter()
        .take(SHOWN)
        .map(|(address, actions)| format!("{} (actions {})", one_line(address), one_line(actions)))
        .collect();
    if unknown.len() > SHOWN {
        named.push(format!("and {} more", unknown.len() - SHOWN));
    }
    let changes = match unknown.len() {
        1 => "1 resource change has an action list".to_string(),
        n => format!("{n} resource changes have action lists"),
    };
    eprintln!(
        "planmark: warning: {}: {changes} planmark does not know: {}; shown with `?` and not \
         counted as any action. Was the plan made by a newer Terraform? Upgrade planmark, and \
         review these changes in Terraform's own output",
        one_line(path),
        named.join(", ")
    );
}

/// Names listed on standard error before the rest is counted.
const UNDESCRIBED_LISTED: usize = 5;

/// Says on standard error what the schemas do not describe of plan `name` (the comment
/// says it too, see `PlanHead::undescribed`): the first few names and the counts.
fn warn_undescribed(name: &str, schemas: Option<&Path>, gaps: &[Undescribed]) {
    let one_line = crate::input::text::one_line;
    let mut listed = String::new();
    let mut last_provider = None;
    let mut shown = 0;
    for (provider, name, whole) in undescribed::names(gaps).take(UNDESCRIBED_LISTED) {
        if last_provider != Some(provider) {
            if last_provider.is_some() {
                listed.push_str("; ");
            }
            listed.push_str(&format!("{}: ", one_line(provider)));
            last_provider = Some(provider);
        } else {
            listed.push_str(", ");
        }
        listed.push_str(&one_line(&name));
        if whole {
            listed.push_str(" (the whole type)");
        }
        shown += 1;
    }
    let total: usize = gaps.iter().map(|g| g.attributes.len().max(1)).sum();
    if shown < total {
        listed.push_str(", …");
    }
    let schemas = schemas.map_or("--schemas".to_string(), |p| {
        one_line(&p.display().to_string()).into_owned()
    });
    eprintln!(
        "planmark: warning: {}: the provider schemas ({schemas}) do not describe {listed} ({}); \
         they are shown as without schemas, inferred from the values. The schemas are likely \
         older than the providers that made the plan: make them where the plan was made \
         (`terraform providers schema -json` after `terraform init`)",
        one_line(name),
        Tally::of(gaps).words(),
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

fn load_schemas(options: &Options) -> Result<Option<ProviderSchemas>> {
    let Some(path) = &options.schemas else {
        return Ok(None);
    };
    let display = path.display().to_string();
    let bytes = read_input_at_most(&display, options.max_input_size)?;
    Ok(Some(ProviderSchemas::parse(&display, &bytes)?))
}

pub(super) fn read_text(path: &Path) -> Result<String> {
    let display = path.display().to_string();
    let bytes = read_input(&display)?;
    String::from_utf8(bytes).map_err(|_| PipelineError::input(&display, "is not UTF-8 text"))
}

/// Built-in templates with [`Options::template_dir`] and [`Options::template`] applied.
pub(super) fn template_set(options: &Options) -> Result<TemplateSet> {
    let mut set = TemplateSet::default();
    if let Some(dir) = &options.template_dir {
        let entries = std::fs::read_dir(dir).map_err(|source| {
            PipelineError::from(InputError::Read {
                path: dir.display().to_string(),
                source,
            })
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
    if let Some(path) = &options.template {
        set.set(Source {
            name: crate::render::markdown::templates::MAIN.to_string(),
            origin: path.display().to_string(),
            text: read_text(path)?,
        });
    }
    Ok(set)
}

/// Reads a file, or standard input for `-`, of at most [`DEFAULT_MAX_INPUT_SIZE`].
pub(crate) fn read_input(path: &str) -> Result<Vec<u8>> {
    read_input_at_most(path, DEFAULT_MAX_INPUT_SIZE)
}

/// Reads a file, or standard input for `-`, refusing more than `max` bytes: a regular
/// file by its size before anything is read, a pipe once `max` bytes have come. UTF-16
/// text (with its byte-order mark) comes back as UTF-8.
pub(crate) fn read_input_at_most(path: &str, max: u64) -> Result<Vec<u8>> {
    let read_error = |source| {
        PipelineError::from(InputError::Read {
            path: path.to_string(),
            source,
        })
    };
    let too_big = |size: Option<u64>| {
        let limit = human_size(max);
        let size = match size {
            Some(size) => format!("is {}; planmark reads at most {limit}", human_size(size)),
            None => format!("is more than {limit}, the most planmark reads"),
        };
        PipelineError::input(
            path,
            format!("{size} (raise the limit with --max-input-size)"),
        )
    };
    let mut bytes = Vec::new();
    if path == "-" {
        let stdin = std::io::stdin().lock();
        stdin.take(max.saturating_add(1)).read_to_end(&mut bytes)
    } else {
        let file = std::fs::File::open(path).map_err(read_error)?;
        let meta = file.metadata().map_err(read_error)?;
        if meta.is_dir() {
            return Err(PipelineError::input(path, "is a directory, not a file"));
        }
        if meta.is_file() && meta.len() > max {
            return Err(too_big(Some(meta.len())));
        }
        // Exactly the file's size (and a byte to see that it has not grown): reading into
        // a growing buffer would double it and copy, nearly tripling the peak memory.
        if meta.is_file() {
            bytes.reserve_exact(usize::try_from(meta.len()).unwrap_or(0).saturating_add(1));
        }
        file.take(max.saturating_add(1)).read_to_end(&mut bytes)
    }
    .map_err(read_error)?;
    if bytes.len() as u64 > max {
        return Err(too_big(None));
    }
    // Windows PowerShell's `>` writes UTF-16: every input is read as UTF-8 from here on.
    Ok(crate::input::encoding::to_utf8(path, bytes)?)
}

/// A log read from [`Options::log`].
pub(super) struct LoadedLog {
    /// The argument (`--failed` and `--applied` may name it).
    pub(crate) arg: PlanArg,
    /// Terraform could not make the plan (`--failed`).
    pub(crate) failed: bool,
    /// What it says (an apply log's diagnostics, for `--applied`).
    pub(crate) log: PlanLog,
    /// `--applied`: what the apply did.
    pub(crate) applied: Option<ApplyLog>,
    /// Its identity in the marker.
    pub(crate) sha256: String,
}

/// Reads and parses the log, if one is given.
pub(super) fn load_log(input: Option<&LogInput>) -> Result<Option<LoadedLog>> {
    let Some(input) = input else {
        return Ok(None);
    };
    let arg = input.arg.clone();
    let bytes = read_input(&arg.path)?;
    let bad = |e: String| PipelineError::input(&arg.path, e);
    let (log, applied) = match input.kind {
        LogKind::Applied => {
            let applied = parse_apply_log(&bytes).map_err(|e| bad(e.to_string()))?;
            (applied.log.clone(), Some(applied))
        }
        _ => (parse_log(&bytes).map_err(|e| bad(e.to_string()))?, None),
    };
    let sha256 = plan_sha256(&bytes);
    Ok(Some(LoadedLog {
        arg,
        failed: input.kind == LogKind::Failed,
        log,
        applied,
        sha256,
    }))
}

/// Adds the reviewed plans' changes to what the apply log says: those it never names were
/// not reached (the plain-text log does not list what was planned).
pub(super) fn add_reviewed(applied: &mut ApplyLog, loaded: &[Loaded<'_>]) {
    let mut planned = Vec::new();
    for l in loaded {
        for (i, s) in l.resources.summaries().iter().enumerate() {
            if !s.is_shown() {
                continue;
            }
            if let Some(action) = Action::planned(s.action, s.importing, s.moved) {
                planned.push((l.resources.address(i), action));
            }
        }
    }
    applied.add_planned(planned);
}

/// The default largest input (`--max-input-size`): 1 GiB. Parsed, a plan takes several
/// times its size in memory, which a 1 GiB plan already asks of a 16 GB hosted runner.
pub const DEFAULT_MAX_INPUT_SIZE: u64 = 1 << 30;

const SIZE_UNITS: [(&str, u64); 3] = [("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)];

/// Parses a size such as `1G`, `500M`, `64K` or a number of bytes (powers of 1024).
pub(crate) fn parse_size(text: &str) -> std::result::Result<u64, String> {
    let upper = text.trim().to_ascii_uppercase();
    let upper = upper
        .strip_suffix("IB")
        .or_else(|| upper.strip_suffix('B'))
        .unwrap_or(&upper);
    let (digits, unit) = SIZE_UNITS
        .iter()
        .find_map(|(suffix, unit)| upper.strip_suffix(suffix).map(|d| (d, *unit)))
        .unwrap_or((upper, 1));
    match digits
        .trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(unit))
    {
        Some(n) if n > 0 => Ok(n),
        _ => Err("expected a size such as 1G, 500M, 64K or a number of bytes".to_string()),
    }
}

/// `n` bytes for people: `2 GiB`, `1.5 MiB`, `300 bytes`.
fn human_size(n: u64) -> String {
    for (suffix, unit) in SIZE_UNITS {
        if n >= unit {
            return if n.is_multiple_of(unit) {
                format!("{} {suffix}iB", n / unit)
            } else {
                format!("{:.1} {suffix}iB", n as f64 / unit as f64)
            };
        }
    }
    format!("{n} bytes")
}

/// The policy gates' violations by the plans (none without gates).
pub(super) fn violations(policy: &Policy, loaded: &[Loaded<'_>]) -> Vec<Violation> {
    if policy.is_empty() {
        return Vec::new();
    }
    let plans: Vec<Gated<'_>> = loaded
        .iter()
        .map(|l| (l.arg.name.as_str(), &l.head, l.changes()))
        .collect();
    crate::policy::evaluate(policy, &plans)
}

/// Default key: the names given, else the paths, joined with `+`.
pub(super) fn default_key(loaded: &[Loaded<'_>]) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_parse_and_print_in_powers_of_1024() {
        for (text, bytes) in [
            ("1G", 1 << 30),
            ("1GiB", 1 << 30),
            ("500m", 500 << 20),
            ("64KB", 64 << 10),
            ("1000", 1000),
        ] {
            assert_eq!(parse_size(text), Ok(bytes), "{text}");
        }
        for bad in ["", "0", "G", "1T", "-1K", "1.5G", "99999999999G"] {
            assert!(parse_size(bad).is_err(), "{bad:?} should be refused");
        }
        assert_eq!(human_size(2 << 30), "2 GiB");
        assert_eq!(human_size(3 << 19), "1.5 MiB");
        assert_eq!(human_size(1023), "1023 bytes");
    }
}
