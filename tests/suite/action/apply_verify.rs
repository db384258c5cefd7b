//! The action's `command` input end to end: a plan comment, `verify` before the apply, and
//! `apply` updating the same comment, as the examples in `examples/apply-*.yml` run them.

use super::*;

/// `infra/plan.json` and `infra/apply.log` of one of the real apply scenarios.
fn apply_workspace(runner: &Runner, scenario: &str) -> PathBuf {
    let dir = runner.workspace.join("infra");
    std::fs::create_dir_all(&dir).unwrap();
    let from = root().join("tests/fixtures/apply").join(scenario);
    std::fs::copy(from.join("plan.json"), dir.join("plan.json")).unwrap();
    std::fs::copy(from.join("apply.jsonl"), dir.join("apply.log")).unwrap();
    dir
}

fn call(command: &str) -> Invocation {
    base_call()
        .with("version", "source")
        .with("working-directory", "infra")
        .with("plan", "plan.json")
        .with("labels", "true")
        .with("command", command)
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
async fn plan_verify_and_a_failed_apply_keep_one_comment() {
    let Some((fake, runner, _)) = e2e(
        "plan_verify_and_a_failed_apply_keep_one_comment",
        "apply",
        &["curl", "cargo", "terraform"],
    )
    .await
    else {
        return;
    };
    apply_workspace(&runner, "apply-fails-part-way");

    let run = run_blocking(&runner, &call("plan"), GitHubEnv::new(&fake, 81)).await;
    assert!(run.ok(), "{}", run.describe());
    let planned = fake.comments("octo", "infra", 7);
    assert_eq!(planned.len(), 1);

    let run = run_blocking(&runner, &call("verify"), GitHubEnv::new(&fake, 82)).await;
    assert!(
        run.ok(),
        "the plan commented is the one reviewed: {}",
        run.describe()
    );
    assert_eq!(
        fake.comments("octo", "infra", 7),
        planned,
        "verify posts nothing"
    );

    // The apply failed part-way: the step still succeeds (the apply step failed the job)
    // and the comment says what happened.
    let apply = call("apply").with("apply-log", "apply.log");
    let run = run_blocking(&runner, &apply, GitHubEnv::new(&fake, 83)).await;
    assert!(run.ok(), "{}", run.describe());
    let comments = fake.comments("octo", "infra", 7);
    assert_eq!(comments.len(), 1, "updated in place");
    assert_eq!(comments[0].id, planned[0].id);
    assert_ne!(comments[0].body, planned[0].body);
    assert!(
        comments[0].body.contains("null_resource.migrate"),
        "{}",
        comments[0].body
    );
    assert_eq!(run.outputs.get("failed").map(String::as_str), Some("true"));
    assert_eq!(
        run.outputs.get("applied").map(String::as_str),
        Some("false")
    );
    assert_eq!(fake.labels("octo", "infra", 7), ["planmark:apply-failed"]);
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
async fn verify_stops_a_plan_that_was_not_reviewed() {
    let Some((fake, runner, _)) = e2e(
        "verify_stops_a_plan_that_was_not_reviewed",
        "verify",
        &["curl", "cargo", "terraform"],
    )
    .await
    else {
        return;
    };
    let dir = apply_workspace(&runner, "apply-fails-part-way");
    let run = run_blocking(&runner, &call("plan"), GitHubEnv::new(&fake, 91)).await;
    assert!(run.ok(), "{}", run.describe());

    // Another plan under the same path: verify exits 4 and names what differs.
    std::fs::copy(
        root().join("tests/fixtures/apply/apply-succeeds/plan.json"),
        dir.join("plan.json"),
    )
    .unwrap();
    let run = run_blocking(&runner, &call("verify"), GitHubEnv::new(&fake, 92)).await;
    let step = run.step("Comment");
    assert_eq!(step.code, Some(4), "{}", run.describe());
    let said = format!("{}{}", step.stdout, step.stderr);
    assert!(said.contains("null_resource.dns"), "{said}");

    // A command the action does not know is refused before planmark runs.
    let run = run_blocking(&runner, &call("destroy"), GitHubEnv::new(&fake, 93)).await;
    assert_eq!(run.step("Comment").code, Some(2), "{}", run.describe());
}
