//! The differ's and the text renderer's rules, one small hand-made plan per behaviour:
//! `tests/fixtures/rules/<behaviour>/`, each rendered as `planmark render --format text`
//! renders it and compared with the text Terraform prints for it.
//!
//! A case folder holds `plan.json` (the plan as text: number literals such as `1e400`
//! reach the parser as written), `schemas.json` when the plan needs provider schemas,
//! `expected.txt` (the whole text output), and optionally `secrets.txt` (strings, one a
//! line, that must appear nowhere in the output) and `README.md` (why the case is so).
//! `PLANMARK_BLESS=1` writes every `expected.txt` from the current output; `secrets.txt`
//! is never written. See `tests/README.md`, "Adding a case".

use std::path::Path;

use planmark::differ::diff_plan;
use planmark::input::plan::parse_plan;
use planmark::input::schema::ProviderSchemas;
use planmark::render::text::render_plan;

use crate::support::golden::{check, shown};
use crate::support::{case_dirs, fixtures_dir};

/// The files a case folder may hold; anything else is a typo to report.
const CASE_FILES: [&str; 5] = [
    "plan.json",
    "schemas.json",
    "expected.txt",
    "secrets.txt",
    "README.md",
];

/// The text output for the case in `dir`, through the library as the binary renders it.
fn render(dir: &Path) -> Result<String, String> {
    let plan_path = dir.join("plan.json");
    let bytes = std::fs::read(&plan_path).map_err(|e| format!("{}: {e}", shown(&plan_path)))?;
    let plan = parse_plan(&shown(&plan_path), &bytes).map_err(|e| e.to_string())?;
    let schemas_path = dir.join("schemas.json");
    let schemas = match std::fs::read(&schemas_path) {
        Ok(bytes) => {
            Some(ProviderSchemas::parse(&shown(&schemas_path), &bytes).map_err(|e| e.to_string())?)
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(format!("{}: {e}", shown(&schemas_path))),
    };
    let diff =
        diff_plan(&shown(&plan_path), &plan, schemas.as_ref(), None).map_err(|e| e.to_string())?;
    Ok(render_plan(&diff))
}

/// What is wrong with the case in `dir`, if anything.
fn problems(dir: &Path) -> Vec<String> {
    let mut problems = Vec::new();
    for entry in std::fs::read_dir(dir).expect("case folder").flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if !CASE_FILES.contains(&name.as_str()) {
            problems.push(format!(
                "unexpected file {name} (a case holds {CASE_FILES:?})"
            ));
        }
    }
    let text = match render(dir) {
        Ok(text) => text,
        Err(e) => {
            problems.push(format!("does not render: {e}"));
            return problems;
        }
    };
    if let Ok(secrets) = std::fs::read_to_string(dir.join("secrets.txt")) {
        for secret in secrets.lines().filter(|line| !line.is_empty()) {
            if text.contains(secret) {
                problems.push(format!("shows the secret {secret:?}:\n{text}"));
            }
        }
    }
    if let Err(e) = check(&dir.join("expected.txt"), &text) {
        problems.push(e);
    }
    problems
}

#[test]
fn every_rule_renders_as_expected() {
    let cases = case_dirs(&fixtures_dir().join("rules"));
    assert!(!cases.is_empty(), "no case under tests/fixtures/rules");
    let failures: Vec<String> = cases
        .iter()
        .flat_map(|(name, dir)| {
            problems(dir)
                .into_iter()
                .map(move |p| format!("{name}: {p}"))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} problems in {} rule cases:\n\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n\n")
    );
}
