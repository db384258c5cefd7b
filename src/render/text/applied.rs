//! Text renderer, apply outcome: what `render --format text --applied` prints before the
//! apply's diagnostics, in Terraform's words where Terraform has some (`Apply complete!
//! Resources: …`), and for a failed apply what was done and where each resource stands.

use crate::input::log::apply::{Action, ApplyLog, Counts, Status};
use crate::input::text::one_line;

/// The outcome of `applied`: Terraform's summary line for an apply that completed; for one
/// that failed, what it changed before it stopped and a line per resource.
pub(crate) fn applied_text(applied: &ApplyLog) -> String {
    if !applied.failed() {
        let counts = applied.summary.unwrap_or(applied.done);
        return format!("Apply complete! Resources: {}.\n", resources(counts));
    }
    let stopped = applied.stopped();
    let verb = match stopped {
        true => "stopped",
        false => "failed",
    };
    let done = applied.done;
    let mut out = match done == Counts::default() {
        true => format!("Apply {verb} before changing anything.\n"),
        false => format!(
            "Apply {verb} part-way, after these changes: {}.\n",
            resources(done)
        ),
    };
    if stopped {
        out.push_str(
            "The log ends before `Apply complete!` with no error: the job may have been \
             cancelled or timed out.\n",
        );
    }
    let width = applied
        .resources
        .iter()
        .map(|r| status_word(r.status).len())
        .max()
        .unwrap_or(0);
    for r in &applied.resources {
        let word = status_word(r.status);
        out.push_str(&format!(
            "  {word:<width$}  {} ({})\n",
            one_line(&r.address),
            action_word(r.action())
        ));
    }
    out
}

/// `N added, N changed, N destroyed`, imports first when there are any, as Terraform
/// counts them, each number written by `number` (the comment adds thousands separators).
pub(crate) fn counts_sentence(c: Counts, number: impl Fn(usize) -> String) -> String {
    let imported = match c.import {
        0 => String::new(),
        n => format!("{} imported, ", number(n)),
    };
    format!(
        "{imported}{} added, {} changed, {} destroyed",
        number(c.add),
        number(c.change),
        number(c.destroy)
    )
}

fn resources(c: Counts) -> String {
    counts_sentence(c, |n| n.to_string())
}

fn status_word(status: Status) -> &'static str {
    match status {
        Status::Applied => "applied",
        Status::Failed => "failed",
        Status::Incomplete => "incomplete",
        Status::NotReached => "not reached",
    }
}

fn action_word(action: Action) -> &'static str {
    match action {
        Action::Create => "create",
        Action::Read => "read",
        Action::Update => "update",
        Action::Replace => "replace",
        Action::Delete => "destroy",
        Action::Move => "move",
        Action::Import => "import",
        Action::Forget => "forget",
        Action::Unknown => "change",
    }
}
