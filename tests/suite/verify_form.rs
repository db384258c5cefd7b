//! Issue 35, what `planmark verify` compares: the plan's data in a versioned canonical
//! form, not the comment as rendered. The verdict is the same whatever render options the
//! plan job used; a marker of another form is said to be so (exit 2), never taken for a
//! different plan; an old plan's hashes made with schemas ask for them; reviewed changes
//! that are gone are named from the reviewed comment.

use crate::support;

use std::path::Path;

use support::fake_github::{FakeGitHub, User};
use support::publishing::{assert_ok, command, exited_with, fake, output, subcommand};
use support::publishing::{HEAD, OWNER, REPO, TOKEN};

const PLAN: &str = "tests/fixtures/real-plans/taint_and_request/plan.json";
const SCHEMAS: &str = "tests/fixtures/real-plans/taint_and_request/schemas.json";
const OLD: &str = "tests/fixtures/old-sensitivity/terraform_0_14";

fn path(relative: &str) -> String {
    support::manifest_dir().join(relative).display().to_string()
}

/// A pull request `pr` whose plan job commented on `plan` with `args`.
async fn reviewed(pr: u64, plan: &str, args: &[&str]) -> FakeGitHub {
    let gh = fake().await;
    gh.add_pull(OWNER, REPO, pr, HEAD, "feature", "open");
    let mut all: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    all.push(format!("main={plan}"));
    assert_ok("comment", &output(command(&gh, pr, 1, &all)).await);
    gh
}

async fn verify(gh: &FakeGitHub, pr: u64, plan: &str, args: &[&str]) -> std::process::Output {
    let mut cmd = subcommand(gh, "verify", 2);
    cmd.args(["--pr", &pr.to_string()])
        .args(args)
        .arg(format!("main={plan}"));
    output(cmd).await
}

#[tokio::test(flavor = "multi_thread")]
async fn render_options_of_the_plan_job_do_not_change_the_verdict() {
    let dir = support::temp::TempDir::new("verify-options");
    let template = dir.join("comment.hbs");
    std::fs::write(&template, "Custom: {{#each plans}}{{name}}{{/each}}\n").unwrap();
    let template = template.display().to_string();
    let schemas = path(SCHEMAS);
    let option_sets: [&[&str]; 6] = [
        &["--schemas", &schemas],
        &["--template", &template],
        &["--max-chars", "2000"],
        &["--map", "always"],
        &["--no-group"],
        &[
            "--schemas",
            &schemas,
            "--max-chars",
            "3000",
            "--map",
            "never",
            "--no-group",
        ],
    ];
    for (n, options) in option_sets.iter().enumerate() {
        let pr = 60 + n as u64;
        let gh = reviewed(pr, &path(PLAN), options).await;
        let (stdout, _) = exited_with(&verify(&gh, pr, &path(PLAN), &[]).await, 0, TOKEN);
        assert!(
            stdout.starts_with("planmark: the plan matches the one reviewed (2 changes)"),
            "{options:?}: {stdout}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn a_marker_written_by_planmark_0_1_is_named_not_judged() {
    let gh = fake().await;
    gh.add_pull(OWNER, REPO, 70, HEAD, "feature", "open");
    let body = std::fs::read_to_string(
        Path::new(&path("tests/fixtures/verify/marker-from-planmark-0.1")).join("comment.md"),
    )
    .unwrap();
    gh.seed_comment(OWNER, REPO, 70, &User::actions_bot(), &body);
    let out = verify(&gh, 70, &path(PLAN), &[]).await;
    let (stdout, stderr) = exited_with(&out, 2, TOKEN);
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.contains("records the reviewed changes in the form of an earlier planmark")
            && stderr.contains("this planmark reads form 2 only")
            && stderr.contains("run the plan job again with this planmark")
            && !stderr.contains("not the one reviewed"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_old_plan_hashed_with_schemas_asks_for_them() {
    let plan = path(&format!("{OLD}/plan.json"));
    let schemas = path(&format!("{OLD}/schemas.json"));
    let gh = reviewed(71, &plan, &["--schemas", &schemas]).await;
    let marker = gh.comments(OWNER, REPO, 71)[0].body.clone();
    assert!(marker.contains("\"changes_schemas\":true"), "{marker}");
    let (_, stderr) = exited_with(&verify(&gh, 71, &plan, &[]).await, 2, TOKEN);
    assert!(stderr.contains("pass --schemas FILE"), "{stderr}");
    exited_with(
        &verify(&gh, 71, &plan, &["--schemas", &schemas]).await,
        0,
        TOKEN,
    );
    // Reviewed without schemas, verified with them: the hashes made without are compared.
    let gh = reviewed(72, &plan, &[]).await;
    exited_with(
        &verify(&gh, 72, &plan, &["--schemas", &schemas]).await,
        0,
        TOKEN,
    );
    exited_with(&verify(&gh, 72, &plan, &[]).await, 0, TOKEN);
}
