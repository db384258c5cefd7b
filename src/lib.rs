//! planmark turns a Terraform (or OpenTofu) plan into the text and pull-request comment
//! reviewers want to read.
//!
//! The pipeline runs one way, one module per stage:
//!
//! 1. [`input`]: what planmark reads. [`input::plan`] + [`input::schema`] +
//!    `input::json`: the plan model, `terraform show -json` and
//!    `terraform providers schema -json` parsed into typed structs (values stay raw until
//!    needed); [`input::log`] reads Terraform's own `terraform plan` output (errors and
//!    warnings); `input::encoding` turns the UTF-16 files Windows tools write into UTF-8;
//! 2. [`differ`]: values → [`diff::Diff`] trees, exactly as Terraform's renderer computes
//!    them (pure, no formatting);
//!    [`policy`] checks the diff trees against the policy gates;
//! 3. [`render`]: diff trees → text identical to `terraform show`, the pull-request comment
//!    (Markdown through Handlebars templates, within GitHub's size limit) and an HTML
//!    preview;
//! 4. `publish`: the rendered comment → the pull request, through the GitHub API (the
//!    only async stage);
//! 5. [`pipeline`]: the one way from files to output that both commands take: load (read,
//!    parse, diff the heads) → render → fit to size;
//! 6. `cli`/`main`: flags and the Actions environment turned into the pipeline's options,
//!    the publisher called, exit codes.
//!
//! `concurrency` is runtime support, the one place work runs on several threads: a
//! stage hands it independent parts (every resource change of a huge plan) and gets the
//! results back in order.

#![warn(unreachable_pub)]
#![warn(missing_docs)]

pub mod cli;
pub(crate) mod concurrency;
pub mod diff;
pub mod differ;
pub mod input;
pub mod marker;
pub mod pipeline;
pub mod policy;
pub(crate) mod publish;
pub mod render;
