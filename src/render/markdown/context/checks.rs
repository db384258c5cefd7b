//! Markdown renderer, template context of one plan's check results: counted per instance,
//! failing and unknown ones listed with their messages (in natural order of address),
//! shortened to fit.

use schemars::JsonSchema;
use serde::Serialize;

use crate::diff::address::natural_cmp;
use crate::diff::{CheckStatus, PlanHead};
use crate::render::markdown::phrases;

/// How many failing or unknown check instances are listed before "and N more".
const CHECK_ITEMS: [usize; 2] = [30, 3];
/// Check messages longer than this are shortened (they are author-written prose).
const CHECK_MESSAGE_CHARS: [usize; 2] = [1000, 200];

/// Check results of one plan.
#[derive(Debug, Clone, Default, Serialize, JsonSchema)]
pub(crate) struct Checks {
    /// Checkable objects and instances counted (instances individually; an object with
    /// no instances counts once).
    pub(crate) total: usize,
    /// Passed.
    pub(crate) pass: usize,
    /// Failed.
    pub(crate) fail: usize,
    /// Could not be evaluated.
    pub(crate) error: usize,
    /// Known only after apply.
    pub(crate) unknown: usize,
    /// Failed plus errored.
    pub(crate) failing: usize,
    /// The counts in a few words, e.g. `✅ 3 passed · ❌ 1 failed`.
    pub(crate) tally: String,
    /// Failing or erroring instances with their messages.
    pub(crate) problems: Vec<CheckEntry>,
    /// Instances whose result is known only after apply.
    pub(crate) pending: Vec<CheckEntry>,
    /// Failing/erroring instances not listed.
    pub(crate) problems_more: usize,
    /// Unknown instances not listed.
    pub(crate) pending_more: usize,
}

/// One check instance.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub(crate) struct CheckEntry {
    /// Address of the instance (or of the object when it has no instances).
    pub(crate) address: String,
    /// `resource`, `output_value`, `check` or `var`.
    pub(crate) kind: String,
    /// `pass`, `fail`, `error` or `unknown`.
    pub(crate) status: CheckStatus,
    /// Failure messages.
    pub(crate) problems: Vec<String>,
}

/// Check counts per instance (an object without instances counts once, as the format's
/// documentation recommends), with failing and unknown instances listed.
pub(super) fn checks(plan: &PlanHead, tight: usize) -> Checks {
    let mut checks = Checks::default();
    // Every instance (or object without instances), listed in natural order of address.
    let mut instances: Vec<(&str, &str, CheckStatus, &[String])> = Vec::new();
    for object in &plan.checks {
        if object.instances.is_empty() {
            instances.push((object.address.as_str(), &object.kind, object.status, &[]));
        } else {
            instances.extend(object.instances.iter().map(|i| {
                let problems = i.problems.as_slice();
                (i.address.as_str(), object.kind.as_str(), i.status, problems)
            }));
        }
    }
    instances.sort_by(|a, b| natural_cmp(a.0, b.0));
    for (address, kind, status, problems) in instances {
        checks.total += 1;
        match status {
            CheckStatus::Pass => checks.pass += 1,
            CheckStatus::Fail => checks.fail += 1,
            CheckStatus::Error => checks.error += 1,
            CheckStatus::Unknown => checks.unknown += 1,
        }
        let (list, more) = match status {
            CheckStatus::Pass => continue,
            CheckStatus::Fail | CheckStatus::Error => {
                (&mut checks.problems, &mut checks.problems_more)
            }
            CheckStatus::Unknown => (&mut checks.pending, &mut checks.pending_more),
        };
        if list.len() < CHECK_ITEMS[tight] {
            list.push(CheckEntry {
                address: address.to_string(),
                kind: kind.to_string(),
                status,
                problems: problems
                    .iter()
                    .map(|p| phrases::shorten(p, CHECK_MESSAGE_CHARS[tight]))
                    .collect(),
            });
        } else {
            *more += 1;
        }
    }
    checks.failing = checks.fail + checks.error;
    let parts = [
        (checks.pass, "✅", "passed"),
        (checks.fail, "❌", "failed"),
        (checks.error, "❌", "errored"),
        (checks.unknown, "❔", "known after apply"),
    ];
    checks.tally = parts
        .iter()
        .filter(|(n, _, _)| *n > 0)
        .map(|(n, icon, word)| format!("{icon} {} {word}", phrases::thousands(*n)))
        .collect::<Vec<_>>()
        .join(" · ");
    checks
}
