//! Issue 22 §1: only the marker planmark wrote, on the comment's last line, counts. Every
//! place a plan or log string can reach the comment (`Place`) carries every kind of marker
//! copy (`Forgery`), and each pair runs through every comment mode and `--on-no-changes`
//! choice (`Mode`) as a user runs them: the binary against the fake GitHub, one pull
//! request per case. The fake's comments must then be exactly what a model of the modes
//! (`Model`) says, as if no copy were there.

use crate::support;

use std::path::Path;
use std::sync::Arc;

use planmark::marker::{marker_line, MarkerData, PREFIX};
use serde_json::{json, Value};
use support::fake_github::{FakeGitHub, User};
use support::publishing::{assert_ok, command, fake, ours, output, HEAD, OWNER, REPO};
use support::temp::TempDir;

/// Where a plan or log string reaches the comment.
#[derive(Clone, Copy, Debug)]
enum Place {
    /// A multi-line string attribute (a heredoc in the diff).
    Heredoc,
    /// An output value.
    Output,
    /// A change made outside Terraform.
    Drift,
    /// A deferred change.
    Deferred,
    /// A `for_each` key of a resource in the destroy list.
    DestroyKey,
    /// The source line of an error in a failed `terraform plan -json` log (`--failed`).
    FailedJson,
    /// A failed plan's plain-text log (`--failed`).
    FailedText,
    /// A warning of a successful plan's log (`--log`).
    LogWarning,
}

const PLACES: [Place; 8] = [
    Place::Heredoc,
    Place::Output,
    Place::Drift,
    Place::Deferred,
    Place::DestroyKey,
    Place::FailedJson,
    Place::FailedText,
    Place::LogWarning,
];

/// What the hostile `dev` plan copies.
#[derive(Clone, Copy, Debug)]
enum Forgery {
    /// A marker as planmark writes it, for `dev`, from an older run.
    Valid,
    /// A marker for another key (`prod`).
    CrossKey,
    /// A marker for `dev` from a run far in the future.
    FutureRun,
    /// The start of a marker that is not one.
    Garbled,
}

const COPIES: [Forgery; 4] = [
    Forgery::Valid,
    Forgery::CrossKey,
    Forgery::FutureRun,
    Forgery::Garbled,
];

impl Forgery {
    fn text(self) -> String {
        match self {
            Forgery::Valid => marker("dev", 1),
            Forgery::CrossKey => marker("prod", 1),
            Forgery::FutureRun => marker("dev", 9_000_000_000_000_000_000),
            Forgery::Garbled => format!("{PREFIX}{{\"key\":\"dev\", -->"),
        }
    }
}

/// The marker planmark writes for `key` in workflow run `run_id`.
fn marker(key: &str, run_id: u64) -> String {
    marker_line(&MarkerData {
        key: key.into(),
        plan_sha256: "0".repeat(64),
        run_id: Some(run_id),
        run_attempt: Some(1),
        time: "2026-11-22T10:00:00Z".into(),
        ..MarkerData::default()
    })
}

/// A comment mode with an `--on-no-changes` choice. Each mode runs with changes (the
/// hostile run and `prod`'s) and without (the last `dev` run); `--on-no-changes` decides
/// before the mode does, and `update` is the mode itself, so `update` goes with every
/// choice and the other modes with `skip`, which reads the markers where they would not.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Mode {
    mode: &'static str,
    on_no_changes: &'static str,
}

const MODES: [Mode; 6] = [
    Mode {
        mode: "update",
        on_no_changes: "update",
    },
    Mode {
        mode: "update",
        on_no_changes: "skip",
    },
    Mode {
        mode: "update",
        on_no_changes: "delete",
    },
    Mode {
        mode: "new",
        on_no_changes: "skip",
    },
    Mode {
        mode: "recreate",
        on_no_changes: "skip",
    },
    Mode {
        mode: "hide-and-new",
        on_no_changes: "skip",
    },
];

/// What the publisher does, run after run, with no copy anywhere: comments as (title
/// tag, key, hidden), oldest first.
#[derive(Default, Debug)]
struct Model(Vec<(&'static str, &'static str, bool)>);

impl Model {
    fn run(&mut self, key: &'static str, tag: &'static str, mode: Mode, has_changes: bool) {
        let ours: Vec<usize> = (0..self.0.len()).filter(|&i| self.0[i].1 == key).collect();
        if !has_changes {
            match mode.on_no_changes {
                "delete" => return self.0.retain(|c| c.1 != key),
                "skip" if ours.is_empty() => return,
                "skip" if mode.mode != "update" => return self.0[*ours.last().unwrap()].0 = tag,
                _ => {}
            }
        }
        match mode.mode {
            "update" => match ours.last() {
                Some(&last) => self.0[last].0 = tag,
                None => self.0.push((tag, key, false)),
            },
            "new" => self.0.push((tag, key, false)),
            "recreate" => {
                self.0.retain(|c| c.1 != key);
                self.0.push((tag, key, false));
            }
            _ => {
                for &i in &ours {
                    self.0[i].2 = true;
                }
                self.0.push((tag, key, false));
            }
        }
    }
}

/// Inputs written once for every case.
struct Inputs {
    dir: TempDir,
}

impl Inputs {
    /// Written under a directory of the test's own (`test`), as tests run at once.
    fn new(test: &str) -> Inputs {
        let dir = TempDir::new(&format!("forged-{test}"));
        for place in PLACES {
            for copy in COPIES {
                for (name, text) in hostile(place, &copy.text()) {
                    std::fs::write(dir.join(format!("{place:?}-{copy:?}-{name}")), text).unwrap();
                }
            }
        }
        Inputs { dir }
    }

    fn path(&self, name: &str) -> String {
        self.dir.join(name).display().to_string()
    }

    /// The arguments that post the hostile input for `dev`.
    fn hostile_args(&self, place: Place, copy: Forgery) -> Vec<String> {
        let file = |name: &str| self.path(&format!("{place:?}-{copy:?}-{name}"));
        match place {
            Place::FailedJson => vec!["--failed".into(), format!("dev={}", file("plan.log"))],
            Place::FailedText => vec!["--failed".into(), format!("dev={}", file("plan.log"))],
            Place::LogWarning => vec!["--log".into(), file("plan.log"), file("plan.json")],
            _ => vec![file("plan.json")],
        }
    }
}

fn fixture(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(path)
        .display()
        .to_string()
}

/// A resource change of `null_resource.NAME` (with a `for_each` key).
fn change(name: &str, key: Option<&str>, actions: &[&str], before: Value, after: Value) -> Value {
    let address = match key {
        // Terraform quotes a key as HCL does: like JSON for these keys.
        Some(key) => format!("null_resource.{name}[{}]", json!(key)),
        None => format!("null_resource.{name}"),
    };
    json!({"address": address, "mode": "managed", "type": "null_resource", "name": name,
        "index": key, "provider_name": "registry.terraform.io/hashicorp/null",
        "change": {"actions": actions, "before": before, "after": after,
            "after_unknown": {}, "before_sensitive": {}, "after_sensitive": {}}})
}

/// The files of the hostile input for `place`, each holding `copy`.
fn hostile(place: Place, copy: &str) -> Vec<(&'static str, String)> {
    let text = format!("first line\n{copy}\nlast line");
    let create = |after: Value| change("h", None, &["create"], Value::Null, after);
    let plan = |extra: Value| {
        let mut plan = json!({"format_version": "1.2", "terraform_version": "1.9.5",
            "resource_changes": [create(json!({"triggers": {"a": "b"}}))]});
        for (k, v) in extra.as_object().unwrap() {
            plan[k] = v.clone();
        }
        vec![("plan.json", plan.to_string())]
    };
    let diagnostic = |severity: &str| {
        json!({"@level": severity, "@message": "Invalid count argument", "type": "diagnostic",
            "diagnostic": {"severity": severity, "summary": "Invalid count argument",
                "detail": format!("Detail:\n{copy}"),
                "range": {"filename": "main.tf", "start": {"line": 2, "column": 11, "byte": 42},
                    "end": {"line": 2, "column": 35, "byte": 66}},
                "snippet": {"context": "resource \"null_resource\" \"db\"",
                    "code": format!("  count = -1 # {copy}"), "start_line": 2,
                    "highlight_start_offset": 10, "highlight_end_offset": 12, "values": []}}})
        .to_string()
    };
    match place {
        Place::Heredoc => plan(json!({"resource_changes": [create(json!({"triggers": {"note": text}}))]})),
        Place::Output => plan(json!({"output_changes": {"note": {"actions": ["create"],
            "before": null, "after": text, "after_unknown": false,
            "before_sensitive": false, "after_sensitive": false}}})),
        Place::Drift => plan(json!({
            "resource_drift": [change("h", None, &["update"],
                json!({"triggers": {"note": "x"}}), json!({"triggers": {"note": text}}))],
            "resource_changes": [change("h", None, &["update"],
                json!({"triggers": {"note": text}}), json!({"triggers": {"note": "y"}}))],
            "relevant_attributes": [{"resource": "null_resource.h", "attribute": ["triggers"]}]})),
        Place::Deferred => plan(json!({"deferred_changes": [{"reason": "provider_config_unknown",
            "resource_change": change("d", None, &["create"], Value::Null,
                json!({"triggers": {"note": text}}))}]})),
        Place::DestroyKey => plan(json!({"resource_changes": [change("d", Some(copy),
            &["delete"], json!({"triggers": {"a": "b"}}), Value::Null)]})),
        Place::FailedJson => vec![("plan.log", diagnostic("error"))],
        Place::FailedText => vec![(
            "plan.log",
            format!("\nError: Invalid count argument\n\n  on main.tf line 2:\n   2:   count = -1 # {copy}\n{copy}\n\nThe given \"count\" argument value is unsuitable.\n"),
        )],
        Place::LogWarning => {
            let mut files = plan(json!({}));
            files.push(("plan.log", diagnostic("warning")));
            files
        }
    }
}

/// One case: `prod`'s and `dev`'s comments as runs 10 and 11 left them, then `dev`'s runs
/// with the hostile input (run 12) and a plan without changes (run 13), then `prod`'s
/// (run 14), all in `mode`. Returns what differs from the model.
async fn case(
    gh: &FakeGitHub,
    inputs: &Inputs,
    pr: u64,
    place: Place,
    copy: Forgery,
    mode: Mode,
) -> Result<(), String> {
    gh.add_pull(OWNER, REPO, pr, HEAD, "feature", "open");
    let mut model = Model::default();
    for (tag, key, run_id) in [("TAGP", "prod", 10), ("TAGA", "dev", 11)] {
        let body = format!("### {tag}\n\n{}\n", marker(key, run_id));
        gh.seed_comment(OWNER, REPO, pr, &User::actions_bot(), &body);
        model.0.push((tag, key, false));
    }
    let modes = |tag: &str, key: &str| {
        let mut args = vec![
            "--comment-mode",
            mode.mode,
            "--on-no-changes",
            mode.on_no_changes,
        ];
        args.extend(["--title", tag, "--key", key]);
        args.into_iter().map(String::from).collect::<Vec<_>>()
    };
    let runs: [(u64, &str, &str, Vec<String>, bool); 3] = [
        (12, "TAGH", "dev", inputs.hostile_args(place, copy), true),
        (
            13,
            "TAGB",
            "dev",
            vec![fixture("tests/fixtures/real-plans/nothing_to_do/plan.json")],
            false,
        ),
        (
            14,
            "TAGQ",
            "prod",
            vec![fixture("examples/plan.json")],
            true,
        ),
    ];
    let tags = ["TAGP", "TAGA", "TAGH", "TAGB", "TAGQ"];
    for (run_id, tag, key, inputs, has_changes) in runs {
        let args = [modes(tag, key), inputs].concat();
        let out = output(command(gh, pr, run_id, &args)).await;
        let label = format!("{place:?} × {copy:?} × {mode:?}, run {run_id}");
        if !out.status.success() {
            assert_ok(&label, &out);
        }
        let tag: &'static str = tags.into_iter().find(|t| *t == tag).unwrap();
        model.run(
            if key == "dev" { "dev" } else { "prod" },
            tag,
            mode,
            has_changes,
        );
        let actual: Vec<(String, bool)> = ours(gh, pr)
            .iter()
            .map(|c| {
                let found: Vec<&str> = tags.into_iter().filter(|t| c.body.contains(t)).collect();
                (found.join("+"), c.minimized)
            })
            .collect();
        let expected: Vec<(String, bool)> = model
            .0
            .iter()
            .map(|(tag, _, hidden)| (tag.to_string(), *hidden))
            .collect();
        if actual != expected {
            return Err(format!(
                "{label}: comments (title, hidden) {actual:?}, expected {expected:?}; stdout: {}",
                String::from_utf8_lossy(&out.stdout)
                    .lines()
                    .next()
                    .unwrap_or("")
            ));
        }
    }
    Ok(())
}

/// The hostile comment really holds the copy (so each case tests something): the body
/// `dev`'s hostile run posts contains the copy's text, intact where the place shows text
/// as it is (in a resource address Terraform escapes the quotes, which garbles any copy).
#[tokio::test(flavor = "multi_thread")]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
async fn every_place_shows_the_copy_as_text() {
    let gh = fake().await;
    let inputs = Inputs::new("shown");
    let mut missing = Vec::new();
    let mut pr = 900;
    for place in PLACES {
        for copy in COPIES {
            pr += 1;
            gh.add_pull(OWNER, REPO, pr, HEAD, "feature", "open");
            let key = vec!["--key".to_string(), "dev".into()];
            let args = [key, inputs.hostile_args(place, copy)].concat();
            let out = output(command(&gh, pr, 12, &args)).await;
            assert_ok(&format!("{place:?}"), &out);
            let body = &ours(&gh, pr)[0].body;
            let intact = body.contains(&copy.text());
            eprintln!("{place:?} {copy:?} {intact}");
            if body.matches(PREFIX).count() < 2 || (!intact && !matches!(place, Place::DestroyKey))
            {
                missing.push(format!("{place:?} × {copy:?}:\n{body}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "no copy shown in:\n{}",
        missing.join("\n\n")
    );
}

/// Every place × copy × mode, run concurrently (one pull request each).
#[tokio::test(flavor = "multi_thread")]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
async fn a_copied_marker_changes_nothing_in_any_mode() {
    let gh = Arc::new(fake().await);
    let inputs = Arc::new(Inputs::new("modes"));
    let limit = Arc::new(tokio::sync::Semaphore::new(12));
    let mut cases = Vec::new();
    let mut pr = 0;
    // `recreate` cases wait a second between their writes: start them first.
    let mut modes = MODES;
    modes.sort_by_key(|m| m.mode != "recreate");
    for mode in modes {
        for place in PLACES {
            for copy in COPIES {
                pr += 1;
                let (gh, inputs, limit) = (gh.clone(), inputs.clone(), limit.clone());
                cases.push(tokio::spawn(async move {
                    let _permit = limit.acquire().await.unwrap();
                    case(&gh, &inputs, pr, place, copy, mode).await
                }));
            }
        }
    }
    let mut failures = Vec::new();
    for case in cases {
        if let Err(e) = case.await.unwrap() {
            failures.push(e);
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {pr} cases differ from the model:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A body that differs from the comment only in a marker-like line of log text is news:
/// only the last line is left out when bodies are compared.
#[tokio::test(flavor = "multi_thread")]
async fn a_change_only_in_a_marker_like_line_is_sent() {
    let gh = fake().await;
    let inputs = Inputs::new("unchanged");
    gh.add_pull(OWNER, REPO, 1, HEAD, "feature", "open");
    for version in 1..=2 {
        let log = format!(
            "\nError: Invalid count argument\n\n  on main.tf line 2:\n   2:   count = -1\n{PREFIX}{{\"key\":\"dev\",\"v\":{version}}} -->\n\nThe given \"count\" argument value is unsuitable.\n"
        );
        std::fs::write(inputs.path(&format!("v{version}.log")), log).unwrap();
        let args = [
            "--failed".into(),
            format!("dev={}", inputs.path(&format!("v{version}.log"))),
        ];
        let out = output(command(&gh, 1, 20 + version, &args)).await;
        assert_ok(&format!("log {version}"), &out);
        let comments = ours(&gh, 1);
        assert_eq!(comments.len(), 1);
        let line = format!("{PREFIX}{{\"key\":\"dev\",\"v\":{version}}} -->");
        assert!(comments[0].body.contains(&line), "{}", comments[0].body);
    }
}

/// Issue 38: the "Since the last plan" line compares with our own comment's last line only.
/// `dev`'s comment shows a plan holding a copy of a marker, and someone else's newer
/// comment ends with one; the next run's line is the one a plan without the copy gets. The
/// sharpest copy is the marker `dev`'s next comment itself carries: read, it would say
/// "no change to the plan" instead of naming what is gone.
#[tokio::test(flavor = "multi_thread")]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
async fn a_copied_marker_cannot_change_the_since_line() {
    let gh = fake().await;
    let dir = TempDir::new("forged-since");
    let nothing = fixture("tests/fixtures/real-plans/nothing_to_do/plan.json");
    let any = dir.join("any.md");
    std::fs::write(&any, "x\n").unwrap();
    let preview = std::process::Command::new(env!("CARGO_BIN_EXE_planmark"))
        .args(["render", "--key", "dev", "--previous"])
        .arg(&any)
        .arg(&nothing)
        .output()
        .expect("run planmark");
    assert_ok("render", &preview);
    let preview = String::from_utf8(preview.stdout).unwrap();
    let claim = preview.trim_end().lines().last().unwrap().to_string();
    assert!(claim.contains("changes_sha256"), "{claim}");
    let mallory = User::human("mallory", 666);
    let mut copies: Vec<(String, String)> = vec![("none".into(), String::new())];
    copies.extend(COPIES.map(|c| (format!("{c:?}"), c.text())));
    copies.push(("next".into(), claim.clone()));
    let mut pr = 960;
    let mut differ = Vec::new();
    // The places whose copy leaves the addresses as they are.
    for place in [Place::Heredoc, Place::Output, Place::Drift, Place::Deferred] {
        let mut lines: Vec<(String, String)> = Vec::new();
        for (name, copy) in &copies {
            pr += 1;
            gh.add_pull(OWNER, REPO, pr, HEAD, "feature", "open");
            let (_, json) = hostile(place, copy).remove(0);
            let path = dir.join(format!("{place:?}-{name}.json"));
            std::fs::write(&path, json).unwrap();
            let key = || vec!["--key".to_string(), "dev".into()];
            let args = [key(), vec![path.display().to_string()]].concat();
            assert_ok(name, &output(command(&gh, pr, 12, &args)).await);
            gh.seed_comment(OWNER, REPO, pr, &mallory, &format!("look\n{claim}\n"));
            let args = [key(), vec![nothing.clone()]].concat();
            assert_ok(name, &output(command(&gh, pr, 13, &args)).await);
            let body = ours(&gh, pr)[0].body.clone();
            lines.push((name.clone(), body.lines().next().unwrap_or("").to_string()));
        }
        let clean = &lines[0].1;
        assert!(
            clean.starts_with("Since the last plan") && clean.contains("gone"),
            "{place:?}: {clean}"
        );
        for (name, line) in &lines[1..] {
            if line != clean {
                differ.push(format!("{place:?} × {name}: {line}\n  expected {clean}"));
            }
        }
    }
    assert!(differ.is_empty(), "{}", differ.join("\n"));
}
