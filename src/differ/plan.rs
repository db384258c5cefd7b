//! Differ: a whole [`Plan`] → [`PlanDiff`] (every resource, drift, deferred change and
//! output), choosing schemas and relevance the way Terraform does.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::value::RawValue;

use super::change::Matcher;
use super::resource::{diff_output_paired, diff_resource_values, value_error};
use super::sequence::Pairing;
use crate::diff::address::module_names;
use crate::diff::{
    Action, ActionReason, Block, CheckInstanceResult, CheckStatus, CheckSummary, DeferredDiff,
    Diff, Node, OutputDiff, PlanDiff, PlanHead, PlanMode, ResourceChanges, ResourceDiff,
};
use crate::input::error::{InputError, Result};
use crate::input::json::Value;
use crate::input::plan::{
    sensitive_outputs, ChangeList, ParsedChange, Plan, ReadChange, ResourceAction, ResourceChange,
    Tool,
};
use crate::input::schema::ProviderSchemas;

/// What an entry of `list` is called in an error.
fn noun(list: ChangeList) -> &'static str {
    match list {
        ChangeList::Changes => "resource change",
        ChangeList::Drift => "drifted resource",
    }
}

/// Computes every diff in `plan`. `mode` overrides the inferred plan mode.
pub fn diff_plan(
    path: &str,
    plan: &Plan<'_>,
    schemas: Option<&ProviderSchemas>,
    mode: Option<PlanMode>,
) -> Result<PlanDiff> {
    let differ = Differ::new(path, plan, schemas);
    // Resources first: a plan broken in several places reports its first resource.
    let resources = diff_every(&differ.lazy())?;
    let head = differ.head(mode)?;
    let drift = diff_every(&differ.drift(head.mode)?)?;
    Ok(PlanDiff {
        head,
        resources,
        drift,
    })
}

/// Every change of `list` diffed, in order, a part at a time on every core. The vector
/// is sized up front: growing it by doubling would copy a huge plan's diffs.
fn diff_every(list: &dyn ResourceChanges) -> Result<Vec<ResourceDiff>> {
    let indexes: Vec<usize> = (0..list.summaries().len()).collect();
    let parts: Vec<&[usize]> = indexes.chunks(crate::concurrency::PART).collect();
    let mut all = Vec::with_capacity(indexes.len());
    let diff_part = |part: &&[usize]| -> Result<Vec<ResourceDiff>> {
        part.iter()
            .map(|&i| Ok(list.diff(i)?.into_owned()))
            .collect()
    };
    crate::concurrency::map_ordered(&parts, diff_part, |diffs| {
        all.extend(diffs);
        Ok(())
    })?;
    Ok(all)
}

/// A plan being diffed in parts, so that a huge plan never holds all its diff trees:
/// [`Differ::head`] diffs everything but the resource changes and drift;
/// [`Differ::lazy`] offers those as [`ResourceChanges`] for the renderers, described up
/// front and each diffed when asked, and [`Differ::drift`] the drift shown, the same way.
pub struct Differ<'p, 'a> {
    /// The file the plan was read from, as errors name it.
    pub(super) path: &'p str,
    pub(super) plan: &'p Plan<'a>,
    /// The provider schemas given, if any.
    pub(super) schemas: Option<&'p ProviderSchemas>,
    /// The tool whose wording and list pairing the diffs follow.
    tool: Tool,
    /// The plan's masks may lack what providers declare sensitive (Terraform before
    /// 0.15.2): resources without a schema hide attributes named like secrets.
    pub(super) old_masks: bool,
    /// The configuration's resource blocks, read on first use (only resources without a
    /// schema need them).
    config_index: OnceLock<ConfigIndex<'a>>,
}

impl<'p, 'a> Differ<'p, 'a> {
    /// A differ for `plan` (read from `path`, named in errors), following the tool that
    /// made it (`Plan::made_by`).
    pub fn new(path: &'p str, plan: &'p Plan<'a>, schemas: Option<&'p ProviderSchemas>) -> Self {
        Differ {
            path,
            plan,
            schemas,
            tool: plan.made_by(),
            old_masks: plan.masks_omit_provider_sensitivity(),
            config_index: OnceLock::new(),
        }
    }

    /// The same differ following `tool` (`--tool`) instead of the detected one; `None`
    /// keeps the detected one.
    pub(crate) fn with_tool(mut self, tool: Option<Tool>) -> Self {
        if let Some(tool) = tool {
            self.tool = tool;
        }
        self
    }

    /// The plan's output changes in name order: name, parsed values and actions. An
    /// output the configuration declares sensitive is masked whole: Terraform before 0.14
    /// wrote no sensitivity for outputs (newer plans mark such outputs so in the masks too).
    pub(super) fn output_values(&self) -> Result<Vec<(&'p str, ParsedChange<'a>, ResourceAction)>> {
        let declared = match self.plan.output_changes.is_empty() {
            true => Default::default(),
            false => sensitive_outputs(self.plan),
        };
        let output = |(name, change): (&'p Cow<'a, str>, &'p crate::input::plan::Change<'a>)| {
            let mut values =
                ParsedChange::parse(change).map_err(|e| value_error(self.path, name, e))?;
            if declared.contains(name.as_ref()) {
                values.before_sensitive = Value::Bool(true);
                values.after_sensitive = Value::Bool(true);
            }
            Ok((name.as_ref(), values, change.action))
        };
        self.plan.output_changes.iter().map(output).collect()
    }

    /// The configuration expressions of the resource behind `rc` (what tells blocks
    /// apart when no schema describes it).
    pub(super) fn expressions(&self, rc: &ResourceChange<'_>) -> Option<&Value<'a>> {
        let index = self
            .config_index
            .get_or_init(|| ConfigIndex::new(self.plan.configuration));
        index.expressions(rc)
    }

    /// The plan's diff but its resource changes and drift ([`Differ::lazy`] and
    /// [`Differ::drift`] give those): deferred changes, outputs, checks. `mode` overrides
    /// the inferred plan mode.
    pub fn head(&self, mode: Option<PlanMode>) -> Result<PlanHead> {
        let plan = self.plan;
        let path = self.path;
        let mode = mode.unwrap_or_else(|| infer_mode(plan));
        let deferred = plan
            .deferred_changes
            .iter()
            .map(|d| {
                let rc = &d.resource_change;
                let values = ParsedChange::parse(&rc.change)
                    .map_err(|e| value_error(path, &rc.address, e))?;
                Ok(DeferredDiff {
                    reason: d.reason.to_string(),
                    resource: self.diff_values(rc, &values, Matcher::always()),
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let outputs = self.output_values()?.into_iter();
        let outputs = outputs
            .map(|(name, values, _)| OutputDiff {
                name: name.to_string(),
                diff: diff_output_paired(&values, Pairing::of(self.tool)),
            })
            .collect();
        Ok(PlanHead {
            tool: self.tool,
            format_version: plan
                .format_version
                .as_deref()
                .unwrap_or_default()
                .to_string(),
            terraform_version: plan.terraform_version.as_deref().map(str::to_string),
            provider_sensitivity_unknown: self.old_masks
                && self.schemas.is_none()
                && (!plan.resource_changes.is_empty()
                    || !plan.resource_drift.is_empty()
                    || !plan.deferred_changes.is_empty()),
            undescribed: self.undescribed()?,
            mode,
            errored: plan.errored,
            applyable: plan.applyable,
            deferred,
            outputs,
            checks: plan.checks.iter().map(check_summary).collect(),
            invocations: super::invocations::diff_invocations(path, plan, self.schemas)?,
            timestamp: plan.timestamp.as_deref().map(str::to_string),
            unknown_actions: plan.unknown_actions(),
        })
    }

    /// Entry `i` of `list`, read again from the plan text, its values parsed.
    pub(super) fn read_entry(&self, list: ChangeList, i: usize) -> Result<ReadChange<'a>> {
        // Read once already, so only a plan not read by `parse_plan` fails here.
        let read = self.plan.read_change(list, i);
        let read = read.ok_or_else(|| self.unreadable(list, i))?;
        read.map_err(|e| value_error(self.path, self.address(list, i), e))
    }

    /// Entry `i` of `list`, read again from the plan text and diffed.
    pub(super) fn diff_entry(
        &self,
        list: ChangeList,
        i: usize,
        relevant: Matcher<'_, '_>,
    ) -> Result<ResourceDiff> {
        let read = self.read_entry(list, i)?;
        Ok(self.diff_values(&read.change, &read.values, relevant))
    }
}

fn check_summary(check: &crate::input::plan::CheckResult<'_>) -> CheckSummary {
    CheckSummary {
        address: check.address.to_display.to_string(),
        kind: check.address.kind.to_string(),
        status: CheckStatus::parse(&check.status),
        instances: check
            .instances
            .iter()
            .map(|i| CheckInstanceResult {
                address: i.address.to_display.to_string(),
                status: CheckStatus::parse(&i.status),
                problems: i.problems.iter().map(|p| p.message.to_string()).collect(),
            })
            .collect(),
    }
}

/// A refresh-only plan has drift but no `resource_changes` at all; the JSON does not
/// record the mode otherwise.
fn infer_mode(plan: &Plan<'_>) -> PlanMode {
    if plan.resource_changes.is_empty() && !plan.resource_drift.is_empty() {
        PlanMode::RefreshOnly
    } else {
        PlanMode::Normal
    }
}

impl Differ<'_, '_> {
    /// The diff of `rc` given its parsed values.
    fn diff_values(
        &self,
        rc: &ResourceChange<'_>,
        values: &ParsedChange<'_>,
        relevant: Matcher<'_, '_>,
    ) -> ResourceDiff {
        let action = rc.change.action;
        let schema = self
            .schemas
            .and_then(|s| s.resource(&rc.provider_name, &rc.mode, &rc.type_));
        let expressions = match schema {
            Some(_) => None,
            None => self.expressions(rc),
        };
        let body = diff_resource_values(
            values,
            schema,
            expressions,
            relevant,
            // Terraform shows a forgotten object as unchanged, OpenTofu as deleted.
            action == ResourceAction::Forget && self.tool == Tool::Terraform,
            Pairing::of(self.tool),
            self.old_masks,
        );
        with_body(rc, body)
    }

    /// The address of entry `i` of `list` (`?` if there is none).
    fn address(&self, list: ChangeList, i: usize) -> &str {
        let entry = self.plan.entries(list).get(i);
        entry.map_or("?", |e| &*e.address)
    }

    /// Entry `i` of `list` cannot be read again: the plan was not read by `parse_plan`
    /// (which keeps its text), or `i` is out of range.
    fn unreadable(&self, list: ChangeList, i: usize) -> InputError {
        InputError::input(
            self.path,
            format!(
                "{} {i} (`{}`) cannot be read again from the plan text",
                noun(list),
                self.address(list, i)
            ),
        )
    }

    /// Entry `i` of `list` without its body (an empty, unchanged block): its members read
    /// again, its values not parsed nor diffed.
    pub(super) fn header_entry(&self, list: ChangeList, i: usize) -> Result<ResourceDiff> {
        let read = self.plan.read_members(list, i);
        let rc = read.ok_or_else(|| self.unreadable(list, i))?;
        let body = Diff {
            action: Action::NoOp,
            replace: false,
            node: Node::Block(Block::default()),
        };
        Ok(with_body(&rc, body))
    }
}

/// The diff of `rc` with `body`.
fn with_body(rc: &ResourceChange<'_>, body: Diff) -> ResourceDiff {
    let action = rc.change.action;
    ResourceDiff {
        address: rc.address.to_string(),
        previous_address: rc.previous_address.as_deref().map(str::to_string),
        module_address: rc.module_address.as_deref().map(str::to_string),
        data_source: rc.mode == "data",
        type_: rc.type_.to_string(),
        name: rc.name.to_string(),
        index: rc.index.as_deref().map(str::to_string),
        deposed: rc.deposed.as_deref().map(str::to_string),
        provider: rc.provider_name.to_string(),
        action,
        reason: rc.action_reason.as_deref().and_then(ActionReason::parse),
        importing: rc
            .change
            .importing
            .as_ref()
            .map(|i| i.id.as_deref().unwrap_or_default().to_string()),
        generated_config: rc
            .change
            .generated_config
            .as_deref()
            .is_some_and(|g| !g.is_empty()),
        body,
    }
}

/// The configuration's resource blocks, indexed once so finding a resource's expressions
/// does not scan its module's resources for every instance.
struct ConfigIndex<'a> {
    /// `expressions` of the first block with each [`config_key`] (`None`: it has none).
    blocks: HashMap<String, Option<Value<'a>>>,
}

/// Where a resource block sits in the configuration: module call names (instance keys
/// dropped), mode, type and name, in one string (none of them holds a NUL).
fn config_key(modules: &[&str], mode: &str, type_: &str, name: &str) -> String {
    let mut key = modules.join(".");
    for part in [mode, type_, name] {
        key.push('\0');
        key.push_str(part);
    }
    key
}

impl<'a> ConfigIndex<'a> {
    /// Indexes `configuration` (the plan's member; absent or unreadable, it has no blocks).
    fn new(configuration: Option<&'a RawValue>) -> Self {
        let config = configuration
            .and_then(|raw| Value::parse(raw.get()).ok())
            .unwrap_or(Value::Null);
        let mut index = ConfigIndex {
            blocks: HashMap::new(),
        };
        if let Some(root) = config.get("root_module") {
            index.add_module(root, &mut Vec::new());
        }
        index
    }

    fn add_module(&mut self, module: &Value<'a>, path: &mut Vec<String>) {
        if let Some(Value::Array(resources)) = module.get("resources") {
            for r in resources {
                let field = |name| r.get(name).and_then(Value::as_str);
                if let (Some(mode), Some(type_), Some(name)) =
                    (field("mode"), field("type"), field("name"))
                {
                    let modules: Vec<&str> = path.iter().map(String::as_str).collect();
                    // The first block with a key wins, as a search in order would find.
                    self.blocks
                        .entry(config_key(&modules, mode, type_, name))
                        .or_insert_with(|| r.get("expressions").cloned());
                }
            }
        }
        if let Some(Value::Object(calls)) = module.get("module_calls") {
            for (name, call) in calls {
                if let Some(child) = call.get("module") {
                    path.push(name.to_string());
                    self.add_module(child, path);
                    path.pop();
                }
            }
        }
    }

    /// The configuration expressions of the resource behind `rc`, found by its module
    /// path (instance keys dropped).
    fn expressions(&self, rc: &ResourceChange<'_>) -> Option<&Value<'a>> {
        let modules = rc
            .module_address
            .as_deref()
            .map(module_names)
            .unwrap_or_default();
        let key = config_key(&modules, &rc.mode, &rc.type_, &rc.name);
        self.blocks.get(&key)?.as_ref()
    }
}
