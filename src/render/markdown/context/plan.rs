//! Markdown renderer, template context of one plan: its counts, status, headline, summary
//! table and danger banner, which the size budget does not change; the entries placed in
//! it by [`super::build`] do.

use schemars::JsonSchema;
use serde::Serialize;

use crate::diff::{Action, PlanHead, PlanMode};
use crate::input::plan::{ChangeList, ResourceAction, Tool};
use crate::render::error::Result;
use crate::render::markdown::invocations::Invocations;
use crate::render::markdown::phrases::{self, icon, Kind};
use crate::render::markdown::{escape, source::Plans};

use super::checks::{checks, Checks};
use super::count::{action_count, action_counts, ActionCount};
use super::entry::{entry_context, listed, EntryContext, Section};
use super::map::ChangeMap;
use super::rego::RegoContext;
use super::undescribed::{undescribed_context, UndescribedContext};

/// How many destroyed/replaced resources the warning banner names before "and N more"
/// (normally, and in the counts-only form).
const BANNER_ITEMS: [usize; 2] = [20, 3];

/// One plan's data.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct PlanContext {
    /// The plan's name (`NAME=PATH`, or the file name).
    pub(crate) name: String,
    /// The tool that made the plan (`Terraform` or `OpenTofu`): its diffs use its wording.
    pub(crate) tool: Tool,
    /// Terraform (or OpenTofu) version that made the plan, on one line.
    pub(crate) terraform_version: Option<String>,
    /// Plan JSON format version.
    pub(crate) format_version: String,
    /// `normal`, `destroy` or `refresh-only`.
    pub(crate) mode: PlanMode,
    /// Planning failed part-way.
    pub(crate) errored: bool,
    /// What providers declare sensitive cannot be recognised in this plan: it comes from a
    /// Terraform before 0.15.2, whose sensitivity masks leave that out, and no provider
    /// schemas were given (`--schemas`). Attributes named like secrets are hidden instead.
    pub(crate) provider_sensitivity_unknown: bool,
    /// What the provider schemas given (`--schemas`) do not describe in this plan (they
    /// are older than the providers that made it, or lack a provider): those attributes
    /// and types are shown as without schemas, inferred from the values. `null` when the
    /// schemas describe everything, or none were given.
    pub(crate) undescribed: Option<UndescribedContext>,
    /// `failed`, `destructive`, `changes` or `no-changes`.
    pub(crate) status: String,
    /// Icon for the status.
    pub(crate) icon: String,
    /// Applying would change resources, outputs or (refresh-only) state, or invoke an
    /// action.
    pub(crate) has_changes: bool,
    /// One-line verdict, e.g. `Plan: 2 to add, 1 to change, 2 to destroy`.
    pub(crate) headline: String,
    /// Counts.
    pub counts: Counts,
    /// Non-zero resource counts by kind, in risk order (the summary table).
    pub(crate) actions: Vec<ActionCount>,
    /// Destroyed and replaced resources for the warning banner.
    pub danger: Danger,
    /// Where the plan changes things, as a Mermaid flowchart (`--map`); `null` when not
    /// drawn: `--map never`, one module only under `--map auto`, or left out to fit the
    /// size limit (before any diff is shortened; past the limit, when it does not fit
    /// beside the rest, and the truncation notice then says so).
    pub map: Option<ChangeMap>,
    /// Check results.
    pub(crate) checks: Checks,
    /// Resource changes shown with their diff, most dangerous first.
    pub changes: Vec<EntryContext>,
    /// Resource changes shown only by address (the size limit), most dangerous first.
    pub listed: Vec<EntryContext>,
    /// Resource changes left out entirely (the size limit), by kind.
    pub(crate) omitted: Vec<ActionCount>,
    /// Number of resource changes left out.
    pub omitted_total: usize,
    /// Objects changed outside Terraform.
    pub(crate) drift: Section,
    /// Deferred changes.
    pub(crate) deferred: Section,
    /// Output changes.
    pub outputs: Outputs,
    /// Actions the apply will invoke (Terraform 1.14+).
    pub(crate) invocations: Invocations,
    /// What the team's Rego rules said (`--policy`); `null` without `--policy`.
    pub rego: Option<RegoContext>,
    /// Its section is left out to fit the size limit (several plans only); its row in the
    /// overview table is kept.
    pub(crate) collapsed: bool,
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

/// Output changes of one plan.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Outputs {
    /// Number of changed outputs.
    pub count: usize,
    /// Names of the changed outputs.
    pub(crate) names: Vec<String>,
    /// The changes as Terraform shows them (symbols at column 0); `null` when left out.
    pub diff: Option<String>,
}

pub(super) fn bump(counts: &mut Vec<ActionCount>, kind: Kind) {
    match counts.iter_mut().find(|c| c.kind == kind) {
        Some(c) => c.count += 1,
        None => counts.push(action_count(kind, 1)),
    }
}

/// Everything about a plan that does not depend on the size budget.
pub(super) fn plan_context(
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
    shown.extend((0..summaries.len()).filter(|i| summaries[*i].is_shown()));
    let mut counts = Counts::default();
    let mut by_risk = [0; 9];
    for r in shown.iter().map(|i| &summaries[*i]) {
        by_risk[Kind::of_summary(r).risk()] += 1;
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
        plans
            .drift_summaries(p)
            .iter()
            .filter(|r| r.is_shown())
            .count()
    } else {
        0
    };
    counts.drift = drift_entries;
    let outputs: Vec<String> = plan
        .outputs
        .iter()
        .filter(|o| o.diff.action != Action::NoOp)
        .map(|o| o.name.clone())
        .collect();
    counts.outputs = outputs.len();
    counts.deferred = plan.deferred.len();
    counts.invoke = plan.invocations.len();

    // Destroys first, then replacements, each in natural order; only the banner's few are
    // diffed (for their reasons).
    let kind = |i: usize| Kind::of_summary(&summaries[i]);
    let is_dangerous = |i: &usize| kind(*i).is_dangerous();
    let mut dangerous = Vec::with_capacity(shown.iter().filter(|i| is_dangerous(i)).count());
    dangerous.extend(shown.iter().copied().filter(is_dangerous));
    // Natural address order within each kind, as the comment lists them (the rank is
    // unique per change).
    let ranks = plans.ranks(p, ChangeList::Changes);
    dangerous.sort_unstable_by_key(|i| (kind(*i), ranks[*i]));
    let items = dangerous
        .iter()
        .take(BANNER_ITEMS[tight])
        .map(|i| {
            let resource = listed(plans, p, ChangeList::Changes, *i, kind(*i))?;
            Ok(entry_context(plans, p, &resource, None, false))
        })
        .collect::<Result<Vec<_>>>()?;
    let danger = Danger {
        count: dangerous.len(),
        destroy: by_risk[Kind::Delete.risk()],
        replace: by_risk[Kind::Replace.risk()],
        items,
        more: dangerous.len().saturating_sub(BANNER_ITEMS[tight]),
    };
    let has_changes = !shown.is_empty()
        || counts.outputs > 0
        || counts.invoke > 0
        || (plan.mode == PlanMode::RefreshOnly && drift_entries > 0);
    let status = status(plan.errored, danger.count > 0, has_changes);
    Ok(PlanContext {
        name: named.name.to_string(),
        tool: plan.tool,
        terraform_version: plan.terraform_version.as_deref().map(escape::one_line),
        format_version: plan.format_version.clone(),
        mode: plan.mode,
        errored: plan.errored,
        provider_sensitivity_unknown: plan.provider_sensitivity_unknown,
        undescribed: undescribed_context(&plan.undescribed),
        status: status.to_string(),
        icon: icon(status).to_string(),
        has_changes,
        headline: headline(plan, &counts, has_changes),
        actions: action_counts(by_risk),
        counts,
        danger,
        map: None,
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
            count: outputs.len(),
            names: outputs,
            diff: None,
        },
        invocations: Invocations {
            count: plan.invocations.len(),
            ..Invocations::default()
        },
        rego: None,
        collapsed: false,
    })
}

/// A plan's status, or the comment's: the first of `failed`, `destructive` and `changes`
/// that is true, else `no-changes`.
pub(super) fn status(failed: bool, destructive: bool, changes: bool) -> &'static str {
    if failed {
        "failed"
    } else if destructive {
        "destructive"
    } else if changes {
        "changes"
    } else {
        "no-changes"
    }
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
                phrases::count_noun(counts.drift, "object", "objects"),
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
    let unknown = plan.unknown_actions.len();
    let resources = counts.add
        + counts.change
        + counts.destroy
        + counts.import
        + counts.moved
        + counts.forget
        + counts.read
        + unknown;
    let invoke = phrases::count_noun(counts.invoke, "action to invoke", "actions to invoke");
    if resources == 0 && counts.invoke > 0 {
        return format!("Plan: {invoke}");
    }
    if resources == 0 {
        return format!(
            "Plan: {} only",
            phrases::count_noun(counts.outputs, "output change", "output changes")
        );
    }
    let mut parts = Vec::new();
    if unknown > 0 {
        parts.push(unknown_actions(plan));
    }
    // Adds, changes and destroys are said even when none; the others only when some.
    let said = [
        (counts.import, "import", false),
        (counts.add, "add", true),
        (counts.change, "change", true),
        (counts.destroy, "destroy", true),
        (counts.moved, "move", false),
        (counts.forget, "forget", false),
    ];
    for (n, verb, always) in said {
        if always || n > 0 {
            parts.push(format!("{} to {verb}", phrases::thousands(n)));
        }
    }
    if counts.invoke > 0 {
        parts.push(invoke);
    }
    format!("Plan: {}", parts.join(", "))
}

/// `1 change planmark does not know (action invalid)`: the unknown action lists' names,
/// kept to letters, digits, `-` and `_` (they are plan text, and the headline is shown in
/// many places), the first three that differ.
fn unknown_actions(plan: &PlanHead) -> String {
    let mut names: Vec<String> = Vec::new();
    for (_, list) in &plan.unknown_actions {
        let list: Option<Vec<String>> = serde_json::from_str(list).ok().flatten();
        let name = match list.as_deref() {
            None => "?".to_string(),
            Some([]) => "none".to_string(),
            Some(list) => list
                .iter()
                .map(|n| {
                    let n: String = n
                        .chars()
                        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_'))
                        .take(24)
                        .collect();
                    if n.is_empty() {
                        "?".to_string()
                    } else {
                        n
                    }
                })
                .collect::<Vec<_>>()
                .join(" then "),
        };
        if !names.contains(&name) {
            names.push(name);
        }
    }
    let more = names.len() > 3;
    names.truncate(3);
    let changes = phrases::count_noun(plan.unknown_actions.len(), "change", "changes");
    let actions = if names.len() == 1 {
        "action"
    } else {
        "actions"
    };
    format!(
        "{changes} planmark does not know ({actions} {}{})",
        names.join(" / "),
        if more { " / …" } else { "" }
    )
}

/// Resource and other counts.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct Counts {
    /// Resources to create (replacements included, as Terraform counts them).
    pub add: usize,
    /// Resources to update in place.
    pub(crate) change: usize,
    /// Resources to destroy (replacements included).
    pub(crate) destroy: usize,
    /// Resources to replace.
    pub(crate) replace: usize,
    /// Resources to import.
    pub(crate) import: usize,
    /// Resources moved to a new address.
    #[serde(rename = "move")]
    pub(crate) moved: usize,
    /// Resources to remove from state without destroying.
    pub(crate) forget: usize,
    /// Data sources read during apply.
    pub(crate) read: usize,
    /// Objects changed outside Terraform (shown drift).
    pub(crate) drift: usize,
    /// Changed outputs.
    pub(crate) outputs: usize,
    /// Deferred changes.
    pub(crate) deferred: usize,
    /// Actions to invoke (Terraform 1.14+), however triggered.
    pub(crate) invoke: usize,
}

impl Counts {
    pub(super) fn add_counts(&mut self, other: &Counts) {
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
