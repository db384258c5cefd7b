//! Policy stage (after the differ, beside the renderers): diff trees + policy gates
//! (`--fail-on`, `--max-destroy`, `--protect`) → the [`Violation`]s a plan commits.
//!
//! Contract: pure, no I/O. Violations are reported in a stable order (per plan: the
//! `--fail-on` rules in the order given, then `--max-destroy`, then `--protect`), one per
//! resource where a rule concerns resources. The caller posts the comment first and then
//! exits with code 3 when there is any.

use std::fmt;

use crate::diff::{CheckStatus, PlanDiff, PlanMode, ResourceAction, ResourceDiff};

/// A `--fail-on` rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Rule {
    /// A managed resource is destroyed (not replaced).
    Destroy,
    /// A managed resource is replaced.
    Replace,
    /// Objects changed outside Terraform (the drift relevant to the plan).
    Drift,
    /// A check, precondition or postcondition failed or could not be evaluated.
    CheckFailure,
    /// Applying would change anything.
    Changes,
}

impl Rule {
    fn flag(self) -> &'static str {
        match self {
            Rule::Destroy => "--fail-on destroy",
            Rule::Replace => "--fail-on replace",
            Rule::Drift => "--fail-on drift",
            Rule::CheckFailure => "--fail-on check-failure",
            Rule::Changes => "--fail-on changes",
        }
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
    pub fn is_empty(&self) -> bool {
        self.fail_on.is_empty() && self.max_destroy.is_none() && self.protect.is_empty()
    }
}

/// One broken gate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// The plan's name when several plans are checked together.
    pub plan: Option<String>,
    /// The resource or check concerned, if one.
    pub address: Option<String>,
    /// What happens, after the address (`is destroyed`) or alone.
    pub what: String,
    /// The flag that forbids it (`--fail-on destroy`).
    pub rule: String,
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

/// The violations of `policy` by `plans` (name, diff); names are used when there are
/// several plans.
pub fn evaluate(policy: &Policy, plans: &[(&str, &PlanDiff)]) -> Vec<Violation> {
    let mut violations = Vec::new();
    for (name, plan) in plans {
        let plan_name = (plans.len() > 1).then(|| name.to_string());
        let violation = |address: Option<&str>, what: String, rule: String| Violation {
            plan: plan_name.clone(),
            address: address.map(str::to_string),
            what,
            rule,
        };
        let managed = || plan.resources.iter().filter(|r| !r.data_source);
        for rule in &policy.fail_on {
            let flag = rule.flag().to_string();
            match rule {
                Rule::Destroy => violations.extend(
                    managed()
                        .filter(|r| r.action == ResourceAction::Delete)
                        .map(|r| violation(Some(&r.address), "is destroyed".into(), flag.clone())),
                ),
                Rule::Replace => violations.extend(
                    managed()
                        .filter(|r| r.action.is_replace())
                        .map(|r| violation(Some(&r.address), "is replaced".into(), flag.clone())),
                ),
                Rule::Drift => {
                    let drifted: Vec<&ResourceDiff> = plan
                        .drift
                        .iter()
                        .filter(|r| r.action != ResourceAction::NoOp)
                        .collect();
                    violations.extend(drifted.iter().map(|r| {
                        violation(
                            Some(&r.address),
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
                    if has_changes(plan) {
                        violations.push(violation(None, "the plan has changes".into(), flag));
                    }
                }
            }
        }
        if let Some(max) = policy.max_destroy {
            let destroyed = managed()
                .filter(|r| {
                    matches!(
                        r.action,
                        ResourceAction::Delete
                            | ResourceAction::DeleteThenCreate
                            | ResourceAction::CreateThenDelete
                    )
                })
                .count();
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
        for r in managed() {
            let what = match r.action {
                ResourceAction::Delete => "is destroyed",
                ref a if a.is_replace() => "is replaced",
                _ => continue,
            };
            if let Some(glob) = policy.protect.iter().find(|g| protects(g, r)) {
                violations.push(violation(
                    Some(&r.address),
                    format!("{what} but is protected"),
                    format!("--protect {glob}"),
                ));
            }
        }
    }
    violations
}

/// Failing or erroring check instances (the object itself when it has none).
fn failing_checks(plan: &PlanDiff) -> Vec<(&str, CheckStatus)> {
    let bad = |s: CheckStatus| matches!(s, CheckStatus::Fail | CheckStatus::Error);
    let mut out = Vec::new();
    for object in &plan.checks {
        if object.instances.is_empty() {
            if bad(object.status) {
                out.push((object.address.as_str(), object.status));
            }
        } else {
            out.extend(
                object
                    .instances
                    .iter()
                    .filter(|i| bad(i.status))
                    .map(|i| (i.address.as_str(), i.status)),
            );
        }
    }
    out
}

/// Would applying change anything? The same rule as the comment's verdict: a resource
/// action (or a move or import), a changed output, or drift in a refresh-only plan.
pub fn has_changes(plan: &PlanDiff) -> bool {
    let resource = plan.resources.iter().any(|r| {
        let visible =
            r.action != ResourceAction::NoOp || r.moved_from().is_some() || r.importing.is_some();
        visible && !(r.action == ResourceAction::Delete && r.data_source)
    });
    let outputs = plan
        .outputs
        .iter()
        .any(|o| o.diff.action != crate::diff::Action::NoOp);
    let drift = plan.mode == PlanMode::RefreshOnly
        && plan.drift.iter().any(|r| r.action != ResourceAction::NoOp);
    resource || outputs || drift
}

/// Does `glob` protect `r`? It may name the address (`module.db.aws_db_instance.main`, with
/// or without the instance key) or the type (`aws_db_*`).
fn protects(glob: &str, r: &ResourceDiff) -> bool {
    let address = r.address.as_str();
    let without_key = match (address.ends_with(']'), address.rfind('[')) {
        (true, Some(open)) => &address[..open],
        _ => address,
    };
    glob_match(glob, address) || glob_match(glob, without_key) || glob_match(glob, &r.type_)
}

/// Shell-style matching of the whole text: `*` any run of characters, `?` one character.
pub fn glob_match(glob: &str, text: &str) -> bool {
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
