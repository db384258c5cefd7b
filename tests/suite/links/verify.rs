//! Every link to the code in a comment, checked against the files themselves and not
//! against a golden: the URL is the repository's at the commit, its path (after
//! `/blob/SHA/`, percent-decoded segment by segment) names a file under the checkout, and
//! the line after `#L` starts the block of the change whose address stands on the same
//! line of the comment (`resource "TYPE" "NAME"`, `data "TYPE" "NAME"`, or the `module`
//! call of a remote module holding it).

use std::path::{Path, PathBuf};

use pulldown_cmark::{Event, Parser, Tag};

/// One link found in a comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Linked {
    /// The address shown on the link's line (the first code span or `<code>` there).
    pub(crate) address: String,
    /// The file the URL names, under the checkout.
    pub(crate) file: PathBuf,
    pub(crate) line: usize,
}

/// The links of `md` (Markdown links and `<a href>` in HTML), each with the offset of the
/// construct holding it.
pub(crate) fn urls(md: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (event, range) in Parser::new_ext(md, super::OPTIONS).into_offset_iter() {
        match event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                found.push((range.start, dest_url.to_string()));
            }
            Event::Html(html) | Event::InlineHtml(html) => {
                for (at, _) in html.match_indices("href=") {
                    let rest = &html[at + 5..];
                    let (quote, rest) = rest.split_at(1);
                    let end = rest.find(quote).unwrap_or(rest.len());
                    found.push((range.start + at, rest[..end].to_string()));
                }
            }
            _ => {}
        }
    }
    found
}

/// Checks every link of `md`: each must point into `checkout` at `prefix`
/// (`{server}/{owner}/{repo}/blob/{sha}/`) and at the block of the address on its line.
/// Returns what was linked, or every problem found.
pub(crate) fn check(md: &str, prefix: &str, checkout: &Path) -> Result<Vec<Linked>, String> {
    let mut problems = Vec::new();
    let mut linked = Vec::new();
    // `#name` links are planmark's own anchors within the comment.
    for (offset, url) in urls(md).into_iter().filter(|(_, u)| !u.starts_with('#')) {
        let line_start = md[..offset].rfind('\n').map_or(0, |n| n + 1);
        let line_end = md[offset..].find('\n').map_or(md.len(), |n| offset + n);
        let text = &md[line_start..line_end];
        match check_one(&url, text, prefix, checkout) {
            Ok(found) => linked.push(found),
            Err(e) => problems.push(format!("{url:?} on {text:?}: {e}")),
        }
    }
    if problems.is_empty() {
        Ok(linked)
    } else {
        Err(problems.join("\n"))
    }
}

fn check_one(url: &str, text: &str, prefix: &str, checkout: &Path) -> Result<Linked, String> {
    let rest = url
        .strip_prefix(prefix)
        .ok_or("not the repository's URL at the commit")?;
    let (path, line) = rest.rsplit_once("#L").ok_or("no #L fragment")?;
    let line: usize = line.parse().map_err(|_| "#L is not a line number")?;
    let mut file = checkout.to_path_buf();
    for segment in path.split('/') {
        let bytes = decode_segment(segment)?;
        if bytes.is_empty() || bytes == b"." || bytes == b".." {
            return Err(format!("segment {segment:?} is not a name"));
        }
        file.push(os_str(bytes));
    }
    let source = std::fs::read_to_string(&file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let declared = source
        .lines()
        .nth(line.checked_sub(1).ok_or("line 0")?)
        .ok_or_else(|| format!("{} has no line {line}", file.display()))?;
    let address = shown_address(text).ok_or("no address on the link's line")?;
    let (modules, block) = block_of(&address).ok_or("the address does not parse")?;
    let declared = declared.trim_start();
    let starts_block = declared.starts_with(&block)
        || modules.first().is_some_and(|m| {
            declared.starts_with(&format!("module \"{m}\""))
                && !is_local_call(&source, line).unwrap_or(true)
        });
    if !starts_block {
        return Err(format!(
            "{}:{line} is {declared:?}, not the block of {address} ({block})",
            file.display()
        ));
    }
    Ok(Linked {
        address,
        file,
        line,
    })
}

/// A URL path segment's bytes: only RFC 3986's unreserved characters and `%XX` (upper
/// case, as planmark writes them) are allowed.
fn decode_segment(segment: &str) -> Result<Vec<u8>, String> {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        if b == b'%' {
            let hex = segment
                .get(i + 1..i + 3)
                .filter(|h| {
                    h.bytes()
                        .all(|c| c.is_ascii_digit() || c.is_ascii_uppercase())
                })
                .ok_or_else(|| format!("bad escape in {segment:?}"))?;
            out.push(u8::from_str_radix(hex, 16).map_err(|e| e.to_string())?);
            i += 3;
        } else if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b);
            i += 1;
        } else {
            return Err(format!("{:?} not encoded in {segment:?}", char::from(b)));
        }
    }
    Ok(out)
}

#[cfg(unix)]
fn os_str(bytes: Vec<u8>) -> std::ffi::OsString {
    use std::os::unix::ffi::OsStringExt;
    std::ffi::OsString::from_vec(bytes)
}

#[cfg(not(unix))]
fn os_str(bytes: Vec<u8>) -> std::ffi::OsString {
    String::from_utf8(bytes).unwrap().into()
}

/// Whether the `module` block at `line` of `source` calls a local path (its `source`
/// argument, within the block's first lines, starts `./` or `../`).
fn is_local_call(source: &str, line: usize) -> Option<bool> {
    source.lines().skip(line).take(10).find_map(|l| {
        let value = l.trim_start().strip_prefix("source")?.trim_start();
        let value = value.strip_prefix('=')?.trim().trim_matches('"');
        Some(value.starts_with("./") || value.starts_with("../"))
    })
}

/// The address a comment line shows first: a summary's `<code>` (entities decoded) or a
/// list item's code span.
fn shown_address(line: &str) -> Option<String> {
    if let Some(start) = line.find("<code>") {
        let rest = &line[start + 6..];
        return Some(decode_entities(&rest[..rest.find("</code>")?]));
    }
    let line = line.trim_start_matches(['>', ' ']);
    Parser::new(line).find_map(|e| match e {
        Event::Code(code) => Some(code.to_string()),
        _ => None,
    })
}

fn decode_entities(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = rest.find(';').unwrap_or(0);
        let entity = &rest[1..end.max(1)];
        let c = match entity {
            "quot" => Some('"'),
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            _ => entity
                .strip_prefix('#')
                .and_then(|n| n.parse().ok())
                .and_then(char::from_u32),
        };
        match c {
            Some(c) if end > 0 => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            _ => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// The module call names of a resource instance address and the opening of its block:
/// `module.a["k"].module.b.null_resource.x[0]` → (`[a, b]`, `resource "null_resource" "x"`).
pub(crate) fn block_of(address: &str) -> Option<(Vec<String>, String)> {
    let mut rest = address;
    let mut modules = Vec::new();
    while let Some(after) = rest.strip_prefix("module.") {
        let end = after.find(['.', '['])?;
        modules.push(after[..end].to_string());
        rest = skip_key(&after[end..])?.strip_prefix('.')?;
    }
    let (keyword, rest) = match rest.strip_prefix("data.") {
        Some(rest) => ("data", rest),
        None => ("resource", rest),
    };
    let (type_, name) = rest.split_once('.')?;
    let name = name.split('[').next()?;
    Some((modules, format!("{keyword} \"{type_}\" \"{name}\"")))
}

/// `text` after an instance key (`[0]`, `["a.b]"]`) at its start, if any.
fn skip_key(text: &str) -> Option<&str> {
    let Some(key) = text.strip_prefix('[') else {
        return Some(text);
    };
    if let Some(quoted) = key.strip_prefix('"') {
        let mut escaped = false;
        for (i, c) in quoted.char_indices() {
            match c {
                '\\' if !escaped => escaped = true,
                '"' if !escaped => return quoted[i + 1..].strip_prefix(']'),
                _ => escaped = false,
            }
        }
        return None;
    }
    Some(&key[key.find(']')? + 1..])
}

#[test]
fn the_checker_reads_addresses_and_rejects_wrong_links() {
    assert_eq!(
        block_of("module.a[\"x].y\"].module.b.null_resource.c[\"k\"]"),
        Some((
            vec!["a".into(), "b".into()],
            "resource \"null_resource\" \"c\"".into()
        ))
    );
    assert_eq!(
        block_of("data.null_data_source.s").map(|b| b.1),
        Some("data \"null_data_source\" \"s\"".into())
    );
    assert_eq!(
        decode_segment("a%20b%E2%80%AE").unwrap(),
        b"a b\xE2\x80\xAE"
    );
    assert!(decode_segment("a b").is_err() && decode_segment("a%2").is_err());
    assert!(decode_segment("a#b").is_err() && decode_segment("%2f").is_err());
    // A real file, but the wrong line, another file, an unencoded path, another commit.
    let dir = crate::support::temp::TempDir::new("links-verify");
    std::fs::write(dir.join("m.tf"), "\nresource \"t\" \"n\" {}\n").unwrap();
    let prefix = "https://h/o/r/blob/abc/";
    let at = |url: &str| {
        let md = format!("- create `t.n[0]` [`m.tf`](<{url}>)\n");
        check(&md, prefix, dir.path())
    };
    assert_eq!(at("https://h/o/r/blob/abc/m.tf#L2").unwrap().len(), 1);
    for wrong in [
        "https://h/o/r/blob/abc/m.tf#L1",
        "https://h/o/r/blob/abc/n.tf#L2",
        "https://h/o/r/blob/abc/./m.tf#L2",
        "https://h/o/r/blob/abd/m.tf#L2",
        "https://h/o/r/blob/abc/m.tf",
    ] {
        assert!(at(wrong).is_err(), "{wrong}");
    }
    let md = "<details><summary>x <code>t.other</code> <a href=\"https://h/o/r/blob/abc/m.tf#L2\">\
              <code>m.tf:2</code></a></summary>\n";
    assert!(check(md, prefix, dir.path()).is_err());
}
