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
    /// A file could not be read or is not what its flag expects.
    #[error(transparent)]
    Input(#[from] InputError),
    /// A template failed, or output could not be written while rendering.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// Publishing the comment failed.
    #[error(transparent)]
    Publish(#[from] PublishError),
    /// Writing the output failed.
    #[error("cannot write output: {0}")]
    Write(#[source] std::io::Error),
    /// Plans among several could not be read (the others were rendered): one error each
    /// (main prints each as `planmark: error: LINE`).
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Unreadable(Vec<Error>),
    /// The plan breaks policy gates: one line per violation (main prints each as
    /// `planmark: policy: LINE`).
    #[error("policy: {}", .0.join("; "))]
    Policy(Vec<String>),
}

impl Error {
    /// Builds an input error (see [`InputError::input`]).
    pub fn input(path: impl std::fmt::Display, problem: impl Into<String>) -> Self {
        Error::Input(InputError::input(path, problem))
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Input(_) | Error::Unreadable(_) => EXIT_BAD_INPUT,
            Error::Render(RenderError::Template { .. } | RenderError::Input(_)) => EXIT_BAD_INPUT,
            Error::Render(RenderError::Write(_)) | Error::Write(_) => EXIT_FAILURE,
            Error::Publish(e) if e.is_usage() => EXIT_BAD_INPUT,
            Error::Publish(_) => EXIT_FAILURE,
            Error::Policy(_) => EXIT_POLICY,
        }
    }

    /// Whether this is a write to a closed pipe (`planmark render | head`): not a failure.
    pub fn is_broken_pipe(&self) -> bool {
        matches!(self, Error::Write(e) | Error::Render(RenderError::Write(e))
            if e.kind() == std::io::ErrorKind::BrokenPipe)
    }
}

impl From<PipelineError> for Error {
    fn from(err: PipelineError) -> Self {
        match err {
            PipelineError::Input(e) => Error::Input(e),
            PipelineError::Render(e) => Error::Render(e),
            PipelineError::Write(e) => Error::Write(e),
            PipelineError::Unreadable(errors) => {
                Error::Unreadable(errors.into_iter().map(Error::from).collect())
            }
        }
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
