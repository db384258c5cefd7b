//! Pipeline stage, the text: Terraform's own text for the loaded plans, streamed.
//!
//! Contract: each plan (under a `## NAME` heading when there are several) is diffed a
//! chunk at a time and written as it goes, so a huge plan's diff trees and text are never
//! all in memory; then the log's diagnostics. Output is byte-identical to `terraform show`.

use std::io::Write;

use super::error::Result;
use super::load::{read, Loaded, Purpose};
use super::options::Options;
use super::policy::Verdicts;
use crate::render::error::RenderError;
use crate::render::text::{applied_text, log_text, write_plan};

/// Loads the plans and streams their text to `out`; returns the policy gates' violations
/// and the Rego reports.
pub(super) fn render(options: &Options, out: &mut dyn Write) -> Result<Verdicts> {
    let inputs = read(options, Purpose::Plans)?;
    let parsed = inputs.parse()?;
    let differs = parsed.differs(options);
    let loaded = parsed.load(options, &differs)?;
    let verdicts = write_text(&loaded, out).map(|()| loaded.verdicts());
    loaded.finish(verdicts.map_err(Into::into))
}

/// Writes each plan, headed when several plans were given (some perhaps unreadable), then
/// the log's diagnostics, and flushes.
fn write_text(loaded: &Loaded<'_>, out: &mut dyn Write) -> Result<(), RenderError> {
    let write = |out: &mut dyn Write, text: &str| {
        out.write_all(text.as_bytes()).map_err(RenderError::Write)
    };
    let (plans, unreadable) = (&loaded.plans, !loaded.shown.is_empty());
    for (i, l) in plans.iter().enumerate() {
        // Headed when several plans were given, some perhaps unreadable (on stderr).
        if plans.len() > 1 || unreadable {
            let gap = if i > 0 { "\n" } else { "" };
            // A name from the command line stays on its heading's line.
            let name = crate::input::text::one_line(&l.arg.name);
            write(out, &format!("{gap}## {name}\n"))?;
        }
        write_plan(&l.head, l.changes(), out)?;
    }
    if let Some(log) = &loaded.log {
        let tool = loaded.options.tool.unwrap_or_default();
        if log.failed {
            write(out, &format!("{} could not make the plan.\n", tool.name()))?;
        }
        if let Some(applied) = &log.applied {
            // A blank line after the reviewed plan's text, as between Terraform's sections.
            let gap = if plans.is_empty() { "" } else { "\n" };
            write(out, &format!("{gap}{}", applied_text(applied)))?;
        }
        write(out, &log_text(&log.log))?;
    }
    out.flush().map_err(RenderError::Write)
}
