//! Text renderer, Terraform's log: the errors and warnings of `terraform plan`, as
//! Terraform prints them, after the plan's text (`render --format text`).

use crate::input::log::{PlanLog, Severity};

/// The log as plain text, after Terraform's text (`render --format text`).
pub(crate) fn log_text(log: &PlanLog) -> String {
    let mut out = String::new();
    for d in &log.diagnostics {
        out.push('\n');
        let label = match d.severity {
            Severity::Error => "Error",
            Severity::Warning => "Warning",
        };
        out.push_str(&format!("{label}: {}\n", d.summary));
        if let Some(text) = &d.text {
            out.push('\n');
            out.push_str(text);
            out.push('\n');
            continue;
        }
        if let Some(range) = &d.range {
            out.push_str(&format!("\n  on {} line {}", range.filename, range.line));
            if let Some(address) = &d.address {
                out.push_str(&format!(", in {address}"));
            }
            out.push_str(":\n");
            if let Some(code) = &d.code {
                out.push_str(&format!("{:>4}: {code}\n", range.line));
            }
        }
        if !d.detail.is_empty() {
            out.push('\n');
            out.push_str(d.detail.trim_end());
            out.push('\n');
        }
    }
    if !log.tail.is_empty() {
        out.push_str("\nNo Error: or Warning: block was found in the log; its last lines:\n\n");
        out.push_str(&log.tail.join("\n"));
        out.push('\n');
    }
    out
}
