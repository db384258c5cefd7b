//! Markdown renderer, template context: the documented, versioned data every template
//! sees (`planmark render --format json` prints it; `docs/template-context.schema.json`
//! describes it). Strings are raw plan data: templates escape them per context with the
//! helpers, and the default `{{value}}` expression escapes for inline Markdown.
//!
//! This module holds the comment-wide part and `build`; one plan's part is in
//! `plan.rs`, its entries in `entry.rs`, its check results in `checks.rs`.

use schemars::JsonSchema;
use serde::Serialize;

use crate::diff::PlanHead;
use crate::input::plan::{ChangeList, Tool};
use crate::render::error::Result;

use super::applied::{applied, AppliedContext};
use super::budget::{self, Truncation};
use super::catalog::{entry_text, Catalog, Detail, Item};
use super::diff_lines::diff_body;
use super::escape;
use super::invocations::invocation_context;
use super::phrases::{self, icon};
use super::problems::{self, Diagnostics, Extras, FailedPlan, PolicyContext, UnreadablePlan};
use super::source::Plans;

mod checks;
mod count;
mod entry;
mod grouped;
mod map;
mod plan;
mod rego;
mod since;
mod undescribed;

pub use entry::EntryContext;
pub use map::{ChangeMap, MapMode};
pub(crate) use plan::PlanContext;
pub(crate) use since::{since_context, Since, SinceContext, SinceFound};

use entry::{deferred_reason, entry_context, listed, place};
pub(crate) use plan::Counts;
use plan::{bump, plan_context};
use rego::{rego_context, Linkable};

/// Bumped whenever a field is removed or changes meaning (adding fields is compatible).
pub(crate) const SCHEMA_VERSION: u32 = 1;

/// Dangerous entries open by default when a plan has at most this many of them…
const OPEN_DANGEROUS: usize = 3;
/// …and their diff has at most this many lines.
const OPEN_LINES: usize = 40;

/// The whole comment's data.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Context {
    /// Version of this structure (see `docs/template-context.md`).
    pub(crate) schema_version: u32,
    /// "Since the last plan": what moved since the comment this one replaces (the one
    /// `comment` updates, or `render --previous FILE`); `null` on the first comment and
    /// when no comparison applies (a failed plan, an apply).
    pub(crate) since: Option<SinceContext>,
    /// The tool named in the comment: `OpenTofu` when every plan was made by OpenTofu
    /// (or `--tool tofu`), else `Terraform`.
    pub(crate) tool: Tool,
    /// A title given with `--title`, shown instead of the plan name, on one line.
    pub(crate) title: Option<String>,
    /// The comment key (which comment this is, for updating it later).
    pub(crate) key: String,
    /// More than one plan in this comment.
    pub(crate) multiple: bool,
    /// Overall status: `failed`, `destructive`, `changes` or `no-changes`.
    pub(crate) status: String,
    /// Icon for the overall status.
    pub(crate) status_icon: String,
    /// Counts summed over all plans.
    pub(crate) totals: Counts,
    /// How many plans have each status.
    pub(crate) plan_statuses: StatusCounts,
    /// Each plan, in argument order.
    pub plans: Vec<PlanContext>,
    /// Something was left out to fit the size limit.
    pub truncated: bool,
    /// What was left out and why; `null` when nothing was.
    pub truncation: Option<Truncation>,
    /// Versions, commit, run link, time.
    pub(crate) footer: Footer,
    /// The hidden marker line (`<!-- planmark:v1 {...} -->`) that identifies the comment.
    pub marker: String,
    /// `--failed`: Terraform could not make the plan; `plans` is empty and `diagnostics`
    /// says why. `null` otherwise.
    pub(crate) failed: Option<FailedPlan>,
    /// Plans among several that could not be read (not JSON, not a plan, …): shown as
    /// errors beside the others, which `plans` holds; empty otherwise.
    pub(crate) unreadable: Vec<UnreadablePlan>,
    /// Errors and warnings from Terraform's log (`--failed LOG`, `--log FILE`); `null`
    /// without a log.
    pub diagnostics: Option<Diagnostics>,
    /// Policy gates the plans break (`--fail-on`, `--max-destroy`, `--protect`).
    pub policy: PolicyContext,
    /// Failures of the Rego rules (`--policy`) over all plans (each plan's are in its
    /// `rego`).
    pub(crate) rego_failed: usize,
    /// How many plans' sections are left out to fit the size limit (their `collapsed` is
    /// true; the overview table has a row for each).
    pub collapsed_plans: usize,
    /// `--applied`: the outcome of `terraform apply`, shown first; `plans` are then the
    /// reviewed plans (possibly none) and `diagnostics` the apply's. `null` otherwise.
    pub(crate) applied: Option<AppliedContext>,
}

/// How many plans have each status.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub(crate) struct StatusCounts {
    /// Plans that failed.
    pub(crate) failed: usize,
    /// Plans that destroy or replace something.
    pub(crate) destructive: usize,
    /// Plans with other changes.
    pub(crate) changes: usize,
    /// Plans without changes.
    pub(crate) no_changes: usize,
}

/// Footer data.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct Footer {
    /// planmark's version.
    pub(crate) planmark_version: String,
    /// Distinct Terraform versions of the plans, each on one line.
    pub(crate) terraform_versions: Vec<String>,
    /// Distinct plan format versions.
    pub(crate) format_versions: Vec<String>,
    /// The commit planned (full SHA), when known.
    pub(crate) commit: Option<String>,
    /// Its first 7 characters.
    pub(crate) commit_short: Option<String>,
    /// Link to the workflow run, when running in GitHub Actions.
    pub(crate) run_url: Option<String>,
    /// When the comment was rendered (RFC 3339, UTC).
    pub(crate) time: String,
}

/// What the context is built from besides the plans.
#[derive(Debug, Clone, Default)]
pub struct Meta {
    /// `--title`.
    pub title: Option<String>,
    /// Comment key.
    pub key: String,
    /// Commit SHA.
    pub commit: Option<String>,
    /// Workflow run URL.
    pub run_url: Option<String>,
    /// Render time, RFC 3339.
    pub time: String,
    /// The marker line.
    pub marker: String,
    /// `--tool`, when given: names the tool of a comment without plans (`--failed`).
    pub tool: Option<Tool>,
    /// `--map`: when plans get a change map.
    pub map: MapMode,
    /// `--no-group`: every change is shown on its own, look-alikes too.
    pub no_group: bool,
    /// What moved since the previous comment, when one is compared.
    pub since: Option<Since>,
}

/// Each plan's change map under `mode` (`None` for a plan without one).
pub fn change_maps(plans: &Plans<'_>, mode: MapMode) -> Vec<Option<ChangeMap>> {
    (0..plans.named().len())
        .map(|p| map::change_map(plans, p, mode))
        .collect()
}

/// Builds the context with each catalog entry shown as `drawn` says (its detail, what
/// was left out, whether the banner and check lists are shortened, which plans' sections
/// are left out), and the change maps `maps` (one per plan, none when empty: the size
/// budget dropped them).
pub(crate) fn build(
    plans: &Plans<'_>,
    meta: &Meta,
    catalog: &Catalog,
    drawn: &budget::Plan,
    extras: &Extras<'_>,
    max_chars: usize,
    maps: &[Option<ChangeMap>],
) -> Result<Context> {
    let tight = usize::from(drawn.tight);
    let named = plans.named();
    let diffs: Vec<&PlanHead> = named.iter().map(|p| p.head).collect();
    let mut contexts = (0..named.len())
        .map(|p| plan_context(plans, p, catalog.drift_shown[p], tight))
        .collect::<Result<Vec<PlanContext>>>()?;
    for (plan, map) in contexts.iter_mut().zip(maps) {
        plan.map.clone_from(map);
    }
    place_entries(plans, catalog, &drawn.details, &mut contexts)?;
    for (plan, collapsed) in contexts.iter_mut().zip(&drawn.collapsed) {
        plan.collapsed = *collapsed;
    }
    mark_since(plans, meta, &mut contexts);
    // After the entries are placed: a finding links to its resource only if it is shown.
    add_rego(plans, meta, extras, tight, &mut contexts);
    let (totals, statuses, status) = totals(&contexts, extras);
    // Several plans name OpenTofu only when all of them are OpenTofu's.
    let tool = match diffs.first() {
        Some(_) if diffs.iter().all(|d| d.tool == Tool::OpenTofu) => Tool::OpenTofu,
        Some(_) => Tool::Terraform,
        None => meta.tool.unwrap_or_default(),
    };
    Ok(Context {
        schema_version: SCHEMA_VERSION,
        since: meta.since.as_ref().map(since_context),
        tool,
        title: meta.title.as_deref().map(escape::one_line),
        key: meta.key.clone(),
        multiple: named.len() + extras.unreadable.len() > 1,
        status: status.to_string(),
        status_icon: icon(status).to_string(),
        totals,
        plan_statuses: statuses,
        footer: footer(
            &diffs,
            meta,
            extras.log.and_then(|l| l.terraform_version.as_deref()),
        ),
        truncated: drawn.truncation.is_some(),
        truncation: drawn.truncation.clone(),
        marker: meta.marker.clone(),
        plans: contexts,
        failed: extras.failed.map(|name| FailedPlan {
            name: name.to_string(),
        }),
        unreadable: extras
            .unreadable
            .iter()
            .map(|(name, reason)| UnreadablePlan {
                name: name.clone(),
                reason: reason.clone(),
            })
            .collect(),
        diagnostics: extras
            .log
            .map(|log| problems::diagnostics(log, max_chars, tight)),
        policy: problems::policy(extras.violations, tight),
        rego_failed: extras.rego.iter().map(|r| r.failures.len()).sum(),
        collapsed_plans: drawn.collapsed.iter().filter(|c| **c).count(),
        applied: extras
            .applied
            .map(|log| applied(log, !named.is_empty(), &meta.time, max_chars, tight)),
    })
}

/// Places each catalog entry in its plan's context at `details[i]` (in full when not
/// given): diffed, compact, listed, grouped under its leader, or only counted.
fn place_entries(
    plans: &Plans<'_>,
    catalog: &Catalog,
    details: &[Detail],
    contexts: &mut [PlanContext],
) -> Result<()> {
    let members = grouped::members(details);
    for (i, entry) in catalog.entries.iter().enumerate() {
        let detail = details.get(i).copied().unwrap_or(Detail::Full);
        let plan = &mut contexts[entry.plan];
        let compact = detail == Detail::Compact;
        let diff = match detail {
            Detail::Full | Detail::Compact => Some(diff_body(&entry_text(plans, entry, compact)?)),
            _ => None,
        };
        let source = plans.head(entry.plan);
        match entry.item {
            Item::Resource(_) if detail == Detail::Omitted => {
                plan.omitted_total += 1;
                bump(&mut plan.omitted, entry.kind);
            }
            Item::Resource(r) if detail == Detail::Listed => {
                let resource = listed(plans, entry.plan, ChangeList::Changes, r, entry.kind)?;
                plan.listed
                    .push(entry_context(plans, entry.plan, &resource, None, false));
            }
            // Named in its group, with its leader.
            Item::Resource(_) if matches!(detail, Detail::Grouped(_)) => {}
            Item::Resource(r) => {
                let resource = plans.resource(entry.plan, ChangeList::Changes, r)?;
                let (group, diff) = match members.get(&i) {
                    Some(members) => {
                        let (group, diff) = grouped::group(plans, catalog, i, members, diff)?;
                        (Some(group), diff)
                    }
                    None => (None, diff),
                };
                let mut e = entry_context(plans, entry.plan, &resource, diff, compact);
                e.group = group;
                e.open = e.dangerous
                    && plan.danger.count <= OPEN_DANGEROUS
                    && e.diff
                        .as_deref()
                        .is_some_and(|d| d.lines().count() <= OPEN_LINES);
                plan.changes.push(e);
            }
            // Only counted: not diffed (a plan may drift as much as it changes).
            Item::Drift(_) if detail == Detail::Omitted => plan.drift.omitted += 1,
            Item::Drift(r) => {
                let resource = match detail {
                    Detail::Listed => listed(plans, entry.plan, ChangeList::Drift, r, entry.kind)?,
                    _ => plans.resource(entry.plan, ChangeList::Drift, r)?,
                };
                let e = entry_context(plans, entry.plan, &resource, diff, compact);
                place(&mut plan.drift, e, detail);
            }
            Item::Deferred(d) => {
                let deferred = &source.deferred[d];
                let mut e = entry_context(plans, entry.plan, &deferred.resource, diff, compact);
                e.reason = vec![phrases::words(deferred_reason(&deferred.reason))];
                e.reason_text = phrases::plain(&e.reason);
                place(&mut plan.deferred, e, detail);
            }
            Item::Invocation(i) => plan
                .invocations
                .place(invocation_context(&source.invocations[i], diff), detail),
            Item::Outputs => {
                plan.outputs.diff = diff;
            }
        }
    }
    Ok(())
}

/// Marks each change shown with what moved since the previous comment, when one is
/// compared.
fn mark_since(plans: &Plans<'_>, meta: &Meta, contexts: &mut [PlanContext]) {
    let named = plans.named();
    let marks = since::Marks::new(meta.since.as_ref(), named.len());
    for (plan, named) in contexts.iter_mut().zip(named) {
        for e in plan.changes.iter_mut().chain(&mut plan.listed) {
            e.since = match &e.group {
                Some(group) => marks.words(named.name, group.addresses.iter().map(String::as_str)),
                None => marks.words(named.name, [e.address.as_str()]),
            };
        }
    }
}

/// Gives each plan its Rego report, its findings linked to the entries shown.
fn add_rego(
    plans: &Plans<'_>,
    meta: &Meta,
    extras: &Extras<'_>,
    tight: usize,
    contexts: &mut [PlanContext],
) {
    for (p, (plan, report)) in contexts.iter_mut().zip(extras.rego).enumerate() {
        let findings = plans.findings(p, |addresses| rego::finding_groups(report, addresses));
        let linkable = Linkable {
            entries: [&mut plan.changes, &mut plan.listed],
            key: &meta.key,
            plan: &plan.name,
        };
        plan.rego = Some(rego_context(
            report,
            findings,
            extras.rego_warn_only,
            linkable,
            tight,
        ));
    }
}

/// The counts summed over the plans, how many plans have each status, and the overall
/// status (a failed plan, or one that could not be read, fails the comment).
fn totals(contexts: &[PlanContext], extras: &Extras<'_>) -> (Counts, StatusCounts, &'static str) {
    let mut totals = Counts::default();
    let mut statuses = StatusCounts::default();
    for plan in contexts {
        totals.add_counts(&plan.counts);
        match plan.status.as_str() {
            "failed" => statuses.failed += 1,
            "destructive" => statuses.destructive += 1,
            "changes" => statuses.changes += 1,
            _ => statuses.no_changes += 1,
        }
    }
    let status = plan::status(
        statuses.failed > 0 || extras.failed.is_some() || !extras.unreadable.is_empty(),
        statuses.destructive > 0,
        statuses.changes > 0,
    );
    (totals, statuses, status)
}

fn footer(plans: &[&PlanHead], meta: &Meta, log_version: Option<&str>) -> Footer {
    // Versions come from the plan or log as written: one line each, as the footer is.
    let mut terraform_versions: Vec<String> = Vec::new();
    // A failed plan has no plan JSON: its log's `version` message names Terraform.
    if let (true, Some(v)) = (plans.is_empty(), log_version) {
        terraform_versions.push(escape::one_line(v));
    }
    let mut format_versions: Vec<String> = Vec::new();
    for plan in plans {
        if let Some(v) = plan.terraform_version.as_deref().map(escape::one_line) {
            if !terraform_versions.contains(&v) {
                terraform_versions.push(v);
            }
        }
        let format = escape::one_line(&plan.format_version);
        if !format_versions.contains(&format) {
            format_versions.push(format);
        }
    }
    Footer {
        planmark_version: env!("CARGO_PKG_VERSION").to_string(),
        terraform_versions,
        format_versions,
        commit_short: meta.commit.as_ref().map(|c| c.chars().take(7).collect()),
        commit: meta.commit.clone(),
        run_url: meta.run_url.clone(),
        time: meta.time.clone(),
    }
}
