//! The real-world sweep (issue 24's acceptance, approximated): every plan-shaped JSON we
//! may use is rendered in every format, with its schemas when it has them and without.
//!
//! Plans: the repository's own (`tests/fixtures/`, `examples/`, always) and the reference
//! corpus in `../shared/corpus/` (Terraform's and OpenTofu's test data, samples and real
//! plans; skipped with a note when `../shared` is absent). A file is a plan when it is one
//! JSON object with a `format_version` and any of the plan's own members.
//!
//! For each plan and format: exit 0 and no panic (a valid plan is never refused); every
//! changed resource address (what Terraform lists: any action but a plain no-op, plus
//! moves and imports) named in the text and in the comment; no sensitive value (values
//! under `true` in a sensitivity mask, sensitive outputs and variables, schema-sensitive
//! attributes when schemas are given) in any output. All failures are collected and
//! reported at once.

use crate::support::bin;

use std::collections::{BTreeSet, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::support::secrets::{leaves, secrets_in_block};
use bin::*;
use serde_json::Value;

const FORMATS: [&str; 4] = ["text", "markdown", "json", "html"];

/// Members only a plan has (a state or a schemas file has none of them).
const PLAN_MEMBERS: [&str; 7] = [
    "planned_values",
    "resource_changes",
    "output_changes",
    "resource_drift",
    "deferred_changes",
    "action_invocations",
    "prior_state",
];

/// Secrets shorter than this are too likely to occur by chance in any output.
const MIN_SECRET_LEN: usize = 4;

fn plan_files(root: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.ends_with("hostile-sweep") {
            // Hostile addresses are shown with their invisible characters made visible, so
            // they cannot be found verbatim; tests/suite/hostile_sweep.rs checks those plans.
            continue;
        }
        if path.ends_with("fixtures/rules") {
            // A few lines each, one behaviour of the text per plan, not a shape plans take:
            // tests/suite/rules.rs checks their text, markdown.rs their comment.
            continue;
        }
        if path.is_dir() {
            plan_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") && read_plan(&path).is_some() {
            out.push(path);
        }
    }
}

fn read_plan(path: &Path) -> Option<Value> {
    let value: Value = serde_json::from_slice(&std::fs::read(path).ok()?).ok()?;
    let object = value.as_object()?;
    let is_plan = object.contains_key("format_version")
        && PLAN_MEMBERS.iter().any(|m| object.contains_key(*m));
    is_plan.then_some(value)
}

/// Object keys in `value` at any depth (a sensitive map hides its keys too).
fn keys(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Array(items) => items.iter().for_each(|i| keys(i, out)),
        Value::Object(members) => {
            for (k, v) in members {
                out.push(k.clone());
                keys(v, out);
            }
        }
        _ => {}
    }
}

/// Leaves of `value` under a `true` in the sensitivity `mask` (walked in parallel).
fn masked(value: &Value, mask: &Value, out: &mut Vec<String>) {
    match (mask, value) {
        (Value::Bool(true), v) => {
            leaves(v, out);
            keys(v, out);
        }
        (Value::Array(masks), Value::Array(items)) => {
            for (m, v) in masks.iter().zip(items) {
                masked(v, m, out);
            }
        }
        (Value::Object(masks), Value::Object(members)) => {
            for (k, m) in masks {
                if let Some(v) = members.get(k) {
                    masked(v, m, out);
                }
            }
        }
        _ => {}
    }
}

/// The schema of resource change `rc` (by full provider address, else its last segment,
/// as a 0.12 plan names providers).
fn resource_schema<'s>(schemas: &'s Value, rc: &Value) -> Option<&'s Value> {
    let provider = rc["provider_name"].as_str()?;
    let short = provider.rsplit('/').next()?;
    let kind = if rc["mode"] == "data" {
        "data_source_schemas"
    } else {
        "resource_schemas"
    };
    let (_, p) = schemas["provider_schemas"]
        .as_object()?
        .iter()
        .find(|(name, _)| name.as_str() == provider || name.rsplit('/').next() == Some(short))?;
    p[kind].get(rc["type"].as_str()?).map(|s| &s["block"])
}

/// Changes (resource changes, drift and deferred changes) of a plan, each a `change`
/// holder.
fn changes(plan: &Value) -> impl Iterator<Item = &Value> {
    let direct = ["resource_changes", "resource_drift"]
        .into_iter()
        .flat_map(move |k| plan[k].as_array().into_iter().flatten());
    let deferred = plan["deferred_changes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| &d["resource_change"]);
    direct.chain(deferred)
}

/// Every value the plan (and `schemas`) say is sensitive.
fn sensitive_values(plan: &Value, schemas: Option<&Value>) -> Vec<String> {
    let mut out = Vec::new();
    for rc in changes(plan) {
        let change = &rc["change"];
        masked(&change["before"], &change["before_sensitive"], &mut out);
        masked(&change["after"], &change["after_sensitive"], &mut out);
        if let Some(block) = schemas.and_then(|s| resource_schema(s, rc)) {
            for side in ["before", "after"] {
                secrets_in_block(block, &change[side], &mut out);
            }
        }
    }
    for (name, change) in plan["output_changes"].as_object().into_iter().flatten() {
        let declared = plan["configuration"]["root_module"]["outputs"][name]["sensitive"] == true;
        for side in ["before", "after"] {
            if declared || change[format!("{side}_sensitive")] == true {
                leaves(&change[side], &mut out);
            }
        }
    }
    for invocation in plan["action_invocations"].as_array().into_iter().flatten() {
        masked(
            &invocation["config_values"],
            &invocation["config_sensitive"],
            &mut out,
        );
    }
    let declared_vars = &plan["configuration"]["root_module"]["variables"];
    for (name, var) in plan["variables"].as_object().into_iter().flatten() {
        if declared_vars[name]["sensitive"] == true {
            leaves(&var["value"], &mut out);
        }
    }
    out
}

/// The plan's JSON with every `secret` leaf removed: a secret that also occurs here (in a
/// key, an address or a value that is not sensitive) may be shown for that reason.
fn public_text(value: &Value, secrets: &BTreeSet<String>) -> String {
    fn strip(value: &Value, secrets: &BTreeSet<String>) -> Value {
        match value {
            Value::String(s) if secrets.contains(s) => Value::Null,
            Value::Number(n) if secrets.contains(&n.to_string()) => Value::Null,
            Value::Array(items) => Value::Array(items.iter().map(|i| strip(i, secrets)).collect()),
            Value::Object(members) => Value::Object(
                members
                    .iter()
                    .map(|(k, v)| (k.clone(), strip(v, secrets)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
    let stripped = strip(value, secrets);
    let mut text = stripped.to_string();
    // Also the string values as written, unescaped.
    let mut all = Vec::new();
    leaves(&stripped, &mut all);
    text.push('\n');
    text.push_str(&all.join("\n"));
    text
}

/// The secrets to look for: long enough, and not also public in the plan.
fn secrets(plan: &Value, schemas: Option<&Value>) -> Vec<String> {
    let all: BTreeSet<String> = sensitive_values(plan, schemas).into_iter().collect();
    let public = public_text(plan, &all);
    all.into_iter()
        .filter(|s| s.trim().chars().count() >= MIN_SECRET_LEN && !public.contains(s.as_str()))
        .collect()
}

/// Addresses Terraform lists as changing: any action but a plain no-op; a no-op that
/// moves or imports; deferred changes. Ephemeral resources are
/// never listed (their open and close happen in every run).
fn changed_addresses(plan: &Value) -> Vec<String> {
    let mut out = Vec::new();
    let deferred = plan["deferred_changes"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| &d["resource_change"]);
    for rc in plan["resource_changes"]
        .as_array()
        .into_iter()
        .flatten()
        .chain(deferred)
    {
        if rc["mode"] == "ephemeral" {
            continue;
        }
        let Some(address) = rc["address"].as_str() else {
            continue;
        };
        let actions: Vec<&str> = rc["change"]["actions"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .collect();
        let noop = actions == ["no-op"];
        let moved = rc["previous_address"]
            .as_str()
            .is_some_and(|p| p != address);
        let imported = rc["change"]["importing"].is_object();
        if !noop || moved || imported {
            out.push(address.to_string());
        }
    }
    out
}

/// Action invocations the output must name. Terraform's text shows an action a resource
/// change triggers under that change, so one triggered by a resource it does not list
/// (a plain no-op) is named in the comment only.
fn invoked_actions(plan: &Value, text: bool) -> Vec<String> {
    let listed = changed_addresses(plan);
    let mut out = Vec::new();
    for invocation in plan["action_invocations"].as_array().into_iter().flatten() {
        let trigger = &invocation["lifecycle_action_trigger"]["triggering_resource_address"];
        if text
            && trigger
                .as_str()
                .is_some_and(|t| !listed.iter().any(|a| a == t))
        {
            continue;
        }
        out.extend(invocation["address"].as_str().map(str::to_string));
    }
    out
}

/// Where a check failed: plan path, arguments, what went wrong.
struct Failure {
    plan: String,
    args: String,
    what: String,
}

struct Job {
    plan_path: PathBuf,
    schemas: Option<PathBuf>,
    format: &'static str,
}

fn check(job: &Job, failures: &Mutex<Vec<Failure>>) {
    let plan = read_plan(&job.plan_path).expect("listed as a plan");
    let schemas = job
        .schemas
        .as_ref()
        .map(|p| serde_json::from_slice::<Value>(&std::fs::read(p).unwrap()).unwrap());
    let plan_arg = job.plan_path.display().to_string();
    let mut args = vec!["render", "--format", job.format];
    let schemas_arg = job.schemas.as_ref().map(|p| p.display().to_string());
    if let Some(s) = &schemas_arg {
        args.extend(["--schemas", s.as_str()]);
    }
    args.push(&plan_arg);
    let fail = |what: String| {
        failures.lock().unwrap().push(Failure {
            plan: plan_arg.clone(),
            args: args[1..args.len() - 1].join(" "),
            what,
        })
    };
    let run = run(&args, None);
    match run.status.code() {
        Some(0) => {}
        code => {
            let reason = run.stderr.lines().next().unwrap_or_default().to_string();
            return fail(format!("exit {code:?}: {reason}"));
        }
    }
    if run.stderr.contains("panicked") {
        fail(format!("panic: {}", run.stderr));
    }
    if matches!(job.format, "text" | "markdown") {
        let named = changed_addresses(&plan)
            .into_iter()
            .chain(invoked_actions(&plan, job.format == "text"));
        for address in named {
            if !run.stdout.contains(&address) {
                fail(format!("changed address {address} not named"));
            }
        }
    }
    for secret in secrets(&plan, schemas.as_ref()) {
        if run.stdout.contains(&secret) || run.stderr.contains(&secret) {
            fail(format!("sensitive value {secret:?} shown"));
        }
    }
}

fn jobs(roots: &[PathBuf]) -> Vec<Job> {
    let mut plans = Vec::new();
    for root in roots {
        plan_files(root, &mut plans);
    }
    let mut jobs = Vec::new();
    // A plan copied beside a golden comment (tests/fixtures/comment/) with its schemas
    // renders as the original does: swept once.
    let mut seen = HashSet::new();
    for plan_path in plans {
        let beside = plan_path.with_file_name("schemas.json");
        let mut hasher = DefaultHasher::new();
        (std::fs::read(&plan_path).ok(), std::fs::read(&beside).ok()).hash(&mut hasher);
        if !seen.insert(hasher.finish()) {
            continue;
        }
        let schema_options = if beside.exists() {
            vec![None, Some(beside)]
        } else {
            vec![None]
        };
        for schemas in schema_options {
            for format in FORMATS {
                jobs.push(Job {
                    plan_path: plan_path.clone(),
                    schemas: schemas.clone(),
                    format,
                });
            }
        }
    }
    jobs
}

/// Failure lines reported per plan.
const PER_PLAN: usize = 6;

/// Runs every job on a few threads and fails once, listing every failure.
fn sweep(name: &str, roots: &[PathBuf]) {
    let jobs = jobs(roots);
    assert!(!jobs.is_empty(), "{name}: no plans found under {roots:?}");
    let failures = Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .min(4);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                check(job, &failures);
            });
        }
    });
    let failures = failures.into_inner().unwrap();
    let plans: BTreeSet<&Path> = jobs.iter().map(|j| j.plan_path.as_path()).collect();
    eprintln!("{name}: {} plans, {} runs", plans.len(), jobs.len());
    let failed: BTreeSet<&str> = failures.iter().map(|f| f.plan.as_str()).collect();
    // At most a few lines per plan: one broken rule can fail hundreds of checks.
    let mut report = Vec::new();
    for plan in &failed {
        let of_plan: Vec<&Failure> = failures.iter().filter(|f| f.plan == *plan).collect();
        for f in of_plan.iter().take(PER_PLAN) {
            report.push(format!("{} [{}]: {}", f.plan, f.args, f.what));
        }
        if of_plan.len() > PER_PLAN {
            report.push(format!("{plan}: … and {} more", of_plan.len() - PER_PLAN));
        }
    }
    assert!(
        failures.is_empty(),
        "{name}: {} failures in {} of {} plans:\n{}",
        failures.len(),
        failed.len(),
        plans.len(),
        report.join("\n")
    );
}

#[test]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
fn every_repository_plan_renders_names_its_changes_and_hides_its_secrets() {
    let root = crate_dir();
    sweep(
        "repository plans",
        &[root.join("tests/fixtures"), root.join("examples")],
    );
}

#[test]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
fn every_shared_corpus_plan_renders_names_its_changes_and_hides_its_secrets() {
    let corpus = crate_dir().join("../shared/corpus");
    if !corpus.is_dir() {
        eprintln!("note: shared corpus sweep skipped: ../shared is absent");
        return;
    }
    sweep("shared corpus plans", &[corpus]);
}

#[test]
fn null_for_an_omitted_collection_reads_as_omitted() {
    let dir = crate_dir().join("tests/fixtures/real-world-shapes/null-collections");
    let plan = dir.join("plan.json").display().to_string();
    let run = run(&["render", "--format", "text", &plan], None);
    assert_eq!(run.code(), 0, "{}", run.stderr);
    let expected = std::fs::read_to_string(dir.join("expected.txt")).unwrap();
    assert_eq!(run.stdout, expected);
}

#[test]
fn a_plan_too_large_for_the_comment_still_names_every_change() {
    let dir = crate_dir().join("tests/fixtures/real-world-shapes/large-plan");
    let path = dir.join("plan.json");
    let plan = read_plan(&path).unwrap();
    let path = path.display().to_string();
    let run = run(&["render", "--format", "markdown", &path], None);
    assert_eq!(run.code(), 0, "{}", run.stderr);
    assert!(
        run.stdout.contains("listed by address only"),
        "the fixture must be too large for every diff:\n{}",
        run.stdout
    );
    assert!(run.stdout.encode_utf16().count() <= 65536);
    let addresses = changed_addresses(&plan);
    assert_eq!(addresses.len(), 600);
    let missing: Vec<&String> = addresses
        .iter()
        .filter(|a| !run.stdout.contains(a.as_str()))
        .collect();
    assert!(missing.is_empty(), "not named: {missing:?}");
    assert!(!run.stdout.contains("not shown"), "{}", run.stdout);
}
