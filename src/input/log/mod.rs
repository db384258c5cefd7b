//! Input stage: Terraform's own output of `terraform plan` →
//! typed [`Diagnostic`]s, for `--failed LOG` and `--log FILE`; the output of `terraform
//! apply` is read on top of this by `apply` (`--applied LOG`).
//!
//! Contract: bytes in, a [`PlanLog`] out, no I/O. Two formats are read: the machine-readable
//! stream of `terraform plan -json` (one JSON object per line; lines that are not JSON, such
//! as a wrapper's, are skipped when at least one line is JSON) and the plain text Terraform
//! prints (ANSI colours and the `╷ │ ╵` boxes removed; each `Error:`/`Warning:` block kept as
//! printed, or the log's last lines when there is none). Nothing is escaped or shortened
//! here: every string is hostile and the renderers escape and bound it.

pub(crate) mod apply;

use serde::Deserialize;
use serde_json::Value as Json;

/// Lines kept from the end of a plain-text log that has no `Error:`/`Warning:` block.
pub(crate) const TAIL_LINES: usize = 40;
/// A plain-text block without a closing box ends after this many lines (a log whose
/// layout we do not recognise must not turn into one endless block).
const BLOCK_LINES: usize = 80;

/// Why a log cannot be read.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LogError {
    /// NUL bytes: a binary file (a plan file, an archive), not Terraform's output.
    #[error("is a binary file, not Terraform output; pass what terraform plan printed (terraform plan -json > plan.log, or its plain text)")]
    Binary,
    /// Not UTF-8.
    #[error(
        "is not UTF-8 text; pass what terraform plan printed (terraform plan -json > plan.log)"
    )]
    NotText,
    /// A `diagnostic` message of the JSON stream that does not have the documented shape.
    #[error("line {line}: a diagnostic message that cannot be read ({problem}); pass the unmodified output of terraform plan -json")]
    Diagnostic {
        /// 1-based line number.
        line: usize,
        /// What is wrong (never the line's content).
        problem: String,
    },
}

/// How the log was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LogFormat {
    /// `terraform plan -json`.
    Json,
    /// Plain text.
    Text,
}

/// How serious a diagnostic is, as Terraform labels it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// An error: the plan failed.
    Error,
    /// A warning.
    Warning,
}

impl Severity {
    /// The word Terraform and the comment use for it: `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// Where in the configuration a diagnostic points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SourceRange {
    /// Configuration file, relative to the working directory.
    pub(crate) filename: String,
    /// 1-based line.
    pub(crate) line: u64,
    /// 1-based column.
    pub(crate) column: u64,
}

/// One error or warning.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// Whether it failed the plan or only warns.
    pub severity: Severity,
    /// One-line summary.
    pub summary: String,
    /// Explanation (may span lines; empty when none).
    pub(crate) detail: String,
    /// The resource or check instance it concerns (newer Terraform sets it, e.g. for
    /// check block assertions).
    pub(crate) address: Option<String>,
    /// Where in the configuration.
    pub(crate) range: Option<SourceRange>,
    /// The configuration line it points at.
    pub(crate) code: Option<String>,
    /// A plain-text log's block after its first line, as Terraform printed it (colours
    /// and boxes removed): location, source line and detail.
    pub text: Option<String>,
}

/// What a log says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanLog {
    /// How it was written.
    pub(crate) format: LogFormat,
    /// Errors and warnings in log order.
    pub diagnostics: Vec<Diagnostic>,
    /// A plain-text log without any `Error:`/`Warning:` block: its last lines.
    pub(crate) tail: Vec<String>,
    /// Lines of a JSON stream that were not JSON and were skipped.
    pub(crate) skipped_lines: usize,
    /// The Terraform version the stream names (its `version` message).
    pub terraform_version: Option<String>,
}

impl PlanLog {
    /// Number of diagnostics of `severity`.
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }
}

/// Reads a log in either format.
pub fn parse_log(bytes: &[u8]) -> Result<PlanLog, LogError> {
    let text = log_text(bytes)?;
    let stream = read_json_stream(text, |_, _, _| {})?;
    Ok(stream.unwrap_or_else(|| parse_text_lines(&text_lines(text))))
}

/// A log's text: not binary, UTF-8, without a byte-order mark.
fn log_text(bytes: &[u8]) -> Result<&str, LogError> {
    if bytes.contains(&0) {
        return Err(LogError::Binary);
    }
    let text = std::str::from_utf8(bytes).map_err(|_| LogError::NotText)?;
    Ok(text.strip_prefix('\u{FEFF}').unwrap_or(text))
}

/// The `diagnostic` object of a JSON message, as Terraform's `views/json` writes it.
#[derive(Deserialize)]
struct JsonDiagnostic {
    severity: String,
    summary: String,
    #[serde(default)]
    detail: String,
    #[serde(default)]
    address: Option<String>,
    #[serde(default)]
    range: Option<JsonRange>,
    #[serde(default)]
    snippet: Option<JsonSnippet>,
}

#[derive(Deserialize)]
struct JsonRange {
    filename: String,
    start: JsonPos,
}

#[derive(Deserialize)]
struct JsonPos {
    line: u64,
    column: u64,
}

#[derive(Deserialize)]
struct JsonSnippet {
    code: String,
}

/// Reads a JSON stream: keeps its diagnostics and version, and hands every other message
/// to `other` (its 1-based line, its `type`, the message); `None` when no line is a JSON
/// message (plain text).
pub(super) fn read_json_stream(
    text: &str,
    mut other: impl FnMut(usize, &str, &Json),
) -> Result<Option<PlanLog>, LogError> {
    let mut log = PlanLog {
        format: LogFormat::Json,
        diagnostics: Vec::new(),
        tail: Vec::new(),
        skipped_lines: 0,
        terraform_version: None,
    };
    let mut messages = 0;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        // A message is an object with Terraform's `@level`/`type` fields; anything else
        // (a wrapper's output, a stray `{`) is not part of the stream.
        let message = line
            .starts_with('{')
            .then(|| serde_json::from_str::<Json>(line).ok())
            .flatten()
            .filter(|m| m.get("@level").is_some() || m.get("type").is_some());
        let Some(message) = message else {
            log.skipped_lines += 1;
            continue;
        };
        messages += 1;
        match message.get("type").and_then(Json::as_str) {
            Some("version") => {
                log.terraform_version = message
                    .get("terraform")
                    .and_then(Json::as_str)
                    .map(str::to_string);
            }
            Some("diagnostic") => log.diagnostics.push(diagnostic(&message, i + 1)?),
            kind => other(i + 1, kind.unwrap_or(""), &message),
        }
    }
    Ok((messages > 0).then_some(log))
}

fn diagnostic(message: &Json, line: usize) -> Result<Diagnostic, LogError> {
    let problem = |problem: String| LogError::Diagnostic { line, problem };
    let raw = message
        .get("diagnostic")
        .ok_or_else(|| problem("no `diagnostic` object".into()))?;
    let d = JsonDiagnostic::deserialize(raw).map_err(|e| {
        // serde names a missing field (our own words) but quotes the value of a mistyped
        // one, and messages never quote log content.
        let text = e.to_string();
        problem(if text.starts_with("missing field") {
            text
        } else {
            "a field has the wrong type".to_string()
        })
    })?;
    let severity = match d.severity.as_str() {
        "error" => Severity::Error,
        "warning" => Severity::Warning,
        _ => return Err(problem("severity is neither `error` nor `warning`".into())),
    };
    Ok(Diagnostic {
        severity,
        summary: d.summary,
        detail: d.detail,
        address: d.address.filter(|a| !a.is_empty()),
        range: d.range.map(|r| SourceRange {
            filename: r.filename,
            line: r.start.line,
            column: r.start.column,
        }),
        code: d.snippet.map(|s| s.code).filter(|c| !c.trim().is_empty()),
        text: None,
    })
}

/// Removes ANSI escape sequences (colours: CSI `ESC [ … final`; titles: OSC `ESC ] … BEL`).
pub(crate) fn strip_ansi(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\u{1b}' {
            out.push(c);
            continue;
        }
        match chars.peek() {
            Some('[') => {
                chars.next();
                // Parameters and intermediates, then one final byte in @..~.
                for c in chars.by_ref() {
                    if ('@'..='~').contains(&c) {
                        break;
                    }
                }
            }
            Some(']') => {
                chars.next();
                while let Some(c) = chars.next() {
                    if c == '\u{7}' {
                        break;
                    }
                    if c == '\u{1b}' && chars.peek() == Some(&'\\') {
                        chars.next();
                        break;
                    }
                }
            }
            // A lone ESC or a two-character sequence: drop the ESC and its selector.
            Some(_) => {
                chars.next();
            }
            None => {}
        }
    }
    out
}

/// A block's severity from its first line (`Error: …` / `Warning: …`), and the summary.
fn block_start(line: &str) -> Option<(Severity, &str)> {
    let line = line.trim_start();
    [("Error:", Severity::Error), ("Warning:", Severity::Warning)]
        .into_iter()
        .find_map(|(label, severity)| Some((severity, line.strip_prefix(label)?.trim())))
}

fn text_diagnostic(lines: &[String]) -> Option<Diagnostic> {
    let first = lines.iter().position(|l| block_start(l).is_some())?;
    let (severity, summary) = block_start(&lines[first])?;
    // The rest of the block (the first line is the summary): location, source, detail.
    let mut body: Vec<&str> = lines[first + 1..]
        .iter()
        .map(String::as_str)
        .skip_while(|l| l.trim().is_empty())
        .collect();
    while body.last().is_some_and(|l| l.trim().is_empty()) {
        body.pop();
    }
    Some(Diagnostic {
        severity,
        summary: summary.to_string(),
        detail: String::new(),
        address: None,
        range: None,
        code: None,
        text: (!body.is_empty()).then(|| body.join("\n")),
    })
}

/// A plain-text log's lines, colours removed and trailing blanks trimmed.
pub(super) fn text_lines(text: &str) -> Vec<String> {
    strip_ansi(text)
        .lines()
        .map(|l| l.trim_end().to_string())
        .collect()
}

/// Plain `terraform plan` output, as the lines of [`text_lines`]: boxed blocks (`╷`, `│ `,
/// `╵`, Terraform 0.15 and later with colours, every version since 1.1), else unboxed
/// `Error:`/`Warning:` paragraphs.
pub(super) fn parse_text_lines(lines: &[String]) -> PlanLog {
    let mut diagnostics = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_start();
        if line.starts_with('╷') {
            // A box: `│ `-prefixed lines until `╵`.
            let mut block = Vec::new();
            i += 1;
            while i < lines.len() && !lines[i].trim_start().starts_with('╵') {
                let inner = lines[i].trim_start();
                let inner = inner.strip_prefix('│').unwrap_or(inner);
                block.push(inner.strip_prefix(' ').unwrap_or(inner).to_string());
                i += 1;
            }
            diagnostics.extend(text_diagnostic(&block));
            i += 1;
            continue;
        }
        if block_start(line).is_some() {
            // Unboxed: up to the next block, a box, two blank lines in a row, or the cap.
            let start = i;
            i += 1;
            let mut blanks = 0;
            while i < lines.len() && i - start < BLOCK_LINES {
                let next = lines[i].trim_start();
                if block_start(next).is_some() || next.starts_with('╷') {
                    break;
                }
                blanks = if next.is_empty() { blanks + 1 } else { 0 };
                if blanks == 2 {
                    break;
                }
                i += 1;
            }
            diagnostics.extend(text_diagnostic(&lines[start..i]));
            continue;
        }
        i += 1;
    }
    let tail = if diagnostics.is_empty() {
        let end = lines
            .iter()
            .rposition(|l| !l.trim().is_empty())
            .map_or(0, |i| i + 1);
        lines[end.saturating_sub(TAIL_LINES)..end].to_vec()
    } else {
        Vec::new()
    };
    PlanLog {
        format: LogFormat::Text,
        diagnostics,
        tail,
        skipped_lines: 0,
        terraform_version: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_stream_diagnostics_with_range_snippet_and_address() {
        let log = concat!(
            "{\"@level\":\"info\",\"type\":\"version\",\"terraform\":\"1.9.0\"}\n",
            "::group::wrapper noise\n",
            "{\"@level\":\"warn\",\"type\":\"diagnostic\",\"diagnostic\":{\"severity\":\"warning\",",
            "\"summary\":\"Check block assertion failed\",\"detail\":\"too slow\",",
            "\"address\":\"check.health\",\"range\":{\"filename\":\"main.tf\",",
            "\"start\":{\"line\":4,\"column\":5,\"byte\":1},\"end\":{\"line\":4,\"column\":9,\"byte\":5}},",
            "\"snippet\":{\"code\":\"  assert {\",\"start_line\":4}}}\n",
        );
        let log = parse_log(log.as_bytes()).unwrap();
        assert_eq!(log.format, LogFormat::Json);
        assert_eq!(log.skipped_lines, 1);
        assert_eq!(log.terraform_version.as_deref(), Some("1.9.0"));
        let d = &log.diagnostics[0];
        assert_eq!(d.severity, Severity::Warning);
        assert_eq!(d.address.as_deref(), Some("check.health"));
        assert_eq!(d.range.as_ref().map(|r| (r.line, r.column)), Some((4, 5)));
        assert_eq!(d.code.as_deref(), Some("  assert {"));
    }

    #[test]
    fn a_broken_diagnostic_names_its_line() {
        let log = "{\"type\":\"version\"}\n{\"@level\":\"error\",\"type\":\"diagnostic\",\"diagnostic\":{\"severity\":\"fatal\",\"summary\":\"x\"}}\n";
        let err = parse_log(log.as_bytes()).unwrap_err();
        assert!(matches!(err, LogError::Diagnostic { line: 2, .. }), "{err}");
        let err = parse_log(b"{\"type\":\"diagnostic\"}").unwrap_err();
        assert!(err.to_string().contains("no `diagnostic`"), "{err}");
    }

    #[test]
    fn binary_and_non_utf8_are_refused() {
        assert_eq!(parse_log(b"PK\x03\x04\0\0"), Err(LogError::Binary));
        assert_eq!(parse_log(b"caf\xe9"), Err(LogError::NotText));
    }

    #[test]
    fn boxed_coloured_blocks_are_read() {
        let text = "Plan: 1 to add\n\x1b[31m╷\x1b[0m\n\x1b[31m│\x1b[0m \x1b[1mError: \x1b[0mBad thing\n\x1b[31m│\x1b[0m \n\x1b[31m│\x1b[0m detail line\n\x1b[31m╵\x1b[0m\n";
        let log = parse_log(text.as_bytes()).unwrap();
        assert_eq!(log.format, LogFormat::Text);
        assert_eq!(log.diagnostics.len(), 1);
        let d = &log.diagnostics[0];
        assert_eq!(
            (d.severity, d.summary.as_str()),
            (Severity::Error, "Bad thing")
        );
        assert_eq!(d.text.as_deref(), Some("detail line"));
    }

    #[test]
    fn unboxed_blocks_end_at_the_next_block_or_two_blank_lines() {
        let text =
            "Warning: W\n\nsome detail\n\nmore\nError: E\n\n  on main.tf line 1\n\n\nafterwards\n";
        let log = parse_log(text.as_bytes()).unwrap();
        let texts: Vec<_> = log
            .diagnostics
            .iter()
            .map(|d| d.text.clone().unwrap())
            .collect();
        assert_eq!(texts, ["some detail\n\nmore", "  on main.tf line 1"]);
    }

    #[test]
    fn text_without_blocks_keeps_its_tail() {
        let text: String = (1..=100).map(|i| format!("line {i}\n")).collect();
        let log = parse_log(format!("{text}\n\n").as_bytes()).unwrap();
        assert!(log.diagnostics.is_empty());
        assert_eq!(log.tail.len(), TAIL_LINES);
        assert_eq!(log.tail.last().map(String::as_str), Some("line 100"));
    }

    #[test]
    fn ansi_sequences_are_removed() {
        assert_eq!(
            strip_ansi("\x1b[1;31mred\x1b[0m \x1b]0;title\x07ok"),
            "red ok"
        );
    }
}
