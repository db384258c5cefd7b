//! `planmark comment --applied LOG` against the fake GitHub on loopback, run as a workflow
//! runs it: the plan's comment becomes the apply's (same key), `--comment-mode new` posts
//! another, labels and step outputs follow the outcome, and no sensitive value or token
//! reaches the pull request, the step summary or the job log.

use crate::support;

use std::path::Path;
use std::process::Output;

use crate::support::check::check_markdown;
use support::fake_github::{FakeGitHub, Flavor, User};
use support::publishing::{exited_with, main_plan, output, pull_request_command, OWNER, REPO};
use support::temp::TempDir;

use super::SECRET;

const TOKEN: &str = "ghs_applied_token_0123456789";
const PR: u64 = 27;
const HEAD: &str = "2727272727272727272727272727272727272727";

fn fixture(behaviour: &str, file: &str) -> String {
    main_plan(&format!("tests/fixtures/applied/{behaviour}/{file}"))
}

async fn fake() -> FakeGitHub {
    let gh = FakeGitHub::start(Flavor::Dotcom).await;
    gh.add_repo(OWNER, REPO);
    gh.add_pull(OWNER, REPO, PR, HEAD, "feature", "open");
    gh.add_token(TOKEN, User::actions_bot());
    gh
}

/// Runs `planmark comment ARGS` in `dir` (event, step summary and outputs there).
async fn comment(gh: &FakeGitHub, dir: &Path, args: &[&str]) -> Output {
    let event =
        serde_json::json!({"number": PR, "pull_request": {"number": PR, "head": {"sha": HEAD}}});
    let event_path = dir.join("event.json");
    std::fs::write(&event_path, event.to_string()).unwrap();
    let mut cmd = pull_request_command(gh, TOKEN, &event_path, args);
    cmd.env("GITHUB_STEP_SUMMARY", dir.join("summary.md"))
        .env("GITHUB_OUTPUT", dir.join("output.txt"));
    output(cmd).await
}

fn ours(gh: &FakeGitHub) -> Vec<support::fake_github::Comment> {
    gh.comments(OWNER, REPO, PR)
        .into_iter()
        .filter(|c| c.user_login == "github-actions[bot]")
        .collect()
}

fn read(dir: &Path, name: &str) -> String {
    std::fs::read_to_string(dir.join(name)).unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn the_plan_comment_becomes_the_apply_comment_and_new_posts_another() {
    let gh = fake().await;
    let dir = TempDir::new("applied-publish");
    let plan = fixture("succeeds-json-with-plan", "plan.json");
    let log = fixture("succeeds-json-with-plan", "apply.jsonl");
    exited_with(&comment(&gh, dir.path(), &[&plan]).await, 0, TOKEN);
    let planned = ours(&gh);
    assert_eq!(planned.len(), 1);
    assert!(!planned[0].body.contains("Terraform apply"));

    // The apply, keyed `main` like the plan: the same comment, edited.
    let (stdout, stderr) = exited_with(
        &comment(&gh, dir.path(), &["--labels", "--applied", &log, &plan]).await,
        0,
        TOKEN,
    );
    let applied = ours(&gh);
    assert_eq!(applied.len(), 1, "{stdout}");
    assert_eq!(
        applied[0].id, planned[0].id,
        "the plan's comment is updated"
    );
    let body = &applied[0].body;
    assert!(
        body.starts_with("### Terraform apply: ✅ applied"),
        "{body}"
    );
    assert!(body.contains("<details><summary>📋 The reviewed plan</summary>"));
    assert!(
        check_markdown(body).is_empty(),
        "{:?}",
        check_markdown(body)
    );
    assert_eq!(gh.labels(OWNER, REPO, PR), ["planmark:applied"]);
    let outputs = read(dir.path(), "output.txt");
    assert!(
        outputs.ends_with("applied=true\nfailed=false\n"),
        "{outputs}"
    );
    for (place, text) in [
        ("comment", body.as_str()),
        ("stdout", &stdout),
        ("stderr", &stderr),
        ("summary", &read(dir.path(), "summary.md")),
        ("outputs", &outputs),
    ] {
        assert!(!text.contains(SECRET), "{place}: a sensitive value");
    }

    // `--comment-mode new` posts a second comment; the first stays.
    exited_with(
        &comment(
            &gh,
            dir.path(),
            &["--comment-mode", "new", "--applied", &log, &plan],
        )
        .await,
        0,
        TOKEN,
    );
    let now = ours(&gh);
    assert_eq!(now.len(), 2);
    assert_eq!(now[0].id, planned[0].id);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_apply_is_posted_labelled_and_exits_0() {
    let gh = fake().await;
    gh.seed_labels(OWNER, REPO, PR, &["bug", "planmark:destroy"]);
    let dir = TempDir::new("applied-failed");
    let log = fixture("fails-part-way-text-with-plan", "apply.txt");
    let plan = fixture("fails-part-way-text-with-plan", "plan.json");
    // Gates judge plans before review: an apply's comment does not fail on them.
    let args = ["--labels", "--fail-on", "destroy", "--applied", &log, &plan];
    let (stdout, stderr) = exited_with(&comment(&gh, dir.path(), &args).await, 0, TOKEN);
    assert!(stdout.contains("create a comment"), "{stdout}");
    assert!(
        !stderr.lines().any(|l| l.trim_start().starts_with("::")),
        "{stderr}"
    );
    let body = &ours(&gh)[0].body;
    assert!(
        body.starts_with("### Terraform apply: ❌ apply failed"),
        "{body}"
    );
    assert!(body.contains("| ⬜ | `null_resource.notify` | 🟢 create | not reached |"));
    assert_eq!(gh.labels(OWNER, REPO, PR), ["bug", "planmark:apply-failed"]);
    let outputs = read(dir.path(), "output.txt");
    assert!(
        outputs.ends_with("applied=false\nfailed=true\n"),
        "{outputs}"
    );
    assert!(read(dir.path(), "summary.md").contains("❌ apply failed"));

    // A log without its plan: keyed by NAME=, posted, the apply's own label kept.
    let hostile = fixture("hostile-outputs", "apply.jsonl");
    exited_with(
        &comment(&gh, dir.path(), &["--labels", "--applied", &hostile]).await,
        0,
        TOKEN,
    );
    assert_eq!(ours(&gh).len(), 1, "the same key `main`");
    let body = &ours(&gh)[0].body;
    assert!(!body.contains(SECRET) && check_markdown(body).is_empty());
    assert_eq!(gh.labels(OWNER, REPO, PR), ["bug", "planmark:applied"]);
}
