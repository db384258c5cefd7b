//! Errors: the library's typed error and the exit code each kind maps to.
//!
//! Every message is one line, names the file (and field when known) and says what to do.
//! Messages never quote plan values: only our own words, paths and parser positions.

use std::fmt;

/// Exit code for success.
pub const EXIT_OK: i32 = 0;
/// Exit code for a runtime or API failure.
pub const EXIT_FAILURE: i32 = 1;
/// Exit code for bad input or bad usage.
pub const EXIT_BAD_INPUT: i32 = 2;

/// What went wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read.
    #[error("{path}: cannot read: {source}")]
    Read {
        /// The file.
        path: String,
        /// The OS error.
        source: std::io::Error,
    },
    /// The input is not usable (not JSON, not a plan, wrong types, unsupported version).
    #[error("{path}: {problem}")]
    Input {
        /// The file (or `-` for standard input).
        path: String,
        /// What is wrong with it and what to do.
        problem: String,
    },
    /// A template does not parse or does not render.
    #[error("{origin}:{line}:{column}: template error: {reason}; fix the template, or remove it to use the built-in one")]
    Template {
        /// The template file (or `built-in templates/NAME.hbs`).
        origin: String,
        /// 1-based line (0 when unknown).
        line: usize,
        /// 1-based column (0 when unknown).
        column: usize,
        /// What is wrong.
        reason: String,
    },
    /// Publishing the comment failed.
    #[error("{0}")]
    Publish(#[from] crate::publish::PublishError),
    /// Writing the output failed.
    #[error("cannot write output: {0}")]
    Write(#[source] std::io::Error),
}

impl Error {
    /// Builds an input error.
    pub fn input(path: impl fmt::Display, problem: impl Into<String>) -> Self {
        Error::Input {
            path: path.to_string(),
            problem: problem.into(),
        }
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Read { .. } | Error::Input { .. } | Error::Template { .. } => EXIT_BAD_INPUT,
            Error::Publish(e) if e.is_usage() => EXIT_BAD_INPUT,
            Error::Publish(_) | Error::Write(_) => EXIT_FAILURE,
        }
    }
}

/// Result with the library's error.
pub type Result<T, E = Error> = std::result::Result<T, E>;
