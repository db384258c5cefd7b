//! Render stage: [`crate::diff::PlanDiff`] → text. Renderers do no I/O and never see
//! the plan model, only diff trees.

pub mod text;
