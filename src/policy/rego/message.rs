//! Policy stage, regorus's messages: where an error points (`file:line:column`) and what
//! it says, out of the several lines regorus writes (the place, the source line, a caret,
//! `error: ...`), so that our own error can be one line.
//!
//! Contract: the source line is dropped (it is policy text, and the place names it);
//! runtime messages lose their quoted strings, which may be plan values (secrets).

/// A regorus message taken apart.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Located {
    /// The file regorus named (ours, as we passed it).
    pub(crate) file: Option<String>,
    /// 1-based line, 0 when the message names none.
    pub(crate) line: u32,
    /// 1-based column, 0 when unknown.
    pub(crate) column: u32,
    /// The message without its place and source line.
    pub(crate) message: String,
}

impl Located {
    /// `file:line:column`, when the message names a place.
    pub(super) fn place(&self) -> Option<String> {
        let file = self.file.as_ref()?;
        Some(format!("{file}:{}:{}", self.line, self.column))
    }
}

/// Takes apart regorus's `\n--> FILE:LINE:COL\n  |\nN | SOURCE\n  | ^\nerror: MESSAGE`;
/// any other text is the message as it is.
pub(super) fn locate(text: &str) -> Located {
    let whole = || Located {
        file: None,
        line: 0,
        column: 0,
        message: text.trim().to_string(),
    };
    let Some(rest) = text.strip_prefix("\n--> ") else {
        return whole();
    };
    let mut lines = rest.splitn(5, '\n');
    let place = lines.next().unwrap_or_default();
    // The gutter, the source line and the caret.
    let message = lines.nth(3).unwrap_or_default();
    let mut parts = place.rsplitn(3, ':');
    let (Some(column), Some(line), Some(file)) = (parts.next(), parts.next(), parts.next()) else {
        return whole();
    };
    let (Ok(line), Ok(column)) = (line.parse(), column.parse()) else {
        return whole();
    };
    let message = message.strip_prefix("error: ").unwrap_or(message).trim();
    Located {
        file: Some(file.to_string()),
        line,
        column,
        message: message.to_string(),
    }
}

/// `message` with each double-quoted string replaced by `"…"`: regorus quotes the values
/// a builtin refused (`Got "hunter2" instead`), and at run time those come from the plan.
pub(super) fn without_strings(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut chars = message.chars();
    while let Some(c) = chars.next() {
        out.push(c);
        if c != '"' {
            continue;
        }
        out.push('…');
        let mut escaped = false;
        for c in chars.by_ref() {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => break,
                _ => {}
            }
        }
        out.push('"');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_place_and_the_message_are_taken_out() {
        let text = "\n--> dir/a:b.rego:12:7\n   |\n12 | deny contains x if {\n   |       ^\nerror: something failed";
        assert_eq!(
            locate(text),
            Located {
                file: Some("dir/a:b.rego".into()),
                line: 12,
                column: 7,
                message: "something failed".into(),
            }
        );
        assert_eq!(locate(text).place().as_deref(), Some("dir/a:b.rego:12:7"));
        let plain = locate("not a valid rule path");
        assert_eq!(
            (plain.file, plain.message.as_str()),
            (None, "not a valid rule path")
        );
    }

    #[test]
    fn quoted_strings_are_elided() {
        assert_eq!(
            without_strings(r#"`add` expects numeric argument. Got `"hun\"ter2"` instead"#),
            r#"`add` expects numeric argument. Got `"…"` instead"#
        );
        assert_eq!(without_strings("no quotes"), "no quotes");
        assert_eq!(without_strings(r#"open "abc"#), r#"open "…""#);
    }
}
