//! Input stage, errors: a file that cannot be read or is not what its flag expects.
//!
//! Every message is one line, names the file (and field when known) and says what to do.
//! Messages never quote plan values: only our own words, paths and parser positions.

use std::fmt;

use super::text::one_line;

/// A file that could not be read or used.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
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
}

impl InputError {
    /// Builds an input error. Both parts go through [`one_line`]: field paths and parser
    /// messages can carry keys from the file, which may hold line breaks.
    pub(crate) fn input(path: impl fmt::Display, problem: impl Into<String>) -> Self {
        InputError::Input {
            path: one_line(&path.to_string()).into_owned(),
            problem: one_line(&problem.into()).into_owned(),
        }
    }
}

/// A serde message without the value it quotes: `invalid type: string "hunter2",
/// expected a boolean` becomes `invalid type: string, expected a boolean`, so a wrongly
/// typed field cannot put a plan value (perhaps a secret) into a log.
pub(crate) fn without_quoted_value(message: &str) -> String {
    for prefix in ["invalid type: ", "invalid value: "] {
        if let Some((unexpected, expected)) = message
            .strip_prefix(prefix)
            .and_then(|rest| rest.rsplit_once(", expected "))
        {
            // The kind is the words before the quoted value: `string`, `floating point`.
            let kind: Vec<&str> = unexpected
                .split(' ')
                .take_while(|w| !w.starts_with(['"', '`']))
                .collect();
            return format!("{prefix}{}, expected {expected}", kind.join(" "));
        }
    }
    if message.starts_with("unknown variant `") {
        if let Some((_, expected)) = message.rsplit_once(", expected ") {
            return format!("unknown variant, expected {expected}");
        }
    }
    message.to_string()
}

/// Result with the input stage's error.
pub type Result<T, E = InputError> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_errors_stay_on_one_line() {
        let err = InputError::input("p\n.json", "field `a.\n` bad");
        assert_eq!(err.to_string(), "p\\n.json: field `a.\\n` bad");
    }

    #[test]
    fn serde_messages_lose_the_values_they_quote() {
        for (message, want) in [
            (
                "invalid type: string \"hunter2, expected x\", expected a boolean at line 1 column 5",
                "invalid type: string, expected a boolean at line 1 column 5",
            ),
            (
                "invalid type: floating point `1.5`, expected u64",
                "invalid type: floating point, expected u64",
            ),
            (
                "invalid value: integer `-1`, expected u8",
                "invalid value: integer, expected u8",
            ),
            (
                "unknown variant `secret`, expected `a` or `b`",
                "unknown variant, expected `a` or `b`",
            ),
            ("missing field `address`", "missing field `address`"),
        ] {
            assert_eq!(without_quoted_value(message), want);
        }
    }
}
