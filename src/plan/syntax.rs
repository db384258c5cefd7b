//! Plan model: JSON values skipped with their syntax checked, as serde_json checks a
//! value it ignores (`IgnoredAny`): strings without raw control characters and with only
//! JSON's escapes (a `\u` escape's code unit is not looked at: a lone surrogate passes),
//! numbers of JSON's grammar, no limit on nesting. The text is UTF-8 already.
//!
//! The parallel parse ([`super::parallel`]) checks the lists' elements as it skims them,
//! in one pass, instead of serde checking the whole document's syntax on one thread.

use crate::value::{letter_escape, plain_run_stop, stop_byte};

/// The offset just past the JSON value at `at` (after any whitespace), its syntax
/// checked; `None` if there is no valid value there. What follows it is not looked at.
pub(super) fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut nesting = Nesting::default();
    let mut pos = after_space(bytes, at);
    loop {
        // A value starts at `pos`.
        match *bytes.get(pos)? {
            b'"' => pos = string_end(bytes, pos + 1)?,
            b'{' => {
                pos = after_space(bytes, pos + 1);
                if bytes.get(pos) == Some(&b'}') {
                    pos += 1;
                } else {
                    nesting.push(true);
                    pos = member_value(bytes, pos)?;
                    continue;
                }
            }
            b'[' => {
                pos = after_space(bytes, pos + 1);
                if bytes.get(pos) == Some(&b']') {
                    pos += 1;
                } else {
                    nesting.push(false);
                    continue;
                }
            }
            b'-' | b'0'..=b'9' => pos = number_end(bytes, pos)?,
            b't' => pos = literal_end(bytes, pos, b"true")?,
            b'f' => pos = literal_end(bytes, pos, b"false")?,
            b'n' => pos = literal_end(bytes, pos, b"null")?,
            _ => return None,
        }
        // After a value: the next one in its container, or the container's end.
        loop {
            let Some(object) = nesting.top() else {
                return Some(pos);
            };
            pos = after_space(bytes, pos);
            match (*bytes.get(pos)?, object) {
                (b',', true) => {
                    pos = member_value(bytes, after_space(bytes, pos + 1))?;
                    break;
                }
                (b',', false) => {
                    pos = after_space(bytes, pos + 1);
                    break;
                }
                (b'}', true) | (b']', false) => {
                    nesting.pop();
                    pos += 1;
                }
                _ => return None,
            }
        }
    }
}

/// From a member's key at `at` (a `"`), past its `:` to where its value starts.
fn member_value(bytes: &[u8], at: usize) -> Option<usize> {
    (bytes.get(at) == Some(&b'"')).then_some(())?;
    let pos = after_space(bytes, string_end(bytes, at + 1)?);
    (bytes.get(pos) == Some(&b':')).then(|| after_space(bytes, pos + 1))
}

/// The offset just past the string whose contents start at `at` (after its opening
/// quote), its escapes and characters checked.
pub(super) fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut pos = at;
    loop {
        let stop = plain_run_stop(bytes, pos);
        pos = stop.0;
        match stop_byte(bytes, stop)? {
            b'"' => return Some(pos + 1),
            b'\\' => pos = escape_end(bytes, pos + 1)?,
            0..=0x1f => return None,
            _ => pos += 1,
        }
    }
}

/// The offset just past the escape whose letter is at `at` (after its backslash).
fn escape_end(bytes: &[u8], at: usize) -> Option<usize> {
    match *bytes.get(at)? {
        letter if letter_escape(letter).is_some() => Some(at + 1),
        b'u' => {
            let hex = bytes.get(at + 1..at + 5)?;
            hex.iter().all(u8::is_ascii_hexdigit).then_some(at + 5)
        }
        _ => None,
    }
}

/// The offset just past the number at `at`: `-`, then `0` or digits not starting with
/// `0`, then optionally `.` and digits, then optionally `e` or `E`, a sign and digits.
fn number_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut pos = at + usize::from(bytes.get(at) == Some(&b'-'));
    match *bytes.get(pos)? {
        b'0' => pos += 1,
        b'1'..=b'9' => pos = digits_end(bytes, pos),
        _ => return None,
    }
    if bytes.get(pos) == Some(&b'.') {
        pos = some_digits_end(bytes, pos + 1)?;
    }
    if let Some(b'e' | b'E') = bytes.get(pos) {
        pos += 1;
        if let Some(b'+' | b'-') = bytes.get(pos) {
            pos += 1;
        }
        pos = some_digits_end(bytes, pos)?;
    }
    // What follows a number ends it (serde refuses `01` rather than reading `0`).
    match bytes.get(pos) {
        Some(b'0'..=b'9') => None,
        _ => Some(pos),
    }
}

fn digits_end(bytes: &[u8], at: usize) -> usize {
    at + bytes
        .get(at..)
        .unwrap_or_default()
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count()
}

/// Past one digit or more at `at`.
fn some_digits_end(bytes: &[u8], at: usize) -> Option<usize> {
    let end = digits_end(bytes, at);
    (end > at).then_some(end)
}

fn literal_end(bytes: &[u8], at: usize, word: &[u8]) -> Option<usize> {
    bytes
        .get(at..)?
        .starts_with(word)
        .then_some(at + word.len())
}

/// The first offset from `at` that is not JSON whitespace (or the text's length).
pub(super) fn after_space(bytes: &[u8], at: usize) -> usize {
    let rest = bytes.get(at..).unwrap_or_default();
    at + rest
        .iter()
        .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .unwrap_or(rest.len())
}

/// The containers a value is in, innermost last: `true` for an object. The first 64
/// levels are bits of a word (no allocation for Terraform's values); deeper ones, if any,
/// are kept in a vector.
#[derive(Default)]
struct Nesting {
    bits: u64,
    depth: usize,
    deeper: Vec<bool>,
}

impl Nesting {
    fn push(&mut self, object: bool) {
        if self.depth < 64 {
            self.bits = (self.bits & !(1 << self.depth)) | (u64::from(object) << self.depth);
        } else {
            self.deeper.push(object);
        }
        self.depth += 1;
    }

    fn pop(&mut self) {
        self.depth -= 1;
        if self.depth >= 64 {
            self.deeper.pop();
        }
    }

    /// Whether the innermost container is an object; `None` outside any.
    fn top(&self) -> Option<bool> {
        match self.depth {
            0 => None,
            1..=64 => Some(self.bits & (1 << (self.depth - 1)) != 0),
            _ => self.deeper.last().copied(),
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// Whether `text` is one JSON value (with space around it) as serde checks it.
    fn serde_accepts(text: &str) -> bool {
        serde_json::from_str::<serde::de::IgnoredAny>(text).is_ok()
    }

    fn accepts(text: &str) -> bool {
        let bytes = text.as_bytes();
        value_end(bytes, 0).is_some_and(|end| after_space(bytes, end) == bytes.len())
    }

    #[test]
    fn accepts_and_refuses_what_serde_does() {
        let cases = [
            "{}",
            "[]",
            " {\"a\" : [1, -0.5e+3, true, false, null, \"x\\u00e9\\n\"] } ",
            "\"\\ud800\"",
            "0",
            "-0",
            "1E5",
            "{\"a\":{\"b\":[[],{}]}}",
            "",
            "{",
            "[1,]",
            "{\"a\"}",
            "{\"a\":1,}",
            "{,}",
            "[,1]",
            "01",
            "-",
            "1.",
            ".5",
            "+1",
            "1e",
            "1e+",
            "tru",
            "nul",
            "[1] x",
            "\"a\u{1}\"",
            "\"\\x\"",
            "\"\\u12g4\"",
            "\"\\u12\"",
            "\"abc",
            "{\"a\":1]",
            "[1}",
            "{1:2}",
            "[1 2]",
            "{\"a\" 1}",
            "truex",
            "[truefalse]",
            "[1true]",
        ];
        for case in cases {
            assert_eq!(accepts(case), serde_accepts(case), "{case:?}");
        }
    }

    #[test]
    fn nesting_deeper_than_a_word_holds() {
        for depth in [63, 64, 65, 200, 100_000] {
            let mixed: String = (0..depth).map(|i| ["[", "{\"k\":"][i % 2]).collect();
            let close: String = (0..depth).rev().map(|i| ["]", "}"][i % 2]).collect();
            let text = format!("{mixed}1{close}");
            assert!(accepts(&text), "{depth}");
            // A closing bracket of the wrong kind, deep inside.
            let wrong = format!("{mixed}1{}", close.replacen('}', "]", 1));
            assert!(!accepts(&wrong), "{depth}");
        }
    }

    /// Bytes that make or break JSON.
    const ALPHABET: &[u8] = b"{}[]:,\"\\ 0123456789-+.eEtrufalsn\x01xu/\n";

    fn json_like() -> impl Strategy<Value = String> {
        prop::collection::vec(prop::sample::select(ALPHABET), 0..24)
            .prop_map(|bytes| String::from_utf8(bytes).unwrap())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(20_000))]

        #[test]
        fn agrees_with_serde_on_any_text(text in json_like()) {
            prop_assert_eq!(accepts(&text), serde_accepts(&text), "{:?}", text);
        }

        #[test]
        fn agrees_with_serde_on_broken_values(
            at in 0usize..64, insert in json_like(), cut in 0usize..4,
        ) {
            // A valid value with a few bytes replaced.
            let valid = r#"{"a":[1,-2.5e3,"s\"\u0041",{"b":null,"c":true}],"d":false,"e":{}}"#;
            let at = at.min(valid.len());
            let end = (at + cut).min(valid.len());
            let text = format!("{}{insert}{}", &valid[..at], &valid[end..]);
            prop_assert_eq!(accepts(&text), serde_accepts(&text), "{:?}", text);
        }
    }
}
