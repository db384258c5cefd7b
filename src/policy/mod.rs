//! Policy stage (after the differ, beside the renderers): what a plan is allowed to do.
//!
//! Two kinds of policy, both pure functions of their input: the built-in gates
//! (`gates`: `--fail-on`, `--max-destroy`, `--protect`) read the diff trees, and the
//! team's own Rego rules ([`rego`]: `--policy`) read the plan JSON as conftest does.
//! Either may fail the job with exit code 3, after the comment is posted.

pub(crate) mod gates;
pub mod rego;

pub use gates::{evaluate, Policy, Rule};
pub(crate) use gates::{Gated, Violation};
