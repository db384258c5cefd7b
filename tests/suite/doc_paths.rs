//! The docs' paths: every repository path the Markdown documents name (in prose, in code
//! spans, in blocks and as relative links) exists, so a file moved or renamed takes its
//! mentions with it (issue 37 found seven that no longer existed).

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Where a path named in prose starts: the folders and files at the repository's root.
const ROOTS: &[&str] = &[
    "src/",
    "tests/",
    "docs/",
    "templates/",
    "benches/",
    "examples/",
    "fuzz/",
    ".github/",
    ".ci/",
    "action.yml",
    "Cargo.toml",
    "Cargo.lock",
    "LICENSE",
    "CHANGELOG.md",
];

/// Paths the docs name that are not in the repository by design, and why.
const NOT_IN_THE_REPOSITORY: &[(&str, &str)] = &[
    (
        ".github/workflows/terraform-plan.yml",
        "the reader's own workflow file",
    ),
    ("fuzz/corpus/", "made by `cargo fuzz run`"),
    ("fuzz/artifacts/", "where `cargo fuzz` saves a crash"),
];

/// The Markdown documents a reader of the repository meets.
fn documents() -> Vec<PathBuf> {
    let root = root();
    let mut out = vec![root.join("README.md"), root.join("CHANGELOG.md")];
    for dir in ["docs", "tests", "benches", "examples"] {
        collect(&root.join(dir), &mut out);
    }
    out
}

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect(&path, out);
        } else if path.extension().is_some_and(|e| e == "md")
            // Expected comments are planmark's output, not documentation.
            && !path.file_name().is_some_and(|n| n == "comment.md" || n == "expected.md")
        {
            out.push(path);
        }
    }
}

fn is_path_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '/' | '-')
}

/// A placeholder segment (`CASE`, `N`, `OUTDIR`): capitals only, not a real name.
fn has_placeholder(path: &str) -> bool {
    path.split('/').any(|s| {
        !s.is_empty() && s.chars().all(|c| c.is_ascii_uppercase() || c == '_') && s != "LICENSE"
    })
}

/// Paths from the repository's root named in `line`, as written.
fn rooted_paths(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut start = None;
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    for (k, &(i, c)) in chars.iter().enumerate() {
        let inside = is_path_char(c);
        if inside && start.is_none() {
            start = Some(i);
        }
        let last = k + 1 == chars.len();
        if let Some(s) = start.filter(|_| !inside || last) {
            let end = if inside { line.len() } else { i };
            let token = line[s..end].trim_end_matches(['.', '-']);
            // A word glued to a path on its left (`../src/x`, `a/src/x`) is not rooted.
            let glued = line[..s].ends_with(['~', '$', '@', ':']);
            if !glued
                && ROOTS
                    .iter()
                    .any(|r| token.starts_with(r) || token == r.trim_end_matches('/'))
            {
                out.push(token.to_string());
            }
            start = None;
        }
    }
    out
}

/// Relative link targets in `line` (`[text](target)`), without their `#fragment`.
fn link_targets(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line;
    while let Some(at) = rest.find("](") {
        rest = &rest[at + 2..];
        let Some(end) = rest.find(')') else { break };
        let target = rest[..end].split('#').next().unwrap_or("");
        let external = target.contains("://") || target.starts_with("mailto:");
        if !target.is_empty() && !external && !target.contains(' ') {
            out.push(target.to_string());
        }
        rest = &rest[end..];
    }
    out
}

#[test]
fn every_repository_path_the_docs_name_exists() {
    let root = root();
    let docs = documents();
    assert!(docs.len() > 10, "found only {} documents", docs.len());
    let mut missing = Vec::new();
    let mut checked = 0;
    for doc in &docs {
        let text = std::fs::read_to_string(doc).unwrap();
        let shown = doc.strip_prefix(&root).unwrap().display().to_string();
        for (n, line) in text.lines().enumerate() {
            for path in rooted_paths(line) {
                if has_placeholder(&path)
                    || NOT_IN_THE_REPOSITORY
                        .iter()
                        .any(|(p, _)| path.starts_with(p))
                {
                    continue;
                }
                checked += 1;
                if !root.join(&path).exists() {
                    missing.push(format!("{shown}:{}: {path}", n + 1));
                }
            }
            for target in link_targets(line) {
                checked += 1;
                let base = doc.parent().unwrap();
                if !base.join(&target).exists() {
                    missing.push(format!("{shown}:{}: link {target}", n + 1));
                }
            }
        }
    }
    assert!(
        checked > 100,
        "only {checked} paths found: the scan is broken"
    );
    assert!(
        missing.is_empty(),
        "paths the docs name that do not exist (fix the doc, or list a path made elsewhere \
         in NOT_IN_THE_REPOSITORY with why):\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_scan_finds_paths_in_prose_code_and_links() {
    assert_eq!(
        rooted_paths("see `src/render/markdown/escape.rs`, and tests/suite/ (x)."),
        ["src/render/markdown/escape.rs", "tests/suite/"]
    );
    // Not from the root: a sibling checkout's path, a URL's.
    assert!(rooted_paths("../shared/corpus/x and https://example.com/src/x").is_empty());
    assert_eq!(
        link_targets("[a](docs/policy.md#x) [b](https://x/y) [c](#top)"),
        ["docs/policy.md"]
    );
    assert!(has_placeholder("tests/fixtures/policy/CASE/policy"));
    assert!(!has_placeholder("LICENSE"));
}
