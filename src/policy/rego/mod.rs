//! Policy stage: the team's own Rego rules (`--policy`) evaluated over the plan JSON with
//! conftest's conventions → a [`PolicyReport`] per plan.

mod report;

pub use report::{Finding, Level, PolicyReport};
