//! Pipeline stage, errors: what loading and rendering plans can fail with, each stage's
//! own error carried as it is, for the command line to map to an exit code.

use crate::input::error::InputError;
use crate::policy::rego::RegoError;
use crate::render::error::RenderError;

/// What went wrong between reading the plans and writing their rendering.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// A file could not be read or is not what it should be.
    #[error(transparent)]
    Input(#[from] InputError),
    /// A template failed, or the output could not be written.
    #[error(transparent)]
    Render(#[from] RenderError),
    /// A Rego policy or its data cannot be used, or a rule failed or ran too long.
    #[error(transparent)]
    Policy(#[from] RegoError),
    /// Plans among several could not be read; the others were rendered (and the caller's
    /// work on them done) before this is returned. One error each.
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))]
    Unreadable(Vec<PipelineError>),
}

impl PipelineError {
    /// Builds an input error (see [`InputError::input`]).
    pub(crate) fn input(path: impl std::fmt::Display, problem: impl Into<String>) -> Self {
        PipelineError::Input(InputError::input(path, problem))
    }

    /// The file or directory at `path` could not be read.
    pub(crate) fn read(path: impl std::fmt::Display, source: std::io::Error) -> Self {
        let path = path.to_string();
        PipelineError::Input(InputError::Read { path, source })
    }
}

/// Result with the pipeline's error.
pub type Result<T, E = PipelineError> = std::result::Result<T, E>;
