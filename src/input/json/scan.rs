//! JSON text scanned by hand: runs of plain string bytes, one-letter escapes, and where
//! an object starts, found from one of its members' values.

/// Where the run of printable ASCII other than quote and backslash from `from` ends (what
/// Go's `%q` copies as it is): at the first other byte, or at the end of `bytes`.
#[inline]
pub(crate) fn printable_run_end(bytes: &[u8], from: usize) -> usize {
    let copied = |b: &u8| matches!(b, b' '..=b'~') && !matches!(b, b'"' | b'\\');
    from + bytes[from..].iter().take_while(|b| copied(b)).count()
}

/// Where the run of plain string bytes from `from` ends: at the first byte that is a
/// quote, a backslash or a control character, or at the end of `bytes`.
#[inline]
pub(crate) fn plain_run_end(bytes: &[u8], from: usize) -> usize {
    let plain = |b: &u8| !matches!(b, b'"' | b'\\' | 0..=0x1f);
    from + bytes[from..].iter().take_while(|b| plain(b)).count()
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
    fn plain_runs_stop_at_the_first_special_byte() {
        let special = |b: u8| matches!(b, b'"' | b'\\' | 0..=0x1f);
        for stop in 0..=255u8 {
            for at in 0..20 {
                let mut bytes = vec![b'a'; 24];
                bytes[at] = stop;
                let first = bytes
                    .iter()
                    .position(|&b| special(b))
                    .unwrap_or(bytes.len());
                assert_eq!(plain_run_end(&bytes, 0), first, "{stop:#x} at {at}");
            }
        }
    }

    #[test]
    fn printable_runs_stop_at_the_first_byte_go_would_escape() {
        let copied = |b: u8| matches!(b, b' '..=b'~') && !matches!(b, b'"' | b'\\');
        for stop in 0..=255u8 {
            for at in 0..27 {
                // A byte after the stop must not move it.
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
