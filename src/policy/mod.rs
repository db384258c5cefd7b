//! Policy stage (after the differ, beside the renderers): what a plan is allowed to do.
//!
//! Two kinds of policy, both pure functions of their input: the built-in gates
//! ([`gates`]: `--fail-on`, `--max-destroy`, `--protect`) read the diff trees, and the
//! team's own Rego rules ([`rego`]: `--policy`) read the plan JSON as conftest does.
//! Either may fail the job with exit code 3, after the comment is posted.

pub mod gates;
pub mod rego;

pub use gates::{evaluate, glob_match, has_changes, Gated, Policy, Rule, Violation};
