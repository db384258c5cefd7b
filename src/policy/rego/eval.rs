//! Policy stage, Rego evaluation: one plan's JSON as `input` → its [`PolicyReport`], rule
//! by rule, each within `--policy-timeout`.
//!
//! Contract: conftest's input is the plan document exactly as `terraform show -json` wrote
//! it, so the text is handed over as it is; each rule's value is a set (or array) of
//! results, each a message string or an object with a string `msg` (and optionally a
//! string `resource`, the address the comment links to); an object without one is an
//! error, and other results (or a value that is no collection) are skipped as conftest
//! skips them, and named ([`Skipped`]). A
//! builtin that errs makes its expression undefined, as conftest's default does, and is
//! reported ([`BuiltinError`]), unless `--policy-strict` makes it the run's error.

use regorus::{LimitError, Value};

use super::checks;
use super::compile::{Policies, RuleRef};
use super::error::RegoError;
use super::message::{locate, without_strings, Located};
use super::report::{BuiltinError, Exception, Finding, Level, PolicyReport, Skipped};
use crate::input::text::one_line;

impl Policies {
    /// Evaluates every rule over the plan `json` (read from `path`, named in errors).
    pub(crate) fn evaluate(&mut self, path: &str, json: &str) -> Result<PolicyReport, RegoError> {
        if self.rules.is_empty() {
            return Ok(PolicyReport::default());
        }
        let input = self.reads.convert(json).map_err(|e| RegoError::Input {
            file: path.to_string(),
            message: without_strings(&locate(&e.to_string()).message),
        })?;
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
        let mut exceptions = Vec::new();
        for namespace in self.exceptions.clone() {
            let rule = RuleRef {
                namespace: namespace.clone(),
                name: "exception".into(),
                level: Level::Warning,
                file: String::new(),
            };
            let value = self.run(&rule, &mut report)?;
            exceptions.push((namespace, value));
        }
        // A copy: running a rule needs the engine mutably.
        for rule in self.rules.clone() {
            let excepted = exceptions
                .iter()
                .find(|(namespace, _)| namespace == &rule.namespace)
                .map(|(_, value)| matches(&rule, value))
                .transpose()?
                .unwrap_or(0);
            let value = self.run(&rule, &mut report)?;
            let (findings, skipped) = findings(&rule, &value)?;
            if excepted > 0 {
                let exception = Exception {
                    namespace: rule.namespace.clone(),
                    rule: rule.name.clone(),
                    message: format!(
                        "data.{}.exception[_][_] == \"{}\"",
                        rule.namespace,
                        unprefixed(&rule.name)
                    ),
                };
                report
                    .exceptions
                    .extend(std::iter::repeat_n(exception, excepted));
                continue;
            }
            report.skipped.extend(skipped);
            if findings.is_empty() {
                report.passed += 1;
            }
            match rule.level {
                Level::Failure => report.failures.extend(findings),
                Level::Warning => report.warnings.extend(findings),
            }
        }
        // One level per list: by namespace, rule, message and resource.
        report.failures.sort();
        report.warnings.sort();
        Ok(report)
    }

    /// One rule's value. A builtin that fails makes its expression undefined, as in
    /// conftest: the rule runs again without strict errors and the failure is reported
    /// (the first run names it); with `--policy-strict` it is the run's error.
    fn run(&mut self, rule: &RuleRef, report: &mut PolicyReport) -> Result<Value, RegoError> {
        let path = format!("data.{}.{}", rule.namespace, rule.name);
        let err = match self.engine.eval_rule(path.clone()) {
            Ok(value) => return Ok(value),
            Err(err) => err,
        };
        if self.strict || err.downcast_ref::<LimitError>().is_some() {
            return Err(self.failed(rule, &err));
        }
        self.engine.set_strict_builtin_errors(false);
        self.lenient.set(true);
        let lenient = self.engine.eval_rule(path);
        self.lenient.set(false);
        self.engine.set_strict_builtin_errors(true);
        let value = lenient.map_err(|e| self.failed(rule, &e))?;
        let located = self.locate(&err);
        let builtin = located.file.as_ref().and_then(|file| {
            let offset = self
                .places
                .get(file)?
                .original_offset(located.line, located.column);
            checks::failed_call(self.calls.get(file)?, offset).map(str::to_string)
        });
        report.builtin_errors.push(BuiltinError {
            namespace: rule.namespace.clone(),
            rule: rule.name.clone(),
            builtin: builtin.map(|b| one_line(&b).into_owned()),
            location: located.place().map(|l| one_line(&l).into_owned()),
            message: one_line(&without_strings(&located.message)).into_owned(),
        });
        Ok(value)
    }

    /// regorus's message taken apart, with its place in the policy as written.
    fn locate(&self, err: &anyhow::Error) -> Located {
        let mut located = locate(&err.to_string());
        if let Some(map) = located.file.as_ref().and_then(|f| self.places.get(f)) {
            (located.line, located.column) = map.original(located.line, located.column);
        }
        located
    }

    /// The error of a rule that failed: past the time limit, or anything else at its place.
    fn failed(&self, rule: &RuleRef, err: &anyhow::Error) -> RegoError {
        if let Some(LimitError::TimeLimitExceeded { .. }) = err.downcast_ref::<LimitError>() {
            return RegoError::Timeout {
                rule: rule.qualified(),
                file: rule.file.clone(),
                limit: self.timeout,
            };
        }
        let located = self.locate(err);
        RegoError::Evaluation {
            rule: rule.qualified(),
            location: located.place(),
            message: without_strings(&located.message),
        }
    }
}

/// conftest's name of a rule in `exception` lists: without its `violation_`, `deny_`,
/// `warn_` prefix (trimmed in that order), empty for a bare `deny`.
fn unprefixed(name: &str) -> &str {
    if matches!(name, "deny" | "violation" | "warn") {
        return "";
    }
    let name = name.strip_prefix("violation_").unwrap_or(name);
    let name = name.strip_prefix("deny_").unwrap_or(name);
    name.strip_prefix("warn_").unwrap_or(name)
}

/// How many times `exception[_][_] == NAME` holds, as conftest counts its query's results.
fn matches(rule: &RuleRef, exception: &Value) -> Result<usize, RegoError> {
    let name = Value::from(unprefixed(&rule.name));
    let lists: Vec<&Value> = match exception {
        Value::Set(set) => set.iter().collect(),
        Value::Array(array) => array.iter().collect(),
        Value::Object(object) => object.values().collect(),
        _ => Vec::new(),
    };
    let mut count = 0;
    for list in lists {
        count += match list {
            Value::Array(names) => names.iter().filter(|n| **n == name).count(),
            Value::Set(names) => usize::from(names.contains(&name)),
            Value::Object(names) => names.values().filter(|n| **n == name).count(),
            other => {
                return Err(RegoError::Evaluation {
                    rule: format!("{}.exception", rule.namespace),
                    location: None,
                    message: format!(
                        "{} among its results: each must be a list of rule names, as conftest \
                         reads them (`exception contains [\"name\"]`)",
                        kind(other)
                    ),
                })
            }
        };
    }
    Ok(count)
}

/// The findings in a rule's value (none when it is undefined), and what conftest skips
/// of it: a value that is not a set or array, results neither strings nor objects.
fn findings(rule: &RuleRef, value: &Value) -> Result<(Vec<Finding>, Option<Skipped>), RegoError> {
    let skipped = |what: String| Skipped {
        namespace: rule.namespace.clone(),
        rule: rule.name.clone(),
        what: one_line(&what).into_owned(),
    };
    let results: Vec<&Value> = match value {
        Value::Undefined => Vec::new(),
        Value::Set(set) => set.iter().collect(),
        Value::Array(array) => array.iter().collect(),
        other => {
            let what = format!(
                "its value is {}, not a set of results: conftest skips it",
                kind(other)
            );
            return Ok((Vec::new(), Some(skipped(what))));
        }
    };
    let mut found = Vec::new();
    let mut others: Vec<&str> = Vec::new();
    for result in results {
        match finding(rule, result)? {
            Some(finding) => found.push(finding),
            None => others.push(kind(result)),
        }
    }
    if others.is_empty() {
        return Ok((found, None));
    }
    let count = others.len();
    others.sort_unstable();
    others.dedup();
    let what = match count {
        1 => format!(
            "1 result is neither a string nor an object ({}): conftest skips it",
            others[0]
        ),
        n => format!(
            "{n} results are neither strings nor objects ({}): conftest skips them",
            others.join(", ")
        ),
    };
    Ok((found, Some(skipped(what))))
}

/// One result: a message, or an object with `msg` (and perhaps `resource`); `None` for
/// what conftest skips.
fn finding(rule: &RuleRef, result: &Value) -> Result<Option<Finding>, RegoError> {
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
        _ => return Ok(None),
    };
    Ok(Some(Finding {
        level: rule.level,
        namespace: rule.namespace.clone(),
        rule: rule.name.clone(),
        message,
        resource,
    }))
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
