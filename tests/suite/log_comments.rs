//! Comments for failed plans, logs with warnings and policy violations: golden files for
//! the real Terraform logs of tests/fixtures/logs (copied beside their comments in
//! tests/fixtures/comment/<case>/), hostile log text, the size limit, and the command
//! line's handling of bad logs and `render` (exit codes 2 and 3).

use crate::support;

use std::path::{Path, PathBuf};

use crate::support::check::{check_markdown, live_references};
use planmark::diff::DiffedPlan;
use planmark::input::log::parse_log;
use planmark::policy::{evaluate, Policy, Rule};
use planmark::render::markdown::{render_comment_with, Comment, Extras, TemplateSet};
use support::temp::TempDir;
use support::{fixtures_dir, golden};

fn read_log(path: &Path) -> planmark::input::log::PlanLog {
    let bytes = std::fs::read(path).unwrap();
    parse_log(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn log(file: &str) -> planmark::input::log::PlanLog {
    read_log(&fixtures_dir().join("logs").join(file))
}

fn render(plans: &[(&str, &planmark::diff::PlanDiff)], extras: &Extras<'_>, max: usize) -> Comment {
    let meta = support::comment::meta("main");
    support::comment::with_named(plans, |named| {
        render_comment_with(named, &meta, extras, &TemplateSet::default(), max)
    })
    .unwrap_or_else(|e| panic!("render failed: {e}"))
}

fn assert_wellformed(label: &str, comment: &Comment, max: usize) {
    let md = &comment.markdown;
    assert!(
        check_markdown(md).is_empty(),
        "{label}: {:?}\n{md}",
        check_markdown(md)
    );
    assert!(
        live_references(md).is_empty(),
        "{label}: {:?}\n{md}",
        live_references(md)
    );
    assert!(md.encode_utf16().count() <= max, "{label}: too long");
    assert!(
        md.contains("<!-- planmark:v1 {\"key\":\"main\""),
        "{label}: no marker"
    );
}

/// The comment cases under `tests/fixtures/comment/` rendered here, from a log or with
/// policy violations; `markdown` renders the others, plans alone.
pub(crate) const LOG_CASES: [&str; 4] = ["failed_json", "failed_text", "warnings", "policy"];

/// `tests/fixtures/comment/<case>/<file>`.
fn case_file(case: &str, file: &str) -> PathBuf {
    fixtures_dir().join("comment").join(case).join(file)
}

/// The cases of [`LOG_CASES`], each against its `expected.md` (`PLANMARK_BLESS=1` writes it).
#[test]
fn golden_log_and_policy_comments() {
    let warnings_plan = support::comment::load(&case_file("warnings", "plan.json")).unwrap();
    let removals = support::comment::load(&case_file("policy", "plan.json")).unwrap();
    let failed_json = read_log(&case_file("failed_json", "failed.jsonl"));
    let failed_color = read_log(&case_file("failed_text", "failed-color.txt"));
    let warnings = read_log(&case_file("warnings", "warnings.jsonl"));
    let policy = Policy {
        fail_on: vec![Rule::Destroy],
        max_destroy: Some(2),
        protect: vec!["null_resource.shard".into()],
    };
    let lists = DiffedPlan::new(&removals);
    let violations = evaluate(&policy, &[("main", lists.head, lists.changes())]);
    let cases: Vec<(&str, Comment)> = vec![
        (
            "failed_json",
            render(
                &[],
                &Extras {
                    failed: Some("main"),
                    log: Some(&failed_json),
                    violations: &[],
                    rego: &[],
                    rego_warn_only: false,
                    unreadable: &[],
                    applied: None,
                },
                65_536,
            ),
        ),
        (
            "failed_text",
            render(
                &[],
                &Extras {
                    failed: Some("main"),
                    log: Some(&failed_color),
                    violations: &[],
                    rego: &[],
                    rego_warn_only: false,
                    unreadable: &[],
                    applied: None,
                },
                65_536,
            ),
        ),
        (
            "warnings",
            render(
                &[("main", &warnings_plan)],
                &Extras {
                    failed: None,
                    log: Some(&warnings),
                    violations: &[],
                    rego: &[],
                    rego_warn_only: false,
                    unreadable: &[],
                    applied: None,
                },
                65_536,
            ),
        ),
        (
            "policy",
            render(
                &[("main", &removals)],
                &Extras {
                    failed: None,
                    log: None,
                    violations: &violations,
                    rego: &[],
                    rego_warn_only: false,
                    unreadable: &[],
                    applied: None,
                },
                65_536,
            ),
        ),
    ];
    let names: Vec<&str> = cases.iter().map(|(name, _)| *name).collect();
    assert_eq!(names, LOG_CASES, "every log case is rendered");
    let mut failures = Vec::new();
    for (name, comment) in cases {
        assert_wellformed(name, &comment, 65_536);
        let expected = case_file(name, "expected.md");
        failures.extend(golden::check(&expected, &comment.markdown).err());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The (severity, summary) of each diagnostic of `log`, in order.
fn summaries(log: &planmark::input::log::PlanLog) -> Vec<(&str, &str)> {
    log.diagnostics
        .iter()
        .map(|d| (d.severity.as_str(), d.summary.as_str()))
        .collect()
}

#[test]
fn real_logs_read_as_terraform_wrote_them() {
    let failed = log("failed.jsonl");
    assert_eq!(failed.terraform_version.as_deref(), Some("1.0.3"));
    assert_eq!(
        summaries(&failed),
        [
            ("warning", "Value for undeclared variable"),
            ("error", "Invalid count argument")
        ]
    );
    // The plain output of the same run: unboxed blocks, the same two diagnostics.
    let plain = log("failed-plain.txt");
    assert_eq!(
        summaries(&plain),
        [
            ("warning", "Value for undeclared variable"),
            ("error", "Invalid count argument")
        ]
    );
    // Coloured and boxed: no escape sequence or box character survives.
    let color = log("failed-color.txt");
    assert_eq!(
        color.diagnostics[0].summary,
        "Reference to undeclared resource"
    );
    let text = color.diagnostics[0].text.clone().unwrap();
    assert!(
        text.starts_with("  on main.tf line 3, in resource"),
        "{text}"
    );
    assert!(
        !text.contains('\u{1b}') && !text.contains('│') && !text.contains('╷'),
        "{text}"
    );
    assert_eq!(
        log("warnings.jsonl").count(planmark::input::log::Severity::Warning),
        3
    );
}

/// The comment without its fenced code blocks (a fence closes with a run of at least as
/// many backticks as opened it).
fn outside_fences(md: &str) -> String {
    let mut out = String::new();
    let mut open: Option<usize> = None;
    for line in md.lines() {
        let ticks = line.chars().take_while(|c| *c == '`').count();
        match open {
            Some(n) if ticks >= n && line.trim_end().len() == ticks => open = None,
            Some(_) => {}
            None if ticks >= 3 => open = Some(ticks),
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

#[test]
fn hostile_log_text_stays_inert() {
    let summary =
        "@octo-org/admins #12 <img src=x onerror=alert(1)> ```` {{marker}} https://evil.example";
    let detail = "line one\n- item\n</details><!-- \n```\n@here GH-5";
    let line = serde_json::json!({"@level": "error", "type": "diagnostic", "diagnostic": {
        "severity": "error", "summary": summary, "detail": detail, "address": "aws_s3_bucket.x[\"`@a`\"]",
        "range": {"filename": "ma```in.tf", "start": {"line": 1, "column": 2}}, "snippet": {"code": "x = \"```\"\n</details>"}}});
    let json = parse_log(format!("{line}\n").as_bytes()).unwrap();
    let text = format!("\u{1b}[31m╷\u{1b}[0m\n│ Error: {summary}\n│\n│ {detail}\n╵\n");
    let text = parse_log(text.as_bytes()).unwrap();
    for (label, log) in [("json", &json), ("text", &text)] {
        let extras = Extras {
            failed: Some("@team"),
            log: Some(log),
            violations: &[],
            rego: &[],
            rego_warn_only: false,
            unreadable: &[],
            applied: None,
        };
        let comment = render(&[], &extras, 65_536);
        assert_wellformed(label, &comment, 65_536);
        let prose = outside_fences(&comment.markdown);
        for live in [
            "<img",
            "@octo-org/admins",
            "@here",
            "</details><!--",
            "{{marker}}",
        ] {
            assert!(
                !prose.contains(live),
                "{label}: {live} outside code:\n{prose}"
            );
        }
    }
}

#[test]
fn many_diagnostics_fit_the_limit_with_a_count() {
    let lines: String = (0..400)
        .map(|i| {
            let line = serde_json::json!({"type": "diagnostic", "diagnostic": {"severity": if i % 3 == 0 { "error" } else { "warning" },
                "summary": format!("Problem {i}"), "detail": "x<y ".repeat(300)}});
            format!("{line}\n")
        })
        .collect();
    let log = parse_log(lines.as_bytes()).unwrap();
    for max in [65_536, 10_000, 2_000] {
        let comment = render(
            &[],
            &Extras {
                failed: Some("main"),
                log: Some(&log),
                violations: &[],
                rego: &[],
                rego_warn_only: false,
                unreadable: &[],
                applied: None,
            },
            max,
        );
        assert_wellformed(&format!("max {max}"), &comment, max);
        let d = comment.context.diagnostics.as_ref().unwrap();
        assert!(d.omitted > 0, "max {max}: nothing omitted");
        if max > 2_000 {
            assert!(
                comment
                    .markdown
                    .contains(&format!("and {} more not shown", d.omitted)),
                "max {max}"
            );
        }
        assert_eq!(d.items[0].severity, "error", "errors come first");
    }
}

fn planmark(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_planmark"))
        .args(args)
        .env("SOURCE_DATE_EPOCH", "1795341600")
        .env_remove("GITHUB_ACTIONS")
        .output()
        .unwrap()
}

#[test]
fn bad_logs_are_bad_input_with_one_line() {
    let dir = TempDir::new("badlog");
    let binary = dir.join("tfplan");
    std::fs::write(&binary, b"PK\x03\x04\0\0\0garbage").unwrap();
    let broken = dir.join("broken.jsonl");
    std::fs::write(&broken, "{\"type\":\"version\"}\n{\"type\":\"diagnostic\",\"diagnostic\":{\"severity\":\"error\"}}\n").unwrap();
    let missing = dir.join("missing.log");
    for (path, words) in [
        (&binary, "is a binary file"),
        (
            &broken,
            "line 2: a diagnostic message that cannot be read (missing field `summary`)",
        ),
        (&missing, "cannot read"),
    ] {
        let path = path.display().to_string();
        let out = planmark(&["render", "--failed", &path]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(
            stderr.starts_with(&format!("planmark: error: {path}: ")) && stderr.contains(words),
            "{stderr}"
        );
    }
    // `--failed` takes no plan.
    let plan = fixtures_dir()
        .join("logs/warnings-plan.json")
        .display()
        .to_string();
    let log = fixtures_dir()
        .join("logs/failed.jsonl")
        .display()
        .to_string();
    assert_eq!(
        planmark(&["render", "--failed", &log, &plan]).status.code(),
        Some(2)
    );
}

#[test]
fn render_previews_failures_and_exits_3_on_violations() {
    let log = fixtures_dir()
        .join("logs/failed-plain.txt")
        .display()
        .to_string();
    let out = planmark(&["render", "--format", "text", "--failed", &log]);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.starts_with(
            "Terraform could not make the plan.\n\nWarning: Value for undeclared variable\n"
        ),
        "{text}"
    );
    assert!(
        text.contains("Error: Invalid count argument\n\n  on main.tf line 2"),
        "{text}"
    );

    let plan = fixtures_dir()
        .join("real-plans/teardown/plan.json")
        .display()
        .to_string();
    let out = planmark(&[
        "render",
        "--fail-on",
        "destroy,replace",
        "--protect",
        "null_*",
        &plan,
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("**Policy: 16 violations**"));
    assert_eq!(stderr.lines().count(), 16, "{stderr}");
    assert!(
        stderr
            .lines()
            .all(|l| l.starts_with("planmark: policy: ") && l.ends_with(')')),
        "{stderr}"
    );
}

/// Hostile multi-line texts: block syntax after leading spaces or a tab, and lines that
/// read like planmark's own.
const BLOCKY: &[&str] = &[
    "   ---",
    "\t- item",
    "  * star\n  + plus",
    " 1. one\n 2) two",
    "    indented code",
    "\tindented code",
    "  > quote",
    "  # heading",
    "  | a | b |\n  |---|---|\n  | 1 | 2 |",
    "  ```\n  fenced\n  ```",
    "  ~~~\n  tilde\n  ~~~",
    "  <details><summary>x</summary>",
    "text\n   ---\nmore",
    "text\n===",
    "Plan: 0 to add, 0 to change, 0 to destroy.",
    "### ✅ No changes",
    "> [!CAUTION]\n> **Planning failed.**",
    "  [!NOTE]\n- [ ] task",
];

/// The comment's block structure: each block-level element in order with its depth.
fn blocks(md: &str) -> Vec<String> {
    use pulldown_cmark::{Event, Options, Parser, Tag};
    let options = Options::ENABLE_TABLES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_GFM
        | Options::ENABLE_FOOTNOTES;
    let mut depth = 0usize;
    let mut out = Vec::new();
    for event in Parser::new_ext(md, options) {
        match event {
            Event::Start(tag) => {
                let block = matches!(
                    tag,
                    Tag::Paragraph
                        | Tag::Heading { .. }
                        | Tag::BlockQuote(_)
                        | Tag::CodeBlock(_)
                        | Tag::HtmlBlock
                        | Tag::List(_)
                        | Tag::Item
                        | Tag::Table(_)
                        | Tag::TableRow
                        | Tag::FootnoteDefinition(_)
                );
                if block {
                    out.push(format!("{depth}:{tag:?}"));
                }
                depth += 1;
            }
            Event::End(_) => depth -= 1,
            Event::Rule => out.push(format!("{depth}:Rule")),
            Event::TaskListMarker(_) => out.push(format!("{depth}:Task")),
            _ => {}
        }
    }
    out
}

/// Text of top-level paragraphs and headings: what reads as planmark's own.
fn standalone_text(md: &str) -> String {
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};
    let mut depth = 0usize;
    let mut top = false;
    let mut out = String::new();
    for event in Parser::new_ext(md, pulldown_cmark::Options::ENABLE_GFM) {
        match event {
            Event::Start(tag) => {
                if depth == 0 {
                    top = matches!(tag, Tag::Paragraph | Tag::Heading { .. });
                }
                depth += 1;
            }
            Event::End(end) => {
                depth -= 1;
                if depth == 0 && matches!(end, TagEnd::Paragraph | TagEnd::Heading(_)) {
                    out.push('\n');
                }
            }
            Event::Text(t) if top => out.push_str(&t),
            _ => {}
        }
    }
    out
}

/// A comment whose log and checks carry `text` as a diagnostic's summary and detail and
/// as a check's message.
fn blocky_comment(text: &str) -> String {
    let line = serde_json::json!({"@level": "error", "type": "diagnostic", "diagnostic": {
        "severity": "error", "summary": text, "detail": text}});
    let log = parse_log(format!("{line}\n").as_bytes()).unwrap();
    // `errored`, as Terraform 1.6+ writes in every plan: a document with none of a plan's
    // members is refused as not a plan.
    let plan = serde_json::json!({"format_version": "1.2", "terraform_version": "1.9.0",
        "errored": false, "checks": [{"address": {"kind": "resource", "to_display": "null_resource.x"},
            "status": "fail", "instances": [{"address": {"to_display": "null_resource.x"},
            "status": "fail", "problems": [{"message": text}]}]}]});
    let plan_text = plan.to_string();
    let parsed = planmark::input::plan::parse_plan("plan.json", plan_text.as_bytes()).unwrap();
    let diff = planmark::differ::diff_plan("plan.json", &parsed, None, None).unwrap();
    let extras = Extras {
        failed: None,
        log: Some(&log),
        violations: &[],
        rego: &[],
        rego_warn_only: false,
        unreadable: &[],
        applied: None,
    };
    let comment = render(&[("plan", &diff)], &extras, 65_536);
    assert_wellformed(text, &comment, 65_536);
    comment.markdown
}

#[test]
fn indented_or_familiar_text_starts_no_block_and_never_stands_alone() {
    let benign = blocky_comment("x");
    let structure = blocks(&benign);
    assert!(
        structure.iter().any(|b| b.contains("BlockQuote")),
        "{structure:?}"
    );
    for text in BLOCKY {
        let md = blocky_comment(text);
        assert_eq!(
            blocks(&md),
            structure,
            "{text:?} changed the comment's blocks:\n{md}"
        );
        // No line of planmark's own paragraphs and headings starts with the text's first
        // line, as if planmark had written it.
        let first = text.trim_start().lines().next().unwrap().trim();
        let alone = standalone_text(&md);
        assert!(
            !alone.lines().any(|l| l.trim_start().starts_with(first)),
            "{text:?} stands alone as planmark's own line:\n{alone}\n---\n{md}"
        );
    }
}

/// Runs of 7 to 40 hex digits standing as a word in the comment's text outside code:
/// GitHub links each to a commit.
fn bare_shas(md: &str) -> Vec<String> {
    use pulldown_cmark::{Event, Parser, Tag, TagEnd};
    let mut text = String::new();
    let mut in_code = false;
    for event in Parser::new_ext(md, pulldown_cmark::Options::ENABLE_GFM) {
        match event {
            Event::Start(Tag::CodeBlock(_)) => in_code = true,
            Event::End(TagEnd::CodeBlock) => in_code = false,
            Event::Text(t) if !in_code => text.push_str(&t),
            _ => text.push(' '),
        }
    }
    let mut found = Vec::new();
    for word in text.split(|c: char| !c.is_ascii_alphanumeric()) {
        if (7..=40).contains(&word.len()) && word.bytes().all(|b| b.is_ascii_hexdigit()) {
            found.push(word.to_string());
        }
    }
    found
}

#[test]
fn commit_shas_in_prose_are_not_links() {
    for sha in [
        "a5c3785",
        "1234567",
        "a5c3785ed8d6",
        "A5C3785eD8D6a35868bc169f07e40e889087fD2E",
    ] {
        let text = format!("reverted {sha}, see {sha}.\n{sha}");
        let md = blocky_comment(&text);
        assert!(md.contains("reverted"), "{md}");
        assert_eq!(bare_shas(&md), Vec::<String>::new(), "{sha}:\n{md}");
        // The same text in a code span is left alone (GitHub links nothing there).
        assert_eq!(bare_shas(&format!("`{sha}`")), Vec::<String>::new());
        assert_eq!(
            bare_shas(&format!("x {sha}.")),
            [sha],
            "the detector sees it"
        );
        // --title is prose too.
        let title = format!("deploy {sha}");
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_planmark"))
            .args(["render", "--title", &title, "examples/plan.json"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env_remove("GITHUB_ACTIONS")
            .output()
            .unwrap();
        let md = String::from_utf8(out.stdout).unwrap();
        assert!(md.starts_with("### ") && md.contains("deploy"), "{md}");
        assert_eq!(bare_shas(&md), Vec::<String>::new(), "{title}:\n{md}");
    }
}
