//! The catalogue of broken inputs, one test each, run through the real binary with
//! `render` (the comment) and `render --format text`: every one exits 2 with exactly one
//! stderr line `planmark: error: PATH: PROBLEM` and never a panic, backtrace or signal.
//! Also the inputs at the edge of acceptance (BOM, old versions, huge numbers) that must
//! render, and the size limit (a sparse 2 GiB file costs no disk).

use crate::support::bin;

use bin::*;

mod encodings;
mod files;
mod not_a_plan;
mod numbers_and_depth;
mod versions_and_types;

const BASIC_LIST: &str = "tests/fixtures/equivalence/basic_list";

fn nested_objects(depth: usize) -> String {
    let mut s = String::with_capacity(depth * 6 + 1);
    for _ in 0..depth {
        s.push_str(r#"{"a":"#);
    }
    s.push('1');
    s.extend(std::iter::repeat_n('}', depth));
    s
}

// ---------------------------------------------------------------------------
// Unreadable files and the size limit
// ---------------------------------------------------------------------------
