//! Render stage: [`crate::diff::PlanHead`] and its resource changes → text, Markdown
//! (through Handlebars templates) and an HTML preview. Renderers do no I/O and never see the plan model, only diff trees.

pub(crate) mod annotations;
pub mod error;
pub(crate) mod gfm;
pub mod html;
pub mod links;
pub mod markdown;
pub mod text;
