//! Pipeline stage, the text: Terraform's own text for the loaded plans, streamed.
//!
//! Contract: each plan (under a `## NAME` heading when there are several) is diffed a
//! chunk at a time and written as it goes, so a huge plan's diff trees and text are never
//! all in memory; then the log's diagnostics. Output is byte-identical to `terraform show`.

use std::io::Write;

use super::error::Result;
use super::load::{load_log, template_set, violations, with_loaded, Loaded, LoadedLog};
use super::options::Options;
use super::policy::{self, Verdicts};
use crate::render::error::RenderError;
use crate::render::text::{applied_text, log_text, write_plan};

/// Loads the plans and streams their text to `out`; returns the policy gates' violations
/// and the Rego reports.
pub(super) fn render(options: &Options, out: &mut dyn Write) -> Result<Verdicts> {
    // The text uses no template, but a `--templates` that cannot be read fails the same in
    // every format.
    template_set(options)?;
    let mut policies = policy::load(options)?;
    with_loaded(options, None, false, |loaded, unreadable| {
        let log = load_log(options.log.as_ref())?;
        let violations = violations(&options.policy, loaded);
        // Before anything is written: a policy that errs fails with no output.
        let reports = policy::evaluate(policies.as_mut(), loaded, options.schemas.as_deref())?;
        write_text(loaded, !unreadable.is_empty(), log.as_ref(), options, out)?;
        out.flush().map_err(RenderError::Write)?;
        Ok(Verdicts::new(violations, loaded, &reports))
    })
}

/// Writes each plan, headed when several plans were given (`unreadable`: some could not be
/// read), then the log's diagnostics.
fn write_text(
    loaded: &[Loaded<'_>],
    unreadable: bool,
    log: Option<&LoadedLog>,
    options: &Options,
    out: &mut dyn Write,
) -> Result<(), RenderError> {
    let write = |out: &mut dyn Write, text: &str| {
        out.write_all(text.as_bytes()).map_err(RenderError::Write)
    };
    for (i, l) in loaded.iter().enumerate() {
        // Headed when several plans were given, some perhaps unreadable (on stderr).
        if loaded.len() > 1 || unreadable {
            let gap = if i > 0 { "\n" } else { "" };
            // A name from the command line stays on its heading's line.
            let name = crate::input::text::one_line(&l.arg.name);
            write(out, &format!("{gap}## {name}\n"))?;
        }
        write_plan(&l.head, l.changes(), out)?;
    }
    if let Some(log) = log {
        let tool = options.tool.unwrap_or_default();
        if log.failed {
            write(out, &format!("{} could not make the plan.\n", tool.name()))?;
        }
        if let Some(applied) = &log.applied {
            // A blank line after the reviewed plan's text, as between Terraform's sections.
            let gap = if loaded.is_empty() { "" } else { "\n" };
            write(out, &format!("{gap}{}", applied_text(applied)))?;
        }
        write(out, &log_text(&log.log))?;
    }
    Ok(())
}
