//! Render stage, errors: a template that does not parse or render, output that cannot be
//! written, or a change whose values the differ could not read while rendering.

use crate::input::error::InputError;

/// What went wrong while rendering.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
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
    /// Writing the output failed.
    #[error("cannot write output: {0}")]
    Write(#[source] std::io::Error),
    /// A change read while rendering (the renderers ask the differ for diffs as they go)
    /// was not usable.
    #[error(transparent)]
    Input(#[from] InputError),
}

/// Result with the render stage's error.
pub type Result<T, E = RenderError> = std::result::Result<T, E>;
