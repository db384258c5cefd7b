//! Fuzz target: arbitrary bytes as provider schemas → parse → diff and render a fixed plan.
//! `cargo +nightly fuzz run schema_parse fuzz/corpus/schema_parse fuzz/seeds/schema_parse`

#![no_main]

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::schema_parse(data));
