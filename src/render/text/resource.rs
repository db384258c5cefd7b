//! Text renderer: one resource's comment lines, header and body.

use std::borrow::Cow;
use std::fmt::Write;

use super::nodes::{render, Opts};
use super::out::Out;
use crate::diff::{ActionReason, DeferredDiff, ResourceDiff};
use crate::input::plan::{ResourceAction, Tool};

/// Whether a change is planned or was detected as drift (it changes the wording).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cause {
    Planned,
    Drift,
}

/// The symbol before `resource` in a header.
pub(crate) fn top_symbol(action: &ResourceAction) -> &'static str {
    match action {
        ResourceAction::NoOp => "   ",
        ResourceAction::Create => "  +",
        ResourceAction::Read => " <=",
        ResourceAction::Update => "  ~",
        ResourceAction::DeleteThenCreate => "-/+",
        ResourceAction::CreateThenDelete => "+/-",
        ResourceAction::Delete => "  -",
        ResourceAction::Forget => " .",
        ResourceAction::CreateThenForget => " +/.",
        ResourceAction::Unsupported | ResourceAction::Open => "  ?",
    }
}

/// Marks a header symbol that GitHub's `diff` colouring can use: a single `+`, `-` or
/// `~` (replacements already start at column 0 with `-/+` or `+/-`).
pub(crate) fn mark_top_symbol(out: &mut Out, action: &ResourceAction) {
    match action {
        ResourceAction::Create => out.mark_ahead(2, crate::diff::Action::Create),
        ResourceAction::Update => out.mark_ahead(2, crate::diff::Action::Update),
        ResourceAction::Delete => out.mark_ahead(2, crate::diff::Action::Delete),
        _ => {}
    }
}

/// The key of the deposed object the change is about, if it is about one.
fn deposed(r: &ResourceDiff) -> Option<&str> {
    r.deposed.as_deref().filter(|d| !d.is_empty())
}

fn display_address(r: &ResourceDiff) -> Cow<'_, str> {
    match deposed(r) {
        Some(key) => Cow::Owned(format!("{} (deposed object {key})", r.address)),
        None => Cow::Borrowed(&r.address),
    }
}

/// Comment lines, header and body of one resource (no trailing newline), worded as
/// `tool` words them.
pub(crate) fn render_resource(
    out: &mut Out,
    r: &ResourceDiff,
    tool: Tool,
    cause: Cause,
    compact: bool,
) {
    comment(out, r, tool, cause);
    header_and_body(out, r, tool, compact);
}

/// A deferred change: its own comment, then the usual header and body.
pub(crate) fn render_deferred(out: &mut Out, d: &DeferredDiff, compact: bool) {
    let explanation = match d.reason.as_str() {
        "instance_count_unknown" => "because the number of resource instances is unknown",
        "resource_config_unknown" => "because the resource configuration is unknown",
        "provider_config_unknown" => "because the provider configuration is unknown",
        "deferred_prereq" => "because a prerequisite for this resource is deferred",
        "absent_prereq" => "because a prerequisite for this resource has not yet been created",
        "excluded" => "because the resource was excluded",
        "not_included" => "because the resource was not included",
        _ => "for an unknown reason",
    };
    let _ = writeln!(out, "  # {} was deferred", d.resource.address);
    let _ = writeln!(out, "  # ({explanation})");
    header_and_body(out, &d.resource, Tool::Terraform, compact);
}

/// Pieces pushed one after another: the lines every resource has are written so, as
/// `write!`'s formatting machinery costs more than the pieces.
fn push_all(out: &mut String, pieces: &[&str]) {
    for piece in pieces {
        out.push_str(piece);
    }
}

fn header_and_body(out: &mut Out, r: &ResourceDiff, tool: Tool, compact: bool) {
    let kind = if r.data_source { "data" } else { "resource" };
    mark_top_symbol(out, &r.action);
    let symbol = match (tool, &r.action) {
        // OpenTofu pads the forget symbol to three columns like the others.
        (Tool::OpenTofu, ResourceAction::Forget) => "  .",
        (_, action) => top_symbol(action),
    };
    push_all(
        out,
        &[symbol, " ", kind, " \"", &r.type_, "\" \"", &r.name, "\" "],
    );
    // OpenTofu shows what it forgets as a deletion without symbols or `-> null`.
    let bare = tool == Tool::OpenTofu && r.action == ResourceAction::Forget;
    let opts = Opts {
        show_unchanged: r.importing.is_some() && !compact,
        compact,
        hide_symbols: bare,
        override_null_suffix: bare,
        ..Opts::default()
    };
    render(out, &r.body, 0, opts);
}

fn comment(out: &mut String, r: &ResourceDiff, tool: Tool, cause: Cause) {
    let addr = display_address(r);
    let mut printed_moved = false;
    let mut printed_imported = false;
    match &r.action {
        ResourceAction::Create => push_all(out, &["  # ", &addr, " will be created"]),
        ResourceAction::Read => {
            let _ = write!(out, "  # {addr} will be read during apply");
            match r.reason {
                Some(ActionReason::ReadBecauseConfigUnknown) => {
                    out.push_str("\n  # (config refers to values not yet known)")
                }
                Some(ActionReason::ReadBecauseDependencyPending) => {
                    out.push_str("\n  # (depends on a resource or a module with changes pending)")
                }
                Some(ActionReason::ReadBecauseCheckNested) => {
                    out.push_str("\n  # (config will be reloaded to verify a check block)")
                }
                _ => {}
            }
        }
        ResourceAction::Update => match cause {
            Cause::Planned => push_all(out, &["  # ", &addr, " will be updated in-place"]),
            Cause::Drift => push_all(out, &["  # ", &addr, " has changed"]),
        },
        ResourceAction::DeleteThenCreate | ResourceAction::CreateThenDelete => {
            let what = match r.reason {
                Some(ActionReason::ReplaceBecauseTainted) if tool == Tool::OpenTofu => {
                    " is tainted, so it must be replaced"
                }
                Some(ActionReason::ReplaceBecauseTainted) => " is tainted, so must be replaced",
                Some(ActionReason::ReplaceByRequest) => " will be replaced, as requested",
                Some(ActionReason::ReplaceByTriggers) => {
                    " will be replaced due to changes in replace_triggered_by"
                }
                _ => " must be replaced",
            };
            push_all(out, &["  # ", &addr, what]);
        }
        ResourceAction::CreateThenForget => {
            let _ = write!(
                out,
                " # {addr} must be replaced, but the existing object will not be destroyed\n # (destroy = false is set in the configuration)"
            );
        }
        ResourceAction::Forget if tool == Tool::OpenTofu => {
            push_all(
                out,
                &[
                    "  # ",
                    &addr,
                    " will be removed from the OpenTofu state but will not be destroyed",
                ],
            );
            if deposed(r).is_some() {
                out.push_str(
                    "\n  # (left over from a partially-failed replacement of this instance)",
                );
            }
        }
        ResourceAction::Forget => {
            if deposed(r).is_some() {
                let _ = write!(
                    out,
                    " # {addr} will be removed from Terraform state, but will not be destroyed\n # (left over from a partially-failed replacement of this instance)"
                );
            } else {
                let _ = write!(
                    out,
                    " # {addr} will no longer be managed by Terraform, but will not be destroyed"
                );
            }
            out.push_str("\n # (destroy = false is set in the configuration)");
        }
        ResourceAction::Delete => {
            let what = match cause {
                Cause::Planned => " will be destroyed",
                Cause::Drift => " has been deleted",
            };
            push_all(out, &["  # ", &addr, what]);
            delete_reason(out, r);
            if deposed(r).is_some() {
                out.push_str(
                    "\n  # (left over from a partially-failed replacement of this instance)",
                );
            }
        }
        ResourceAction::NoOp | ResourceAction::Unsupported | ResourceAction::Open => {
            if let (ResourceAction::NoOp, Some(previous)) = (&r.action, r.moved_from()) {
                let _ = write!(out, "  # {previous} has moved to {addr}");
                printed_moved = true;
            } else if let (ResourceAction::NoOp, Some(_)) = (&r.action, &r.importing) {
                let _ = write!(out, "  # {addr} will be imported");
                if r.generated_config {
                    out.push_str("\n  # (config will be generated)");
                }
                printed_imported = true;
            } else {
                let _ = write!(
                    out,
                    "{addr} has an action the plan renderer doesn't support (this is a bug)"
                );
            }
        }
    }
    out.push('\n');
    if let Some(previous) = r.moved_from() {
        if !printed_moved {
            let _ = writeln!(out, "  # (moved from {previous})");
        }
    }
    if let Some(id) = &r.importing {
        if !printed_imported {
            if id.is_empty() {
                out.push_str("  # (will be imported first)\n");
            } else {
                let _ = writeln!(out, "  # (imported from \"{id}\")");
            }
        }
        if matches!(
            r.action,
            ResourceAction::DeleteThenCreate | ResourceAction::CreateThenDelete
        ) {
            out.push_str("  # Warning: this will destroy the imported resource\n");
        }
    }
}

fn delete_reason(out: &mut String, r: &ResourceDiff) {
    let index = r.index.as_deref().unwrap_or("");
    let _ = match r.reason {
        Some(ActionReason::DeleteBecauseNoResourceConfig) => write!(
            out,
            "\n  # (because {}.{} is not in configuration)",
            r.type_, r.name
        ),
        Some(ActionReason::DeleteBecauseNoMoveTarget) => write!(
            out,
            "\n  # (because {} was moved to {}, which is not in configuration)",
            r.previous_address.as_deref().unwrap_or(""),
            r.address
        ),
        Some(ActionReason::DeleteBecauseNoModule) => write!(
            out,
            "\n  # (because {} is not in configuration)",
            r.module_address.as_deref().unwrap_or("")
        ),
        Some(ActionReason::DeleteBecauseWrongRepetition) => {
            let text = match index.trim().chars().next() {
                None | Some('n') => "\n  # (because resource uses count or for_each)",
                Some('"') => "\n  # (because resource does not use for_each)",
                Some(_) => "\n  # (because resource does not use count)",
            };
            write!(out, "{text}")
        }
        Some(ActionReason::DeleteBecauseCountIndex) => write!(
            out,
            "\n  # (because index [{index}] is out of range for count)"
        ),
        Some(ActionReason::DeleteBecauseEachKey) => {
            write!(out, "\n  # (because key [{index}] is not in for_each map)")
        }
        // Only OpenTofu has the `enabled` meta-argument.
        Some(ActionReason::DeleteBecauseEnabledFalse) => {
            write!(out, "\n  # (because enabled is false)")
        }
        _ => Ok(()),
    };
}
