//! Policy stage, Rego evaluation: one plan's JSON as `input` → its [`PolicyReport`], rule
//! by rule, each within `--policy-timeout`.
//!
//! Contract: conftest's input is the plan document exactly as `terraform show -json` wrote
//! it, so the text is handed over as it is; each rule's value is a set (or array) of
//! results, each a message string or an object with a string `msg` (and optionally a
//! string `resource`, the address the comment links to); anything else is an error.

use regorus::{LimitError, Value};

use super::compile::{Policies, RuleRef};
use super::error::RegoError;
use super::message::{locate, without_strings};
use super::report::{Finding, Level, PolicyReport};

impl Policies {
    /// Evaluates every rule over the plan `json` (read from `path`, named in errors).
    pub fn evaluate(&mut self, path: &str, json: &str) -> Result<PolicyReport, RegoError> {
        if self.rules.is_empty() {
            return Ok(PolicyReport::default());
        }
        let input = self.reads.convert(json).map_err(|e| {
            RegoError::Input {
                file: path.to_string(),
                message: without_strings(&locate(&e.to_string()).message),
            }
            .one_line()
        })?;
        self.evaluate_input(input)
    }

    /// Evaluates every rule with `input` already converted.
    pub fn evaluate_input(&mut self, input: Value) -> Result<PolicyReport, RegoError> {
        self.engine.set_input(input);
        let report = self.run_rules();
        // The plan's values are let go before the comment is rendered.
        self.engine.set_input(Value::new_object());
        report
    }

    fn run_rules(&mut self) -> Result<PolicyReport, RegoError> {
        let mut report = PolicyReport {
            rules: self.rules.len(),
            ..PolicyReport::default()
        };
        for rule in &self.rules {
            let path = format!("data.{}.{}", rule.namespace, rule.name);
            let value = self
                .engine
                .eval_rule(path)
                .map_err(|e| failed(rule, self.timeout, &e).one_line())?;
            let findings = findings(rule, &value).map_err(RegoError::one_line)?;
            if findings.is_empty() {
                report.passed += 1;
            }
            match rule.level {
                Level::Failure => report.failures.extend(findings),
                Level::Warning => report.warnings.extend(findings),
            }
        }
        let order = |a: &Finding, b: &Finding| {
            (&a.namespace, &a.rule, &a.message, &a.resource).cmp(&(
                &b.namespace,
                &b.rule,
                &b.message,
                &b.resource,
            ))
        };
        report.failures.sort_by(order);
        report.warnings.sort_by(order);
        Ok(report)
    }
}

/// The error of a rule that failed: past the time limit, or anything else at its place.
fn failed(rule: &RuleRef, limit: std::time::Duration, err: &anyhow::Error) -> RegoError {
    if let Some(LimitError::TimeLimitExceeded { .. }) = err.downcast_ref::<LimitError>() {
        return RegoError::Timeout {
            rule: rule.qualified(),
            file: rule.file.clone(),
            limit,
        };
    }
    let located = locate(&err.to_string());
    RegoError::Evaluation {
        rule: rule.qualified(),
        location: located.place(),
        message: without_strings(&located.message),
    }
}

/// The findings in a rule's value (none when it is undefined).
fn findings(rule: &RuleRef, value: &Value) -> Result<Vec<Finding>, RegoError> {
    let results: Vec<&Value> = match value {
        Value::Undefined => Vec::new(),
        Value::Set(set) => set.iter().collect(),
        Value::Array(array) => array.iter().collect(),
        other => {
            return Err(wrong(
                rule,
                format!("{} instead of a set of results", kind(other)),
            ))
        }
    };
    results
        .into_iter()
        .map(|result| finding(rule, result))
        .collect()
}

/// One result: a message, or an object with `msg` (and perhaps `resource`).
fn finding(rule: &RuleRef, result: &Value) -> Result<Finding, RegoError> {
    let (message, resource) = match result {
        Value::String(message) => (message.to_string(), None),
        Value::Object(object) => {
            let field = |name: &str| match object.get(&Value::from(name)) {
                Some(Value::String(s)) => Some(s.to_string()),
                _ => None,
            };
            let Some(message) = field("msg") else {
                return Err(wrong(
                    rule,
                    "an object without a string `msg` among its results".into(),
                ));
            };
            (message, field("resource"))
        }
        other => return Err(wrong(rule, format!("{} among its results", kind(other)))),
    };
    Ok(Finding {
        level: rule.level,
        namespace: rule.namespace.clone(),
        rule: rule.name.clone(),
        message,
        resource,
    })
}

fn wrong(rule: &RuleRef, what: String) -> RegoError {
    RegoError::Result {
        rule: rule.qualified(),
        file: rule.file.clone(),
        what,
    }
}

/// What a value is, never what it holds.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Set(_) => "a set",
        Value::Object(_) => "an object",
        Value::Undefined => "nothing",
    }
}
