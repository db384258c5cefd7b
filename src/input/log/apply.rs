//! Input stage, apply logs: what `terraform apply` printed (the `-json` stream or plain
//! text) → an [`ApplyLog`], for `--applied LOG`: the outcome, each resource's status, the
//! diagnostics (read as a plan log's are, [`super::parse_log`]), the outputs after the
//! apply, the change summary and when the apply ended.
//!
//! Contract: bytes in, an [`ApplyLog`] or an [`ApplyLogError`] out, no I/O. A sensitive
//! output's value is dropped here and never stored (the JSON stream's `outputs` message
//! carries it in clear). A file that holds no apply (empty, binary, a plan's JSON, a plan
//! log) is an error, never an empty success. Nothing is escaped: every string is hostile.

use std::collections::HashMap;

use super::{
    apply_json, apply_text, log_text, read_json_stream, LogError, LogFormat, PlanLog, Severity,
};
use crate::input::plan::ResourceAction;

/// Why a file cannot be read as an apply log.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ApplyLogError {
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

/// What is done to a resource, in the words of Terraform's JSON stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// Created.
    Create,
    /// A data source read.
    Read,
    /// Updated in place.
    Update,
    /// Destroyed and created again (either order).
    Replace,
    /// Destroyed.
    Delete,
    /// Moved to a new address only.
    Move,
    /// Imported.
    Import,
    /// Removed from the state, not destroyed.
    Forget,
    /// A word this version does not know.
    Unknown,
}

impl Action {
    /// The stream's word (`create`, `replace`, …).
    pub fn parse(word: &str) -> Action {
        match word {
            "create" => Action::Create,
            "read" => Action::Read,
            "update" => Action::Update,
            "replace" => Action::Replace,
            "delete" => Action::Delete,
            "move" => Action::Move,
            "import" => Action::Import,
            "remove" | "forget" => Action::Forget,
            _ => Action::Unknown,
        }
    }

    /// A planned change's action (`None` for one that changes nothing).
    pub fn planned(action: ResourceAction, importing: bool, moved: bool) -> Option<Action> {
        Some(match action {
            ResourceAction::Create => Action::Create,
            ResourceAction::Read => Action::Read,
            ResourceAction::Update => Action::Update,
            a if a.is_replace() => Action::Replace,
            ResourceAction::Delete => Action::Delete,
            ResourceAction::Forget => Action::Forget,
            ResourceAction::NoOp if importing => Action::Import,
            ResourceAction::NoOp if moved => Action::Move,
            ResourceAction::NoOp | ResourceAction::Open => return None,
            _ => Action::Unknown,
        })
    }
}

/// What became of one resource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// Done: every action it started completed (or the apply completed).
    Applied,
    /// An action errored, or an error names it.
    Failed,
    /// Started and not finished, or half of a replacement done, when the apply stopped.
    Incomplete,
    /// Planned, never started: the apply stopped first.
    NotReached,
}

/// One resource of the apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceApply {
    /// Its address.
    pub address: String,
    /// The planned action (the stream's `planned_change`, or the reviewed plan).
    pub planned: Option<Action>,
    /// Actions started, completed and errored, in log order (a replacement is a delete and
    /// a create).
    pub started: Vec<Action>,
    /// See `started`.
    pub completed: Vec<Action>,
    /// See `started`.
    pub errored: Vec<Action>,
    /// The first error diagnostic naming it (an index into the log's diagnostics).
    pub error: Option<usize>,
    /// What became of it.
    pub status: Status,
}

impl ResourceApply {
    /// The action shown: the planned one, else what the log saw done.
    pub fn action(&self) -> Action {
        if let Some(planned) = self.planned {
            return planned;
        }
        let seen = |a| {
            [&self.started, &self.completed, &self.errored]
                .iter()
                .any(|list| list.contains(&a))
        };
        match (seen(Action::Create), seen(Action::Delete)) {
            (true, true) => Action::Replace,
            _ => self
                .started
                .iter()
                .chain(&self.completed)
                .chain(&self.errored)
                .next()
                .copied()
                .unwrap_or(Action::Unknown),
        }
    }
}

/// Resources counted by what was done to them (a replacement adds one and destroys one,
/// as Terraform counts).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    /// Created.
    pub add: usize,
    /// Updated in place.
    pub change: usize,
    /// Destroyed.
    pub destroy: usize,
    /// Imported.
    pub import: usize,
}

/// An output after the apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AppliedOutput {
    /// Its name.
    pub name: String,
    /// Declared sensitive: its value is not kept.
    pub sensitive: bool,
    /// The value as the log gives it (JSON for the stream, Terraform's text otherwise);
    /// always `None` for a sensitive output.
    pub value: Option<String>,
}

/// What an apply log says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyLog {
    /// The format, the diagnostics and the Terraform version, as a plan log's.
    pub log: PlanLog,
    /// Each resource in the order the log first names it.
    pub resources: Vec<ResourceApply>,
    /// Terraform's own change summary (`Apply complete! Resources: …`); `None` when the
    /// apply did not complete.
    pub summary: Option<Counts>,
    /// What the completion messages say was done (all a failed apply tells).
    pub done: Counts,
    /// Terraform said the apply completed (`Apply complete!` or `Destroy complete!`).
    pub finished: bool,
    /// The outputs after the apply, by name; `None` when the log has none (a failed apply,
    /// a text log without `Outputs:`).
    pub outputs: Option<Vec<AppliedOutput>>,
    /// The last message's `@timestamp` (JSON stream only), RFC 3339.
    pub timestamp: Option<String>,
}

impl ApplyLog {
    /// The apply failed: an error, a resource that failed, or no `Apply complete!`.
    pub fn failed(&self) -> bool {
        !self.finished
            || self.log.count(Severity::Error) > 0
            || self.resources.iter().any(|r| r.status == Status::Failed)
    }

    /// Adds a change of the reviewed plan: a resource the log never names was not reached
    /// (or, when the apply completed, done without a message: a move, a removal).
    pub fn add_planned(&mut self, address: &str, action: Action) {
        match self.resources.iter_mut().find(|r| r.address == address) {
            Some(r) => {
                r.planned.get_or_insert(action);
            }
            None => self.resources.push(new_resource(address, Some(action))),
        }
        self.settle();
    }

    /// Each resource's status from what the log says.
    fn settle(&mut self) {
        let finished = self.finished;
        for r in &mut self.resources {
            let half_replaced = r.action() == Action::Replace
                && !(r.completed.contains(&Action::Create)
                    && r.completed.contains(&Action::Delete));
            r.status = if !r.errored.is_empty() || r.error.is_some() {
                Status::Failed
            } else if finished {
                Status::Applied
            } else if r.started.is_empty() && r.completed.is_empty() {
                Status::NotReached
            } else if r.completed.len() < r.started.len() || half_replaced {
                Status::Incomplete
            } else {
                Status::Applied
            };
        }
    }
}

fn new_resource(address: &str, planned: Option<Action>) -> ResourceApply {
    ResourceApply {
        address: address.to_string(),
        planned,
        started: Vec::new(),
        completed: Vec::new(),
        errored: Vec::new(),
        error: None,
        status: Status::NotReached,
    }
}

/// A hook message's stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Hook {
    Start,
    Complete,
    Errored,
}

/// What the two readers (stream and text) record as they go.
#[derive(Default)]
pub(super) struct Recorder {
    resources: Vec<ResourceApply>,
    index: HashMap<String, usize>,
    pub summary: Option<Counts>,
    pub finished: bool,
    /// A plan's change summary (`Plan: …`, operation `plan`): a plan log.
    pub planned_only: bool,
    pub outputs: Option<Vec<AppliedOutput>>,
    pub timestamp: Option<String>,
    /// Any message of an apply (hooks, summary, outputs).
    pub applying: bool,
}

impl Recorder {
    fn resource(&mut self, address: &str) -> &mut ResourceApply {
        let i = *self.index.entry(address.to_string()).or_insert_with(|| {
            self.resources.push(new_resource(address, None));
            self.resources.len() - 1
        });
        &mut self.resources[i]
    }

    pub fn planned(&mut self, address: &str, action: Action) {
        self.resource(address).planned.get_or_insert(action);
    }

    pub fn hook(&mut self, address: &str, hook: Hook, action: Action) {
        self.applying = true;
        let r = self.resource(address);
        match hook {
            Hook::Start => r.started.push(action),
            Hook::Complete => r.completed.push(action),
            Hook::Errored => r.errored.push(action),
        }
    }

    /// The log read: refused when it holds no apply.
    fn finish(mut self, log: PlanLog) -> Result<ApplyLog, ApplyLogError> {
        let errors = log.count(Severity::Error);
        if !self.applying && (errors == 0 || self.planned_only) {
            return Err(ApplyLogError::NoApply(match self.planned_only {
                true => "it is the log of a plan",
                false => "no resource was started and Terraform reported no error",
            }));
        }
        for (i, d) in log.diagnostics.iter().enumerate() {
            if let (Severity::Error, Some(address)) = (d.severity, &d.address) {
                let r = self.resource(address);
                r.error.get_or_insert(i);
            }
        }
        let mut done = Counts::default();
        for action in self.resources.iter().flat_map(|r| &r.completed) {
            match action {
                Action::Create => done.add += 1,
                Action::Update => done.change += 1,
                Action::Delete => done.destroy += 1,
                Action::Import => done.import += 1,
                _ => {}
            }
        }
        let mut apply = ApplyLog {
            log,
            resources: self.resources,
            summary: self.summary,
            done,
            finished: self.finished,
            outputs: self.outputs,
            timestamp: self.timestamp,
        };
        // A text log has no tail to show: its facts are what was read from it.
        apply.log.tail.clear();
        apply.settle();
        Ok(apply)
    }
}

/// Reads an apply log in either format.
pub fn parse_apply_log(bytes: &[u8]) -> Result<ApplyLog, ApplyLogError> {
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
        apply_json::message(&mut recorder, kind, message);
    })?;
    match stream {
        Some(log) => recorder.finish(log),
        None => {
            let lines = super::text_lines(text);
            let mut log = super::parse_text_lines(&lines);
            debug_assert_eq!(log.format, LogFormat::Text);
            apply_text::read(&lines, &mut log, &mut recorder);
            recorder.finish(log)
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
            log.add_planned("null_resource.notify", Action::Create);
            log.add_planned("null_resource.app", Action::Replace);
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
