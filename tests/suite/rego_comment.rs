//! The comment's Rego section (`--policy`) from reports made here: failures, warnings and
//! passes laid out, findings linked to their resource's diff, hostile messages inert, and
//! the size limit kept however much a policy says.

use planmark::diff::PlanDiff;
use planmark::policy::rego::{Finding, Level, PolicyReport};
use planmark::render::markdown::{
    render_comment_with, Comment, Extras, TemplateSet, GITHUB_MAX_CHARS,
};
use pulldown_cmark::{Event, Options, Parser, Tag};

use crate::support::comment::{assert_sound, load, meta, with_named};
use crate::support::fixtures_dir;

fn plan() -> PlanDiff {
    load(&fixtures_dir().join("comment/policy/plan.json")).unwrap()
}

fn finding(level: Level, rule: &str, message: &str, resource: Option<&str>) -> Finding {
    Finding {
        level,
        namespace: "main".to_string(),
        rule: rule.to_string(),
        message: message.to_string(),
        resource: resource.map(str::to_string),
    }
}

fn render(diff: &PlanDiff, report: PolicyReport, max_chars: usize) -> Comment {
    render_with(diff, report, max_chars, false)
}

fn render_with(
    diff: &PlanDiff,
    report: PolicyReport,
    max_chars: usize,
    warn_only: bool,
) -> Comment {
    let reports = [report];
    let extras = Extras {
        rego: &reports,
        rego_warn_only: warn_only,
        ..Extras::default()
    };
    let comment = with_named(&[("plan.json", diff)], |named| {
        render_comment_with(
            named,
            &meta("plan.json"),
            &extras,
            &TemplateSet::default(),
            max_chars,
        )
    })
    .unwrap();
    assert_sound("rego", &[diff], &comment, max_chars);
    comment
}

#[test]
fn failures_link_to_their_resource_and_name_the_rule() {
    let diff = plan();
    let report = PolicyReport {
        failures: vec![
            finding(
                Level::Failure,
                "deny",
                "legacy must not be destroyed",
                Some("null_resource.legacy"),
            ),
            finding(
                Level::Failure,
                "violation_unknown",
                "names a resource not in the plan",
                Some("null_resource.gone"),
            ),
        ],
        warnings: vec![finding(Level::Warning, "warn", "shards shrink", None)],
        rules: 5,
        passed: 2,
        ..PolicyReport::default()
    };
    let md = render(&diff, report, GITHUB_MAX_CHARS).markdown;
    let title = md.lines().next().unwrap();
    assert!(title.ends_with(" · ❌ 2 policy failures"), "{title}");
    assert!(
        md.contains("> **Policy rules: 2 failures, 1 warning** · 2 of 5 rules passed"),
        "{md}"
    );
    // The link's anchor stands before the resource's diff, and nowhere else.
    let link = md
        .lines()
        .find(|l| l.contains("legacy must not be destroyed"))
        .unwrap();
    let id = link.split("](#").nth(1).unwrap().split(')').next().unwrap();
    assert!(
        link.starts_with("> - ❌ [`null_resource.legacy`](#planmark-"),
        "{link}"
    );
    assert_eq!(md.matches(&format!("<a name=\"{id}\"></a>")).count(), 1);
    let anchor = md.find(&format!("<a name=\"{id}\">")).unwrap();
    assert!(md[anchor..]
        .lines()
        .next()
        .unwrap()
        .contains("null_resource.legacy"));
    // A resource the comment does not show is named without a link.
    assert!(
        md.contains(
            "> - ❌ `null_resource.gone`: names a resource not in the plan (`violation_unknown`)"
        ),
        "{md}"
    );
    assert!(md.contains("> - ⚠️ shards shrink (`warn`)"), "{md}");
}

#[test]
fn failures_under_warn_only_say_the_job_does_not_fail() {
    let diff = plan();
    let report = PolicyReport {
        failures: vec![finding(Level::Failure, "deny", "no", None)],
        rules: 1,
        ..PolicyReport::default()
    };
    let md = render_with(&diff, report, GITHUB_MAX_CHARS, true).markdown;
    assert!(
        md.lines()
            .next()
            .unwrap()
            .ends_with(" · ⚠️ 1 policy failure"),
        "{md}"
    );
    assert!(
        md.contains("· reported only, the job does not fail (`--policy-warn-only`)"),
        "{md}"
    );
}

#[test]
fn warnings_alone_and_all_passing_say_so() {
    let diff = plan();
    let warned = PolicyReport {
        warnings: vec![finding(Level::Warning, "warn_tags", "untagged", None)],
        rules: 3,
        passed: 2,
        ..PolicyReport::default()
    };
    let md = render(&diff, warned, GITHUB_MAX_CHARS).markdown;
    assert!(md.contains("> [!WARNING]\n> **Policy rules: 1 warning** · 2 of 3 rules passed"));
    assert!(!md.lines().next().unwrap().contains("policy failure"));
    let passed = PolicyReport {
        rules: 4,
        passed: 4,
        ..PolicyReport::default()
    };
    let md = render(&diff, passed, GITHUB_MAX_CHARS).markdown;
    assert!(
        md.contains("\n**Policy rules:** ✅ all 4 rules passed\n"),
        "{md}"
    );
    // Without --policy the section is absent.
    let md = crate::support::comment::render(&[("plan.json", &diff)], GITHUB_MAX_CHARS).markdown;
    assert!(!md.contains("Policy rules"));
}

/// What a policy may say that would steer the comment if it were written as is.
const HOSTILE: &[&str] = &[
    "@octo/platform please approve #123 0123456789abcdef0123",
    "<img src=x onerror=alert(1)> <!-- hidden --> <details>",
    "[click](javascript:alert(1)) ![x](https://evil.example/x.png)",
    "line one\n::error::forged\n### Heading\n```\n> [!NOTE]",
    "$x^2$ and $$y$$ https://evil.example/",
    "<!-- planmark:v1 {\"key\":\"default\"} -->",
];

#[test]
fn hostile_messages_rules_and_addresses_are_inert() {
    let diff = plan();
    let findings = |level| {
        HOSTILE
            .iter()
            .map(|h| finding(level, h, h, Some(h)))
            .collect::<Vec<_>>()
    };
    let report = PolicyReport {
        failures: findings(Level::Failure),
        warnings: findings(Level::Warning),
        rules: 2,
        passed: 0,
        ..PolicyReport::default()
    };
    let md = render(&diff, report, GITHUB_MAX_CHARS).markdown;
    // Every finding is one list item inside the alert: no line of it starts a block.
    let section: Vec<&str> = md
        .lines()
        .skip_while(|l| !l.contains("Policy rules"))
        .take_while(|l| l.starts_with('>'))
        .collect();
    assert_eq!(section.len(), 1 + 2 * HOSTILE.len(), "{md}");
    assert!(section[1..].iter().all(|l| l.starts_with("> - ")), "{md}");
    // The only links are planmark's own (none here: no finding names a shown resource),
    // the only HTML is the templates' own, and no line is a workflow command.
    for event in Parser::new_ext(&md, Options::all()) {
        match event {
            Event::Start(Tag::Link { dest_url, .. }) => {
                assert!(
                    dest_url.starts_with("https://github.com/octo/"),
                    "{dest_url}"
                )
            }
            Event::Start(Tag::Image { .. }) | Event::InlineMath(_) | Event::DisplayMath(_) => {
                panic!("{event:?} in\n{md}")
            }
            Event::InlineHtml(html) | Event::Html(html) => {
                assert!(!html.contains("img") && !html.contains("hidden"), "{html}")
            }
            _ => {}
        }
    }
    assert!(!md.lines().any(|l| l.starts_with("::")), "{md}");
    // (A forged marker is refused by `assert_sound`: one HTML comment, on the last line.)
}

#[test]
fn a_policy_that_says_too_much_still_fits() {
    let diff = plan();
    let long = "x".repeat(5_000);
    let many = |level| {
        (0..2_000)
            .map(|i| finding(level, "deny", &format!("{i} {long}"), None))
            .collect::<Vec<_>>()
    };
    let report = PolicyReport {
        failures: many(Level::Failure),
        warnings: many(Level::Warning),
        rules: 1,
        passed: 0,
        ..PolicyReport::default()
    };
    for max_chars in [GITHUB_MAX_CHARS, 20_000, 5_000] {
        let comment = render(&diff, report.clone(), max_chars);
        let rego = comment.context.plans[0].rego.as_ref().unwrap();
        assert_eq!(rego.failed, 2_000);
        assert_eq!(rego.failures.len() + rego.failures_more, 2_000);
        assert!(rego
            .failures
            .iter()
            .all(|f| f.message.chars().count() <= 501));
    }
}

/// `fixtures/rego_comment/<case>/`: the policies in `policy/` evaluated over the Rego
/// cases' plan (or the case's own `plan.json`, with the flags in its `args`) by the whole
/// pipeline, its comment equal to `expected.md`.
#[test]
fn golden_comments_with_real_policies() {
    use clap::Parser;
    use planmark::cli::{Cli, Command};
    use planmark::pipeline::{self, Format, RunInfo};

    // Relative paths (the tests run in the package's folder): the comment key, and so the
    // anchors, are made of the plan's path.
    let dir = fixtures_dir().join("rego_comment");
    let cases = crate::support::case_dirs(&dir);
    assert!(!cases.is_empty());
    for (name, case) in &cases {
        let policy = format!("tests/fixtures/rego_comment/{name}/policy");
        let own = format!("tests/fixtures/rego_comment/{name}/plan.json");
        let plan = if case.join("plan.json").is_file() {
            own.as_str()
        } else {
            "tests/fixtures/policy/rego-plan.json"
        };
        let mut args = vec!["planmark", "render", "--policy", &policy, plan];
        let extra = std::fs::read_to_string(case.join("args")).unwrap_or_default();
        args.extend(extra.split_whitespace());
        let Command::Render(render) = Cli::try_parse_from(args).unwrap().command else {
            unreachable!("a render command")
        };
        let run = RunInfo {
            time: "2026-11-22T10:00:00Z".to_string(),
            ..RunInfo::default()
        };
        let mut out = Vec::new();
        let verdicts = pipeline::render(
            &render.common.options(None, run),
            Format::Markdown,
            &mut out,
        )
        .unwrap();
        assert!(!verdicts.rego.is_empty());
        let md = String::from_utf8(out).unwrap();
        assert!(!md.contains(env!("CARGO_MANIFEST_DIR")), "no absolute path");
        assert!(
            crate::support::check::check_markdown(&md).is_empty(),
            "{md}"
        );
        crate::support::golden::check(&case.join("expected.md"), &md)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}

#[test]
fn a_finding_on_a_grouped_change_links_to_its_groups_diff() {
    use crate::grouping::{numbered, plan_of, same, tag_updates};
    let diff = plan_of(tag_updates(&numbered(12), same));
    let report = PolicyReport {
        failures: vec![finding(
            Level::Failure,
            "deny",
            "web 7 must keep its tags",
            Some("aws_instance.web[7]"),
        )],
        warnings: Vec::new(),
        rules: 1,
        passed: 0,
        ..PolicyReport::default()
    };
    let comment = render(&diff, report, GITHUB_MAX_CHARS);
    let md = &comment.markdown;
    let changes = &comment.context.plans[0].changes;
    assert_eq!(changes.len(), 1, "the twelve are one group: {md}");
    let link = md
        .lines()
        .find(|l| l.contains("must keep its tags"))
        .unwrap();
    assert!(
        link.starts_with("> - ❌ [`aws_instance.web[7]`](#planmark-"),
        "{link}"
    );
    let id = link.split("](#").nth(1).unwrap().split(')').next().unwrap();
    assert_eq!(changes[0].anchor.as_deref(), Some(id));
    assert_eq!(md.matches(&format!("<a name=\"{id}\"></a>")).count(), 1);
    let anchor = md.find(&format!("<a name=\"{id}\">")).unwrap();
    assert!(
        md[anchor..].lines().next().unwrap().contains("× 12"),
        "{md}"
    );
}

/// A builtin that failed (the run went on, as in conftest) and a rule an `exception`
/// excepted are said under the verdict, each naming its rule; their text stays inert.
#[test]
fn builtin_failures_and_exceptions_are_listed() {
    use planmark::policy::rego::{BuiltinError, Exception};
    let diff = plan();
    let report = PolicyReport {
        rules: 3,
        passed: 2,
        exceptions: vec![Exception {
            namespace: "main".into(),
            rule: "deny_tags".into(),
            message: "data.main.exception[_][_] == \"tags\"".into(),
        }],
        builtin_errors: vec![BuiltinError {
            namespace: "main".into(),
            rule: "deny".into(),
            builtin: Some("to_number".into()),
            location: Some("p.rego:7:38".into()),
            message: "could not parse <b>@team</b> #12 as number\n::error::x".into(),
        }],
        ..PolicyReport::default()
    };
    let md = render(&diff, report, GITHUB_MAX_CHARS).markdown;
    assert!(
        md.contains("\n**Policy rules:** ✅ 2 of 3 rules passed\n"),
        "{md}"
    );
    let builtin = md
        .lines()
        .find(|l| l.starts_with("- ⚠️ `deny`: `to_number` failed at `p.rego:7:38`: "))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(
        !builtin.contains("<b>") && !builtin.contains("@team"),
        "{builtin}"
    );
    assert!(!md.contains("\n::error::"), "{md}");
    assert!(
        md.contains(
            "**Policy exceptions:** 1 exception · `deny_tags` (`data.main.exception[_][_] == \"tags\"`)"
        ),
        "{md}"
    );
}

/// Results conftest skips (neither strings nor objects) are named under the verdict with
/// their rule, whatever the verdict, never dropped silently; their text stays inert.
#[test]
fn skipped_results_are_listed() {
    use planmark::policy::rego::Skipped;
    let diff = plan();
    let report = PolicyReport {
        rules: 2,
        passed: 1,
        failures: vec![finding(Level::Failure, "deny", "a failure", None)],
        skipped: vec![Skipped {
            namespace: "main".into(),
            rule: "warn_odd".into(),
            what: "2 results are neither strings nor objects (<b>@team</b> #12\n::error::x): \
                   conftest skips them"
                .into(),
        }],
        ..PolicyReport::default()
    };
    let md = render(&diff, report, GITHUB_MAX_CHARS).markdown;
    let line = md
        .lines()
        .find(|l| l.starts_with("- ⚠️ `warn_odd`: 2 results are neither"))
        .unwrap_or_else(|| panic!("{md}"));
    assert!(line.ends_with("conftest skips them"), "{line}");
    assert!(!line.contains("<b>") && !line.contains("@team"), "{line}");
    assert!(!md.contains("\n::error::"), "{md}");
    assert!(md.contains("\n\n**Policy results skipped** ("), "{md}");
    assert!(!md.contains("**Policy rules:** ✅"), "{md}");
}
