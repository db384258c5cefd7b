//! Text renderer: a plan's diff (a [`PlanHead`] and its [`Changes`]) as `terraform show
//! PLANFILE` prints it (colour off).
//!
//! Contract: byte-identical to the newest Terraform for every plan Terraform itself can
//! render; sections in Terraform's order: version warning, drift, no-changes text,
//! deferred changes, legend, resource changes (each with the actions it triggers) and
//! summary, actions invoked from the command line, outputs. [`write_plan`] writes
//! to a caller's sink as it goes, taking the resource diffs from a [`ResourceChanges`] in
//! plan order (the differ's computes them a chunk at a time, so a huge plan is never all in
//! memory); [`render_plan`] returns the text of a whole [`PlanDiff`].

mod applied;
mod invocations;
mod log;
mod nodes;
mod out;
mod resource;
mod wrap;

use std::fmt::Write;
use std::io;

use crate::concurrency::PART;
use crate::diff::{
    Action, Changes, DeferredDiff, DiffedPlan, OutputDiff, PlanDiff, PlanHead, PlanMode,
    ResourceChanges, ResourceDiff, ResourceSummary,
};
use crate::input::plan::{ResourceAction, Tool};
use crate::render::error::{RenderError, Result};
pub(crate) use applied::{applied_text, counts_sentence};
pub(crate) use invocations::invocation_text;
use invocations::{write_cli_section, Triggered};
use nodes::{attribute_name, render, Opts};
use out::Out;
use resource::{render_deferred, render_resource, Cause};
use wrap::{push_rule, word_wrap};

pub(crate) use log::log_text;
pub(crate) use out::MarkedText;

/// One resource change as `terraform show` (or `tofu show`, after `tool`) prints it
/// (comment lines, header, body); `drift` words it as a change made outside Terraform;
/// `compact` hides unchanged context.
pub(crate) fn resource_text(
    r: &ResourceDiff,
    tool: Tool,
    drift: bool,
    compact: bool,
) -> MarkedText {
    let mut out = Out::marked();
    let cause = if drift { Cause::Drift } else { Cause::Planned };
    render_resource(&mut out, r, tool, cause, compact);
    MarkedText::from_out(out)
}

/// One deferred change as `terraform show` prints it.
pub(crate) fn deferred_text(d: &DeferredDiff, compact: bool) -> MarkedText {
    let mut out = Out::marked();
    render_deferred(&mut out, d, compact);
    MarkedText::from_out(out)
}

/// The "Changes to Outputs" lines (empty when no output changes).
pub(crate) fn outputs_text(plan: &PlanHead, compact: bool) -> MarkedText {
    MarkedText::from_out(render_outputs(plan, &Out::marked(), compact))
}

/// Renders the whole plan as text.
pub fn render_plan(plan: &PlanDiff) -> String {
    let mut text = Vec::new();
    // Writing to memory cannot fail, and the resources are already diffed.
    let _ = write_plan(&plan.head, DiffedPlan::new(plan).changes(), &mut text);
    String::from_utf8(text).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Text is gathered up to this size before it is written (the parts of a huge plan, which
/// come bigger, are written as they come), so the whole text of a huge plan is never in
/// memory.
const FLUSH_AT: usize = 1 << 16;

/// Writes the whole plan as text to `sink`, diffing nothing itself: `plan` holds every
/// section but the resource changes and drift (its `resources` and `drift` are not
/// read), and `lists` gives those (they may be the differ's, computing them a chunk at a
/// time as they are written).
pub fn write_plan(plan: &PlanHead, lists: Changes<'_>, sink: &mut dyn io::Write) -> Result<()> {
    let resources = lists.resources;
    let tool = plan.tool;
    let name = tool.name();
    let mut out = Out::default();
    version_warning(&mut out, plan);
    let drift_shown = render_drift(&mut out, sink, plan, lists)?;

    let summaries = resources.summaries();
    let changes: Vec<&ResourceSummary> = summaries.iter().filter(|r| r.is_shown()).collect();
    let mut counts = Counts::default();
    for r in &changes {
        counts.add(&r.action);
    }
    let importing = changes.iter().filter(|r| r.importing).count();
    let outputs = render_outputs(plan, &out.sibling(), false);
    // Every invocation counts, and one alone is not "No changes", even those Terraform
    // prints nowhere (with no trigger recorded).
    let invoking = plan.invocations.len();

    if changes.is_empty() && outputs.is_empty() && invoking == 0 {
        let rule_first = |out: &mut Out| {
            if drift_shown {
                push_rule(out);
            }
        };
        if plan.errored {
            rule_first(&mut out);
            let _ = write!(
                out,
                "\nPlanning failed. {name} encountered an error while generating this plan.\n\n",
            );
        } else if !plan.deferred.is_empty() {
            rule_first(&mut out);
            out.push_str(
                "\nNo current changes. This plan requires another plan to be applied first.\n\n",
            );
        } else {
            match plan.mode {
                PlanMode::RefreshOnly => {
                    if drift_shown {
                        return flush(&mut out, sink);
                    }
                    out.push_str(
                        "\nNo changes. Your infrastructure still matches the configuration.\n\n",
                    );
                    line(&mut out, &word_wrap(&format!("{name} has checked that the real remote objects still match the result of your most recent changes, and found no differences.")));
                }
                PlanMode::Destroy => {
                    rule_first(&mut out);
                    out.push_str("\nNo changes. No objects need to be destroyed.\n\n");
                    line(&mut out, &word_wrap(&format!("Either you have not created any objects yet or the existing objects were already deleted outside of {name}.")));
                }
                PlanMode::Normal => {
                    rule_first(&mut out);
                    out.push_str(
                        "\nNo changes. Your infrastructure matches the configuration.\n\n",
                    );
                    if drift_shown {
                        if plan.applyable != Some(false) {
                            line(&mut out, &word_wrap("Your configuration already matches the changes detected above, so applying this plan will only update the state to include the changes detected above and won't change any real infrastructure."));
                        } else {
                            let command = tool.command();
                            line(&mut out, &word_wrap(&format!("Your configuration already matches the changes detected above. If you'd like to update the {name} state to match, create and apply a refresh-only plan:\n  {command} apply -refresh-only")));
                        }
                        return flush(&mut out, sink);
                    }
                    line(&mut out, &word_wrap(&format!("{name} has compared your real infrastructure against your configuration and found no differences, so no changes are needed.")));
                }
            }
        }
    }

    if drift_shown {
        push_rule(&mut out);
    }
    if render_deferred_section(&mut out, plan) {
        push_rule(&mut out);
    }
    if counts.any {
        line(&mut out, &word_wrap(&format!("\n{name} used the selected providers to generate the following execution plan. Resource actions are indicated with the following symbols:")));
        let update = match tool {
            Tool::Terraform => "  ~ update in-place",
            Tool::OpenTofu => "  ~ update in-place (current -> planned)",
        };
        // OpenTofu lists forgetting too; Terraform's legend leaves it out.
        let forget = match tool {
            Tool::Terraform => 0,
            Tool::OpenTofu => counts.forget,
        };
        for (count, legend) in [
            (counts.create, "  + create"),
            (counts.update, update),
            (counts.delete, "  - destroy"),
            (
                counts.delete_create,
                "-/+ destroy and then create replacement",
            ),
            (
                counts.create_delete,
                "+/- create replacement and then destroy",
            ),
            (counts.read, " <= read (data resources)"),
            (forget, "  . forget"),
        ] {
            if count > 0 {
                line(&mut out, legend);
            }
        }
    }
    if !changes.is_empty() || invoking > 0 {
        let _ = if plan.errored {
            writeln!(
                out,
                "\n{name} planned the following actions, but then encountered a problem:"
            )
        } else {
            writeln!(out, "\n{name} will perform the following actions:")
        };
        let shown = |i: usize| summaries[i].is_shown();
        let triggered = Triggered::of(plan);
        write_changes(
            &mut out,
            sink,
            resources,
            &shown,
            tool,
            Cause::Planned,
            &triggered,
        )?;
        out.push_str("\nPlan: ");
        if importing > 0 {
            let _ = write!(out, "{importing} to import, ");
        }
        let _ = write!(
            out,
            "{} to add, {} to change, {} to destroy",
            counts.create + counts.delete_create + counts.create_delete + counts.create_forget,
            counts.update,
            counts.delete + counts.delete_create + counts.create_delete
        );
        // OpenTofu counts what it forgets in the summary too.
        if tool == Tool::OpenTofu && counts.forget > 0 {
            let _ = write!(out, ", {} to forget", counts.forget);
        }
        out.push('.');
        if invoking > 0 {
            let _ = write!(out, " Actions: {invoking} to invoke.");
        }
        out.push('\n');
    }
    write_cli_section(&mut out, plan);
    if !outputs.is_empty() {
        out.push_str("\nChanges to Outputs:\n");
        out.append(outputs);
        out.push('\n');
        if !counts.any {
            line(&mut out, &word_wrap(&format!("\nYou can apply this plan to save these new output values to the {name} state, without changing any real infrastructure.")));
        }
    }
    flush(&mut out, sink)
}

/// Writes the changes of `list` that `want` accepts, as `cause`, each between blank lines,
/// appended to `out` or, once it is big, written out as they come. Every core diffs and
/// renders a part of them while the parts before it are written
/// ([`crate::concurrency::map_ordered`]): the whole plan's diffs are never held.
fn write_changes(
    out: &mut Out,
    sink: &mut dyn io::Write,
    list: &dyn ResourceChanges,
    want: &dyn Fn(usize) -> bool,
    tool: Tool,
    cause: Cause,
    triggered: &Triggered<'_>,
) -> Result<()> {
    let wanted: Vec<usize> = (0..list.summaries().len()).filter(|&i| want(i)).collect();
    let parts: Vec<&[usize]> = wanted.chunks(PART).collect();
    let render_part = |part: &&[usize]| -> Result<String> {
        // Sized once: grown by doubling on every core, the buffers kept more resident.
        let mut changes = Out::from_text(String::with_capacity(PART * 1024));
        for &i in *part {
            let r = list.diff(i)?;
            changes.push('\n');
            render_resource(&mut changes, &r, tool, cause, false);
            triggered.write(&mut changes, &r.address);
            changes.push('\n');
        }
        Ok(changes.into_parts().0)
    };
    crate::concurrency::map_ordered(&parts, render_part, |text| {
        if out.len() + text.len() < FLUSH_AT {
            out.push_str(&text);
            return Ok(());
        }
        // A big piece (a part of a huge plan) goes out as it is, not copied.
        flush(out, sink)?;
        sink.write_all(text.as_bytes()).map_err(RenderError::Write)
    })
}

/// Writes out what `out` holds and empties it.
fn flush(out: &mut Out, sink: &mut dyn io::Write) -> Result<()> {
    sink.write_all(out.as_bytes()).map_err(RenderError::Write)?;
    out.clear();
    Ok(())
}

fn line(out: &mut String, text: &str) {
    out.push_str(text);
    out.push('\n');
}

/// A change other than no-op, or a move or an import.
fn has_news(r: &ResourceSummary) -> bool {
    r.action != ResourceAction::NoOp || r.moved || r.importing
}

#[derive(Default)]
struct Counts {
    any: bool,
    create: usize,
    read: usize,
    update: usize,
    delete: usize,
    delete_create: usize,
    create_delete: usize,
    create_forget: usize,
    forget: usize,
}

impl Counts {
    fn add(&mut self, action: &ResourceAction) {
        let slot = match action {
            ResourceAction::NoOp | ResourceAction::Unsupported | ResourceAction::Open => return,
            ResourceAction::Create => &mut self.create,
            ResourceAction::Read => &mut self.read,
            ResourceAction::Update => &mut self.update,
            ResourceAction::Delete => &mut self.delete,
            ResourceAction::DeleteThenCreate => &mut self.delete_create,
            ResourceAction::CreateThenDelete => &mut self.create_delete,
            ResourceAction::CreateThenForget => &mut self.create_forget,
            ResourceAction::Forget => &mut self.forget,
        };
        *slot += 1;
        self.any = true;
    }
}

/// Plans from a newer format than this renderer knows get Terraform's warning. (Like
/// Terraform, the comparison is numeric, so "1.10" counts as older than "1.2".)
fn version_warning(out: &mut String, plan: &PlanHead) {
    let newer = plan
        .format_version
        .parse::<f64>()
        .is_ok_and(|version| version > 1.2);
    if newer {
        line(out, &word_wrap(&format!("\nWarning: This plan was generated using a different version of {}, the diff presented here may be missing representations of recent features.", plan.tool.name())));
    }
}

/// The drift section, when Terraform shows it (it says whether it did), streamed like the
/// resource changes.
fn render_drift(
    out: &mut Out,
    sink: &mut dyn io::Write,
    plan: &PlanHead,
    lists: Changes<'_>,
) -> Result<bool> {
    let summaries = lists.drift.summaries();
    if summaries.is_empty() {
        return Ok(false);
    }
    if plan.mode != PlanMode::RefreshOnly && plan_is_empty(plan, lists.resources)? {
        return Ok(false);
    }
    let (name, command) = (plan.tool.name(), plan.tool.command());
    let _ = write!(out, "\nNote: Objects have changed outside of {name}\n\n");
    out.push_str(&word_wrap(&format!("{name} detected the following changes made outside of {name} since the last \"{command} apply\" which may have affected this plan:\n")));
    let shown = |i: usize| has_news(&summaries[i]);
    write_changes(
        out,
        sink,
        lists.drift,
        &shown,
        plan.tool,
        Cause::Drift,
        &Triggered::default(),
    )?;
    let epilogue = if plan.mode == PlanMode::RefreshOnly {
        format!("\n\nThis is a refresh-only plan, so {name} will not take any actions to undo these. If you were expecting these changes then you can apply this plan to record the updated values in the {name} state without changing any remote objects.")
    } else {
        "\n\nUnless you have made equivalent changes to your configuration, or ignored the relevant attributes using ignore_changes, the following plan may include actions to undo or respond to these changes.".to_string()
    };
    line(out, &word_wrap(&epilogue));
    Ok(true)
}

/// No resource change other than no-op (moves count as changes) and no output change:
/// Terraform then hides drift in a normal plan (the text and the comment alike).
pub(crate) fn plan_is_empty(plan: &PlanHead, resources: &dyn ResourceChanges) -> Result<bool> {
    let outputs_quiet = plan.outputs.iter().all(|o| o.diff.action == Action::NoOp);
    Ok(outputs_quiet && resources.bodies_quiet()?)
}

fn render_deferred_section(out: &mut Out, plan: &PlanHead) -> bool {
    if plan.deferred.is_empty() {
        return false;
    }
    out.push_str("\nNote: This is a partial plan, parts can only be known in the next plan / apply cycle.\n\n");
    for d in &plan.deferred {
        // Resources with nothing to say (no-op, not moved, not imported) are not shown.
        if has_news(&ResourceSummary::of(&d.resource)) {
            out.push('\n');
            render_deferred(out, d, false);
            out.push('\n');
        }
    }
    true
}

/// The output change lines (no trailing newline), in a buffer like `like`.
pub(crate) fn render_outputs(plan: &PlanHead, like: &Out, compact: bool) -> Out {
    let names: Vec<std::borrow::Cow<'_, str>> = plan
        .outputs
        .iter()
        .map(|o| attribute_name(&o.name))
        .collect();
    // Alignment counts every output, shown or not.
    let width = names.iter().map(|n| n.len()).max().unwrap_or(0);
    let mut text = like.sibling();
    for (output, name) in plan.outputs.iter().zip(&names) {
        if output.diff.action == Action::NoOp {
            continue;
        }
        if !text.is_empty() {
            text.push('\n');
        }
        output_line(&mut text, output, name, width, compact);
    }
    text
}

/// One output change as the "Changes to Outputs" section shows it, its name padded to
/// `width`.
fn output_line(text: &mut Out, output: &OutputDiff, name: &str, width: usize, compact: bool) {
    let action = output_action(output.diff.action);
    resource::mark_top_symbol(text, &action);
    text.push_str(resource::top_symbol(&action));
    text.push(' ');
    text.push_str(name);
    for _ in name.chars().count()..width {
        text.push(' ');
    }
    text.push_str(" = ");
    let opts = Opts {
        compact,
        ..Opts::default()
    };
    render(text, &output.diff, 0, opts);
}

fn output_action(action: Action) -> ResourceAction {
    match action {
        Action::NoOp => ResourceAction::NoOp,
        Action::Create => ResourceAction::Create,
        Action::Delete => ResourceAction::Delete,
        Action::Update => ResourceAction::Update,
    }
}
