//! Input stage, apply logs, the model: what an apply log says ([`ApplyLog`]: each
//! resource's actions and status, the summary, the outputs) and the [`Recorder`] that the
//! JSON stream's reader and the text reader fill as they go.
//!
//! Contract: a status follows from the messages alone (and the reviewed plan's changes,
//! [`ApplyLog::add_planned`]); no value of a sensitive output is ever held.

use std::collections::HashMap;

use super::super::{PlanLog, Severity};
use crate::input::plan::ResourceAction;

/// What is done to a resource, in the words of Terraform's JSON stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Action {
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
    pub(crate) fn parse(word: &str) -> Action {
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
    pub(crate) fn planned(action: ResourceAction, importing: bool, moved: bool) -> Option<Action> {
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
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) enum Status {
    /// Done: every action it started completed (or the apply completed).
    Applied,
    /// An action errored, or an error names it.
    Failed,
    /// Started and not finished, or half of a replacement done, when the apply stopped.
    Incomplete,
    /// Planned, never started: the apply stopped first.
    #[default]
    NotReached,
}

/// One resource of the apply.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct ResourceApply {
    /// Its address.
    pub(crate) address: String,
    /// The planned action (the stream's `planned_change`, or the reviewed plan).
    pub(crate) planned: Option<Action>,
    /// Actions started, completed and errored, in log order (a replacement is a delete and
    /// a create).
    pub(crate) started: Vec<Action>,
    /// See `started`.
    pub(crate) completed: Vec<Action>,
    /// See `started`.
    pub(crate) errored: Vec<Action>,
    /// The first error diagnostic naming it (an index into the log's diagnostics).
    pub(crate) error: Option<usize>,
    /// What became of it.
    pub(crate) status: Status,
}

impl ResourceApply {
    /// The action shown: the planned one, else what the log saw done.
    pub(crate) fn action(&self) -> Action {
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
pub(crate) struct Counts {
    /// Created.
    pub(crate) add: usize,
    /// Updated in place.
    pub(crate) change: usize,
    /// Destroyed.
    pub(crate) destroy: usize,
    /// Imported.
    pub(crate) import: usize,
}

/// An output after the apply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct AppliedOutput {
    /// Its name.
    pub(crate) name: String,
    /// Declared sensitive: its value is not kept.
    pub(crate) sensitive: bool,
    /// The value as the log gives it (JSON for the stream, Terraform's text otherwise);
    /// always `None` for a sensitive output.
    pub(crate) value: Option<String>,
}

/// What an apply log says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyLog {
    /// The format, the diagnostics and the Terraform version, as a plan log's.
    pub(crate) log: PlanLog,
    /// Each resource in the order the log first names it.
    pub(crate) resources: Vec<ResourceApply>,
    /// Terraform's own change summary (`Apply complete! Resources: …`); `None` when the
    /// apply did not complete.
    pub(crate) summary: Option<Counts>,
    /// What the completion messages say was done (all a failed apply tells).
    pub(crate) done: Counts,
    /// Terraform said the apply completed (`Apply complete!` or `Destroy complete!`).
    pub(crate) finished: bool,
    /// The outputs after the apply, by name; `None` when the log has none (a failed apply,
    /// a text log without `Outputs:`).
    pub(crate) outputs: Option<Vec<AppliedOutput>>,
    /// The last message's `@timestamp` (JSON stream only), RFC 3339.
    pub(crate) timestamp: Option<String>,
}

impl ApplyLog {
    /// The apply failed: an error, a resource that failed, or no `Apply complete!`.
    pub(crate) fn failed(&self) -> bool {
        !self.finished
            || self.log.count(Severity::Error) > 0
            || self.resources.iter().any(|r| r.status == Status::Failed)
    }

    /// The log ends before the apply completed, with no error and no resource failed: the
    /// job was cancelled or timed out (a failed apply that did not fail by itself).
    pub(crate) fn stopped(&self) -> bool {
        !self.finished
            && self.log.count(Severity::Error) == 0
            && self.resources.iter().all(|r| r.status != Status::Failed)
    }

    /// Adds the changes of the reviewed plan: a resource the log never names was not
    /// reached (or, when the apply completed, done without a message: a move, a removal).
    pub(crate) fn add_planned<'a>(&mut self, planned: impl IntoIterator<Item = (&'a str, Action)>) {
        let mut index: HashMap<String, usize> = self
            .resources
            .iter()
            .enumerate()
            .map(|(i, r)| (r.address.clone(), i))
            .collect();
        for (address, action) in planned {
            match index.get(address) {
                Some(&i) => {
                    self.resources[i].planned.get_or_insert(action);
                }
                None => {
                    index.insert(address.to_string(), self.resources.len());
                    self.resources.push(ResourceApply {
                        address: address.to_string(),
                        planned: Some(action),
                        ..ResourceApply::default()
                    });
                }
            }
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

/// A hook message's stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::input::log) enum Hook {
    Start,
    Complete,
    Errored,
}

/// What the two readers (stream and text) record as they go.
#[derive(Default)]
pub(in crate::input::log) struct Recorder {
    resources: Vec<ResourceApply>,
    index: HashMap<String, usize>,
    pub(crate) summary: Option<Counts>,
    pub(crate) finished: bool,
    /// A plan's change summary (`Plan: …`, operation `plan`): a plan log.
    pub(crate) planned_only: bool,
    pub(crate) outputs: Option<Vec<AppliedOutput>>,
    pub(crate) timestamp: Option<String>,
    /// Any message of an apply (hooks, summary, outputs).
    pub(crate) applying: bool,
}

impl Recorder {
    fn resource(&mut self, address: &str) -> &mut ResourceApply {
        let i = *self.index.entry(address.to_string()).or_insert_with(|| {
            self.resources.push(ResourceApply {
                address: address.to_string(),
                ..ResourceApply::default()
            });
            self.resources.len() - 1
        });
        &mut self.resources[i]
    }

    pub(crate) fn planned(&mut self, address: &str, action: Action) {
        self.resource(address).planned.get_or_insert(action);
    }

    pub(crate) fn hook(&mut self, address: &str, hook: Hook, action: Action) {
        self.applying = true;
        let r = self.resource(address);
        match hook {
            Hook::Start => r.started.push(action),
            Hook::Complete => r.completed.push(action),
            Hook::Errored => r.errored.push(action),
        }
    }

    /// The log read: refused when it holds no apply.
    pub(crate) fn finish(mut self, log: PlanLog) -> Result<ApplyLog, &'static str> {
        let errors = log.count(Severity::Error);
        if !self.applying && (errors == 0 || self.planned_only) {
            return Err(match self.planned_only {
                true => "it is the log of a plan",
                false => "no resource was started and Terraform reported no error",
            });
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
