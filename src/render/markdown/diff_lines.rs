//! Markdown renderer, diff lines: Terraform's text rearranged for a ```` ```diff ```` fence.
//!
//! GitHub colours a `diff` block by each line's first character, while Terraform indents
//! its symbols. Using the symbol positions the text renderer recorded (never guessing from
//! the text, since a heredoc line may itself start with `+ `), each marked symbol moves to
//! column 0 and its old place becomes a space: `      ~ ami = …` → `!       ami = …`.
//! `~` becomes `!` (GitHub's "changed" colour); `-/+` and `+/-` headers already start at
//! column 0 and stay as they are; comment lines and unchanged lines start with spaces.

use crate::render::text::MarkedText;

/// The text with marked symbols moved to column 0.
pub(crate) fn diff_body(marked: &MarkedText) -> String {
    let text = &marked.text;
    let mut out = String::with_capacity(text.len() + 8);
    let mut marks = marked.marks.iter().copied().peekable();
    let mut start = 0;
    for line in text.split('\n') {
        let end = start + line.len();
        // Marks before this line cannot apply any more (defensive: they never should).
        while marks.peek().is_some_and(|&m| m < start) {
            marks.next();
        }
        let mark = marks.peek().copied().filter(|&m| m < end);
        match mark.map(|m| m - start) {
            Some(at) if line.as_bytes()[..at].iter().all(|&b| b == b' ') => {
                let symbol = match line.as_bytes()[at] {
                    b'~' => '!',
                    b => char::from(b),
                };
                out.push(symbol);
                out.push_str(&line[..at]);
                out.push_str(&line[at + 1..]);
            }
            _ => out.push_str(line),
        }
        while marks.peek().is_some_and(|&m| m < end) {
            marks.next();
        }
        out.push('\n');
        start = end + 1;
    }
    out.pop();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn marked(text: &str, symbols: &[(usize, usize)]) -> MarkedText {
        // (line, column) pairs → byte offsets.
        let starts: Vec<usize> = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        MarkedText {
            text: text.to_string(),
            marks: symbols.iter().map(|&(l, c)| starts[l] + c).collect(),
        }
    }

    #[test]
    fn symbols_move_to_column_zero() {
        let text = "  # a will be updated in-place\n  ~ resource \"x\" \"a\" {\n      ~ v = 1 -> 2\n      + w = 3\n        id = \"i\"\n    }";
        let body = diff_body(&marked(text, &[(1, 2), (2, 6), (3, 6)]));
        assert_eq!(
            body,
            "  # a will be updated in-place\n!   resource \"x\" \"a\" {\n!       v = 1 -> 2\n+       w = 3\n        id = \"i\"\n    }"
        );
    }

    #[test]
    fn unmarked_lines_that_look_like_symbols_stay() {
        // A heredoc line whose own text starts with "+ " is not a change.
        let text = "          + looks added";
        assert_eq!(diff_body(&marked(text, &[])), text);
    }
}
