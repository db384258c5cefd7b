//! Diff tree, notation: how Terraform writes a string (Go's `%q`), the form the differ's
//! scalar texts take and the renderers print keys and values in.

/// Quotes like Go's `%q`: escapes quotes, backslashes and non-printable characters.
pub(crate) fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    go_quote_into(s, &mut out);
    out
}

/// [`go_quote`], appended to `out` (renderers quote every string they show: no allocation
/// each).
pub(crate) fn go_quote_into(s: &str, out: &mut String) {
    out.push('"');
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // Printable ASCII other than quote and backslash is copied as it is, a run at a
        // time; everything else goes through `quote_char`.
        let run = i;
        i = crate::input::json::printable_run_end(bytes, i);
        out.push_str(&s[run..i]);
        if let Some(c) = s[i..].chars().next() {
            quote_char(c, out);
            i += c.len_utf8();
        }
    }
    out.push('"');
}

/// Appends one character as Go's `%q` writes it.
fn quote_char(c: char, out: &mut String) {
    use std::fmt::Write;
    match c {
        '"' => out.push_str("\\\""),
        '\\' => out.push_str("\\\\"),
        '\u{7}' => out.push_str("\\a"),
        '\u{8}' => out.push_str("\\b"),
        '\u{c}' => out.push_str("\\f"),
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\u{b}' => out.push_str("\\v"),
        c if is_printable(c) => out.push(c),
        c if (c as u32) < 0x80 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c if (c as u32) < 0x10000 => {
            let _ = write!(out, "\\u{:04x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\U{:08x}", c as u32);
        }
    }
}

/// An approximation of Go's `strconv.IsPrint`: letters, marks, numbers, punctuation,
/// symbols and the ASCII space are printable; controls, format characters (zero-width
/// and bidi marks), other spaces, private use and noncharacters are not.
fn is_printable(c: char) -> bool {
    let n = c as u32;
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    !matches!(n,
        0xAD | 0x600..=0x605 | 0x61C | 0x6DD | 0x70F | 0x890..=0x891 | 0x8E2 | 0x180E
        | 0x200B..=0x200F | 0x202A..=0x202E | 0x2060..=0x2064 | 0x2066..=0x206F
        | 0xD800..=0xDFFF | 0xE000..=0xF8FF | 0xFDD0..=0xFDEF | 0xFEFF | 0xFFF9..=0xFFFB
        | 0xFFFE..=0xFFFF | 0x110BD | 0x110CD | 0x13430..=0x1343F | 0x1BCA0..=0x1BCA3
        | 0x1D173..=0x1D17A | 0xE0001 | 0xE0020..=0xE007F | 0xF0000..=0x10FFFF)
        && (n & 0xFFFE) != 0xFFFE
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_like_go() {
        assert_eq!(go_quote("a\"b\\c\n\t"), r#""a\"b\\c\n\t""#);
        assert_eq!(go_quote("\u{1b}[0m"), r#""\x1b[0m""#);
        assert_eq!(go_quote("zero\u{200b}width"), r#""zero\u200bwidth""#);
        assert_eq!(go_quote("héllo 😀"), "\"héllo 😀\"");
        assert_eq!(go_quote("nbsp\u{a0}"), r#""nbsp\u00a0""#);
    }
}
