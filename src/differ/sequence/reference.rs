//! Stage: differ (test oracle). Terraform's and OpenTofu's list pairing written as
//! plainly as possible, O(N·M) table and all, plus the random inputs and the validity
//! check the fast code in the parent module is compared with.

use super::{pair_elements, Pairing, Step};

/// Deterministic xorshift64* so failures reproduce without a crate.
pub(super) struct Rng(u64);

impl Rng {
    pub(super) fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub(super) fn below(&mut self, bound: usize) -> usize {
        (self.next() % bound as u64) as usize
    }

    pub(super) fn id(&mut self, alphabet: u32) -> u32 {
        (self.next() % u64::from(alphabet)) as u32
    }
}

/// Steps 1-3 of `pairing`'s renderer written as plainly as possible, O(N·M) table
/// and all, to compare against: `pairable` is called in the renderer's order.
pub(super) fn reference(
    before: &[u32],
    after: &[u32],
    pairing: Pairing,
    mut pairable: impl FnMut(usize, usize) -> bool,
) -> Vec<Step> {
    let tofu = pairing == Pairing::OpenTofu;
    if !tofu && before.len() == after.len() {
        let reorder = before.iter().all(|b| after.contains(b));
        if !reorder {
            return (0..before.len()).map(|i| Step::Both(i, i)).collect();
        }
    }
    let lcs = reference_lcs(before, after);
    let is_next = |k: usize, id: u32| lcs.get(k) == Some(&id);
    let mut out = Vec::new();
    let (mut b, mut a, mut k) = (0, 0, 0);
    while b < before.len() || a < after.len() || k < lcs.len() {
        while b < before.len() && !is_next(k, before[b]) {
            if a < after.len() && pairable(b, a) && !is_next(k, after[a]) {
                out.push(Step::Both(b, a));
                b += 1;
                a += 1;
                continue;
            }
            out.push(Step::Deleted(b));
            b += 1;
        }
        while a < after.len() && !is_next(k, after[a]) {
            if tofu && b < before.len() && pairable(b, a) {
                out.push(Step::Both(b, a));
                b += 1;
                a += 1;
                continue;
            }
            out.push(Step::Created(a));
            a += 1;
        }
        if k < lcs.len() {
            // OpenTofu may have used up `before`: it then shows the LCS element as created.
            out.push(match before.get(b) {
                Some(_) => Step::Both(b, a),
                None => Step::Created(a),
            });
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

pub(super) fn reference_lcs(xs: &[u32], ys: &[u32]) -> Vec<u32> {
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
pub(super) fn distance_table(xs: &[u32], ys: &[u32]) -> Vec<Vec<usize>> {
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
pub(super) fn assert_valid(
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

pub(super) type Policy = fn(usize, usize) -> bool;

pub(super) const POLICIES: [(&str, Policy); 4] = [
    ("never", |_, _| false),
    ("always", |_, _| true),
    ("even-sum", |b, a| (b + a) % 2 == 0),
    ("even-before", |b, _| b % 2 == 0),
];

/// The fast pairing equals the reference for both tools and every policy, and takes
/// every index once, in order.
pub(super) fn check_all_policies(before: &[u32], after: &[u32]) {
    for pairing in [Pairing::Terraform, Pairing::OpenTofu] {
        for (name, policy) in POLICIES {
            let fast = pair_elements(before, after, pairing, policy);
            let slow = reference(before, after, pairing, policy);
            assert_eq!(
                fast, slow,
                "{pairing:?} policy {name}\nbefore {before:?}\nafter  {after:?}"
            );
            // Index pairing and OpenTofu's walk also pair elements `policy` keeps apart.
            assert_valid(before, after, &fast, |_, _| true);
        }
    }
}

pub(super) fn random_seq(rng: &mut Rng, max_len: usize, alphabet: u32) -> Vec<u32> {
    let len = rng.below(max_len + 1);
    (0..len).map(|_| rng.id(alphabet)).collect()
}

/// A few random single-element inserts, deletes and replacements.
pub(super) fn mutate(rng: &mut Rng, seq: &[u32], edits: usize, alphabet: u32) -> Vec<u32> {
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
pub(super) fn small_pair(rng: &mut Rng) -> (Vec<u32>, Vec<u32>) {
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
