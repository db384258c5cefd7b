//! The escaping helpers' public entry points (`render::markdown::escape`) read as GitHub
//! reads them, through the suite's Markdown checks: what they write is inert, and reads as
//! the text it came from.

use planmark::render::markdown::escape::inline;

use crate::support::check::{decode_entities, live_references};

#[test]
fn inline_breaks_commit_shas() {
    for sha in [
        "a5c3785",
        "1234567",
        "a5c3785ed8d6",
        "A5C3785ed8D6a35868bc169f07e40e889087fd2e",
        "a5c3785ed8d6a35868bc169f07e40e889087fd2e0123",
    ] {
        for text in [
            sha.to_string(),
            format!("fixed in {sha}."),
            format!("x{sha}y"),
            format!("{sha}\n{sha}"),
            format!("@{sha} #{sha}"),
        ] {
            let out = inline(&text);
            assert_eq!(
                live_references(&out),
                Vec::<String>::new(),
                "{text:?} -> {out}"
            );
            let shown: String = decode_entities(&out)
                .replace('\u{200B}', "")
                .replace("<br>", "\n");
            assert_eq!(shown, text, "the text reads the same");
        }
        assert!(
            !live_references(sha).is_empty() || sha.len() > 40,
            "{sha} is live unescaped"
        );
    }
    assert_eq!(
        inline("abc123 deadbe"),
        "abc123 deadbe",
        "6 in a row stay as they are"
    );
}
