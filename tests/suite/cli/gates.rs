//! The policy gates: drift, and replacements counting as destroys.

use super::*;

/// The `--fail-on drift` lines of a run's stderr.
fn drift_violations(out: &Run) -> Vec<&str> {
    let drift = |line: &&str| line.ends_with(" changed outside of Terraform (--fail-on drift)");
    out.stderr.lines().filter(drift).collect()
}

#[test]
fn fail_on_drift_names_the_drift_shown() {
    // Drift relevant to a normal plan, and all drift of a refresh-only one, break the gate
    // (exit 3, after the output); drift no attribute of the plan depends on, and a drifted
    // resource that only moved, do not.
    let cases = [
        (
            "drift_relevant_attributes",
            Some("tfcoremock_simple_resource.base"),
        ),
        (
            "drift_refresh_only",
            Some("tfcoremock_simple_resource.drift"),
        ),
        ("drift_simple", None),
        ("moved_with_refresh_only", None),
    ];
    for (case, drifted) in cases {
        let plan = format!("tests/fixtures/equivalence/{case}/plan.json");
        let out = render(&["--fail-on", "drift", &plan]);
        assert_no_panic(&out);
        assert!(!out.stdout.is_empty(), "{case}: the text comes first");
        match drifted {
            Some(address) => {
                assert_eq!(out.code(), 3, "{case}: stderr:\n{}", out.stderr);
                let expected = format!(
                    "planmark: policy: {address} changed outside of Terraform (--fail-on drift)"
                );
                assert_eq!(drift_violations(&out), [expected.as_str()], "{case}");
            }
            None => assert_success(&out),
        }
    }
}

#[test]
fn fail_on_drift_names_every_drifted_resource_of_a_big_plan() {
    // Big enough to be diffed on every core:
    // every drifted resource is named, in plan order, and shown in the text.
    let n = 3_000;
    let drift: Vec<String> = (0..n)
        .map(|i| {
            format!(
                r#"{{"address":"null_resource.d[{i}]","mode":"managed","type":"null_resource","name":"d","index":{i},"provider_name":"registry.terraform.io/hashicorp/null","change":{{"actions":["update"],"before":{{"id":"{i}","triggers":{{"image":"api:1.0","pad":"{pad}"}}}},"after":{{"id":"{i}","triggers":{{"image":"api:1.1","pad":"{pad}"}}}},"after_unknown":{{}},"before_sensitive":{{}},"after_sensitive":{{}}}}}}"#,
                pad = "p".repeat(400)
            )
        })
        .collect();
    let plan = format!(
        r#"{{"format_version":"1.2","resource_drift":[{}],"resource_changes":[]}}"#,
        drift.join(",")
    );
    assert!(plan.len() > 1 << 20);
    let file = Temp::file("fail_on_drift_big", plan.as_bytes());
    let out = render(&["--fail-on", "drift", file.arg()]);
    assert_no_panic(&out);
    assert_eq!(out.code(), 3, "stderr:\n{}", out.stderr);
    let named: Vec<String> = (0..n)
        .map(|i| format!("planmark: policy: null_resource.d[{i}] changed outside of Terraform (--fail-on drift)"))
        .collect();
    assert_eq!(drift_violations(&out), named);
    assert_eq!(out.stdout.matches(" has changed\n").count(), n);
}

const REPLACEMENTS: &str = "tests/fixtures/policy/replacements_count_as_destroyed";

#[test]
fn replacements_count_as_destroyed_in_every_gate() {
    for case in ["create_before_destroy", "destroy_before_create"] {
        let dir = format!("{REPLACEMENTS}/{case}");
        let plan = format!("{dir}/plan.json");
        let expected =
            std::fs::read_to_string(crate_dir().join(&dir).join("expected-stderr.txt")).unwrap();
        for format in ["text", "markdown"] {
            let out = run(
                &[
                    "render",
                    "--format",
                    format,
                    "--fail-on",
                    "destroy",
                    "--max-destroy",
                    "0",
                    "--protect",
                    "null_*",
                    &plan,
                ],
                None,
            );
            assert_no_panic(&out);
            assert_eq!(out.code(), 3, "{case} {format}: stderr:\n{}", out.stderr);
            assert_eq!(out.stderr, expected, "{case} {format}");
            assert!(
                out.stdout.contains("1 to destroy"),
                "{case}: {}",
                out.stdout
            );
            if format == "markdown" {
                // The comment names the violation at its top.
                assert!(
                    out.stdout
                        .contains("is replaced, destroying its old object (`--fail-on destroy`)"),
                    "{case}: {}",
                    out.stdout
                );
            }
        }
        // The narrow rule: destroyed and not replaced.
        let out = render(&["--fail-on", "delete-only", &plan]);
        assert_success(&out);
    }
}

#[test]
fn delete_only_still_fails_a_plain_destroy() {
    let plan = "tests/fixtures/real-plans/removals/plan.json";
    let out = render(&["--fail-on", "delete-only", plan]);
    assert_eq!(out.code(), 3, "stderr:\n{}", out.stderr);
    assert!(
        out.stderr.contains(
            "planmark: policy: null_resource.legacy is destroyed (--fail-on delete-only)\n"
        ),
        "{}",
        out.stderr
    );
}

// ---------------------------------------------------------------------------
// Help that fits its command, flags with one meaning
// ---------------------------------------------------------------------------
