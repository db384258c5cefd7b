//! Rego against the real OPA (issue 36): `tests/oracle/compare.py` runs every policy set
//! of `fixtures/policy-oracle/sets/` over a few plans (`--plans ci`) under planmark and
//! under OPA's Go engine (`opa-golib-python-bindings`) with conftest's conventions, and
//! fails on a disagreement that `tests/oracle/known-differences.txt` does not list. The
//! full run, over every plan here and in `../shared`, is the command in docs/policy.md.
//!
//! Skipped, with a line saying so, where python3 or the oracle is not installed
//! (`.ci/run` installs it when it can).

use std::process::{Command, Output};

use crate::support::manifest_dir;
use crate::support::tools::have;

const SCRIPT: &str = "tests/oracle/compare.py";

/// Whether the oracle can run here; if not, says so on standard error.
fn oracle_installed(test: &str) -> bool {
    if have("python3", &["-c", "import opa_bindings, yaml"]) {
        return true;
    }
    eprintln!(
        "skipped: {test}: the OPA oracle is not installed \
         (pip install --ignore-requires-python opa-golib-python-bindings pyyaml)"
    );
    false
}

/// The script's run over the `ci` plans with `planmark` as the binary, and `args`.
fn compare(planmark: &str, args: &[&str]) -> Output {
    Command::new("python3")
        .arg(manifest_dir().join(SCRIPT))
        .args(["--planmark", planmark, "--plans", "ci"])
        .args(args)
        .current_dir(manifest_dir())
        .output()
        .expect("python3 runs")
}

fn text(output: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

#[test]
fn planmark_agrees_with_opa_but_for_the_listed_differences() {
    if !oracle_installed("planmark_agrees_with_opa_but_for_the_listed_differences") {
        return;
    }
    let out = compare(env!("CARGO_BIN_EXE_planmark"), &[]);
    let report = text(&out);
    println!("{report}");
    assert!(
        report.contains("agreement: "),
        "no agreement figure:\n{report}"
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "disagreements not in tests/oracle/known-differences.txt:\n{report}"
    );
}

/// The comparison can fail: a planmark that reports a failure OPA does not find is a
/// disagreement the script names, with both results, and exits 1 for.
#[cfg(unix)]
#[test]
fn an_unlisted_difference_fails_and_is_named() {
    if !oracle_installed("an_unlisted_difference_fails_and_is_named") {
        return;
    }
    let dir = crate::support::temp::TempDir::new("policy-oracle");
    let fake = dir.path().join("planmark");
    // Reads every plan, and with `--policy` reports one failure whatever the policy says.
    std::fs::write(
        &fake,
        "#!/bin/sh\ncase \"$*\" in\n*--policy*) echo 'planmark: policy: forged (main.deny)' >&2; exit 3;;\nesac\nexit 0\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let out = compare(fake.to_str().unwrap(), &["--sets", "plan-max-destroys"]);
    let report = text(&out);
    assert_eq!(out.status.code(), Some(1), "{report}");
    assert!(
        report.contains("DISAGREEMENTS NOT IN")
            && report.contains("plan-max-destroys ×")
            && report.contains("forged (main.deny)"),
        "{report}"
    );
}
