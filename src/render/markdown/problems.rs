//! Markdown renderer, problems: what the comment reports besides the plans — the errors
//! and warnings of Terraform's log (`--failed`, `--log`), the policy violations, a plan
//! that failed before it was made and plans that could not be read.
//!
//! Contract: log text is hostile and unbounded, so every part is shortened here to fit a
//! share of the size limit that [`super::length::diagnostics_room`] grants (errors first, then
//! warnings, the rest counted); templates escape it. The same data is built in two sizes:
//! normal, and tight for the counts-only form.

use schemars::JsonSchema;
use serde::Serialize;

use super::escape;
use super::findings::{self, PlanAddresses, ADDRESS_ITEMS};
use super::length::{diagnostics_room, measure};
use super::phrases::{count_noun, icon, shorten};
use crate::input::log::apply::ApplyLog;
use crate::input::log::{Diagnostic, LogFormat, PlanLog, Severity};
use crate::policy::rego::PolicyReport;
use crate::policy::Violation;

/// Longest detail of one diagnostic, in characters: normal, tight.
const DETAIL_CHARS: [usize; 2] = [1500, 300];
/// Longest plain-text block of one diagnostic, in lines: normal, tight.
const BLOCK_LINES: [usize; 2] = [60, 12];
/// Violations listed before "and N more" (a group of violations of one rule counting
/// once): normal, tight.
const VIOLATION_ITEMS: [usize; 2] = [30, 5];

/// What the caller adds to the plans.
#[derive(Debug, Clone, Copy, Default)]
pub struct Extras<'a> {
    /// `--failed`: Terraform could not make the plan; its name (`NAME=` or the log file).
    pub failed: Option<&'a str>,
    /// The log's diagnostics (`--failed LOG` or `--log FILE`).
    pub log: Option<&'a PlanLog>,
    /// Policy violations to name in the comment.
    pub violations: &'a [Violation],
    /// The Rego rules' verdict (`--policy`), one report per plan in the plans' order;
    /// empty without `--policy`.
    pub rego: &'a [PolicyReport],
    /// Rego failures are reported without failing the job (`--policy-warn-only`).
    pub rego_warn_only: bool,
    /// Plans among several that could not be read: (name, one-line reason).
    pub unreadable: &'a [(String, String)],
    /// `--applied`: what `terraform apply` printed; the plans, if any, are the reviewed
    /// ones, and `log` is this log's diagnostics.
    pub applied: Option<&'a ApplyLog>,
}

/// A plan among several that could not be read; the others are shown.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct UnreadablePlan {
    /// The plan's name (`NAME=PATH`, the file name, or its document's name).
    pub(crate) name: String,
    /// Why it could not be read, in one line (the error planmark prints).
    pub(crate) reason: String,
}

/// A plan Terraform could not make (`--failed`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct FailedPlan {
    /// The name of the failed plan (`NAME=LOG`, or the log's file name).
    pub(crate) name: String,
}

/// Errors and warnings from Terraform's log.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct Diagnostics {
    /// `json` (`terraform plan -json`) or `text` (plain output).
    pub(crate) format: String,
    /// Errors in the log.
    pub(crate) errors: usize,
    /// Warnings in the log.
    pub(crate) warnings: usize,
    /// The counts in words, e.g. `1 error and 2 warnings`.
    pub(crate) tally: String,
    /// Errors then warnings, as many as fit.
    pub items: Vec<DiagnosticEntry>,
    /// Diagnostics not shown (the size limit).
    pub omitted: usize,
    /// A plain-text log without any `Error:` or `Warning:` block: its last lines.
    pub(crate) tail: Option<String>,
    /// How many lines `tail` has.
    pub(crate) tail_lines: usize,
}

/// One error or warning.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct DiagnosticEntry {
    /// `error` or `warning`.
    pub severity: String,
    /// `Error` or `Warning`.
    pub(crate) label: String,
    /// Icon.
    pub(crate) icon: String,
    /// One-line summary.
    pub(crate) summary: String,
    /// Explanation (shortened past a limit); empty when none.
    pub(crate) detail: String,
    /// The resource or check instance concerned, when Terraform names one.
    pub(crate) address: Option<String>,
    /// `FILE:LINE:COLUMN` in the configuration, when known.
    pub(crate) location: Option<String>,
    /// The configuration line it points at.
    pub(crate) code: Option<String>,
    /// Plain-text logs: the block as Terraform printed it (for a code fence).
    pub text: Option<String>,
}

/// Policy gates the plans break.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct PolicyContext {
    /// Number of violations.
    pub(crate) count: usize,
    /// The first violations, those of one rule and plan that differ only by their
    /// address as one (`count`, `addresses`), in natural order of the addresses.
    pub(crate) violations: Vec<ViolationEntry>,
    /// Violations not listed (each of a group not listed counts).
    pub(crate) more: usize,
}

/// One policy violation.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct ViolationEntry {
    /// The plan's name, when the comment has several plans.
    pub(crate) plan: Option<String>,
    /// The resource or check concerned, if one.
    pub(crate) address: Option<String>,
    /// What happens (`is destroyed`), after the address or alone.
    pub(crate) what: String,
    /// The flag that forbids it (`--fail-on destroy`).
    pub(crate) rule: String,
    /// How many violations this one stands for (1 when it is alone).
    pub(crate) count: usize,
    /// The addresses of the group, in natural order (the first 50; 5 in the counts-only
    /// form); empty when the violation is alone.
    pub(crate) addresses: Vec<String>,
    /// The group's addresses not listed.
    pub(crate) addresses_more: usize,
}

/// The policy context (`tight`: the counts-only form).
pub(crate) fn policy(violations: &[Violation], tight: usize) -> PolicyContext {
    // The gates name only addresses of the plans they read.
    let addresses = PlanAddresses::new(violations.iter().filter_map(|v| v.address.as_deref()));
    let items: Vec<findings::Item<'_>> = violations
        .iter()
        .map(|v| findings::Item {
            rule: format!("{}\0{}", v.plan.as_deref().unwrap_or(""), v.rule),
            message: &v.what,
            resource: v.address.as_deref(),
        })
        .collect();
    let groups = findings::group(&items, &addresses);
    let shown = VIOLATION_ITEMS[tight].min(groups.len());
    PolicyContext {
        count: violations.len(),
        violations: groups[..shown]
            .iter()
            .map(|g| {
                let v = &violations[g.members[0]];
                ViolationEntry {
                    plan: v.plan.clone(),
                    address: v.address.clone(),
                    what: v.what.clone(),
                    rule: v.rule.clone(),
                    count: g.members.len(),
                    addresses: g.listed(tight),
                    addresses_more: g.addresses.len().saturating_sub(ADDRESS_ITEMS[tight]),
                }
            })
            .collect(),
        more: groups[shown..].iter().map(|g| g.members.len()).sum(),
    }
}

/// The diagnostics context within `diagnostics_room(max_chars, tight)` characters.
pub(crate) fn diagnostics(log: &PlanLog, max_chars: usize, tight: usize) -> Diagnostics {
    let mut room = diagnostics_room(max_chars, tight == 1);
    let errors = log.count(Severity::Error);
    let warnings = log.count(Severity::Warning);
    let mut ordered: Vec<&Diagnostic> = log.diagnostics.iter().collect();
    ordered.sort_by_key(|d| d.severity);
    // The first (most severe) one is always shown, shortened as it is.
    let entries = ordered.iter().map(|d| entry(d, tight));
    let items = take_fitting(entries, &mut room, true, entry_cost);
    let omitted = ordered.len() - items.len();
    let tail = tail(&log.tail, room);
    let tally = match (errors, warnings) {
        (0, 0) => "no errors or warnings".to_string(),
        (e, 0) => count_noun(e, "error", "errors"),
        (0, w) => count_noun(w, "warning", "warnings"),
        (e, w) => format!(
            "{} and {}",
            count_noun(e, "error", "errors"),
            count_noun(w, "warning", "warnings")
        ),
    };
    Diagnostics {
        format: match log.format {
            LogFormat::Json => "json",
            LogFormat::Text => "text",
        }
        .to_string(),
        errors,
        warnings,
        tally,
        items,
        omitted,
        tail_lines: tail.as_ref().map_or(0, |t| t.lines().count()),
        tail,
    }
}

fn entry(d: &Diagnostic, tight: usize) -> DiagnosticEntry {
    let (label, severity) = match d.severity {
        Severity::Error => ("Error", "error"),
        Severity::Warning => ("Warning", "warning"),
    };
    DiagnosticEntry {
        severity: severity.to_string(),
        label: label.to_string(),
        icon: icon(severity).to_string(),
        summary: shorten(&escape::one_line(&d.summary), 300),
        detail: shorten(d.detail.trim_end(), DETAIL_CHARS[tight]),
        address: d.address.clone(),
        location: d
            .range
            .as_ref()
            .map(|r| format!("{}:{}:{}", r.filename, r.line, r.column)),
        code: d.code.as_ref().map(|c| shorten(c.trim_end(), 300)),
        text: d
            .text
            .as_ref()
            .map(|t| first_lines(t, BLOCK_LINES[tight], DETAIL_CHARS[tight] * 3)),
    }
}

/// The first `entries` whose `cost` fits in `room` characters (the first one always, with
/// `first_always`); `room` keeps what is left.
pub(super) fn take_fitting<T>(
    entries: impl IntoIterator<Item = T>,
    room: &mut usize,
    first_always: bool,
    cost: impl Fn(&T) -> usize,
) -> Vec<T> {
    let mut taken = Vec::new();
    for entry in entries {
        let cost = cost(&entry);
        if cost > *room && !(first_always && taken.is_empty()) {
            break;
        }
        *room = room.saturating_sub(cost);
        taken.push(entry);
    }
    taken
}

/// What an entry costs once escaped and laid out (the template's words included).
fn entry_cost(e: &DiagnosticEntry) -> usize {
    let inline = |s: &str| measure(&escape::inline(s));
    let code = |s: &Option<String>| s.as_deref().map_or(0, |s| measure(s) + 16);
    inline(&e.summary)
        + inline(&e.detail)
        + code(&e.address)
        + code(&e.location)
        + code(&e.code)
        + code(&e.text)
        + 80
}

/// The last lines of a log that fit in `room` characters.
fn tail(lines: &[String], room: usize) -> Option<String> {
    let last = lines.last()?;
    let mut used = 0;
    let kept = lines
        .iter()
        .rev()
        .take_while(|line| {
            used += measure(line) + 1;
            used <= room
        })
        .count();
    if kept == 0 {
        // A single line longer than the room is still worth its end.
        let skip = last.chars().count().saturating_sub(room);
        return Some(format!("…{}", last.chars().skip(skip).collect::<String>()));
    }
    Some(lines[lines.len() - kept..].join("\n"))
}

/// The first `max_lines` lines (and at most `max_chars`), saying how many were left out.
fn first_lines(text: &str, max_lines: usize, max_chars: usize) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let shortened = lines.iter().take(max_lines).map(|l| shorten(l, max_chars));
    let mut room = max_chars;
    let kept = take_fitting(shortened, &mut room, true, |l| l.chars().count() + 1);
    let left = lines.len() - kept.len();
    let mut out = kept.join("\n");
    if left > 0 {
        out.push_str(&format!(
            "\n… ({} not shown)",
            count_noun(left, "line", "lines")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::log::parse_log;

    #[test]
    fn many_diagnostics_are_counted_not_all_listed() {
        let line = |i: usize| {
            format!("{{\"type\":\"diagnostic\",\"diagnostic\":{{\"severity\":\"{}\",\"summary\":\"S{i}\",\"detail\":\"{}\"}}}}\n",
                if i.is_multiple_of(2) { "warning" } else { "error" }, "d".repeat(900))
        };
        let text: String = (0..200).map(line).collect();
        let log = parse_log(text.as_bytes()).unwrap();
        let d = diagnostics(&log, 65_536, 0);
        assert_eq!((d.errors, d.warnings), (100, 100));
        assert!(d.omitted > 0 && d.items.len() + d.omitted == 200);
        assert!(
            d.items.iter().take_while(|i| i.severity == "error").count() == d.items.len().min(100)
        );
        let tight = diagnostics(&log, 2_000, 1);
        assert_eq!(tight.items.len(), 1, "the first error is always shown");
        assert!(tight.items[0].detail.chars().count() <= 301);
    }

    #[test]
    fn a_long_tail_keeps_its_end() {
        let lines: Vec<String> = (0..40).map(|i| format!("{i:0100}")).collect();
        let t = tail(&lines, 1000).unwrap();
        assert!(t.ends_with(&lines[39]) && t.lines().count() < 40);
        let t = tail(&["x".repeat(5000)], 100).unwrap();
        assert_eq!(t.chars().count(), 101);
    }
}
