//! Policy stage, `walk` as OPA runs it: `[path, value] := walk(x)` binds each pair of
//! `x` in turn, but regorus runs only the relation form `walk(x, [path, value])` so (its
//! function form gives all pairs at once, which the pattern never matches). A policy's
//! text is rewritten to the relation form before it is parsed.
//!
//! Contract: only `[A, B] := walk(EXPR)` outside strings and comments changes, into
//! `walk(EXPR, [A, B])` padded with spaces to the same length, so that every line and
//! every column after the expression stay where they were for error messages.

use std::borrow::Cow;

/// `text` with each `[a, b] := walk(x)` as `walk(x, [a, b])`.
pub(in crate::policy::rego) fn relation_form(text: &str) -> Cow<'_, str> {
    if !text.contains("walk") {
        return Cow::Borrowed(text);
    }
    let bytes = text.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => i = skip_until(bytes, i, b'\n'),
            b'"' => i = skip_string(bytes, i),
            b'`' => i = skip_until(bytes, i + 1, b'`') + 1,
            b'[' => {
                if let Some((end, rewritten)) = rewrite_at(text, i) {
                    out.push_str(&text[copied..i]);
                    out.push_str(&rewritten);
                    copied = end;
                    i = end;
                    continue;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// The index of the next `stop` from `i` (or the end).
fn skip_until(bytes: &[u8], i: usize, stop: u8) -> usize {
    bytes[i.min(bytes.len())..]
        .iter()
        .position(|b| *b == stop)
        .map_or(bytes.len(), |p| i + p)
}

/// Past the double-quoted string starting at `i`.
fn skip_string(bytes: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' | b'\n' => return i + 1,
            _ => i += 1,
        }
    }
    i
}

/// At `[`: when `[A, B] := walk(EXPR)` starts here, where it ends and its rewriting.
fn rewrite_at(text: &str, start: usize) -> Option<(usize, String)> {
    let bytes = text.as_bytes();
    let close = start + text[start..].find(']')?;
    let pattern = &text[start..=close];
    let names: Vec<&str> = pattern[1..pattern.len() - 1]
        .split(',')
        .map(str::trim)
        .collect();
    let is_name = |s: &&str| {
        !s.is_empty()
            && s.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
            && !s.as_bytes()[0].is_ascii_digit()
    };
    if names.len() != 2 || !names.iter().all(is_name) {
        return None;
    }
    let rest = text[close + 1..].trim_start_matches([' ', '\t']);
    let rest = rest.strip_prefix(":=")?.trim_start_matches([' ', '\t']);
    let rest = rest.strip_prefix("walk")?.trim_start_matches([' ', '\t']);
    rest.strip_prefix('(')?;
    let open = text.len() - rest.len();
    // The argument runs to the parenthesis that closes `walk(`.
    let mut depth = 0;
    let mut i = open;
    while i < bytes.len() {
        match bytes[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            b'"' => {
                i = skip_string(bytes, i);
                continue;
            }
            b'`' => i = skip_until(bytes, i + 1, b'`'),
            _ => {}
        }
        i += 1;
    }
    if i >= bytes.len() || bytes[i] != b')' {
        return None;
    }
    let argument = &text[open + 1..i];
    let end = i + 1;
    let mut rewritten = format!("walk({argument}, [{}, {}])", names[0], names[1]);
    let length = end - start;
    if rewritten.len() > length {
        return None;
    }
    rewritten.push_str(&" ".repeat(length - rewritten.len()));
    Some((end, rewritten))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_function_form_becomes_the_relation_form() {
        let policy = "x if {\n\t[path, value] := walk(input)\n\tvalue == 1\n}";
        assert_eq!(
            relation_form(policy),
            "x if {\n\twalk(input, [path, value])  \n\tvalue == 1\n}"
        );
        let nested = "[p, _] := walk(object.get(input, [\"a\"], {}))";
        assert_eq!(
            relation_form(nested),
            "walk(object.get(input, [\"a\"], {}), [p, _])  "
        );
    }

    #[test]
    fn strings_comments_and_other_forms_stay() {
        for text in [
            "# [p, v] := walk(input)",
            "msg := \"[p, v] := walk(input)\"",
            "walk(input, [p, v])",
            "[p, v, w] := walk(input)",
            "x := walk(input)",
        ] {
            assert_eq!(relation_form(text), text);
        }
    }
}
