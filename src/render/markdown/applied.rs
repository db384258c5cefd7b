//! Markdown renderer, the apply's outcome (`--applied LOG`): the context of the section at
//! the top of an apply's comment — applied or failed, when, what changed, each resource's
//! result, the outputs after the apply (sensitive ones hidden).
//!
//! Contract: log text is hostile and unbounded, so the resource table and the outputs are
//! shortened here to fit a share of the size limit ([`super::length::applied_room`]),
//! failed resources first, the rest counted; templates escape every string. The apply's
//! diagnostics are the comment's `diagnostics` ([`super::problems`]), laid out as a failed
//! plan's. No value of a sensitive output reaches this module (the input drops it).

use schemars::JsonSchema;
use serde::Serialize;

use super::escape;
use super::length::{applied_room, measure};
use super::phrases::{shorten, thousands, Kind};
use super::problems::take_fitting;
use crate::diff::address::natural_cmp;
use crate::input::log::apply::{Action, ApplyLog, Counts, ResourceApply, Status};
use crate::render::text::counts_sentence;

/// Longest address, error summary and output value shown, in characters: normal, tight.
const ADDRESS_CHARS: [usize; 2] = [300, 100];
const ERROR_CHARS: [usize; 2] = [200, 60];
const VALUE_CHARS: [usize; 2] = [200, 40];

/// The outcome of `terraform apply`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct AppliedContext {
    /// `applied` or `failed` (`icon_of` gives its icon).
    pub(crate) outcome: String,
    /// The apply failed (an error, a failed resource, or no `Apply complete!`).
    pub(crate) failed: bool,
    /// Terraform said the apply completed (`Apply complete!`).
    pub(crate) finished: bool,
    /// The log ends before the apply finished, with no error: the job was cancelled or
    /// timed out.
    pub(crate) stopped: bool,
    /// When the apply ended, as `YYYY-MM-DD HH:MM:SS UTC`: the log's last time (JSON
    /// stream), else when this comment was made (`time_from_log` false).
    pub(crate) time: String,
    /// `time` is the log's own.
    pub(crate) time_from_log: bool,
    /// What was changed: Terraform's own summary when the apply completed, else counted
    /// from the log's completion messages (what a failed apply did before it stopped).
    pub(crate) changed: AppliedCounts,
    /// `changed` is Terraform's own summary (else counted from the log).
    pub(crate) changed_by_terraform: bool,
    /// How many resources ended each way.
    pub(crate) statuses: AppliedStatuses,
    /// Resources, failed first, then unfinished, applied, not reached (each in address
    /// order), as many as fit the size limit.
    pub(crate) resources: Vec<AppliedResource>,
    /// Resources not listed (the size limit).
    pub(crate) more_resources: usize,
    /// The log has the outputs after the apply (a failed apply's has none).
    pub(crate) has_outputs: bool,
    /// The outputs by name, as many as fit.
    pub(crate) outputs: Vec<AppliedOutputEntry>,
    /// Outputs not listed (the size limit).
    pub(crate) more_outputs: usize,
    /// The reviewed plan was given: its changes follow, collapsed.
    pub(crate) reviewed_plan: bool,
}

/// Resources counted by what was done to them (a replacement adds one and destroys one).
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub(crate) struct AppliedCounts {
    /// Created.
    pub(crate) add: usize,
    /// Updated in place.
    pub(crate) change: usize,
    /// Destroyed.
    pub(crate) destroy: usize,
    /// Imported.
    pub(crate) import: usize,
    /// All of them.
    pub(crate) total: usize,
    /// In words, as Terraform says it: `3 added, 0 changed, 2 destroyed`.
    pub(crate) text: String,
}

/// How many resources ended each way.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub(crate) struct AppliedStatuses {
    /// Done.
    pub(crate) applied: usize,
    /// Failed (an error names them).
    pub(crate) failed: usize,
    /// Started and not finished, or half replaced, when the apply stopped.
    pub(crate) incomplete: usize,
    /// Planned and never started.
    pub(crate) not_reached: usize,
    /// All resources the log (or the reviewed plan) names.
    pub(crate) total: usize,
}

/// One resource's result.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct AppliedResource {
    /// Its address (shortened past a limit).
    pub(crate) address: String,
    /// What was to be done: `create`, `destroy`, `replace`, `update`, `read`, `import`,
    /// `move`, `forget` or `unknown action` (`icon_of` gives its icon).
    pub(crate) action: String,
    /// `applied`, `failed`, `incomplete` or `not-reached` (`icon_of` gives its icon).
    pub(crate) status: String,
    /// The status in words (`applied`, `failed`, `destroyed, not created again`, `started,
    /// not finished`, `not reached`).
    pub(crate) result: String,
    /// The summary of the error that names it, on one line.
    pub(crate) error: Option<String>,
}

/// An output after the apply.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct AppliedOutputEntry {
    /// Its name.
    pub(crate) name: String,
    /// Declared sensitive: its value was never read.
    pub(crate) sensitive: bool,
    /// The value on one line (shortened past a limit); `null` when sensitive.
    pub(crate) value: Option<String>,
}

/// The context of `log` within `applied_room(max_chars, tight)` characters; `reviewed`:
/// the reviewed plan was given; `now`: when the comment is made (RFC 3339).
pub(crate) fn applied(
    log: &ApplyLog,
    reviewed: bool,
    now: &str,
    max_chars: usize,
    tight: usize,
) -> AppliedContext {
    let failed = log.failed();
    let mut room = applied_room(max_chars, tight == 1);
    let (changed, by_terraform) = match log.summary {
        Some(summary) => (summary, true),
        None => (log.done, false),
    };
    let mut statuses = AppliedStatuses {
        total: log.resources.len(),
        ..AppliedStatuses::default()
    };
    let mut ordered: Vec<_> = log.resources.iter().collect();
    ordered.sort_by(|a, b| {
        rank(a.status)
            .cmp(&rank(b.status))
            .then_with(|| natural_cmp(&a.address, &b.address))
    });
    for r in &ordered {
        match r.status {
            Status::Applied => statuses.applied += 1,
            Status::Failed => statuses.failed += 1,
            Status::Incomplete => statuses.incomplete += 1,
            Status::NotReached => statuses.not_reached += 1,
        }
    }
    // The first row (the most telling) is always shown.
    let entries = ordered.iter().map(|r| resource(log, r, tight));
    let resources = take_fitting(entries, &mut room, true, |entry| {
        measure(&escape::cell_code_span(&entry.address))
            + entry
                .error
                .as_deref()
                .map_or(0, |e| measure(&escape::inline(e)))
            + 60
    });
    let more_resources = ordered.len() - resources.len();
    let all_outputs = log.outputs.as_deref().unwrap_or_default();
    let entries = all_outputs.iter().map(|o| AppliedOutputEntry {
        name: o.name.clone(),
        sensitive: o.sensitive,
        value: o
            .value
            .as_deref()
            .filter(|_| !o.sensitive)
            .map(|v| one_line_value(v, tight)),
    });
    let outputs = take_fitting(entries, &mut room, false, |o| {
        measure(&escape::cell_code_span(&o.name))
            + o.value
                .as_deref()
                .map_or(10, |v| measure(&escape::cell_code_span(v)))
            + 10
    });
    let outcome = if failed { "failed" } else { "applied" };
    AppliedContext {
        outcome: outcome.to_string(),
        failed,
        finished: log.finished,
        stopped: log.stopped(),
        time: readable_time(log.timestamp.as_deref().unwrap_or(now)),
        time_from_log: log.timestamp.is_some(),
        changed: counts(changed),
        changed_by_terraform: by_terraform,
        statuses,
        more_resources,
        resources,
        has_outputs: log.outputs.is_some(),
        more_outputs: all_outputs.len() - outputs.len(),
        outputs,
        reviewed_plan: reviewed,
    }
}

/// Where a status sorts: failures first, then what is half done, done, not started.
fn rank(status: Status) -> u8 {
    match status {
        Status::Failed => 0,
        Status::Incomplete => 1,
        Status::Applied => 2,
        Status::NotReached => 3,
    }
}

fn resource(log: &ApplyLog, r: &ResourceApply, tight: usize) -> AppliedResource {
    let action = r.action();
    let kind = match action {
        Action::Create => Kind::Create,
        Action::Read => Kind::Read,
        Action::Update => Kind::Update,
        Action::Replace => Kind::Replace,
        Action::Delete => Kind::Delete,
        Action::Move => Kind::Move,
        Action::Import => Kind::Import,
        Action::Forget => Kind::Forget,
        Action::Unknown => Kind::Unknown,
    };
    let (status, result) = match r.status {
        Status::Applied => ("applied", "applied"),
        Status::Failed => ("failed", "failed"),
        Status::Incomplete if action == Action::Replace && r.completed == [Action::Delete] => {
            ("incomplete", "destroyed, not created again")
        }
        Status::Incomplete if action == Action::Replace && r.completed == [Action::Create] => {
            ("incomplete", "created, the old one not destroyed")
        }
        Status::Incomplete => ("incomplete", "started, not finished"),
        Status::NotReached => ("not-reached", "not reached"),
    };
    AppliedResource {
        address: shorten(&r.address, ADDRESS_CHARS[tight]),
        action: kind.label().to_string(),
        status: status.to_string(),
        result: result.to_string(),
        error: r
            .error
            .and_then(|i| log.log.diagnostics.get(i))
            .map(|d| shorten(&escape::one_line(&d.summary), ERROR_CHARS[tight])),
    }
}

fn counts(c: Counts) -> AppliedCounts {
    let text = counts_sentence(c, thousands);
    AppliedCounts {
        add: c.add,
        change: c.change,
        destroy: c.destroy,
        import: c.import,
        total: c.add + c.change + c.destroy + c.import,
        text,
    }
}

/// A value on one line: its lines trimmed and joined by spaces, shortened.
fn one_line_value(value: &str, tight: usize) -> String {
    let joined = value
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    shorten(&joined, VALUE_CHARS[tight])
}

/// `2026-11-26T14:39:05.917345Z` → `2026-11-26 14:39:05 UTC`; another form as it is.
pub(crate) fn readable_time(time: &str) -> String {
    let b = time.as_bytes();
    let shaped = b.len() >= 20
        && b[10] == b'T'
        && time.ends_with('Z')
        && b[..19]
            .iter()
            .enumerate()
            .all(|(i, c)| matches!(i, 4 | 7 | 10 | 13 | 16) || c.is_ascii_digit());
    match shaped {
        true => format!("{} {} UTC", &time[..10], &time[11..19]),
        false => time.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_read_as_dates() {
        assert_eq!(
            readable_time("2026-11-26T14:39:05.917345Z"),
            "2026-11-26 14:39:05 UTC"
        );
        assert_eq!(
            readable_time("2026-11-26T14:39:05Z"),
            "2026-11-26 14:39:05 UTC"
        );
        assert_eq!(
            readable_time("2026-11-26T14:39:05+02:00"),
            "2026-11-26T14:39:05+02:00"
        );
    }
}
