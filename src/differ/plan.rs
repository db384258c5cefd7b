//! Differ: a whole [`Plan`] → [`PlanDiff`] (every resource, drift, deferred change and
//! output), choosing schemas and relevance the way Terraform does.

use super::{diff_output, diff_resource, Relevance};
use crate::diff::{
    ActionReason, CheckInstanceResult, CheckStatus, CheckSummary, DeferredDiff, OutputDiff,
    PlanDiff, PlanMode, ResourceAction, ResourceDiff,
};
use crate::error::{Error, Result};
use crate::plan::{ParsedChange, Plan, ResourceChange};
use crate::schema::ProviderSchemas;
use crate::value::Value;

/// Computes every diff in `plan`. `mode` overrides the inferred plan mode.
pub fn diff_plan(
    path: &str,
    plan: &Plan<'_>,
    schemas: Option<&ProviderSchemas>,
    mode: Option<PlanMode>,
) -> Result<PlanDiff> {
    let mode = mode.unwrap_or_else(|| infer_mode(plan));
    let config = plan
        .configuration
        .and_then(|raw| Value::parse(raw.get()).ok())
        .unwrap_or(Value::Null);
    let ctx = Context {
        path,
        schemas,
        config: &config,
    };
    let resources = plan
        .resource_changes
        .iter()
        .map(|rc| resource_diff(&ctx, rc, Relevance::All))
        .collect::<Result<Vec<_>>>()?;
    let drift = drift(&ctx, plan, mode)?;
    let deferred = plan
        .deferred_changes
        .iter()
        .map(|d| {
            Ok(DeferredDiff {
                reason: d.reason.to_string(),
                resource: resource_diff(&ctx, &d.resource_change, Relevance::All)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let outputs = plan
        .output_changes
        .iter()
        .map(|(name, change)| {
            let values = ParsedChange::parse(change).map_err(|e| value_error(path, name, e))?;
            Ok(OutputDiff {
                name: name.to_string(),
                diff: diff_output(&values),
            })
        })
        .collect::<Result<Vec<_>>>()?;
    Ok(PlanDiff {
        format_version: plan
            .format_version
            .as_deref()
            .unwrap_or_default()
            .to_string(),
        terraform_version: plan.terraform_version.as_deref().map(str::to_string),
        mode,
        errored: plan.errored,
        applyable: plan.applyable,
        resources,
        drift,
        deferred,
        outputs,
        checks: plan.checks.iter().map(check_summary).collect(),
        timestamp: plan.timestamp.as_deref().map(str::to_string),
    })
}

fn check_summary(check: &crate::plan::CheckResult<'_>) -> CheckSummary {
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

/// What every resource diff needs besides the change itself.
struct Context<'c, 'a> {
    path: &'c str,
    schemas: Option<&'c ProviderSchemas>,
    config: &'c Value<'a>,
}

fn drift(ctx: &Context<'_, '_>, plan: &Plan<'_>, mode: PlanMode) -> Result<Vec<ResourceDiff>> {
    if mode == PlanMode::RefreshOnly {
        return plan
            .resource_drift
            .iter()
            .map(|rc| resource_diff(ctx, rc, Relevance::All))
            .collect();
    }
    let relevant: Vec<(&str, Value<'_>)> = plan
        .relevant_attributes
        .iter()
        .filter_map(|r| {
            let attr = r.attribute.and_then(|raw| Value::parse(raw.get()).ok())?;
            Some((r.resource.as_ref(), attr))
        })
        .collect();
    let mut out = Vec::new();
    for rc in &plan.resource_drift {
        let paths: Vec<&Value<'_>> = relevant
            .iter()
            .filter(|(resource, _)| resource.is_empty() || *resource == rc.address)
            .map(|(_, attr)| attr)
            .collect();
        // With no relevant attribute every attribute reads as unchanged, so the entry's
        // computed action is no-op and it drops out: only drift that matters is shown.
        let diff = resource_diff(ctx, rc, Relevance::Paths(&paths))?;
        if diff.body.action != crate::diff::Action::NoOp {
            out.push(diff);
        }
    }
    Ok(out)
}

fn resource_diff(
    ctx: &Context<'_, '_>,
    rc: &ResourceChange<'_>,
    relevance: Relevance<'_, '_>,
) -> Result<ResourceDiff> {
    let values =
        ParsedChange::parse(&rc.change).map_err(|e| value_error(ctx.path, &rc.address, e))?;
    let action = ResourceAction::from_actions(&rc.change.actions);
    let schema = ctx
        .schemas
        .and_then(|s| s.resource(&rc.provider_name, &rc.mode, &rc.type_));
    let expressions = match schema {
        Some(_) => None,
        None => config_expressions(ctx.config, rc),
    };
    let body = diff_resource(
        &values,
        schema,
        expressions,
        relevance,
        action == ResourceAction::Forget,
    );
    Ok(ResourceDiff {
        address: rc.address.to_string(),
        previous_address: rc.previous_address.as_deref().map(str::to_string),
        module_address: rc.module_address.as_deref().map(str::to_string),
        data_source: rc.mode == "data",
        type_: rc.type_.to_string(),
        name: rc.name.to_string(),
        index: rc.index.map(|raw| raw.get().to_string()),
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
    })
}

fn value_error(path: &str, address: &str, err: crate::value::ParseError) -> Error {
    Error::input(
        path,
        format!(
            "the values of `{address}` cannot be read ({} at byte {}); regenerate the plan JSON",
            err.reason, err.offset
        ),
    )
}

/// The configuration expressions of the resource behind `rc`, found by walking
/// `module_calls` along its module path (instance keys dropped).
fn config_expressions<'v, 'a>(
    config: &'v Value<'a>,
    rc: &ResourceChange<'_>,
) -> Option<&'v Value<'a>> {
    let mut module = config.get("root_module")?;
    if let Some(address) = rc.module_address.as_deref() {
        for name in module_names(address) {
            module = module.get("module_calls")?.get(name)?.get("module")?;
        }
    }
    let Value::Array(resources) = module.get("resources")? else {
        return None;
    };
    resources
        .iter()
        .find(|r| {
            r.get("mode").and_then(Value::as_str) == Some(rc.mode.as_ref())
                && r.get("type").and_then(Value::as_str) == Some(rc.type_.as_ref())
                && r.get("name").and_then(Value::as_str) == Some(rc.name.as_ref())
        })?
        .get("expressions")
}

/// `module.a["x"].module.b[0]` → `["a", "b"]`. Keys are skipped by bracket matching, so
/// dots or brackets inside quoted keys do not confuse it.
fn module_names(address: &str) -> Vec<&str> {
    let mut names = Vec::new();
    let mut rest = address;
    while let Some(after) = rest.strip_prefix("module.") {
        let end = after.find(['.', '[']).unwrap_or(after.len());
        names.push(&after[..end]);
        rest = &after[end..];
        if rest.starts_with('[') {
            rest = skip_key(rest);
        }
        rest = rest.strip_prefix('.').unwrap_or(rest);
    }
    names
}

/// Skips one `[...]` instance key (a number or a quoted string with escapes).
fn skip_key(text: &str) -> &str {
    let mut in_string = false;
    let mut escaped = false;
    for (i, c) in text.char_indices().skip(1) {
        match c {
            _ if escaped => escaped = false,
            '\\' if in_string => escaped = true,
            '"' => in_string = !in_string,
            ']' if !in_string => return &text[i + 1..],
            _ => {}
        }
    }
    ""
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names_skip_instance_keys() {
        assert_eq!(module_names("module.a"), ["a"]);
        assert_eq!(module_names(r#"module.a["x.y]"].module.b[0]"#), ["a", "b"]);
    }
}
