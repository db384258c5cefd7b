//! The integration tests, one crate: the library and the `planmark` binary seen from outside.
//!
//! One module per subject, so the library is linked once for all of them; `support` holds
//! the shared helpers. Run one module with `cargo test --test suite MODULE::`. A module
//! must not change what the whole process shares (environment variables, the working
//! directory, fixed temporary paths): every module runs in this one process, at the same
//! time as the others. Tests marked `#[ignore = "slow tier: …"]` run only in the slow tier
//! (`tests/slow-tier`, which CI runs). See `tests/README.md` for the list and for adding a
//! case.

mod support;

mod action;
mod actions;
mod annotations;
mod applied;
mod architecture;
mod broken_input;
mod budget_fill;
mod change_map;
mod cli;
mod comment_cli;
mod comment_corpus;
mod concurrent_runs;
mod corpus;
mod doc_paths;
mod docs_examples;
mod equivalence;
mod escaping;
mod fake_github_selftest;
mod forged_markers;
mod fuzz_corpus;
mod grouping;
mod hostile_sweep;
mod links;
mod log_comments;
mod markdown;
mod markdown_checks;
mod old_plan_shapes;
mod old_plans;
mod opentofu;
mod policy_builtins;
mod policy_labels;
mod policy_oracle;
mod policy_rego;
mod properties;
mod publish;
mod real_world;
mod rego_comment;
mod rules;
mod sensitive;
mod several_plans;
mod since_last;
mod stale_schemas;
mod streaming;
mod tiers;
mod verify;
mod verify_form;
