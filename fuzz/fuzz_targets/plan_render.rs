//! Fuzz target: arbitrary bytes as a plan → parse → diff → text, comment, HTML, context.
//! `cargo +nightly fuzz run plan_render fuzz/corpus/plan_render fuzz/seeds/plan_render`

#![no_main]

#[path = "../targets.rs"]
mod targets;

libfuzzer_sys::fuzz_target!(|data: &[u8]| targets::plan_render(data));
