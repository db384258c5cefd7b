//! Input stage support, the one home for JSON text read by hand: a JSON value that keeps
//! numbers exactly as written ([`Value`], parsed by `parse`), and the scanners it is
//! built on (`scan`: string runs, escapes, and finding where an
//! object starts from one of its members), which the differ, the renderers and the plan
//! model use too. serde reads the plan's structure; this reads its values.
//!
//! Terraform numbers are arbitrary precision and its renderer prints them verbatim
//! (`9223372036854773256`, `1e400`, `0.10`), so values are parsed here rather than into
//! `serde_json::Value` (which would round through `f64`). Strings without escapes borrow
//! from the input; object keys are sorted bytewise and deduplicated (last wins), which is
//! how Terraform's Go decoder sees them.

mod parse;
mod scan;
mod walk;

use std::borrow::Cow;
use std::hash::{Hash, Hasher};

pub(crate) use scan::{object_start, printable_run_end};
pub(crate) use walk::Member;

/// A parsed JSON value borrowing from its source text where it can.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(crate) enum Value<'a> {
    /// JSON `null`.
    #[default]
    Null,
    /// JSON `true` / `false`.
    Bool(bool),
    /// A number, exactly as written in the source.
    Number(Cow<'a, str>),
    /// A string, unescaped.
    String(Cow<'a, str>),
    /// An array.
    Array(Vec<Value<'a>>),
    /// An object: keys sorted bytewise, unique.
    Object(Vec<(Cow<'a, str>, Value<'a>)>),
}

/// Why a text is not JSON (only used to decide "not JSON"; never shown with plan data).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ParseError {
    /// Byte offset of the problem.
    pub(crate) offset: usize,
    /// What was wrong.
    pub(crate) reason: &'static str,
}

/// Deepest nesting accepted; deeper input is reported as an error, never a stack overflow.
pub(crate) const MAX_DEPTH: usize = 256;

impl<'a> Value<'a> {
    /// Looks up an object member.
    pub(crate) fn get(&self, key: &str) -> Option<&Value<'a>> {
        match self {
            Value::Object(members) => members
                .binary_search_by(|(k, _)| cmp_keys(k, key))
                .ok()
                .map(|ix| &members[ix].1),
            _ => None,
        }
    }

    /// The value as a string, if it is one.
    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// Is this `true`? (How sensitivity and unknown masks mark a whole node.)
    pub(crate) fn is_true(&self) -> bool {
        matches!(self, Value::Bool(true))
    }

    /// A structural hash, used to put deep-equal values in one class cheaply.
    ///
    /// Only stable within one process; equal values always hash alike.
    pub(crate) fn structural_hash(&self) -> u64 {
        let mut hasher = FastHasher::default();
        self.hash(&mut hasher);
        hasher.finish()
    }
}

/// A fast non-cryptographic hasher (the multiply-rotate scheme of rustc's `FxHasher`).
/// Class ids only need equal values to collide, and collisions are resolved by
/// comparing values, so SipHash's flooding resistance buys nothing here.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FastHasher {
    hash: u64,
}

impl FastHasher {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(Self::SEED);
    }
}

impl Hasher for FastHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 59));
        }
    }

    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    #[inline]
    fn write_isize(&mut self, n: isize) {
        self.add(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

/// `BuildHasher` for maps keyed by hashes or small ids.
pub(crate) type FastBuildHasher = std::hash::BuildHasherDefault<FastHasher>;

/// Bytewise order of two keys (the order of `str`), inlined: object keys are short, and a
/// byte loop beats a call to `memcmp` for them.
#[inline]
pub(crate) fn cmp_keys(a: &str, b: &str) -> std::cmp::Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    for (x, y) in a.iter().zip(b) {
        if x != y {
            return x.cmp(y);
        }
    }
    a.len().cmp(&b.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_stay_four_words() {
        // Plans hold millions of values: four words each.
        assert_eq!(std::mem::size_of::<Value<'_>>(), 32);
    }
}
