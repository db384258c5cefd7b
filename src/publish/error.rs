//! Publish stage, errors: what GitHub refused or could not be reached for; only
//! [`PublishError::Config`] is the user's to fix (exit 2) rather than a failure (exit 1).

/// What went wrong while publishing.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// Missing or invalid settings (repository, pull request, token, URLs).
    #[error("{0}")]
    Config(String),
    /// GitHub refused the token or the request.
    #[error("{what}: GitHub answered {status} {message}: {hint}")]
    Denied {
        /// What we were doing.
        what: String,
        /// HTTP status.
        status: u16,
        /// GitHub's message.
        message: String,
        /// The likely cause and what to do.
        hint: String,
    },
    /// Another API failure.
    #[error("{what}: GitHub answered {status}: {message}")]
    Api {
        /// What we were doing.
        what: String,
        /// HTTP status.
        status: u16,
        /// GitHub's message.
        message: String,
    },
    /// Retries ran out.
    #[error(
        "GitHub kept answering {status} ({message}) after waiting {waited:?}; try again later"
    )]
    GaveUp {
        /// Last status.
        status: u16,
        /// Last message.
        message: String,
        /// Total wait.
        waited: std::time::Duration,
    },
    /// A write may or may not have happened.
    #[error("the outcome of a request is unknown: {0}")]
    Ambiguous(String),
    /// The API could not be reached.
    #[error("{0}")]
    Network(String),
    /// GitHub found the body too long: the caller renders it smaller and publishes
    /// again; an error only once the body is as small as it gets.
    #[error(
        "writing the comment: GitHub found even the smallest body too long{}; report this \
         with the plan's size",
        maximum.map(|m| format!(" (its limit: {m} characters)")).unwrap_or_default()
    )]
    TooLong {
        /// The limit GitHub named, in characters, when it named one.
        maximum: Option<usize>,
    },
}

impl PublishError {
    /// The error for a non-2xx answer (`status`, GitHub's `message`) while doing `what`,
    /// with a hint for 401/403/404.
    pub(crate) fn refused(what: &str, status: u16, message: String) -> PublishError {
        let hint = match status {
            401 => "the token is invalid or expired; check GITHUB_TOKEN (or the variable named by --token-env)",
            403 => "the token may not write pull request comments: give the job `permissions: pull-requests: write`; pull requests from forks get a read-only token",
            404 => "the repository or pull request does not exist, or the token cannot see it; check --repo and --pr",
            _ => {
                return PublishError::Api {
                    what: what.to_string(),
                    status,
                    message,
                }
            }
        };
        PublishError::Denied {
            what: what.to_string(),
            status,
            message,
            hint: hint.to_string(),
        }
    }
}
