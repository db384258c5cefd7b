//! Runtime support (no pipeline stage): a worker thread moved to its own core as it starts.
//!
//! Contract: a worker spawned by [`spawn_scoped`] runs on the `nth` allowed core after its
//! spawner's, and may be moved again by the scheduler as usual (its affinity is widened
//! back at once). Anywhere but Linux, or when anything fails, nothing moves.
//!
//! Why: Linux starts a new thread on the core of the thread that spawned it and moves it
//! to an idle core only when it next balances load. On the 2-core CI machines measured
//! (docs/performance.md), two threads each given 4 ms of work finished together in 8.6 ms
//! in the median run, one after the other on one core while the other idled, and in 4.4
//! ms only in a quarter of the runs; the plan's parse helper started up to 3 ms late, and
//! a text worker held back the parts of every other. A thread that asks to be on another
//! core is moved there before the call returns.

/// Spawns `work` on `scope`, moved as it starts to the `nth` allowed core after the calling
/// thread's (`nth` 0: this thread's own, for a worker that takes over from a thread about
/// to wait).
pub(crate) fn spawn_scoped<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    nth: usize,
    work: impl FnOnce() -> T + Send + 'scope,
) -> std::io::Result<std::thread::ScopedJoinHandle<'scope, T>> {
    let spawner = spawner();
    std::thread::Builder::new().spawn_scoped(scope, move || {
        spawner.settle(nth);
        work()
    })
}

/// Where workers are spawned from: the core the spawning thread runs on.
#[derive(Debug, Clone, Copy)]
struct Spawner {
    #[cfg_attr(not(target_os = "linux"), allow(dead_code))]
    core: Option<usize>,
}

/// The core this thread runs on, for the workers it is about to spawn.
fn spawner() -> Spawner {
    #[cfg(target_os = "linux")]
    let core = nix::sched::sched_getcpu().ok();
    #[cfg(not(target_os = "linux"))]
    let core = None;
    Spawner { core }
}

impl Spawner {
    /// Moves the calling thread (a worker just started) to the `nth` core after the
    /// spawner's among those this thread may run on, then lets it run anywhere it could
    /// before.
    fn settle(self, nth: usize) {
        #[cfg(target_os = "linux")]
        linux::settle(self.core, nth);
        #[cfg(not(target_os = "linux"))]
        let _ = nth;
    }
}

#[cfg(target_os = "linux")]
mod linux {
    use nix::sched::{sched_getaffinity, sched_setaffinity, CpuSet};
    use nix::unistd::Pid;

    pub(super) fn settle(spawner: Option<usize>, nth: usize) {
        let Some(spawner) = spawner else {
            return;
        };
        let this = Pid::from_raw(0);
        let Ok(allowed) = sched_getaffinity(this) else {
            return;
        };
        let Some(core) = target(&allowed, spawner, nth) else {
            return;
        };
        let mut only = CpuSet::new();
        if only.set(core).is_ok() && sched_setaffinity(this, &only).is_ok() {
            // Moved already (the call returns on the new core); free to move again.
            let _ = sched_setaffinity(this, &allowed);
        }
    }

    /// The `nth` core of `allowed` after `spawner` (from the first allowed core when the
    /// spawner's is not allowed), wrapping around; `None` with fewer than two cores.
    pub(super) fn target(allowed: &CpuSet, spawner: usize, nth: usize) -> Option<usize> {
        let cores: Vec<usize> = (0..CpuSet::count())
            .filter(|&core| allowed.is_set(core).unwrap_or(false))
            .collect();
        if cores.len() < 2 {
            return None;
        }
        let at = cores.iter().position(|&core| core == spawner).unwrap_or(0);
        Some(cores[(at + nth) % cores.len()])
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        fn set(cores: &[usize]) -> CpuSet {
            let mut set = CpuSet::new();
            for &core in cores {
                set.set(core).unwrap();
            }
            set
        }

        #[test]
        fn workers_go_to_the_cores_after_their_spawners() {
            let allowed = set(&[2, 3, 5]);
            assert_eq!(target(&allowed, 3, 0), Some(3));
            assert_eq!(target(&allowed, 3, 1), Some(5));
            assert_eq!(target(&allowed, 3, 2), Some(2), "wraps around");
            assert_eq!(target(&allowed, 5, 1), Some(2));
            // A spawner on a core no longer allowed: counted from the first allowed.
            assert_eq!(target(&allowed, 0, 1), Some(3));
            assert_eq!(target(&set(&[4]), 4, 1), None, "one core: nowhere to go");
        }

        #[test]
        fn a_settled_worker_runs_on_its_core_and_may_run_anywhere_after() {
            let this = Pid::from_raw(0);
            let allowed = sched_getaffinity(this).unwrap();
            let spawner = super::super::spawner();
            let Some(core) = spawner.core else {
                return;
            };
            let worker = std::thread::spawn(move || {
                spawner.settle(1);
                let now = nix::sched::sched_getcpu().unwrap();
                let mask = sched_getaffinity(Pid::from_raw(0)).unwrap();
                (now, mask)
            });
            let (now, mask) = worker.join().unwrap();
            // Moved where asked (cores.len() < 2: nowhere, so anywhere allowed).
            match target(&allowed, core, 1) {
                Some(expected) => assert_eq!(now, expected),
                None => assert!(allowed.is_set(now).unwrap()),
            }
            assert_eq!(mask, allowed, "the affinity is widened back");
        }
    }
}
