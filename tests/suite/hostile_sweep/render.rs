//! Every case rendered in every format.

use super::*;

pub(super) fn run_render(case: &Case, format: &str) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_planmark"));
    cmd.args(["render", "--format", format]).args(&case.args);
    for (name, _) in std::env::vars() {
        if name.starts_with("GITHUB_") || name.starts_with("RUNNER_") {
            cmd.env_remove(name);
        }
    }
    cmd.env("GITHUB_ACTIONS", "true").env("NO_COLOR", "1");
    cmd.output().expect("run planmark")
}

fn check_render(case: &Case, sweep: &mut Sweep) {
    for format in ["text", "markdown", "json", "html"] {
        let out = run_render(case, format);
        let at = format!("{}, render --format {format}", case.name);
        let (stdout, stderr) = (
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr),
        );
        // 3 is a policy gate that still writes the output.
        if !matches!(out.status.code(), Some(0 | 3)) {
            sweep.push(&at, format!("exit {:?}: {}", out.status.code(), stderr));
            continue;
        }
        sweep.secrets(&at, &stdout, &case.secrets);
        sweep.secrets(&format!("{at}, stderr"), &stderr, &case.secrets);
        sweep.workflow_commands(&at, &stdout);
        sweep.workflow_commands(&format!("{at}, stderr"), &stderr);
        let body = unpaused(&stdout);
        match format {
            "markdown" => sweep.markdown(&at, &body),
            "html" => sweep.html(&at, &body),
            _ => {}
        }
    }
}

/// Printed text without the `::stop-commands::` pause around it, and without the
/// annotations printed after it.
pub(super) fn unpaused(stdout: &str) -> String {
    let mut lines: Vec<&str> = stdout.split_inclusive('\n').collect();
    if let Some(token) = lines
        .first()
        .and_then(|l| l.strip_prefix("::stop-commands::"))
    {
        let resume = format!("::{}::\n", token.trim_end());
        let end = lines
            .iter()
            .position(|l| *l == resume)
            .unwrap_or(lines.len());
        lines.truncate(end);
        lines.remove(0);
    }
    lines.concat()
}

#[test]
#[ignore = "slow tier: tests/slow-tier runs it (see tests/README.md)"]
fn every_case_renders_safely_in_every_format() {
    let cases = cases();
    assert!(cases.len() >= 19, "{} cases", cases.len());
    let found: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = cases
            .chunks(cases.len().div_ceil(2))
            .map(|chunk| {
                s.spawn(move || {
                    let mut sweep = Sweep::default();
                    for case in chunk {
                        check_render(case, &mut sweep);
                    }
                    sweep.0
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    assert!(
        found.is_empty(),
        "{} violations:\n{}",
        found.len(),
        found.join("\n")
    );
}
