//! Markdown renderer, template context of one plan's Rego verdict (`--policy`): its
//! failures and warnings, those of one rule whose messages differ only by an address of
//! the plan shown once with their addresses (`findings`), each linked to the diff of the
//! resource it names when the comment shows that resource.
//!
//! Contract: a report's strings stay raw (templates escape them); each message is put on
//! one line and shortened, and the lists (of findings and of a group's addresses) are
//! capped, so a policy cannot grow the comment past what the size budget measured in its
//! counts-only form.

use schemars::JsonSchema;
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::policy::rego::{Finding, PolicyReport};
use crate::render::markdown::findings::{self, PlanAddresses, ADDRESS_ITEMS};
use crate::render::markdown::phrases::Segment;
use crate::render::markdown::source::Findings;
use crate::render::markdown::{escape, phrases};

use super::entry::EntryContext;

/// How many failures and warnings (groups of look-alike findings, each counting once) are
/// listed before "and N more" (normally, and in the counts-only form).
const FAILURE_ITEMS: [usize; 2] = [25, 5];
const WARNING_ITEMS: [usize; 2] = [10, 3];

/// The longest message shown, in characters (normally, and in the counts-only form).
const MESSAGE_CHARS: [usize; 2] = [500, 120];

/// What the team's Rego rules (`--policy`) said about one plan.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub struct RegoContext {
    /// How many rules were evaluated (`deny*`, `violation*` and `warn*` rules).
    pub(crate) rules: usize,
    /// How many of them returned nothing.
    pub(crate) passed: usize,
    /// Number of failures (messages of `deny`/`violation` rules).
    pub failed: usize,
    /// Number of warnings (messages of `warn` rules).
    pub(crate) warned: usize,
    /// The first failures, in natural order, those of one rule whose messages differ only
    /// by an address of the plan as one (`count`, `addresses`).
    pub failures: Vec<FindingContext>,
    /// Failures not listed (each finding of a group not listed counts).
    pub failures_more: usize,
    /// The first warnings, grouped as `failures`.
    pub(crate) warnings: Vec<FindingContext>,
    /// Warnings not listed (each finding of a group not listed counts).
    pub(crate) warnings_more: usize,
    /// The failures do not fail the job (`--policy-warn-only`): they are reported only.
    pub(crate) warn_only: bool,
    /// Rules an `exception` rule excepted, as conftest counts them (neither passed nor
    /// failed).
    pub(crate) excepted: usize,
    /// The first exceptions.
    pub(crate) exceptions: Vec<ExceptionContext>,
    /// Builtins that failed while a rule ran: the expression was undefined, as in conftest
    /// (`--policy-strict` fails the run instead). The first few.
    pub(crate) builtin_errors: Vec<BuiltinErrorContext>,
    /// Builtin failures not listed.
    pub(crate) builtin_errors_more: usize,
    /// Rules whose results (or value) conftest skips: neither strings nor objects. The
    /// first few.
    pub(crate) skipped: Vec<SkippedContext>,
    /// Rules with skipped results not listed.
    pub(crate) skipped_more: usize,
}

/// A rule some of whose results conftest skips.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct SkippedContext {
    /// The rule.
    pub(crate) rule: String,
    /// The rule's package.
    pub(crate) namespace: String,
    /// What was skipped, by kind, never by value (raw: escape it).
    pub(crate) what: String,
}

/// A rule an `exception` rule excepted.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct ExceptionContext {
    /// The rule excepted (`deny_tags`).
    pub(crate) rule: String,
    /// The rule's package.
    pub(crate) namespace: String,
    /// conftest's words for it: the query that matched (raw: escape it).
    pub(crate) message: String,
}

/// A builtin that failed while a rule ran.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct BuiltinErrorContext {
    /// The rule that called it.
    pub(crate) rule: String,
    /// The rule's package.
    pub(crate) namespace: String,
    /// The builtin (`to_number`; `plus` for `+`), when known.
    pub(crate) builtin: Option<String>,
    /// `file:line:column` of the failure, when known.
    pub(crate) location: Option<String>,
    /// What failed, on one line, without the values involved (raw: escape it).
    pub(crate) message: String,
}

/// One message a rule returned, or a group of them: the messages of one rule that differ
/// only by an address of the plan (in the message or as the finding's `resource`).
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct FindingContext {
    /// The message (the group's first, in natural order), on one line and at most 500
    /// characters (raw: escape it).
    pub message: String,
    /// `message` as a phrase (`{{phrase message_phrase}}`): the addresses of the plan it
    /// names as code, the rest as words.
    pub(crate) message_phrase: Vec<Segment>,
    /// The rule that returned it (`deny`, `warn_untagged`).
    pub(crate) rule: String,
    /// The rule's package (`main`).
    pub(crate) namespace: String,
    /// The resource address the finding names (its `resource` field), if any.
    pub(crate) address: Option<String>,
    /// `#anchor` of that resource's diff in this comment; `null` when the comment does not
    /// show the resource (or the finding names none).
    pub(crate) link: Option<String>,
    /// How many findings this one stands for (1 when it is alone).
    pub(crate) count: usize,
    /// The addresses of the plan the group's messages differ by, in natural order (the
    /// first 50; 5 in the counts-only form); empty when the finding is alone.
    pub(crate) addresses: Vec<String>,
    /// The group's addresses not listed.
    pub(crate) addresses_more: usize,
}

/// The entries of one plan a finding may link to (those shown with their diff, and those
/// listed by address), and what makes their anchors unique: the comment key, the plan.
pub(super) struct Linkable<'a> {
    pub(crate) entries: [&'a mut Vec<EntryContext>; 2],
    pub(crate) key: &'a str,
    pub(crate) plan: &'a str,
}

/// `report`'s failures and warnings grouped ([`findings::group`]): those of one rule
/// whose messages differ only by one of the plan's `addresses` are one group.
pub(super) fn finding_groups(
    report: &PolicyReport,
    addresses: &PlanAddresses,
) -> [Vec<findings::Group>; 2] {
    let group = |list: &[Finding]| {
        let items: Vec<findings::Item<'_>> = list
            .iter()
            .map(|f| findings::Item {
                rule: format!("{}\0{}", f.namespace, f.rule),
                message: &f.message,
                resource: f.resource.as_deref(),
            })
            .collect();
        findings::group(&items, addresses)
    };
    [group(&report.failures), group(&report.warnings)]
}

/// The context of `report`, one plan's verdict (`tight`: the counts-only form) with its
/// findings grouped in `found` ([`finding_groups`]), each linked to its resource among
/// `plan`'s entries, which get their anchors.
pub(super) fn rego_context(
    report: &PolicyReport,
    found: &Findings,
    warn_only: bool,
    mut plan: Linkable<'_>,
    tight: usize,
) -> RegoContext {
    let mut list = |findings: &[Finding], groups: &[findings::Group], cap: [usize; 2]| {
        let shown = cap[tight].min(groups.len());
        let listed = groups[..shown]
            .iter()
            .map(|g| {
                finding(
                    &findings[g.members[0]],
                    g,
                    &found.addresses,
                    &mut plan,
                    tight,
                )
            })
            .collect::<Vec<_>>();
        let more = groups[shown..].iter().map(|g| g.members.len()).sum();
        (listed, more)
    };
    let (failures, failures_more) = list(&report.failures, &found.groups[0], FAILURE_ITEMS);
    let (warnings, warnings_more) = list(&report.warnings, &found.groups[1], WARNING_ITEMS);
    let message = |text: &str| phrases::shorten(&escape::one_line(text), MESSAGE_CHARS[tight]);
    let items = WARNING_ITEMS[tight];
    RegoContext {
        rules: report.rules,
        passed: report.passed,
        failed: report.failures.len(),
        warned: report.warnings.len(),
        failures,
        failures_more,
        warnings,
        warnings_more,
        warn_only,
        excepted: report.exceptions.len(),
        exceptions: report
            .exceptions
            .iter()
            .take(items)
            .map(|e| ExceptionContext {
                rule: escape::one_line(&e.rule),
                namespace: escape::one_line(&e.namespace),
                message: message(&e.message),
            })
            .collect(),
        builtin_errors: report
            .builtin_errors
            .iter()
            .take(items)
            .map(|e| BuiltinErrorContext {
                rule: escape::one_line(&e.rule),
                namespace: escape::one_line(&e.namespace),
                builtin: e.builtin.as_deref().map(escape::one_line),
                location: e.location.as_deref().map(escape::one_line),
                message: message(&e.message),
            })
            .collect(),
        builtin_errors_more: report.builtin_errors.len().saturating_sub(items),
        skipped: report
            .skipped
            .iter()
            .take(items)
            .map(|s| SkippedContext {
                rule: escape::one_line(&s.rule),
                namespace: escape::one_line(&s.namespace),
                what: message(&s.what),
            })
            .collect(),
        skipped_more: report.skipped.len().saturating_sub(items),
    }
}

fn finding(
    f: &Finding,
    group: &findings::Group,
    addresses: &PlanAddresses,
    plan: &mut Linkable<'_>,
    tight: usize,
) -> FindingContext {
    let message = phrases::shorten(&escape::one_line(&f.message), MESSAGE_CHARS[tight]);
    let message_phrase = addresses
        .pieces(&message)
        .into_iter()
        .map(|(text, is_code)| Segment {
            text: text.to_string(),
            is_code,
        })
        .collect();
    let link = f
        .resource
        .as_deref()
        .and_then(|address| anchor(plan, address))
        .map(|id| format!("#{id}"));
    FindingContext {
        message,
        message_phrase,
        rule: escape::one_line(&f.rule),
        namespace: escape::one_line(&f.namespace),
        address: f.resource.clone(),
        link,
        count: group.members.len(),
        addresses: group.listed(tight),
        addresses_more: group.addresses.len().saturating_sub(ADDRESS_ITEMS[tight]),
    }
}

/// The anchor of the entry of `plan` at `address` (shown with its diff, in a group of
/// look-alikes shown by one diff, or listed), set on the entry if it has none yet; `None`
/// when the comment does not show that resource.
fn anchor(plan: &mut Linkable<'_>, address: &str) -> Option<String> {
    let (key, name) = (plan.key, plan.plan);
    let [changes, listed] = &mut plan.entries;
    let in_group = |e: &EntryContext| {
        e.group
            .as_ref()
            .is_some_and(|g| g.addresses.iter().any(|a| a == address))
    };
    let entry = changes
        .iter_mut()
        .chain(listed.iter_mut())
        .find(|e| e.address == address || in_group(e))?;
    let id = entry
        .anchor
        .get_or_insert_with(|| anchor_id(key, name, &entry.address));
    Some(id.clone())
}

/// `planmark-` and 12 hex digits, from the comment key, the plan and the address: unique
/// on a pull request's page, which may hold several planmark comments, and made only of
/// characters that need no escaping. GitHub keeps an `<a name>` in a comment (as
/// `user-content-…`) and scrolls a `#…` link to it.
fn anchor_id(key: &str, plan: &str, address: &str) -> String {
    let digest = Sha256::new()
        .chain_update(key)
        .chain_update([0])
        .chain_update(plan)
        .chain_update([0])
        .chain_update(address)
        .finalize();
    let hex: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    format!("planmark-{hex}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchors_are_stable_distinct_and_plain() {
        let a = anchor_id("default", "plan.json", "aws_s3_bucket.logs");
        assert_eq!(a, anchor_id("default", "plan.json", "aws_s3_bucket.logs"));
        assert_ne!(a, anchor_id("other", "plan.json", "aws_s3_bucket.logs"));
        assert_ne!(a, anchor_id("default", "prod", "aws_s3_bucket.logs"));
        assert!(a.starts_with("planmark-") && a.len() == 21);
        assert!(a["planmark-".len()..]
            .chars()
            .all(|c| c.is_ascii_hexdigit()));
    }
}
