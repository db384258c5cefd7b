//! Text renderer: Terraform's prose layout (greedy word wrap, horizontal rule).

/// Terraform renders for 78 columns when not writing to a terminal.
pub(crate) const COLUMNS: usize = 78;

/// Wraps each line that does not start with a space to `COLUMNS - 1` characters,
/// breaking at spaces; longer words stay whole.
pub(crate) fn word_wrap(text: &str) -> String {
    let limit = COLUMNS - 1;
    let mut out = String::new();
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        if line.starts_with(' ') {
            out.push_str(line);
            continue;
        }
        let mut width = 0;
        for (j, word) in line.split(' ').enumerate() {
            let len = word.chars().count();
            if j > 0 {
                if width + 1 + len > limit {
                    out.push('\n');
                    width = 0;
                } else {
                    out.push(' ');
                    width += 1;
                }
            }
            out.push_str(word);
            width += len;
        }
    }
    out
}

/// A newline, a rule of `COLUMNS - 1` box-drawing characters and a newline.
pub(crate) fn push_rule(out: &mut String) {
    out.push('\n');
    out.push_str(&"─".repeat(COLUMNS - 1));
    out.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps_like_terraform() {
        let text = "Terraform used the selected providers to generate the following execution plan. Resource actions are indicated with the following symbols:";
        assert_eq!(
            word_wrap(text),
            "Terraform used the selected providers to generate the following execution\nplan. Resource actions are indicated with the following symbols:"
        );
        assert_eq!(word_wrap("\n\n  indented stays"), "\n\n  indented stays");
    }
}
