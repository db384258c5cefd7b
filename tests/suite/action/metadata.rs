//! `action.yml` as a whole: its inputs and outputs, no expression inside a script, every
//! script passes `bash -n` and shellcheck.

use super::*;

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
        STEP_OUTPUTS.iter().chain(&APPLY_OUTPUTS).copied().collect(),
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
    let mut files = vec![
        root().join(".github/workflows/ci.yml"),
        root().join(".github/workflows/release.yml"),
    ];
    files.extend(example_workflows());
    let mut scripts = Vec::new();
    for path in files {
        let file = path.strip_prefix(root()).unwrap().display().to_string();
        let doc = load_yaml(&path);
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
