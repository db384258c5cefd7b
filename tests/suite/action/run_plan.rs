//! `run-plan: true`: the action runs `terraform plan` itself, so a plan that fails still
//! gets its comment (and fails the job) with no wiring in the workflow.

use super::*;

/// A `terraform plan` log holding a workflow command, as a hostile value could put there.
fn hostile_log(dir: &Path, name: &str, source: &str) -> PathBuf {
    let mut text = std::fs::read_to_string(root().join(source)).unwrap();
    text.push_str("\n::error title=forged::from the plan\n");
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
async fn a_failing_plan_posts_its_comment_and_fails_the_job() {
    let test = "a_failing_plan_posts_its_comment_and_fails_the_job";
    let Some((fake, runner, _)) =
        e2e(test, "run-plan-fails", &["curl", "cargo", "terraform"]).await
    else {
        return;
    };
    infra(&runner);
    let log = hostile_log(
        &runner.dir,
        "failed.txt",
        "tests/fixtures/logs/failed-plain.txt",
    );
    let call = base_call()
        .with("version", "source")
        .with("working-directory", "infra")
        .with("run-plan", "true")
        .with("plan-args", "-var-file=prod.tfvars\n -lock-timeout=5m")
        .env("FAKE_TF_PLAN_LOG", &log.display().to_string())
        .env("FAKE_TF_PLAN_EXIT", "1");
    let run = run_blocking(&runner, &call, GitHubEnv::new(&fake, 71)).await;
    assert!(
        !run.ok(),
        "a failed plan fails the job:\n{}",
        run.describe()
    );
    let step = run.step("Comment");
    assert_eq!(step.code, Some(1), "{}", run.describe());
    assert!(
        step.stdout
            .contains("::error title=planmark::terraform plan failed (exit 1)"),
        "{}",
        step.stdout
    );
    // The plan's output is in the log, paused: its forged command is never run.
    let forged = step
        .stdout
        .lines()
        .position(|l| l == "::error title=forged::from the plan")
        .expect("the plan's output is in the log");
    let paused = step
        .stdout
        .lines()
        .take(forged)
        .filter(|l| l.starts_with("::stop-commands::"))
        .count();
    let resumed = step.stdout.lines().skip(forged).any(|l| {
        l.starts_with("::")
            && l.ends_with("::")
            && l.len() == 36
            && l[2..34].bytes().all(|b| b.is_ascii_hexdigit())
    });
    assert!(paused == 1 && resumed, "{}", step.stdout);
    let plan = runner.log_lines("terraform plan");
    assert_eq!(plan.len(), 1, "{plan:?}");
    assert!(
        plan[0].starts_with("terraform plan -input=false -no-color -out=")
            && plan[0].contains("tfplan -var-file=prod.tfvars -lock-timeout=5m (in "),
        "{}",
        plan[0]
    );
    let comments = fake.comments("octo", "infra", 7);
    assert_eq!(comments.len(), 1, "the failed plan's comment is posted");
    let body = &comments[0].body;
    assert!(body.contains("Plan failed"), "{body}");
    assert!(body.contains("Invalid count argument"), "{body}");

    // The next push plans: the same comment (key `plan`) now shows the plan.
    let ok = runner.dir.join("ok.txt");
    std::fs::write(&ok, "Plan: 2 to add, 0 to change, 1 to destroy.\n").unwrap();
    let call = base_call()
        .with("version", "source")
        .with("working-directory", "infra")
        .with("run-plan", "true")
        .env("FAKE_TF_PLAN_LOG", &ok.display().to_string());
    let run = run_blocking(&runner, &call, GitHubEnv::new(&fake, 72)).await;
    assert!(run.ok(), "{}", run.describe());
    let comments = fake.comments("octo", "infra", 7);
    assert_eq!(comments.len(), 1, "updated in place");
    assert!(
        comments[0].body.contains("`plan` — Plan: 2 to add"),
        "{}",
        comments[0].body
    );
    assert_eq!(
        runner.log_lines("terraform show -json").len(),
        1,
        "the binary plan converted"
    );
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
async fn run_plan_refuses_a_plan_input_beside_it() {
    let test = "run_plan_refuses_a_plan_input_beside_it";
    let Some((fake, runner, _)) = e2e(test, "run-plan-both", &["curl", "cargo", "terraform"]).await
    else {
        return;
    };
    infra(&runner);
    let call = base_call()
        .with("version", "source")
        .with("working-directory", "infra")
        .with("run-plan", "true")
        .with("plan", "plan.json");
    let run = run_blocking(&runner, &call, GitHubEnv::new(&fake, 73)).await;
    let step = run.step("Comment");
    assert_eq!(step.code, Some(2), "{}", run.describe());
    assert!(
        step.stdout.contains("leave plan, failed and log empty"),
        "{}",
        step.stdout
    );
    assert!(runner.log_lines("terraform plan").is_empty());
    assert!(fake.comments("octo", "infra", 7).is_empty());
}
