//! The pipeline's shape, checked from the source: no module imports a later stage, and no
//! two source files import each other, directly or around a circle (docs/architecture.md).
//!
//! Imports are read from the text: every `use` tree and every `crate::`/`super::`/`self::`
//! path outside comments and string literals, resolved to the longest module path that is a
//! file under `src/`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The stages in pipeline order, each with the modules it holds (keyed by the first
/// segment of the module path: `crate::differ::plan` is in `differ`) and the earlier stages
/// it may import. Nothing may import a later stage; the lists say more: the differ and the
/// renderers never meet (renderers read the diff tree), and publish knows only the marker.
const STAGES: &[(&str, &[&str], &[&str])] = &[
    // Runtime support, no stage: the one place work runs on several threads.
    ("concurrency", &["concurrency"], &[]),
    ("input", &["input"], &[]),
    ("diff", &["diff"], &["input"]),
    ("differ", &["differ"], &["concurrency", "input", "diff"]),
    ("policy", &["policy"], &["input", "diff"]),
    ("marker", &["marker"], &[]),
    (
        "render",
        &["render"],
        &["concurrency", "input", "diff", "policy", "marker"],
    ),
    ("publish", &["publish"], &["marker"]),
    (
        "pipeline",
        &["pipeline"],
        &[
            "concurrency",
            "input",
            "diff",
            "differ",
            "policy",
            "marker",
            "render",
            "publish",
        ],
    ),
    (
        "cli",
        &["cli"],
        &[
            "input", "diff", "differ", "policy", "marker", "render", "publish", "pipeline",
        ],
    ),
];

fn stage_of(module: &[String]) -> Option<usize> {
    let first = module.first()?;
    STAGES
        .iter()
        .position(|(_, heads, _)| heads.contains(&first.as_str()))
}

/// A source file: its module path (`["differ", "plan"]`) and text without comments and
/// string literals.
struct Source {
    module: Vec<String>,
    path: PathBuf,
    code: String,
}

fn sources() -> Vec<Source> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    collect(&src, &mut files);
    files
        .into_iter()
        .filter_map(|path| {
            let rel = path.strip_prefix(&src).unwrap();
            let mut module: Vec<String> = rel
                .with_extension("")
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect();
            if module.last().is_some_and(|m| m == "mod") {
                module.pop();
            }
            // The crate roots are not stages: lib.rs only declares modules, main.rs is the
            // binary, which reaches the library as `planmark::`.
            if module == ["lib"] || module == ["main"] {
                return None;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            Some(Source {
                module,
                path: rel.to_path_buf(),
                code: without_test_modules(&strip_comments_and_strings(&text)),
            })
        })
        .collect()
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code with comments, string and char literals blanked (line breaks kept), so a path
/// in a doc comment or a message is not an import.
fn strip_comments_and_strings(text: &str) -> String {
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
fn without_test_modules(code: &str) -> String {
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

fn ident_before(b: &[u8], i: usize) -> bool {
    i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')
}

/// `'x'` or `'\n'`, not a lifetime `'a`.
fn is_char_literal(b: &[u8], i: usize) -> bool {
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
fn imported_paths(source: &Source) -> Vec<Vec<String>> {
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

fn is_ident(t: &str) -> bool {
    t.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

fn tokenize(code: &str) -> Vec<String> {
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
fn use_tree(tokens: &[String], prefix: &[String], out: &mut Vec<Vec<String>>) {
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

fn matching(tokens: &[String], open: usize) -> usize {
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

fn split_top(tokens: &[String]) -> Vec<&[String]> {
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
fn absolute(module: &[String], path: Vec<String>) -> Option<Vec<String>> {
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
fn resolve(
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
type Reexports = BTreeMap<(Vec<String>, String), Vec<String>>;

fn reexports(files: &[Source]) -> Reexports {
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

struct Graph {
    files: Vec<Source>,
    edges: BTreeSet<(usize, usize)>,
}

fn graph() -> Graph {
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

fn name(s: &Source) -> String {
    format!("src/{}", s.path.display())
}

#[test]
fn no_module_imports_a_later_stage() {
    let g = graph();
    let mut unstaged = Vec::new();
    let mut backwards = Vec::new();
    for s in &g.files {
        if stage_of(&s.module).is_none() {
            unstaged.push(name(s));
        }
    }
    for &(from, to) in &g.edges {
        let (Some(a), Some(b)) = (
            stage_of(&g.files[from].module),
            stage_of(&g.files[to].module),
        ) else {
            continue;
        };
        if a != b && !STAGES[a].2.contains(&STAGES[b].0) {
            backwards.push(format!(
                "{} ({}) imports {} ({}); {} may import only {:?}",
                name(&g.files[from]),
                STAGES[a].0,
                name(&g.files[to]),
                STAGES[b].0,
                STAGES[a].0,
                STAGES[a].2
            ));
        }
    }
    assert!(
        unstaged.is_empty(),
        "files in no stage (add their module to STAGES): {unstaged:#?}"
    );
    assert!(
        backwards.is_empty(),
        "imports that run against the pipeline:\n{}",
        backwards.join("\n")
    );
}

/// A child module using its parent's items (`super::X`, defined in `mod.rs`) is a part of
/// that module reaching its own whole, as Rust's privacy has it (a child sees its parent's
/// private items): not counted. Between any other two files, an import one way means none
/// back, directly or around a circle.
#[test]
fn no_import_cycles() {
    let g = graph();
    let n = g.files.len();
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    for &(a, b) in &g.edges {
        let to_own_parent = g.files[a].module.starts_with(&g.files[b].module);
        if !to_own_parent {
            out[a].push(b);
        }
    }
    let cycles = strongly_connected(&out);
    let described: Vec<String> = cycles
        .iter()
        .map(|c| {
            let members: BTreeSet<usize> = c.iter().copied().collect();
            let arrows: Vec<String> = g
                .edges
                .iter()
                .filter(|(a, b)| members.contains(a) && members.contains(b))
                .filter(|(a, b)| !g.files[*a].module.starts_with(&g.files[*b].module))
                .map(|&(a, b)| format!("  {} -> {}", name(&g.files[a]), name(&g.files[b])))
                .collect();
            format!("a circle of {} files:\n{}", c.len(), arrows.join("\n"))
        })
        .collect();
    assert!(
        described.is_empty(),
        "import cycles:\n{}",
        described.join("\n")
    );
}

/// Tarjan's algorithm; returns the components of more than one file.
fn strongly_connected(out: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct State<'g> {
        out: &'g [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        found: Vec<Vec<usize>>,
    }
    fn visit(s: &mut State, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        for k in 0..s.out[v].len() {
            let w = s.out[v][k];
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(iw) if s.on_stack[w] => s.low[v] = s.low[v].min(iw),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().unwrap();
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                s.found.push(component);
            }
        }
    }
    let n = out.len();
    let mut s = State {
        out,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        found: Vec::new(),
    };
    for v in 0..n {
        if s.index[v].is_none() {
            visit(&mut s, v);
        }
    }
    s.found
}

/// The checker itself: it must see the imports it is meant to catch.
#[test]
fn the_checker_reads_use_trees_and_inline_paths() {
    let source = Source {
        module: vec!["render".into(), "text".into(), "values".into()],
        path: PathBuf::from("render/text/values.rs"),
        code: strip_comments_and_strings(
            "use crate::differ::{go_quote, plan::{Differ, x}};\n\
             use super::out::Out; // crate::publish::no\n\
             fn f() { let s = \"crate::cli::no\"; crate::publish::post(); }\n",
        ),
    };
    let paths = imported_paths(&source);
    let joined: Vec<String> = paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(
        joined,
        [
            "differ::go_quote",
            "differ::plan::Differ",
            "differ::plan::x",
            "render::text::out::Out",
            "publish::post"
        ]
    );
}
