//! Markdown renderer, template context: the actions a plan will invoke (Terraform 1.14+),
//! each with what triggers it in words and its config as Terraform prints it.

use schemars::JsonSchema;
use serde::Serialize;

use super::catalog::Detail;
use super::phrases::{self, code, words, Segment};
use crate::diff::{InvocationDiff, InvocationTrigger};

/// The actions one plan will invoke.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub(crate) struct Invocations {
    /// Number of invocations (every one, however triggered).
    pub(crate) count: usize,
    /// Invocations shown with their config.
    pub(crate) entries: Vec<InvocationContext>,
    /// Invocations shown by address only (the size limit).
    pub(crate) listed: Vec<InvocationContext>,
    /// Invocations left out (the size limit).
    pub(crate) omitted: usize,
}

/// One action invocation.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct InvocationContext {
    /// Action address, e.g. `action.aws_lambda_invoke.notify`.
    pub(crate) address: String,
    /// Action type.
    #[serde(rename = "type")]
    pub(crate) action_type: String,
    /// Action name.
    pub(crate) name: String,
    /// Provider source address.
    pub(crate) provider: String,
    /// `cli` (asked for with `-invoke`), `lifecycle` (a resource's `action_trigger`) or
    /// `unknown` (the plan does not say).
    pub(crate) trigger: String,
    /// The lifecycle event (`before_create`, `after_update`, …); `null` for `cli`.
    pub(crate) event: Option<String>,
    /// The resource whose change triggers it, or the one it is called for (`cli`).
    pub(crate) resource: Option<String>,
    /// What triggers it, as segments (`code` ones name plan objects).
    pub(crate) reason: Vec<Segment>,
    /// The reason as plain text.
    pub(crate) reason_text: String,
    /// Terraform's text for it (its `# … will be invoked` line and `action` block with
    /// the config); `null` when listed only.
    pub(crate) diff: Option<String>,
}

impl Invocations {
    /// Places an invocation at the detail the size budget gave it.
    pub(super) fn place(&mut self, entry: InvocationContext, detail: Detail) {
        match detail {
            Detail::Full | Detail::Compact => self.entries.push(entry),
            Detail::Listed | Detail::Grouped(_) => self.listed.push(InvocationContext {
                diff: None,
                ..entry
            }),
            Detail::Omitted => self.omitted += 1,
        }
    }
}

/// The context of `invocation`, with its text `diff` when shown.
pub(super) fn invocation_context(
    invocation: &InvocationDiff,
    diff: Option<String>,
) -> InvocationContext {
    let (trigger, event, resource) = match &invocation.trigger {
        InvocationTrigger::Cli { calling_resource } => ("cli", None, calling_resource.clone()),
        InvocationTrigger::Lifecycle {
            resource, event, ..
        } => ("lifecycle", Some(event.clone()), Some(resource.clone())),
        InvocationTrigger::Unknown => ("unknown", None, None),
    };
    let reason = reason(&invocation.trigger);
    InvocationContext {
        address: invocation.address.clone(),
        action_type: invocation.type_.clone(),
        name: invocation.name.clone(),
        provider: invocation.provider.clone(),
        trigger: trigger.to_string(),
        event,
        resource,
        reason_text: phrases::plain(&reason),
        reason,
        diff,
    }
}

/// What triggers an invocation, in words: `after `aws_instance.web` is created`.
fn reason(trigger: &InvocationTrigger) -> Vec<Segment> {
    match trigger {
        InvocationTrigger::Cli {
            calling_resource: None,
        } => vec![words("asked for on the command line")],
        InvocationTrigger::Cli {
            calling_resource: Some(caller),
        } => vec![words("asked for on the command line, for "), code(caller)],
        InvocationTrigger::Lifecycle {
            resource, event, ..
        } => {
            let (when, what) = event.split_once('_').unwrap_or(("", ""));
            let done = match what {
                "create" => "created",
                "update" => "updated",
                "destroy" => "destroyed",
                _ => "",
            };
            if matches!(when, "before" | "after") && !done.is_empty() {
                vec![
                    words(&format!("{when} ")),
                    code(resource),
                    words(&format!(" is {done}")),
                ]
            } else {
                // An event this version does not know: named as the plan names it.
                vec![code(event), words(" of "), code(resource)]
            }
        }
        InvocationTrigger::Unknown => Vec::new(),
    }
}
