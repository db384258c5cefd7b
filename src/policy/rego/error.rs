//! Policy stage, Rego errors: a policy or data file that cannot be used, a rule that fails,
//! runs too long or returns what conftest's conventions do not allow.
//!
//! Every message is one line, each text field escaped as it is written (policy text is
//! hostile: it may come from the pull request), and names the file (with line and column when known) or the rule; runtime messages
//! never quote a value, which may come from the plan (see [`super::message`]).

use std::time::Duration;

use crate::input::text::one_line;

/// What went wrong compiling or evaluating the team's Rego policies.
#[derive(Debug, thiserror::Error)]
pub enum RegoError {
    /// A `.rego` file does not parse, as Rego v1 nor as v0.
    #[error("{file}{at}: policy does not parse: {message}",
        file = one_line(.file), message = one_line(.message), at = at(*.line, *.column))]
    Parse {
        /// The file.
        file: String,
        /// 1-based line, 0 when unknown.
        line: u32,
        /// 1-based column, 0 when unknown.
        column: u32,
        /// The parser's message.
        message: String,
    },
    /// A policy OPA's compiler or conftest would refuse before evaluating it (an undefined
    /// function, a rule conftest cannot read).
    #[error("{file}{at}: policy refused: {message}",
        file = one_line(.file), message = one_line(.message), at = at(*.line, *.column))]
    Refused {
        /// The file.
        file: String,
        /// 1-based line, 0 when unknown.
        line: u32,
        /// 1-based column, 0 when unknown.
        column: u32,
        /// What is wrong and what to do.
        message: String,
    },
    /// A data file is not JSON or YAML, its top level is not an object, or it conflicts
    /// with another data file.
    #[error("{file}: policy data: {message}", file = one_line(.file), message = one_line(.message))]
    Data {
        /// The file.
        file: String,
        /// What is wrong.
        message: String,
    },
    /// A `--policy-namespace` (or the default `main`) that no policy file declares.
    #[error(
        "no policy file has `package {namespace}`: pass --policy-namespace NAME for the \
         packages holding the deny/violation/warn rules",
        namespace = one_line(.namespace)
    )]
    Namespace {
        /// The namespace asked for.
        namespace: String,
    },
    /// A rule failed while it ran (a type error, a conflict, a function that errs).
    #[error("policy rule {rule} failed{at}: {message}",
        rule = one_line(.rule), message = one_line(.message), at = place(.location))]
    Evaluation {
        /// `namespace.rule`.
        rule: String,
        /// `file:line:column` where it failed, when known.
        location: Option<String>,
        /// What failed, without quoted values.
        message: String,
    },
    /// A rule ran past `--policy-timeout`.
    #[error(
        "policy rule {rule} ({file}) ran past the --policy-timeout of {}: make it cheaper or \
         raise the limit", seconds(*.limit), rule = one_line(.rule), file = one_line(.file)
    )]
    Timeout {
        /// `namespace.rule`.
        rule: String,
        /// The file defining it.
        file: String,
        /// The limit.
        limit: Duration,
    },
    /// A rule returned a result conftest refuses: an object without a string `msg`.
    #[error(
        "policy rule {rule} ({file}) returned {what}: conftest refuses it; give each \
         object result a string `msg`",
        rule = one_line(.rule), file = one_line(.file), what = one_line(.what)
    )]
    Result {
        /// `namespace.rule`.
        rule: String,
        /// The file defining it.
        file: String,
        /// What it returned instead (a kind, never the value).
        what: String,
    },
    /// The plan could not be given to the policies as `input`.
    #[error("{file}: cannot be the policies' input: {message}",
        file = one_line(.file), message = one_line(.message))]
    Input {
        /// The plan.
        file: String,
        /// Why.
        message: String,
    },
}

fn at(line: u32, column: u32) -> String {
    match (line, column) {
        (0, _) => String::new(),
        (line, 0) => format!(":{line}"),
        (line, column) => format!(":{line}:{column}"),
    }
}

fn place(location: &Option<String>) -> String {
    location
        .as_deref()
        .map(|l| format!(" at {}", one_line(l)))
        .unwrap_or_default()
}

/// `10s`, `1.5s`, `500ms`: a limit as `--policy-timeout` takes it.
pub(crate) fn seconds(limit: Duration) -> String {
    match limit.subsec_millis() {
        0 if limit.as_secs() > 0 => format!("{}s", limit.as_secs()),
        _ if limit.as_secs() == 0 => format!("{}ms", limit.as_millis()),
        _ => format!("{}s", limit.as_secs_f64()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_print_as_the_flag_takes_them() {
        assert_eq!(seconds(Duration::from_secs(10)), "10s");
        assert_eq!(seconds(Duration::from_millis(500)), "500ms");
        assert_eq!(seconds(Duration::from_millis(1500)), "1.5s");
    }

    #[test]
    fn messages_stay_on_one_line() {
        let err = RegoError::Parse {
            file: "p.rego".into(),
            line: 3,
            column: 7,
            message: "bad\n::error::x".into(),
        };
        assert_eq!(
            err.to_string(),
            "p.rego:3:7: policy does not parse: bad\\n::error::x"
        );
    }
}
