//! How the action gets planmark: the checksummed release asset, the source fallback and its
//! cache, a checksum mismatch, the runner platforms and the README's `uses:` ref.

use super::*;

#[tokio::test(flavor = "multi_thread")]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
async fn source_fallback_builds_once_then_reuses_the_cache() {
    let Some((fake, runner, target)) = e2e(
        "source_fallback_builds_once_then_reuses_the_cache",
        "fallback",
        &["curl", "cargo"],
    )
    .await
    else {
        return;
    };
    infra(&runner);
    // `main` is a branch: there is no such release, so the action builds its own source.
    let call = base_call()
        .with("version", "main")
        .with("working-directory", "infra")
        .with("plan", "prod=plan.json")
        .with("schemas", "schemas.json")
        .with("title", "production");
    let run = run_blocking(&runner, &call, GitHubEnv::new(&fake, 4242)).await;
    assert!(run.ok(), "{}", run.describe());

    let curl = runner.log_lines("curl ");
    assert_eq!(
        curl,
        ["curl https://github.com/planmark/planmark/releases/download/main/checksums.txt"],
        "the release is looked for in the repository Cargo.toml names (no action repository \
         when run locally)"
    );
    let cargo = runner.log_lines("cargo ");
    assert_eq!(cargo.len(), 1, "{cargo:?}");
    assert!(
        cargo[0].starts_with("cargo install --locked --root ")
            && cargo[0].ends_with(&format!("--path {}", root().display())),
        "{}",
        cargo[0]
    );
    let install = run.step("Install");
    let installed = PathBuf::from(&install.outputs["path"]);
    assert!(
        installed.starts_with(&runner.tool_cache) && installed.is_file(),
        "binary kept in the tool cache: {installed:?}"
    );
    assert!(
        installed.parent().unwrap().display().to_string() == run.path_added[0],
        "GITHUB_PATH gets the binary's directory: {:?}",
        run.path_added
    );
    assert!(install.outputs["version"].starts_with("source-"));
    assert!(installed.to_string_lossy().contains(target));

    let comments = fake.comments("octo", "infra", 7);
    assert_eq!(comments.len(), 1, "one comment");
    let body = &comments[0].body;
    assert_eq!(comments[0].user_login, "github-actions[bot]");
    assert!(
        body.contains("production — Plan: 2 to add, 0 to change, 1 to destroy"),
        "{body}"
    );
    assert!(body.contains("null_resource.api[0]"), "{body}");
    assert_outputs_for_example(&run, comments[0].id);
    let summary = &run.step("Comment").summary;
    assert!(
        summary.contains("Plan: 2 to add, 0 to change, 1 to destroy"),
        "step summary: {summary}"
    );

    // The next run (a new commit) finds the binary in the cache: no second build, and the
    // same comment is updated.
    runner.clear_log();
    let call = call.with("title", "prod");
    let again = run_blocking(&runner, &call, GitHubEnv::new(&fake, 4243)).await;
    assert!(again.ok(), "{}", again.describe());
    assert!(
        runner.log_lines("cargo ").is_empty(),
        "cached binary reused:\n{}",
        again.describe()
    );
    assert_eq!(
        again.step("Install").outputs["path"],
        install.outputs["path"]
    );
    let comments = fake.comments("octo", "infra", 7);
    assert_eq!(comments.len(), 1, "updated, not posted again");
    assert!(
        comments[0].body.contains("prod — Plan:"),
        "{}",
        comments[0].body
    );
    assert_outputs_for_example(&again, comments[0].id);
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
async fn release_asset_is_downloaded_and_verified() {
    if !have("tar", &["--version"]) {
        return skipped("release_asset_is_downloaded_and_verified", "no tar");
    }
    let Some((fake, runner, target)) = e2e(
        "release_asset_is_downloaded_and_verified",
        "release",
        &["curl", "cargo"],
    )
    .await
    else {
        return;
    };
    infra(&runner);
    // Used as octo/planmark-action@vMAJOR.MINOR with no version input: the action picks the
    // release of the version in its Cargo.toml.
    let version = env!("CARGO_PKG_VERSION");
    let minor: Vec<&str> = version.split('.').take(2).collect();
    let tag = format!("v{version}");
    let asset = format!("planmark-{target}.tar.gz");
    runner.publish_release(&tag, &asset, None);
    let call = base_call()
        .github("action_repository", "octo/planmark-action")
        .github("action_ref", &format!("v{}", minor.join(".")))
        .with("working-directory", "infra")
        .with("plan", "plan.json");
    let run = run_blocking(&runner, &call, GitHubEnv::new(&fake, 51)).await;
    assert!(run.ok(), "{}", run.describe());
    let base = format!("https://github.com/octo/planmark-action/releases/download/{tag}");
    assert_eq!(
        runner.log_lines("curl "),
        [
            format!("curl {base}/checksums.txt"),
            format!("curl {base}/{asset}")
        ]
    );
    assert!(
        runner.log_lines("cargo ").is_empty(),
        "nothing built from source"
    );
    let install = run.step("Install");
    assert!(
        install.stdout.contains("verified"),
        "install log: {}",
        install.stdout
    );
    assert_eq!(
        PathBuf::from(&install.outputs["path"]),
        runner
            .tool_cache
            .join("planmark")
            .join(&tag)
            .join(target)
            .join("bin/planmark")
    );
    let comments = fake.comments("octo", "infra", 7);
    assert_eq!(comments.len(), 1);
    assert!(comments[0].body.contains("`plan` — Plan: 2 to add"));
    assert_outputs_for_example(&run, comments[0].id);
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
async fn a_checksum_mismatch_fails_without_fallback() {
    if !have("tar", &["--version"]) {
        return skipped("a_checksum_mismatch_fails_without_fallback", "no tar");
    }
    let Some((fake, runner, target)) = e2e(
        "a_checksum_mismatch_fails_without_fallback",
        "tampered",
        &["curl", "cargo"],
    )
    .await
    else {
        return;
    };
    infra(&runner);
    let asset = format!("planmark-{target}.tar.gz");
    runner.publish_release("v9.9.9", &asset, Some(&"ab".repeat(32)));
    let call = base_call()
        .with("version", "9.9.9")
        .with("working-directory", "infra")
        .with("plan", "plan.json");
    let run = run_blocking(&runner, &call, GitHubEnv::new(&fake, 52)).await;
    assert!(!run.ok(), "a tampered asset must fail:\n{}", run.describe());
    assert_eq!(run.steps.len(), 1, "the comment step does not run");
    let install = run.step("Install");
    assert_eq!(install.code, Some(1));
    assert!(
        install.stdout.contains("SHA-256 mismatch"),
        "{}",
        run.describe()
    );
    assert!(
        runner.log_lines("cargo ").is_empty(),
        "no fallback on a mismatch"
    );
    assert!(
        !runner.tool_cache.join("planmark/v9.9.9").exists(),
        "nothing cached"
    );
    assert!(fake.comments("octo", "infra", 7).is_empty());
}

#[test]
fn runner_platforms_map_to_release_assets() {
    if let Some(why) = e2e_missing_tool() {
        return skipped("runner_platforms_map_to_release_assets", why);
    }
    // A release that has checksums but no asset for the runner: the action asks for the
    // asset named as release.yml names it, then falls back to building.
    for (os, arch, target) in RELEASE_TARGETS {
        let runner = Runner::new("platform", os, arch);
        runner.shim(&["curl", "cargo"]);
        std::fs::create_dir_all(runner.releases.join("v9.9.9")).unwrap();
        std::fs::write(runner.releases.join("v9.9.9/checksums.txt"), "").unwrap();
        let call = base_call()
            .with("version", "v9.9.9")
            .with("plan", "plan.json");
        let action = action();
        let install = Action {
            steps: action.steps.into_iter().take(1).collect(),
            ..action
        };
        let run = run_steps(&runner, &call, &install, &GitHubEnv { vars: Vec::new() });
        assert!(run.ok(), "{os} {arch}:\n{}", run.describe());
        let ext = if os == "Windows" { "zip" } else { "tar.gz" };
        let base = "https://github.com/planmark/planmark/releases/download/v9.9.9";
        assert_eq!(
            runner.log_lines("curl "),
            [
                format!("curl {base}/checksums.txt"),
                format!("curl {base}/planmark-{target}.{ext}")
            ],
            "{os} {arch}"
        );
        assert_eq!(runner.log_lines("cargo ").len(), 1, "{os} {arch}: fallback");
    }
}

/// The `uses:` line the README shows: the repository and the ref (the same in every block).
fn readme_uses() -> (String, String) {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let refs: BTreeSet<(String, String)> = readme
        .lines()
        .filter_map(|l| l.trim().trim_start_matches("- ").strip_prefix("uses: "))
        .filter_map(|u| u.split_whitespace().next())
        .filter_map(|u| u.split_once('@'))
        .filter(|(repo, _)| repo.ends_with("/planmark"))
        .map(|(repo, r)| (repo.to_string(), r.to_string()))
        .collect();
    assert_eq!(refs.len(), 1, "the README shows one `uses:` ref: {refs:?}");
    refs.into_iter().next().unwrap()
}

/// The README's exact `uses:` line installs the release binary: the ref (a major tag) runs
/// the action at the newest release of that line, whose Cargo.toml names the release to
/// download. Nothing is built, and the checksum is verified; a wrong one fails the step.
#[test]
fn the_readme_uses_line_installs_the_checksummed_release() {
    if let Some(why) = e2e_missing_tool().or((!have("tar", &["--version"])).then_some("no tar")) {
        return skipped("the_readme_uses_line_installs_the_checksummed_release", why);
    }
    let Some((os, arch, target)) = host_runner() else {
        return skipped("readme_uses_line", "no release target for this machine");
    };
    let (repository, reference) = readme_uses();
    let version = env!("CARGO_PKG_VERSION");
    let tag = format!("v{version}");
    // The compatible line of this version, as Cargo reads versions: v1 for 1.x, v0.1 for
    // 0.1.x (the tags release.yml moves).
    let parts: Vec<&str> = version.split('.').collect();
    let line = match parts[0] {
        "0" => format!("v0.{}", parts[1]),
        major => format!("v{major}"),
    };
    assert_eq!(
        reference, line,
        "the README must show the line of Cargo.toml's version {version}"
    );
    for path in example_workflows() {
        let example = std::fs::read_to_string(&path).unwrap();
        assert!(
            example.contains(&format!("uses: {repository}@{reference}\n")),
            "{} uses the README's ref",
            path.display()
        );
    }
    let asset = format!("planmark-{target}.tar.gz");
    let install = || {
        let action = action();
        Action {
            steps: action.steps.into_iter().take(1).collect(),
            ..action
        }
    };
    let call = base_call()
        .github("action_repository", &repository)
        .github("action_ref", &reference)
        .with("plan", "plan.json");

    let runner = Runner::new("readme-uses", os, arch);
    runner.shim(&["curl", "cargo"]);
    runner.publish_release(&tag, &asset, None);
    let run = run_steps(&runner, &call, &install(), &GitHubEnv { vars: Vec::new() });
    assert!(run.ok(), "{}", run.describe());
    let base = format!("https://github.com/{repository}/releases/download/{tag}");
    assert_eq!(
        runner.log_lines("curl "),
        [
            format!("curl {base}/checksums.txt"),
            format!("curl {base}/{asset}")
        ]
    );
    assert!(runner.log_lines("cargo ").is_empty(), "{}", run.describe());
    let step = run.step("Install");
    assert!(
        step.stdout
            .contains(&format!("downloaded {asset} ({tag}), SHA-256 ")),
        "{}",
        step.stdout
    );
    assert!(step.stdout.contains(" verified"), "{}", step.stdout);
    assert_eq!(step.outputs["version"], tag);

    let tampered = Runner::new("readme-uses-tampered", os, arch);
    tampered.shim(&["curl", "cargo"]);
    tampered.publish_release(&tag, &asset, Some(&"ab".repeat(32)));
    let run = run_steps(
        &tampered,
        &call,
        &install(),
        &GitHubEnv { vars: Vec::new() },
    );
    let step = run.step("Install");
    assert_eq!(step.code, Some(1), "{}", run.describe());
    assert!(
        step.stdout.contains("SHA-256 mismatch"),
        "{}",
        run.describe()
    );
    assert!(
        tampered.log_lines("cargo ").is_empty(),
        "no build on a mismatch"
    );
}

/// The commit a test pins the action to, and another one.
const PINNED: &str = "1f2e3d4c5b6a79881f2e3d4c5b6a79881f2e3d4c";
const OTHER: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";

/// Runs the action pinned by commit `action_ref` against a release of this version whose
/// commit.txt names `release_commit` and whose asset is `attested` or not, with the gh
/// stand-in; returns the run, the runner and the release's download base.
async fn pinned_run(
    test: &str,
    action_ref: &str,
    release_commit: &str,
    attested: bool,
) -> Option<(ActionRun, Runner, String, FakeGitHub)> {
    if !have("tar", &["--version"]) {
        skipped(test, "no tar");
        return None;
    }
    let (fake, runner, target) = e2e(test, "pinned", &["curl", "cargo", "gh"]).await?;
    infra(&runner);
    let tag = format!("v{}", env!("CARGO_PKG_VERSION"));
    let asset = format!("planmark-{target}.tar.gz");
    runner.publish_release(&tag, &asset, None);
    runner.publish_provenance(&tag, &asset, release_commit, attested);
    let call = base_call()
        .github("action_repository", "octo/planmark-action")
        .github("action_ref", action_ref)
        .with("working-directory", "infra")
        .with("plan", "plan.json");
    let run = run_blocking(&runner, &call, GitHubEnv::new(&fake, 61)).await;
    let base = format!("https://github.com/octo/planmark-action/releases/download/{tag}");
    Some((run, runner, base, fake))
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
async fn a_release_commit_pinned_by_sha_downloads_and_verifies_the_release() {
    let test = "a_release_commit_pinned_by_sha_downloads_and_verifies_the_release";
    let Some((run, runner, base, fake)) = pinned_run(test, PINNED, PINNED, true).await else {
        return;
    };
    assert!(run.ok(), "{}", run.describe());
    let curl = runner.log_lines("curl ");
    assert_eq!(curl.len(), 3, "{curl:?}");
    assert_eq!(curl[0], format!("curl {base}/commit.txt"));
    assert_eq!(curl[1], format!("curl {base}/checksums.txt"));
    assert!(runner.log_lines("cargo ").is_empty(), "no cargo call");
    assert_eq!(
        runner.log_lines("gh "),
        [format!(
            "gh attestation verify {} --repo octo/planmark-action",
            curl[2].rsplit('/').next().unwrap()
        )]
    );
    let install = run.step("Install");
    for said in ["is release v", "SHA-256", "provenance verified"] {
        assert!(install.stdout.contains(said), "{said}: {}", install.stdout);
    }
    assert!(install.outputs["version"].starts_with('v'));
    assert_eq!(fake.comments("octo", "infra", 7).len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
async fn another_commit_pinned_by_sha_builds_and_says_why() {
    let test = "another_commit_pinned_by_sha_builds_and_says_why";
    let Some((run, runner, base, _fake)) = pinned_run(test, PINNED, OTHER, true).await else {
        return;
    };
    assert!(run.ok(), "{}", run.describe());
    assert_eq!(
        runner.log_lines("curl "),
        [format!("curl {base}/commit.txt")]
    );
    assert_eq!(runner.log_lines("cargo ").len(), 1, "built from source");
    let install = run.step("Install");
    assert!(
        install
            .stdout
            .contains(&format!("building commit {PINNED} from source: release v")),
        "{}",
        install.stdout
    );
    assert!(install.stdout.contains(&format!("built from {OTHER}")));
    assert!(install.outputs["version"].starts_with("source-"));
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
async fn an_asset_without_build_provenance_is_not_run() {
    let test = "an_asset_without_build_provenance_is_not_run";
    let Some((run, runner, _base, fake)) = pinned_run(test, PINNED, PINNED, false).await else {
        return;
    };
    assert!(!run.ok(), "{}", run.describe());
    let install = run.step("Install");
    assert_eq!(install.code, Some(1));
    assert!(
        install.stdout.contains("has no build provenance"),
        "{}",
        install.stdout
    );
    assert!(runner.log_lines("cargo ").is_empty(), "no fallback");
    assert!(fake.comments("octo", "infra", 7).is_empty());
}
