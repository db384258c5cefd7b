//! Stage: differ. Pure: no I/O, no global state, deterministic.
//!
//! Pairs up the elements of two sequences (list attributes, JSON arrays,
//! heredoc lines) exactly the way Terraform's plan renderer does, so the
//! rendered diff shows the same deletions, creations and in-place updates
//! that `terraform show` would.
//!
//! Contract: elements arrive as equivalence-class ids (equal ids ⇔ deep-equal
//! values). The result is the ordered list of [`Step`]s Terraform would
//! produce, with every before index and every after index appearing exactly
//! once and in increasing order. Terraform gets there with an O(N·M) time and
//! memory LCS table; we reproduce the *same* LCS (including its tie-breaking)
//! from Myers' furthest-reaching frontiers in O((N+M)·D) time and O(D²)
//! memory, D being the insert/delete edit distance. Beyond
//! `MAX_EDIT_DISTANCE` or `MAX_WORK` we deliberately stop imitating
//! Terraform and return a cheap, still valid, pairing (see
//! `terraform_lcs`).
//!
//! Terraform's algorithm, which everything here must agree with:
//! 1. Equal lengths and not a "reorder" (some before element occurs nowhere
//!    in after): pair by index.
//! 2. Otherwise build the classic LCS table `c[x][y]` over the prefixes
//!    `before[..=x]`, `after[..=y]` and backtrack from the bottom-right cell:
//!    on equal elements take the diagonal, else step back in `before` only if
//!    that keeps a strictly longer LCS than stepping back in `after` (ties
//!    step back in `after`).
//! 3. Walk both sequences against the LCS *values*, pairing a leftover
//!    before element with the current after element when the caller says
//!    they are pairable, deleting the rest, then creating leftover after
//!    elements.

use std::collections::HashSet;

/// One step of the pairing, in output order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Step {
    /// Before index and after index shown as one element: unchanged (equal
    /// ids) or updated in place (pairable).
    Both(usize, usize),
    /// Before index shown as deleted.
    Deleted(usize),
    /// After index shown as created.
    Created(usize),
}

/// Largest edit distance for which we reproduce Terraform's LCS exactly.
///
/// The frontiers of every distance are kept for the backtrack: distance `d`
/// needs `d + 1` `u32`s, so the total is `(D+1)(D+2)/2 * 4` bytes, about
/// 30.5 MiB at 4,000. Inputs that far apart are ones Terraform itself needs
/// tens of seconds and gigabytes for, so an approximate pairing is fine.
const MAX_EDIT_DISTANCE: usize = 4_000;

/// Budget of frontier cells plus element comparisons in the forward pass.
///
/// Myers' worst case is O((N+M)·D) even with D capped (long runs of
/// duplicates such as blank heredoc lines make every frontier slide far), so
/// time is capped too. The forward pass never does more than about N·M + D²
/// units of work, so any input small enough for Terraform's own table to be
/// practical stays exact.
const MAX_WORK: u64 = 50_000_000;

/// Whose list pairing to reproduce: the renderers of Terraform and OpenTofu forked
/// before Terraform 1.8 and pair list elements differently since.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) enum Pairing {
    /// Terraform 1.8+: equal lengths and no reorder pair by index, else the LCS walk.
    #[default]
    Terraform,
    /// OpenTofu: always the LCS walk, and a leftover after element also pairs with the
    /// before element at hand when the caller says they are pairable.
    OpenTofu,
}

impl Pairing {
    /// The pairing of the tool that made the plan: the one place that choice is made.
    pub(crate) fn of(tool: crate::plan::Tool) -> Pairing {
        match tool {
            crate::plan::Tool::Terraform => Pairing::Terraform,
            crate::plan::Tool::OpenTofu => Pairing::OpenTofu,
        }
    }
}

/// Pairs `before` with `after` exactly as Terraform's (or, with
/// [`Pairing::OpenTofu`], OpenTofu's) plan renderer does.
///
/// `pairable(b, a)` decides whether a non-matching before/after pair is shown
/// as one in-place update instead of delete + create. It must be pure: it may
/// be called fewer times than Terraform calls its equivalent (cheap checks
/// run first), and never for out-of-range indices.
pub(crate) fn pair_elements(
    before: &[u32],
    after: &[u32],
    pairing: Pairing,
    pairable: impl FnMut(usize, usize) -> bool,
) -> Vec<Step> {
    if pairing == Pairing::Terraform && before.len() == after.len() && !is_reorder(before, after) {
        return (0..before.len()).map(|ix| Step::Both(ix, ix)).collect();
    }
    // One side empty: what the general path computes, without its tables.
    if before.is_empty() {
        return (0..after.len()).map(Step::Created).collect();
    }
    if after.is_empty() {
        return (0..before.len()).map(Step::Deleted).collect();
    }
    // Past the limits the pairing is merely valid; callers do not need to
    // know, the rendering stays correct, just not Terraform-identical.
    let (lcs, _exact) = terraform_lcs(before, after, MAX_EDIT_DISTANCE, MAX_WORK);
    walk(before, after, &lcs, pairing, pairable)
}

/// Terraform's notion of a reorder: every before element occurs somewhere in
/// after. Set membership, not multiset: duplicates are not counted.
fn is_reorder(before: &[u32], after: &[u32]) -> bool {
    let present = IdSet::new(after);
    before.iter().all(|&id| present.contains(id))
}

/// A set of ids: a bitmap when the ids are dense (class ids always are), else a hash set.
enum IdSet {
    Dense(Vec<bool>),
    Sparse(HashSet<u32, crate::value::FastBuildHasher>),
}

impl IdSet {
    fn new(ids: &[u32]) -> IdSet {
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

    fn contains(&self, id: u32) -> bool {
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
fn terraform_lcs(
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

/// The final walk of both sequences against the LCS values, as `pairing`'s renderer
/// does it.
///
/// A leftover before element is shown as an update of the after element at hand when
/// `pairable` says so (and that after element is not the next LCS one), else as
/// deleted. OpenTofu also shows a leftover after element as an update of the before
/// element at hand when `pairable` says so, even when that before element is the next
/// LCS one. Its walk can then run past the end of `before`; an LCS step there shows its
/// after element as created, as OpenTofu does (its before side is out of range, so
/// absent). Terraform's walk never gets there: each of its LCS steps finds both sides
/// on the LCS element.
fn walk(
    before: &[u32],
    after: &[u32],
    lcs: &[u32],
    pairing: Pairing,
    mut pairable: impl FnMut(usize, usize) -> bool,
) -> Vec<Step> {
    let pair_leftover_after = pairing == Pairing::OpenTofu;
    // Terraform shows every LCS element as one step; OpenTofu may not (see above).
    let shared = if pair_leftover_after { 0 } else { lcs.len() };
    let mut steps = Vec::with_capacity(before.len() + after.len() - shared);
    let (mut b, mut a, mut k) = (0, 0, 0);
    while b < before.len() || a < after.len() || k < lcs.len() {
        let next = lcs.get(k).copied();
        while b < before.len() && Some(before[b]) != next {
            // The LCS check runs before the callback only to save calls; the
            // outcome is the same as the renderers' order for a pure callback.
            if a < after.len() && Some(after[a]) != next && pairable(b, a) {
                steps.push(Step::Both(b, a));
                a += 1;
            } else {
                steps.push(Step::Deleted(b));
            }
            b += 1;
        }
        while a < after.len() && Some(after[a]) != next {
            if pair_leftover_after && b < before.len() && pairable(b, a) {
                steps.push(Step::Both(b, a));
                b += 1;
            } else {
                steps.push(Step::Created(a));
            }
            a += 1;
        }
        if next.is_some() {
            // `a` is in range: the LCS element is still ahead in `after`.
            steps.push(if b < before.len() {
                Step::Both(b, a)
            } else {
                Step::Created(a)
            });
            b += 1;
            a += 1;
            k += 1;
        }
    }
    steps
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic xorshift64* so failures reproduce without a crate.
    struct Rng(u64);

    impl Rng {
        fn new(seed: u64) -> Rng {
            Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
        }

        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }

        fn below(&mut self, bound: usize) -> usize {
            (self.next() % bound as u64) as usize
        }

        fn id(&mut self, alphabet: u32) -> u32 {
            (self.next() % u64::from(alphabet)) as u32
        }
    }

    /// Terraform's steps 1-3 written as plainly as possible, O(N·M) table
    /// and all, to compare against.
    fn reference(
        before: &[u32],
        after: &[u32],
        mut pairable: impl FnMut(usize, usize) -> bool,
    ) -> Vec<Step> {
        if before.len() == after.len() {
            let reorder = before.iter().all(|b| after.contains(b));
            if !reorder {
                return (0..before.len()).map(|i| Step::Both(i, i)).collect();
            }
        }
        let lcs = reference_lcs(before, after);
        let mut out = Vec::new();
        let (mut b, mut a, mut k) = (0, 0, 0);
        while b < before.len() || a < after.len() || k < lcs.len() {
            while b < before.len() && (k >= lcs.len() || before[b] != lcs[k]) {
                if a < after.len() && pairable(b, a) && (k >= lcs.len() || after[a] != lcs[k]) {
                    out.push(Step::Both(b, a));
                    b += 1;
                    a += 1;
                    continue;
                }
                out.push(Step::Deleted(b));
                b += 1;
            }
            while a < after.len() && (k >= lcs.len() || after[a] != lcs[k]) {
                out.push(Step::Created(a));
                a += 1;
            }
            if k < lcs.len() {
                out.push(Step::Both(b, a));
                b += 1;
                a += 1;
                k += 1;
            }
        }
        out
    }

    /// The DP table `c[x][y]` exactly as Terraform fills it.
    fn reference_table(xs: &[u32], ys: &[u32]) -> Vec<Vec<usize>> {
        let mut c = vec![vec![0usize; ys.len()]; xs.len()];
        for y in 0..ys.len() {
            for x in 0..xs.len() {
                c[x][y] = if xs[x] == ys[y] {
                    if x == 0 || y == 0 {
                        1
                    } else {
                        c[x - 1][y - 1] + 1
                    }
                } else {
                    let l = if x > 0 { c[x - 1][y] } else { 0 };
                    let u = if y > 0 { c[x][y - 1] } else { 0 };
                    l.max(u)
                };
            }
        }
        c
    }

    fn reference_lcs(xs: &[u32], ys: &[u32]) -> Vec<u32> {
        if xs.is_empty() || ys.is_empty() {
            return Vec::new();
        }
        let c = reference_table(xs, ys);
        let mut seq = Vec::new();
        let (mut x, mut y) = (xs.len() as isize - 1, ys.len() as isize - 1);
        while x >= 0 && y >= 0 {
            let (xu, yu) = (x as usize, y as usize);
            if xs[xu] == ys[yu] {
                seq.push(xs[xu]);
                x -= 1;
                y -= 1;
            } else {
                let l = if x > 0 { c[xu - 1][yu] } else { 0 };
                let u = if y > 0 { c[xu][yu - 1] } else { 0 };
                if l > u {
                    x -= 1;
                } else {
                    y -= 1;
                }
            }
        }
        seq.reverse();
        seq
    }

    /// `D(x, y)` for all prefix lengths, `(n+1) x (m+1)`.
    fn distance_table(xs: &[u32], ys: &[u32]) -> Vec<Vec<usize>> {
        let (n, m) = (xs.len(), ys.len());
        let mut dist = vec![vec![0usize; m + 1]; n + 1];
        for x in 0..=n {
            for y in 0..=m {
                dist[x][y] = if x == 0 {
                    y
                } else if y == 0 {
                    x
                } else if xs[x - 1] == ys[y - 1] {
                    dist[x - 1][y - 1]
                } else {
                    1 + dist[x - 1][y].min(dist[x][y - 1])
                };
            }
        }
        dist
    }

    /// Every index exactly once, in order; `Both` only for equal or
    /// pairable elements.
    fn assert_valid(
        before: &[u32],
        after: &[u32],
        steps: &[Step],
        mut pairable: impl FnMut(usize, usize) -> bool,
    ) {
        let (mut nb, mut na) = (0, 0);
        for step in steps {
            match *step {
                Step::Both(b, a) => {
                    assert_eq!((b, a), (nb, na), "out of order: {step:?}");
                    assert!(before[b] == after[a] || pairable(b, a), "bad pair {step:?}");
                    nb += 1;
                    na += 1;
                }
                Step::Deleted(b) => {
                    assert_eq!(b, nb, "out of order: {step:?}");
                    nb += 1;
                }
                Step::Created(a) => {
                    assert_eq!(a, na, "out of order: {step:?}");
                    na += 1;
                }
            }
        }
        assert_eq!((nb, na), (before.len(), after.len()), "indices missing");
    }

    type Policy = fn(usize, usize) -> bool;

    const POLICIES: [(&str, Policy); 4] = [
        ("never", |_, _| false),
        ("always", |_, _| true),
        ("even-sum", |b, a| (b + a) % 2 == 0),
        ("even-before", |b, _| b % 2 == 0),
    ];

    fn check_all_policies(before: &[u32], after: &[u32]) {
        for (name, policy) in POLICIES {
            let fast = pair_elements(before, after, Pairing::Terraform, policy);
            let slow = reference(before, after, policy);
            assert_eq!(
                fast, slow,
                "policy {name}\nbefore {before:?}\nafter  {after:?}"
            );
        }
    }

    fn random_seq(rng: &mut Rng, max_len: usize, alphabet: u32) -> Vec<u32> {
        let len = rng.below(max_len + 1);
        (0..len).map(|_| rng.id(alphabet)).collect()
    }

    /// A few random single-element inserts, deletes and replacements.
    fn mutate(rng: &mut Rng, seq: &[u32], edits: usize, alphabet: u32) -> Vec<u32> {
        let mut out = seq.to_vec();
        for _ in 0..edits {
            match rng.below(3) {
                0 => {
                    let at = rng.below(out.len() + 1);
                    out.insert(at, rng.id(alphabet));
                }
                1 if !out.is_empty() => {
                    let at = rng.below(out.len());
                    out.remove(at);
                }
                _ if !out.is_empty() => {
                    let at = rng.below(out.len());
                    out[at] = rng.id(alphabet);
                }
                _ => {}
            }
        }
        out
    }

    fn shuffle(rng: &mut Rng, seq: &mut [u32]) {
        for i in (1..seq.len()).rev() {
            seq.swap(i, rng.below(i + 1));
        }
    }

    /// A related pair of short sequences, covering the shapes that hit
    /// different branches: unrelated, equal, reordered, truncated, edited.
    fn small_pair(rng: &mut Rng) -> (Vec<u32>, Vec<u32>) {
        let alphabet = 1 + rng.below(5) as u32;
        let before = random_seq(rng, 12, alphabet);
        let after = match rng.below(7) {
            0 => random_seq(rng, 12, alphabet),
            1 => before.clone(),
            2 => {
                let mut s = before.clone();
                shuffle(rng, &mut s);
                s
            }
            3 => before[..rng.below(before.len() + 1)].to_vec(),
            4 => before[rng.below(before.len() + 1)..].to_vec(),
            _ => {
                let edits = 1 + rng.below(3);
                mutate(rng, &before, edits, alphabet)
            }
        };
        if rng.below(2) == 0 {
            (after, before)
        } else {
            (before, after)
        }
    }

    /// OpenTofu's walk written as plainly as possible: its renderer's loop, with the LCS
    /// from the plain table.
    fn reference_opentofu(
        before: &[u32],
        after: &[u32],
        mut pairable: impl FnMut(usize, usize) -> bool,
    ) -> Vec<Step> {
        let lcs = reference_lcs(before, after);
        let (n, m, l) = (before.len(), after.len(), lcs.len());
        let mut out = Vec::new();
        let (mut b, mut a, mut k) = (0, 0, 0);
        while b < n || a < m || k < l {
            while b < n && (k >= l || before[b] != lcs[k]) {
                let diff = a < m && pairable(b, a);
                let after_in_lcs = k < l && after[a] == lcs[k];
                if diff && !after_in_lcs {
                    out.push(Step::Both(b, a));
                    b += 1;
                    a += 1;
                    continue;
                }
                out.push(Step::Deleted(b));
                b += 1;
            }
            while a < m && (k >= l || after[a] != lcs[k]) {
                if b < n && pairable(b, a) {
                    out.push(Step::Both(b, a));
                    b += 1;
                    a += 1;
                    continue;
                }
                out.push(Step::Created(a));
                a += 1;
            }
            if k < l {
                out.push(if b < n {
                    Step::Both(b, a)
                } else {
                    Step::Created(a)
                });
                b += 1;
                a += 1;
                k += 1;
            }
        }
        out
    }

    #[test]
    fn opentofu_keeps_the_lcs_walk_for_equal_lengths() {
        // OpenTofu's basic_list_update: Terraform pairs by index, OpenTofu does not.
        let (before, after) = ([1, 2, 3], [1, 3, 4]);
        assert_eq!(
            pair_elements(&before, &after, Pairing::OpenTofu, |_, _| false),
            [
                Step::Both(0, 0),
                Step::Deleted(1),
                Step::Both(2, 1),
                Step::Created(2)
            ]
        );
        assert_eq!(
            pair_elements(&before, &after, Pairing::Terraform, |_, _| false),
            [Step::Both(0, 0), Step::Both(1, 1), Step::Both(2, 2)]
        );
        // One element changed: delete and create, not `~ old -> new`.
        assert_eq!(
            pair_elements(&[1, 2, 3], &[1, 9, 3], Pairing::OpenTofu, |_, _| false),
            [
                Step::Both(0, 0),
                Step::Deleted(1),
                Step::Created(1),
                Step::Both(2, 2)
            ]
        );
    }

    #[test]
    fn opentofu_pairs_a_leftover_after_element_with_the_next_lcs_one() {
        // Objects A, B -> A, C, B: OpenTofu shows B -> C as an update and B as created.
        assert_eq!(
            pair_elements(&[1, 2], &[1, 3, 2], Pairing::OpenTofu, |_, _| true),
            [Step::Both(0, 0), Step::Both(1, 1), Step::Created(2)]
        );
        assert_eq!(
            pair_elements(&[1, 2], &[1, 3, 2], Pairing::Terraform, |_, _| true),
            [Step::Both(0, 0), Step::Created(1), Step::Both(1, 2)]
        );
    }

    #[test]
    fn opentofu_random_small_against_reference() {
        let mut rng = Rng::new(0x70F0);
        for _ in 0..40_000 {
            let (before, after) = small_pair(&mut rng);
            for (name, policy) in POLICIES {
                let fast = pair_elements(&before, &after, Pairing::OpenTofu, policy);
                let slow = reference_opentofu(&before, &after, policy);
                assert_eq!(
                    fast, slow,
                    "policy {name}\nbefore {before:?}\nafter  {after:?}"
                );
                assert_valid(&before, &after, &fast, |b, a| {
                    // The walk may pair an LCS element with a leftover one.
                    let _ = (b, a);
                    true
                });
            }
        }
    }

    #[test]
    fn swap_of_two() {
        let steps = pair_elements(&[1, 2], &[2, 1], Pairing::Terraform, |_, _| false);
        assert_eq!(
            steps,
            [Step::Deleted(0), Step::Both(1, 0), Step::Created(1)]
        );
    }

    #[test]
    fn insertion_in_the_middle() {
        // a b d e f -> a b c d e f
        let steps = pair_elements(
            &[1, 2, 4, 5, 6],
            &[1, 2, 3, 4, 5, 6],
            Pairing::Terraform,
            |_, _| true,
        );
        assert_eq!(
            steps,
            [
                Step::Both(0, 0),
                Step::Both(1, 1),
                Step::Created(2),
                Step::Both(2, 3),
                Step::Both(3, 4),
                Step::Both(4, 5),
            ]
        );
    }

    #[test]
    fn deletion_in_the_middle() {
        let steps = pair_elements(
            &[1, 2, 3, 4, 5, 6],
            &[1, 2, 4, 5, 6],
            Pairing::Terraform,
            |_, _| true,
        );
        assert_eq!(
            steps,
            [
                Step::Both(0, 0),
                Step::Both(1, 1),
                Step::Deleted(2),
                Step::Both(3, 2),
                Step::Both(4, 3),
                Step::Both(5, 4),
            ]
        );
    }

    #[test]
    fn same_length_one_change_pairs_by_index() {
        let steps = pair_elements(&[1, 2, 3], &[1, 9, 3], Pairing::Terraform, |_, _| false);
        assert_eq!(
            steps,
            [Step::Both(0, 0), Step::Both(1, 1), Step::Both(2, 2)]
        );
    }

    #[test]
    fn replacement_with_different_lengths_uses_pairable() {
        // a b c -> a x c d: b is not in the LCS, x is not either.
        let before = [1, 2, 3];
        let after = [1, 9, 3, 4];
        assert_eq!(
            pair_elements(&before, &after, Pairing::Terraform, |_, _| false),
            [
                Step::Both(0, 0),
                Step::Deleted(1),
                Step::Created(1),
                Step::Both(2, 2),
                Step::Created(3),
            ]
        );
        assert_eq!(
            pair_elements(&before, &after, Pairing::Terraform, |_, _| true),
            [
                Step::Both(0, 0),
                Step::Both(1, 1),
                Step::Both(2, 2),
                Step::Created(3),
            ]
        );
    }

    #[test]
    fn empty_sides() {
        assert_eq!(pair_elements(&[], &[], Pairing::Terraform, |_, _| true), []);
        assert_eq!(
            pair_elements(&[], &[7, 8], Pairing::Terraform, |_, _| true),
            [Step::Created(0), Step::Created(1)]
        );
        assert_eq!(
            pair_elements(&[7, 8], &[], Pairing::Terraform, |_, _| true),
            [Step::Deleted(0), Step::Deleted(1)]
        );
    }

    #[test]
    fn equal_lists_pair_everything() {
        let list = [3, 1, 3, 2];
        assert_eq!(
            pair_elements(&list, &list, Pairing::Terraform, |_, _| false),
            (0..4).map(|i| Step::Both(i, i)).collect::<Vec<_>>()
        );
    }

    #[test]
    fn reorder_ignores_multiplicity() {
        // Every before element occurs in after, so this is a "reorder" and
        // goes through the LCS even though the multisets differ.
        let before = [1, 1, 2];
        let after = [1, 2, 2];
        check_all_policies(&before, &after);
        assert_eq!(
            pair_elements(&before, &after, Pairing::Terraform, |_, _| false),
            [
                Step::Both(0, 0),
                Step::Deleted(1),
                Step::Both(2, 1),
                Step::Created(2),
            ]
        );
    }

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
    fn random_small_against_reference() {
        let mut rng = Rng::new(0x5EED);
        for _ in 0..40_000 {
            let (before, after) = small_pair(&mut rng);
            check_all_policies(&before, &after);
        }
    }

    #[test]
    fn exhaustive_tiny_against_reference() {
        // Every pair over a 3-letter alphabet up to length 4 (and unequal
        // lengths, so the LCS path is always taken for most of them).
        let mut all: Vec<Vec<u32>> = vec![Vec::new()];
        let mut frontier: Vec<Vec<u32>> = vec![Vec::new()];
        for _ in 0..4 {
            let mut next = Vec::new();
            for s in &frontier {
                for v in 0..3 {
                    let mut t = s.clone();
                    t.push(v);
                    next.push(t);
                }
            }
            all.extend(next.iter().cloned());
            frontier = next;
        }
        for before in &all {
            for after in &all {
                let (values, exact) = terraform_lcs(before, after, MAX_EDIT_DISTANCE, MAX_WORK);
                assert!(exact);
                assert_eq!(values, reference_lcs(before, after), "{before:?} {after:?}");
                let fast = pair_elements(before, after, Pairing::Terraform, POLICIES[2].1);
                assert_eq!(fast, reference(before, after, POLICIES[2].1));
            }
        }
    }

    #[test]
    fn random_medium_against_reference() {
        let mut rng = Rng::new(0xA11CE);
        for round in 0..300 {
            // Alternate between mostly distinct ids and heavy duplication.
            let alphabet = if round % 2 == 0 {
                1_000
            } else {
                2 + rng.below(6) as u32
            };
            let len = rng.below(301);
            let before: Vec<u32> = (0..len).map(|_| rng.id(alphabet)).collect();
            let edits = rng.below(8);
            let after = mutate(&mut rng, &before, edits, alphabet);
            let (values, exact) = terraform_lcs(&before, &after, MAX_EDIT_DISTANCE, MAX_WORK);
            assert!(exact);
            assert_eq!(values, reference_lcs(&before, &after));
            check_all_policies(&before, &after);
        }
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

    #[test]
    fn limits_fall_back_to_a_valid_pairing() {
        let mut rng = Rng::new(0xC0FFEE);
        for round in 0..5_000 {
            let (before, after) = small_pair(&mut rng);
            let max_distance = rng.below(6);
            let max_work = if round % 3 == 0 {
                rng.below(20) as u64
            } else {
                u64::MAX
            };
            let (values, exact) = terraform_lcs(&before, &after, max_distance, max_work);
            if exact {
                assert_eq!(values, reference_lcs(&before, &after));
            }
            if max_work == u64::MAX && before.len() + after.len() <= max_distance {
                assert!(exact, "distance cannot exceed n + m");
            }
            for (_, policy) in POLICIES {
                let steps = walk(&before, &after, &values, Pairing::Terraform, policy);
                assert_valid(&before, &after, &steps, policy);
                // OpenTofu's walk may pair an LCS element with a leftover one.
                let steps = walk(&before, &after, &values, Pairing::OpenTofu, policy);
                assert_valid(&before, &after, &steps, |_, _| true);
            }
        }
    }

    #[test]
    fn pairable_sees_only_valid_indices() {
        let mut rng = Rng::new(0xD1CE);
        for _ in 0..2_000 {
            let (before, after) = small_pair(&mut rng);
            let steps = pair_elements(&before, &after, Pairing::Terraform, |b, a| {
                assert!(b < before.len() && a < after.len());
                before[b] != after[a]
            });
            assert_valid(&before, &after, &steps, |_, _| true);
        }
    }

    #[test]
    fn scale_ten_thousand_with_scattered_edits() {
        let mut rng = Rng::new(0x10_000);
        let before: Vec<u32> = (0..10_000).collect();
        let mut after = before.clone();
        for i in 0..20 {
            let at = rng.below(after.len());
            match i % 3 {
                0 => after[at] = 1_000_000 + i,
                1 => {
                    after.remove(at);
                }
                _ => after.insert(at, 2_000_000 + i),
            }
        }
        let (values, exact) = terraform_lcs(&before, &after, MAX_EDIT_DISTANCE, MAX_WORK);
        assert!(exact, "a few edits must stay on the exact path");
        assert!(values.len() + 20 >= before.len());
        for (_, policy) in POLICIES {
            let steps = pair_elements(&before, &after, Pairing::Terraform, policy);
            assert_valid(&before, &after, &steps, policy);
        }
    }

    #[test]
    fn scale_hundred_thousand_totally_different() {
        // No shared values: the LCS is empty and exact without any search.
        let before: Vec<u32> = (0..100_000).collect();
        let after: Vec<u32> = (200_000..300_001).collect();
        let (values, exact) = terraform_lcs(&before, &after, MAX_EDIT_DISTANCE, MAX_WORK);
        assert!(exact && values.is_empty());
        let steps = pair_elements(&before, &after, Pairing::Terraform, |_, _| false);
        assert_valid(&before, &after, &steps, |_, _| false);
        assert_eq!(steps.len(), 200_001);
    }

    #[test]
    fn scale_hundred_thousand_reversed_falls_back() {
        // Shared values but an edit distance near 200,000: the limits kick
        // in and the answer is only required to be valid.
        let before: Vec<u32> = (0..100_000).collect();
        let after: Vec<u32> = (0..100_001).rev().collect();
        let (lcs, exact) = terraform_lcs(&before, &after, MAX_EDIT_DISTANCE, MAX_WORK);
        assert!(!exact);
        // One full run through the public entry point; the other policies
        // reuse the LCS because the forward pass is slow in debug builds.
        let steps = pair_elements(&before, &after, Pairing::Terraform, POLICIES[0].1);
        assert_valid(&before, &after, &steps, POLICIES[0].1);
        for (_, policy) in POLICIES {
            let steps = walk(&before, &after, &lcs, Pairing::Terraform, policy);
            assert_valid(&before, &after, &steps, policy);
        }
    }

    #[test]
    fn scale_long_duplicate_runs_stay_bounded() {
        // Blank-line-like runs make every frontier slide a long way; the
        // work budget keeps this bounded whatever the outcome.
        let mut rng = Rng::new(0xB1A4);
        let before: Vec<u32> = (0..100_000)
            .map(|_| u32::from(rng.below(50) != 0))
            .collect();
        let after: Vec<u32> = (0..100_500)
            .map(|_| u32::from(rng.below(50) != 0))
            .collect();
        let steps = pair_elements(&before, &after, Pairing::Terraform, |_, _| false);
        assert_valid(&before, &after, &steps, |_, _| false);
    }
}
