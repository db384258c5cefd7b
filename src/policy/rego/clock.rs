//! Policy stage, the clock regorus's execution timer reads (`--policy-timeout`): regorus
//! is built without its `std` feature (see docs/performance.md and Cargo.toml), so it asks
//! the embedder for monotonic time; this gives it `std::time::Instant`'s.
//!
//! Contract: installed once per process, before the first policy is compiled.

use std::sync::{Once, OnceLock};
use std::time::{Duration, Instant};

use regorus::utils::limits::{set_time_source, TimeSource};

struct Monotonic;

impl TimeSource for Monotonic {
    fn now(&self) -> Option<Duration> {
        static START: OnceLock<Instant> = OnceLock::new();
        Some(START.get_or_init(Instant::now).elapsed())
    }
}

static MONOTONIC: Monotonic = Monotonic;

/// Gives regorus the clock (once; later calls do nothing).
pub(super) fn install() {
    static INSTALLED: Once = Once::new();
    INSTALLED.call_once(|| {
        // Only fails when a clock is already set, which is then as good as ours.
        let _ = set_time_source(&MONOTONIC);
    });
}
