//! Plan model support: a JSON value that keeps numbers exactly as written.
//!
//! Terraform numbers are arbitrary precision and its renderer prints them verbatim
//! (`9223372036854773256`, `1e400`, `0.10`), so values are parsed here rather than into
//! `serde_json::Value` (which would round through `f64`). Strings without escapes borrow
//! from the input; object keys are sorted bytewise and deduplicated (last wins), which is
//! how Terraform's Go decoder sees them.

use std::borrow::Cow;
use std::hash::{Hash, Hasher};

/// A parsed JSON value borrowing from its source text where it can.
// A word-sized tag, for speed: with a one-byte tag the compiler moves a value (every
// parsed element is moved into its container) as 31 bytes from offset 1, in overlapping
// unaligned copies that stall when read back as words. Parsing is 10-20 % faster this
// way; the size is the same (32 bytes, checked below).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
#[repr(u64)]
pub enum Value<'a> {
    /// JSON `null`.
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
pub struct ParseError {
    /// Byte offset of the problem.
    pub offset: usize,
    /// What was wrong.
    pub reason: &'static str,
}

/// Deepest nesting accepted; deeper input is reported as an error, never a stack overflow.
pub const MAX_DEPTH: usize = 256;

impl<'a> Value<'a> {
    /// Parses a complete JSON text (surrounding whitespace allowed).
    pub fn parse(text: &'a str) -> Result<Value<'a>, ParseError> {
        let mut parser = Parser::new(text);
        let value = parser.value(0)?;
        parser.skip_ws();
        if parser.pos != parser.bytes.len() {
            return Err(parser.error("trailing characters after JSON value"));
        }
        Ok(value)
    }

    /// Walks the object at the start of `text` (after whitespace) member by member,
    /// ignoring whatever follows it, without building it: `member` gets each key, in
    /// document order (duplicates included), and the member's value to read
    /// ([`Member::value`]) or walk ([`Member::members`]); a value it leaves is checked and
    /// dropped. For a caller that takes a few members out of an object (one element of a
    /// larger document) and would otherwise build the object only to take it apart.
    /// `Ok(false)`, nothing walked, when the value is not an object.
    pub(crate) fn walk_prefix(
        text: &'a str,
        member: impl FnMut(&str, Member<'_, 'a>) -> Result<(), ParseError>,
    ) -> Result<bool, ParseError> {
        Member {
            parser: &mut Parser::new(text),
            depth: 0,
        }
        .members(member)
    }

    /// Looks up an object member.
    pub fn get(&self, key: &str) -> Option<&Value<'a>> {
        match self {
            Value::Object(members) => members
                .binary_search_by(|(k, _)| cmp_keys(k, key))
                .ok()
                .map(|ix| &members[ix].1),
            _ => None,
        }
    }

    /// The value as a bool, if it is one.
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The value as a string, if it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// Is this `true`? (How sensitivity and unknown masks mark a whole node.)
    pub fn is_true(&self) -> bool {
        matches!(self, Value::Bool(true))
    }

    /// Copies every borrowed string so the value no longer depends on its source.
    pub fn into_owned(self) -> Value<'static> {
        match self {
            Value::Null => Value::Null,
            Value::Bool(b) => Value::Bool(b),
            Value::Number(n) => Value::Number(Cow::Owned(n.into_owned())),
            Value::String(s) => Value::String(Cow::Owned(s.into_owned())),
            Value::Array(items) => Value::Array(items.into_iter().map(Value::into_owned).collect()),
            Value::Object(members) => Value::Object(
                members
                    .into_iter()
                    .map(|(k, v)| (Cow::Owned(k.into_owned()), v.into_owned()))
                    .collect(),
            ),
        }
    }

    /// A structural hash, used to put deep-equal values in one class cheaply.
    ///
    /// Only stable within one process; equal values always hash alike.
    pub fn structural_hash(&self) -> u64 {
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

struct Parser<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// Shared stacks for the elements of the arrays and objects being parsed: each
    /// container collects its children on top and moves them into an exactly-sized Vec
    /// when it closes (no growth reallocations, no spare capacity kept).
    items: Vec<Value<'a>>,
    members: Vec<(Cow<'a, str>, Value<'a>)>,
}

/// A word with `b` in every byte.
const fn splat(b: u8) -> u64 {
    u64::from_ne_bytes([b; 8])
}

/// The bytes of `word` (read little-endian) that a string scan must stop at: a quote, a
/// backslash or a control character (below 0x20). The lowest set bit marks the first such
/// byte exactly (higher bits may be spurious, which does not matter for finding it).
#[inline]
fn special_bytes(word: u64) -> u64 {
    const LOW: u64 = splat(0x01);
    const HIGH: u64 = splat(0x80);
    let zero_byte = |w: u64| w.wrapping_sub(LOW) & !w & HIGH;
    let quote = zero_byte(word ^ splat(b'"'));
    let backslash = zero_byte(word ^ splat(b'\\'));
    // A byte below 0x20 has bit 7 clear and underflows when 0x20 is subtracted.
    let control = word.wrapping_sub(splat(0x20)) & !word & HIGH;
    quote | backslash | control
}

/// Where the run of printable ASCII other than quote and backslash from `from` ends (what
/// Go's `%q` copies as it is): at the first other byte, or at the end of `bytes`. Scanned
/// eight bytes at a time like [`plain_run_end`], the last few one by one.
#[inline]
pub(crate) fn printable_run_end(bytes: &[u8], mut from: usize) -> usize {
    const HIGH: u64 = splat(0x80);
    while let Some(chunk) = bytes.get(from..from + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        // DEL (0x7f) and every byte from 0x80 (non-ASCII) stop the run as well.
        let delete = (word ^ splat(0x7f)).wrapping_sub(splat(0x01)) & !(word ^ splat(0x7f));
        let special = special_bytes(word) | ((word | delete) & HIGH);
        if special != 0 {
            return from + (special.trailing_zeros() / 8) as usize;
        }
        from += 8;
    }
    let copied = |b: &u8| matches!(b, b' '..=b'~') && !matches!(b, b'"' | b'\\');
    from + bytes[from..].iter().take_while(|b| copied(b)).count()
}

/// Where the run of plain string bytes from `from` ends, scanned eight bytes at a time:
/// at the first byte that is a quote, a backslash or a control character, or within the
/// last eight bytes of `bytes` (where a caller's byte loop takes over).
#[inline]
pub(crate) fn plain_run_end(bytes: &[u8], from: usize) -> usize {
    plain_run_stop(bytes, from).0
}

/// [`plain_run_end`] with the byte it stopped at when it stopped inside a word (taken
/// from the word: reading it again from memory, at an offset just computed, made every
/// string scan wait on that load); `None` within the last eight bytes.
#[inline]
pub(crate) fn plain_run_stop(bytes: &[u8], mut from: usize) -> (usize, Option<u8>) {
    while let Some(chunk) = bytes.get(from..from + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        let special = special_bytes(word);
        if special != 0 {
            let offset = special.trailing_zeros() / 8;
            return (from + offset as usize, Some((word >> (offset * 8)) as u8));
        }
        from += 8;
    }
    (from, None)
}

/// The byte at `pos`, where [`plain_run_stop`] stopped: the one it gives, or read.
#[inline]
pub(crate) fn stop_byte(bytes: &[u8], (pos, byte): (usize, Option<u8>)) -> Option<u8> {
    byte.or_else(|| bytes.get(pos).copied())
}

/// The offset of the closing quote of the string whose contents start at `at` (after its
/// opening quote), if it has no escapes and no control characters.
#[inline]
pub(crate) fn plain_string_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut pos = at;
    loop {
        let stop = plain_run_stop(bytes, pos);
        pos = stop.0;
        match stop_byte(bytes, stop)? {
            b'"' => return Some(pos),
            b'\\' | 0..=0x1f => return None,
            _ => pos += 1,
        }
    }
}

/// The character a one-letter escape (`\n`, `\"`, ...: every JSON escape but `\u`)
/// stands for, by the letter after its backslash.
#[inline]
pub(crate) fn letter_escape(letter: u8) -> Option<char> {
    Some(match letter {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        _ => return None,
    })
}

impl<'a> Parser<'a> {
    /// A parser at the start of `text`'s first value (past any whitespace).
    fn new(text: &'a str) -> Self {
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

    fn error(&self, reason: &'static str) -> ParseError {
        ParseError {
            offset: self.pos,
            reason,
        }
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn value(&mut self, depth: usize) -> Result<Value<'a>, ParseError> {
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

    /// A plain string (see [`Self::plain_string`]) or a literal at the current position,
    /// consumed; `None`, consuming nothing, for anything else or for a value nested
    /// at `depth` (deeper than [`MAX_DEPTH`] is left to [`Self::value`], which refuses it).
    #[inline(always)]
    fn plain_scalar_within(&mut self, depth: usize) -> Option<Value<'a>> {
        if depth > MAX_DEPTH {
            return None;
        }
        let rest = self.bytes.get(self.pos..)?;
        let (len, value) = match rest.first()? {
            b'"' => return self.plain_string().map(|s| Value::String(Cow::Borrowed(s))),
            b't' if rest.starts_with(b"true") => (4, Value::Bool(true)),
            b'f' if rest.starts_with(b"false") => (5, Value::Bool(false)),
            b'n' if rest.starts_with(b"null") => (4, Value::Null),
            _ => return None,
        };
        self.pos += len;
        Some(value)
    }

    /// The string at the current position if it has no escapes (nor control
    /// characters), consumed; `None`, consuming nothing, for anything else.
    #[inline(always)]
    fn plain_string(&mut self) -> Option<&'a str> {
        if self.bytes.get(self.pos) != Some(&b'"') {
            return None;
        }
        let start = self.pos + 1;
        let end = plain_string_end(self.bytes, start)?;
        self.pos = end + 1;
        Some(&self.text[start..end])
    }

    fn string(&mut self) -> Result<Cow<'a, str>, ParseError> {
        self.pos += 1; // opening quote
        let start = self.pos;
        self.skip_plain();
        // Fast path: no escapes, borrow the source.
        loop {
            match self.bytes.get(self.pos) {
                None => return Err(self.error("unterminated string")),
                Some(b'"') => {
                    let s = &self.text[start..self.pos];
                    self.pos += 1;
                    return Ok(Cow::Borrowed(s));
                }
                Some(b'\\') => break,
                Some(&b) if b < 0x20 => return Err(self.error("control character in string")),
                Some(_) => self.pos += 1,
            }
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
                    while let Some(&b) = self.bytes.get(self.pos) {
                        if b == b'"' || b == b'\\' || b < 0x20 {
                            break;
                        }
                        self.pos += 1;
                    }
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
        match b {
            b'u' => {
                let first = self.hex4()?;
                let ch = if (0xD800..0xDC00).contains(&first) {
                    // A high surrogate must be followed by a low one to form a pair.
                    if self.bytes[self.pos..].starts_with(b"\\u") {
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
                        None
                    }
                } else {
                    char::from_u32(first)
                };
                // Lone surrogates decode to U+FFFD, as Go's decoder does.
                out.push(ch.unwrap_or('\u{FFFD}'));
            }
            _ => return Err(self.error("invalid escape")),
        }
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
            // A plain string or a literal is pushed as it is read: a value returned from
            // a call is written field by field and read back as wider words, which
            // stalls (parsing a real plan's changes took 25 % longer so).
            if let Some(value) = self.plain_scalar_within(depth + 1) {
                self.items.push(value);
            } else {
                let item = self.value(depth + 1)?;
                self.items.push(item);
            }
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
    fn key(&mut self) -> Result<Cow<'a, str>, ParseError> {
        if self.bytes.get(self.pos) != Some(&b'"') {
            return Err(self.error("expected string key in object"));
        }
        let key = match self.plain_string() {
            Some(key) => Cow::Borrowed(key),
            None => self.string()?,
        };
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
            // As in `array`, a plain scalar is pushed as it is read.
            if let Some(value) = self.plain_scalar_within(depth + 1) {
                self.members.push((key, value));
            } else {
                let value = self.value(depth + 1)?;
                self.members.push((key, value));
            }
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

/// One member's value in [`Value::walk_prefix`], at its first byte.
pub(crate) struct Member<'p, 'a> {
    parser: &'p mut Parser<'a>,
    depth: usize,
}

impl<'a> Member<'_, 'a> {
    /// The value, parsed.
    pub(crate) fn value(self) -> Result<Value<'a>, ParseError> {
        self.parser.value(self.depth)
    }

    /// Walks the value's members as [`Value::walk_prefix`] does (`Ok(false)`, the value
    /// read and dropped, if it is not an object).
    pub(crate) fn members(
        self,
        mut member: impl FnMut(&str, Member<'_, 'a>) -> Result<(), ParseError>,
    ) -> Result<bool, ParseError> {
        let parser = self.parser;
        if self.depth > MAX_DEPTH {
            return Err(parser.error("nesting too deep"));
        }
        if parser.bytes.get(parser.pos) != Some(&b'{') {
            parser.value(self.depth)?;
            return Ok(false);
        }
        parser.pos += 1;
        parser.skip_ws();
        if parser.bytes.get(parser.pos) == Some(&b'}') {
            parser.pos += 1;
            return Ok(true);
        }
        loop {
            parser.skip_ws();
            let key = parser.key()?;
            let start = parser.pos;
            member(
                &key,
                Member {
                    parser: &mut *parser,
                    depth: self.depth + 1,
                },
            )?;
            // A value the callback did not read is read here (checked, then dropped).
            if parser.pos == start {
                parser.value(self.depth + 1)?;
            }
            parser.skip_ws();
            match parser.bytes.get(parser.pos) {
                Some(b',') => parser.pos += 1,
                Some(b'}') => {
                    parser.pos += 1;
                    return Ok(true);
                }
                _ => return Err(parser.error("expected , or } in object")),
            }
        }
    }
}

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

/// Sorts members bytewise by key and keeps the last of duplicate keys.
fn sort_members<'a>(mut members: Vec<(Cow<'a, str>, Value<'a>)>) -> Vec<(Cow<'a, str>, Value<'a>)> {
    let sorted = members
        .windows(2)
        .all(|w| cmp_keys(&w[0].0, &w[1].0) == std::cmp::Ordering::Less);
    if sorted {
        return members;
    }
    // Stable sort keeps source order among equal keys; then keep the last of each run.
    members.sort_by(|a, b| a.0.cmp(&b.0));
    let mut out: Vec<(Cow<'a, str>, Value<'a>)> = Vec::with_capacity(members.len());
    for member in members {
        match out.last_mut() {
            Some(last) if last.0 == member.0 => *last = member,
            _ => out.push(member),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_runs_stop_at_the_first_special_byte_and_give_it() {
        let special = |b: u8| matches!(b, b'"' | b'\\' | 0..=0x1f);
        for stop in 0..=255u8 {
            for at in 0..20 {
                let mut bytes = vec![b'a'; 24];
                bytes[at] = stop;
                bytes[(at + 1).min(23)] = b'"';
                let (end, byte) = plain_run_stop(&bytes, 0);
                let first = bytes.iter().position(|&b| special(b)).unwrap();
                match byte {
                    Some(byte) => {
                        assert_eq!((end, byte), (first, bytes[first]), "{stop:#x} at {at}")
                    }
                    // Left to the caller only in the last eight bytes.
                    None => assert!(end > bytes.len() - 8 && end <= first, "{stop:#x} at {at}"),
                }
                assert_eq!(stop_byte(&bytes, (end, byte)), Some(bytes[end]));
            }
        }
    }

    #[test]
    fn printable_runs_stop_at_the_first_byte_go_would_escape() {
        let copied = |b: u8| matches!(b, b' '..=b'~') && !matches!(b, b'"' | b'\\');
        for stop in 0..=255u8 {
            // Three whole words and three bytes after them.
            for at in 0..27 {
                // A byte after the stop must not move it (a borrow in the word arithmetic
                // only spreads upwards).
                let mut bytes = vec![b'a'; 27];
                bytes[at] = stop;
                if at + 1 < bytes.len() {
                    bytes[at + 1] = 0;
                }
                let end = printable_run_end(&bytes, 0);
                let first = bytes
                    .iter()
                    .position(|&b| !copied(b))
                    .unwrap_or(bytes.len());
                assert_eq!(end, first, "{stop:#x} at {at}");
            }
        }
    }

    /// Walks `text`'s first value with `walk_prefix`: each member as `key` or
    /// `key=value`, nested objects walked as `key{...}` (members named `walk`).
    fn walked(text: &str) -> Result<(bool, Vec<String>), ParseError> {
        fn walk(
            seen: &mut Vec<String>,
            key: &str,
            member: Member<'_, '_>,
        ) -> Result<(), ParseError> {
            if key.starts_with("walk") {
                seen.push(format!("{key}{{"));
                member.members(|key, member| walk(seen, key, member))?;
                seen.push("}".into());
            } else if key.starts_with("read") {
                seen.push(format!("{key}={:?}", member.value()?));
            } else {
                seen.push(key.to_string());
            }
            Ok(())
        }
        let mut seen = Vec::new();
        let object = Value::walk_prefix(text, |key, member| walk(&mut seen, key, member))?;
        Ok((object, seen))
    }

    #[test]
    fn walks_members_in_document_order_and_skips_what_is_left() {
        let text = r#" {"z":[1,{"x":2}],"walk":{"read_b":{"q":1,"p":2},"a":"x","walk":{}},"read_a":1,"z":null} trailing"#;
        let (object, seen) = walked(text).unwrap();
        assert!(object);
        let read_b = r#"read_b=Object([("p", Number("2")), ("q", Number("1"))])"#;
        assert_eq!(
            seen,
            [
                "z",
                "walk{",
                read_b,
                "a",
                "walk{",
                "}",
                "}",
                r#"read_a=Number("1")"#,
                "z"
            ],
            "document order, duplicates kept, values read sorted"
        );
        // Not an object: nothing walked, the value still checked.
        assert_eq!(walked("[1, 2]").unwrap(), (false, Vec::new()));
        assert!(walked("[1, ]").is_err());
        // What the callback leaves is still checked; as is a walked object's own syntax.
        assert!(walked(r#"{"a": [1, }"#).is_err());
        assert!(walked(r#"{"walk": {"b" 1}}"#).is_err());
        assert!(walked(r#"{"a": 1 "b": 2}"#).is_err());
        assert!(walked(r#"{"a": 1"#).is_err());
    }

    #[test]
    fn walking_counts_in_the_nesting_limit() {
        // Walked objects count in the depth as parsed ones do.
        let deep = |levels: usize| {
            let mut text = String::new();
            for _ in 0..levels {
                text.push_str(r#"{"walk":"#);
            }
            text.push('1');
            text.push_str(&"}".repeat(levels));
            text
        };
        assert!(walked(&deep(MAX_DEPTH)).is_ok());
        assert!(walked(&deep(MAX_DEPTH + 2)).is_err());
        assert!(Value::parse(&deep(MAX_DEPTH + 2)).is_err());
    }

    #[test]
    fn values_stay_four_words() {
        // Plans hold millions of values: the word-sized tag must not make them bigger.
        assert_eq!(std::mem::size_of::<Value<'_>>(), 32);
    }

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
    fn strings_scan_word_by_word_without_missing_a_byte() {
        // Quotes, escapes and control characters at every offset of an 8-byte word, with
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
