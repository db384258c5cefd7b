//! Policy stage: the team's own Rego rules (`--policy`) evaluated over the plan JSON with
//! conftest's conventions → a [`PolicyReport`] per plan.
//!
//! `Policies::compile` takes the policy and data files as the pipeline read them (no
//! I/O here) and `Policies::evaluate` one plan's JSON text. Rules are found as conftest
//! finds them: `deny`, `violation` (failures) and `warn` (warnings), and their `deny_*`,
//! `violation_*`, `warn_*` forms, in the packages asked for (`main` by default), less those
//! an `exception` rule excepts. Every error is a `RegoError`, one line.

mod builtins;
mod checks;
mod clock;
mod compile;
mod error;
mod eval;
mod input;
mod message;
mod negation;
mod report;

pub(crate) use compile::{DataFile, Policies, Settings, Source};
pub(crate) use error::RegoError;
pub use report::{BuiltinError, Exception, Finding, Level, PolicyReport, Skipped};
