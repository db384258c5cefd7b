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
/// Exit code for a plan that breaks a policy gate (`--fail-on`, `--max-destroy`,
/// `--protect`); the comment was still written.
pub const EXIT_POLICY: i32 = 3;

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
    /// Builds an input error. Both parts go through [`one_line`]: field paths and parser
    /// messages can carry keys from the file, which may hold line breaks.
    pub fn input(path: impl fmt::Display, problem: impl Into<String>) -> Self {
        Error::Input {
            path: one_line(&path.to_string()).into_owned(),
            problem: one_line(&problem.into()).into_owned(),
        }
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Read { .. }
            | Error::Input { .. }
            | Error::Template { .. }
            | Error::Unreadable(_) => EXIT_BAD_INPUT,
            Error::Publish(e) if e.is_usage() => EXIT_BAD_INPUT,
            Error::Publish(_) | Error::Write(_) => EXIT_FAILURE,
            Error::Policy(_) => EXIT_POLICY,
        }
    }
}

/// `text` on one line, safe to print to a terminal or a CI log: control characters
/// (line breaks, escape sequences), line separators and invisible or bidirectional
/// characters become `\n`, `\r`, `\t` or `\u{XXXX}`.
///
/// A line break from a hostile plan key would otherwise start a new line in the GitHub
/// Actions log, where `::command::` lines are workflow commands.
pub fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    use std::fmt::Write;
    let unsafe_char = |c: char| {
        c.is_control()
            || matches!(c, '\u{2028}' | '\u{2029}')
            || crate::render::markdown::escape::is_invisible(c)
    };
    if !text.contains(unsafe_char) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if unsafe_char(c) => {
                let _ = write!(out, "\\u{{{:04X}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.into()
}

/// A serde message without the value it quotes: `invalid type: string "hunter2",
/// expected a boolean` becomes `invalid type: string, expected a boolean`, so a wrongly
/// typed field cannot put a plan value (perhaps a secret) into a log.
pub fn without_quoted_value(message: &str) -> String {
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

/// Result with the library's error.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_escapes_breaks_controls_and_invisibles() {
        assert_eq!(one_line("plain `x` é"), "plain `x` é");
        assert_eq!(
            one_line("a\n::warning::b\r\t\u{1b}[31m\u{202e}\u{2028}"),
            "a\\n::warning::b\\r\\t\\u{001B}[31m\\u{202E}\\u{2028}"
        );
        let err = Error::input("p\n.json", "field `a.\n` bad");
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
