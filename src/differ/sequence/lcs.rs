//! Stage: differ. Terraform's longest common subsequence of two id sequences, from
//! Myers' furthest-reaching frontiers instead of Terraform's O(N·M) table.
//!
//! Contract: [`terraform_lcs`] returns the LCS *values* Terraform's table backtrack
//! collects (including its tie-breaking: on a tie it steps back in `after`), in
//! O((N+M)·D) time and O(D²) memory, D being the insert/delete edit distance. Beyond
//! `MAX_EDIT_DISTANCE` or `MAX_WORK` it says so and returns a cheap common subsequence
//! instead, which the walk in the parent module turns into a valid, if not
//! Terraform-identical, pairing.

use std::collections::HashSet;

/// Largest edit distance for which we reproduce Terraform's LCS exactly.
///
/// The frontiers of every distance are kept for the backtrack: distance `d`
/// needs `d + 1` `u32`s, so the total is `(D+1)(D+2)/2 * 4` bytes, about
/// 30.5 MiB at 4,000. Inputs that far apart are ones Terraform itself needs
/// tens of seconds and gigabytes for, so an approximate pairing is fine.
pub(super) const MAX_EDIT_DISTANCE: usize = 4_000;

/// Budget of frontier cells plus element comparisons in the forward pass.
///
/// Myers' worst case is O((N+M)·D) even with D capped (long runs of
/// duplicates such as blank heredoc lines make every frontier slide far), so
/// time is capped too. The forward pass never does more than about N·M + D²
/// units of work, so any input small enough for Terraform's own table to be
/// practical stays exact.
pub(super) const MAX_WORK: u64 = 50_000_000;

/// A set of ids: a bitmap when the ids are dense (class ids always are), else a hash set.
pub(super) enum IdSet {
    Dense(Vec<bool>),
    Sparse(HashSet<u32, crate::input::json::FastBuildHasher>),
}

impl IdSet {
    pub(super) fn new(ids: &[u32]) -> IdSet {
        let max = ids.iter().copied().max().unwrap_or(0) as usize;
        if max <= 4 * ids.len() + 1024 {
            let mut present = vec![false; max + 1];
            for &id in ids {
                present[id as usize] = true;
            }
            IdSet::Dense(present)
        } else {
            IdSet::Sparse(ids.iter().copied().collect())
        }
    }

    pub(super) fn contains(&self, id: u32) -> bool {
        match self {
            IdSet::Dense(present) => present.get(id as usize).copied().unwrap_or(false),
            IdSet::Sparse(present) => present.contains(&id),
        }
    }
}

/// Terraform's LCS value sequence of `before` and `after`, and whether it
/// really is Terraform's (when `false` it is merely a common subsequence).
///
/// A common prefix and suffix are always part of Terraform's LCS (the table
/// values inside them are shifted by a constant, so the backtrack's choices
/// in the middle are unchanged and it collects the whole prefix once it
/// leaves the middle), so only the middles are searched. If the middles share
/// no value at all, their LCS is empty whatever the tie-breaking. Otherwise
/// the middles' LCS comes from the frontiers, unless the limits are hit, in
/// which case the middles are treated as having nothing in common: a valid,
/// cheap, but not Terraform-identical answer.
pub(super) fn terraform_lcs(
    before: &[u32],
    after: &[u32],
    max_distance: usize,
    max_work: u64,
) -> (Vec<u32>, bool) {
    let prefix = before.iter().zip(after).take_while(|(b, a)| b == a).count();
    let suffix = before[prefix..]
        .iter()
        .rev()
        .zip(after[prefix..].iter().rev())
        .take_while(|(b, a)| b == a)
        .count();
    let before_mid = &before[prefix..before.len() - suffix];
    let after_mid = &after[prefix..after.len() - suffix];

    let mut values = Vec::with_capacity(prefix + suffix + before_mid.len().min(after_mid.len()));
    values.extend_from_slice(&before[..prefix]);
    let mut exact = true;
    if !before_mid.is_empty() && !after_mid.is_empty() && shares_a_value(before_mid, after_mid) {
        match Frontiers::explore(before_mid, after_mid, max_distance, max_work) {
            Some(frontiers) => frontiers.backtrack(before_mid, after_mid, &mut values),
            None => exact = false,
        }
    }
    values.extend_from_slice(&before[before.len() - suffix..]);
    (values, exact)
}

fn shares_a_value(xs: &[u32], ys: &[u32]) -> bool {
    let (small, large) = if xs.len() <= ys.len() {
        (xs, ys)
    } else {
        (ys, xs)
    };
    let present = IdSet::new(small);
    large.iter().any(|&id| present.contains(id))
}

/// Marks a diagonal outside the edit graph.
const OFF_GRID: u32 = u32::MAX;

/// Myers' furthest-reaching frontiers for every edit distance up to the
/// total one.
///
/// Grid points are prefix-length pairs `(x, y)` (`x` over xs = before, `y`
/// over ys = after) and `D(x, y)` is the insert/delete edit distance between
/// those prefixes, so the LCS length is `(x + y - D(x, y)) / 2`. Along a
/// diagonal `k = x - y`, `D` never decreases (it grows by 0 or 2 per step)
/// and always has the parity of `k`. So the points of diagonal `k` with
/// `D <= d` form a prefix of the diagonal, and `frontier(d, k)` is its last
/// `x`. That makes "is `D(x, y) <= d`?" a single lookup:
/// `frontier(d, x - y) >= x`.
struct Frontiers {
    /// Row `d` starts at `d(d+1)/2` and holds diagonals `-d, -d+2, ..., d`.
    rows: Vec<u32>,
    /// `D` of the full grid.
    distance: usize,
}

impl Frontiers {
    /// Runs the forward pass until it reaches the far corner. `None` when the
    /// distance would exceed `max_distance` or the work `max_work`.
    fn explore(xs: &[u32], ys: &[u32], max_distance: usize, max_work: u64) -> Option<Frontiers> {
        let (n, m) = (xs.len(), ys.len());
        // Frontiers are stored as u32 to halve the memory; OFF_GRID must stay
        // distinguishable from every real x.
        if n >= OFF_GRID as usize || m >= OFF_GRID as usize {
            return None;
        }
        let (ni, mi) = (to_signed(n), to_signed(m));
        let end_k = ni - mi;
        let mut rows: Vec<u32> = Vec::new();
        let mut work: u64 = 0;
        for d in 0..=max_distance.min(n + m) {
            let di = to_signed(d);
            for slot in 0..=d {
                let k = 2 * to_signed(slot) - di;
                if k < -mi || k > ni {
                    rows.push(OFF_GRID);
                    continue;
                }
                // Every candidate is a grid point of diagonal k with D <= d:
                // the diagonal's first point (D = |k|), one edit on from the
                // previous distance's neighbours, or this diagonal's frontier
                // two distances ago. Their best, clipped back onto the grid,
                // is at or past where the last snake reaching the frontier
                // starts, and clipping stays within D <= d because it amounts
                // to undoing one edit. `tests::frontiers_match_brute_force`
                // checks this against the full table.
                let mut start = k.max(0);
                if d > 0 {
                    let prev = row_offset(d - 1);
                    if slot > 0 {
                        start = start.max(from_row(rows[prev + slot - 1]).map_or(-1, |x| x + 1));
                    }
                    if slot < d {
                        start = start.max(from_row(rows[prev + slot]).unwrap_or(-1));
                    }
                    if d >= 2 && slot >= 1 && slot < d {
                        start =
                            start.max(from_row(rows[row_offset(d - 2) + slot - 1]).unwrap_or(-1));
                    }
                }
                let x0 = to_unsigned(start.min(ni).min(mi + k));
                let y0 = to_unsigned(to_signed(x0) - k);
                let snake = xs[x0..]
                    .iter()
                    .zip(&ys[y0..])
                    .take_while(|(x, y)| x == y)
                    .count();
                work += snake as u64 + 1;
                rows.push(to_u32(x0 + snake));
            }
            if (end_k - di) % 2 == 0 && end_k.abs() <= di {
                let end_slot = to_unsigned((end_k + di) / 2);
                if rows[row_offset(d) + end_slot] as usize == n {
                    return Some(Frontiers { rows, distance: d });
                }
            }
            if work > max_work {
                return None;
            }
        }
        None
    }

    /// Whether `D(x, y) <= d`, for `d` of the parity of `x - y`.
    fn within(&self, d: usize, x: usize, y: usize) -> bool {
        let k = to_signed(x) - to_signed(y);
        debug_assert!((k - to_signed(d)) % 2 == 0, "parity mismatch");
        if k.unsigned_abs() > d {
            return false;
        }
        let slot = to_unsigned((k + to_signed(d)) / 2);
        from_row(self.rows[row_offset(d) + slot]).is_some_and(|f| f >= to_signed(x))
    }

    /// Replays Terraform's backtrack and appends the LCS values it collects,
    /// in forward order.
    ///
    /// Terraform compares `l = LCS(x-1, y)` with `u = LCS(x, y-1)`; both sit
    /// on the same anti-diagonal, so `l > u` exactly when `D(x-1, y) <
    /// D(x, y-1)`. At a mismatch both neighbours are `D(x, y) ± 1` and at
    /// least one is `D(x, y) - 1`, so it is enough to ask whether each is
    /// within `D(x, y) - 1`. The backtrack only visits cells on an optimal
    /// path (it never gives up LCS length), so their `D` is tracked exactly
    /// and never exceeds the stored distances.
    fn backtrack(&self, xs: &[u32], ys: &[u32], out: &mut Vec<u32>) {
        let first = out.len();
        let (mut x, mut y) = (xs.len(), ys.len());
        let mut here = self.distance;
        while x > 0 && y > 0 {
            if xs[x - 1] == ys[y - 1] {
                // A diagonal step keeps D: the match extends an optimal path.
                out.push(xs[x - 1]);
                x -= 1;
                y -= 1;
                continue;
            }
            debug_assert!(here > 0, "mismatch at distance zero");
            let closer = here - 1;
            let up = self.within(closer, x - 1, y);
            let left = self.within(closer, x, y - 1);
            debug_assert!(up || left, "no neighbour on an optimal path");
            // Ties (both closer) step back in ys, as Terraform does.
            if up && !left {
                x -= 1;
            } else {
                y -= 1;
            }
            here = closer;
        }
        out[first..].reverse();
    }
}

fn row_offset(d: usize) -> usize {
    d * (d + 1) / 2
}

fn from_row(stored: u32) -> Option<isize> {
    (stored != OFF_GRID).then(|| to_signed(stored as usize))
}

// Slice lengths never exceed isize::MAX, so these conversions cannot fail
// for values derived from them.
fn to_signed(v: usize) -> isize {
    isize::try_from(v).expect("length fits in isize")
}

fn to_unsigned(v: isize) -> usize {
    usize::try_from(v).expect("grid coordinate is non-negative")
}

fn to_u32(v: usize) -> u32 {
    u32::try_from(v).expect("length checked against OFF_GRID")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::differ::sequence::reference::{
        distance_table, random_seq, reference_lcs, small_pair, Rng,
    };

    #[test]
    fn tie_breaking_prefers_later_before_elements() {
        // LCS length 1 either way; Terraform's ties step back in `after`
        // first, so it keeps the match found while scanning `before` from the
        // end: `b`, not `a`.
        assert_eq!(reference_lcs(&[1, 2], &[2, 1]), [2]);
        assert_eq!(terraform_lcs(&[1, 2], &[2, 1], 10, 1000).0, [2]);
        assert_eq!(reference_lcs(&[1, 2, 3], &[3, 2, 1]), [3]);
        assert_eq!(terraform_lcs(&[1, 2, 3], &[3, 2, 1], 10, 1000).0, [3]);
    }

    #[test]
    fn random_medium_unrelated_against_reference() {
        // Large distances and long duplicate runs: every frontier moves.
        let mut rng = Rng::new(0xBEEF);
        for _ in 0..100 {
            let alphabet = 1 + rng.below(4) as u32;
            let before = random_seq(&mut rng, 200, alphabet);
            let after = random_seq(&mut rng, 200, alphabet);
            let (values, exact) = terraform_lcs(&before, &after, MAX_EDIT_DISTANCE, MAX_WORK);
            assert!(exact);
            assert_eq!(values, reference_lcs(&before, &after));
        }
    }

    #[test]
    fn frontiers_match_brute_force() {
        // Checks the claims the fast path rests on against the full distance
        // table: D grows by 0 or 2 along a diagonal, has the diagonal's
        // parity, and each stored frontier is the last point of its diagonal
        // with D <= d.
        let mut rng = Rng::new(0xF00D);
        for _ in 0..3_000 {
            let (xs, ys) = small_pair(&mut rng);
            if xs.is_empty() || ys.is_empty() {
                continue;
            }
            let dist = distance_table(&xs, &ys);
            let (n, m) = (xs.len(), ys.len());
            for x in 0..=n {
                for y in 0..=m {
                    assert_eq!(dist[x][y] % 2, x.abs_diff(y) % 2);
                    if x < n && y < m {
                        let step = dist[x + 1][y + 1] - dist[x][y];
                        assert!(step == 0 || step == 2);
                    }
                }
            }
            let fr = Frontiers::explore(&xs, &ys, usize::MAX, u64::MAX).expect("unbounded");
            assert_eq!(fr.distance, dist[n][m]);
            for d in 0..=fr.distance {
                for slot in 0..=d {
                    let k = 2 * slot as isize - d as isize;
                    let brute = (0..=n)
                        .filter(|&x| {
                            let y = x as isize - k;
                            y >= 0 && y <= m as isize && dist[x][y as usize] <= d
                        })
                        .max();
                    let stored = from_row(fr.rows[row_offset(d) + slot]).map(|x| x as usize);
                    assert_eq!(stored, brute, "d {d} k {k} xs {xs:?} ys {ys:?}");
                }
            }
        }
    }
}
