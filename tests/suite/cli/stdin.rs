//! A plan read from standard input, from a pipe or a terminal.

use super::*;

#[test]
fn stdin_plan_renders() {
    let plan = plan_creating(r#"{"triggers":{"a":"b"}}"#);
    let out = run(&["render", "--format", "text", "-"], Some(plan.as_bytes()));
    assert_success(&out);
    assert!(
        out.stdout.contains("# null_resource.a will be created"),
        "stdout:\n{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("Plan: 1 to add, 0 to change, 0 to destroy."),
        "stdout:\n{}",
        out.stdout
    );
}

#[test]
fn stdin_matches_file_rendering() {
    let expected = render(&[
        "--schemas",
        &format!("{BASIC_LIST}/schemas.json"),
        &format!("{BASIC_LIST}/plan.json"),
    ]);
    assert_success(&expected);
    let plan = std::fs::read(crate_dir().join(BASIC_LIST).join("plan.json")).unwrap();
    let out = run(
        &[
            "render",
            "--format",
            "text",
            "--schemas",
            &format!("{BASIC_LIST}/schemas.json"),
            "-",
        ],
        Some(&plan),
    );
    assert_success(&out);
    assert_eq!(out.stdout, expected.stdout);
}

#[test]
fn empty_stdin_names_standard_input() {
    let out = run(&["render", "-"], Some(b""));
    assert_input_error(&out, "-", &["is empty"]);
}

// ---------------------------------------------------------------------------
// Help
// ---------------------------------------------------------------------------

#[test]
fn stdin_from_a_pipe_prints_no_hint() {
    let plan = plan_creating(r#"{"triggers":{"a":"b"}}"#);
    let out = run(&["render", "-"], Some(plan.as_bytes()));
    assert_success(&out);
}

/// `render -` at a terminal says it is waiting for the plan; the plan typed (here written
/// to the terminal's other end, before the binary reads it) then renders as usual.
#[cfg(target_os = "linux")]
#[test]
fn stdin_at_a_terminal_says_it_is_reading_the_plan() {
    use std::io::Write;
    let pty = nix::pty::openpty(None, None).expect("openpty");
    let mut terminal = std::fs::File::from(pty.master);
    let plan = plan_creating(r#"{"triggers":{"a":"b"}}"#);
    // A line, then Ctrl-D at the start of a line: end of input in canonical mode. The
    // terminal keeps both until the binary reads, so nothing here can wait forever.
    terminal.write_all(plan.as_bytes()).unwrap();
    terminal.write_all(b"\n\x04").unwrap();
    let out = command(&["render", "--format", "text", "-"])
        .stdin(Stdio::from(pty.slave))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        stderr,
        "planmark: reading the plan from standard input (end it with Ctrl-D, or pass the plan's path instead of -)\n"
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("# null_resource.a will be created"),
        "{stdout}"
    );
}
