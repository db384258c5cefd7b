//! Command line, errors: each stage's error composed, and the exit code each kind maps to.

use crate::input::error::InputError;
use crate::pipeline::PipelineError;
use crate::policy::Violation;
use crate::publish::PublishError;
use crate::render::error::RenderError;

/// Exit code for success.
pub const EXIT_OK: i32 = 0;
/// Exit code for a runtime or API failure.
pub const EXIT_FAILURE: i32 = 1;
/// Exit code for bad input or bad usage.
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit code for a plan that breaks a policy gate (`--fail-on`, `--max-destroy`,
/// `--protect`); the comment was still written.
pub const EXIT_POLICY: i32 = 3;

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
    /// The plan breaks policy gates: one line per violation (main prints each as
    /// `planmark: policy: LINE`).
    #[error("policy: {}", .0.join("; "))]
    Policy(Vec<String>),
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
    pub fn input(path: impl std::fmt::Display, problem: impl Into<String>) -> Self {
        Error::from(InputError::input(path, problem))
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Pipeline(e) => match e {
                PipelineError::Input(_) | PipelineError::Unreadable(_) => EXIT_BAD_INPUT,
                PipelineError::Render(RenderError::Template { .. } | RenderError::Input(_)) => {
                    EXIT_BAD_INPUT
                }
                PipelineError::Render(RenderError::Write(_)) => EXIT_FAILURE,
            },
            Error::Write(_) => EXIT_FAILURE,
            Error::Publish(e) if e.is_usage() => EXIT_BAD_INPUT,
            Error::Publish(_) => EXIT_FAILURE,
            Error::Policy(_) => EXIT_POLICY,
        }
    }

    /// Whether this is a write to a closed pipe (`planmark render | head`): not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Write(e)
            | Error::Pipeline(PipelineError::Render(RenderError::Write(e)))
            if e.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

/// Exit code 3 (after the output is written) when the plans break a gate.
pub(super) fn policy_result(violations: &[Violation]) -> Result<()> {
    if violations.is_empty() {
        return Ok(());
    }
    Err(Error::Policy(
        violations.iter().map(ToString::to_string).collect(),
    ))
}

/// Result with the command line's error.
pub type Result<T, E = Error> = std::result::Result<T, E>;
