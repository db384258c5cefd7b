//! What the action hands to planmark and back: binary plans and schemas through terraform,
//! OpenTofu's wording, failed plans, policy gates and labels.

use super::*;

#[tokio::test(flavor = "multi_thread")]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
async fn binary_plans_and_auto_schemas_go_through_terraform() {
    let Some((fake, runner, _)) = e2e(
        "binary_plans_and_auto_schemas_go_through_terraform",
        "terraform",
        &["curl", "cargo", "terraform"],
    )
    .await
    else {
        return;
    };
    let dir = infra(&runner);
    // A binary plan file is a zip archive.
    std::fs::write(dir.join("tfplan"), b"PK\x03\x04\x14\x00\x00\x00binary plan").unwrap();
    let call = base_call()
        .with("version", "source")
        .with("working-directory", "infra")
        .with("plan", "tfplan\n  staging=plan.json \n")
        .with("schemas", "auto")
        .with("key", "infra")
        // Would break the script if inputs were pasted into it.
        .with("title", "$(touch pwned) `id` \"; exit 3; #")
        // planmark must use the token of the input, not the job's.
        .env("GITHUB_TOKEN", "not-the-input-token");
    let run = run_blocking(&runner, &call, GitHubEnv::new(&fake, 53)).await;
    assert!(run.ok(), "{}", run.describe());
    assert!(
        runner.log_lines("curl ").is_empty(),
        "version: source downloads nothing"
    );
    let infra_dir = dir.display().to_string();
    let terraform = runner.log_lines("terraform ");
    assert_eq!(
        terraform,
        [
            format!("terraform show -json tfplan (in {infra_dir})"),
            format!("terraform providers schema -json (in {infra_dir})"),
        ]
    );
    assert!(!runner.workspace.join("infra/pwned").exists());
    let comments = fake.comments("octo", "infra", 7);
    assert_eq!(comments.len(), 1);
    let body = &comments[0].body;
    // Two plans in one comment, the converted one keeping its file's name.
    assert!(
        body.contains("tfplan") && body.contains("staging"),
        "{body}"
    );
    assert!(body.contains("pwned"), "the title is shown as text: {body}");
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
async fn with_tofu_on_path_the_comment_uses_opentofus_wording() {
    let Some((fake, runner, _)) = e2e(
        "with_tofu_on_path_the_comment_uses_opentofus_wording",
        "tofu",
        &["curl", "cargo", "tofu"],
    )
    .await
    else {
        return;
    };
    let dir = infra(&runner);
    std::fs::write(dir.join("tfplan"), b"PK\x03\x04\x14\x00\x00\x00binary plan").unwrap();
    let call = base_call()
        .with("version", "source")
        .with("working-directory", "infra")
        .with("plan", "tfplan")
        .with("schemas", "auto")
        .with("key", "infra");
    let run = run_blocking(&runner, &call, GitHubEnv::new(&fake, 54)).await;
    assert!(run.ok(), "{}", run.describe());
    let infra_dir = dir.display().to_string();
    assert_eq!(
        runner.log_lines("tofu "),
        [
            format!("tofu show -json tfplan (in {infra_dir})"),
            format!("tofu providers schema -json (in {infra_dir})"),
        ]
    );
    let comments = fake.comments("octo", "infra", 7);
    assert_eq!(comments.len(), 1);
    // The example plan names the Terraform registry: only `--tool tofu` makes it OpenTofu's.
    let body = &comments[0].body;
    assert!(body.contains(" · OpenTofu 1.0.3"), "{body}");
    assert!(!body.contains("Terraform"), "{body}");
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
async fn failed_plans_policy_gates_and_labels_pass_through() {
    let Some((fake, runner, _)) = e2e(
        "failed_plans_policy_gates_and_labels_pass_through",
        "gates",
        &["curl", "cargo", "terraform"],
    )
    .await
    else {
        return;
    };
    let dir = infra(&runner);
    std::fs::copy(
        root().join("tests/fixtures/logs/failed.jsonl"),
        dir.join("plan.log"),
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("policy")).unwrap();
    std::fs::write(
        dir.join("policy/replaced.rego"),
        "package plans\n\ndeny contains {\"msg\": \"replaced\", \"resource\": rc.address} if {\n\
         \tsome rc in input.resource_changes\n\trc.change.actions == [\"delete\", \"create\"]\n}\n",
    )
    .unwrap();
    std::fs::write(dir.join("broken.rego"), "package main\ndeny contains").unwrap();
    // terraform plan failed: the comment says so, under the key the plan's comment has
    // (Rego policies judge plans: a failed one's comment goes without them).
    let call = base_call()
        .with("version", "source")
        .with("working-directory", "infra")
        .with("plan", "prod=plan.json")
        .with("failed", "plan.log")
        .with("policy", "broken.rego")
        .with("labels", "true");
    let run = run_blocking(&runner, &call, GitHubEnv::new(&fake, 61)).await;
    assert!(run.ok(), "{}", run.describe());
    let comments = fake.comments("octo", "infra", 7);
    assert_eq!(comments.len(), 1);
    assert!(
        comments[0].body.contains("Plan failed"),
        "{}",
        comments[0].body
    );
    assert!(
        fake.labels("octo", "infra", 7).is_empty(),
        "a failure sets no label"
    );

    // The next run plans: same comment, a label, and the gates fail the step (exit 3).
    let call = base_call()
        .with("version", "source")
        .with("working-directory", "infra")
        .with("plan", "prod=plan.json")
        .with("fail-on", "destroy, replace")
        .with("protect", "null_*\n aws_db_*")
        .with("max-destroy", "5")
        .with("policy", "policy\n")
        .with("policy-namespace", "plans")
        .with("labels", "true")
        .with("label-destroy", "tf: destroys");
    let run = run_blocking(&runner, &call, GitHubEnv::new(&fake, 62)).await;
    let step = run.step("Comment");
    assert_eq!(step.code, Some(3), "{}", run.describe());
    assert!(
        step.stderr
            .contains("planmark: policy: null_resource.api[0]: replaced (plans.deny)"),
        "{}",
        step.stderr
    );
    assert!(
        step.stderr
            .contains("planmark: policy: null_resource.api[0] is replaced (--fail-on replace)"),
        "{}",
        step.stderr
    );
    assert!(
        step.stderr.contains("(--protect null_*)"),
        "{}",
        step.stderr
    );
    let comments = fake.comments("octo", "infra", 7);
    assert_eq!(comments.len(), 1, "updated in place");
    assert!(
        comments[0].body.contains("**Policy: "),
        "{}",
        comments[0].body
    );
    assert_eq!(fake.labels("octo", "infra", 7), ["tf: destroys"]);
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
async fn group_false_shows_look_alike_changes_one_by_one() {
    let Some((fake, runner, _)) = e2e(
        "group_false_shows_look_alike_changes_one_by_one",
        "terraform",
        &["curl", "cargo"],
    )
    .await
    else {
        return;
    };
    let dir = infra(&runner);
    // Three instances, each `tags.Env` from dev to prod.
    let change = |i: usize| {
        format!(
            r#"{{"address":"aws_instance.web[{i}]","mode":"managed","type":"aws_instance","name":"web","index":{i},"provider_name":"registry.terraform.io/hashicorp/aws","change":{{"actions":["update"],"before":{{"id":"i-{i}","tags":{{"Env":"dev"}}}},"after":{{"id":"i-{i}","tags":{{"Env":"prod"}}}},"after_unknown":{{}},"before_sensitive":{{}},"after_sensitive":{{}}}}}}"#
        )
    };
    let changes: Vec<String> = (0..3).map(change).collect();
    let plan = format!(
        r#"{{"format_version":"1.2","terraform_version":"1.9.0","resource_changes":[{}]}}"#,
        changes.join(",")
    );
    std::fs::write(dir.join("alike.json"), plan).unwrap();
    for (run_id, group, grouped) in [(55, None, true), (56, Some("false"), false)] {
        let key = format!("alike{run_id}");
        let mut call = base_call()
            .with("version", "source")
            .with("working-directory", "infra")
            .with("plan", "alike.json")
            .with("key", &key);
        if let Some(group) = group {
            call = call.with("group", group);
        }
        let run = run_blocking(&runner, &call, GitHubEnv::new(&fake, run_id)).await;
        assert!(run.ok(), "{}", run.describe());
        let comments = fake.comments("octo", "infra", 7);
        let marker = format!("\"key\":\"{key}\"");
        let found = comments.iter().find(|c| c.body.contains(&marker));
        let body = &found.unwrap_or_else(|| panic!("{key}: {comments:?}")).body;
        assert_eq!(body.contains("<b>× 3</b> alike"), grouped, "{body}");
        assert_eq!(body.matches("```diff").count(), if grouped { 1 } else { 3 });
    }
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
async fn destroys_are_annotated_at_their_blocks_unless_turned_off() {
    use support::workflow_commands;
    let Some((fake, runner, _)) = e2e(
        "destroys_are_annotated_at_their_blocks_unless_turned_off",
        "annotations",
        &["curl", "cargo"],
    )
    .await
    else {
        return;
    };
    // The pull request's checkout: a configuration in infra/ and the plan made from it.
    let case = root().join("tests/fixtures/annotations/destroys-and-replacements");
    copy_tree(&case.join("repo"), &runner.workspace);
    std::fs::copy(
        case.join("plan.json"),
        runner.workspace.join("infra/plan.json"),
    )
    .unwrap();
    let app = "infra/modules/app/main.tf";
    let text = std::fs::read_to_string(runner.workspace.join(app)).unwrap();
    let line = 1
        + (text.lines())
            .position(|l| l.starts_with("resource \"null_resource\" \"app\""))
            .unwrap();
    for (run_id, annotations) in [(71, None), (72, Some("false"))] {
        let mut call = base_call()
            .with("version", "source")
            .with("working-directory", "infra")
            .with("plan", "plan.json");
        if let Some(annotations) = annotations {
            call = call.with("annotations", annotations);
        }
        let run = run_blocking(&runner, &call, GitHubEnv::new(&fake, run_id)).await;
        assert!(run.ok(), "{}", run.describe());
        let step = run.step("Comment");
        let reading = workflow_commands::read(&step.stdout);
        assert_eq!(reading.unresumed, None, "{}", step.stdout);
        let seen = reading.annotations();
        if annotations.is_some() {
            assert!(seen.is_empty(), "annotations: false: {seen:?}");
            continue;
        }
        // The default: one per destroy and replacement, at the block, relative to the
        // repository's root (the workspace), not to the working directory.
        assert_eq!(seen.len(), 6, "{}", step.stdout);
        let destroyed = (seen.iter())
            .find(|c| c.message == "module.app[\"green\"].null_resource.app will be destroyed")
            .unwrap_or_else(|| panic!("no annotation of the destroy:\n{}", step.stdout));
        assert_eq!(destroyed.name, "warning");
        assert_eq!(destroyed.property("file"), Some(app));
        assert_eq!(destroyed.property("line"), Some(line.to_string().as_str()));
    }
    assert_eq!(fake.comments("octo", "infra", 7).len(), 1);
}
