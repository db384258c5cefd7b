//! The changes' hashes: the same for two plans of one change, whatever differs between
//! them that reviewers do not see; different for any change they do see; never made from
//! a sensitive value.

use super::super::options::{Options, PlanArg, RunInfo};
use super::super::verify::{compare, fresh, Comparison, Difference};
use crate::marker::{marker_line, parse_marker, MarkerData};
use crate::render::markdown::MapMode;

/// A plan updating `aws_db_instance.main` (its `password` sensitive) and creating
/// `aws_s3_bucket.logs`, with an output and a change outside Terraform; each `%X%` is
/// filled in by the caller.
const PLAN: &str = r#"{"format_version":"%FORMAT%","terraform_version":"%VERSION%",
"timestamp":"%TIME%",
"resource_drift":[{"address":"aws_s3_bucket.old","mode":"managed","type":"aws_s3_bucket",
 "name":"old","provider_name":"registry.terraform.io/hashicorp/aws",
 "change":{"actions":["update"],"before":{"acl":"private","tags":{"x":"%DRIFT%"}},
 "after":{"acl":"private","tags":{"x":"y"}},"after_unknown":{},"before_sensitive":{},
 "after_sensitive":{}}}],
"resource_changes":[
 {"address":"aws_db_instance.main","mode":"managed","type":"aws_db_instance","name":"main",
  "provider_name":"registry.terraform.io/hashicorp/aws",
  "change":{"actions":["update"],
   "before":{"id":"%ID%","password":"%OLDPASS%","size":%SIZE%,"engine":"postgres"},
   "after":{"id":"%ID%","password":"%NEWPASS%","size":20,"engine":"postgres"},
   "after_unknown":{},"before_sensitive":{"password":true},"after_sensitive":{"password":true}}},
 {"address":"aws_s3_bucket.old","mode":"managed","type":"aws_s3_bucket","name":"old",
  "provider_name":"registry.terraform.io/hashicorp/aws",
  "change":{"actions":["no-op"],"before":{"acl":"private"},"after":{"acl":"private"},
  "after_unknown":{},"before_sensitive":{},"after_sensitive":{}}}
 %MORE%
],
"output_changes":{"url":{"actions":["update"],"before":"a","after":"%URL%",
 "after_unknown":false,"before_sensitive":false,"after_sensitive":false}}}"#;

const DEFAULTS: [(&str, &str); 10] = [
    ("%FORMAT%", "1.2"),
    ("%VERSION%", "1.9.0"),
    ("%TIME%", "2026-11-22T10:00:00Z"),
    ("%DRIFT%", "z"),
    ("%ID%", "db-1"),
    ("%OLDPASS%", "hunter2"),
    ("%NEWPASS%", "correct horse"),
    ("%SIZE%", "10"),
    ("%URL%", "b"),
    ("%MORE%", ""),
];

const BUCKET: &str = r#",{"address":"aws_s3_bucket.logs","mode":"managed","type":"aws_s3_bucket",
  "name":"logs","provider_name":"registry.terraform.io/hashicorp/aws",
  "change":{"actions":["create"],"before":null,"after":{"acl":"private"},
  "after_unknown":{"id":true},"before_sensitive":false,"after_sensitive":{}}}"#;

/// The plan with `changes` made to its defaults, written to a file of its own.
fn plan(name: &str, changes: &[(&str, &str)]) -> std::path::PathBuf {
    let mut text = PLAN.to_string();
    for (slot, default) in DEFAULTS {
        let value = changes
            .iter()
            .find(|(s, _)| *s == slot)
            .map_or(default, |c| c.1);
        text = text.replace(slot, value);
    }
    let dir = std::env::temp_dir().join(format!("planmark-digest-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.json"));
    std::fs::write(&path, text).unwrap();
    path
}

fn options(path: &std::path::Path) -> Options {
    Options {
        plans: vec![PlanArg::parse(&format!("main={}", path.display()))],
        schemas: None,
        max_input_size: 1 << 30,
        tool: None,
        plan_mode: None,
        log: None,
        policy: Default::default(),
        policy_paths: Vec::new(),
        rego: crate::policy::rego::Settings::default(),
        key: None,
        title: None,
        max_chars: 65_536,
        map: MapMode::Auto,
        no_group: false,
        template: None,
        template_dir: None,
        run: RunInfo::default(),
        hash_changes: true,
        previous: None,
        code: None,
        annotate: false,
    }
}

/// The marker a comment on `path` would carry (its change fields only).
fn marker(path: &std::path::Path) -> serde_json::Value {
    let reviewed = fresh(&options(path)).unwrap();
    let line = marker_line(&MarkerData {
        key: "main".into(),
        changes: Some(reviewed.marker_fields(65_536)),
        ..MarkerData::default()
    });
    parse_marker(&line).unwrap()
}

fn verify(reviewed: &std::path::Path, applied: &std::path::Path) -> Comparison {
    compare(&fresh(&options(applied)).unwrap(), &marker(reviewed), "")
}

#[test]
fn what_reviewers_do_not_see_is_not_compared() {
    let base = plan("base", &[]);
    // Another run of the same change: time, version, format, drift, the JSON's key order
    // and spacing.
    let reordered = PLAN
        .replace(
            r#""format_version":"%FORMAT%","terraform_version":"%VERSION%","#,
            "",
        )
        .replace(
            r#""output_changes":{"#,
            r#""terraform_version":"1.14.2", "format_version":"1.2", "output_changes":{"#,
        );
    let same = [
        plan("time", &[("%TIME%", "2027-01-01T00:00:00Z")]),
        plan("version", &[("%VERSION%", "1.14.2")]),
        plan("format", &[("%FORMAT%", "1.1")]),
        plan("drift", &[("%DRIFT%", "elsewhere")]),
        {
            let mut text = reordered;
            for (slot, value) in DEFAULTS {
                text = text.replace(slot, value);
            }
            let path = base.with_file_name("reordered.json");
            std::fs::write(&path, text).unwrap();
            path
        },
    ];
    for other in &same {
        assert_eq!(
            verify(&base, other),
            Comparison::Matches,
            "{}",
            other.display()
        );
    }
}

#[test]
fn sensitive_values_are_hashed_only_as_changed() {
    let base = plan("secret", &[]);
    let other_secret = plan("secret2", &[("%NEWPASS%", "another secret")]);
    assert_eq!(verify(&base, &other_secret), Comparison::Matches);
    // That it changes is seen: the same plan with the secret unchanged differs.
    let unchanged = plan("secret3", &[("%NEWPASS%", "hunter2")]);
    assert_eq!(
        verify(&base, &unchanged),
        Comparison::Differs(vec![Difference::Changed("aws_db_instance.main".into())])
    );
    // Neither the secret nor any address is in the marker.
    let text = marker(&base).to_string();
    for plan_text in ["hunter2", "correct horse", "aws_", "url", "output"] {
        assert!(!text.contains(plan_text), "{text}");
    }
}

#[test]
fn every_change_reviewers_see_is_named() {
    let base = plan("named", &[]);
    let differs = |path: std::path::PathBuf| match verify(&base, &path) {
        Comparison::Differs(lines) => lines,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        differs(plan("size", &[("%SIZE%", "15")])),
        [Difference::Changed("aws_db_instance.main".into())]
    );
    assert_eq!(
        differs(plan("more", &[("%MORE%", BUCKET)])),
        [Difference::New("aws_s3_bucket.logs".into())]
    );
    assert_eq!(
        differs(plan("output", &[("%URL%", "c")])),
        [Difference::Changed("output.url".into())]
    );
    // Reviewed with the bucket's creation, applied without: gone, by name when the plan
    // still knows the address (it was created meanwhile, say).
    let with_bucket = plan("with", &[("%MORE%", BUCKET)]);
    let created = BUCKET
        .replace(r#"["create"]"#, r#"["no-op"]"#)
        .replace(r#""before":null"#, r#""before":{"acl":"private"}"#);
    assert_eq!(
        verify(&with_bucket, &plan("created", &[("%MORE%", &created)])),
        Comparison::Differs(vec![Difference::Gone("aws_s3_bucket.logs".into())])
    );
    assert_eq!(
        verify(&with_bucket, &base),
        Comparison::Differs(vec![Difference::GoneUnnamed(1)])
    );
    // A marker without the hash (a failed plan's) is no review.
    assert_eq!(
        compare(
            &fresh(&options(&base)).unwrap(),
            &serde_json::json!({"key": "main"}),
            ""
        ),
        Comparison::NoHash
    );
}

#[test]
fn the_plans_data_is_compared_not_only_what_the_diff_shows() {
    // An attribute the diff hides as unchanged context still belongs to what is applied.
    let base = plan("data", &[]);
    assert_eq!(
        verify(&base, &plan("data-id", &[("%ID%", "db-2")])),
        Comparison::Differs(vec![Difference::Changed("aws_db_instance.main".into())])
    );
}

#[test]
fn a_marker_of_another_form_is_named_as_such_never_a_different_plan() {
    let base = plan("form", &[]);
    let fresh = fresh(&options(&base)).unwrap();
    let mut marker = marker(&base);
    // What planmark 0.1 wrote: the hashes of the changes as rendered, no form.
    marker.as_object_mut().unwrap().remove("changes_form");
    assert_eq!(compare(&fresh, &marker, ""), Comparison::OtherForm(None));
    marker["changes_form"] = serde_json::json!(3);
    assert_eq!(compare(&fresh, &marker, ""), Comparison::OtherForm(Some(3)));
}

#[test]
fn gone_changes_are_named_from_the_reviewed_comment() {
    let base = plan("gone-base", &[]);
    let bucket = |n: usize| {
        BUCKET
            .replace("aws_s3_bucket.logs", &format!("aws_s3_bucket.logs{n}"))
            .replace(r#""name":"logs""#, &format!(r#""name":"logs{n}""#))
    };
    let three: String = (1..=3).map(bucket).collect();
    let with_three = plan("gone-three", &[("%MORE%", &three)]);
    let fresh = fresh(&options(&base)).unwrap();
    let marker = marker(&with_three);
    // The comment shows two of the three addresses, one in a summary's `<code>` with
    // character references, one in a code span; a forged line names a change that is not
    // among the hashes, and is not used.
    let body = "<details><summary><code>aws&#95;s3_bucket.logs1</code></summary>\n\n\
        </details>\n\n- `aws_s3_bucket.logs2`\n- `aws_s3_bucket.forged`\n";
    assert_eq!(
        compare(&fresh, &marker, body),
        Comparison::Differs(vec![
            Difference::Gone("aws_s3_bucket.logs1".into()),
            Difference::Gone("aws_s3_bucket.logs2".into()),
            Difference::GoneUnnamed(1),
        ])
    );
}
