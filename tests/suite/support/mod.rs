//! Helpers shared by the test modules: paths, the golden-text harness (`equivalence`,
//! `corpus`, `opentofu`), and the submodules below.
//!
//! Everything here is plain std (plus `serde_json`, already a dependency of the
//! crate) so the harness adds nothing to `Cargo.toml`.

pub mod bin;
pub mod comment;
pub mod fake_github;
pub mod golden;
pub mod publishing;
pub mod temp;
pub mod tools;

use std::collections::{HashMap, HashSet};
use std::fmt::Write as _;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

// ---------------------------------------------------------------------------
// Paths
// ---------------------------------------------------------------------------

pub fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixtures_dir() -> PathBuf {
    manifest_dir().join("tests/fixtures")
}

/// `../shared` (reference material outside the repository), if present.
pub fn shared_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared"));
    dir.is_dir().then_some(dir)
}

/// Sorted `(name, path)` of the sub-directories of `root` (one per case).
pub fn case_dirs(root: &Path) -> Vec<(String, PathBuf)> {
    let entries =
        std::fs::read_dir(root).unwrap_or_else(|e| panic!("cannot read {}: {e}", root.display()));
    let mut cases: Vec<(String, PathBuf)> = entries
        .map(|e| e.expect("read_dir entry").path())
        .filter(|p| p.is_dir())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    cases.sort();
    cases
}

pub fn read_text(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// Names listed in a list file such as `tests/fixtures/equivalence/BLESSED`:
/// one per line, `#` starts a comment, blank lines ignored.
pub fn read_name_list(path: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Vec::new();
    };
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

// ---------------------------------------------------------------------------
// Running the binary
// ---------------------------------------------------------------------------

/// A hung renderer must not hang `cargo test`.
const RUN_TIMEOUT: Duration = Duration::from_secs(60);

pub struct RunOutput {
    /// `None` when killed by a signal or by the timeout.
    pub code: Option<i32>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub timed_out: bool,
}

impl RunOutput {
    pub fn ok(&self) -> bool {
        self.code == Some(0) && !self.timed_out
    }

    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// One line describing a failed run, for reports.
    pub fn describe_failure(&self) -> String {
        let status = match (self.timed_out, self.code) {
            (true, _) => format!("timed out after {}s", RUN_TIMEOUT.as_secs()),
            (false, Some(c)) => format!("exit code {c}"),
            (false, None) => "killed by a signal".to_owned(),
        };
        let stderr = String::from_utf8_lossy(&self.stderr);
        let first: Vec<&str> = stderr.lines().take(5).collect();
        if first.is_empty() {
            status
        } else {
            format!("{status}; stderr: {}", first.join(" | "))
        }
    }
}

/// `planmark render --format text [--schemas SCHEMAS] PLAN`. No `--mode`: the
/// binary must infer refresh-only / destroy from the JSON like the user would
/// expect.
pub fn run_render(plan: &Path, schemas: Option<&Path>) -> RunOutput {
    run_render_with(plan, schemas, &[])
}

/// [`run_render`] with more options (e.g. `--tool tofu`).
pub fn run_render_with(plan: &Path, schemas: Option<&Path>, options: &[&str]) -> RunOutput {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_planmark"));
    cmd.args(["render", "--format", "text"]);
    if let Some(s) = schemas {
        cmd.arg("--schemas").arg(s);
    }
    cmd.args(options);
    cmd.arg(plan);
    run_with_timeout(cmd)
}

fn run_with_timeout(mut cmd: Command) -> RunOutput {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .env("NO_COLOR", "1")
        // In Actions the output would be wrapped to pause workflow commands.
        .env_remove("GITHUB_ACTIONS");
    let mut child = cmd.spawn().expect("cannot start the planmark binary");
    // Drain both pipes on threads so a chatty child cannot block on a full pipe.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = out.read_to_end(&mut b);
        b
    });
    let err_t = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = err.read_to_end(&mut b);
        b
    });
    let start = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait for planmark") {
            break status;
        }
        if start.elapsed() > RUN_TIMEOUT {
            timed_out = true;
            let _ = child.kill();
            break child.wait().expect("wait for killed planmark");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    RunOutput {
        code: status.code(),
        stdout: out_t.join().unwrap(),
        stderr: err_t.join().unwrap(),
        timed_out,
    }
}

// ---------------------------------------------------------------------------
// Stripping a `terraform plan` capture down to what `terraform show` prints
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Lines, LCS, match ratio
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Resource header lines
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Reports
// ---------------------------------------------------------------------------

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

// ---------------------------------------------------------------------------
// Suites: one run over many cases, one readable report at the end
// ---------------------------------------------------------------------------

/// A rendered-text golden case.
pub struct GoldenCase {
    pub name: String,
    pub plan: PathBuf,
    pub schemas: Option<PathBuf>,
    pub expected: String,
}

/// Renders every case and compares stdout byte for byte. Returns the failure
/// report (or `Ok` with the number of cases checked).
pub fn exact_suite(title: &str, cases: &[GoldenCase]) -> Result<usize, String> {
    exact_suite_with(title, cases, |_| &[])
}

/// [`exact_suite`] rendering each case with the options `options` gives it.
pub fn exact_suite_with(
    title: &str,
    cases: &[GoldenCase],
    options: impl Fn(&GoldenCase) -> &'static [&'static str],
) -> Result<usize, String> {
    let mut failures = Vec::new();
    for case in cases {
        let run = run_render_with(&case.plan, case.schemas.as_deref(), options(case));
        if !run.ok() {
            failures.push((
                case.name.clone(),
                format!("    {}\n", run.describe_failure()),
            ));
        } else if run.stdout != case.expected.as_bytes() {
            let diff = compact_diff(&case.expected, &run.stdout_text(), 30);
            failures.push((case.name.clone(), diff));
        }
    }
    if failures.is_empty() {
        return Ok(cases.len());
    }
    let names: Vec<&str> = failures.iter().map(|(n, _)| n.as_str()).collect();
    let mut report = format!(
        "{title}: {} of {} cases differ: {}\n{MARKER_LEGEND}\n",
        failures.len(),
        cases.len(),
        names.join(", ")
    );
    for (name, detail) in &failures {
        let _ = write!(report, "\n--- {name}\n{detail}");
    }
    Err(report)
}

/// For cases rendered without exact expectations (no schemas, or another
/// Terraform version): header lines must be identical and in order, and the
/// aggregate line-match ratio must reach `min_ratio`.
pub fn fuzzy_suite(title: &str, cases: &[GoldenCase], min_ratio: f64) -> Result<f64, String> {
    let mut rows = Vec::new();
    let mut header_failures = Vec::new();
    let (mut matched_sum, mut total_sum) = (0, 0);
    for case in cases {
        let run = run_render(&case.plan, case.schemas.as_deref());
        let actual = if run.ok() {
            run.stdout_text()
        } else {
            String::new()
        };
        let (matched, total) = line_match(&case.expected, &actual);
        matched_sum += matched;
        total_sum += total;
        let (want, got) = (header_lines(&case.expected), header_lines(&actual));
        let headers_ok = want == got;
        if !headers_ok {
            let mut detail = String::new();
            if !run.ok() {
                let _ = writeln!(detail, "    {}", run.describe_failure());
            }
            let as_text = |v: &[String]| v.iter().map(|l| format!("{l}\n")).collect::<String>();
            detail.push_str(&compact_diff(&as_text(&want), &as_text(&got), 30));
            header_failures.push((case.name.clone(), detail));
        }
        rows.push((case.name.clone(), matched, total, headers_ok, run.ok()));
    }
    let aggregate = ratio(matched_sum, total_sum);
    if header_failures.is_empty() && aggregate >= min_ratio {
        return Ok(aggregate);
    }
    let mut report = format!(
        "{title}: aggregate line match {:.1}% (need ≥ {:.1}%), header mismatches in {} of {} cases\n",
        aggregate * 100.0,
        min_ratio * 100.0,
        header_failures.len(),
        cases.len()
    );
    let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(4).max(4);
    let _ = writeln!(
        report,
        "\n  {:<width$}  {:>9}  {:>6}  headers",
        "case", "lines", "match"
    );
    for (name, matched, total, headers_ok, ran) in &rows {
        let _ = writeln!(
            report,
            "  {name:<width$}  {:>9}  {:>5.1}%  {}{}",
            format!("{matched}/{total}"),
            ratio(*matched, *total) * 100.0,
            if *headers_ok { "ok" } else { "DIFFER" },
            if *ran { "" } else { "  (run failed)" },
        );
    }
    let _ = writeln!(
        report,
        "  {:<width$}  {:>9}  {:>5.1}%",
        "TOTAL",
        format!("{matched_sum}/{total_sum}"),
        aggregate * 100.0
    );
    if !header_failures.is_empty() {
        let _ = writeln!(
            report,
            "\nheader lines (-expected / +actual) {MARKER_LEGEND}"
        );
        for (name, detail) in &header_failures {
            let _ = write!(report, "\n--- {name}\n{detail}");
        }
    }
    Err(report)
}

// ---------------------------------------------------------------------------
// Terraform 1.0.3 (old renderer) → newest renderer normalisation
// ---------------------------------------------------------------------------

/// What the 1.0.3 normalisation needs to know from `plan.json`.
pub struct PlanFacts {
    /// `resource_changes[].address`, in JSON order.
    pub change_addresses: Vec<String>,
    /// Addresses whose change carries an `action_reason`.
    pub with_reason: HashSet<String>,
    /// Every key of `output_changes`, no-op ones included.
    pub output_names: Vec<String>,
}

pub fn plan_facts(plan_json: &str) -> PlanFacts {
    let v: serde_json::Value = serde_json::from_str(plan_json).expect("plan.json is JSON");
    let changes = v["resource_changes"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let change_addresses = changes
        .iter()
        .filter_map(|c| c["address"].as_str().map(str::to_owned))
        .collect();
    let with_reason = changes
        .iter()
        .filter(|c| c.get("action_reason").is_some_and(|r| !r.is_null()))
        .filter_map(|c| c["address"].as_str().map(str::to_owned))
        .collect();
    let output_names = v["output_changes"]
        .as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    PlanFacts {
        change_addresses,
        with_reason,
        output_names,
    }
}

/// Rewrites a Terraform 1.0.3 `terraform show` text (old renderer, v0.12–v1.3)
/// into what the newest renderer prints for the same `plan.json`. Applied to
/// the **expected** text only. Each rule is a wording or layout difference
/// documented in `docs/terraform-renderer.md` or visible in the newest Go
/// renderer; anything else is left alone so that real differences still count.
pub fn normalise_tf_1_0_3(text: &str, facts: &PlanFacts) -> String {
    let mut lines: Vec<String> = split_lines(text).into_iter().map(str::to_owned).collect();
    lines = drop_read_reason_without_json_reason(lines, facts);
    for line in &mut lines {
        data_header_single_space(line);
        sensitive_value_wording(line);
    }
    lines = json_order_of_changes(lines, &facts.change_addresses);
    let outputs_start = lines.iter().position(|l| l == "Changes to Outputs:");
    if let Some(start) = outputs_start {
        lines = drop_output_sensitivity_warnings(lines, start);
    }
    json_object_hidden_counter_noun(&mut lines, outputs_start);
    if let Some(start) = outputs_start {
        let width = facts
            .output_names
            .iter()
            .map(String::len)
            .max()
            .unwrap_or(0);
        for line in &mut lines[start + 1..] {
            repad_output_name(line, width);
        }
    }
    let mut out = lines.join("\n");
    if text.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// N1. 1.0.3 printed two spaces before `{` on `<= data` headers:
/// ` <= data "null_data_source" "lookup"  {` → ` <= data "null_data_source" "lookup" {`.
fn data_header_single_space(line: &mut String) {
    if is_declaration(line) && line.ends_with("\"  {") {
        let keep = line.len() - "  {".len();
        line.truncate(keep);
        line.push_str(" {");
    }
}

/// N2. The old renderer printed sensitive collection elements as
/// `(sensitive)`; the newest always prints `(sensitive value)`:
/// `~ "key"      = (sensitive)` → `~ "key"      = (sensitive value)`.
/// Only a whole value token is rewritten: after `=`, `->` or an action
/// symbol, and followed by the end of the line, `,` or a space; the word
/// inside longer text (a heredoc line, a string) is left alone.
fn sensitive_value_wording(line: &mut String) {
    const OLD: &str = "(sensitive)";
    let mut from = 0;
    while let Some(off) = line[from..].find(OLD) {
        let at = from + off;
        let before = line[..at].trim_end_matches(' ');
        let after = &line[at + OLD.len()..];
        let value_position = before.ends_with('=')
            || before.ends_with("->")
            || before.ends_with(['+', '-', '~'])
            || before.is_empty();
        let value_end = after.is_empty() || after.starts_with(',') || after.starts_with(' ');
        if value_position && value_end {
            line.replace_range(at..at + OLD.len(), "(sensitive value)");
            from = at + "(sensitive value)".len();
        } else {
            from = at + OLD.len();
        }
    }
}

/// N3. 1.0.3 printed a sensitivity warning above a sensitive output
/// (`  # Warning: this attribute value will be marked as sensitive and will not`
/// / `  # display in UI output after applying this change.`), even when both
/// sides were sensitive. The newest renderer never prints warnings in the
/// outputs section (`renderHumanDiffOutputs` does not call `WarningsHuman`).
fn drop_output_sensitivity_warnings(lines: Vec<String>, start: usize) -> Vec<String> {
    let mut out = Vec::with_capacity(lines.len());
    let mut skip_continuation = false;
    for (i, line) in lines.into_iter().enumerate() {
        let t = line.trim_start();
        if skip_continuation && t.starts_with("# ") {
            skip_continuation = false;
            continue;
        }
        skip_continuation = false;
        if i > start && t.starts_with("# Warning: this attribute value will ") {
            skip_continuation = true;
            continue;
        }
        out.push(line);
    }
    out
}

/// N4. Inside `jsonencode(…)` and in the outputs section values are rendered
/// from JSON; the newest renderer counts hidden keys of a JSON object as
/// attributes, 1.0.3 called them elements:
/// `# (1 unchanged element hidden)` → `# (1 unchanged attribute hidden)` when
/// the enclosing bracket is `{`. Lists (`[`) and `map(...)` attributes of a
/// resource keep "element".
fn json_object_hidden_counter_noun(lines: &mut [String], outputs_start: Option<usize>) {
    for i in 0..lines.len() {
        let t = lines[i].trim_start();
        if !(t.starts_with("# (") && t.contains(" unchanged element")) {
            continue;
        }
        let Some(open) = opener_of(lines, i) else {
            continue;
        };
        if !ends_with_open_brace(&lines[open]) {
            continue;
        }
        if outputs_start.is_some_and(|s| i > s) || inside_jsonencode(lines, open) {
            lines[i] = lines[i]
                .replace("unchanged elements hidden", "unchanged attributes hidden")
                .replace("unchanged element hidden", "unchanged attribute hidden");
        }
    }
}

/// Column where a line's content starts, after the indentation and the
/// action symbol (`+ `, `~ `, `-/+ `, …). A hidden-counter comment sits in
/// the content column of its siblings; its container's opening line has its
/// content 4 columns to the left. `None` for blank lines.
fn content_column(line: &str) -> Option<usize> {
    let rest = line.trim_start_matches(' ');
    if rest.is_empty() {
        return None;
    }
    let indent = line.len() - rest.len();
    let symbol = ["-/+ ", "+/- ", "<= ", "+ ", "- ", "~ "]
        .iter()
        .find(|s| rest.starts_with(**s));
    Some(indent + symbol.map_or(0, |s| s.len()))
}

/// Index of the line that opens the container holding line `idx`.
fn opener_of(lines: &[String], idx: usize) -> Option<usize> {
    let target = content_column(&lines[idx])?.checked_sub(4)?;
    for k in (0..idx).rev() {
        match content_column(&lines[k]) {
            None => continue,
            Some(c) if c > target => continue,
            Some(c) if c == target => return Some(k),
            Some(_) => return None,
        }
    }
    None
}

fn ends_with_open_brace(line: &str) -> bool {
    let t = line.trim_end();
    t.strip_suffix(" # forces replacement")
        .unwrap_or(t)
        .ends_with('{')
}

fn inside_jsonencode(lines: &[String], mut k: usize) -> bool {
    loop {
        let l = lines[k].trim_end();
        if l.ends_with("jsonencode(") || l.contains("jsonencode( #") {
            return true;
        }
        match opener_of(lines, k) {
            Some(p) => k = p,
            None => return false,
        }
    }
}

/// N5. The newest renderer pads output names to the longest name among
/// **all** `output_changes`, no-op ones included; 1.0.3 only counted the
/// outputs it showed. With a no-op output `fresh`:
/// `  ~ list = [` → `  ~ list  = [`.
fn repad_output_name(line: &mut String, width: usize) {
    let Some(body) = line.strip_prefix("  ") else {
        return;
    };
    let Some(symbol) = body.get(..2).filter(|s| matches!(*s, "+ " | "- " | "~ ")) else {
        return;
    };
    let rest = &body[2..];
    let Some(name_end) = rest.find(' ') else {
        return;
    };
    let name = &rest[..name_end];
    let is_ident = name
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let Some(value) = rest[name_end..].trim_start_matches(' ').strip_prefix("= ") else {
        return;
    };
    if is_ident {
        *line = format!("  {symbol}{name:<width$} = {value}");
    }
}

/// N6. The newest renderer prints resource changes in `plan.json` order
/// (sorted by address string: `module.app["green"].module.db.…` before
/// `module.app["green"].null_resource.svc`); 1.0.3 sorted them with
/// `AbsResourceInstance.Less`, shallower modules first. Reorders the blocks of
/// "Terraform will perform the following actions:" into JSON order. If a
/// block's address is not found the text is left as it is.
fn json_order_of_changes(lines: Vec<String>, addresses: &[String]) -> Vec<String> {
    let Some(h) = lines
        .iter()
        .position(|l| l == "Terraform will perform the following actions:")
    else {
        return lines;
    };
    let Some(plan) = lines[h..]
        .iter()
        .position(|l| l.starts_with("Plan: "))
        .map(|p| p + h)
    else {
        return lines;
    };
    // The region is "", block, "", block, …, "" (each change is printed as
    // "\n" + diff + "\n"). A block starts at a top-level comment after a blank line.
    let region = &lines[h + 1..plan];
    let mut blocks: Vec<Vec<String>> = Vec::new();
    for (i, line) in region.iter().enumerate() {
        if is_resource_comment(line) && i > 0 && region[i - 1].is_empty() {
            blocks.push(Vec::new());
        }
        if let Some(b) = blocks.last_mut() {
            b.push(line.clone());
        }
    }
    let mut keyed = Vec::new();
    for mut block in blocks {
        while block.last().is_some_and(|l| l.is_empty()) {
            block.pop();
        }
        let first = block[0].trim_start();
        let found = addresses
            .iter()
            .enumerate()
            .filter(|(_, a)| {
                first
                    .strip_prefix("# ")
                    .is_some_and(|r| r.starts_with(&format!("{a} ")))
            })
            .max_by_key(|(_, a)| a.len());
        let Some((index, _)) = found else {
            return lines;
        };
        keyed.push((index, block));
    }
    keyed.sort_by_key(|(index, _)| *index);
    let mut out: Vec<String> = lines[..=h].to_vec();
    for (_, block) in keyed {
        out.push(String::new());
        out.extend(block);
    }
    out.push(String::new());
    out.extend_from_slice(&lines[plan..]);
    out
}

/// N7. 1.0.3's JSON has no `action_reason` for reads (added in 1.2), but its
/// text still printed the reason line; the newest renderer prints it only
/// from `action_reason`. Drops
/// `  # (config refers to values not yet known)` /
/// `  # (depends on a resource or a module with changes pending)` under
/// `  # <addr> will be read during apply` when that change has no reason in
/// `plan.json`.
fn drop_read_reason_without_json_reason(lines: Vec<String>, facts: &PlanFacts) -> Vec<String> {
    let reasons: HashMap<&str, bool> = facts
        .change_addresses
        .iter()
        .map(|a| (a.as_str(), facts.with_reason.contains(a)))
        .collect();
    let mut out: Vec<String> = Vec::with_capacity(lines.len());
    for line in lines {
        let drop = matches!(
            line.as_str(),
            "  # (config refers to values not yet known)"
                | "  # (depends on a resource or a module with changes pending)"
        ) && out.last().is_some_and(|prev| {
            prev.strip_prefix("  # ")
                .and_then(|p| p.strip_suffix(" will be read during apply"))
                .is_some_and(|addr| reasons.get(addr) == Some(&false))
        });
        if !drop {
            out.push(line);
        }
    }
    out
}
