//! Issue 38, "Since the last plan": a comment that replaces an earlier one opens with what
//! moved since it (new, changed, gone), from real plans of two pushes, as a user runs
//! `planmark comment` twice against the fake GitHub, and as `render --previous` previews
//! it. A copy of a marker in a plan value or in someone else's comment changes nothing.

use crate::support;

use std::process::Command;

use serde_json::Value;
use support::fake_github::{FakeGitHub, User};
use support::golden;
use support::publishing::{assert_ok, command, fake, ours, output, HEAD, OWNER, REPO};
use support::temp::TempDir;

const FIRST_SHA: &str = "aaaaaaa1aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
const SECOND_SHA: &str = "bbbbbbb2bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

fn fixture(name: &str) -> std::path::PathBuf {
    support::manifest_dir()
        .join("tests/fixtures/since-last/add_alter_drop")
        .join(name)
}

/// `main=PATH`: both pushes share the key `main`.
fn plan(path: &std::path::Path) -> String {
    format!("main={}", path.display())
}

/// Posts (or updates) `main`'s comment on pull request `pr` for `plan` at commit `sha`.
async fn push(gh: &FakeGitHub, pr: u64, run_id: u64, sha: &str, plan: String) -> String {
    let mut cmd = command(gh, pr, run_id, &[plan]);
    cmd.env("GITHUB_SHA", sha);
    let out = output(cmd).await;
    assert_ok(&format!("run {run_id}"), &out);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn body(gh: &FakeGitHub, pr: u64) -> String {
    let comments = ours(gh, pr);
    assert_eq!(comments.len(), 1, "one comment for the key");
    comments[0].body.clone()
}

fn first_line(body: &str) -> &str {
    body.lines().next().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_push_says_what_moved_since_the_first() {
    let gh = fake().await;
    gh.add_pull(OWNER, REPO, 1, HEAD, "feature", "open");
    push(&gh, 1, 10, FIRST_SHA, plan(&fixture("first_push.json"))).await;
    let first = body(&gh, 1);
    assert!(
        !first.contains("Since the last plan"),
        "first comment: {first}"
    );

    push(&gh, 1, 11, SECOND_SHA, plan(&fixture("second_push.json"))).await;
    let second = body(&gh, 1);
    assert_eq!(
        first_line(&second),
        "Since the last plan (`aaaaaaa`, 2026-11-22T10:00:00Z): 🆕 1 new: \
         `null_resource.queue`. ✏️ 1 changed: `null_resource.db`. ➖ gone: \
         `null_resource.cache`.",
    );
    golden::check(&fixture("second.md"), &second).unwrap();

    // A re-run of the same commit and plan leaves the comment, and what it said had moved
    // since the first push, as it is.
    let writes = |gh: &FakeGitHub| gh.requests().iter().filter(|r| r.method == "PATCH").count();
    let before = writes(&gh);
    let out = push(&gh, 1, 12, SECOND_SHA, plan(&fixture("second_push.json"))).await;
    assert!(out.contains("up to date"), "{out}");
    assert_eq!(writes(&gh), before);
    assert_eq!(body(&gh, 1), second);

    // Another commit with the same plan: nothing moved, and the line says so.
    let third = "ccccccc3cccccccccccccccccccccccccccccccc";
    push(&gh, 1, 13, third, plan(&fixture("second_push.json"))).await;
    assert_eq!(
        first_line(&body(&gh, 1)),
        "Since the last plan (`bbbbbbb`, 2026-11-22T10:00:00Z): no change to the plan."
    );
}

/// `planmark render ARGS`, its standard output.
fn render(args: &[String]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_planmark"))
        .arg("render")
        .args(args)
        .env("SOURCE_DATE_EPOCH", "1795341600")
        .env_remove("GITHUB_SHA")
        .output()
        .expect("run planmark");
    assert_ok("render", &out);
    String::from_utf8(out.stdout).expect("UTF-8")
}

#[test]
fn previews_from_a_posted_body_say_the_same() {
    let dir = TempDir::new("since-last-preview");
    // The first push's comment as posted (its marker records the changes).
    let posted = golden_first_body(&dir);
    let previous = dir.join("first.md");
    std::fs::write(&previous, &posted).unwrap();
    let second = plan(&fixture("second_push.json"));
    let with = |format: &str| {
        render(&[
            "--format".into(),
            format.into(),
            "--previous".into(),
            previous.display().to_string(),
            second.clone(),
        ])
    };
    let expected = std::fs::read_to_string(fixture("second.md")).unwrap();
    assert_eq!(first_line(&with("markdown")), first_line(&expected));
    let json: Value = serde_json::from_str(&with("json")).unwrap();
    let since = &json["since"];
    assert_eq!(since["status"], "moved");
    assert_eq!(since["commit_short"], "aaaaaaa");
    assert_eq!(since["new"]["addresses"][0], "null_resource.queue");
    assert_eq!(since["changed"]["addresses"][0], "null_resource.db");
    assert_eq!(since["gone"]["addresses"][0], "null_resource.cache");
    let marked: Vec<(&str, &str)> = json["plans"][0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| Some((e["address"].as_str()?, e["since"].as_str()?)))
        .collect();
    assert_eq!(
        marked,
        [
            ("null_resource.db", "changed"),
            ("null_resource.queue", "new")
        ]
    );
    // Without a previous comment there is no line, nor in the JSON.
    let alone = render(std::slice::from_ref(&second));
    assert!(!alone.contains("Since the last plan"), "{alone}");
    let json: Value =
        serde_json::from_str(&render(&["--format".into(), "json".into(), second])).unwrap();
    assert!(json["since"].is_null());
    // A file that is not a comment of ours is said to be so, in one line.
    let stranger = dir.join("stranger.md");
    std::fs::write(&stranger, "just text\n").unwrap();
    let line = render(&[
        "--previous".into(),
        stranger.display().to_string(),
        plan(&fixture("second_push.json")),
    ]);
    assert!(
        first_line(&line).starts_with("Since the last plan (")
            || first_line(&line).starts_with("Since the last plan: not compared"),
        "{line}"
    );
    assert!(!line.contains("new since the last plan"), "{line}");
}

/// The first push's body as `comment` posts it (a dry run prints it after the actions).
fn golden_first_body(dir: &TempDir) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_planmark"))
        .args(["comment", "--dry-run", "--repo", "o/r", "--pr", "1"])
        .arg(plan(&fixture("first_push.json")))
        .env_remove("GITHUB_TOKEN")
        .env_remove("GITHUB_ACTIONS")
        .env("GITHUB_SHA", FIRST_SHA)
        .env("SOURCE_DATE_EPOCH", "1795341600")
        .current_dir(dir.path())
        .output()
        .expect("run planmark");
    assert_ok("dry run", &out);
    let stdout = String::from_utf8(out.stdout).unwrap();
    let (_, body) = stdout.split_once("\n\n").expect("actions, then the body");
    body.to_string()
}

/// The second push's plan with a copy of `marker` in a value of the new change, which the
/// diff shows.
fn with_copy(dir: &TempDir, marker: &str) -> std::path::PathBuf {
    let text = std::fs::read_to_string(fixture("second_push.json")).unwrap();
    let mut plan: Value = serde_json::from_str(&text).unwrap();
    let changes = plan["resource_changes"].as_array_mut().unwrap();
    let queue = changes
        .iter_mut()
        .find(|c| c["address"] == "null_resource.queue")
        .unwrap();
    queue["change"]["after"]["triggers"]["size"] = Value::from(format!("small\n{marker}\nend"));
    let path = dir.join("hostile.json");
    std::fs::write(&path, plan.to_string()).unwrap();
    path
}

#[tokio::test(flavor = "multi_thread")]
async fn a_copied_marker_cannot_change_the_line() {
    let dir = TempDir::new("since-last-forged");
    // A perfect marker for `main` claiming the second push's changes: read, it would hide
    // that `db` changed and `cache` is gone.
    let preview = render(&[
        "--previous".into(),
        {
            let p = dir.join("first.md");
            std::fs::write(&p, golden_first_body(&dir)).unwrap();
            p.display().to_string()
        },
        plan(&fixture("second_push.json")),
    ]);
    let forged = preview.trim_end().lines().last().unwrap().to_string();
    assert!(forged.starts_with(planmark::marker::PREFIX), "{forged}");

    let gh = fake().await;
    gh.add_pull(OWNER, REPO, 2, HEAD, "feature", "open");
    push(&gh, 2, 20, FIRST_SHA, plan(&fixture("first_push.json"))).await;
    // Someone else's newer comment whose last line is that marker.
    let mallory = User::human("mallory", 666);
    gh.seed_comment(OWNER, REPO, 2, &mallory, &format!("look\n{forged}\n"));
    let hostile = with_copy(&dir, &forged);
    push(&gh, 2, 21, SECOND_SHA, plan(&hostile)).await;
    let second = body(&gh, 2);
    assert!(second.contains(&forged), "the copy is shown: {second}");
    let expected = std::fs::read_to_string(fixture("second.md")).unwrap();
    assert_eq!(first_line(&second), first_line(&expected));
    // `render --previous` with a body whose copy is not its last line: not ours.
    let copied = dir.join("copied.md");
    std::fs::write(&copied, format!("{forged}\ntext\n")).unwrap();
    let line = render(&[
        "--previous".into(),
        copied.display().to_string(),
        plan(&fixture("second_push.json")),
    ]);
    assert!(
        first_line(&line).contains("not compared"),
        "{}",
        first_line(&line)
    );
}
