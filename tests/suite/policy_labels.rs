//! Failed plans, logs, policy gates and labels through `planmark comment`, against the fake
//! GitHub on loopback (tests/suite/support/fake_github.rs), run as a workflow runs it.
//!
//! The logs in tests/fixtures/logs were made by Terraform 1.0.3 (see its README).

use crate::support;

use std::process::Output;

use crate::support::check::{check_markdown, live_references};
use support::fake_github::{Failure, FakeGitHub, Flavor, Route, User};
use support::publishing::{
    exited_with, main_plan, no_changes, output, pull_request_command, OWNER, REPO,
};
use support::temp::TempDir;

const TOKEN: &str = "ghs_policy_labels_token_0123456789";
const PR: u64 = 12;
const HEAD: &str = "2222222222222222222222222222222222222222";

fn destroys() -> String {
    main_plan("tests/fixtures/real-plans/removals/plan.json")
}

/// One resource created, nothing else (the plan of tests/fixtures/logs/warnings.tf).
fn creates() -> String {
    main_plan("tests/fixtures/logs/warnings-plan.json")
}

fn failed_log() -> String {
    main_plan("tests/fixtures/logs/failed.jsonl")
}

async fn fake() -> FakeGitHub {
    let gh = FakeGitHub::start(Flavor::Dotcom).await;
    gh.add_repo(OWNER, REPO);
    gh.add_pull(OWNER, REPO, PR, HEAD, "feature", "open");
    gh.add_token(TOKEN, User::actions_bot());
    gh
}

/// Runs `planmark comment ARGS` with the Actions environment pointing at `gh`.
async fn comment(gh: &FakeGitHub, args: &[&str]) -> Output {
    // A directory per run: tests run in parallel, and rewriting a shared file could let one
    // run read it while another has just truncated it.
    let dir = TempDir::new("policy-labels");
    let event =
        serde_json::json!({"number": PR, "pull_request": {"number": PR, "head": {"sha": HEAD}}});
    let event_path = dir.join("event.json");
    std::fs::write(&event_path, event.to_string()).unwrap();
    output(pull_request_command(gh, TOKEN, &event_path, args)).await
}

/// Asserts the exit code; returns (stdout, stderr).
fn exited(out: &Output, code: i32) -> (String, String) {
    exited_with(out, code, TOKEN)
}

fn ours(gh: &FakeGitHub) -> Vec<support::fake_github::Comment> {
    gh.comments(OWNER, REPO, PR)
        .into_iter()
        .filter(|c| c.user_login == "github-actions[bot]")
        .collect()
}

fn label_writes(gh: &FakeGitHub) -> Vec<String> {
    gh.requests()
        .iter()
        .filter(|r| r.path.contains("/labels") && r.method != "GET")
        .map(|r| format!("{} {}", r.method, r.path))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_plan_and_the_next_good_one_share_one_comment() {
    let gh = fake().await;
    let (stdout, _) = exited(&comment(&gh, &["--failed", &failed_log()]).await, 0);
    assert!(stdout.contains("create a comment"), "{stdout}");
    let first = ours(&gh);
    assert_eq!(first.len(), 1);
    let body = &first[0].body;
    assert!(body.contains("— Plan failed"), "{body}");
    assert!(body.contains("**Error: Invalid count argument**"), "{body}");
    assert!(body.contains("length(var.replicas) - 5"), "{body}");
    assert!(body.contains("\"key\":\"main\""), "{body}");

    // The fixed plan updates the same comment in place…
    exited(&comment(&gh, &[&creates()]).await, 0);
    let now = ours(&gh);
    assert_eq!(now.len(), 1);
    assert_eq!(now[0].id, first[0].id);
    assert!(now[0].body.contains("Plan: 1 to add"), "{}", now[0].body);
    assert!(!now[0].body.contains("Plan failed"));

    // …and so does a later failure, with `--on-no-changes skip` too (a failure is news).
    exited(
        &comment(&gh, &["--on-no-changes", "skip", "--failed", &failed_log()]).await,
        0,
    );
    let again = ours(&gh);
    assert_eq!((again.len(), again[0].id), (1, first[0].id));
    assert!(again[0].body.contains("Plan failed"));
}

#[tokio::test(flavor = "multi_thread")]
async fn a_plain_text_log_without_blocks_shows_its_tail() {
    let gh = fake().await;
    let dir = TempDir::new("tail");
    let log = dir.join("plan.log");
    let text: String = (1..=60)
        .map(|i| format!("step {i}\n"))
        .chain(["Killed @octo-org/admins see #12 ````\n".to_string()])
        .collect();
    std::fs::write(&log, text).unwrap();
    let arg = format!("main={}", log.display());
    exited(&comment(&gh, &["--failed", &arg]).await, 0);
    let body = &ours(&gh)[0].body;
    assert!(body.contains("its last 40 lines"), "{body}");
    assert!(
        !body.contains("step 21\n") && body.contains("step 22\n"),
        "{body}"
    );
    // Inside a fence longer than the log's backtick run, so nothing in it is live.
    assert!(body.contains("`````\nstep 22"), "{body}");
    assert!(check_markdown(body).is_empty(), "{body}");
    assert!(live_references(body).is_empty(), "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn policy_violations_fail_after_the_comment_is_posted() {
    let gh = fake().await;
    let out = comment(
        &gh,
        &[
            "--fail-on",
            "destroy",
            "--max-destroy",
            "1",
            "--protect",
            "null_*",
            &destroys(),
        ],
    )
    .await;
    let (_, stderr) = exited(&out, 3);
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(
        lines.iter().all(|l| l.starts_with("planmark: policy: ")),
        "{stderr}"
    );
    assert!(
        lines.contains(&"planmark: policy: null_resource.legacy is destroyed (--fail-on destroy)"),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "objects are destroyed (replacements included), more than 1 (--max-destroy 1)"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("null_resource.legacy is destroyed but is protected (--protect null_*)"),
        "{stderr}"
    );
    let body = &ours(&gh)[0].body;
    assert!(body.contains("**Policy: "), "{body}");
    assert!(
        body.contains(
            "> - is destroyed (`--fail-on destroy`) **× 4**: `null_resource.bucket[\"tmp\"]`, \
             `null_resource.legacy`, `null_resource.shard[2]`, `null_resource.shard[3]`\n"
        ),
        "{body}"
    );

    // Nothing destroyed: the same gates pass.
    exited(
        &comment(
            &gh,
            &["--fail-on", "destroy", "--protect", "null_*", &creates()],
        )
        .await,
        0,
    );
    assert!(!ours(&gh)[0].body.contains("Policy:"));
}

/// A replacement destroys its old object: `--fail-on destroy` fails on both orders, and the
/// comment says why; `--fail-on delete-only` does not.
#[tokio::test(flavor = "multi_thread")]
async fn replacements_fail_the_destroy_gate_in_the_comment() {
    for case in ["create_before_destroy", "destroy_before_create"] {
        let gh = fake().await;
        let plan = main_plan(&format!(
            "tests/fixtures/policy/replacements_count_as_destroyed/{case}/plan.json"
        ));
        let (_, stderr) = exited(&comment(&gh, &["--fail-on", "destroy", &plan]).await, 3);
        assert!(
            stderr.ends_with(" is replaced, destroying its old object (--fail-on destroy)\n"),
            "{case}: {stderr}"
        );
        let body = &ours(&gh)[0].body;
        assert!(
            body.contains("is replaced, destroying its old object (`--fail-on destroy`)"),
            "{case}: {body}"
        );
        exited(&comment(&gh, &["--fail-on", "delete-only", &plan]).await, 0);
        assert!(!ours(&gh)[0].body.contains("Policy:"), "{case}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn policy_is_checked_on_dry_runs_and_skips_and_a_publish_failure_wins() {
    let gh = fake().await;
    let (stdout, stderr) = exited(
        &comment(&gh, &["--dry-run", "--fail-on", "changes", &creates()]).await,
        3,
    );
    assert!(stdout.contains("would create a comment"), "{stdout}");
    assert_eq!(
        stderr,
        "planmark: policy: the plan has changes (--fail-on changes)\n"
    );
    assert!(ours(&gh).is_empty(), "a dry run posts nothing");

    // `skip` posts nothing for an unchanged plan, but the gate is still checked.
    exited(
        &comment(
            &gh,
            &[
                "--on-no-changes",
                "skip",
                "--fail-on",
                "check-failure",
                &no_changes(),
            ],
        )
        .await,
        0,
    );
    let (_, stderr) = exited(
        &comment(
            &gh,
            &["--on-no-changes", "skip", "--max-destroy", "0", &destroys()],
        )
        .await,
        3,
    );
    assert!(stderr.contains("--max-destroy 0"), "{stderr}");

    // GitHub refusing the comment is exit 1, whatever the policy says.
    gh.fail_next(
        Route::ListComments,
        Failure::Status {
            status: 404,
            headers: vec![],
            body: r#"{"message":"Not Found"}"#.into(),
        },
    );
    let out = comment(&gh, &["--fail-on", "destroy", &destroys()]).await;
    let (_, stderr) = exited(&out, 1);
    assert!(!stderr.contains("policy"), "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn labels_follow_the_verdict_and_leave_others_alone() {
    let gh = fake().await;
    gh.seed_labels(OWNER, REPO, PR, &["bug", "planmark:no-changes"]);

    // Destroys: add ours, remove the stale one, keep `bug`.
    let (stdout, _) = exited(&comment(&gh, &["--labels", &destroys()]).await, 0);
    assert!(
        stdout.contains("add the label planmark:destroy"),
        "{stdout}"
    );
    assert_eq!(gh.labels(OWNER, REPO, PR), ["bug", "planmark:destroy"]);
    assert!(
        label_writes(&gh).contains(&format!(
            "DELETE /repos/{OWNER}/{REPO}/issues/{PR}/labels/planmark%3Ano-changes"
        )),
        "{:?}",
        label_writes(&gh)
    );

    // Already right: no label writes at all.
    gh.clear_requests();
    exited(&comment(&gh, &["--labels", &destroys()]).await, 0);
    assert!(label_writes(&gh).is_empty(), "{:?}", label_writes(&gh));

    // Changes, with a custom name holding a space: encoded in the path.
    gh.clear_requests();
    let args = ["--labels", "--label-changes", "plan: changes", &creates()];
    exited(&comment(&gh, &args).await, 0);
    assert_eq!(gh.labels(OWNER, REPO, PR), ["bug", "plan: changes"]);

    // A failed plan changes no label.
    gh.clear_requests();
    let args = [
        "--labels",
        "--label-changes",
        "plan: changes",
        "--failed",
        &failed_log(),
    ];
    exited(&comment(&gh, &args).await, 0);
    assert!(label_writes(&gh).is_empty());
    assert_eq!(gh.labels(OWNER, REPO, PR), ["bug", "plan: changes"]);

    // A dry run says what it would do and does nothing.
    let args = [
        "--dry-run",
        "--labels",
        "--label-changes",
        "plan: changes",
        &no_changes(),
    ];
    let (stdout, _) = exited(&comment(&gh, &args).await, 0);
    assert!(
        stdout.contains("planmark: would add the label planmark:no-changes\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("planmark: would remove the label plan: changes\n"),
        "{stdout}"
    );
    assert_eq!(gh.labels(OWNER, REPO, PR), ["bug", "plan: changes"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_label_removed_meanwhile_is_fine_and_a_fork_token_fails_once() {
    let gh = fake().await;
    gh.seed_labels(OWNER, REPO, PR, &["planmark:changes"]);
    // Someone removes it between our read and our delete: GitHub's 404.
    gh.fail_next(
        Route::RemoveLabel,
        Failure::Status {
            status: 404,
            headers: vec![],
            body: r#"{"message":"Label does not exist","documentation_url":"https://docs.github.com/rest/issues/labels#remove-a-label-from-an-issue","status":"404"}"#.into(),
        },
    );
    exited(&comment(&gh, &["--labels", &no_changes()]).await, 0);
    assert!(gh
        .labels(OWNER, REPO, PR)
        .contains(&"planmark:no-changes".to_string()));

    let fork = FakeGitHub::start(Flavor::Dotcom).await;
    fork.add_repo(OWNER, REPO);
    fork.add_pull(OWNER, REPO, PR, HEAD, "feature", "open");
    fork.add_read_only_token(TOKEN, User::actions_bot());
    let (_, stderr) = exited(&comment(&fork, &["--labels", &creates()]).await, 1);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreadable_plan_among_several_is_posted_then_exit_2() {
    let gh = fake().await;
    let dir = TempDir::new("unreadable");
    let bad = dir.join("bad.json");
    std::fs::write(&bad, br#"{"format_version":"1.2","provider_schemas":{}}"#).unwrap();
    let bad_arg = format!("broken={}", bad.display());
    let out = comment(&gh, &["--fail-on", "changes", &destroys(), &bad_arg]).await;
    let (stdout, stderr) = exited(&out, 2);
    assert!(stdout.contains("create a comment"), "{stdout}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("is provider schemas"), "{stderr}");
    let posted = ours(&gh);
    assert_eq!(posted.len(), 1, "posted before exiting");
    let body = &posted[0].body;
    assert!(body.contains("`broken` — Plan could not be read"), "{body}");
    assert!(body.contains("is provider schemas"), "{body}");
    assert!(
        body.contains("`main`"),
        "the readable plan is shown: {body}"
    );
    assert!(check_markdown(body).is_empty(), "{body}");
    assert!(live_references(body).is_empty(), "{body}");
}

/// A token that may comment but not label (no `issues: write`): the comment is posted and
/// the step's outputs and summary are written before the labels are tried; their refusal
/// is a warning naming the permission, not a failure.
#[tokio::test(flavor = "multi_thread")]
async fn a_refused_label_is_a_warning_after_the_outputs() {
    let gh = fake().await;
    gh.fail_next(
        Route::AddLabels,
        Failure::Status {
            status: 403,
            headers: vec![],
            body: r#"{"message":"Resource not accessible by integration"}"#.into(),
        },
    );
    let dir = TempDir::new("policy-labels-outputs");
    let event =
        serde_json::json!({"number": PR, "pull_request": {"number": PR, "head": {"sha": HEAD}}});
    let event_path = dir.join("event.json");
    std::fs::write(&event_path, event.to_string()).unwrap();
    let (outputs, summary) = (dir.join("output.txt"), dir.join("summary.md"));
    let mut cmd = pull_request_command(&gh, TOKEN, &event_path, &["--labels", &destroys()]);
    cmd.env("GITHUB_OUTPUT", &outputs)
        .env("GITHUB_STEP_SUMMARY", &summary);
    let (_, stderr) = exited(&output(cmd).await, 0);
    assert!(
        stderr.contains(
            "planmark: warning: the labels were not set: adding a label: GitHub answered 403"
        ) && stderr.contains("`permissions: issues: write`"),
        "{stderr}"
    );
    assert_eq!(ours(&gh).len(), 1, "the comment is posted");
    let outputs = std::fs::read_to_string(&outputs).unwrap();
    for line in ["has_changes=true", "destroy=", "move=0", "comment_id="] {
        assert!(outputs.contains(line), "{line} in {outputs}");
    }
    assert!(!std::fs::read_to_string(&summary).unwrap().is_empty());
    assert!(gh.labels(OWNER, REPO, PR).is_empty());
}
