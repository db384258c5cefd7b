//! Policy stage (after the differ, beside the renderers): diff trees + policy gates
//! (`--fail-on`, `--max-destroy`, `--protect`) → the [`Violation`]s a plan commits.
//!
//! Contract: pure, no I/O. Violations are reported in a stable order (per plan: the
//! `--fail-on` rules in the order given, then `--max-destroy`, then `--protect`), one per
//! resource where a rule concerns resources. The caller posts the comment first and then
//! exits with code 3 when there is any.

use std::fmt;

use clap::ValueEnum;

use crate::diff::{Changes, CheckStatus, PlanHead, PlanMode, ResourceSummary};
use crate::input::plan::ResourceAction;

/// A `--fail-on` rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Rule {
    /// An object is destroyed: a resource destroyed, or replaced (the replacement destroys
    /// the old object, before or after creating the new one).
    Destroy,
    /// A resource is destroyed and not replaced (`destroy` without replacements).
    DeleteOnly,
    /// A resource is replaced.
    Replace,
    /// Objects changed outside Terraform (the drift relevant to the plan).
    Drift,
    /// A check, precondition or postcondition failed or could not be evaluated.
    CheckFailure,
    /// Applying would change anything.
    Changes,
}

impl Rule {
    /// The flag that asks for it, with the value as the command line spells it
    /// (`--fail-on delete-only`).
    fn flag(self) -> String {
        let value = self.to_possible_value();
        format!("--fail-on {}", value.as_ref().map_or("", |v| v.get_name()))
    }
}

/// The gates to check.
#[derive(Debug, Clone, Default)]
pub struct Policy {
    /// `--fail-on` rules.
    pub fail_on: Vec<Rule>,
    /// `--max-destroy N`: most objects that may be destroyed (replacements included).
    pub max_destroy: Option<usize>,
    /// `--protect GLOB`: addresses or types that must be neither destroyed nor replaced.
    pub protect: Vec<String>,
}

impl Policy {
    /// No gate at all.
    pub(crate) fn is_empty(&self) -> bool {
        self.fail_on.is_empty() && self.max_destroy.is_none() && self.protect.is_empty()
    }
}

/// One broken gate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The plan's name when several plans are checked together.
    pub(crate) plan: Option<String>,
    /// The resource or check concerned, if one.
    pub(crate) address: Option<String>,
    /// What happens, after the address (`is destroyed`) or alone.
    pub(crate) what: String,
    /// The flag that forbids it (`--fail-on destroy`).
    pub(crate) rule: String,
}

impl fmt::Display for Violation {
    /// `prod: aws_instance.web is destroyed (--fail-on destroy)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(plan) = &self.plan {
            write!(f, "{plan}: ")?;
        }
        if let Some(address) = &self.address {
            write!(f, "{address} ")?;
        }
        write!(f, "{} ({})", self.what, self.rule)
    }
}

/// A plan as the gates read it: its name, its head (outputs, checks) and its resource
/// changes and drift (only their summaries, addresses and types are read: no diff).
pub(crate) type Gated<'a> = (&'a str, &'a PlanHead, Changes<'a>);

/// The violations of `policy` by `plans`; names are used when there are several plans.
pub fn evaluate(policy: &Policy, plans: &[Gated<'_>]) -> Vec<Violation> {
    let mut violations = Vec::new();
    for &(name, plan, changes) in plans {
        let resources = changes.resources;
        let plan_name = (plans.len() > 1).then(|| name.to_string());
        let violation = |address: Option<&str>, what: String, rule: String| Violation {
            plan: plan_name.clone(),
            address: address.map(str::to_string),
            what,
            rule,
        };
        let summaries = resources.summaries();
        // Managed resources' changes: (index, action).
        let managed = || {
            summaries
                .iter()
                .enumerate()
                .filter(|(_, r)| !r.data_source)
                .map(|(i, r)| (i, &r.action))
        };
        for rule in &policy.fail_on {
            let flag = rule.flag();
            match rule {
                Rule::Destroy | Rule::DeleteOnly => {
                    let only = *rule == Rule::DeleteOnly;
                    violations.extend(managed().filter_map(|(i, a)| {
                        let what = match a {
                            ResourceAction::Delete => "is destroyed",
                            a if !only && destroys(a) => "is replaced, destroying its old object",
                            _ => return None,
                        };
                        Some(violation(
                            Some(resources.address(i)),
                            what.into(),
                            flag.clone(),
                        ))
                    }))
                }
                Rule::Replace => {
                    violations.extend(managed().filter(|(_, a)| a.is_replace()).map(|(i, _)| {
                        let address = resources.address(i);
                        violation(Some(address), "is replaced".into(), flag.clone())
                    }))
                }
                Rule::Drift => {
                    let drift = changes.drift;
                    let drifted = drift
                        .summaries()
                        .iter()
                        .enumerate()
                        .filter(|(_, r)| r.action != ResourceAction::NoOp);
                    violations.extend(drifted.map(|(i, _)| {
                        violation(
                            Some(drift.address(i)),
                            "changed outside of Terraform".into(),
                            flag.clone(),
                        )
                    }));
                }
                Rule::CheckFailure => {
                    for (address, status) in failing_checks(plan) {
                        let what = if status == CheckStatus::Fail {
                            "failed its check"
                        } else {
                            "has a check that could not be evaluated"
                        };
                        violations.push(violation(Some(address), what.into(), flag.clone()));
                    }
                }
                Rule::Changes => {
                    if has_changes(plan, changes) {
                        violations.push(violation(None, "the plan has changes".into(), flag));
                    }
                }
            }
        }
        if let Some(max) = policy.max_destroy {
            let destroyed = managed().filter(|(_, a)| destroys(a)).count();
            if destroyed > max {
                let what = format!(
                    "{destroyed} {} destroyed (replacements included), more than {max}",
                    if destroyed == 1 {
                        "object is"
                    } else {
                        "objects are"
                    }
                );
                violations.push(violation(None, what, format!("--max-destroy {max}")));
            }
        }
        for (i, action) in managed() {
            let what = match action {
                ResourceAction::Delete => "is destroyed",
                a if a.is_replace() => "is replaced",
                _ => continue,
            };
            let (address, type_name) = (resources.address(i), resources.type_name(i));
            if let Some(glob) = policy
                .protect
                .iter()
                .find(|g| protects(g, address, type_name))
            {
                violations.push(violation(
                    Some(address),
                    format!("{what} but is protected"),
                    format!("--protect {glob}"),
                ));
            }
        }
    }
    violations
}

/// Does the action destroy an object? A destroy, and both orders of replacement (not
/// `create, forget`, which keeps the old object and only stops managing it). The one
/// meaning of "destroyed" for `--fail-on destroy`, `--max-destroy` and the title's count.
fn destroys(action: &ResourceAction) -> bool {
    matches!(
        action,
        ResourceAction::Delete
            | ResourceAction::DeleteThenCreate
            | ResourceAction::CreateThenDelete
    )
}

/// Failing or erroring check instances (the object itself when it has none).
fn failing_checks(plan: &PlanHead) -> Vec<(&str, CheckStatus)> {
    let mut out = Vec::new();
    for object in &plan.checks {
        if object.instances.is_empty() {
            out.push((object.address.as_str(), object.status));
        } else {
            out.extend(
                object
                    .instances
                    .iter()
                    .map(|i| (i.address.as_str(), i.status)),
            );
        }
    }
    out.retain(|&(_, status)| matches!(status, CheckStatus::Fail | CheckStatus::Error));
    out
}

/// Would applying change anything? The same rule as the comment's verdict: a resource
/// action (or a move or import), a changed output, an action to invoke, or drift in a
/// refresh-only plan.
pub(crate) fn has_changes(plan: &PlanHead, changes: Changes<'_>) -> bool {
    let resource = changes
        .resources
        .summaries()
        .iter()
        .any(ResourceSummary::is_shown);
    let outputs = plan
        .outputs
        .iter()
        .any(|o| o.diff.action != crate::diff::Action::NoOp);
    let drift = plan.mode == PlanMode::RefreshOnly
        && changes
            .drift
            .summaries()
            .iter()
            .any(|r| r.action != ResourceAction::NoOp);
    resource || outputs || !plan.invocations.is_empty() || drift
}

/// Does `glob` protect the resource at `address` of type `type_name`? It may name the
/// address (`module.db.aws_db_instance.main`, with or without the instance key) or the
/// type (`aws_db_*`).
fn protects(glob: &str, address: &str, type_name: &str) -> bool {
    let without_key = address
        .strip_suffix(']')
        .and_then(|a| a.rfind('['))
        .map_or(address, |open| &address[..open]);
    glob_match(glob, address) || glob_match(glob, without_key) || glob_match(glob, type_name)
}

/// Shell-style matching of the whole text: `*` any run of characters, `?` one character.
pub(crate) fn glob_match(glob: &str, text: &str) -> bool {
    let (g, t): (Vec<char>, Vec<char>) = (glob.chars().collect(), text.chars().collect());
    let (mut gi, mut ti) = (0, 0);
    // Where the last `*` was and how much of the text it has taken: backtrack there.
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        match g.get(gi) {
            Some('*') => {
                star = Some((gi, ti));
                gi += 1;
            }
            Some(&c) if c == '?' || c == t[ti] => {
                gi += 1;
                ti += 1;
            }
            _ => match star {
                Some((sg, st)) => {
                    gi = sg + 1;
                    ti = st + 1;
                    star = Some((sg, st + 1));
                }
                None => return false,
            },
        }
    }
    g[gi..].iter().all(|c| *c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_whole_names() {
        assert!(glob_match("aws_db_*", "aws_db_instance"));
        assert!(glob_match("*", ""));
        assert!(glob_match("a?c", "abc"));
        assert!(!glob_match("a?c", "abbc"));
        assert!(glob_match("module.*.aws_*.main", "module.db.aws_rds.main"));
        assert!(!glob_match("aws_db_*", "xaws_db_instance"));
        assert!(glob_match("*.web*", "aws_instance.web[0]"));
        assert!(!glob_match("web", "aws_instance.web"));
    }
}
