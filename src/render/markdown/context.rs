//! Markdown renderer, template context: the documented, versioned data every template
//! sees (`planmark render --format json` prints it; `docs/template-context.schema.json`
//! describes it). Strings are raw plan data: templates escape them per context with the
//! helpers, and the default `{{value}}` expression escapes for inline Markdown.

use schemars::JsonSchema;
use serde::Serialize;

use crate::diff::{
    CheckStatus, Diff, Node, OutputDiff, PlanHead, PlanMode, ResourceAction, ResourceDiff,
};
use crate::error::Result;
use crate::render::text::shows;

use super::catalog::{entry_text, Catalog, Detail, Item};
use super::diff_lines::diff_body;
use super::escape;
use super::extras::{self, Diagnostics, Extras, FailedPlan, PolicyContext, UnreadablePlan};
use super::invocations::{invocation_context, Invocations};
use super::source::{Body, Plans};
use super::words::{self, icon, Kind, Segment};
use crate::diff::{ChangeList, Tool};

/// Bumped whenever a field is removed or changes meaning (adding fields is compatible).
pub const SCHEMA_VERSION: u32 = 1;

/// How many destroyed/replaced resources the warning banner names before "and N more"
/// (normally, and in the counts-only form).
const BANNER_ITEMS: [usize; 2] = [20, 3];
/// How many failing or unknown check instances are listed before "and N more".
const CHECK_ITEMS: [usize; 2] = [30, 3];
/// Check messages longer than this are shortened (they are author-written prose).
const CHECK_MESSAGE_CHARS: [usize; 2] = [1000, 200];
/// Dangerous entries open by default when a plan has at most this many of them…
const OPEN_DANGEROUS: usize = 3;
/// …and their diff has at most this many lines.
const OPEN_LINES: usize = 40;

/// The whole comment's data.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Context {
    /// Version of this structure (see `docs/template-context.md`).
    pub schema_version: u32,
    /// The tool named in the comment: `OpenTofu` when every plan was made by OpenTofu
    /// (or `--tool tofu`), else `Terraform`.
    pub tool: Tool,
    /// A title given with `--title`, shown instead of the plan name, on one line.
    pub title: Option<String>,
    /// The comment key (which comment this is, for updating it later).
    pub key: String,
    /// More than one plan in this comment.
    pub multiple: bool,
    /// Overall status: `failed`, `destructive`, `changes` or `no-changes`.
    pub status: String,
    /// Icon for the overall status.
    pub status_icon: String,
    /// Counts summed over all plans.
    pub totals: Counts,
    /// How many plans have each status.
    pub plan_statuses: StatusCounts,
    /// Each plan, in argument order.
    pub plans: Vec<PlanContext>,
    /// Something was left out to fit the size limit.
    pub truncated: bool,
    /// What was left out and why; `null` when nothing was.
    pub truncation: Option<Truncation>,
    /// Versions, commit, run link, time.
    pub footer: Footer,
    /// The hidden marker line (`<!-- planmark:v1 {...} -->`) that identifies the comment.
    pub marker: String,
    /// `--failed`: Terraform could not make the plan; `plans` is empty and `diagnostics`
    /// says why. `null` otherwise.
    pub failed: Option<FailedPlan>,
    /// Plans among several that could not be read (not JSON, not a plan, …): shown as
    /// errors beside the others, which `plans` holds; empty otherwise.
    pub unreadable: Vec<UnreadablePlan>,
    /// Errors and warnings from Terraform's log (`--failed LOG`, `--log FILE`); `null`
    /// without a log.
    pub diagnostics: Option<Diagnostics>,
    /// Policy gates the plans break (`--fail-on`, `--max-destroy`, `--protect`).
    pub policy: PolicyContext,
}

/// Resource and other counts.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Counts {
    /// Resources to create (replacements included, as Terraform counts them).
    pub add: usize,
    /// Resources to update in place.
    pub change: usize,
    /// Resources to destroy (replacements included).
    pub destroy: usize,
    /// Resources to replace.
    pub replace: usize,
    /// Resources to import.
    pub import: usize,
    /// Resources moved to a new address.
    #[serde(rename = "move")]
    pub moved: usize,
    /// Resources to remove from state without destroying.
    pub forget: usize,
    /// Data sources read during apply.
    pub read: usize,
    /// Objects changed outside Terraform (shown drift).
    pub drift: usize,
    /// Changed outputs.
    pub outputs: usize,
    /// Deferred changes.
    pub deferred: usize,
    /// Actions to invoke (Terraform 1.14+), however triggered.
    pub invoke: usize,
}

impl Counts {
    fn add_counts(&mut self, other: &Counts) {
        self.add += other.add;
        self.change += other.change;
        self.destroy += other.destroy;
        self.replace += other.replace;
        self.import += other.import;
        self.moved += other.moved;
        self.forget += other.forget;
        self.read += other.read;
        self.drift += other.drift;
        self.outputs += other.outputs;
        self.deferred += other.deferred;
        self.invoke += other.invoke;
    }
}

/// How many plans have each status.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct StatusCounts {
    /// Plans that failed.
    pub failed: usize,
    /// Plans that destroy or replace something.
    pub destructive: usize,
    /// Plans with other changes.
    pub changes: usize,
    /// Plans without changes.
    pub no_changes: usize,
}

/// One plan's data.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PlanContext {
    /// The plan's name (`NAME=PATH`, or the file name).
    pub name: String,
    /// The tool that made the plan (`Terraform` or `OpenTofu`): its diffs use its wording.
    pub tool: Tool,
    /// Terraform (or OpenTofu) version that made the plan, on one line.
    pub terraform_version: Option<String>,
    /// Plan JSON format version.
    pub format_version: String,
    /// `normal`, `destroy` or `refresh-only`.
    pub mode: PlanMode,
    /// Planning failed part-way.
    pub errored: bool,
    /// What providers declare sensitive cannot be recognised in this plan: it comes from a
    /// Terraform before 0.15.2, whose sensitivity masks leave that out, and no provider
    /// schemas were given (`--schemas`). Attributes named like secrets are hidden instead.
    pub provider_sensitivity_unknown: bool,
    /// `failed`, `destructive`, `changes` or `no-changes`.
    pub status: String,
    /// Icon for the status.
    pub icon: String,
    /// Applying would change resources, outputs or (refresh-only) state, or invoke an
    /// action.
    pub has_changes: bool,
    /// One-line verdict, e.g. `Plan: 2 to add, 1 to change, 2 to destroy`.
    pub headline: String,
    /// Counts.
    pub counts: Counts,
    /// Non-zero resource counts by kind, in risk order (the summary table).
    pub actions: Vec<ActionCount>,
    /// Destroyed and replaced resources for the warning banner.
    pub danger: Danger,
    /// Check results.
    pub checks: Checks,
    /// Resource changes shown with their diff, most dangerous first.
    pub changes: Vec<EntryContext>,
    /// Resource changes shown only by address (the size limit), most dangerous first.
    pub listed: Vec<EntryContext>,
    /// Resource changes left out entirely (the size limit), by kind.
    pub omitted: Vec<ActionCount>,
    /// Number of resource changes left out.
    pub omitted_total: usize,
    /// Objects changed outside Terraform.
    pub drift: Section,
    /// Deferred changes.
    pub deferred: Section,
    /// Output changes.
    pub outputs: Outputs,
    /// Actions the apply will invoke (Terraform 1.14+).
    pub invocations: Invocations,
}

/// A count of one kind of change.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ActionCount {
    /// `delete`, `replace`, `update`, `create`, `read`, `forget`, `import`, `move`, `unknown`.
    pub kind: Kind,
    /// The word shown (`destroy`, `replace`, …).
    pub label: String,
    /// Icon.
    pub icon: String,
    /// How many.
    pub count: usize,
}

/// The danger banner's list.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Danger {
    /// Number of destroyed or replaced resources.
    pub count: usize,
    /// Number destroyed (not replaced).
    pub destroy: usize,
    /// Number replaced.
    pub replace: usize,
    /// The first of them (address, kind, reason; no diff).
    pub items: Vec<EntryContext>,
    /// How many more are not named in the banner.
    pub more: usize,
}

/// One entry: a resource change, drift or deferred change.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct EntryContext {
    /// Resource instance address.
    pub address: String,
    /// Kind of change.
    pub kind: Kind,
    /// The word shown for the kind.
    pub label: String,
    /// Icon.
    pub icon: String,
    /// Why, as segments (`code` ones name plan objects); empty when there is no reason.
    pub reason: Vec<Segment>,
    /// The reason as plain text.
    pub reason_text: String,
    /// A destroy or replacement.
    pub dangerous: bool,
    /// Suggest showing it expanded (`<details open>`).
    pub open: bool,
    /// Terraform's diff with symbols at column 0 for a `diff` fence; `null` when listed only.
    pub diff: Option<String>,
    /// The diff hides unchanged context (the size limit).
    pub compact: bool,
}

/// Check results of one plan.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Checks {
    /// Checkable objects and instances counted (instances individually; an object with
    /// no instances counts once).
    pub total: usize,
    /// Passed.
    pub pass: usize,
    /// Failed.
    pub fail: usize,
    /// Could not be evaluated.
    pub error: usize,
    /// Known only after apply.
    pub unknown: usize,
    /// Failed plus errored.
    pub failing: usize,
    /// The counts in a few words, e.g. `✅ 3 passed · ❌ 1 failed`.
    pub tally: String,
    /// Failing or erroring instances with their messages.
    pub problems: Vec<CheckEntry>,
    /// Instances whose result is known only after apply.
    pub pending: Vec<CheckEntry>,
    /// Failing/erroring instances not listed.
    pub problems_more: usize,
    /// Unknown instances not listed.
    pub pending_more: usize,
}

/// One check instance.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct CheckEntry {
    /// Address of the instance (or of the object when it has no instances).
    pub address: String,
    /// `resource`, `output_value`, `check` or `var`.
    pub kind: String,
    /// `pass`, `fail`, `error` or `unknown`.
    pub status: CheckStatus,
    /// Failure messages.
    pub problems: Vec<String>,
}

/// A collapsible section of entries (drift, deferred changes).
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Section {
    /// Number of entries.
    pub count: usize,
    /// Entries shown with their diff.
    pub entries: Vec<EntryContext>,
    /// Entries shown by address only.
    pub listed: Vec<EntryContext>,
    /// Entries left out.
    pub omitted: usize,
}

/// Output changes of one plan.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Outputs {
    /// Number of changed outputs.
    pub count: usize,
    /// Names of the changed outputs.
    pub names: Vec<String>,
    /// The changes as Terraform shows them (symbols at column 0); `null` when left out.
    pub diff: Option<String>,
}

/// What the size limit left out.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Truncation {
    /// `compact`, `lists`, `partial` or `counts-only`.
    pub stage: String,
    /// What a reader is told.
    pub notice: String,
    /// The size limit in characters.
    pub max_chars: usize,
}

/// Footer data.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Footer {
    /// planmark's version.
    pub planmark_version: String,
    /// Distinct Terraform versions of the plans, each on one line.
    pub terraform_versions: Vec<String>,
    /// Distinct plan format versions.
    pub format_versions: Vec<String>,
    /// The commit planned (full SHA), when known.
    pub commit: Option<String>,
    /// Its first 7 characters.
    pub commit_short: Option<String>,
    /// Link to the workflow run, when running in GitHub Actions.
    pub run_url: Option<String>,
    /// When the comment was rendered (RFC 3339, UTC).
    pub time: String,
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
}

/// Builds the context with each catalog entry shown at `details[i]`.
pub fn build(
    plans: &Plans<'_>,
    meta: &Meta,
    catalog: &Catalog,
    details: &[Detail],
    truncation: Option<Truncation>,
    extra: (&Extras<'_>, usize),
) -> Result<Context> {
    let (extra, max_chars) = extra;
    let named = plans.named();
    let diffs: Vec<&PlanHead> = named.iter().map(|p| p.head).collect();
    // The counts-only form also shortens the banner and check lists.
    let tight = usize::from(
        truncation
            .as_ref()
            .is_some_and(|t| t.stage == "counts-only"),
    );
    let mut contexts = (0..named.len())
        .map(|p| plan_context(plans, p, catalog.drift_shown[p], tight))
        .collect::<Result<Vec<PlanContext>>>()?;
    for (i, entry) in catalog.entries.iter().enumerate() {
        let detail = details.get(i).copied().unwrap_or(Detail::Full);
        let plan = &mut contexts[entry.plan];
        let diff = match detail {
            Detail::Full | Detail::Compact => {
                let compact = detail == Detail::Compact;
                Some(diff_body(&entry_text(plans, entry, compact)?))
            }
            _ => None,
        };
        let compact = detail == Detail::Compact;
        let source = diffs[entry.plan];
        match entry.item {
            Item::Resource(r) => {
                let dangerous_count = plan.danger.count;
                match detail {
                    Detail::Omitted => {
                        plan.omitted_total += 1;
                        bump(&mut plan.omitted, entry.kind);
                    }
                    Detail::Listed => {
                        let resource =
                            listed(plans, entry.plan, ChangeList::Changes, r, entry.kind)?;
                        plan.listed.push(entry_context(&resource, None, false));
                    }
                    _ => {
                        let resource = plans.resource(entry.plan, ChangeList::Changes, r)?;
                        let mut e = entry_context(&resource, diff, compact);
                        e.open = e.dangerous
                            && dangerous_count <= OPEN_DANGEROUS
                            && e.diff
                                .as_deref()
                                .is_some_and(|d| d.lines().count() <= OPEN_LINES);
                        plan.changes.push(e);
                    }
                }
            }
            // Only counted: not diffed (a plan may drift as much as it changes).
            Item::Drift(_) if detail == Detail::Omitted => plan.drift.omitted += 1,
            Item::Drift(r) if detail == Detail::Listed => place(
                &mut plan.drift,
                entry_context(
                    &*listed(plans, entry.plan, ChangeList::Drift, r, entry.kind)?,
                    None,
                    false,
                ),
                detail,
            ),
            Item::Drift(r) => place(
                &mut plan.drift,
                entry_context(
                    &*plans.resource(entry.plan, ChangeList::Drift, r)?,
                    diff,
                    compact,
                ),
                detail,
            ),
            Item::Deferred(d) => {
                let deferred = &source.deferred[d];
                let mut e = entry_context(&deferred.resource, diff, compact);
                e.reason = vec![Segment {
                    text: deferred_reason(&deferred.reason).into(),
                    is_code: false,
                }];
                e.reason_text = words::plain(&e.reason);
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
    let mut totals = Counts::default();
    let mut statuses = StatusCounts::default();
    for plan in &contexts {
        totals.add_counts(&plan.counts);
        match plan.status.as_str() {
            "failed" => statuses.failed += 1,
            "destructive" => statuses.destructive += 1,
            "changes" => statuses.changes += 1,
            _ => statuses.no_changes += 1,
        }
    }
    let unreadable = !extra.unreadable.is_empty();
    let status = if statuses.failed > 0 || extra.failed.is_some() || unreadable {
        "failed"
    } else if statuses.destructive > 0 {
        "destructive"
    } else if statuses.changes > 0 {
        "changes"
    } else {
        "no-changes"
    };
    // Several plans name OpenTofu only when all of them are OpenTofu's.
    let tool = match diffs.first() {
        Some(_) if diffs.iter().all(|d| d.tool == Tool::OpenTofu) => Tool::OpenTofu,
        Some(_) => Tool::Terraform,
        None => meta.tool.unwrap_or_default(),
    };
    Ok(Context {
        schema_version: SCHEMA_VERSION,
        tool,
        title: meta.title.as_deref().map(escape::one_line),
        key: meta.key.clone(),
        multiple: named.len() + extra.unreadable.len() > 1,
        status: status.to_string(),
        status_icon: icon(status).to_string(),
        totals,
        plan_statuses: statuses,
        footer: footer(
            &diffs,
            meta,
            extra.log.and_then(|l| l.terraform_version.as_deref()),
        ),
        truncated: truncation.is_some(),
        truncation,
        marker: meta.marker.clone(),
        plans: contexts,
        failed: extra.failed.map(|name| FailedPlan {
            name: name.to_string(),
        }),
        unreadable: extra
            .unreadable
            .iter()
            .map(|(name, reason)| UnreadablePlan {
                name: name.clone(),
                reason: reason.clone(),
            })
            .collect(),
        diagnostics: extra
            .log
            .map(|log| extras::diagnostics(log, max_chars, tight)),
        policy: extras::policy(extra.violations, tight),
    })
}

fn bump(counts: &mut Vec<ActionCount>, kind: Kind) {
    match counts.iter_mut().find(|c| c.kind == kind) {
        Some(c) => c.count += 1,
        None => counts.push(action_count(kind, 1)),
    }
}

/// Entry `i` of plan `p`'s `list`, of kind `kind`, for a line without its diff: its
/// header, not diffed, but for a replacement, whose reason names the attributes forcing
/// it (found in its diff).
fn listed<'a>(
    plans: &Plans<'a>,
    p: usize,
    list: ChangeList,
    i: usize,
    kind: Kind,
) -> Result<Body<'a>> {
    match kind {
        Kind::Replace => plans.resource(p, list, i),
        _ => plans.header(p, list, i),
    }
}

fn place(section: &mut Section, entry: EntryContext, detail: Detail) {
    match detail {
        Detail::Full | Detail::Compact => section.entries.push(entry),
        Detail::Listed => section.listed.push(EntryContext {
            diff: None,
            ..entry
        }),
        Detail::Omitted => section.omitted += 1,
    }
}

fn action_count(kind: Kind, count: usize) -> ActionCount {
    ActionCount {
        kind,
        label: kind.label().to_string(),
        icon: kind.icon().to_string(),
        count,
    }
}

fn deferred_reason(reason: &str) -> &'static str {
    match reason {
        "instance_count_unknown" => "the number of instances is not known yet",
        "resource_config_unknown" => "the resource configuration is not known yet",
        "provider_config_unknown" => "the provider configuration is not known yet",
        "deferred_prereq" => "a prerequisite is deferred",
        "absent_prereq" => "a prerequisite has not been created yet",
        "excluded" => "the resource was excluded",
        "not_included" => "the resource was not included",
        _ => "deferred for an unknown reason",
    }
}

/// Top-level attributes (and block types) whose change forces replacement.
fn forced_by(body: &Diff) -> Vec<String> {
    let Node::Block(block) = &body.node else {
        return Vec::new();
    };
    let mut names: Vec<String> = block
        .attributes
        .iter()
        .filter(|(_, d)| forces(d))
        .map(|(name, _)| name.clone())
        .collect();
    names.extend(
        block
            .blocks
            .iter()
            .filter(|g| g.replace || g.instances.iter().any(|(_, d)| forces(d)))
            .map(|g| g.name.clone()),
    );
    names
}

/// Does this value (or anything inside it) force replacement?
fn forces(diff: &Diff) -> bool {
    if diff.replace {
        return true;
    }
    match &diff.node {
        Node::List { elements, .. } | Node::Set { elements, .. } => elements.iter().any(forces),
        Node::Map { entries: items, .. }
        | Node::Object {
            attributes: items, ..
        } => items.iter().any(|(_, d)| forces(d)),
        Node::Block(block) => {
            block.attributes.iter().any(|(_, d)| forces(d))
                || block
                    .blocks
                    .iter()
                    .any(|g| g.replace || g.instances.iter().any(|(_, d)| forces(d)))
        }
        Node::Json { inner, .. } => forces(inner),
        Node::TypeChange { before, after } => forces(before) || forces(after),
        Node::Unknown { before } => before.as_deref().is_some_and(forces),
        _ => false,
    }
}

fn entry_context(r: &ResourceDiff, diff: Option<String>, compact: bool) -> EntryContext {
    let kind = Kind::of(r);
    let forced = if kind == Kind::Replace {
        forced_by(&r.body)
    } else {
        Vec::new()
    };
    let reason = words::reason(r, &forced);
    EntryContext {
        address: r.address.clone(),
        kind,
        label: kind.label().to_string(),
        icon: kind.icon().to_string(),
        reason_text: words::plain(&reason),
        reason,
        dangerous: kind.is_dangerous(),
        open: false,
        diff,
        compact,
    }
}

/// Everything about a plan that does not depend on the size budget.
fn plan_context(
    plans: &Plans<'_>,
    p: usize,
    drift_shown: bool,
    tight: usize,
) -> Result<PlanContext> {
    let named = &plans.named()[p];
    let plan = named.head;
    let summaries = plans.summaries(p);
    // Per-change vectors are sized before they are filled (and sorted in place): grown by
    // doubling, a huge plan's would leave their copies in the allocator on every render.
    let mut shown = Vec::with_capacity(summaries.len());
    shown.extend((0..summaries.len()).filter(|i| shows(&summaries[*i])));
    let mut counts = Counts::default();
    let mut by_kind: Vec<(Kind, usize)> = Kind::ALL.iter().map(|k| (*k, 0)).collect();
    for r in shown.iter().map(|i| &summaries[*i]) {
        let kind = Kind::of_summary(r);
        if let Some(slot) = by_kind.iter_mut().find(|(k, _)| *k == kind) {
            slot.1 += 1;
        }
        match &r.action {
            ResourceAction::Create => counts.add += 1,
            ResourceAction::Update => counts.change += 1,
            ResourceAction::Delete => counts.destroy += 1,
            ResourceAction::Read => counts.read += 1,
            ResourceAction::Forget => counts.forget += 1,
            ResourceAction::DeleteThenCreate | ResourceAction::CreateThenDelete => {
                counts.add += 1;
                counts.destroy += 1;
                counts.replace += 1;
            }
            ResourceAction::CreateThenForget => {
                counts.add += 1;
                counts.forget += 1;
                counts.replace += 1;
            }
            _ => {}
        }
        if r.importing {
            counts.import += 1;
        }
        if r.moved {
            counts.moved += 1;
        }
    }
    let drift_entries = if drift_shown {
        plans.drift_summaries(p).iter().filter(|r| shows(r)).count()
    } else {
        0
    };
    counts.drift = drift_entries;
    counts.outputs = plan
        .outputs
        .iter()
        .filter(|o| o.diff.action != crate::diff::Action::NoOp)
        .count();
    counts.deferred = plan.deferred.len();
    counts.invoke = plan.invocations.len();

    // Destroys first, then replacements, each in plan order; only the banner's few are
    // diffed (for their reasons).
    let kind = |i: usize| Kind::of_summary(&summaries[i]);
    let is_dangerous = |i: &usize| kind(*i).is_dangerous();
    let mut dangerous = Vec::with_capacity(shown.iter().filter(|i| is_dangerous(i)).count());
    dangerous.extend(shown.iter().copied().filter(is_dangerous));
    // Plan order within each kind: the index makes the key unique.
    dangerous.sort_unstable_by_key(|i| (kind(*i), *i));
    let items = dangerous
        .iter()
        .take(BANNER_ITEMS[tight])
        .map(|i| {
            let resource = listed(plans, p, ChangeList::Changes, *i, kind(*i))?;
            Ok(entry_context(&resource, None, false))
        })
        .collect::<Result<Vec<_>>>()?;
    let danger = Danger {
        count: dangerous.len(),
        destroy: dangerous
            .iter()
            .filter(|i| kind(**i) == Kind::Delete)
            .count(),
        replace: dangerous
            .iter()
            .filter(|i| kind(**i) == Kind::Replace)
            .count(),
        items,
        more: dangerous.len().saturating_sub(BANNER_ITEMS[tight]),
    };
    let has_changes = !shown.is_empty()
        || counts.outputs > 0
        || counts.invoke > 0
        || (plan.mode == PlanMode::RefreshOnly && drift_entries > 0);
    let status = if plan.errored {
        "failed"
    } else if danger.count > 0 {
        "destructive"
    } else if has_changes {
        "changes"
    } else {
        "no-changes"
    };
    Ok(PlanContext {
        name: named.name.to_string(),
        tool: plan.tool,
        terraform_version: plan.terraform_version.as_deref().map(escape::one_line),
        format_version: plan.format_version.clone(),
        mode: plan.mode,
        errored: plan.errored,
        provider_sensitivity_unknown: plan.provider_sensitivity_unknown,
        status: status.to_string(),
        icon: icon(status).to_string(),
        has_changes,
        headline: headline(plan, &counts, has_changes),
        actions: by_kind
            .into_iter()
            .filter(|(_, n)| *n > 0)
            .map(|(k, n)| action_count(k, n))
            .collect(),
        counts,
        danger,
        checks: checks(plan, tight),
        changes: Vec::new(),
        listed: Vec::new(),
        omitted: Vec::new(),
        omitted_total: 0,
        drift: Section {
            count: drift_entries,
            ..Section::default()
        },
        deferred: Section {
            count: plan.deferred.len(),
            ..Section::default()
        },
        outputs: Outputs {
            count: plan.outputs.iter().filter(|o| changed(o)).count(),
            names: plan
                .outputs
                .iter()
                .filter(|o| changed(o))
                .map(|o| o.name.clone())
                .collect(),
            diff: None,
        },
        invocations: Invocations {
            count: plan.invocations.len(),
            ..Invocations::default()
        },
    })
}

fn changed(output: &OutputDiff) -> bool {
    output.diff.action != crate::diff::Action::NoOp
}

/// `Plan: 1 to import, 2 to add, 1 to change, 2 to destroy, 1 to move, 1 to forget, 1
/// action to invoke`.
fn headline(plan: &PlanHead, counts: &Counts, has_changes: bool) -> String {
    if plan.errored {
        return "Plan failed".to_string();
    }
    if plan.mode == PlanMode::RefreshOnly {
        return if counts.drift > 0 {
            format!(
                "Refresh only: {} changed outside of {}",
                words::count_noun(counts.drift, "object", "objects"),
                plan.tool.name()
            )
        } else {
            "Refresh only: no changes".to_string()
        };
    }
    if !has_changes {
        return if counts.deferred > 0 {
            "No current changes (some are deferred)".to_string()
        } else {
            "No changes".to_string()
        };
    }
    let resources = counts.add
        + counts.change
        + counts.destroy
        + counts.import
        + counts.moved
        + counts.forget
        + counts.read;
    let invoke = words::count_noun(counts.invoke, "action to invoke", "actions to invoke");
    if resources == 0 && counts.invoke > 0 {
        return format!("Plan: {invoke}");
    }
    if resources == 0 {
        return format!(
            "Plan: {} only",
            words::count_noun(counts.outputs, "output change", "output changes")
        );
    }
    let mut parts = Vec::new();
    if counts.import > 0 {
        parts.push(format!("{} to import", words::thousands(counts.import)));
    }
    parts.push(format!("{} to add", words::thousands(counts.add)));
    parts.push(format!("{} to change", words::thousands(counts.change)));
    parts.push(format!("{} to destroy", words::thousands(counts.destroy)));
    if counts.moved > 0 {
        parts.push(format!("{} to move", words::thousands(counts.moved)));
    }
    if counts.forget > 0 {
        parts.push(format!("{} to forget", words::thousands(counts.forget)));
    }
    if counts.invoke > 0 {
        parts.push(invoke);
    }
    format!("Plan: {}", parts.join(", "))
}

/// Check counts per instance (an object without instances counts once, as the format's
/// documentation recommends), with failing and unknown instances listed.
fn checks(plan: &PlanHead, tight: usize) -> Checks {
    let mut checks = Checks::default();
    for object in &plan.checks {
        let single;
        let instances: Vec<(&str, CheckStatus, &[String])> = if object.instances.is_empty() {
            single = [(object.address.as_str(), object.status, &[][..])];
            single.to_vec()
        } else {
            object
                .instances
                .iter()
                .map(|i| (i.address.as_str(), i.status, i.problems.as_slice()))
                .collect()
        };
        for (address, status, problems) in instances {
            checks.total += 1;
            let entry = || CheckEntry {
                address: address.to_string(),
                kind: object.kind.clone(),
                status,
                problems: problems
                    .iter()
                    .map(|p| shorten(p, CHECK_MESSAGE_CHARS[tight]))
                    .collect(),
            };
            match status {
                CheckStatus::Pass => checks.pass += 1,
                CheckStatus::Fail | CheckStatus::Error => {
                    if status == CheckStatus::Fail {
                        checks.fail += 1;
                    } else {
                        checks.error += 1;
                    }
                    if checks.problems.len() < CHECK_ITEMS[tight] {
                        checks.problems.push(entry());
                    } else {
                        checks.problems_more += 1;
                    }
                }
                CheckStatus::Unknown => {
                    checks.unknown += 1;
                    if checks.pending.len() < CHECK_ITEMS[tight] {
                        checks.pending.push(entry());
                    } else {
                        checks.pending_more += 1;
                    }
                }
            }
        }
    }
    checks.failing = checks.fail + checks.error;
    let parts = [
        (checks.pass, "✅", "passed"),
        (checks.fail, "❌", "failed"),
        (checks.error, "❌", "errored"),
        (checks.unknown, "❔", "known after apply"),
    ];
    checks.tally = parts
        .iter()
        .filter(|(n, _, _)| *n > 0)
        .map(|(n, icon, word)| format!("{icon} {} {word}", words::thousands(*n)))
        .collect::<Vec<_>>()
        .join(" · ");
    checks
}

fn shorten(message: &str, max: usize) -> String {
    if message.chars().count() <= max {
        return message.to_string();
    }
    let mut short: String = message.chars().take(max).collect();
    short.push('…');
    short
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
