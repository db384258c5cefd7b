//! Helpers for the tests that run `planmark comment` against the fake GitHub from many
//! tasks at once (`forged_markers`, `concurrent_runs`, `publish`, `policy_labels`): a command with
//! a clean, Actions-like environment, and our comments as the fake stores them.

use std::path::Path;
use std::process::{Command, Output};

use super::fake_github::{Comment, FakeGitHub, User};

pub const TOKEN: &str = "ghs_test_token_value_0123456789";
pub const OWNER: &str = "octo";
pub const REPO: &str = "infra";
pub const HEAD: &str = "1111111111111111111111111111111111111111";

/// A fake GitHub with the repository and the Actions bot's token.
pub async fn fake() -> FakeGitHub {
    let gh = FakeGitHub::start(super::fake_github::Flavor::Dotcom).await;
    gh.add_repo(OWNER, REPO);
    gh.add_token(TOKEN, User::actions_bot());
    gh
}

/// `planmark comment --repo OWNER/REPO --pr PR ARGS` as workflow run `run_id`, with
/// nothing from the test's own environment that planmark reads.
pub fn command(gh: &FakeGitHub, pr: u64, run_id: u64, args: &[String]) -> Command {
    let mut cmd = subcommand(gh, "comment", run_id);
    cmd.args(["--pr", &pr.to_string()]).args(args);
    cmd
}

/// `planmark SUBCOMMAND --repo OWNER/REPO` as workflow run `run_id`, environment as for
/// [`command`]; the caller adds the rest.
pub fn subcommand(gh: &FakeGitHub, subcommand: &str, run_id: u64) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_planmark"));
    cmd.arg(subcommand)
        .args(["--repo", &format!("{OWNER}/{REPO}")]);
    for (name, _) in std::env::vars() {
        if name.starts_with("GITHUB_") || name.starts_with("RUNNER_") {
            cmd.env_remove(name);
        }
    }
    cmd.env("GITHUB_API_URL", gh.api_url())
        .env("GITHUB_TOKEN", TOKEN)
        .env("GITHUB_RUN_ID", run_id.to_string())
        .env("GITHUB_RUN_ATTEMPT", "1")
        .env("SOURCE_DATE_EPOCH", "1795341600")
        .env("NO_COLOR", "1");
    cmd
}

/// `planmark comment ARGS` as a `pull_request` workflow runs it in Actions: the event at
/// `event`, `token`, repository OWNER/REPO on `gh`'s API, and none of the run's own
/// variables (id, attempt, GraphQL URL, commit, step summary, outputs) unless the caller
/// sets them.
pub fn pull_request_command(gh: &FakeGitHub, token: &str, event: &Path, args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_planmark"));
    cmd.arg("comment").args(args);
    for var in [
        "GITHUB_RUN_ID",
        "GITHUB_RUN_ATTEMPT",
        "GITHUB_GRAPHQL_URL",
        "GITHUB_SHA",
        "GITHUB_STEP_SUMMARY",
        "GITHUB_OUTPUT",
    ] {
        cmd.env_remove(var);
    }
    cmd.env("GITHUB_ACTIONS", "true")
        .env("GITHUB_API_URL", gh.api_url())
        .env("GITHUB_TOKEN", token)
        .env("GITHUB_REPOSITORY", format!("{OWNER}/{REPO}"))
        .env("GITHUB_EVENT_NAME", "pull_request")
        .env("GITHUB_EVENT_PATH", event)
        .env("SOURCE_DATE_EPOCH", "1795341600");
    cmd
}

/// `main=PATH`, the argument that names the plan or log at `path` (from the repository's
/// root) `main`, so that all runs share the key `main`.
pub fn main_plan(path: &str) -> String {
    format!("main={}", super::manifest_dir().join(path).display())
}

/// The plan without changes, named `main`.
pub fn no_changes() -> String {
    main_plan("tests/fixtures/real-plans/nothing_to_do/plan.json")
}

/// Runs `cmd` off the async runtime.
pub async fn output(mut cmd: Command) -> Output {
    tokio::task::spawn_blocking(move || cmd.output().expect("run planmark"))
        .await
        .expect("join")
}

/// The run's (stdout, stderr), after checking that it exited with `code` and printed
/// `token` nowhere.
pub fn exited_with(out: &Output, code: i32, token: &str) -> (String, String) {
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(
        out.status.code(),
        Some(code),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert!(
        !stdout.contains(token) && !stderr.contains(token),
        "the token was printed"
    );
    (stdout, stderr)
}

/// Panics with the run's output unless it exited 0.
pub fn assert_ok(what: &str, out: &Output) {
    assert!(
        out.status.success(),
        "{what}: exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The bot's comments on pull request `pr`, oldest first.
pub fn ours(gh: &FakeGitHub, pr: u64) -> Vec<Comment> {
    gh.comments(OWNER, REPO, pr)
        .into_iter()
        .filter(|c| c.user_id == User::actions_bot().id)
        .collect()
}
