//! Pipeline stage, loading: reads the plans, schemas, log and templates (each input
//! within its size limit, UTF-16 turned to UTF-8) as owned [`Inputs`], parses them
//! ([`Parsed`], borrowing the bytes), diffs the plans' heads and evaluates the policies,
//! and hands them on as [`Loaded`] plans whose resource changes are diffed on demand.
//!
//! Contract: bad input fails here, before any output, with an [`InputError`] naming the
//! file; each marker hash is computed beside its plan's parse.

use std::cell::{Cell, RefCell};
use std::path::Path;

use super::error::{PipelineError, Result};
use super::file::{read_input, read_input_at_most, read_text};
use super::options::{LogInput, LogKind, Options, PlanArg};
use super::policy::Verdicts;
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
use crate::policy::rego::{Policies, PolicyReport};
use crate::policy::{Gated, Policy, Violation};
use crate::render::links::Links;
use crate::render::markdown::{Source, TemplateSet};

/// What the plans are read for, which decides what is read and checked beside them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// The comment (Markdown, HTML, its JSON context): the templates are checked before
    /// the plans are read, and each plan is hashed beside its parse for the marker.
    Comment,
    /// Terraform's text, or `verify`: no template is used, but a `--templates` that
    /// cannot be read fails the same in every format.
    Plans,
}

/// The files a command reads, read: what the parsed plans borrow. Templates and policies
/// are read before the schemas, and the schemas before the plans.
pub struct Inputs {
    purpose: Purpose,
    templates: TemplateSet,
    /// The `--policy` files compiled; evaluating them needs them mutable.
    policies: RefCell<Option<Policies>>,
    schemas: Option<ProviderSchemas>,
    /// Each plan argument and its bytes.
    files: Vec<(PlanArg, Vec<u8>)>,
}

/// Reads what `options` name for `purpose`: bad input fails here, before any output;
/// templates for the comment are checked first, so a broken one fails fast.
pub fn read(options: &Options, purpose: Purpose) -> Result<Inputs> {
    let templates = template_set(options)?;
    let policies = RefCell::new(super::policy::load(options)?);
    let schemas = load_schemas(options)?;
    if purpose == Purpose::Comment {
        templates.check().map_err(PipelineError::from)?;
    }
    let mut files = Vec::with_capacity(options.plans.len());
    for arg in &options.plans {
        if arg.path == "-" && std::io::IsTerminal::is_terminal(&std::io::stdin()) {
            // Otherwise a `-` typed at a terminal waits for input with no word of why.
            eprintln!(
                "planmark: reading the plan from standard input (end it with Ctrl-D, or pass the plan's path instead of -)"
            );
        }
        let bytes = read_input_at_most(&arg.path, options.max_input_size)?;
        files.push((arg.clone(), bytes));
    }
    Ok(Inputs {
        purpose,
        templates,
        policies,
        schemas,
        files,
    })
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

/// The plans parsed, and those among several that could not be.
pub struct Parsed<'i> {
    inputs: &'i Inputs,
    /// Each plan: its argument, the plan, its hash (for the comment), its JSON text.
    plans: Vec<(PlanArg, Plan<'i>, String, &'i [u8])>,
    /// Taken by [`Parsed::load`], which reports them last.
    unreadable: Cell<Unreadable>,
}

impl Inputs {
    /// Parses every plan, each hashed beside its parse for the comment. A file of several
    /// documents (Terragrunt's `run-all show -json`) gives one plan per document. Plans
    /// among several that cannot be read are rendered around (see [`Loaded::finish`]); a
    /// single plan that cannot be read, or none readable, fails here, before any output.
    pub fn parse(&self) -> Result<Parsed<'_>> {
        let hash = self.purpose == Purpose::Comment;
        let templates = hash.then_some(&self.templates);
        let mut plans = Vec::with_capacity(self.files.len());
        let mut unreadable: Unreadable = Vec::new();
        for (arg, bytes) in &self.files {
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
            return Err(unreadable.swap_remove(0).1);
        }
        Ok(Parsed {
            inputs: self,
            plans,
            unreadable: Cell::new(unreadable),
        })
    }
}

impl<'i> Parsed<'i> {
    /// A differ for each plan, through which the loaded plans diff their changes.
    pub fn differs(&self, options: &Options) -> Vec<Differ<'_, 'i>> {
        let schemas = self.inputs.schemas.as_ref();
        self.plans
            .iter()
            .map(|(arg, plan, ..)| Differ::new(&arg.path, plan, schemas).with_tool(options.tool))
            .collect()
    }

    /// Diffs the plans' heads through `differs` (made by [`Parsed::differs`]), then reads
    /// the log and evaluates the policies: everything that can fail before any output.
    pub fn load<'d>(
        &'d self,
        options: &'d Options,
        differs: &'d [Differ<'_, 'i>],
    ) -> Result<Loaded<'d>> {
        let mut plans = Vec::with_capacity(differs.len());
        // Links are the comment's and the annotations'; Terraform's text alone has neither.
        let linked = self.inputs.purpose == Purpose::Comment || options.annotate;
        let linked = self.plans.iter().filter(|_| linked);
        let mut links = super::links::read(options, linked.map(|p| (&p.0, &p.1))).into_iter();
        for ((arg, _, sha256, json), differ) in self.plans.iter().zip(differs) {
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
            plans.push(LoadedPlan {
                arg: arg.clone(),
                head,
                resources: Box::new(differ.lazy()),
                drift,
                sha256: sha256.clone(),
                json,
                canonical: differ,
                links: links.next().flatten(),
            });
        }
        let unreadable = self.unreadable.take();
        let shown = unreadable
            .iter()
            .map(|(name, err)| (name.clone(), err.to_string()))
            .collect();
        let mut loaded = Loaded {
            options,
            plans,
            templates: &self.inputs.templates,
            shown,
            unreadable,
            log: None,
            violations: Vec::new(),
            rego: Vec::new(),
        };
        // Read after the plans: errors from here on give way to the unreadable plans'.
        match loaded.judge(self.inputs) {
            Ok(()) => Ok(loaded),
            Err(err) => loaded.finish(Err(err)),
        }
    }
}

/// A plan read and parsed, its head (drift, outputs, checks) diffed, its resource changes
/// ready to diff on demand (a renderer diffs only what it shows; the text streams them).
pub(super) struct LoadedPlan<'l> {
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
    /// Where its changes are declared, for links and annotations.
    pub(crate) links: Option<Links>,
}

impl LoadedPlan<'_> {
    /// The resource changes and drift, as renderers read them.
    pub(super) fn changes(&self) -> Changes<'_> {
        Changes {
            resources: &*self.resources,
            drift: &*self.drift,
        }
    }
}

/// The loaded plans, with the log and what the policies say of them: what every output
/// is made of.
pub struct Loaded<'d> {
    pub(super) options: &'d Options,
    pub(super) plans: Vec<LoadedPlan<'d>>,
    pub(super) templates: &'d TemplateSet,
    /// The plans that could not be read, as the output names them: (name, the error).
    pub(super) shown: Vec<(String, String)>,
    unreadable: Unreadable,
    pub(super) log: Option<LoadedLog>,
    /// The policy gates the plans break.
    pub(super) violations: Vec<Violation>,
    /// The Rego reports, one per plan.
    pub(super) rego: Vec<PolicyReport>,
}

impl Loaded<'_> {
    /// Reads the log and evaluates the policies. For the comment, an apply's log is told
    /// the reviewed plans' changes, and the gates, which judge a plan before it is
    /// applied, are not checked after an apply.
    fn judge(&mut self, inputs: &Inputs) -> Result<()> {
        let options = self.options;
        self.log = load_log(options.log.as_ref())?;
        let applied = self.log.as_mut().and_then(|l| l.applied.as_mut());
        if let (Purpose::Comment, Some(applied)) = (inputs.purpose, applied) {
            add_reviewed(applied, &self.plans);
            return Ok(());
        }
        self.violations = violations(&options.policy, &self.plans);
        let mut policies = inputs.policies.borrow_mut();
        let schemas = options.schemas.as_deref();
        let plans = self.plans.iter().map(|l| (l.arg.path.as_str(), l.json));
        self.rego = super::policy::evaluate(policies.as_mut(), plans, schemas)?;
        Ok(())
    }

    /// `result`, the work done on these plans, or when plans among several could not be
    /// read, [`PipelineError::Unreadable`] naming each (after the output, and the comment
    /// posted: exit 2).
    pub fn finish<T, E: From<PipelineError>>(
        self,
        result: std::result::Result<T, E>,
    ) -> std::result::Result<T, E> {
        if self.unreadable.is_empty() {
            return result;
        }
        let errors = self.unreadable.into_iter().map(|(_, e)| e).collect();
        Err(PipelineError::Unreadable(errors).into())
    }

    /// The gates' violations and the Rego reports, for the caller to judge.
    pub(crate) fn verdicts(&self) -> Verdicts {
        // Each report with its plan's name when there are several.
        let several = self.plans.len() > 1;
        let rego = self.plans.iter().zip(&self.rego);
        Verdicts {
            violations: self.violations.clone(),
            rego: rego
                .map(|(l, report)| (several.then(|| l.arg.name.clone()), report.clone()))
                .collect(),
            annotations: self.annotations(),
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

/// Built-in templates with [`Options::template_dir`] and [`Options::template`] applied.
pub(super) fn template_set(options: &Options) -> Result<TemplateSet> {
    let mut set = TemplateSet::default();
    if let Some(dir) = &options.template_dir {
        let entries = std::fs::read_dir(dir).map_err(|e| PipelineError::read(dir.display(), e))?;
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

/// A log read from [`Options::log`].
pub(super) struct LoadedLog {
    /// The argument (`--failed` and `--applied` may name it).
    pub(crate) arg: PlanArg,
    /// Terraform could not make the plan (`--failed`).
    pub(crate) failed: bool,
    /// What it says (an apply log's diagnostics, for `--applied`).
    pub log: PlanLog,
    /// `--applied`: what the apply did.
    pub(crate) applied: Option<ApplyLog>,
    /// Its identity in the marker.
    pub(crate) sha256: String,
}

/// Reads and parses the log, if one is given.
fn load_log(input: Option<&LogInput>) -> Result<Option<LoadedLog>> {
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
fn add_reviewed(applied: &mut ApplyLog, loaded: &[LoadedPlan<'_>]) {
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

/// The policy gates' violations by the plans (none without gates).
fn violations(policy: &Policy, loaded: &[LoadedPlan<'_>]) -> Vec<Violation> {
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
pub(super) fn default_key(loaded: &[LoadedPlan<'_>]) -> String {
    let mut keys: Vec<&str> = (loaded.iter())
        .map(|l| {
            if l.arg.named {
                &l.arg.name
            } else {
                &l.arg.path
            }
            .as_str()
        })
        .collect();
    // The documents of one file are one key.
    keys.dedup();
    keys.join("+")
}
