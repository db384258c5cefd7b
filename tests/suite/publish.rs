//! `planmark comment` against a fake GitHub on loopback (tests/suite/support/fake_github.rs),
//! run as a user runs it: the binary, the Actions environment, an event file.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Output;

use support::fake_github::{Failure, FakeGitHub, Flavor, Route, User};
use support::publishing::{
    exited_with, main_plan, no_changes, pull_request_command, HEAD, OWNER, REPO, TOKEN,
};
use support::temp::TempDir;

const PR: u64 = 7;

/// Plans are named `main=PATH`, as a workflow names its target, so successive runs with
/// different plan files share the default key `main`.
fn changes() -> String {
    main_plan("examples/plan.json")
}

fn other_changes() -> String {
    main_plan("tests/fixtures/real-plans/create_first/plan.json")
}

/// A scratch directory with an Actions-like workspace: event file, summary, outputs.
struct Workspace {
    dir: TempDir,
}

impl Workspace {
    fn new(name: &str) -> Workspace {
        let dir = TempDir::new(&format!("publish-{name}"));
        let event = serde_json::json!({
            "action": "synchronize",
            "number": PR,
            "pull_request": {"number": PR, "head": {"sha": HEAD, "ref": "feature"}},
        });
        std::fs::write(dir.join("event.json"), event.to_string()).unwrap();
        Workspace { dir }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }

    fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(name)).unwrap_or_default()
    }
}

async fn fake(flavor: Flavor) -> FakeGitHub {
    let gh = FakeGitHub::start(flavor).await;
    gh.add_repo(OWNER, REPO);
    gh.add_pull(OWNER, REPO, PR, HEAD, "feature", "open");
    gh.add_token(TOKEN, User::actions_bot());
    gh
}

/// Runs `planmark comment ARGS` in an Actions-like environment pointing at `gh`.
async fn comment(gh: &FakeGitHub, ws: &Workspace, env: &[(&str, &str)], args: &[&str]) -> Output {
    let mut cmd = pull_request_command(gh, TOKEN, &ws.path("event.json"), args);
    cmd.env("GITHUB_STEP_SUMMARY", ws.path("summary.md"))
        .env("GITHUB_OUTPUT", ws.path("output.txt"))
        .env("GITHUB_SERVER_URL", "https://github.com");
    for (k, v) in env {
        cmd.env(k, v);
    }
    tokio::task::spawn_blocking(move || cmd.output().expect("run planmark"))
        .await
        .unwrap()
}

fn succeeded(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {stdout}\nstderr: {stderr}",
        out.status.code()
    );
    assert_no_token(&stdout, &stderr);
    stdout
}

fn failed(out: &Output, code: i32) -> String {
    let (_, stderr) = exited_with(out, code, TOKEN);
    assert_eq!(stderr.trim_end().lines().count(), 1, "one line: {stderr}");
    stderr
}

fn assert_no_token(stdout: &str, stderr: &str) {
    assert!(
        !stdout.contains(TOKEN) && !stderr.contains(TOKEN),
        "the token was printed"
    );
}

fn ours(gh: &FakeGitHub) -> Vec<support::fake_github::Comment> {
    gh.comments(OWNER, REPO, PR)
        .into_iter()
        .filter(|c| c.user_login == "github-actions[bot]")
        .collect()
}

fn writes(gh: &FakeGitHub) -> usize {
    gh.requests()
        .iter()
        .filter(|r| r.method != "GET" && !r.path.ends_with("graphql"))
        .count()
}

#[tokio::test(flavor = "multi_thread")]
async fn creates_on_a_busy_pull_request_then_updates_in_place() {
    let gh = fake(Flavor::Dotcom).await;
    let alice = User::human("alice", 1001);
    for i in 0..250 {
        gh.seed_comment(OWNER, REPO, PR, &alice, &format!("comment {i}"));
    }
    let ws = Workspace::new("busy");
    let out = succeeded(&comment(&gh, &ws, &[], &[&changes()]).await);
    assert_eq!(ours(&gh).len(), 1, "{out}");
    let first = ours(&gh)[0].clone();
    assert!(first.body.contains("planmark:v1"));
    assert!(out.contains("create a comment"), "{out}");

    // The next run with a different plan edits the same comment.
    succeeded(&comment(&gh, &ws, &[], &[&other_changes()]).await);
    let now = ours(&gh);
    assert_eq!(now.len(), 1);
    assert_eq!(now[0].id, first.id);
    assert!(
        now[0].body.contains("null_resource.cert"),
        "{}",
        now[0].body
    );
    assert_eq!(gh.comments(OWNER, REPO, PR).len(), 251);

    // Same plan again: nothing to send.
    let before = writes(&gh);
    let out = succeeded(&comment(&gh, &ws, &[], &[&other_changes()]).await);
    assert_eq!(writes(&gh), before, "an unchanged body must not be re-sent");
    assert!(out.contains("up to date"), "{out}");
}

#[tokio::test(flavor = "multi_thread")]
async fn keys_keep_separate_comments_and_look_alikes_are_ignored() {
    let gh = fake(Flavor::Dotcom).await;
    let mallory = User::human("mallory", 666);
    // A copy of our marker in someone else's comment.
    let copy = "fake\n<!-- planmark:v1 {\"key\":\"prod\",\"plan_sha256\":\"0\",\"time\":\"x\"} -->"
        .to_string();
    let theirs = gh.seed_comment(OWNER, REPO, PR, &mallory, &copy);
    let ws = Workspace::new("keys");
    succeeded(&comment(&gh, &ws, &[], &["--key", "prod", &changes()]).await);
    succeeded(&comment(&gh, &ws, &[], &["--key", "dev", &other_changes()]).await);
    succeeded(&comment(&gh, &ws, &[], &["--key", "prod", &other_changes()]).await);
    assert_eq!(ours(&gh).len(), 2, "one comment per key");
    let look_alike = gh
        .comments(OWNER, REPO, PR)
        .into_iter()
        .find(|c| c.id == theirs)
        .unwrap();
    assert_eq!(
        look_alike.body, copy,
        "someone else's comment must never be edited"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_huge_plan_posts_within_the_limit_and_size_refusals_shrink() {
    let gh = fake(Flavor::Dotcom).await;
    let ws = Workspace::new("huge");
    let plan = ws.path("big.json");
    std::fs::write(&plan, support::comment::big_plan(10_000)).unwrap();
    let plan = plan.display().to_string();
    succeeded(&comment(&gh, &ws, &[], &[&plan]).await);
    let body = &ours(&gh)[0].body;
    assert!(body.encode_utf16().count() <= 65_536);
    assert!(body.contains("[!NOTE]"));

    // A limit above GitHub's makes GitHub refuse; planmark re-renders smaller.
    succeeded(
        &comment(
            &gh,
            &ws,
            &[],
            &["--comment-mode", "new", "--max-chars", "300000", &plan],
        )
        .await,
    );
    assert_eq!(ours(&gh).len(), 2);
    assert!(gh
        .requests()
        .iter()
        .any(|r| r.method == "POST" && r.status == Some(422)));
}

#[tokio::test(flavor = "multi_thread")]
async fn rate_limits_and_ambiguous_failures_never_duplicate() {
    let gh = fake(Flavor::Dotcom).await;
    gh.fail_next(Route::ListComments, Failure::bad_gateway());
    gh.fail_next(Route::CreateComment, Failure::secondary_rate_limit(1));
    let ws = Workspace::new("faults");
    succeeded(&comment(&gh, &ws, &[], &[&changes()]).await);
    assert_eq!(ours(&gh).len(), 1);

    // The create goes through but the answer is lost: planmark must find it, not re-post.
    let gh = fake(Flavor::Dotcom).await;
    gh.fail_next(
        Route::CreateComment,
        Failure::ApplyThenStatus { status: 502 },
    );
    succeeded(&comment(&gh, &ws, &[], &[&changes()]).await);
    assert_eq!(ours(&gh).len(), 1, "an ambiguous create must not duplicate");
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_token_and_unknown_pull_request_fail_clearly() {
    let gh = fake(Flavor::Dotcom).await;
    let ws = Workspace::new("denied");
    let denied = comment(
        &gh,
        &ws,
        &[("GITHUB_TOKEN", "ghp_wrong_token_abcdef")],
        &[&changes()],
    )
    .await;
    let err = failed(&denied, 1);
    assert!(err.contains("401") && err.contains("token"), "{err}");
    assert!(!err.contains("ghp_wrong_token_abcdef"));
    // The plan's annotations are printed whatever became of the comment.
    assert_eq!(
        String::from_utf8_lossy(&denied.stdout),
        "::warning title=planmark%3A replace::null_resource.api[0] will be replaced\n"
    );

    let err = failed(
        &comment(&gh, &ws, &[], &["--pr", "999", &changes()]).await,
        1,
    );
    assert!(err.contains("404") && err.contains("--pr"), "{err}");
    assert_eq!(writes(&gh), 0);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_target_comes_from_the_event() {
    let gh = fake(Flavor::Dotcom).await;
    gh.add_pull(
        OWNER,
        REPO,
        8,
        "2222222222222222222222222222222222222222",
        "topic",
        "open",
    );
    let ws = Workspace::new("events");
    // issue_comment on a pull request.
    let event = serde_json::json!({"issue": {"number": 8, "pull_request": {"url": "x"}}});
    std::fs::write(ws.path("comment-event.json"), event.to_string()).unwrap();
    let event_path = ws.path("comment-event.json").display().to_string();
    succeeded(
        &comment(
            &gh,
            &ws,
            &[
                ("GITHUB_EVENT_NAME", "issue_comment"),
                ("GITHUB_EVENT_PATH", &event_path),
            ],
            &[&changes()],
        )
        .await,
    );
    assert_eq!(gh.comments(OWNER, REPO, 8).len(), 1);
    // push: the open pull request whose head is the commit.
    std::fs::write(ws.path("push.json"), "{}").unwrap();
    let push_path = ws.path("push.json").display().to_string();
    succeeded(
        &comment(
            &gh,
            &ws,
            &[
                ("GITHUB_EVENT_NAME", "push"),
                ("GITHUB_EVENT_PATH", &push_path),
                ("GITHUB_SHA", "2222222222222222222222222222222222222222"),
                ("GITHUB_REF_NAME", "topic"),
            ],
            &["--key", "push", &changes()],
        )
        .await,
    );
    assert_eq!(gh.comments(OWNER, REPO, 8).len(), 2);
    // Nothing names a pull request: a usage error.
    let err = failed(
        &comment(
            &gh,
            &ws,
            &[
                ("GITHUB_EVENT_NAME", "schedule"),
                ("GITHUB_EVENT_PATH", &push_path),
            ],
            &[&changes()],
        )
        .await,
        2,
    );
    assert!(err.contains("--pr"), "{err}");
}

#[tokio::test(flavor = "multi_thread")]
async fn enterprise_paths_and_every_mode() {
    let gh = fake(Flavor::Enterprise).await;
    let ws = Workspace::new("ghes");
    succeeded(&comment(&gh, &ws, &[], &[&changes()]).await);
    let first = ours(&gh)[0].id;
    succeeded(&comment(&gh, &ws, &[], &["--comment-mode", "new", &changes()]).await);
    assert_eq!(ours(&gh).len(), 2);
    succeeded(
        &comment(
            &gh,
            &ws,
            &[],
            &["--comment-mode", "recreate", &other_changes()],
        )
        .await,
    );
    let now = ours(&gh);
    assert_eq!(now.len(), 1, "recreate deletes ours first");
    assert_ne!(now[0].id, first);
    succeeded(
        &comment(
            &gh,
            &ws,
            &[],
            &["--comment-mode", "hide-and-new", &changes()],
        )
        .await,
    );
    let now = ours(&gh);
    assert_eq!(now.len(), 2);
    assert!(
        now[0].minimized && !now[1].minimized,
        "the old comment is hidden as outdated"
    );
    // The next run hides only the previous comment, not the one hidden already.
    gh.clear_requests();
    succeeded(
        &comment(
            &gh,
            &ws,
            &[],
            &["--comment-mode", "hide-and-new", &other_changes()],
        )
        .await,
    );
    let now = ours(&gh);
    assert_eq!(now.len(), 3);
    assert!(now[0].minimized && now[1].minimized && !now[2].minimized);
    let hides = gh
        .requests()
        .iter()
        .filter(|r| r.body.contains("minimizeComment"))
        .count();
    assert_eq!(hides, 1, "an already hidden comment is not hidden again");
    assert!(
        gh.requests().iter().all(|r| r.path.starts_with("/api/")),
        "GHES paths"
    );
    assert!(gh.requests().iter().any(|r| r.path == "/api/graphql"));
}

#[tokio::test(flavor = "multi_thread")]
async fn no_changes_update_skip_and_delete() {
    let gh = fake(Flavor::Dotcom).await;
    let ws = Workspace::new("nochanges");
    // skip with no comment: nothing posted.
    succeeded(&comment(&gh, &ws, &[], &["--on-no-changes", "skip", &no_changes()]).await);
    assert!(ours(&gh).is_empty());
    // update (default): posts the "no changes" comment.
    succeeded(&comment(&gh, &ws, &[], &[&no_changes()]).await);
    assert!(ours(&gh)[0].body.contains("No changes"));
    // skip with a stale comment claiming changes: it is still corrected.
    succeeded(&comment(&gh, &ws, &[], &[&changes()]).await);
    succeeded(&comment(&gh, &ws, &[], &["--on-no-changes", "skip", &no_changes()]).await);
    assert!(
        ours(&gh)[0].body.contains("No changes"),
        "a stale comment must not keep claiming changes"
    );
    // delete removes ours.
    succeeded(&comment(&gh, &ws, &[], &["--on-no-changes", "delete", &no_changes()]).await);
    assert!(ours(&gh).is_empty());
}

#[tokio::test(flavor = "multi_thread")]
async fn an_older_run_never_overwrites_a_newer_one() {
    let gh = fake(Flavor::Dotcom).await;
    let ws = Workspace::new("order");
    succeeded(&comment(&gh, &ws, &[("GITHUB_RUN_ID", "20")], &[&changes()]).await);
    let out = succeeded(&comment(&gh, &ws, &[("GITHUB_RUN_ID", "19")], &[&other_changes()]).await);
    assert!(out.contains("newer run"), "{out}");
    assert!(!ours(&gh)[0].body.contains("null_resource.cert"));
}

#[tokio::test(flavor = "multi_thread")]
async fn step_summary_and_outputs_are_written_and_dry_runs_write_nothing() {
    let gh = fake(Flavor::Dotcom).await;
    let ws = Workspace::new("outputs");
    succeeded(&comment(&gh, &ws, &[], &[&changes()]).await);
    let summary = ws.read("summary.md");
    assert!(summary.contains("null_resource.api"), "{summary}");
    let outputs = ws.read("output.txt");
    let id = ours(&gh)[0].id;
    for line in [
        "has_changes=true",
        "add=2",
        "destroy=1",
        "replace=1",
        "truncated=false",
        &format!("comment_id={id}"),
    ] {
        assert!(
            outputs.lines().any(|l| l == line),
            "{line} missing in:\n{outputs}"
        );
    }
    assert!(
        outputs
            .lines()
            .any(|l| l.starts_with("comment_url=https://")),
        "{outputs}"
    );

    let before = writes(&gh);
    let ws2 = Workspace::new("dry");
    let out = succeeded(&comment(&gh, &ws2, &[], &["--dry-run", &other_changes()]).await);
    assert!(out.contains(&format!("would update comment {id}")), "{out}");
    assert!(
        out.contains("null_resource.cert"),
        "the body is printed: {out}"
    );
    // In Actions the printed body cannot issue workflow commands.
    let lines: Vec<&str> = out.lines().collect();
    let token = lines[0].strip_prefix("::stop-commands::").expect(&out);
    assert!(token.len() >= 32, "{token}");
    let resume = format!("::{token}::");
    let end = lines.iter().position(|l| *l == resume).expect(&out);
    // After it only the annotations, which are commands (the replacement's warning).
    assert_eq!(
        lines[end + 1..],
        ["::warning title=planmark%3A replace::null_resource.cert will be replaced"],
        "{out}"
    );
    assert_eq!(writes(&gh), before, "a dry run writes nothing");
    assert!(!Path::new(&ws2.path("summary.md")).exists());
}

/// A plan that only invokes an action (Terraform 1.14) is a change: posted with the action
/// named, counted in the `invoke` output, and failed by `--fail-on changes` after posting.
#[tokio::test(flavor = "multi_thread")]
async fn an_actions_only_plan_is_posted_counted_and_gated() {
    let gh = fake(Flavor::Dotcom).await;
    let ws = Workspace::new("actions");
    let plan = main_plan("tests/fixtures/actions/invoked_from_cli/plan.json");
    failed(
        &comment(&gh, &ws, &[], &["--fail-on", "changes", &plan]).await,
        3,
    );
    let posted = ours(&gh);
    assert_eq!(posted.len(), 1, "posted before the gate fails");
    assert!(
        posted[0].body.contains("Plan: 1 action to invoke")
            && posted[0].body.contains("action.bufo_print.success"),
        "{}",
        posted[0].body
    );
    let outputs = ws.read("output.txt");
    for line in ["has_changes=true", "invoke=1", "add=0", "destroy=0"] {
        assert!(
            outputs.lines().any(|l| l == line),
            "{line} missing in:\n{outputs}"
        );
    }
}
