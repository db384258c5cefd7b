//! Reading what a source file imports: comments, strings and test modules left out, `use`
//! trees and inline paths made absolute, re-exports followed, into one graph of files.

use super::*;

/// The code with comments, string and char literals blanked (line breaks kept), so a path
/// in a doc comment or a message is not an import.
pub(super) fn strip_comments_and_strings(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let mut depth = 0;
            while i < b.len() {
                if b[i..].starts_with(b"/*") {
                    depth += 1;
                    i += 2;
                } else if b[i..].starts_with(b"*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if b[i] == b'r' && matches!(b.get(i + 1), Some(b'"' | b'#')) && !ident_before(b, i) {
            // A raw string: r"..." or r#"..."#.
            let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
            if b.get(i + 1 + hashes) != Some(&b'"') {
                out.push('r');
                i += 1;
                continue;
            }
            let close: Vec<u8> = std::iter::once(b'"')
                .chain(std::iter::repeat_n(b'#', hashes))
                .collect();
            i += 2 + hashes;
            while i < b.len() && !b[i..].starts_with(&close) {
                i += 1;
            }
            i += close.len();
            out.push_str("\"\"");
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' && is_char_literal(b, i) {
            i += 1;
            while i < b.len() && b[i] != b'\'' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            let c = text[i..].chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// The code without its `#[cfg(test)] mod ... { ... }` blocks: a unit test may build its
/// input with an earlier stage's help without the module depending on it.
pub(super) fn without_test_modules(code: &str) -> String {
    let mut out = String::with_capacity(code.len());
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        let item = after.trim_start();
        if !item.starts_with("mod ") {
            out.push_str("#[cfg(test)]");
            rest = after;
            continue;
        }
        let Some(open) = item.find(['{', ';']) else {
            rest = "";
            break;
        };
        if item.as_bytes()[open] == b';' {
            rest = &item[open + 1..];
            continue;
        }
        let mut depth = 0;
        let mut end = item.len();
        for (k, c) in item.char_indices().skip_while(|&(k, _)| k < open) {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

pub(super) fn ident_before(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
}

/// `'x'` or `'\n'`, not a lifetime `'a`.
pub(super) fn is_char_literal(b: &[u8], i: usize) -> bool {
    match b.get(i + 1) {
        Some(b'\\') => true,
        Some(_) => {
            let rest = &b[i + 1..];
            let len = std::str::from_utf8(&rest[..rest.len().min(4)])
                .or_else(|e| std::str::from_utf8(&rest[..e.valid_up_to()]))
                .ok()
                .and_then(|s| s.chars().next())
                .map_or(1, char::len_utf8);
            rest.get(len) == Some(&b'\'')
        }
        None => false,
    }
}

/// Every path the code names, as segments relative to the crate root, from `use` trees
/// and inline `crate::`, `super::` and `self::` paths.
pub(super) fn imported_paths(source: &Source) -> Vec<Vec<String>> {
    let mut paths = Vec::new();
    let code = &source.code;
    let tokens = tokenize(code);
    let mut i = 0;
    while i < tokens.len() {
        let t = tokens[i].as_str();
        if t == "use" {
            let end = tokens[i..]
                .iter()
                .position(|t| t == ";")
                .map_or(tokens.len(), |p| i + p);
            use_tree(&tokens[i + 1..end], &[], &mut paths);
            i = end;
        } else if matches!(t, "crate" | "super" | "self")
            && tokens.get(i + 1).is_some_and(|n| n == "::")
            && (i == 0 || tokens[i - 1] != "::")
        {
            let mut path = vec![t.to_string()];
            let mut j = i + 1;
            while tokens.get(j).is_some_and(|n| n == "::")
                && tokens.get(j + 1).is_some_and(|n| is_ident(n))
            {
                path.push(tokens[j + 1].clone());
                j += 2;
            }
            paths.push(path);
            i = j;
        } else {
            i += 1;
        }
    }
    paths
        .into_iter()
        .filter_map(|p| absolute(&source.module, p))
        .collect()
}

pub(super) fn is_ident(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

pub(super) fn tokenize(code: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut chars = code.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            let mut end = i + c.len_utf8();
            while let Some(&(j, d)) = chars.peek() {
                if d.is_alphanumeric() || d == '_' {
                    end = j + d.len_utf8();
                    chars.next();
                } else {
                    break;
                }
            }
            tokens.push(code[i..end].to_string());
        } else if c == ':' && chars.peek().is_some_and(|&(_, d)| d == ':') {
            chars.next();
            tokens.push("::".into());
        } else if !c.is_whitespace() {
            tokens.push(c.to_string());
        }
    }
    tokens
}

/// Flattens a `use` tree (`crate::a::{b, c::{d, e}}`) into paths.
pub(super) fn use_tree(tokens: &[String], prefix: &[String], out: &mut Vec<Vec<String>>) {
    let mut path = prefix.to_vec();
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i].as_str() {
            "::" | "pub" | "(" | ")" => i += 1,
            "{" => {
                let close = matching(tokens, i);
                for part in split_top(&tokens[i + 1..close]) {
                    use_tree(part, &path, out);
                }
                return;
            }
            "as" => break,
            "*" => break,
            t => {
                path.push(t.to_string());
                i += 1;
            }
        }
    }
    if !path.is_empty() {
        out.push(path);
    }
}

pub(super) fn matching(tokens: &[String], open: usize) -> usize {
    let mut depth = 0;
    for (k, t) in tokens.iter().enumerate().skip(open) {
        match t.as_str() {
            "{" => depth += 1,
            "}" => {
                depth -= 1;
                if depth == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    tokens.len()
}

pub(super) fn split_top(tokens: &[String]) -> Vec<&[String]> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (k, t) in tokens.iter().enumerate() {
        match t.as_str() {
            "{" => depth += 1,
            "}" => depth -= 1,
            "," if depth == 0 => {
                parts.push(&tokens[start..k]);
                start = k + 1;
            }
            _ => {}
        }
    }
    parts.push(&tokens[start..]);
    parts.into_iter().filter(|p| !p.is_empty()).collect()
}

/// A path made absolute (segments under the crate root). A path that starts with neither
/// `crate`, `self` nor `super` is taken as relative to the file's own module (edition 2021
/// `use child::X`); one naming another crate (`serde::...`) then resolves to the file itself
/// and is dropped by the caller.
pub(super) fn absolute(module: &[String], path: Vec<String>) -> Option<Vec<String>> {
    let mut segments = path.into_iter().peekable();
    let mut base: Vec<String> = match segments.peek().map(String::as_str) {
        Some("crate") => {
            segments.next();
            Vec::new()
        }
        Some("self") => {
            segments.next();
            module.to_vec()
        }
        Some(_) => module.to_vec(),
        None => return None,
    };
    let mut rest: Vec<String> = Vec::new();
    for s in segments {
        // A file's `super` is its parent module (for `a/b.rs` and `a/b/mod.rs` alike).
        if s == "super" && rest.is_empty() {
            base.pop();
        } else {
            rest.push(s);
        }
    }
    base.extend(rest);
    Some(base)
}

/// The source file a path lands in: the longest prefix of it that is a module, or, when
/// the next segment is a name that module re-exports (`pub use child::Name`), the file the
/// re-export comes from.
pub(super) fn resolve(
    path: &[String],
    modules: &BTreeMap<Vec<String>, usize>,
    reexports: &Reexports,
) -> Option<usize> {
    let n = (1..=path.len())
        .rev()
        .find(|&n| modules.contains_key(&path[..n]))?;
    if let Some(target) = path
        .get(n)
        .and_then(|name| reexports.get(&(path[..n].to_vec(), name.clone())))
    {
        if target.as_slice() != path {
            let mut followed = target.clone();
            followed.extend(path[n + 1..].iter().cloned());
            return resolve(&followed, modules, reexports);
        }
    }
    modules.get(&path[..n]).copied()
}

/// `(module, name)` → the absolute path a `pub use` in that module gives the name.
pub(super) type Reexports = BTreeMap<(Vec<String>, String), Vec<String>>;

pub(super) fn reexports(files: &[Source]) -> Reexports {
    let mut map = Reexports::new();
    for source in files {
        let tokens = tokenize(&source.code);
        for (i, t) in tokens.iter().enumerate() {
            if t != "use" || i == 0 {
                continue;
            }
            // `pub use`, `pub(crate) use`, `pub(super) use`.
            let public = tokens[i - 1] == "pub"
                || (tokens[i - 1] == ")" && i >= 4 && tokens[i - 4] == "pub");
            if !public {
                continue;
            }
            let end = tokens[i..]
                .iter()
                .position(|t| t == ";")
                .map_or(tokens.len(), |p| i + p);
            let mut paths = Vec::new();
            use_tree(&tokens[i + 1..end], &[], &mut paths);
            for path in paths {
                if let Some(abs) = absolute(&source.module, path) {
                    if let Some(name) = abs.last() {
                        map.insert((source.module.clone(), name.clone()), abs.clone());
                    }
                }
            }
        }
    }
    map
}

pub(super) struct Graph {
    pub(super) files: Vec<Source>,
    pub(super) edges: BTreeSet<(usize, usize)>,
}

pub(super) fn graph() -> Graph {
    let files = sources();
    let modules: BTreeMap<Vec<String>, usize> = files
        .iter()
        .enumerate()
        .map(|(i, s)| (s.module.clone(), i))
        .collect();
    let reexports = reexports(&files);
    let mut edges = BTreeSet::new();
    for (i, source) in files.iter().enumerate() {
        for path in imported_paths(source) {
            // A `use x::...` that is not a module of ours (std, serde...) resolves to the
            // importing file itself or its ancestors only through the prefix; skip those.
            let Some(j) = resolve(&path, &modules, &reexports) else {
                continue;
            };
            if j != i && !source.module.starts_with(&files[j].module) {
                edges.insert((i, j));
            } else if j != i && files[j].module.len() < source.module.len() {
                // An item of an ancestor module (`super::X` defined in `mod.rs`): a real
                // import unless the path only passes through to a sibling or child file.
                if path.len() > files[j].module.len() {
                    edges.insert((i, j));
                }
            }
        }
    }
    Graph { files, edges }
}

pub(super) fn name(s: &Source) -> String {
    format!("src/{}", s.path.display())
}
