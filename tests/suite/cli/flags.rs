//! Flags of `comment` and `render`: old mode spellings, the binary plan hint, pull request
//! zero, a tokenless dry run with `--on-no-changes`, `--config-dir` and `--commit`.

use super::*;

#[test]
fn old_mode_spellings_still_work_with_a_hint() {
    let plan = "tests/fixtures/equivalence/drift_refresh_only/plan.json";
    let new = render(&["--plan-mode", "normal", plan]);
    assert_success(&new);
    let old = render(&["--mode", "normal", plan]);
    assert_eq!(old.code(), 0, "{}", old.stderr);
    assert_eq!(old.stdout, new.stdout, "the same meaning");
    assert_eq!(
        old.stderr,
        "planmark: note: `render --mode` is now `--plan-mode`; the old spelling still works\n"
    );
    let both = render(&["--mode", "normal", "--plan-mode", "normal", plan]);
    assert_eq!(both.code(), 2, "{}", both.stderr);

    // `comment --mode` was the comment mode.
    let out = command(&[
        "comment",
        "--dry-run",
        "--repo",
        "octo/infra",
        "--pr",
        "7",
        "--mode",
        "new",
        "examples/plan.json",
    ])
    .env_remove("GITHUB_TOKEN")
    .env_remove("GITHUB_EVENT_PATH")
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "planmark: note: `comment --mode` is now `--comment-mode`; the old spelling still works\n"
    );
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .starts_with("planmark: would create a comment (no token"),
        "{out:?}"
    );
}

// ---------------------------------------------------------------------------
// Messages that name what was given
// ---------------------------------------------------------------------------

#[test]
fn binary_plan_hint_names_the_file_given() {
    let file = Temp::file("binary_plan_hint", b"PK\x03\x04\x14\x00binary plan");
    let out = render(&[file.arg()]);
    let hint = format!("`terraform show -json {} > plan.json`", file.arg());
    assert_input_error(&out, file.arg(), &["is a binary plan file", &hint]);
    assert!(!out.stderr.contains("tfplan"), "{}", out.stderr);
    // A path that needs quoting is quoted for the shell.
    let spaced = temp_path("binary plan hint", "my plan");
    std::fs::write(&spaced, b"PK\x03\x04binary").unwrap();
    let spaced = Temp { path: spaced };
    let out = render(&[spaced.arg()]);
    let hint = format!("`terraform show -json '{}' > plan.json`", spaced.arg());
    assert_input_error(&out, spaced.arg(), &[&hint]);
}

#[test]
fn comment_refuses_pull_request_zero() {
    let out = run(
        &[
            "comment",
            "--dry-run",
            "--repo",
            "octo/infra",
            "--pr",
            "0",
            "examples/plan.json",
        ],
        None,
    );
    assert_no_panic(&out);
    assert_eq!(out.code(), 2, "stderr:\n{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert_one_line(&out.stderr);
    assert!(
        out.stderr
            .starts_with("planmark: error: --pr 0: pull request numbers start at 1"),
        "{}",
        out.stderr
    );
}

/// A plan with no changes (Terraform 1.0.3, null provider).
const NO_CHANGES: &str = "tests/fixtures/real-plans/nothing_to_do/plan.json";

#[test]
fn tokenless_dry_run_honours_on_no_changes() {
    let dry_run = |extra: &[&str], plan: &str| {
        let mut args = vec!["comment", "--dry-run", "--repo", "octo/infra", "--pr", "7"];
        args.extend_from_slice(extra);
        args.push(plan);
        let out = command(&args)
            .env_remove("GITHUB_TOKEN")
            .env_remove("GITHUB_EVENT_PATH")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}: {out:?}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        stdout.lines().next().unwrap_or_default().to_string()
    };
    let first = dry_run(&["--on-no-changes", "skip"], NO_CHANGES);
    assert_eq!(
        first,
        "planmark: would post nothing new, as the plan has no changes (--on-no-changes skip); a comment of ours would still be updated (no token: existing comments not checked)"
    );
    let first = dry_run(&["--on-no-changes", "delete"], NO_CHANGES);
    assert_eq!(
        first,
        "planmark: would delete our comment if there is one, as the plan has no changes (--on-no-changes delete; no token: existing comments not checked)"
    );
    let first = dry_run(&["--on-no-changes", "update"], NO_CHANGES);
    assert_eq!(
        first,
        "planmark: would create or update the comment (no token: existing comments not checked)"
    );
    // With changes the choice does not apply; the comment mode does.
    let first = dry_run(&["--on-no-changes", "delete"], "examples/plan.json");
    assert_eq!(
        first,
        "planmark: would create or update the comment (no token: existing comments not checked)"
    );
    let first = dry_run(&["--comment-mode", "recreate"], "examples/plan.json");
    assert_eq!(
        first,
        "planmark: would delete our comments and create a comment (no token: existing comments not checked)"
    );
}

#[test]
fn config_dirs_are_one_or_one_per_plan_and_must_be_directories() {
    let plan = "tests/fixtures/links/root_local_nested/plan.json";
    let a = format!("a={plan}");
    let b = format!("b={plan}");
    let dir = "tests/fixtures/links/root_local_nested/repo/infra";
    let out = render(&[
        &a,
        &b,
        "--config-dir",
        dir,
        "--config-dir",
        dir,
        "--config-dir",
        dir,
    ]);
    assert_eq!(out.code(), 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("--config-dir: given 3 times for 2 plans"),
        "{}",
        out.stderr
    );
    for not_a_dir in [plan, "tests/fixtures/links/no-such-dir"] {
        let out = render(&[plan, "--config-dir", not_a_dir]);
        assert_eq!(out.code(), 2, "{not_a_dir}: {}", out.stderr);
        assert!(out.stderr.contains("--config-dir"), "{}", out.stderr);
        assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    }
    let out = render(&[plan, "--commit", "main"]);
    assert_eq!(out.code(), 2, "{}", out.stderr);
    assert!(out.stderr.contains("full commit SHA"), "{}", out.stderr);
}
