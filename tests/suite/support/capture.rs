//! Stripping a `terraform plan` capture down to what `terraform show` prints.

/// The horizontal rule Terraform prints at 78 columns: 77 × U+2500.
pub fn horizontal_rule() -> String {
    "─".repeat(77)
}

/// Messages of the UI hook (not the renderer) that `terraform plan` prints
/// before the plan, one per line, as `<address>: <message>`.
const HOOK_MARKERS: &[&str] = &[
    ": Refreshing state...",
    ": Reading...",
    ": Read complete after ",
    ": Still reading... ",
    ": Opening...",
    ": Opening complete after ",
    ": Closing...",
    ": Closing complete after ",
];

/// Paragraphs `terraform plan` prints after its final horizontal rule
/// (`views.OperationHuman.PlanNextStep`).
const FOOTER_STARTS: &[&str] = &[
    "Saved the plan to: ",
    "Note: You didn't use the -out option",
    "Terraform has generated configuration and written it to ",
];

/// Turns a captured `terraform plan` stdout (the equivalence tests' `plan`
/// file) into exactly what the renderer prints, i.e. what `terraform show
/// PLANFILE` prints. The rule, worked out on all 100 corpus captures:
///
/// 1. Drop the leading UI-hook lines (`<addr>: Refreshing state... [id=…]`,
///    `Reading...`, …). Nothing else is dropped at the top: the blank line
///    after them is the renderer's own, because every renderer section
///    starts with `\n` (legend, drift note, "No changes", outputs, …). So the
///    result must start with `\n`, with or without hook lines.
/// 2. If the **last** horizontal rule is followed by `\n` and a known footer
///    paragraph ("Saved the plan to: …"), cut from the `\n` that starts the
///    rule (`format.HorizontalRule` prints `\n` + rule). The renderer's last
///    line ("Plan: …", the refresh-only paragraph, the outputs hint, the
///    no-changes paragraph) keeps its own newline. A rule not followed by a
///    footer (the renderer's rule after the drift section) is kept.
///
/// Refresh-only plans with nothing to apply (`moved_with_refresh_only`) and
/// no-change plans have no footer at all; the result is then the capture minus
/// the hook lines.
pub fn strip_non_renderer(plan_capture: &str) -> Result<String, String> {
    let mut rest = plan_capture;
    while let Some((first, tail)) = rest.split_once('\n') {
        let is_hook = !first.starts_with(' ') && HOOK_MARKERS.iter().any(|m| first.contains(m));
        if !is_hook {
            break;
        }
        rest = tail;
    }
    if !rest.starts_with('\n') {
        let line = rest.lines().next().unwrap_or("");
        return Err(format!(
            "after the UI-hook lines the text should start with the renderer's empty line, \
             found {line:?}"
        ));
    }
    let marker = format!("\n{}\n", horizontal_rule());
    if let Some(at) = rest.rfind(&marker) {
        let after = &rest[at + marker.len()..];
        let is_footer = after
            .strip_prefix('\n')
            .is_some_and(|a| FOOTER_STARTS.iter().any(|f| a.starts_with(f)));
        if is_footer {
            return Ok(rest[..at].to_owned());
        }
    }
    Ok(rest.to_owned())
}
