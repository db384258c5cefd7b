//! The pipeline's shape, checked from the source: no module imports a later stage, and no
//! two source files import each other, directly or around a circle (docs/architecture.md).
//!
//! Imports are read from the text: every `use` tree and every `crate::`/`super::`/`self::`
//! path outside comments and string literals, resolved to the longest module path that is a
//! file under `src/`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

mod cycles;
mod imports;
use cycles::*;
use imports::*;

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
