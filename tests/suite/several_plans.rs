//! Several plans in one run: a file of several `show -json` documents (Terragrunt's
//! `run-all show -json`, fixtures in tests/fixtures/terragrunt/), and one plan among
//! several that cannot be read — the others are rendered, the broken one has an error
//! entry in the comment, its error goes to stderr, and the run exits 2 after its output.

use crate::support::bin;

use bin::*;

const TERRAGRUNT: &str = "tests/fixtures/terragrunt";

fn fixture(path: &str) -> String {
    crate_dir().join(path).display().to_string()
}

/// Exit 2 after the output: stdout holds it, stderr one line per broken plan.
fn assert_rendered_then_bad_input(run: &Run, broken: &[&str]) {
    assert_no_panic(run);
    assert_eq!(run.code(), 2, "stderr:\n{}", run.stderr);
    assert!(!run.stdout.is_empty(), "the readable plans are rendered");
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), broken.len(), "stderr:\n{}", run.stderr);
    for (line, what) in lines.iter().zip(broken) {
        assert!(line.starts_with("planmark: error: "), "{line}");
        assert!(line.contains(what), "{line} should name {what}");
    }
}

#[test]
fn terragrunt_documents_are_plans_named_by_module_directory() {
    for (case, file, names, plans) in [
        (
            "run-all-show-json",
            "plans.txt",
            ["live/network", "live/app", "live/db"],
            ["create_first", "nothing_to_do", "removals"],
        ),
        (
            "show-all-json-unlabelled",
            "plans.json",
            ["plans.1", "plans.2", ""],
            ["create_first", "removals", ""],
        ),
    ] {
        let dir = format!("{TERRAGRUNT}/{case}");
        let path = format!("{dir}/{file}");
        let text = render(&[&path]);
        assert_success(&text);
        let expected =
            std::fs::read_to_string(crate_dir().join(&dir).join("expected.txt")).unwrap();
        assert_eq!(text.stdout, expected, "{case}");
        // Each document renders as its plan alone, under its name.
        let mut alone = Vec::new();
        for (name, plan) in names.iter().zip(plans).filter(|(n, _)| !n.is_empty()) {
            let plan = fixture(&format!("tests/fixtures/real-plans/{plan}/plan.json"));
            let out = render(&[&plan]);
            assert_success(&out);
            alone.push(format!("## {name}\n{}", out.stdout));
        }
        assert_eq!(text.stdout, alone.join("\n"), "{case}");
        let comment = run(&["render", &path], None);
        assert_success(&comment);
        for name in names.iter().filter(|n| !n.is_empty()) {
            assert!(
                comment.stdout.contains(&format!("`{name}`")),
                "{case}: {name} missing:\n{}",
                comment.stdout
            );
        }
        // One file, one key, whatever its documents.
        assert!(
            comment
                .stdout
                .contains(&format!(r#""key":"{}""#, path.replace('-', "\\u002d"))),
            "{}",
            comment.stdout
        );
    }
}

#[test]
fn one_unreadable_path_among_several_is_an_entry_and_exit_2() {
    let good = fixture("tests/fixtures/real-plans/create_first/plan.json");
    let bad = Temp::file(
        "unreadable_path",
        b"{\"format_version\":\"1.2\",\"planned_values\":",
    );
    // A hostile name: it must not ping, link, inject HTML or break out of its code span.
    let hostile = "x`<img src y>@octo #1 [a](http:e)";
    let bad_arg = format!("{hostile}={}", bad.arg());
    let text = render(&[&format!("good={good}"), &bad_arg]);
    assert_rendered_then_bad_input(&text, &[bad.arg()]);
    assert!(text.stdout.starts_with("## good\n"), "{}", text.stdout);
    assert!(text.stdout.contains("Plan: 1 to add"), "{}", text.stdout);
    assert!(text.stderr.contains("is truncated"), "{}", text.stderr);

    for format in ["markdown", "json"] {
        let out = run(
            &[
                "render",
                "--format",
                format,
                &format!("good={good}"),
                &bad_arg,
            ],
            None,
        );
        assert_rendered_then_bad_input(&out, &[bad.arg()]);
        assert!(
            out.stdout.contains("is truncated"),
            "{format}: {}",
            out.stdout
        );
    }
    let comment = run(&["render", &format!("good={good}"), &bad_arg], None);
    let body = &comment.stdout;
    assert!(body.contains("Plan could not be read"), "{body}");
    assert!(body.contains("1 plan unreadable"), "{body}");
    // The name only ever in code spans: no HTML, mention, issue link or link is live.
    let span = "``x`<img src y>@octo #1 [a](http:e)``";
    assert!(
        body.contains(&format!("{span} — Plan could not be read")),
        "{body}"
    );
    assert!(!body.replace(span, "").contains("<img"), "{body}");
    let live = crate::support::check::live_references(body);
    assert!(live.is_empty(), "{live:?}\n{body}");
    let report = crate::support::check::check_markdown(body);
    assert!(report.is_empty(), "{report:?}\n{body}");
}

#[test]
fn one_unreadable_document_among_several_is_an_entry_and_exit_2() {
    let text = std::fs::read_to_string(
        crate_dir()
            .join(TERRAGRUNT)
            .join("run-all-show-json/plans.txt"),
    )
    .unwrap();
    let broken = format!("{text}[live/cache] {{\"format_version\":\"1.2\",\"x\":1}}\n");
    let file = Temp::file("unreadable_document", broken.as_bytes());
    let out = render(&[file.arg()]);
    assert_rendered_then_bad_input(&out, &["document 4 (live/cache)"]);
    assert!(
        out.stderr.contains("none of the members every plan has"),
        "{}",
        out.stderr
    );
    let expected = std::fs::read_to_string(
        crate_dir()
            .join(TERRAGRUNT)
            .join("run-all-show-json/expected.txt"),
    )
    .unwrap();
    assert_eq!(out.stdout, expected);
    let comment = run(&["render", file.arg()], None);
    assert_rendered_then_bad_input(&comment, &["document 4 (live/cache)"]);
    assert!(comment
        .stdout
        .contains("`live/cache` — Plan could not be read"));
}

#[test]
fn a_dry_run_comment_shows_the_unreadable_plan_and_exits_2() {
    let good = fixture("tests/fixtures/real-plans/nothing_to_do/plan.json");
    let bad = Temp::file("unreadable_dry_run", b"hello");
    let out = run(
        &[
            "comment",
            "--dry-run",
            "--pr",
            "7",
            "--repo",
            "o/r",
            &format!("good={good}"),
            &format!("bad={}", bad.arg()),
        ],
        None,
    );
    assert_rendered_then_bad_input(&out, &[bad.arg()]);
    // Not "no changes": a plan that cannot be read is news.
    assert!(out.stdout.contains("create or update"), "{}", out.stdout);
    assert!(
        out.stdout.contains("`bad` — Plan could not be read"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_single_unreadable_plan_still_fails_before_any_output() {
    let bad = Temp::file("unreadable_single", b"hello");
    for args in [vec![bad.arg()], vec!["--format", "markdown", bad.arg()]] {
        let mut all = vec!["render"];
        all.extend(args);
        let out = run(&all, None);
        assert_input_error(&out, bad.arg(), &["not valid JSON"]);
    }
    let other = Temp::file("unreadable_both", b"[]");
    let out = run(&["render", bad.arg(), other.arg()], None);
    assert_eq!(out.code(), 2);
    assert_eq!(out.stdout, "", "none readable: no output");
}

#[test]
fn a_module_directory_holding_json_punctuation_keeps_its_plan_and_whole_name() {
    let dir = format!("{TERRAGRUNT}/labels-with-json-punctuation");
    let path = fixture(&format!("{dir}/plans.txt"));
    let text = render(&[&path]);
    assert_success(&text);
    let expected = std::fs::read_to_string(crate_dir().join(&dir).join("expected.txt")).unwrap();
    assert_eq!(text.stdout, expected);
    let headings: Vec<&str> = text
        .stdout
        .lines()
        .filter(|l| l.starts_with("## "))
        .collect();
    assert_eq!(
        headings,
        [
            "## live/app",
            "## live/prod,\"db\"",
            "## live/other",
            "## live/a]b {\"c\"}"
        ]
    );
    // The added destroys are each plan's own, rendered as the plan alone.
    for (name, plan) in [
        ("live/prod,\"db\"", "teardown"),
        ("live/a]b {\"c\"}", "removals"),
    ] {
        let alone = render(&[&fixture(&format!(
            "tests/fixtures/real-plans/{plan}/plan.json"
        ))]);
        assert!(
            text.stdout
                .contains(&format!("## {name}\n{}", alone.stdout)),
            "{name}"
        );
    }
    let comment = run(&["render", &path], None);
    assert_success(&comment);
    assert!(comment.stdout.contains("4 plans"), "{}", comment.stdout);
    for name in ["`live/prod,\"db\"`", "`live/a]b {\"c\"}`"] {
        assert!(comment.stdout.contains(name), "{name}:\n{}", comment.stdout);
    }
}

#[test]
fn a_labelled_line_that_is_not_a_whole_document_is_named_unreadable() {
    let text = std::fs::read_to_string(
        crate_dir()
            .join(TERRAGRUNT)
            .join("run-all-show-json/plans.txt"),
    )
    .unwrap();
    let broken = format!(
        "{text}[live/\"cache\",{{x}}] {{\"format_version\":\"1.2\",\"planned_values\":{{\n"
    );
    let file = Temp::file("unreadable_labelled_line", broken.as_bytes());
    let out = render(&[file.arg()]);
    assert_rendered_then_bad_input(&out, &["document 4 (live/\"cache\",{x})"]);
    assert!(out.stderr.contains("is truncated"), "{}", out.stderr);
    let comment = run(&["render", file.arg()], None);
    assert_rendered_then_bad_input(&comment, &["document 4"]);
    assert!(
        comment
            .stdout
            .contains("`live/\"cache\",{x}` — Plan could not be read"),
        "{}",
        comment.stdout
    );
}
