//! Every case's Markdown as GitHub's own parser reads it: cmark-gfm (the Debian package
//! `cmark-gfm`) with the extensions GitHub enables, raw HTML kept, so anything a plan could
//! inject would show. The shape of the HTML (its tags and attribute names, in order; the
//! targets of links) is pinned per case in `github-shape.txt`, recorded when the escaping
//! was known safe: a change of escaping must leave it as it is. Skipped, with a note, where
//! cmark-gfm is not installed.

use super::*;

/// The HTML's tags one per line, text left out: attribute values dropped but for a link's
/// target (`#…` for planmark's own anchors); comments (the marker) as `<!-- -->`.
fn shape(html: &str) -> String {
    let mut out = String::new();
    let mut rest = html;
    while let Some(start) = rest.find('<') {
        rest = &rest[start..];
        if rest.starts_with("<!--") {
            let end = rest.find("-->").map_or(rest.len(), |e| e + 3);
            out.push_str("<!-- -->\n");
            rest = &rest[end..];
            continue;
        }
        let end = rest.find('>').map_or(rest.len(), |e| e + 1);
        let tag = &rest[..end];
        rest = &rest[end..];
        let inner = tag.trim_start_matches('<').trim_end_matches('>');
        let mut words = inner.split_whitespace();
        let mut line = format!("<{}", words.next().unwrap_or(""));
        for attribute in words {
            let (name, value) = attribute.split_once('=').unwrap_or((attribute, ""));
            line.push(' ');
            line.push_str(name);
            if name == "href" {
                let value = value.trim_matches('"');
                line.push('=');
                line.push_str(if value.starts_with('#') {
                    "#…"
                } else {
                    value
                });
            }
        }
        line.push_str(">\n");
        out.push_str(&line);
    }
    out
}

pub(super) fn cmark_gfm(md: &str) -> Option<String> {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new("cmark-gfm")
        .args([
            "--unsafe",
            "-e",
            "table",
            "-e",
            "strikethrough",
            "-e",
            "autolink",
        ])
        .args(["-e", "tagfilter", "-e", "tasklist"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take().unwrap();
    let input = md.to_string();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().ok()?;
    writer.join().unwrap().unwrap();
    assert!(out.status.success(), "cmark-gfm failed");
    Some(String::from_utf8(out.stdout).unwrap())
}

#[test]
fn every_case_keeps_its_html_shape_under_githubs_parser() {
    if cmark_gfm("x").is_none() {
        eprintln!("note: the cmark-gfm check is skipped: cmark-gfm is not installed");
        return;
    }
    let mut failures = Vec::new();
    for case in cases() {
        let out = render::run_render(&case, "markdown");
        let md = render::unpaused(&String::from_utf8_lossy(&out.stdout));
        let html = cmark_gfm(&md).unwrap();
        let path = sweep_dir().join(&case.name).join("github-shape.txt");
        if let Err(e) = support::golden::check(&path, &shape(&html)) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_shape_shows_tags_links_and_nothing_else() {
    let html = "<p>a <a href=\"#planmark-1\">x</a> <a href=\"https://evil\">y</a></p>\n\
                <details open><summary>s</summary></details><!-- planmark:v1 {} -->";
    assert_eq!(
        shape(html),
        "<p>\n<a href=#…>\n</a>\n<a href=https://evil>\n</a>\n</p>\n<details open>\n\
         <summary>\n</summary>\n</details>\n<!-- -->\n"
    );
}
