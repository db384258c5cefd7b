//! Every case posted to the fake GitHub as in Actions.

use super::*;

/// A file the run wrote, or nothing when it wrote none.
fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// The key a case's comment carries: its own `--key`, else one the test adds.
fn key_args(case: &Case) -> (Vec<String>, String) {
    match case.args.iter().position(|a| a == "--key") {
        Some(i) => (vec![], case.args[i + 1].clone()),
        None => (vec!["--key".into(), "sweep".into()], "sweep".into()),
    }
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
async fn every_case_posts_safely_to_github() {
    let gh = std::sync::Arc::new(fake().await);
    let temp = TempDir::new("sweep");
    let tmp = temp.path().to_path_buf();
    // Two cases at a time: CI has two cores.
    let limit = std::sync::Arc::new(tokio::sync::Semaphore::new(2));
    let mut tasks = Vec::new();
    for (pr, case) in (1..).zip(cases()) {
        let (gh, tmp, limit) = (gh.clone(), tmp.clone(), limit.clone());
        tasks.push(tokio::spawn(async move {
            let _permit = limit.acquire().await.unwrap();
            post_case(&gh, pr, &case, &tmp).await
        }));
    }
    let mut found = Vec::new();
    for task in tasks {
        found.extend(task.await.expect("case task"));
    }
    assert!(
        found.is_empty(),
        "{} violations:\n{}",
        found.len(),
        found.join("\n")
    );
}

/// Posts `case` to pull request `pr` as in Actions, then an honest plan with the same key.
async fn post_case(gh: &FakeGitHub, pr: u64, case: &Case, tmp: &Path) -> Vec<String> {
    let mut sweep = Sweep::default();
    gh.add_pull(OWNER, REPO, pr, support::publishing::HEAD, "f", "open");
    let (extra, key) = key_args(case);
    let summary = tmp.join(format!("{pr}-summary"));
    let outputs = tmp.join(format!("{pr}-outputs"));
    let args = [extra, case.args.clone()].concat();
    let mut cmd = command(gh, pr, 20, &args);
    cmd.env("GITHUB_ACTIONS", "true")
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("GITHUB_OUTPUT", &outputs);
    let out = output(cmd).await;
    let at = format!("{}, comment", case.name);
    if !matches!(out.status.code(), Some(0 | 3)) {
        assert_ok(&at, &out);
    }
    let posted = support::publishing::ours(gh, pr);
    let Some(first) = posted.first() else {
        sweep.push(&at, "nothing posted");
        return sweep.0;
    };
    sweep.markdown(&at, &first.body);
    sweep.secrets(&at, &first.body, &case.secrets);
    for (what, text) in [
        ("stdout", String::from_utf8_lossy(&out.stdout).into_owned()),
        ("stderr", String::from_utf8_lossy(&out.stderr).into_owned()),
        ("step summary", read(&summary)),
        ("GITHUB_OUTPUT", read(&outputs)),
    ] {
        let at = format!("{at}, {what}");
        sweep.secrets(&at, &text, &case.secrets);
        match what {
            "step summary" => sweep.markdown_within(&at, &text, 1 << 20),
            "stdout" | "stderr" => sweep.workflow_commands(&at, &text),
            _ => {}
        }
    }
    // An honest run with the same key updates the comment: no copy was honoured.
    let honest = vec![
        "--key".to_string(),
        key,
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("examples/plan.json")
            .display()
            .to_string(),
    ];
    let out = output(command(gh, pr, 21, &honest)).await;
    assert_ok(&format!("{at}, honest run"), &out);
    let after = support::publishing::ours(gh, pr);
    if after.len() != 1 || after[0].id != first.id || after[0].body == first.body {
        sweep.push(&at, "an honest run did not update the comment in place");
    }
    sweep.0
}
