//! Input stage, apply logs: what `terraform apply` printed (the `-json` stream or plain
//! text) → an [`ApplyLog`], for `--applied LOG`: the outcome, each resource's status, the
//! diagnostics (read as a plan log's are, [`super::parse_log`]), the outputs after the
//! apply, the change summary and when the apply ended.
//!
//! Contract: bytes in, an [`ApplyLog`] or an [`ApplyLogError`] out, no I/O. A sensitive
//! output's value is dropped here and never stored (the JSON stream's `outputs` message
//! carries it in clear). A file that holds no apply (empty, binary, a plan's JSON, a plan
//! log) is an error, never an empty success. Nothing is escaped: every string is hostile.

mod json;
mod model;
mod text;

pub(crate) use model::{Action, ApplyLog, Counts, ResourceApply, Status};

use super::{log_text, parse_text_lines, read_json_stream, text_lines, LogError, LogFormat};
use model::Recorder;

/// Why a file cannot be read as an apply log.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub(crate) enum ApplyLogError {
    /// NUL bytes: a plan file or an archive.
    #[error("is a binary file, not Terraform output; pass what terraform apply printed (terraform apply -json tfplan > apply.log, or its plain text)")]
    Binary,
    /// Not UTF-8.
    #[error("is not UTF-8 text; pass what terraform apply printed (terraform apply -json tfplan > apply.log)")]
    NotText,
    /// Nothing but blank lines.
    #[error("is empty; pass what terraform apply printed (terraform apply -json tfplan > apply.log), not the file it was redirected to before it ran")]
    Empty,
    /// A plan's JSON (`terraform show -json`), given where the log goes.
    #[error("is a plan (terraform show -json), not an apply log; pass what terraform apply printed as --applied LOG, and the plan as PLAN")]
    PlanJson,
    /// Terraform's output, but of no apply: a plan's log, or something else.
    #[error("has no apply messages ({0}); pass what terraform apply printed (terraform apply -json tfplan > apply.log, or its plain text)")]
    NoApply(&'static str),
    /// A `diagnostic` message that does not have the documented shape.
    #[error("line {line}: a diagnostic message that cannot be read ({problem}); pass the unmodified output of terraform apply -json")]
    Diagnostic {
        /// 1-based line number.
        line: usize,
        /// What is wrong (never the line's content).
        problem: String,
    },
}

impl From<LogError> for ApplyLogError {
    fn from(e: LogError) -> Self {
        match e {
            LogError::Binary => ApplyLogError::Binary,
            LogError::NotText => ApplyLogError::NotText,
            LogError::Diagnostic { line, problem } => ApplyLogError::Diagnostic { line, problem },
        }
    }
}

/// Reads an apply log in either format.
pub(crate) fn parse_apply_log(bytes: &[u8]) -> Result<ApplyLog, ApplyLogError> {
    let text = log_text(bytes)?;
    let start = text.trim_start();
    if start.is_empty() {
        return Err(ApplyLogError::Empty);
    }
    if is_plan_json(start) {
        return Err(ApplyLogError::PlanJson);
    }
    let mut recorder = Recorder::default();
    let stream = read_json_stream(text, |_, kind, message| {
        json::message(&mut recorder, kind, message);
    })?;
    match stream {
        Some(log) => recorder.finish(log).map_err(ApplyLogError::NoApply),
        None => {
            let lines = text_lines(text);
            let mut log = parse_text_lines(&lines);
            debug_assert_eq!(log.format, LogFormat::Text);
            text::read(&lines, &mut log, &mut recorder);
            recorder.finish(log).map_err(ApplyLogError::NoApply)
        }
    }
}

/// `terraform show -json` output: one object with `format_version` near its start.
fn is_plan_json(text: &str) -> bool {
    let head: String = text.chars().take(4096).collect();
    text.starts_with('{') && head.contains("\"format_version\"") && !head.contains("\"@level\"")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::log::Severity;

    fn fixture(scenario: &str, file: &str) -> Vec<u8> {
        let path = format!(
            "{}/tests/fixtures/apply/{scenario}/{file}",
            env!("CARGO_MANIFEST_DIR")
        );
        std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
    }

    fn statuses(log: &ApplyLog) -> Vec<(&str, Action, Status)> {
        let mut all: Vec<_> = log
            .resources
            .iter()
            .map(|r| (r.address.as_str(), r.action(), r.status))
            .collect();
        all.sort_by_key(|(a, _, _)| *a);
        all
    }

    #[test]
    fn a_part_way_failure_says_what_changed_in_both_formats() {
        for file in ["apply.jsonl", "apply.txt"] {
            let mut log = parse_apply_log(&fixture("apply-fails-part-way", file)).unwrap();
            assert!(
                log.failed() && !log.finished && log.summary.is_none(),
                "{file}"
            );
            assert_eq!(
                log.done,
                Counts {
                    add: 2,
                    change: 0,
                    destroy: 2,
                    import: 0
                },
                "{file}"
            );
            // The text log does not name what was planned: the reviewed plan does.
            log.add_planned([
                ("null_resource.notify", Action::Create),
                ("null_resource.app", Action::Replace),
            ]);
            let s = statuses(&log);
            assert!(s.contains(&("null_resource.migrate", Action::Create, Status::Failed)));
            assert!(s.contains(&("null_resource.notify", Action::Create, Status::NotReached)));
            assert!(s.contains(&("null_resource.app", Action::Replace, Status::Applied)));
            assert!(s.contains(&("null_resource.old_queue", Action::Delete, Status::Applied)));
            let migrate = log
                .resources
                .iter()
                .find(|r| r.address == "null_resource.migrate")
                .unwrap();
            let error = &log.log.diagnostics[migrate.error.unwrap()];
            assert_eq!(error.summary, "local-exec provisioner error", "{file}");
            assert_eq!(log.outputs, None);
        }
    }

    #[test]
    fn a_success_keeps_the_summary_and_drops_sensitive_values() {
        for file in ["apply.jsonl", "apply.txt"] {
            let bytes = fixture("apply-succeeds", file);
            let log = parse_apply_log(&bytes).unwrap();
            assert!(!log.failed() && log.finished, "{file}");
            let summary = log.summary.unwrap();
            assert_eq!((summary.add, summary.change, summary.destroy), (3, 0, 2));
            let outputs = log.outputs.as_ref().unwrap();
            let token = outputs.iter().find(|o| o.name == "api_token").unwrap();
            assert!(token.sensitive && token.value.is_none(), "{file}");
            assert!(!format!("{log:?}").contains("tok-SECRET-4242"), "{file}");
            let endpoint = outputs.iter().find(|o| o.name == "endpoint").unwrap();
            assert_eq!(
                endpoint.value.as_deref(),
                Some("\"https://v2.example.com\"")
            );
            assert!(statuses(&log).iter().all(|(_, _, s)| *s == Status::Applied));
            let db = statuses(&log)
                .into_iter()
                .find(|(a, _, _)| *a == "null_resource.db")
                .unwrap();
            assert_eq!(db.1, Action::Replace, "{file}");
        }
        let json = parse_apply_log(&fixture("apply-succeeds", "apply.jsonl")).unwrap();
        assert_eq!(
            json.timestamp.as_deref(),
            Some("2026-11-26T14:39:05.917345Z")
        );
    }

    #[test]
    fn warnings_are_read_as_diagnostics() {
        for file in ["apply.jsonl", "apply.txt"] {
            let log = parse_apply_log(&fixture("apply-with-warnings", file)).unwrap();
            assert!(!log.failed(), "{file}");
            assert_eq!(log.log.count(Severity::Warning), 2, "{file}");
            assert!(log.log.tail.is_empty());
        }
    }

    #[test]
    fn what_is_not_an_apply_log_is_refused() {
        let plan_log = "{\"@level\":\"info\",\"type\":\"version\"}\n{\"@level\":\"info\",\"type\":\"change_summary\",\"changes\":{\"add\":1,\"change\":0,\"remove\":0,\"operation\":\"plan\"}}\n";
        assert_eq!(
            parse_apply_log(plan_log.as_bytes()),
            Err(ApplyLogError::NoApply("it is the log of a plan"))
        );
        assert_eq!(parse_apply_log(b" \n\n"), Err(ApplyLogError::Empty));
        assert_eq!(parse_apply_log(b"PK\0\x03"), Err(ApplyLogError::Binary));
        assert_eq!(
            parse_apply_log(&fixture("apply-succeeds", "plan.json")),
            Err(ApplyLogError::PlanJson)
        );
        assert!(matches!(
            parse_apply_log(&fixture("apply-succeeds", "plan.txt")),
            Err(ApplyLogError::NoApply(_))
        ));
        // An apply that failed before starting anything is still an apply's outcome.
        let stale = "Error: Saved plan is stale\n\nThe given plan file can no longer be applied.\n";
        let log = parse_apply_log(stale.as_bytes()).unwrap();
        assert!(log.failed() && log.resources.is_empty());
    }
}
