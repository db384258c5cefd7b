//! Lines, their longest common subsequence and match ratio, resource header lines, and a
//! compact readable diff.

use super::*;

/// Lines of `text` split on `\n` only (a `\r` stays visible in reports); a
/// final newline does not produce an extra empty line.
pub fn split_lines(text: &str) -> Vec<&str> {
    if text.is_empty() {
        return Vec::new();
    }
    text.strip_suffix('\n')
        .unwrap_or(text)
        .split('\n')
        .collect()
}

/// One step of a line alignment: indexes into the expected / actual lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edit {
    Same(usize, usize),
    Removed(usize),
    Added(usize),
}

/// Suffix LCS table: `t[i * (m + 1) + j]` = LCS(a[i..], b[j..]).
fn lcs_table(a: &[&str], b: &[&str]) -> Vec<u32> {
    let (n, m) = (a.len(), b.len());
    let w = m + 1;
    let mut t = vec![0u32; (n + 1) * w];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            t[i * w + j] = if a[i] == b[j] {
                t[(i + 1) * w + j + 1] + 1
            } else {
                t[(i + 1) * w + j].max(t[i * w + j + 1])
            };
        }
    }
    t
}

pub fn lcs_len(a: &[&str], b: &[&str]) -> usize {
    lcs_table(a, b)[0] as usize
}

/// A longest-common-subsequence alignment; within a gap removals come first.
pub fn align(a: &[&str], b: &[&str]) -> Vec<Edit> {
    let t = lcs_table(a, b);
    let w = b.len() + 1;
    let (mut i, mut j) = (0, 0);
    let mut edits = Vec::with_capacity(a.len() + b.len());
    while i < a.len() || j < b.len() {
        if i < a.len() && j < b.len() && a[i] == b[j] {
            edits.push(Edit::Same(i, j));
            i += 1;
            j += 1;
        } else if j == b.len() || (i < a.len() && t[(i + 1) * w + j] >= t[i * w + j + 1]) {
            edits.push(Edit::Removed(i));
            i += 1;
        } else {
            edits.push(Edit::Added(j));
            j += 1;
        }
    }
    edits
}

/// `(LCS(expected lines, actual lines), number of expected lines)`.
pub fn line_match(expected: &str, actual: &str) -> (usize, usize) {
    let (e, a) = (split_lines(expected), split_lines(actual));
    (lcs_len(&e, &a), e.len())
}

pub fn ratio(matched: usize, total: usize) -> f64 {
    if total == 0 {
        1.0
    } else {
        matched as f64 / total as f64
    }
}

/// A top-level comment: `  # <addr> will be created`, its reason lines
/// (`  # (because … is not in configuration)`, `  # (moved from …)`, …), the
/// forget / create-then-forget lines that use one leading space, deferred
/// (`  # <addr> was deferred`) and invoked-action headers. Comments inside a
/// body (hidden counters, sensitivity warnings) are indented 6+ spaces, and
/// outputs never have top-level comments in the newest renderer.
pub fn is_resource_comment(line: &str) -> bool {
    line.starts_with(" # ") || line.starts_with("  # ")
}

/// The declaration line under the comments: a 2–4 character action symbol
/// field (`  +`, `-/+`, ` <=`, three spaces for no-op, ` .`, ` +/.`) and one
/// space, then `resource "` or `data "`. Body lines are indented further, so a
/// block or attribute called `resource` cannot match.
pub fn is_declaration(line: &str) -> bool {
    let rest = line.trim_start_matches([' ', '+', '-', '~', '/', '<', '=', '.', '?']);
    let prefix = &line[..line.len() - rest.len()];
    (3..=5).contains(&prefix.len())
        && prefix.ends_with(' ')
        && (rest.starts_with("resource \"") || rest.starts_with("data \""))
}

/// Every resource header line of a rendered plan, in order: the top-level
/// comment lines and the full declaration line (symbol, type, name, and the
/// `{` / `{}` / `{ # forces replacement` tail).
pub fn header_lines(text: &str) -> Vec<String> {
    split_lines(text)
        .into_iter()
        .filter(|l| is_resource_comment(l) || is_declaration(l))
        .map(str::to_owned)
        .collect()
}

pub const MARKER_LEGEND: &str = "(· = trailing space, → = trailing tab, ␍ = carriage return)";

/// The line with its trailing whitespace (and any `\r`) made visible.
pub fn visible(line: &str) -> String {
    let body = line.trim_end_matches([' ', '\t', '\r']);
    let mut s = body.replace('\r', "␍");
    for c in line[body.len()..].chars() {
        s.push(match c {
            ' ' => '·',
            '\t' => '→',
            _ => '␍',
        });
    }
    s
}

/// A compact line diff: `@@` hunk headers with 1-based line numbers, then
/// `-expected` / `+actual` lines, at most `max_lines` of them.
pub fn compact_diff(expected: &str, actual: &str, max_lines: usize) -> String {
    let (e, a) = (split_lines(expected), split_lines(actual));
    let edits = align(&e, &a);
    let mut out = String::new();
    let mut shown = 0;
    let mut total = 0;
    let mut in_hunk = false;
    for (k, edit) in edits.iter().enumerate() {
        let (sign, text) = match *edit {
            Edit::Same(..) => {
                in_hunk = false;
                continue;
            }
            Edit::Removed(i) => ('-', e[i]),
            Edit::Added(j) => ('+', a[j]),
        };
        total += 1;
        if shown >= max_lines {
            continue;
        }
        if !in_hunk {
            // Line numbers where this hunk starts on each side.
            let (mut le, mut la) = (e.len(), a.len());
            for ed in &edits[k..] {
                match *ed {
                    Edit::Removed(i) => le = le.min(i),
                    Edit::Added(j) => la = la.min(j),
                    Edit::Same(i, j) => {
                        le = le.min(i);
                        la = la.min(j);
                        break;
                    }
                }
            }
            let _ = writeln!(
                out,
                "    @@ expected line {}, actual line {} @@",
                le + 1,
                la + 1
            );
            in_hunk = true;
        }
        let _ = writeln!(out, "    {sign}{}", visible(text));
        shown += 1;
    }
    if total > shown {
        let _ = writeln!(out, "    … {} more differing lines", total - shown);
    }
    if actual.is_empty() {
        let _ = writeln!(out, "    (planmark printed nothing)");
    } else if expected.ends_with('\n') != actual.ends_with('\n') {
        let which = if expected.ends_with('\n') {
            "expected"
        } else {
            "actual"
        };
        let _ = writeln!(out, "    (only the {which} text ends with a newline)");
    }
    if out.is_empty() && expected != actual {
        let _ = writeln!(out, "    (texts differ, but not line by line)");
    }
    out
}
