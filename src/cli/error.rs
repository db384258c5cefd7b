//! Command line, errors: each stage's error composed, and the exit code each kind maps to.

use std::io::Write;

use crate::input::error::InputError;
use crate::input::text::one_line;
use crate::pipeline::{PipelineError, Verdicts};
use crate::policy::rego::{BuiltinError, Finding};
use crate::publish::PublishError;
use crate::render::error::RenderError;

/// Exit code for success.
pub const EXIT_OK: i32 = 0;
/// Exit code for a runtime or API failure.
pub(crate) const EXIT_FAILURE: i32 = 1;
/// Exit code for bad input or bad usage.
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit code for a plan that breaks a policy gate (`--fail-on`, `--max-destroy`,
/// `--protect`) or a Rego rule (`--policy`); the comment was still written.
pub const EXIT_POLICY: i32 = 3;
/// Exit code of `planmark verify` for a plan that is not the reviewed one, or when no
/// reviewed plan is found on the pull request.
pub(crate) const EXIT_UNREVIEWED: i32 = 4;

/// What went wrong in a command.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Reading, parsing or rendering the plans failed (a file that cannot be read or is not
    /// what its flag expects, a template, output that cannot be written while rendering),
    /// or plans among several could not be read (main prints each as
    /// `planmark: error: LINE`).
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    /// Writing the output failed.
    #[error("cannot write output: {0}")]
    Write(#[source] std::io::Error),
    /// Publishing the comment failed.
    #[error(transparent)]
    Publish(#[from] PublishError),
    /// The plan breaks policy gates or Rego rules: one line per violation or failure
    /// (main prints each as `planmark: policy: LINE`).
    #[error("policy: {}", .0.join("; "))]
    Policy(Vec<String>),
    /// The plan about to be applied is not the one reviewed on the pull request, or no
    /// reviewed plan was found there: what to do.
    #[error("{0}")]
    Unreviewed(String),
    /// The reviewed plan's record cannot be compared as given (another planmark's form of
    /// the hashes, or schemas needed): what to do. Not a verdict on the plan.
    #[error("{0}")]
    CannotCompare(String),
}

impl From<InputError> for Error {
    fn from(err: InputError) -> Self {
        Error::Pipeline(PipelineError::Input(err))
    }
}

impl From<RenderError> for Error {
    fn from(err: RenderError) -> Self {
        Error::Pipeline(PipelineError::Render(err))
    }
}

impl Error {
    /// Builds an input error (see [`InputError::input`]).
    pub(crate) fn input(path: impl std::fmt::Display, problem: impl Into<String>) -> Self {
        Error::from(InputError::input(path, problem))
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Pipeline(PipelineError::Render(RenderError::Write(_))) | Error::Write(_) => {
                EXIT_FAILURE
            }
            // Unreadable input, a template, a Rego policy, settings or a record that cannot
            // be used as given: the user's to fix.
            Error::Pipeline(_)
            | Error::Publish(PublishError::Config(_))
            | Error::CannotCompare(_) => EXIT_BAD_INPUT,
            Error::Publish(_) => EXIT_FAILURE,
            Error::Policy(_) => EXIT_POLICY,
            Error::Unreviewed(_) => EXIT_UNREVIEWED,
        }
    }

    /// Whether this is a write to a closed pipe (`planmark render | head`): not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Write(e)
            | Error::Pipeline(PipelineError::Render(RenderError::Write(e)))
            if e.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

/// Exit code 3 (after the output is written) when the plans break a gate or a Rego rule
/// fails (unless `warn_only`); Rego warnings (and failures under `warn_only`, and builtins
/// that failed) are printed on standard error, one line each, `planmark: policy warning:
/// LINE`, then results conftest skips, `planmark: policy skipped: LINE`, then conftest's
/// exceptions, `planmark: policy exception: LINE`.
pub(super) fn policy_result(verdicts: &Verdicts, warn_only: bool) -> Result<()> {
    let mut lines: Vec<String> = verdicts
        .violations
        .iter()
        .map(ToString::to_string)
        .collect();
    let (mut warnings, mut skips, mut exceptions) = (Vec::new(), Vec::new(), Vec::new());
    for (plan, report) in &verdicts.rego {
        for failure in &report.failures {
            let line = rego_line(plan.as_deref(), failure);
            match warn_only {
                true => warnings.push(format!("{line} [--policy-warn-only]")),
                false => lines.push(line),
            }
        }
        for warning in &report.warnings {
            warnings.push(rego_line(plan.as_deref(), warning));
        }
        let prefix = plan
            .as_deref()
            .map(|p| format!("{p}: "))
            .unwrap_or_default();
        for error in &report.builtin_errors {
            warnings.push(format!("{prefix}{}", builtin_line(error)));
        }
        for skipped in &report.skipped {
            skips.push(format!(
                "{prefix}{}: {}",
                qualified(&skipped.namespace, &skipped.rule),
                skipped.what
            ));
        }
        for exception in &report.exceptions {
            exceptions.push(format!(
                "{prefix}{} excepted: {} (conftest's exception)",
                qualified(&exception.namespace, &exception.rule),
                exception.message
            ));
        }
    }
    // An exception is neither a failure nor a warning (conftest reports it apart), nor is a
    // result conftest skips, so their lines say what they are.
    let kinds = [
        ("warning", &warnings),
        ("skipped", &skips),
        ("exception", &exceptions),
    ];
    let mut stderr = std::io::stderr().lock();
    for (kind, lines) in kinds {
        for line in lines {
            // Policy messages are hostile (they may come from the pull request).
            let _ = writeln!(stderr, "planmark: policy {kind}: {}", one_line(line));
        }
    }
    match lines.is_empty() {
        true => Ok(()),
        false => Err(Error::Policy(lines)),
    }
}

/// `main.deny: builtin to_number failed at p.rego:4:7 (could not parse string as number);
/// its expression is undefined, as in conftest (--policy-strict fails instead)`.
fn builtin_line(error: &BuiltinError) -> String {
    let builtin = error
        .builtin
        .as_deref()
        .map(|b| format!("builtin {b}"))
        .unwrap_or_else(|| "a builtin".into());
    let at = error
        .location
        .as_deref()
        .map(|l| format!(" at {l}"))
        .unwrap_or_default();
    format!(
        "{}: {builtin} failed{at} ({}); its expression is undefined, as in conftest \
         (--policy-strict fails instead)",
        qualified(&error.namespace, &error.rule),
        error.message
    )
}

fn qualified(namespace: &str, rule: &str) -> String {
    format!("{namespace}.{rule}")
}

/// `prod: aws_s3_bucket.logs: the bucket is public (main.deny_public)`: the plan (when
/// there are several), the resource the rule named, the message, and the rule.
fn rego_line(plan: Option<&str>, finding: &Finding) -> String {
    let mut line = String::new();
    for part in [plan, finding.resource.as_deref()].into_iter().flatten() {
        line.push_str(part);
        line.push_str(": ");
    }
    line.push_str(&finding.message);
    line.push_str(&format!(" ({}.{})", finding.namespace, finding.rule));
    line
}

/// Result with the command line's error.
pub type Result<T, E = Error> = std::result::Result<T, E>;
