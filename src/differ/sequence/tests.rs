//! Stage: differ (tests). The fast pairing against the plain references, on fixed,
//! exhaustive, random and very large inputs.

use super::lcs::{terraform_lcs, MAX_EDIT_DISTANCE, MAX_WORK};
use super::reference::*;
use super::{pair_elements, walk, Pairing, Step};

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
fn swap_of_two() {
    let steps = pair_elements(&[1, 2], &[2, 1], Pairing::Terraform, |_, _| false);
    assert_eq!(
        steps,
        [Step::Deleted(0), Step::Both(1, 0), Step::Created(1)]
    );
}

#[test]
fn insertion_and_deletion_in_the_middle() {
    // a b d e f -> a b c d e f, then back.
    let (short, long) = ([1, 2, 4, 5, 6], [1, 2, 3, 4, 5, 6]);
    let inserted = [
        Step::Both(0, 0),
        Step::Both(1, 1),
        Step::Created(2),
        Step::Both(2, 3),
        Step::Both(3, 4),
        Step::Both(4, 5),
    ];
    assert_eq!(
        pair_elements(&short, &long, Pairing::Terraform, |_, _| true),
        inserted
    );
    // Deleting is the mirror image: each step with its sides swapped.
    let deleted: Vec<Step> = inserted
        .iter()
        .map(|step| match *step {
            Step::Both(b, a) => Step::Both(a, b),
            Step::Created(a) => Step::Deleted(a),
            Step::Deleted(b) => Step::Created(b),
        })
        .collect();
    assert_eq!(
        pair_elements(&long, &short, Pairing::Terraform, |_, _| true),
        deleted
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
            assert_eq!(
                fast,
                reference(before, after, Pairing::Terraform, POLICIES[2].1)
            );
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
