//! Input stage: what planmark reads (plans, provider schemas, Terraform's logs) and the
//! errors and hostile-text rules every later stage shares.

pub(crate) mod config;
pub(crate) mod encoding;
pub mod error;
pub mod hash;
pub(crate) mod json;
pub mod log;
pub mod plan;
pub mod schema;
pub mod text;
