//! Issue 27, `planmark verify`: against the fake GitHub, a plan job comments on a pull
//! request, and an apply job verifies the plan it is about to apply — the same plan, a
//! fresh plan of the same change, plans that differ (one change more, one changed, one
//! gone), no comment for the key, a marker forged by someone else, and a push on merge.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Output;

use serde_json::{json, Value};
use support::fake_github::{FakeGitHub, User};
use support::publishing::{assert_ok, command, exited_with, fake, output, subcommand};
use support::publishing::{HEAD, OWNER, REPO, TOKEN};
use support::temp::TempDir;

/// The reviewed plan: a tainted resource and one replaced by request, beside no-op ones.
const PLAN: &str = "tests/fixtures/real-plans/taint_and_request/plan.json";

fn reviewed_plan() -> Value {
    let text = std::fs::read(support::manifest_dir().join(PLAN)).unwrap();
    serde_json::from_slice(&text).unwrap()
}

/// `plan` written to `dir` as NAME.json.
fn write(dir: &TempDir, name: &str, plan: &Value) -> PathBuf {
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, serde_json::to_vec(plan).unwrap()).unwrap();
    path
}

/// The resource change at `address` in `plan`.
fn change<'p>(plan: &'p mut Value, address: &str) -> &'p mut Value {
    plan["resource_changes"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|r| r["address"] == address)
        .unwrap()
}

/// A pull request with the plan job's comment for key `main`.
async fn reviewed(pr: u64) -> FakeGitHub {
    let gh = fake().await;
    gh.add_pull(OWNER, REPO, pr, HEAD, "feature", "open");
    let plan = format!("main={}", support::manifest_dir().join(PLAN).display());
    assert_ok("comment", &output(command(&gh, pr, 1, &[plan])).await);
    gh
}

/// `planmark verify --pr PR ARGS... main=PLAN` as an apply job runs it.
async fn verify(gh: &FakeGitHub, pr: u64, plan: &Path, args: &[&str]) -> Output {
    let mut cmd = subcommand(gh, "verify", 2);
    cmd.args(["--pr", &pr.to_string()])
        .args(args)
        .arg(format!("main={}", plan.display()));
    output(cmd).await
}

/// The lines a failed verify printed (exit 4), and its message.
fn refused(out: &Output) -> (Vec<String>, String) {
    let (stdout, stderr) = exited_with(out, 4, TOKEN);
    (stdout.lines().map(str::to_string).collect(), stderr)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_reviewed_plan_passes_from_the_same_file_and_from_a_fresh_plan() {
    let gh = reviewed(31).await;
    let url = format!("#issuecomment-{}", gh.comments(OWNER, REPO, 31)[0].id);
    let same = verify(&gh, 31, &support::manifest_dir().join(PLAN), &[]).await;
    let (stdout, _) = exited_with(&same, 0, TOKEN);
    assert!(
        stdout.starts_with("planmark: the plan matches the one reviewed (2 changes): ")
            && stdout.trim_end().ends_with(&url)
            && stdout.lines().count() == 1,
        "{stdout}"
    );
    // Made again: another time, Terraform version and key order (serde_json sorts them),
    // and a change made outside Terraform meanwhile.
    let dir = TempDir::new("verify-fresh");
    let mut fresh = reviewed_plan();
    fresh["timestamp"] = json!("2027-01-02T03:04:05Z");
    fresh["terraform_version"] = json!("1.9.8");
    let mut drifted = change(&mut fresh, "null_resource.topic[\"orders\"]").clone();
    drifted["change"]["actions"] = json!(["update"]);
    drifted["change"]["before"]["triggers"]["name"] = json!("orders-renamed-by-hand");
    fresh["resource_drift"] = json!([drifted]);
    let fresh = write(&dir, "fresh", &fresh);
    exited_with(&verify(&gh, 31, &fresh, &[]).await, 0, TOKEN);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_plan_that_differs_is_refused_naming_each_change() {
    let gh = reviewed(32).await;
    let dir = TempDir::new("verify-differs");
    let comment = format!("#issuecomment-{}", gh.comments(OWNER, REPO, 32)[0].id);
    let expect = |name: &str, plan: Value, expected: &[&str]| {
        let path = write(&dir, name, &plan);
        (
            path,
            expected
                .iter()
                .map(|l| format!("planmark: {l}"))
                .collect::<Vec<_>>(),
        )
    };
    let mut more = reviewed_plan();
    let mut extra = change(&mut more, "null_resource.queue").clone();
    extra["address"] = json!("null_resource.extra");
    extra["name"] = json!("extra");
    more["resource_changes"].as_array_mut().unwrap().push(extra);
    let mut changed = reviewed_plan();
    change(&mut changed, "null_resource.topic[\"payments\"]")["change"]["after"]["triggers"]
        ["name"] = json!("payments-v2");
    // Replaced no more: the plan still knows the resource, so it is named.
    let mut kept = reviewed_plan();
    let payments = change(&mut kept, "null_resource.topic[\"payments\"]");
    payments["change"]["actions"] = json!(["no-op"]);
    payments["change"]["after"] = payments["change"]["before"].clone();
    payments["change"]["after_unknown"] = json!({});
    payments.as_object_mut().unwrap().remove("action_reason");
    // Gone from the plan altogether: named from the reviewed comment, which lists it.
    let mut removed = reviewed_plan();
    removed["resource_changes"]
        .as_array_mut()
        .unwrap()
        .retain(|r| r["address"] != "null_resource.queue");
    let cases = [
        expect(
            "more",
            more,
            &["new: null_resource.extra (not in the reviewed plan)"],
        ),
        expect(
            "changed",
            changed,
            &["changed: null_resource.topic[\"payments\"] (not the change reviewed)"],
        ),
        expect(
            "kept",
            kept,
            &["gone: null_resource.topic[\"payments\"] (reviewed, no longer in the plan)"],
        ),
        expect(
            "removed",
            removed,
            &["gone: null_resource.queue (reviewed, no longer in the plan)"],
        ),
    ];
    for (path, expected) in cases {
        let (lines, stderr) = refused(&verify(&gh, 32, &path, &[]).await);
        assert_eq!(lines, expected, "{}", path.display());
        assert!(
            stderr.starts_with("planmark: error: the plan is not the one reviewed in http")
                && stderr.contains(&comment)
                && stderr.contains("do not apply it"),
            "{stderr}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn no_comment_for_the_key_is_refused_clearly() {
    let gh = reviewed(33).await;
    let plan = support::manifest_dir().join(PLAN);
    let (lines, stderr) = refused(&verify(&gh, 33, &plan, &["--key", "prod"]).await);
    assert!(lines.is_empty(), "{lines:?}");
    assert!(
        stderr.starts_with("planmark: error: no reviewed plan for key `prod` on pull request #33")
            && stderr.contains("run planmark comment in the plan job, or pass --key"),
        "{stderr}"
    );
    // A pull request without any comment alike.
    gh.add_pull(OWNER, REPO, 34, HEAD, "other", "open");
    let (_, stderr) = refused(&verify(&gh, 34, &plan, &[]).await);
    assert!(
        stderr.contains("no reviewed plan for key `main`"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_marker_forged_by_someone_else_is_ignored() {
    let gh = reviewed(35).await;
    let dir = TempDir::new("verify-forged");
    // Mallory plans an unreviewed change and posts its comment's marker for key `main`
    // (and for a key of her own), newer than ours.
    let mut changed = reviewed_plan();
    change(&mut changed, "null_resource.queue")["change"]["after"]["triggers"]["kind"] =
        json!("lifo");
    let changed = write(&dir, "changed", &changed);
    let marker = |key: &str| {
        // The body a comment would post (a dry run without a token prints it).
        let mut cmd = subcommand(&gh, "comment", 9);
        cmd.env_remove("GITHUB_TOKEN")
            .args(["--pr", "35", "--dry-run", "--key", key])
            .arg(&changed);
        let out = cmd.output().unwrap();
        let body = String::from_utf8(out.stdout).unwrap();
        let line = body.trim_end().rsplit('\n').next().unwrap().to_string();
        assert!(line.contains("changes_sha256"), "{body}");
        line
    };
    let mallory = User::human("mallory", 666);
    for key in ["main", "mallory"] {
        gh.seed_comment(OWNER, REPO, 35, &mallory, &format!("LGTM\n{}", marker(key)));
    }
    let (lines, _) = refused(&verify(&gh, 35, &changed, &[]).await);
    assert_eq!(
        lines,
        ["planmark: changed: null_resource.queue (not the change reviewed)"]
    );
    let (_, stderr) = refused(&verify(&gh, 35, &changed, &["--key", "mallory"]).await);
    assert!(
        stderr.contains("no reviewed plan for key `mallory`"),
        "{stderr}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_push_on_merge_finds_the_merged_pull_request() {
    let gh = reviewed(36).await;
    let merge = "3333333333333333333333333333333333333333";
    gh.merge_pull(OWNER, REPO, 36, merge);
    let dir = TempDir::new("verify-push");
    let event = dir.join("push.json");
    std::fs::write(&event, json!({"after": merge}).to_string()).unwrap();
    let mut cmd = subcommand(&gh, "verify", 3);
    cmd.env("GITHUB_EVENT_NAME", "push")
        .env("GITHUB_EVENT_PATH", &event)
        .env("GITHUB_SHA", merge)
        .env("GITHUB_REF_NAME", "main")
        .arg(format!(
            "main={}",
            support::manifest_dir().join(PLAN).display()
        ));
    let (stdout, _) = exited_with(&output(cmd).await, 0, TOKEN);
    assert!(stdout.contains("/pull/36#issuecomment-"), "{stdout}");
}

/// `n` creates of `null_resource.n[i]`, the one at `edited` (if any) with another trigger.
fn creates(n: usize, edited: Option<usize>) -> Value {
    let changes: Vec<Value> = (0..n)
        .map(|i| {
            let v = match edited == Some(i) {
                true => "edited".to_string(),
                false => format!("v{i}"),
            };
            json!({"address": format!("null_resource.n[{i}]"), "mode": "managed",
                "type": "null_resource", "name": "n", "index": i,
                "provider_name": "registry.terraform.io/hashicorp/null",
                "change": {"actions": ["create"], "before": null,
                    "after": {"triggers": {"v": v}}, "after_unknown": {"id": true},
                    "before_sensitive": false, "after_sensitive": {"triggers": {}}}})
        })
        .collect();
    json!({"format_version": "1.2", "terraform_version": "1.9.0", "resource_changes": changes})
}

#[tokio::test(flavor = "multi_thread")]
async fn a_change_among_hundreds_is_still_named() {
    let dir = TempDir::new("verify-many");
    let gh = fake().await;
    gh.add_pull(OWNER, REPO, 41, HEAD, "feature", "open");
    let reviewed = write(&dir, "reviewed", &creates(300, None));
    let plan = format!("main={}", reviewed.display());
    assert_ok("comment", &output(command(&gh, 41, 1, &[plan])).await);
    let edited = write(&dir, "edited", &creates(300, Some(150)));
    let (lines, _) = refused(&verify(&gh, 41, &edited, &[]).await);
    let named: Vec<&String> = lines
        .iter()
        .filter(|l| l.contains("null_resource"))
        .collect();
    assert_eq!(named.len(), 1, "{lines:?}");
    assert!(
        named[0].contains("changed: null_resource.n[150]"),
        "{lines:?}"
    );
}

/// Issue 35: a Terragrunt file that gains a module whose directory holds JSON punctuation.
#[tokio::test(flavor = "multi_thread")]
async fn a_module_added_under_a_label_with_json_punctuation_is_refused() {
    let dir =
        support::manifest_dir().join("tests/fixtures/terragrunt/labels-with-json-punctuation");
    let (reviewed, plans) = (dir.join("reviewed.txt"), dir.join("plans.txt"));
    let gh = fake().await;
    gh.add_pull(OWNER, REPO, 42, HEAD, "feature", "open");
    for key in [None, Some("stack")] {
        let mut args: Vec<String> = key
            .iter()
            .flat_map(|k| ["--key".into(), k.to_string()])
            .collect();
        args.push(format!("main={}", reviewed.display()));
        assert_ok("comment", &output(command(&gh, 42, 1, &args)).await);
    }
    // The key named after the modules: a module more is another key.
    exited_with(&verify(&gh, 42, &reviewed, &[]).await, 0, TOKEN);
    let (lines, stderr) = refused(&verify(&gh, 42, &plans, &[]).await);
    assert!(lines.is_empty(), "{lines:?}");
    assert!(stderr.contains("no reviewed plan for key"), "{stderr}");
    // One key for the stack: every destroy of the two added modules is named.
    let key = ["--key", "stack"];
    exited_with(&verify(&gh, 42, &reviewed, &key).await, 0, TOKEN);
    let (lines, _) = refused(&verify(&gh, 42, &plans, &key).await);
    let new = |module: &str, resources: &[&str]| -> Vec<String> {
        resources
            .iter()
            .map(|r| {
                format!("planmark: new: {module}: null_resource.{r} (not in the reviewed plan)")
            })
            .collect()
    };
    let all = [
        "bucket[\"backups\"]",
        "bucket[\"logs\"]",
        "bucket[\"tmp\"]",
        "legacy",
        "shard[0]",
        "shard[1]",
        "shard[2]",
        "shard[3]",
    ];
    let mut expected = new("live/prod,\"db\"", &all);
    expected.extend(new("live/a]b {\"c\"}", &[all[2], all[3], all[6], all[7]]));
    assert_eq!(lines, expected);
    // The case: only `[live/prod,"db"]` added, which planmark skipped (exit 0).
    let text = std::fs::read_to_string(&plans).unwrap();
    let prod: String = text
        .lines()
        .filter(|l| !l.starts_with("[live/a]b"))
        .map(|l| format!("{l}\n"))
        .collect();
    let tmp = TempDir::new("verify-prod-db");
    let prod_path = tmp.join("plans.txt");
    std::fs::write(&prod_path, prod).unwrap();
    let (lines, _) = refused(&verify(&gh, 42, &prod_path, &key).await);
    assert_eq!(lines, new("live/prod,\"db\"", &all));
}
