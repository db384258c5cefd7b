//! Property (issue 35): a file of `show -json` documents, one per line, each after a
//! Terragrunt-style `[label] ` of arbitrary text (any Unicode, brackets, quotes, commas,
//! braces, spaces) or none. Through the pipeline, in process:
//! - every document is a plan of the comment, named by its whole label (by its order when
//!   it has none), or listed as unreadable — none vanishes;
//! - `verify` of the whole file against the marker of a comment on any strict subset of
//!   its documents finds that the changes differ (the CLI's exit 4).
//!
//! The documents are the real plans of `tests/fixtures/real-plans` that change something
//! (a subset of plans that change nothing would rightly match). 16 cases by default
//! (`PROPTEST_CASES` overrides).

use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::{select, subsequence};
use proptest::test_runner::Config;

use planmark::marker::parse_marker;
use planmark::pipeline::{compare, fresh, read, Comparison, Options, PlanArg, Purpose, RunInfo};
use planmark::pipeline::{PipelineError, DEFAULT_MAX_INPUT_SIZE};

use crate::support::temp::TempDir;

/// Real plans (Terraform 1.0.3) that each make at least one change.
const PLANS: [&str; 6] = [
    "create_first",
    "removals",
    "teardown",
    "taint_and_request",
    "replace_update_outputs",
    "nested_modules",
];

/// Each plan of [`PLANS`] as one line of JSON.
fn documents() -> Vec<String> {
    PLANS
        .iter()
        .map(|name| {
            let path = crate::support::fixtures_dir().join(format!("real-plans/{name}/plan.json"));
            let plan: serde_json::Value =
                serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
            plan.to_string()
        })
        .collect()
}

/// A label: arbitrary characters, often the ones a JSON or label parser trips on, never a
/// line break (Terragrunt labels each line).
fn label() -> impl Strategy<Value = Option<String>> {
    let tricky = select(vec!['[', ']', '{', '}', '"', ',', ':', ' ', '\\', '/', '@']);
    let c = prop_oneof![2 => tricky, 1 => any::<char>()];
    let text = vec(c, 0..16).prop_map(|chars| {
        chars
            .into_iter()
            .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
            .collect::<String>()
    });
    prop_oneof![1 => Just(None), 5 => text.prop_map(Some)]
}

/// A file's lines: (which plan, its label), two to five of them.
fn file() -> impl Strategy<Value = Vec<(usize, Option<String>)>> {
    vec((0..PLANS.len(), label()), 2..=5)
}

fn options(path: &std::path::Path) -> Options {
    Options {
        plans: vec![PlanArg::parse(&format!("main={}", path.display()))],
        schemas: None,
        max_input_size: DEFAULT_MAX_INPUT_SIZE,
        tool: None,
        plan_mode: None,
        log: None,
        policy: Default::default(),
        policy_paths: Vec::new(),
        rego: Default::default(),
        key: Some("stack".to_string()),
        title: None,
        max_chars: 65_536,
        map: Default::default(),
        no_group: false,
        template: None,
        template_dir: None,
        run: RunInfo::default(),
        hash_changes: true,
        previous: None,
        code: None,
        annotate: false,
    }
}

/// The file of `lines`, written to `dir` as NAME.txt.
fn write(
    dir: &TempDir,
    name: &str,
    docs: &[String],
    lines: &[&(usize, Option<String>)],
) -> std::path::PathBuf {
    let mut text = String::from("12:00:00.000 INFO   The stack at /src/live will be processed\n");
    for (plan, label) in lines {
        if let Some(label) = label {
            text.push_str(&format!("[{label}] "));
        }
        text.push_str(&docs[*plan]);
        text.push('\n');
    }
    let path = dir.join(format!("{name}.txt"));
    std::fs::write(&path, text).unwrap();
    path
}

/// The comment's plans (their names) and unreadable ones (theirs), and its marker.
fn commented(path: &std::path::Path) -> (Vec<String>, Vec<String>, serde_json::Value) {
    let options = options(path);
    let inputs = read(&options, Purpose::Comment).expect("inputs");
    let parsed = inputs.parse().expect("a plan");
    let differs = parsed.differs(&options);
    let loaded = parsed.load(&options, &differs).expect("loaded");
    let rendered = loaded.comment(None).expect("a comment");
    let context = serde_json::to_value(&rendered.comment.context).unwrap();
    let names = |list: &str| -> Vec<String> {
        context[list]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect()
    };
    let marker = parse_marker(&rendered.comment.markdown).expect("a marker");
    let result = (names("plans"), names("unreadable"), marker);
    // Unreadable documents make the run fail after the comment is made.
    let run = loaded.finish(Ok::<(), PipelineError>(()));
    assert!(
        run.is_ok() || matches!(run, Err(PipelineError::Unreadable(_))),
        "{run:?}"
    );
    result
}

fn config() -> Config {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(16);
    Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_labelled_document_is_a_plan_and_a_subset_never_verifies(
        (lines, subset) in file().prop_flat_map(|lines| {
            let n = lines.len();
            (Just(lines.clone()), subsequence((0..n).collect::<Vec<_>>(), 1..n))
        })
    ) {
        let docs = documents();
        let dir = TempDir::new("prop-documents");
        let all: Vec<&(usize, Option<String>)> = lines.iter().collect();
        let path = write(&dir, "all", &docs, &all);
        let (plans, unreadable, _) = commented(&path);
        // Each document a plan, named by its label, or an entry that says it is unreadable.
        let expected: Vec<String> = lines
            .iter()
            .enumerate()
            .map(|(n, (_, label))| match label {
                Some(label) if !label.trim().is_empty() => label.clone(),
                _ => format!("main.{}", n + 1),
            })
            .collect();
        prop_assert_eq!(plans.len() + unreadable.len(), lines.len(), "{:?} {:?}", plans, unreadable);
        prop_assert!(unreadable.is_empty(), "valid plans unreadable: {:?}", unreadable);
        prop_assert_eq!(&plans, &expected);

        let part: Vec<&(usize, Option<String>)> = subset.iter().map(|&i| &lines[i]).collect();
        let reviewed = write(&dir, "reviewed", &docs, &part);
        let (_, _, marker) = commented(&reviewed);
        let now = fresh(&options(&path)).expect("the whole file reads");
        let verdict = compare(&now, &marker, "");
        prop_assert!(
            matches!(verdict, Comparison::Differs(_)),
            "documents {:?} of {:?} verified as the whole file: {:?}", subset, lines, verdict
        );
    }
}
