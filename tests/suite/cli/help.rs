//! Each command's `--help`: its own flags, modes and exit codes.

use super::*;

#[test]
fn help_documents_exit_codes() {
    let out = run(&["--help"], None);
    assert_success(&out);
    assert!(out.stdout.contains("Exit codes"), "stdout:\n{}", out.stdout);
    assert!(out.stdout.contains("render"), "stdout:\n{}", out.stdout);
}

#[test]
fn render_help_documents_exit_codes() {
    let out = run(&["render", "--help"], None);
    assert_success(&out);
    for phrase in ["Exit codes", "--schemas", "--plan-mode", "PLAN"] {
        assert!(
            out.stdout.contains(phrase),
            "no {phrase:?} in:\n{}",
            out.stdout
        );
    }
}

// ---------------------------------------------------------------------------
// Several plans, golden render, write failures
// ---------------------------------------------------------------------------

fn help(args: &[&str]) -> String {
    let mut all = args.to_vec();
    all.push("--help");
    let out = run(&all, None);
    assert_success(&out);
    // Words only: clap wraps the text at its own width.
    out.stdout.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[test]
fn render_help_is_about_rendering() {
    let text = help(&["render"]);
    for phrase in [
        "--plan-mode <MODE>",
        "Usage: planmark render [OPTIONS] [PLAN]...",
        "Required, except with `--failed` (which takes none) and `--applied`",
    ] {
        assert!(text.contains(phrase), "no {phrase:?} in:\n{text}");
    }
    let lower = text.to_lowercase();
    // Whole words: "postcondition" is fine.
    let words: Vec<&str> = lower.split(|c: char| !c.is_alphanumeric()).collect();
    for word in ["post", "posts", "posting", "posted"] {
        assert!(
            !words.contains(&word),
            "render --help says {word:?}:\n{text}"
        );
    }
    for word in [
        "comment",
        "--key",
        "token",
        "github unreachable",
        "--mode <",
    ] {
        assert!(
            !lower.contains(word),
            "render --help mentions {word:?}:\n{text}"
        );
    }
    let max_chars = &text[text.find("--max-chars").unwrap()..];
    assert!(
        max_chars[..max_chars.find("[default").unwrap()].contains("at least 2000"),
        "--max-chars states its minimum:\n{text}"
    );
}

#[test]
fn comment_help_has_its_own_modes_and_a_required_plan() {
    let text = help(&["comment"]);
    for phrase in [
        "--comment-mode <MODE>",
        "--plan-mode <MODE>",
        "Usage: planmark comment [OPTIONS] [PLAN]...",
        "Required, except with `--failed` (which takes none) and `--applied`",
        "post (or update, under the same key) a comment",
        "GitHub unreachable",
        "at least 2000",
    ] {
        assert!(text.contains(phrase), "no {phrase:?} in:\n{text}");
    }
    assert!(
        !text.contains("--mode <"),
        "the old spelling is hidden:\n{text}"
    );
}

#[test]
fn templates_export_help_lists_only_its_own_exit_codes() {
    let text = help(&["templates", "export"]);
    assert!(text.contains("Exit codes"), "{text}");
    for word in ["GitHub", "policy", "format_version", "3  "] {
        assert!(
            !text.contains(word),
            "templates export --help mentions {word:?}:\n{text}"
        );
    }
}
