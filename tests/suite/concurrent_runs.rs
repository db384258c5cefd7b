//! Issue 22 §4: two workflow runs for one pull request at once (two quick pushes) must
//! leave one comment, not two. The planmark binary is started twice at once against one
//! fake GitHub, which handles requests one at a time (creates get increasing ids) and holds
//! every list back a while after making it, so that both runs usually list before either
//! has created: the race happens in most tries, and the verdict holds in all of them.

use crate::support;

use std::process::{Child, Command, Output};
use std::sync::Arc;
use std::time::Duration;

use planmark::marker::{marker_line, parse_marker, MarkerData};
use support::fake_github::{Comment, FakeGitHub, Route, User};
use support::publishing::{assert_ok, command, fake, ours, HEAD, OWNER, REPO};

/// Tries of the plain case (`--comment-mode update`, no comment yet).
const TRIES: u64 = 20;
/// Tries of each other mode.
const MODE_TRIES: u64 = 5;
/// How long the fake holds a list back: longer than two processes started together take
/// to reach their first list, even on a busy machine.
const LIST_DELAY: Duration = Duration::from_millis(500);

fn plan(path: &str) -> String {
    format!("main={}/{path}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs 100 and 101 (the newer), each with its own plan and title, started at once.
fn start_both(gh: &FakeGitHub, pr: u64, mode: &str) -> [Child; 2] {
    let run = |run_id: u64, tag: &str, path: &str| -> Command {
        let args = ["--comment-mode", mode, "--title", tag, &plan(path)].map(String::from);
        command(gh, pr, run_id, &args)
    };
    let mut older = run(100, "TAGX", "examples/plan.json");
    let mut newer = run(
        101,
        "TAGY",
        "tests/fixtures/real-plans/create_first/plan.json",
    );
    let piped = |cmd: &mut Command| {
        cmd.stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start planmark")
    };
    [piped(&mut older), piped(&mut newer)]
}

/// A comment for key `main` left by an earlier run (50).
fn seed_earlier(gh: &FakeGitHub, pr: u64) -> u64 {
    let marker = marker_line(&MarkerData {
        key: "main".into(),
        plan_sha256: "0".repeat(64),
        run_id: Some(50),
        run_attempt: Some(1),
        time: "2026-11-22T10:00:00Z".into(),
        ..MarkerData::default()
    });
    let body = format!("### TAGO\n\n{marker}\n");
    gh.seed_comment(OWNER, REPO, pr, &User::actions_bot(), &body)
}

fn run_id(comment: &Comment) -> Option<u64> {
    parse_marker(&comment.body)?.get("run_id")?.as_u64()
}

/// What is wrong with the comments `mode` left on `pr` (`earlier`: the seeded comment).
fn verdict(mode: &str, comments: &[Comment], earlier: Option<u64>) -> Result<(), String> {
    let visible: Vec<&Comment> = comments.iter().filter(|c| !c.minimized).collect();
    let ids: Vec<(u64, bool)> = comments.iter().map(|c| (c.id, c.minimized)).collect();
    match mode {
        // Several comments per key are what `new` is for: both stay.
        "new" if comments.len() == 2 => Ok(()),
        "new" => Err(format!("new: {} comments, expected 2", comments.len())),
        _ if visible.len() != 1 => Err(format!("{mode}: {} comments {ids:?}", visible.len())),
        // `update` never lets the older run's body replace the newer one's.
        "update" if run_id(visible[0]) != Some(101) || !visible[0].body.contains("TAGY") => Err(
            format!("update: the survivor is run {:?}'s", run_id(visible[0])),
        ),
        "recreate" if Some(visible[0].id) == earlier => Err("recreate: kept the old".into()),
        // A run that listed after the other had posted hides that comment, as it would
        // any earlier one: one visible comment is the rule, hidden ones may be two.
        "hide-and-new" if Some(comments[0].id) != earlier || !comments[0].minimized => Err(
            format!("hide-and-new: {ids:?}, expected the old one hidden"),
        ),
        _ => Ok(()),
    }
}

async fn wait(children: [Child; 2]) -> Vec<Output> {
    tokio::task::spawn_blocking(move || {
        children
            .map(|c| c.wait_with_output().expect("wait for planmark"))
            .to_vec()
    })
    .await
    .expect("join")
}

#[tokio::test(flavor = "multi_thread")]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
async fn two_runs_at_once_leave_one_comment() {
    let gh = Arc::new(fake().await);
    gh.delay(Route::ListComments, LIST_DELAY);
    let mut tries = Vec::new();
    let modes = [("update", TRIES), ("recreate", MODE_TRIES)];
    let modes = modes
        .into_iter()
        .chain([("hide-and-new", MODE_TRIES), ("new", MODE_TRIES)]);
    let mut pr = 0;
    for (mode, count) in modes {
        for _ in 0..count {
            pr += 1;
            gh.add_pull(OWNER, REPO, pr, HEAD, "feature", "open");
            let earlier =
                matches!(mode, "recreate" | "hide-and-new").then(|| seed_earlier(&gh, pr));
            let (gh, started) = (gh.clone(), start_both(&gh, pr, mode));
            tries.push(tokio::spawn(async move {
                let outputs = wait(started).await;
                for out in &outputs {
                    assert_ok(&format!("{mode} on #{pr}"), out);
                }
                (mode, verdict(mode, &ours(&gh, pr), earlier))
            }));
        }
    }
    let mut wrong = std::collections::BTreeMap::<&str, Vec<String>>::new();
    let mut counts = std::collections::BTreeMap::<&str, u64>::new();
    for try_ in tries {
        let (mode, verdict) = try_.await.expect("join");
        *counts.entry(mode).or_default() += 1;
        if let Err(e) = verdict {
            wrong.entry(mode).or_default().push(e);
        }
    }
    let report: Vec<String> = wrong
        .iter()
        .map(|(mode, errors)| {
            format!(
                "{mode}: wrong in {} of {} tries: {errors:?}",
                errors.len(),
                counts[mode]
            )
        })
        .collect();
    assert!(report.is_empty(), "{}", report.join("\n"));
    assert_eq!(counts["update"], TRIES);
}
