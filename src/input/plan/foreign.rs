//! Input stage, plan model: what a file given as the plan is when it is one of Terraform's
//! other outputs — a `plan -json` or `apply -json` log, or the human text of `terraform
//! plan`, `show` or `apply` — so that the error says which flag takes it.
//!
//! Contract: each function looks only at text that has already failed to be a plan, and
//! answers with the one-line problem to report, or `None` when the text is not that kind.

use serde::Deserialize;

/// Which run a JSON-lines log comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Run {
    Plan,
    Apply,
    /// Both streams start alike: a log with no line only one of them writes.
    Either,
}

/// What a `terraform plan -json` or `apply -json` log given as the plan is, and where it
/// goes instead.
pub(super) fn log_problem(text: &str) -> String {
    match run_of_log(text) {
        Run::Apply => "is a `terraform apply -json` log (JSON lines with `@level` and `@message`), not a plan; give it with `--applied`, and the plan from `terraform show -json tfplan` as PLAN".to_string(),
        Run::Plan => "is a `terraform plan -json` log (JSON lines with `@level` and `@message`), not a plan; give it with `--log`, and the plan from `terraform show -json tfplan` as PLAN".to_string(),
        Run::Either => "is a `terraform plan -json` or `apply -json` log (JSON lines with `@level` and `@message`), not a plan; give a plan's log with `--log` (a failed plan's with `--failed`), an apply's with `--applied`, and the plan from `terraform show -json tfplan` as PLAN".to_string(),
    }
}

/// Tells the runs apart by what only an apply writes (`apply_start`, `apply_progress`,
/// `apply_complete`, `apply_errored`, a `change_summary` whose operation is `apply` or
/// `destroy`) and the plan's own summary: an apply writes the plan's messages first, so a
/// log with neither may be either.
fn run_of_log(text: &str) -> Run {
    #[derive(Deserialize)]
    struct Changes<'a> {
        #[serde(borrow)]
        operation: Option<&'a str>,
    }
    #[derive(Deserialize)]
    struct Line<'a> {
        #[serde(borrow, rename = "type")]
        kind: Option<&'a str>,
        #[serde(borrow)]
        changes: Option<Changes<'a>>,
    }
    let mut planned = false;
    for line in text.lines() {
        let Ok(line) = serde_json::from_str::<Line<'_>>(line) else {
            continue;
        };
        let operation = line.changes.and_then(|c| c.operation);
        match (line.kind, operation) {
            (Some("apply_start" | "apply_progress" | "apply_complete" | "apply_errored"), _)
            | (Some("change_summary"), Some("apply" | "destroy")) => return Run::Apply,
            (Some("change_summary"), Some("plan")) => planned = true,
            _ => {}
        }
    }
    match planned {
        true => Run::Plan,
        false => Run::Either,
    }
}

/// Lines only Terraform's (or OpenTofu's) human text output of a plan (or `show`) has.
const PLAN_TEXT_LINES: [&str; 8] = [
    "used the selected providers to generate the following execution",
    "will perform the following actions:",
    "No changes. Your infrastructure matches the configuration.",
    "No changes. Your infrastructure still matches the configuration.",
    "Changes to Outputs:",
    "Objects have changed outside of ",
    " to add, ",
    ": Refreshing state...",
];

/// Lines only the human text output of an apply has.
const APPLY_TEXT_LINES: [&str; 8] = [
    "Apply complete! Resources: ",
    "Destroy complete! Resources: ",
    ": Creating...",
    ": Destroying...",
    ": Modifying...",
    ": Creation complete after ",
    ": Destruction complete after ",
    ": Modifications complete after ",
];

/// What Terraform's human text given as the plan is, or `None` when `text` is not that:
/// its plan or show output (say that planmark reads `show -json`), or an apply's (which
/// `--applied` takes).
pub(super) fn text_output_problem(text: &str) -> Option<String> {
    // The first lines say it; a huge file is not read to its end.
    let head = match text.char_indices().nth(64 * 1024) {
        Some((at, _)) => &text[..at],
        None => text,
    };
    let head = &without_colours(head);
    let diagnostic = head.lines().any(|line| {
        let line = line.trim_start_matches(['│', '╷', ' ']);
        line.starts_with("Error: ") || line.starts_with("Warning: ")
    });
    let plan = PLAN_TEXT_LINES.iter().any(|line| head.contains(line));
    let apply = APPLY_TEXT_LINES.iter().any(|line| head.contains(line));
    if !plan && !apply && !diagnostic {
        return None;
    }
    let reads = "planmark reads the plan as JSON: `terraform show -json tfplan > plan.json`";
    Some(if apply {
        format!("is Terraform's text output of an apply, not a plan; {reads}, and an apply's log with `--applied`")
    } else if !plan {
        format!("is Terraform's text output (errors or warnings), not a plan; {reads}, and a failed plan's log with `--failed`")
    } else {
        format!("is Terraform's text output (`terraform plan` or `terraform show` without `-json`), not a plan; {reads}")
    })
}

/// `text` without its terminal colour codes (`ESC [ … m`), as Terraform writes them when
/// run without `-no-color`.
fn without_colours(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("\u{1b}[") {
        out.push_str(&rest[..at]);
        let code = &rest[at + 2..];
        // The code ends with its final byte (`m`); a character past ASCII is no final
        // byte and stays (slicing into it would split the character).
        let end = match code.find(|c: char| !(c.is_ascii_digit() || c == ';')) {
            Some(e) if code.as_bytes()[e].is_ascii() => e + 1,
            Some(e) => e,
            None => code.len(),
        };
        rest = &code[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs_of_a_plan_and_an_apply_are_told_apart() {
        let version = r#"{"@level":"info","@message":"Terraform 1.9.0","type":"version"}"#;
        let planned = r#"{"@level":"info","@message":"Plan: 1 to add","changes":{"add":1,"operation":"plan"},"type":"change_summary"}"#;
        let applied = r#"{"@level":"info","@message":"x: Creating...","type":"apply_start"}"#;
        let summary = r#"{"@level":"info","@message":"Apply complete!","changes":{"add":1,"operation":"apply"},"type":"change_summary"}"#;
        assert_eq!(run_of_log(version), Run::Either);
        assert_eq!(run_of_log(&format!("{version}\n{planned}\n")), Run::Plan);
        for apply in [applied, summary] {
            let log = format!("{version}\n{planned}\n{apply}\n");
            assert_eq!(run_of_log(&log), Run::Apply);
        }
    }

    #[test]
    fn a_colour_code_cut_short_by_any_character_never_splits_it() {
        assert_eq!(without_colours("a\u{1b}[31mb\u{1b}[0m"), "ab");
        assert_eq!(without_colours("\u{1b}[é"), "é");
        assert_eq!(without_colours("\u{1b}[1;€x"), "€x");
        assert_eq!(without_colours("x\u{1b}["), "x");
    }

    #[test]
    fn terraform_text_is_told_from_other_text() {
        for (text, says) in [
            ("\nTerraform used the selected providers to generate the following execution\nplan.", "`terraform show` without"),
            ("\nNo changes. Your infrastructure matches the configuration.\n", "`terraform show` without"),
            ("null_resource.a: Creating...\nnull_resource.a: Creation complete after 0s\n", "`--applied`"),
            ("╷\n│ Error: Reference to undeclared resource\n", "`--failed`"),
            ("\u{1b}[31m│\u{1b}[0m \u{1b}[0m\u{1b}[1m\u{1b}[31mError: \u{1b}[0mBad\n", "`--failed`"),
        ] {
            let problem = text_output_problem(text).unwrap();
            assert!(problem.contains(says), "{problem}");
            assert!(problem.contains("terraform show -json"), "{problem}");
        }
        for other in ["hello", "key = \"value\"\n", "<html>", "Plan"] {
            assert_eq!(text_output_problem(other), None, "{other}");
        }
    }
}
