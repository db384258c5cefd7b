//! The Markdown checks the other modules rely on (`support::check`): each rule reports
//! the line it breaks, entities decode as a browser reads them, and live references are
//! found outside code only. A check that passed everything would make every comment test
//! vacuous, so its rules are pinned here.

use crate::support::check::{check_markdown, decode_entities, live_references};

fn messages(md: &str) -> Vec<String> {
    check_markdown(md).iter().map(ToString::to_string).collect()
}

#[test]
fn a_typical_comment_is_well_formed() {
    let md = "## Plan\n\n> [!CAUTION]\n> 1 to destroy\n\n| a | b |\n|---|---|\n| 1 | `x\\|y` |\n\n\
        <details open><SUMMARY>Changes to <code>aws_s3.x</code></SUMMARY>\n\n\
        ````diff\n+ ```\n- a\n````\n\n> ```\n> a\n> ```\n\n- x\n  ~~~\n  y\n  ~~~\n\n</details>\n\n\
        <b>x</b><br><sub>y</sub>\n\n<!-- planmark:v1 {\"v\":1,\"s\":\"a-b\"} -->\n";
    assert_eq!(messages(md), Vec::<String>::new());
}

#[test]
fn each_rule_reports_the_line() {
    let cases = [
        (
            "```diff\n+ a\n",
            "line 1: unclosed code fence opened on line 1",
        ),
        (
            "x\n\n````\na\n```\n",
            "line 3: unclosed code fence opened on line 3",
        ),
        ("> ```\n> a\n\nb\n", "line 1: unclosed code fence"),
        ("a\n\n```", "line 3: unclosed code fence"),
        (
            "<details><summary>s</summary>\n```diff\n",
            "line 2: code fence inside an HTML block",
        ),
        (
            "<details><summary>s</summary>\n\nx\n",
            "line 1: unclosed <details>",
        ),
        ("x\n\n</details>\n", "line 3: stray </details>"),
        ("a </summary>\n", "line 1: stray </summary>"),
        (
            "<summary>s</summary>\n",
            "line 1: <summary> outside <details>",
        ),
        (
            "<details><summary>s\n\nx</summary></details>\n",
            "line 3: <summary> opened on line 1",
        ),
        (
            "| a |\n|---|\n| 1 |\n| 1 | 2 |\n",
            "line 4: table row has 2 cells, header has 1",
        ),
        (
            "<!-- evil\n",
            "line 1: HTML comment outside the planmark marker",
        ),
        (
            "a\n\nb <!-- x --> c\n",
            "line 3: HTML comment outside the planmark marker",
        ),
        (
            "<!-- planmark:v1 {\"a\":\"--\"} -->\n",
            "line 1: malformed planmark marker",
        ),
        (
            "<!-- planmark:v1 {nope} -->\n",
            "line 1: malformed planmark marker",
        ),
        (
            "x <!-- planmark:v1 {} -->\n",
            "line 1: the planmark marker must be on a line",
        ),
        (
            "<!-- planmark:v1 {} -->\n<!-- planmark:v1 {} -->\n",
            "line 2: more than one",
        ),
        (
            "<!-- planmark:v1 {} -->\n\nafter\n",
            "line 1: the planmark marker must be the comment's last line",
        ),
        (
            "<script>alert(1)</script>\n",
            "line 1: disallowed HTML tag <script>",
        ),
        (
            "a\n\nb <iframe src=x> c\n",
            "line 3: disallowed HTML tag <iframe>",
        ),
        (
            "<!DOCTYPE html>\n",
            "line 1: disallowed HTML `<!DOCTYPE html>`",
        ),
    ];
    for (md, want) in cases {
        let got = messages(md);
        assert!(
            got.iter().any(|m| m.starts_with(want)),
            "{md:?} gave {got:?}"
        );
    }
}

#[test]
fn decodes_entities() {
    let decoded = decode_entities("&#64;a&#x40;b&#64c &lt;&amp;&bogus; &");
    assert_eq!(decoded, "@a@b@c <&&bogus; &");
}

#[test]
fn live_references_are_found_outside_code_only() {
    let live = [
        ("hi @user.", "@user."),
        ("@org/team", "@org/team"),
        ("see #123", "#123"),
        ("a &#35;1 b", "#1"),
        ("GH-42", "GH-42"),
        ("go https://x.io now", "https://x.io"),
        ("www.x.io", "www.x.io"),
        ("<details><summary><b>@user</b></summary>\n", "@user"),
        ("<div>&#64;user</div>\n", "@user"),
        ("<code>a</code> &#64;b\n\nc", "@b"),
        ("fixed in a5c3785.", "a5c3785."),
        (
            "see A5C3785ED8D6A35868BC169F07E40E889087FD2E",
            "A5C3785ED8D6A35868BC169F07E40E889087FD2E",
        ),
        ("(1234567)", "1234567)"),
        ("see octo-org/infra.tf#12.", "octo-org/infra.tf#12."),
    ];
    for (md, want) in live {
        assert_eq!(live_references(md), [want], "{md:?}");
    }
    let inert = [
        "`@user #1 https://x`",
        "```\n@user #1 https://x\n```\n",
        "a <code>@user</code> b",
        "@\u{200B}user #\u{200B}1 GH\u{200B}-1 https:\u{200B}//x www\u{200B}.x",
        "<details><summary>Changes to <code>&#64;user</code></summary>\n",
        "C#1 a&amp;#35;1 high-5 email at x /x#1",
        "<!-- planmark:v1 {\"u\":\"@user https://x\"} -->\n",
        "`a5c3785` abc123 x1234567 a5c378\u{200B}5ed8d6 a5c3785ed8d6a35868bc169f07e40e889087fd2e0",
    ];
    for md in inert {
        assert_eq!(live_references(md), Vec::<String>::new(), "{md:?}");
    }
}
