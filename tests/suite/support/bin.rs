//! Helpers for tests that run the real `planmark` binary (`cli`, `broken_input` and
//! others): spawning it with a clean environment, temporary inputs removed on drop, and
//! the checks every error must pass (exit code, exactly one stderr line naming the file,
//! no panic or backtrace).
//!
//! The binary runs with its working directory at the crate root, `PLANMARK_SCHEMAS` and
//! `RUST_BACKTRACE` removed (so a panic would show Rust's "run with `RUST_BACKTRACE=1`"
//! note, which [`assert_no_panic`] looks for).

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};

/// What one run of the binary produced.
pub struct Run {
    pub status: ExitStatus,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The exit code; fails the test if the process was killed by a signal (a stack
    /// overflow or abort shows up here, not as a code).
    pub fn code(&self) -> i32 {
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
pub fn describe_signal(status: &ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status.signal() {
        Some(sig) => format!("killed by signal {sig}"),
        None => format!("{status}"),
    }
}

#[cfg(not(unix))]
pub fn describe_signal(status: &ExitStatus) -> String {
    format!("{status}")
}

pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn command(args: &[&str]) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_planmark"));
    cmd.args(args)
        .current_dir(crate_dir())
        .env_remove("PLANMARK_SCHEMAS")
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE");
    // Run inside a GitHub Actions job (the project's own CI), the output would be wrapped
    // to pause workflow commands, the footer would name the job's commit and the changes
    // would link to this checkout: each test sets the variables it is about.
    for (name, _) in std::env::vars_os() {
        let name = name.to_string_lossy();
        if name.starts_with("GITHUB_") || name.starts_with("RUNNER_") {
            cmd.env_remove(&*name);
        }
    }
    cmd
}

/// Runs `planmark ARGS...`, feeding `stdin` (or nothing: stdin is then empty/closed).
pub fn run(args: &[&str], stdin: Option<&[u8]>) -> Run {
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
/// input; the comment formats have their own tests in tests/suite/comment_cli.rs).
pub fn render(args: &[&str]) -> Run {
    let mut all = vec!["render", "--format", "text"];
    all.extend_from_slice(args);
    run(&all, None)
}

pub static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A unique path under the temp dir: `planmark-cli-<test>-<pid>-<n>-<suffix>`.
pub fn temp_path(test: &str, suffix: &str) -> PathBuf {
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!(
        "planmark-cli-{test}-{}-{n}-{suffix}",
        std::process::id()
    ))
}

/// A temporary file (or directory) removed when dropped.
pub struct Temp {
    pub path: PathBuf,
}

impl Temp {
    pub fn file(test: &str, bytes: &[u8]) -> Temp {
        let path = temp_path(test, "plan.json");
        std::fs::write(&path, bytes)
            .unwrap_or_else(|e| panic!("cannot write {}: {e}", path.display()));
        Temp { path }
    }

    pub fn dir(test: &str) -> Temp {
        let path = temp_path(test, "dir.json");
        std::fs::create_dir(&path)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", path.display()));
        Temp { path }
    }

    /// A path that does not exist (nothing is created; drop removes nothing).
    pub fn missing(test: &str) -> Temp {
        Temp {
            path: temp_path(test, "missing.json"),
        }
    }

    pub fn arg(&self) -> &str {
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
pub fn assert_no_panic(run: &Run) {
    for bad in ["panicked", "RUST_BACKTRACE", "stack backtrace"] {
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
pub fn assert_input_error(run: &Run, path: &str, phrases: &[&str]) {
    assert_exit(run, 2);
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

/// No panic, and the exit code `code` (the output shown when it differs).
pub fn assert_exit(run: &Run, code: i32) {
    assert_no_panic(run);
    assert_eq!(
        run.code(),
        code,
        "exit code; stderr:\n{}\nstdout:\n{}",
        run.stderr,
        run.stdout
    );
}

pub fn assert_one_line(stderr: &str) {
    assert!(
        stderr.ends_with('\n') && stderr.matches('\n').count() == 1,
        "stderr should be exactly one line, got {} line(s):\n{stderr}",
        stderr.lines().count()
    );
}

/// Exit 0, stderr empty, no panic.
pub fn assert_success(run: &Run) {
    assert_exit(run, 0);
    assert_eq!(run.stderr, "", "stderr must be empty on success");
}

/// Writes `bytes` to a temp file, renders it as text and as the comment (the default
/// format), and checks the one-line error of each; returns the text run.
pub fn check_bad_plan(test: &str, bytes: &[u8], phrases: &[&str]) -> Run {
    let file = Temp::file(test, bytes);
    let comment = run(&["render", file.arg()], None);
    assert_input_error(&comment, file.arg(), phrases);
    let text = render(&[file.arg()]);
    assert_input_error(&text, file.arg(), phrases);
    assert_eq!(text.stderr, comment.stderr, "both formats report alike");
    text
}

/// A plan creating `null_resource.a` whose `after` value is the given JSON text.
pub fn plan_creating(after: &str) -> String {
    format!(
        r#"{{"format_version":"1.2","terraform_version":"1.5.0","resource_changes":[{{"address":"null_resource.a","mode":"managed","type":"null_resource","name":"a","provider_name":"registry.terraform.io/hashicorp/null","change":{{"actions":["create"],"before":null,"after":{after},"after_unknown":{{}},"before_sensitive":false,"after_sensitive":{{}}}}}}]}}"#
    )
}

pub fn nested_arrays(depth: usize) -> String {
    let mut s = String::with_capacity(depth * 2);
    s.extend(std::iter::repeat_n('[', depth));
    s.extend(std::iter::repeat_n(']', depth));
    s
}
