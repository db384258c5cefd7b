//! End-to-end tests of the `planmark` binary: flags and schemas, stdin, help text, several
//! plans, a golden render, write failures. Broken plan inputs have their own catalogue in
//! `tests/suite/broken_input.rs`; the helpers are in `tests/suite/support/bin.rs`.

use crate::support::bin;

use std::process::Stdio;

use bin::*;

mod flags;
mod gates;
mod help;
mod output;
mod stdin;
mod usage;
mod workflow_commands;

const BASIC_LIST: &str = "tests/fixtures/equivalence/basic_list";

// ---------------------------------------------------------------------------
// Flags and schemas
// ---------------------------------------------------------------------------
