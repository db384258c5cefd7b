//! Pipeline stage, Rego policy files: reads the `--policy` paths (a `.rego` file, or a
//! directory walked for `.rego` policies and `.json`/`.yaml`/`.yml` data), compiles them
//! through the policy stage, and evaluates each loaded plan's JSON.
//!
//! Contract: a directory is walked recursively in name order, hidden entries and OPA's
//! `*_test.rego` test files skipped; a path that gives no policy is an error naming it,
//! never an empty success. Everything is read before any plan is.

use std::path::{Path, PathBuf};

use super::error::{PipelineError, Result};
use super::file::{read_input, read_text};
use super::options::Options;
use super::secrets::{sensitive_strings, Redactor};
use crate::input::schema::ProviderSchemas;
use crate::policy::rego::{DataFile, Policies, PolicyReport, Settings, Source};
use crate::policy::Violation;
use crate::render::annotations::Annotation;

/// What the policies said about the plans, for the caller to judge once the output is
/// written or the comment posted.
#[derive(Debug, Clone, Default)]
pub struct Verdicts {
    /// The gates' violations (`--fail-on`, `--max-destroy`, `--protect`).
    pub(crate) violations: Vec<Violation>,
    /// Each plan's Rego report, in the plans' order, with the plan's name when there are
    /// several (none without `--policy`).
    pub rego: Vec<(Option<String>, PolicyReport)>,
    /// What to show beside the pull request's lines (with [`super::Options::annotate`]).
    pub(crate) annotations: Vec<Annotation>,
}

/// Directories deeper than this are refused: a symbolic link back up would be endless.
const MAX_DEPTH: usize = 32;

/// Reads and compiles the `--policy` files; `None` without any.
pub(super) fn load(options: &Options) -> Result<Option<Policies>> {
    if options.policy_paths.is_empty() {
        return Ok(None);
    }
    let mut found = Found::default();
    for path in &options.policy_paths {
        collect(path, &mut found)?;
    }
    // `time.now_ns()` is the run's time, as the comment's footer states it.
    let settings = Settings {
        time: options.run.time.clone(),
        ..options.rego.clone()
    };
    Ok(Some(Policies::compile(
        &found.sources,
        &found.data,
        &settings,
    )?))
}

/// Each plan's report (given by its path and JSON text), in order (none without policies), its findings cleaned of
/// the plan's sensitive values: a rule may `sprintf` a secret into its message, which the
/// comment and the job's log would show. `schemas` (`--schemas`) tell an old plan's.
pub(super) fn evaluate<'a>(
    policies: Option<&mut Policies>,
    plans: impl Iterator<Item = (&'a str, &'a [u8])>,
    schemas: Option<&Path>,
) -> Result<Vec<PolicyReport>> {
    let Some(policies) = policies else {
        return Ok(Vec::new());
    };
    // Read again only when a finding may need it: the load has checked them already.
    let mut read_schemas: Option<Option<ProviderSchemas>> = None;
    plans
        .map(|(path, json)| {
            let json = std::str::from_utf8(json)
                .map_err(|_| PipelineError::input(path, "is not UTF-8 text"))?;
            let mut report = policies.evaluate(path, json)?;
            if report.failures.is_empty() && report.warnings.is_empty() {
                return Ok(report);
            }
            let schemas = match (&mut read_schemas, schemas) {
                (Some(read), _) => read.as_ref(),
                (None, None) => None,
                (slot @ None, Some(path)) => {
                    let display = path.display().to_string();
                    let bytes = read_input(&display)?;
                    slot.insert(Some(ProviderSchemas::parse(&display, &bytes)?))
                        .as_ref()
                }
            };
            let secrets = sensitive_strings(json, schemas)
                .map_err(|e| PipelineError::input(path, format!("is not JSON: {e}")))?;
            let redactor = Redactor::new(secrets);
            for finding in report.failures.iter_mut().chain(&mut report.warnings) {
                finding.message = redactor.redact(&finding.message);
                if let Some(resource) = &mut finding.resource {
                    *resource = redactor.redact(resource);
                }
            }
            Ok(report)
        })
        .collect()
}

#[derive(Default)]
struct Found {
    sources: Vec<Source>,
    data: Vec<DataFile>,
}

/// One `--policy` argument: a `.rego` file, or a directory holding at least one.
fn collect(path: &Path, found: &mut Found) -> Result<()> {
    let display = path.display().to_string();
    let meta = std::fs::metadata(path).map_err(|e| PipelineError::read(&display, e))?;
    if meta.is_dir() {
        let before = found.sources.len();
        walk(path, &mut Vec::new(), found)?;
        if found.sources.len() == before {
            return Err(PipelineError::input(
                &display,
                "--policy: holds no .rego file (hidden entries and *_test.rego tests are \
                 skipped): pass a directory of Rego policies or a .rego file",
            ));
        }
        return Ok(());
    }
    if !display.ends_with(".rego") {
        return Err(PipelineError::input(
            &display,
            "--policy: is not a .rego file: pass a Rego policy or a directory of them",
        ));
    }
    found.sources.push(Source {
        text: read_text(path)?,
        path: display,
    });
    Ok(())
}

/// The policies and data under `dir`, in name order; `mount` is `dir`'s place under
/// `data` (its path below the `--policy` directory).
fn walk(dir: &Path, mount: &mut Vec<String>, found: &mut Found) -> Result<()> {
    let display = dir.display().to_string();
    if mount.len() > MAX_DEPTH {
        return Err(PipelineError::input(
            &display,
            format!("--policy: directories nested over {MAX_DEPTH} deep (a symbolic link loop?)"),
        ));
    }
    let read_error = |source| PipelineError::read(&display, source);
    let mut entries: Vec<(String, PathBuf)> = std::fs::read_dir(dir)
        .map_err(read_error)?
        .map(|entry| entry.map(|e| (e.file_name().to_string_lossy().into_owned(), e.path())))
        .collect::<std::io::Result<_>>()
        .map_err(read_error)?;
    entries.sort();
    for (name, path) in entries {
        if name.starts_with('.') {
            continue;
        }
        if path.is_dir() {
            mount.push(name);
            walk(&path, mount, found)?;
            mount.pop();
        } else if name.ends_with(".rego") {
            if !name.ends_with("_test.rego") {
                found.sources.push(Source {
                    text: read_text(&path)?,
                    path: path.display().to_string(),
                });
            }
        } else if [".json", ".yaml", ".yml"].iter().any(|x| name.ends_with(x)) {
            found.data.push(DataFile {
                text: read_text(&path)?,
                path: path.display().to_string(),
                mount: mount.clone(),
            });
        }
    }
    Ok(())
}
