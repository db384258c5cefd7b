//! In GitHub Actions, plan strings and command-line names cannot issue workflow commands.

use super::*;

/// A plan whose value holds lines that are Actions workflow commands.
const WORKFLOW_COMMANDS_PLAN: &str = r#"{"format_version":"1.2","resource_changes":[{"address":"null_resource.x","mode":"managed","type":"null_resource","name":"x","provider_name":"registry.terraform.io/hashicorp/null","change":{"actions":["create"],"before":null,"after":{"triggers":{"a":"one\n::add-mask::x\n::error::pwn\n"},"name":"::warning::w"},"after_unknown":{"id":true},"before_sensitive":false,"after_sensitive":{}}}]}"#;

/// Runs `planmark render --format FORMAT -` on the plan above with `GITHUB_ACTIONS=true`.
fn render_in_actions(format: &str, stdout: Stdio) -> std::process::Output {
    render_args_in_actions(&["render", "--format", format, "-"], stdout)
}

/// Runs `planmark ARGS` with the plan above on standard input and `GITHUB_ACTIONS=true`.
fn render_args_in_actions(args: &[&str], stdout: Stdio) -> std::process::Output {
    let mut child = command(args)
        .env("GITHUB_ACTIONS", "true")
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(WORKFLOW_COMMANDS_PLAN.as_bytes()).unwrap();
    drop(stdin);
    child.wait_with_output().unwrap()
}

#[test]
fn in_actions_plan_strings_cannot_issue_workflow_commands() {
    let mut tokens = Vec::new();
    for format in ["text", "markdown", "json", "html"] {
        let out = render_in_actions(format, Stdio::piped());
        assert!(out.status.success(), "{out:?}");
        let stdout = String::from_utf8(out.stdout).unwrap();
        let lines: Vec<&str> = stdout.lines().collect();
        let token = lines[0]
            .strip_prefix("::stop-commands::")
            .unwrap_or_else(|| panic!("--format {format}: not paused first:\n{stdout}"));
        assert!(
            token.len() >= 32 && token.bytes().all(|b| b.is_ascii_hexdigit()),
            "{token}"
        );
        assert_eq!(
            lines.last(),
            Some(&format!("::{token}::").as_str()),
            "{stdout}"
        );
        // The runner trims leading whitespace before it looks for `::`.
        let commands: Vec<&&str> = lines[1..lines.len() - 1]
            .iter()
            .filter(|l| l.trim_start().starts_with("::"))
            .collect();
        if format == "text" {
            assert!(commands.len() >= 2, "the test plan's lines: {stdout}");
        }
        assert!(
            commands.iter().all(|l| !l.contains(token)),
            "a plan line resumes commands: {commands:?}"
        );
        assert!(String::from_utf8_lossy(&out.stderr).is_empty());
        tokens.push(token.to_string());
    }
    tokens.sort();
    tokens.dedup();
    assert_eq!(tokens.len(), 4, "every run draws a new token");
}

#[test]
fn output_redirected_to_a_file_is_not_wrapped() {
    let path = temp_path("actions-file", "out.md");
    let file = std::fs::File::create(&path).unwrap();
    let out = render_in_actions("markdown", Stdio::from(file));
    assert!(out.status.success(), "{out:?}");
    let written = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    assert!(written.starts_with("### "), "{written}");
    assert!(!written.contains("::stop-commands::"), "{written}");
}

#[test]
fn command_line_names_are_shown_like_plan_values() {
    let plan = "examples/plan.json";
    let key = "prod\u{202E}ved\n<script>x</script>\u{200B}";
    let html = run(&["render", "--format", "html", "--key", key, plan], None);
    assert_success(&html);
    let title = html
        .stdout
        .lines()
        .find(|l| l.starts_with("<title>"))
        .unwrap();
    assert_eq!(
        title,
        "<title>planmark — prod&lt;U+202E&gt;ved &lt;script&gt;x&lt;/script&gt;&lt;U+200B&gt;</title>"
    );
    assert!(!html.stdout.contains('\u{202E}') && !html.stdout.contains('\u{200B}'));

    // Names of several plans head their text; each stays on its line.
    let first = format!("a\u{202E}\n::error::pwn={plan}");
    let second = format!("b={plan}");
    let text = run(&["render", "--format", "text", &first, &second], None);
    assert_success(&text);
    assert!(
        text.stdout.starts_with("## a\\u{202E}\\n::error::pwn\n"),
        "{}",
        text.stdout
    );
    assert!(!text.stdout.lines().any(|l| l.starts_with("::")));
}

// ---------------------------------------------------------------------------
// Policy: replacements destroy
// ---------------------------------------------------------------------------

#[test]
fn output_file_is_not_wrapped_and_stdout_stays_empty() {
    let dir = Temp::dir("actions-o");
    let path = dir.path.join("comment.md");
    let out = render_args_in_actions(
        &["render", "-o", path.to_str().unwrap(), "-"],
        Stdio::piped(),
    );
    assert!(out.status.success(), "{out:?}");
    assert!(out.stdout.is_empty(), "{out:?}");
    let written = std::fs::read_to_string(&path).unwrap();
    let _ = std::fs::remove_dir_all(&dir.path);
    assert!(written.starts_with("### "), "{written}");
    assert!(!written.contains("::stop-commands::"), "{written}");
}
