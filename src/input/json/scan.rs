//! JSON text scanned by hand: runs of plain string bytes eight at a time (a word compared
//! at once: strings are most of a plan's bytes), one-letter escapes, and where an object
//! starts, found from one of its members' values.

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
fn plain_run_stop(bytes: &[u8], mut from: usize) -> (usize, Option<u8>) {
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
fn stop_byte(bytes: &[u8], (pos, byte): (usize, Option<u8>)) -> Option<u8> {
    byte.or_else(|| bytes.get(pos).copied())
}

/// The offset of the closing quote of the string whose contents start at `at` (after its
/// opening quote), if it has no escapes and no control characters.
#[inline]
pub(super) fn plain_string_end(bytes: &[u8], at: usize) -> Option<usize> {
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
pub(super) fn letter_escape(letter: u8) -> Option<char> {
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

/// Where the object holding the member value whose string content starts at `value` begins
/// (its `{`), walking back over the members before it.
pub(crate) fn object_start(text: &[u8], value: usize) -> Option<usize> {
    // The value's opening quote; then, before it: `:`, the key, and `{` or `,` and the
    // member before.
    let mut at = value
        .checked_sub(1)
        .filter(|&q| text.get(q) == Some(&b'"'))?;
    loop {
        at = before_space(text, at).filter(|&c| text[c] == b':')?;
        at = before_space(text, at).filter(|&q| text[q] == b'"')?;
        at = string_start(text, at)?;
        let c = before_space(text, at)?;
        match text[c] {
            b'{' => return Some(c),
            b',' => at = value_start(text, before_space(text, c)?)?,
            _ => return None,
        }
    }
}

/// The last place before `at` that is not JSON whitespace.
fn before_space(text: &[u8], at: usize) -> Option<usize> {
    text[..at]
        .iter()
        .rposition(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
}

/// The opening quote of the string whose closing quote is at `close`: the first quote
/// before it not escaped (a string holds no unescaped quote).
fn string_start(text: &[u8], close: usize) -> Option<usize> {
    let mut end = close;
    loop {
        let quote = memchr::memrchr(b'"', &text[..end])?;
        let backslashes = text[..quote]
            .iter()
            .rev()
            .take_while(|&&b| b == b'\\')
            .count();
        if backslashes % 2 == 0 {
            return Some(quote);
        }
        end = quote;
    }
}

/// The start of the JSON value whose last byte is at `last`.
fn value_start(text: &[u8], last: usize) -> Option<usize> {
    match text[last] {
        b'"' => string_start(text, last),
        b'}' | b']' => {
            let mut depth = 0usize;
            let mut at = last;
            loop {
                match text[at] {
                    b'"' => at = string_start(text, at)?,
                    b'}' | b']' => depth += 1,
                    b'{' | b'[' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(at);
                        }
                    }
                    _ => {}
                }
                at = at.checked_sub(1)?;
            }
        }
        // A number, `true`, `false` or `null`.
        _ => {
            let scalar = |b: &u8| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.');
            let len = text[..=last].iter().rev().take_while(|b| scalar(b)).count();
            (len > 0).then(|| last + 1 - len)
        }
    }
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

    /// The start `object_start` finds for the `"address"` value in `json`.
    fn start_of(json: &str) -> Option<usize> {
        let value = json.find("\"address\"")? + json[json.find("\"address\"")?..].find(":")?;
        let value = value + json[value..].find('"')? + 1;
        object_start(json.as_bytes(), value)
    }

    #[test]
    fn finds_the_object_whatever_comes_before_the_address() {
        let cases = [
            r#"{"address":"a"}"#,
            r#"  { "address" : "a"}"#,
            r#"[1,{"mode":"managed","address":"a"}]"#,
            r#"{"x":{"y":[1,"}",{"z":"\"{"}]},"n":-1.5e+3,"t":true,"nul":null,"address":"a"}"#,
            r#"{"s":"ends in a backslash \\","e":"","address":"a"}"#,
            r#"{"q":"\"quoted\" \\\"","a\"b":1,"address":"a"}"#,
            "{\n\t\"i\": 0 ,\r\n \"address\"\n:\n\"a\"}",
        ];
        for json in cases {
            let start = start_of(json).unwrap_or_else(|| panic!("{json}"));
            let object: serde_json::Value = serde_json::Deserializer::from_str(&json[start..])
                .into_iter()
                .next()
                .unwrap()
                .unwrap();
            assert_eq!(object["address"], "a", "{json}");
        }
    }

    #[test]
    fn refuses_what_is_not_an_object_member() {
        for json in [r#"["address","a"]"#, r#""address":"a""#, r#"x"a""#] {
            let value = json.rfind("\"a\"").unwrap() + 1;
            assert_eq!(object_start(json.as_bytes(), value), None, "{json}");
        }
    }
}
