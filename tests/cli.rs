//! End-to-end tests of the `planmark` binary: exit codes, one-line error messages that
//! name the file and say what to do, stdin, help text, several plans, and a golden render.
//!
//! Every test runs the real binary (`CARGO_BIN_EXE_planmark`) with its working directory
//! at the crate root, `PLANMARK_SCHEMAS` and `RUST_BACKTRACE` removed from its environment
//! (so a panic would show Rust's "run with `RUST_BACKTRACE=1`" note, which we look for).
//! Inputs are written to uniquely named temporary files that are removed on drop.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

/// What one run of the binary produced.
struct Run {
    status: ExitStatus,
    stdout: String,
    stderr: String,
}

impl Run {
    /// The exit code; fails the test if the process was killed by a signal (a stack
    /// overflow or abort shows up here, not as a code).
    fn code(&self) -> i32 {
        match self.status.code() {
            Some(code) => code,
            None => panic!(
                "planmark did not exit normally ({}); stderr:\n{}",
                describe_signal(&self.status),
                self.stderr
            ),
        }
    }
}

#[cfg(unix)]
fn describe_signal(status: &ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status.signal() {
        Some(sig) => format!("killed by signal {sig}"),
        None => format!("{status}"),
    }
}

#[cfg(not(unix))]
fn describe_signal(status: &ExitStatus) -> String {
    format!("{status}")
}

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn command(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_planmark"));
    cmd.args(args)
        .current_dir(crate_dir())
        .env_remove("PLANMARK_SCHEMAS")
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE");
    cmd
}

/// Runs `planmark ARGS...`, feeding `stdin` (or nothing: stdin is then empty/closed).
fn run(args: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut child = command(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn planmark");
    let mut pipe = child.stdin.take().expect("stdin pipe");
    let input = stdin.unwrap_or_default().to_vec();
    // Write from another thread so a large input cannot deadlock against full output pipes.
    let writer = std::thread::spawn(move || {
        // The binary may exit before reading everything (e.g. on a usage error).
        let _ = pipe.write_all(&input);
        drop(pipe);
    });
    let output = child.wait_with_output().expect("wait for planmark");
    writer.join().expect("stdin writer thread");
    Run {
        status: output.status,
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// `planmark render --format text ARGS...` without stdin (these tests are about reading
/// input; the comment formats have their own tests in tests/comment_cli.rs).
fn render(args: &[&str]) -> Run {
    let mut all = vec!["render", "--format", "text"];
    all.extend_from_slice(args);
    run(&all, None)
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A unique path under the temp dir: `planmark-cli-<test>-<pid>-<n>-<suffix>`.
fn temp_path(test: &str, suffix: &str) -> PathBuf {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!(
        "planmark-cli-{test}-{}-{n}-{suffix}",
        std::process::id()
    ))
}

/// A temporary file (or directory) removed when dropped.
struct Temp {
    path: PathBuf,
}

impl Temp {
    fn file(test: &str, bytes: &[u8]) -> Temp {
        let path = temp_path(test, "plan.json");
        std::fs::write(&path, bytes)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        Temp { path }
    }

    fn dir(test: &str) -> Temp {
        let path = temp_path(test, "dir.json");
        std::fs::create_dir(&path)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", path.display()));
        Temp { path }
    }

    /// A path that does not exist (nothing is created; drop removes nothing).
    fn missing(test: &str) -> Temp {
        Temp {
            path: temp_path(test, "missing.json"),
        }
    }

    fn arg(&self) -> &str {
        self.path.to_str().expect("temp path is UTF-8")
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        if self.path.is_dir() {
            let _ = std::fs::remove_dir_all(&self.path);
        } else {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// No panic and no backtrace hint, whatever the outcome.
fn assert_no_panic(run: &Run) {
    for bad in ["panicked", "RUST_BACKTRACE"] {
        assert!(
            !run.stderr.contains(bad) && !run.stdout.contains(bad),
            "output mentions {bad:?}:\nstderr:\n{}\nstdout:\n{}",
            run.stderr,
            run.stdout
        );
    }
}

/// Exit code 2, nothing on stdout, and exactly one stderr line
/// `planmark: error: <path>: ...` containing every phrase.
fn assert_input_error(run: &Run, path: &str, phrases: &[&str]) {
    assert_no_panic(run);
    assert_eq!(
        run.code(),
        2,
        "exit code; stderr:\n{}\nstdout:\n{}",
        run.stderr,
        run.stdout
    );
    assert_eq!(run.stdout, "", "stdout must be empty on error");
    assert_one_line(&run.stderr);
    let prefix = format!("planmark: error: {path}: ");
    assert!(
        run.stderr.starts_with(&prefix),
        "stderr should start with {prefix:?}, got:\n{}",
        run.stderr
    );
    // Look for the phrases after the path, which may itself contain them.
    let problem = &run.stderr[prefix.len()..];
    for phrase in phrases {
        assert!(
            problem.contains(phrase),
            "the problem after the path should contain {phrase:?}, got:\n{}",
            run.stderr
        );
    }
}

fn assert_one_line(stderr: &str) {
    assert!(
        stderr.ends_with('\n') && stderr.matches('\n').count() == 1,
        "stderr should be exactly one line, got {} line(s):\n{stderr}",
        stderr.lines().count()
    );
}

/// Exit 0, stderr empty, no panic.
fn assert_success(run: &Run) {
    assert_no_panic(run);
    assert_eq!(
        run.code(),
        0,
        "exit code; stderr:\n{}\nstdout:\n{}",
        run.stderr,
        run.stdout
    );
    assert_eq!(run.stderr, "", "stderr must be empty on success");
}

/// Writes `bytes` to a temp file, renders it and checks the one-line error.
fn check_bad_plan(test: &str, bytes: &[u8], phrases: &[&str]) -> Run {
    let file = Temp::file(test, bytes);
    let out = render(&[file.arg()]);
    assert_input_error(&out, file.arg(), phrases);
    out
}

/// A plan creating `null_resource.a` whose `after` value is the given JSON text.
fn plan_creating(after: &str) -> String {
    format!(
        r#"{{"format_version":"1.2","terraform_version":"1.5.0","resource_changes":[{{"address":"null_resource.a","mode":"managed","type":"null_resource","name":"a","provider_name":"registry.terraform.io/hashicorp/null","change":{{"actions":["create"],"before":null,"after":{after},"after_unknown":{{}},"before_sensitive":false,"after_sensitive":{{}}}}}}]}}"#
    )
}

fn nested_arrays(depth: usize) -> String {
    let mut s = String::with_capacity(depth * 2);
    s.extend(std::iter::repeat_n('[', depth));
    s.extend(std::iter::repeat_n(']', depth));
    s
}

const BASIC_LIST: &str = "tests/fixtures/equivalence/basic_list";

// ---------------------------------------------------------------------------
// Unreadable files
// ---------------------------------------------------------------------------

#[test]
fn missing_file() {
    let file = Temp::missing("missing_file");
    let out = render(&[file.arg()]);
    assert_input_error(&out, file.arg(), &["cannot read"]);
}

#[test]
fn directory_instead_of_file() {
    let dir = Temp::dir("directory_instead_of_file");
    let out = render(&[dir.arg()]);
    assert_input_error(&out, dir.arg(), &["cannot read"]);
}

// ---------------------------------------------------------------------------
// Not a plan
// ---------------------------------------------------------------------------

#[test]
fn empty_file() {
    check_bad_plan("empty_file", b"", &["is empty", "terraform show -json"]);
}

#[test]
fn whitespace_only_file() {
    check_bad_plan(
        "whitespace_only_file",
        b"  \n\t\r\n  \n",
        &["is empty", "terraform show -json"],
    );
}

#[test]
fn not_json() {
    check_bad_plan("not_json", b"hello", &["not valid JSON"]);
}

#[test]
fn truncated_json() {
    let plan = std::fs::read(crate_dir().join(BASIC_LIST).join("plan.json")).unwrap();
    check_bad_plan(
        "truncated_json",
        &plan[..40],
        &["truncated", "terraform show -json"],
    );
}

#[test]
fn json_array() {
    check_bad_plan("json_array", b"[1,2]", &["array", "not a plan"]);
}

#[test]
fn json_array_holding_a_version_is_refused() {
    check_bad_plan(
        "json_array_holding_a_version_is_refused",
        br#"["1.2"]"#,
        &["array", "not a plan"],
    );
}

#[test]
fn json_string() {
    check_bad_plan(
        "json_string",
        br#""x""#,
        &["not a plan object", "terraform show -json"],
    );
}

#[test]
fn json_null_and_number() {
    check_bad_plan("json_null_and_number", b"null", &["not a plan object"]);
    check_bad_plan("json_null_and_number", b"42", &["not a plan object"]);
}

#[test]
fn trailing_data_after_plan() {
    check_bad_plan(
        "trailing_data_after_plan",
        br#"{"format_version":"1.2"} {}"#,
        &["trailing data"],
    );
}

#[test]
fn terraform_state_file() {
    check_bad_plan(
        "terraform_state_file",
        br#"{"version":4,"terraform_version":"1.5.0","serial":1,"lineage":"abc","outputs":{},"resources":[]}"#,
        &["state", "terraform show -json"],
    );
}

#[test]
fn show_json_of_state() {
    check_bad_plan(
        "show_json_of_state",
        br#"{"format_version":"1.0","terraform_version":"1.5.0","values":{"root_module":{}}}"#,
        &["state", "terraform show -json"],
    );
}

// ---------------------------------------------------------------------------
// format_version
// ---------------------------------------------------------------------------

#[test]
fn format_version_2_0_is_refused() {
    check_bad_plan(
        "format_version_2_0_is_refused",
        br#"{"format_version":"2.0"}"#,
        &["format_version", "2.0", "upgrade planmark"],
    );
}

#[test]
fn format_version_3_1_is_refused() {
    check_bad_plan(
        "format_version_3_1_is_refused",
        br#"{"format_version":"3.1","resource_changes":{"a new":"shape"}}"#,
        &["format_version", "3.1", "upgrade planmark"],
    );
}

#[test]
fn format_version_0_1_is_accepted() {
    let file = Temp::file(
        "format_version_0_1_is_accepted",
        br#"{"format_version":"0.1"}"#,
    );
    let out = render(&[file.arg()]);
    assert_success(&out);
    assert!(
        out.stdout.contains("No changes."),
        "stdout:\n{}",
        out.stdout
    );
}

#[test]
fn format_version_1_99_is_accepted() {
    let file = Temp::file(
        "format_version_1_99_is_accepted",
        br#"{"format_version":"1.99"}"#,
    );
    let out = render(&[file.arg()]);
    assert_success(&out);
    assert!(
        out.stdout.contains("No changes."),
        "stdout:\n{}",
        out.stdout
    );
}

#[test]
fn format_version_missing() {
    check_bad_plan(
        "format_version_missing",
        br#"{"resource_changes":[]}"#,
        &["format_version", "terraform show -json"],
    );
}

#[test]
fn format_version_not_a_version() {
    check_bad_plan(
        "format_version_not_a_version",
        br#"{"format_version":"abc"}"#,
        &["format_version", "abc"],
    );
}

// ---------------------------------------------------------------------------
// Wrong types
// ---------------------------------------------------------------------------

#[test]
fn resource_changes_is_an_object() {
    check_bad_plan(
        "resource_changes_is_an_object",
        br#"{"format_version":"1.2","resource_changes":{}}"#,
        &["`resource_changes`", "wrong type"],
    );
}

#[test]
fn resource_change_address_is_a_number() {
    check_bad_plan(
        "resource_change_address_is_a_number",
        br#"{"format_version":"1.2","resource_changes":[{"address":1}]}"#,
        &["resource_changes[0].address", "wrong type"],
    );
}

#[test]
fn format_version_is_a_number() {
    check_bad_plan(
        "format_version_is_a_number",
        br#"{"format_version":12}"#,
        &["`format_version`", "wrong type"],
    );
}

// ---------------------------------------------------------------------------
// Encodings and binary plans
// ---------------------------------------------------------------------------

#[test]
fn invalid_utf8() {
    check_bad_plan(
        "invalid_utf8",
        b"{\"format_version\":\"1.2\",\xff\xfe\"x\":1}",
        &["UTF-8", "terraform show -json"],
    );
}

#[test]
fn utf8_bom_before_valid_json() {
    check_bad_plan(
        "utf8_bom_before_valid_json",
        b"\xEF\xBB\xBF{\"format_version\":\"1.2\"}",
        &["byte-order mark", "UTF-8"],
    );
}

#[test]
fn binary_zip_plan() {
    check_bad_plan(
        "binary_zip_plan",
        b"PK\x03\x04\x14\x00\x00\x00\x08\x00tfplan\x00\x01\x02\xff",
        &["binary plan", "terraform show -json"],
    );
}

// ---------------------------------------------------------------------------
// Values
// ---------------------------------------------------------------------------

#[test]
fn numbers_beyond_64_bits_render_as_written() {
    let plan = plan_creating(r#"{"big":123456789012345678901234567890,"huge":1e400}"#);
    let file = Temp::file("numbers_beyond_64_bits_render_as_written", plan.as_bytes());
    let out = render(&[file.arg()]);
    assert_success(&out);
    assert!(
        out.stdout
            .contains("      + big  = 123456789012345678901234567890\n"),
        "stdout:\n{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("      + huge = 1e400\n"),
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
fn deep_array_nesting_in_after_is_an_error_not_a_crash() {
    let plan = plan_creating(&format!(r#"{{"deep":{}}}"#, nested_arrays(100_000)));
    let out = check_bad_plan(
        "deep_array_nesting_in_after_is_an_error_not_a_crash",
        plan.as_bytes(),
        &["null_resource.a", "too deep"],
    );
    // check_bad_plan already asserted a normal exit with code 2 (a stack overflow would
    // have killed the process with a signal).
    assert!(out.status.code().is_some());
}

#[test]
fn deep_object_nesting_in_after_is_an_error_not_a_crash() {
    let depth = 100_000;
    let mut deep = String::new();
    for _ in 0..depth {
        deep.push_str(r#"{"a":"#);
    }
    deep.push('1');
    deep.extend(std::iter::repeat_n('}', depth));
    let plan = plan_creating(&format!(r#"{{"deep":{deep}}}"#));
    check_bad_plan(
        "deep_object_nesting_in_after_is_an_error_not_a_crash",
        plan.as_bytes(),
        &["null_resource.a", "too deep"],
    );
}

#[test]
fn deep_nesting_in_an_output_change_is_an_error_not_a_crash() {
    let plan = format!(
        r#"{{"format_version":"1.2","output_changes":{{"o":{{"actions":["create"],"before":null,"after":{}}}}}}}"#,
        nested_arrays(100_000)
    );
    check_bad_plan(
        "deep_nesting_in_an_output_change_is_an_error_not_a_crash",
        plan.as_bytes(),
        &["too deep"],
    );
}

#[test]
fn deep_nesting_of_the_whole_document_is_an_error_not_a_crash() {
    let out = check_bad_plan(
        "deep_nesting_of_the_whole_document_is_an_error_not_a_crash",
        nested_arrays(100_000).as_bytes(),
        &[],
    );
    assert!(out.status.code().is_some());
}

// ---------------------------------------------------------------------------
// Flags and schemas
// ---------------------------------------------------------------------------

#[test]
fn bad_schemas_file() {
    let schemas = Temp::file("bad_schemas_file", b"hello");
    let plan = Temp::file("bad_schemas_file", br#"{"format_version":"1.2"}"#);
    let out = render(&["--schemas", schemas.arg(), plan.arg()]);
    assert_input_error(&out, schemas.arg(), &["terraform providers schema -json"]);
}

#[test]
fn missing_schemas_file() {
    let schemas = Temp::missing("missing_schemas_file");
    let plan = Temp::file("missing_schemas_file", br#"{"format_version":"1.2"}"#);
    let out = render(&["--schemas", schemas.arg(), plan.arg()]);
    assert_input_error(&out, schemas.arg(), &["cannot read"]);
}

/// Usage errors come from clap: multi-line (usage + hint) by design, exit 2, stdout empty.
fn assert_usage_error(out: &Run, phrases: &[&str]) {
    assert_no_panic(out);
    assert_eq!(out.code(), 2, "exit code; stderr:\n{}", out.stderr);
    assert_eq!(out.stdout, "", "stdout must be empty on a usage error");
    assert!(out.stderr.starts_with("error: "), "stderr:\n{}", out.stderr);
    for phrase in phrases {
        assert!(
            out.stderr.contains(phrase),
            "stderr should contain {phrase:?}, got:\n{}",
            out.stderr
        );
    }
}

#[test]
fn unknown_flag() {
    let plan = Temp::file("unknown_flag", br#"{"format_version":"1.2"}"#);
    let out = render(&["--bogus", plan.arg()]);
    assert_usage_error(&out, &["--bogus"]);
}

#[test]
fn bad_mode() {
    let plan = Temp::file("bad_mode", br#"{"format_version":"1.2"}"#);
    let out = render(&["--mode", "bogus", plan.arg()]);
    assert_usage_error(&out, &["bogus", "--mode", "refresh-only"]);
}

#[test]
fn render_without_plans() {
    let out = render(&[]);
    assert_usage_error(&out, &["<PLAN>"]);
}

// ---------------------------------------------------------------------------
// Standard input
// ---------------------------------------------------------------------------

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
    for phrase in ["Exit codes", "--schemas", "--mode", "PLAN"] {
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

#[test]
fn two_named_plans_each_under_a_heading() {
    let a = Temp::file("two_named_plans_a", br#"{"format_version":"1.2"}"#);
    let b = Temp::file(
        "two_named_plans_b",
        plan_creating(r#"{"triggers":{"a":"b"}}"#).as_bytes(),
    );
    let alone_a = render(&[a.arg()]);
    let alone_b = render(&[b.arg()]);
    assert_success(&alone_a);
    assert_success(&alone_b);

    let out = render(&[&format!("a={}", a.arg()), &format!("b={}", b.arg())]);
    assert_success(&out);
    assert!(out.stdout.starts_with("## a\n"), "stdout:\n{}", out.stdout);
    let expected = format!("## a\n{}\n## b\n{}", alone_a.stdout, alone_b.stdout);
    assert_eq!(out.stdout, expected);
    assert!(out.stdout.contains("No changes."));
    assert!(out.stdout.contains("# null_resource.a will be created"));
}

#[test]
fn second_plan_error_names_the_second_file() {
    let a = Temp::file("second_plan_error_a", br#"{"format_version":"1.2"}"#);
    let b = Temp::file("second_plan_error_b", b"hello");
    let out = render(&[&format!("a={}", a.arg()), &format!("b={}", b.arg())]);
    assert_no_panic(&out);
    assert_eq!(out.code(), 2, "stderr:\n{}", out.stderr);
    assert_one_line(&out.stderr);
    assert!(
        out.stderr
            .starts_with(&format!("planmark: error: {}: ", b.arg())),
        "stderr:\n{}",
        out.stderr
    );
}

#[test]
fn basic_list_fixture_renders_exactly() {
    let out = render(&[
        "--schemas",
        &format!("{BASIC_LIST}/schemas.json"),
        &format!("{BASIC_LIST}/plan.json"),
    ]);
    assert_success(&out);
    let expected =
        std::fs::read_to_string(crate_dir().join(BASIC_LIST).join("expected.txt")).unwrap();
    assert_eq!(out.stdout, expected);
}

#[cfg(target_os = "linux")]
#[test]
fn write_failure_exits_1() {
    let full = std::path::Path::new("/dev/full");
    if !full.exists() {
        eprintln!("skipped: no /dev/full");
        return;
    }
    let sink = std::fs::OpenOptions::new().write(true).open(full).unwrap();
    let output = command(&["render", &format!("{BASIC_LIST}/plan.json")])
        .stdin(Stdio::null())
        .stdout(Stdio::from(sink))
        .stderr(Stdio::piped())
        .output()
        .expect("run planmark");
    let out = Run {
        status: output.status,
        stdout: String::new(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    };
    assert_no_panic(&out);
    assert_eq!(out.code(), 1, "stderr:\n{}", out.stderr);
    assert_one_line(&out.stderr);
    assert!(
        out.stderr
            .starts_with("planmark: error: cannot write output"),
        "stderr:\n{}",
        out.stderr
    );
}
