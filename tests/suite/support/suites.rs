//! Suites: one run over many golden cases, one readable report at the end.

use super::*;

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
