//! Input stage: the plan model, `terraform show -json` output read into `Plan` and
//! validated.
//!
//! Contract: [`parse_plan`] either returns a plan whose `format_version` major is 0 or 1,
//! or an [`InputError::Input`] naming the file and the problem in one line (not JSON, truncated,
//! a state file, a binary plan, an unsupported version, a field of the wrong type).

mod actions;
mod address;
pub(crate) mod documents;
mod entries;
mod foreign;
mod invocations;
mod model;
mod parsed;
mod reread;
mod root;
mod tool;

pub(crate) use actions::ResourceAction;
pub(crate) use entries::{ChangeEntry, ChangeList};
pub(crate) use model::*;
pub(crate) use parsed::ParsedChange;
pub(crate) use reread::ReadChange;
pub(crate) use root::sensitive_outputs;
pub(crate) use root::Plan;
pub(crate) use tool::Tool;

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::input::error::{without_quoted_value, InputError, Result};

/// Highest plan format major version we understand; 2.x means a breaking change.
const SUPPORTED_MAJOR: u64 = 1;

/// Reads plan JSON text (already loaded into memory) into a `Plan` borrowing from it.
pub fn parse_plan<'a>(path: &str, bytes: &'a [u8]) -> Result<Plan<'a>> {
    let text = check_text(path, bytes)?;
    if is_wrapper_output(text.as_bytes()) {
        return Err(InputError::input(path, WRAPPER_PROBLEM));
    }
    if is_json_log(text) {
        return Err(InputError::input(path, foreign::log_problem(text)));
    }
    // serde would fill a struct from an array positionally: only an object is a plan.
    match text.trim_start().chars().next() {
        Some('{') => {}
        Some('[') => {
            return Err(InputError::input(path, bracket_problem(text)));
        }
        _ => {
            let problem = match serde_json::from_str::<serde::de::IgnoredAny>(text) {
                Ok(_) => "is not a plan object (valid JSON, but not an object); expected the output of `terraform show -json tfplan`".to_string(),
                Err(err) => foreign::text_output_problem(text)
                    .unwrap_or_else(|| format!("is not valid JSON: {err}")),
            };
            return Err(InputError::input(path, problem));
        }
    }
    let mut plan = parse_in_order(path, text)?;
    plan.text = text;
    root::resolve_keys(&mut plan);
    match &plan.format_version {
        Some(version) => check_version(path, version)?,
        None => return Err(InputError::input(path, missing_version_problem(text))),
    }
    // Only a document with none of the plan-only members read can be something else;
    // checking those first spares big plans a second pass over their text.
    let plan_properties = !plan.resource_changes.is_empty()
        || !plan.output_changes.is_empty()
        || !plan.resource_drift.is_empty()
        || !plan.action_invocations.is_empty()
        || plan.configuration.is_some()
        || plan.errored
        || plan.applyable.is_some()
        || plan.complete.is_some();
    if !plan_properties {
        if let Some(problem) = not_a_plan(text) {
            return Err(InputError::input(path, problem));
        }
    }
    Ok(plan)
}

/// What is wrong with a text that starts with `[`: a JSON array, or not JSON at all (a TOML
/// table such as `[package]` or `[[bin]]`). Only the first value after the brackets is
/// looked at, so a deeply nested array is still called an array.
fn bracket_problem(text: &str) -> String {
    let first = text
        .bytes()
        .find(|b| !matches!(b, b'[' | b' ' | b'\t' | b'\n' | b'\r'));
    match first {
        None | Some(b']' | b'{' | b'"' | b'-' | b'0'..=b'9' | b't' | b'f' | b'n') => {
            ARRAY_PROBLEM.into()
        }
        Some(_) => match serde_json::from_str::<serde::de::IgnoredAny>(text) {
            Err(err) if err.classify() == serde_json::error::Category::Syntax => {
                foreign::text_output_problem(text)
                    .unwrap_or_else(|| format!("is not valid JSON: {err}"))
            }
            _ => ARRAY_PROBLEM.into(),
        },
    }
}

/// What to do about a JSON array given as the plan.
const ARRAY_PROBLEM: &str =
    "is a JSON array, not a plan object; expected the output of `terraform show -json tfplan`";

/// Reads the document in order, on this thread; errors name the field and the place.
fn parse_in_order<'a>(path: &str, text: &'a str) -> Result<Plan<'a>> {
    let mut de = serde_json::Deserializer::from_str(text);
    // Plain deserialization is much faster than path tracking; the rare failure is
    // deserialized again with tracking, which fails the same way and names the field.
    let plan: Plan<'a> = match Plan::deserialize(&mut de) {
        Ok(plan) => plan,
        Err(_) => {
            de = serde_json::Deserializer::from_str(text);
            match serde_path_to_error::deserialize(&mut de) {
                Ok(plan) => plan,
                Err(err) => {
                    // A 2.x plan may not have our shape at all: report the version first.
                    if let Some(version) = probe_version(text) {
                        check_version(path, &version)?;
                    }
                    return Err(describe_json_error(path, text, err));
                }
            }
        }
    };
    if let Err(err) = de.end() {
        return Err(InputError::input(
            path,
            format!("has trailing data after the plan JSON ({err})"),
        ));
    }
    Ok(plan)
}

/// Rejects inputs that are not UTF-8 JSON text before the JSON parser sees them.
///
/// A UTF-8 byte-order mark is skipped: Windows PowerShell writes one (`Out-File -Encoding
/// utf8`, `Set-Content`), and it says nothing but "this is UTF-8". UTF-16 (what Windows
/// PowerShell's `>` writes) is refused with the command that fixes it: the CLI has turned
/// it into UTF-8 already ([`crate::input::encoding`]), a plan borrows from the bytes it is given.
fn check_text<'a>(path: &str, bytes: &'a [u8]) -> Result<&'a str> {
    let with_bom = bytes;
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(InputError::input(
            path,
            "is empty; expected the output of `terraform show -json tfplan`",
        ));
    }
    if bytes.starts_with(b"PK\x03\x04") {
        return Err(InputError::input(
            path,
            format!(
                "is a binary plan file; convert it first with `terraform show -json {} > plan.json`",
                binary_plan_arg(path)
            ),
        ));
    }
    if bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]) {
        return Err(InputError::input(
            path,
            "is UTF-16 text (it starts with a UTF-16 byte-order mark, as Windows PowerShell's `>` writes); write it as UTF-8, e.g. `terraform show -json tfplan | Out-File -Encoding utf8 plan.json`",
        ));
    }
    std::str::from_utf8(bytes).map_err(|err| {
        InputError::input(
            path,
            format!(
                "is not valid UTF-8 (invalid byte at offset {}); expected JSON from `terraform show -json`",
                err.valid_up_to() + (with_bom.len() - bytes.len())
            ),
        )
    })
}

/// What to do about output captured through setup-terraform's wrapper.
pub(crate) const WRAPPER_PROBLEM: &str = "is output captured through hashicorp/setup-terraform's wrapper (a `[command]` line before the JSON, `::debug::` lines after it), not plain JSON; set `terraform_wrapper: false` on the setup-terraform step (or run `terraform-bin show -json tfplan`)";

/// Whether `text` is what hashicorp/setup-terraform's wrapper script prints around a
/// command's output: a first line `[command]/path/terraform-bin show -json tfplan` (as
/// `@actions/exec` echoes it), or its trailer of workflow commands (`::debug::stdout:`,
/// `::debug::exitcode:`) after the JSON when only stdout was captured.
pub(crate) fn is_wrapper_output(bytes: &[u8]) -> bool {
    if bytes.trim_ascii_start().starts_with(b"[command]") {
        return true;
    }
    // Only a document that is not JSON as a whole can carry the trailer: a look at its
    // last line, so that a plan pays nothing.
    let text = bytes.trim_ascii_end();
    let last = memchr::memrchr(b'\n', text).map_or(text, |at| &text[at + 1..]);
    last.starts_with(b"::debug::") || last.starts_with(b"::set-output ")
}

/// The binary plan's path as a shell word for the hint: as given when it needs no quoting,
/// else in single quotes; standard input has no path to give.
fn binary_plan_arg(path: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "._-/+:@%,".contains(c);
    match path {
        "-" => "PLANFILE".to_string(),
        _ if !path.starts_with('-') && path.chars().all(plain) => path.to_string(),
        _ => format!("'{}'", path.replace('\'', "'\\''")),
    }
}

/// Finds `format_version` without caring about the rest of the document's shape.
fn probe_version(text: &str) -> Option<String> {
    #[derive(Deserialize)]
    struct Probe {
        format_version: Option<String>,
    }
    serde_json::from_str::<Probe>(text)
        .ok()
        .and_then(|p| p.format_version)
}

fn check_version(path: &str, version: &str) -> Result<()> {
    let major = version
        .split('.')
        .next()
        .and_then(|m| m.parse::<u64>().ok());
    match major {
        Some(major) if major <= SUPPORTED_MAJOR => Ok(()),
        Some(_) => Err(InputError::input(
            path,
            format!(
                "plan format_version {version} is not supported (this planmark reads 0.x and 1.x); upgrade planmark"
            ),
        )),
        None => Err(InputError::input(
            path,
            format!("format_version {version:?} is not a MAJOR.MINOR version; is this a Terraform plan?"),
        )),
    }
}

/// Explains a document without `format_version`: state files are the usual mistake.
fn missing_version_problem(text: &str) -> String {
    #[derive(Deserialize)]
    struct StateProbe {
        lineage: Option<serde::de::IgnoredAny>,
        serial: Option<serde::de::IgnoredAny>,
    }
    match serde_json::from_str::<StateProbe>(text) {
        Ok(p) if p.lineage.is_some() || p.serial.is_some() => {
            "is a Terraform state file, not a plan; run `terraform plan -out=tfplan` then `terraform show -json tfplan`".to_string()
        }
        _ => "has no format_version, so it is not `terraform show -json` plan output; run `terraform show -json tfplan > plan.json`".to_string(),
    }
}

/// What a document that is not a plan looks like, or `None` when it is one: a plan has
/// at least one member that every plan of its format has (`planned_values` and
/// `configuration` since 0.12, `errored` since 1.6, `applyable`/`complete` since 1.8),
/// or one only plans have.
fn not_a_plan(text: &str) -> Option<&'static str> {
    #[derive(Deserialize)]
    struct Shape {
        format_version: Option<serde::de::IgnoredAny>,
        #[serde(rename = "terraform_version")]
        _terraform_version: Option<serde::de::IgnoredAny>,
        values: Option<serde::de::IgnoredAny>,
        provider_schemas: Option<serde::de::IgnoredAny>,
        planned_values: Option<serde::de::IgnoredAny>,
        prior_state: Option<serde::de::IgnoredAny>,
        resource_changes: Option<serde::de::IgnoredAny>,
        output_changes: Option<serde::de::IgnoredAny>,
        resource_drift: Option<serde::de::IgnoredAny>,
        configuration: Option<serde::de::IgnoredAny>,
        errored: Option<serde::de::IgnoredAny>,
        action_invocations: Option<serde::de::IgnoredAny>,
        #[serde(flatten)]
        others: BTreeMap<String, serde::de::IgnoredAny>,
    }
    let s: Shape = serde_json::from_str(text).ok()?;
    let plan = s.planned_values.is_some()
        || s.prior_state.is_some()
        || s.resource_changes.is_some()
        || s.output_changes.is_some()
        || s.resource_drift.is_some()
        || s.configuration.is_some()
        || s.errored.is_some()
        || s.action_invocations.is_some();
    if plan {
        return None;
    }
    Some(if s.provider_schemas.is_some() {
        "is provider schemas (`terraform providers schema -json`), not a plan; give it with `--schemas`, and the plan from `terraform show -json tfplan` as PLAN"
    } else if s.values.is_some() {
        "is Terraform state JSON, not a plan; run `terraform plan -out=tfplan` then `terraform show -json tfplan`"
    } else if s.others.is_empty() && s.format_version.is_some() {
        "is what `terraform show -json` prints without a plan file and with no state: did you forget the plan file? run `terraform show -json tfplan`"
    } else {
        "has none of the members every plan has (`planned_values`, `configuration`, `resource_changes`); expected the output of `terraform show -json tfplan`"
    })
}

/// What a `terraform plan -json` log line starts with (Terraform writes its keys sorted).
fn is_json_log(text: &str) -> bool {
    let text = text.trim_start();
    text.starts_with(r#"{"@level""#) || text.starts_with(r#"{"@message""#)
}

/// The member a serde message says is missing, and which Terraform writes it: every field
/// the model requires is one that every Terraform since 0.12 writes (the others default).
fn missing_field(message: &str) -> Option<(&str, &'static str)> {
    let name = message.strip_prefix("missing field `")?.split('`').next()?;
    let writer = match name {
        "change" => "every Terraform since 0.12 (format 0.1)",
        "resource_change" => "every Terraform since 1.9 (deferred changes)",
        "address" => "every Terraform since 1.3 (checks)",
        _ => "Terraform",
    };
    Some((name, writer))
}

fn describe_json_error(
    path: &str,
    text: &str,
    err: serde_path_to_error::Error<serde_json::Error>,
) -> InputError {
    let field = err.path().to_string();
    let inner = err.into_inner();
    let problem = match inner.classify() {
        serde_json::error::Category::Eof => format!(
            "is truncated: the JSON ends early (line {}, column {}); regenerate it with `terraform show -json tfplan`",
            inner.line(),
            inner.column()
        ),
        serde_json::error::Category::Syntax => {
            if text.trim_start().starts_with('[') {
                ARRAY_PROBLEM.to_string()
            } else {
                format!("is not valid JSON: {inner}")
            }
        }
        serde_json::error::Category::Data => {
            // serde quotes the offending value: keep only its kind.
            let inner = without_quoted_value(&inner.to_string());
            match missing_field(&inner) {
                _ if field == "." || field.is_empty() => format!("is not a plan object: {inner}; expected the output of `terraform show -json tfplan`"),
                Some((name, writer)) => format!(
                    "field `{field}` has no `{name}`, which {writer} writes; regenerate the plan with `terraform show -json tfplan` (a tool that rewrote the JSON may have dropped it)"
                ),
                None => format!("field `{field}` has the wrong type: {inner}"),
            }
        }
        serde_json::error::Category::Io => format!("cannot be read: {inner}"),
    };
    InputError::input(path, problem)
}
