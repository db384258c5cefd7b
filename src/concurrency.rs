//! Runtime support (no pipeline stage): the one place planmark runs work on several
//! threads. The stages stay plain functions of their input; a caller that has much
//! independent work (every resource change of a huge plan) hands it here in parts.
//!
//! Contract: [`map_ordered`] gives each part's result to its caller in the parts' order,
//! on the calling thread, the first error in that order ending it; no more than a few
//! parts per worker are made ahead, so memory stays bounded however many parts there
//! are. [`beside`] runs two closures at once. Why and how it pays: docs/performance.md.

use std::sync::mpsc;

/// Items per part for work given item by item (a resource change's diff): enough that a
/// part costs far more than passing it between threads, few enough that the parts of a
/// 10,000-change plan keep every core busy.
pub(crate) const PART: usize = 256;

/// Parts each worker makes ahead of the caller's visit.
const AHEAD: usize = 2;

/// Workers at most (one per core the process may use, up to this many).
const MAX_WORKERS: usize = 8;

/// Calls `visit` on what `make` makes of each of `parts`, in order, while worker threads
/// (one per core) make the parts after it. Fewer than two parts, or one core, and
/// everything runs on the calling thread.
pub(crate) fn map_ordered<P, T, E>(
    parts: &[P],
    make: impl Fn(&P) -> Result<T, E> + Sync,
    mut visit: impl FnMut(T) -> Result<(), E>,
) -> Result<(), E>
where
    P: Sync,
    T: Send,
    E: Send,
{
    let workers = match parts.len() {
        0 | 1 => 1,
        n => std::thread::available_parallelism().map_or(1, |c| c.get().min(MAX_WORKERS).min(n)),
    };
    if workers < 2 {
        return parts.iter().try_for_each(|part| visit(make(part)?));
    }
    let make = &make;
    std::thread::scope(|scope| {
        // Worker `w` makes parts w, w + workers, … in order, into its own queue.
        let queues: Vec<_> = (0..workers)
            .map(|w| {
                let (send, made) = mpsc::sync_channel(AHEAD);
                let worker = std::thread::Builder::new().spawn_scoped(scope, move || {
                    for part in parts.iter().skip(w).step_by(workers) {
                        let result = make(part);
                        let failed = result.is_err();
                        // The caller has stopped listening once its visit ended.
                        if send.send(result).is_err() || failed {
                            break;
                        }
                    }
                });
                worker.ok().map(|_| made)
            })
            .collect();
        for (k, part) in parts.iter().enumerate() {
            // A worker the system would not start leaves its parts to this thread; one
            // that panicked ends here too (the scope then reports its panic).
            let made = queues[k % workers]
                .as_ref()
                .and_then(|made| made.recv().ok());
            visit(match made {
                Some(result) => result?,
                None => make(part)?,
            })?;
        }
        Ok(())
    })
}

/// Runs `other` on another thread while `here` runs on this one; both results.
pub(crate) fn beside<A: Send, B>(
    other: impl FnOnce() -> A + Send,
    here: impl FnOnce() -> B,
) -> (A, B) {
    std::thread::scope(|scope| {
        let other = scope.spawn(other);
        let b = here();
        let a = other
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (a, b)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_order_and_the_first_error_ends_it() {
        let parts: Vec<usize> = (0..100).collect();
        let double = |&p: &usize| -> Result<usize, usize> { Ok(p * 2) };
        let mut seen = Vec::new();
        let done = map_ordered(&parts, double, |v| {
            seen.push(v / 2);
            Ok(())
        });
        assert_eq!((done, seen), (Ok(()), parts.clone()));
        // An error in a part, or in the visit: the first in order.
        let failing = |&p: &usize| if p >= 37 { Err(p) } else { Ok(p) };
        let mut visits = 0;
        let err = map_ordered(&parts, failing, |_| {
            visits += 1;
            Ok(())
        });
        assert_eq!((err, visits), (Err(37), 37));
        let err = map_ordered(&parts, double, |v| if v == 10 { Err(5) } else { Ok(()) });
        assert_eq!(err, Err(5));
    }

    #[test]
    fn beside_returns_both() {
        let data = [1, 2, 3];
        let (sum, len) = beside(|| data.iter().sum::<i32>(), || data.len());
        assert_eq!((sum, len), (6, 3));
    }
}
