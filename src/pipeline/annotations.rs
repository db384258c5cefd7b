//! Pipeline stage, annotations: what the loaded plans say beside the pull request's lines
//! (destroys and replacements as warnings; Rego findings, broken gates and failed checks as
//! errors, Rego warnings as warnings), each placed at its block when links are made.
//!
//! Contract: every destroy, replacement, finding and failed check gives one annotation, so
//! that the count of those GitHub does not show is right; the plans' order, then each
//! plan's; a finding names its resource. An apply's output (`--applied`) has none. Plan
//! text stays as it is here: [`crate::render::annotations::lines`] escapes it.

use super::load::{Loaded, LoadedPlan};
use crate::diff::CheckStatus;
use crate::input::plan::ResourceAction;
use crate::render::annotations::{Annotation, Level};

impl Loaded<'_> {
    /// The annotations of these plans (none when [`super::Options::annotate`] is off, nor
    /// after an apply: its plans are the reviewed ones, already annotated then).
    pub(crate) fn annotations(&self) -> Vec<Annotation> {
        // After an apply the plan's review is over: what "will be" destroyed was, and
        // neither the gates nor the policies judged it again (see `Loaded::judge`).
        let applied = self.log.as_ref().is_some_and(|l| l.applied.is_some());
        if !self.options.annotate || applied {
            return Vec::new();
        }
        let several = self.plans.len() > 1;
        let mut out = Vec::new();
        for (p, plan) in self.plans.iter().enumerate() {
            let prefix = match several {
                true => format!("{}: ", plan.arg.name),
                false => String::new(),
            };
            dangerous(plan, &prefix, &mut out);
            failed_checks(plan, &prefix, &mut out);
            if let Some(report) = self.rego.get(p) {
                let failure = match self.options.rego.warn_only {
                    true => Level::Warning,
                    false => Level::Error,
                };
                let findings = (report.failures.iter().map(|f| (failure, f)))
                    .chain(report.warnings.iter().map(|f| (Level::Warning, f)));
                for (level, finding) in findings {
                    let rule = format!("{}.{}", finding.namespace, finding.rule);
                    // The resource is named as on standard error: instances of one block
                    // share its line, and a finding whose block is unknown has no place.
                    let resource = match &finding.resource {
                        Some(address) => format!("{address}: "),
                        None => String::new(),
                    };
                    out.push(Annotation {
                        level,
                        place: finding
                            .resource
                            .as_deref()
                            .and_then(|address| place(plan, address)),
                        title: format!("planmark: policy {rule}"),
                        message: format!("{prefix}{resource}{}", finding.message),
                    });
                }
            }
        }
        for violation in &self.violations {
            let plan = match &violation.plan {
                Some(name) => self.plans.iter().find(|l| &l.arg.name == name),
                None => self.plans.first(),
            };
            out.push(Annotation {
                level: Level::Error,
                place: (violation.address.as_deref())
                    .zip(plan)
                    .and_then(|(address, plan)| place(plan, address)),
                title: format!("planmark: {}", violation.rule),
                message: violation.to_string(),
            });
        }
        out
    }
}

/// Each destroy and replacement of `plan`, as a warning.
fn dangerous(plan: &LoadedPlan<'_>, prefix: &str, out: &mut Vec<Annotation>) {
    let changes = &*plan.resources;
    for (i, summary) in changes.summaries().iter().enumerate() {
        let (kind, what) = match summary.action {
            ResourceAction::Delete => ("destroy", "destroyed"),
            a if a.is_replace() => ("replace", "replaced"),
            _ => continue,
        };
        let address = changes.address(i);
        out.push(Annotation {
            level: Level::Warning,
            place: place(plan, address),
            title: format!("planmark: {kind}"),
            message: format!("{prefix}{address} will be {what}"),
        });
    }
}

/// Each check of `plan` that failed or could not be evaluated, as an error.
fn failed_checks(plan: &LoadedPlan<'_>, prefix: &str, out: &mut Vec<Annotation>) {
    for check in &plan.head.checks {
        let what = match check.status {
            CheckStatus::Fail => "failed",
            CheckStatus::Error => "could not be evaluated",
            _ => continue,
        };
        let problems: Vec<&str> = (check.instances.iter())
            .flat_map(|i| i.problems.iter().map(String::as_str))
            .collect();
        let mut message = format!("{prefix}the check of {} {what}", check.address);
        if !problems.is_empty() {
            message.push_str(": ");
            message.push_str(&problems.join("; "));
        }
        out.push(Annotation {
            level: Level::Error,
            place: (plan.links.as_ref())
                .and_then(|l| l.check(&check.kind, &check.address))
                .map(|s| (s.file, s.line)),
            title: format!("planmark: check {what}"),
            message,
        });
    }
}

/// Where the resource at `address` of `plan` is declared, when links are made.
fn place(plan: &LoadedPlan<'_>, address: &str) -> Option<(String, usize)> {
    let source = plan.links.as_ref()?.address(address)?;
    Some((source.file, source.line))
}
