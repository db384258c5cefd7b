//! JSON values: the parser behind [`Value::parse`].

use std::borrow::Cow;

use super::scan::{letter_escape, plain_run_end};
use super::{cmp_keys, ParseError, Value, MAX_DEPTH};

impl<'a> Value<'a> {
    /// Parses a complete JSON text (surrounding whitespace allowed).
    pub(crate) fn parse(text: &'a str) -> Result<Value<'a>, ParseError> {
        let mut parser = Parser::new(text);
        let value = parser.value(0)?;
        parser.skip_ws();
        if parser.pos != parser.bytes.len() {
            return Err(parser.error("trailing characters after JSON value"));
        }
        Ok(value)
    }
}

pub(super) struct Parser<'a> {
    text: &'a str,
    pub(super) bytes: &'a [u8],
    pub(super) pos: usize,
    /// Shared stacks for the elements of the arrays and objects being parsed: each
    /// container collects its children on top and moves them into an exactly-sized Vec
    /// when it closes (no growth reallocations, no spare capacity kept).
    items: Vec<Value<'a>>,
    members: Vec<(Cow<'a, str>, Value<'a>)>,
}

impl<'a> Parser<'a> {
    /// A parser at the start of `text`'s first value (past any whitespace).
    pub(super) fn new(text: &'a str) -> Self {
        let mut parser = Parser {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            items: Vec::new(),
            members: Vec::new(),
        };
        parser.skip_ws();
        parser
    }

    pub(super) fn error(&self, reason: &'static str) -> ParseError {
        ParseError {
            offset: self.pos,
            reason,
        }
    }

    pub(super) fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    pub(super) fn value(&mut self, depth: usize) -> Result<Value<'a>, ParseError> {
        if depth > MAX_DEPTH {
            return Err(self.error("nesting too deep"));
        }
        match self.bytes.get(self.pos) {
            None => Err(self.error("unexpected end of input")),
            Some(b'{') => self.object(depth),
            Some(b'[') => self.array(depth),
            Some(b'"') => Ok(Value::String(self.string()?)),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("unexpected character")),
        }
    }

    fn literal(&mut self, word: &str, value: Value<'a>) -> Result<Value<'a>, ParseError> {
        if self.bytes[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(value)
        } else {
            Err(self.error("invalid literal"))
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while let Some(b'0'..=b'9') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
        self.pos - start
    }

    fn number(&mut self) -> Result<Value<'a>, ParseError> {
        let start = self.pos;
        if self.bytes[self.pos] == b'-' {
            self.pos += 1;
        }
        match self.bytes.get(self.pos) {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.error("invalid number")),
        }
        if self.bytes.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return Err(self.error("invalid number"));
            }
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.pos) {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.bytes.get(self.pos) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return Err(self.error("invalid number"));
            }
        }
        Ok(Value::Number(Cow::Borrowed(&self.text[start..self.pos])))
    }

    /// Skips plain string bytes (see [`plain_run_end`]).
    #[inline]
    fn skip_plain(&mut self) {
        self.pos = plain_run_end(self.bytes, self.pos);
    }

    fn string(&mut self) -> Result<Cow<'a, str>, ParseError> {
        self.pos += 1; // opening quote
        let start = self.pos;
        self.skip_plain();
        // Fast path: no escapes, borrow the source.
        match self.bytes.get(self.pos) {
            None => return Err(self.error("unterminated string")),
            Some(b'"') => {
                let s = &self.text[start..self.pos];
                self.pos += 1;
                return Ok(Cow::Borrowed(s));
            }
            Some(b'\\') => {}
            Some(_) => return Err(self.error("control character in string")),
        }
        let mut out = String::with_capacity(self.pos - start + 16);
        out.push_str(&self.text[start..self.pos]);
        loop {
            match self.bytes.get(self.pos) {
                None => return Err(self.error("unterminated string")),
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(Cow::Owned(out));
                }
                Some(b'\\') => {
                    self.pos += 1;
                    self.escape(&mut out)?;
                }
                Some(&b) if b < 0x20 => return Err(self.error("control character in string")),
                Some(_) => {
                    // Copy a run of plain characters at once (keeps UTF-8 intact).
                    let run_start = self.pos;
                    self.skip_plain();
                    out.push_str(&self.text[run_start..self.pos]);
                }
            }
        }
    }

    fn escape(&mut self, out: &mut String) -> Result<(), ParseError> {
        let Some(&b) = self.bytes.get(self.pos) else {
            return Err(self.error("unterminated escape"));
        };
        self.pos += 1;
        if let Some(c) = letter_escape(b) {
            out.push(c);
            return Ok(());
        }
        if b != b'u' {
            return Err(self.error("invalid escape"));
        }
        let first = self.hex4()?;
        // A high surrogate must be followed by a low one to form a pair.
        let ch = if (0xD800..0xDC00).contains(&first) && self.bytes[self.pos..].starts_with(b"\\u")
        {
            let save = self.pos;
            self.pos += 2;
            let second = self.hex4()?;
            if (0xDC00..0xE000).contains(&second) {
                char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            } else {
                self.pos = save;
                None
            }
        } else {
            // A surrogate is no `char`: `None`.
            char::from_u32(first)
        };
        // Lone surrogates decode to U+FFFD, as Go's decoder does.
        out.push(ch.unwrap_or('\u{FFFD}'));
        Ok(())
    }

    fn hex4(&mut self) -> Result<u32, ParseError> {
        let digits = self
            .bytes
            .get(self.pos..self.pos + 4)
            .ok_or_else(|| self.error("short unicode escape"))?;
        let mut n = 0u32;
        for &d in digits {
            let v = (d as char)
                .to_digit(16)
                .ok_or_else(|| self.error("invalid unicode escape"))?;
            n = n * 16 + v;
        }
        self.pos += 4;
        Ok(n)
    }

    fn array(&mut self, depth: usize) -> Result<Value<'a>, ParseError> {
        self.pos += 1;
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Value::Array(Vec::new()));
        }
        let start = self.items.len();
        loop {
            self.skip_ws();
            let item = self.value(depth + 1)?;
            self.items.push(item);
            self.skip_ws();
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(self.items.drain(start..).collect()));
                }
                _ => return Err(self.error("expected , or ] in array")),
            }
        }
    }

    /// An object member's key and the colon after it, consumed up to the value's first
    /// byte.
    #[inline(always)]
    pub(super) fn key(&mut self) -> Result<Cow<'a, str>, ParseError> {
        if self.bytes.get(self.pos) != Some(&b'"') {
            return Err(self.error("expected string key in object"));
        }
        let key = self.string()?;
        self.skip_ws();
        if self.bytes.get(self.pos) != Some(&b':') {
            return Err(self.error("expected : in object"));
        }
        self.pos += 1;
        self.skip_ws();
        Ok(key)
    }

    fn object(&mut self, depth: usize) -> Result<Value<'a>, ParseError> {
        self.pos += 1;
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(Value::Object(Vec::new()));
        }
        let start = self.members.len();
        loop {
            self.skip_ws();
            let key = self.key()?;
            let value = self.value(depth + 1)?;
            self.members.push((key, value));
            self.skip_ws();
            match self.bytes.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    let members: Vec<_> = self.members.drain(start..).collect();
                    return Ok(Value::Object(sort_members(members)));
                }
                _ => return Err(self.error("expected , or } in object")),
            }
        }
    }
}

/// Sorts members bytewise by key and keeps the last of duplicate keys.
fn sort_members<'a>(mut members: Vec<(Cow<'a, str>, Value<'a>)>) -> Vec<(Cow<'a, str>, Value<'a>)> {
    let sorted = members
        .windows(2)
        .all(|w| cmp_keys(&w[0].0, &w[1].0) == std::cmp::Ordering::Less);
    if sorted {
        return members;
    }
    // Reversed, a stable sort puts the last of equal keys first, which `dedup` keeps.
    members.reverse();
    members.sort_by(|a, b| a.0.cmp(&b.0));
    members.dedup_by(|later, first| later.0 == first.0);
    members
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_kept_verbatim() {
        let v = Value::parse(r#"[1e400, 123456789012345678901234567890, 0.10, -0]"#).unwrap();
        let Value::Array(items) = v else { panic!() };
        let texts: Vec<_> = items
            .iter()
            .map(|i| match i {
                Value::Number(n) => n.to_string(),
                _ => panic!(),
            })
            .collect();
        assert_eq!(
            texts,
            ["1e400", "123456789012345678901234567890", "0.10", "-0"]
        );
    }

    #[test]
    fn strings_borrow_unless_escaped() {
        let v = Value::parse(r#"{"a":"plain","b":"x\ny\u00e9\ud83d\ude00"}"#).unwrap();
        assert!(matches!(
            v.get("a"),
            Some(Value::String(Cow::Borrowed("plain")))
        ));
        assert_eq!(v.get("b").and_then(Value::as_str), Some("x\nyé😀"));
    }

    #[test]
    fn keys_sorted_and_last_duplicate_wins() {
        let v = Value::parse(r#"{"b":1,"a":2,"b":3}"#).unwrap();
        let Value::Object(members) = v else { panic!() };
        let keys: Vec<_> = members.iter().map(|(k, _)| k.as_ref()).collect();
        assert_eq!(keys, ["a", "b"]);
        assert_eq!(members[1].1, Value::Number("3".into()));
    }

    #[test]
    fn scalars_count_in_the_nesting_limit() {
        for scalar in ["\"s\"", "true", "null", "1"] {
            for (arrays, ok) in [(MAX_DEPTH, true), (MAX_DEPTH + 1, false)] {
                let text = format!("{}{scalar}{}", "[".repeat(arrays), "]".repeat(arrays));
                assert_eq!(Value::parse(&text).is_ok(), ok, "{scalar} in {arrays}");
                let member = format!("{}{scalar}{}", "{\"k\":".repeat(arrays), "}".repeat(arrays));
                assert_eq!(Value::parse(&member).is_ok(), ok, "{scalar} in {arrays}");
            }
        }
    }

    #[test]
    fn rejects_invalid_json() {
        for bad in [
            "",
            "{",
            "[1,]",
            "{\"a\"}",
            "01",
            "1.",
            "tru",
            "[1] x",
            "\"a\u{1}\"",
            "{\"a\":1,}",
        ] {
            assert!(Value::parse(bad).is_err(), "{bad:?} should not parse");
        }
        assert!(Value::parse("  [1]\n").is_ok());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        assert!(Value::parse(&deep).is_err());
    }

    #[test]
    fn strings_scan_without_missing_a_byte() {
        // Quotes, escapes and control characters at every offset of a short string, with
        // multi-byte characters before them.
        for len in 0..20 {
            for prefix in ["", "é", "😀x"] {
                let plain: String = prefix.to_string() + &"a".repeat(len);
                let text = format!("[\"{plain}\",1]");
                let v = Value::parse(&text).unwrap();
                assert_eq!(
                    v,
                    Value::Array(vec![
                        Value::String(plain.clone().into()),
                        Value::Number("1".into())
                    ])
                );
                let text = format!("\"{plain}\\\"{plain}\\n\"");
                let v = Value::parse(&text).unwrap();
                assert_eq!(v.as_str(), Some(format!("{plain}\"{plain}\n").as_str()));
                assert!(Value::parse(&format!("\"{plain}\u{1}x\"")).is_err());
                assert!(Value::parse(&format!("\"{plain}")).is_err());
            }
        }
    }

    #[test]
    fn lone_surrogate_becomes_replacement_character() {
        let v = Value::parse(r#""\ud800x""#).unwrap();
        assert_eq!(v.as_str(), Some("\u{FFFD}x"));
    }
}
