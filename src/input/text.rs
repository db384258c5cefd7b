//! Input stage, hostile text: every string from a plan, a log or a command line may hold
//! line breaks, controls and invisible characters; these say which, and put such text on
//! one line for a terminal or a CI log.

/// Characters that render as nothing (or reorder text) and so could disguise a value.
pub(crate) fn is_invisible(c: char) -> bool {
    matches!(c,
        '\u{00AD}' | '\u{034F}' | '\u{061C}' | '\u{115F}' | '\u{1160}' | '\u{17B4}'
        | '\u{17B5}' | '\u{180B}'..='\u{180F}' | '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{206F}' | '\u{3164}'
        | '\u{FE00}'..='\u{FE0F}' | '\u{FEFF}' | '\u{FFA0}' | '\u{FFF0}'..='\u{FFFB}'
        | '\u{E0000}'..='\u{E0FFF}')
}

/// `text` on one line, safe to print to a terminal or a CI log: control characters
/// (line breaks, escape sequences), line separators and invisible or bidirectional
/// characters become `\n`, `\r`, `\t` or `\u{XXXX}`.
///
/// A line break from a hostile plan key would otherwise start a new line in the GitHub
/// Actions log, where `::command::` lines are workflow commands.
pub fn one_line(text: &str) -> std::borrow::Cow<'_, str> {
    use std::fmt::Write;
    let unsafe_char =
        |c: char| c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') || is_invisible(c);
    if !text.contains(unsafe_char) {
        return text.into();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if unsafe_char(c) => {
                let _ = write!(out, "\\u{{{:04X}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_escapes_breaks_controls_and_invisibles() {
        assert_eq!(one_line("plain `x` é"), "plain `x` é");
        assert_eq!(
            one_line("a\n::warning::b\r\t\u{1b}[31m\u{202e}\u{2028}"),
            "a\\n::warning::b\\r\\t\\u{001B}[31m\\u{202E}\\u{2028}"
        );
    }
}
