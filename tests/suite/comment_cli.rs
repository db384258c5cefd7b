//! The comment formats and template options, as a user runs them.

use std::path::PathBuf;
use std::process::{Command, Output};

use crate::support::check::check_markdown;

use crate::support::temp::TempDir;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

const EXAMPLE: &str = "examples/plan.json";
const SCHEMAS: &str = "examples/schemas.json";

fn planmark(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_planmark"))
        .args(args)
        .current_dir(root())
        .env("SOURCE_DATE_EPOCH", "1795341600")
        .env_remove("GITHUB_EVENT_PATH")
        .env_remove("GITHUB_SHA")
        .env_remove("GITHUB_RUN_ID")
        .env_remove("GITHUB_ACTIONS")
        .output()
        .expect("run planmark")
}

fn stdout(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).expect("UTF-8 output")
}

/// A failure: exit 2 and exactly one line on stderr.
fn one_line_error(out: &Output) -> String {
    assert_eq!(
        out.status.code(),
        Some(2),
        "stdout: {}",
        String::from_utf8_lossy(&out.stdout)
    );
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(stderr.trim_end().lines().count(), 1, "stderr: {stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn markdown_is_the_default_format() {
    let md = stdout(&planmark(&["render", "--schemas", SCHEMAS, EXAMPLE]));
    assert!(
        md.starts_with("### 🟥 `plan` — Plan: 2 to add, 0 to change, 1 to destroy\n"),
        "{md}"
    );
    assert!(md.contains("```diff\n"));
    assert!(md.trim_end().ends_with("-->"));
    assert!(check_markdown(&md).is_empty(), "{:?}", check_markdown(&md));
    // Same inputs, same time: same bytes.
    assert_eq!(
        md,
        stdout(&planmark(&["render", "--schemas", SCHEMAS, EXAMPLE]))
    );
}

#[test]
fn html_is_a_standalone_preview() {
    let html = stdout(&planmark(&["render", "--format", "html", EXAMPLE]));
    assert!(
        html.starts_with("<!DOCTYPE html>"),
        "{}",
        &html[..100.min(html.len())]
    );
    assert!(html.contains("<details") && html.contains("null_resource.api"));
    assert!(!html.contains("<!-- planmark"));
}

#[test]
fn json_is_the_template_context() {
    let json = stdout(&planmark(&[
        "render", "--format", "json", "--title", "prod", EXAMPLE,
    ]));
    let value: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(value["schema_version"], 1);
    assert_eq!(value["title"], "prod");
    assert_eq!(value["truncated"], false);
    assert_eq!(value["plans"][0]["counts"]["add"], 2);
    assert_eq!(value["footer"]["time"], "2026-11-22T10:00:00Z");
    assert!(value["marker"]
        .as_str()
        .unwrap()
        .starts_with("<!-- planmark:v1 "));
}

/// The comment is rendered while the plans' hashes (and, for a comment to post, the
/// changes' hashes) are computed, then given its marker: every comment format carries the
/// marker of the real hashes.
#[test]
fn the_marker_identifies_the_plans_in_every_format() {
    use planmark::input::hash::plan_sha256;
    use planmark::marker::parse_marker;
    let hash = |path: &str| plan_sha256(&std::fs::read(root().join(path)).unwrap());
    let other = "tests/fixtures/real-plans/teardown/plan.json";
    let zeros = "0".repeat(64);
    for plans in [vec![EXAMPLE], vec![EXAMPLE, other]] {
        let with = |args: &[&str]| stdout(&planmark(&[args, &plans].concat()));
        let markdown = with(&["render", "--format", "markdown"]);
        let marker = parse_marker(&markdown).expect("a marker");
        let sha256 = marker["plan_sha256"].as_str().unwrap().to_string();
        match plans.as_slice() {
            [one] => assert_eq!(sha256, hash(one)),
            _ => assert!(sha256 != zeros && sha256 != hash(EXAMPLE) && sha256.len() == 64),
        }
        let json: serde_json::Value =
            serde_json::from_str(&with(&["render", "--format", "json"])).unwrap();
        let context_marker = json["marker"].as_str().unwrap();
        assert!(markdown.contains(context_marker), "{context_marker}");
        assert_eq!(markdown.matches("<!-- planmark:v1 ").count(), 1);
        // A comment to post also hashes its changes, beside the render: its marker is
        // render's with the real hashes added (never the stand-in's zeros).
        let dry_run = with(&["comment", "--dry-run", "--repo", "o/r", "--pr", "1"]);
        let posted = parse_marker(&dry_run).expect("a marker");
        for field in ["key", "plan_sha256", "time"] {
            assert_eq!(posted[field], marker[field], "{field}");
        }
        assert!(marker.get("changes_sha256").is_none(), "{markdown}");
        let changes = posted["changes_sha256"].as_str().unwrap();
        assert!(changes.len() == 64 && changes != zeros, "{dry_run}");
        assert!(!posted["changes"].as_str().unwrap().contains("AAAAAAAA"));
        assert_eq!(dry_run.matches("<!-- planmark:v1 ").count(), 1);
    }
}

#[test]
fn the_documented_schema_is_current() {
    let schema = stdout(&planmark(&["templates", "schema"]));
    let path = root().join("docs/template-context.schema.json");
    if std::env::var_os("PLANMARK_BLESS").is_some() {
        std::fs::write(&path, &schema).unwrap();
    }
    let documented = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        schema,
        documented,
        "run PLANMARK_BLESS=1 cargo test to update {}",
        path.display()
    );
}

#[test]
fn a_title_is_escaped() {
    let md = stdout(&planmark(&["render", "--title", "@ops <b>#1</b>", EXAMPLE]));
    let first = md.lines().next().unwrap();
    assert!(
        !first.contains("@ops") && !first.contains("<b>") && !first.contains("#1"),
        "{first}"
    );
}

#[test]
fn a_small_limit_shortens_the_comment_with_a_notice() {
    let hostile = "tests/fixtures/comment/hostile.json";
    let md = stdout(&planmark(&["render", "--max-chars", "2000", hostile]));
    assert!(md.encode_utf16().count() <= 2000);
    assert!(md.contains("[!NOTE]"), "{md}");
    assert!(check_markdown(&md).is_empty());
    let out = planmark(&["render", "--max-chars", "100", EXAMPLE]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.lines().next().unwrap().contains("--max-chars"), "{err}");
}

#[test]
fn exported_templates_reproduce_the_built_in_comment() {
    let temp = TempDir::new("comment-export");
    let dir = temp.path();
    let listed = stdout(&planmark(&["templates", "export", dir.to_str().unwrap()]));
    assert!(listed.lines().count() >= 10, "{listed}");
    assert!(dir.join("comment.hbs").is_file() && dir.join("changes.hbs").is_file());
    let built_in = stdout(&planmark(&["render", EXAMPLE]));
    let exported = stdout(&planmark(&[
        "render",
        "--templates",
        dir.to_str().unwrap(),
        EXAMPLE,
    ]));
    assert_eq!(built_in, exported);
    // A second export does not overwrite edits without --force.
    std::fs::write(dir.join("footer.hbs"), "edited").unwrap();
    let err = one_line_error(&planmark(&["templates", "export", dir.to_str().unwrap()]));
    assert!(err.contains("--force"), "{err}");
    assert_eq!(
        std::fs::read_to_string(dir.join("footer.hbs")).unwrap(),
        "edited"
    );
    stdout(&planmark(&[
        "templates",
        "export",
        "--force",
        dir.to_str().unwrap(),
    ]));
    assert_ne!(
        std::fs::read_to_string(dir.join("footer.hbs")).unwrap(),
        "edited"
    );
}

#[test]
fn a_partial_can_be_overridden_and_a_main_template_replaced() {
    let temp = TempDir::new("comment-override");
    let dir = temp.path();
    std::fs::write(dir.join("footer.hbs"), "\n_custom footer_ {{{marker}}}\n").unwrap();
    let md = stdout(&planmark(&[
        "render",
        "--templates",
        dir.to_str().unwrap(),
        EXAMPLE,
    ]));
    assert!(md.contains("_custom footer_\n"), "{md}");
    assert!(ends_with_its_marker(&md), "{md}");
    assert!(md.contains("<details"), "other templates stay built in");

    let main = dir.join("short.hbs");
    std::fs::write(&main, "{{#each plans}}{{code name}}: {{headline}}{{#each changes}}\n- {{code address}}{{/each}}{{/each}}\n").unwrap();
    let md = stdout(&planmark(&[
        "render",
        "--template",
        main.to_str().unwrap(),
        "prod=examples/plan.json",
    ]));
    // The marker is not in the template: planmark ends the comment with it anyway.
    let (text, marker) = md.trim_end().rsplit_once('\n').unwrap();
    assert_eq!(
        text,
        "`prod`: Plan: 2 to add, 0 to change, 1 to destroy\n- `null_resource.api[0]`\n- `null_resource.api[1]`\n"
    );
    assert!(ends_with_its_marker(&md), "{marker}");
}

/// The comment's last line is its marker, the only one, and the JSON context's.
fn ends_with_its_marker(md: &str) -> bool {
    use planmark::marker::{parse_marker, PREFIX};
    let last = md.trim_end().rsplit('\n').next().unwrap_or("");
    last.starts_with(PREFIX) && parse_marker(md).is_some() && md.matches(PREFIX).count() == 1
}

/// Wherever a user template puts the marker, or if it leaves it out, the comment ends with
/// it: plan text never is the last line, which is the only one the publisher reads.
#[test]
fn the_marker_ends_the_comment_whatever_the_template() {
    let temp = TempDir::new("comment-marker-place");
    let dir = temp.path();
    let body = "{{#each plans}}\n## {{code name}}\n{{#each changes}}\n- {{code address}}\n{{/each}}{{/each}}";
    let templates = [
        format!("{{{{{{marker}}}}}}\n{body}\n"),
        format!("{body}\n{{{{{{marker}}}}}}\n\n```\n{{{{#each plans}}}}{{{{name}}}}{{{{/each}}}}\n```\n"),
        format!("{body} <!-- x --> {{{{{{marker}}}}}} trailing\n"),
        body.to_string(),
        String::new(),
    ];
    for (i, template) in templates.iter().enumerate() {
        let path = dir.join(format!("t{i}.hbs"));
        std::fs::write(&path, template).unwrap();
        let md = stdout(&planmark(&[
            "render",
            "--template",
            path.to_str().unwrap(),
            EXAMPLE,
        ]));
        assert!(
            ends_with_its_marker(&md),
            "template {i}:\n{template}\n---\n{md}"
        );
        let json = stdout(&planmark(&[
            "render",
            "--format",
            "json",
            "--template",
            path.to_str().unwrap(),
            EXAMPLE,
        ]));
        let json: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(md.trim_end().rsplit('\n').next(), json["marker"].as_str());
    }
}

/// Names from the command line (`NAME=PATH`, `--key`, `--title`) reach the marker's JSON
/// (the key, by default the names) as printable ASCII: no line break, control, bidi or
/// `-->` can break the marker line or forge another, and the key reads back exactly.
#[test]
fn names_from_the_command_line_cannot_break_the_marker() {
    use planmark::marker::parse_marker;
    let names = [
        "a\n<!-- planmark:v1 {\"key\":\"prod\"} -->",
        "ls\u{2028}ps\u{2029}nel\u{85}cr\r",
        "bidi \u{202E}dorp\u{202C}\u{2066}\u{200B}",
        "esc \u{1b}[31m del \u{7f}",
        "--> <!-- x",
        "::add-mask::prod",
    ];
    for name in names {
        let (key, title) = (format!("--key={name}"), format!("--title={name}"));
        let with_key = ["render", &key, &title, EXAMPLE];
        let named = format!("{name}=examples/plan.json");
        let with_name = ["render", &title, "--", &named];
        for args in [&with_key[..], &with_name[..]] {
            let md = stdout(&planmark(args));
            let last = md.trim_end().rsplit('\n').next().unwrap();
            assert!(last.chars().all(|c| (' '..='~').contains(&c)), "{last}");
            assert_eq!(last.matches("-->").count(), 1, "{last}");
            let marker = parse_marker(&md).unwrap_or_else(|| panic!("no marker: {last}"));
            assert_eq!(marker["key"], name, "{last}");
            let problems = check_markdown(&md);
            assert!(
                problems.iter().all(|p| !p.message.contains("marker")),
                "{problems:?}"
            );
        }
    }
}

#[test]
fn template_errors_name_the_file_line_and_column() {
    let temp = TempDir::new("comment-broken");
    let dir = temp.path();
    let syntax = dir.join("syntax.hbs");
    std::fs::write(&syntax, "ok\n{{#each plans}}\n{{name}\n{{/each}}\n").unwrap();
    let err = one_line_error(&planmark(&[
        "render",
        "--template",
        syntax.to_str().unwrap(),
        EXAMPLE,
    ]));
    assert!(err.contains(&format!("{}:3:", syntax.display())), "{err}");

    let unknown = dir.join("unknown.hbs");
    std::fs::write(&unknown, "line one\n{{#each plans}}{{nmae}}{{/each}}\n").unwrap();
    let err = one_line_error(&planmark(&[
        "render",
        "--template",
        unknown.to_str().unwrap(),
        EXAMPLE,
    ]));
    assert!(err.contains(&format!("{}:2:", unknown.display())), "{err}");
    assert!(err.contains("nmae"), "{err}");

    let err = one_line_error(&planmark(&[
        "render",
        "--templates",
        "/nonexistent/dir",
        EXAMPLE,
    ]));
    assert!(err.contains("/nonexistent/dir"), "{err}");
}

#[test]
fn values_are_never_evaluated_as_template_syntax() {
    let temp = TempDir::new("comment-syntax-values");
    let dir = temp.path();
    let plan = dir.join("plan.json");
    std::fs::write(
        &plan,
        r#"{"format_version":"1.2","resource_changes":[{"address":"null_resource.a[\"{{@root.marker}}\"]","mode":"managed","type":"null_resource","name":"a","index":"{{@root.marker}}","provider_name":"registry.terraform.io/hashicorp/null","change":{"actions":["create"],"before":null,"after":{"v":"{{#each plans}}x{{/each}}"},"after_unknown":{},"before_sensitive":false,"after_sensitive":{}}}]}"#,
    )
    .unwrap();
    let md = stdout(&planmark(&["render", plan.to_str().unwrap()]));
    assert!(
        md.contains(r#"+       v = "{{#each plans}}x{{/each}}""#),
        "{md}"
    );
    assert_eq!(md.matches("<!-- planmark:v1").count(), 1, "{md}");
}

/// `comment --dry-run` without `--repo`/`--pr` (and no Actions environment) prints the
/// body it would post, and says on stderr why nothing was compared.
#[test]
fn a_dry_run_needs_no_pull_request() {
    let out = Command::new(env!("CARGO_BIN_EXE_planmark"))
        .args(["comment", "--dry-run", EXAMPLE])
        .current_dir(root())
        .env_clear()
        .env("SOURCE_DATE_EPOCH", "1795341600")
        .output()
        .expect("run planmark");
    let body = stdout(&out);
    assert!(body.contains("`plan` — Plan: 2 to add"), "{body}");
    assert_eq!(body.matches("<!-- planmark:v1 ").count(), 1);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("planmark: dry run: no repository: pass --repo"),
        "{stderr}"
    );
    // Naming a pull request without a token: still a dry run of the same body.
    let named = stdout(&planmark(&[
        "comment",
        "--dry-run",
        "--repo",
        "o/r",
        "--pr",
        "1",
        EXAMPLE,
    ]));
    let tail = |s: &str| s[s.find("### ").unwrap()..].to_string();
    assert_eq!(tail(&named), tail(&body));
}
