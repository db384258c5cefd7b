//! Text renderer: action invocations (Terraform 1.14+) as `terraform show` prints them.
//!
//! An action asked for on the command line gets its own section after the summary line
//! (`Terraform will invoke the following action(s):`); one triggered by a resource's
//! lifecycle event is printed after that resource's diff, under `# Actions to be invoked
//! before (or after) this change in order:`. Each is an `action "type" "name" {` block
//! holding its `config` block without action symbols, every attribute shown.

use std::collections::HashMap;

use super::nodes::{render, Opts};
use super::out::MarkedText;
use crate::diff::quote::go_quote_into;
use crate::diff::{InvocationDiff, InvocationTrigger, PlanHead};

/// The lifecycle-triggered invocations of each resource instance, in the order Terraform
/// prints them (by `action_trigger` block, then by place in its `actions` list).
#[derive(Default)]
pub(crate) struct Triggered<'p> {
    by_resource: HashMap<&'p str, Vec<&'p InvocationDiff>>,
}

impl<'p> Triggered<'p> {
    pub(crate) fn of(plan: &'p PlanHead) -> Self {
        let mut by_resource: HashMap<&str, Vec<&InvocationDiff>> = HashMap::new();
        for invocation in &plan.invocations {
            if let InvocationTrigger::Lifecycle { resource, .. } = &invocation.trigger {
                by_resource.entry(resource).or_default().push(invocation);
            }
        }
        for list in by_resource.values_mut() {
            // Stable: invocations at the same place keep plan order.
            list.sort_by_key(|i| match i.trigger {
                InvocationTrigger::Lifecycle {
                    block_index,
                    list_index,
                    ..
                } => (block_index, list_index),
                _ => (0, 0),
            });
        }
        Triggered { by_resource }
    }

    /// Writes the invocations `address`'s change triggers, after its diff.
    pub(crate) fn write(&self, out: &mut String, address: &str) {
        let Some(list) = self.by_resource.get(address) else {
            return;
        };
        for (before, when) in [(true, "before"), (false, "after")] {
            let mut group = list.iter().filter(|i| i.trigger.runs_before() == before);
            let Some(first) = group.next() else {
                continue;
            };
            out.push_str("\n\n    # Actions to be invoked ");
            out.push_str(when);
            out.push_str(" this change in order:\n");
            for invocation in std::iter::once(first).chain(group) {
                write_block(out, invocation);
            }
        }
    }
}

/// The invocations asked for on the command line, in plan order.
pub(crate) fn cli_invocations(plan: &PlanHead) -> impl Iterator<Item = &InvocationDiff> {
    plan.invocations
        .iter()
        .filter(|i| matches!(i.trigger, InvocationTrigger::Cli { .. }))
}

/// The "will invoke" section, when there are command-line invocations.
pub(crate) fn write_cli_section(out: &mut String, plan: &PlanHead) {
    let mut first = true;
    for invocation in cli_invocations(plan) {
        if first {
            out.push_str("\nTerraform will invoke the following action(s):\n\n");
        } else {
            out.push('\n');
        }
        first = false;
        write_invocation(out, invocation);
    }
    if !first {
        out.push('\n');
    }
}

/// One invocation with its `# … will be invoked` line, as the "will invoke" section lists
/// it (ends with a newline).
pub(crate) fn write_invocation(out: &mut String, invocation: &InvocationDiff) {
    out.push_str("  # ");
    out.push_str(&invocation.address);
    out.push_str(" will be invoked");
    if let InvocationTrigger::Cli {
        calling_resource: Some(caller),
    } = &invocation.trigger
    {
        out.push_str(" (called from ");
        out.push_str(caller);
        out.push(')');
    }
    out.push('\n');
    write_block(out, invocation);
}

/// `# address`, then the `action "type" "name" {` block with its config (ends with a
/// newline).
fn write_block(out: &mut String, invocation: &InvocationDiff) {
    out.push_str("    # ");
    out.push_str(&invocation.address);
    out.push_str("\n    action ");
    go_quote_into(&invocation.type_, out);
    out.push(' ');
    go_quote_into(&invocation.name, out);
    out.push_str(" {\n");
    if let Some(config) = &invocation.config {
        out.push_str("        config ");
        let mut body = super::out::Out::default();
        let opts = Opts {
            show_unchanged: true,
            hide_symbols: true,
            ..Opts::default()
        };
        render(&mut body, config, 0, opts);
        // Every line but the first sits inside the action block.
        for (i, line) in body.split('\n').enumerate() {
            if i > 0 {
                out.push_str("\n        ");
            }
            out.push_str(line);
        }
        out.push('\n');
    }
    out.push_str("    }\n");
}

/// One invocation as the "will invoke" section lists it (for the comment, which lists
/// every invocation so), without a trailing newline.
pub(crate) fn invocation_text(invocation: &InvocationDiff) -> MarkedText {
    let mut text = String::new();
    write_invocation(&mut text, invocation);
    text.pop();
    MarkedText {
        text,
        marks: Vec::new(),
    }
}
