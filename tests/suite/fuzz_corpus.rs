//! The fuzz targets on stable, bounded: every seed (`fuzz/seeds/<target>/` and the fixture
//! plans and schemas) and a few thousand deterministic mutations of them (bit flips,
//! truncations, splices, JSON values swapped for hostile ones) go through the same target
//! bodies cargo-fuzz runs (`fuzz/targets.rs`), which panic when an invariant breaks.
//!
//! `PLANMARK_FUZZ_ITERATIONS` (default 1,000 per target) and `PLANMARK_FUZZ_SEED` change
//! the run; a failing input is written to the temp dir and named in the failure, ready to
//! add to `fuzz/seeds/`. For long runs use cargo-fuzz (docs/security.md).

#[path = "../../fuzz/targets.rs"]
mod targets;

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// Values a mutation may put in place of a JSON scalar: masks, hostile strings, numbers
/// beyond 64 bits, structures of the wrong type.
const DICTIONARY: &[&str] = &[
    "null",
    "true",
    "false",
    "{}",
    "[]",
    "[true]",
    "[false,true]",
    "{\"a\":true}",
    "[[\"a\"]]",
    "[[0]]",
    "[[\"list\",1]]",
    "0",
    "-1",
    "1.50",
    "1e400",
    "-0.1e-400",
    "123456789012345678901234567890",
    "\"\"",
    "\"```\"",
    "\"````\\n```\"",
    "\"<!-- x -->\"",
    "\"-->\"",
    "\"<script>alert(1)</script>\"",
    "\"</details></summary>\"",
    "\"@user #123 GH-1 https://x.io www.x.io\"",
    "\"{{x}} {{> footer}} {{{marker}}}\"",
    "\"a\\u0000b\\r\\nc\"",
    "\"\\u202e\\u200b\\ufeff\\u2066\"",
    "\"| a | b |\"",
    "\"[x](javascript:alert(1))\"",
    "\"\\ud800\"",
    "\"{\\\"a\\\":[1,{\\\"b\\\":null}]}\"",
    "\"line\\nline\\n\"",
    "[[[[[[[[[[[[1]]]]]]]]]]]]",
    "{\"a\":{\"a\":{\"a\":{\"a\":{}}}}}",
    "\"1.2\"",
    "\"2.0\"",
    "\"delete\"",
    "[\"delete\",\"create\"]",
    "[\"create\",\"delete\"]",
    "[\"read\"]",
    "[\"no-op\"]",
    "[\"forget\"]",
];

/// splitmix64: small, seedable, good enough to pick mutations.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Start offsets and ends of the JSON scalars in `data` (strings, numbers, literals),
/// found by a tolerant scan that does not need the input to be valid.
fn scalar_spans(data: &[u8]) -> Vec<(usize, usize)> {
    let mut spans = Vec::new();
    let mut i = 0;
    while i < data.len() {
        match data[i] {
            b'"' => {
                let start = i;
                i += 1;
                while i < data.len() && data[i] != b'"' {
                    i += if data[i] == b'\\' { 2 } else { 1 };
                }
                i = (i + 1).min(data.len());
                spans.push((start, i));
            }
            b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => {
                let start = i;
                while i < data.len() && !b",]}: \n\t\r".contains(&data[i]) {
                    i += 1;
                }
                spans.push((start, i));
            }
            _ => i += 1,
        }
    }
    spans
}

/// One random mutation of `data` (`others` supplies material to splice in).
fn mutate(rng: &mut Rng, data: &[u8], others: &[Vec<u8>]) -> Vec<u8> {
    let mut out = data.to_vec();
    if out.is_empty() {
        return DICTIONARY[rng.below(DICTIONARY.len())].as_bytes().to_vec();
    }
    match rng.below(6) {
        0 => {
            let at = rng.below(out.len());
            out[at] ^= 1 << rng.below(8);
        }
        1 => out.truncate(rng.below(out.len())),
        2 => {
            let other = &others[rng.below(others.len())];
            if !other.is_empty() {
                let from = rng.below(other.len());
                let to = from + rng.below(other.len() - from + 1).min(200);
                let at = rng.below(out.len() + 1);
                out.splice(at..at, other[from..to].iter().copied());
            }
        }
        3 => {
            let at = rng.below(out.len() + 1);
            let token = DICTIONARY[rng.below(DICTIONARY.len())].as_bytes();
            out.splice(at..at, token.iter().copied());
        }
        // Structure-preserving: swap whole scalars, so most mutants still parse and reach
        // the differ and renderers. Weighted double.
        _ => {
            for _ in 0..1 + rng.below(3) {
                let spans = scalar_spans(&out);
                if spans.is_empty() {
                    break;
                }
                let (start, end) = spans[rng.below(spans.len())];
                let token = DICTIONARY[rng.below(DICTIONARY.len())].as_bytes();
                out.splice(start..end, token.iter().copied());
            }
        }
    }
    out
}

fn iterations() -> usize {
    std::env::var("PLANMARK_FUZZ_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000)
}

fn seed() -> u64 {
    std::env::var("PLANMARK_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x5EED_F022)
}

/// Files directly in `dir`, and `name` in each of its sub-directories, under `max_bytes`.
fn files(dir: &Path, name: Option<&str>, max_bytes: u64) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter_map(|p| match name {
            Some(name) if p.is_dir() => Some(p.join(name)),
            None if p.is_file() => Some(p),
            _ => None,
        })
        .filter(|p| std::fs::metadata(p).is_ok_and(|m| m.is_file() && m.len() <= max_bytes))
        .collect();
    paths.sort();
    paths
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `target` on every seed, then on `iterations()` mutants; on a panic, saves the
/// input and fails naming it.
fn run(name: &str, target: fn(&[u8]), seeds: &[PathBuf]) {
    let inputs: Vec<Vec<u8>> = seeds.iter().map(|p| std::fs::read(p).unwrap()).collect();
    assert!(inputs.len() >= 5, "{name}: only {} seeds", inputs.len());
    let check = |label: &str, data: &[u8]| {
        if catch_unwind(AssertUnwindSafe(|| target(data))).is_err() {
            let saved = std::env::temp_dir()
                .join(format!("planmark-fuzz-{name}-{}.json", std::process::id()));
            std::fs::write(&saved, data).unwrap();
            panic!(
                "{name}: {label} broke an invariant (see the panic above); input saved to {}",
                saved.display()
            );
        }
    };
    for (path, data) in seeds.iter().zip(&inputs) {
        check(&format!("seed {}", path.display()), data);
    }
    let mut rng = Rng(seed());
    for i in 0..iterations() {
        let base = &inputs[rng.below(inputs.len())];
        let mut data = mutate(&mut rng, base, &inputs);
        // Stack a few mutations now and then, to get further from the seeds.
        for _ in 0..rng.below(3) {
            data = mutate(&mut rng, &data, &inputs);
        }
        check(&format!("mutant {i} (seed {})", seed()), &data);
    }
}

#[test]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
fn plan_render_survives_seeds_and_mutants() {
    let mut seeds = files(&root().join("fuzz/seeds/plan_render"), None, 1 << 20);
    // The comment fixtures' own plans; its other cases hold copies of fixture plans.
    let comment = root().join("tests/fixtures/comment");
    for plan in ["checks/plan.json", "hostile.json", "lifecycle/plan.json"] {
        seeds.push(comment.join(plan));
    }
    seeds.extend(files(
        &root().join("tests/fixtures/equivalence"),
        Some("plan.json"),
        1 << 14,
    ));
    run("plan_render", targets::plan_render, &seeds);
}

#[test]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
fn schema_parse_survives_seeds_and_mutants() {
    let mut seeds = files(&root().join("fuzz/seeds/schema_parse"), None, 1 << 20);
    seeds.extend(files(
        &root().join("tests/fixtures/equivalence"),
        Some("schemas.json"),
        1 << 14,
    ));
    run("schema_parse", targets::schema_parse, &seeds);
}

#[test]
fn mutations_are_deterministic_and_varied() {
    let base = br#"{"a":[1,"x",true],"b":null}"#.to_vec();
    let others = vec![base.clone()];
    let run = |seed| {
        let mut rng = Rng(seed);
        (0..50)
            .map(|_| mutate(&mut rng, &base, &others))
            .collect::<Vec<_>>()
    };
    assert_eq!(run(7), run(7));
    let mutants = run(7);
    let distinct: std::collections::BTreeSet<_> = mutants.iter().collect();
    assert!(
        distinct.len() > 30,
        "only {} distinct mutants",
        distinct.len()
    );
    // Structure-preserving swaps keep many mutants valid JSON.
    let valid = mutants
        .iter()
        .filter(|m| serde_json::from_slice::<serde::de::IgnoredAny>(m).is_ok())
        .count();
    assert!(valid >= 10, "only {valid} of 50 mutants are JSON");
    assert_eq!(
        scalar_spans(br#"{"k": "v\"w", "n": -1.5e3, "t": true}"#).len(),
        6
    );
}
