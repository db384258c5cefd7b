//! Differ: plan values → [`crate::diff::Diff`] trees. Pure: no I/O, no formatting.
//!
//! Contract: given a resource change's parsed values and (optionally) its provider schema
//! block, the differ returns the diff tree Terraform's own renderer would compute, with
//! sensitive values already removed, and likewise for an output.
//! [`Differ`] does a whole plan in parts (one resource on demand, or a part at a time on
//! every core, in plan order) so that a huge plan need not hold all its trees, and a
//! renderer that shows few of them diffs only those (`Lazy`); [`diff_plan`] is all of it
//! at once. List pairing is near-linear (`differ::sequence`), so huge lists stay cheap.

mod block;
mod canonical;
mod change;
mod collections;
mod drift;
mod gaps;
pub(crate) mod infer;
mod invocations;
mod json;
mod masked;
mod plan;
mod resource;
pub(crate) mod sequence;
mod strings;
mod typed;
mod undescribed;

pub(crate) use canonical::{CanonicalForms, VERSION as CANONICAL_VERSION};
pub use plan::{diff_plan, Differ};
